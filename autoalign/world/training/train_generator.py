"""Train the world's generator: a latent diffusion model in the Stable Diffusion layout, saved as a
``StableDiffusionPipeline`` folder and run by the ``diffusers`` generator backend unchanged.

Components: the world's ``AutoencoderKL`` (trained first, frozen here), a ``UNet2DConditionModel``
with cross-attention on 4x16x16 latents, a CLIP text encoder and a CLIP BPE tokenizer built in code
(CLIP's merges file from open_clip, cut short so the vocabulary stays small), trained jointly with the
standard noise-prediction loss and 10% caption dropout for classifier-free guidance. Sampling uses a
DPM-Solver++ scheduler with the training noise schedule.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

from autoalign.world.render import draw, scene_for
from autoalign.world.scene import spec_for
from autoalign.world.training.train import Plan, fit

logger = logging.getLogger(__name__)

PLAN = Plan(steps=2800, batch_size=48, lr=1e-3, warmup=100)
N_SCENES = 12000
SMOKE_KWARGS = {"n_scenes": 32}
CAPTION_DROPOUT = 0.1
MAX_TOKENS = 24
TOKENIZER_MERGES = 4000
TEXT_WIDTH = 64
BLOCK_CHANNELS = (48, 64)
HEAD_DIM = 16


def tokenizer():
    from transformers import CLIPTokenizer

    from autoalign.models.tiny import clip_bpe

    vocab, merges = clip_bpe(TOKENIZER_MERGES)
    return CLIPTokenizer(vocab=vocab, merges=merges, model_max_length=MAX_TOKENS)


def text_encoder(tok):
    from transformers import CLIPTextConfig, CLIPTextModel

    return CLIPTextModel(CLIPTextConfig(
        vocab_size=len(tok), hidden_size=TEXT_WIDTH, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=MAX_TOKENS, projection_dim=TEXT_WIDTH,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
    ))


def unet(in_channels: int = 4):
    from diffusers import UNet2DConditionModel

    # UNet2DConditionModel reads ``attention_head_dim`` as the number of heads (a naming quirk diffusers
    # keeps for old checkpoints), so heads of HEAD_DIM channels are asked for as channels // HEAD_DIM heads.
    # Rounds 1-9 passed 16 and got 16 heads of 3-4 channels: the same parameters, but a weaker attention
    # and 2.2x slower training on CPU (python -m experiments.train_step_cost).
    return UNet2DConditionModel(
        sample_size=16, in_channels=in_channels, out_channels=4,
        down_block_types=("CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "CrossAttnUpBlock2D"),
        block_out_channels=BLOCK_CHANNELS, layers_per_block=1, norm_num_groups=16,
        cross_attention_dim=TEXT_WIDTH, attention_head_dim=tuple(c // HEAD_DIM for c in BLOCK_CHANNELS),
    )


def noise_scheduler():
    from diffusers import DDPMScheduler

    return DDPMScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")


def sampler():
    from diffusers import DPMSolverMultistepScheduler

    return DPMSolverMultistepScheduler(num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012,
                                       beta_schedule="scaled_linear", algorithm_type="dpmsolver++", steps_offset=1)


def encode_text(tok, encoder, captions: list[str]):
    ids = tok(captions, padding="max_length", max_length=MAX_TOKENS, truncation=True, return_tensors="pt").input_ids
    return encoder(ids.to(encoder.device))[0]


def latents_of(vae, images, batch: int = 256, scaled: bool = True):
    """Latents (the mode of the posterior) of PIL images, times the VAE's scaling factor unless ``scaled``
    is False (an InstructPix2Pix source image: the pipeline encodes it unscaled)."""
    import torch

    from autoalign.world.training.train_vae import to_tensor

    out = []
    with torch.no_grad():
        for i in range(0, len(images), batch):
            latents = vae.encode(to_tensor(images[i : i + batch])).latent_dist.mode()
            out.append(latents * vae.config.scaling_factor if scaled else latents)
    return torch.cat(out)


def dataset(vae, n_scenes: int) -> tuple[list[str], "object"]:
    captions, images = [], []
    for i in range(n_scenes):
        spec = spec_for("train", i)
        captions.append(spec.caption())
        images.append(draw(scene_for(spec, i)))
    return captions, latents_of(vae, images)


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = N_SCENES, resume: bool = True,
          progress: bool = True, vae_dir: Path | None = None, device: str = "cpu") -> dict:
    import torch
    import torch.nn.functional as F

    from autoalign.world.training import train_vae

    vae_dir = Path(vae_dir or Path(out_dir).parent / "vae")
    vae = train_vae.load(vae_dir).eval().requires_grad_(False)
    captions, latents = dataset(vae, n_scenes)
    torch.manual_seed(seed)
    tok = tokenizer()
    encoder, model = text_encoder(tok), unet()
    noise = noise_scheduler()
    dev = torch.device(device)
    latents, encoder, model = latents.to(dev), encoder.to(dev), model.to(dev)

    def batch_loss(step: int, rng: random.Random):
        idx = [rng.randrange(len(captions)) for _ in range(plan.batch_size)]
        caps = ["" if rng.random() < CAPTION_DROPOUT else captions[i] for i in idx]
        x0 = latents[idx]
        eps = torch.randn_like(x0)
        t = torch.randint(0, noise.config.num_train_timesteps, (len(idx),), device=dev)
        xt = noise.add_noise(x0, eps, t)
        pred = model(xt, t, encoder_hidden_states=encode_text(tok, encoder, caps)).sample
        return F.mse_loss(pred, eps)

    stats = fit("generator", {"unet": model, "text_encoder": encoder}, plan, batch_loss, seed, resume=resume, progress=progress)
    save_pipeline(out_dir, vae, encoder.to("cpu"), tok, model.to("cpu"))
    return {**stats, "scenes": n_scenes, "device": str(dev),
            "params_unet": sum(p.numel() for p in model.parameters()),
            "params_text_encoder": sum(p.numel() for p in encoder.parameters())}


def save_pipeline(out_dir: Path, vae, encoder, tok, model, pipeline: str = "sd") -> None:
    import torch
    from diffusers import (
        StableDiffusionInpaintPipeline,
        StableDiffusionInstructPix2PixPipeline,
        StableDiffusionPipeline,
    )

    cls = {"sd": StableDiffusionPipeline, "ip2p": StableDiffusionInstructPix2PixPipeline,
           "inpaint": StableDiffusionInpaintPipeline}[pipeline]
    # diffusers records the folder the VAE was loaded from (a local path): name the world's VAE instead
    vae.register_to_config(_name_or_path="world:vae")
    pipe = cls(vae=vae, text_encoder=encoder, tokenizer=tok, unet=model, scheduler=sampler(),
               safety_checker=None, feature_extractor=None, requires_safety_checker=False)
    pipe.to(torch.float16)
    pipe.save_pretrained(out_dir, safe_serialization=True)
    pipe.to(torch.float32)
