"""Sizes in the grounded pass (round 18): a box that reads as the other size than the prompt's size word is an
attribute triplet with its boxes, and the region editor redraws the object at the prompt's size where it stood.
The shapes world's small and big objects are 10 and 18 pixels of 64; the middle of the size words is 14."""

from __future__ import annotations

import pytest

from autoalign.config import ConfigError, load_config
from autoalign.editing.layout_plan import centred_box, ops_for_mismatches
from autoalign.grounding import read_layout, size_class, size_seen
from autoalign.types import Box, Mismatch
from autoalign.world import oracle
from autoalign.world.render import draw
from autoalign.world.scene import Obj, Scene, parse_caption


def test_size_words_and_boxes_read_by_the_middle_size():
    assert size_class("small") == "small" and size_class("tiny") == "small"
    assert size_class("big") == "big" and size_class("large") == "big"
    assert size_seen((0, 0, 10, 10), (64, 64)) == "small"
    assert size_seen((0, 0, 18, 12), (64, 64)) == "big"  # the longer side counts
    assert size_seen((0, 0, 100, 100), (512, 512)) == "small"  # a fraction of the image, not pixels


def test_the_layout_reads_each_object_s_size_word():
    layout = read_layout("a small red circle to the left of a big blue square and a green triangle")
    assert [(o.noun, o.size) for o in layout.objects] == [("circle", "small"), ("square", "big"), ("triangle", None)]


def test_a_size_triplet_is_a_remove_and_an_add_at_the_prompt_s_size_where_it_stood():
    wrong = Box((20.0, 20.0, 38.0, 38.0), 0.9, label="red circle")
    m = Mismatch("attribute", "small", "big", 0.9, "layout",
                 {"noun": "red circle", "expected": "small", "found": "big", "size": True, "boxes": [wrong.to_dict()]})
    plan = ops_for_mismatches("a small red circle", [m], (64, 64), aspects=("attribute",))
    assert [(op.kind, op.phrase) for op in plan.ops] == [("remove", "red circle"), ("add", "small red circle")]
    target = plan.ops[1].target.xyxy
    assert target[2] - target[0] == pytest.approx(0.16 * 64) and target[3] - target[1] == pytest.approx(0.16 * 64)
    assert (target[0] + target[2]) / 2 == pytest.approx(29.0) and (target[1] + target[3]) / 2 == pytest.approx(29.0)
    # not routed to the region editor (attributes not asked for): no operation
    assert ops_for_mismatches("a small red circle", [m], (64, 64)).ops == []


def test_a_centred_box_is_shifted_inside_the_image_not_cut():
    assert centred_box((0, 0, 10, 10), 18, (64, 64)) == (0.0, 0.0, 18.0, 18.0)
    assert centred_box((58, 58, 64, 64), 18, (64, 64)) == (46.0, 46.0, 64.0, 64.0)


@pytest.fixture(scope="module")
def world():
    from autoalign.models.cache import Models

    config = load_config("shapes")
    return config, Models(config)


def test_the_shapes_pass_refuses_a_wrong_size_that_it_passed_before(world):
    """A rendered big red circle for "a small red circle": counts and colours agree, so without sizes the
    grounded pass has nothing to say; with the preset's sizes it names the size, with the circle's box."""
    from dataclasses import replace

    from autoalign.detection import grounded_pass

    config, models = world
    image = draw(Scene([Obj("circle", "red", "big", 30, 30)]))
    found = grounded_pass(image, "a small red circle", models, config)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("attribute", "small", "big")]
    (box,) = [Box.from_dict(b) for b in found[0].evidence["boxes"]]
    assert abs(box.center[0] - 30) <= 2 and abs(box.center[1] - 30) <= 2
    assert grounded_pass(image, "a big red circle", models, config) == []
    off = replace(config, detection=replace(config.detection, options={}))
    assert grounded_pass(image, "a small red circle", models, off) == []


def test_the_layout_detector_checks_its_sizes_option(world):
    from dataclasses import replace

    from autoalign.detection.layout import LayoutDetector

    config, models = world
    bad = replace(config, detection=replace(config.detection, options={"layout": {"sizes": "yes"}}))
    with pytest.raises(ConfigError, match="sizes must be true or false"):
        LayoutDetector(models, bad)


@pytest.mark.parametrize("have, want", [("big", "small"), ("small", "big")])
def test_the_region_editor_redraws_an_object_at_the_prompt_s_size(world, have, want):
    """End to end on a rendered scene with the world's models: the pass finds the size, the policy routes it
    (the preset's region attributes), the plan removes and re-adds, and one of four samples reads exactly as
    the prompt, with the other object as it was (the oracle reads, only here in the test)."""
    from autoalign.detection import grounded_pass
    from autoalign.editing.policy import region_mismatches

    config, models = world
    prompt = f"a {want} red circle and a big blue square"
    scene = Scene([Obj("circle", "red", have, 18, 30), Obj("square", "blue", "big", 46, 30)])
    image = draw(scene)
    found = region_mismatches(grounded_pass(image, prompt, models, config), config)
    plan = ops_for_mismatches(prompt, found, image.size, aspects=("number", "entity", "relation", "attribute"))
    assert [op.kind for op in plan.ops] == ["remove", "add"]
    samples = models.region_editor.edit(image, plan.ops, n=4, seed=0, prompt=prompt)
    readings = [oracle.read(s) for s in samples]
    assert any(r.readable and oracle.check(parse_caption(prompt), r.scene).aligned for r in readings)
