"""Train the world's VLM: a LLaVA-style ``LlavaForConditionalGeneration`` (a CLIP vision tower, a
projector, a small Llama) with a byte-level BPE tokenizer trained on the world's questions.

It is the same family the ``tiny`` preset builds (:mod:`autoalign.models.tiny_vlm`), saved with
``save_pretrained`` and loaded by the ``image-text-to-text`` VQA backend unchanged. Training
examples (:mod:`autoalign.world.data`) are formatted exactly as the backend formats a question -
the prompt file, then the processor's chat template - and the loss is on the answer tokens only.
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Any

from autoalign import prompts
from autoalign.world import data as wdata
from autoalign.world.render import draw
from autoalign.world.train import Plan, augment, fit

logger = logging.getLogger(__name__)

PLAN = Plan(steps=3000, batch_size=48, lr=1.5e-3, warmup=150)
N_SCENES = 3000
SMOKE_KWARGS = {"n_scenes": 8}
VOCAB = 640


def _corpus(examples: list[wdata.Example]) -> list[str]:
    lines = [prompts.load("vqa_yes_no.txt"), prompts.load("vqa_answer.txt"), "USER: ASSISTANT:"]
    lines += [f"{e.text} {e.answer}" for e in examples]
    for word in ("yes", "no", "Yes", "No"):
        lines += [word, f" {word}", f"ASSISTANT: {word}"] * 50
    return lines


def build(tokenizer) -> tuple[Any, Any]:
    """A fresh (model, processor) pair with random weights (seeded by the caller)."""
    from transformers import (
        CLIPImageProcessor,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    from autoalign.models.tiny_vlm import IMAGE_TOKEN, LLAVA_CHAT_TEMPLATE

    vision = CLIPVisionConfig(image_size=64, patch_size=8, hidden_size=96, intermediate_size=256,
                              num_hidden_layers=4, num_attention_heads=4, projection_dim=96)
    text = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=128, intermediate_size=320, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=256,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
    )
    config = LlavaConfig(
        vision_config=vision, text_config=text, image_token_id=tokenizer.convert_tokens_to_ids(IMAGE_TOKEN),
        vision_feature_select_strategy="default", vision_feature_layer=-1, projector_hidden_act="gelu",
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlavaForConditionalGeneration(config)
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": 64}, crop_size={"height": 64, "width": 64}, resample=0,  # nearest: keep edges
        image_mean=[0.5, 0.5, 0.5], image_std=[0.5, 0.5, 0.5],
    )
    processor = LlavaProcessor(
        image_processor=image_processor, tokenizer=tokenizer, patch_size=8,
        vision_feature_select_strategy="default", num_additional_image_tokens=1,
        chat_template=LLAVA_CHAT_TEMPLATE, image_token=IMAGE_TOKEN,
    )
    return model, processor


def prompt_text(processor, kind: str, text: str) -> str:
    """The exact text the ``image-text-to-text`` backend gives the processor for a question."""
    template = prompts.load("vqa_yes_no.txt" if kind == "yes_no" else "vqa_answer.txt").strip()
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": template.format(question=text)}]}]
    return processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


def examples(n_scenes: int, split: str = "train", seed: int = 0) -> list[wdata.Example]:
    rng = random.Random(seed)
    out: list[wdata.Example] = []
    for spec, scene in wdata.world_scenes(split, n_scenes):
        out += wdata.vlm_examples(spec, scene, rng)
    return out


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = N_SCENES, resume: bool = True, progress: bool = True) -> dict:
    import torch
    from transformers import PreTrainedTokenizerFast

    from autoalign.models.tiny_vlm import build_tokenizer
    from autoalign.world.train import work_dir

    pool = examples(n_scenes, seed=seed)
    logger.info("vlm: %d training examples from %d scenes", len(pool), n_scenes)
    # The tokenizer is part of the model: a resumed run reuses the one its checkpoint was trained with.
    saved = work_dir() / "vlm" / "tokenizer"
    if resume and (saved / "tokenizer.json").exists():
        tokenizer = PreTrainedTokenizerFast.from_pretrained(saved)
    else:
        tokenizer = build_tokenizer(corpus=_corpus(pool), vocab_size=VOCAB)
        tokenizer.save_pretrained(saved)
    torch.manual_seed(seed)
    model, processor = build(tokenizer)
    tokenizer.padding_side = "right"
    eos = tokenizer.eos_token

    def batch_loss(step: int, rng: random.Random):
        batch = [pool[rng.randrange(len(pool))] for _ in range(plan.batch_size)]
        texts = [prompt_text(processor, e.kind, e.text) + " " + e.answer + eos for e in batch]
        images = [augment(draw(e.scene), rng) for e in batch]
        enc = processor(text=texts, images=images, padding=True, return_tensors="pt")
        labels = torch.full_like(enc["input_ids"], -100)
        lengths = enc["attention_mask"].sum(-1)
        for i, e in enumerate(batch):
            n = len(tokenizer(" " + e.answer + eos, add_special_tokens=False)["input_ids"])
            end = int(lengths[i])
            labels[i, end - n : end] = enc["input_ids"][i, end - n : end]
        return model(**enc, labels=labels).loss

    stats = fit("vlm", {"model": model}, plan, batch_loss, seed, resume=resume, progress=progress)
    tokenizer.padding_side = "left"
    export(model, processor, tokenizer, Path(out_dir))
    return {**stats, "examples": len(pool), "params": sum(p.numel() for p in model.parameters())}


def export(model, processor, tokenizer, out_dir: Path) -> None:
    import torch

    out_dir.mkdir(parents=True, exist_ok=True)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.bos_token_id = tokenizer.bos_token_id
    model.to(torch.float16).save_pretrained(out_dir, safe_serialization=True)
    model.to(torch.float32)
    processor.save_pretrained(out_dir)
