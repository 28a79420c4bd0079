"""The training recipes by name (``autoalign world train --only NAME``), imported lazily."""

from __future__ import annotations

import importlib
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
}


def train(name: str, out_dir: Path, seed: int = 0, resume: bool = True, steps: int | None = None, progress: bool = True) -> dict:
    module = importlib.import_module(RECIPES[name])
    plan = module.PLAN if steps is None else module.PLAN.with_steps(steps)
    kwargs = {"seed": seed, "plan": plan, "resume": resume, "progress": progress}
    if steps is not None and hasattr(module, "SMOKE_KWARGS"):
        kwargs.update(module.SMOKE_KWARGS)
    target = Path(out_dir) / name
    stats = module.train(target, **kwargs)
    card = {"name": name, "recipe": RECIPES[name], "seed": seed, "plan": plan.__dict__, **stats,
            "trained_on": "the shapes world (autoalign/world), 2 CPU cores"}
    (target / "MODEL_CARD.json").write_text(json.dumps(card, indent=2, default=str), encoding="utf-8")
    return stats
