"""Tiny random-weight grounders built in code (``tiny:owlv2``, ``tiny:grounding-dino``, ``tiny:segformer``).

Each is the real transformers architecture and processor, saved with ``save_pretrained`` and loaded
back by the ``grounder`` backend that serves the hub checkpoints of its family
(:mod:`autoalign.models.grounder`). The weights are RANDOM: the boxes they return mean nothing; they
exist so CI runs the grounding code path (processor, model, post-processing, typed output) offline.
"""

from __future__ import annotations

from pathlib import Path

from autoalign.models.tiny import _README, BUILDER_VERSION, _seeded, _tiny_tokenizer

IMAGE = 64


def _readme(out_dir: Path, name: str) -> None:
    (Path(out_dir) / "README.md").write_text(_README.format(name=name, version=BUILDER_VERSION), encoding="utf-8")


def build_owlv2(out_dir: Path) -> None:
    """A tiny ``Owlv2ForObjectDetection`` (ViT 64x64, patch 16) with ``Owlv2Processor`` (CLIP BPE tokenizer)."""
    from transformers import Owlv2Config, Owlv2ForObjectDetection, Owlv2ImageProcessor, Owlv2Processor

    tokenizer = _tiny_tokenizer()
    tokenizer.model_max_length = 16  # OWL's text tower reads 16 tokens (the processor pads to it)
    config = Owlv2Config(
        text_config={"vocab_size": len(tokenizer), "hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 1,
                     "num_attention_heads": 2, "max_position_embeddings": 16,
                     "bos_token_id": tokenizer.bos_token_id, "eos_token_id": tokenizer.eos_token_id,
                     "pad_token_id": tokenizer.pad_token_id},
        vision_config={"hidden_size": 32, "intermediate_size": 37, "num_hidden_layers": 1, "num_attention_heads": 2,
                       "image_size": IMAGE, "patch_size": 16},
        projection_dim=32,
    )
    with _seeded(0):
        model = Owlv2ForObjectDetection(config).eval()
    processor = Owlv2Processor(image_processor=Owlv2ImageProcessor(size={"height": IMAGE, "width": IMAGE}), tokenizer=tokenizer)
    model.save_pretrained(out_dir, safe_serialization=True)
    processor.save_pretrained(out_dir)
    _readme(out_dir, "owlv2")


def _bert_tokenizer():
    """A WordPiece tokenizer over a small vocabulary (special tokens, the world's words, letters)."""
    from transformers import BertTokenizer

    words = ["circle", "square", "triangle", "red", "green", "blue", "yellow", "purple", "white", "small", "big",
             "a", "an", "the", "of", "left", "right", "above", "below", "to", "cat", "dog", "car", "person"]
    letters = [chr(c) for c in range(ord("a"), ord("z") + 1)]
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "?"] + words + letters + ["##" + c for c in letters]
    ids: dict[str, int] = {}
    for tok in vocab:
        ids.setdefault(tok, len(ids))
    return BertTokenizer(vocab=ids)


def build_grounding_dino(out_dir: Path) -> None:
    """A tiny ``GroundingDinoForObjectDetection`` (Swin backbone, BERT text tower) with its processor."""
    from transformers import (
        BertConfig,
        GroundingDinoConfig,
        GroundingDinoForObjectDetection,
        GroundingDinoImageProcessor,
        GroundingDinoProcessor,
        SwinConfig,
    )

    out_dir = Path(out_dir)
    tokenizer = _bert_tokenizer()
    backbone = SwinConfig(image_size=IMAGE, patch_size=4, embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2],
                          window_size=4, out_features=["stage2", "stage3", "stage4"], out_indices=[2, 3, 4])
    text = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                      intermediate_size=37, max_position_embeddings=64)
    config = GroundingDinoConfig(
        backbone_config=backbone, text_config=text, num_queries=20, encoder_layers=1, decoder_layers=2,
        encoder_ffn_dim=32, decoder_ffn_dim=32, encoder_attention_heads=2, decoder_attention_heads=2, d_model=32,
        num_feature_levels=3, encoder_n_points=2, decoder_n_points=2, max_text_len=32, fusion_droppath=0.0,
    )
    with _seeded(0):
        model = GroundingDinoForObjectDetection(config).eval()
    image_processor = GroundingDinoImageProcessor(size={"shortest_edge": IMAGE, "longest_edge": IMAGE})
    processor = GroundingDinoProcessor(image_processor=image_processor, tokenizer=tokenizer)
    model.save_pretrained(out_dir, safe_serialization=True)
    processor.save_pretrained(out_dir)
    _readme(out_dir, "grounding-dino")


def build_segformer(out_dir: Path) -> None:
    """A tiny ``SegformerForSemanticSegmentation`` with the world grounder's label groups (random weights)."""
    from transformers import SegformerImageProcessor

    from autoalign.world.training.train_grounder import build

    with _seeded(0):
        model = build().eval()
    model.save_pretrained(out_dir, safe_serialization=True)
    SegformerImageProcessor(size={"height": IMAGE, "width": IMAGE}, do_reduce_labels=False).save_pretrained(out_dir)
    _readme(out_dir, "segformer")


BUILDERS = {"owlv2": build_owlv2, "grounding-dino": build_grounding_dino, "segformer": build_segformer}
