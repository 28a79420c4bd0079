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
import os
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from autoalign.errors import InputError
from autoalign.types import FINAL_IMAGE, SUMMARY_FILE

CONFIG = "config.json"
TRACE = "trace.jsonl"
SUMMARY = SUMMARY_FILE
CHECKPOINT = "checkpoint.sqlite"
FINAL = FINAL_IMAGE


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` through a temp file and ``os.replace``: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, default=str)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
    path = out_dir.expanduser().absolute()
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise InputError(f"--out: {probe} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"--out: cannot write to {out_dir} ({probe} is not writable)")


def check_fresh(out_dir: Path) -> None:
    """InputError when ``out_dir`` already holds files (a fresh run would mix with them)."""
    if out_dir.is_dir() and any(out_dir.iterdir()):
        raise InputError(
            f"--out: {out_dir} is not empty; pass --resume {out_dir} to continue the run there, or choose another --out"
        )


class Trace:
    """Appends one JSON line per graph step to ``RUN/trace.jsonl``, flushed per line."""

    def __init__(self, path: Path):
        self.path = path
        self._fh = open(path, "a", encoding="utf-8")

    def write(self, record: dict[str, Any]) -> None:
        self._fh.write(json.dumps(record, default=str) + "\n")
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    @staticmethod
    def keep_first(path: Path, n: int) -> None:
        """Drop trace lines beyond the first ``n`` (steps a killed run traced but never checkpointed)."""
        if not path.exists():
            return
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        if len(lines) > n:
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(ln + "\n" for ln in lines[:n]), encoding="utf-8")
            os.replace(tmp, path)


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
