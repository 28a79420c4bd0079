"""Benchmark suites load from the public text copies, user files, the cache, or fail clearly offline."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from autoalign.benchmarks import suites
from autoalign.benchmarks.suites import Suite, SuiteItem, load_suite
from autoalign.errors import InputError

DATA = Path(__file__).parents[2] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"benchmark text copies not found at {DATA} (../shared/data)")


@needs_data
def test_drawbench_has_200_prompts_in_11_stripped_categories():
    suite = load_suite("drawbench", DATA / "drawbench" / "DrawBench.csv")
    assert len(suite) == 200
    cats = suite.categories()
    assert len(cats) == 11
    assert "Gary Marcus et al." in cats and all(c == c.strip() for c in cats)
    assert len({item.id for item in suite}) == 200
    assert suite.items[0].prompt == "A red colored car." and suite.items[0].category == "Colors"


@needs_data
def test_drawbench_ids_are_stable_across_loads():
    a = load_suite("drawbench", DATA / "drawbench" / "DrawBench.csv")
    b = load_suite("drawbench", DATA / "drawbench" / "DrawBench.csv")
    assert [i.id for i in a] == [i.id for i in b]


@needs_data
def test_editbench_has_239_items_keyed_by_aos_with_attribute_classes():
    suite = load_suite("editbench", DATA / "editbench" / "editbench_full_prompts_from_seetrue.csv")
    assert len(suite) == 239
    assert set(suite.categories()) <= {"count", "color", "material", "shape", "size", "other"}
    item = next(i for i in suite if i.id == "a=five_o=letter_style=painting")
    assert item.category == "count"
    assert item.prompt == 'five letters "ABCDE" on a treadmill inside a river.'  # CSV-escaped quotes cleaned
    assert item.metadata["scene"] == "painting" and item.metadata["text_rendering"] is True
    scenes = {i.metadata["scene"] for i in suite}
    assert scenes == {"indoor", "outdoor", "painting", "real"}


@needs_data
def test_editbench_derived_from_seetrue_matches_the_derived_csv():
    derived = load_suite("editbench", DATA / "editbench" / "editbench_full_prompts_from_seetrue.csv")
    from_seetrue = load_suite("editbench", DATA / "seetrue" / "SeeTRUE.csv")
    assert [(i.id, i.prompt, i.category) for i in derived] == [(i.id, i.prompt, i.category) for i in from_seetrue]


@needs_data
def test_geneval_has_553_prompts_with_tag_categories():
    suite = load_suite("geneval", DATA / "geneval" / "evaluation_metadata.jsonl")
    assert len(suite) == 553
    assert set(suite.categories()) == {"single_object", "two_object", "counting", "colors", "position", "color_attr"}
    assert "include" in suite.items[0].metadata


@needs_data
def test_t2i_compbench_val_has_300_prompts_per_file():
    folder = DATA / "t2i_compbench"
    suite = load_suite("t2i-compbench", folder)
    assert len(suite) == 8 * 300
    for cat in suites.T2I_COMPBENCH_CATEGORIES:
        one = load_suite("t2i-compbench", folder / f"{cat}_val.txt")
        assert len(one) == 300 and one.categories() == [cat]


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
    assert "--suite-file" in msg and "../shared/data/drawbench/DrawBench.csv" in msg


def test_select_filters_categories_then_limits_and_rejects_unknown():
    suite = Suite("s", [SuiteItem(str(i), f"p{i}", "a" if i % 2 else "b") for i in range(10)])
    picked = suite.select(categories=["a"], limit=3)
    assert [i.id for i in picked] == ["1", "3", "5"]
    with pytest.raises(InputError, match="allowed: b, a"):
        suite.select(categories=["zzz"])
    with pytest.raises(InputError, match="--limit"):
        suite.select(limit=0)


@needs_data
def test_download_goes_to_the_cache_with_a_checksum_and_is_reused(tmp_path, monkeypatch):
    """The download path, served from the local copy instead of the network (no network in tests)."""
    monkeypatch.delenv("AUTOALIGN_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    body = (DATA / "drawbench" / "DrawBench.csv").read_bytes()
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
    assert len(suite) == 200 and len(urls) == 1 and "06b6b877879a172a26e484b045a1049cb8f9a050" in urls[0]
    manifest = json.loads((cache / "drawbench" / "manifest.json").read_text())
    assert manifest["files"]["DrawBench.csv"]["sha256"] == suites.file_sha256(DATA / "drawbench" / "DrawBench.csv")
    # second load: from the cache, even offline
    monkeypatch.setenv("AUTOALIGN_OFFLINE", "1")
    assert len(load_suite("drawbench", cache_dir=cache)) == 200 and len(urls) == 1
    # a corrupted cache file is not trusted
    (cache / "drawbench" / "DrawBench.csv").write_text("Prompts,Category\nx,y\n")
    with pytest.raises(InputError, match="--suite-file"):
        load_suite("drawbench", cache_dir=cache)


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
