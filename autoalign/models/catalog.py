"""What the presets' hub checkpoints weigh: parameters, download size, licence (``catalog.toml``).

One home for these facts. From them:

* :func:`size_note` - "(about 4.4 GB)" in a missing-model message;
* :func:`preset_models` - every (role, model id, hub repo) of a preset with weights to fetch;
* :func:`missing_models` - which of them cannot be had here, all at once (offline);
* :class:`SourceFinder` / :func:`unavailable` - where every role's model would come from (tiny, world,
  local folder, Hugging Face cache, hub, API, Python package) and which cannot be had now - the one
  check the commands and the studio run before they write anything;
* :func:`memory_estimate` - a preset's GPU memory, **estimated** as parameters x bytes per parameter
  of the role's dtype, times :data:`OVERHEAD` for activations and the CUDA context. A role with
  ``offload = "model"`` or ``"sequential"`` counts its largest component only (diffusers moves one
  component to the GPU at a time) but keeps the whole pipeline in host RAM (``host_ram_gb``); with
  ``sequential = true`` the peak is the largest group of roles held together
  (:data:`SEQUENTIAL_GROUPS`: the VQA model and CLIP score together), else the sum of the roles.
  Roles on the CPU count nothing on the GPU and their weights in host RAM.
* download sizes come from the download planner run on the catalog's listings
  (:func:`~autoalign.models.catalog_facts.download_gb`), the planner ``models download`` runs.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from autoalign.config import Config, RoleSpec
from autoalign.models import loading
from autoalign.models.catalog_facts import (  # noqa: F401 - the catalog's facts, re-exported
    download_gb,
    entries,
    entry,
    pinned_revision,
    size_note,
)

#: Roles whose model is weights to load (``questions`` is a spaCy package, ``llm`` an API).
WEIGHT_ROLES: tuple[str, ...] = ("generator", "editor", "vqa", "clip")
#: Bytes per parameter of each dtype (``auto`` on a GPU is bf16 or fp16: 2 bytes).
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "auto": 2}
#: Activations, CUDA context and allocator slack on top of the weights (a rule of thumb, not measured).
OVERHEAD = 1.2
#: With ``sequential = true``, roles of one group stay loaded together (a role not named is its own group):
#: every score asks the VQA model and then CLIP, so releasing one for the other would reload the VQA
#: model from disk twice per round.
SEQUENTIAL_GROUPS: dict[str, str] = {"vqa": "scoring", "clip": "scoring"}


def sequential_group(role: str) -> str:
    return SEQUENTIAL_GROUPS.get(role, role)


def model_id_for(role: str, spec: RoleSpec) -> str | None:
    """The model a role loads: the preset's id, or the backend's default model when it names none."""
    if spec.model or role not in ("editor", "clip"):
        return spec.model
    if role == "editor":
        from autoalign import registry

        try:
            return getattr(registry.get("editor", spec.backend), "default_model", None)
        except KeyError:
            return None
    from autoalign.models.clip import DEFAULT_MODEL

    return DEFAULT_MODEL if spec.backend == "open_clip" else None


def hub_repo(role: str, model_id: str | None) -> str | None:
    """The hub repo a model id downloads from; None for tiny and world models, local paths and API models."""
    from autoalign.models.loading import TINY_PREFIX, WORLD_PREFIX

    if not model_id or model_id.startswith((TINY_PREFIX, WORLD_PREFIX)) or model_id.startswith(("/", "./", "../", "~")):
        return None
    if Path(model_id).expanduser().exists():
        return None
    if role == "clip":
        from autoalign.models.clip import hub_repo_for

        return hub_repo_for(model_id) or model_id.removeprefix("hf-hub:")
    return model_id.removeprefix("hf-hub:") if model_id.count("/") == 1 or model_id.startswith("hf-hub:") else None


@dataclass(frozen=True)
class PresetModel:
    role: str
    model_id: str
    repo: str | None  # None: not a hub model (tiny, local directory)
    variant: str | None = None
    revision: str | None = None  # the role's ``revision``, else the catalog's pin; None: main
    chat_template: bool = False  # the backend formats prompts with the model's chat template


def role_revision(role: str, spec: RoleSpec) -> str | None:
    """The hub commit a role loads at: its own ``revision`` option, else the catalog's pin for its repo.
    None for the clip role: open_clip loads a hub model's main branch and takes no revision."""
    if role == "clip":
        return None
    own = spec.options.get("revision")
    return str(own) if own else pinned_revision(hub_repo(role, model_id_for(role, spec)))


def preset_models(config: Config) -> list[PresetModel]:
    """Every weight-holding role's model, in role order; double entries of one repo are kept once."""
    out: list[PresetModel] = []
    seen: set[str] = set()
    for role in WEIGHT_ROLES:
        spec: RoleSpec = getattr(config, role)
        if spec.backend in ("openai", "scene-double"):
            continue
        model_id = model_id_for(role, spec)
        if not model_id:
            continue
        repo = hub_repo(role, model_id)
        if repo and repo in seen:
            continue
        seen.add(repo or model_id)
        out.append(PresetModel(role, model_id, repo, spec.options.get("variant"), role_revision(role, spec) if repo else None,
                               spec.backend == "image-text-to-text"))
    return out


def missing_models(config: Config) -> list[tuple[PresetModel, list[str]]]:
    """Hub models of the preset that cannot be loaded here right now (offline and not fully cached),
    each with what its snapshot lacks (empty list: nothing cached at all). Empty when the hub is reachable."""
    hub_models = [m for m in preset_models(config) if m.repo]
    if not hub_models or loading.hub_reachable():
        return []
    missing = []
    for model in hub_models:
        snapshot = loading.local_snapshot(model.repo, model.revision)
        problems = (loading.snapshot_problems(snapshot, model.variant, chat_template=model.chat_template)
                    if snapshot else ["everything"])
        if problems:
            missing.append((model, [] if problems == ["everything"] else problems))
    return missing


def missing_message(config: Config, missing: list[tuple[PresetModel, list[str]]]) -> str:
    """One line naming every missing model of the preset with its size where known, and how to get them."""
    parts = []
    total = 0.0
    for model, problems in missing:
        total += download_gb(model.repo, model.variant) or 0.0
        partly = f", partly cached: lacks {', '.join(problems[:3])}" if problems else ""
        parts.append(f"{model.role} {model.repo}{size_note(model.repo or '', model.variant)}{partly}")
    known = f"; about {round(total, 1):g} GB in all" if total else ""
    offline = " (HF_HUB_OFFLINE=1)" if loading.hub_offline() else ""
    return (
        f"preset {config.name!r} needs {len(missing)} model(s) that are not here and the hub cannot be reached"
        f"{offline}: {'; '.join(parts)}{known}. {loading.how_to_get([m.repo for m, _ in missing], config.name, [m.variant for m, _ in missing])}"
    )


# --------------------------------------------------------------------------------------------
# where each role's model comes from, and which cannot be had now (every role, not only hub models)


class SourceFinder:
    """Says where a role's model would come from, without loading weights (hub reachability checked once)."""

    def __init__(self) -> None:
        self._reachable: bool | None = None

    def hub_reachable(self) -> bool:
        if self._reachable is None:
            self._reachable = loading.hub_reachable()
        return self._reachable

    def model_id(self, role: str, spec: RoleSpec) -> str | None:
        return model_id_for(role, spec)

    def source(self, role: str, spec: RoleSpec) -> str:
        model_id = self.model_id(role, spec)
        if "double" in spec.backend.lower():
            return "test double in code (no weights; judges nothing)"
        if role == "llm" or spec.backend == "openai":
            return "API (OpenAI-compatible endpoint; OPENAI_BASE_URL, AUTOALIGN_LLM_MODEL)"
        if role == "questions":
            if not model_id:
                return "no model"
            found = importlib.util.find_spec(model_id) is not None
            return "installed Python package" if found else f"missing: pip install {model_id}"
        if not model_id:
            return "missing: no model set in the preset"
        if model_id.startswith(loading.TINY_PREFIX):
            from autoalign.models import tiny

            name = model_id[len(loading.TINY_PREFIX) :]
            if name not in tiny.TINY_MODELS:
                return f"missing: unknown tiny model {name!r} (known: {', '.join(tiny.TINY_MODELS)})"
            path = loading.tiny_dir() / name
            state = "built locally at" if tiny.is_built(path) else "built on first use at"
            return f"tiny ({state} {path})"
        if model_id.startswith(loading.WORLD_PREFIX):
            try:
                path = loading.world_model_dir(model_id[len(loading.WORLD_PREFIX) :], role)
            except loading.ModelNotAvailable:
                return "missing: not trained yet (autoalign world train)"
            return f"shapes world (trained, in {path})"
        if Path(model_id).expanduser().is_dir():
            return "local directory"
        if model_id.startswith(("/", "./", "../", "~")):
            return "missing: directory does not exist"
        repo = model_id.removeprefix("hf-hub:")
        if role == "clip":
            from autoalign.config import ConfigError
            from autoalign.models.clip import hub_repo_for

            try:
                repo = hub_repo_for(model_id) or repo
            except ConfigError as exc:
                return f"missing: {exc}"
        variant = spec.options.get("variant")
        if loading.in_hf_cache(repo, variant, role_revision(role, spec), spec.backend == "image-text-to-text"):
            return "HF cache"
        size = size_note(repo, variant)
        if self.hub_reachable():
            return f"hub download{size} (needs network)"
        offline = " (HF_HUB_OFFLINE=1)" if loading.hub_offline() else ""
        partial = loading.local_snapshot(repo, role_revision(role, spec))
        state = "only partly in the HF cache" if partial else "not in the HF cache"
        return f"missing{size}: {state} and the hub is unreachable{offline}"


def clip_used(config) -> bool:
    """Whether a run of ``config`` asks the CLIP role for a score (the Scorer's ``scoring.clip``)."""
    return bool(config.scoring.clip) or config.scoring.primary == "clip"


def unavailable(config: Config, roles: tuple[str, ...] = WEIGHT_ROLES + ("questions",)) -> list[str]:
    """``"role: why"`` for each of ``roles`` whose model cannot be had now (loads nothing).

    Commands call this before they create anything, so an offline run of a real preset stops with
    one line instead of leaving a half-made run directory behind.
    """
    finder = SourceFinder()
    missing = []
    for role in roles:
        source = finder.source(role, getattr(config, role))
        if source.startswith("missing") and ":" in source:  # "missing: why" or "missing (about N GB): why"
            head, why = source.split(":", 1)
            model = finder.model_id(role, getattr(config, role)) or "(none)"
            missing.append(f"{role} model {model}{head.removeprefix('missing')}: {why.strip()}")
    return missing


# --------------------------------------------------------------------------------------------
# GPU memory


def params_billion(role: str, spec: RoleSpec, whole: bool = False) -> float | None:
    """Parameters (billions) the role holds on its GPU at once, when the catalog knows its repo:
    all of them, or the largest component under CPU offload (``whole``: all of them regardless)."""
    info = entry(hub_repo(role, model_id_for(role, spec)))
    if not info or "params" not in info:
        return None
    if spec.offload != "none" and "largest" in info and not whole:
        return float(info["largest"])
    return float(info["params"])


@dataclass(frozen=True)
class MemoryEstimate:
    """An estimate, not a measurement: parameters x bytes per parameter x :data:`OVERHEAD`."""

    per_role_gb: dict[str, float]  # weights x OVERHEAD, per role on a GPU
    all_resident_gb: float  # every role loaded at once
    peak_gb: float  # what the preset's own settings need (the largest group of roles when sequential)
    unknown: list[str]  # roles whose size the catalog does not know
    download_gb: float  # hub downloads of the preset (known ones)
    host_ram_gb: float = 0.0  # weights kept in host RAM: offloaded pipelines whole, roles on the CPU
    host_roles: tuple[str, ...] = ()  # the roles host_ram_gb counts


def _peak(values: dict[str, float], sequential: bool) -> float:
    if not sequential:
        return round(sum(values.values()), 1)
    groups: dict[str, float] = {}
    for role, gb in values.items():
        groups[sequential_group(role)] = groups.get(sequential_group(role), 0.0) + gb
    return round(max(groups.values(), default=0.0), 1)


def memory_estimate(config: Config) -> MemoryEstimate:
    per_role: dict[str, float] = {}
    host: dict[str, float] = {}
    unknown: list[str] = []
    for role in WEIGHT_ROLES:
        spec: RoleSpec = getattr(config, role)
        if spec.backend in ("openai", "scene-double"):
            continue
        device = spec.device or config.device
        dtype = spec.dtype or config.dtype
        whole = params_billion(role, spec, whole=True)
        if device == "cpu":
            if whole is not None:
                host[role] = round(whole * DTYPE_BYTES["float32" if dtype == "auto" else dtype], 1)
            continue
        params = params_billion(role, spec)
        if params is None:
            unknown.append(role)
            continue
        per_role[role] = round(params * DTYPE_BYTES[dtype] * OVERHEAD, 1)
        if spec.offload != "none" and whole is not None:
            host[role] = round(whole * DTYPE_BYTES[dtype], 1)  # diffusers keeps the offloaded pipeline in host RAM
    total = round(sum(per_role.values()), 1)
    download = sum(download_gb(m.repo, m.variant) or 0.0 for m in preset_models(config) if m.repo)
    return MemoryEstimate(per_role, total, _peak(per_role, config.sequential), unknown, round(download, 1),
                          _peak(host, config.sequential), tuple(host))


def preset_row(config: Config) -> dict[str, str]:
    """A preset's line in the README table: estimated GPU memory, download size, licences."""
    est = memory_estimate(config)
    licences = []
    for model in preset_models(config):
        info = entry(model.repo) or {}
        if info.get("licence") and info["licence"] not in licences:
            licences.append(info["licence"])
    gated = any((entry(m.repo) or {}).get("gated") for m in preset_models(config))
    if est.peak_gb:
        memory = f"~{est.peak_gb:g} GB" + (f" (~{est.all_resident_gb:g} GB without `sequential`)" if config.sequential else "")
    else:
        memory = "CPU"
    return {
        "preset": config.name,
        "gpu_memory": memory,
        "host_ram": (f"~{est.host_ram_gb:g} GB ({', '.join(est.host_roles)})" if est.host_ram_gb else "-"),
        "download": f"~{est.download_gb:g} GB" if est.download_gb else "none",
        "licences": "; ".join(licences) + (" (gated: accept on the hub first)" if gated else "") if licences else "-",
    }


def needs_results(rows: list[dict[str, str]], command: str) -> dict:
    """:func:`preset_row` rows as a results JSON document (``docs/results/<name>.json``'s generic shape)."""
    columns = [("preset", "preset"), ("gpu_memory", "GPU memory (estimate)"), ("host_ram", "host RAM (estimate)"),
               ("download", "download"), ("licences", "licences")]
    return {
        "title": "What each preset needs: GPU memory, host RAM, download",
        "command": command,
        "measures": (
            "Computed, not measured: GPU memory is parameters x bytes per parameter of the dtype (2 for auto) x "
            f"{OVERHEAD} for activations and the CUDA context; a role with offload = model counts its largest "
            "component, and with sequential = true the largest group of roles held together (VQA + CLIP score "
            "together). Host RAM is what offloaded pipelines (whole, in their dtype) and CPU roles keep there. "
            "The download is the download planner's selection (the files the loaders read, in the preset's "
            "variant) summed over the repo listings in autoalign/models/hub_files.json, which were written by "
            "hand, not fetched: sizes are good to about 0.1 GB per repo. No figure here was checked on a GPU."),
        "tables": [{"name": "presets", "columns": [c for _, c in columns],
                    "rows": [[row[k] for k, _ in columns] for row in rows]}],
    }
