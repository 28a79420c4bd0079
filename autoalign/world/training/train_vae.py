"""Train the world's autoencoder: a diffusers ``AutoencoderKL`` that maps 64x64 images to 4x16x16
latents (three blocks: a scale factor of 4), shared by the generator and the editor.

Loss: L1 + MSE reconstruction of augmented world images with a small KL term. After training the
config's ``scaling_factor`` is set to 1 / (standard deviation of the latents), as Stable
Diffusion's is, so the diffusion models see unit-variance latents.
"""

from __future__ import annotations

import random
from pathlib import Path

from autoalign.world.render import draw, scene_for
from autoalign.world.scene import spec_for
from autoalign.world.training.train import Plan, augment, fit

# 2,400 steps since round 23 (800 before). With 800 the autoencoder drew every green shape as a soft blob: a
# rendered small green triangle came back through it readable as a triangle in 1 of 29 validation scenes (other
# colours nearly all), and the oracle read 260 of 300 rendered validation scenes the same after the round trip.
# With 2,400: 29 of 29 and 298 of 300 (docs/lab-notes/round-23-vae.md). The generator and the editor work in its
# latent space, so they are retrained after it.
PLAN = Plan(steps=2400, batch_size=24, lr=1.5e-3, warmup=50)
SMOKE_KWARGS: dict = {}
KL_WEIGHT = 1e-6


def build():
    from diffusers import AutoencoderKL

    return AutoencoderKL(
        in_channels=3, out_channels=3,
        down_block_types=("DownEncoderBlock2D",) * 3, up_block_types=("UpDecoderBlock2D",) * 3,
        block_out_channels=(16, 32, 32), layers_per_block=1, latent_channels=4, norm_num_groups=8, sample_size=64,
    )


def to_tensor(images):
    import numpy as np
    import torch

    arr = np.stack([np.asarray(im.convert("RGB"), dtype=np.float32) / 127.5 - 1.0 for im in images])
    return torch.from_numpy(arr).permute(0, 3, 1, 2).contiguous()


def round_trip(vae, images):
    """``images`` (PIL) encoded and decoded by ``vae`` (the posterior's mode, no sampling), back as PIL images:
    what a generator working in its latents can at best draw (experiments.vae_roundtrip)."""
    import torch
    from PIL import Image

    with torch.no_grad():
        decoded = vae.decode(vae.encode(to_tensor(images)).latent_dist.mode()).sample
    return [Image.fromarray(((y.permute(1, 2, 0).clamp(-1, 1) + 1) * 127.5).round().byte().numpy()) for y in decoded]


def random_images(rng: random.Random, n: int, split: str = "train", strength: float = 0.3):
    out = []
    for _ in range(n):
        i = rng.randrange(1_000_000)
        out.append(augment(draw(scene_for(spec_for(split, i), i)), rng, strength))
    return out


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, resume: bool = True, progress: bool = True,
          device: str = "cpu") -> dict:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(seed)
    dev = torch.device(device)
    vae = build().to(dev)

    def batch_loss(step: int, rng: random.Random):
        x = to_tensor(random_images(rng, plan.batch_size)).to(dev)
        posterior = vae.encode(x).latent_dist
        recon = vae.decode(posterior.sample()).sample
        kl = posterior.kl().mean()
        return F.l1_loss(recon, x) + F.mse_loss(recon, x) + KL_WEIGHT * kl

    stats = fit("vae", {"vae": vae}, plan, batch_loss, seed, resume=resume, progress=progress)
    with torch.no_grad():
        x = to_tensor(random_images(random.Random(seed + 1), 256)).to(dev)
        latents = vae.encode(x).latent_dist.mode()
        std = float(latents.std())
        err = float((vae.decode(latents).sample - x).abs().mean())
    vae.to("cpu").register_to_config(scaling_factor=1.0 / std)
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    vae.to(torch.float16).save_pretrained(out_dir, safe_serialization=True)
    return {**stats, "device": str(dev), "latent_std": std, "recon_l1": err, "params": sum(p.numel() for p in vae.parameters())}


def load(path: Path):
    import torch
    from diffusers import AutoencoderKL

    return AutoencoderKL.from_pretrained(path, torch_dtype=torch.float32)
