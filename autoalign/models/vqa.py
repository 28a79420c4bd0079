"""VQA backends: a vision-language model asked yes/no questions (P(yes)) and short open questions.

Three backends implement the :class:`~autoalign.models.base.VQA` protocol (role ``"vqa"``):

``image-text-to-text``
    Any ``AutoModelForImageTextToText`` with its ``AutoProcessor`` (LLaVA family, Qwen2-VL,
    PaliGemma ...). The question goes into the processor's chat template as a user message holding
    an image and the text.
``blip2``
    ``Blip2ForConditionalGeneration`` with the prompt ``Question: {q} Answer:``.
``openai``
    An OpenAI-compatible vision chat model through the ``openai`` client; P(yes) from the top
    log-probabilities of the first answer token (in :mod:`autoalign.models.vqa_openai`).

How the transformers backends score (``yes_no_probs``)
    All (image, question) pairs of a call go through the model in batches of
    ``options.batch_size`` (default 16), left-padded (position ids skip the padding), and the
    next-token distribution is read at the last position; an encoder-decoder language model
    (BLIP-2 FLAN-T5) is right-padded and read at its decoder's first step. P(yes) sums the
    probabilities of every single-token spelling of "yes" the tokenizer has (``yes``, ``Yes``,
    ``YES``, ``Ġyes``, ``▁yes`` ...), likewise P(no). Batched results equal one-pair calls.

Image reuse
    A VQ2 score asks many questions about one image. Identical images in a call (the same object,
    or the same pixels) are encoded once: the vision tower and projector run once per unique image
    (``model.get_image_features``) and the resulting embeddings are fed to every question on that
    image through transformers' ``mm_encoder_outputs`` argument, instead of ``pixel_values``.
    For chat-template models (LLaVA, Qwen2-VL) the prompts' image tokens are then expanded without
    re-processing pixels - checked once per model to equal the processor's own output exactly,
    else the processor keeps doing it. Architectures whose ``forward`` lacks ``mm_encoder_outputs``
    fall back to plain batching (logged once). ``options.reuse_images = false`` turns reuse off.
    ``benchmarks/vqa_batching.py`` measures what batching and reuse save.

Instruction prompts (``respond``)
    ``answer`` wraps a question in ``vqa_answer.txt`` ("... Answer the question using a single word
    or phrase."); ``respond`` sends an instruction as it is (through the chat template, with the
    image), for callers that ask for a format of their own, such as the FineMatch detector's JSON.

Image size (Qwen2-VL family)
    Qwen2-VL-style processors turn every 28x28 pixels into an image token, so a 12-megapixel photo
    would be ~15,000 tokens per question. ``options.max_pixels`` (default :data:`DEFAULT_MAX_PIXELS`,
    and never above the processor's own) and ``options.min_pixels`` cap that.

Numbers, never NaN
    Non-finite logits (a model run in a dtype it overflows in, e.g. Qwen2-VL in float16) raise
    :class:`NonFiniteScores`: they never become a score.

Weights load lazily, on the first call, from :func:`~autoalign.models.loading.resolve_model`.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Sequence

from PIL import Image

from autoalign import prompts
from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import AutoAlignError, InputError
from autoalign.models.loading import DeviceSpec, gated_as_unavailable, hub_revision, resolve_model

logger = logging.getLogger(__name__)

YES_WORDS: tuple[str, ...] = ("yes", "Yes", "YES")
NO_WORDS: tuple[str, ...] = ("no", "No", "NO")
#: Word-start markers that tokenizers put in front of a token (byte-level BPE, SentencePiece).
_WORD_START = "Ġ▁ "
DEFAULT_BATCH_SIZE = 16
#: Pixel cap per image for Qwen2-VL-style processors: 1024 image tokens of 28x28 pixels (~896x896).
DEFAULT_MAX_PIXELS = 1024 * 28 * 28


class VQAServiceError(AutoAlignError, RuntimeError):
    """A remote VQA model (OpenAI-compatible server) failed; the message says which and why."""


class NonFiniteScores(AutoAlignError, RuntimeError):
    """The VQA model produced NaN or infinite logits/probabilities: a broken run, never a score."""


# --------------------------------------------------------------------------------------------
# input checks and small helpers


def check_pairs(images: Sequence[Image.Image], questions: Sequence[str]) -> None:
    """Validate a batch of (image, question) pairs; raise :class:`InputError` naming what is wrong."""
    if isinstance(questions, str):
        raise InputError("questions must be a list of strings, one per image (got a single string)")
    if len(images) != len(questions):
        raise InputError(
            f"images and questions must pair up one to one (got {len(images)} images, {len(questions)} questions)"
        )
    for i, (image, question) in enumerate(zip(images, questions)):
        if not isinstance(image, Image.Image):
            raise InputError(f"images[{i}] must be a PIL.Image.Image (got {type(image).__name__})")
        if not isinstance(question, str) or not question.strip():
            raise InputError(f"questions[{i}] must be a non-empty string (got {question!r})")


def normalise(p_yes: float, p_no: float) -> float:
    """P(yes) / (P(yes) + P(no)); 0.5 when both are zero (the model put no mass on either).

    Non-finite input raises :class:`NonFiniteScores` (a NaN is a failure, never an undecided 0.5).
    """
    import math

    if not (math.isfinite(p_yes) and math.isfinite(p_no)):
        raise NonFiniteScores(f"P(yes) = {p_yes}, P(no) = {p_no} are not finite numbers; the VQA model failed")
    total = p_yes + p_no
    return p_yes / total if total > 0 else 0.5


def dedupe_images(images: Sequence[Image.Image]) -> tuple[list[Image.Image], list[int]]:
    """Unique images (by object identity, then by pixels) and, per input, the index of its unique image."""
    unique: list[Image.Image] = []
    index: list[int] = []
    by_id: dict[int, int] = {}
    by_pixels: dict[tuple, int] = {}
    for image in images:
        slot = by_id.get(id(image))
        if slot is None:
            key = (image.mode, image.size, hashlib.sha1(image.tobytes()).hexdigest())
            slot = by_pixels.get(key)
            if slot is None:
                slot = len(unique)
                unique.append(image)
                by_pixels[key] = slot
            by_id[id(image)] = slot
        index.append(slot)
    return unique, index


def word_token_ids(tokenizer: Any, words: Sequence[str]) -> list[int]:
    """Ids of every single token that spells one of ``words`` (with or without a word-start marker).

    Looks both ways: encodes each word with and without a leading space and keeps one-token
    results, and scans the vocabulary for tokens equal to a word after stripping ``Ġ``/``▁``.
    """
    wanted = set(words)
    ids: set[int] = set()
    for word in words:
        for text in (word, " " + word):
            encoded = tokenizer.encode(text, add_special_tokens=False)
            if len(encoded) == 1:
                ids.add(int(encoded[0]))
    for token, token_id in tokenizer.get_vocab().items():
        if token.lstrip(_WORD_START) in wanted and len(token) - len(token.lstrip(_WORD_START)) <= 1:
            ids.add(int(token_id))
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    return sorted(ids - special)


def is_encoder_decoder(model: Any) -> bool:
    """Whether a VLM's language model is an encoder-decoder (e.g. BLIP-2 FLAN-T5)."""
    config = model.config
    text = getattr(config, "text_config", None)
    return bool(getattr(text, "is_encoder_decoder", False) or getattr(config, "is_encoder_decoder", False))


def _prompt_template(spec: RoleSpec, option: str, default_file: str) -> str:
    name = spec.options.get(option, default_file)
    try:
        template = prompts.load(str(name)).strip()
    except FileNotFoundError as exc:
        raise ConfigError(f"[vqa] {option}: {exc}") from None
    if "{question}" not in template:
        raise ConfigError(f"[vqa] {option}: prompt file {name!r} must contain the placeholder {{question}}")
    return template


def _batch_size(spec: RoleSpec) -> int:
    value = spec.options.get("batch_size", DEFAULT_BATCH_SIZE)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[vqa] batch_size must be an integer >= 1 (got {value!r})")
    return value


def _batches(n: int, size: int) -> list[range]:
    return [range(start, min(start + size, n)) for start in range(0, n, size)]


def _progress(batches: list[range], desc: str):
    from tqdm.auto import tqdm

    # None: tqdm hides the bar when stderr is not a terminal (logs, CI, piped benchmark output)
    return tqdm(batches, desc=desc, unit="batch", leave=False, disable=True if len(batches) < 4 else None)


# --------------------------------------------------------------------------------------------
# transformers backends


@dataclass
class EncodedImages:
    """The unique images of one call, through the vision tower once: what every question on them reuses."""

    output_cls: type  # the class get_image_features returned; rebuilt around the picked features
    pooled_is_list: bool  # features came as a per-image list (LLaVA, Qwen2-VL) or one tensor (BLIP-2)
    features: list[Any] = field(default_factory=list)  # per unique image: (tokens, hidden)
    extras: dict[str, list[Any]] = field(default_factory=dict)  # per unique image, e.g. image_grid_thw rows
    extras_complete: bool = True  # False when an image-processor output could not be split per image


class TransformersVQA:
    """Shared machinery of the transformers VQA backends (batching, yes/no ids, image reuse).

    Subclasses say how a model is loaded (:meth:`_load_model`) and how a question becomes the
    text the processor reads (:meth:`_format`).
    """

    name = "transformers"
    #: Whether ``generate`` may be given pre-computed image embeddings (BLIP-2's custom generate may not).
    reuse_in_generate = True

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.batch_size = _batch_size(spec)
        self.reuse_images = bool(spec.options.get("reuse_images", True))
        self._lock = threading.RLock()
        self._model = None
        self._processor = None
        self._revision: str | None = None
        self._yes_ids: list[int] = []
        self._no_ids: list[int] = []
        self._text_cache: dict[tuple[str, str], str] = {}
        self._fast_reason: str | None = None  # why image reuse is off for this model, once known
        self._expand_ok: bool | None = None  # image tokens expandable without the processor? (checked once)

    # --- loading ------------------------------------------------------------------------------

    #: Whether the backend formats questions with the model's chat template (a snapshot without one is incomplete).
    needs_chat_template = False

    @property
    def _hub_kwargs(self) -> dict[str, str]:
        """``revision=`` for ``from_pretrained`` when loading a hub id at a pinned commit."""
        return {"revision": self._revision} if self._revision else {}

    def _load_model(self, path: str):
        """Return ``(processor, model)`` loaded from ``path``."""
        raise NotImplementedError

    def _format(self, question: str, kind: str) -> str:
        """The processor text for one question; ``kind`` is ``"yes_no"``, ``"answer"`` or ``"raw"`` (as is)."""
        raise NotImplementedError

    def _ensure_loaded(self) -> None:
        if self._model is not None:
            return
        with self._lock:
            if self._model is not None:
                return
            revision = hub_revision(self.spec.model, self.spec.options)
            path = resolve_model(self.spec.model or "", "vqa", revision=revision,
                                 chat_template=self.needs_chat_template)
            self._revision = revision if path == self.spec.model else None  # a hub id: load at the pinned commit
            logger.info(
                "loading %s VQA model from %s on %s (%s)", self.name, path, self.device.device, self.device.dtype
            )
            with gated_as_unavailable(self.spec.model or "", "vqa"):
                processor, model = self._load_model(path)
            tokenizer = processor.tokenizer
            # Decoder-only models read the answer at the prompt's last position, so prompts are
            # left-padded; an encoder-decoder reads it from its decoder, so right padding keeps the
            # encoder's relative positions exactly as in an unpadded prompt.
            tokenizer.padding_side = "right" if is_encoder_decoder(model) else "left"
            if tokenizer.pad_token is None:
                tokenizer.pad_token = tokenizer.eos_token
            self._yes_ids = word_token_ids(tokenizer, YES_WORDS)
            self._no_ids = word_token_ids(tokenizer, NO_WORDS)
            if not self._yes_ids or not self._no_ids:
                raise ConfigError(
                    f"[vqa] model {self.spec.model!r}: its tokenizer has no single token for 'yes' or 'no', "
                    "so P(yes) cannot be read from the next-token distribution; choose another model"
                )
            self._fast_reason = self._image_reuse_blocker(model)
            if self._fast_reason and self.reuse_images:
                logger.info(
                    "VQA image reuse is off for %s: %s; using plain batching", type(model).__name__, self._fast_reason
                )
            self._processor = processor
            self._model = model

    @staticmethod
    def _image_reuse_blocker(model) -> str | None:
        params = inspect.signature(model.forward).parameters
        if "mm_encoder_outputs" not in params:
            return "its forward() takes no mm_encoder_outputs"
        if not callable(getattr(model, "get_image_features", None)):
            return "it has no get_image_features()"
        return None

    @property
    def model(self):
        self._ensure_loaded()
        return self._model

    @property
    def processor(self):
        self._ensure_loaded()
        return self._processor

    def uses_image_reuse(self) -> bool:
        """Whether identical images are encoded once per call (loads the model to find out)."""
        self._ensure_loaded()
        return self.reuse_images and self._fast_reason is None

    def reuse_status(self) -> dict[str, Any]:
        """How image reuse runs for this model, for logs and tests.

        ``features``: the vision tower runs once per unique image; ``text_without_processor``: the
        prompts' image tokens are expanded without re-processing pixels (None until a call with a
        repeated image has checked it); ``reason``: why reuse is off, if it is.
        """
        return {
            "features": self.uses_image_reuse(),
            "text_without_processor": self._expand_ok,
            "reason": self._fast_reason if self.reuse_images else "reuse_images = false",
        }

    # --- text -----------------------------------------------------------------------------------

    def _text(self, question: str, kind: str) -> str:
        if kind == "raw":  # instructions are long and asked once: not cached
            return self._format(question, kind)
        key = (kind, question)
        text = self._text_cache.get(key)
        if text is None:
            text = self._format(question, kind)
            self._text_cache[key] = text
        return text

    # --- images ---------------------------------------------------------------------------------

    def _to_device(self, value: Any) -> Any:
        """Move a tensor to the run's device; floating tensors also to its dtype."""
        import torch

        if not torch.is_tensor(value):
            return value
        if torch.is_floating_point(value):
            return value.to(self.device.device, self.device.torch_dtype)
        return value.to(self.device.device)

    def _encode_images(self, images: list[Image.Image]) -> EncodedImages | None:
        """Run the vision tower + projector once per image (in batches of ``batch_size``).

        None (and image reuse off from then on, logged once) when the model's features cannot be
        split per image.
        """
        import torch

        model = self._model
        wanted = set(inspect.signature(model.get_image_features).parameters)
        encoded = EncodedImages(output_cls=object, pooled_is_list=True)
        for batch in _batches(len(images), self.batch_size):
            chunk = [images[i] for i in batch]
            pixels = self._processor.image_processor(images=chunk, return_tensors="pt")
            kwargs = {k: self._to_device(v) for k, v in pixels.items() if k in wanted}
            with torch.inference_mode():
                out = model.get_image_features(**kwargs, return_dict=True)
            pooled = out.pooler_output
            encoded.output_cls = type(out)
            encoded.pooled_is_list = isinstance(pooled, (list, tuple))
            per_image = list(pooled) if encoded.pooled_is_list else list(pooled.unbind(0))
            if len(per_image) != len(chunk):
                self._disable_reuse(
                    f"get_image_features returned {len(per_image)} feature sets for {len(chunk)} images"
                )
                return None
            encoded.features.extend(per_image)
            for key, value in pixels.items():  # per-image extras such as Qwen2-VL's image_grid_thw
                if key != "pixel_values" and torch.is_tensor(value) and value.shape[:1] == (len(chunk),):
                    encoded.extras.setdefault(key, []).extend(value.unbind(0))
                elif key != "pixel_values":
                    encoded.extras_complete = False
        return encoded

    def _disable_reuse(self, reason: str) -> None:
        self._fast_reason = reason
        logger.info("VQA image reuse is off for %s: %s; using plain batching", type(self._model).__name__, reason)

    # --- model inputs -----------------------------------------------------------------------------

    def _inputs(self, texts: list[str], images: list[Image.Image], drop_pixels: bool) -> dict[str, Any]:
        """Processor outputs on the device; without ``pixel_values`` when features are pre-computed."""
        enc = self._processor(text=texts, images=images, padding=True, return_tensors="pt")
        return {k: self._to_device(v) for k, v in enc.items() if not (drop_pixels and k == "pixel_values")}

    def _expanded_inputs(self, texts: list[str], rows: list[int], encoded: EncodedImages) -> dict[str, Any] | None:
        """Processor-equivalent inputs built without touching pixels: each text's one image token is
        expanded to as many tokens as its image has feature vectors, then tokenized; per-image
        extras come from the image encoding. None where that recipe does not apply."""
        import torch

        token = getattr(self._processor, "image_token", None)
        token = getattr(token, "content", token)
        if not isinstance(token, str) or not encoded.extras_complete or any(t.count(token) != 1 for t in texts):
            return None
        expanded = [t.replace(token, token * int(encoded.features[r].shape[0])) for t, r in zip(texts, rows)]
        enc = self._processor.tokenizer(expanded, padding=True, return_tensors="pt")
        inputs = {k: self._to_device(enc[k]) for k in ("input_ids", "attention_mask") if k in enc}
        if getattr(self._processor, "return_mm_token_type_ids", False):  # e.g. Qwen2-VL marks image positions
            type_ids = self._processor.create_mm_token_type_ids(enc["input_ids"].tolist())
            inputs["mm_token_type_ids"] = self._to_device(torch.tensor(type_ids, dtype=enc["input_ids"].dtype))
        for key, per_image in encoded.extras.items():
            inputs[key] = self._to_device(torch.stack([per_image[r] for r in rows]))
        return inputs

    def _batch_inputs(
        self,
        texts: list[str],
        rows: list[int],
        unique: list[Image.Image],
        encoded: EncodedImages | None,
        generate: bool,
    ) -> dict[str, Any]:
        """Model inputs for one batch; ``rows[i]`` is the unique image of pair ``i``.

        With pre-computed features, the text side is built by :meth:`_expanded_inputs` once it has
        been checked, on the first batch, to equal the processor's own output exactly; otherwise
        (or when it differs) the processor runs on the images and its ``pixel_values`` are dropped.
        """
        import torch

        if encoded is None:
            return self._inputs(texts, [unique[r] for r in rows], drop_pixels=False)
        inputs = self._expanded_inputs(texts, rows, encoded) if self._expand_ok is not False else None
        if inputs is None or self._expand_ok is None:
            reference = self._inputs(texts, [unique[r] for r in rows], drop_pixels=True)
            if self._expand_ok is None:
                same = inputs is not None and inputs.keys() == reference.keys()
                same = same and all(torch.equal(inputs[k], reference[k]) for k in inputs)
                self._expand_ok = same
                logger.debug("VQA image tokens expanded without the processor: %s", same)
            inputs = reference
        pooled = [encoded.features[r] for r in rows]
        inputs["mm_encoder_outputs"] = {
            "image": encoded.output_cls(pooler_output=pooled if encoded.pooled_is_list else torch.stack(pooled))
        }
        # forward() may need pixel_values=None spelled out (BLIP-2); generate() refuses it with features
        if not generate and "pixel_values" in inspect.signature(self._model.forward).parameters:
            inputs["pixel_values"] = None
        return inputs

    def _forward_extras(self, attention_mask) -> dict[str, Any]:
        """Position ids that skip left padding (models that count positions from 0 otherwise)."""
        params = inspect.signature(self._model.forward).parameters
        extras: dict[str, Any] = {}
        if "logits_to_keep" in params:
            extras["logits_to_keep"] = 1
        inner = getattr(self._model, "model", None)
        # Qwen2-VL style models compute their own 3-D (M-RoPE) positions from the attention mask
        uses_mrope = hasattr(self._model, "get_rope_index") or hasattr(inner, "get_rope_index")
        if "position_ids" in params and not uses_mrope and attention_mask is not None:
            extras["position_ids"] = (attention_mask.long().cumsum(-1) - 1).clamp(min=0)
        if is_encoder_decoder(self._model):  # e.g. BLIP-2 FLAN-T5: the answer is the decoder's first token
            import torch

            start = self._model.config.text_config.decoder_start_token_id
            extras["decoder_input_ids"] = torch.full(
                (attention_mask.shape[0], 1), int(start), dtype=torch.long, device=attention_mask.device
            )
        return extras

    def _prepare(self, images: Sequence[Image.Image], reuse: bool) -> tuple[list[Image.Image], list[int], Any]:
        """Unique RGB images, each pair's unique index, and pre-encoded features (None on the plain path)."""
        unique, index = dedupe_images(images)
        unique = [im if im.mode == "RGB" else im.convert("RGB") for im in unique]
        # reuse pays off only when some image is asked more than one question
        reuse = reuse and self.reuse_images and self._fast_reason is None and len(unique) < len(index)
        return unique, index, self._encode_images(unique) if reuse else None

    # --- the VQA protocol ---------------------------------------------------------------------------

    def yes_no_probs(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[tuple[float, float]]:
        """Unnormalised (P(yes), P(no)) of the next token after each question, per (image, question) pair."""
        import torch

        check_pairs(images, questions)
        if not images:
            return []
        self._ensure_loaded()
        unique, index, encoded = self._prepare(images, reuse=True)
        yes_ids = torch.tensor(self._yes_ids, device=self.device.device)
        no_ids = torch.tensor(self._no_ids, device=self.device.device)
        results: list[tuple[float, float]] = []
        batches = _batches(len(questions), self.batch_size)
        for batch in _progress(batches, "VQA yes/no"):
            texts = [self._text(questions[i], "yes_no") for i in batch]
            inputs = self._batch_inputs(texts, [index[i] for i in batch], unique, encoded, generate=False)
            inputs.update(self._forward_extras(inputs.get("attention_mask")))
            with torch.inference_mode():
                logits = self._model(**inputs).logits[:, -1, :].float()
            if not torch.isfinite(logits).all():
                raise NonFiniteScores(
                    f"the VQA model {self.spec.model!r} produced non-finite logits in {self.device.dtype} on "
                    f"{self.device.device}; no score is given. Models trained in bfloat16 (Qwen2-VL, Qwen2.5-VL) "
                    "overflow in float16: set [vqa] dtype = \"bfloat16\" (or \"float32\" on GPUs without bf16)"
                )
            probs = torch.softmax(logits, dim=-1)
            p_yes = probs.index_select(-1, yes_ids).sum(-1).tolist()
            p_no = probs.index_select(-1, no_ids).sum(-1).tolist()
            results.extend(zip(p_yes, p_no))
        return [(float(y), float(n)) for y, n in results]

    def yes_prob(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[float]:
        """P(yes) / (P(yes) + P(no)) per (image, question) pair."""
        return [normalise(y, n) for y, n in self.yes_no_probs(images, questions)]

    def answer(self, images: Sequence[Image.Image], questions: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        """Greedy short answers, per (image, question) pair (each question wrapped in the answer prompt)."""
        return self._generate(images, questions, "answer", max_new_tokens)

    def respond(self, images: Sequence[Image.Image], prompts: Sequence[str], max_new_tokens: int = 256) -> list[str]:
        """Greedy free-form replies to instruction prompts sent as they are, per (image, prompt) pair."""
        return self._generate(images, prompts, "raw", max_new_tokens)

    def _generate(self, images: Sequence[Image.Image], questions: Sequence[str], kind: str, max_new_tokens: int) -> list[str]:
        import torch

        check_pairs(images, questions)
        if isinstance(max_new_tokens, bool) or not isinstance(max_new_tokens, int) or max_new_tokens < 1:
            raise InputError(f"max_new_tokens must be an integer >= 1 (got {max_new_tokens!r})")
        if not images:
            return []
        self._ensure_loaded()
        unique, index, encoded = self._prepare(images, reuse=self.reuse_in_generate)
        tokenizer = self._processor.tokenizer
        answers: list[str] = []
        for batch in _progress(_batches(len(questions), self.batch_size), "VQA answers"):
            texts = [self._text(questions[i], kind) for i in batch]
            inputs = self._batch_inputs(texts, [index[i] for i in batch], unique, encoded, generate=True)
            with torch.inference_mode():
                out = self._model.generate(
                    **inputs,
                    max_new_tokens=max_new_tokens,
                    do_sample=False,
                    pad_token_id=tokenizer.pad_token_id,
                )
            # decoder-only models return prompt + answer; encoder-decoders only the answer
            new_tokens = out if is_encoder_decoder(self._model) else out[:, inputs["input_ids"].shape[1] :]
            answers.extend(t.strip() for t in tokenizer.batch_decode(new_tokens, skip_special_tokens=True))
        return answers

    def release(self) -> bool:
        """Drop the loaded weights (sequential loading); they load again on next use. True if any were held."""
        with self._lock:
            held = self._model is not None
            self._model = self._processor = None
            self._expand_ok = None
            return held


def cap_image_pixels(processor: Any, options: dict[str, Any]) -> dict[str, int] | None:
    """Apply ``min_pixels`` / ``max_pixels`` to a Qwen2-VL-style image processor; return the bounds set.

    The default cap is :data:`DEFAULT_MAX_PIXELS`, never above the processor's own maximum. Options
    for a processor without pixel bounds are a :class:`ConfigError`.
    """
    image_processor = getattr(processor, "image_processor", None)
    size = getattr(image_processor, "size", None)
    pixel_bounds = (
        hasattr(image_processor, "merge_size")
        and size is not None
        and "shortest_edge" in size
        and "longest_edge" in size
    )
    asked = {k: options[k] for k in ("min_pixels", "max_pixels") if k in options}
    for key, value in asked.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"[vqa] {key} must be a positive integer (got {value!r})")
    if not pixel_bounds:
        if asked:
            raise ConfigError(
                f"[vqa] {', '.join(asked)}: {type(image_processor).__name__} has no pixel bounds "
                "(they apply to Qwen2-VL-style processors)"
            )
        return None
    low = int(asked.get("min_pixels", size["shortest_edge"]))
    high = int(asked.get("max_pixels", min(int(size["longest_edge"]), DEFAULT_MAX_PIXELS)))
    if low > high:
        raise ConfigError(f"[vqa] min_pixels ({low}) must not exceed max_pixels ({high})")
    new_size = {"shortest_edge": low, "longest_edge": high}
    try:
        image_processor.size = type(size)(**new_size)
    except TypeError:
        image_processor.size = new_size
    for key, value in (("min_pixels", low), ("max_pixels", high)):
        if hasattr(image_processor, key):
            setattr(image_processor, key, value)
    return {"min_pixels": low, "max_pixels": high}


class ImageTextToTextVQA(TransformersVQA):
    """Any ``AutoModelForImageTextToText`` (LLaVA, Qwen2-VL, PaliGemma ...) with its processor's chat template.

    Options: ``batch_size`` (16), ``reuse_images`` (true), ``yes_no_prompt`` / ``answer_prompt``
    (prompt files wrapping the question; defaults ``vqa_yes_no.txt`` / ``vqa_answer.txt``),
    ``min_pixels`` / ``max_pixels`` (Qwen2-VL family: pixels per image, module docstring).
    """

    name = "image-text-to-text"
    needs_chat_template = True

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        super().__init__(spec, device)
        self._templates = {
            "yes_no": _prompt_template(spec, "yes_no_prompt", "vqa_yes_no.txt"),
            "answer": _prompt_template(spec, "answer_prompt", "vqa_answer.txt"),
        }

    def _load_model(self, path: str):
        from transformers import AutoModelForImageTextToText, AutoProcessor

        processor = AutoProcessor.from_pretrained(path, **self._hub_kwargs)
        bounds = cap_image_pixels(processor, self.spec.options)
        if bounds:
            logger.info("VQA image pixels bounded to %s", bounds)
        model = AutoModelForImageTextToText.from_pretrained(path, dtype=self.device.torch_dtype, **self._hub_kwargs)
        return processor, model.to(self.device.device).eval()

    def _format(self, question: str, kind: str) -> str:
        text = question if kind == "raw" else self._templates[kind].format(question=question)
        if getattr(self._processor, "chat_template", None) is None:
            return text  # e.g. PaliGemma: the processor places the image tokens itself
        messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
        return self._processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


class Blip2VQA(TransformersVQA):
    """BLIP-2 (``Blip2ForConditionalGeneration``), prompted ``Question: {q} Answer:``.

    Options: ``batch_size`` (16), ``reuse_images`` (true), ``prompt`` (prompt file, default
    ``vqa_blip2.txt``). Image reuse applies to yes/no scoring; BLIP-2's own ``generate`` always
    encodes the image, so ``answer`` uses plain batching.
    """

    name = "blip2"
    reuse_in_generate = False

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        super().__init__(spec, device)
        self._template = _prompt_template(spec, "prompt", "vqa_blip2.txt")

    def _load_model(self, path: str):
        from transformers import Blip2ForConditionalGeneration, Blip2Processor

        processor = Blip2Processor.from_pretrained(path, **self._hub_kwargs)
        model = Blip2ForConditionalGeneration.from_pretrained(path, dtype=self.device.torch_dtype, **self._hub_kwargs)
        return processor, model.to(self.device.device).eval()

    def _format(self, question: str, kind: str) -> str:
        return question if kind == "raw" else self._template.format(question=question)


# --------------------------------------------------------------------------------------------
# OpenAI-compatible remote VLM
