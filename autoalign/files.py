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
  one line naming the command that holds it. The lock file also records which command made the
  directory (:func:`claim_directory`): a ``batch`` directory is refused to ``bench run`` and the
  other way round.
* **File modes**: every file written here is readable as the user's umask allows (0644 under the
  usual 022), not the 0600 of a bare ``mkstemp``, so a run directory can be shared or served.
* **Storage errors** (:func:`storage_error`): a full disk, a read-only file system or a quota, from
  ``OSError`` or from SQLite, become one line naming what could not be written.
* **Fault points** (:func:`fault_point`, :func:`watch_sqlite`): with ``AUTOALIGN_FAULT_KILL=NAME@N``
  in the environment, the process SIGKILLs itself at the N-th write to the file named ``NAME`` (a
  JSON line half written, an atomic write's temporary file half written, or an SQLite statement not
  yet run). The kill-and-resume tests use it to kill at every write; unset, it costs one dict lookup.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import signal
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autoalign.errors import InputError, StorageError

logger = logging.getLogger(__name__)

TMP_SUFFIX = ".tmp"
LOCK_NAME = ".autoalign.lock"
OWNER_NAME = ".autoalign.json"  # which command made the directory (claim_directory)
#: The commands that own an output directory, and how to tell one made before OWNER_NAME existed.
DIRECTORY_KINDS = {"run": "autoalign run", "batch": "autoalign batch", "bench": "autoalign bench run / audit"}
_SIGNS = (("ledger.sqlite", "batch"), ("bench.json", "bench"), ("results.jsonl", "bench"),
          ("checkpoint.sqlite", "run"), ("trace.jsonl", "run"), ("config.json", "run"))
FAULT_ENV = "AUTOALIGN_FAULT_KILL"


# --------------------------------------------------------------------------- fault points (tests)

_fault_counts: dict[str, int] = {}
_fault_guard = threading.Lock()


def _fault_plan() -> dict[str, int]:
    """``AUTOALIGN_FAULT_KILL=trace.jsonl@3,ledger.sqlite@7`` as ``{name: n}`` (empty when unset)."""
    plan: dict[str, int] = {}
    for part in os.environ.get(FAULT_ENV, "").split(","):
        name, _, n = part.strip().rpartition("@")
        if name and n.isdigit():
            plan[name] = int(n)
    return plan


def fault_point(name: str) -> bool:
    """True when this is the write to ``name`` that :data:`FAULT_ENV` asks to be killed at.

    The caller then writes part of what it was writing and calls :func:`die`, as a power cut or a
    SIGKILL would leave it. Counting is per file name, from 1, over the whole process.
    """
    plan = _fault_plan() if FAULT_ENV in os.environ else None
    if not plan or name not in plan:
        return False
    with _fault_guard:
        _fault_counts[name] = _fault_counts.get(name, 0) + 1
        return _fault_counts[name] == plan[name]


def die() -> None:
    """SIGKILL this process (a fault point fired): nothing runs after it, no handler, no flush."""
    os.kill(os.getpid(), signal.SIGKILL)


_SQLITE_WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT", "CREATE")


def watch_sqlite(conn: sqlite3.Connection, name: str) -> None:
    """Make the statements that write to the SQLite file ``name`` fault points (no-op when unset)."""
    if name not in _fault_plan():
        return

    def on_statement(sql: str) -> None:
        if sql.lstrip().upper().startswith(_SQLITE_WRITES) and fault_point(name):
            die()

    conn.set_trace_callback(on_statement)


# --------------------------------------------------------------------------- file modes and storage errors

_umask_guard = threading.Lock()


def file_mode() -> int:
    """The mode a new file gets under this process's umask (0644 under the usual 022)."""
    return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where Linux tells it (/proc), else by setting it back."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_guard:
        mask = os.umask(0o077)  # the strictest value while it is read, should another thread create a file
        os.umask(mask)
    return mask


_STORAGE_ERRNOS = {errno.ENOSPC: "the disk is full", errno.EROFS: "the file system is read-only",
                   errno.EDQUOT: "the disk quota is exceeded", errno.EFBIG: "the file is too large for the file system"}
_SQLITE_STORAGE = {"database or disk is full": "the disk is full",
                   "attempt to write a readonly database": "the database is read-only",
                   "unable to open database file": "the database file cannot be opened",
                   "disk i/o error": "a disk I/O error"}


def storage_error(exc: BaseException) -> str | None:
    """One line for an error that says the disk cannot take what is written; None for other errors."""
    if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRNOS:
        where = f" ({exc.filename})" if exc.filename else ""
        return f"cannot write{where}: {_STORAGE_ERRNOS[exc.errno]}; free space or choose another --out, then rerun to resume"
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        for needle, reason in _SQLITE_STORAGE.items():
            if needle in text:
                return f"cannot write a database: {reason}; free space or choose another --out, then rerun to resume"
    return None


def raise_if_storage(exc: BaseException) -> None:
    """Raise :class:`StorageError` (one line) when ``exc`` says the disk cannot take a write; else return."""
    if isinstance(exc, StorageError):
        raise exc
    message = storage_error(exc)
    if message is not None:
        raise StorageError(message) from exc


# --------------------------------------------------------------------------- atomic writes


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically (temp file in the same directory, fsync, ``os.replace``).

    The file gets the umask's mode (:func:`file_mode`), as ``open`` would give it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TMP_SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.fchmod(fh.fileno(), file_mode())
            if fault_point(path.name):
                fh.write(data[: len(data) // 2])
                fh.flush()
                die()
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    """:func:`atomic_write_bytes` of UTF-8 text (a lone surrogate is written as its ``\\udXXX`` escape, not a crash)."""
    atomic_write_bytes(path, text.encode("utf-8", "backslashreplace"))


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


def remove_temporaries(folder: str | Path, *, recursive: bool = False) -> int:
    """Delete the temporary files that writes cut short by a crash left in ``folder``; how many.

    Call it only while holding the folder's :func:`directory_lock` (a live writer's temporary file
    is not stale). ``recursive`` also clears every sub-folder.
    """
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    removed = 0
    for tmp in (folder.rglob if recursive else folder.glob)(f".*{TMP_SUFFIX}"):
        if tmp.is_file():
            tmp.unlink(missing_ok=True)
            removed += 1
    if removed:
        logger.info("%s: removed %d temporary file(s) left by an interrupted write", folder, removed)
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
        self._fh = open(self.path, "a", encoding="utf-8", errors="backslashreplace")

    def write(self, record: Any) -> None:
        line = json.dumps(record, default=str, sort_keys=self._sort_keys, ensure_ascii=False) + "\n"
        if fault_point(self.path.name):
            self._fh.write(line[: len(line) // 2])
            self._fh.flush()
            die()
        self._fh.write(line)
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


def made_by(directory: str | Path) -> str | None:
    """Which command made ``directory`` (a key of :data:`DIRECTORY_KINDS`), or None for a new or empty one.

    Read from ``DIR/.autoalign.json``; for a directory made before that file existed, told from
    the files it holds (a ledger: batch; bench.json or results.jsonl: bench; a checkpoint: run).
    """
    directory = Path(directory)
    try:
        data = json.loads((directory / OWNER_NAME).read_text(encoding="utf-8"))
        kind = data.get("made_by") if isinstance(data, dict) else None
        if kind in DIRECTORY_KINDS:
            return kind
    except (OSError, ValueError):
        pass
    for name, kind in _SIGNS:
        if (directory / name).exists():
            return kind
    return None


def check_owner(directory: str | Path, kind: str, what: str = "--out") -> None:
    """InputError when ``directory`` was made by another command than ``kind``. Writes nothing."""
    other = made_by(directory)
    if other is not None and other != kind:
        raise InputError(
            f"{what}: {directory} was made by `{DIRECTORY_KINDS[other]}`, not `{DIRECTORY_KINDS[kind]}`; "
            f"choose another {what} (a directory holds the outputs of one command)"
        )


def claim_directory(directory: str | Path, kind: str) -> None:
    """Record that ``kind`` owns ``directory`` (call holding its :func:`directory_lock`); refuse another's.

    From then on the directory answers :func:`made_by` with ``kind`` and every other command that
    owns directories refuses it, while the lock keeps a second process of any command out.
    """
    check_owner(directory, kind)
    marker = Path(directory) / OWNER_NAME
    if not marker.exists():
        atomic_write_json(marker, {"made_by": kind, "command": DIRECTORY_KINDS[kind]})


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
    "DIRECTORY_KINDS",
    "LOCK_NAME",
    "OWNER_NAME",
    "atomic_copy",
    "atomic_save_image",
    "atomic_write_bytes",
    "atomic_write_json",
    "atomic_write_text",
    "check_input_file",
    "check_owner",
    "claim_directory",
    "die",
    "fault_point",
    "file_mode",
    "made_by",
    "raise_if_storage",
    "storage_error",
    "watch_sqlite",
    "check_writable_dir",
    "directory_lock",
    "read_jsonl",
    "remove_temporaries",
    "repair_jsonl_tail",
]
