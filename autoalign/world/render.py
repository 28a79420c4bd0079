"""Draw a scene at 64x64 pixels, and place a spec's objects into a scene.

Shapes are drawn without anti-aliasing, in the exact palette colours of
``prompts/world_vocabulary.json``, so a rendered image holds only palette pixels. Objects never
overlap (a gap of at least :data:`GAP` pixels), and a relation a caption states holds with a margin
(:data:`RELATION_MARGIN`) along its axis, and more along that axis than across it.
"""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from autoalign.world.scene import IMAGE_SIZE, Group, Obj, Scene, Spec, background, colors, sizes

GAP = 3
EDGE = 2
RELATION_MARGIN = 10


def _paint(pen: ImageDraw.ImageDraw, o: Obj, fill) -> None:
    h = sizes()[o.size]
    x, y = o.x, o.y
    if o.shape == "circle":
        pen.ellipse([x - h, y - h, x + h, y + h], fill=fill)
    elif o.shape == "square":
        pen.rectangle([x - h, y - h, x + h, y + h], fill=fill)
    elif o.shape == "triangle":
        pen.polygon([(x - h, y + h), (x + h, y + h), (x, y - h)], fill=fill)
    else:
        raise ValueError(f"unknown shape {o.shape!r}")


def draw(scene: Scene, size: int = IMAGE_SIZE) -> Image.Image:
    """The scene as an RGB image (``size`` x ``size``; coordinates are scaled from 64)."""
    image = Image.new("RGB", (IMAGE_SIZE, IMAGE_SIZE), background())
    pen = ImageDraw.Draw(image)
    palette = colors()
    for o in scene.objects:
        _paint(pen, o, palette[o.color])
    if size != IMAGE_SIZE:
        image = image.resize((size, size), Image.NEAREST)
    return image


def object_map(scene: Scene) -> Image.Image:
    """A 64x64 greyscale map of which object covers each pixel: 0 for the background, ``i + 1`` for
    ``scene.objects[i]`` (training labels for the VLM's patch grounding; objects never overlap)."""
    image = Image.new("L", (IMAGE_SIZE, IMAGE_SIZE), 0)
    pen = ImageDraw.Draw(image)
    for i, o in enumerate(scene.objects):
        _paint(pen, o, i + 1)
    return image


def _overlaps(a: Obj, b: Obj) -> bool:
    ha, hb = sizes()[a.size], sizes()[b.size]
    return abs(a.x - b.x) < ha + hb + GAP and abs(a.y - b.y) < ha + hb + GAP


def relation_holds(a: Obj, rel: str, b: Obj, margin: float = 6.0) -> bool:
    """Whether ``a rel b`` holds between two objects' centres (the oracle's reading of a relation)."""
    if rel == "to the left of":
        return a.x < b.x - margin
    if rel == "to the right of":
        return a.x > b.x + margin
    if rel == "above":
        return a.y < b.y - margin
    if rel == "below":
        return a.y > b.y + margin
    raise ValueError(f"unknown relation {rel!r}")


def _clear(a: Obj, rel: str, b: Obj) -> bool:
    dx, dy = abs(a.x - b.x), abs(a.y - b.y)
    along, across = (dx, dy) if "left" in rel or "right" in rel else (dy, dx)
    return relation_holds(a, rel, b, RELATION_MARGIN) and along > across


def _random_obj(rng: random.Random, g: Group) -> Obj:
    size = g.size or rng.choice(list(sizes()))
    h = sizes()[size]
    lo, hi = h + EDGE, IMAGE_SIZE - 1 - h - EDGE
    return Obj(g.shape, g.color or rng.choice(list(colors())), size, rng.randint(lo, hi), rng.randint(lo, hi))


def place(spec: Spec, rng: random.Random, tries: int = 500) -> Scene:
    """A scene showing exactly what ``spec`` says, at random non-overlapping positions."""
    for _ in range(tries):
        objects: list[Obj] = []
        ok = True
        for g in spec.groups:
            for _ in range(g.count):
                for _ in range(50):
                    o = _random_obj(rng, g)
                    if not any(_overlaps(o, p) for p in objects):
                        objects.append(o)
                        break
                else:
                    ok = False
        if not ok:
            continue
        if spec.relation is not None:
            i, rel, j = spec.relation
            if not _clear(objects[i], rel, objects[j]):
                continue
        return Scene(objects)
    raise RuntimeError(f"could not place {spec.caption()!r}")


def scene_for(spec: Spec, seed: int) -> Scene:
    return place(spec, random.Random(seed))
