"""The training recipes by name (``autoalign world train --only NAME``), imported lazily."""

from __future__ import annotations

import importlib
import inspect
import json
from pathlib import Path

#: name -> module with ``PLAN`` and ``train(out_dir, seed, plan, resume, progress)``; in training order
#: (the generator and the editor need the autoencoder; the editor starts from the generator's text encoder).
RECIPES = {
    "clip": "autoalign.world.training.train_clip",
    "clip-plain": "autoalign.world.training.train_clip_plain",
    "clip-swap": "autoalign.world.training.train_clip_swap",
    "vlm": "autoalign.world.training.train_vlm",
    "vae": "autoalign.world.training.train_vae",
    "generator": "autoalign.world.training.train_generator",
    "editor": "autoalign.world.training.train_editor",
    "grounder": "autoalign.world.training.train_grounder",
    "inpaint": "autoalign.world.training.train_inpaint",  # starts from the generator (9-channel inpainting UNet)
}


def train(name: str, out_dir: Path, seed: int = 0, resume: bool = True, steps: int | None = None, progress: bool = True,
          device: str | None = None) -> dict:
    """Run recipe ``name`` into ``out_dir/name`` and write its MODEL_CARD.json. ``device`` (a torch device
    such as "cuda"): only recipes whose ``train`` takes a ``device`` run elsewhere than the CPU."""
    from autoalign.errors import InputError

    module = importlib.import_module(RECIPES[name])
    plan = module.PLAN if steps is None else module.PLAN.with_steps(steps)
    kwargs = {"seed": seed, "plan": plan, "resume": resume, "progress": progress}
    if device not in (None, "cpu"):
        if "device" not in inspect.signature(module.train).parameters:
            raise InputError(f"the {name} recipe trains on the CPU only (got --device {device})")
        _check_device(device)
        kwargs["device"] = device
    if steps is not None and hasattr(module, "SMOKE_KWARGS"):
        kwargs.update(module.SMOKE_KWARGS)
    target = Path(out_dir) / name
    stats = module.train(target, **kwargs)
    card = {"name": name, "recipe": RECIPES[name], "seed": seed, "plan": plan.__dict__, **stats,
            "trained_on": f"the shapes world (autoalign/world), {'2 CPU cores' if device in (None, 'cpu') else device}"}
    (target / "MODEL_CARD.json").write_text(json.dumps(card, indent=2, default=str), encoding="utf-8")
    return stats


def _check_device(device: str) -> None:
    """One line, before anything is written, for a device torch cannot use here (a CUDA device on a machine or
    torch build without CUDA, a name torch does not know)."""
    import torch

    from autoalign.errors import InputError
    from autoalign.models.loading import cuda_state

    try:
        kind = torch.device(device).type
    except RuntimeError:
        raise InputError(f"--device {device} is not a torch device (cpu, cuda, cuda:N, mps)") from None
    if kind == "cuda" and not torch.cuda.is_available():
        raise InputError(f"--device {device}: torch sees no CUDA device here ({cuda_state()})")
    if kind == "mps" and not torch.backends.mps.is_available():
        raise InputError(f"--device {device}: torch sees no MPS device here")

