"""Train the world's VLM: a LLaVA-style ``LlavaForConditionalGeneration`` (a CLIP vision tower, a
projector, a small Llama) with a byte-level BPE tokenizer trained on the world's questions.

It is the same family the ``tiny`` preset builds (:mod:`autoalign.models.tiny_vlm`), saved with
``save_pretrained`` and loaded by the ``image-text-to-text`` VQA backend unchanged. Training
examples (:mod:`autoalign.world.training.data`) are formatted exactly as the backend formats a question -
the prompt file, then the processor's chat template - and the loss is on the answer tokens only.

Three things make it look at the image rather than answer from the question's form (README, "The VLM
now looks at the image"): complementary yes/no pairs balanced per topic (:func:`examples`), an
auxiliary patch-grounding loss (:class:`Grounding`) and matcher heads at the start (:func:`match_init`).
"""

from __future__ import annotations

import logging
import random
from collections import Counter
from pathlib import Path
from typing import Any

from autoalign import prompts
from autoalign.world.render import draw
from autoalign.world.training import data as wdata
from autoalign.world.training.train import Plan, augment, fit

logger = logging.getLogger(__name__)

PLAN = Plan(steps=8000, batch_size=48, lr=1.5e-3, warmup=150)
N_SCENES = 3000
#: the round-12 experiment (:func:`refine`, not committed): the committed model trained on at a lower rate
REFINE = Plan(steps=4000, batch_size=48, lr=5e-4, warmup=200)
REFINE_SCENES = 6000
SMOKE_KWARGS = {"n_scenes": 8}
VOCAB = 640
GROUNDING = 1.0  # weight of the patch-grounding loss (:class:`Grounding`)


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


def examples(n_scenes: int, split: str = "train", seed: int = 0, closed_counts: bool = False,
             per_number: bool = False, copies: float = 0.0) -> list[wdata.Example]:
    """Complementary yes/no pairs (each question on a scene and on its twin one edit away), balanced
    per question topic, plus short answers (:mod:`autoalign.world.training.data`).

    With ``copies`` (round 14's experiment), that share of the scenes whose caption names something
    with "a" get as their twin the scene with a second copy of it (:func:`edits.copy_of_single`): the
    hard negative of "is there one red circle?", which a random twin seldom is."""
    from autoalign.world.training.edits import copy_of_single, one_edit_away

    rng = random.Random(seed)
    out: list[wdata.Example] = []
    for spec, scene in wdata.world_scenes(split, n_scenes):
        # a twin one edit away (recoloured, reshaped, an object dropped or added, a relation swapped)
        twin = one_edit_away(spec, scene, rng, tries=5, must_differ=False)
        if copies and rng.random() < copies:
            twin = copy_of_single(spec, scene, rng) or twin
        out += wdata.complementary_examples(spec, scene, twin, rng, closed_counts)
    return wdata.balance(out, rng, per_number)


def patch_labels(scene, grid: int = 8, counts: bool = False) -> list[tuple[int, ...]]:
    """Per patch (row-major, ``grid`` x ``grid``): the indices of the colour, shape and size of the object
    covering at least a quarter of it, (-1, -1, -1) for the background. With ``counts``, two more: how
    many objects of the scene share its shape, and its colour and shape, as indices into the count
    words ("one" is 0), -1 for the background."""
    import numpy as np

    from autoalign.world.render import object_map
    from autoalign.world.scene import colors, count_words, shapes, sizes

    ids = np.asarray(object_map(scene))
    cell = ids.shape[0] // grid
    palette, forms, scales = list(colors()), shapes(), list(sizes())
    most = len(count_words())
    width = 5 if counts else 3
    same_shape = Counter(o.shape for o in scene.objects)
    same_kind = Counter((o.shape, o.color) for o in scene.objects)
    out = []
    for r in range(grid):
        for c in range(grid):
            block = ids[r * cell:(r + 1) * cell, c * cell:(c + 1) * cell]
            tally = np.bincount(block.ravel(), minlength=len(scene.objects) + 1)
            tally[0] = 0
            k = int(tally.argmax())
            if tally[k] * 4 < block.size:  # under a quarter of the patch: background
                out.append((-1,) * width)
                continue
            o = scene.objects[k - 1]
            label = (palette.index(o.color), forms.index(o.shape), scales.index(o.size))
            if counts:
                label += (min(same_shape[o.shape], most) - 1, min(same_kind[(o.shape, o.color)], most) - 1)
            out.append(label)
    return out


class Grounding:
    """An auxiliary loss that makes every image token say what is under its patch.

    Trained from scratch on yes/no answers alone, the vision tower's patch tokens end up nearly equal
    within an image (a large shared component, the object's part about 1 % of the norm), so after the
    language model's RMSNorm the question words have nothing local to compare with, and yes/no stays
    at chance. Here each projected patch token must classify its object's colour, shape and size (or
    the background) by *cosine* to the language model's input embeddings of those words: the
    direction of a token, which is what survives RMSNorm, must name its object, in the same space as
    the question's words. Training only: the exported model is a plain ``LlavaForConditionalGeneration``.

    With ``counts`` (the round-12 experiment :func:`refine`), two more heads name, as the words "one",
    "two", ..., how many objects of the scene share the patch's shape, and its colour and shape: a
    count question ("are there two circles?") could become the same word match as a colour question
    (round 12 measured that it does not, README).
    """

    TEMPERATURE = 10.0

    def __init__(self, model, tokenizer, counts: bool = False):
        import torch

        from autoalign.world.scene import colors, count_words, shapes, sizes

        def ids(word: str) -> list[int]:
            return [tokenizer(w, add_special_tokens=False)["input_ids"][0] for w in (word, " " + word)]

        self.model = model
        words = [list(colors()), shapes(), list(sizes())] + [count_words()] * (2 if counts else 0)
        self.heads = [torch.tensor([ids(w) for w in group]) for group in words]
        hidden = model.config.text_config.hidden_size
        #: one learned "background" direction per head (saved in the training checkpoint, not exported)
        self.extra = torch.nn.ParameterDict({"background": torch.nn.Parameter(torch.randn(len(words), hidden) * 0.02)})
        self.features = None
        model.model.multi_modal_projector.register_forward_hook(self._keep)

    def _keep(self, module, inputs, output) -> None:
        self.features = output

    def loss(self, labels):
        """``labels``: per example, per patch (colour, shape, size) indices, -1 for the background."""
        import torch
        import torch.nn.functional as F

        f = F.normalize(self.features, dim=-1)  # (B, patches, hidden)
        emb = self.model.get_input_embeddings().weight
        lab = torch.as_tensor(labels)
        total = 0.0
        for j, word_ids in enumerate(self.heads):
            classes = torch.cat([emb[word_ids].mean(1), self.extra["background"][j : j + 1]])
            logits = self.TEMPERATURE * f @ F.normalize(classes, dim=-1).T
            target = torch.where(lab[..., j] >= 0, lab[..., j], len(word_ids))
            total = total + F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1))
        return total / len(self.heads)


def match_init(model, layers: int = 2, heads: int = 2, scale: float = 5.0) -> None:
    """Start some attention heads of the first layers as *matchers*: the key projection equals the query
    projection on the head's slowest rotary dimensions (which barely turn over the sequence), scaled up,
    so a token attends to earlier tokens that point the same way - a question word to the image tokens
    that (through :class:`Grounding`) point toward that word. Only the starting point; all is trained."""
    import torch

    cfg = model.config.text_config
    head_dim = cfg.hidden_size // cfg.num_attention_heads
    half = head_dim // 2
    slow = [i for i in range(half) if i >= half - 6] + [half + i for i in range(half) if i >= half - 6]
    with torch.no_grad():
        for layer in model.model.language_model.layers[:layers]:
            q, k = layer.self_attn.q_proj.weight, layer.self_attn.k_proj.weight
            for h in range(heads):
                rows = [h * head_dim + d for d in slow]
                q[rows] *= scale
                k[rows] = q[rows]


def _fit(name: str, model, processor, tokenizer, pool: list[wdata.Example], plan: Plan, seed: int,
         counts: bool, resume: bool, progress: bool) -> dict:
    """Train ``model`` on ``pool`` (answer tokens plus patch grounding) with :func:`fit`."""
    import torch

    tokenizer.padding_side = "right"
    eos = tokenizer.eos_token
    ground = Grounding(model, tokenizer, counts=counts)

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
        loss = model(**enc, labels=labels).loss
        return loss + GROUNDING * ground.loss([patch_labels(e.scene, counts=counts) for e in batch])

    stats = fit(name, {"model": model, "grounding": ground.extra}, plan, batch_loss, seed, resume=resume, progress=progress)
    tokenizer.padding_side = "left"
    return stats


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = N_SCENES, resume: bool = True, progress: bool = True) -> dict:
    import torch
    from transformers import PreTrainedTokenizerFast

    from autoalign.models.tiny_vlm import build_tokenizer
    from autoalign.world.training.train import work_dir

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
    match_init(model)
    stats = _fit("vlm", model, processor, tokenizer, pool, plan, seed, counts=False, resume=resume, progress=progress)
    export(model, processor, tokenizer, Path(out_dir))
    return {**stats, "examples": len(pool), "params": sum(p.numel() for p in model.parameters())}


def refine(start: Path, out_dir: Path, seed: int = 0, plan: Plan = REFINE, n_scenes: int = REFINE_SCENES,
           closed_counts: bool = True, per_number: bool = False, copies: float = 0.0, resume: bool = True,
           progress: bool = True) -> dict:
    """An experiment, not part of the committed recipe (README, round 12): the model saved in ``start``
    trained on at a lower learning rate, on more scenes, with the count-grounding heads, with
    ``closed_counts`` the count questions that option of the question generator writes, and with
    ``per_number`` count questions balanced per number (:func:`autoalign.world.training.data.balance`).
    Run it with ``python -m experiments.vlm_refine``."""
    import torch
    from transformers import LlavaForConditionalGeneration, LlavaProcessor

    pool = examples(n_scenes, seed=seed, closed_counts=closed_counts, per_number=per_number, copies=copies)
    logger.info("vlm-refine: %d training examples from %d scenes", len(pool), n_scenes)
    processor = LlavaProcessor.from_pretrained(start)
    model = LlavaForConditionalGeneration.from_pretrained(start, dtype=torch.float32)
    torch.manual_seed(seed)
    stats = _fit("vlm-refine", model, processor, processor.tokenizer, pool, plan, seed, counts=True, resume=resume, progress=progress)
    export(model, processor, processor.tokenizer, Path(out_dir))
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
