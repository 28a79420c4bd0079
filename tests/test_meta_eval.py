"""Meta-evaluation: ROC AUC per source, missing images counted, Winoground-style pair scores, resume."""

from __future__ import annotations

import csv
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image
from sklearn.metrics import roc_auc_score

from autoalign.benchmarks.meta import auc_summary, load_labels, run_labels, run_pairs, winoground_item
from autoalign.config import RoleSpec, load_config
from autoalign.errors import InputError
from autoalign.scoring.questions import SpacyQuestions

SEETRUE_COLUMNS = ["image", "text", "label", "original_dataset_id", "dataset_source"]
# Eight rows in SeeTRUE's format (written here): two per source and label where possible, in the order
# the tests index them: drawbench +/-, coco_t2i +/-, editbench +/-, two more coco_t2i positives.
SEETRUE_ROWS = [
    ("id_1_Colors_sd_0.png", "A green apple on a wooden table.", "1", "drawbench"),
    ("id_2_Positional_sd_0.png", "A dog to the left of a red bicycle.", "0", "drawbench"),
    ("id_3_coco_val_0.png", "Two people waiting at a bus stop.", "1", "coco_t2i"),
    ("id_4_sd_1_4_1.png", "A small boat on a calm lake at dawn.", "0", "coco_t2i"),
    ("1_a=few_o=cat_s=indoor.png", "a few cats sitting on a sofa.", "1", "editbench"),
    ("0_a=few_o=cat_s=indoor.png", "a few cats sitting on a sofa.", "0", "editbench"),
    ("id_5_sd_2_1_0.png", "A kitchen with a white fridge.", "1", "coco_t2i"),
    ("id_6_sd_2_1_0.png", "A train next to a brick station.", "1", "coco_t2i"),
]


class PixelClipDouble:
    """A CLIP test double: cosine = (red channel of the top-left pixel) / 255, plus a per-text offset."""

    def __init__(self, offsets: dict[str, float] | None = None):
        self.offsets = offsets or {}
        self.images_seen = 0

    def cosine(self, images, text):
        self.images_seen += len(images)
        return [img.getpixel((0, 0))[0] / 255 + self.offsets.get(text, 0.0) for img in images]


def models_with(clip) -> SimpleNamespace:
    return SimpleNamespace(vqa=None, clip=clip, questions=SpacyQuestions(RoleSpec("spacy", None, {})), llm=None)


def save(path: Path, red: int) -> None:
    Image.new("RGB", (4, 4), (red, 0, 0)).save(path)


def test_auc_equals_sklearn_on_a_hand_example():
    labels, scores = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.7, 0.9]
    # positives beat negatives in 7 of 9 pairs
    assert auc_summary(labels, scores)["auc"] == pytest.approx(7 / 9)
    assert auc_summary(labels, scores)["auc"] == pytest.approx(roc_auc_score(labels, scores))


def test_single_class_auc_is_undefined_not_an_error():
    out = auc_summary([1, 1, 1], [0.2, 0.5, 0.9])
    assert out["auc"] is None and "only one class" in out["note"] and out["n_pos"] == 3


@pytest.mark.parametrize(
    "s00, s01, s10, s11, text, image",
    [
        (0.9, 0.1, 0.2, 0.8, True, True),  # each caption and each image picks its partner
        (0.5, 0.1, 0.6, 0.7, False, True),  # c1 fits i0 better than c0 does -> text fails
        (0.5, 0.6, 0.4, 0.7, True, False),  # c0 fits i1 better than i0 -> image fails
        (0.5, 0.5, 0.5, 0.5, False, False),  # ties are not wins
    ],
)
def test_winoground_text_image_group(s00, s01, s10, s11, text, image):
    item = winoground_item(s00, s01, s10, s11)
    assert (item.text, item.image, item.group) == (text, image, text and image)


def _write_labels(tmp_path: Path, rows: list[dict[str, str]]) -> tuple[Path, Path, list[dict[str, str]]]:
    labels_csv = tmp_path / "labels.csv"
    with labels_csv.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    images = tmp_path / "images"
    images.mkdir()
    return labels_csv, images, rows


@pytest.fixture
def seetrue_subset(tmp_path):
    """Eight rows in SeeTRUE's format (drawbench, coco_t2i, editbench) and an empty image folder."""
    rows = [dict(zip(SEETRUE_COLUMNS, (image, text, label, f"text_{i}", source)))
            for i, (image, text, label, source) in enumerate(SEETRUE_ROWS)]
    return _write_labels(tmp_path, rows)


@pytest.fixture
def shared_seetrue_subset(tmp_path, shared_data):
    """The same selection from the real SeeTRUE.csv (the shared copy)."""
    rows = list(csv.DictReader((shared_data / "seetrue" / "SeeTRUE.csv").open(newline="", encoding="utf-8")))
    picked = []
    for source in ("drawbench", "coco_t2i", "editbench"):
        for label in ("1", "0"):
            picked += [r for r in rows if r["dataset_source"] == source and r["label"] == label][:1]
    picked += [r for r in rows if r["dataset_source"] == "coco_t2i" and r["label"] == "1"][1:3]
    return _write_labels(tmp_path, picked)


def test_run_labels_auc_per_source_and_missing_counted(seetrue_subset):
    _check_auc_per_source(*seetrue_subset)


@pytest.mark.slow
@pytest.mark.shared_data
def test_shared_seetrue_rows_auc_per_source_and_missing_counted(shared_seetrue_subset):
    _check_auc_per_source(*shared_seetrue_subset)


def _check_auc_per_source(labels_csv, images, rows) -> None:
    # drawbench: positive brighter than negative (AUC 1); coco: negative brighter (AUC 0 when both exist)
    reds = {0: 200, 1: 50, 2: 40, 3: 220}
    for i, red in reds.items():
        save(images / rows[i]["image"], red)
    (images / rows[6]["image"]).write_text("not an image")  # coco positive: unreadable
    save(images / rows[7]["image"], 90)  # coco positive, scored
    # rows 4, 5 (editbench) have no image at all
    clip = PixelClipDouble()
    report = run_labels(labels_csv, images, load_config("tiny"), "clip", models=models_with(clip), progress=False)
    src = report["sources"]
    assert src["drawbench"]["auc"] == 1.0 and src["drawbench"]["n_missing"] == 0
    coco_labels = [1, 0, 1]
    coco_scores = [2.5 * 40 / 255, 2.5 * 220 / 255, 2.5 * 90 / 255]
    assert src["coco_t2i"]["auc"] == pytest.approx(roc_auc_score(coco_labels, coco_scores))
    assert src["coco_t2i"]["n_missing"] == 1 and src["coco_t2i"]["n"] == 4
    assert src["editbench"]["auc"] is None and src["editbench"]["n_missing"] == 2
    assert report["overall"]["n_missing"] == 3 and report["overall"]["n_scored"] == 5
    statuses = {m["status"] for m in report["missing"]}
    assert "missing" in statuses and any(s.startswith("unreadable (") and "not a readable image" in s for s in statuses)
    assert report["metric"]["higher_is_better"] is True
    assert clip.images_seen == 5


def test_run_labels_resumes_from_its_rows_file(seetrue_subset, tmp_path):
    labels_csv, images, rows = seetrue_subset
    for i, r in enumerate(rows):
        save(images / r["image"], 30 * i)
    rows_path = tmp_path / "out.rows.jsonl"
    first_clip = PixelClipDouble()
    first = run_labels(labels_csv, images, load_config("tiny"), "clip", models=models_with(first_clip), rows_path=rows_path, progress=False)
    again_clip = PixelClipDouble()
    again = run_labels(labels_csv, images, load_config("tiny"), "clip", models=models_with(again_clip), rows_path=rows_path, progress=False)
    assert first_clip.images_seen == 8 and again_clip.images_seen == 0
    assert again["sources"] == first["sources"]


class TableClipDouble:
    """A CLIP test double: cosine looked up by (caption, red channel of the image).

    CLIPScore embeds "A photo depicts {caption}" (the reference's prefix); the table is keyed by the caption.
    """

    def __init__(self, table: dict[tuple[str, int], float]):
        self.table = table

    def cosine(self, images, text):
        caption = text.removeprefix("A photo depicts ")
        return [self.table[(caption, img.getpixel((0, 0))[0])] for img in images]


def test_run_pairs_winoground_scores(tmp_path):
    images = tmp_path / "imgs"
    images.mkdir()
    for name, red in {"a0.png": 200, "a1.png": 100, "b0.png": 120, "b1.png": 110}.items():
        save(images / name, red)
    pairs_csv = tmp_path / "pairs.csv"
    pairs_csv.write_text(
        "id,image_0,image_1,caption_0,caption_1\n"
        "a,a0.png,a1.png,a red cup,a blue cup\n"
        "b,b0.png,b1.png,a cat on a mat,a mat on a cat\n"
        "c,c0.png,a1.png,x,y\n",
        encoding="utf-8",
    )
    clip = TableClipDouble(
        {
            # pair a: each caption prefers its image and each image its caption -> text, image, group
            ("a red cup", 200): 0.9, ("a red cup", 100): 0.2, ("a blue cup", 200): 0.3, ("a blue cup", 100): 0.8,
            # pair b: s(c0,i0)=.5 > s(c1,i0)=.4 and s(c1,i1)=.7 > s(c0,i1)=.6 -> text;
            # but s(c0,i0)=.5 < s(c0,i1)=.6 -> no image score, no group
            ("a cat on a mat", 120): 0.5, ("a cat on a mat", 110): 0.6,
            ("a mat on a cat", 120): 0.4, ("a mat on a cat", 110): 0.7,
            ("x", 100): 0.1, ("y", 100): 0.1,  # pair c: only a1.png exists
        }
    )
    report = run_pairs(pairs_csv, images, load_config("tiny"), "clip", models=models_with(clip), progress=False)
    items = {x["id"]: x for x in report["items"]}
    assert items["a"] == {"id": "a", "status": "ok", "text": True, "image": True, "group": True}
    assert items["b"] == {"id": "b", "status": "ok", "text": True, "image": False, "group": False}
    assert items["c"]["status"] == "missing" and report["n_missing"] == 1  # c0.png does not exist
    assert (report["text_score"], report["image_score"], report["group_score"]) == (1.0, 0.5, 0.5)


def test_labels_csv_needs_the_seetrue_columns(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("image,text\nx.png,a cat\n", encoding="utf-8")
    with pytest.raises(InputError, match="lacks column"):
        load_labels(bad)
