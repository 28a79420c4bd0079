"""Scenes of coloured shapes, the captions that describe them, and deterministic splits by seed.

The world's vocabulary (``prompts/world_vocabulary.json``): three shapes, six colours, two sizes,
counts one to four, four spatial relations. A *spec* is what a caption says (groups of objects and
at most one relation); a *scene* is what an image shows (objects with positions). Captions are
written from specs in the prompt language the loop already handles::

    "two red circles and a blue square"
    "a small green triangle to the left of a yellow circle"
    "three purple squares"

Splits: ``train`` / ``val`` / ``test`` draw specs from seeds in disjoint namespaces and never use a
held-out colour-shape pair or the held-out count; ``compositional`` draws only specs that use one of
them, so models trained on ``train`` never saw those combinations.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any, Iterator

from autoalign import prompts

IMAGE_SIZE = 64
SPLITS = ("train", "val", "test", "compositional")
CATEGORIES = ("counting", "colour_binding", "shape", "size", "spatial")


@lru_cache(maxsize=1)
def vocabulary() -> dict[str, Any]:
    data = json.loads(prompts.load("world_vocabulary.json"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


def shapes() -> list[str]:
    return list(vocabulary()["shapes"])


def colors() -> dict[str, tuple[int, int, int]]:
    return {k: tuple(v) for k, v in vocabulary()["colors"].items()}


def background() -> tuple[int, int, int]:
    return tuple(vocabulary()["background"])


def sizes() -> dict[str, float]:
    return dict(vocabulary()["sizes"])


def relations() -> list[str]:
    return list(vocabulary()["relations"])


def count_words() -> list[str]:
    return list(vocabulary()["counts"])


def held_out_pairs() -> set[tuple[str, str]]:
    return {tuple(p) for p in vocabulary()["held_out"]["color_shape"]}  # type: ignore[misc]


def held_out_counts() -> set[tuple[int, str]]:
    return {(int(n), s) for n, s in vocabulary()["held_out"]["count_shape"]}


PLURALS = {"circle": "circles", "square": "squares", "triangle": "triangles"}


def plural(shape: str) -> str:
    return PLURALS.get(shape, shape + "s")


def singular(word: str) -> str:
    for s, p in PLURALS.items():
        if word == p:
            return s
    return word


@dataclass
class Obj:
    """One object in a scene: shape, colour, size and the centre of its bounding box (pixels)."""

    shape: str
    color: str
    size: str
    x: float
    y: float

    def describe(self) -> str:
        return f"{self.size} {self.color} {self.shape}"


@dataclass
class Scene:
    objects: list[Obj] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"objects": [asdict(o) for o in self.objects]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Scene":
        return cls([Obj(**o) for o in data.get("objects", [])])


@dataclass(frozen=True)
class Group:
    """``count`` objects of one shape, with a colour and optionally a size ("two small red circles")."""

    count: int
    color: str | None
    shape: str
    size: str | None = None

    def matches(self, o: Obj) -> bool:
        return o.shape == self.shape and (self.color is None or o.color == self.color) and (
            self.size is None or o.size == self.size
        )

    def phrase(self, article: bool = True) -> str:
        words = []
        if self.count == 1:
            if article:
                words.append("a")
        else:
            words.append(count_words()[self.count - 1])
        if self.size:
            words.append(self.size)
        if self.color:
            words.append(self.color)
        words.append(self.shape if self.count == 1 else plural(self.shape))
        return " ".join(words)


@dataclass(frozen=True)
class Spec:
    """What a caption says: groups of objects, and at most one relation ``(i, relation, j)`` between
    two single-object groups."""

    groups: tuple[Group, ...]
    relation: tuple[int, str, int] | None = None
    category: str = ""

    def caption(self) -> str:
        if self.relation is not None:
            i, rel, j = self.relation
            return f"{self.groups[i].phrase()} {rel} {self.groups[j].phrase()}"
        return " and ".join(g.phrase() for g in self.groups)

    def uses_held_out(self) -> bool:
        pairs, counts = held_out_pairs(), held_out_counts()
        return any((g.color, g.shape) in pairs or (g.count, g.shape) in counts for g in self.groups)

    def to_dict(self) -> dict[str, Any]:
        return {
            "groups": [asdict(g) for g in self.groups],
            "relation": list(self.relation) if self.relation else None,
            "category": self.category,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Spec":
        rel = data.get("relation")
        return cls(tuple(Group(**g) for g in data["groups"]), tuple(rel) if rel else None, data.get("category", ""))


# --------------------------------------------------------------------------------------------
# reading the world's language


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def parse_group(text: str) -> Group | None:
    """A noun phrase of the world's language ("two small red circles", "the square") as a group."""
    words = [w for w in re.findall(r"[a-z]+", text.lower()) if w not in ("the", "there", "is", "are")]
    count, size, color, shape = 1, None, None, None
    for w in words:
        if w in _NUMBERS:
            count = _NUMBERS[w]
        elif w in sizes():
            size = w
        elif w in colors():
            color = w
        elif singular(w) in shapes():
            shape = singular(w)
    if shape is None:
        return None
    return Group(count, color, shape, size)


def split_relation(text: str) -> tuple[str, str, str] | None:
    """``(left text, relation, right text)`` when ``text`` holds one of the world's relations."""
    low = " " + " ".join(re.findall(r"[a-z]+", text.lower())) + " "
    for rel in sorted(relations(), key=len, reverse=True):
        key = f" {rel} "
        if key in low:
            left, right = low.split(key, 1)
            return left.strip(), rel, right.strip()
    return None


def parse_caption(text: str) -> Spec | None:
    """A caption of the world's language back into its spec; None when it is not one."""
    rel = split_relation(text)
    if rel is not None:
        a, b = parse_group(rel[0]), parse_group(rel[2])
        if a is None or b is None:
            return None
        return Spec((a, b), (0, rel[1], 1))
    groups = []
    for part in re.split(r"\band\b|,", text.lower()):
        if part.strip():
            g = parse_group(part)
            if g is None:
                return None
            groups.append(g)
    return Spec(tuple(groups)) if groups else None


# --------------------------------------------------------------------------------------------
# sampling specs by seed


def rng_for(split: str, index: int, salt: str = "") -> random.Random:
    digest = hashlib.sha256(f"autoalign-world/{split}/{salt}/{index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _group(rng: random.Random, count: int, with_size: float = 0.3, shape: str | None = None, color: str | None = None) -> Group:
    return Group(
        count=count,
        color=color or rng.choice(list(colors())),
        shape=shape or rng.choice(shapes()),
        size=rng.choice(list(sizes())) if rng.random() < with_size else None,
    )


def sample_spec(rng: random.Random, category: str | None = None) -> Spec:
    """One caption spec of a category (random category when None); 1-4 objects in all."""
    category = category or rng.choice(CATEGORIES)
    if category == "counting":
        groups: tuple[Group, ...] = (_group(rng, rng.randint(2, 4), with_size=0.0),)
        if groups[0].count == 2 and rng.random() < 0.5:
            groups += (_group(rng, rng.randint(1, 2), with_size=0.0),)
        return Spec(_distinct(rng, groups), None, category)
    if category == "colour_binding":
        a = _group(rng, 1, with_size=0.0)
        b = _group(rng, rng.randint(1, 2), with_size=0.0)
        while b.color == a.color:
            b = _group(rng, b.count, with_size=0.0, shape=b.shape)
        return Spec(_distinct(rng, (a, b)), None, category)
    if category == "shape":
        return Spec((_group(rng, 1, with_size=0.0),), None, category)
    if category == "size":
        a = _group(rng, 1, with_size=1.0)
        if rng.random() < 0.5:
            return Spec((a,), None, category)
        b = _group(rng, 1, with_size=1.0)
        return Spec(_distinct(rng, (a, b)), None, category)
    if category == "spatial":
        a, b = _group(rng, 1, with_size=0.2), _group(rng, 1, with_size=0.2)
        while (a.shape, a.color) == (b.shape, b.color):
            b = _group(rng, 1, with_size=0.2)
        return Spec((a, b), (0, rng.choice(relations()), 1), category)
    raise ValueError(f"unknown category {category!r}; categories: {', '.join(CATEGORIES)}")


def _distinct(rng: random.Random, groups: tuple[Group, ...]) -> tuple[Group, ...]:
    """Groups that cannot describe the same objects (a caption never names one kind twice)."""
    out: list[Group] = []
    for g in groups:
        while any(g.shape == o.shape and g.color == o.color for o in out):
            g = Group(g.count, rng.choice(list(colors())), g.shape, g.size)
        out.append(g)
    return tuple(out)


def spec_for(split: str, index: int, category: str | None = None) -> Spec:
    """The ``index``-th spec of a split: deterministic; held-out combinations only in ``compositional``."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    rng = rng_for(split, index, category or "")
    for _ in range(1000):
        spec = sample_spec(rng, category)
        if spec.uses_held_out() == (split == "compositional"):
            return spec
    raise RuntimeError(f"could not draw a {split} spec of category {category!r}")


def specs(split: str, n: int, category: str | None = None, start: int = 0) -> Iterator[Spec]:
    for i in range(start, start + n):
        yield spec_for(split, i, category)
