"""CLIP image-text similarity with open_clip (role ``clip``, backend ``open_clip``).

The model id takes one of these forms::

    [clip]
    backend = "open_clip"
    model = "hf-hub:laion/CLIP-ViT-B-32-laion2B-s34B-b79K"   # an open_clip repo on the hub
    # model = "ViT-B-32/laion2b_s34b_b79k"                   # ARCH/PRETRAINED_TAG, see open_clip.list_pretrained()
    # model = "/models/my-clip"                              # a directory in open_clip's hub layout
    # model = "tiny:clip"                                    # the tiny random-weight model
    # batch_size = 32
    # text_template = "{text}"                               # what is embedded for a caption (below)

``text_template`` is the text CLIPScore and the ``clip-probe`` detector embed for a caption. It defaults
to the CLIPScore paper's "A photo depicts {text}" (``prompts/clipscore_text.txt``), right for CLIPs
trained on web captions; a CLIP trained on bare captions, as the shapes world's is, should be given
``"{text}"``: a prefix it never saw in training moves every text embedding off its training distribution.

A directory holds ``open_clip_config.json`` (``{"model_cfg": {...}, "preprocess_cfg": {...}}``) and
``open_clip_model.safetensors``, the layout open_clip's own ``hf-hub:`` loader reads. The tokenizer
comes from ``open_clip.get_tokenizer`` for the same config; CLIP's BPE vocabulary ships inside the
open_clip package, so it works offline.
"""

from __future__ import annotations

import logging
import posixpath
import threading
from pathlib import Path
from typing import Any, Sequence

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.loading import TINY_PREFIX, WORLD_PREFIX, DeviceSpec, ModelNotAvailable, resolve_model

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "hf-hub:laion/CLIP-ViT-B-32-laion2B-s34B-b79K"
_PRECISION = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}


def check_text_template(template: Any) -> str | None:
    """``template`` if it is a string with exactly one ``{text}`` field and no other; None stays None."""
    if template is None:
        return None
    if not isinstance(template, str) or template.count("{text}") != 1:
        raise ConfigError(f"[clip] text_template must be a string with one {{text}} in it (got {template!r})")
    try:
        template.format(text="")
    except (KeyError, IndexError, ValueError):
        raise ConfigError(f"[clip] text_template may hold no field but {{text}} (got {template!r})") from None
    return template


def split_arch_tag(model_id: str) -> tuple[str, str] | None:
    """``("ViT-B-32", "laion2b_s34b_b79k")`` for an ``ARCH/TAG`` id whose ARCH open_clip knows, else None."""
    if model_id.startswith(("hf-hub:", "local-dir:", TINY_PREFIX, WORLD_PREFIX)) or model_id.count("/") != 1:
        return None
    arch, tag = model_id.split("/")
    import open_clip

    return (arch, tag) if arch in open_clip.list_models() else None


def pretrained_cfg(arch: str, tag: str) -> dict[str, Any]:
    """open_clip's record of pretrained weights ``tag`` for ``arch``; a miss lists the known tags."""
    import open_clip

    cfg = open_clip.get_pretrained_cfg(arch, tag)
    if not cfg:
        tags = ", ".join(open_clip.list_pretrained_tags_by_model(arch)) or "(none)"
        raise ConfigError(
            f"[clip] model {arch}/{tag}: open_clip has no pretrained tag {tag!r} for {arch}; tags: {tags}"
        )
    return cfg


def hub_repo_for(model_id: str) -> str | None:
    """The Hugging Face repo an open_clip model id downloads from (None for local/tiny ids or URLs)."""
    if model_id.startswith("hf-hub:"):
        return model_id.removeprefix("hf-hub:")
    parts = split_arch_tag(model_id)
    if parts:
        hub = pretrained_cfg(*parts).get("hf_hub", "")
        # open_clip writes "org/repo/" (default file) or "org/repo/file.bin"
        return posixpath.split(hub)[0] or None if hub else None
    return None


def open_clip_name(model_id: str) -> tuple[str, str | None, bool]:
    """Turn a preset model id into open_clip's ``(model_name, pretrained, quick_gelu)``.

    Local directories (and ``tiny:clip``, ``world:clip``) become ``local-dir:PATH``; hub repos stay
    ``hf-hub:REPO`` after :func:`resolve_model` has checked they can be had; ``ARCH/TAG`` stays a
    built-in name + tag.
    """
    if model_id.startswith((TINY_PREFIX, WORLD_PREFIX)) or Path(model_id).expanduser().is_dir():
        return "local-dir:" + resolve_model(model_id, "clip"), None, False
    parts = split_arch_tag(model_id)
    if parts:
        arch, tag = parts
        cfg = pretrained_cfg(arch, tag)
        repo = hub_repo_for(model_id)
        if repo:
            resolve_model("hf-hub:" + repo, "clip")  # raises ModelNotAvailable when offline and not cached
        return arch, tag, bool(cfg.get("quick_gelu", False))
    if model_id.startswith(("/", "./", "../", "~")):
        raise ModelNotAvailable(f"clip model directory {model_id!r} does not exist")
    import open_clip

    if model_id in open_clip.list_models():
        tags = ", ".join(open_clip.list_pretrained_tags_by_model(model_id)) or "(none)"
        raise ConfigError(
            f"[clip] model {model_id!r} names an architecture without weights; use ARCH/TAG with a tag from: {tags}"
        )
    repo = "hf-hub:" + model_id.removeprefix("hf-hub:")
    resolve_model(repo, "clip")
    return repo, None, False


class OpenClipScorer:
    """Cosine similarity of images with a text in CLIP's joint embedding space."""

    role = "clip"

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.model_id = spec.model or DEFAULT_MODEL
        self.batch_size = spec.options.get("batch_size", 32)
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int) or self.batch_size < 1:
            raise ConfigError(f"[clip] batch_size must be a positive integer (got {self.batch_size!r})")
        unknown = sorted(set(spec.options) - {"batch_size", "text_template"})
        if unknown:
            raise ConfigError(f"[clip] unknown option(s) {', '.join(unknown)}; allowed: batch_size, text_template")
        self.text_template = check_text_template(spec.options.get("text_template"))
        self._loaded: tuple[Any, Any, Any] | None = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._loaded is None:
                import open_clip

                name, pretrained, quick_gelu = open_clip_name(self.model_id)
                logger.info("loading open_clip %s (pretrained=%s) on %s", name, pretrained, self.device.device)
                model, _, preprocess = open_clip.create_model_and_transforms(
                    name,
                    pretrained=pretrained,
                    precision=_PRECISION[self.device.dtype],
                    device=self.device.device,
                    force_quick_gelu=quick_gelu,
                )
                model.eval()
                tokenizer = open_clip.get_tokenizer(name)
                self._loaded = (model, preprocess, tokenizer)
            return self._loaded

    @property
    def model(self):
        """The loaded open_clip model (loaded on first access, once)."""
        return self._load()[0]

    def release(self) -> bool:
        """Drop the loaded weights (sequential loading); they load again on next use. True if any were held."""
        with self._lock:
            held, self._loaded = self._loaded is not None, None
            return held

    def cosine(self, images: Sequence[Image.Image], text: str) -> list[float]:
        """Cosine similarity in [-1, 1] of each image's embedding with the text's, in input order."""
        import torch

        if not isinstance(text, str) or not text.strip():
            raise InputError("text must be a non-empty string")
        images = list(images)
        bad = [i for i, im in enumerate(images) if not isinstance(im, Image.Image)]
        if bad:
            raise InputError(f"images must be PIL images (item(s) {bad} are not)")
        if not images:
            return []
        model, preprocess, tokenizer = self._load()
        dtype = self.device.torch_dtype
        scores: list[float] = []
        with torch.inference_mode():
            tokens = tokenizer([text]).to(self.device.device)
            text_emb = model.encode_text(tokens, normalize=True).float()
            for start in range(0, len(images), self.batch_size):
                batch = torch.stack([preprocess(im.convert("RGB")) for im in images[start : start + self.batch_size]])
                image_emb = model.encode_image(batch.to(self.device.device, dtype), normalize=True).float()
                scores.extend((image_emb @ text_emb.T).squeeze(1).clamp(-1.0, 1.0).tolist())
        return scores

    def cosine_texts(self, image: Image.Image, texts: Sequence[str]) -> list[float]:
        """Cosine similarity in [-1, 1] of one image's embedding with each text's, in input order."""
        import torch

        texts = list(texts)
        if not isinstance(image, Image.Image):
            raise InputError("image must be a PIL image")
        if not texts or any(not isinstance(t, str) or not t.strip() for t in texts):
            raise InputError("texts must be non-empty strings")
        model, preprocess, tokenizer = self._load()
        with torch.inference_mode():
            pixels = preprocess(image.convert("RGB")).unsqueeze(0).to(self.device.device, self.device.torch_dtype)
            image_emb = model.encode_image(pixels, normalize=True).float()
            scores: list[float] = []
            for start in range(0, len(texts), self.batch_size):
                tokens = tokenizer(texts[start : start + self.batch_size]).to(self.device.device)
                text_emb = model.encode_text(tokens, normalize=True).float()
                scores.extend((text_emb @ image_emb.T).squeeze(1).clamp(-1.0, 1.0).tolist())
        return scores
