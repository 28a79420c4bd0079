#!/usr/bin/env python3
"""One GPU check of AutoAlign's model code paths, for a lent GPU machine (docs/gpu.md, "The GPU check").

    python3 scripts/gpu_check.py --out DIR                  # on a CUDA machine (sized for under 4 minutes on an H100)
    python3 scripts/gpu_check.py --out DIR --device cpu --quick   # here, without a GPU: the CUDA parts are skipped

Runs from the repository root with the package on ``PYTHONPATH`` (no ``pip install -e`` needed) and
writes ``DIR/gpu_check.json`` (rewritten after every check, so a run cut short still leaves what it
did), a side-by-side picture ``DIR/world_generator.png`` and a short summary on stdout. One check's
failure never stops the others: each is recorded as passed / failed (with its one-line error) /
skipped (with the reason).

Three groups:

* ``env``: torch / CUDA versions, the device, ``torch.cuda.is_bf16_supported(including_emulation=False)``.
* ``tiny/...``: the tiny RANDOM-WEIGHT pipelines the project builds in code (``autoalign models
  make-tiny``), loaded through the project's own role backends on the device in float16 and bfloat16,
  one call each. Their outputs mean nothing; these checks only show that the code path runs there:
  the output has the right type and size, every module's output is finite (no NaN, no black
  image) and every parameter sits on the device in the asked dtype.
* ``world/...``: the shapes world's committed, trained models (``autoalign/world/weights``) on the
  device in float32 / bfloat16 / float16 against the CPU float32 result for the same seeds on the
  world's validation captions: the oracle's reading agreement, the CLIP score difference, the
  grounder's box agreement, and the generator's images per second on each device.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import math
import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
#: Folders that ``pyproject.toml``'s package-dir maps into the package; only ``prompts`` is read by the
#: core modules this script imports (the world's word lists).
_MAPPED = {"autoalign.prompts": ROOT / "prompts"}
HALF = ("float16", "bfloat16")


def bootstrap() -> None:
    """Make ``import autoalign`` work from a plain checkout: offline hub, the root on ``sys.path``, and
    ``autoalign.prompts`` mapped to ``prompts/`` as an install would (pyproject's package-dir)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import autoalign

    for name, folder in _MAPPED.items():
        if name in sys.modules or importlib.util.find_spec(name) is not None:
            continue
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        setattr(autoalign, name.rsplit(".", 1)[1], module)


# --------------------------------------------------------------------------------------------
# recording


class CheckFailed(Exception):
    """A check's own verdict (as opposed to an error raised by the code under check)."""


def require(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = f"{type(exc).__name__}: {text[0] if text else ''}".strip()
    return line if len(line) <= 400 else line[:397] + "..."


def _where(exc: BaseException) -> str:
    """The innermost frame of the traceback inside this repository (else the innermost), as file:line."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename.startswith(str(ROOT))]
    frame = (ours or frames or [None])[-1]
    if frame is None:
        return ""
    name = frame.filename
    if name.startswith(str(ROOT)):
        name = os.path.relpath(name, ROOT)
    return f"{name}:{frame.lineno}"


class Recorder:
    """Runs checks one by one, never letting one failure stop the rest, and rewrites the report after each."""

    def __init__(self, path: Path | None, meta: dict[str, Any]):
        self.path = path
        self.meta = meta
        self.checks: list[dict[str, Any]] = []
        self.started = time.perf_counter()

    def run(self, name: str, fn: Callable[[dict[str, Any]], None], skip: str | None = None) -> dict[str, Any]:
        """Run ``fn(details)``; record passed / failed (one-line error) / skipped with the details it filled."""
        entry: dict[str, Any] = {"name": name, "status": "skipped", "error": None, "seconds": 0.0, "details": {}}
        if skip:
            entry["reason"] = skip
        else:
            start = time.perf_counter()
            try:
                fn(entry["details"])
                entry["status"] = "passed"
            except Exception as exc:  # noqa: BLE001 - every failure is recorded, the run goes on
                entry["status"] = "failed"
                entry["error"] = one_line(exc)
                if not isinstance(exc, CheckFailed):
                    entry["at"] = _where(exc)
            finally:
                entry["seconds"] = round(time.perf_counter() - start, 3)
        self.checks.append(entry)
        line = f"{entry['status'].upper():7s} {name} ({entry['seconds']:.1f} s)"
        if entry["error"] or skip:
            line += f": {entry['error'] or skip}"
        print(line, flush=True)
        self.write()
        return entry

    def counts(self) -> dict[str, int]:
        out = {"passed": 0, "failed": 0, "skipped": 0}
        for c in self.checks:
            out[c["status"]] += 1
        return out

    def report(self) -> dict[str, Any]:
        return {**self.meta, "seconds": round(time.perf_counter() - self.started, 1), "counts": self.counts(),
                "checks": self.checks}

    def write(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_name(f".{self.path.name}.tmp")
        tmp.write_text(json.dumps(self.report(), indent=2, default=str), encoding="utf-8")
        os.replace(tmp, self.path)


# --------------------------------------------------------------------------------------------
# what every model check looks at


def torch_modules(obj: Any) -> dict[str, Any]:
    """The torch modules of a loaded backend object: a diffusers pipeline's components, a module, or a
    tuple holding one (a grounder's ``(processor, model)``, open_clip's ``(model, preprocess, tokenizer)``)."""
    import torch

    if isinstance(obj, torch.nn.Module):
        return {type(obj).__name__: obj}
    components = getattr(obj, "components", None)
    if isinstance(components, dict):
        return {k: v for k, v in components.items() if isinstance(v, torch.nn.Module)}
    if isinstance(obj, (tuple, list)):
        out: dict[str, Any] = {}
        for item in obj:
            out.update(torch_modules(item))
        return out
    return {}


def _kept_fp32(module: Any) -> list[str]:
    """Submodule names a library deliberately keeps in float32 (transformers' / diffusers' ``_keep_in_fp32_modules``)."""
    names: list[str] = []
    for sub in module.modules():
        for attr in ("_keep_in_fp32_modules", "_keep_in_fp32_modules_strict"):
            names += list(getattr(sub, attr, None) or [])
    return sorted(set(names))


def placement(modules: dict[str, Any], device: str, dtype: str, matmul_only: bool = False) -> dict[str, Any]:
    """Where each module's parameters sit; raises CheckFailed when any is off ``device`` or (not being one a
    library keeps in float32 on purpose) not in ``dtype``. ``matmul_only``: only the weights of linear,
    convolution and attention layers must be in ``dtype`` (open_clip's ``bf16`` / ``fp16`` precision keeps
    layer norms, embeddings and the logit scale in float32 by design)."""
    import torch

    want = getattr(torch, dtype)
    matmul = (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d, torch.nn.MultiheadAttention)
    require(bool(modules), "no torch module found in the loaded backend")
    out: dict[str, Any] = {}
    problems: list[str] = []
    for name, module in modules.items():
        kept = _kept_fp32(module)
        lowered = {f"{m}.{p}" if m else p for m, sub in module.named_modules() if isinstance(sub, matmul)
                   for p, _ in sub.named_parameters(recurse=False)} if matmul_only else None
        devices: dict[str, int] = {}
        dtypes: dict[str, int] = {}
        off_device, wrong_dtype, exempt = [], [], 0
        for pname, p in module.named_parameters():
            devices[p.device.type] = devices.get(p.device.type, 0) + p.numel()
            dtypes[str(p.dtype).replace("torch.", "")] = dtypes.get(str(p.dtype).replace("torch.", ""), 0) + p.numel()
            if p.device.type != torch.device(device).type:
                off_device.append(pname)
            if p.is_floating_point() and p.dtype != want:
                if p.dtype == torch.float32 and (any(k in pname.split(".") for k in kept)
                                                 or (lowered is not None and pname not in lowered)):
                    exempt += p.numel()
                else:
                    wrong_dtype.append(pname)
        out[name] = {"params_by_device": devices, "params_by_dtype": dtypes}
        if exempt:
            out[name]["kept_fp32_by_library"] = {"params": exempt, "modules": kept or ["(not linear/conv/attention)"]}
        if off_device:
            problems.append(f"{name}: {len(off_device)} parameter(s) not on {device} (e.g. {off_device[0]})")
        if wrong_dtype:
            problems.append(f"{name}: {len(wrong_dtype)} parameter(s) not {dtype} (e.g. {wrong_dtype[0]})")
    require(not problems, "; ".join(problems))
    return out


def _tensors(value: Any):
    import torch

    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _tensors(v)


class NonFiniteWatch:
    """Forward hooks on each module and its direct children (a VAE's decoder, a UNet's blocks) that note
    any floating output holding NaN (``found``: where a black image comes from) or inf (``infinite``:
    noted only, since some models mask logits with -inf by design, e.g. Grounding DINO's padded text)."""

    def __init__(self, modules: dict[str, Any]):
        self.modules = modules
        self.found: list[str] = []
        self.infinite: list[str] = []
        self._handles: list[Any] = []

    def _hook(self, label: str):
        def hook(_module, _inputs, output):
            for t in _tensors(output):
                if not t.is_floating_point() or not t.numel():
                    continue
                if label not in self.found and bool(t.isnan().any()):
                    self.found.append(label)
                if label not in self.infinite and bool(t.isinf().any()):
                    self.infinite.append(label)

        return hook

    def verdict(self, details: dict[str, Any]) -> None:
        """Note any inf output in ``details``; raise CheckFailed naming the modules that output NaN."""
        if self.infinite:
            details["inf_outputs_noted"] = list(self.infinite)
        require(not self.found, f"NaN output in {', '.join(self.found)}")

    def __enter__(self) -> "NonFiniteWatch":
        for name, module in self.modules.items():
            for child, sub in [("", module), *module.named_children()]:
                label = f"{name}.{child}" if child else name
                self._handles.append(sub.register_forward_hook(self._hook(label)))
        return self

    def __exit__(self, *exc) -> None:
        for h in self._handles:
            h.remove()
        self._handles.clear()


def check_images(details: dict[str, Any], images: Any, size: tuple[int, int], count: int) -> None:
    """PIL RGB images of ``size``, ``count`` of them, none all black (what a NaN becomes in uint8)."""
    import numpy as np
    from PIL import Image

    require(isinstance(images, list) and len(images) == count, f"expected a list of {count} image(s), got {type(images).__name__} "
            f"of {len(images) if isinstance(images, list) else '?'}")
    stats = []
    for i, im in enumerate(images):
        require(isinstance(im, Image.Image), f"image {i} is a {type(im).__name__}, not a PIL image")
        require(im.size == size, f"image {i} is {im.size}, expected {size}")
        arr = np.asarray(im.convert("RGB"), dtype=np.float32)
        stats.append({"mean": round(float(arr.mean()), 2), "std": round(float(arr.std()), 2)})
        require(float(arr.max()) > 0.0, f"image {i} is all black (a NaN in the pipeline becomes 0 in uint8)")
    details["images"] = stats


def finite_numbers(values: Any, lo: float, hi: float, what: str) -> list[float]:
    values = [float(v) for v in values]
    bad = [v for v in values if not math.isfinite(v) or not lo <= v <= hi]
    require(not bad, f"{what}: {len(bad)} value(s) not finite in [{lo}, {hi}] (e.g. {bad[0] if bad else ''})")
    return values


def share(k: int, n: int) -> dict[str, Any]:
    """The share k/n with its 95 % Wilson interval, rounded to 3 places."""
    from autoalign.stats import wilson_interval  # after bootstrap(): the package from the checkout

    return {"k": k, "n": n, "share": round(k / n, 3) if n else None, "ci95": [round(x, 3) for x in wilson_interval(k, n)]}


def release(*backends: Any) -> None:
    for b in backends:
        if b is not None and hasattr(b, "release"):
            b.release()
    import gc

    gc.collect()
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - freeing memory is best effort
        pass


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


# --------------------------------------------------------------------------------------------
# env


def check_env(d: dict[str, Any]) -> None:
    from importlib import metadata

    import torch

    versions = {}
    for dist in ("torch", "diffusers", "transformers", "huggingface_hub", "accelerate", "open_clip_torch",
                 "safetensors", "tokenizers", "numpy", "pillow", "scipy"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    d.update(python=platform.python_version(), platform=platform.platform(), versions=versions,
             torch_cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
             cuda_available=torch.cuda.is_available(), cpu_threads=torch.get_num_threads())
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        d.update(device_name=props.name, capability=list(torch.cuda.get_device_capability(0)),
                 memory_gib=round(props.total_memory / 2**30, 1), multiprocessors=props.multi_processor_count,
                 bf16_native=bool(torch.cuda.is_bf16_supported(including_emulation=False)),
                 bf16_with_emulation=bool(torch.cuda.is_bf16_supported()))
        from autoalign.models.loading import resolve_device

        d["resolve_device_auto"] = resolve_device("auto", "auto").dtype


# --------------------------------------------------------------------------------------------
# tiny random-weight models through the role backends

SMALL = 32  # the tiny models' image side


def _spec(backend: str, model: str, options: dict[str, Any]):
    from autoalign.config import RoleSpec

    return RoleSpec(backend=backend, model=model, options=dict(options))


def _device_spec(device: str, dtype: str):
    from autoalign.models.loading import DeviceSpec

    return DeviceSpec(device, dtype)


def _red_square():
    from PIL import Image

    return Image.new("RGB", (SMALL, SMALL), (200, 30, 30))


def _pipeline_check(d: dict[str, Any], backend: Any, device: str, dtype: str, run: Callable[[], list[Any]]) -> None:
    """A tiny pipeline backend on (device, dtype): parameter placement, ``run()`` under the NaN watch, two
    images of SMALL x SMALL; the backend is released whatever happens."""
    try:
        modules = torch_modules(backend.pipe)
        d["placement"] = placement(modules, device, dtype)
        with NonFiniteWatch(modules) as watch:
            images = run()
        d["pipeline"] = type(backend.pipe).__name__
        check_images(d, images, (SMALL, SMALL), 2)
        watch.verdict(d)
    finally:
        release(backend)


def tiny_generator(name: str, options: dict[str, Any]):
    def check(d: dict[str, Any], device: str, dtype: str) -> None:
        from autoalign.models.generator import DiffusersGenerator

        opts = {"num_inference_steps": 2, "height": SMALL, "width": SMALL, **options}
        gen = DiffusersGenerator(_spec("diffusers", f"tiny:{name}", opts), _device_spec(device, dtype))
        _pipeline_check(d, gen, device, dtype, lambda: gen.generate("a red cube on a table", n=2, seed=0))

    return check


def tiny_editor(name: str, backend: str, options: dict[str, Any]):
    def check(d: dict[str, Any], device: str, dtype: str) -> None:
        from autoalign.models.editor import DiffusersEditor, InstructPix2PixEditor

        cls = InstructPix2PixEditor if backend == "instruct-pix2pix" else DiffusersEditor
        opts = {"num_inference_steps": 2, "resolution": SMALL, **options}
        editor = cls(_spec(backend, f"tiny:{name}", opts), _device_spec(device, dtype))
        _pipeline_check(d, editor, device, dtype, lambda: editor.edit(_red_square(), "make it blue", n=2, seed=0))

    return check


def tiny_region_editor(name: str, options: dict[str, Any]):
    def check(d: dict[str, Any], device: str, dtype: str) -> None:
        from autoalign.models.region_editor import InpaintRegionEditor
        from autoalign.types import Box, LayoutOp

        opts = {"num_inference_steps": 2, "resolution": SMALL, **options}
        editor = InpaintRegionEditor(_spec("diffusers-inpaint", f"tiny:{name}", opts), _device_spec(device, dtype))
        op = LayoutOp("add", "a cat", target=Box((4.0, 4.0, 20.0, 20.0), 1.0))

        def run() -> list[Any]:
            images = editor.edit(_red_square(), [op], n=2, seed=0)
            d["pipeline_calls"] = editor.calls
            require(editor.calls > 0, "the region editor made no pipeline call (nothing was checked on the device)")
            return images

        _pipeline_check(d, editor, device, dtype, run)

    return check


def tiny_grounder(name: str, class_name: str, backend: str):
    def check(d: dict[str, Any], device: str, dtype: str) -> None:
        import importlib

        cls = getattr(importlib.import_module("autoalign.models.grounder"), class_name)
        grounder = cls(_spec(backend, f"tiny:{name}", {}), _device_spec(device, dtype))
        try:
            modules = torch_modules(grounder.load())
            d["placement"] = placement(modules, device, dtype)
            with NonFiniteWatch(modules) as watch:
                found = grounder.ground([_red_square(), _red_square()], ["a red circle", "two cats"])
            require(len(found) == 2 and all(len(per) == 2 for per in found), "expected 2 images x 2 phrases of groundings")
            boxes = [b for per in found for g in per for b in g.boxes]
            for b in boxes:
                finite_numbers(b.xyxy, 0.0, float(SMALL), "box coordinates")
                finite_numbers([b.score], -1e6, 1e6, "box score")
            d["boxes"] = len(boxes)
            watch.verdict(d)
        finally:
            release(grounder)

    return check


def tiny_clip(d: dict[str, Any], device: str, dtype: str) -> None:
    from autoalign.models.clip import OpenClipScorer

    scorer = OpenClipScorer(_spec("open_clip", "tiny:clip", {}), _device_spec(device, dtype))
    try:
        modules = torch_modules(scorer.model)
        d["placement"] = placement(modules, device, dtype, matmul_only=True)
        with NonFiniteWatch(modules) as watch:
            scores = scorer.cosine([_red_square(), _red_square()], "a red square")
        d["cosines"] = finite_numbers(scores, -1.0, 1.0, "cosine")
        require(len(scores) == 2, f"expected 2 cosines, got {len(scores)}")
        watch.verdict(d)
    finally:
        release(scorer)


def tiny_vqa(name: str, class_name: str, backend: str):
    def check(d: dict[str, Any], device: str, dtype: str) -> None:
        import importlib

        cls = getattr(importlib.import_module("autoalign.models.vqa"), class_name)
        vqa = cls(_spec(backend, f"tiny:{name}", {}), _device_spec(device, dtype))
        try:
            vqa._ensure_loaded()
            modules = torch_modules(vqa._model)
            d["placement"] = placement(modules, device, dtype)
            with NonFiniteWatch(modules) as watch:
                probs = vqa.yes_prob([_red_square(), _red_square()], ["is there a cat?", "is it red?"])
            d["yes_prob"] = finite_numbers(probs, 0.0, 1.0, "P(yes)")
            require(len(probs) == 2, f"expected 2 answers, got {len(probs)}")
            watch.verdict(d)
        finally:
            release(vqa)

    return check


#: (tiny model, role, check). Options as in autoalign.models.tiny_check (the tiny FLUX family reads 32 T5 tokens).
TINY_CHECKS: list[tuple[str, str, Callable[..., None]]] = [
    ("sd", "generator", tiny_generator("sd", {})),
    ("sdxl", "generator", tiny_generator("sdxl", {"guidance_scale": 0.0})),
    ("sd3", "generator", tiny_generator("sd3", {})),
    ("flux", "generator", tiny_generator("flux", {"guidance_scale": 0.0, "max_sequence_length": 32})),
    ("ip2p", "editor", tiny_editor("ip2p", "instruct-pix2pix", {})),
    ("flux-kontext", "editor", tiny_editor("flux-kontext", "diffusers-edit", {"_auto_resize": False, "max_area": SMALL * SMALL})),
    ("qwen-image-edit", "editor", tiny_editor("qwen-image-edit", "diffusers-edit", {})),
    ("sd-inpaint", "region_editor", tiny_region_editor("sd-inpaint", {})),
    ("sdxl-inpaint", "region_editor", tiny_region_editor("sdxl-inpaint", {})),
    ("flux-fill", "region_editor", tiny_region_editor("flux-fill", {"pipeline": "FluxFillPipeline", "max_sequence_length": 32})),
    ("owlv2", "grounder", tiny_grounder("owlv2", "Owlv2Grounder", "owlv2")),
    ("grounding-dino", "grounder", tiny_grounder("grounding-dino", "GroundingDinoGrounder", "grounding-dino")),
    ("segformer", "grounder", tiny_grounder("segformer", "SegformerGrounder", "segformer")),
    ("clip", "clip", tiny_clip),
    ("llava", "vqa", tiny_vqa("llava", "ImageTextToTextVQA", "image-text-to-text")),
    ("qwen2_5_vl", "vqa", tiny_vqa("qwen2_5_vl", "ImageTextToTextVQA", "image-text-to-text")),
    ("blip2", "vqa", tiny_vqa("blip2", "Blip2VQA", "blip2")),
]
#: The cheapest tiny checks, one per role: what ``--quick`` runs.
QUICK_TINY = ("sd", "ip2p", "sd-inpaint", "segformer", "clip")


# --------------------------------------------------------------------------------------------
# the shapes world's trained models, device against CPU float32


class World:
    """The shapes preset's roles and the CPU float32 reference every device result is compared with."""

    def __init__(self, n_prompts: int, per_prompt: int, batch: int, seed: int = 1000):
        from autoalign.config import load_config
        from autoalign.world import scene

        self.config = load_config("shapes")
        self.specs = list(itertools.islice(scene.specs("val", n_prompts), n_prompts))
        self.per_prompt = per_prompt
        self.batch = batch
        self.seed = seed
        self.cpu_images: list[Any] | None = None  # per prompt, per_prompt images
        self.device_images: dict[str, list[Any]] = {}
        self._cpu_clip = None
        self._cpu_grounder = None

    def cpu_clip(self):
        from autoalign.models.clip import OpenClipScorer

        if self._cpu_clip is None:
            self._cpu_clip = OpenClipScorer(self.config.clip, _device_spec("cpu", "float32"))
        return self._cpu_clip

    def cpu_grounder(self):
        from autoalign.models.grounder import SegformerGrounder

        if self._cpu_grounder is None:
            self._cpu_grounder = SegformerGrounder(self.config.grounder, _device_spec("cpu", "float32"))
        return self._cpu_grounder

    def generate(self, device: str, dtype: str, d: dict[str, Any]) -> list[list[Any]]:
        """The generator's images for every prompt on (device, dtype), timed; placement and finiteness checked."""
        from dataclasses import replace

        from autoalign.models.generator import DiffusersGenerator

        spec = replace(self.config.generator, options={**self.config.generator.options,
                                                       "batch_size": max(self.per_prompt, self.batch)})
        gen = DiffusersGenerator(spec, _device_spec(device, dtype))
        try:
            start = time.perf_counter()
            modules = torch_modules(gen.pipe)
            d["load_seconds"] = round(time.perf_counter() - start, 2)
            d["placement"] = placement(modules, device, dtype)
            gen.generate("a red circle", n=1, seed=0)  # warm-up (kernels, allocator), not timed
            _sync(device)
            images: list[list[Any]] = []
            with NonFiniteWatch(modules) as watch:
                start = time.perf_counter()
                for i, spec_i in enumerate(self.specs):
                    images.append(gen.generate(spec_i.caption(), n=self.per_prompt, seed=self.seed + i * self.per_prompt))
                _sync(device)
                elapsed = time.perf_counter() - start
            count = len(self.specs) * self.per_prompt
            clean = elapsed
            if device != "cpu":  # timed again without the hooks: their isfinite checks wait for the GPU after every module
                start = time.perf_counter()
                for i, spec_i in enumerate(self.specs):
                    gen.generate(spec_i.caption(), n=self.per_prompt, seed=self.seed + i * self.per_prompt)
                _sync(device)
                clean = time.perf_counter() - start
            d["throughput"] = {
                "images": count, "images_per_call": self.per_prompt,
                "steps": self.config.generator.options.get("num_inference_steps"),
                "seconds": round(clean, 3), "images_per_second": round(count / clean, 2),
                "timed_with_nan_hooks": device == "cpu", "seconds_with_nan_hooks": round(elapsed, 3),
            }
            # one call of ``batch`` images (the pipeline batches them): what a GPU does when it is kept busy
            caption = self.specs[0].caption()
            gen.generate(caption, n=self.batch, seed=0)  # warm-up at this batch size
            _sync(device)
            start = time.perf_counter()
            gen.generate(caption, n=self.batch, seed=0)
            _sync(device)
            batched = time.perf_counter() - start
            d["throughput_batched"] = {"images_per_call": self.batch, "seconds": round(batched, 3),
                                       "images_per_second": round(self.batch / batched, 2)}
            check_images(d, [im for per in images for im in per], (64, 64), count)
            d.pop("images")  # 64+ entries of mean/std: too long for the report
            watch.verdict(d)
            return images
        finally:
            release(gen)

    def cpu_reference(self, d: dict[str, Any]) -> None:
        from autoalign.world import oracle

        self.cpu_images = self.generate("cpu", "float32", d)
        shows = sum(oracle.shows(im, s) for s, per in zip(self.specs, self.cpu_images) for im in per)
        d["oracle_shows_caption"] = share(shows, len(self.specs) * self.per_prompt)
        d["prompts"] = [s.caption() for s in self.specs]

    def compare_generator(self, device: str, dtype: str, d: dict[str, Any], fp32_min_agreement: float) -> None:
        import numpy as np

        from autoalign.world import oracle

        require(self.cpu_images is not None, "the CPU reference failed, nothing to compare with")
        images = self.generate(device, dtype, d)
        self.device_images[f"{device}-{dtype}"] = images
        n = same_shows = same_reading = shows_dev = shows_cpu = 0
        mae = []
        clip = self.cpu_clip()
        clip_diff = []
        for spec, per_dev, per_cpu in zip(self.specs, images, self.cpu_images):
            caption = spec.caption()
            dev_scores = clip.cosine(per_dev, caption)
            cpu_scores = clip.cosine(per_cpu, caption)
            for a, b, ca, cb in zip(per_dev, per_cpu, dev_scores, cpu_scores):
                n += 1
                sa, sb = oracle.shows(a, spec), oracle.shows(b, spec)
                shows_dev += sa
                shows_cpu += sb
                same_shows += sa == sb
                same_reading += reading_key(a) == reading_key(b)
                mae.append(float(np.abs(np.asarray(a, np.float32) - np.asarray(b, np.float32)).mean()))
                clip_diff.append(2.5 * (ca - cb))
        d["against_cpu_float32"] = {
            "oracle_verdict_agreement": share(same_shows, n),
            "oracle_objects_identical": share(same_reading, n),
            "oracle_shows_caption_device": share(shows_dev, n),
            "oracle_shows_caption_cpu": share(shows_cpu, n),
            "pixel_mean_abs_diff_0_255": {"mean": round(float(np.mean(mae)), 3), "max": round(float(np.max(mae)), 3)},
            "clipscore_diff_device_minus_cpu": {
                "mean": round(float(np.mean(clip_diff)), 4), "mean_abs": round(float(np.mean(np.abs(clip_diff))), 4),
                "max_abs": round(float(np.max(np.abs(clip_diff))), 4),
                "scored_by": "world:clip on cpu float32, CLIPScore = 2.5 x cosine"},
        }
        if dtype == "float32":
            d["criterion"] = f"oracle verdict agreement with cpu float32 >= {fp32_min_agreement}"
            require(same_shows / n >= fp32_min_agreement,
                    f"float32 on {device} agrees with cpu float32 on the oracle's verdict for only {same_shows}/{n} images")

    def compare_clip(self, device: str, dtype: str, d: dict[str, Any], max_diff: float) -> None:
        import numpy as np

        from autoalign.models.clip import OpenClipScorer

        require(self.cpu_images is not None, "the CPU reference failed, nothing to score")
        scorer = OpenClipScorer(self.config.clip, _device_spec(device, dtype))
        try:
            modules = torch_modules(scorer.model)
            d["placement"] = placement(modules, device, dtype, matmul_only=True)
            cpu = self.cpu_clip()
            diffs, same_best = [], 0
            captions = [s.caption() for s in self.specs]
            with NonFiniteWatch(modules) as watch:
                for spec, per in zip(self.specs, self.cpu_images):
                    a = finite_numbers(scorer.cosine(per, spec.caption()), -1.0, 1.0, "cosine")
                    b = cpu.cosine(per, spec.caption())
                    diffs += [2.5 * (x - y) for x, y in zip(a, b)]
                    # which of all the prompts' captions fits the first image best: the same on both devices?
                    ta = scorer.cosine_texts(per[0], captions)
                    tb = cpu.cosine_texts(per[0], captions)
                    same_best += int(np.argmax(ta) == np.argmax(tb))
            d["clipscore_diff_device_minus_cpu"] = {
                "n": len(diffs), "mean": round(float(np.mean(diffs)), 5),
                "max_abs": round(float(np.max(np.abs(diffs))), 5), "same_images": "cpu float32 generator images"}
            d["best_caption_agreement"] = share(same_best, len(self.specs))
            d["criterion"] = f"max |CLIPScore difference| <= {max_diff}"
            watch.verdict(d)
            require(float(np.max(np.abs(diffs))) <= max_diff,
                    f"CLIPScore differs from cpu float32 by up to {float(np.max(np.abs(diffs))):.4f} (> {max_diff})")
        finally:
            release(scorer)

    def compare_grounder(self, device: str, dtype: str, d: dict[str, Any], min_agreement: float) -> None:
        from autoalign.models.grounder import SegformerGrounder

        require(self.cpu_images is not None, "the CPU reference failed, nothing to ground")
        spec = self.config.grounder
        dev = SegformerGrounder(spec, _device_spec(device, dtype))
        cpu = SegformerGrounder(spec, _device_spec("cpu", "float32"))
        try:
            modules = torch_modules(dev.load())
            d["placement"] = placement(modules, device, dtype)
            n = agree = boxes_dev = boxes_cpu = 0
            ious: list[float] = []
            with NonFiniteWatch(modules) as watch:
                for s, per in zip(self.specs, self.cpu_images):
                    phrases = list(dict.fromkeys(g.phrase() for g in s.groups))
                    for gd, gc in zip(dev.ground(per, phrases), cpu.ground(per, phrases)):
                        for a, b in zip(gd, gc):
                            n += 1
                            boxes_dev += len(a.boxes)
                            boxes_cpu += len(b.boxes)
                            matched = _match_iou([x.xyxy for x in a.boxes], [x.xyxy for x in b.boxes])
                            ious += matched
                            agree += len(a.boxes) == len(b.boxes) and all(v >= 0.5 for v in matched)
            d["box_agreement"] = share(agree, n)
            d["boxes"] = {"device": boxes_dev, "cpu": boxes_cpu}
            d["mean_iou_matched"] = round(sum(ious) / len(ious), 4) if ious else None
            d["definition"] = ("per (image, phrase): same number of boxes and every box matched (greedy, best IoU "
                               "first) to one of the cpu float32 boxes at IoU >= 0.5")
            d["criterion"] = f"box agreement >= {min_agreement}"
            watch.verdict(d)
            require(n > 0 and agree / n >= min_agreement, f"boxes agree with cpu float32 for only {agree}/{n} phrases")
        finally:
            release(dev, cpu)

    def region_edits(self, device: str, dtype: str, d: dict[str, Any], count: int) -> list[Any]:
        """Recolour one object per image (the op the preset runs through its inpainting pipeline,
        change_strength) of the first ``count`` CPU reference images; returns the edited images."""
        import numpy as np

        from autoalign.models.region_editor import InpaintRegionEditor
        from autoalign.types import Box, LayoutOp
        from autoalign.world import oracle, scene

        editor = InpaintRegionEditor(self.config.region_editor, _device_spec(device, dtype))
        # what the model cache wires in, from the same cpu float32 CLIP and grounder on every device
        editor.wire(lambda images, text: self.cpu_clip().cosine(images, text), self.cpu_grounder)
        try:
            modules = torch_modules(editor.pipe)
            d["placement"] = placement(modules, device, dtype)
            out, asked, inputs = [], [], []
            colours = list(scene.colors())
            with NonFiniteWatch(modules) as watch:
                for s, per in zip(self.specs, self.cpu_images):
                    reading = oracle.read(per[0])
                    if not reading.scene or not reading.scene.objects:
                        continue
                    o = reading.scene.objects[0]
                    h = scene.sizes()[o.size]
                    box = Box((max(0.0, o.x - h), max(0.0, o.y - h), min(64.0, o.x + h), min(64.0, o.y + h)), 1.0)
                    colour = colours[(colours.index(o.color) + 1) % len(colours)] if o.color in colours else colours[0]
                    phrase = f"{o.size} {colour} {o.shape}"
                    out += editor.edit(per[0], [LayoutOp("recolor", phrase, source=box, target=box)], n=1, seed=self.seed,
                                       prompt=s.caption())
                    asked.append((colour, o.shape))
                    inputs.append(per[0])
                    if len(out) >= count:
                        break
            d["pipeline_calls"] = editor.calls
            require(editor.calls > 0, "no recolour reached the inpainting pipeline")
            check_images(d, out, (64, 64), len(asked))
            d.pop("images")
            watch.verdict(d)
            d["edits"] = len(out)
            changes = [float(np.abs(np.asarray(e, np.float32) - np.asarray(i, np.float32)).mean()) for e, i in zip(out, inputs)]
            d["pixel_mean_abs_change_vs_input_0_255"] = round(float(np.mean(changes)), 3)
            shown = 0
            for e, (colour, shape) in zip(out, asked):
                read = oracle.read(e).scene
                shown += bool(read) and any(o.color == colour and o.shape == shape for o in read.objects)
            d["oracle_sees_asked_colour_and_shape"] = share(shown, len(out))
            return out
        finally:
            release(editor)

    def compare_region_editor(self, device: str, dtype: str, d: dict[str, Any], cpu_edits: list[Any]) -> None:
        import numpy as np

        require(bool(cpu_edits), "the CPU region edits failed, nothing to compare with")
        edits = self.region_edits(device, dtype, d, len(cpu_edits))
        n = len(edits)
        same = sum(reading_key(a) == reading_key(b) for a, b in zip(edits, cpu_edits))
        mae = [float(np.abs(np.asarray(a, np.float32) - np.asarray(b, np.float32)).mean()) for a, b in zip(edits, cpu_edits)]
        d["against_cpu_float32"] = {"oracle_objects_identical": share(same, n),
                                    "pixel_mean_abs_diff_0_255": {"mean": round(float(np.mean(mae)), 3),
                                                                  "max": round(float(np.max(mae)), 3)}}


def reading_key(image: Any) -> Any:
    """What the oracle reads, without the objects' exact centres (floats that move with any pixel): the sorted
    (shape, colour, size) of each object, or why it abstained."""
    from autoalign.world import oracle

    reading = oracle.read(image)
    if reading.scene is None:
        return ("abstained", reading.reason)
    return tuple(sorted((o.shape, o.color, o.size) for o in reading.scene.objects))


def _match_iou(a: list, b: list) -> list[float]:
    """Greedy one-to-one matching of two box lists by IoU (best pairs first); the matched IoUs."""
    from autoalign.grounding import box_iou

    pairs = sorted(((box_iou(p, q), i, j) for i, p in enumerate(a) for j, q in enumerate(b)), reverse=True)
    used_a, used_b, out = set(), set(), []
    for v, i, j in pairs:
        if i not in used_a and j not in used_b:
            used_a.add(i)
            used_b.add(j)
            out.append(v)
    return out


def save_sheet(world: World, path: Path) -> None:
    """One PNG: a row per setting (cpu float32 first), the first image of each of the first 16 prompts."""
    from PIL import Image

    rows = [("cpu-float32", world.cpu_images or [])] + list(world.device_images.items())
    cols = min(16, len(world.specs))
    sheet = Image.new("RGB", (64 * cols, 64 * len(rows)), (0, 0, 0))
    for r, (_, per_prompt) in enumerate(rows):
        for c, per in enumerate(per_prompt[:cols]):
            sheet.paste(per[0], (64 * c, 64 * r))
    sheet.save(path)


# --------------------------------------------------------------------------------------------
# the plan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for gpu_check.json and world_generator.png")
    parser.add_argument("--device", default="cuda", help="cuda (default) or cpu: with cpu every CUDA check is recorded as skipped")
    parser.add_argument("--quick", action="store_true", help="fewer prompts and tiny models (the CPU test mode)")
    parser.add_argument("--prompts", type=int, default=None, help="world validation captions (default 32, 6 with --quick)")
    parser.add_argument("--per-prompt", type=int, default=None, help="images per caption (default 2, 1 with --quick)")
    parser.add_argument("--stand-in", action="store_true",
                        help="run the device checks on the CPU in place of a GPU (to test this script without one; "
                             "their figures then say nothing about a GPU)")
    parser.add_argument("--only", default="", help="run only the checks whose name contains one of these comma-separated texts (others: skipped)")
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bootstrap()
    if "AUTOALIGN_HOME" not in os.environ:  # tiny models are built here, never under --out (only results go back)
        os.environ["AUTOALIGN_HOME"] = tempfile.mkdtemp(prefix="autoalign-gpu-check-")
    import torch

    n_prompts = args.prompts or (6 if args.quick else 32)
    per_prompt = args.per_prompt or (1 if args.quick else 2)
    cuda_ok = args.device.startswith("cuda") and torch.cuda.is_available()
    gpu = args.device if args.device.startswith("cuda") else "cuda"  # named in the (then skipped) CUDA checks
    if args.stand_in:
        gpu, cuda_ok = "cpu", True
    why_no_cuda = None
    if not cuda_ok:
        why_no_cuda = ("--device cpu" if not args.device.startswith("cuda")
                       else f"torch {torch.__version__} sees no CUDA device (torch.version.cuda={torch.version.cuda})")
    rec = Recorder(out / "gpu_check.json", {
        "title": "AutoAlign GPU check (scripts/gpu_check.py)",
        "command": "python3 " + " ".join([str(Path(sys.argv[0]))] + (argv if argv is not None else sys.argv[1:])),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "device": args.device, "quick": args.quick, "stand_in_cpu": args.stand_in, "world_prompts": n_prompts, "world_images_per_prompt": per_prompt,
        "notes": [
            "tiny/* checks load RANDOM-WEIGHT models built in code: they check code paths only (types, sizes, "
            "finite outputs, parameter device and dtype); their images and scores mean nothing.",
            "world/* checks load the shapes world's committed TRAINED weights (autoalign/world/weights) and compare "
            "the device's results with cpu float32 on the same seeds and the world's validation captions.",
            "Throughput figures are wall-clock on the machine named under env, after one warm-up call.",
        ],
    })

    only = [part for part in args.only.split(",") if part]

    def skip_for(name: str, needs_cuda: bool) -> str | None:
        if only and not any(part in name for part in only):
            return f"not selected (--only {args.only})"
        if needs_cuda and not cuda_ok:
            return f"needs CUDA: {why_no_cuda}"
        return None

    rec.run("env", check_env, skip=skip_for("env", False))

    # tiny random-weight models: float16 and bfloat16 on the GPU; on the CPU float32 (the code path only)
    settings = [(gpu, dt, True) for dt in HALF] + [("cpu", "float32", False)]
    for name, role, fn in TINY_CHECKS:
        for dev, dt, needs_cuda in settings:
            label = f"tiny/{role}/{name}/{dev}-{dt}"
            skip = skip_for(label, needs_cuda)
            if not needs_cuda and cuda_ok and not args.stand_in:
                skip = skip or "the CPU runs of the tiny models are for --device cpu (CI covers them)"
            if not needs_cuda and args.quick and name not in QUICK_TINY:
                skip = skip or "--quick runs the cheapest tiny model of each role only"
            rec.run(label, lambda d, fn=fn, dev=dev, dt=dt: fn(d, dev, dt), skip=skip)

    # the shapes world's trained models against cpu float32
    world: World | None = None

    def world_setup(d: dict[str, Any]) -> None:
        nonlocal world
        world = World(n_prompts, per_prompt, 8 if args.quick else 32)
        d["prompts"] = len(world.specs)

    world_selected = not only or any(part in name or name in part for part in only for name in (
        "world/setup", "world/generator/", "world/clip/", "world/grounder/", "world/region_editor/"))
    rec.run("world/setup", world_setup, skip=None if world_selected else f"not selected (--only {args.only})")
    cpu_edits: list[Any] = []

    def cpu_region(d: dict[str, Any]) -> None:
        require(world.cpu_images is not None, "the CPU reference failed, nothing to edit")
        cpu_edits.extend(world.region_edits("cpu", "float32", d, 4 if args.quick else 12))

    # the references run whenever any world check is selected: every comparison needs them
    world_checks: list[tuple[str, Callable[[dict[str, Any]], None], bool]] = [
        ("world/generator/reference-cpu-float32", lambda d: world.cpu_reference(d), False)]
    device_settings = [(gpu, "float32"), (gpu, "bfloat16"), (gpu, "float16")]
    world_checks += [(f"world/generator/{dev}-{dt}", lambda d, dev=dev, dt=dt: world.compare_generator(dev, dt, d, 0.8), True)
                     for dev, dt in device_settings]
    world_checks += [(f"world/clip/{dev}-{dt}",
                      lambda d, dev=dev, dt=dt: world.compare_clip(dev, dt, d, 1e-3 if dt == "float32" else 0.05), True)
                     for dev, dt in device_settings]
    world_checks += [(f"world/grounder/{dev}-{dt}",
                      lambda d, dev=dev, dt=dt: world.compare_grounder(dev, dt, d, 0.9 if dt == "float32" else 0.8), True)
                     for dev, dt in device_settings]
    world_checks += [("world/region_editor/reference-cpu-float32", cpu_region, False)]
    world_checks += [(f"world/region_editor/{dev}-{dt}",
                      lambda d, dev=dev, dt=dt: world.compare_region_editor(dev, dt, d, cpu_edits), True)
                     for dev, dt in device_settings]
    for name, fn, needs_cuda in world_checks:
        if world is None:
            skip = "world/setup did not run" if not world_selected else "world/setup failed"
        elif "reference" in name:
            skip = None
        else:
            skip = skip_for(name, needs_cuda)
        rec.run(name, fn, skip=skip)
    if world is None:
        rec.meta["imported_distributions"] = imported_distributions()
        rec.write()
        return summary(rec)
    rec.meta["imported_distributions"] = imported_distributions()
    if world.cpu_images:
        try:
            save_sheet(world, out / "world_generator.png")
        except Exception as exc:  # noqa: BLE001 - the picture is a courtesy; the JSON is the result
            print(f"could not save world_generator.png: {one_line(exc)}", flush=True)
    rec.write()
    return summary(rec)


def imported_distributions() -> dict[str, str]:
    """The installed distributions (name: version) whose top-level modules this run imported, and from where."""
    from importlib import metadata

    owners = metadata.packages_distributions()
    out: dict[str, str] = {}
    for top in sorted({name.split(".")[0] for name in list(sys.modules)}):
        if top in sys.stdlib_module_names or top.startswith("_") or top not in owners:
            continue
        for dist in owners[top]:
            try:
                d = metadata.distribution(dist)
                out[dist] = f"{d.version} ({Path(str(d.locate_file(''))).as_posix()})"
            except metadata.PackageNotFoundError:
                continue
    return out


def summary(rec: Recorder) -> int:
    """Print the counts and the world figures that matter; exit 1 when any check failed."""
    c = rec.counts()
    print(f"\n{c['passed']} passed, {c['failed']} failed, {c['skipped']} skipped in {rec.report()['seconds']} s")
    for entry in rec.checks:
        d = entry["details"]
        if entry["name"] == "env" and entry["status"] == "passed":
            print(f"  env: torch {d['versions']['torch']} cuda {d['torch_cuda']} device {d.get('device_name', 'cpu')} "
                  f"bf16 native {d.get('bf16_native')}")
        if "throughput" in d:
            print(f"  {entry['name']}: {d['throughput']['images_per_second']} images/s "
                  f"({d['throughput']['images_per_call']} a call), "
                  f"{d.get('throughput_batched', {}).get('images_per_second')} images/s "
                  f"({d.get('throughput_batched', {}).get('images_per_call')} a call)")
        if "against_cpu_float32" in d and "oracle_verdict_agreement" in d["against_cpu_float32"]:
            a = d["against_cpu_float32"]
            print(f"  {entry['name']}: oracle verdict agreement {a['oracle_verdict_agreement']['share']} "
                  f"{a['oracle_verdict_agreement']['ci95']}, CLIPScore |diff| {a['clipscore_diff_device_minus_cpu']['mean_abs']}")
        if "box_agreement" in d:
            print(f"  {entry['name']}: box agreement {d['box_agreement']['share']} {d['box_agreement']['ci95']}")
    for entry in rec.checks:
        if entry["status"] == "failed":
            print(f"  FAILED {entry['name']}: {entry['error']}")
    return 1 if c["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
