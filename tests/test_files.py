"""autoalign.files: atomic writes never leave half a file, the JSON-lines reader survives and repairs a
torn tail, and a directory lock admits one writer and dies with a SIGKILLed holder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from PIL import Image

from autoalign import files
from autoalign.errors import InputError


def test_atomic_writes_replace_whole_files_and_leave_no_temporaries(tmp_path):
    target = tmp_path / "sub" / "out.json"
    files.atomic_write_json(target, {"a": 1})
    files.atomic_write_text(tmp_path / "t.txt", "héllo")
    files.atomic_save_image(tmp_path / "i.png", Image.new("RGB", (4, 4), (1, 2, 3)))
    files.atomic_copy(tmp_path / "i.png", tmp_path / "copy.png")
    assert json.loads(target.read_text()) == {"a": 1}
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == "héllo"
    assert (tmp_path / "copy.png").read_bytes() == (tmp_path / "i.png").read_bytes()
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_failed_write_keeps_the_old_file_and_removes_its_temporary(tmp_path):
    target = tmp_path / "summary.json"
    files.atomic_write_json(target, {"good": True})

    class Unserialisable:
        def __str__(self):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        files.atomic_write_json(target, {"bad": Unserialisable()})
    assert json.loads(target.read_text()) == {"good": True}
    assert not list(tmp_path.glob(".*.tmp"))


def test_remove_temporaries_clears_only_the_leftovers_of_cut_writes(tmp_path):
    (tmp_path / ".manifest.jsonl.abc123.tmp").write_text("half")
    (tmp_path / "manifest.jsonl").write_text("{}\n")
    (tmp_path / files.LOCK_NAME).write_text("batch")
    assert files.remove_temporaries(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([files.LOCK_NAME, "manifest.jsonl"])


def test_jsonl_reader_reports_bad_lines_by_number_and_keeps_the_rest(tmp_path):
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}\n\nnot json\n[1, 2]\n\xff\xfe\n{"a": 2}\n')
    got = files.read_jsonl(path)
    assert got.values == [{"a": 1}, {"a": 2}]
    assert [n for n, _ in got.records] == [1, 6]
    assert [n for n, _ in got.bad_lines] == [3, 4, 5]
    assert "not JSON" in got.bad_lines[0][1] and "JSON object" in got.bad_lines[1][1] and "UTF-8" in got.bad_lines[2][1]
    assert not got.torn_tail


def test_a_torn_last_line_is_skipped_and_cut_away_before_the_next_append(tmp_path):
    path = tmp_path / "trace.jsonl"
    path.write_text('{"step": 0}\n{"step": 1}\n{"step": 2, "upd')  # killed mid-append
    got = files.read_jsonl(path)
    assert got.values == [{"step": 0}, {"step": 1}] and got.torn_tail and not got.bad_lines
    with files.JsonlAppender(path) as out:
        out.write({"step": 2})
    assert path.read_text() == '{"step": 0}\n{"step": 1}\n{"step": 2}\n'
    assert [r["step"] for r in files.read_jsonl(path).values] == [0, 1, 2]


def test_a_whole_last_record_missing_only_its_newline_is_kept(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text('{"id": "a"}\n{"id": "b"}')
    assert files.repair_jsonl_tail(path)
    with files.JsonlAppender(path) as out:
        out.write({"id": "c"})
    assert [r["id"] for r in files.read_jsonl(path).values] == ["a", "b", "c"]


def test_in_a_users_file_an_unfinished_last_line_is_a_bad_line(tmp_path):
    path = tmp_path / "user.jsonl"
    path.write_text('{"prompt": "x"}\n{"prompt": ')
    got = files.read_jsonl(path, append_only=False)
    assert got.bad_lines and got.bad_lines[0][0] == 2 and not got.torn_tail


def test_a_directory_is_refused_where_a_jsonl_file_is_expected(tmp_path):
    with pytest.raises(InputError, match="not a file"):
        files.read_jsonl(tmp_path, what="--data")


HOLDER = textwrap.dedent(
    """
    import sys, time
    from autoalign.files import directory_lock
    with directory_lock(sys.argv[1], sys.argv[2]):
        print("held", flush=True)
        time.sleep(120)
    """
)


def hold_lock(directory, command: str) -> subprocess.Popen:
    """A second process holding ``directory``'s lock as ``command`` would (test helper)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory), command], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_second_process_is_refused_naming_the_holder_and_a_sigkilled_holder_frees_the_directory(tmp_path):
    holder = hold_lock(tmp_path, "bench run")
    try:
        with pytest.raises(InputError, match=r"another bench run \(pid \d+\) is already running in"):
            with files.directory_lock(tmp_path, "batch"):
                pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    with files.directory_lock(tmp_path, "batch"):  # the kernel dropped the dead holder's lock
        assert (tmp_path / files.LOCK_NAME).read_text().startswith("batch (pid")


def test_the_lock_is_reentrant_in_one_thread_only(tmp_path):
    import threading

    errors = []
    with files.directory_lock(tmp_path, "batch"):
        with files.directory_lock(tmp_path, "bench report"):  # batch writing its own report
            pass

        def other():
            try:
                with files.directory_lock(tmp_path, "run"):
                    pass
            except InputError as exc:
                errors.append(str(exc))

        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert errors and "another batch" in errors[0]
    with files.directory_lock(tmp_path, "run"):  # released after the outer block
        pass


def test_check_writable_dir_refuses_files_and_read_only_places(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(InputError, match="is a file, not a directory"):
        files.check_writable_dir(tmp_path / "f" / "sub")
    files.check_writable_dir(tmp_path / "new" / "deeper")  # creatable
    assert not (tmp_path / "new").exists()  # and nothing was created


def test_directory_lock_dies_with_a_process_killed_at_a_random_moment(tmp_path):
    # several holders killed in turn: none leaves the directory stuck
    for _ in range(3):
        holder = hold_lock(tmp_path, "batch")
        time.sleep(0.05)
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        with files.directory_lock(tmp_path, "batch"):
            pass
