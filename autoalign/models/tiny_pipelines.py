"""Tiny random-weight diffusion pipelines of the current model families, built in code (no download).

Each builder writes a complete diffusers directory (``save_pretrained``) that the real backends load
unchanged, so the exact code path of a preset's family runs on a CPU in seconds:

===================  ==============================  =====================================================
name                 pipeline                        components
===================  ==============================  =====================================================
``sdxl``             StableDiffusionXLPipeline       text-time UNet, CLIP-L + CLIP-bigG-style encoders
``sd3``              StableDiffusion3Pipeline        MMDiT, two CLIP encoders with projection + T5 encoder
``flux``             FluxPipeline                    FLUX transformer (double + single blocks), CLIP + T5
``flux-kontext``     FluxKontextPipeline             the same components; the editor conditions on an image
``sdxl-inpaint``     StableDiffusionXLInpaintPipeline  the SDXL layout, 9-channel UNet (noise, mask, masked image)
``flux-fill``        FluxFillPipeline                the FLUX layout; the transformer also reads the masked image and mask
``qwen-image-edit``  QwenImageEditPipeline           Qwen-Image MMDiT, Qwen2.5-VL text encoder, 3-D VAE
===================  ==============================  =====================================================

Shapes follow diffusers' own fast tests (tiny widths, one or two layers), with the real families'
latent layouts: FLUX/SD3 packing, Qwen-Image's 8x VAE. Tokenizers are built here too: CLIP's BPE from
the merges file open_clip ships (:func:`autoalign.models.tiny.clip_bpe`), a small T5-style Unigram
tokenizer, and the tiny Qwen tokenizer of :mod:`autoalign.models.tiny_vlm`. The weights are random:
the pictures are noise; the machinery is the real one.
"""

from __future__ import annotations

import logging
from pathlib import Path

from autoalign.models.tiny import _seeded, _tiny_tokenizer, _tiny_unet  # noqa: F401  (shared builders)

logger = logging.getLogger(__name__)

#: Hidden width of every tiny text encoder (CLIP, T5), so their outputs line up as in the real models.
TEXT_WIDTH = 32


def _clip_text(projection: bool, seed: int, tokenizer):
    from transformers import CLIPTextConfig, CLIPTextModel, CLIPTextModelWithProjection

    config = CLIPTextConfig(
        vocab_size=len(tokenizer),
        hidden_size=TEXT_WIDTH,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=77,
        projection_dim=TEXT_WIDTH,
        hidden_act="gelu",
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with _seeded(seed):
        return (CLIPTextModelWithProjection if projection else CLIPTextModel)(config).eval()


def t5_tokenizer():
    """A small T5-style Unigram tokenizer (``▁word`` pieces + characters), built without a download."""
    from transformers import T5Tokenizer

    from autoalign.models.tiny_vlm import _corpus

    words = sorted({w.strip('?.,:"') for line in _corpus() for w in line.split()} - {""})
    chars = sorted({c for w in words for c in w} | set("abcdefghijklmnopqrstuvwxyz0123456789"))
    vocab = [("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -2.0)]
    vocab += [("▁" + w, -1.0 * len(w) ** 0.5) for w in words]
    vocab += [(c, -8.0) for c in chars] + [("▁" + c, -7.0) for c in chars]
    return T5Tokenizer(vocab=vocab, extra_ids=0)


def _t5_encoder(tokenizer, seed: int):
    from transformers import T5Config, T5EncoderModel

    config = T5Config(
        vocab_size=len(tokenizer),
        d_model=TEXT_WIDTH,
        d_kv=8,
        d_ff=37,
        num_layers=2,
        num_heads=4,
        pad_token_id=tokenizer.pad_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    with _seeded(seed):
        return T5EncoderModel(config).eval()


def _flow_vae(seed: int):
    """A tiny AutoencoderKL as FLUX and SD3 use it (no quant convs, shift and scale factors), 4x downsampling."""
    from diffusers import AutoencoderKL

    with _seeded(seed):
        return AutoencoderKL(
            in_channels=3,
            out_channels=3,
            down_block_types=("DownEncoderBlock2D",) * 3,
            up_block_types=("UpDecoderBlock2D",) * 3,
            block_out_channels=(8, 8, 16),
            layers_per_block=1,
            latent_channels=4,
            norm_num_groups=4,
            sample_size=32,
            use_quant_conv=False,
            use_post_quant_conv=False,
            shift_factor=0.0609,
            scaling_factor=1.5035,
        ).eval()


def build_sdxl(out_dir: Path, pipeline: str = "StableDiffusionXLPipeline", in_channels: int = 4) -> None:
    """A tiny StableDiffusionXLPipeline (the SDXL / SDXL-Turbo layout)."""
    import diffusers
    from diffusers import AutoencoderKL, EulerDiscreteScheduler, UNet2DConditionModel

    StableDiffusionXLPipeline = getattr(diffusers, pipeline)

    tokenizer = _tiny_tokenizer()
    with _seeded(11):
        unet = UNet2DConditionModel(
            sample_size=8,
            in_channels=in_channels,
            out_channels=4,
            down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
            up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
            block_out_channels=(16, 32),
            layers_per_block=1,
            norm_num_groups=8,
            attention_head_dim=(2, 4),
            use_linear_projection=True,
            addition_embed_type="text_time",
            addition_time_embed_dim=8,
            transformer_layers_per_block=(1, 2),
            projection_class_embeddings_input_dim=8 * 6 + TEXT_WIDTH,  # 6 time ids + pooled text
            cross_attention_dim=2 * TEXT_WIDTH,  # both encoders' hidden states, concatenated
        ).eval()
    with _seeded(12):
        vae = AutoencoderKL(
            in_channels=3,
            out_channels=3,
            down_block_types=("DownEncoderBlock2D",) * 4,
            up_block_types=("UpDecoderBlock2D",) * 4,
            block_out_channels=(8, 8, 16, 16),
            layers_per_block=1,
            latent_channels=4,
            norm_num_groups=4,
            sample_size=64,
        ).eval()
    scheduler = EulerDiscreteScheduler(
        beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", timestep_spacing="trailing", steps_offset=1
    )
    pipe = StableDiffusionXLPipeline(
        vae=vae,
        text_encoder=_clip_text(False, 13, tokenizer),
        text_encoder_2=_clip_text(True, 14, tokenizer),
        tokenizer=tokenizer,
        tokenizer_2=tokenizer,
        unet=unet,
        scheduler=scheduler,
    )
    pipe.save_pretrained(out_dir, safe_serialization=True)


def build_sd3(out_dir: Path) -> None:
    """A tiny StableDiffusion3Pipeline (the SD 3 / 3.5 layout: MMDiT, CLIP-L + CLIP-G + T5)."""
    from diffusers import FlowMatchEulerDiscreteScheduler, SD3Transformer2DModel, StableDiffusion3Pipeline

    tokenizer = _tiny_tokenizer()
    t5_tok = t5_tokenizer()
    with _seeded(21):
        transformer = SD3Transformer2DModel(
            sample_size=8,
            patch_size=1,
            in_channels=4,
            num_layers=1,
            attention_head_dim=8,
            num_attention_heads=4,
            caption_projection_dim=TEXT_WIDTH,
            joint_attention_dim=TEXT_WIDTH,
            pooled_projection_dim=2 * TEXT_WIDTH,  # both CLIPs' pooled projections, concatenated
            out_channels=4,
        ).eval()
    pipe = StableDiffusion3Pipeline(
        transformer=transformer,
        scheduler=FlowMatchEulerDiscreteScheduler(shift=3.0),
        vae=_flow_vae(22),
        text_encoder=_clip_text(True, 23, tokenizer),
        tokenizer=tokenizer,
        text_encoder_2=_clip_text(True, 24, tokenizer),
        tokenizer_2=tokenizer,
        text_encoder_3=_t5_encoder(t5_tok, 25),
        tokenizer_3=t5_tok,
    )
    pipe.save_pretrained(out_dir, safe_serialization=True)


def _flux_transformer(seed: int, in_channels: int, out_channels: int | None = None):
    """A one-block FluxTransformer2DModel over the tiny text width (``out_channels`` None: as ``in_channels``)."""
    from diffusers import FluxTransformer2DModel

    with _seeded(seed):
        return FluxTransformer2DModel(
            patch_size=1,
            in_channels=in_channels,
            out_channels=out_channels,
            num_layers=1,
            num_single_layers=1,
            attention_head_dim=16,
            num_attention_heads=2,
            joint_attention_dim=TEXT_WIDTH,
            pooled_projection_dim=TEXT_WIDTH,
            axes_dims_rope=[4, 4, 8],
        ).eval()


def _flux_components(seed: int) -> dict:
    from diffusers import FlowMatchEulerDiscreteScheduler

    tokenizer = _tiny_tokenizer()
    t5_tok = t5_tokenizer()
    transformer = _flux_transformer(seed, in_channels=16)  # 4 latent channels packed 2x2
    return dict(
        scheduler=FlowMatchEulerDiscreteScheduler(),
        vae=_flow_vae(seed + 1),
        text_encoder=_clip_text(False, seed + 2, tokenizer),
        tokenizer=tokenizer,
        text_encoder_2=_t5_encoder(t5_tok, seed + 3),
        tokenizer_2=t5_tok,
        transformer=transformer,
    )


def build_flux(out_dir: Path) -> None:
    """A tiny FluxPipeline (the FLUX.1 [schnell] / [dev] layout)."""
    from diffusers import FluxPipeline

    FluxPipeline(**_flux_components(31)).save_pretrained(out_dir, safe_serialization=True)


def build_flux_kontext(out_dir: Path) -> None:
    """A tiny FluxKontextPipeline (the FLUX.1 Kontext [dev] layout): an instruction editor."""
    from diffusers import FluxKontextPipeline

    FluxKontextPipeline(**_flux_components(41), image_encoder=None, feature_extractor=None).save_pretrained(
        out_dir, safe_serialization=True
    )


def build_sdxl_inpaint(out_dir: Path) -> None:
    """A tiny StableDiffusionXLInpaintPipeline: the SDXL layout with a 9-channel UNet (noise + mask +
    masked image latents), as ``diffusers/stable-diffusion-xl-1.0-inpainting-0.1``."""
    build_sdxl(out_dir, "StableDiffusionXLInpaintPipeline", 9)


def build_flux_fill(out_dir: Path) -> None:
    """A tiny FluxFillPipeline (the FLUX.1 Fill [dev] layout): the transformer reads the packed noise
    latents, the packed masked-image latents and the packed mask (vae_scale_factor**2 channels, 2x2-packed)."""
    from diffusers import FluxFillPipeline

    parts = _flux_components(51)
    vae_scale = 2 ** (len(parts["vae"].config.block_out_channels) - 1)
    packed = parts["vae"].config.latent_channels * 4
    parts["transformer"] = _flux_transformer(55, in_channels=2 * packed + vae_scale * vae_scale * 4, out_channels=packed)
    FluxFillPipeline(**parts).save_pretrained(out_dir, safe_serialization=True)


def build_qwen_image_edit(out_dir: Path) -> None:
    """A tiny QwenImageEditPipeline: Qwen-Image MMDiT, a tiny Qwen2.5-VL as text encoder, the 3-D VAE."""
    import tempfile

    from diffusers import (
        AutoencoderKLQwenImage,
        FlowMatchEulerDiscreteScheduler,
        QwenImageEditPipeline,
        QwenImageTransformer2DModel,
    )
    from transformers import AutoProcessor, Qwen2_5_VLForConditionalGeneration, Qwen2VLProcessor

    from autoalign.models import tiny_vlm

    with tempfile.TemporaryDirectory() as tmp:
        tiny_vlm.build_qwen2_5_vl(Path(tmp))
        text_encoder = Qwen2_5_VLForConditionalGeneration.from_pretrained(tmp).eval()
        loaded = AutoProcessor.from_pretrained(tmp)
    # Qwen-Image-Edit's repo ships a Qwen2VLProcessor around Qwen2.5-VL's tokenizer and image processor
    processor = Qwen2VLProcessor(
        image_processor=loaded.image_processor,
        tokenizer=loaded.tokenizer,
        video_processor=loaded.video_processor,
        chat_template=loaded.chat_template,
    )
    z_dim = 4
    with _seeded(51):
        vae = AutoencoderKLQwenImage(
            base_dim=8,
            z_dim=z_dim,
            dim_mult=[1, 2, 4, 4],
            num_res_blocks=1,
            temperal_downsample=[False, True, True],  # 8x spatial, as the real VAE
            latents_mean=[0.0] * z_dim,
            latents_std=[1.0] * z_dim,
        ).eval()
    with _seeded(52):
        transformer = QwenImageTransformer2DModel(
            patch_size=2,
            in_channels=4 * z_dim,
            out_channels=z_dim,
            num_layers=1,
            attention_head_dim=16,
            num_attention_heads=2,
            joint_attention_dim=text_encoder.config.text_config.hidden_size,
            guidance_embeds=False,
            axes_dims_rope=(8, 4, 4),
        ).eval()
    pipe = QwenImageEditPipeline(
        scheduler=FlowMatchEulerDiscreteScheduler(),
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=processor.tokenizer,
        processor=processor,
        transformer=transformer,
    )
    pipe.save_pretrained(out_dir, safe_serialization=True)


BUILDERS = {
    "sdxl": build_sdxl,
    "sd3": build_sd3,
    "flux": build_flux,
    "flux-kontext": build_flux_kontext,
    "sdxl-inpaint": build_sdxl_inpaint,
    "flux-fill": build_flux_fill,
    "qwen-image-edit": build_qwen_image_edit,
}
