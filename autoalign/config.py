"""Presets as data, user overrides, and the resolved run configuration.

A preset is a TOML file in ``autoalign/presets/`` (the file name is the preset name). It names one
backend per model role with its model id (hub id, local directory, or ``tiny:NAME`` for the tiny
models built in code) and settings. A user TOML/YAML file, or ``--config``, overrides any field::

    [loop]
    threshold = 0.9
    [generator]
    model = "/models/sd-turbo"

Anything in a role table other than ``backend``, ``model``, ``device``, ``dtype`` and ``offload`` is
passed to the backend as an option.

Where each model runs (CLI flags map onto these fields):

* ``device`` / ``dtype`` (top level): the default for every role. ``device`` is ``"auto"`` (CUDA when
  available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``; ``dtype`` is ``"auto"`` (bfloat16 on a
  GPU that supports it, else float16; float32 on CPU), ``"float32"``, ``"float16"`` or ``"bfloat16"``.
* ``[ROLE] device`` / ``[ROLE] dtype`` (``ROLE`` in generator, editor, vqa, clip): the same, for one
  role only, e.g. ``[vqa] device = "cuda:1"`` or ``[vqa] dtype = "float32"``.
* ``[ROLE] offload``: ``"none"`` (default), ``"model"`` (diffusers' ``enable_model_cpu_offload``: each
  component moves to the GPU only while it runs) or ``"sequential"`` (``enable_sequential_cpu_offload``:
  slowest, least memory). Generator and editor only.
* ``sequential`` (top level, default false): keep only one weight-holding role's model loaded at a
  time (the generator's weights are dropped before the VQA model loads, and so on), so a preset whose
  roles do not fit together still runs, at the cost of reloading weights each round.
"""

from __future__ import annotations

import copy
import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any

from autoalign.errors import ConfigError
from autoalign.settings import DEFAULT_PRESET, DTYPES, SETTINGS, check_config

MODEL_ROLES: tuple[str, ...] = ("generator", "editor", "vqa", "clip", "questions", "llm")
#: Roles a preset may leave out (``Config.<role>`` is then None and asking for it is a clear error):
#: the grounder (issue 36) and the region editor (issue 37).
OPTIONAL_ROLES: tuple[str, ...] = ("grounder", "region_editor")
#: Allowed values of the offload field (device and dtype: :mod:`autoalign.settings`; ``auto`` resolves in
#: :mod:`autoalign.models.loading`).
OFFLOAD_MODES: tuple[str, ...] = ("none", "model", "sequential")


@dataclass
class RoleSpec:
    """Which backend fills a role, from which model, with which options."""

    backend: str
    model: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    device: str | None = None  # None: the config's top-level device
    dtype: str | None = None  # None: the config's top-level dtype
    offload: str = "none"  # "none" | "model" | "sequential" (diffusers CPU offload; generator/editor)

    @classmethod
    def from_table(cls, role: str, table: dict[str, Any]) -> "RoleSpec":
        if not isinstance(table, dict) or "backend" not in table:
            raise ConfigError(f"[{role}] needs a 'backend' entry (got {table!r})")
        table = dict(table)
        backend = str(table.pop("backend"))
        model = table.pop("model", None)
        device = table.pop("device", None)
        dtype = table.pop("dtype", None)
        offload = str(table.pop("offload", "none"))
        options = dict(table.pop("options", {}) or {})
        options.update(table)
        spec = cls(
            backend=backend,
            model=None if model is None else str(model),
            options=options,
            device=None if device is None else str(device),
            dtype=None if dtype is None else str(dtype),
            offload=offload,
        )
        spec.validate(role)
        return spec

    def validate(self, role: str) -> None:
        if self.device is not None:
            check_device(self.device, f"[{role}] device")
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ConfigError(f"[{role}] dtype must be one of {', '.join(DTYPES)} (got {self.dtype!r})")
        if self.offload not in OFFLOAD_MODES:
            raise ConfigError(f"[{role}] offload must be one of {', '.join(OFFLOAD_MODES)} (got {self.offload!r})")


def check_device(device: str, name: str = "device") -> None:
    """``auto``, ``cpu``, ``mps``, ``cuda`` or ``cuda:N``; anything else is a :class:`ConfigError`."""
    SETTINGS["device"].check(device, name)


#: How an edit's samples are picked (``loop.pick_sample``).
PICK_SAMPLE = ("score", "fewest_mismatches")
#: Which edits the judge keeps (``loop.accept``).
ACCEPT = ("strict", "fewer_errors")


@dataclass
class LoopSettings:
    """The self-correction loop's knobs."""

    candidates: int = 4  # images generated in round 0
    max_rounds: int = 3  # edit rounds after the first generation
    threshold: float = 0.8  # aligned when overall score >= threshold and no mismatch
    min_gain: float = 0.0  # an edit must raise the score by at least this (by more than 0 when min_gain is 0)
    patience: int = 2  # stop after this many rounds without gain
    edit_samples: int = 2  # K edited samples per instruction, scored, best kept
    seed: int = 0
    multi_mismatch: str = "sequential"  # "sequential": one mismatch per edit; "combined": one instruction
    max_instructions: int = 3  # instructions tried per round before giving up on the round
    regenerate_on_stall: bool = False  # every edit failed: regenerate from prompts/regenerate_prompt.txt
    # which of an edit's samples is judged: "score" (the best by scoring.rerank) or "fewest_mismatches" (the
    # detectors look at every sample; fewest detector mismatches first, the score breaks ties)
    pick_sample: str = "score"
    # which edits are kept: "strict" (policy.judge_edit: something fixed, nothing new) or "fewer_errors" (with the
    # grounded pass deciding, also an edit whose grounded layout has fewer object errors, new triplets or not)
    accept: str = "strict"
    # false: a prompt naming a pair the preset's vocabulary marks unseen (autoalign.vocabulary.unseen_phrases) has no
    # score threshold; its judge's models never saw the pair, so the detectors alone decide (policy.threshold_for)
    unseen_gate: bool = True
    # with the gate on, the threshold of such a prompt (None: ``threshold``); on the scale of scoring.primary
    unseen_threshold: float | None = None

    def validate(self) -> None:
        # the numeric fields' bounds are declared with the settings (autoalign.settings.check_config)
        if self.multi_mismatch not in ("sequential", "combined"):
            raise ConfigError(f"loop.multi_mismatch must be 'sequential' or 'combined' (got {self.multi_mismatch!r})")
        if self.pick_sample not in PICK_SAMPLE:
            raise ConfigError(f"loop.pick_sample must be one of {', '.join(map(repr, PICK_SAMPLE))} (got {self.pick_sample!r})")
        if self.accept not in ACCEPT:
            raise ConfigError(f"loop.accept must be one of {', '.join(map(repr, ACCEPT))} (got {self.accept!r})")


@dataclass
class ScoringSettings:
    """How images are scored and candidates ranked."""

    primary: str = "vq2"  # the score decisions use: vq2 | vnli | clip
    rerank: list[str] = field(default_factory=lambda: ["vq2", "vnli", "clip"])  # key, then tie-breakers
    vnli: bool = True
    clip: bool = True
    predicate: str = "vq2"  # "vq2": is "{answer}" true for "{question}"...; "plain": the question itself
    dependency_zeroing: bool = True  # DSG: a "no" on a parent zeroes its children
    max_prompt_chars: int = 1000  # longer prompts are refused with this limit named
    # evidence fusion: count and place questions answered by the [grounder]'s boxes instead of the VQA model
    # (autoalign.scoring.grounded)
    grounded_answers: bool = False

    def validate(self) -> None:
        allowed = ("vq2", "vnli", "clip")
        if self.primary not in allowed:
            raise ConfigError(f"scoring.primary must be one of {allowed} (got {self.primary!r})")
        bad = [k for k in self.rerank if k not in allowed]
        if bad:
            raise ConfigError(f"scoring.rerank entries must be in {allowed} (got {bad})")
        if self.predicate not in ("vq2", "plain"):
            raise ConfigError(f"scoring.predicate must be 'vq2' or 'plain' (got {self.predicate!r})")


@dataclass
class DetectionSettings:
    detectors: list[str] = field(default_factory=lambda: ["vq2", "text"])
    threshold: float = 0.5  # a question with P(yes) below this is a mismatch (VQ2-derived detector)
    max_mismatches: int = 3
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # per detector, e.g. [detection.options.vlm]
    # the pass that counts: before the loop calls an image aligned, the grounded layout (the ``layout`` detector's
    # missing / extra objects, counts and relations) must agree with the prompt; needs a [grounder]
    grounded_pass: bool = False
    # with the grounded pass on: objects, counts and places are the pass's alone. The other detectors' entity /
    # number / relation findings are dropped (CLIP is bag-of-words, a small VLM barely counts), and an edit is
    # not held back by a low-score question of those aspects (autoalign.editing.policy.judge_edit)
    pass_decides: bool = False
    # the words the preset's models know (a file of prompts/, autoalign.vocabulary): outside words are warned about
    # once per run, and detectors correct only within it. "" = open vocabulary
    vocabulary: str = ""


@dataclass
class Config:
    """The resolved configuration of one run: a preset plus overrides."""

    name: str
    generator: RoleSpec
    editor: RoleSpec
    vqa: RoleSpec
    clip: RoleSpec
    questions: RoleSpec
    llm: RoleSpec
    grounder: RoleSpec | None = None  # object grounding (autoalign.models.grounder); optional
    writer: str = "template"
    device: str = "auto"  # default device of every role; [ROLE] device overrides it
    dtype: str = "auto"  # default dtype of every role; [ROLE] dtype overrides it
    sequential: bool = False  # one weight-holding role loaded at a time (module docstring)
    description: str = ""
    # Honesty flags of a preset: its judges are random-weight models / test doubles, so its scores
    # mean nothing. Every command and the studio say so (autoalign.wording.scores_warning).
    random_weights: bool = False
    test_double: bool = False
    loop: LoopSettings = field(default_factory=LoopSettings)
    scoring: ScoringSettings = field(default_factory=ScoringSettings)
    detection: DetectionSettings = field(default_factory=DetectionSettings)
    region_editor: RoleSpec | None = None  # [region_editor]: layout edits inside boxes (None: the preset has none)

    def validate(self) -> "Config":
        self.loop.validate()
        self.scoring.validate()
        check_config(self)  # every declared setting inside its bounds (writer, device, dtype, loop, knobs)
        if not isinstance(self.sequential, bool):
            raise ConfigError(f"sequential must be true or false (got {self.sequential!r})")
        if self.grounder is None:
            uses = [name for name, on in (("detection.grounded_pass", self.detection.grounded_pass),
                                          ("scoring.grounded_answers", self.scoring.grounded_answers),
                                          ("the layout detector", "layout" in self.detection.detectors)) if on]
            if self.region_editor is not None and self.region_editor.options.get("planner", "triplets") != "triplets":
                uses.append(f"[region_editor] planner = {self.region_editor.options['planner']!r}")
            if uses:
                raise ConfigError(f"{', '.join(uses)} need(s) a [grounder] role (backend owlv2, grounding-dino or segformer)")
        for flag in ("random_weights", "test_double"):
            if not isinstance(getattr(self, flag), bool):
                raise ConfigError(f"{flag} must be true or false (got {getattr(self, flag)!r})")
        return self

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def hash(self) -> str:
        """Stable hash of everything that changes results (used to resume and to line up runs)."""
        blob = json.dumps(self.to_dict(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def model_ids(self) -> dict[str, str | None]:
        ids = {role: getattr(self, role).model for role in MODEL_ROLES}
        ids.update({role: getattr(self, role).model for role in OPTIONAL_ROLES if getattr(self, role) is not None})
        return ids


def region_attributes(config: Any) -> bool:
    """``[region_editor] attributes = true``: attribute mismatches with boxes go to the region editor too (the
    loop's policy routes them; the grounded pass then reports the layout detector's colour triplets)."""
    spec = getattr(config, "region_editor", None)
    return spec is not None and spec.options.get("attributes") is True


def check_seed(value: Any, what: str = "loop.seed") -> int:
    """``value`` as a seed: a whole number in [0, 2**32 - 1]; ConfigError naming ``what`` otherwise."""
    return SETTINGS["seed"].check(value, what)


def _type_error(dotted: str, wanted: str, value: Any) -> ConfigError:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return ConfigError(f"{dotted} must be {wanted} (got {shown}, {type(value).__name__})")


def _check_type(dotted: str, annotation: str, value: Any) -> Any:
    """``value`` checked against a field's annotation (as written in this module); ints widen to floats."""
    kind = annotation.replace(" ", "")
    if kind == "bool":
        if not isinstance(value, bool):
            raise _type_error(dotted, "true or false", value)
    elif kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise _type_error(dotted, "a whole number", value)
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _type_error(dotted, "a number", value)
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise _type_error(dotted, "a finite number", value)
    elif kind == "float|None":
        value = None if value is None else _check_type(dotted, "float", value)
    elif kind == "str":
        if not isinstance(value, str):
            raise _type_error(dotted, "text", value)
    elif kind.startswith("list[str]"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise _type_error(dotted, "a list of names", value)
    elif kind.startswith("dict["):
        if not isinstance(value, dict):
            raise _type_error(dotted, "a table", value)
    return value


def _section(cls, name: str, table: Any):
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise ConfigError(f"{name} must be a table of settings such as [{name}] in TOML (got {table!r})")
    table = dict(table)
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(table) - set(known))
    if unknown:
        raise ConfigError(f"unknown field(s) in [{name}]: {', '.join(unknown)}; allowed: {', '.join(sorted(known))}")
    for key, value in table.items():
        table[key] = _check_type(f"{name}.{key}", str(known[key].type), value)
    return cls(**table)


def from_dict(data: dict[str, Any]) -> Config:
    """Build and validate a :class:`Config` from a nested dict (a parsed preset).

    Every field is type-checked first: a wrong type is a ConfigError naming the dotted field
    (``loop.candidates must be a whole number (got 'four', str)``), never a TypeError later.
    """
    if not isinstance(data, dict):
        raise ConfigError(f"a configuration must be a table/mapping (got {type(data).__name__})")
    data = copy.deepcopy(data)
    missing = [r for r in MODEL_ROLES if r not in data]
    if missing:
        raise ConfigError(f"preset {data.get('name', '?')!r} lacks role table(s): {', '.join(missing)}")
    roles = {r: RoleSpec.from_table(r, data.pop(r)) for r in MODEL_ROLES}
    for r in OPTIONAL_ROLES:
        table = data.pop(r, None)
        roles[r] = None if table is None else RoleSpec.from_table(r, table)
    loop = _section(LoopSettings, "loop", data.pop("loop", None))
    scoring = _section(ScoringSettings, "scoring", data.pop("scoring", None))
    detection = _section(DetectionSettings, "detection", data.pop("detection", None))
    known_top = {"name", "writer", "device", "dtype", "sequential", "description", "random_weights", "test_double"}
    unknown = sorted(set(data) - known_top)
    if unknown:
        raise ConfigError(f"unknown top-level field(s): {', '.join(unknown)}")
    top_types = {f.name: str(f.type) for f in fields(Config)}  # "str" or "bool" for these fields
    for key in list(data):
        data[key] = _check_type(key, top_types[key], data[key])
    cfg = Config(**roles, loop=loop, scoring=scoring, detection=detection, **data)
    return cfg.validate()


def preset_names() -> list[str]:
    return sorted(p.name[:-5] for p in resources.files("autoalign.presets").iterdir() if p.name.endswith(".toml"))


def load_preset_dict(name: str) -> dict[str, Any]:
    path = Path(name)
    if path.suffix in (".toml", ".yaml", ".yml", ".json") and path.exists():
        return read_config_file(path)
    res = resources.files("autoalign.presets").joinpath(f"{name}.toml")
    if not res.is_file():
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(preset_names())} (or a path to a .toml file)")
    return tomllib.loads(res.read_text(encoding="utf-8"))


def read_config_file(path: str | Path) -> dict[str, Any]:
    """Read a TOML, YAML or JSON override file into a dict."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"config file not found: {path}")
    if not path.is_file():
        raise ConfigError(f"--config: {path} is a directory, not a .toml/.yaml/.json file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"--config: {path} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"--config: cannot read {path} ({exc.strerror or exc})") from None
    import yaml

    try:
        if path.suffix == ".toml":
            return tomllib.loads(text)
        if path.suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text) or {}
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            raise ConfigError(f"config file must end in .toml, .yaml/.yml or .json (got {str(path)!r})")
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, ValueError, yaml.YAMLError) as exc:
        if isinstance(exc, ConfigError):
            raise
        reason = " ".join(str(exc).split())  # YAML's messages span lines; the CLI prints one
        raise ConfigError(f"cannot parse {path}: {reason}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a table/mapping at top level")
    return data


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def load_config(
    preset: str = DEFAULT_PRESET,
    config_file: str | Path | None = None,
    overrides: dict[str, Any] | None = None,
) -> Config:
    """Preset, then the user's file, then explicit overrides (e.g. from CLI flags), last wins."""
    data = load_preset_dict(preset)
    data.setdefault("name", Path(preset).stem)
    if config_file:
        data = deep_merge(data, read_config_file(config_file))
    if overrides:
        data = deep_merge(data, overrides)
    return from_dict(data)
