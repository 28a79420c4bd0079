"""The words AutoAlign shows people about model output, in one place for the CLI, the studio and reports.

* :func:`clean_text` makes model text safe to print in a terminal or to put in HTML (after
  escaping): a random-weight or confused model can answer with U+FFFD replacement characters,
  control characters or terminal escape sequences.
* :func:`mismatch_words` says a FineMatch mismatch in words: "asked for blue, image shows pink"
  (the triplet's ``phrase`` is what the prompt asks for, its ``correction`` what the image shows).
* :func:`scores_warning` is the one plain warning for a configuration whose judges cannot judge:
  random-weight models (the preset flag ``random_weights = true``) or test doubles
  (``test_double = true``); ``""`` for real models.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

# Corrections that mean "the image does not show it" rather than naming what it shows instead.
ABSENT_CORRECTIONS: frozenset[str] = frozenset(
    {"", "no", "none", "nothing", "missing", "absent", "not present", "not shown", "n/a"}
)
# Roles whose models judge images (their output becomes scores and mismatches).
JUDGE_ROLES: tuple[str, ...] = ("vqa", "clip")
MODEL_ROLES: tuple[str, ...] = ("generator", "editor", "vqa", "clip", "questions", "llm")

_ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
_BIDI = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])


def clean_text(text: Any, max_chars: int | None = None) -> str:
    """``text`` with nothing a terminal or a web page would mangle or obey.

    Drops U+FFFD replacement characters, terminal escape sequences, bidirectional overrides,
    surrogates, private-use and unassigned code points; control characters (newlines and tabs
    included) become spaces and runs of white space one space. ``max_chars`` cuts the result with
    an ellipsis. ``None`` gives ``""``.
    """
    if text is None:
        return ""
    s = _ANSI.sub("", str(text))
    out: list[str] = []
    for ch in s:
        if ch == "\ufffd" or ord(ch) in _BIDI:
            continue
        category = unicodedata.category(ch)
        if category == "Cc":
            out.append(" ")
        elif category not in ("Cs", "Co", "Cn"):
            out.append(ch)
    s = re.sub(r"\s+", " ", "".join(out)).strip()
    if max_chars is not None and len(s) > max_chars:
        s = s[: max(0, max_chars - 1)].rstrip() + "…"
    return s


def _field(mismatch: Any, name: str) -> Any:
    if isinstance(mismatch, dict):
        return mismatch.get(name)
    return getattr(mismatch, name, None)


def mismatch_words(mismatch: Any, *, aspect: bool = False, max_chars: int | None = 80) -> str:
    """A mismatch (a ``Mismatch`` or its dict) in words: ``asked for blue, image shows pink``.

    Without a correction (or one that means "absent"): ``asked for a cat, image does not show it``; an object
    the grounder found without being sure what it is (``evidence["unsure"]``): ``asked for red square, image
    shows an unclear red square``.
    ``aspect=True`` prefixes the aspect: ``attribute: asked for blue, image shows pink``.
    """
    phrase = clean_text(_field(mismatch, "phrase"), max_chars) or "?"
    correction = clean_text(_field(mismatch, "correction"), max_chars)
    evidence = _field(mismatch, "evidence") or {}
    if isinstance(evidence, dict) and evidence.get("unsure") is True:  # the grounder is not sure what it found
        words = f"asked for {phrase}, image shows an unclear {correction or phrase}"
    elif correction.lower().strip(" .") in ABSENT_CORRECTIONS:
        words = f"asked for {phrase}, image does not show it"
    else:
        words = f"asked for {phrase}, image shows {correction}"
    kind = clean_text(_field(mismatch, "aspect"))
    return f"{kind}: {words}" if aspect and kind else words


def _get(config: Any, name: str, default: Any = None) -> Any:
    if isinstance(config, dict):
        return config.get(name, default)
    return getattr(config, name, default)


def _role(config: Any, role: str) -> tuple[str, str]:
    spec = _get(config, role) or {}
    return str(_get(spec, "backend") or ""), str(_get(spec, "model") or "")


def scores_warning(config: Any) -> str:
    """One plain sentence when ``config`` (a ``Config`` or its dict) judges with models that cannot judge.

    Reads the preset flags ``random_weights`` and ``test_double``; a configuration without them
    (an older run's stored config, a hand-written preset) is caught by its judging models instead:
    a ``tiny:`` model in a judging role, or a backend named as a double. ``""`` for real models.
    """
    if not config:
        return ""
    name = _get(config, "name") or "?"
    doubles = [r for r in MODEL_ROLES if "double" in " ".join(_role(config, r)).lower()]
    tiny = [r for r in MODEL_ROLES if _role(config, r)[1].startswith("tiny:")]
    is_double = bool(_get(config, "test_double")) or bool(doubles)
    is_random = bool(_get(config, "random_weights")) or any(r in tiny for r in JUDGE_ROLES)
    if is_double:
        roles = f" ({', '.join(doubles)})" if doubles else ""
        return (
            f"Preset {name!r} uses test doubles{roles} that draw and read a known scene and judge nothing: "
            "its scores show the loop's logic, not the quality of any model."
        )
    if is_random:
        roles = f" ({', '.join(tiny)})" if tiny else ""
        return (
            f"Preset {name!r} uses tiny random-weight models{roles}: its pictures are noise and its scores "
            "and mismatches mean nothing. They show that the machinery works, not the quality of any model; "
            "judge images with a real preset (autoalign models list)."
        )
    return ""
