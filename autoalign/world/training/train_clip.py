"""Train the world's CLIP: an open_clip ``CLIP`` from a custom config, contrastive on world images and
captions, with one-edit-away captions (swapped colour, count, shape, size or relation) as extra
negatives in every batch - the ColorSwap / BiVLC recipe. ``hard_negatives=False`` trains the
ablation without them (``autoalign world train --only clip-plain``); ``swaps=True`` makes half the
negatives that can be binding swaps (colours exchanged between two objects, a relation reversed:
``--only clip-swap``).

Saved in open_clip's hub layout (``open_clip_config.json`` + ``open_clip_model.safetensors``) and
loaded by the ``open_clip`` backend unchanged. open_clip's own tokenizer (shipped in its package)
is used, so the text tower keeps CLIP's 49,408-token vocabulary at a small width.
"""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path

from autoalign.world.render import draw
from autoalign.world.training import data as wdata
from autoalign.world.training.train import Plan, augment, fit
from autoalign.world.training.train_vae import to_tensor

logger = logging.getLogger(__name__)

PLAN = Plan(steps=700, batch_size=96, lr=1e-3, warmup=60)
N_SCENES = 6000
SMOKE_KWARGS = {"n_scenes": 16}
MEAN, STD = (0.5, 0.5, 0.5), (0.5, 0.5, 0.5)
CONFIG = {
    "embed_dim": 64,
    "vision_cfg": {"image_size": 64, "layers": 4, "width": 96, "head_width": 24, "patch_size": 8},
    "text_cfg": {"context_length": 32, "vocab_size": 49408, "width": 48, "heads": 4, "layers": 3},
}


def build():
    from open_clip.model import CLIP

    return CLIP(**json.loads(json.dumps(CONFIG)))


def train(out_dir: Path, seed: int = 0, plan: Plan = PLAN, n_scenes: int = N_SCENES, resume: bool = True,
          progress: bool = True, hard_negatives: bool = True, name: str = "clip", swaps: bool = False) -> dict:
    import open_clip
    import torch
    import torch.nn.functional as F

    rng0 = random.Random(seed)
    pairs = wdata.clip_pairs("train", n_scenes, rng0, swaps=swaps)
    tokenizer = open_clip.get_tokenizer("ViT-B-32", context_length=CONFIG["text_cfg"]["context_length"])
    torch.manual_seed(seed)
    model = build()

    def batch_loss(step: int, rng: random.Random):
        batch = [pairs[rng.randrange(len(pairs))] for _ in range(plan.batch_size)]
        images = to_tensor([augment(draw(scene), rng) for _, scene, _, _ in batch])
        texts = [cap for _, _, cap, _ in batch] + ([neg for _, _, _, neg in batch] if hard_negatives else [])
        img = F.normalize(model.encode_image(images), dim=-1)
        txt = F.normalize(model.encode_text(tokenizer(texts)), dim=-1)
        scale = model.logit_scale.exp().clamp(max=100)
        logits = scale * img @ txt.T  # B x B (or B x 2B with the hard negatives)
        target = torch.arange(len(batch))
        # captions repeat across a batch: a caption identical to the target counts as correct too
        caps = [cap for _, _, cap, _ in batch]
        same = torch.tensor([[a == b for b in texts] for a in caps])
        logits_i = logits.masked_fill(same & ~torch.eye(len(batch), len(texts), dtype=torch.bool), float("-inf"))
        loss_i = F.cross_entropy(logits_i, target)
        logits_t = logits[:, : len(batch)].T
        same_t = torch.tensor([[a == b for b in caps] for a in caps])
        loss_t = F.cross_entropy(logits_t.masked_fill(same_t & ~torch.eye(len(batch), dtype=torch.bool), float("-inf")), target)
        return (loss_i + loss_t) / 2

    stats = fit(name, {"model": model}, plan, batch_loss, seed, resume=resume, progress=progress)
    export(model, Path(out_dir))
    return {**stats, "pairs": len(pairs), "hard_negatives": hard_negatives, "swaps": swaps, "params": sum(p.numel() for p in model.parameters())}


def export(model, out_dir: Path) -> None:
    import torch
    from safetensors.torch import save_file

    out_dir.mkdir(parents=True, exist_ok=True)
    config = {
        "model_cfg": CONFIG,
        "preprocess_cfg": {"mean": list(MEAN), "std": list(STD), "interpolation": "bicubic", "resize_mode": "shortest"},
    }
    (out_dir / "open_clip_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out_dir / "open_clip_model.safetensors"))
