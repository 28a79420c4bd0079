"""What a question about a world image asks, answered from the scene graph.

The judges are trained on the questions the project's own question generator writes from world
captions (``scoring.questions``), so this module reads *those* questions - the VQ2 wh-questions
("what color is the square?" with answer "blue" and span "a blue square"), plain yes/no questions
("is there a red circle?") and the detector's open questions ("How many circles are there?") - and
answers them from a scene. It is used to label training data and to write the editor's training
instructions; the loop never calls it (it would be an oracle).

:func:`question_truth` returns None for a question it cannot read; callers drop those.
"""

from __future__ import annotations

import random
import re

from autoalign.types import Question
from autoalign.world.render import relation_holds
from autoalign.world.scene import (
    Group,
    Obj,
    Scene,
    Spec,
    colors,
    count_words,
    parse_group,
    relations,
    shapes,
    sizes,
    split_relation,
)

_COUNT_WORD = {w: i + 1 for i, w in enumerate(count_words())} | {"zero": 0, "none": 0, "no": 0}


def count_in(text: str) -> int | None:
    """The first number a text names ("are there two circles?" -> 2), None when it names none."""
    for w in re.findall(r"[a-z0-9]+", text.lower()):
        if w.isdigit():
            return int(w)
        if w in _COUNT_WORD and w != "no":
            return _COUNT_WORD[w]
    return None


def matching(scene: Scene, g: Group) -> list[Obj]:
    return [o for o in scene.objects if g.matches(o)]


def relation_truth(scene: Scene, a: Group, rel: str, b: Group) -> bool:
    return any(relation_holds(x, rel, y) for x in matching(scene, a) for y in matching(scene, b) if y is not x)


def _with_attribute(g: Group, word: str) -> Group:
    if word in colors():
        return Group(g.count, word, g.shape, g.size)
    if word in sizes():
        return Group(g.count, g.color, g.shape, word)
    return g


def question_truth(q: Question, scene: Scene) -> bool | None:
    """Whether ``scene`` makes the question's expected answer true; None when it cannot be read."""
    aspect, span, answer, text = q.aspect, q.span or "", q.answer or "", q.text or ""
    if answer.strip().lower() in ("yes", "no"):  # a plain yes/no question: read its text
        truth = yes_no_truth(text, scene)
        return None if truth is None else truth == (answer.strip().lower() == "yes")
    if aspect == "relation":
        parts = split_relation(span) or split_relation(f"{text.rstrip('?')} {answer}")
        if parts is None:
            return None
        a, b = parse_group(parts[0]), parse_group(parts[2])
        if a is None or b is None:
            return None
        return relation_truth(scene, a, parts[1], b)
    if aspect == "number":
        # a total over several groups ("are there four squares?" from "two white squares and two purple
        # squares") counts what the question names; otherwise the span's group ("two red circles")
        where = text if " and " in span else span
        g, n = parse_group(where) or parse_group(text), count_in(answer)
        if g is None or n is None:
            return None
        return len(matching(scene, g)) == n
    if aspect == "attribute":
        g = parse_group(span) or parse_group(text)
        if g is None:
            return None
        # the question asks about its answer's attribute only ("what is the triangle like?" -> big)
        g = Group(1, None, g.shape, None)
        for word in re.findall(r"[a-z]+", answer.lower()):
            g = _with_attribute(g, word)
        return bool(matching(scene, g))
    g = parse_group(answer) or parse_group(span)
    if g is None:
        return None
    return bool(matching(scene, Group(1, g.color, g.shape, g.size)))


def question_topic(text: str, aspect: str, answer: str) -> str:
    """What a yes/no question is about: vnli, count, relation, size, colour or existence.

    ``aspect`` and ``answer`` are the question generator's (empty and "yes" for a plain question,
    whose text is read instead)."""
    low = text.lower()
    if low.startswith("does this image entail"):
        return "vnli"
    if aspect == "number":
        return "count"
    if aspect == "relation":
        return "relation"
    if aspect == "attribute":
        words = set(re.findall(r"[a-z]+", f"{answer} {low}" if answer.strip().lower() in ("yes", "no") else answer.lower()))
        return "size" if words & set(sizes()) else "colour"
    if answer.strip().lower() in ("yes", "no", ""):
        body = low.strip().rstrip("?")
        if split_relation(body) is not None:
            return "relation"
        n = count_in(body)
        if n is not None and n != 1 or re.search(r"\b(exactly|only)\b", body):
            return "count"
    return "existence"


def yes_no_truth(text: str, scene: Scene) -> bool | None:
    """The answer to a plain yes/no question about the scene ("is the square blue?", "are there two
    circles?", "is the triangle to the left of the circle?"); None when it cannot be read."""
    body = text.lower().strip().rstrip("?")
    parts = split_relation(body)
    if parts is not None:
        a, b = parse_group(parts[0]), parse_group(parts[2])
        return None if a is None or b is None else relation_truth(scene, a, parts[1], b)
    g = parse_group(body)
    if g is None:
        return None
    n = count_in(body)
    if n is not None and n != 1 or re.search(r"\b(exactly|only)\b", body):
        return len(matching(scene, g)) == (n or 1)
    return bool(matching(scene, g))


# --------------------------------------------------------------------------------------------
# short answers


def describe(scene: Scene) -> str:
    """The scene in the world's language, largest groups first ("two red circles and a blue square")."""
    groups: dict[tuple[str, str], int] = {}
    for o in scene.objects:
        groups[(o.color, o.shape)] = groups.get((o.color, o.shape), 0) + 1
    if not groups:
        return "nothing"
    parts = [Group(n, c, s).phrase() for (c, s), n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))]
    return " and ".join(parts)


def dominant_relation(a: Obj, b: Obj) -> str:
    dx, dy = b.x - a.x, b.y - a.y
    if abs(dx) >= abs(dy):
        return "to the left of" if dx > 0 else "to the right of"
    return "above" if dy > 0 else "below"


def open_answer(question: str, scene: Scene) -> str | None:
    """A short answer to an open question about the scene, or None when the question is not one the
    world can answer."""
    q = question.lower().strip().rstrip("?")
    m = re.match(r"where is the (.+?) relative to the (.+)$", q)
    if m:
        a, b = parse_group(m.group(1)), parse_group(m.group(2))
        if a is None or b is None:
            return None
        xs, ys = matching(scene, Group(1, a.color, a.shape, a.size)), matching(scene, Group(1, b.color, b.shape, b.size))
        pairs = [(x, y) for x in xs for y in ys if x is not y]
        return dominant_relation(*pairs[0]) if pairs else "nowhere"
    m = re.match(r"how many (.+?) (are there|is there)", q)
    if m:
        g = parse_group(m.group(1))
        if g is None:
            return None
        n = len(matching(scene, Group(1, g.color, g.shape, g.size)))
        return count_words()[n - 1] if 1 <= n <= len(count_words()) else ("zero" if n == 0 else str(n))
    m = re.match(r"what colou?r (is|are) the (.+)$", q)
    if m:
        objs = _objects_named(scene, m.group(2))
        if objs is None:
            return None
        return _most_common([o.color for o in objs]) if objs else "none"
    m = re.match(r"what does the (.+) look like$", q) or re.match(r"what (is|are) the (.+) like$", q)
    if m:
        objs = _objects_named(scene, m.group(m.lastindex or 1))
        if objs is None:
            return None
        if not objs:
            return "none"
        o = objs[0]
        return f"{o.size} {o.color}" if "look like" in q else o.size
    m = re.match(r"what (is|are) the (.+?) (" + "|".join(map(re.escape, relations())) + ")$", q)
    if m:
        objs = _objects_named(scene, m.group(2))
        if objs is None:
            return None
        rel = m.group(3)
        targets = [y for x in objs for y in scene.objects if y is not x and relation_holds(x, rel, y)]
        return targets[0].shape if targets else "nothing"
    if re.match(r"what is (in|shown in) the (image|picture)", q) or q in ("what is happening in the image",):
        return describe(scene)
    return None


def _objects_named(scene: Scene, noun_phrase: str) -> list[Obj] | None:
    g = parse_group(noun_phrase)
    if g is None:
        return None
    return matching(scene, Group(1, g.color, g.shape, g.size))


def _most_common(words: list[str]) -> str:
    return max(sorted(set(words)), key=words.count)


# --------------------------------------------------------------------------------------------
# hard negatives and canonical questions


def perturb(spec: Spec, rng: random.Random) -> Spec:
    """A caption one edit away from ``spec``: another colour, count +-1, another shape, size or relation."""
    groups = list(spec.groups)
    kinds = ["color", "count", "shape"]
    if any(g.size for g in groups):
        kinds.append("size")
    if spec.relation is not None:
        kinds += ["relation", "relation"]
    kind = rng.choice(kinds)
    i = rng.randrange(len(groups))
    g = groups[i]
    if kind == "color":
        groups[i] = Group(g.count, rng.choice([c for c in colors() if c != g.color]), g.shape, g.size)
    elif kind == "count" and spec.relation is None:
        options = [n for n in (g.count - 1, g.count + 1) if 1 <= n <= 4]
        groups[i] = Group(rng.choice(options), g.color, g.shape, g.size)
    elif kind == "shape" or kind == "count":
        groups[i] = Group(g.count, g.color, rng.choice([s for s in shapes() if s != g.shape]), g.size)
    elif kind == "size":
        i = next(k for k, h in enumerate(groups) if h.size)
        h = groups[i]
        groups[i] = Group(h.count, h.color, h.shape, "small" if h.size == "big" else "big")
    else:
        a, rel, b = spec.relation  # type: ignore[misc]
        opposite = {"to the left of": "to the right of", "to the right of": "to the left of", "above": "below", "below": "above"}
        if rng.random() < 0.5:
            return Spec(tuple(groups), (a, opposite[rel], b), spec.category)
        return Spec(tuple(groups), (a, rng.choice([r for r in relations() if r not in (rel, opposite[rel])]), b), spec.category)
    return Spec(tuple(groups), spec.relation, spec.category)


def swapped(spec: Spec, rng: random.Random) -> Spec | None:
    """A binding swap of ``spec`` (the ColorSwap / Winoground kind of negative): two groups exchange
    their colours, or a relation is reversed; None when the caption has nothing to swap or the swap
    would name a held-out combination."""
    groups = list(spec.groups)
    options: list[Spec] = []
    pairs = [(i, j) for i in range(len(groups)) for j in range(i + 1, len(groups))
             if groups[i].color and groups[j].color and groups[i].color != groups[j].color and groups[i].shape != groups[j].shape]
    if pairs:
        i, j = rng.choice(pairs)
        a, b = groups[i], groups[j]
        swapped_groups = list(groups)
        swapped_groups[i], swapped_groups[j] = Group(a.count, b.color, a.shape, a.size), Group(b.count, a.color, b.shape, b.size)
        options.append(Spec(tuple(swapped_groups), spec.relation, spec.category))
    if spec.relation is not None:
        a_i, rel, b_i = spec.relation
        opposite = {"to the left of": "to the right of", "to the right of": "to the left of", "above": "below", "below": "above"}
        options.append(Spec(spec.groups, (a_i, opposite[rel], b_i), spec.category))
    options = [o for o in options if not o.uses_held_out()]
    return rng.choice(options) if options else None


def canonical_questions(scene: Scene, rng: random.Random, k: int = 4) -> list[tuple[str, bool]]:
    """Plain yes/no questions about random groups and relations, with their answers on ``scene``."""
    out: list[tuple[str, bool]] = []
    for _ in range(k):
        kind = rng.choice(["exist", "exist", "count", "relation"])
        if scene.objects and rng.random() < 0.6:
            o = rng.choice(scene.objects)
            g = Group(1, o.color if rng.random() < 0.8 else None, o.shape, o.size if rng.random() < 0.3 else None)
            if rng.random() < 0.5:  # one word changed: a hard negative
                g = Group(1, rng.choice(list(colors())), g.shape, g.size) if rng.random() < 0.5 else Group(1, g.color, rng.choice(shapes()), g.size)
        else:
            g = Group(1, rng.choice(list(colors())), rng.choice(shapes()), None)
        if kind == "exist":
            text = f"is there {g.phrase()}?"
        elif kind == "count":
            n = rng.randint(1, 4)
            g = Group(n, g.color, g.shape, g.size)
            text = f"are there {g.phrase()}?" if n > 1 else f"is there exactly {g.phrase()}?"
        else:
            h = Group(1, rng.choice(list(colors())), rng.choice(shapes()), None)
            if len(scene.objects) >= 2 and rng.random() < 0.7:
                x, y = rng.sample(scene.objects, 2)
                g, h = Group(1, x.color, x.shape), Group(1, y.color, y.shape)
            text = f"is the {g.phrase(article=False)} {rng.choice(relations())} the {h.phrase(article=False)}?"
        truth = yes_no_truth(text, scene)
        if truth is not None:
            out.append((text, truth))
    return out
