"""The scene double (a TEST DOUBLE of generator, editor and VQA): it draws and reads known scenes.

These tests pin down what the loop tests rely on: a prompt is drawn as its scene, flaws depend on
the seed, instructions change the drawn scene, and the VQA double's answers follow the pixels.
"""

from __future__ import annotations

import pytest
from PIL import Image

from autoalign.doubles.scene import (
    SceneEditorDouble,
    SceneGeneratorDouble,
    SceneObject,
    SceneVQADouble,
    apply_instruction,
    decode_scene,
    describe,
    flawed,
    judge_statement,
    parse_scene,
    render_scene,
)

APPLES = "two red apples and a blue plate"


def test_prompt_parses_into_counted_coloured_objects():
    assert parse_scene(APPLES) == [SceneObject("apple", "red", 2), SceneObject("plate", "blue", 1)]
    assert parse_scene("a photo of three cats on a table")[0] == SceneObject("cat", parse_scene("cats")[0].colour, 3, ("on", "table"))


def test_drawn_scene_decodes_back_from_pixels_only():
    scene = parse_scene("three green birds next to a black dog")
    image = render_scene(scene, (128, 128))
    copy = Image.frombytes("RGB", image.size, image.tobytes())  # nothing but pixels travels
    assert decode_scene(copy) == scene


def test_an_image_not_drawn_by_the_double_decodes_to_an_empty_scene():
    assert decode_scene(Image.new("RGB", (64, 64), (10, 200, 30))) == []


def test_generator_flaw_depends_on_the_seed():
    scene = parse_scene(APPLES)
    gen = SceneGeneratorDouble(options={})
    images = gen.generate(APPLES, 3, seed=0)
    scenes = [decode_scene(im) for im in images]
    assert scenes[0] == flawed(scene, 0) and scenes[0] != scene  # seed 0: wrong count
    assert scenes[1] == flawed(scene, 1) and scenes[1] != scene  # seed 1: wrong colour
    assert {o.count for o in scenes[1]} == {o.count for o in scene}
    assert scenes[2] == scene  # seed 2: drawn as asked
    assert [im.tobytes() for im in gen.generate(APPLES, 3, seed=0)] == [im.tobytes() for im in images]


def test_generator_flaw_option_forces_a_kind():
    gen = SceneGeneratorDouble(options={"flaw": "colour"})
    (image,) = gen.generate(APPLES, 1, seed=0)
    got = decode_scene(image)
    assert [o.count for o in got] == [2, 1] and got != parse_scene(APPLES)
    assert decode_scene(SceneGeneratorDouble(options={"flaw": "none"}).generate(APPLES, 1, 0)[0]) == parse_scene(APPLES)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("make the apple green", "two green apples and one blue plate"),
        ("add another apple", "three red apples and one blue plate"),
        ("make it five apples", "five red apples and one blue plate"),
        ("remove one apple", "one red apple and one blue plate"),
        ("replace the plate with a yellow bowl", "two red apples and one yellow bowl"),
        ("remove the plate", "two red apples"),
        ("change the number of apples to three", "three red apples and one blue plate"),
        ("make the apples blue and add another plate", "two blue apples and two blue plates"),
        ("fly to the moon", "two red apples and one blue plate"),
    ],
)
def test_editor_applies_template_style_instructions(instruction, expected):
    assert describe(apply_instruction(parse_scene(APPLES), instruction)) == expected


def test_editor_keeps_size_and_leaves_unknown_instructions_unchanged():
    image = render_scene(parse_scene(APPLES), (96, 128))
    editor = SceneEditorDouble(options={})
    (same,) = editor.edit(image, "sing a song", 1, seed=0)
    assert same.tobytes() == image.tobytes()
    edited = editor.edit(image, "add another apple", 2, seed=0)
    assert [im.size for im in edited] == [(96, 128)] * 2
    assert decode_scene(edited[0])[0].count == 3


@pytest.mark.parametrize(
    ("question", "truth"),
    [
        ('is "red" true for "what color are the apples?" in this image?', True),
        ('is "green" true for "what color are the apples?" in this image?', False),
        ('is "two" true for "how many apples are there?" in this image?', True),
        ('is "three" true for "how many apples are there?" in this image?', False),
        ('is "apples" true for "what is red?" in this image?', True),
        ('Does this image entail the description: "two red apples and a blue plate"?', True),
        ('Does this image entail the description: "a red apple and a blue plate"?', False),
        ("is there a blue plate?", True),
        ("are the apples green?", False),
        ("is there a dog?", False),
    ],
)
def test_vqa_double_judges_statements_by_the_scene(question, truth):
    assert judge_statement(question, parse_scene(APPLES)) is truth


def test_vqa_double_answers_open_questions_and_yes_prob():
    image = render_scene(parse_scene(APPLES))
    vqa = SceneVQADouble(options={})
    assert vqa.answer([image] * 3, ["how many apples are there?", "what color is the plate?", "is there a dog?"]) == ["two", "blue", "no"]
    p_yes = vqa.yes_prob([image, image], ["is there a blue plate?", "is there a red plate?"])
    assert p_yes[0] > 0.9 and p_yes[1] < 0.1


def test_vqa_double_agrees_with_the_spacy_question_generator():
    """Every VQ2 question the scoring helper's spaCy generator asks is answered 'yes' on a correct
    drawing, and a wrong count or colour fails at least one of them."""
    from autoalign.config import load_config
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    config = load_config("scene-double")
    scorer = Scorer(Models(config), config, question_disk_cache=False)
    scene = parse_scene(APPLES)
    right, wrong_count, wrong_colour = (render_scene(s) for s in (scene, flawed(scene, 0), flawed(scene, 1)))
    cards = scorer.score([right, wrong_count, wrong_colour], APPLES)
    assert cards[0].questions and all(q.p_yes > 0.9 for q in cards[0].questions)
    assert cards[0].overall > cards[1].overall and cards[0].overall > cards[2].overall
