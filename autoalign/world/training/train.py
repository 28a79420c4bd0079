"""What every world training recipe shares: seeded, resumable runs with a progress bar.

A recipe (``train_vlm``, ``train_clip``, ``train_vae``, ``train_generator``, ``train_editor``)
builds a model and a batch function; :func:`fit` runs the optimisation with a tqdm bar showing
loss and ETA, saves a resumable checkpoint (model, optimiser, step, RNG states) every
``save_every`` steps into the work directory (atomically: a temp file renamed into place), and
resumes from it when present. The final weights are exported by the recipe into
``autoalign/world/weights/NAME`` (or ``--out``) - never the intermediate checkpoints.
"""

from __future__ import annotations

import logging
import math
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from autoalign.world.training.recipes import RECIPES

logger = logging.getLogger(__name__)

MODELS = tuple(RECIPES)  # in training order
#: Recipes trained only when named with ``--only``: no preset uses their models yet (the 9-channel
#: inpainting UNet, measured against the paste method in docs/lab-notes/round-15-issue-37.md).
OPT_IN = ("inpaint",)


def selected(only: list[str] | None) -> list[str]:
    """The recipes ``world train`` runs, in training order: those named, else every one but :data:`OPT_IN`."""
    return [n for n in MODELS if (n in only if only else n not in OPT_IN)]


def work_dir() -> Path:
    from autoalign.models.loading import autoalign_home

    return autoalign_home() / "world-train"


@dataclass
class Plan:
    """How long a recipe trains: steps, batch size, learning rate (cosine decay after warm-up)."""

    steps: int
    batch_size: int
    lr: float
    warmup: int = 100
    save_every: int = 200
    weight_decay: float = 0.01

    def with_steps(self, steps: int) -> "Plan":
        """The same plan for ``steps`` steps, its warm-up cut to at most half of them (smoke runs)."""
        return replace(self, steps=steps, warmup=min(self.warmup, max(1, steps // 2)))


def seed_everything(seed: int) -> None:
    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def lr_at(step: int, plan: Plan) -> float:
    if step < plan.warmup:
        return plan.lr * (step + 1) / plan.warmup
    progress = (step - plan.warmup) / max(1, plan.steps - plan.warmup)
    return plan.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress))))


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    import io

    import torch

    from autoalign.files import atomic_write_bytes

    buffer = io.BytesIO()
    torch.save(state, buffer)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, buffer.getvalue())


def fit(
    name: str,
    modules: dict[str, Any],
    plan: Plan,
    batch_loss: Callable[[int, random.Random], Any],
    seed: int,
    resume: bool = True,
    progress: bool = True,
) -> dict[str, float]:
    """Optimise ``modules``' parameters on ``batch_loss(step, rng)``; resumable (module docstring).

    Returns the last smoothed loss and the seconds spent (this run only).
    """
    import torch
    from tqdm.auto import tqdm

    params = [p for m in modules.values() for p in m.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=plan.lr, weight_decay=plan.weight_decay)
    ckpt = work_dir() / name / "checkpoint.pt"
    step, ema = 0, None
    rng = random.Random(seed)
    seed_everything(seed)
    if resume and ckpt.exists():
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        saved = dict(state.get("plan") or {})
        # the same plan, or the same plan run for longer (a run extended with more steps resumes)
        if saved == plan.__dict__ or ({**saved, "steps": plan.steps} == plan.__dict__ and state["step"] <= plan.steps):
            for key, module in modules.items():
                module.load_state_dict(state["modules"][key])
            optimizer.load_state_dict(state["optimizer"])
            step, ema = state["step"], state.get("ema")
            rng.setstate(state["rng"])
            torch.set_rng_state(state["torch_rng"])
            logger.info("%s: resuming at step %d of %d from %s", name, step, plan.steps, ckpt)
        else:
            logger.warning("%s: checkpoint %s was made with another plan; starting over", name, ckpt)
    for module in modules.values():
        module.train()
    start = time.time()
    bar = tqdm(total=plan.steps, initial=step, desc=f"train {name}", disable=not progress, dynamic_ncols=True)
    while step < plan.steps:
        for group in optimizer.param_groups:
            group["lr"] = lr_at(step, plan)
        loss = batch_loss(step, rng)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        value = float(loss.detach())
        ema = value if ema is None else 0.98 * ema + 0.02 * value
        step += 1
        bar.update(1)
        bar.set_postfix(loss=f"{ema:.4f}")
        if step % plan.save_every == 0 or step == plan.steps:
            _save_checkpoint(ckpt, {
                "modules": {k: m.state_dict() for k, m in modules.items()},
                "optimizer": optimizer.state_dict(),
                "step": step, "ema": ema, "plan": plan.__dict__,
                "rng": rng.getstate(), "torch_rng": torch.get_rng_state(),
            })
        if step % 100 == 0:
            logger.info("%s: step %d/%d loss %.4f", name, step, plan.steps, ema)
    bar.close()
    for module in modules.values():
        module.eval()
    return {"loss": float(ema or 0.0), "seconds": time.time() - start, "steps": plan.steps}


def clear_checkpoint(name: str) -> None:
    ckpt = work_dir() / name / "checkpoint.pt"
    if ckpt.exists():
        ckpt.unlink()


def augment(image, rng: random.Random, strength: float = 1.0):
    """Blur, noise and slight colour shifts, so judges also read blurry generated images."""
    import numpy as np
    from PIL import Image, ImageFilter

    if rng.random() < 0.6 * strength:
        image = image.filter(ImageFilter.GaussianBlur(radius=rng.uniform(0.3, 1.3)))
    arr = np.asarray(image, dtype=np.float32)
    if rng.random() < 0.5 * strength:
        arr = arr + np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(2, 10), arr.shape)
    if rng.random() < 0.5 * strength:
        arr = arr * rng.uniform(0.9, 1.1) + rng.uniform(-12, 12)
    return Image.fromarray(arr.clip(0, 255).astype("uint8"))
