"""Run the loop for one prompt into a run directory: validate, stream, trace, checkpoint, summarise.

::

    from autoalign.agents import runner
    result = runner.run("two red apples on a blue plate", config, Path("runs/apples"))  # a RunResult
    for step in runner.stream(prompt, config, out_dir):   # live progress: StreamUpdate per graph step
        print(step.node, step.round, step.update.stop_reason)

Every graph step is checkpointed (by default to ``RUN/checkpoint.sqlite``; thread id = the run id in
``config.json``) before the next one starts, so ``resume=True`` continues a killed run from its
last finished step; resuming a finished run just returns its result. See :mod:`.rundir` for
the files a run writes.
"""

from __future__ import annotations

import logging
import sqlite3
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from PIL import Image

import autoalign
from autoalign import files
from autoalign.agents import rundir
from autoalign.agents.graph import build_graph, recursion_limit
from autoalign.agents.nodes import final_candidate
from autoalign.agents.state import LoopContext
from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.redact import SET, SET_IN_URL, public_config, redact
from autoalign.scoring.scorer import check_prompt
from autoalign.types import Candidate, Instruction, Mismatch, Round, RunResult, RunScores, StepUpdate, StreamUpdate

logger = logging.getLogger(__name__)


def _warn_if_truncated(models: Any, prompt: str) -> None:
    """Log a warning when the generator's text encoder would cut the prompt short."""
    gen = models.generator
    count = getattr(gen, "count_prompt_tokens", None)
    limit_of = getattr(gen, "max_prompt_tokens", None)
    if count is None or limit_of is None:
        return
    limit = limit_of()
    if limit is None:
        return
    used = count(prompt)
    if used > limit:
        logger.warning(
            "the prompt is %d tokens long; the generator's text encoder reads only the first %d", used, limit
        )


def _context(config: Config, run_dir: Path, models: Any, scorer: Any, writer: Any, detector: Any) -> LoopContext:
    if models is None:
        from autoalign.models.cache import Models

        models = Models(config)
    if scorer is None:
        from autoalign.scoring.scorer import Scorer

        scorer = Scorer(models, config)
    if writer is None:
        from autoalign.editing import make_writer

        writer = make_writer(models, config)
    if detector is None:
        from autoalign.detection import detect as detector
    return LoopContext(config=config, models=models, run_dir=run_dir, scorer=scorer, writer=writer, detect=detector)


def _check_resume(out_dir: Path, prompt: str, config: Config) -> dict[str, Any] | None:
    """The stored ``config.json`` of a run to resume (None when the dir holds no run yet)."""
    path = out_dir / rundir.CONFIG
    if not path.exists():
        # What a run killed before config.json was in place can leave: the checkpoint database (with
        # the -wal / -shm files of SQLite's WAL mode) and an atomic write's temporary .config.json.*.tmp
        leftovers = (rundir.CHECKPOINT, f".{rundir.CONFIG}.", files.LOCK_NAME, files.OWNER_NAME)
        if out_dir.is_dir() and any(not p.name.startswith(leftovers) for p in out_dir.iterdir()):
            raise InputError(f"--resume: {out_dir} holds no {rundir.CONFIG}; it is not a run directory")
        return None
    stored = rundir.read_json(path, "--resume")
    if stored.get("config_hash") != config.hash():
        raise InputError(
            f"--resume: {out_dir} was run with a different configuration (hash {stored.get('config_hash')}, "
            f"now {config.hash()}); resume with the same preset and flags, or start a new run"
        )
    if stored.get("prompt") != prompt:
        raise InputError(f"--resume: {out_dir} was run with the prompt {stored.get('prompt')!r}, not {prompt!r}")
    return stored


def stored_run(out_dir: Path) -> dict[str, Any]:
    """The ``config.json`` of an existing run directory (for ``--resume RUN_DIR`` without a prompt).

    A batch or bench directory is named as such, with the command that resumes it.
    """
    out_dir = Path(out_dir)
    if (out_dir / "ledger.sqlite").exists():
        raise InputError(
            f"--resume: {out_dir} is a batch directory, not a run; rerun `autoalign batch PROMPTS --out {out_dir}` "
            f"to resume it, or pass one of its runs, --resume {out_dir / 'items' / 'ID'}"
        )
    if (out_dir / "bench.json").exists() or (out_dir / "results.jsonl").exists():
        raise InputError(
            f"--resume: {out_dir} is a bench directory, not a run; rerun the same `autoalign bench run ... --out {out_dir}` to resume it"
        )
    stored = rundir.read_json(out_dir / rundir.CONFIG, "--resume")
    if not isinstance(stored.get("prompt"), str) or "run_id" not in stored:
        raise InputError(f"--resume: {out_dir / rundir.CONFIG} is not the config.json of a run (no prompt or run_id)")
    return stored


def preflight(config: Config) -> None:
    """Check what can be checked without loading weights: every backend name, every local model path.

    Called before any output directory is created (``run``, ``batch``, ``bench run``), so a typo in a
    preset or ``--config`` is one line, not a directory of failed items.
    """
    from autoalign import registry
    from autoalign.config import MODEL_ROLES

    check_devices(config)
    for role in MODEL_ROLES:
        spec = getattr(config, role)
        registry.get(role, spec.backend)  # RegistryError (one line) listing the known backends
        model = spec.model or ""
        if model.startswith(("/", "./", "../", "~")) and not Path(model).expanduser().exists():
            raise InputError(f"{role}.model: the directory {model!r} does not exist")


def check_devices(config: Config) -> None:
    """InputError when ``device`` (or a role's) names a CUDA GPU or MPS this machine does not have.

    Only torch is asked (no weights load), so ``--device cuda`` on a CPU machine is refused in one
    line before any directory is made.
    """
    from autoalign.config import MODEL_ROLES

    wanted = {("device", config.device)} | {
        (f"{role}.device", getattr(config, role).device) for role in MODEL_ROLES if getattr(config, role).device
    }
    wanted = {(name, dev) for name, dev in wanted if dev not in (None, "auto", "cpu")}
    if not wanted:
        return
    import torch

    for name, dev in sorted(wanted):
        if dev.startswith("cuda"):
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            index = int(dev[5:]) if dev.startswith("cuda:") else 0
            if index >= count:
                have = f"{count} CUDA GPU(s)" if count else "no CUDA GPU"
                raise InputError(f"{name} {dev}: this machine has {have}; use --device cpu or --device auto")
        elif dev == "mps" and not torch.backends.mps.is_available():
            raise InputError(f"{name} mps: this machine has no Apple MPS device; use --device cpu or --device auto")


def check_text(value: str | None, what: str) -> None:
    """InputError when ``value`` cannot be written as UTF-8 (a lone surrogate such as ``\\ud800``)."""
    if value is None:
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{what}: holds a character that is not valid Unicode text ({value[exc.start]!r} at position {exc.start}, "
            "a lone surrogate); fix the text's encoding"
        ) from None


def secrets_to_supply(config_dict: dict[str, Any], prefix: str = "") -> list[str]:
    """The fields of a stored (redacted) config whose credential was not written and is still missing."""
    missing = []
    for key, value in config_dict.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            missing += secrets_to_supply(value, f"{name}.")
        elif isinstance(value, str) and (value == SET or SET_IN_URL in value):
            missing.append(name)
    return missing


def require_secrets(config: Config) -> None:
    """InputError when a config rebuilt from a run's ``config.json`` still lacks a credential it had.

    ``config.json`` records that a key was set, never the key; resuming needs it from the same
    ``--config`` file again.
    """
    missing = secrets_to_supply(config.to_dict())
    if missing:
        raise InputError(
            f"--resume: the run was made with {', '.join(missing)} set, which config.json does not store; "
            "pass the same --config file again"
        )


def sqlite_checkpointer(path: Path) -> tuple[sqlite3.Connection, Any]:
    """The default checkpointer: LangGraph's ``SqliteSaver`` on ``path`` (and its connection, to close)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(str(path), check_same_thread=False)
    files.watch_sqlite(conn, path.name)  # a fault point per write, when a kill test asks for one
    return conn, SqliteSaver(conn)


def stream(
    prompt: str,
    config: Config,
    out_dir: Path,
    *,
    init_image: str | None = None,
    resume: bool = False,
    models: Any = None,
    negative_prompt: str | None = None,
    scorer: Any = None,
    writer: Any = None,
    detector: Any = None,
    checkpointer: BaseCheckpointSaver | None = None,
) -> Iterator[StreamUpdate]:
    """Run (or resume) the loop, yielding a :class:`~autoalign.types.StreamUpdate` after each graph step.

    Inputs are checked before anything is written or loaded. ``models`` / ``scorer`` / ``writer`` /
    ``detector`` replace the library's defaults (tests pass doubles). ``checkpointer`` is where the
    graph's steps are saved (thread id = the run id): by default a ``SqliteSaver`` on
    ``RUN/checkpoint.sqlite``, built once per call and closed at the end; a given one (e.g.
    LangGraph's ``InMemorySaver`` in tests) is used as it is and left open. When the generator
    finishes, ``RUN/final.png`` and ``RUN/summary.json`` exist.
    """
    out_dir = Path(out_dir)
    config.validate()
    check_text(prompt, "prompt")
    check_text(negative_prompt, "negative prompt")
    prompt = check_prompt(prompt, config.scoring.max_prompt_chars)
    if init_image is not None:
        from autoalign.images import check_image

        check_image(init_image, f"--image {init_image}")
    if models is None:
        preflight(config)
    rundir.check_writable(out_dir)
    stored = _check_resume(out_dir, prompt, config) if resume else None
    if not resume:
        rundir.check_fresh(out_dir)
    with files.directory_lock(out_dir, "run"):  # one writer per run directory
        files.claim_directory(out_dir, "run")
        files.remove_temporaries(out_dir, recursive=True)  # what writes cut short by a kill left
        yield from _stream_locked(prompt, config, out_dir, init_image, stored, negative_prompt,
                                  models, scorer, writer, detector, checkpointer)


def _stream_locked(prompt: str, config: Config, out_dir: Path, init_image: str | None, stored: dict[str, Any] | None,
                   negative_prompt: str | None, models: Any, scorer: Any, writer: Any, detector: Any,
                   checkpointer: BaseCheckpointSaver | None) -> Iterator[StreamUpdate]:
    """:func:`stream` after its checks, with the run directory locked."""
    if stored is not None:
        init_image = stored.get("init_image")
        negative_prompt = stored.get("negative_prompt")
    run_id = stored["run_id"] if stored else uuid.uuid4().hex[:12]
    thread = {"configurable": {"thread_id": run_id}, "recursion_limit": recursion_limit(config.loop.max_rounds)}

    if stored is None:
        # config.json first, then the checkpoint database: a run killed in between holds its
        # config.json, so ``--resume RUN`` (without the prompt) finds what to start again.
        stored = {
            "run_id": run_id,
            "prompt": prompt,
            "negative_prompt": negative_prompt,
            "init_image": str(Path(init_image).absolute()) if init_image else None,
            "preset": config.name,
            "config_hash": config.hash(),
            "config": public_config(config),  # credentials recorded as set, never their values
            "autoalign_version": autoalign.__version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        files.atomic_write_json(out_dir / rundir.CONFIG, stored)
    conn = None
    if checkpointer is None:
        conn, checkpointer = sqlite_checkpointer(out_dir / rundir.CHECKPOINT)
    try:
        graph = build_graph().compile(checkpointer=checkpointer)
        try:
            if conn is not None:
                checkpointer.setup()
            snapshot = graph.get_state(thread)
            done = checkpointed_steps(graph, thread)
        except (sqlite3.DatabaseError, ValueError, TypeError, KeyError) as exc:
            raise InputError(
                f"--resume: the checkpoint {out_dir / rundir.CHECKPOINT} is unreadable ({exc}); start a new run"
            ) from None
        # The trace holds exactly the steps the checkpoint holds: steps traced but not checkpointed
        # go (the graph runs them again), steps checkpointed but not traced (killed while the line
        # was written) are rebuilt from the checkpoint.
        rundir.Trace.reconcile(out_dir / rundir.TRACE, done)
        # Complete only when no task is left. A task that finished but whose step was not yet
        # checkpointed (killed in between) leaves ``next`` empty too, with its writes pending in
        # ``tasks``: streaming from the checkpoint applies them and goes on.
        if snapshot.values and not snapshot.tasks:
            logger.info("run %s is already complete", out_dir)
            if not (out_dir / rundir.SUMMARY).exists():
                _finish(out_dir, snapshot.values, config, stored, _steps_in_trace(out_dir))
            return
        # No checkpoint yet (a new run, or killed before the first one): start it, same prompt and config.
        graph_input = None if snapshot.values else _initial(prompt, config, out_dir, init_image, negative_prompt)
        current_round = int(snapshot.values.get("round", 0)) if snapshot.values else 0

        ctx = _context(config, out_dir, models, scorer, writer, detector)
        if init_image is None and graph_input is not None:
            _warn_if_truncated(ctx.models, prompt)
        if graph_input is not None:
            from autoalign.vocabulary import warn_outside

            warn_outside(prompt, config)  # one warning naming the words the preset's models never saw
        trace = rundir.Trace(out_dir / rundir.TRACE)
        step = _steps_in_trace(out_dir)
        try:
            last = time.perf_counter()
            for chunk in graph.stream(graph_input, thread, context=ctx, stream_mode="updates", durability="sync"):
                for node, update in chunk.items():
                    if node == "__metadata__":  # LangGraph's marker on a resumed task's replayed update
                        continue
                    now = time.perf_counter()
                    update = update or {}
                    current_round = int(update.get("round", current_round))
                    trace.write(
                        {
                            "step": step,
                            "node": node,
                            "round": current_round,
                            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "duration_ms": round((now - last) * 1000.0, 3),
                            "model_ms": float((update.get("timings") or {}).get(node, 0.0)),
                            "update": rundir.slim(update),
                        }
                    )
                    typed = StreamUpdate(node=node, round=current_round, update=StepUpdate.from_dict(update), step=step)
                    step += 1
                    yield typed
                    last = time.perf_counter()  # the consumer's time is not the step's
            values = graph.get_state(thread).values
        finally:
            trace.close()
    finally:
        if conn is not None:
            conn.close()
    _finish(out_dir, values, config, stored, step)


def checkpointed_steps(graph: Any, thread: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(node, update) of every graph step the checkpoint holds as done, oldest first.

    A step is done when the checkpoint after it is saved: the tasks of every checkpoint but the
    newest, whose results LangGraph keeps with it. The newest checkpoint's tasks are still to run,
    or ran without their step being saved; streaming from the checkpoint runs (or replays) them.
    """
    history = list(graph.get_state_history(thread))  # newest first
    steps: list[tuple[str, dict[str, Any]]] = []
    for snapshot in reversed(history[1:]):
        for task in snapshot.tasks:
            if task.name.startswith("__"):  # __start__: the input, not a step of the loop
                continue
            result = task.result if isinstance(task.result, dict) else {}
            steps.append((task.name, result))
    return steps


def _initial(prompt: str, config: Config, out_dir: Path, init_image: str | None, negative_prompt: str | None) -> dict[str, Any]:
    return {
        "prompt": prompt,
        "negative_prompt": negative_prompt,
        "seed": config.loop.seed,
        "run_dir": str(out_dir),
        "init_image": str(Path(init_image).absolute()) if init_image else None,
        "round": 0,
        "rounds_without_gain": 0,
    }


def _steps_in_trace(out_dir: Path) -> int:
    return len(rundir.Trace.records(out_dir / rundir.TRACE))


def _overall(candidate: dict[str, Any] | None) -> float | None:
    if not candidate or not candidate.get("score"):
        return None
    return float(candidate["score"]["overall"])


def _trace_wall_s(out_dir: Path) -> float:
    total = sum(float(r.get("duration_ms") or 0.0) for r in rundir.Trace.records(out_dir / rundir.TRACE))
    return round(total / 1000.0, 3)


def summarize(values: dict[str, Any], config: Config, stored: dict[str, Any], steps: int, wall_s: float) -> RunResult:
    """The result of a finished run from its final graph state (what ``summary.json`` holds)."""
    final = final_candidate(values)
    candidates = values.get("candidates") or []
    baseline = candidates[0] if candidates else None
    first_best = values.get("first_best")
    rounds = [Round.from_dict(r) for r in values.get("rounds") or []]
    attempts = [a for r in rounds for a in r.attempts]
    final_mm = values.get("mismatches") if final.get("path") == values.get("mismatches_for") else None
    b, f, fb = _overall(baseline), _overall(final), _overall(first_best)
    return RunResult(
        run_id=stored.get("run_id"),
        prompt=values.get("prompt", ""),
        negative_prompt=values.get("negative_prompt"),
        init_image=values.get("init_image"),
        preset=config.name,
        config_hash=config.hash(),
        seed=int(values.get("seed", config.loop.seed)),
        models=config.model_ids(),
        writer=config.writer,
        rounds=int(values.get("round", 0)),
        max_rounds=config.loop.max_rounds,
        stop_reason=values.get("stop_reason"),
        scores=RunScores(baseline=b, first_best=fb, final=f),
        gain=None if b is None or f is None else f - b,
        gain_over_first_best=None if f is None or fb is None else f - fb,
        baseline=None if baseline is None else Candidate.from_dict(baseline),
        first_best=None if first_best is None else Candidate.from_dict(first_best),
        final=Candidate.from_dict(final),
        final_image=rundir.FINAL,
        mismatches_before=list(rounds[0].mismatches) if rounds
        else [Mismatch.from_dict(m) for m in values.get("mismatches") or []],
        mismatches_after=[Mismatch.from_dict(m) for m in final_mm or []],
        # the instructions tried, without the mismatches they address (those are in round_records)
        instructions=[Instruction(text=i["text"], writer=i.get("writer") or "", note=i.get("note", ""))
                      for i in values.get("instructions") or []],
        edits_accepted=sum(1 for a in attempts if a.decision.accepted),
        edits_rejected=sum(1 for a in attempts if not a.decision.accepted),
        round_records=rounds,
        graph_steps=steps,
        wall_time_s=wall_s,
        model_calls=values.get("model_calls") or {},
        model_ms=values.get("timings") or {},
        autoalign_version=autoalign.__version__,
    )


def _finish(out_dir: Path, values: dict[str, Any], config: Config, stored: dict[str, Any], steps: int) -> RunResult:
    summary = summarize(values, config, stored, steps, _trace_wall_s(out_dir))
    final_src = out_dir / summary.final.path
    with Image.open(final_src) as im:
        files.atomic_save_image(out_dir / rundir.FINAL, im)
    data = summary.to_dict()
    data["models"] = redact(data.get("models"))  # a model given as a URL keeps no token
    files.atomic_write_json(out_dir / rundir.SUMMARY, data)
    return summary


def result(out_dir: Path) -> RunResult:
    """The :class:`~autoalign.types.RunResult` of the finished run in ``out_dir`` (its ``summary.json``)."""
    data = rundir.read_json(Path(out_dir) / rundir.SUMMARY, "summary")
    try:
        return RunResult.from_dict(data, run_dir=out_dir)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"summary: {Path(out_dir) / rundir.SUMMARY} is not a run summary ({exc})") from None


def run(prompt: str, config: Config, out_dir: Path, **kwargs: Any) -> RunResult:
    """Run (or resume) the loop to the end and return its result (see :func:`stream`)."""
    for _ in stream(prompt, config, out_dir, **kwargs):
        pass
    return result(out_dir)
