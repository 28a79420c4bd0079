"""``autoalign score`` and ``autoalign bench meta`` end to end on the tiny random-weight models.

The tiny models' scores mean nothing; these tests check the wiring: every question gets a P(yes),
all pairs go to the VQA model in one call, errors are one line.
"""

from __future__ import annotations

import json

import pytest
from PIL import Image
from typer.testing import CliRunner

from autoalign import cli
from autoalign.cli_apps import app
from autoalign.errors import InputError

cli._load_commands()
runner = CliRunner()


@pytest.fixture
def two_images(tmp_path):
    paths = []
    for i, colour in enumerate([(200, 20, 20), (20, 20, 200)]):
        path = tmp_path / f"img{i}.png"
        Image.new("RGB", (64, 64), colour).save(path)
        paths.append(path)
    return paths


def test_score_json_on_tiny_models(two_images):
    result = runner.invoke(app, ["score", *map(str, two_images), "--text", "two red apples on a blue plate", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{") :])
    assert data["primary"] == "vq2" and len(data["images"]) == 2
    for card in data["images"]:
        assert [q["answer"] for q in card["questions"]] == ["apples", "two", "red", "plate", "blue", "plate"]
        assert all(0.0 <= q["p_yes"] <= 1.0 for q in card["questions"])
        assert card["overall"] == card["vq2"]
        assert 0.0 <= card["vnli"] <= 1.0 and 0.0 <= card["clip"] <= 2.5
    assert data["calls"]["vqa_yes_prob"] == 1 and data["calls"]["vqa_pairs"] == 12
    assert result.stderr.count("mean nothing") == 1 and "mean nothing" not in result.stdout  # said once, on stderr
    assert "Loading weights" not in result.output


def test_score_table_on_tiny_models(two_images):
    result = runner.invoke(app, ["score", str(two_images[0]), "--text", "a red car"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "is the car red?" in result.stdout and "VNLI" in result.stdout


def test_score_bad_image_is_a_one_line_error(tmp_path, two_images, capsys):
    not_image = tmp_path / "notes.png"
    not_image.write_text("hello")
    result = runner.invoke(app, ["score", str(not_image), "--text", "a cat"])
    assert isinstance(result.exception, InputError) and "not a readable image file" in str(result.exception)
    with pytest.raises(SystemExit) as info:
        cli.main(["score", str(tmp_path / "missing.png"), "--text", "a cat"])
    assert info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == f"error: image {tmp_path / 'missing.png'}: file not found"


def test_bench_meta_clip_on_tiny_models_counts_missing(tmp_path):
    labels = tmp_path / "labels.csv"
    labels.write_text(
        "image,text,label,original_dataset_id,dataset_source\n"
        "a.png,a red car,1,t1,drawbench\n"
        "b.png,a red car,0,t1,drawbench\n"
        "gone.png,a blue bird,1,t2,coco_t2i\n",
        encoding="utf-8",
    )
    images = tmp_path / "images"
    images.mkdir()
    Image.new("RGB", (32, 32), (255, 0, 0)).save(images / "a.png")
    Image.new("RGB", (32, 32), (0, 255, 0)).save(images / "b.png")
    out = tmp_path / "meta.json"
    args = ["bench", "meta", "--labels", str(labels), "--images", str(images), "--scorer", "clip", "--out", str(out), "--no-progress"]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    report = json.loads(out.read_text())["labels"]
    assert report["sources"]["drawbench"]["n_scored"] == 2 and report["sources"]["drawbench"]["auc"] in (0.0, 0.5, 1.0)
    assert report["sources"]["coco_t2i"]["n_missing"] == 1 and report["sources"]["coco_t2i"]["auc"] is None
    assert "ROC AUC" in result.stdout and "without a readable image" in result.stdout
    assert (tmp_path / "meta.json.rows.jsonl").exists()
