"""Benchmark suites load from the public text copies, user files, the cache, or fail clearly offline."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
from pathlib import Path

import pytest

from autoalign.benchmarks import suites
from autoalign.benchmarks.suites import Suite, SuiteItem, load_suite
from autoalign.errors import InputError

# ---------------------------------------------------------------- small copies of each format, built here
DRAWBENCH_CSV = (
    "Prompts,Category\n"
    "A red colored car.,Colors\n"
    "A black colored car.,Colors\n"
    "Two cats and one dog.,Counting\n"
    ",Counting\n"  # an empty prompt row is skipped
    "\"A sign that says \"\"Hello\"\".\",Text\n"
    "A cube made of porcupine.,Gary Marcus et al. \n"  # DrawBench has one category with a trailing space
    "Two cats and one dog.,Counting\n"  # a repeated prompt gets its own id
)
EDITBENCH_ROWS = [  # (aos, prompt as SeeTRUE writes it, labels of the edited images)
    ("a=few_o=cat_s=indoor", "a few cats sitting on a sofa in a museum.", ["0", "1", "1"]),
    ("a=five_o=letter_style=painting", 'five letters \\"ABCDE\\" on a treadmill inside a river.', ["1"]),
    ("a=red_o=car_s=outdoor", "a red car parked in front of a garden.", ["1", "0"]),
    ("a=wooden_o=spoon_s=real", "a wooden spoon on a kitchen table.", ["0"]),
]
GENEVAL_JSONL = "\n".join(json.dumps(o) for o in [
    {"tag": "single_object", "include": [{"class": "bench", "count": 1}], "prompt": "a photo of a bench"},
    {"tag": "counting", "include": [{"class": "cow", "count": 2}], "prompt": "a photo of two cows"},
    {"tag": "colors", "include": [{"class": "car", "count": 1, "color": "red"}], "prompt": "a photo of a red car"},
]) + "\n"


def _drawbench(tmp_path: Path) -> Path:
    path = tmp_path / "DrawBench.csv"
    path.write_text(DRAWBENCH_CSV, encoding="utf-8")
    return path


def _editbench_files(tmp_path: Path) -> tuple[Path, Path]:
    """The derived EditBench CSV and a SeeTRUE.csv holding the same items (plus a row of another source)."""
    derived = tmp_path / "editbench.csv"
    with derived.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["aos", "attribute", "object", "scene", "full_prompt", "seetrue_n_edited_images", "seetrue_n_label1"])
        for aos, prompt, labels in EDITBENCH_ROWS:
            parts = suites.parse_aos(aos)
            w.writerow([aos, parts["attribute"], parts["object"], parts["scene"], prompt, len(labels), labels.count("1")])
    seetrue = tmp_path / "SeeTRUE.csv"
    with seetrue.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["image", "text", "label", "original_dataset_id", "dataset_source"])
        w.writerow(["id_1_sd_0.png", "a zebra left of a hydrant.", "0", "text_1", "drawbench"])
        for aos, prompt, labels in EDITBENCH_ROWS:
            for k, label in enumerate(labels):
                w.writerow([f"{k}_{aos}.png", prompt, label, f"{k}.0", "editbench"])
    return derived, seetrue


def test_drawbench_format_strips_categories_skips_empty_rows_and_keeps_stable_ids(tmp_path):
    path = _drawbench(tmp_path)
    suite = load_suite("drawbench", path)
    assert len(suite) == 6
    assert suite.categories() == ["Colors", "Counting", "Text", "Gary Marcus et al."]
    assert suite.items[0].prompt == "A red colored car." and suite.items[0].category == "Colors"
    assert suite.items[3].prompt == 'A sign that says "Hello".'
    assert len({item.id for item in suite}) == 6 and suite.items[5].id == suite.items[2].id + "-2"
    assert [i.id for i in load_suite("drawbench", path)] == [i.id for i in suite]


def test_editbench_format_is_keyed_by_aos_with_attribute_classes(tmp_path):
    derived, _ = _editbench_files(tmp_path)
    suite = load_suite("editbench", derived)
    assert [i.id for i in suite] == [aos for aos, _, _ in EDITBENCH_ROWS]
    assert [i.category for i in suite] == ["count", "count", "color", "material"]
    item = next(i for i in suite if i.id == "a=five_o=letter_style=painting")
    assert item.prompt == 'five letters "ABCDE" on a treadmill inside a river.'  # CSV-escaped quotes cleaned
    assert item.metadata["scene"] == "painting" and item.metadata["text_rendering"] is True
    assert {i.metadata["scene"] for i in suite} == {"indoor", "painting", "outdoor", "real"}


def test_editbench_derived_from_a_seetrue_file_matches_the_derived_csv(tmp_path):
    derived, seetrue = _editbench_files(tmp_path)
    a, b = load_suite("editbench", derived), load_suite("editbench", seetrue)
    assert [(i.id, i.prompt, i.category) for i in a] == [(i.id, i.prompt, i.category) for i in b]
    assert b.items[0].metadata["seetrue_n_edited_images"] == 3 and b.items[0].metadata["seetrue_n_label1"] == 2


def test_geneval_format_takes_tags_as_categories_and_keeps_the_rest(tmp_path):
    path = tmp_path / "evaluation_metadata.jsonl"
    path.write_text(GENEVAL_JSONL, encoding="utf-8")
    suite = load_suite("geneval", path)
    assert len(suite) == 3 and suite.categories() == ["single_object", "counting", "colors"]
    assert suite.items[1].metadata["include"] == [{"class": "cow", "count": 2}]


def test_t2i_compbench_folder_takes_the_val_files_as_categories(tmp_path):
    folder = tmp_path / "t2i"
    folder.mkdir()
    (folder / "color_val.txt").write_text("a red apple and a green leaf\na blue bird\n", encoding="utf-8")
    (folder / "spatial_val.txt").write_text("a cat on the left of a dog\n\n", encoding="utf-8")
    (folder / "color_train.txt").write_text("not part of the val split\n", encoding="utf-8")
    suite = load_suite("t2i-compbench", folder)
    assert [(i.category, i.prompt) for i in suite] == [
        ("color", "a red apple and a green leaf"), ("color", "a blue bird"), ("spatial", "a cat on the left of a dog")]
    one = load_suite("t2i-compbench", folder / "spatial_val.txt")
    assert len(one) == 1 and one.categories() == ["spatial"]


def test_download_goes_to_the_cache_with_a_checksum_and_is_reused(tmp_path, monkeypatch):
    """The download path, served from a file written here instead of the network (no network in tests)."""
    _check_download(tmp_path, monkeypatch, _drawbench(tmp_path).read_bytes(), pin=True, expected=6)


# ---------------------------------------------------------------- the same on the full shared copies (optional)
@pytest.mark.slow
@pytest.mark.shared_data
def test_shared_drawbench_has_200_prompts_in_11_stripped_categories(shared_data):
    suite = load_suite("drawbench", shared_data / "drawbench" / "DrawBench.csv")
    assert len(suite) == 200
    cats = suite.categories()
    assert len(cats) == 11
    assert "Gary Marcus et al." in cats and all(c == c.strip() for c in cats)
    assert len({item.id for item in suite}) == 200
    assert suite.items[0].prompt == "A red colored car." and suite.items[0].category == "Colors"
    again = load_suite("drawbench", shared_data / "drawbench" / "DrawBench.csv")
    assert [i.id for i in again] == [i.id for i in suite]


@pytest.mark.slow
@pytest.mark.shared_data
def test_shared_editbench_has_239_items_and_matches_seetrue(shared_data):
    suite = load_suite("editbench", shared_data / "editbench" / "editbench_full_prompts_from_seetrue.csv")
    assert len(suite) == 239
    assert set(suite.categories()) <= {"count", "color", "material", "shape", "size", "other"}
    item = next(i for i in suite if i.id == "a=five_o=letter_style=painting")
    assert item.category == "count"
    assert item.prompt == 'five letters "ABCDE" on a treadmill inside a river.'
    assert {i.metadata["scene"] for i in suite} == {"indoor", "outdoor", "painting", "real"}
    from_seetrue = load_suite("editbench", shared_data / "seetrue" / "SeeTRUE.csv")
    assert [(i.id, i.prompt, i.category) for i in suite] == [(i.id, i.prompt, i.category) for i in from_seetrue]


@pytest.mark.slow
@pytest.mark.shared_data
def test_shared_geneval_and_t2i_compbench_sizes(shared_data):
    suite = load_suite("geneval", shared_data / "geneval" / "evaluation_metadata.jsonl")
    assert len(suite) == 553
    assert set(suite.categories()) == {"single_object", "two_object", "counting", "colors", "position", "color_attr"}
    folder = shared_data / "t2i_compbench"
    assert len(load_suite("t2i-compbench", folder)) == 8 * 300
    for cat in suites.T2I_COMPBENCH_CATEGORIES:
        one = load_suite("t2i-compbench", folder / f"{cat}_val.txt")
        assert len(one) == 300 and one.categories() == [cat]


@pytest.mark.slow
@pytest.mark.shared_data
def test_shared_drawbench_download_matches_the_pinned_checksum(tmp_path, monkeypatch, shared_data):
    _check_download(tmp_path, monkeypatch, (shared_data / "drawbench" / "DrawBench.csv").read_bytes(), pin=False,
                    expected=200)


def _check_download(tmp_path: Path, monkeypatch, body: bytes, *, pin: bool, expected: int) -> None:
    """Load drawbench through the download path with ``body`` as the served file.

    ``pin``: record ``body``'s sha256 as the expected one (a file made in the test); otherwise the
    real pinned checksum must match (the shared copy of the real file).
    """
    monkeypatch.delenv("AUTOALIGN_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    source = suites.SOURCES["drawbench"]
    if pin:
        pinned = dataclasses.replace(source.files[0], sha256=hashlib.sha256(body).hexdigest())
        monkeypatch.setitem(suites.SOURCES, "drawbench", dataclasses.replace(source, files=(pinned,)))
    urls = []

    class Response(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def fake_urlopen(url, timeout=None):
        urls.append(url)
        return Response(body)

    monkeypatch.setattr(suites.urllib.request, "urlopen", fake_urlopen)
    cache = tmp_path / "cache"
    suite = load_suite("drawbench", cache_dir=cache)
    assert len(urls) == 1 and "06b6b877879a172a26e484b045a1049cb8f9a050" in urls[0]
    assert len(suite) == expected
    manifest = json.loads((cache / "drawbench" / "manifest.json").read_text())
    assert manifest["files"]["DrawBench.csv"]["sha256"] == hashlib.sha256(body).hexdigest()
    # second load: from the cache, even offline
    monkeypatch.setenv("AUTOALIGN_OFFLINE", "1")
    assert len(load_suite("drawbench", cache_dir=cache)) == len(suite) and len(urls) == 1
    # a corrupted cache file is not trusted
    (cache / "drawbench" / "DrawBench.csv").write_text("Prompts,Category\nx,y\n")
    with pytest.raises(InputError, match="--suite-file"):
        load_suite("drawbench", cache_dir=cache)


def test_user_csv_with_prompt_category_and_id(tmp_path):
    f = tmp_path / "mine.csv"
    f.write_text("prompt,category,id,note\ntwo red apples,count,a1,x\na blue cat,,,\n", encoding="utf-8")
    suite = load_suite(str(f))
    assert [i.prompt for i in suite] == ["two red apples", "a blue cat"]
    assert suite.items[0].id == "a1" and suite.items[0].category == "count" and suite.items[0].metadata == {"note": "x"}
    assert suite.items[1].category == "uncategorized" and len(suite.items[1].id) == 12


def test_user_jsonl_and_duplicate_prompts_get_distinct_ids(tmp_path):
    f = tmp_path / "mine.jsonl"
    f.write_text('{"prompt": "a dog"}\n\n{"prompt": "a dog"}\n{"prompt": "a cat", "category": "pets"}\n', encoding="utf-8")
    suite = load_suite(str(f))
    assert len(suite) == 3
    assert len({i.id for i in suite}) == 3
    assert suite.items[1].id == suite.items[0].id + "-2"


def test_user_file_without_prompt_column_names_the_column(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("text,category\nhello,x\n", encoding="utf-8")
    with pytest.raises(InputError, match="'prompt' column"):
        load_suite(str(f))


def test_unknown_suite_lists_the_allowed_names():
    with pytest.raises(InputError, match="drawbench, editbench, geneval, t2i-compbench"):
        load_suite("coco")


def test_offline_without_a_file_says_which_file_to_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOALIGN_OFFLINE", "1")
    with pytest.raises(InputError) as err:
        load_suite("drawbench", cache_dir=tmp_path / "cache")
    msg = str(err.value)
    assert "--suite-file" in msg and "DrawBench.csv" in msg and "shared/data" not in msg


def test_select_filters_categories_then_limits_and_rejects_unknown():
    suite = Suite("s", [SuiteItem(str(i), f"p{i}", "a" if i % 2 else "b") for i in range(10)])
    picked = suite.select(categories=["a"], limit=3)
    assert [i.id for i in picked] == ["1", "3", "5"]
    with pytest.raises(InputError, match="allowed: b, a"):
        suite.select(categories=["zzz"])
    with pytest.raises(InputError, match="--limit"):
        suite.select(limit=0)


def test_download_with_an_unexpected_checksum_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOALIGN_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)

    class Response(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(suites.urllib.request, "urlopen", lambda url, timeout=None: Response(b"Prompts,Category\nx,y\n"))
    with pytest.raises(InputError, match="sha256"):
        load_suite("drawbench", cache_dir=tmp_path)


def test_cli_bench_run_offline_without_a_suite_file_is_a_one_line_error(tmp_path, monkeypatch, capsys):
    from autoalign.cli import main

    monkeypatch.setenv("AUTOALIGN_OFFLINE", "1")
    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path / "home"))
    with pytest.raises(SystemExit) as exc:
        main(["bench", "run", "--suite", "drawbench", "--preset", "tiny", "--out", str(tmp_path / "out")])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--suite-file" in err[0] and "DrawBench.csv" in err[0]


def test_limit_takes_prompts_from_every_category_in_turn_and_the_same_ones_each_time():
    items = [SuiteItem(f"{cat}{i}", f"p {cat}{i}", cat) for cat in ("colors", "counting", "text") for i in range(4)]
    suite = Suite("s", items)
    picked = suite.select(limit=3)
    assert [i.id for i in picked] == ["colors0", "counting0", "text0"]  # not three of the first category
    assert [i.id for i in suite.select(limit=5)] == ["colors0", "colors1", "counting0", "counting1", "text0"]
    assert [i.id for i in suite.select(limit=3)] == [i.id for i in picked]
    assert len(suite.select(limit=50)) == 12
