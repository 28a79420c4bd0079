"""Scenes to pixels and back: :func:`render_scene` draws a scene so that :func:`decode_scene` reads it
back from the pixels alone (one disc per object instance in a grid cell, a pixel header per cell)."""

from __future__ import annotations

import logging

from PIL import Image, ImageDraw

from autoalign.doubles.scene.parsing import Scene, SceneObject, default_colour
from autoalign.doubles.scene.words import COLOURS, RELATION_CODES

logger = logging.getLogger(__name__)

CELL = 32
BACKGROUND = (236, 232, 220)
_MAGIC = (7, 77, 177)


def _pack(text: str) -> list[tuple[int, int, int]]:
    data = [min(ord(ch), 255) for ch in text]
    data += [0] * (-len(data) % 3)
    return [tuple(data[i : i + 3]) for i in range(0, len(data), 3)]  # type: ignore[misc]


def render_scene(scene: Scene, size: tuple[int, int] = (128, 128)) -> Image.Image:
    """Draw a scene: one disc per instance in a 32x32 cell, with a pixel header naming the object."""
    width, height = size
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    cols, rows = max(1, width // CELL), max(1, height // CELL)
    slots = [(c * CELL, r * CELL) for r in range(rows) for c in range(cols)]
    instances = [obj for obj in scene for _ in range(max(0, obj.count or 0))]
    if len(instances) > len(slots):
        logger.warning("scene double: %d objects do not fit a %dx%d canvas; drawing %d", len(instances), width, height, len(slots))
    pixels = image.load()
    for obj, (x0, y0) in zip(instances, slots):
        fill = COLOURS[obj.colour or default_colour(obj.name)]
        draw.ellipse([x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4], fill=fill, outline=(60, 60, 60))
        rel, other = obj.relation or ("", "")
        name, other = obj.name[:40], other[:40]
        header = [_MAGIC, (len(name), len(other), RELATION_CODES.index(rel) if rel in RELATION_CODES else 0)]
        header += _pack(name + other)
        for i, px in enumerate(header[:CELL]):
            pixels[x0 + i, y0] = px
    return image


def _nearest_colour(rgb: tuple[int, int, int]) -> str:
    return min(COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in zip(COLOURS[n], rgb)))


def decode_scene(image: Image.Image) -> Scene:
    """Read a scene back from an image drawn by :func:`render_scene` (empty for any other image)."""
    image = image.convert("RGB")
    pixels = image.load()
    width, height = image.size
    counts: dict[tuple[str, str, tuple[str, str] | None], int] = {}
    order: list[tuple[str, str, tuple[str, str] | None]] = []
    for y0 in range(0, height - CELL + 1, CELL):
        for x0 in range(0, width - CELL + 1, CELL):
            if pixels[x0, y0] != _MAGIC:
                continue
            n_name, n_other, rel_code = pixels[x0 + 1, y0]
            chars: list[int] = []
            for i in range(2, CELL):
                chars.extend(pixels[x0 + i, y0])
            text = "".join(chr(c) for c in chars[: n_name + n_other])
            name, other = text[:n_name], text[n_name:]
            colour = _nearest_colour(pixels[x0 + CELL // 2, y0 + CELL // 2])
            relation = (RELATION_CODES[rel_code], other) if rel_code and other else None
            key = (name, colour, relation)
            if key not in counts:
                order.append(key)
                counts[key] = 0
            counts[key] += 1
    return [SceneObject(name=k[0], colour=k[1], count=counts[k], relation=k[2]) for k in order]
