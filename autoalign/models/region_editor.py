"""The region editor (role ``region_editor``): carries a layout plan out in place, inside masks.

Backend ``diffusers-inpaint``: any diffusers inpainting pipeline through its standard class -
``StableDiffusionInpaintPipeline`` (9-channel inpainting UNets such as
``stable-diffusion-v1-5/stable-diffusion-inpainting``, or a plain 4-channel text-to-image UNet, whose
latents the pipeline blends with the masked original at every step), ``StableDiffusionXLInpaintPipeline``
(``diffusers/stable-diffusion-xl-1.0-inpainting-0.1``) or ``FluxFillPipeline``
(``black-forest-labs/FLUX.1-Fill-dev``) - called as
``pipe(prompt=..., image=..., mask_image=..., generator=..., output_type="pil", **options)``.

Each :class:`~autoalign.types.LayoutOp` becomes masked edits (SLD's operations):

* ``remove``: the source box (grown by ``remove_grow`` pixels; default ``grow``) is filled from its surroundings -
  ``remove = "inpaint"`` asks the pipeline with ``remove_prompt``; ``remove = "fill"`` copies each
  masked pixel from the nearest pixel outside the mask (nearest-neighbour inpainting), then, when
  ``fill_strength`` > 0, the pipeline redraws the mask from that at that strength; with ``remove_reach`` > 0
  the filled mask also takes the object's halo - the pixels unlike the background that touch it, up to
  ``remove_reach`` pixels out - and copies only background pixels (:func:`background_fill`), so a soft object
  a pixel or two larger than its box leaves no rim or cross-shaped streaks (plain backgrounds, as the world's);
* ``add``: the object's phrase (``add_prompt``, a template over ``{phrase}`` and ``{prompt}``) is
  inpainted into the target box (``add = "inpaint"``); or (``add = "paste"``, SLD's addition) the
  pipeline first draws the phrase alone on a whole canvas, the object is cut out of that drawing (the
  largest region that differs from the drawing's border colour by more than ``paste_threshold``:
  a stand-in for a segmenter that works on plain backgrounds only; with ``paste_tries`` > 1 the phrase is
  drawn that many times in one batched call and the drawing whose object is largest - or, with
  ``paste_choose = "clip"``, the one the preset's CLIP matches best with the text - is used), pasted
  into the target box, and redrawn there at ``paste_strength``;
* ``move``: ``remove`` at the source, then ``add`` at the target; or (``move = "paste"``, cut and
  paste) the source box's pixels are pasted into the target box before the source is filled, then
  redrawn at ``paste_strength`` (0: no pipeline call);
* ``recolor`` / ``reshape``: the source box is inpainted with the new phrase, from noise
  (``change_strength = 1``) or from the object as it is (SDEdit, ``change_strength`` < 1)
  (``change = "inpaint"``); or (``change = "paste"``) the old object is removed as ``remove`` says and the
  new phrase is drawn alone and pasted into its box, as an ``add = "paste"`` addition;
* ``recolor`` with ``recolour = "transfer"``: the new phrase is drawn alone as a pasted addition draws it
  (``paste_tries`` drawings, ``paste_choose``), and the drawn object's colour is laid onto the old object
  where it stands (:func:`transfer_colour`), so its outline stays the object's own; where the old object
  cannot be told from its surroundings, or no drawing shows one, the recolour goes as ``change`` says;
* with ``paste_check = "grounder"``, a drawing counts only where the preset's grounder finds the phrase in it
  (``check``, wired by the model cache), so a blob drawn for "green triangle" that reads as a circle is not used;
* with ``compose`` (a vocabulary file of ``prompts/``, as ``[detection] vocabulary``), a phrase none of whose
  drawings shows an object (a colour-shape pair the generator never learnt) is composed from parts: the
  thing drawn in another colour of the vocabulary, the colour drawn on another thing, the thing's pixels
  shifted to that colour, then pasted / transferred as above.

All removals go first (so a move may land where another object was), then recolours, then additions.
Whatever the pipeline does, every pixel outside the masks is copied back from the input, so nothing
outside the masks changes; masks are cut to the image. Sample ``i`` of ``n`` is seeded ``seed + i``
and carries its own image through all operations.

Preset options::

    [region_editor]
    backend = "diffusers-inpaint"
    model = "world:generator"           # or a hub id, a directory, tiny:NAME
    pipeline = "StableDiffusionInpaintPipeline"
    num_inference_steps = 20
    guidance_scale = 4.0
    resolution = 64                     # long side the pipeline works at
    grow = 2                            # pixels added around each box
    remove_grow = 2                     # pixels added around a box whose object is removed (a removal, a move's
                                        # source, a reshape's old object); default: grow
    remove = "fill"                     # "inpaint" | "fill"
    remove_prompt = ""                  # the prompt of an inpainted removal
    remove_reach = 0                    # a filled removal also takes the object's halo up to this many pixels out
                                        # and fills from background pixels only (0: off)
    fill_strength = 0.0                 # a pipeline pass over a filled removal (0: none)
    add_prompt = "{phrase}"             # the prompt of an addition / recolour / reshape
    add = "inpaint"                     # "inpaint" | "paste"
    move = "redraw"                     # "redraw" (remove + add) | "paste" (cut and paste)
    paste_strength = 0.5                # redraw strength over a pasted object (0: none)
    paste_threshold = 60                # colour distance from the border colour that marks the drawn object
    paste_tries = 1                     # drawings per pasted object (one batched call)
    compose = ""                        # a vocabulary file: compose phrases the generator cannot draw
    paste_choose = "largest"            # which drawing: "largest" object, or "clip" (the preset's CLIP, drawing vs text)
    paste_check = "none"                # "grounder": a drawing counts only where the preset's grounder finds the phrase
    change = "inpaint"                  # "inpaint" | "paste" (remove the object, paste a new drawing)
    change_strength = 1.0               # recolour / reshape strength of change = "inpaint" (1: from noise)
    recolour = "redraw"                 # "redraw" (as change says) | "transfer" (the drawn colour on the old outline)
    attributes = false                  # the loop's policy also sends attribute mismatches here
    planner = "triplets"                # the loop's plan: "triplets" (from the layout detector's mismatches),
                                        # "rules" or "llm" (SLD's LLM controller, the preset's [llm]; falls back
                                        # to the rules) from every object the grounder finds
    clear_of = "evidence"               # where the "triplets" plan may add an object: clear of the mismatches'
                                        # evidence boxes ("evidence"), or of every object the grounder finds in the
                                        # image ("objects": a right object nobody complains of is not painted over)
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable

import numpy as np
from PIL import Image, ImageDraw

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.editor import to_rgb, working_size
from autoalign.models.generator import (
    RESERVED_CALL_ARGS,
    call_options,
    check_count,
    check_seed,
    load_pipeline,
    pipeline_class,
)
from autoalign.models.loading import DeviceSpec
from autoalign.types import LayoutOp

logger = logging.getLogger(__name__)

OWN_OPTIONS: frozenset[str] = frozenset(
    {"resolution", "grow", "remove_grow", "remove_reach", "remove", "remove_prompt", "fill_strength", "add_prompt", "add", "move", "paste_strength",
     "paste_threshold", "paste_tries", "paste_choose", "paste_check", "change", "change_strength", "recolour", "attributes",
     "planner", "compose", "clear_of"}
)
RESERVED: frozenset[str] = RESERVED_CALL_ARGS | {"mask_image", "strength"}
REMOVE_MODES = ("inpaint", "fill")
ADD_MODES = ("inpaint", "paste")
MOVE_MODES = ("redraw", "paste")
CHANGE_MODES = ("inpaint", "paste")
RECOLOUR_MODES = ("redraw", "transfer")
#: a drawn "object" smaller than this many pixels (at the drawing's size) is a speck, not the object asked for
MIN_DRAWN_PIXELS = 9
CHOOSE_MODES = ("largest", "clip")
CHECK_MODES = ("none", "grounder")
PLANNERS = ("triplets", "rules", "llm")
CLEAR_MODES = ("evidence", "objects")


def box_mask(xyxy, size: tuple[int, int], grow: float = 0.0) -> Image.Image:
    """A mode-"L" mask of ``size`` (white inside the box grown by ``grow`` pixels), cut to the image."""
    w, h = size
    x0, y0, x1, y1 = (float(v) for v in xyxy)
    x0, y0 = max(0, int(np.floor(x0 - grow))), max(0, int(np.floor(y0 - grow)))
    x1, y1 = min(w, int(np.ceil(x1 + grow))), min(h, int(np.ceil(y1 + grow)))
    mask = Image.new("L", (w, h), 0)
    if x1 > x0 and y1 > y0:
        ImageDraw.Draw(mask).rectangle([x0, y0, x1 - 1, y1 - 1], fill=255)
    return mask


def union(masks: list[Image.Image], size: tuple[int, int]) -> Image.Image:
    out = np.zeros((size[1], size[0]), dtype=np.uint8)
    for m in masks:
        out = np.maximum(out, np.asarray(m, dtype=np.uint8))
    return Image.fromarray(out, "L")


def steps_of(ops: list[LayoutOp], paste_moves: bool = False) -> list[tuple[str, str, Any]]:
    """The plan as ordered masked steps ``(stage, phrase, box)``: removals, then recolours and reshapes, then
    additions.
    With ``paste_moves``, the moves come first as one step (stage ``paste``, ``box`` = a list of
    (source, target, phrase)): every source box is cut, every source filled, every piece pasted."""
    steps: list[tuple[str, str, Any]] = []
    moves = [op for op in ops if op.kind == "move" and op.source is not None and op.target is not None]
    if paste_moves and moves:  # every move at once: cut all, fill all sources, paste all
        steps.append(("paste", "; ".join(op.phrase for op in moves), [(op.source.xyxy, op.target.xyxy, op.phrase) for op in moves]))
    for op in ops:
        if (op.kind == "remove" or (op.kind == "move" and not paste_moves)) and op.source is not None:
            steps.append(("remove", op.phrase, op.source.xyxy))
    for op in ops:
        if op.kind in ("recolor", "reshape") and op.source is not None:
            steps.append((op.kind, op.phrase, op.source.xyxy))
    for op in ops:
        if (op.kind == "add" or (op.kind == "move" and not paste_moves)) and op.target is not None:
            steps.append(("add", op.phrase, op.target.xyxy))
    return steps


def plan_mask(ops: list[LayoutOp], size: tuple[int, int], grow: float = 0.0, remove_grow: float | None = None) -> Image.Image:
    """Every pixel the plan may change (white), for the run directory and the contact sheet: each box grown by
    ``grow``, the source box of a removal, move, recolour or reshape (whose old object may be taken away first) by
    ``remove_grow`` where that is larger (the editor's options; :meth:`InpaintRegionEditor.mask`)."""
    masks = []
    for op in ops:
        for box in (op.source, op.target):
            if box is not None:
                taken = box is op.source and op.kind in ("remove", "move", "recolor", "reshape") and remove_grow is not None
                masks.append(box_mask(box.xyxy, size, max(grow, remove_grow) if taken else grow))
    return union(masks, size)


#: Outline colours of :func:`plan_picture`: what a plan removes, changes or moves away (source) and where it
#: puts an object (target); the letter in a box's corner is the operation's.
PLAN_SOURCE, PLAN_TARGET = (235, 140, 20), (40, 200, 90)
PLAN_LETTER = {"remove": "R", "add": "A", "move": "M", "recolor": "C", "reshape": "C"}


def plan_picture(image: Image.Image, ops: list[LayoutOp], min_side: int = 256) -> Image.Image:
    """``image`` with the plan's boxes drawn on it (enlarged with nearest-neighbour to at least ``min_side``
    pixels): sources in orange, targets in green, each with its operation's letter (R remove, A add, M move,
    C recolour / reshape). The run directory keeps it as ``rounds/rNN/plan.png``; the contact sheet and the
    studio show it."""
    scale = max(1, -(-min_side // max(1, min(image.size))))
    out = image.convert("RGB").resize((image.width * scale, image.height * scale), Image.Resampling.NEAREST)
    draw = ImageDraw.Draw(out)
    w, h = image.size
    for op in ops:
        same_box = op.source is not None and op.target is not None and tuple(op.source.xyxy) == tuple(op.target.xyxy)
        for box, colour in ((op.source, PLAN_SOURCE), (None if same_box else op.target, PLAN_TARGET)):
            if box is None:
                continue  # no box, or a recolour / reshape's target: its own box, drawn once as its source
            x0, y0, x1, y1 = (min(max(float(v), 0.0), float(lim)) * scale for v, lim in zip(box.xyxy, (w, h, w, h)))
            draw.rectangle((x0, y0, max(x0, x1 - 1), max(y0, y1 - 1)), outline=colour, width=max(2, scale * 3 // 4))
            draw.text((x0 + 3, y0 + 2), PLAN_LETTER.get(op.kind, "?"), fill=colour)
    return out


def nearest_fill(image: Image.Image, mask: Image.Image) -> Image.Image:
    """Each masked pixel takes the colour of the nearest pixel outside the mask (nearest-neighbour inpainting)."""
    from scipy import ndimage

    inside = np.asarray(mask) > 127
    if not inside.any() or inside.all():
        return image.copy()
    _, (iy, ix) = ndimage.distance_transform_edt(inside, return_indices=True)
    arr = np.asarray(image.convert("RGB"))
    return Image.fromarray(arr[iy, ix], "RGB")


#: colour levels (0-255, any channel) within which a pixel counts as the background next to a filled removal
BACKGROUND_TOLERANCE = 12


def background_fill(image: Image.Image, mask: Image.Image, reach: int) -> tuple[Image.Image, Image.Image]:
    """A removal filled from the background, for plain backgrounds: ``(filled image, the mask filled)``.

    The background is the median colour of the band ``reach + 2`` pixels wide around ``mask``; a pixel within
    :data:`BACKGROUND_TOLERANCE` of it is background. The mask grows, one pixel at a time and at most ``reach``
    times, over the pixels unlike the background that touch it (the halo of a soft object a pixel or two larger
    than its box), and each masked pixel takes the colour of the nearest background pixel outside it - never
    of a halo or of a neighbouring object, whose colour :func:`nearest_fill` would streak inward. With no
    background pixel near the mask this is :func:`nearest_fill` of ``mask``."""
    from scipy import ndimage

    inside = np.asarray(mask) > 127
    if not inside.any() or inside.all():
        return image.copy(), mask
    arr = np.asarray(image.convert("RGB"))
    square = np.ones((3, 3), dtype=bool)
    band = ndimage.binary_dilation(inside, square, iterations=reach + 2) & ~inside
    colour = np.median(arr[band], axis=0)
    plain = np.abs(arr.astype(np.int16) - colour).max(axis=-1) <= BACKGROUND_TOLERANCE
    for _ in range(reach):
        halo = ndimage.binary_dilation(inside, square) & ~inside & ~plain
        if not halo.any():
            break
        inside = inside | halo
    sources = ~inside & plain
    if not sources.any():
        grown = Image.fromarray(inside.astype(np.uint8) * 255, "L")
        return keep_outside(image, nearest_fill(image, grown), grown), grown
    _, (iy, ix) = ndimage.distance_transform_edt(~sources, return_indices=True)
    out = np.where(inside[..., None], arr[iy, ix], arr)
    return Image.fromarray(out.astype(np.uint8), "RGB"), Image.fromarray(inside.astype(np.uint8) * 255, "L")


def largest_region(arr: np.ndarray, threshold: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The largest connected region of ``arr`` (H x W x 3, float) that differs from the median colour of its
    border by more than ``threshold``, as a boolean mask, with that border colour; None when there is none."""
    from scipy import ndimage

    border = np.concatenate([arr[0], arr[-1], arr[:, 0], arr[:, -1]])
    background = np.median(border, axis=0)
    fg = np.linalg.norm(arr - background, axis=-1) > threshold
    labels, count = ndimage.label(fg)
    if count == 0:
        return None
    sizes = ndimage.sum(fg, labels, range(1, count + 1))
    return labels == int(np.argmax(sizes)) + 1, background


def object_cutout(drawing: Image.Image, threshold: float) -> tuple[Image.Image, Image.Image] | None:
    """The largest region of ``drawing`` that differs from its border colour by more than ``threshold``,
    cropped to its box, with its mask; None when there is none."""
    found = largest_region(np.asarray(drawing.convert("RGB"), dtype=np.float32), threshold)
    if found is None:
        return None
    body, _ = found
    ys, xs = np.nonzero(body)
    box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    mask = Image.fromarray((body * 255).astype(np.uint8), "L").crop(box)
    return drawing.convert("RGB").crop(box), mask


def paste_into(image: Image.Image, piece: Image.Image, piece_mask: Image.Image, xyxy) -> Image.Image:
    """``image`` with ``piece`` (where ``piece_mask`` is white) resized into the box ``xyxy`` (cut to the image)."""
    x0, y0, x1, y1 = (int(round(v)) for v in xyxy)
    w, h = max(1, x1 - x0), max(1, y1 - y0)
    out = image.copy()
    out.paste(piece.resize((w, h), Image.Resampling.NEAREST), (x0, y0), piece_mask.resize((w, h), Image.Resampling.NEAREST))
    return out


def keep_outside(original: Image.Image, edited: Image.Image, mask: Image.Image) -> Image.Image:
    """``edited`` inside ``mask``, ``original`` everywhere else (same size)."""
    if edited.size != original.size:
        edited = edited.resize(original.size, Image.Resampling.LANCZOS)
    return Image.composite(edited.convert("RGB"), original.convert("RGB"), mask)


class InpaintRegionEditor:
    """Layout operations with a diffusers inpainting pipeline; weights load on first use."""

    role = "region_editor"
    default_resolution = 512

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.options = dict(spec.options)
        self.model_id = spec.model
        o = self.options
        self.resolution = o.get("resolution", self.default_resolution)
        if isinstance(self.resolution, bool) or not isinstance(self.resolution, int) or self.resolution < 8:
            raise ConfigError(f"[region_editor] resolution must be an integer >= 8 (got {self.resolution!r})")
        self.grow = self._margin("grow", 0)
        self.remove_grow = self._margin("remove_grow", self.grow)
        self.remove_reach = self._whole("remove_reach", 0, 0, 16)
        self.remove = self._choice("remove", "inpaint", REMOVE_MODES)
        self.fill_strength = self._fraction("fill_strength", 0.0)
        self.remove_prompt = str(o.get("remove_prompt", ""))
        self.add_prompt = str(o.get("add_prompt", "{phrase}"))
        if "{phrase}" not in self.add_prompt and "{prompt}" not in self.add_prompt:
            raise ConfigError("[region_editor] add_prompt must contain {phrase} or {prompt}")
        self.add = self._choice("add", "inpaint", ADD_MODES)
        self.move = self._choice("move", "redraw", MOVE_MODES)
        self.change = self._choice("change", "inpaint", CHANGE_MODES)
        self.paste_strength = self._fraction("paste_strength", 0.5)
        self.planner = self._choice("planner", "triplets", PLANNERS)
        self.clear_of = self._choice("clear_of", "evidence", CLEAR_MODES)
        self.paste_choose = self._choice("paste_choose", "largest", CHOOSE_MODES)
        self.paste_check = self._choice("paste_check", "none", CHECK_MODES)
        #: ``check(images, phrase) -> [shows it?]`` for ``paste_check = "grounder"`` and ``rank(images, text) -> scores``
        #: for ``paste_choose = "clip"``: set by :meth:`wire` from the preset's grounder and CLIP
        self.check: Callable[[list[Image.Image], str], list[bool]] | None = None
        self.rank: Callable[[list[Image.Image], str], list[float]] | None = None
        self.paste_tries = self._whole("paste_tries", 1, 1, 16)
        self.change_strength = self._fraction("change_strength", 1.0)
        self.recolour = self._choice("recolour", "redraw", RECOLOUR_MODES)
        self.paste_threshold = o.get("paste_threshold", 60)
        if isinstance(self.paste_threshold, bool) or not isinstance(self.paste_threshold, (int, float)) or self.paste_threshold <= 0:
            raise ConfigError(f"[region_editor] paste_threshold must be a positive number (got {self.paste_threshold!r})")
        self.compose = str(o.get("compose", "") or "")
        self._words: dict[str, list[str]] | None = None
        if self.compose:
            from autoalign.vocabulary import load as load_vocabulary

            try:
                self._words = load_vocabulary(self.compose)
            except (OSError, ValueError) as exc:
                raise ConfigError(f"[region_editor] compose names no readable vocabulary file in prompts/ ({self.compose!r}: {exc})") from None
        self._pipe = None
        self._call_kwargs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._call_lock = threading.Lock()
        self.calls = 0  # pipeline calls made (the loop's budget counts them)
        self.images = 0  # images those calls drew (paste drawings included; the benchmark's best-of-M counts them)

    def wire(self, cosine: Callable[[list[Image.Image], str], list[float]], grounder: Callable[[], Any]) -> "InpaintRegionEditor":
        """Connect what the settings ask for and the editor does not hold itself: ``cosine(images, text)`` (the
        preset's CLIP) picks among drawings for ``paste_choose = "clip"``, and the grounder backend that ``grounder()``
        returns (called only when a drawing is checked) says whether a drawing shows the phrase at all for
        ``paste_check = "grounder"``. What is already connected stays."""
        if self.paste_choose == "clip" and self.rank is None:
            self.rank = cosine
        if self.paste_check == "grounder" and self.check is None:
            def check(images: list[Image.Image], phrase: str) -> list[bool]:
                found = grounder()
                floor = getattr(found, "blob_floor", 0.0)  # a blob read at the grounder's blob_score is no drawing of it
                return [any(b.score > floor for b in per[0].boxes) for per in found.ground(images, [phrase])]

            self.check = check
        return self

    def _choice(self, name: str, default: str, allowed: tuple[str, ...]) -> str:
        value = self.options.get(name, default)
        if value not in allowed:
            raise ConfigError(f"[region_editor] {name} must be one of {', '.join(allowed)} (got {value!r})")
        return value

    def _margin(self, name: str, default: float) -> float:
        """A mask margin in pixels, from 0 to 64 (``grow``, ``remove_grow``)."""
        value = self.options.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 64:
            raise ConfigError(f"[region_editor] {name} must be a number of pixels from 0 to 64 (got {value!r})")
        return value

    def _whole(self, name: str, default: int, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high`` (``paste_tries``, ``remove_reach``)."""
        value = self.options.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ConfigError(f"[region_editor] {name} must be an integer from {low} to {high} (got {value!r})")
        return value

    def _fraction(self, name: str, default: float) -> float:
        value = self.options.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ConfigError(f"[region_editor] {name} must be from 0 to 1 (got {value!r})")
        return float(value)

    @property
    def pipe(self):
        with self._lock:
            if self._pipe is None:
                if not self.model_id:
                    raise ConfigError("[region_editor] model is not set; give a hub id, a directory or tiny:NAME")
                import diffusers

                cls = pipeline_class(self.options, self.role, diffusers.AutoPipelineForInpainting)
                try:
                    pipe = load_pipeline(cls, self.model_id, self.role, self.device, self.options, self.spec.offload)
                except ValueError as exc:
                    # AutoPipelineForInpainting maps SD / SDXL / Kandinsky... but not FluxFillPipeline (diffusers
                    # 0.42): the class model_index.json names then loads through DiffusionPipeline
                    if cls is not diffusers.AutoPipelineForInpainting or "can't find a pipeline linked to" not in str(exc):
                        raise
                    pipe = load_pipeline(diffusers.DiffusionPipeline, self.model_id, self.role, self.device, self.options,
                                         self.spec.offload)
                self._call_kwargs = call_options(pipe, self.options, self.role, OWN_OPTIONS, RESERVED)
                self._pipe = pipe
            return self._pipe

    def release(self) -> bool:
        with self._lock:
            held, self._pipe = self._pipe is not None, None
            return held

    def _grid(self, pipe) -> int:
        factor = max(8, int(getattr(pipe, "vae_scale_factor", 8)))
        return factor * 2 if getattr(pipe, "transformer", None) is not None else factor

    def _inpaint(self, images: list[Image.Image], mask: Image.Image, text: str, seeds: list[int], strength: float = 1.0):
        """One batched pipeline call: each of ``images`` inpainted inside ``mask`` with ``text``."""
        import inspect

        import torch

        pipe = self.pipe
        size = working_size(images[0].size, self.resolution, self._grid(pipe))
        work = [im.resize(size, Image.Resampling.LANCZOS) if im.size != size else im for im in images]
        work_mask = mask.resize(size, Image.Resampling.NEAREST) if mask.size != size else mask
        kwargs = dict(self._call_kwargs)
        params = inspect.signature(pipe.__call__).parameters
        for key, value in (("width", size[0]), ("height", size[1])):
            if key in params:
                kwargs.setdefault(key, value)
        if strength < 1.0:
            kwargs["strength"] = strength
        with self._call_lock:
            out = pipe(
                prompt=[text] * len(work),
                image=work,
                mask_image=[work_mask] * len(work),
                generator=[torch.Generator("cpu").manual_seed(s) for s in seeds],
                output_type="pil",
                **kwargs,
            )
        self.calls += 1
        self.images += len(work)
        return [keep_outside(im, e, mask) for im, e in zip(images, out.images)]

    def mask(self, ops: list[LayoutOp], size: tuple[int, int]) -> Image.Image:
        """Every pixel :meth:`edit` may change for the plan ``ops`` (with this editor's ``grow`` / ``remove_grow``;
        the halo a fill may take, ``remove_reach``, included: a pasted move's source is filled whatever ``remove``
        says)."""
        return plan_mask(ops, size, self.grow, self.remove_grow + self.remove_reach)

    def edit(self, image: Image.Image, ops: list[LayoutOp], n: int, seed: int, prompt: str = "") -> list[Image.Image]:
        """``n`` versions of ``image`` with the plan ``ops`` carried out (sample ``i`` seeded ``seed + i``),
        each of the input's size, identical to the input outside the plan's masks."""
        if not isinstance(image, Image.Image):
            raise InputError(f"image must be a PIL image (got {type(image).__name__})")
        if not all(isinstance(op, LayoutOp) for op in ops):
            raise InputError("ops must be LayoutOp values")
        n, seed = check_count(n), check_seed(seed)
        source = to_rgb(image)
        current = [source.copy() for _ in range(n)]
        seeds = [seed + i for i in range(n)]
        for k, (stage, phrase, box) in enumerate(steps_of(ops, paste_moves=self.move == "paste")):
            step_seeds = [s + 7919 * k for s in seeds]
            if stage == "paste":
                current = self._paste_moves(current, box, prompt, step_seeds)
                continue
            mask = box_mask(box, source.size, self.remove_grow if stage == "remove" else self.grow)
            if not np.asarray(mask).any():
                logger.info("region editor: the %s box %s lies outside the image; skipped", stage, box)
                continue
            if stage == "remove":
                current = self._remove(current, mask, step_seeds)
            elif stage == "recolor" and self.recolour == "transfer":
                current = self._transfer(current, box, mask, phrase, prompt, step_seeds)
            elif stage in ("recolor", "reshape"):
                current = self._change(current, box, mask, phrase, prompt, step_seeds)
            elif self.add == "paste":
                current = self._paste_add(current, box, mask, phrase, prompt, step_seeds)
            else:
                current = self._inpaint(current, mask, self._text(phrase, prompt), step_seeds)
        return current

    def _change(self, images, box, mask, phrase, prompt, seeds):
        """A recolour or reshape as ``change`` says: the old object removed and a fresh drawing pasted (where
        no drawing shows one, the image is kept as it was), or the box inpainted at ``change_strength``."""
        if self.change == "paste":
            gone = box_mask(box, images[0].size, self.remove_grow)
            return self._paste_add(self._remove(images, gone, seeds), box, union([mask, gone], images[0].size), phrase,
                                   prompt, seeds, fallback=images)
        return self._inpaint(images, mask, self._text(phrase, prompt), seeds, self.change_strength)

    def _remove(self, images: list[Image.Image], mask: Image.Image, seeds: list[int]) -> list[Image.Image]:
        """What is inside ``mask`` removed, as ``remove`` says."""
        if self.remove == "inpaint":
            return self._inpaint(images, mask, self.remove_prompt, seeds)
        filled = [self._fill(im, mask) for im in images]
        out = [im for im, _ in filled]
        if self.fill_strength > 0:
            out = self._inpaint(out, union([m for _, m in filled], images[0].size), self.remove_prompt, seeds, self.fill_strength)
        return out

    def _fill(self, image: Image.Image, mask: Image.Image) -> tuple[Image.Image, Image.Image]:
        """``mask`` filled from its surroundings (``remove = "fill"``): ``(image, the mask filled)``."""
        if self.remove_reach > 0:
            return background_fill(image, mask, self.remove_reach)
        return keep_outside(image, nearest_fill(image, mask), mask), mask

    def _text(self, phrase: str, prompt: str) -> str:
        return self.add_prompt.format(phrase=phrase, prompt=prompt or phrase)

    def _paste_moves(self, images, moves, prompt, seeds):
        size = images[0].size
        out = []
        for im in images:
            pieces = [(im.crop(box_mask(src, size).getbbox() or (0, 0, 1, 1)), src, dst) for src, dst, _ in moves]
            filled = im
            for _, src, _ in pieces:
                filled, _ = self._fill(filled, box_mask(src, size, self.remove_grow))
            for piece, _, dst in pieces:
                cx, cy = (dst[0] + dst[2]) / 2, (dst[1] + dst[3]) / 2
                at = (cx - piece.width / 2, cy - piece.height / 2, cx + piece.width / 2, cy + piece.height / 2)
                filled = paste_into(filled, piece, Image.new("L", piece.size, 255), at)
            out.append(filled)
        if self.paste_strength > 0:
            for k, (_, dst, phrase) in enumerate(moves):
                out = self._inpaint(out, box_mask(dst, size, self.grow), self._text(phrase, prompt), [s + k for s in seeds],
                                    self.paste_strength)
        return out

    def _drawn_objects(self, images, phrase, prompt, seeds, compose: bool = True):
        """Per image, the object cut out of ``phrase`` drawn alone ``paste_tries`` times (one batched call for
        all images): the drawing the ranker prefers (``paste_choose = "clip"``) or the largest object; where no
        drawing shows one, the phrase composed from parts (:meth:`_composed`, option ``compose``), else None."""
        size = images[0].size
        full = Image.new("L", size, 255)
        k = self.paste_tries
        canvases = [im for im in images for _ in range(k)]
        drawings = self._inpaint(canvases, full, self._text(phrase, prompt), [s + 1 + 104729 * t for s in seeds for t in range(k)])
        shows = [True] * len(drawings)
        if self.paste_check == "grounder":
            if self.check is None:
                raise ConfigError('[region_editor] paste_check = "grounder" needs the preset\'s [grounder] role')
            shows = self.check(drawings, phrase)
        chosen = []
        for i in range(len(images)):
            mine = drawings[i * k:(i + 1) * k]
            cuts = [(j, c) for j, c in enumerate(object_cutout(d, self.paste_threshold) for d in mine)
                    if c is not None and shows[i * k + j] and np.count_nonzero(np.asarray(c[1])) >= MIN_DRAWN_PIXELS]
            if self.paste_choose == "clip" and len(cuts) > 1:
                if self.rank is None:
                    raise ConfigError('[region_editor] paste_choose = "clip" needs the preset\'s [clip] role')
                scores = self.rank([mine[j] for j, _ in cuts], self._text(phrase, prompt))
                chosen.append(cuts[int(np.argmax(scores))][1])
            else:
                chosen.append(max((c for _, c in cuts), key=lambda c: int(np.count_nonzero(np.asarray(c[1]))), default=None))
            if chosen[-1] is None:
                logger.info("region editor: the drawing of %r shows no object", phrase)
        missing = [i for i, c in enumerate(chosen) if c is None]
        if compose and missing and self._words is not None:
            for i, cut in zip(missing, self._composed([images[i] for i in missing], phrase, prompt, [seeds[i] for i in missing])):
                chosen[i] = cut
        return chosen

    def _composed(self, images, phrase, prompt, seeds):
        """``phrase`` composed from parts the generator can draw, per image a cut-out or None: the thing drawn in
        another colour of the ``compose`` vocabulary and the colour drawn on another thing (the first of each,
        in the vocabulary's order, whose drawing shows an object), the thing's pixels then shifted to that
        colour. For a colour-shape pair the generator never learnt (the shapes world's held-out red triangle,
        which it draws as an empty canvas)."""
        from autoalign.inflect import singular

        words = phrase.lower().split()
        things, palette = self._words["things"], self._words["colors"]
        at_thing = next((k for k in range(len(words) - 1, -1, -1) if singular(words[k]) in things), None)
        at_colour = next((k for k, w in enumerate(words) if w in palette), None)
        if at_thing is None or at_colour is None:
            return [None] * len(images)
        thing, colour = singular(words[at_thing]), words[at_colour]

        def swapped(k: int, word: str) -> str:
            return " ".join(word if j == k else w for j, w in enumerate(words))

        shapes_ = self._first_drawn(images, [swapped(at_colour, c) for c in palette if c != colour], prompt, seeds)
        colours = self._first_drawn(images, [swapped(at_thing, t) for t in things if t != thing], prompt, seeds)
        out = []
        for cut, paint in zip(shapes_, colours):
            new = object_colour(*paint) if paint is not None else None
            if cut is None or new is None:
                out.append(None)
                continue
            piece, piece_mask = cut
            arr = np.asarray(piece, dtype=np.float32)
            inside = np.asarray(piece_mask) > 127
            arr[inside] += np.asarray(new, dtype=np.float32) - object_colour(piece, piece_mask)
            out.append((Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB"), piece_mask))
        logger.info("region editor: %r composed from parts in %d of %d samples", phrase,
                    sum(c is not None for c in out), len(out))
        return out

    def _first_drawn(self, images, phrases, prompt, seeds, rounds: int = 2):
        """Per image, the cut-out of the first of ``phrases`` whose drawing shows an object (None: none did in
        ``rounds`` passes over them, each with other seeds); each phrase is drawn only for the images still
        without one."""
        found: list[Any] = [None] * len(images)
        for r in range(rounds):
            for phrase in phrases:
                todo = [i for i, c in enumerate(found) if c is None]
                if not todo:
                    return found
                for i, cut in zip(todo, self._drawn_objects([images[i] for i in todo], phrase, prompt,
                                                            [seeds[i] + 15485863 * (r + 1) for i in todo], compose=False)):
                    found[i] = cut
        return found

    def _paste_add(self, images, box, mask, phrase, prompt, seeds, fallback=None):
        """``phrase`` drawn alone and the chosen object (:meth:`_drawn_objects`) pasted into ``box``; where no
        drawing shows one, ``fallback``'s image (or the input) is kept."""
        out = []
        for i, (im, cut) in enumerate(zip(images, self._drawn_objects(images, phrase, prompt, seeds))):
            if cut is None:
                out.append(fallback[i] if fallback is not None else im)
                continue
            piece, piece_mask = cut
            out.append(keep_outside(im, paste_into(im, piece, piece_mask, box), mask))
        if self.paste_strength > 0:
            out = self._inpaint(out, mask, self._text(phrase, prompt), seeds, self.paste_strength)
        return out

    def _transfer(self, images, box, mask, phrase, prompt, seeds):
        """``recolour = "transfer"``: the colour of ``phrase``'s drawn object laid onto the old object in ``box``
        (:func:`transfer_colour`); an image whose old object or drawing shows no colour is recoloured as
        ``change`` says instead (:meth:`_change`)."""
        out, redraw = [], []
        for i, (im, cut) in enumerate(zip(images, self._drawn_objects(images, phrase, prompt, seeds))):
            done = transfer_colour(im, box, object_colour(*cut), self.paste_threshold) if cut is not None else None
            out.append(None if done is None else keep_outside(im, done, mask))
            if done is None:
                redraw.append(i)
        if redraw:
            logger.info("region editor: no colour to transfer for %r in %d of %d samples; redrawn as change = %r",
                        phrase, len(redraw), len(images), self.change)
            again = self._change([images[i] for i in redraw], box, mask, phrase, prompt, [seeds[i] for i in redraw])
            for i, im in zip(redraw, again):
                out[i] = im
        return out


def object_colour(piece: Image.Image, piece_mask: Image.Image) -> np.ndarray | None:
    """The mean RGB of a cut-out object's inner pixels (its mask shrunk by one pixel, so anti-aliased edges do
    not count; the whole mask when it is too thin for that)."""
    from scipy import ndimage

    inside = np.asarray(piece_mask) > 127
    inner = ndimage.binary_erosion(inside)
    use = inner if inner.any() else inside
    if not use.any():
        return None
    return np.asarray(piece.convert("RGB"), dtype=np.float32)[use].mean(axis=0)


def transfer_colour(image: Image.Image, xyxy, colour: np.ndarray | None, threshold: float,
                    margin: int = 3) -> Image.Image | None:
    """``image`` with the object in box ``xyxy`` recoloured to ``colour`` in place, or None when there is no
    object to recolour.

    The old object is the largest region of the box (grown by ``margin`` pixels) that differs from the grown
    box's border colour by more than ``threshold``, with the pixels around it; each pixel moves toward the new
    colour by how far it lies from the background toward the old object's colour (its coverage, 0 to 1), so
    soft edges stay soft and no rim of the old colour is left. Every pixel outside the grown box is kept.
    A colour transfer in the spirit of Reinhard et al. (2001), restricted to one object's mask: a stand-in for
    a segmenter that works on plain backgrounds, as :func:`object_cutout` is."""
    from scipy import ndimage

    if colour is None:
        return None
    w, h = image.size
    x0, y0, x1, y1 = (int(round(float(v))) for v in xyxy)
    x0, y0, x1, y1 = max(0, x0 - margin), max(0, y0 - margin), min(w, x1 + margin), min(h, y1 + margin)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    arr = np.asarray(image.convert("RGB"), dtype=np.float32)
    crop = arr[y0:y1, x0:x1]
    found = largest_region(crop, threshold)
    if found is None:
        return None
    body, background = found
    inner = ndimage.binary_erosion(body)
    old = crop[inner if inner.any() else body].mean(axis=0)
    span = old - background
    if float(span @ span) < threshold ** 2:
        return None
    coverage = np.clip(((crop - background) @ span) / float(span @ span), 0.0, 1.0)
    coverage *= ndimage.binary_dilation(body, iterations=2)  # the object and its soft rim only
    out = arr.copy()
    out[y0:y1, x0:x1] = np.clip(crop + coverage[..., None] * (np.asarray(colour, dtype=np.float32) - old), 0, 255)
    return Image.fromarray(np.round(out).astype(np.uint8), "RGB")
