"""The VLM recipe's training data and its patch-grounding loss (autoalign/world/training/data.py, train_vlm.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from autoalign.world.render import draw, object_map
from autoalign.world.scene import Obj, Scene, background, colors
from autoalign.world.training import data as wdata


def test_object_map_marks_exactly_the_drawn_pixels_of_each_object():
    scene = Scene([Obj("circle", "red", "big", 16, 16), Obj("triangle", "blue", "small", 44, 40)])
    ids = np.asarray(object_map(scene))
    rgb = np.asarray(draw(scene))
    assert set(np.unique(ids)) == {0, 1, 2}
    assert ((rgb != background()).any(-1) == (ids > 0)).all()
    assert (rgb[ids == 1] == colors()["red"]).all() and (rgb[ids == 2] == colors()["blue"]).all()


def test_patch_labels_name_the_object_under_each_patch_and_the_background_elsewhere():
    from autoalign.world.training.train_vlm import patch_labels

    scene = Scene([Obj("square", "green", "big", 20, 20)])  # covers pixels 11..29: patches (1..3, 1..3)
    labels = patch_labels(scene)
    assert len(labels) == 64
    green, square, big = list(colors()).index("green"), 1, 1
    assert labels[2 * 8 + 2] == (green, square, big)  # the patch at rows/cols 16..23 lies inside the square
    assert labels[0] == (-1, -1, -1) and labels[63] == (-1, -1, -1)
    assert sum(lab != (-1, -1, -1) for lab in labels) in range(4, 10)


def test_complementary_examples_ask_the_same_question_of_both_scenes_with_their_own_answers():
    from autoalign.world import facts

    spec, scene = wdata.world_scenes("train", 3)[2]
    twin = Scene([Obj(o.shape, "white" if o.color != "white" else "red", o.size, o.x, o.y) for o in scene.objects])
    examples = wdata.complementary_examples(spec, scene, twin, random.Random(0))
    yes_no = [e for e in examples if e.kind == "yes_no"]
    by_text: dict[str, set[tuple[int, str]]] = {}
    for e in yes_no:
        by_text.setdefault(e.text, set()).add((id(e.scene), e.answer))
        if e.text.startswith("is there") and "true for" not in e.text:
            assert (e.answer == "yes") == facts.yes_no_truth(e.text, e.scene)
    # every object recoloured: some question must flip between the scene and its twin
    assert any(len({a for _, a in v}) == 2 for v in by_text.values())
    assert {id(e.scene) for e in yes_no} == {id(scene), id(twin)}


def test_balance_leaves_as_many_yes_as_no_in_every_topic():
    rng = random.Random(1)
    pool = []
    for spec, scene in wdata.world_scenes("train", 12):
        pool += wdata.complementary_examples(spec, scene, None, rng)
    balanced = wdata.balance(pool, rng)
    topics = {e.topic for e in balanced if e.kind == "yes_no"}
    assert {"colour", "existence"} <= topics
    for t in topics:
        answers = [e.answer for e in balanced if e.kind == "yes_no" and e.topic == t]
        assert answers.count("yes") == answers.count("no") > 0
    assert any(e.kind == "answer" for e in balanced)


@pytest.fixture(scope="module")
def tiny_vlm():
    import torch

    from autoalign.models.tiny_vlm import build_tokenizer
    from autoalign.world.training import train_vlm

    tokenizer = build_tokenizer(corpus=["is there a red circle? yes no"] * 4 + [" ".join(colors())] * 4
                                + ["circle square triangle small big"] * 4, vocab_size=300)
    torch.manual_seed(0)
    model, processor = train_vlm.build(tokenizer)
    return model, tokenizer


def test_grounding_loss_is_low_when_each_patch_token_points_at_its_words_and_high_otherwise(tiny_vlm):
    import torch
    import torch.nn.functional as F

    from autoalign.world.training.train_vlm import Grounding, patch_labels

    model, tokenizer = tiny_vlm
    ground = Grounding(model, tokenizer)
    scene = Scene([Obj("circle", "red", "big", 20, 20), Obj("triangle", "yellow", "big", 44, 44)])
    labels = [patch_labels(scene)]
    emb = model.get_input_embeddings().weight.detach()
    rows = []
    for c, s, z in labels[0]:
        if c < 0:
            rows.append(F.normalize(ground.extra["background"].detach(), dim=-1).sum(0))
        else:
            parts = [emb[ground.heads[0][c]].mean(0), emb[ground.heads[1][s]].mean(0), emb[ground.heads[2][z]].mean(0)]
            rows.append(sum(F.normalize(p, dim=-1) for p in parts))
    ground.features = torch.stack(rows).unsqueeze(0) * 10
    right = float(ground.loss(labels).detach())
    ground.features = torch.randn(1, 64, emb.shape[1])
    wrong = float(ground.loss(labels).detach())
    assert right < wrong
    # the loss reaches the projector through the hook: a forward pass fills the features
    ground.features = None
    pixel_values = torch.zeros(1, 3, 64, 64)
    model.model.get_image_features(pixel_values=pixel_values, vision_feature_layer=-1, vision_feature_select_strategy="default")
    assert ground.features is not None and ground.features.shape[:2] == (1, 64)


def test_balance_is_the_same_in_every_process():
    """Seeded training data must not depend on Python's per-process string hashing (set order)."""
    import subprocess
    import sys

    script = (
        "import random\n"
        "from autoalign.world.training import data as w\n"
        "spec, scene = w.world_scenes('train', 1)[0]\n"
        "ex = [w.Example(spec, scene, 'yes_no', f'q{i}', 'yes' if i % 3 else 'no', t)\n"
        "      for i in range(60) for t in ('colour', 'count', 'relation', 'size', 'shape', 'existence')]\n"
        "print([(e.text, e.topic) for e in w.balance(ex, random.Random(0))])\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                       env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3")
    ]
    assert runs[0] and runs[0] == runs[1] == runs[2]


def test_patch_labels_with_counts_name_how_many_share_the_shape_and_the_colour_and_shape():
    from autoalign.world.training.train_vlm import patch_labels

    red = list(colors()).index("red")
    scene = Scene([Obj("circle", "red", "big", 14, 14), Obj("circle", "red", "big", 50, 14),
                   Obj("circle", "blue", "big", 14, 50), Obj("square", "red", "big", 50, 50)])
    labels = patch_labels(scene, counts=True)
    assert len(labels) == 64 and all(len(lab) == 5 for lab in labels)
    # the patch at rows/cols 8..15 lies inside the first red circle: three circles, two of them red
    assert labels[1 * 8 + 1][0] == red and labels[1 * 8 + 1][3:] == (2, 1)
    assert labels[6 * 8 + 1][3:] == (2, 0)  # the blue circle: three circles, one blue one
    assert labels[6 * 8 + 6][3:] == (0, 0)  # the only square
    assert labels[0] == (-1,) * 5
    assert [lab[:3] for lab in labels] == patch_labels(scene)  # the first three are the plain labels


def test_closed_count_examples_ask_one_of_an_a_object_and_a_copy_answers_no():
    from autoalign.world.scene import Group, Spec

    spec = Spec((Group(1, "red", "circle"), Group(2, "blue", "square")), None, "count")
    scene = Scene([Obj("circle", "red", "big", 14, 14), Obj("square", "blue", "big", 50, 14), Obj("square", "blue", "big", 30, 50)])
    twin = Scene(scene.objects + [Obj("circle", "red", "big", 50, 50)])  # a second red circle
    plain = {e.text for e in wdata.complementary_examples(spec, scene, twin, random.Random(0)) if e.kind == "yes_no"}
    closed = wdata.complementary_examples(spec, scene, twin, random.Random(0), closed_counts=True)
    asked = [e for e in closed if e.kind == "yes_no" and "one red circle" in e.text]
    assert asked and not any("one red circle" in t for t in plain)
    assert {(e.scene is scene, e.answer) for e in asked} == {(True, "yes"), (False, "no")}


def test_grounding_with_count_heads_scores_every_head(tiny_vlm):
    import torch

    from autoalign.world.training.train_vlm import Grounding, patch_labels

    model, tokenizer = tiny_vlm
    ground = Grounding(model, tokenizer, counts=True)
    assert len(ground.heads) == 5 and ground.extra["background"].shape[0] == 5
    scene = Scene([Obj("circle", "red", "big", 14, 40), Obj("circle", "blue", "big", 50, 20)])
    ground.features = torch.randn(1, 64, model.config.text_config.hidden_size, requires_grad=True)
    loss = ground.loss([patch_labels(scene, counts=True)])
    loss.backward()
    assert torch.isfinite(loss) and float(ground.features.grad.abs().sum()) > 0


def test_per_number_balance_leaves_no_count_word_that_gives_its_answer_away():
    from autoalign.world.facts import count_in

    rng = random.Random(2)
    pool = []
    for spec, scene in wdata.world_scenes("train", 40):
        twin = Scene(scene.objects[:-1]) if len(scene.objects) > 1 else None
        pool += wdata.complementary_examples(spec, scene, twin, rng, closed_counts=True)

    def by_number(examples):
        tally: dict[int | None, list[str]] = {}
        for e in examples:
            if e.kind == "yes_no" and e.topic == "count":
                tally.setdefault(count_in(e.text), []).append(e.answer)
        return tally

    skewed = by_number(wdata.balance(pool, random.Random(0)))
    assert any(v.count("yes") != v.count("no") for v in skewed.values())  # one topic: the numbers are skewed
    even = by_number(wdata.balance(pool, random.Random(0), per_number=True))
    assert {1, 2} <= set(even)
    for answers in even.values():
        assert answers.count("yes") == answers.count("no") > 0


def test_copy_of_single_adds_a_second_copy_of_an_a_object_only():
    from autoalign.world.oracle import check
    from autoalign.world.scene import Group, Spec
    from autoalign.world.training.edits import adds_to_a_single, copy_of_single

    spec = Spec((Group(1, "red", "circle"), Group(2, "blue", "square")), None, "count")
    scene = Scene([Obj("circle", "red", "small", 12, 12), Obj("square", "blue", "small", 50, 12), Obj("square", "blue", "small", 12, 50)])
    twin = copy_of_single(spec, scene, random.Random(0))
    assert twin is not None and twin.objects[:3] == scene.objects
    new = twin.objects[-1]
    assert (new.shape, new.color, new.size) == ("circle", "red", "small")  # a copy of the "a" object, not a square
    assert adds_to_a_single(spec, twin, "extra") and not check(spec, twin).aligned
    # nothing named with "a", or a full scene: no copy
    plural = Spec((Group(2, "blue", "square"),), None, "count")
    assert copy_of_single(plural, Scene(scene.objects[1:]), random.Random(0)) is None
    full = Scene(scene.objects + [Obj("triangle", "green", "small", 50, 50)])
    assert copy_of_single(spec, full, random.Random(0)) is None


def test_copy_twins_ask_the_closed_count_of_a_second_copy_more_often():
    from autoalign.world.training.train_vlm import examples

    def hard(pool):  # "is there one ...?" answered no on a scene that holds two of some kind
        return [e for e in pool if e.kind == "yes_no" and e.text.startswith("is there one") and e.answer == "no"
                and any(sum(p.shape == o.shape and p.color == o.color for p in e.scene.objects) > 1 for o in e.scene.objects)]

    assert len(hard(examples(12, closed_counts=True, copies=1.0))) > len(hard(examples(12, closed_counts=True)))
