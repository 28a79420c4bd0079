"""Tiny random-weight vision-language models, built in code (no download) and saved like real ones.

Each builder writes a complete model directory that the real loading code opens unchanged:

* :func:`build_llava` - ``LlavaForConditionalGeneration`` (a CLIP vision tower, a projector and a
  Llama language model) with its ``LlavaProcessor``; loads with ``AutoProcessor`` +
  ``AutoModelForImageTextToText``.
* :func:`build_blip2` - ``Blip2ForConditionalGeneration`` (vision tower, Q-Former, OPT language
  model) with its ``Blip2Processor``.
* :func:`build_qwen2_vl` - ``Qwen2VLForConditionalGeneration`` with its ``Qwen2VLProcessor``, and
  :func:`build_blip2_t5` - BLIP-2 with an encoder-decoder T5: no preset uses them; tests use them to
  check architectures with size-dependent image tokens and M-RoPE, and an encoder-decoder.

The weights are random (fixed seeds), so the models *answer* nothing meaningful: they exist to run
the VQA code paths (chat templates, image tokens, batching, image reuse, generation) on a CPU in
seconds. Shapes are small but proportioned like the real thing - the vision tower sees 64 patches
per image and is a visible share of the compute - so speed benchmarks on them say something about
batching, and nothing about quality.

The tokenizer is a byte-level BPE trained here on a small built-in English corpus (so any text
tokenizes, and ``yes`` / ``no`` / ``Yes`` / ``No`` with and without a leading space are single
tokens), wrapped as a fast tokenizer with ``<image>`` and ``<pad>`` special tokens.

:mod:`autoalign.models.tiny` calls these builders (``tiny:llava``, ``tiny:blip2``) inside its
atomic temp-dir-and-rename, so a builder only has to write a complete directory.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from pathlib import Path
from typing import Any, Iterator

logger = logging.getLogger(__name__)

IMAGE_SIZE = 64  # pixels; patch 8 -> 64 patches per image
PATCH_SIZE = 8
VOCAB_SIZE = 1024
IMAGE_TOKEN = "<image>"
SPECIAL_TOKENS = ("<s>", "</s>", "<pad>", "<unk>", IMAGE_TOKEN)

# LLaVA-1.5 style conversation: "USER: <image>\n{text} ASSISTANT:". Content may be a plain string or
# a list of {"type": "image"} / {"type": "text", "text": ...} parts (the processor chat-template form).
LLAVA_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] == 'system' %}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}"
    "{% endif %}{{ '\n' }}"
    "{% else %}"
    "{{ message['role'].upper() + ': ' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}"
    "{% for part in message['content'] %}{% if part['type'] == 'image' %}{{ '<image>\n' }}{% endif %}{% endfor %}"
    "{% for part in message['content'] %}{% if part['type'] == 'text' %}{{ part['text'] }}{% endif %}{% endfor %}"
    "{% endif %}"
    "{% if message['role'] == 'assistant' %}{{ '</s>' }}{% endif %}{{ ' ' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ 'ASSISTANT:' }}{% endif %}"
)

_OBJECTS = (
    "car", "dog", "cat", "bird", "horse", "apple", "banana", "cup", "chair", "table", "tree", "house",
    "person", "man", "woman", "child", "ball", "book", "clock", "bus", "boat", "flower", "sign", "bench",
)
_COLORS = ("red", "blue", "green", "yellow", "black", "white", "brown", "pink", "orange", "purple")
_COUNTS = ("one", "two", "three", "four", "five")
_RELATIONS = ("on", "under", "next to", "behind", "in front of", "left of", "right of", "above")


def _corpus() -> list[str]:
    """A small deterministic English corpus in the style of VQA questions and answers."""
    lines: list[str] = []
    for obj, color in itertools.product(_OBJECTS, _COLORS):
        lines.append(f"Is there a {color} {obj} in this image? Yes, there is a {color} {obj}.")
        lines.append(f"Is the {obj} {color}? No, it is not. What color is the {obj}? {color.capitalize()}.")
    for count, obj in itertools.product(_COUNTS, _OBJECTS):
        lines.append(f"How many {obj}s are there? There are {count}. Are there {count} {obj}s? yes")
    for (a, b), rel in itertools.product(itertools.permutations(_OBJECTS[:8], 2), _RELATIONS):
        lines.append(f"Is the {a} {rel} the {b}? no. The {a} is {rel} the {b}. YES NO Yes No")
    for word in ("yes", "Yes", "YES", "no", "No", "NO"):
        lines.extend([word, f"{word}."] * 20)  # at a line start: single tokens without the leading space
    lines.append('Does this image entail the description: "a photo"? Answer yes or no. Question: Answer:')
    lines.append('USER: ASSISTANT: is "the answer" true for "the question" in this image?')
    return lines


def build_tokenizer(image_token: bool = True, corpus: list[str] | None = None, vocab_size: int = VOCAB_SIZE):
    """A byte-level BPE fast tokenizer trained on ``corpus`` (default :func:`_corpus`; deterministic)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus if corpus is not None else _corpus(), trainer=trainer)
    bos = tok.token_to_id("<s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos)]
    )
    kwargs = dict(bos_token="<s>", eos_token="</s>", pad_token="<pad>", unk_token="<unk>")
    if image_token:
        kwargs["image_token"] = IMAGE_TOKEN
    return PreTrainedTokenizerFast(tokenizer_object=tok, padding_side="left", **kwargs)


@contextlib.contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Seed torch's global RNG for a block, restoring the caller's RNG state afterwards."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


#: The vision tower shared by the tiny LLaVA (CLIP) and BLIP-2 models.
VISION_TOWER = dict(
    image_size=IMAGE_SIZE,
    patch_size=PATCH_SIZE,
    hidden_size=64,
    intermediate_size=256,
    num_hidden_layers=3,
    num_attention_heads=4,
)


def _save(model: Any, processor: Any, tokenizer: Any, out_dir: Path, label: str, *, bos: bool) -> None:
    """Give the model's generation config the tokenizer's special tokens, then save model and processor."""
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    if bos:  # decoder-only language models; T5 and Qwen2-VL start without one
        model.generation_config.bos_token_id = tokenizer.bos_token_id
    model.save_pretrained(out_dir, safe_serialization=True)
    processor.save_pretrained(out_dir)
    logger.info("built tiny %s in %s", label, out_dir)


def build_llava(out_dir: Path) -> None:
    """Write a tiny random LLaVA (CLIP vision + projector + Llama) and its processor into ``out_dir``."""
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer()
    vocab = len(tokenizer)
    vision = CLIPVisionConfig(**VISION_TOWER, projection_dim=64)
    text = LlamaConfig(
        vocab_size=vocab,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=512,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    config = LlavaConfig(
        vision_config=vision,
        text_config=text,
        image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        vision_feature_select_strategy="default",
        vision_feature_layer=-2,
        projector_hidden_act="gelu",
        pad_token_id=tokenizer.pad_token_id,
    )
    with _seeded(0):
        model = LlavaForConditionalGeneration(config).eval()
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": IMAGE_SIZE},
        crop_size={"height": IMAGE_SIZE, "width": IMAGE_SIZE},
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=PATCH_SIZE,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,  # the CLS token, dropped again by the "default" strategy
        chat_template=LLAVA_CHAT_TEMPLATE,
        image_token=IMAGE_TOKEN,
    )
    _save(model, processor, tokenizer, out_dir, "llava", bos=True)


def build_blip2(out_dir: Path) -> None:
    """Write a tiny random BLIP-2 (vision + Q-Former + OPT) and its processor into ``out_dir``."""
    _build_blip2(Path(out_dir), language="opt", seed=1)


def build_blip2_t5(out_dir: Path) -> None:
    """Write a tiny random BLIP-2 whose language model is an encoder-decoder T5 (as BLIP-2 FLAN-T5).

    Not used by a preset: tests use it to check the encoder-decoder path (answer read from the
    decoder's first token, right padding).
    """
    _build_blip2(Path(out_dir), language="t5", seed=3)


def _build_blip2(out_dir: Path, language: str, seed: int) -> None:
    from transformers import (
        Blip2Config,
        Blip2ForConditionalGeneration,
        Blip2Processor,
        Blip2QFormerConfig,
        Blip2VisionConfig,
        BlipImageProcessor,
        OPTConfig,
        T5Config,
    )

    out_dir.mkdir(parents=True, exist_ok=True)
    # Blip2Processor adds its own "<image>" AddedToken when the tokenizer has no `image_token` attribute
    # (the token already exists in the vocabulary, so its id does not change).
    tokenizer = build_tokenizer(image_token=False)
    vocab = len(tokenizer)
    num_query_tokens = 8
    vision = Blip2VisionConfig(**VISION_TOWER)
    qformer = Blip2QFormerConfig(
        vocab_size=vocab,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        encoder_hidden_size=64,
        max_position_embeddings=128,
    )
    special = dict(
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    if language == "opt":
        text = OPTConfig(
            vocab_size=vocab,
            hidden_size=64,
            ffn_dim=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            word_embed_proj_dim=64,
            max_position_embeddings=512,
            bos_token_id=tokenizer.bos_token_id,
            **special,
        )
    else:
        text = T5Config(
            vocab_size=vocab,
            d_model=64,
            d_kv=16,
            d_ff=128,
            num_layers=2,
            num_heads=4,
            decoder_start_token_id=tokenizer.pad_token_id,  # as in T5: the decoder starts from <pad>
            **special,
        )
    config = Blip2Config(
        vision_config=vision.to_dict(),
        qformer_config=qformer.to_dict(),
        text_config=text.to_dict(),
        num_query_tokens=num_query_tokens,
        image_token_index=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
    )
    with _seeded(seed):
        model = Blip2ForConditionalGeneration(config).eval()
    image_processor = BlipImageProcessor(size={"height": IMAGE_SIZE, "width": IMAGE_SIZE})
    processor = Blip2Processor(image_processor=image_processor, tokenizer=tokenizer, num_query_tokens=num_query_tokens)
    _save(model, processor, tokenizer, out_dir, f"blip2 ({language})", bos=language == "opt")


QWEN_SPECIAL_TOKENS = (
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

# Qwen2-VL's conversation format: an image part becomes <|vision_start|><|image_pad|><|vision_end|>,
# which the processor expands to one <|image_pad|> per merged patch.
QWEN2_VL_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_qwen2_vl(out_dir: Path) -> None:
    """Write a tiny random Qwen2-VL (dynamic-resolution vision tower, M-RoPE text model) into ``out_dir``.

    Not used by a preset: it checks that the ``image-text-to-text`` backend handles an architecture
    whose image-token count depends on the image size and whose positions are 3-D (M-RoPE).
    """
    from transformers import (
        Qwen2VLConfig,
        Qwen2VLForConditionalGeneration,
        Qwen2VLImageProcessor,
        Qwen2VLProcessor,
        Qwen2VLVideoProcessor,
    )

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer = build_tokenizer(image_token=False)
    tokenizer.add_special_tokens({"extra_special_tokens": list(QWEN_SPECIAL_TOKENS)})
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIAL_TOKENS}
    config = Qwen2VLConfig(
        vision_config=dict(
            depth=2,
            embed_dim=32,
            hidden_size=64,
            num_heads=2,
            mlp_ratio=2,
            patch_size=PATCH_SIZE,
            spatial_merge_size=2,
            temporal_patch_size=2,
        ),
        text_config=dict(
            vocab_size=len(tokenizer),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=512,
            # head_dim 16 -> 8 rotary frequencies split over (time, height, width)
            rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]},
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    with _seeded(2):
        model = Qwen2VLForConditionalGeneration(config).eval()
    pixels = dict(
        patch_size=PATCH_SIZE,
        merge_size=2,
        temporal_patch_size=2,
        min_pixels=32 * 32,
        max_pixels=IMAGE_SIZE * IMAGE_SIZE,
    )
    processor = Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(**pixels),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(**pixels),
        chat_template=QWEN2_VL_CHAT_TEMPLATE,
    )
    _save(model, processor, tokenizer, out_dir, "qwen2-vl", bos=False)


BUILDERS = {"llava": build_llava, "blip2": build_blip2, "blip2_t5": build_blip2_t5, "qwen2_vl": build_qwen2_vl}
