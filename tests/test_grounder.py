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
from autoalign.models.loading import DeviceSpec  # noqa: E402
from autoalign.types import Box, Grounding  # noqa: E402
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


def _iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
    return ix * iy / union


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
            assert max(_iou(b.xyxy, truth[i]) for b in got[phrase]) >= 0.7
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
    assert len(boxes) == 2 and all(max(_iou(b.xyxy, t) for b in boxes) >= 0.7 for t in truth)


def test_layout_detector_names_a_moved_object_from_box_centres(world):
    scene = Scene([Obj("circle", "red", "big", 48, 30), Obj("square", "blue", "big", 14, 30)])  # circle on the right
    found = _layout(*world).detect(draw(scene), "a red circle to the left of a blue square", None)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("relation", "to the left of", "to the right of")]
    subject, obj = (Box.from_dict(b) for b in found[0].evidence["boxes"])
    assert subject.center[0] > obj.center[0]
    assert _iou(subject.xyxy, _truth(scene)[0]) >= 0.7


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


def test_grounder_recipe_two_step_smoke(tmp_path):
    from autoalign.world import recipes

    stats = recipes.train("grounder", tmp_path, seed=0, resume=False, steps=2, progress=False)
    assert stats["steps"] == 2 and stats["loss"] > 0
    card = json.loads((tmp_path / "grounder" / "MODEL_CARD.json").read_text())
    assert card["name"] == "grounder" and card["plan"]["steps"] == 2
    from autoalign.models.grounder import SegformerGrounder

    grounder = SegformerGrounder(RoleSpec("segformer", str(tmp_path / "grounder")), CPU)
    _check_typed(grounder.ground([draw(SCENE)], ["a red circle"]), 1, ["a red circle"], (64, 64))
    assert grounder.nouns() == ["circle", "square", "triangle"]
