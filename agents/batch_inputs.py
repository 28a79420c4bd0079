"""Read a prompt file for ``autoalign batch``: ``.txt``, ``.csv`` or ``.jsonl``, bad rows reported, good rows kept.

* ``.txt``: one prompt a line (blank lines and lines starting with ``#`` are skipped).
* ``.csv``: a header row with a ``prompt`` column and optional ``id``, ``seed``, ``negative_prompt``,
  ``category``. One record per line: a quoted field may not span lines (so one broken quote costs
  one row, not the rest of the file).
* ``.jsonl``: one JSON object a line with a ``prompt`` field and the same optional fields.

Every line is decoded on its own, so a line with non-UTF-8 bytes is reported and the others survive.
Ids are the given ``id`` or derived from the content (prompt, seed, negative prompt), so reruns line up.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autoalign.errors import InputError

SUPPORTED = (".txt", ".csv", ".jsonl")
OPTIONAL_FIELDS = ("id", "seed", "negative_prompt", "category")


@dataclass
class BatchItem:
    id: str
    prompt: str
    line: int
    seed: int | None = None
    negative_prompt: str | None = None
    category: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class BadRow:
    line: int
    error: str


@dataclass
class BatchInput:
    items: list[BatchItem] = field(default_factory=list)
    bad_rows: list[BadRow] = field(default_factory=list)


def derive_id(prompt: str, seed: int | None, negative_prompt: str | None) -> str:
    blob = json.dumps([prompt, seed, negative_prompt], ensure_ascii=False)
    return hashlib.sha1(blob.encode("utf-8")).hexdigest()[:12]


def _check_row(row: dict[str, Any], line: int, max_chars: int) -> BatchItem:
    prompt = row.get("prompt")
    if prompt is None:
        raise ValueError("no 'prompt' field")
    if not isinstance(prompt, str):
        raise ValueError(f"'prompt' must be text (got {type(prompt).__name__})")
    prompt = prompt.strip()
    if not prompt:
        raise ValueError("empty prompt")
    if len(prompt) > max_chars:
        raise ValueError(f"prompt has {len(prompt)} characters; the limit is {max_chars} (scoring.max_prompt_chars)")
    seed = row.get("seed")
    if seed in ("", None):
        seed = None
    else:
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise ValueError(f"'seed' must be an integer (got {seed!r})") from None
    neg = row.get("negative_prompt") or None
    category = row.get("category") or None
    item_id = str(row.get("id") or "").strip() or derive_id(prompt, seed, neg)
    return BatchItem(id=item_id, prompt=prompt, line=line, seed=seed, negative_prompt=neg, category=category)


def read_prompts(path: str | Path, max_chars: int = 1000) -> BatchInput:
    """Parse ``path`` into items and bad rows (each with its 1-based line number)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"prompt file not found: {path}")
    if path.suffix.lower() not in SUPPORTED:
        raise InputError(f"prompt file must be one of {', '.join(SUPPORTED)} (got {path.name})")
    raw_lines = path.read_bytes().split(b"\n")
    out = BatchInput()
    header: list[str] | None = None
    seen: dict[str, int] = {}
    kind = path.suffix.lower()
    for number, raw in enumerate(raw_lines, start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            out.bad_rows.append(BadRow(number, f"not valid UTF-8 ({exc.reason} at byte {exc.start})"))
            continue
        text = text.lstrip("\ufeff")
        try:
            if kind == ".txt":
                if text.lstrip().startswith("#"):
                    continue
                row: dict[str, Any] = {"prompt": text}
            elif kind == ".jsonl":
                row = json.loads(text)
                if not isinstance(row, dict):
                    raise ValueError("a line must be a JSON object")
            else:
                fields = next(csv.reader([text], strict=True))
                if header is None:
                    header = [f.strip().lower() for f in fields]
                    if "prompt" not in header:
                        raise InputError(f"{path.name}: the CSV header (line {number}) has no 'prompt' column: {header}")
                    continue
                if len(fields) != len(header):
                    raise ValueError(f"{len(fields)} fields, the header has {len(header)}")
                row = dict(zip(header, fields))
            item = _check_row(row, number, max_chars)
        except InputError:
            raise
        except (ValueError, csv.Error) as exc:  # json.JSONDecodeError is a ValueError
            out.bad_rows.append(BadRow(number, str(exc)))
            continue
        if item.id in seen:
            out.bad_rows.append(BadRow(number, f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
            continue
        seen[item.id] = number
        out.items.append(item)
    if kind == ".csv" and header is None:
        raise InputError(f"{path.name}: empty CSV (no header row)")
    return out
