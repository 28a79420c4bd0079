"""VQ2, VNLI, CLIPScore and the Scorer, with clearly named test doubles for the VQA and CLIP models."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PIL import Image

from autoalign.config import RoleSpec, load_config
from autoalign.errors import InputError
from autoalign.scoring.clipscore import clip_score
from autoalign.scoring.questions import SpacyQuestions, clear_cache
from autoalign.scoring.scorer import Scorer
from autoalign.scoring.vnli import entailment_ratio, vnli_question
from autoalign.scoring.vq2 import dependency_zeroed, predicate_text, vq2_score
from autoalign.types import Question


class VQADouble:
    """A VQA test double: P(yes) per (image colour, text) from a dict (default 0.5); records calls."""

    def __init__(self, p_yes: dict[tuple[str, str], float] | None = None, yes_no: dict[str, tuple[float, float]] | None = None):
        self.p_yes = p_yes or {}
        self.yes_no = yes_no or {}
        self.calls: list[tuple[str, int]] = []

    @staticmethod
    def name(image: Image.Image) -> str:
        return image.info["name"]

    def yes_prob(self, images, questions):
        self.calls.append(("yes_prob", len(questions)))
        return [self.p_yes.get((self.name(i), q), 0.5) for i, q in zip(images, questions)]

    def yes_no_probs(self, images, questions):
        self.calls.append(("yes_no_probs", len(questions)))
        return [self.yes_no.get(self.name(i), (0.3, 0.3)) for i in images]

    def answer(self, images, questions, max_new_tokens=16):
        return ["" for _ in questions]


class ClipDouble:
    """A CLIP test double: a fixed cosine per image name."""

    def __init__(self, cos: dict[str, float]):
        self.cos = cos
        self.calls = 0

    def cosine(self, images, text):
        self.calls += 1
        return [self.cos[i.info["name"]] for i in images]


def image(name: str) -> Image.Image:
    img = Image.new("RGB", (8, 8))
    img.info["name"] = name
    return img


def make_scorer(vqa, clip_model=None, **scoring):
    config = load_config("tiny", overrides={"scoring": scoring} if scoring else None)
    clear_cache()
    models = SimpleNamespace(
        vqa=vqa,
        clip=clip_model or ClipDouble({}),
        questions=SpacyQuestions(RoleSpec("spacy", None, {})),
        llm=None,
    )
    return Scorer(models, config, question_disk_cache=False)


# ---- the formulas -------------------------------------------------------------------------------------


def test_vq2_is_the_mean_of_question_scores():
    assert vq2_score([0.9, 0.6, 0.3]) == pytest.approx(0.6)
    assert vq2_score([]) is None


def test_vq2_predicate_wording():
    q = Question(id="q1", text="what color is the car?", answer="red")
    assert predicate_text(q) == 'is "red" true for "what color is the car?" in this image?'
    assert predicate_text(q, "plain") == "what color is the car?"


def test_vnli_is_yes_over_yes_plus_no():
    assert entailment_ratio(0.6, 0.2) == pytest.approx(0.75)
    assert entailment_ratio(0.0, 0.4) == 0.0
    assert entailment_ratio(0.0, 0.0) == 0.5  # no mass on either word: undecided
    assert vnli_question("a dog") == 'Does this image entail the description: "a dog"?'


@pytest.mark.parametrize("cos, expected", [(0.32, 0.8), (1.0, 2.5), (0.0, 0.0), (-0.2, 0.0)])
def test_clipscore_is_2_5_times_positive_cosine(cos, expected):
    assert clip_score(cos) == pytest.approx(expected)


def test_dependency_zeroing_zeroes_children_of_a_no_parent():
    qs = [
        Question("1", "is there a car?", "car"),
        Question("2", "what color is the car?", "red", depends_on=["1"]),
        Question("3", "is there a dog?", "dog"),
        Question("4", "what is the car next to?", "dog", depends_on=["1", "3"]),
        Question("5", "how big is the red of the car?", "x", depends_on=["2"]),
    ]
    # car absent (0.4 < 0.5): its colour and relation are zeroed, and transitively question 5
    assert dependency_zeroed(qs, [0.4, 0.9, 0.8, 0.7, 0.95]) == [0.4, 0.0, 0.8, 0.0, 0.0]
    # car present: nothing changes (0.5 is not below the threshold)
    assert dependency_zeroed(qs, [0.5, 0.9, 0.8, 0.7, 0.95]) == [0.5, 0.9, 0.8, 0.7, 0.95]


# ---- the Scorer ---------------------------------------------------------------------------------------

PROMPT = "a red car"  # questions: q1 "is there a car?" -> car, q2 "is the car red?" -> red (yes/no: asked plainly)


def test_scorer_averages_vq2_and_sends_all_pairs_in_one_call():
    q1, q2 = "is there a car?", "is the car red?"
    vqa = VQADouble(
        p_yes={("A", q1): 0.9, ("A", q2): 0.7, ("B", q1): 0.8, ("B", q2): 0.2},
        yes_no={"A": (0.6, 0.2), "B": (0.1, 0.3)},
    )
    clip = ClipDouble({"A": 0.3, "B": -0.1})
    scorer = make_scorer(vqa, clip_model=clip)
    cards = scorer.score([image("A"), image("B")], PROMPT)
    assert [q.text for q in scorer.questions(PROMPT)] == ["is there a car?", "is the car red?"]
    assert cards[0].vq2 == pytest.approx(0.8) and cards[1].vq2 == pytest.approx(0.5)
    assert cards[0].vnli == pytest.approx(0.75) and cards[1].vnli == pytest.approx(0.25)
    assert cards[0].clip == pytest.approx(0.75) and cards[1].clip == 0.0
    assert cards[0].overall == cards[0].vq2  # tiny preset: primary = vq2
    assert vqa.calls == [("yes_prob", 4), ("yes_no_probs", 2)]  # one call per kind for the whole batch
    assert scorer.calls["vqa_yes_prob"] == 1 and scorer.calls["vqa_pairs"] == 4
    assert cards[1].questions[1].p_yes == 0.2 and cards[1].questions[1].question.answer == "red"


def test_scorer_applies_dependency_zeroing_when_configured():
    q1, q2 = "is there a car?", "is the car red?"
    vqa = VQADouble(p_yes={("A", q1): 0.2, ("A", q2): 0.8})
    on = make_scorer(vqa, vnli=False, clip=False).score([image("A")], PROMPT)[0]
    assert on.vq2 == pytest.approx(0.1) and on.questions[1].zeroed and on.questions[1].p_yes == 0.8
    off = make_scorer(vqa, vnli=False, clip=False, dependency_zeroing=False).score([image("A")], PROMPT)[0]
    assert off.vq2 == pytest.approx(0.5)
    assert on.vnli is None and on.clip is None  # switched off: not computed
    assert ("yes_no_probs", 1) not in vqa.calls


def test_scorer_plain_predicate_asks_the_question_itself():
    vqa = VQADouble(p_yes={("A", "is there a car?"): 1.0, ("A", "is the car red?"): 0.0})
    card = make_scorer(vqa, predicate="plain", vnli=False, clip=False).score([image("A")], PROMPT)[0]
    assert card.vq2 == pytest.approx(0.5)


def test_vq2_predicate_wraps_wh_pairs_and_asks_yes_no_questions_plainly():
    wh = Question("q1", "what color is the car?", "red")
    assert predicate_text(wh) == 'is "red" true for "what color is the car?" in this image?'
    assert predicate_text(wh, "plain") == "what color is the car?"
    # a yes/no question has no span answer to ask about: never 'is "dog" true for "is there a dog?"'
    for q in (Question("q2", "is there a dog?", "dog"), Question("q3", "Are the apples red?", "red"), Question("q4", "does the man hold a cup?", "cup")):
        assert predicate_text(q) == q.text
    # a yes/no question expecting "no" keeps the predicate, which says so
    assert predicate_text(Question("q5", "is there a cat?", "no")) == 'is "no" true for "is there a cat?" in this image?'
    with pytest.raises(ValueError, match="predicate style"):
        predicate_text(wh, "fancy")


def test_overall_follows_scoring_primary():
    vqa = VQADouble(yes_no={"A": (0.9, 0.1)})
    card = make_scorer(vqa, primary="vnli", clip=False).score([image("A")], PROMPT)[0]
    assert card.overall == pytest.approx(0.9)


def test_prompt_without_questions_falls_back_to_vnli():
    vqa = VQADouble(yes_no={"A": (0.3, 0.1)})
    card = make_scorer(vqa, vnli=False, clip=False).score([image("A")], "hello")[0]
    assert card.vq2 is None and card.overall == pytest.approx(0.75)


@pytest.mark.parametrize("prompt, match", [("   ", "empty"), ("x" * 1001, "max_prompt_chars = 1000")])
def test_bad_prompts_are_input_errors(prompt, match):
    with pytest.raises(InputError, match=match):
        make_scorer(VQADouble()).score([image("A")], prompt)


def test_no_images_is_an_input_error():
    with pytest.raises(InputError, match="no images"):
        make_scorer(VQADouble()).score([], PROMPT)


def test_questions_are_generated_once_per_prompt():
    scorer = make_scorer(VQADouble())
    first = scorer.questions(PROMPT)
    second = scorer.questions(PROMPT)
    assert [q.to_dict() for q in first] == [q.to_dict() for q in second]
    assert scorer.calls["question_generation"] == 1 and scorer.calls["question_cache_hits"] == 1


def test_clipscore_embeds_the_caption_with_the_reference_prefix():
    from autoalign.scoring.clipscore import clip_scores

    class RecordingClipDouble:
        def __init__(self):
            self.texts = []

        def cosine(self, images, text):
            self.texts.append(text)
            return [0.4 for _ in images]

    clip = RecordingClipDouble()
    assert clip_scores(clip, [image("A")], "two red apples") == [pytest.approx(1.0)]
    assert clip.texts == ["A photo depicts two red apples"]
    clip.text_template = "{text}"  # a CLIP trained on bare captions is given them ([clip] text_template)
    clip_scores(clip, [image("A")], "two red apples")
    assert clip.texts[-1] == "two red apples"
