"""One batch item: where its files go, the loop run for it, and its outcome in the ledger.

Both batch engines - the local loop in :mod:`autoalign.agents.batch` and the Ray actors in
:mod:`autoalign.agents.ray_engine` - import these, so neither imports the other.
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import Any, Callable

from autoalign import files
from autoalign.agents.ledger import Ledger
from autoalign.config import Config
from autoalign.file_names import path_in

logger = logging.getLogger(__name__)


def item_dir(out_dir: Path, item_id: str) -> Path:
    """``DIR/items/<safe name>/``: the item's run directory (its id, whatever it holds, stays inside)."""
    return path_in(out_dir / "items", item_id)


def image_path(out_dir: Path, item_id: str) -> Path:
    """``DIR/images/<safe name>.png``: the item's published final image."""
    return path_in(out_dir / "images", item_id, ".png")



def item_config(config: Config, seed: int | None) -> Config:
    if seed is None:
        return config
    return dataclasses.replace(config, loop=dataclasses.replace(config.loop, seed=int(seed)))


def process_item(row: dict[str, Any], config: Config, out_dir: Path, models: Any = None) -> dict[str, Any]:
    """Run the loop for one ledger row; publish its final image; return its manifest fields."""
    from autoalign.agents import rundir, runner

    run_dir = item_dir(out_dir, row["id"])
    cfg = item_config(config, row.get("seed"))
    resume = (run_dir / rundir.CHECKPOINT).exists()
    result = runner.run(
        row["prompt"],
        cfg,
        run_dir,
        resume=resume,
        models=models,
        negative_prompt=row.get("negative_prompt"),
    )
    final_dst = image_path(out_dir, row["id"])
    files.atomic_copy(result.final_image_path, final_dst)
    return {
        "final_image": str(final_dst.relative_to(out_dir)),
        "run_dir": str(run_dir.relative_to(out_dir)),
        "score_before": result.scores.first_best,
        "score_after": result.scores.final,
        "rounds": result.rounds,
        "stop_reason": result.stop_reason,
        "seed": cfg.loop.seed,
        "summary": result.to_dict(),
    }


def describe_error(exc: BaseException) -> str:
    msg = f"{type(exc).__name__}: {exc}"
    return msg.strip()


def record_outcome(
    ledger: Ledger,
    row: dict[str, Any],
    result: dict[str, Any] | None,
    error: str | None,
    retries: int,
    on_done: Callable[[bool], None] | None = None,
) -> str:
    """Write one item's outcome to the ledger (both engines): ``"done"``, ``"retry"`` or ``"failed"``."""
    if error is None:
        assert result is not None
        ledger.finish(row["id"], run_dir=result["run_dir"], final_image=result["final_image"], result=result)
        outcome = "done"
    else:
        logger.warning("item %s (line %s) failed: %s", row["id"], row["line"], error)
        ledger.fail(row["id"], error)
        if row["attempts"] <= retries:  # try again later in this same invocation
            ledger.retry(row["id"])
            return "retry"
        outcome = "failed"
    if on_done:
        on_done(outcome == "done")
    return outcome
