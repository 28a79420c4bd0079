"""Item ids and uploaded names -> file names, in one place.

Ids come from users (a batch file's ``id`` column, a suite's ids, an uploaded file's name) and may
hold anything: ``..``, ``/``, ``\\``, ``~``, NUL, control characters, Unicode look-alikes of those,
Windows' reserved names (``CON``, ``NUL``, ``COM1`` ...) or 10 kB of text. :func:`safe_file_name`
turns any id into one path component that

* is **safe**: only ``[a-z0-9._-]``, never empty, never ``.`` or ``..``, never starting with ``.``
  or ``-``, never a reserved name, so joined to a folder it names a file *in* that folder;
* is **bounded**: at most :data:`MAX_NAME` characters, whatever the id's length;
* is **collision-free**, also on case-insensitive file systems: an id that is already such a name
  (lower case, short, and not ending like a hashed name) is used as it is; any other id becomes a
  readable prefix plus ``-`` and 16 hex digits of the SHA-256 of the *exact* id. Distinct ids
  therefore get distinct names (barring a 64-bit hash collision), and ``a/b``, ``a_b`` and ``A_B``
  get three different folders.

The user's id is kept unchanged wherever it is recorded (ledger, manifest, results); only paths use
the safe name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from pathlib import Path

from autoalign.errors import InputError

MAX_READABLE = 48  # characters of the id kept readable in front of the hash
HASH_HEX = 16
MAX_NAME = MAX_READABLE + 1 + HASH_HEX

_WINDOWS_RESERVED = frozenset(
    ["con", "prn", "aux", "nul", "conin$", "conout$"]
    + [f"com{i}" for i in "123456789¹²³"]
    + [f"lpt{i}" for i in "123456789¹²³"]
)
_PLAIN = re.compile(r"[a-z0-9][a-z0-9._-]*")
_HASHED_TAIL = re.compile(r"-[0-9a-f]{%d}$" % HASH_HEX)


def _readable(item_id: str) -> str:
    """A lower-case ASCII rendering of ``item_id``: look-alikes folded (NFKC), the rest as ``_``."""
    text = unicodedata.normalize("NFKC", item_id).lower()
    text = re.sub(r"[^a-z0-9._-]+", "_", text)
    text = re.sub(r"\.{2,}", "_", text)  # no ".." inside a name either
    return text.strip("._-")[:MAX_READABLE].rstrip("._-")


def _reserved(name: str) -> bool:
    return name.split(".", 1)[0] in _WINDOWS_RESERVED


def safe_file_name(item_id: str) -> str:
    """The file or folder name for ``item_id`` (see the module docstring); deterministic."""
    if not isinstance(item_id, str):
        raise InputError(f"id must be text (got {type(item_id).__name__})")
    if (
        len(item_id) <= MAX_READABLE
        and _PLAIN.fullmatch(item_id)
        and ".." not in item_id
        and not item_id.endswith((".", "-", "_"))
        and not _HASHED_TAIL.search(item_id)
        and not _reserved(item_id)
    ):
        return item_id
    digest = hashlib.sha256(item_id.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_HEX]
    readable = _readable(item_id)
    if not readable or _reserved(readable):
        readable = f"id_{readable}" if readable else "id"
    return f"{readable}-{digest}"


def path_in(root: str | Path, item_id: str, suffix: str = "") -> Path:
    """``root / (safe_file_name(item_id) + suffix)``, checked to lie directly inside ``root``."""
    root = Path(root)
    name = safe_file_name(item_id) + suffix
    path = root / name
    if path.parent != root or Path(name).name != name:  # cannot happen; a last line of defence
        raise InputError(f"id {item_id[:60]!r} does not map to a file inside {root}")
    return path


__all__ = ["MAX_NAME", "path_in", "safe_file_name"]
