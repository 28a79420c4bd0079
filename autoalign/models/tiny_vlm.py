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

# Qwen2-VL-Instruct's chat template exactly as its hub repo ships it (Qwen2.5-VL-Instruct uses the same):
# a default system message, and an image part becomes <|vision_start|><|image_pad|><|vision_end|>, which the
# processor expands to one <|image_pad|> per merged patch. Tests render it to check the final prompt text.
QWEN2_VL_CHAT_TEMPLATE = (
    "{% set image_count = namespace(value=0) %}{% set video_count = namespace(value=0) %}"
    "{% for message in messages %}{% if loop.first and message['role'] != 'system' %}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{% endif %}"
    "<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "{% set image_count.value = image_count.value + 1 %}"
    "{% if add_vision_id %}Picture {{ image_count.value }}: {% endif %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}"
    "{% set video_count.value = video_count.value + 1 %}"
    "{% if add_vision_id %}Video {{ video_count.value }}: {% endif %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _qwen_tokenizer():
    """The tiny BPE tokenizer with Qwen's vision special tokens, and their ids."""
    tokenizer = build_tokenizer(image_token=False)
    tokenizer.add_special_tokens({"extra_special_tokens": list(QWEN_SPECIAL_TOKENS)})
    return tokenizer, {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIAL_TOKENS}


def _qwen_text_config(tokenizer) -> dict:
    return dict(
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
    )


def _qwen_pixels() -> dict:
    return dict(
        patch_size=PATCH_SIZE,
        merge_size=2,
        temporal_patch_size=2,
        min_pixels=32 * 32,
        max_pixels=IMAGE_SIZE * IMAGE_SIZE,
    )


def build_qwen2_vl(out_dir: Path) -> None:
    """Write a tiny random Qwen2-VL (dynamic-resolution vision tower, M-RoPE text model) into ``out_dir``.

    Used by tests: it checks that the ``image-text-to-text`` backend handles an architecture whose
    image-token count depends on the image size and whose positions are 3-D (M-RoPE), and it
    carries Qwen2-VL's real chat template.
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
    tokenizer, ids = _qwen_tokenizer()
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
        text_config=_qwen_text_config(tokenizer),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    with _seeded(2):
        model = Qwen2VLForConditionalGeneration(config).eval()
    processor = Qwen2VLProcessor(
        image_processor=Qwen2VLImageProcessor(**_qwen_pixels()),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(**_qwen_pixels()),
        chat_template=QWEN2_VL_CHAT_TEMPLATE,
    )
    _save(model, processor, tokenizer, out_dir, "qwen2-vl", bos=False)


def build_qwen2_5_vl(out_dir: Path) -> None:
    """Write a tiny random Qwen2.5-VL (windowed-attention vision tower with an MLP merger, M-RoPE text).

    The ``qwen2_5_vl`` preset judges' architecture (``Qwen/Qwen2.5-VL-3B/7B-Instruct``) with their real
    chat template; loads with ``AutoProcessor`` + ``AutoModelForImageTextToText``.
    """
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    tokenizer, ids = _qwen_tokenizer()
    config = Qwen2_5_VLConfig(
        vision_config=dict(
            depth=2,
            hidden_size=32,
            intermediate_size=64,
            num_heads=2,
            out_hidden_size=64,  # = the text model's hidden size
            patch_size=PATCH_SIZE,
            spatial_merge_size=2,
            temporal_patch_size=2,
            window_size=PATCH_SIZE * 2 * 2,  # windows of 2x2 merged patches
            fullatt_block_indexes=[1],
        ),
        text_config=_qwen_text_config(tokenizer),
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
    )
    with _seeded(4):
        model = Qwen2_5_VLForConditionalGeneration(config).eval()
    processor = Qwen2_5_VLProcessor(
        image_processor=Qwen2VLImageProcessor(**_qwen_pixels()),
        tokenizer=tokenizer,
        video_processor=Qwen2VLVideoProcessor(**_qwen_pixels()),
        chat_template=QWEN2_VL_CHAT_TEMPLATE,
    )
    _save(model, processor, tokenizer, out_dir, "qwen2.5-vl", bos=False)


INTERNVL_TOKENS = {
    "start_image_token": "<img>",
    "end_image_token": "</img>",
    "context_image_token": "<IMG_CONTEXT>",
    "video_token": "<video>",
}

# InternVL3's conversation format (ChatML); an image part becomes <IMG_CONTEXT>, which the processor
# expands to <img>, image_seq_length x <IMG_CONTEXT> per tile, </img>.
INTERNVL_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' %}{{ '<IMG_CONTEXT>\n' }}"
    "{% elif content['type'] == 'video' %}{{ '<video>\n' }}"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{{ '<|im_end|>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def build_internvl(out_dir: Path) -> None:
    """Write a tiny random InternVL3 (InternViT vision tower, pixel-shuffle projector, Qwen2 language model).

    The architecture of ``OpenGVLab/InternVL3-*-hf`` (transformers' ``InternVLForConditionalGeneration``);
    one 64x64 tile per image (``crop_to_patches = false``), 16 image tokens after the 0.5 pixel shuffle.
    """
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        PreTrainedTokenizerFast,
    )

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = build_tokenizer(image_token=False)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=base.backend_tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        pad_token="<pad>",
        unk_token="<unk>",
        padding_side="left",
        extra_special_tokens=dict(INTERNVL_TOKENS),
    )
    tokenizer.add_special_tokens({"additional_special_tokens": ["<|im_start|>", "<|im_end|>"]})
    config = InternVLConfig(
        vision_config=dict(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            image_size=[IMAGE_SIZE, IMAGE_SIZE],
            patch_size=[PATCH_SIZE, PATCH_SIZE],
        ),
        text_config=dict(
            model_type="qwen2",
            vocab_size=len(tokenizer),
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=512,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            pad_token_id=tokenizer.pad_token_id,
        ),
        image_token_id=tokenizer.convert_tokens_to_ids("<IMG_CONTEXT>"),
        downsample_ratio=0.5,
        vision_feature_layer=-1,
    )
    with _seeded(5):
        model = InternVLForConditionalGeneration(config).eval()
    image_seq_length = int((IMAGE_SIZE // PATCH_SIZE) ** 2 * 0.5**2)
    image_processor = GotOcr2ImageProcessor(
        size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}, crop_to_patches=False, max_patches=1
    )
    processor = InternVLProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        video_processor=InternVLVideoProcessor(size={"height": IMAGE_SIZE, "width": IMAGE_SIZE}),
        image_seq_length=image_seq_length,
        chat_template=INTERNVL_CHAT_TEMPLATE,
    )
    _save(model, processor, tokenizer, out_dir, "internvl", bos=False)


BUILDERS = {
    "llava": build_llava,
    "blip2": build_blip2,
    "blip2_t5": build_blip2_t5,
    "qwen2_vl": build_qwen2_vl,
    "qwen2_5_vl": build_qwen2_5_vl,
    "internvl": build_internvl,
}
