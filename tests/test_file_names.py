"""Item ids -> file names (autoalign.file_names): safe, bounded and collision-free whatever the id.

The property tests generate ids with Hypothesis, including the hostile shapes the adversarial trial
used (path separators, ``..``, ``~``, NUL and control characters, look-alikes, reserved names, long ids).
"""

from __future__ import annotations

import os
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from autoalign.file_names import MAX_NAME, path_in, safe_file_name

HOSTILE = ["..", ".", "/", "\\", "~", "\x00", "\n", "\x1f", "\u2024", "\uff0e", "\uff0f", "\u2215", "\u200b", " ",
           "CON", "nul", "com1", "LPT9", "a", "b", "_", "-", ":", "*", "?", "A"]
RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}
ids = st.one_of(
    st.text(max_size=80),
    st.lists(st.sampled_from(HOSTILE), max_size=12).map("".join),
    st.text(alphabet=string.ascii_letters + string.digits + "._-/", max_size=60),
    st.builds(lambda a, n: a * n, st.sampled_from(["x", "é", "/", "ab"]), st.integers(100, 6000)),
)


def _inside(root, path) -> bool:
    return os.path.commonpath([os.path.realpath(root), os.path.realpath(path)]) == os.path.realpath(root)


@settings(max_examples=400, deadline=None)
@given(st.lists(ids, min_size=2, max_size=12, unique=True))
def test_distinct_ids_never_map_to_the_same_path_even_ignoring_case(id_list):
    names = [safe_file_name(i) for i in id_list]
    assert len(set(names)) == len(names)
    assert len({n.casefold() for n in names}) == len(names)  # macOS / Windows file systems


@settings(max_examples=400, deadline=None)
@given(ids)
def test_every_name_is_one_bounded_safe_component_inside_out(tmp_path_factory, item_id):
    root = tmp_path_factory.getbasetemp() / "out"
    name = safe_file_name(item_id)
    assert name == safe_file_name(item_id)  # deterministic: reruns line up
    assert 0 < len(name) <= MAX_NAME
    assert set(name) <= set(string.ascii_lowercase + string.digits + "._-")
    assert name not in (".", "..") and not name.startswith((".", "-"))
    assert name.split(".")[0] not in RESERVED
    path = path_in(root, item_id, ".png")
    assert path.parent == root and _inside(root, path)


def test_the_trial_examples_stay_inside_and_apart(tmp_path):
    hostile = ["../../x", "/etc/passwd", "sub/dir/name", "a" * 300, "a/b", "a_b", "A_B", "~root", "..",
               "x" * 120 + "1", "x" * 120 + "2", "CON", "nul.txt", "\x00\x01", "ａ／ｂ", "café"]
    names = [safe_file_name(i) for i in hostile]
    assert len(set(names)) == len(hostile)
    for i in hostile:
        path = path_in(tmp_path, i, ".png")
        path.write_bytes(b"x")  # the file system accepts every name (no ENAMETOOLONG, no nested folders)
        assert path.parent == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(n + ".png" for n in names)


def test_plain_ids_keep_their_name_and_others_keep_a_readable_prefix():
    assert safe_file_name("drawbench-0012") == "drawbench-0012"
    assert safe_file_name("a/b").startswith("a_b-") and safe_file_name("a/b") != safe_file_name("a_b")
    assert safe_file_name("Apple Pie").startswith("apple_pie-")
    assert safe_file_name("../../etc/passwd").startswith("etc_passwd-")
