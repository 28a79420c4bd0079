"""The shapes world: captions, splits, renderer and oracle (no models)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from PIL import Image, ImageFilter

from autoalign.world import facts, oracle
from autoalign.world.render import draw, relation_holds, scene_for
from autoalign.world.scene import (
    CATEGORIES,
    Group,
    Scene,
    Spec,
    held_out_counts,
    held_out_pairs,
    parse_caption,
    spec_for,
    specs,
)


def _key(scene: Scene):
    return sorted((o.shape, o.color, o.size) for o in scene.objects)


@pytest.mark.parametrize("split", ["train", "test", "compositional"])
def test_oracle_recovers_every_rendered_scene(split):
    for i, spec in enumerate(specs(split, 60)):
        scene = scene_for(spec, i)
        reading = oracle.read(draw(scene))
        assert reading.readable, (spec.caption(), reading.reason)
        assert _key(reading.scene) == _key(scene)
        assert oracle.check(spec, reading.scene).aligned, spec.caption()


def test_oracle_reads_upscaled_images_and_abstains_on_noise():
    scene = scene_for(spec_for("test", 3), 3)
    assert _key(oracle.read(draw(scene, size=256)).scene) == _key(scene)
    noise = Image.effect_noise((64, 64), 120).convert("RGB")
    reading = oracle.read(noise)
    assert not reading.readable and reading.reason


def test_oracle_abstains_on_blobs_that_fit_no_shape_rather_than_guessing():
    from PIL import ImageDraw

    from autoalign.world.scene import background, colors

    merged = Image.new("RGB", (64, 64), background())
    ImageDraw.Draw(merged).rectangle([10, 20, 40, 31], fill=colors()["red"])  # two touching squares: 31x12
    reading = oracle.read(merged)
    assert not reading.readable and "31x12" in reading.reason
    scene = Scene([replace(o, size="big") for o in scene_for(parse_caption("two red circles"), 1).objects])
    mild = draw(scene).filter(ImageFilter.GaussianBlur(1))  # a little blur is still read
    assert _key(oracle.read(mild).scene) == _key(scene)


def test_check_names_each_failed_fact_by_aspect():
    spec = parse_caption("two red circles and a blue square")
    scene = scene_for(spec, 0)
    wrong_colour = Scene([replace(scene.objects[2], color="green"), *scene.objects[:2]])
    failed = {f.aspect for f in oracle.check(spec, wrong_colour).failed()}
    assert failed == {"attribute", "number", "entity"}  # no blue square; a green square nobody asked for
    one_missing = Scene(scene.objects[1:])
    assert {f.aspect for f in oracle.check(spec, one_missing).failed()} == {"number"}


def test_captions_round_trip_and_are_deterministic():
    for category in CATEGORIES:
        for spec in specs("train", 20, category):
            assert parse_caption(spec.caption()) == Spec(spec.groups, spec.relation)
    assert [s.caption() for s in specs("test", 5)] == [s.caption() for s in specs("test", 5)]
    assert [s.caption() for s in specs("test", 5)] != [s.caption() for s in specs("val", 5)]


def test_compositional_split_holds_exactly_the_held_out_combinations():
    pairs, counts = held_out_pairs(), held_out_counts()
    for split in ("train", "val", "test"):
        for spec in specs(split, 200):
            assert not any((g.color, g.shape) in pairs or (g.count, g.shape) in counts for g in spec.groups)
    assert all(spec.uses_held_out() for spec in specs("compositional", 100))


def test_stated_relations_hold_with_a_margin():
    for i, spec in enumerate(specs("train", 200, "spatial")):
        scene = scene_for(spec, i)
        a, rel, b = spec.relation
        assert relation_holds(scene.objects[a], rel, scene.objects[b], margin=9)


def test_every_caption_parses_through_the_project_question_generator():
    from autoalign.world.training.data import questions

    readable = total = 0
    for spec in specs("test", 60):
        qs = questions(spec.caption())
        assert qs, spec.caption()
        scene = scene_for(spec, 0)
        for q in qs:
            truth = facts.question_truth(q, scene)
            total += 1
            readable += truth is not None
            assert truth is not False, (spec.caption(), q)  # a caption's own questions hold on its scene
    assert readable / total > 0.9


def test_facts_answer_open_questions_from_the_scene():
    spec = parse_caption("a red circle to the left of a blue square")
    scene = scene_for(spec, 2)
    assert facts.open_answer("What color is the circle?", scene) == "red"
    assert facts.open_answer("How many squares are there?", scene) == "one"
    assert facts.open_answer("Where is the circle relative to the square?", scene) in ("to the left of", "above", "below")
    assert facts.open_answer("What is in the image?", scene) == "a blue square and a red circle"
    assert facts.yes_no_truth("is the circle to the right of the square?", scene) is False
    assert facts.open_answer("What is the meaning of life?", scene) is None


def test_perturbed_captions_are_one_edit_away():
    rng = random.Random(0)
    for spec in specs("train", 100):
        other = facts.perturb(spec, rng)
        assert other != spec
        assert len(other.groups) == len(spec.groups)
        changed = sum(a != b for a, b in zip(other.groups, spec.groups)) + (other.relation != spec.relation)
        assert changed == 1


def test_edit_away_names_its_kind_and_an_extra_copy_of_an_a_object_is_told_apart():
    from autoalign.world.training.edits import adds_to_a_single, edit_away, one_edit_away

    spec = parse_caption("a red circle and two blue squares")
    scene = scene_for(spec, 3)
    got = edit_away(spec, scene, random.Random(5))
    assert got is not None and got[1] in {"recolor", "reshape", "drop", "extra", "swap"}
    assert one_edit_away(spec, scene, random.Random(5)) == got[0]  # the same draw, the scene alone
    red = next(o for o in scene.objects if o.color == "red")
    blue = next(o for o in scene.objects if o.color == "blue")
    far = lambda o: replace(o, x=4.0, y=4.0)  # noqa: E731 - where nothing else stands
    assert adds_to_a_single(spec, Scene([*scene.objects, far(red)]), "extra")  # a second red circle: no question asks
    assert not adds_to_a_single(spec, Scene([*scene.objects, far(blue)]), "extra")  # a third blue square: "two" asks
    assert not adds_to_a_single(spec, scene, "recolor")


def test_group_matching_respects_colour_size_and_shape():
    scene = scene_for(parse_caption("a small red circle and a big blue square"), 4)
    assert len(facts.matching(scene, Group(1, "red", "circle", "small"))) == 1
    assert not facts.matching(scene, Group(1, "red", "circle", "big"))
    assert not facts.matching(scene, Group(1, "blue", "circle"))



def test_binding_swaps_exchange_colours_or_reverse_the_relation_and_are_false_on_the_scene():
    from autoalign.world.training.data import clip_pairs

    rng = random.Random(0)
    spec = parse_caption("a red circle to the left of a green square")
    seen = {facts.swapped(spec, rng).caption() for _ in range(20)}
    assert seen == {"a green circle to the left of a red square", "a red circle to the right of a green square"}
    assert facts.swapped(parse_caption("three purple squares"), rng) is None
    held = parse_caption("a red circle and a blue triangle")  # the swap would draw a red triangle
    assert facts.swapped(held, rng) is None
    for _, scene, caption, negative in clip_pairs("train", 40, random.Random(1), swaps=True):
        assert negative != caption and not oracle.check(parse_caption(negative), scene).aligned
