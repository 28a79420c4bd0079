"""Benchmark-style reports for an ``autoalign batch`` directory.

A batch (:mod:`autoalign.agents.batch`) leaves a ledger and one run directory per item
(``DIR/items/<id>/`` with its ``summary.json``). :func:`write_batch_reports` turns that into the same
files ``autoalign bench run`` writes, so a batch is read with the same tables and charts:

* ``DIR/results.jsonl`` — one bench record per item: the stages **baseline** (candidate 0),
  **reranked** (best of the first round) and **corrected** (the final image; absent when the config
  has no edit rounds), each re-scored with VQ2/VNLI/CLIP and checked by the mismatch detector
  (:class:`~autoalign.benchmarks.bench_runner.ScorerEvaluator`); failed items become ``status:
  "error"`` records so the report counts them;
* ``DIR/bench.json`` — suite (the prompt file's name), mode ``"batch"``, preset, config, config
  hash, model ids, seeds, threshold;
* ``DIR/summary.json``, ``DIR/summary.md``, ``DIR/report.html`` — from
  :func:`autoalign.benchmarks.report.write_reports`.

It is incremental: an item that already has an ok record with the same config hash is not evaluated
again, so rerunning after a resumed batch only scores the newly finished items. Records are appended
one line at a time and made durable (a torn last line from a crash is skipped on reading);
``bench.json`` and the reports are replaced atomically.

Only items that ran under ``config`` (the ledger's config hash equals ``config.hash()``) are
reported; pending items (not run yet, e.g. outside ``--limit``/``--shard``) are left out.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from autoalign.agents.batch import batch_lock
from autoalign.agents.batch_item import item_config, item_dir
from autoalign.agents.ledger import Ledger
from autoalign.benchmarks.bench_runner import (
    RESULTS_FILE,
    ResultsWriter,
    ScorerEvaluator,
    StageEvaluator,
    error_fields,
    evaluate_outcome,
    latest_results,
    outcome_from_result,
    write_meta,
)
from autoalign.benchmarks.records import BenchRecord
from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.redact import public_config, redact
from autoalign.types import RunResult

logger = logging.getLogger(__name__)

MODE = "batch"
DEFAULT_CATEGORY = "all"


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _item_result(batch_dir: Path, row: dict[str, Any]) -> RunResult:
    """The item's run result (its ``summary.json``, else the copy kept in the ledger)."""
    from autoalign.agents import rundir

    run_dir = batch_dir / row["run_dir"] if row.get("run_dir") else item_dir(batch_dir, row["id"])
    path = run_dir / rundir.SUMMARY
    if path.is_file():
        return RunResult.load(run_dir)
    result = json.loads(row["result"]) if row.get("result") else {}
    if isinstance(result.get("summary"), dict):
        return RunResult.from_dict(result["summary"], run_dir=run_dir)
    raise FileNotFoundError(f"{path} is missing and the ledger holds no summary for item {row['id']}")


def _base_record(row: dict[str, Any], seed: int, config_hash: str) -> dict[str, Any]:
    return {
        "id": row["id"],
        "seed": seed,
        "config_hash": config_hash,
        "mode": MODE,
        "category": row.get("category") or DEFAULT_CATEGORY,
        "prompt": row["prompt"],
        "run_dir": row.get("run_dir") or f"items/{row['id']}",
        "line": row.get("line"),
    }


def batch_record(
    row: dict[str, Any], batch_dir: Path, config: Config, evaluator: StageEvaluator
) -> BenchRecord:
    """The bench record of one finished (``done``) ledger row: its stage images evaluated.

    ``wall_time_s`` is the item's loop time from the ledger plus the evaluation time (as in a bench
    record, which times the loop and its evaluation together). An item whose evaluation fails gives
    an error record instead of raising.
    """
    cfg = item_config(config, row.get("seed"))
    record = _base_record(row, cfg.loop.seed, config.hash())
    t0 = time.perf_counter()
    try:
        outcome = outcome_from_result(_item_result(batch_dir, row), correct=cfg.loop.max_rounds > 0)
        record.update(evaluate_outcome(row["prompt"], outcome, evaluator, batch_dir, cfg.loop.threshold))
    except Exception as exc:  # noqa: BLE001 - one unreadable item must not stop the report
        logger.warning("batch item %s could not be evaluated: %s", row["id"], exc)
        record.update(error_fields(exc))
    eval_s = time.perf_counter() - t0
    record["eval_wall_s"] = round(eval_s, 4)
    record["wall_time_s"] = round(float(row.get("wall_s") or 0.0) + eval_s, 4)
    return BenchRecord.from_dict(record)


def failed_record(row: dict[str, Any], config: Config) -> BenchRecord:
    """The error record of a ledger row the batch gave up on (its last error, no stages)."""
    record = _base_record(row, item_config(config, row.get("seed")).loop.seed, config.hash())
    record.update(status="error", error=row.get("error") or "failed (no error recorded)", stages={},
                  attempts=row.get("attempts"), wall_time_s=round(float(row.get("wall_s") or 0.0), 4))
    return BenchRecord.from_dict(record)


def write_batch_reports(
    batch_dir: str | Path,
    config: Config,
    *,
    prompts_file: str | Path | None = None,
    models: Any = None,
    evaluator: StageEvaluator | None = None,
    ids: Iterable[str] | None = None,
    progress: bool = True,
) -> dict[str, Path]:
    """Evaluate the batch's finished items (only the new ones) and write the bench reports.

    ``batch_dir``: the ``--out`` of ``autoalign batch``; ``config``: the config the batch ran with.
    ``prompts_file`` names the suite in the report (default: the directory's name). ``models``
    (a :class:`~autoalign.models.cache.Models`) and ``evaluator`` default to ``Models(config)`` and a
    :class:`ScorerEvaluator`; the model cache is process-wide, so after ``run_batch`` in the same
    process no weights load twice. ``ids`` limits the report to those items. Returns the paths of
    every written file: ``results.jsonl``, ``bench.json``, ``summary.json``, ``summary.md``,
    ``report.html``.
    """
    from autoalign.benchmarks.report import write_reports

    out = Path(batch_dir)
    ledger_path = out / "ledger.sqlite"
    if not ledger_path.is_file():
        raise InputError(f"{out}: not a batch directory (no ledger.sqlite); pass the --out of `autoalign batch`")
    config_hash = config.hash()
    with batch_lock(out):
        ledger = Ledger(ledger_path)
        try:
            rows = [dict(r) for r in ledger.rows(list(ids) if ids is not None else None)]
        finally:
            ledger.close()
        ran = [r for r in rows if r["config_hash"] == config_hash and r["status"] in ("done", "failed")]
        skipped = len(rows) - len(ran)
        if skipped:
            logger.info("batch report: %d item(s) not run under config %s are left out", skipped, config_hash)

        latest = {r.key: r for r in latest_results(out / RESULTS_FILE, config_hash)}
        seeds = sorted({item_config(config, r.get("seed")).loop.seed for r in ran})
        prompts_path = Path(prompts_file) if prompts_file is not None else None
        meta = {
            "suite": prompts_path.name if prompts_path else out.name,
            "suite_source": str(prompts_path) if prompts_path else None,
            "suite_sha256": _sha256(prompts_path) if prompts_path else None,
            "mode": MODE,
            "preset": config.name,
            "config_hash": config_hash,
            "config": public_config(config),  # credentials recorded as set, never written
            "model_ids": redact(config.model_ids()),
            "seeds": seeds,
            "threshold": config.loop.threshold,
            "limit": None,
            "categories": None,
            "n_items": len(ran),
        }
        write_meta(out, meta)

        def key(row: dict[str, Any]) -> tuple[str, int, str]:
            return (row["id"], item_config(config, row.get("seed")).loop.seed, config_hash)

        def recorded(row: dict[str, Any]) -> bool:  # an ok record of this row's current prompt
            rec = latest.get(key(row))
            return rec is not None and rec.ok and (rec.prompt or row["prompt"]) == row["prompt"]

        def recorded_error(row: dict[str, Any]) -> str | None:
            rec = latest.get(key(row))
            return None if rec is None else rec.error

        to_eval = [r for r in ran if r["status"] == "done" and not recorded(r)]
        to_fail = [r for r in ran if r["status"] == "failed" and recorded_error(r) != r["error"]]
        logger.info("batch report: %d item(s) to evaluate, %d failed, %d already recorded",
                    len(to_eval), len(to_fail), len(ran) - len(to_eval) - len(to_fail))

        writer = ResultsWriter(out / RESULTS_FILE)
        bar = None
        try:
            for row in to_fail:
                writer.write(failed_record(row, config).to_dict())
            if to_eval:
                if evaluator is None:
                    if models is None:
                        from autoalign.models.cache import Models

                        models = Models(config)
                    evaluator = ScorerEvaluator(models, config)
                if progress:
                    from tqdm.auto import tqdm

                    bar = tqdm(total=len(to_eval), desc="batch report: evaluating", unit="item")
                for row in to_eval:
                    writer.write(batch_record(row, out, config, evaluator).to_dict())
                    if bar is not None:
                        bar.update(1)
        finally:
            writer.close()
            if bar is not None:
                bar.close()
        paths = write_reports(out)
    return {"results.jsonl": out / RESULTS_FILE, "bench.json": out / "bench.json", **paths}


__all__ = ["batch_record", "failed_record", "write_batch_reports"]
