"""Editing triples for the world's editor: (source scene, instruction, edited scene).

The edited scene shows what a caption says; the source is one edit away from it (an object
recoloured, reshaped, dropped, duplicated, or two objects swapped so a relation fails). The
instruction is what *the loop itself* would say about the source: the caption's questions from the
project's question generator are answered on the source scene, the project's VQ2 detector turns the
failures into FineMatch triplets (its open questions answered from the scene), and the project's
template writer writes the instruction - so the editor learns exactly the language the loop speaks.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import lru_cache
from types import SimpleNamespace

from PIL import Image

from autoalign.world import facts
from autoalign.world.render import _overlaps, _random_obj
from autoalign.world.scene import Group, Obj, Scene, Spec, colors, shapes
from autoalign.world.training.data import questions

#: the most objects a world scene holds: an edit that adds one stops there
MOST_OBJECTS = 4


@dataclass
class Triple:
    prompt: str
    source: Scene
    instruction: str
    target: Scene
    kind: str


class SceneAnswers:
    """Answers the detector's open questions from a known scene (training data only, never the loop)."""

    def __init__(self, scene: Scene):
        self.scene = scene

    def answer(self, images, questions_, max_new_tokens: int = 16) -> list[str]:
        return [facts.open_answer(q, self.scene) or "" for q in questions_]


@lru_cache(maxsize=1)
def _config():
    from autoalign.config import load_config

    return load_config("shapes")


def mismatches_on(prompt: str, scene: Scene):
    """The loop's FineMatch triplets for ``scene`` against ``prompt``, with the VQA answered from the scene."""
    from autoalign.detection.vq2_detector import VQ2Detector
    from autoalign.types import QuestionScore, ScoreCard

    scored = []
    for q in questions(prompt):
        truth = facts.question_truth(q, scene)
        scored.append(QuestionScore(q, 1.0 if truth or truth is None else 0.0))
    card = ScoreCard(overall=0.0, questions=scored)
    detector = VQ2Detector(SimpleNamespace(vqa=SceneAnswers(scene)), _config())
    return detector.detect(Image.new("RGB", (8, 8)), prompt, card)


def instruction_for(prompt: str, scene: Scene) -> str | None:
    """The template writer's first instruction for ``scene`` (combined mode, as the shapes preset runs)."""
    from autoalign.editing.template_writer import TemplateWriter

    found = mismatches_on(prompt, scene)
    if not found:
        return None
    written = TemplateWriter(config=_config(), mode="combined").write(prompt, found, tried=[])
    return written[0].text if written else None


def _free_spot(rng: random.Random, scene: Scene, g: Group, avoid: Obj | None = None) -> Obj | None:
    for _ in range(100):
        o = _random_obj(rng, g)
        if not any(_overlaps(o, p) for p in scene.objects if p is not avoid):
            return o
    return None


def corrupt(spec: Spec, scene: Scene, rng: random.Random) -> tuple[Scene, str] | None:
    """A source scene one edit away from ``scene`` (which shows ``spec``), and the kind of edit."""
    objs = list(scene.objects)
    kinds = ["recolor", "recolor", "drop", "extra", "reshape"]
    if spec.relation is not None:
        kinds += ["swap", "swap"]
    kind = rng.choice(kinds)
    i = rng.randrange(len(objs))
    o = objs[i]
    if kind == "recolor":
        objs[i] = replace(o, color=rng.choice([c for c in colors() if c != o.color]))
    elif kind == "reshape":
        objs[i] = replace(o, shape=rng.choice([s for s in shapes() if s != o.shape]))
    elif kind == "drop":
        if len(objs) == 1:
            return None
        objs.pop(i)
    elif kind == "extra":
        new = _free_spot(rng, scene, Group(1, o.color, o.shape, o.size))
        if new is None or len(objs) >= MOST_OBJECTS:
            return None
        objs.append(new)
    else:  # swap the two related objects' places
        a, _, b = spec.relation  # type: ignore[misc]
        objs[a], objs[b] = replace(objs[a], x=objs[b].x, y=objs[b].y), replace(objs[b], x=objs[a].x, y=objs[a].y)
        if _overlaps(objs[a], objs[b]):
            return None
    return Scene(objs), kind


def one_edit_away(spec: Spec, scene: Scene, rng: random.Random, tries: int = 20, must_differ: bool = True) -> Scene | None:
    """The first of up to ``tries`` corruptions of ``scene`` (:func:`corrupt`) that works; with
    ``must_differ``, only one that no longer shows ``spec`` (an extra object of a kind the caption
    does not count can leave it true). ``None`` when none did."""
    got = edit_away(spec, scene, rng, tries, must_differ)
    return None if got is None else got[0]


def edit_away(spec: Spec, scene: Scene, rng: random.Random, tries: int = 20, must_differ: bool = True) -> tuple[Scene, str] | None:
    """:func:`one_edit_away` with the kind of the edit (``recolor``, ``reshape``, ``drop``, ``extra``, ``swap``)."""
    from autoalign.world.oracle import check

    for _ in range(tries):
        got = corrupt(spec, scene, rng)
        if got is not None and not (must_differ and check(spec, got[0]).aligned):
            return got
    return None


def adds_to_a_single(spec: Spec, edited: Scene, kind: str) -> bool:
    """True for an ``extra`` edit that copies an object the caption names once ("a red circle"): no
    question of the project's generator sees it, since "a" asks no count (as in DSG and TIFA), while
    the world's captions name every object, so the oracle does. (The generator's ``closed_counts``
    option asks "is there one red circle?"; ``autoalign world eval`` measures VQ2 with it too.)"""
    if kind != "extra":
        return False
    return named_once(spec, edited.objects[-1])  # corrupt appends the copy


def named_once(spec: Spec, o: Obj) -> bool:
    """Whether the caption names ``o``'s kind with "a" ("a red circle"), so a second one is an edit."""
    return any(g.count == 1 and g.shape == o.shape and g.color in (None, o.color) for g in spec.groups)


def copy_of_single(spec: Spec, scene: Scene, rng: random.Random) -> Scene | None:
    """``scene`` with a second copy of an object the caption names with "a" (the edit
    :func:`adds_to_a_single` marks): the hard negative of a closed count ("is there one red circle?").
    ``None`` when the caption names nothing with "a", the scene is full, or no free spot was found."""
    singles = [o for o in scene.objects if named_once(spec, o)]
    if not singles or len(scene.objects) >= MOST_OBJECTS:
        return None
    o = rng.choice(singles)
    new = _free_spot(rng, scene, Group(1, o.color, o.shape, o.size))
    return None if new is None else Scene([*scene.objects, new])


def triple(spec: Spec, scene: Scene, rng: random.Random) -> Triple | None:
    """One training triple for the editor, or None when the corruption is invisible to the questions."""
    corrupted = corrupt(spec, scene, rng)
    if corrupted is None:
        return None
    source, kind = corrupted
    prompt = spec.caption()
    text = instruction_for(prompt, source)
    if not text:
        return None
    return Triple(prompt, source, text, scene, kind)
