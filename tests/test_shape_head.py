"""The shape head (autoalign/models/shape_head.py): its features on drawn masks, fit / save / load, the segformer
grounder reading a rendered scene through a head, and the recipe's data on a few generated images. The heads fitted
here are test doubles trained on made-up rows: they check the code path, not how well a head reads shapes (the
grounding benchmark measures that, docs/lab-notes/round-28-issue-36-37.md)."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from autoalign.config import RoleSpec  # noqa: E402
from autoalign.models import shape_head  # noqa: E402
from autoalign.models.loading import DeviceSpec  # noqa: E402
from autoalign.world.render import draw  # noqa: E402
from autoalign.world.scene import Obj, Scene  # noqa: E402

CPU = DeviceSpec("cpu", "float32")
LABELS = ["circle", "square", "triangle", "blob", "none"]


def _disc(r: int = 8) -> np.ndarray:
    yy, xx = np.mgrid[:32, :32]
    return (yy - 16) ** 2 + (xx - 16) ** 2 <= r * r


def _triangle() -> np.ndarray:
    m = np.zeros((32, 32), bool)
    for y in range(8, 24):
        half = (y - 8) // 2
        m[y, 16 - half:17 + half] = True
    return m


def test_features_tell_a_square_a_disc_and_a_triangle_apart():
    square = np.zeros((32, 32), bool)
    square[8:24, 8:24] = True
    fs, fd, ft = (shape_head.features(m, [0.2, 0.5, 0.3]) for m in (square, _disc(), _triangle()))
    assert fs.shape == (len(shape_head.FEATURES),) and fs[0] == pytest.approx(1.0) and fs[2] == pytest.approx(1.0)
    assert 0.65 < fd[0] < 0.85 and abs(fd[1]) < 0.02  # a disc fills about pi / 4 of its box (less when small), centred
    assert ft[0] < 0.6 and ft[1] > 0.07  # a triangle's mass sits low
    assert list(fs[5:]) == pytest.approx([0.2, 0.5, 0.3])


def _fill_rows(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Made-up rows whose label is a rule of the fill alone (circle below 0.85, square above)."""
    rng = np.random.default_rng(seed)
    rows = rng.uniform(0, 1, size=(n, len(shape_head.FEATURES))).astype(np.float32)
    rows[:, 0] = rng.uniform(0.6, 1.0, size=n)
    return rows, np.where(rows[:, 0] < 0.85, 0, 1)


def test_a_head_fits_saves_and_loads_with_the_same_answers(tmp_path):
    rows, targets = _fill_rows(600)
    head = shape_head.fit(rows, targets, LABELS, width=32, steps=600)
    test, truth = _fill_rows(200, seed=1)
    said = head.predict(test)
    assert np.mean([s == LABELS[t] for s, t in zip(said, truth)]) > 0.9
    assert shape_head.load(tmp_path) is None  # no head there
    head.save(tmp_path)
    assert shape_head.load(tmp_path).predict(test) == said
    assert head.predict(np.zeros((0, len(shape_head.FEATURES)))) == []


def _always(label: str, tmp_path):
    """A test double: a head fitted to answer ``label`` whatever it reads."""
    rows, _ = _fill_rows(64)
    return shape_head.fit(rows, np.full(len(rows), LABELS.index(label)), LABELS, width=8, steps=100)


@pytest.fixture()
def grounder_copy(tmp_path):
    from autoalign.models.loading import resolve_model

    folder = tmp_path / "grounder"
    shutil.copytree(resolve_model("world:grounder", "grounder"), folder)
    return folder


def test_the_segformer_grounder_reads_shapes_through_its_head(grounder_copy):
    from autoalign.models.grounder import SegformerGrounder

    scene = draw(Scene([Obj("circle", "red", "big", 16, 16), Obj("square", "blue", "big", 46, 46)]))
    vote = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"shape_head": 0}), CPU)  # the pixels' vote
    shipped = SegformerGrounder(RoleSpec("segformer", str(grounder_copy)), CPU)  # the committed head (round 29)
    for grounder in (vote, shipped):
        before = {g.phrase: len(g.boxes) for g in grounder.ground([scene], ["red circle", "red square", "blue square"])[0]}
        assert before == {"red circle": 1, "red square": 0, "blue square": 1}

    _always("square", grounder_copy).save(grounder_copy)
    headed = SegformerGrounder(RoleSpec("segformer", str(grounder_copy)), CPU)
    after = {g.phrase: len(g.boxes) for g in headed.ground([scene], ["red circle", "red square", "blue square"])[0]}
    assert after == {"red circle": 0, "red square": 1, "blue square": 1}  # the head's word, not the pixels' vote
    vote = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"shape_head": 0}), CPU)
    assert {g.phrase: len(g.boxes) for g in vote.ground([scene], list(before))[0]} == before  # the test double unused

    _always("blob", grounder_copy).save(grounder_copy)
    keep = SegformerGrounder(RoleSpec("segformer", str(grounder_copy)), CPU)
    drop = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"drop_blobs": 1}), CPU)
    assert [len(g.boxes) for g in keep.ground([scene], ["red circle", "blue square"])[0]] == [1, 1]
    assert [len(g.boxes) for g in drop.ground([scene], ["red circle", "blue square"])[0]] == [0, 0]


def test_blob_score_reads_a_blob_with_its_majority_shape_but_not_for_sure(grounder_copy):
    """``blob_score``: an instance the head calls a blob is read with the pixels' majority shape and that score, even
    with ``drop_blobs`` (which then drops only what the head calls ``none``); below ``threshold`` it is refused."""
    from autoalign.config import ConfigError
    from autoalign.models.grounder import SegformerGrounder

    scene = draw(Scene([Obj("circle", "red", "big", 16, 16), Obj("square", "blue", "big", 46, 46)]))
    _always("blob", grounder_copy).save(grounder_copy)
    for options in ({"blob_score": 0.5}, {"blob_score": 0.5, "drop_blobs": 1}):
        read = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options=options), CPU)
        found = read.ground([scene], ["red circle", "blue square"])[0]
        assert [[b.score for b in g.boxes] for g in found] == [[0.5], [0.5]]
    _always("none", grounder_copy).save(grounder_copy)
    none = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"blob_score": 0.5, "drop_blobs": 1}), CPU)
    assert [len(g.boxes) for g in none.ground([scene], ["red circle", "blue square"])[0]] == [0, 0]
    with pytest.raises(ConfigError, match="blob_score 0.2 is below threshold 0.3"):
        SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"blob_score": 0.2}), CPU)


def test_head_score_scores_a_shape_the_head_names_by_the_head(grounder_copy):
    """``head_score = 1``: an instance whose shape the head names is scored by the head's probability of that shape
    times the colour's mean probability; by default it keeps the pixels' score, which belongs to their own shape."""
    from autoalign.models.grounder import SegformerGrounder

    scene = draw(Scene([Obj("circle", "red", "big", 16, 16)]))
    pixels = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"shape_head": 0}), CPU)
    (inst,) = pixels.read_instances([scene])[0]
    assert inst["labels"] == {"circle", "red"} and inst["score"] > 0.9  # the pixels are sure of a red circle

    head = _always("square", grounder_copy)
    head.save(grounder_copy)
    p_square = float(head.predict_proba(shape_head.features(inst["mask"], inst["p_shape"])[None])[0, LABELS.index("square")])
    by_pixels = SegformerGrounder(RoleSpec("segformer", str(grounder_copy)), CPU)
    by_head = SegformerGrounder(RoleSpec("segformer", str(grounder_copy), options={"head_score": 1}), CPU)
    (old,) = by_pixels.ground([scene], ["red square"])[0][0].boxes
    (new,) = by_head.ground([scene], ["red square"])[0][0].boxes
    assert old.score == pytest.approx(inst["score"])  # the circle's probability, reported for a square
    assert new.score == pytest.approx(p_square * inst["p_color"], rel=1e-5)
    assert new.score != pytest.approx(old.score)
    # either way the box carries the head's reading, for the layout detector's unseen_score (round 36)
    assert old.head_score == pytest.approx(new.score, rel=1e-5) and new.head_score == pytest.approx(new.score, rel=1e-5)
    (plain,) = pixels.ground([scene], ["red circle"])[0][0].boxes
    assert plain.head_score is None  # no head read it


def test_the_recipe_labels_generated_instances_by_the_world_s_reading(grounder_copy, tmp_path, monkeypatch):
    from autoalign.world.training import train_grounder

    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path / "home"))
    rows, targets, labels, majority = train_grounder.shape_head_data(grounder_copy, 3, seed=0, progress=False)
    assert labels == LABELS and rows.shape[1] == len(shape_head.FEATURES) and len(rows) == len(targets) == len(majority) > 0
    assert set(targets) <= set(range(len(labels))) and set(majority) <= {0, 1, 2}
    stats = train_grounder.train_shape_head(grounder_copy, 8, seed=0, progress=False)
    assert stats["trained"] and stats["instances"] >= 10 and sum(stats["labels"].values()) == stats["instances"]
    assert shape_head.load(grounder_copy) is not None


def test_a_smoke_run_with_the_shape_head_on_writes_it_beside_the_segformer(tmp_path, monkeypatch):
    import json

    from autoalign.world.training import recipes, train_grounder

    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(train_grounder, "SHAPE_HEAD", 1500)
    recipes.train("grounder", tmp_path / "out", seed=0, resume=False, steps=2, progress=False)
    card = json.loads((tmp_path / "out" / "grounder" / "MODEL_CARD.json").read_text())
    assert card["shape_head"]["images"] == 4  # SMOKE_KWARGS: a few images, not the recipe's 1,500
    # two SegFormer steps read (almost) no instance: no head is trained from them, and none is written
    trained = card["shape_head"]["trained"]
    assert trained == (card["shape_head"]["instances"] >= 10)
    assert (shape_head.load(tmp_path / "out" / "grounder") is not None) == trained
