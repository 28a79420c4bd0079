"""``autoalign batch``: correct a whole prompt file, durably, on one machine or on a Ray cluster.

The ledger (:mod:`autoalign.agents.ledger`) is the single source of truth; both engines feed from
it, so a batch interrupted under one engine resumes under the other. Each item runs the normal
loop (:func:`autoalign.agents.runner.run`) in ``DIR/items/<id>/`` (so an item killed mid-loop also
resumes from its checkpoint), and its final image is published atomically as ``DIR/images/<id>.png``.
A failing item is recorded with its error and the batch goes on; a full or read-only disk stops the
batch with one line (every later item would fail the same way), its items left to a rerun.

The directory belongs to ``batch`` from its first write to its last (the report included, through
``then``); a run or bench directory is refused as ``--out``. See docs/outputs.md.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import logging
import os
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from autoalign import files
from autoalign.agents.batch_inputs import BadRow, read_prompts
from autoalign.agents.batch_item import describe_error, image_path, item_dir, process_item, record_outcome
from autoalign.agents.ledger import Ledger
from autoalign.config import Config
from autoalign.errors import InputError, StorageError
from autoalign.redact import public_config

logger = logging.getLogger(__name__)

MANIFEST_FIELDS = (
    "id",
    "line",
    "prompt",
    "category",
    "seed",
    "status",
    "final_image",
    "score_before",
    "score_after",
    "rounds",
    "stop_reason",
    "attempts",
    "wall_s",
    "error",
)


@dataclass
class BatchReport:
    """What a batch did this time, and where the ledger stands."""

    out_dir: str
    selected: int = 0
    succeeded: int = 0  # finished in this invocation
    failed: int = 0  # failed in this invocation (after retries)
    skipped: int = 0  # already done with this config before this invocation
    changed: list[dict[str, Any]] = field(default_factory=list)  # ids whose content changed: run again
    bad_rows: list[dict[str, Any]] = field(default_factory=list)
    ledger: dict[str, int] = field(default_factory=dict)
    wall_s: float = 0.0
    engine: str = "local"

    @property
    def exit_code(self) -> int:
        """0 when every selected item is done and every row parsed; 1 otherwise."""
        return 0 if self.failed == 0 and not self.bad_rows and self.ledger.get("done", 0) >= self.selected else 1


# --- the directory ----------------------------------------------------------------------------


@contextmanager
def batch_lock(out_dir: Path) -> Iterator[None]:
    """One batch process per directory; a second one gets a clear error instead of a race."""
    with files.directory_lock(out_dir, "batch"):
        yield


def check_same_config(ledger: Ledger, config: Config, out_dir: Path) -> None:
    """A batch directory holds one configuration: refuse, before anything runs, a rerun with another.

    (Rerunning its items under a new config would mix two configurations in one manifest and
    report; use another ``--out`` for the new one.)
    """
    other = ledger.other_configs(config.hash())
    if other:
        hashes = ", ".join(sorted(other))
        raise InputError(
            f"--out {out_dir} holds {sum(other.values())} item(s) run with another configuration "
            f"(config hash {hashes}; this command's is {config.hash()}; see {out_dir / 'config.json'}); "
            "rerun with the same --preset, --config and flags to resume it, or choose another --out for the new configuration"
        )


# --- selecting items -------------------------------------------------------------------------


def parse_shard(shard: str | None) -> tuple[int, int] | None:
    if not shard:
        return None
    try:
        i, n = (int(x) for x in shard.split("/"))
    except ValueError:
        raise InputError(f"--shard must look like i/n, e.g. 0/4 (got {shard!r})") from None
    if n < 1 or not 0 <= i < n:
        raise InputError(f"--shard i/n needs 0 <= i < n (got {shard!r})")
    return i, n


def in_shard(item_id: str, shard: tuple[int, int] | None) -> bool:
    if shard is None:
        return True
    i, n = shard
    return int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % n == i


# --- one item --------------------------------------------------------------------------------


# --- engines ---------------------------------------------------------------------------------


def run_local(
    ledger: Ledger,
    ids: set[str],
    config: Config,
    out_dir: Path,
    *,
    retries: int,
    on_done: Callable[[bool], None] | None = None,
) -> tuple[int, int]:
    """Process the selected pending items one after another in this process; (succeeded, failed)."""
    from autoalign.models.cache import Models

    models = Models(config)  # one set of weights for the whole batch
    counts = {"done": 0, "failed": 0, "retry": 0}
    worker = f"local:{os.getpid()}"
    while True:
        row = ledger.claim(ids, worker, config.hash())
        if row is None:
            break
        row = dict(row)
        result, error = None, None
        try:
            result = process_item(row, config, out_dir, models)
        except KeyboardInterrupt:
            ledger.release(row["id"])
            raise
        except Exception as exc:  # noqa: BLE001 - one bad item must not end the batch
            if isinstance(exc, StorageError) or files.storage_error(exc):  # but a full disk ends it: one line
                ledger.release(row["id"])
                files.raise_if_storage(exc)
            logger.debug("%s", traceback.format_exc())
            error = describe_error(exc)
        counts[record_outcome(ledger, row, result, error, retries, on_done)] += 1
    return counts["done"], counts["failed"]


def run_batch(
    prompts_file: str | Path,
    out_dir: str | Path,
    config: Config,
    *,
    engine: str = "local",
    retries: int = 1,
    limit: int | None = None,
    shard: str | None = None,
    address: str | None = None,
    workers: int | None = None,
    gpus_per_worker: float | None = None,
    progress: bool = True,
    then: Callable[[BatchReport], Any] | None = None,
) -> BatchReport:
    """Run (or resume) a batch; returns what happened. See the module docstring.

    ``then(report)`` runs before the directory is let go (the CLI writes its reports there), so no
    other command can take the directory between the batch's last item and its report.
    """
    if engine not in ("local", "ray"):
        raise InputError(f"--engine must be 'local' or 'ray' (got {engine!r})")
    if workers is not None and workers < 1:
        raise InputError(f"--workers must be >= 1 (got {workers})")
    if gpus_per_worker is not None and gpus_per_worker < 0:
        raise InputError(f"--gpus-per-worker must be >= 0 (got {gpus_per_worker})")
    if retries < 0:
        raise InputError(f"--retries must be >= 0 (got {retries})")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be >= 1 (got {limit})")
    shard_spec = parse_shard(shard)
    parsed = read_prompts(prompts_file, max_chars=config.scoring.max_prompt_chars)
    out_dir = Path(out_dir)
    from autoalign.agents.runner import preflight

    config.validate()
    preflight(config)
    from autoalign.models.doctor import require_ready

    require_ready(config)  # CUDA, bf16, memory, gated repos, snapshots: one line, before --out is touched
    files.check_writable_dir(out_dir, "--out")
    files.check_owner(out_dir, "batch")
    if not parsed.items:
        first = f" (line {parsed.bad_rows[0].line}: {parsed.bad_rows[0].error})" if parsed.bad_rows else ""
        raise InputError(f"PROMPTS: {prompts_file} holds no usable prompt; {len(parsed.bad_rows)} bad row(s){first}")

    selected = [it for it in parsed.items if in_shard(it.id, shard_spec)]
    if limit is not None:
        selected = selected[:limit]
    ids = [it.id for it in selected]
    report = BatchReport(out_dir=str(out_dir), selected=len(selected), engine=engine)
    report.bad_rows = [dataclasses.asdict(b) for b in parsed.bad_rows]
    for bad in parsed.bad_rows:
        # info, not warning: the report carries them and ``autoalign batch`` prints each one once
        logger.info("%s line %d skipped: %s", Path(prompts_file).name, bad.line, bad.error)

    started = time.perf_counter()
    with batch_lock(out_dir):
        files.claim_directory(out_dir, "batch")
        ledger = Ledger(out_dir / "ledger.sqlite")
        try:
            check_same_config(ledger, config, out_dir)
            files.remove_temporaries(out_dir, recursive=True)
            _write_json(out_dir / "bad_rows.json", report.bad_rows)
            # credentials are recorded as set, never written (autoalign.redact)
            _write_json(out_dir / "config.json", {"config": public_config(config), "config_hash": config.hash()})
            for item in ledger.reset_changed(selected):
                _forget_outputs(out_dir, item.id)
                report.changed.append({"id": item.id, "line": item.line})
                # info, not warning: the report carries them and ``autoalign batch`` prints each one once
                logger.info("line %d: id %r changed since it ran (prompt, seed or negative prompt); it runs again",
                            item.line, item.id)
            ledger.add(selected)
            ledger.prepare(ids, config.hash())
            report.skipped = ledger.statuses(ids)["done"]
            todo = ledger.statuses(ids)["pending"]
            bar = _progress(todo, progress)
            on_done = (lambda ok: bar.update(1)) if bar else None
            try:
                if engine == "local":
                    ok, bad = run_local(ledger, set(ids), config, out_dir, retries=retries, on_done=on_done)
                else:
                    from autoalign.agents.ray_engine import run_ray

                    ok, bad = run_ray(
                        ledger,
                        set(ids),
                        config,
                        out_dir,
                        retries=retries,
                        address=address,
                        workers=workers,
                        gpus_per_worker=gpus_per_worker,
                        on_done=on_done,
                    )
            finally:
                if bar:
                    bar.close()
            report.succeeded, report.failed = ok, bad
            report.ledger = ledger.statuses(ids)
            write_manifest(ledger, out_dir)  # every item the ledger knows, whatever this run selected
        finally:
            ledger.close()
        report.wall_s = time.perf_counter() - started
        _write_json(out_dir / "batch_report.json", dataclasses.asdict(report) | {"exit_code": report.exit_code})
        if then is not None:
            then(report)
    return report


def _forget_outputs(out_dir: Path, item_id: str) -> None:
    """Remove an item's run directory and published image (its content changed: they show the old prompt)."""
    import shutil

    shutil.rmtree(item_dir(out_dir, item_id), ignore_errors=True)
    image_path(out_dir, item_id).unlink(missing_ok=True)


def _progress(total: int, enabled: bool):
    if not enabled or total == 0:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="batch", unit="item", smoothing=0.1)


def _write_json(path: Path, data: Any) -> None:
    files.atomic_write_json(path, data)


def manifest_rows(ledger: Ledger, ids: list[str] | None = None) -> list[dict[str, Any]]:
    rows = []
    for r in ledger.rows(ids):
        result = json.loads(r["result"]) if r["result"] else {}
        rows.append(
            {
                "id": r["id"],
                "line": r["line"],
                "prompt": r["prompt"],
                "category": r["category"],
                "seed": result.get("seed", r["seed"]),
                "status": r["status"],
                "final_image": r["final_image"],
                "score_before": result.get("score_before"),
                "score_after": result.get("score_after"),
                "rounds": result.get("rounds"),
                "stop_reason": result.get("stop_reason"),
                "attempts": r["attempts"],
                "wall_s": None if r["wall_s"] is None else round(r["wall_s"], 3),
                "error": r["error"],
            }
        )
    return rows


def write_manifest(ledger: Ledger, out_dir: Path) -> list[dict[str, Any]]:
    """``manifest.jsonl`` and ``manifest.csv``: every item the ledger knows, each file written atomically."""
    rows = manifest_rows(ledger)
    jsonl = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    files.atomic_write_text(out_dir / "manifest.jsonl", jsonl)
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(MANIFEST_FIELDS))
    writer.writeheader()
    writer.writerows(rows)
    files.atomic_write_text(out_dir / "manifest.csv", buf.getvalue())
    return rows


__all__ = ["BatchReport", "BadRow", "image_path", "item_dir", "run_batch", "process_item", "write_manifest"]
