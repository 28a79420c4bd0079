"""The ablation of the world's CLIP: the same recipe without the one-edit-away hard negatives
(``autoalign world train --only clip-plain``); ``world eval`` compares the two on swapped pairs."""

from __future__ import annotations

from pathlib import Path

from autoalign.world.training import train_clip
from autoalign.world.training.train import Plan

PLAN = train_clip.PLAN
SMOKE_KWARGS = train_clip.SMOKE_KWARGS


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = train_clip.N_SCENES, resume: bool = True, progress: bool = True) -> dict:
    return train_clip.train(out_dir, seed=seed, plan=plan, n_scenes=n_scenes, resume=resume, progress=progress,
                            hard_negatives=False, name="clip-plain")
