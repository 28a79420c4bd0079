"""Is this machine ready for a preset? (``autoalign models check --preset P``; ``run``, ``batch`` and
``bench run`` run the same checks first and stop before writing anything.)

Loads no weights. One :class:`Finding` per check, each one line:

* **cuda** - a role that wants a GPU (``device = "auto"`` or ``"cuda"`` with a hub model the catalog
  knows, or ``"cuda"`` with any model) needs torch to see one: the torch build's CUDA version, the
  driver (``nvidia-smi``), and why torch sees no GPU (a CPU-only build, no driver, a driver older than
  the build needs). ``--device cpu`` is the explicit way to run a GPU preset on the CPU anyway.
* **bf16** - whether the GPU computes bfloat16 natively
  (``torch.cuda.is_bf16_supported(including_emulation=False)``; T4 and V100 only emulate it). Without
  it ``dtype = "auto"`` becomes float16, and models trained in bf16 (catalog ``bf16 = true``: FLUX,
  SD 3.5, Qwen) overflow to NaN in float16: a failure for those, a note for the others.
* **gpu-memory** / **host-ram** - free GPU memory against the preset's estimate
  (:func:`autoalign.models.catalog.memory_estimate`, with its offload modes and ``sequential``), and
  available host RAM against what offloaded pipelines and CPU roles keep there.
* **hub** - for each hub model not complete in the cache: reachable hub, gated repo (``model_info``),
  login (``huggingface_hub.get_token``) and access (``huggingface_hub.auth_check``).
* **snapshot** - each hub model complete in the Hugging Face cache at its revision (weights, every
  shard, tokenizer, processor, chat template: :func:`autoalign.models.loading.snapshot_problems`),
  or downloadable; tiny, world, local and package models where
  :func:`autoalign.models.catalog.unavailable` finds them.

``fail`` findings stop a run; ``note`` findings are said and do not. The machine and the hub are
read through :class:`Machine` and :class:`Hub`, which tests replace with doubles.
"""

from __future__ import annotations

import logging
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.models import catalog, loading

logger = logging.getLogger(__name__)

LEVELS = ("ok", "note", "fail")


@dataclass(frozen=True)
class Finding:
    level: str  # "ok" | "note" | "fail"
    topic: str  # cuda, bf16, gpu-memory, host-ram, hub, snapshot, model
    text: str

    def line(self) -> str:
        return f"{self.level.upper():<4} {self.topic}: {self.text}"


class Machine:
    """What the checks read from this machine (torch, ``nvidia-smi``, ``/proc/meminfo``)."""

    def cuda_state(self) -> str:
        return loading.cuda_state()

    def cuda_build(self) -> str | None:
        import torch

        return torch.version.cuda

    def cuda_available(self) -> bool:
        import torch

        return bool(torch.cuda.is_available())

    def gpu_name(self) -> str:
        import torch

        return torch.cuda.get_device_name(0)

    def driver(self) -> str | None:
        """The NVIDIA driver version ``nvidia-smi`` reports, or None (no tool, no driver)."""
        tool = shutil.which("nvidia-smi")
        if not tool:
            return None
        try:
            out = subprocess.run([tool, "--query-gpu=driver_version", "--format=csv,noheader"], capture_output=True,
                                 text=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None

    def bf16_native(self) -> bool:
        return loading.bf16_native("cuda")

    def free_vram_gb(self) -> float | None:
        import torch

        try:
            return torch.cuda.mem_get_info()[0] / 1e9
        except (RuntimeError, AssertionError):
            return None

    def host_ram_gb(self) -> float | None:
        """Available host RAM (``MemAvailable``), or None where it cannot be read."""
        try:
            for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 / 1e9
        except (OSError, ValueError, IndexError):
            return None
        return None


class Hub:
    """What the checks ask the Hugging Face hub (through huggingface_hub, so HF_ENDPOINT/HF_TOKEN apply)."""

    def reachable(self) -> bool:
        return loading.hub_reachable()

    def logged_in(self) -> bool:
        from huggingface_hub import get_token

        return get_token() is not None

    def gated(self, repo: str, revision: str | None) -> bool:
        from huggingface_hub import HfApi

        return bool(HfApi().model_info(repo, revision=revision).gated)

    def access_error(self, repo: str) -> str | None:
        """None when this login may download ``repo``; else why not, in a few words."""
        from huggingface_hub import auth_check
        from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

        try:
            auth_check(repo)
        except GatedRepoError:
            return "this account has not accepted its licence"
        except RepositoryNotFoundError:
            return "not found, or private to another account"
        return None


def _wants_gpu(config: Config, role: str) -> bool:
    spec = getattr(config, role)
    if spec.backend in ("openai", "scene-double") or "double" in spec.backend:
        return False
    asked = spec.device or config.device
    if asked.startswith("cuda"):
        return True
    model = catalog.model_id_for(role, spec)
    return asked == "auto" and catalog.entry(catalog.hub_repo(role, model)) is not None


def _check_gpu(config: Config, roles: tuple[str, ...], machine: Machine) -> list[Finding]:
    gpu_roles = [r for r in roles if _wants_gpu(config, r)]
    if not gpu_roles:
        return []
    names = ", ".join(f"{r} {catalog.model_id_for(r, getattr(config, r))}" for r in gpu_roles)
    driver = machine.driver()
    driver_text = f"NVIDIA driver {driver}" if driver else "no NVIDIA driver found (nvidia-smi)"
    if not machine.cuda_available():
        return [Finding("fail", "cuda", (
            f"no usable GPU: {machine.cuda_state()}; {driver_text}. The GPU models ({names}) would run on the CPU "
            f"in float32. Install a driver new enough for CUDA {machine.cuda_build() or '(none)'}, or a torch build "
            "matching your driver (https://pytorch.org/get-started/locally/); or pass --device cpu to run on the CPU anyway"))]
    out = [Finding("ok", "cuda", f"{machine.gpu_name()}; {machine.cuda_state()}; {driver_text}")]
    bf16_roles = [r for r in gpu_roles if (getattr(config, r).dtype or config.dtype) in ("auto", "bfloat16")]
    if bf16_roles and not machine.bf16_native():
        forced = [r for r in bf16_roles if (getattr(config, r).dtype or config.dtype) == "bfloat16"]
        trained = [r for r in bf16_roles
                   if (catalog.entry(catalog.hub_repo(r, catalog.model_id_for(r, getattr(config, r)))) or {}).get("bf16")]
        if forced or trained:
            which = ", ".join(sorted(set(forced + trained)))
            out.append(Finding("fail", "bf16", (
                f"this GPU computes bfloat16 only by emulation (T4/V100 class), and {which} need it "
                f"(trained in bf16: float16 overflows to NaN; emulated bf16 fails or crawls in convolutions). "
                "Use a GPU with native bf16 (Ampere or newer), or set dtype = \"float32\" for those roles")))
        else:
            out.append(Finding("note", "bf16", "no native bfloat16: dtype auto runs in float16"))
    elif bf16_roles:
        out.append(Finding("ok", "bf16", "native bfloat16: dtype auto runs in bfloat16"))
    est = catalog.memory_estimate(config)
    free = machine.free_vram_gb()
    mode = "one group of roles at a time (sequential)" if config.sequential else "every role loaded at once"
    if free is not None and est.peak_gb:
        if est.peak_gb > free:
            out.append(Finding("fail", "gpu-memory", (
                f"the preset needs about {est.peak_gb:g} GB of GPU memory ({mode}; an estimate), {free:.1f} GB is "
                "free: set offload = \"model\" on the diffusion roles, sequential = true, or choose a smaller preset")))
        else:
            out.append(Finding("ok", "gpu-memory", f"about {est.peak_gb:g} GB needed ({mode}; an estimate), {free:.1f} GB free"))
    if est.unknown:
        out.append(Finding("note", "gpu-memory", f"sizes unknown to the catalog, not counted: {', '.join(est.unknown)}"))
    return out


def _check_host_ram(config: Config, machine: Machine) -> list[Finding]:
    est = catalog.memory_estimate(config)
    if not est.host_ram_gb:
        return []
    available = machine.host_ram_gb()
    what = f"offloaded pipelines and CPU roles ({', '.join(est.host_roles)}) keep about {est.host_ram_gb:g} GB in host RAM"
    if available is None:
        return [Finding("note", "host-ram", f"{what}; available RAM could not be read")]
    if est.host_ram_gb > available:
        return [Finding("fail", "host-ram", f"{what}, {available:.1f} GB is available: free memory, add swap, or "
                                             "use offload = \"none\" on a GPU large enough for the whole pipeline")]
    return [Finding("ok", "host-ram", f"{what}; {available:.1f} GB available")]


def _check_models(config: Config, roles: tuple[str, ...], hub: Hub) -> list[Finding]:
    out: list[Finding] = []
    hub_models = [m for m in catalog.preset_models(config) if m.repo and m.role in roles]
    hub_roles = {m.role for m in hub_models}
    other = tuple(r for r in roles if r not in hub_roles)
    missing = catalog.unavailable(config, other)
    for line in missing:
        out.append(Finding("fail", "model", line))
    finder = catalog.SourceFinder()
    here = [f"{r} ({finder.source(r, getattr(config, r)).split(' (')[0]})" for r in other
            if not any(line.startswith(f"{r} ") for line in missing)]
    if here:
        out.append(Finding("ok", "model", "here: " + ", ".join(here)))
    reachable: bool | None = None
    logged_in: bool | None = None
    for m in hub_models:
        at = f" at {m.revision[:12]}" if m.revision else ""
        snapshot = loading.local_snapshot(m.repo, m.revision)
        problems = loading.snapshot_problems(snapshot, m.variant, chat_template=m.chat_template) if snapshot else None
        if problems == []:
            out.append(Finding("ok", "snapshot", f"{m.role} {m.repo}{at}: complete in the Hugging Face cache"))
            continue
        if reachable is None:
            reachable = hub.reachable()
        size = catalog.size_note(m.repo, m.variant)
        state = f"only partly cached (lacks {', '.join(problems[:3])})" if problems else "not cached"
        if not reachable:
            gated = " (gated: accept its licence and log in first)" if (catalog.entry(m.repo) or {}).get("gated") else ""
            offline = " (HF_HUB_OFFLINE=1)" if loading.hub_offline() else ""
            out.append(Finding("fail", "snapshot", (
                f"{m.role} {m.repo}{at}{size} is {state} and the hub cannot be reached{offline}{gated}; "
                f"run `autoalign models download --preset {config.name}` where there is network and copy the cache here")))
            continue
        try:
            gated = hub.gated(m.repo, m.revision)
        except Exception as exc:  # noqa: BLE001 - any hub answer but "yes" is reported as it is
            out.append(Finding("fail", "hub", f"{m.role} {m.repo}{at}: the hub did not describe it: {type(exc).__name__}: "
                                              f"{str(exc).splitlines()[0][:200] if str(exc) else ''}"))
            continue
        if gated:
            if logged_in is None:
                logged_in = hub.logged_in()
            if not logged_in:
                out.append(Finding("fail", "hub", (
                    f"{m.role} {m.repo} is gated and you are not logged in: accept its licence on "
                    f"https://huggingface.co/{m.repo}, then `hf auth login` (or set HF_TOKEN)")))
                continue
            why = hub.access_error(m.repo)
            if why:
                out.append(Finding("fail", "hub", f"{m.role} {m.repo} is gated and {why}: accept it on "
                                                  f"https://huggingface.co/{m.repo} with the account you logged in as"))
                continue
        out.append(Finding("note", "snapshot", (
            f"{m.role} {m.repo}{at} is {state}: it downloads on first use{size}; `autoalign models download "
            f"--preset {config.name}` fetches it first, with progress, and resumes if interrupted")))
    return out


def check(config: Config, roles: tuple[str, ...] | None = None, machine: Machine | None = None,
          hub: Hub | None = None) -> list[Finding]:
    """Every finding for running ``config`` with ``roles`` (default: every weight role and ``questions``)."""
    roles = roles if roles is not None else catalog.WEIGHT_ROLES + ("questions",)
    machine = machine or Machine()
    hub = hub or Hub()
    weight_roles = tuple(r for r in roles if r in catalog.WEIGHT_ROLES)
    return [*_check_gpu(config, weight_roles, machine), *_check_host_ram(config, machine),
            *_check_models(config, roles, hub)]


def failures(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.level == "fail"]


def require_ready(config: Config, roles: tuple[str, ...] | None = None, machine: Machine | None = None,
                  hub: Hub | None = None) -> list[Finding]:
    """Run :func:`check`; raise one :class:`InputError` line naming every failure (nothing is written)."""
    findings = check(config, roles, machine, hub)
    for f in findings:
        if f.level == "note":
            logger.warning("%s", f.line())
    failed = failures(findings)
    if failed:
        raise InputError(
            f"cannot run preset {config.name!r}: " + "; ".join(f"{f.topic}: {f.text}" for f in failed)
            + f". Nothing was written; `autoalign models check --preset {config.name}` lists every check."
        )
    return findings
