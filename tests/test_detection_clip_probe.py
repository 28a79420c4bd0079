"""The CLIP probe detector: prompt rewrites one closed-class word apart, and the triplet for the one CLIP prefers.

The logic is tested with a CLIP double (it prefers whichever texts it is told to, and looks at nothing);
one test runs the shapes world's trained CLIP on a rendered scene.
"""

from __future__ import annotations

import pytest
from PIL import Image

from autoalign.config import ConfigError, load_config
from autoalign.detection.clip_probe import ClipProbeDetector, slots
from autoalign.editing.template_writer import TemplateWriter
from autoalign.scoring.clipscore import clipscore_text

IMAGE = Image.new("RGB", (64, 64))


class ClipDouble:
    """Cosine 0.5 for every text, or the given value for the rewrites it is told to prefer. It looks at nothing."""

    def __init__(self, prefer: dict[str, float] | None = None):
        self.prefer = {clipscore_text(k): v for k, v in (prefer or {}).items()}
        self.asked: list[list[str]] = []

    def cosine_texts(self, image, texts):
        self.asked.append(list(texts))
        return [self.prefer.get(t, 0.5) for t in texts]


class ModelsDouble:
    def __init__(self, clip):
        self.clip = clip


@pytest.fixture
def config():
    cfg = load_config("shapes")
    cfg.detection.detectors = ["clip-probe"]
    return cfg


def _by_aspect(prompt: str) -> dict[tuple[str, str], list[str]]:
    return {(s.aspect, s.phrase): [text for text, _ in s.rewrites] for s in slots(prompt)}


def test_slots_swap_one_closed_class_word_and_keep_the_rest_of_the_prompt():
    got = _by_aspect("two red circles and a blue square")
    assert "two orange circles and a blue square" in got[("attribute", "red")]
    assert "two red circles and a green square" in got[("attribute", "blue")]
    assert got[("entity", "a blue square")] == ["two red circles and a blue circle", "two red circles and a blue triangle"]
    # counts move by one and the noun's number follows; "a" counts as one
    assert got[("number", "two red circles")] == ["one red circle and a blue square", "three red circles and a blue square"]
    assert got[("number", "a blue square")] == ["two red circles and two blue squares"]
    assert len(got[("attribute", "red")]) == 10  # every other basic colour term of prompts/clip_probe.json


def test_relation_slots_swap_the_phrase_for_its_opposite_and_articles_agree():
    got = _by_aspect("a white triangle to the left of a small blue triangle")
    assert got[("relation", "to the left of")] == ["a white triangle to the right of a small blue triangle"]
    assert "a white triangle to the left of a big blue triangle" in got[("attribute", "small")]
    assert "a cat on an orange sofa" in _by_aspect("a cat on a red sofa")[("attribute", "red")]


def test_words_outside_the_classes_are_never_swapped():
    got = _by_aspect("a cat sleeping on a wooden bench")
    assert {aspect for aspect, _ in got} == {"number"}  # no colour, relation or interchangeable thing here


def test_the_rewrite_clip_prefers_becomes_a_triplet_the_writer_turns_into_the_fix(config):
    prompt = "a big yellow circle above a green triangle"
    clip = ClipDouble({"a big yellow circle above a red triangle": 0.8})
    found = ClipProbeDetector(ModelsDouble(clip), config).detect(IMAGE, prompt, None)
    assert len(found) == 1
    m = found[0]
    assert (m.aspect, m.phrase, m.correction, m.source) == ("attribute", "green", "red", "clip-probe")
    assert m.confidence == pytest.approx(0.3)
    assert m.evidence["noun"] == "triangle" and m.evidence["rewrite"] == "a big yellow circle above a red triangle"
    assert len(clip.asked) == 1 and clip.asked[0][0] == clipscore_text(prompt)  # one batch, the prompt first
    writer = TemplateWriter(config=config, mode=config.loop.multi_mismatch)
    assert writer.write(prompt, found, tried=[])[0].text == "make the triangle green"


def test_the_probe_embeds_texts_with_the_clips_own_template(config):
    prompt = "a big yellow circle above a green triangle"
    clip = ClipDouble()
    clip.text_template = "{text}"
    clip.prefer = {"a big yellow circle above a red triangle": 0.8}
    found = ClipProbeDetector(ModelsDouble(clip), config).detect(IMAGE, prompt, None)
    assert clip.asked[0][0] == prompt and "a big yellow circle above a red triangle" in clip.asked[0]
    assert [(m.phrase, m.correction) for m in found] == [("green", "red")]


def test_entity_and_relation_triplets_carry_what_the_writer_needs(config):
    prompt = "a big yellow circle above a green triangle"
    writer = TemplateWriter(config=config, mode=config.loop.multi_mismatch)
    shape = ClipDouble({"a big yellow square above a green triangle": 0.9})
    m = ClipProbeDetector(ModelsDouble(shape), config).detect(IMAGE, prompt, None)[0]
    assert (m.aspect, m.phrase, m.correction) == ("entity", "a big yellow circle", "a big yellow square")
    assert writer.write(prompt, [m], tried=[])[0].text == "replace the big yellow square with a big yellow circle"
    where = ClipDouble({"a big yellow circle below a green triangle": 0.9})
    m = ClipProbeDetector(ModelsDouble(where), config).detect(IMAGE, prompt, None)[0]
    assert (m.aspect, m.phrase, m.correction) == ("relation", "above", "below")
    assert (m.evidence["subject"], m.evidence["object"]) == ("circle", "triangle")
    assert writer.write(prompt, [m], tried=[])[0].text == "put the circle above the triangle"


def test_margin_and_limit(config):
    prompt = "two red circles and a blue square"
    clip = ClipDouble({"two green circles and a blue square": 0.58, "two red circles and a blue triangle": 0.75})
    models = ModelsDouble(clip)
    # the best rewrite first; a win by less than the margin is no mismatch
    found = ClipProbeDetector(models, config, margin=0.1, max_mismatches=3).detect(IMAGE, prompt, None)
    assert [(m.aspect, m.correction) for m in found] == [("entity", "a blue triangle")]
    found = ClipProbeDetector(models, config, margin=0.05, max_mismatches=3).detect(IMAGE, prompt, None)
    assert [(m.aspect, m.correction) for m in found] == [("entity", "a blue triangle"), ("attribute", "green")]
    assert len(ClipProbeDetector(models, config, margin=0.05, max_mismatches=1).detect(IMAGE, prompt, None)) == 1
    # nothing CLIP prefers to the prompt: quiet
    assert ClipProbeDetector(ModelsDouble(ClipDouble()), config).detect(IMAGE, prompt, None) == []
    # a prompt with no slot asks CLIP nothing
    idle = ClipDouble()
    assert ClipProbeDetector(ModelsDouble(idle), config).detect(IMAGE, "fog", None) == [] and idle.asked == []


@pytest.mark.parametrize("options", [{"margin": "wide"}, {"max_mismatches": 0}, {"max_mismatches": True}, {"radius": 1}])
def test_bad_options_are_config_errors(config, options):
    with pytest.raises(ConfigError, match="clip-probe"):
        ClipProbeDetector(ModelsDouble(ClipDouble()), config, **options)


def test_the_trained_world_clip_names_a_recoloured_shape():
    """The shapes preset's own CLIP (trained here) on a rendered held-out-free scene: asked for a red
    square, shown a blue one, the probe says the colour is wrong and that it is blue."""
    from autoalign.models.cache import Models
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    config = load_config("shapes")
    image = draw(Scene([Obj("square", "blue", "big", 32, 32)]))
    found = ClipProbeDetector(Models(config), config).detect(image, "a big red square", None)
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("attribute", "red", "blue")]
    assert ClipProbeDetector(Models(config), config).detect(image, "a big blue square", None) == []
