"""Run a suite through AutoAlign and record, per prompt and seed, three stages of the image.

* **baseline**: candidate 0 at the fixed seed, what the plain text-to-image model gives;
* **reranked**: the best of the N first-round candidates (best-of-N);
* **corrected**: the final image of the self-correction loop (absent in an audit).

Each stage is scored with VQ2, VNLI and CLIP and checked by the mismatch detector. ``bench_run``
appends one JSON line per (prompt, seed) to ``OUT/results.jsonl`` and flushes it, so a crash loses at
most the prompt in flight; rerunning skips every finished (id, seed, config hash). A failing prompt
is recorded with its error and the batch goes on (a rerun retries it). One process at a time owns
``OUT`` (a second ``bench run``/``audit`` on it is refused); a torn last line left by a kill is cut
away before the next append.

A rerun with another configuration is welcome: records are keyed by (id, seed, config hash) and each
configuration's runs live in their own folder, so nothing of the first is deleted or overwritten;
the reports cover the configuration of the latest invocation (``bench.json``).

The run needs two parts, both replaceable (tests pass named doubles):

* a :class:`LoopRunner` ``run(prompt, config, run_dir, models) -> RunOutcome``: runs the agent and
  says which image files are the stages (default :class:`AgentLoopRunner`, through
  ``autoalign.agents.runner.run``);
* a :class:`StageEvaluator` ``evaluate(prompt, images) -> {stage: record}`` (default
  :class:`ScorerEvaluator`: the Scorer and ``autoalign.detection.detect``).

Layout of ``OUT``::

    bench.json         suite, mode, config, config hash, seeds, threshold (the latest invocation)
    results.jsonl      one line per (prompt, seed, config); the last line of a key wins
    items/NAME/HASH/sSEED/   the agent's run directory for that prompt, config hash and seed
                       (NAME = autoalign.file_names.safe_file_name(id): safe, bounded, collision-free)
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Protocol

from autoalign import files
from autoalign.benchmarks.records import BenchRecord
from autoalign.benchmarks.suites import Suite, SuiteItem
from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.file_names import path_in
from autoalign.files import JsonlAppender, atomic_write_json, check_writable_dir, directory_lock, read_jsonl
from autoalign.redact import public_config, redact
from autoalign.types import RunResult

logger = logging.getLogger(__name__)

STAGES: tuple[str, ...] = ("baseline", "reranked", "corrected")
RESULTS_FILE = "results.jsonl"
META_FILE = "bench.json"


# --------------------------------------------------------------------------- the parts bench_run uses


@dataclass
class RunOutcome:
    """What one loop run produced: the stage images (paths) and the loop's own bookkeeping."""

    images: dict[str, Path]  # stage -> image file ("corrected" absent in an audit)
    rounds: int = 0
    edits_accepted: int = 0
    edits_rejected: int = 0
    stop_reason: str = ""
    instructions: list[dict[str, Any]] = field(default_factory=list)
    model_calls: dict[str, int] = field(default_factory=dict)


class LoopRunner(Protocol):
    def run(self, prompt: str, config: Config, run_dir: Path, models: Any) -> RunOutcome: ...


class StageEvaluator(Protocol):
    def evaluate(self, prompt: str, images: dict[str, Path]) -> dict[str, dict[str, Any]]:
        """Per stage: ``{"overall", "vq2", "vnli", "clip", "mismatches": [Mismatch dicts]}``."""
        ...

    def calls(self) -> dict[str, int]:
        """Model calls made so far (cumulative), for per-prompt accounting."""
        ...


def outcome_from_result(result: RunResult, correct: bool) -> RunOutcome:
    """The stage images and bookkeeping of one finished agent run (``result.run_dir`` must be set).

    Stage images: baseline = candidate 0 (``result.baseline``); reranked = the first-round best
    candidate (``result.first_best``); corrected = the final image (``result.final_image``).
    """
    if result.run_dir is None:
        raise ValueError("outcome_from_result needs a RunResult read from its run directory")
    baseline = result.path((result.baseline or result.final).path)
    reranked = result.path(result.first_best.path) if result.first_best else baseline
    images = {"baseline": baseline, "reranked": reranked}
    if correct:
        images["corrected"] = result.final_image_path
    return RunOutcome(
        images=images,
        rounds=result.rounds,
        edits_accepted=result.edits_accepted,
        edits_rejected=result.edits_rejected,
        stop_reason=result.stop_reason or "",
        instructions=[i.to_dict() for i in result.instructions],
        model_calls={k: int(v) for k, v in result.model_calls.items()},
    )


class AgentLoopRunner:
    """The real loop: ``autoalign.agents.runner.run`` writes a run dir; its result names the stages."""

    def __init__(self, correct: bool = True):
        self.correct = correct

    def run(self, prompt: str, config: Config, run_dir: Path, models: Any) -> RunOutcome:
        from autoalign.agents.runner import run as run_agent

        return outcome_from_result(run_agent(prompt, config, run_dir, models=models), self.correct)


class ScorerEvaluator:
    """Scores stage images with the project's Scorer (VQ2/VNLI/CLIP) and checks them with the detector.

    One Scorer for the whole batch (questions are cached per prompt); identical files are scored once.
    """

    def __init__(self, models: Any, config: Config):
        from autoalign.scoring.scorer import Scorer

        self.models = models
        self.config = config
        self.scorer = Scorer(models, config)
        self._detect_calls = 0

    def evaluate(self, prompt: str, images: dict[str, Path]) -> dict[str, dict[str, Any]]:
        from PIL import Image

        from autoalign.detection import detect

        unique = list(dict.fromkeys(str(p) for p in images.values()))
        pil = []
        for p in unique:
            with Image.open(p) as im:
                pil.append(im.convert("RGB"))
        cards = self.scorer.score(pil, prompt)
        per_file: dict[str, dict[str, Any]] = {}
        for path, image, card in zip(unique, pil, cards):
            mismatches = detect(image, prompt, card, self.models, self.config)
            self._detect_calls += 1
            per_file[path] = {
                "overall": card.overall,
                "vq2": card.vq2,
                "vnli": card.vnli,
                "clip": card.clip,
                "n_questions": len(card.questions),
                "mismatches": [m.to_dict() for m in mismatches],
            }
        return {stage: dict(per_file[str(p)]) for stage, p in images.items()}

    def calls(self) -> dict[str, int]:
        raw = getattr(self.scorer, "calls", {}) or {}
        # calls only: the Scorer also counts pairs, images and cache hits, which are not model calls
        out = {f"eval_{k}": int(v) for k, v in dict(raw).items()
               if isinstance(v, (int, float)) and not k.endswith(("_pairs", "_images", "_hits"))}
        out["eval_detect"] = self._detect_calls
        return out


# --------------------------------------------------------------------------- results file


def read_results(path: str | Path) -> list[BenchRecord]:
    """Every well-formed line of a results file, in order (a torn last line from a crash is skipped)."""
    path = Path(path)
    if path.is_dir():
        path = path / RESULTS_FILE
    contents = read_jsonl(path)
    for line_no, reason in contents.bad_lines:
        logger.warning("%s line %d skipped: %s", path, line_no, reason)
    records = []
    for value in contents.values:
        if isinstance(value, dict):
            records.append(BenchRecord.from_dict(value))
        else:
            logger.warning("%s: a line holds %s, not a record; skipped", path, type(value).__name__)
    return records


def latest_results(path: str | Path, config_hash: str | None = None) -> list[BenchRecord]:
    """The last record of each (id, seed, config hash), in first-seen order; optionally one config only."""
    latest: dict[tuple[str, int, str], BenchRecord] = {}
    for rec in read_results(path):
        if config_hash is not None and rec.config_hash != config_hash:
            continue
        latest[rec.key] = rec
    return list(latest.values())


class ResultsWriter(JsonlAppender):
    """Appends one JSON line per record (keys sorted) and makes it durable before returning.

    Opening it cuts away a torn last line a kill left, so the next record starts on a line of its own.
    """

    def __init__(self, path: Path):
        super().__init__(path, fsync=True, sort_keys=True)


# --------------------------------------------------------------------------- the batch


def write_meta(out: Path, meta: dict[str, Any]) -> None:
    """Replace ``OUT/bench.json`` atomically (a reader never sees a half-written file)."""
    atomic_write_json(Path(out) / META_FILE, meta)


def bench_config(config: Config, *, correct: bool) -> Config:
    """The config a bench runs under: an audit is the same preset with no edit rounds."""
    if correct:
        return config
    return dataclasses.replace(config, loop=dataclasses.replace(config.loop, max_rounds=0))


def seeds_for(config: Config, seeds: int) -> list[int]:
    if seeds < 1:
        raise InputError(f"--seeds must be >= 1 (got {seeds})")
    return [config.loop.seed + k for k in range(seeds)]


def stage_gain(record: BenchRecord, stage: str = "corrected", key: str = "overall") -> float | None:
    """``stage[key] - baseline[key]`` of one record, or None when either is missing."""
    before, after = record.stage("baseline"), record.stage(stage)
    a = None if before is None else before.score(key)
    b = None if after is None else after.score(key)
    if a is None or b is None:
        return None
    return b - a


def _diff_calls(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in after.items() if v - before.get(k, 0)}


def bench_run(
    suite: Suite,
    config: Config,
    out_dir: str | Path,
    *,
    limit: int | None = None,
    categories: Iterable[str] | None = None,
    seeds: int = 1,
    correct: bool = True,
    loop_runner: LoopRunner | None = None,
    evaluator: StageEvaluator | None = None,
    models: Any = None,
    progress: bool = True,
    on_record: Callable[[BenchRecord], None] | None = None,
    then: Callable[[list[BenchRecord]], Any] | None = None,
) -> list[BenchRecord]:
    """Run (or resume) a benchmark; return the current config's latest record per (prompt, seed).

    ``then(records)`` runs before ``out`` is let go (the CLI writes its reports there), so no other
    command can take the directory between the last prompt and the report. A ``batch`` or ``run``
    directory is refused as ``out``; a full or read-only disk ends the bench with one line
    (:class:`~autoalign.errors.StorageError`), the finished prompts kept for a rerun.

    ``correct=False`` is ``bench audit``: no edit rounds, stages baseline and reranked only.
    ``loop_runner``/``evaluator``/``models`` default to the real agent, Scorer + detector, and one
    shared :class:`~autoalign.models.cache.Models` for the whole batch.
    """
    out = Path(out_dir)
    cfg = bench_config(config, correct=correct)
    cfg.validate()
    selected = suite.select(categories=categories, limit=limit)
    seed_list = seeds_for(cfg, seeds)
    if loop_runner is None:  # the real agent: its backends and local model paths, before --out is touched
        from autoalign.agents.runner import preflight
        from autoalign.models.doctor import require_ready

        preflight(cfg)
        require_ready(cfg)  # CUDA, bf16, memory, gated repos, snapshots: one line (`autoalign models check`)
    check_writable_dir(out, "--out")
    files.check_owner(out, "bench")
    mode = "run" if correct else "audit"
    with directory_lock(out, f"bench {mode}"):
        files.claim_directory(out, "bench")
        files.remove_temporaries(out, recursive=True)
        records = _bench_run_locked(suite, cfg, out, selected, seed_list, mode, limit, categories, correct,
                                    loop_runner, evaluator, models, progress, on_record)
        if then is not None:
            then(records)
        return records


def _bench_run_locked(
    suite: Suite, cfg: Config, out: Path, selected: Suite, seed_list: list[int], mode: str, limit: int | None,
    categories: Iterable[str] | None, correct: bool, loop_runner: LoopRunner | None,
    evaluator: StageEvaluator | None, models: Any, progress: bool, on_record: Callable[[BenchRecord], None] | None,
) -> list[BenchRecord]:
    """:func:`bench_run` with ``out`` locked."""
    config_hash = cfg.hash()

    meta = {
        "suite": suite.name,
        "suite_source": suite.source,
        "suite_sha256": suite.sha256,
        "mode": mode,
        "preset": cfg.name,
        "config_hash": config_hash,
        "config": public_config(cfg),  # credentials recorded as set, never written
        "model_ids": redact(cfg.model_ids()),
        "seeds": seed_list,
        "threshold": cfg.loop.threshold,
        "limit": limit,
        "categories": list(categories) if categories else None,
        "n_items": len(selected),
    }
    write_meta(out, meta)

    done = {r.key for r in read_results(out) if r.ok}
    work = [(item, seed) for item in selected for seed in seed_list if (item.id, seed, config_hash) not in done]
    total = len(selected) * len(seed_list)
    logger.info("bench %s: %d of %d (prompt, seed) pairs to run, %d already done", mode, len(work), total, total - len(work))

    if models is None and (loop_runner is None or evaluator is None):
        from autoalign.models.cache import Models

        models = Models(cfg)
    loop_runner = loop_runner or AgentLoopRunner(correct=correct)
    evaluator = evaluator or ScorerEvaluator(models, cfg)

    gains = [g for r in latest_results(out, config_hash) if r.ok
             for g in [stage_gain(r, "corrected" if correct else "reranked")] if g is not None]
    writer = ResultsWriter(out / RESULTS_FILE)
    errors = 0
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=total, initial=total - len(work), desc=f"bench {mode} {suite.name}", unit="prompt")
    try:
        for item, seed in work:
            record = _run_one(item, seed, cfg, config_hash, mode, out, loop_runner, evaluator, models, correct)
            writer.write(record.to_dict())
            if on_record is not None:
                on_record(record)
            gain = stage_gain(record, "corrected" if correct else "reranked")
            if gain is not None:
                gains.append(gain)
            errors += not record.ok
            if bar is not None:
                bar.update(1)
                postfix = {"mean_gain": f"{sum(gains) / len(gains):+.3f}" if gains else "n/a"}
                if errors:
                    postfix["errors"] = errors
                bar.set_postfix(postfix, refresh=False)
    finally:
        writer.close()
        if bar is not None:
            bar.close()
    return latest_results(out, config_hash)


def evaluate_outcome(
    prompt: str, outcome: RunOutcome, evaluator: StageEvaluator, out: Path, threshold: float
) -> dict[str, Any]:
    """Score and check the stage images of one finished loop run; the result fields of an ok record.

    Returns ``status="ok"``, ``stages`` (per stage: the evaluator's scores and mismatches, the image
    path relative to ``out`` and ``vq2_below_threshold``), the loop's bookkeeping and ``model_calls``
    (the loop's calls plus the evaluator's calls for this prompt). Raises what the evaluator raises.
    """
    calls_before = dict(evaluator.calls())
    evaluated = evaluator.evaluate(prompt, outcome.images)
    stages = {}
    for stage in STAGES:
        if stage not in evaluated:
            continue
        rec = dict(evaluated[stage])
        image = Path(outcome.images[stage])
        try:
            rec["image"] = str(image.resolve().relative_to(Path(out).resolve()))
        except ValueError:
            rec["image"] = str(image)
        rec["vq2_below_threshold"] = rec.get("vq2") is not None and float(rec["vq2"]) < threshold
        stages[stage] = rec
    calls = dict(outcome.model_calls)
    calls.update(_diff_calls(evaluator.calls(), calls_before))
    return {
        "status": "ok",
        "error": None,
        "stages": stages,
        "rounds": outcome.rounds,
        "edits_accepted": outcome.edits_accepted,
        "edits_rejected": outcome.edits_rejected,
        "stop_reason": outcome.stop_reason,
        "instructions": outcome.instructions,
        "model_calls": calls,
    }


def error_fields(exc: BaseException) -> dict[str, Any]:
    """The result fields of a record whose prompt failed with ``exc`` (call inside the ``except``)."""
    return {
        "status": "error",
        "error": f"{type(exc).__name__}: {exc}",
        "traceback": traceback.format_exc(limit=8),
        "stages": {},
    }


def _run_one(
    item: SuiteItem,
    seed: int,
    cfg: Config,
    config_hash: str,
    mode: str,
    out: Path,
    loop_runner: LoopRunner,
    evaluator: StageEvaluator,
    models: Any,
    correct: bool,
) -> BenchRecord:
    """One (prompt, seed): run the loop in a fresh item folder, evaluate its stages, build the record."""
    run_dir = path_in(out / "items", item.id) / config_hash / f"s{seed}"
    if run_dir.exists():  # left by a crash: start the prompt again from scratch (seeded, so same result)
        shutil.rmtree(run_dir)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    seeded = dataclasses.replace(cfg, loop=dataclasses.replace(cfg.loop, seed=seed))
    record: dict[str, Any] = {
        "id": item.id,
        "seed": seed,
        "config_hash": config_hash,
        "mode": mode,
        "category": item.category,
        "prompt": item.prompt,
        "run_dir": str(run_dir.relative_to(out)),
    }
    t0 = time.perf_counter()
    try:
        outcome = loop_runner.run(item.prompt, seeded, run_dir, models)
        record.update(evaluate_outcome(item.prompt, outcome, evaluator, out, cfg.loop.threshold))
    except Exception as exc:  # noqa: BLE001 - a failing prompt is recorded and the batch goes on
        files.raise_if_storage(exc)  # ... but a full disk ends the bench in one line
        logger.warning("prompt %s (seed %d) failed: %s", item.id, seed, exc)
        record.update(error_fields(exc))
    record["wall_time_s"] = round(time.perf_counter() - t0, 4)
    return BenchRecord.from_dict(record)
