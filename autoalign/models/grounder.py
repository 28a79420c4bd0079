"""Object grounding (role ``grounder``): for each image and each object phrase, the boxes that show it.

``ground(images, phrases) -> list[list[Grounding]]`` (per image, per phrase, in the phrases' order);
each :class:`~autoalign.types.Grounding` holds the phrase's boxes best first, already thresholded, in
pixels of the input image (``xyxy``, ``x1``/``y1`` exclusive), with a score in [0, 1] and, when the
model gives one, the mask as a boolean array in memory (``Box.mask_array``; the trace writes a file).

Backends, all through transformers' standard classes (so hub checkpoints and the tiny / world ones
share one code path):

* ``owlv2`` - ``Owlv2ForObjectDetection`` + ``Owlv2Processor`` (``google/owlv2-base-patch16-ensemble``).
  Every phrase is one text query of every image; ``post_process_grounded_object_detection`` gives
  sigmoid scores and boxes relative to the **padded square** image OWLv2 sees (its processor pads at
  the bottom and right), so the target size is ``(max(h, w), max(h, w))`` and boxes are then clipped
  to the image. OWLv2 applies no NMS; boxes of one phrase overlapping above ``nms_iou`` are merged
  (torchvision's ``nms``). Threshold default 0.1, as the model card's example; ``max_boxes`` per phrase.
* ``grounding-dino`` - ``AutoModelForZeroShotObjectDetection`` + ``AutoProcessor``
  (``IDEA-Research/grounding-dino-tiny``). One phrase per forward pass (lower-cased, ending in ``.``, as
  the model card asks), so a box's phrase is never guessed from token spans;
  ``post_process_grounded_object_detection(outputs, input_ids, threshold, text_threshold, target_sizes)``
  with the card's 0.4 / 0.3 (``threshold`` / ``text_threshold`` options); boxes in pixels of the image.
* ``segformer`` - ``SegformerForSemanticSegmentation`` + ``AutoImageProcessor``: a semantic-segmentation
  model read into instances. Logits are resized to the image (bilinear, as
  ``post_process_semantic_segmentation``), each pixel takes its label, and the connected components
  (``scipy.ndimage.label``, 8-connected) of a label are its instances, with a box, a mask and the mean
  probability as score. A phrase matches a label when one of its words is the label's name (a plural
  ``s`` dropped). When the config has ``label_groups`` (the world's grounder: a ``shape`` group whose
  label 0 is the background, and a ``color`` group), each group is a softmax of its own: an instance is
  a component of non-background pixels with its majority shape and colour, and a phrase names a shape
  and optionally a colour. ``world:grounder`` is such a model (:mod:`autoalign.world.training.train_grounder`).
  A folder that also holds a shape head (:mod:`autoalign.models.shape_head`, round 28; the committed weights have one
  since round 29) names each instance's shape from its whole mask instead of the pixels' majority vote (option
  ``shape_head = 0``: the majority vote, whatever the folder holds). With ``head_score = 1`` such an instance's score
  is the head's probability of the shape it names times the colour's mean probability, the confidence of the
  reading it reports (0: the majority shape's mean probability times the colour's, whichever shape the head names).
  Either way a box of a shape the head names carries that head score as ``Box.head_score`` (the layout detector's
  ``unseen_score`` reads it).
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any, Sequence

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.models.loading import DeviceSpec, resolve_model
from autoalign.types import Box, Grounding

logger = logging.getLogger(__name__)

#: Words a phrase may start with that no detector should read as the object ("a", "two", ...).
LEADING = {"a", "an", "the", "one", "two", "three", "four", "five", "six", "some", "several", "many"}


def _num(options: dict[str, Any], key: str, default: float, lo: float, hi: float, integer: bool = False) -> Any:
    value = options.get(key, default)
    kind = int if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not lo <= value <= hi:
        raise ConfigError(f"[grounder] {key} must be a {'whole ' if integer else ''}number in [{lo}, {hi}] (got {value!r})")
    return value


def object_words(phrase: str) -> list[str]:
    """The phrase's lower-case words without a leading article or count ("two red circles" -> red, circles)."""
    words = re.findall(r"[a-z]+", phrase.lower())
    while words and words[0] in LEADING:
        words = words[1:]
    return words


def query_text(phrase: str) -> str:
    """What a zero-shot detector is asked for a phrase: its words without article or count."""
    return " ".join(object_words(phrase)) or phrase.strip().lower()


def _clip_box(box: Sequence[float], width: int, height: int) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = (float(v) for v in box)
    w, h = float(width), float(height)
    return (min(max(x0, 0.0), w), min(max(y0, 0.0), h), min(max(x1, 0.0), w), min(max(y1, 0.0), h))


def _nms(boxes: list[Box], iou: float) -> list[Box]:
    """``boxes`` without the lower-scored ones that overlap a kept one above ``iou`` (best first)."""
    if len(boxes) < 2 or iou >= 1.0:
        return sorted(boxes, key=lambda b: -b.score)
    import torch
    from torchvision.ops import nms

    t = torch.tensor([b.xyxy for b in boxes], dtype=torch.float32)
    s = torch.tensor([b.score for b in boxes], dtype=torch.float32)
    keep = nms(t, s, iou).tolist()
    return [boxes[i] for i in keep]


class TransformersGrounder:
    """What the backends share: options, lazy loading on the role's device, ``release()``."""

    role = "grounder"
    default_model: str | None = None
    OPTIONS: dict[str, tuple[float, float, float]] = {}  # name -> (default, lo, hi)
    INT_OPTIONS: dict[str, tuple[int, int, int]] = {"max_boxes": (10, 1, 100), "batch_size": (8, 1, 256)}

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.model_id = spec.model or self.default_model
        allowed = set(self.OPTIONS) | set(self.INT_OPTIONS)
        unknown = sorted(set(spec.options) - allowed)
        if unknown:
            raise ConfigError(f"[grounder] unknown option(s) {', '.join(unknown)} for backend {spec.backend!r}; "
                              f"allowed: {', '.join(sorted(allowed))}")
        self.opts: dict[str, Any] = {k: _num(spec.options, k, *v) for k, v in self.OPTIONS.items()}
        self.opts.update({k: _num(spec.options, k, *v, integer=True) for k, v in self.INT_OPTIONS.items()})
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def _load_model(self, path: str) -> tuple[Any, Any]:
        raise NotImplementedError

    def load(self) -> tuple[Any, Any]:
        """(processor, model), loaded once on first use."""
        with self._lock:
            if self._loaded is None:
                from autoalign.models.hf_logging import quiet_hf_progress

                path = resolve_model(self.model_id or "", "grounder")
                with quiet_hf_progress():
                    processor, model = self._load_model(path)
                model.to(self.device.device).eval()
                self._loaded = (processor, model)
            return self._loaded

    def release(self) -> bool:
        """Drop the weights (``sequential`` loading); True when something was loaded."""
        with self._lock:
            had = self._loaded is not None
            self._loaded = None
            return had

    def ground(self, images: Sequence[Image.Image], phrases: Sequence[str]) -> list[list[Grounding]]:
        images = [im.convert("RGB") for im in images]
        phrases = list(phrases)
        if not images or not phrases:
            return [[Grounding(p) for p in phrases] for _ in images]
        out: list[list[Grounding]] = []
        size = self.opts["batch_size"]
        for start in range(0, len(images), size):
            out.extend(self._ground_batch(images[start:start + size], phrases))
        return out

    def _ground_batch(self, images: list[Image.Image], phrases: list[str]) -> list[list[Grounding]]:
        raise NotImplementedError

    def _finish(self, phrase: str, boxes: list[Box]) -> Grounding:
        boxes = [b for b in boxes if b.score >= self.opts["threshold"] and b.xyxy[2] > b.xyxy[0] and b.xyxy[3] > b.xyxy[1]]
        kept = _nms(boxes, self.opts.get("nms_iou", 1.0))
        return Grounding(phrase, kept[: self.opts["max_boxes"]])


class Owlv2Grounder(TransformersGrounder):
    """OWLv2 open-vocabulary detection (module docstring)."""

    default_model = "google/owlv2-base-patch16-ensemble"
    OPTIONS = {"threshold": (0.1, 0.0, 1.0), "nms_iou": (0.3, 0.0, 1.0)}

    def _load_model(self, path: str) -> tuple[Any, Any]:
        from transformers import Owlv2ForObjectDetection, Owlv2Processor

        return Owlv2Processor.from_pretrained(path), Owlv2ForObjectDetection.from_pretrained(path, dtype=self.device.torch_dtype)

    def _ground_batch(self, images: list[Image.Image], phrases: list[str]) -> list[list[Grounding]]:
        import torch

        processor, model = self.load()
        queries = [query_text(p) for p in phrases]
        inputs = processor(text=[queries] * len(images), images=images, return_tensors="pt")
        inputs = {k: (v.to(model.device, model.dtype) if v.is_floating_point() else v.to(model.device)) for k, v in inputs.items()}
        with torch.inference_mode():
            outputs = model(**inputs)
        sides = [max(im.size) for im in images]  # boxes are relative to the padded square image
        results = processor.post_process_grounded_object_detection(
            outputs, threshold=0.0, target_sizes=[(s, s) for s in sides], text_labels=[queries] * len(images))
        out = []
        for im, res in zip(images, results):
            per: list[list[Box]] = [[] for _ in phrases]
            for box, score, label in zip(res["boxes"].float().tolist(), res["scores"].float().tolist(), res["labels"].tolist()):
                per[int(label)].append(Box(_clip_box(box, *im.size), float(score), phrases[int(label)]))
            out.append([self._finish(p, b) for p, b in zip(phrases, per)])
        return out


class GroundingDinoGrounder(TransformersGrounder):
    """Grounding DINO (module docstring)."""

    default_model = "IDEA-Research/grounding-dino-tiny"
    OPTIONS = {"threshold": (0.4, 0.0, 1.0), "text_threshold": (0.3, 0.0, 1.0), "nms_iou": (0.5, 0.0, 1.0)}

    def _load_model(self, path: str) -> tuple[Any, Any]:
        from transformers import AutoModelForZeroShotObjectDetection, AutoProcessor

        return AutoProcessor.from_pretrained(path), AutoModelForZeroShotObjectDetection.from_pretrained(path, dtype=self.device.torch_dtype)

    def _ground_batch(self, images: list[Image.Image], phrases: list[str]) -> list[list[Grounding]]:
        import torch

        processor, model = self.load()
        per_image: list[list[Grounding]] = [[] for _ in images]
        for phrase in phrases:
            text = query_text(phrase).rstrip(".") + "."
            inputs = processor(images=images, text=[text] * len(images), return_tensors="pt")
            inputs = {k: (v.to(model.device, model.dtype) if v.is_floating_point() else v.to(model.device)) for k, v in inputs.items()}
            with torch.inference_mode():
                outputs = model(**inputs)
            results = processor.post_process_grounded_object_detection(
                outputs, inputs["input_ids"], threshold=self.opts["threshold"], text_threshold=self.opts["text_threshold"],
                target_sizes=[(im.height, im.width) for im in images])
            for i, (im, res) in enumerate(zip(images, results)):
                boxes = [Box(_clip_box(b, *im.size), float(s), phrase)
                         for b, s in zip(res["boxes"].float().tolist(), res["scores"].float().tolist())]
                per_image[i].append(self._finish(phrase, boxes))
        return per_image


class SegformerGrounder(TransformersGrounder):
    """A semantic-segmentation model read into instances (module docstring)."""

    default_model = None
    # min_area: a fraction of the image; blob_score > 0: an instance the shape head calls a blob (an object no shape
    # fits) is read with the pixels' majority shape and this score, so set it between threshold and the layout's sure
    OPTIONS = {"threshold": (0.3, 0.0, 1.0), "min_area": (0.003, 0.0, 1.0), "blob_score": (0.0, 0.0, 1.0)}
    # drop_blobs = 1: an instance the shape head (when the model has one) calls a blob or no object is not read at all
    # (with blob_score, a blob is read as above and only "none" is dropped);
    # shape_head = 0: the folder's shape head is not used (each instance keeps the pixels' majority shape);
    # head_score = 1: a shape the head names is scored by the head (module docstring)
    INT_OPTIONS = {**TransformersGrounder.INT_OPTIONS, "drop_blobs": (0, 0, 1), "shape_head": (1, 0, 1),
                   "head_score": (0, 0, 1)}
    _head: Any = None

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        super().__init__(spec, device)
        if 0 < self.opts["blob_score"] < self.opts["threshold"]:
            raise ConfigError(f"[grounder] blob_score {self.opts['blob_score']} is below threshold {self.opts['threshold']}: "
                              "a blob would never be read; set it at least as high (or 0 to turn it off)")

    @property
    def blob_floor(self) -> float:
        """The score a blob is read at (``blob_score``; 0 when off): a box scoring no higher is found, not shown for
        sure, so the region editor's ``paste_check`` does not take a drawing of a blob for a drawing of the phrase."""
        return float(self.opts["blob_score"])

    def _load_model(self, path: str) -> tuple[Any, Any]:
        from transformers import AutoImageProcessor, SegformerForSemanticSegmentation

        from autoalign.models import shape_head

        self._head = shape_head.load(path) if self.opts["shape_head"] else None  # None for a folder without one, or a hub id
        return AutoImageProcessor.from_pretrained(path), SegformerForSemanticSegmentation.from_pretrained(path, dtype=self.device.torch_dtype)

    def labels(self) -> dict[int, str]:
        _, model = self.load()
        return {int(k): str(v) for k, v in model.config.id2label.items()}

    def nouns(self) -> list[str] | None:
        """The things this model tells apart, when it is a closed vocabulary of objects (``label_groups``), else None."""
        _, model = self.load()
        groups = getattr(model.config, "label_groups", None)
        return [model.config.id2label[i] for i in groups["shape"][1:]] if groups else None

    def colors(self) -> list[str] | None:
        """The colours it tells apart (``label_groups``'s ``color`` group), else None."""
        _, model = self.load()
        groups = getattr(model.config, "label_groups", None)
        return [model.config.id2label[i] for i in groups["color"]] if groups else None

    def vocabulary(self) -> set[str]:
        """The words this model can ground (its label names)."""
        return {w for name in self.labels().values() for w in re.findall(r"[a-z]+", name.lower())}

    def _ground_batch(self, images: list[Image.Image], phrases: list[str]) -> list[list[Grounding]]:
        _, model = self.load()
        return [[self._finish(p, self._match(p, instances, model.config)) for p in phrases]
                for instances in self.read_instances(images)]

    def read_instances(self, images: list[Image.Image]) -> list[list[dict[str, Any]]]:
        """Per image, the instances the model reads (:meth:`_instances`: labels, mask, score, box)."""
        import torch
        import torch.nn.functional as F

        processor, model = self.load()
        inputs = processor(images=images, return_tensors="pt")
        pixels = inputs["pixel_values"].to(model.device, model.dtype)
        with torch.inference_mode():
            logits = model(pixel_values=pixels).logits.float()
        out = []
        for i, im in enumerate(images):
            # upsampled where the model ran, read on the host (numpy and scipy post-processing below)
            lg = F.interpolate(logits[i:i + 1], size=(im.height, im.width), mode="bilinear", align_corners=False)[0].cpu()
            out.append(self._instances(lg, model.config))
        return out

    def _instances(self, logits, config) -> list[dict[str, Any]]:
        """Connected components with their labels (by group), mask, box and score."""
        import numpy as np
        from scipy import ndimage

        groups = getattr(config, "label_groups", None)
        h, w = logits.shape[-2:]
        min_area = max(1, int(round(self.opts["min_area"] * h * w)))
        found = []
        if groups:
            shape_ids, color_ids = list(groups["shape"]), list(groups["color"])
            p_shape = logits[shape_ids].softmax(0).numpy()
            p_color = logits[color_ids].softmax(0).numpy()
            shape_lab, color_lab = p_shape.argmax(0), p_color.argmax(0)
            comps, n = ndimage.label(shape_lab != 0, structure=np.ones((3, 3)))
            for c in range(1, n + 1):
                mask = comps == c
                if mask.sum() < min_area:
                    continue
                s = int(np.bincount(shape_lab[mask], minlength=len(shape_ids))[1:].argmax()) + 1
                k = int(np.bincount(color_lab[mask], minlength=len(color_ids)).argmax())
                color = p_color[k][mask].mean()
                found.append({"labels": {config.id2label[shape_ids[s]], config.id2label[color_ids[k]]}, "mask": mask,
                              "score": float(p_shape[s][mask].mean() * color), "p_color": float(color),
                              "p_shape": [float(p[mask].mean()) for p in p_shape[1:]]})
            if self._head is not None:
                found = self._head_shapes(found, {config.id2label[i] for i in shape_ids[1:]})
        else:
            probs = logits.softmax(0).numpy()
            lab = probs.argmax(0)
            for label in np.unique(lab):
                comps, n = ndimage.label(lab == label, structure=np.ones((3, 3)))
                for c in range(1, n + 1):
                    mask = comps == c
                    if mask.sum() < min_area:
                        continue
                    found.append({"labels": {config.id2label[int(label)]}, "mask": mask, "score": float(probs[label][mask].mean())})
        for f in found:
            ys, xs = np.nonzero(f["mask"])
            f["xyxy"] = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
        return found

    def _head_shapes(self, found: list[dict[str, Any]], shape_names: set[str]) -> list[dict[str, Any]]:
        """Each instance's shape as the shape head names it (:mod:`autoalign.models.shape_head`); an instance it calls a
        blob or no object keeps the majority vote's shape, or is dropped with ``drop_blobs``. With ``blob_score`` a blob
        keeps the majority vote's shape scored ``blob_score``: read, so it counts (an extra or a miscount shows), but
        not for sure (the layout's ``sure`` refuses it and names its box)."""
        import numpy as np

        from autoalign.models.shape_head import features

        if not found:
            return []
        probs = self._head.predict_proba(np.stack([features(f["mask"], f["p_shape"]) for f in found]))
        kept = []
        for f, p in zip(found, probs):
            name = self._head.labels[int(p.argmax())]
            if name in shape_names:
                f["labels"] = (f["labels"] - shape_names) | {name}
                f["head_score"] = float(p.max()) * f["p_color"]
                if self.opts["head_score"]:
                    f["score"] = f["head_score"]
            elif name == "blob" and self.opts["blob_score"] > 0:
                f["score"] = float(self.opts["blob_score"])
            elif self.opts["drop_blobs"]:
                continue
            kept.append(f)
        return kept

    def _match(self, phrase: str, instances: list[dict[str, Any]], config) -> list[Box]:
        """The instances whose labels are all of the phrase's words the model knows (at least a noun)."""
        known = {str(v).lower(): str(v) for v in config.id2label.values()}
        words = object_words(phrase)
        wanted = set()
        for word in words:
            for form in (word, word[:-1] if word.endswith("s") else None, word[:-2] if word.endswith("es") else None):
                if form and form in known:
                    wanted.add(known[form])
                    break
        groups = getattr(config, "label_groups", None)
        if groups:
            shape_names = {config.id2label[i] for i in groups["shape"][1:]}
            if not wanted & shape_names:  # a phrase naming no shape the model knows grounds nothing
                return []
        if not wanted:
            return []
        boxes = []
        for inst in instances:
            if wanted <= inst["labels"]:
                boxes.append(Box(inst["xyxy"], inst["score"], phrase, mask_array=inst["mask"], head_score=inst.get("head_score")))
        return boxes
