"""A second ablation of the world's CLIP: half of the hard negatives that can be are *binding swaps*
(two objects exchange colours, a relation is reversed) - the negatives of ColorSwap and BiVLC -
instead of one-edit-away captions (``autoalign world train --only clip-swap``)."""

from __future__ import annotations

from pathlib import Path

from autoalign.world.training import train_clip
from autoalign.world.training.train import Plan

PLAN = train_clip.PLAN
SMOKE_KWARGS = train_clip.SMOKE_KWARGS


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = train_clip.N_SCENES, resume: bool = True, progress: bool = True) -> dict:
    return train_clip.train(out_dir, seed=seed, plan=plan, n_scenes=n_scenes, resume=resume, progress=progress,
                            swaps=True, name="clip-swap")
