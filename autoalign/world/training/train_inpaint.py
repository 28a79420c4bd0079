"""Train the world's inpainting model: a 9-channel UNet in the ``StableDiffusionInpaintPipeline`` layout,
with the world's autoencoder and the generator's text encoder and tokenizer, saved as a
``StableDiffusionInpaintPipeline`` folder and run by the ``diffusers-inpaint`` region editor unchanged
(``RoleSpec("diffusers-inpaint", DIR, {...})``).

The UNet's input is what diffusers 0.42's ``StableDiffusionInpaintPipeline`` concatenates at every step,
in its order: the 4 noisy latents, the 1-channel mask at latent size (the pixel mask binarised at 0.5 and
shrunk with ``F.interpolate``'s default nearest mode), and the 4 latents of the masked image (the image
in [-1, 1] times ``mask < 0.5`` - masked pixels become 0 - encoded by the VAE, a sample of the posterior
times ``scaling_factor``). Training builds the same three parts from world scenes, rendered in code.

Initialisation: the generator's UNet and text encoder (``OUT/../generator`` when a whole-world run has
just trained one there, else the committed ``world:generator``); ``conv_in`` gets 5 extra input channels
that start at zero, so step 0 is the generator. Masks, half and half:

* a random rectangle (side 8 to 40 pixels) anywhere on a scene; the caption is the scene's caption;
* an object's box (from the scene graph), grown by 0 to 3 pixels: the target is the scene WITH that object,
  the masked image is the scene with the box blanked (as the pipeline blanks it: whatever is inside the
  mask of the image it is given never reaches the UNet), and the caption is the object's phrase
  ("a red circle", with its size half the time: the phrase the region editor's ``add_prompt = "a {phrase}"``
  sends) - so the model learns to draw the named object inside the mask.

10% of captions are dropped (the generator's rate), so classifier-free guidance works.

Runs on the CPU (``autoalign world train --only inpaint``) or a GPU (``--device cuda``); the weights are
written to ``OUT/inpaint`` (the package's ``autoalign/world/weights`` only when no ``--out`` is given) in
float16, as the other diffusion folders are.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path

from autoalign.world.scene import Group, Obj, sizes
from autoalign.world.training.train import Plan, fit

logger = logging.getLogger(__name__)

# Sized for a fresh CPU run of about 15 minutes on 2 idle cores (all world models within 120 minutes): a step
# (batch 48) cost 1.12x an editor step here (the same UNet with one more input channel, plus the VAE encoding
# the masked images: 3.2 + 0.37 s against 3.2 s, one thread on a loaded machine), and the editor ran
# 2,400 steps in 14.5 minutes on idle cores (0.36 s a step): 2,000 x 0.41 s = ~14 min, plus ~1 min of set-up.
PLAN = Plan(steps=2000, batch_size=48, lr=1e-3, warmup=60)
N_SCENES = 6000
SMOKE_KWARGS = {"n_scenes": 16}
CAPTION_DROPOUT = 0.1
OBJECT_MASKS = 0.5  # share of examples whose mask is an object's box (the rest: random rectangles)
RECT_SIDE = (8, 40)  # pixels, of a random rectangle
MAX_GROW = 3  # pixels added around an object's box (0 to this)


def object_box(o: Obj) -> tuple[float, float, float, float]:
    """The pixel box (x0, y0, x1, y1) an object covers."""
    h = sizes()[o.size]
    return (o.x - h, o.y - h, o.x + h, o.y + h)


def object_phrase(o: Obj, with_size: bool) -> str:
    """The phrase of one object: "a red circle" or "a small red circle"."""
    return Group(1, o.color, o.shape, o.size if with_size else None).phrase()


def mask_and_caption(spec, scene, size: int, rng: random.Random):
    """One training mask (mode "L", white = redraw) and its caption for a scene (module docstring)."""
    from autoalign.models.region_editor import box_mask

    if scene.objects and rng.random() < OBJECT_MASKS:
        o = rng.choice(scene.objects)
        return box_mask(object_box(o), (size, size), rng.randint(0, MAX_GROW)), object_phrase(o, rng.random() < 0.5)
    w, h = rng.randint(*RECT_SIDE), rng.randint(*RECT_SIDE)
    x, y = rng.randint(0, size - w), rng.randint(0, size - h)
    return box_mask((x, y, x + w, y + h), (size, size)), spec.caption()


def generator_dir(out_dir: Path) -> Path:
    """The generator to start from: one a whole-world run just wrote next to ``out_dir``, else the committed one."""
    from autoalign.models.loading import world_model_dir

    fresh = Path(out_dir).parent / "generator"
    return fresh if (fresh / "model_index.json").is_file() else world_model_dir("generator", "inpaint")


def nine_channel_unet(base_unet):
    """A copy of ``base_unet`` with 9 input channels: its ``conv_in`` weights for the latents, zeros for the
    mask and the masked image's latents."""
    import torch

    from autoalign.world.training import train_generator as gen

    model = gen.unet(in_channels=9)
    state = base_unet.state_dict()
    conv = state["conv_in.weight"]
    state["conv_in.weight"] = torch.cat([conv, torch.zeros(conv.shape[0], 5, *conv.shape[2:], dtype=conv.dtype)], dim=1)
    model.load_state_dict(state)
    return model


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = N_SCENES, resume: bool = True,
          progress: bool = True, device: str = "cpu") -> dict:
    import numpy as np
    import torch
    import torch.nn.functional as F
    from diffusers import StableDiffusionPipeline

    from autoalign.world.render import draw
    from autoalign.world.scene import IMAGE_SIZE
    from autoalign.world.training import data as wdata
    from autoalign.world.training import train_generator as gen
    from autoalign.world.training.train_vae import to_tensor

    out_dir = Path(out_dir)
    source = generator_dir(out_dir)
    base = StableDiffusionPipeline.from_pretrained(source, torch_dtype=torch.float32)
    vae = base.vae.eval().requires_grad_(False)
    tok, encoder = base.tokenizer, base.text_encoder
    scenes = wdata.world_scenes("train", n_scenes)
    images = [draw(scene) for _, scene in scenes]
    pixels = to_tensor(images)  # (N, 3, 64, 64) in [-1, 1], as the pipeline's image processor gives them
    targets = gen.latents_of(vae, images)  # the posterior mode, scaled
    del images
    logger.info("inpaint: %d scenes; starting from %s", n_scenes, source)

    torch.manual_seed(seed)
    model = nine_channel_unet(base.unet)
    dev = torch.device(device)
    model.to(dev)
    encoder.to(dev)
    vae.to(dev)
    noise = gen.noise_scheduler()
    alphas = noise.alphas_cumprod.to(dev)
    latent_size = targets.shape[-1]

    def batch_loss(step: int, rng: random.Random):
        idx = [rng.randrange(len(scenes)) for _ in range(plan.batch_size)]
        masks, caps = [], []
        for i in idx:
            spec, scene = scenes[i]
            mask, caption = mask_and_caption(spec, scene, IMAGE_SIZE, rng)
            masks.append(np.asarray(mask, dtype=np.float32) / 255.0)
            caps.append("" if rng.random() < CAPTION_DROPOUT else caption)
        mask = torch.from_numpy(np.stack(masks)).unsqueeze(1).to(dev)
        mask = (mask >= 0.5).to(mask.dtype)  # the pipeline's mask processor binarises
        with torch.no_grad():
            masked = pixels[idx].to(dev) * (mask < 0.5)
            masked_latents = vae.encode(masked).latent_dist.sample() * vae.config.scaling_factor
        small = F.interpolate(mask, size=(latent_size, latent_size))
        x0 = targets[idx].to(dev)
        eps = torch.randn_like(x0)
        t = torch.randint(0, noise.config.num_train_timesteps, (len(idx),), device=dev)
        a = alphas[t].view(-1, 1, 1, 1)
        xt = a.sqrt() * x0 + (1 - a).sqrt() * eps  # DDPMScheduler.add_noise, on the device
        ids = tok(caps, padding="max_length", max_length=gen.MAX_TOKENS, truncation=True, return_tensors="pt").input_ids
        text = encoder(ids.to(dev))[0]
        pred = model(torch.cat([xt, small, masked_latents], dim=1), t, encoder_hidden_states=text).sample
        return F.mse_loss(pred, eps)

    stats = fit("inpaint", {"unet": model, "text_encoder": encoder}, plan, batch_loss, seed, resume=resume, progress=progress)
    for module in (model, encoder, vae):
        module.to("cpu")
    gen.save_pipeline(out_dir, vae, encoder, tok, model, pipeline="inpaint")
    return {**stats, "scenes": n_scenes, "device": str(dev), "initialised_from": "world:generator" if source.parent.name == "weights" else str(source),
            "object_mask_share": OBJECT_MASKS, "caption_dropout": CAPTION_DROPOUT,
            "params_unet": sum(p.numel() for p in model.parameters())}
