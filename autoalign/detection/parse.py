"""Turn a VLM's free-text answer into validated FineMatch triplets, without ever raising.

Models write JSON, JSON inside markdown fences, JSON cut off mid-way, Python-ish dicts, HTML, or
plain lines such as ``Entity: red car -> blue car``. :func:`parse_mismatches` accepts all of
these and then validates each candidate triplet:

1. schema: a class, a phrase and (optionally) a correction and a confidence, under any of the usual
   key names (``class``/``aspect``/``type``, ``phrase``/``span``, ``correction``/``fix`` ...),
   checked with a pydantic model;
2. the class must be one of the four FineMatch aspects or a synonym (:func:`normalise_aspect`);
3. the phrase must occur in the prompt, exactly or after snapping (:func:`snap_phrase`);
4. duplicates (same aspect and phrase) are merged, and at most ``max_items`` are kept, by
   confidence (the model's own ``confidence`` when it gives one, else ``default_confidence``).

Everything dropped is returned in :attr:`ParseResult.dropped` with the reason, and logged.
"""

from __future__ import annotations

import ast
import html
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from autoalign.detection.phrases import normalise_aspect, snap_phrase
from autoalign.types import Mismatch

logger = logging.getLogger(__name__)

MAX_RAW_CHARS = 20_000  # longer outputs are cut before parsing (bounded work on runaway generations)
MAX_CORRECTION_CHARS = 200

_CLASS_KEYS = ("class", "aspect", "type", "category", "label", "aspect_class", "mismatch_type", "kind")
_PHRASE_KEYS = ("phrase", "span", "aspect_phrase", "mismatched_phrase", "mismatch", "text", "caption_phrase", "wrong")
_CORRECTION_KEYS = ("correction", "corrected", "fix", "should_be", "suggestion", "corrected_phrase", "actual", "image_shows")
_LIST_KEYS = ("mismatches", "triplets", "mismatched_aspects", "aspects", "errors", "results", "items", "output")
_NONE_ANSWERS = re.compile(r"^\W*(none|no mismatch(es)?|nothing|n/?a|null|\[\s*\]|aligned|no errors?)\W*$", re.I)


class RawTriplet(BaseModel):
    """The schema one triplet must satisfy before the semantic checks (class, phrase in prompt)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    cls: str
    phrase: str
    correction: str = ""
    confidence: float | None = None

    @field_validator("cls", "phrase", "correction", mode="before")
    @classmethod
    def _scalar_to_str(cls, value: Any) -> Any:
        if value is None:
            return ""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        return value  # lists/dicts fail the str check

    @field_validator("phrase")
    @classmethod
    def _nonempty(cls, value: str) -> str:
        if not value:
            raise ValueError("empty phrase")
        return value

    @field_validator("confidence", mode="before")
    @classmethod
    def _probability(cls, value: Any) -> Any:
        try:
            value = float(value)
        except (TypeError, ValueError):
            return None
        return value if 0.0 <= value <= 1.0 else None


@dataclass
class ParseResult:
    """Valid mismatches (best first) and what was dropped, as ``(item, reason)`` pairs."""

    mismatches: list[Mismatch] = field(default_factory=list)
    dropped: list[tuple[Any, str]] = field(default_factory=list)


# ----------------------------------------------------------------------------- text clean-up
def _clean(raw: str) -> str:
    text = raw[:MAX_RAW_CHARS]
    text = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", " ", text)
    text = re.sub(r"</?[a-zA-Z][^<>]{0,200}>", " ", text)  # HTML tags, not JSON
    return html.unescape(text)


def _fenced_blocks(text: str) -> list[str]:
    """Contents of markdown code fences; an unterminated fence runs to the end of the text."""
    blocks = re.findall(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)(?:```|$)", text, flags=re.S)
    return [b for b in blocks if b.strip()]


def _balanced_objects(text: str) -> list[str]:
    """Every complete ``{...}`` substring, innermost-first order not guaranteed; strings respected."""
    out: list[str] = []
    stack: list[int] = []
    in_str: str | None = None
    escape = False
    for i, ch in enumerate(text):
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == in_str:
                in_str = None
            continue
        if ch == '"':
            in_str = ch
        elif ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            start = stack.pop()
            out.append(text[start : i + 1])
    return out


def _load(snippet: str) -> Any:
    snippet = snippet.strip()
    try:
        return json.loads(snippet)
    except (json.JSONDecodeError, ValueError):
        pass
    try:
        return ast.literal_eval(snippet)  # Python-style dicts with single quotes; literals only
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _lookup(d: dict[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).strip().lower(): v for k, v in d.items()}
    for key in keys:
        if key in lowered:
            return lowered[key]
    return None


def _triplet_dicts(value: Any) -> list[dict[str, Any]] | None:
    """Candidate triplet dicts inside a parsed JSON value, or None when it holds no triplet shape."""
    if isinstance(value, list):
        found = [v for v in value if isinstance(v, dict)]
        tuples = [v for v in value if isinstance(v, (list, tuple)) and len(v) in (2, 3)]
        found += [dict(zip(("class", "phrase", "correction"), t)) for t in tuples]
        return found if found or not value else None
    if isinstance(value, dict):
        inner = _lookup(value, _LIST_KEYS)
        if isinstance(inner, list):
            return _triplet_dicts(inner) or []
        if inner is None and any(str(k).strip().lower() in _LIST_KEYS for k in value):
            return []  # {"mismatches": null}
        if _lookup(value, _PHRASE_KEYS) is not None or _lookup(value, _CLASS_KEYS) is not None:
            return [value]
    return None


_LINE_PATTERNS = (
    # (entity, red car, blue car)  /  ("entity", "red car", "blue car")
    re.compile(r"^\(\s*(?P<c>[^,()]+?)\s*,\s*(?P<p>[^,()]+?)\s*(?:,\s*(?P<o>[^()]*?)\s*)?\)$"),
    # entity | red car | blue car
    re.compile(r"^(?P<c>[^|]+?)\s*\|\s*(?P<p>[^|]+?)\s*(?:\|\s*(?P<o>[^|]*?))?\s*$"),
    # Entity: red car -> blue car   /   [entity] "red car" => "blue car"
    re.compile(r"^\[?(?P<c>[A-Za-z ]{3,20})\]?\s*[:\-–]?\s+(?P<p>.+?)\s*(?:->|=>|→|should be|instead of)\s*(?P<o>.*)$"),
    re.compile(r"^(?P<c>[A-Za-z ]{3,20}):\s*(?P<p>.+?)\s*$"),
)


def _line_triplets(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", line).strip().strip("`")
        if not line:
            continue
        for pattern in _LINE_PATTERNS:
            m = pattern.match(line)
            if m:
                out.append(
                    {
                        "class": m.group("c").strip(" \"'"),
                        "phrase": m.group("p").strip(" \"'"),
                        "correction": (m.group("o") or "").strip(" \"'"),
                    }
                )
                break
    return out


def extract_candidates(raw: str) -> list[dict[str, Any]]:
    """Every triplet-shaped dict the output contains, before any validation."""
    text = _clean(raw)
    if _NONE_ANSWERS.match(text.strip()):
        return []
    sources = _fenced_blocks(text) + [text]
    for source in sources:
        whole = _triplet_dicts(_load(source))
        if whole is not None:
            return whole
    # Truncated or chatty output: salvage every complete object that looks like a triplet.
    found: list[dict[str, Any]] = []
    seen: set[str] = set()
    for source in sources:
        for snippet in _balanced_objects(source):
            value = _load(snippet)
            if isinstance(value, dict) and _lookup(value, _LIST_KEYS) is None:
                key = json.dumps(value, sort_keys=True, default=str)
                if key not in seen and (_lookup(value, _PHRASE_KEYS) is not None):
                    seen.add(key)
                    found.append(value)
        if found:
            return found
    return _line_triplets(text)


def _validate(item: dict[str, Any]) -> RawTriplet:
    return RawTriplet(
        cls=_lookup(item, _CLASS_KEYS),
        phrase=_lookup(item, _PHRASE_KEYS),
        correction=_lookup(item, _CORRECTION_KEYS),
        confidence=_lookup(item, ("confidence", "score", "probability")),
    )


def parse_mismatches(
    raw: Any,
    prompt: str,
    *,
    source: str = "vlm",
    max_items: int = 3,
    default_confidence: float = 0.5,
    evidence: dict[str, Any] | None = None,
) -> ParseResult:
    """Parse a model's answer into at most ``max_items`` valid mismatches. Never raises on the answer.

    ``evidence`` is copied into each mismatch's evidence (e.g. the backend name); the model's
    phrase is kept there as ``model_phrase`` when snapping changed it.
    """
    result = ParseResult()
    text = raw if isinstance(raw, str) else ("" if raw is None else str(raw))
    try:
        candidates = extract_candidates(text)
    except Exception as exc:  # noqa: BLE001 - a parser bug must not crash the loop; log it loudly
        logger.warning("could not parse %s output (%s): %.200r", source, exc, text)
        candidates = []
    by_key: dict[tuple[str, str], Mismatch] = {}
    for item in candidates:
        try:
            triplet = _validate(item)
        except ValidationError as exc:
            reason = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            result.dropped.append((item, f"schema: {reason}"))
            continue
        aspect = normalise_aspect(triplet.cls)
        if aspect is None:
            result.dropped.append((item, f"unknown class {triplet.cls!r}"))
            continue
        phrase = snap_phrase(triplet.phrase, prompt)
        if phrase is None:
            result.dropped.append((item, f"phrase {triplet.phrase!r} not in the prompt"))
            continue
        ev = dict(evidence or {})
        if phrase != triplet.phrase:
            ev["model_phrase"] = triplet.phrase
        mismatch = Mismatch(
            aspect=aspect,
            phrase=phrase,
            correction=triplet.correction[:MAX_CORRECTION_CHARS],
            confidence=triplet.confidence if triplet.confidence is not None else default_confidence,
            source=source,
            evidence=ev,
        )
        key = mismatch.key()
        if key in by_key:
            kept = by_key[key]
            result.dropped.append((item, "duplicate"))
            kept.confidence = max(kept.confidence, mismatch.confidence)
            kept.correction = kept.correction or mismatch.correction
            continue
        by_key[key] = mismatch
    ranked = sorted(by_key.values(), key=lambda m: -m.confidence)  # stable: model order breaks ties
    result.mismatches = ranked[:max_items]
    result.dropped.extend((m.to_dict(), f"over the limit of {max_items}") for m in ranked[max_items:])
    if result.dropped:
        # invalid triplets are worth a warning; merged duplicates and cuts to the limit only info
        invalid = any(reason != "duplicate" and not reason.startswith("over the limit") for _, reason in result.dropped)
        logger.log(
            logging.WARNING if invalid else logging.INFO,
            "%s output: kept %d triplet(s), dropped %d: %s",
            source,
            len(result.mismatches),
            len(result.dropped),
            "; ".join(reason for _, reason in result.dropped[:8]),
        )
    return result
