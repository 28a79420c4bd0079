"""The oracle: a deterministic pixel-level reader of world images, and the facts a caption asserts.

It never calls a trained model and the loop never calls it: benchmarks and tests use it to measure.

Reading an image (:func:`read`):

1. every pixel takes the nearest palette colour (or the background) when it is within
   :data:`COLOR_TOLERANCE` of it, else it is unknown;
2. the pixels of each colour are split into 8-connected components; components smaller than
   :data:`MIN_AREA` pixels are fragments (anti-aliased edges, blur);
3. each component's shape comes from how much of its bounding box it fills (square ~1.0, circle
   ~0.79, triangle ~0.5; generated squares have rounded corners and generated triangles soft edges,
   hence the wide bands) and where its mass sits (a triangle's is low in its box: apex up); its
   size comes from the box's longer side;
4. relations come from the components' centres (:func:`autoalign.world.render.relation_holds`).

It abstains (``Reading.scene is None`` with a reason) rather than guess: a component whose fill or
aspect ratio fits no shape, whose box is too small or too large for any size, too much unknown or
fragment area, or more than :data:`MAX_OBJECTS` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from autoalign.world.render import relation_holds
from autoalign.world.scene import IMAGE_SIZE, Obj, Scene, Spec, background, colors

COLOR_TOLERANCE = 95.0
MIN_AREA = 24
MAX_OBJECTS = 6
#: Fill ratio (component area / bounding-box area) bands per shape; outside every band the oracle abstains.
FILL_BANDS = {"triangle": (0.38, 0.76), "circle": (0.68, 0.845), "square": (0.85, 1.01)}
#: A triangle's centre of mass sits below its box's centre by ~1/6 of the height; circles and squares ~0.
TRIANGLE_DROP = 0.07
ASPECT_MAX = 1.45
#: Longest bounding-box side (pixels at 64x64) that separates small from big; sides outside
#: [SIDE_MIN, SIDE_MAX] make the oracle abstain.
SIZE_SPLIT = 15
SIDE_MIN, SIDE_MAX = 5, 25
MAX_UNKNOWN = 0.08
MAX_FRAGMENTS = 0.06


@dataclass
class Reading:
    scene: Scene | None
    reason: str = ""
    #: each object's bounding box ``(x0, y0, x1, y1)`` in pixels of the 64x64 reading (x1 / y1 exclusive), in
    #: the order of ``scene.objects`` (benchmarks read the oracle as a detector with it)
    boxes: list[tuple[float, float, float, float]] = field(default_factory=list)

    @property
    def readable(self) -> bool:
        return self.scene is not None


def palette_labels(arr: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Step 1 of reading: each pixel of an ``(H, W, 3)`` float array as the index of its palette colour in the
    returned names (0 = the background), or -1 when no colour is within :data:`COLOR_TOLERANCE`."""
    names = ["background", *colors()]
    palette = np.array([background(), *colors().values()], dtype=np.float32)
    dist = np.linalg.norm(arr[:, :, None, :] - palette[None, None, :, :], axis=-1)
    label = dist.argmin(-1)
    label[dist.min(-1) > COLOR_TOLERANCE] = -1
    return label, names


def classify(fill: float, drop: float) -> str | None:
    """The shape of a blob from its fill ratio and how far its mass sits below its box's centre
    (a fraction of the height); None when no shape fits."""
    lo, hi = FILL_BANDS["triangle"]
    if drop >= TRIANGLE_DROP and lo <= fill < hi:
        return "triangle"
    for shape in ("circle", "square"):
        lo, hi = FILL_BANDS[shape]
        if lo <= fill < hi and abs(drop) < TRIANGLE_DROP:
            return shape
    return None


def blob_shape(component: np.ndarray, name: str = "") -> tuple[str | None, str]:
    """The shape the oracle reads in one blob (a boolean mask of one colour's connected pixels, at least
    :data:`MIN_AREA` of them), or ``(None, reason)`` when its box fits no size, it is too elongated or its fill
    fits no shape. :func:`read` reads every blob with it; the grounder's training labels a blob it refuses as
    background (:mod:`autoalign.world.training.train_grounder`)."""
    ys, xs = np.nonzero(component)
    w, h = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
    side = max(w, h)
    name = f"{name} " if name else ""
    if side < SIDE_MIN or side > SIDE_MAX:
        return None, f"a {name}blob of {w}x{h} pixels fits no size"
    if max(w, h) / min(w, h) > ASPECT_MAX:
        return None, f"a {name}blob of {w}x{h} pixels is too elongated for any shape"
    fill = len(xs) / float(w * h)
    shape = classify(fill, (ys.mean() - (ys.min() + ys.max()) / 2) / h)
    if shape is None:
        return None, f"a {name}blob fills {fill:.2f} of its box: no shape fits"
    return shape, ""


def components(label: np.ndarray, names: list[str]):
    """Every 8-connected component of each palette colour's pixels in ``label`` (:func:`palette_labels`), as ``(colour name,
    boolean mask)``, colour by colour in palette order: the pieces :func:`read` sorts into objects and fragments."""
    from scipy import ndimage

    for k, name in enumerate(names[1:], start=1):
        comps, n = ndimage.label(label == k, structure=np.ones((3, 3)))
        for c in range(1, n + 1):
            yield name, comps == c


def objects_of(image: Image.Image) -> list[tuple[str, np.ndarray]]:
    """The image's palette blobs of at least :data:`MIN_AREA` pixels, as ``(colour name, boolean mask)``: what
    :func:`reading_under` compares a grounder's masks with."""
    label, names = palette_labels(np.asarray(image.convert("RGB"), dtype=np.float32))
    return [(name, c) for name, c in components(label, names) if c.sum() >= MIN_AREA]


def reading_under(mask: np.ndarray, objects: list[tuple[str, np.ndarray]], min_iou: float = 0.5) -> tuple[str, str | None]:
    """The world's reading of the object under a grounder's ``mask``: the blob of ``objects`` (:func:`objects_of`) it
    overlaps most, at IoU ``min_iou`` or more, as ``(shape, colour)``, the shape ``blob`` where no shape fits it
    (:func:`blob_shape`); ``("none", None)`` where no blob overlaps it enough."""
    best, reading = 0.0, ("none", None)
    for name, blob in objects:
        iou = float((mask & blob).sum()) / float((mask | blob).sum())
        if iou > best:
            best, reading = iou, (blob_shape(blob, name)[0] or "blob", name)
    return reading if best >= min_iou else ("none", None)


def read(image: Image.Image) -> Reading:
    """The scene an image shows, or an abstention with its reason."""
    image = image.convert("RGB")
    if image.size != (IMAGE_SIZE, IMAGE_SIZE):
        image = image.resize((IMAGE_SIZE, IMAGE_SIZE), Image.BILINEAR)
    arr = np.asarray(image, dtype=np.float32)
    label, names = palette_labels(arr)
    total = float(label.size)
    unknown = float((label == -1).sum()) / total
    if unknown > MAX_UNKNOWN:
        return Reading(None, f"{unknown:.0%} of pixels match no colour")
    objects: list[Obj] = []
    boxes: list[tuple[float, float, float, float]] = []
    fragments = 0
    for name, component in components(label, names):
        ys, xs = np.nonzero(component)
        area = len(xs)
        if area < MIN_AREA:
            fragments += area
            continue
        shape, reason = blob_shape(component, name)
        if shape is None:
            return Reading(None, reason)
        size = "small" if max(xs.max() - xs.min(), ys.max() - ys.min()) + 1 < SIZE_SPLIT else "big"
        objects.append(Obj(shape, name, size, float(xs.min() + xs.max()) / 2, float(ys.min() + ys.max()) / 2))
        boxes.append((float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)))
    if fragments / total > MAX_FRAGMENTS:
        return Reading(None, f"{fragments / total:.0%} of pixels are fragments")
    if len(objects) > MAX_OBJECTS:
        return Reading(None, f"{len(objects)} objects: more than a world scene holds")
    return Reading(Scene(objects), boxes=boxes)


@dataclass
class Fact:
    """One thing a caption asserts, and whether a scene shows it."""

    aspect: str  # entity | attribute | number | relation
    text: str
    holds: bool


@dataclass
class Check:
    facts: list[Fact] = field(default_factory=list)

    @property
    def aligned(self) -> bool:
        return all(f.holds for f in self.facts)

    def failed(self, aspect: str | None = None) -> list[Fact]:
        return [f for f in self.facts if not f.holds and (aspect is None or f.aspect == aspect)]

    def aspects(self) -> set[str]:
        return {f.aspect for f in self.facts}


def shows(image: Image.Image, spec: Spec) -> bool:
    """Whether the oracle reads ``image`` and finds every fact of ``spec`` in it (an abstention is not)."""
    reading = read(image)
    return bool(reading.readable and check(spec, reading.scene).aligned)


def check(spec: Spec, scene: Scene) -> Check:
    """Every fact of ``spec`` checked against ``scene``.

    Per group: the shape is there (entity); an object of the shape with the group's colour (and size,
    when said) is there (attribute); exactly ``count`` such objects (number). The relation holds
    between some object of each side (relation). Objects no group describes are extra (entity).
    """
    facts: list[Fact] = []
    for g in spec.groups:
        desc = g.phrase()
        facts.append(Fact("entity", f"there is a {g.shape}", any(o.shape == g.shape for o in scene.objects)))
        if g.color or g.size:
            facts.append(Fact("attribute", f"some {g.shape} is {' '.join(w for w in (g.size, g.color) if w)}",
                              any(g.matches(o) for o in scene.objects)))
        n = sum(g.matches(o) for o in scene.objects)
        facts.append(Fact("number", f"exactly {g.count}: {desc} (seen {n})", n == g.count))
    if spec.relation is not None:
        i, rel, j = spec.relation
        a, b = spec.groups[i], spec.groups[j]
        holds = any(
            relation_holds(x, rel, y)
            for x in scene.objects if a.matches(x)
            for y in scene.objects if b.matches(y) and y is not x
        )
        facts.append(Fact("relation", f"{a.phrase()} {rel} {b.phrase()}", holds))
    extra = [o for o in scene.objects if not any(g.matches(o) for g in spec.groups)]
    facts.append(Fact("entity", "no object the caption does not name" + (f" (extra: {', '.join(o.describe() for o in extra)})" if extra else ""), not extra))
    return Check(facts)
