"""A run directory: its layout, atomic JSON writes, the trace, and the checks made before a run.

::

    RUN/config.json        written at start: prompt, config, config hash, run id, version
    RUN/candidates/cand_00.png ...
    RUN/rounds/r01/i0_s0.png ...   edited samples (round, instruction, sample)
    RUN/trace.jsonl        one JSON line per graph step, flushed per line
    RUN/checkpoint.sqlite  LangGraph checkpoints (thread id = run id)
    RUN/final.png, RUN/summary.json   written at the end

A fresh run needs an empty or missing directory: a non-empty one is refused (pass ``--resume`` to
continue it, or another ``--out``), so two runs never mix files.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from autoalign import files
from autoalign.errors import InputError
from autoalign.types import FINAL_IMAGE, SUMMARY_FILE

CONFIG = "config.json"
TRACE = "trace.jsonl"
SUMMARY = SUMMARY_FILE
CHECKPOINT = "checkpoint.sqlite"
FINAL = FINAL_IMAGE


def read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{what}: {path} is missing") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{what}: cannot read {path} ({exc})") from exc
    if not isinstance(data, dict):
        raise InputError(f"{what}: {path} does not hold a JSON object")
    return data


def slug(prompt: str, length: int = 40) -> str:
    text = re.sub(r"[^a-z0-9]+", "-", prompt.lower()).strip("-")
    return text[:length].rstrip("-") or "run"


def default_out(prompt: str, root: Path = Path("runs")) -> Path:
    """``runs/<UTC timestamp>-<slug of the prompt>``."""
    return root / f"{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{slug(prompt)}"


def check_writable(out_dir: Path) -> None:
    """InputError unless ``out_dir`` exists as a writable directory or can be created. Creates nothing."""
    files.check_writable_dir(out_dir, "--out")


def check_fresh(out_dir: Path) -> None:
    """InputError when ``out_dir`` already holds files (a fresh run would mix with them)."""
    if out_dir.is_dir() and any(p.name not in (files.LOCK_NAME, files.OWNER_NAME) for p in out_dir.iterdir()):
        raise InputError(
            f"--out: {out_dir} is not empty; pass --resume {out_dir} to continue the run there, or choose another --out"
        )


class Trace:
    """Appends one JSON line per graph step to ``RUN/trace.jsonl``, flushed per line.

    Opening it cuts away a torn last line a killed run left (:class:`autoalign.files.JsonlAppender`).
    """

    def __init__(self, path: Path):
        self.path = path
        self._out = files.JsonlAppender(path, fsync=False)

    def write(self, record: dict[str, Any]) -> None:
        self._out.write(record)

    def close(self) -> None:
        self._out.close()

    @staticmethod
    def records(path: Path) -> list[dict[str, Any]]:
        """The trace's whole lines (a torn last line is skipped)."""
        return files.read_jsonl(path).values

    @staticmethod
    def reconcile(path: Path, done: list[tuple[str, dict[str, Any]]]) -> None:
        """Make the trace hold one line per checkpointed step, ``done`` being (node, update) in order.

        Lines past ``len(done)`` (traced, never checkpointed: the graph runs those steps again) go;
        steps the checkpoint holds but the trace lacks (a kill while their line was written) are
        rebuilt from the checkpoint, marked ``"rebuilt": true`` (their timings are unknown: null).
        A torn or bad line is dropped first. Rewritten atomically, only when something changes.
        """
        contents = files.read_jsonl(path)
        records = contents.values[: len(done)]
        changed = len(contents.records) != len(records) or contents.torn_tail or bool(contents.bad_lines)
        round_ = int(records[-1].get("round", 0)) if records else 0
        for step in range(len(records), len(done)):
            node, update = done[step]
            round_ = int(update.get("round", round_)) if isinstance(update.get("round", round_), int) else round_
            records.append({"step": step, "node": node, "round": round_, "time": None, "duration_ms": None,
                            "model_ms": float((update.get("timings") or {}).get(node, 0.0)),
                            "update": slim(update), "rebuilt": True})
            changed = True
        if changed:
            files.atomic_write_text(path, "".join(json.dumps(r, default=str, ensure_ascii=False) + "\n" for r in records))

    @staticmethod
    def keep_first(path: Path, n: int) -> None:
        """Keep only the first ``n`` records (steps a killed run traced but never checkpointed go)."""
        if not path.exists():
            return
        contents = files.read_jsonl(path)
        if len(contents.records) > n or contents.torn_tail or contents.bad_lines:
            files.atomic_write_text(path, "".join(json.dumps(r, default=str) + "\n" for r in contents.values[:n]))


def slim(value: Any) -> Any:
    """A copy for the trace without bulky fields: per-question score lists become their count."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "questions" and isinstance(v, list):
                out["n_questions"] = len(v)
            else:
                out[k] = slim(v)
        return out
    if isinstance(value, list):
        return [slim(v) for v in value]
    return value
