"""Tiny random-weight models, built in code and saved with ``save_pretrained``.

They let the whole loop run on a CPU in seconds, offline, through exactly the loading code a GPU
user runs (``from_pretrained`` on a directory). Their outputs mean nothing: the weights are random.

=========  ===========================================================  ======================
name       what                                                         loaded by
=========  ===========================================================  ======================
``sd``     StableDiffusionPipeline (UNet, VAE, CLIP text encoder)       generator ``diffusers``
``ip2p``   StableDiffusionInstructPix2PixPipeline (8-channel UNet)      editor ``instruct-pix2pix``
``clip``   open_clip CLIP in open_clip's hf-hub directory layout        clip ``open_clip``
``llava``  tiny LLaVA (built by :mod:`autoalign.models.tiny_vlm`)       vqa ``image-text-to-text``
``blip2``  tiny BLIP-2 (built by :mod:`autoalign.models.tiny_vlm`)      vqa ``blip2``
=========  ===========================================================  ======================

and the current families, each through the backend its real preset uses: ``sdxl``, ``sd3``, ``flux``
(generator ``diffusers``), ``flux-kontext`` and ``qwen-image-edit`` (editor ``diffusers-edit``), built
by :mod:`autoalign.models.tiny_pipelines`; ``qwen2_5_vl`` and ``internvl`` (vqa
``image-text-to-text``), built by :mod:`autoalign.models.tiny_vlm`; ``owlv2``, ``grounding-dino`` and
``segformer`` (grounder ``owlv2`` / ``grounding-dino`` / ``segformer``), built by
:mod:`autoalign.models.tiny_grounder`.

Nothing is downloaded. The diffusion pipelines' tokenizer is a real CLIP BPE tokenizer made from
the merges file that open_clip ships inside its package, cut to its first
:data:`TOKENIZER_MERGES` merges so the vocabulary (and the text encoder's embedding) stays small.

``ensure(name, tiny_dir())`` builds a model into ``$AUTOALIGN_HOME/tiny/NAME`` on first use. A build goes into
a temporary directory that is renamed into place only when complete, so two processes racing to
build the same model never see (or leave) a half-written directory.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import logging
import os
import shutil
import tempfile
from importlib import resources
from pathlib import Path
from typing import Callable, Iterator

from autoalign.errors import InputError

logger = logging.getLogger(__name__)

#: Bump when a builder changes; directories built by an older version are rebuilt by ``ensure``.
BUILDER_VERSION = 1
#: File written last into every tiny model directory; it marks a complete build.
MARKER = "TINY_MODEL.json"
#: How many BPE merges of CLIP's merges file the tiny diffusion tokenizer keeps.
TOKENIZER_MERGES = 2000
SEED = 0

_README = """# Tiny random-weight model: {name}

Built in code by `autoalign.models.tiny` (builder version {version}) with fixed seeds.
The weights are RANDOM: outputs are noise and scores are meaningless. This model exists so the
AutoAlign loop can run on a CPU, offline, through the same loading code as real models.
"""


# --------------------------------------------------------------------------------------------
# helpers


@contextlib.contextmanager
def _seeded(seed: int = SEED) -> Iterator[None]:
    """Run a block with torch's global RNG seeded, restoring the caller's RNG state afterwards."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


def clip_bpe(num_merges: int = TOKENIZER_MERGES) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """CLIP's BPE vocabulary and merges, from the merges file open_clip ships, cut to ``num_merges``.

    CLIP's vocabulary is the 256 byte-level characters, the same with ``</w>`` appended, one entry
    per merge, then ``<|startoftext|>`` and ``<|endoftext|>``. A prefix of the merge list is still a
    valid BPE model: words just split into more pieces.
    """
    from open_clip.tokenizer import bytes_to_unicode

    raw = resources.files("open_clip").joinpath("bpe_simple_vocab_16e6.txt.gz").read_bytes()
    lines = gzip.decompress(raw).decode("utf-8").split("\n")
    merges = [tuple(line.split()) for line in lines[1 : 1 + num_merges]]  # line 0 is a version header
    chars = list(bytes_to_unicode().values())
    tokens = chars + [c + "</w>" for c in chars] + ["".join(m) for m in merges]
    tokens += ["<|startoftext|>", "<|endoftext|>"]
    return {tok: i for i, tok in enumerate(tokens)}, merges  # type: ignore[return-value]


def _tiny_tokenizer():
    from transformers import CLIPTokenizer

    vocab, merges = clip_bpe()
    return CLIPTokenizer(vocab=vocab, merges=merges, model_max_length=77)


def _tiny_text_encoder(tokenizer):
    from transformers import CLIPTextConfig, CLIPTextModel

    config = CLIPTextConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        intermediate_size=37,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=77,
        projection_dim=32,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    with _seeded(SEED + 1):
        return CLIPTextModel(config).eval()


def _tiny_vae():
    from diffusers import AutoencoderKL

    # Four blocks, like Stable Diffusion's VAE, so images are 8x the latent size (vae_scale_factor 8).
    with _seeded(SEED + 2):
        return AutoencoderKL(
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


def _tiny_unet(in_channels: int):
    from diffusers import UNet2DConditionModel

    with _seeded(SEED + 3):
        return UNet2DConditionModel(
            sample_size=8,
            in_channels=in_channels,
            out_channels=4,
            down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
            up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
            block_out_channels=(16, 32),
            layers_per_block=1,
            norm_num_groups=8,
            cross_attention_dim=32,  # = the text encoder's hidden size
            attention_head_dim=(2, 4),
        ).eval()


def _tiny_scheduler():
    from diffusers import EulerDiscreteScheduler

    return EulerDiscreteScheduler(
        beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear", timestep_spacing="trailing",
        steps_offset=1,
    )


def _save_pipeline(pipeline_cls, unet_in_channels: int, out_dir: Path) -> None:
    tokenizer = _tiny_tokenizer()
    pipe = pipeline_cls(
        vae=_tiny_vae(),
        text_encoder=_tiny_text_encoder(tokenizer),
        tokenizer=tokenizer,
        unet=_tiny_unet(unet_in_channels),
        scheduler=_tiny_scheduler(),
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.save_pretrained(out_dir, safe_serialization=True)


# --------------------------------------------------------------------------------------------
# builders


def build_sd(out_dir: Path) -> None:
    """A tiny StableDiffusionPipeline (text-to-image), saved in diffusers' directory layout."""
    from diffusers import StableDiffusionPipeline

    _save_pipeline(StableDiffusionPipeline, 4, Path(out_dir))


def build_ip2p(out_dir: Path) -> None:
    """A tiny StableDiffusionInstructPix2PixPipeline: its UNet reads 8 channels (noise + image latents)."""
    from diffusers import StableDiffusionInstructPix2PixPipeline

    _save_pipeline(StableDiffusionInstructPix2PixPipeline, 8, Path(out_dir))


def build_sd_inpaint(out_dir: Path) -> None:
    """A tiny StableDiffusionInpaintPipeline: its UNet reads 9 channels (noise + mask + masked image latents),
    the layout of ``stable-diffusion-v1-5/stable-diffusion-inpainting``."""
    from diffusers import StableDiffusionInpaintPipeline

    _save_pipeline(StableDiffusionInpaintPipeline, 9, Path(out_dir))


#: The tiny open_clip architecture. The text tower keeps CLIP's full 49408-token vocabulary because
#: open_clip's own tokenizer (shipped in its package) is used, so its width stays very small.
TINY_CLIP_CFG: dict = {
    "embed_dim": 16,
    "vision_cfg": {"image_size": 32, "layers": 1, "width": 32, "head_width": 16, "patch_size": 8},
    "text_cfg": {"context_length": 77, "vocab_size": 49408, "width": 16, "heads": 2, "layers": 1},
}


def build_clip(out_dir: Path) -> None:
    """A tiny open_clip model in the layout open_clip's ``hf-hub:``/``local-dir:`` loaders read.

    ``open_clip_config.json`` holds ``{"model_cfg": ..., "preprocess_cfg": ...}`` and the weights are
    in ``open_clip_model.safetensors``.
    """
    from open_clip.constants import OPENAI_DATASET_MEAN, OPENAI_DATASET_STD
    from open_clip.model import CLIP
    from safetensors.torch import save_file

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    with _seeded(SEED + 4):
        model = CLIP(**json.loads(json.dumps(TINY_CLIP_CFG))).eval()
    config = {
        "model_cfg": TINY_CLIP_CFG,
        "preprocess_cfg": {
            "mean": list(OPENAI_DATASET_MEAN),
            "std": list(OPENAI_DATASET_STD),
            "interpolation": "bicubic",
            "resize_mode": "shortest",
        },
    }
    (out_dir / "open_clip_config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    state = {k: v.detach().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(out_dir / "open_clip_model.safetensors"))


def build_llava(out_dir: Path) -> None:
    """A tiny LLaVA-style VLM (built by :mod:`autoalign.models.tiny_vlm`)."""
    from autoalign.models import tiny_vlm

    tiny_vlm.build_llava(Path(out_dir))


def build_blip2(out_dir: Path) -> None:
    """A tiny BLIP-2 VLM (built by :mod:`autoalign.models.tiny_vlm`)."""
    from autoalign.models import tiny_vlm

    tiny_vlm.build_blip2(Path(out_dir))


def _family(module: str, name: str) -> Callable[[Path], None]:
    """A builder from :mod:`autoalign.models.tiny_pipelines` or :mod:`autoalign.models.tiny_vlm` (imported on use)."""

    def build(out_dir: Path) -> None:
        import importlib

        importlib.import_module(f"autoalign.models.{module}").BUILDERS[name](Path(out_dir))

    build.__doc__ = f"The tiny {name} model of :mod:`autoalign.models.{module}`."
    return build


TINY_MODELS: dict[str, Callable[[Path], None]] = {
    "sd": build_sd,
    "ip2p": build_ip2p,
    "sd-inpaint": build_sd_inpaint,
    "clip": build_clip,
    "llava": build_llava,
    "blip2": build_blip2,
    "sdxl": _family("tiny_pipelines", "sdxl"),
    "sd3": _family("tiny_pipelines", "sd3"),
    "flux": _family("tiny_pipelines", "flux"),
    "flux-kontext": _family("tiny_pipelines", "flux-kontext"),
    "sdxl-inpaint": _family("tiny_pipelines", "sdxl-inpaint"),
    "flux-fill": _family("tiny_pipelines", "flux-fill"),
    "qwen-image-edit": _family("tiny_pipelines", "qwen-image-edit"),
    "qwen2_5_vl": _family("tiny_vlm", "qwen2_5_vl"),
    "internvl": _family("tiny_vlm", "internvl"),
    "owlv2": _family("tiny_grounder", "owlv2"),
    "grounding-dino": _family("tiny_grounder", "grounding-dino"),
    "segformer": _family("tiny_grounder", "segformer"),
}
#: The tiny models of the ``tiny`` preset: what ``make-tiny`` builds when no name is given.
DEFAULT_TINY: tuple[str, ...] = ("sd", "ip2p", "clip", "llava", "blip2")


# --------------------------------------------------------------------------------------------
# building into place


def check_name(name: str) -> None:
    if name not in TINY_MODELS:
        raise InputError(f"unknown tiny model {name!r}; tiny models: {', '.join(TINY_MODELS)}")


def is_built(path: Path) -> bool:
    """True when ``path`` holds a complete tiny model built by the current builder version."""
    marker = Path(path) / MARKER
    try:
        return json.loads(marker.read_text(encoding="utf-8")).get("builder_version") == BUILDER_VERSION
    except (OSError, ValueError):
        return False


def build(name: str, out_dir: Path, force: bool = False) -> Path:
    """Build tiny model ``name`` into ``out_dir/name`` (atomically) unless a current build is there."""
    check_name(name)
    out_dir = Path(out_dir)
    target = out_dir / name
    if is_built(target) and not force:
        return target
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}.building-", dir=out_dir))
    tmp.chmod(0o755)  # mkdtemp makes it private; the finished model is an ordinary directory
    try:
        logger.info("building tiny model %r into %s", name, target)
        from autoalign.models.hf_logging import quiet_hf_progress

        with quiet_hf_progress():
            TINY_MODELS[name](tmp)
        (tmp / "README.md").write_text(_README.format(name=name, version=BUILDER_VERSION), encoding="utf-8")
        (tmp / MARKER).write_text(
            json.dumps({"name": name, "builder_version": BUILDER_VERSION, "random_weights": True}), encoding="utf-8"
        )
        if is_built(target) and not force:  # another process finished first: keep its build
            shutil.rmtree(tmp, ignore_errors=True)
            return target
        if target.exists():  # an old or forced build: move it aside first, then drop it
            old = Path(tempfile.mkdtemp(prefix=f".{name}.old-", dir=out_dir))
            try:
                os.rename(target, old / name)
            except FileNotFoundError:
                pass  # another process moved it already
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(tmp, target)
        except OSError:
            # Another process finished first: its build is as good as ours.
            if not is_built(target):
                raise
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target


def ensure(name: str, directory: Path) -> Path:
    """The directory of tiny model ``name`` under ``directory`` (``models.loading.tiny_dir()``), built
    there on first use. The caller names the folder, so building never imports the loading code."""
    return build(name, Path(directory))


def disk_size(path: Path) -> int:
    """Bytes on disk of every file under ``path``."""
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


def param_count(path: Path) -> int:
    """Number of parameters in every ``*.safetensors`` file under ``path`` (read from headers only)."""
    from safetensors import safe_open

    total = 0
    for file in Path(path).rglob("*.safetensors"):
        with safe_open(str(file), framework="pt") as f:
            for key in f.keys():
                n = 1
                for dim in f.get_slice(key).get_shape():
                    n *= dim
                total += n
    return total
