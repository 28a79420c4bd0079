"""``autoalign detect`` and ``autoalign bench finematch`` end to end.

``detect`` runs on the tiny random-weight preset: its findings mean nothing, the test checks the
wiring (scorer -> detectors -> merged triplets as JSON/table) and the OCR detector, which is real.
``bench finematch --predictions`` scores a small JSON-lines file written here, loading no model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont
from typer.testing import CliRunner

from autoalign import cli
from autoalign.cli_apps import app
from autoalign.errors import AutoAlignError, InputError

cli._load_commands()
runner = CliRunner()

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def _json(stdout: str) -> dict:
    return json.loads(stdout[stdout.index("{") :])


@pytest.fixture
def misspelled_sign(tmp_path):
    img = Image.new("RGB", (320, 128), "white")
    font = ImageFont.truetype(str(FONT), 40) if FONT.exists() else ImageFont.load_default(size=40)
    ImageDraw.Draw(img).text((20, 40), "OPNE", fill="black", font=font)
    path = tmp_path / "sign.png"
    img.save(path)
    return path


@pytest.mark.slow
def test_detect_json_on_the_tiny_preset(misspelled_sign):
    result = runner.invoke(app, ["detect", str(misspelled_sign), "--text", 'a red sign that says "OPEN"', "--json"])
    assert result.exit_code == 0, result.output
    data = _json(result.stdout)
    assert data["detectors"] == ["vq2", "text"] and 0.0 <= data["overall"] <= 1.0
    assert 1 <= len(data["mismatches"]) <= 3
    text = [m for m in data["mismatches"] if m["source"] == "text"]
    assert [(m["aspect"], m["phrase"], m["correction"]) for m in text] == [("attribute", "OPEN", "OPNE")]
    assert text[0]["words"] == "asked for OPEN, image shows OPNE"
    assert result.stderr.count("mean nothing") == 1
    assert "\ufffd" not in result.output
    for m in data["mismatches"]:
        assert m["aspect"] in ("entity", "attribute", "relation", "number")
        assert m["phrase"] in 'a red sign that says "OPEN"'
        assert 0.0 <= m["confidence"] <= 1.0


@pytest.mark.slow
def test_detect_table_on_the_tiny_preset(misspelled_sign):
    result = runner.invoke(app, ["detect", str(misspelled_sign), "--text", 'a sign that says "OPEN"'], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "OPNE" in result.stdout and "confidence" in result.stdout and "similarity=" in result.stdout
    assert "asked for OPEN, image shows OPNE" in result.stdout  # the mismatch in words, not an arrow
    assert "\ufffd" not in result.output and "random-weight" in result.stderr


def test_detect_missing_image_is_a_one_line_error(tmp_path):
    result = runner.invoke(app, ["detect", str(tmp_path / "nope.png"), "--text", "a cat"])
    assert isinstance(result.exception, InputError) and "file not found" in str(result.exception)


def _write(path: Path, rows: list) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


DATA = [
    {"id": "1", "image": "1.png", "caption": "a red car", "mismatches": [{"class": "attribute", "phrase": "red", "correction": "blue"}]},
    {"id": "2", "image": "2.png", "caption": "two dogs on grass", "mismatches": [{"class": "number", "phrase": "two", "correction": "three"}]},
    {"id": "3", "image": "3.png", "caption": "a cat on a mat", "mismatches": []},
]
PREDS = [
    {"id": "1", "mismatches": [{"class": "attribute", "phrase": "red", "correction": "blue"}]},  # perfect -> 1
    {"id": "2", "mismatches": [{"aspect": "entity", "phrase": "grass", "correction": "sand"}]},  # no match -> 0
    {"id": "3", "mismatches": []},  # aligned, predicted aligned -> 1
]


def test_bench_finematch_scores_saved_predictions(tmp_path):
    data = _write(tmp_path / "data.jsonl", DATA)
    preds = _write(tmp_path / "preds.jsonl", PREDS)
    result = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--predictions", str(preds), "--semantic-sim", "chrf", "--json"])
    assert result.exit_code == 0, result.output
    report = _json(result.stdout)
    assert report["n"] == 3
    assert report["itm_iou_mdc"] == pytest.approx(200 / 3) and report["itm_iou_md"] == pytest.approx(200 / 3)
    assert report["per_class"]["attribute"] == {"precision": 1.0, "recall": 1.0, "n_pred": 1, "n_true": 1}
    assert report["per_class"]["number"]["recall"] == 0.0 and report["per_class"]["entity"]["precision"] == 0.0
    assert report["missing_predictions"] == 0 and report["semantic_sim"] == "chrf"


def test_bench_finematch_table_and_missing_prediction(tmp_path):
    data = _write(tmp_path / "data.jsonl", DATA)
    preds = _write(tmp_path / "preds.jsonl", PREDS[:1])
    result = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--predictions", str(preds), "--semantic-sim", "chrf"], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    # item 2 predicted aligned -> 0, item 3 predicted aligned -> 1
    assert "Mismatch Detection 66.67" in result.stdout and "2 item(s) had no prediction" in result.stdout


def test_bench_finematch_reports_bad_lines_with_numbers(tmp_path):
    data = _write(tmp_path / "data.jsonl", [DATA[0], "{not json", {"id": "9", "caption": "x"}, {**DATA[1], "mismatches": [{"class": "mood", "phrase": "two"}]}])
    result = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--predictions", str(data), "--semantic-sim", "chrf"])
    assert isinstance(result.exception, InputError)
    message = str(result.exception)
    assert "3 bad line(s)" in message and "line 2: not JSON" in message and "line 3: missing image" in message
    assert "line 4: mismatches[0].class 'mood'" in message


def test_bench_finematch_needs_images_without_predictions(tmp_path):
    data = _write(tmp_path / "data.jsonl", DATA)
    result = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--semantic-sim", "chrf"])
    assert isinstance(result.exception, InputError) and "--images" in str(result.exception)


@pytest.mark.slow
def test_bench_finematch_runs_the_detectors_on_the_tiny_preset(tmp_path):
    for row in DATA[:2]:
        Image.new("RGB", (64, 64), (90, 90, 200)).save(tmp_path / row["image"])
    data = _write(tmp_path / "data.jsonl", DATA[:2])
    out = tmp_path / "pred.jsonl"
    result = runner.invoke(
        app, ["bench", "finematch", "--data", str(data), "--images", str(tmp_path), "--semantic-sim", "chrf", "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = _json(result.stdout)
    assert report["n"] == 2 and report["preset"] == "tiny" and 0.0 <= report["itm_iou_mdc"] <= 100.0
    saved = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["id"] for row in saved] == ["1", "2"]
    # the saved predictions score the same without loading a model
    again = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--predictions", str(out), "--semantic-sim", "chrf", "--json"])
    assert _json(again.stdout)["itm_iou_mdc"] == pytest.approx(report["itm_iou_mdc"])


def test_bench_finematch_bertscore_offline_suggests_chrf(tmp_path):
    data = _write(tmp_path / "data.jsonl", DATA)
    preds = _write(tmp_path / "preds.jsonl", PREDS)
    result = runner.invoke(app, ["bench", "finematch", "--data", str(data), "--predictions", str(preds)])
    assert result.exit_code != 0
    assert isinstance(result.exception, AutoAlignError) and "--semantic-sim chrf" in str(result.exception)
