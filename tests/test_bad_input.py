"""Bad input never prints a traceback: one line naming the field or file and what is allowed, exit code
2, and nothing half-written (validation happens before any run directory is created), so the
corrected command then runs where the bad one was refused."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image
from test_ui_uploads import png_claiming_size

PROMPT = "two red apples and a blue plate"


def refused(cli, *args: str, match: str) -> str:
    code, _, err = cli(*args)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and match in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------- configuration values


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('[loop]\ncandidates = "four"\n', "loop.candidates must be a whole number"),
        ("[loop]\ncandidates = 2.5\n", "loop.candidates must be a whole number"),
        ('[loop]\nthreshold = "high"\n', "loop.threshold must be a number"),
        ("loop = 5\n", "loop must be a table"),
        ("[loop]\nregenerate_on_stall = 1\n", "loop.regenerate_on_stall must be true or false"),
        ('[scoring]\nrerank = "vq2"\n', "scoring.rerank must be a list"),
        ("writer = 3\n", "writer must be text"),
        ("[loop]\nseed = -5\n", "loop.seed must be a whole number from 0 to 4294967295"),
        ("[generator]\nbackend = \"nope\"\n", "no generator backend named 'nope'"),
        ('[generator]\nmodel = "/no/such/model/dir"\n', "generator.model: the directory '/no/such/model/dir' does not exist"),
    ],
)
def test_wrong_config_values_name_the_dotted_field_and_create_no_run_dir(tmp_path, cli, text, field):
    conf = tmp_path / "bad.toml"
    conf.write_text(text)
    out = tmp_path / "run"
    refused(cli, "run", PROMPT, "--preset", "scene-double", "--config", str(conf), "--out", str(out), match=field)
    assert not out.exists()


def test_malformed_yaml_and_a_directory_as_config_are_one_line_errors(tmp_path, cli):
    bad = tmp_path / "bad.yaml"
    bad.write_text("loop:\n  candidates: [1, 2\n  threshold: 0.5\n")
    refused(cli, "run", PROMPT, "--preset", "scene-double", "--config", str(bad), "--out", str(tmp_path / "r"),
            match=f"cannot parse {bad}")
    folder = tmp_path / "conf.yaml"
    folder.mkdir()
    refused(cli, "run", PROMPT, "--preset", "scene-double", "--config", str(folder), match="is a directory")
    refused(cli, "score", "x.png", "--text", PROMPT, "--config", str(bad), match="cannot parse")


def test_a_refused_flag_leaves_nothing_so_the_corrected_rerun_is_not_refused_as_not_empty(tmp_path, cli):
    out = tmp_path / "run"
    refused(cli, "run", PROMPT, "--preset", "scene-double", "--seed", "-5", "--out", str(out), match="loop.seed")
    assert not out.exists()
    code, _, err = cli("run", PROMPT, "--preset", "scene-double", "--seed", "5", "--out", str(out), "--candidates", "1")
    assert code == 0, err


# --------------------------------------------------------------------------- prompts


def test_a_prompt_of_only_control_characters_is_refused(tmp_path, cli):
    out = tmp_path / "run"
    refused(cli, "run", "\x01\x02\x1b\u200b", "--preset", "scene-double", "--out", str(out), match="no visible characters")
    assert not out.exists()


def test_a_directory_given_as_the_prompt_file_is_refused(tmp_path, cli):
    folder = tmp_path / "prompts.txt"
    folder.mkdir()
    refused(cli, "batch", str(folder), "--out", str(tmp_path / "b"), "--preset", "scene-double",
            match="is a directory")
    assert not (tmp_path / "b").exists()
    refused(cli, "bench", "run", "--suite", "drawbench", "--suite-file", str(folder), "--out", str(tmp_path / "bench"),
            "--preset", "scene-double", match="is a directory")


def test_bad_seeds_and_control_character_prompts_are_bad_rows_and_the_good_row_runs(tmp_path, cli):
    rows = [
        {"id": "huge-float", "prompt": "a red apple", "seed": 1e30},
        {"id": "huge-int", "prompt": "a red apple", "seed": 99999999999999999999},
        {"id": "negative", "prompt": "a red apple", "seed": -1},
        {"id": "fraction", "prompt": "a red apple", "seed": 1.5},
        {"id": "nul", "prompt": "\u0000\u0000\u0001"},
        {"id": "good", "prompt": "a red apple", "seed": 3},
    ]
    prompts = tmp_path / "p.jsonl"
    prompts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "b"
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double",
                       "--candidates", "1", "--no-progress", "--no-report")
    assert code == 1 and "Traceback" not in err  # 1: some rows were bad; the batch itself ran
    bad = json.loads((out / "bad_rows.json").read_text())
    assert [b["line"] for b in bad] == [1, 2, 3, 4, 5]
    assert all("'seed' must be a whole number from 0 to 4294967295" in b["error"] for b in bad[:4])
    assert "no visible characters" in bad[4]["error"]
    manifest = [json.loads(ln) for ln in (out / "manifest.jsonl").read_text().splitlines()]
    assert [(m["id"], m["status"], m["seed"]) for m in manifest] == [("good", "done", 3)]


# --------------------------------------------------------------------------- images


@pytest.mark.parametrize(
    ("side", "message"),
    [(30000, "decompression bomb"), (20000, "decompression bomb"), (10000, "decompression bomb"), (7000, "is too large")],
)
def test_huge_images_are_refused_before_decoding_at_every_entry_point(tmp_path, cli, side, message):
    image = png_claiming_size(tmp_path / "big.png", side, side)
    refused(cli, "score", str(image), "--text", PROMPT, "--preset", "scene-double", match=message)
    refused(cli, "detect", str(image), "--text", PROMPT, "--preset", "scene-double", match=message)
    out = tmp_path / "run"
    refused(cli, "run", PROMPT, "--image", str(image), "--preset", "scene-double", "--out", str(out), match=message)
    assert not out.exists()


def test_a_damaged_image_given_to_run_leaves_no_run_dir(tmp_path, cli):
    image = tmp_path / "cut.png"
    Image.new("RGB", (64, 64), (200, 10, 10)).save(image)
    image.write_bytes(image.read_bytes()[:60])
    out = tmp_path / "run"
    refused(cli, "run", PROMPT, "--image", str(image), "--preset", "scene-double", "--out", str(out), match="--image")
    assert not out.exists()


# --------------------------------------------------------------------------- output directories


def test_an_out_below_a_file_is_refused_for_bench_and_batch(tmp_path, cli):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    suite = tmp_path / "s.csv"
    suite.write_text("prompt\na red apple\n")
    refused(cli, "bench", "run", "--suite", str(suite), "--out", str(blocker / "bench"), "--preset", "scene-double",
            match="is a file, not a directory")
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    refused(cli, "batch", str(prompts), "--out", str(blocker / "b"), "--preset", "scene-double",
            match="is a file, not a directory")


@pytest.fixture
def unwritable_dir(tmp_path):
    """An existing directory this process cannot write into. For a normal user a 0500 directory; root
    (as on CI) writes into those, so for root a sysfs directory, where creating a file fails even for
    root: the refusal must come from the real write probe, since ``os.access`` says yes to root there."""
    if os.geteuid() != 0:
        out = tmp_path / "bench"
        out.mkdir()
        out.chmod(0o500)
        yield out
        out.chmod(0o700)
        return
    out = Path("/sys/kernel")
    assert out.is_dir() and os.access(out, os.W_OK), "no sysfs here to stand in for an unwritable directory"
    yield out


def test_an_existing_but_unwritable_bench_out_is_refused(tmp_path, cli, unwritable_dir):
    suite = tmp_path / "s.csv"
    suite.write_text("prompt\na red apple\n")
    refused(cli, "bench", "run", "--suite", str(suite), "--out", str(unwritable_dir), "--preset", "scene-double",
            match="cannot write to")


def test_resume_on_a_batch_or_bench_directory_says_what_the_directory_is(tmp_path, cli):
    batch = tmp_path / "b"
    batch.mkdir()
    (batch / "ledger.sqlite").write_bytes(b"")
    (batch / "config.json").write_text('{"config": {}, "config_hash": "x"}')
    refused(cli, "run", "--resume", str(batch), match="is a batch directory, not a run")
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "bench.json").write_text("{}")
    refused(cli, "run", "--resume", str(bench), match="is a bench directory, not a run")


def test_a_bad_backend_or_model_path_stops_batch_and_bench_before_their_out_exists(tmp_path, cli):
    conf = tmp_path / "bad.toml"
    conf.write_text('[editor]\nmodel = "./no-such-editor"\n')
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    refused(cli, "batch", str(prompts), "--out", str(tmp_path / "b"), "--preset", "scene-double", "--config", str(conf),
            match="editor.model")
    conf.write_text('[vqa]\nbackend = "nope"\n')
    suite = tmp_path / "s.csv"
    suite.write_text("prompt\na red apple\n")
    refused(cli, "bench", "run", "--suite", str(suite), "--out", str(tmp_path / "bench"), "--preset", "scene-double",
            "--config", str(conf), match="no vqa backend named 'nope'")
    assert not (tmp_path / "b").exists() and not (tmp_path / "bench").exists()


def test_meta_rows_file_survives_a_torn_line(tmp_path):
    from autoalign.benchmarks.meta import RowStore

    rows = tmp_path / "report.json.rows.jsonl"
    store = RowStore(rows, "clip", "h")
    store.add("k1", 0.5)
    with open(rows, "a", encoding="utf-8") as fh:
        fh.write('{"tag": "clip:h", "key": "k2", "sc')  # killed mid-append
    again = RowStore(rows, "clip", "h")
    assert again.scores == {"k1": 0.5}
    again.add("k2", 0.25)
    assert RowStore(rows, "clip", "h").scores == {"k1": 0.5, "k2": 0.25}
