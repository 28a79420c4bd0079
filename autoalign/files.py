"""One home for durable files: atomic writes, append-only JSON lines, and one writer per directory.

* **Atomic writes** (:func:`atomic_write_bytes`, :func:`atomic_write_text`, :func:`atomic_write_json`,
  :func:`atomic_save_image`, :func:`atomic_copy`): the data goes to a temporary file in the same
  directory (``.NAME.RANDOM.tmp``), is flushed and fsynced, then ``os.replace``-d over ``NAME``. A
  reader sees the old file or the new one, never half of one; a crash leaves at most a temporary
  file, which :func:`remove_temporaries` clears.
* **Append-only JSON lines** (:func:`read_jsonl`, :class:`JsonlAppender`): one reader for every
  ``.jsonl`` file, user input or our own ``trace.jsonl`` / ``results.jsonl``. It reports bad lines
  with their numbers instead of stopping at the first. A process killed during an append leaves a
  *torn* last line (no newline at the end): the reader skips it, and :func:`repair_jsonl_tail` (run
  by every :class:`JsonlAppender` before its first append) cuts it away, so the next record starts
  on a clean line and the file never ends a run for good.
* **One writer per output directory** (:func:`directory_lock`): an exclusive ``flock`` on
  ``DIR/.autoalign.lock``. The kernel drops it when the holder dies, even by SIGKILL, so a crash
  never leaves a directory locked; a second command on the same directory is refused at once with
  one line naming the command that holds it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autoalign.errors import InputError

logger = logging.getLogger(__name__)

TMP_SUFFIX = ".tmp"
LOCK_NAME = ".autoalign.lock"


# --------------------------------------------------------------------------- atomic writes


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same directory, fsync, ``os.replace``)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: str | Path, data: Any, *, indent: int | None = 2) -> None:
    """:func:`atomic_write_bytes` of ``data`` as JSON (non-JSON values via ``str``), ending in a newline."""
    atomic_write_text(path, json.dumps(data, indent=indent, default=str, ensure_ascii=False) + "\n")


def atomic_save_image(path: str | Path, image: Any, format: str = "PNG") -> None:
    """Save a PIL image to ``path`` atomically."""
    import io

    buf = io.BytesIO()
    image.save(buf, format=format)
    atomic_write_bytes(path, buf.getvalue())


def atomic_copy(src: str | Path, dst: str | Path) -> None:
    """Copy ``src`` over ``dst`` atomically."""
    atomic_write_bytes(dst, Path(src).read_bytes())


def remove_temporaries(folder: str | Path) -> int:
    """Delete the temporary files that writes cut short by a crash left in ``folder``; how many."""
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    removed = 0
    for tmp in folder.glob(f".*{TMP_SUFFIX}"):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)
            removed += 1
    return removed


def _fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: some file systems refuse to open a directory)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- JSON lines


@dataclass
class JsonlContents:
    """What :func:`read_jsonl` found: the good records and the bad lines, each with its line number."""

    records: list[tuple[int, Any]] = field(default_factory=list)  # (1-based line, parsed value)
    bad_lines: list[tuple[int, str]] = field(default_factory=list)  # (1-based line, what is wrong)
    torn_tail: bool = False  # the last line has no newline and does not parse: an append cut short

    @property
    def values(self) -> list[Any]:
        return [value for _, value in self.records]


def read_jsonl(
    path: str | Path, *, objects_only: bool = True, append_only: bool = True, what: str | None = None
) -> JsonlContents:
    """Every line of a JSON-lines file, parsed on its own; blank lines are skipped.

    A line that is not UTF-8, not JSON, or (with ``objects_only``) not a JSON object is listed in
    ``bad_lines`` with its number and the reason; the other lines survive. A torn last line is
    reported as ``torn_tail`` (and not as a bad line). A missing file reads as empty. ``what`` names
    the file in errors (e.g. ``"--data"``); a path that is not a file raises :class:`InputError`.
    """
    path = Path(path)
    if not path.exists():
        return JsonlContents()
    if not path.is_file():
        raise InputError(f"{what or path}: {path} is not a file")
    data = path.read_bytes()
    out = JsonlContents()
    lines = data.split(b"\n")
    last = len(lines)  # the piece after the last newline ("" when the file ends with one)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            text = raw.decode("utf-8")
            if number == 1:
                text = text.lstrip("\ufeff")
            value = json.loads(text)
        except UnicodeDecodeError as exc:
            out.bad_lines.append((number, f"not valid UTF-8 ({exc.reason} at byte {exc.start})"))
            continue
        except json.JSONDecodeError as exc:
            if number == last and append_only:
                out.torn_tail = True
                logger.warning("%s line %d is cut short (an append was interrupted); skipped", path, number)
            else:
                out.bad_lines.append((number, f"not JSON ({exc.msg})"))
            continue
        if objects_only and not isinstance(value, dict):
            out.bad_lines.append((number, f"must be a JSON object (got {type(value).__name__})"))
            continue
        out.records.append((number, value))
    return out


def repair_jsonl_tail(path: str | Path) -> bool:
    """Make ``path`` end on a whole line; True when it changed anything.

    A last line without its newline is kept (the newline added) when it parses as JSON, and cut
    away otherwise: it is an append that a crash interrupted, and the record it held was never
    acknowledged.
    """
    path = Path(path)
    if not path.is_file():
        return False
    with open(path, "r+b") as fh:
        size = fh.seek(0, os.SEEK_END)
        if size == 0:
            return False
        # find the last newline, reading backwards in blocks
        pos, tail = size, b""
        while pos > 0:
            step = min(65536, pos)
            pos -= step
            fh.seek(pos)
            block = fh.read(step)
            cut = block.rfind(b"\n")
            if cut >= 0:
                tail = block[cut + 1 :] + tail
                pos += cut + 1
                break
            tail = block + tail
        if not tail:
            return False
        try:
            json.loads(tail.decode("utf-8"))
            whole = tail.strip() != b""
        except (UnicodeDecodeError, json.JSONDecodeError):
            whole = False
        if whole:
            fh.seek(0, os.SEEK_END)
            fh.write(b"\n")
            logger.info("%s: the last line lacked its newline; added", path)
        else:
            fh.truncate(pos)
            logger.warning("%s: cut away a torn last line (%d bytes) left by an interrupted append", path, len(tail))
        fh.flush()
        os.fsync(fh.fileno())
    return True


class JsonlAppender:
    """Appends one JSON object per line to ``path``; each line is flushed (and fsynced with ``fsync``).

    Opening repairs a torn tail first (:func:`repair_jsonl_tail`), so a record never lands on the
    end of a half-written one.
    """

    def __init__(self, path: str | Path, *, fsync: bool = True, sort_keys: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair_jsonl_tail(self.path)
        self._fsync = fsync
        self._sort_keys = sort_keys
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, record: Any) -> None:
        self._fh.write(json.dumps(record, default=str, sort_keys=self._sort_keys, ensure_ascii=False) + "\n")
        self._fh.flush()
        if self._fsync:
            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> "JsonlAppender":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# --------------------------------------------------------------------------- one writer per directory

_held: dict[tuple[str, int], int] = {}  # (directory, thread) -> depth: re-entrant within one thread
_held_guard = threading.Lock()


@contextmanager
def directory_lock(directory: str | Path, command: str) -> Iterator[Path]:
    """Hold ``DIR/.autoalign.lock`` exclusively while the block runs; yields the lock file's path.

    A second holder (another process, or another thread of this one) is refused at once with an
    :class:`InputError` naming the command that holds the directory. The same thread may nest
    (``batch`` holds its directory while its report is written). The directory is created if needed.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out: cannot create {directory} ({exc.strerror or exc})") from None
    lock_path = directory / LOCK_NAME
    key = (str(directory.resolve()), threading.get_ident())
    with _held_guard:
        if key in _held:
            _held[key] += 1
            nested = True
        else:
            nested = False
    if nested:
        try:
            yield lock_path
        finally:
            with _held_guard:
                _held[key] -= 1
        return
    try:
        fh = open(lock_path, "a+", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"--out: cannot write to {directory} ({exc.strerror or exc})") from None
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "autoalign command"
            raise InputError(
                f"another {holder} is already running in {directory} (lock: {lock_path}); "
                "wait for it to finish, or use another --out"
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(f"{command} (pid {os.getpid()})")
        fh.flush()
        with _held_guard:
            _held[key] = 1
        try:
            yield lock_path
        finally:
            with _held_guard:
                _held.pop(key, None)
    finally:
        fh.close()  # closing the descriptor releases the flock


def check_writable_dir(directory: str | Path, what: str = "--out") -> None:
    """InputError unless ``directory`` is, or can become, a directory this process can write to.

    Creates nothing: the nearest existing ancestor must be a writable directory; an existing
    directory is probed with a real temporary file (``os.access`` says yes to root on read-only
    mounts).
    """
    path = Path(directory).expanduser().absolute()
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and not probe.is_dir():
        raise InputError(f"{what}: {probe} is a file, not a directory")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"{what}: cannot write to {directory} ({probe} is not writable)")
    if probe == path:
        try:
            fd, tmp = tempfile.mkstemp(prefix=".write-test.", suffix=TMP_SUFFIX, dir=path)
        except OSError as exc:
            raise InputError(f"{what}: cannot write to {directory} ({exc.strerror or exc})") from None
        os.close(fd)
        os.unlink(tmp)


def check_input_file(path: str | Path, what: str) -> Path:
    """``path`` as a Path when it is an existing regular file; else InputError naming ``what``."""
    path = Path(path)
    if not path.exists():
        raise InputError(f"{what}: {path} does not exist")
    if path.is_dir():
        raise InputError(f"{what}: {path} is a directory; give a file")
    if not path.is_file():
        raise InputError(f"{what}: {path} is not a regular file")
    return path


__all__ = [
    "JsonlAppender",
    "JsonlContents",
    "LOCK_NAME",
    "atomic_copy",
    "atomic_save_image",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "check_input_file",
    "check_writable_dir",
    "directory_lock",
    "read_jsonl",
    "remove_temporaries",
    "repair_jsonl_tail",
]
