"""The grounder role: typed output on the tiny OWLv2 / Grounding DINO / SegFormer code paths and on the
world's trained grounder, the layout detector on rendered scenes (boxes against the scene graph), the
grounded pass, and the grounder recipe's two-step smoke run. The tiny models' boxes mean nothing (random
weights): their tests check types, shapes and bounds only."""

from __future__ import annotations

import json
import os

import pytest
from PIL import Image

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from autoalign.config import ConfigError, RoleSpec, load_config  # noqa: E402
from autoalign.grounding import box_iou  # noqa: E402
from autoalign.models.loading import DeviceSpec  # noqa: E402
from autoalign.types import Box, Grounding, Mismatch  # noqa: E402
from autoalign.world.render import draw, object_map  # noqa: E402
from autoalign.world.scene import Obj, Scene  # noqa: E402

CPU = DeviceSpec("cpu", "float32")


def _check_typed(result, n_images: int, phrases: list[str], size: tuple[int, int]) -> None:
    assert len(result) == n_images
    for per_image in result:
        assert [g.phrase for g in per_image] == phrases
        for g in per_image:
            assert isinstance(g, Grounding)
            scores = [b.score for b in g.boxes]
            assert scores == sorted(scores, reverse=True)
            for b in g.boxes:
                assert isinstance(b, Box) and 0.0 <= b.score <= 1.0
                x0, y0, x1, y1 = b.xyxy
                assert 0 <= x0 < x1 <= size[0] and 0 <= y0 < y1 <= size[1]
                json.dumps(g.to_dict())  # JSON-friendly, the mask array left out
                assert "mask_array" not in b.to_dict()


@pytest.mark.parametrize("backend", ["owlv2", "grounding-dino", "segformer"])
def test_tiny_grounders_return_typed_boxes_inside_the_image(backend):
    from autoalign import registry

    cls = registry.get("grounder", backend)
    grounder = cls(RoleSpec(backend, f"tiny:{backend}", {"threshold": 0.0}), CPU)
    images = [Image.new("RGB", (64, 48), (50, 50, 50)), Image.new("RGB", (64, 48), (220, 40, 40))]
    phrases = ["a red circle", "two squares"]
    result = grounder.ground(images, phrases)
    _check_typed(result, 2, phrases, (64, 48))
    if backend != "segformer":  # a detector at threshold 0 always returns some box (random weights: they mean nothing)
        assert any(g.boxes for row in result for g in row)
    assert grounder.release() is True


def test_grounder_options_are_checked():
    from autoalign.models.grounder import Owlv2Grounder

    with pytest.raises(ConfigError, match="threshold"):
        Owlv2Grounder(RoleSpec("owlv2", "tiny:owlv2", {"threshold": 2}), CPU)
    with pytest.raises(ConfigError, match="unknown option"):
        Owlv2Grounder(RoleSpec("owlv2", "tiny:owlv2", {"box_threshold": 0.3}), CPU)


def test_a_preset_without_a_grounder_says_so():
    from autoalign.errors import AutoAlignError
    from autoalign.models.cache import Models

    config = load_config("tiny")
    assert config.grounder is None
    with pytest.raises(AutoAlignError, match=r"no \[grounder\]"):
        _ = Models(config).grounder


# ------------------------------------------------------------------------------- the world's grounder


def _truth(scene: Scene) -> list[tuple[float, float, float, float]]:
    import numpy as np

    ids = np.asarray(object_map(scene))
    out = []
    for k in range(1, len(scene.objects) + 1):
        ys, xs = np.nonzero(ids == k)
        out.append((xs.min(), ys.min(), xs.max() + 1.0, ys.max() + 1.0))
    return out


SCENE = Scene([Obj("circle", "red", "big", 16, 16), Obj("circle", "red", "small", 48, 18),
               Obj("square", "blue", "big", 20, 46), Obj("triangle", "yellow", "big", 46, 46)])


@pytest.fixture(scope="module")
def world():
    from autoalign.models.cache import Models

    config = load_config("shapes")
    return Models(config), config


def test_world_grounder_finds_each_object_of_a_rendered_scene(world):
    models, _ = world
    truth = _truth(SCENE)
    phrases = ["two red circles", "a blue square", "a yellow triangle", "a green circle", "a square"]
    result = models.grounder.ground([draw(SCENE)], phrases)
    _check_typed(result, 1, phrases, (64, 64))
    got = {g.phrase: g.boxes for g in result[0]}
    assert len(got["two red circles"]) == 2 and len(got["a blue square"]) == 1 and len(got["a yellow triangle"]) == 1
    assert got["a green circle"] == [] and len(got["a square"]) == 1
    for phrase, objects in (("two red circles", [0, 1]), ("a blue square", [2]), ("a yellow triangle", [3])):
        for i in objects:
            assert max(box_iou(b.xyxy, truth[i]) for b in got[phrase]) >= 0.7
    mask = got["a blue square"][0].mask_array
    assert mask.shape == (64, 64) and 300 < mask.sum() < 400  # a big square is 19 x 19 pixels


# ------------------------------------------------------------------------------- the layout detector


def _layout(models, config):
    from autoalign.detection.layout import LayoutDetector

    return LayoutDetector(models, config)


def test_layout_detector_is_quiet_on_the_caption_s_own_scene(world):
    scene = Scene([Obj("circle", "red", "big", 14, 30), Obj("square", "blue", "big", 48, 30)])
    assert _layout(*world).detect(draw(scene), "a red circle to the left of a blue square", None) == []


def test_layout_detector_names_a_missing_object(world):
    scene = Scene([Obj("circle", "red", "big", 14, 30)])
    found = _layout(*world).detect(draw(scene), "a red circle and a blue square", None)
    assert [(m.aspect, m.phrase, m.evidence["action"]) for m in found] == [("entity", "a blue square", "add")]
    assert found[0].source == "layout" and found[0].evidence["boxes"] == []


def test_layout_detector_names_an_extra_object_with_its_boxes(world):
    scene = Scene([Obj("circle", "red", "big", 14, 30), Obj("circle", "red", "big", 48, 30)])
    found = _layout(*world).detect(draw(scene), "a red circle", None)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("number", "a red circle", "two red circles")]
    boxes = [Box.from_dict(b) for b in found[0].evidence["boxes"]]
    truth = _truth(scene)
    assert len(boxes) == 2 and all(max(box_iou(b.xyxy, t) for b in boxes) >= 0.7 for t in truth)


def test_layout_detector_names_a_moved_object_from_box_centres(world):
    scene = Scene([Obj("circle", "red", "big", 48, 30), Obj("square", "blue", "big", 14, 30)])  # circle on the right
    found = _layout(*world).detect(draw(scene), "a red circle to the left of a blue square", None)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("relation", "to the left of", "to the right of")]
    subject, obj = (Box.from_dict(b) for b in found[0].evidence["boxes"])
    assert subject.center[0] > obj.center[0]
    assert box_iou(subject.xyxy, _truth(scene)[0]) >= 0.7


def test_layout_detector_speaks_the_world_s_words_on_a_recoloured_object(world):
    scene = Scene([Obj("circle", "green", "big", 30, 30)])
    found = _layout(*world).detect(draw(scene), "a red circle", None)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("attribute", "red", "green")]


def test_relative_position_follows_geneval():
    from autoalign.detection.layout import relative_position

    a, b = Box((0, 0, 10, 10), 1.0), Box((30, 2, 40, 12), 1.0)
    assert relative_position(a, b) == {"left"} and relative_position(b, a) == {"right"}
    assert relative_position(Box((0, 0, 10, 10), 1.0), Box((1, 1, 11, 11), 1.0)) == set()  # within 0.1 of the sizes


def test_layout_is_registered_once_and_runs_in_the_ensemble(world):
    from dataclasses import replace

    from autoalign import registry
    from autoalign.detection import detect

    assert "layout" in registry.names("detector")
    models, config = world
    cfg = replace(config, detection=replace(config.detection, detectors=["clip-probe", "layout"]))
    scene = Scene([Obj("circle", "red", "big", 14, 30), Obj("circle", "red", "big", 48, 30)])
    found = detect(draw(scene), "a red circle", None, models, cfg)
    assert any(m.aspect == "number" and m.evidence.get("boxes") for m in found)


# ------------------------------------------------------------------------------- training


def test_a_smoke_run_draws_a_few_generated_and_edited_images(tmp_path, monkeypatch):
    """``world train --steps N`` with the GENERATED / EDITED tiers on draws 4 generated and 2 edited images, not
    the recipe's thousands (SMOKE_KWARGS)."""
    import numpy as np

    from autoalign.world.training import recipes, train_grounder

    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(train_grounder, "GENERATED", (0.5, 2000, 2))
    monkeypatch.setattr(train_grounder, "EDITED", (0.3, 800))
    stats = recipes.train("grounder", tmp_path / "out", seed=0, resume=False, steps=2, progress=False)
    assert stats["steps"] == 2
    kept = {p.name.split("-")[0]: len(np.load(p)["images"]) for p in (tmp_path / "home" / "world-train" / "grounder").glob("*.npz")}
    assert kept == {"bank": 4, "edited": 2}


def test_grounder_recipe_two_step_smoke(tmp_path):
    from autoalign.world.training import recipes

    stats = recipes.train("grounder", tmp_path, seed=0, resume=False, steps=2, progress=False)
    assert stats["steps"] == 2 and stats["loss"] > 0
    card = json.loads((tmp_path / "grounder" / "MODEL_CARD.json").read_text())
    assert card["name"] == "grounder" and card["plan"]["steps"] == 2
    from autoalign.models.grounder import SegformerGrounder

    grounder = SegformerGrounder(RoleSpec("segformer", str(tmp_path / "grounder")), CPU)
    _check_typed(grounder.ground([draw(SCENE)], ["a red circle"]), 1, ["a red circle"], (64, 64))
    assert grounder.nouns() == ["circle", "square", "triangle"]


# ------------------------------------------------------------------------------- the pass that counts


def test_the_grounded_pass_refuses_a_wrong_count_that_clip_passes(world):
    from dataclasses import replace

    from autoalign.detection import detect
    from autoalign.editing.policy import is_aligned
    from autoalign.scoring.scorer import Scorer

    models, config = world
    assert config.detection.grounded_pass  # on for the shapes preset
    prompt = "three yellow circles"
    image = draw(Scene([Obj("circle", "yellow", "big", 14, 14), Obj("circle", "yellow", "big", 48, 14)]))  # two
    card = Scorer(models, config, only={"clip"}).score([image], prompt)[0]
    without = replace(config, detection=replace(config.detection, grounded_pass=False))
    assert card.overall >= config.loop.threshold and detect(image, prompt, card, models, without) == []
    assert is_aligned(card, [], config.loop.threshold)  # what the loop said before: aligned
    found = detect(image, prompt, card, models, config)
    assert [(m.aspect, m.correction, m.source) for m in found] == [("number", "two yellow circles", "layout")]
    assert len(found[0].evidence["boxes"]) == 2
    assert not is_aligned(card, found, config.loop.threshold)


class _GuessingDetectorDouble:
    """A test double for a bag-of-words detector: it guesses a count and a colour, whatever the image."""

    name = "guessing-double"

    def __init__(self, models, config):
        pass

    def detect(self, image, prompt, card):
        return [Mismatch("number", "three yellow circles", "two yellow circles", 0.9, self.name),
                Mismatch("attribute", "yellow", "red", 0.8, self.name)]


class _LayoutDouble(_GuessingDetectorDouble):
    """A test double for the layout detector: its boxes find one circle too many."""

    name = "layout"

    def detect(self, image, prompt, card):
        return [Mismatch("number", "a red square", "two red squares", 0.7, self.name, {"boxes": []})]


def test_when_the_pass_decides_other_detectors_keep_only_their_attributes(monkeypatch):
    from autoalign import registry
    from autoalign.detection import detect

    monkeypatch.setitem(registry._REGISTRY, "detector", {**registry._REGISTRY["detector"],
                                                         "guessing-double": _GuessingDetectorDouble, "layout": _LayoutDouble})
    image = Image.new("RGB", (64, 64))
    both = {"detectors": ["guessing-double"], "max_mismatches": 5}
    config = load_config("shapes", overrides={"detection": {**both, "pass_decides": False}})
    assert sorted((m.aspect, m.source) for m in detect(image, "a prompt", None, None, config)) == [
        ("attribute", "guessing-double"), ("number", "guessing-double"), ("number", "layout")]
    config = load_config("shapes", overrides={"detection": {**both, "pass_decides": True}})
    assert sorted((m.aspect, m.source) for m in detect(image, "a prompt", None, None, config)) == [
        ("attribute", "guessing-double"), ("number", "layout")]


class _ColourLayoutDouble(_GuessingDetectorDouble):
    """A test double for the layout detector: the square it boxes is red, the prompt asks for a blue one."""

    name = "layout"

    def detect(self, image, prompt, card):
        box = {"xyxy": [10.0, 10.0, 30.0, 30.0], "score": 0.9, "label": "red square", "mask": ""}
        return [Mismatch("attribute", "blue", "red", 0.8, self.name, {"noun": "square", "expected": "blue", "boxes": [box]})]


def test_the_pass_reports_colours_with_boxes_when_the_region_editor_takes_attributes(monkeypatch):
    from autoalign import registry
    from autoalign.detection import grounded_pass
    from autoalign.editing.policy import region_mismatches

    monkeypatch.setitem(registry._REGISTRY, "detector", {**registry._REGISTRY["detector"], "layout": _ColourLayoutDouble})
    image = Image.new("RGB", (64, 64))
    plain = load_config("shapes", overrides={"region_editor": {"attributes": False}})
    assert grounded_pass(image, "a blue square", None, plain) == []
    config = load_config("shapes", overrides={"region_editor": {"attributes": True}})
    found = grounded_pass(image, "a blue square", None, config)
    assert [(m.aspect, m.phrase) for m in found] == [("attribute", "blue")]
    assert region_mismatches(found, config) == found  # with its box, it goes to the region editor


def test_grounded_answers_replace_the_vlm_on_count_and_place_questions(world):
    from autoalign.scoring.grounded import grounded_answers
    from autoalign.types import Question

    models, _ = world
    prompt = "a red circle to the left of two blue squares"
    questions = [Question("1", "is there a circle?", "circle", "entity", "a red circle"),
                 Question("2", "are there two squares?", "two", "number", "two blue squares"),
                 Question("3", "is the circle to the left of the squares?", "squares", "relation",
                          "circle to the left of two blue squares")]
    right = Scene([Obj("circle", "red", "big", 12, 30), Obj("square", "blue", "small", 44, 14), Obj("square", "blue", "small", 44, 48)])
    moved = Scene([Obj("circle", "red", "big", 52, 30), Obj("square", "blue", "small", 20, 14), Obj("square", "blue", "small", 20, 48)])
    short = Scene([Obj("circle", "red", "big", 12, 30), Obj("square", "blue", "small", 44, 14)])
    ok, swapped, one = grounded_answers(models.grounder, [draw(right), draw(moved), draw(short)], prompt, questions)
    assert ok[0] is None and ok[1] > 0.75 and ok[2] > 0.75
    assert swapped[1] > 0.75 and swapped[2] < 0.25
    assert one[1] < 0.25 and one[2] > 0.75


# ------------------------------------------------------------------------------- honest words


def test_words_outside_the_preset_vocabulary_get_one_warning(caplog):
    from autoalign.vocabulary import outside_words, warn_outside

    shapes = load_config("shapes")
    assert outside_words("two red circles to the left of a big blue square", shapes) == []
    with caplog.at_level("WARNING", logger="autoalign.vocabulary"):
        assert warn_outside("a red car on a bench", shapes) == ["car", "bench", "on"]
    warnings = [r for r in caplog.records if r.name == "autoalign.vocabulary"]
    assert len(warnings) == 1 and "'car', 'bench', 'on'" in warnings[0].getMessage()
    assert outside_words("an orange circle", shapes) == ["orange"]
    assert outside_words("a red car on a bench", load_config("tiny")) == []  # open vocabulary: no warning


def test_clip_probe_corrects_only_with_the_preset_s_words(world):
    from autoalign.detection.clip_probe import ClipProbeDetector, word_classes

    models, config = world
    world_colours = set(json.loads(__import__("autoalign.prompts", fromlist=["load"]).load("world_vocabulary.json"))["colors"])
    listed = {w for group in word_classes()["attribute"] for w in group}
    assert listed - world_colours  # the probe's lists hold colours the world does not have (orange, ...)
    detector = ClipProbeDetector(models, config, margin=-10.0, max_mismatches=10)  # every slot reported
    image = draw(Scene([Obj("circle", "green", "big", 30, 30)]))
    found = detector.detect(image, "a red circle", None)
    corrections = {m.correction for m in found if m.aspect == "attribute"}
    assert corrections and corrections <= world_colours


# ------------------------------------------------------------------------------- GenEval's rules


def _b(x0, y0, x1, y1, score=0.9):
    return Box((x0, y0, x1, y1), score)


def test_geneval_rules_on_hand_built_detections():
    from autoalign.benchmarks.geneval_rules import evaluate

    counting = {"tag": "counting", "include": [{"class": "clock", "count": 2}], "exclude": [{"class": "clock", "count": 3}]}
    assert evaluate({"clock": [_b(0, 0, 10, 10), _b(20, 0, 30, 10)]}, counting)[0]
    assert not evaluate({"clock": [_b(0, 0, 10, 10)]}, counting)[0]
    assert not evaluate({"clock": [_b(0, 0, 10, 10), _b(20, 0, 30, 10), _b(40, 0, 50, 10)]}, counting)[0]
    position = {"tag": "position", "include": [{"class": "kite", "count": 1},
                                               {"class": "dog", "count": 1, "position": ["right of", 0]}]}
    assert evaluate({"kite": [_b(0, 0, 10, 10)], "dog": [_b(40, 0, 50, 10)]}, position)[0]
    ok, why = evaluate({"kite": [_b(40, 0, 50, 10)], "dog": [_b(0, 0, 10, 10)]}, position)
    assert not ok and "right of" in why[0]
    assert not evaluate({"dog": [_b(40, 0, 50, 10)]}, position)[0]  # no target: wrong
    colour = {"tag": "color_attr", "include": [{"class": "bus", "count": 1, "color": "green"}]}
    assert evaluate({"bus": [_b(0, 0, 9, 9)]}, colour, lambda box, name: "green")[0]
    assert not evaluate({"bus": [_b(0, 0, 9, 9)]}, colour, lambda box, name: "red")[0]


def test_geneval_metadata_of_a_world_caption_and_its_verdict_with_the_world_grounder(world):
    from autoalign.benchmarks.geneval_rules import detect, evaluate, spec_metadata
    from autoalign.world.scene import parse_caption

    models, _ = world
    spec = parse_caption("a red circle to the left of a blue square")
    meta = spec_metadata(spec)
    assert meta["include"] == [{"class": "square", "count": 1, "color": "blue"},
                               {"class": "circle", "count": 1, "color": "red", "position": ["left of", 0]}]
    right = draw(Scene([Obj("circle", "red", "big", 14, 30), Obj("square", "blue", "big", 48, 30)]))
    wrong = draw(Scene([Obj("circle", "red", "big", 48, 30), Obj("square", "blue", "big", 14, 30)]))
    recoloured = draw(Scene([Obj("circle", "green", "big", 14, 30), Obj("square", "blue", "big", 48, 30)]))
    for image, expected in ((right, True), (wrong, False), (recoloured, False)):
        objects, colour_of = detect(models.grounder, image, meta)
        assert evaluate(objects, meta, colour_of)[0] is expected


def test_what_needs_a_grounder_is_refused_without_one():
    with pytest.raises(ConfigError, match=r"detection.grounded_pass need\(s\) a \[grounder\]"):
        load_config("tiny", overrides={"detection": {"grounded_pass": True}})
    with pytest.raises(ConfigError, match="layout detector"):
        load_config("tiny", overrides={"detection": {"detectors": ["layout"]}})
    assert load_config("tiny", overrides={"grounder": {"backend": "owlv2", "model": "tiny:owlv2"},
                                          "detection": {"detectors": ["layout"]}}).grounder.backend == "owlv2"


def test_grounding_eval_cells_read_both_figure_forms():
    """The report's cells read Wilson shares in Metric's JSON form and the bootstrap figures' ``ci`` form alike
    (after the one-Metric change a Wilson share made the report raise KeyError 'ci')."""
    from autoalign.benchmarks.grounding_eval import _cell
    from autoalign.benchmarks.metrics import wilson

    assert _cell(wilson(3, 4)) == "0.750 [0.301, 0.954] (n=4)"
    assert _cell({"value": 0.5, "n": 10, "ci": [0.25, 0.75]}) == "0.500 [0.250, 0.750] (n=10)"
    assert _cell(wilson(0, 0)) == "n/a"


# ------------------------------------------------------------------------------- round 16: generated-style training


def test_elastic_bends_the_labels_with_the_pixels():
    """The grounder recipe's elastic deformation moves each object's labels with its pixels: the bent image
    shows every bent label's colour, the objects changed outline (not a copy), and no displacement is the identity."""
    import random

    import numpy as np

    from autoalign.world.scene import background, colors
    from autoalign.world.training.train_grounder import elastic

    scene = Scene([Obj("circle", "red", "big", 16, 20), Obj("square", "blue", "big", 46, 20), Obj("triangle", "green", "big", 30, 48)])
    ids = np.asarray(object_map(scene), dtype=np.int64)
    image, bent = elastic(draw(scene), ids, random.Random(3), 3.0, 4.0)
    arr = np.asarray(image, dtype=np.float32)
    palette = colors()
    for k, o in enumerate(scene.objects, start=1):
        inside = bent == k
        assert 0.6 < inside.sum() / (ids == k).sum() < 1.4
        dist = np.linalg.norm(arr[inside] - np.asarray(palette[o.color], dtype=np.float32), axis=-1)
        assert (dist < 60).mean() > 0.9  # the bent label sits on its object's colour (edges interpolate)
    assert (np.linalg.norm(arr[bent == 0] - np.asarray(background(), dtype=np.float32), axis=-1) < 60).mean() > 0.98
    assert (bent != ids).sum() > 30  # outlines changed
    same, same_ids = elastic(draw(scene), ids, random.Random(3), 0.0, 4.0)
    assert (same_ids == ids).all() and (np.asarray(same) == np.asarray(draw(scene))).all()


def test_grounding_eval_draws_generated_images_from_the_splits_asked():
    """``--split val`` measures generated images of validation captions (to choose settings on); the default stays
    the held-out test split, and the compositional split is the rendered part's question only."""
    from autoalign.benchmarks.grounding_eval import generated_splits

    assert generated_splits(["val"]) == ["val"]
    assert generated_splits(["test", "compositional"]) == ["test"]
    assert generated_splits(["compositional"]) == ["test"]
    assert generated_splits(["val", "test"]) == ["val", "test"]


# ------------------------------------------------------------------------------- round 20: grounder variants on the same images


def test_grounding_eval_measures_a_grounder_directory(tmp_path):
    """``--grounder DIR`` swaps the preset's grounder model for a saved directory (recipe variants are chosen this
    way); a directory without a saved model is one clear InputError, and nothing is written."""
    from autoalign.benchmarks.grounding_eval import main, with_grounder
    from autoalign.errors import InputError

    config = load_config("shapes")
    assert with_grounder(config, None) is config
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "config.json").write_text("{}")
    swapped = with_grounder(config, tmp_path / "g")
    assert swapped.grounder.model == str((tmp_path / "g").resolve())
    assert swapped.grounder.backend == config.grounder.backend and config.grounder.model == "world:grounder"
    with pytest.raises(InputError, match="no saved model"):
        main(["--grounder", str(tmp_path / "missing"), "--only", "generated", "--generated", "1",
              "--out", str(tmp_path / "out.json"), "--records", str(tmp_path / "rec.json")])
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "rec.json").exists()


def test_grounding_eval_records_each_generated_phrase():
    """The generated part keeps each phrase's two counts (grounder, oracle), so two grounders on the same images
    compare phrase by phrase; the agreement share is those records' share of equal counts, and the results
    table leaves the records out. A test double draws the scene graph's own render as the 'generated' image."""
    from autoalign.benchmarks.grounding_eval import generated, results_doc
    from autoalign.config import load_config as load
    from autoalign.models.cache import Models
    from autoalign.world.render import scene_for
    from autoalign.world.scene import spec_for

    class RenderingGenerator:  # test double: the caption's rendered scene, not a model's image
        def generate(self, caption, n, seed):
            spec = next(spec_for("val", i) for i in range(50) if spec_for("val", i).caption() == caption)
            return [draw(scene_for(spec, seed))]

    grounder = Models(load("shapes")).grounder
    got = generated(grounder, RenderingGenerator(), "val", 3)
    records = got["records"]
    assert records and {r["image"] for r in records} <= {0, 1, 2}
    assert all(set(r) == {"image", "phrase", "grounder", "oracle"} and len(r["phrase"].split()) == 2 for r in records)
    share = got["count per phrase agrees with the oracle"]
    assert share["n"] == len(records)
    assert share["value"] == sum(r["grounder"] == r["oracle"] for r in records) / len(records)
    rows = results_doc({"rendered": {}, "generated": {"val": got}}, "cmd")["tables"][0]["rows"]
    assert rows and not any(row[1] == "records" for row in rows)


# ------------------------------------------------------------------------------- round 25: blobs labelled as the world reads them


def test_training_labels_are_the_scene_graph_on_a_clean_scene_and_background_on_a_blob():
    """The grounder recipe labels each blob of a hard-bent scene with the shape the oracle reads in it: an unbent
    scene keeps the scene graph's shapes and colours; a circle bent into a bar no shape fits, and two same-colour squares bent into one
    blob, are background (colour ignored), while the other objects keep their labels."""
    import numpy as np

    from autoalign.world.oracle import blob_shape
    from autoalign.world.training.train_grounder import IGNORE, graph_labels, label_names, read_labels

    shape_names, color_names = label_names()
    scene = Scene([Obj("circle", "red", "big", 16, 20), Obj("square", "blue", "big", 46, 20), Obj("triangle", "green", "big", 30, 48)])
    ids = np.asarray(object_map(scene), dtype=np.int64)
    shape_lab, color_lab = read_labels(scene, ids)
    for k, o in enumerate(scene.objects, start=1):
        assert (shape_lab[ids == k] == shape_names.index(o.shape)).all()
        assert (color_lab[ids == k] == color_names.index(o.color)).all()
    assert (shape_lab[ids == 0] == 0).all() and (color_lab[ids == 0] == IGNORE).all()

    bar = ids.copy()
    bar[bar == 1] = 0
    bar[18:23, 4:30] = 1  # the red circle stretched into a 26x5 bar: too elongated for any shape
    assert blob_shape(bar == 1)[0] is None
    shape_lab, color_lab = read_labels(scene, bar)
    assert (shape_lab[bar == 1] == 0).all() and (color_lab[bar == 1] == IGNORE).all()
    assert (shape_lab[bar == 2] == shape_names.index("square")).all()
    assert (graph_labels(scene, bar)[0][bar == 1] == shape_names.index("circle")).all()  # (the mild tier's labels: as drawn)

    twins = Scene([Obj("square", "blue", "small", 20, 20), Obj("square", "blue", "small", 34, 20)])
    tids = np.asarray(object_map(twins), dtype=np.int64)
    joined = tids.copy()
    ys, xs = np.nonzero(tids > 0)
    joined[ys.min():ys.max() + 1, xs.min():xs.max() + 1] = 1  # bent into one blue bar of both
    assert (read_labels(twins, joined)[0] == 0).all()
    assert (read_labels(twins, tids)[0][tids > 0] == shape_names.index("square")).all()


def test_generated_images_are_labelled_as_the_oracle_reads_their_pixels():
    """The GENERATED tier (round 26) labels any image pixel by pixel as the oracle reads it: a rendered scene gets
    exactly its scene graph's labels; a blob no shape fits is background; pixels near no palette colour (soft
    edges) are ignored in both groups."""
    import numpy as np

    from autoalign.world.scene import colors
    from autoalign.world.training.train_grounder import IGNORE, graph_labels, label_names, pixel_read_labels

    shape_names, _ = label_names()
    scene = Scene([Obj("circle", "red", "big", 16, 20), Obj("square", "blue", "small", 46, 20), Obj("triangle", "green", "big", 30, 48)])
    ids = np.asarray(object_map(scene), dtype=np.int64)
    shape_lab, color_lab = pixel_read_labels(draw(scene))
    want_shape, want_color = graph_labels(scene, ids)
    assert (shape_lab == want_shape).all() and (color_lab == want_color).all()

    arr = np.asarray(draw(scene)).copy()
    arr[4:8, 4:34] = colors()["red"]  # a red bar across the top: too elongated for any shape
    arr[60:62, 60:62] = (128, 128, 128)  # grey: near no palette colour
    shape_lab, color_lab = pixel_read_labels(Image.fromarray(arr))
    assert (shape_lab[4:8, 4:34] == 0).all() and (color_lab[4:8, 4:34] == IGNORE).all()
    assert (shape_lab[60:62, 60:62] == IGNORE).all()
    assert shape_lab[48, 30] == shape_names.index("triangle")


def test_the_generated_bank_is_drawn_once_and_read_back(tmp_path, monkeypatch):
    """``generated_bank`` draws train-split captions with the world's generator and keeps them in the training work
    folder: a second call (a resumed run) reads the same images instead of drawing them again."""
    import numpy as np

    from autoalign.world.training import train_grounder

    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path / "home"))
    bank = train_grounder.generated_bank(tmp_path / "out" / "grounder", 3, 2, seed=0, progress=False)
    assert len(bank) == 3 and all(im.size == (64, 64) and s.shape == (64, 64) == c.shape for im, s, c in bank)
    saved = list((tmp_path / "home" / "world-train" / "grounder").glob("bank-*.npz"))
    assert len(saved) == 1
    from autoalign.models import generator as generator_module

    monkeypatch.setattr(generator_module.DiffusersGenerator, "generate", lambda *a, **k: pytest.fail("drew again"))
    again = train_grounder.generated_bank(tmp_path / "out" / "grounder", 3, 2, seed=0, progress=False)
    assert all((np.asarray(a[0]) == np.asarray(b[0])).all() and (a[1] == b[1]).all() for a, b in zip(bank, again))


def test_edit_ops_make_the_loop_s_kinds_of_plan_inside_the_image_and_clear_of_other_objects():
    """The EDITED tier's operations (round 26): each kind the loop's plans use, on objects the oracle read; an added
    or moved object's box lies inside the image and clear of every other object's box."""
    import random

    from autoalign.world.oracle import read
    from autoalign.world.training.train_grounder import edit_ops

    scene = Scene([Obj("circle", "red", "big", 16, 20), Obj("square", "blue", "small", 46, 20)])
    reading = read(draw(scene))
    rng = random.Random(0)
    seen = set()
    for _ in range(60):
        for op in edit_ops(reading, rng):
            seen.add(op.kind)
            if op.kind in ("remove", "move", "recolor"):
                assert tuple(op.source.xyxy) in {tuple(b) for b in reading.boxes}
            if op.kind in ("add", "move"):
                x0, y0, x1, y1 = op.target.xyxy
                assert 0 <= x0 < x1 <= 64 and 0 <= y0 < y1 <= 64
                assert all(x1 + 2 <= b[0] or b[2] + 2 <= x0 or y1 + 2 <= b[1] or b[3] + 2 <= y0 for b in reading.boxes)
            if op.kind == "recolor":  # "<size> <new colour> <shape>", the colour not the object's own
                old = reading.scene.objects[[tuple(b) for b in reading.boxes].index(tuple(op.source.xyxy))]
                assert op.phrase.split()[1] != old.color and op.phrase.split()[2] == old.shape
    assert seen == {"add", "remove", "move", "recolor"}
    empty = read(draw(Scene([])))
    assert all(op.kind == "add" for _ in range(10) for op in edit_ops(empty, rng))


def test_the_first_stride_sets_the_resolution_the_grounder_labels_at(monkeypatch):
    # shipped: stride 2, a 32x32 logit map for a 64x64 image (upsampled to read); FIRST_STRIDE = 1 keeps 64x64
    import torch

    from autoalign.world.training import train_grounder as tg

    x = torch.zeros(1, 3, 64, 64)
    assert tg.FIRST_STRIDE == 2
    with torch.inference_mode():
        assert tg.build()(pixel_values=x).logits.shape[-2:] == (32, 32)
        monkeypatch.setattr(tg, "FIRST_STRIDE", 1)
        assert tg.build()(pixel_values=x).logits.shape[-2:] == (64, 64)
