"""Read a prompt file for ``autoalign batch``: ``.txt``, ``.csv`` or ``.jsonl``, bad rows reported, good rows kept.

* ``.txt``: one prompt a line (blank lines and lines starting with ``#`` are skipped).
* ``.csv``: a header row with a ``prompt`` column and optional ``id``, ``seed``, ``negative_prompt``,
  ``category``. One record per line: a quoted field may not span lines (so one broken quote costs
  one row, not the rest of the file).
* ``.jsonl``: one JSON object a line with a ``prompt`` field and the same optional fields.

Every line is decoded on its own, so a line with non-UTF-8 bytes, JSON nested too deep to read, or
text that is not valid Unicode (a lone surrogate such as ``"\\ud800"`` in a JSON string) is reported as
that row's problem and the others survive.
Ids are the given ``id`` or derived from the content (prompt, seed, negative prompt), so reruns line up.
"""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from autoalign.config import ConfigError, check_seed
from autoalign.errors import InputError
from autoalign.files import check_input_file

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


def _check_unicode(value: Any, field_name: str) -> None:
    """ValueError when a text field holds a lone surrogate (JSON's ``"\\ud800"``): it cannot be stored or written."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"{field_name!r} holds a lone surrogate ({value[exc.start]!r} at position {exc.start}), "
                             "not valid Unicode text") from None


def _check_row(row: dict[str, Any], line: int, max_chars: int) -> BatchItem:
    from autoalign.scoring.scorer import check_prompt

    for name in ("prompt", *OPTIONAL_FIELDS):
        _check_unicode(row.get(name), name)

    prompt = row.get("prompt")
    if prompt is None:
        raise ValueError("no 'prompt' field")
    if not isinstance(prompt, str):
        raise ValueError(f"'prompt' must be text (got {type(prompt).__name__})")
    if not prompt.strip():
        raise ValueError("empty prompt")
    try:
        prompt = check_prompt(prompt, max_chars)
    except InputError as exc:  # the same rules as `autoalign run`, reported as this row's problem
        raise ValueError(str(exc)) from None
    seed = row.get("seed")
    if seed in ("", None):
        seed = None
    else:
        try:
            seed = check_seed(seed, "'seed'")
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
    neg = row.get("negative_prompt") or None
    if neg is not None and not isinstance(neg, str):
        raise ValueError(f"'negative_prompt' must be text (got {type(neg).__name__})")
    category = row.get("category") or None
    if category is not None and not isinstance(category, (str, int)):
        raise ValueError(f"'category' must be text (got {type(category).__name__})")
    category = None if category is None else str(category)
    raw_id = row.get("id")
    if raw_id is not None and (isinstance(raw_id, bool) or not isinstance(raw_id, (str, int))):
        raise ValueError(f"'id' must be text or a whole number (got {type(raw_id).__name__})")
    item_id = str(raw_id if raw_id is not None else "").strip() or derive_id(prompt, seed, neg)
    return BatchItem(id=item_id, prompt=prompt, line=line, seed=seed, negative_prompt=neg, category=category)


def read_prompts(path: str | Path, max_chars: int = 1000) -> BatchInput:
    """Parse ``path`` into items and bad rows (each with its 1-based line number)."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"prompt file not found: {path}")
    check_input_file(path, "PROMPTS")
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
        except RecursionError:
            out.bad_rows.append(BadRow(number, "JSON nested too deeply to read"))
            continue
        if item.id in seen:
            out.bad_rows.append(BadRow(number, f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
            continue
        seen[item.id] = number
        out.items.append(item)
    if kind == ".csv" and header is None:
        raise InputError(f"{path.name}: empty CSV (no header row)")
    return out
