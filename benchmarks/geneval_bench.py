"""GenEval's scores of a bench run, with the preset's grounder as the detector.

``autoalign bench run --suite geneval --suite-file ../shared/data/geneval/evaluation_metadata.jsonl --preset P
--out DIR`` runs the loop on GenEval's 553 prompts like any suite; then :func:`analyse` scores the
baseline (candidate 0), reranked (best of N) and corrected image of every prompt by GenEval's rules
(:mod:`autoalign.benchmarks.geneval_rules`: objects, counts, colours, positions, colour attribution) with
the preset's ``grounder`` role as the detector and, where the grounder does not tell colours, the preset's
CLIP on the crops. It reports GenEval's six task scores (share of right images per tag, Wilson 95 %
interval) and overall (their mean, 95 % interval by a bootstrap over prompts within each tag), per stage,
and the paired gains between stages (the same bootstrap, the same prompts on both sides).

On the ``shapes`` suite the same scorer reads the same three images (the metadata come from each caption:
:func:`autoalign.benchmarks.geneval_rules.spec_metadata`) and is compared with the oracle
(:mod:`autoalign.world.oracle`, which the loop never sees), on the images the oracle reads:

* **GenEval scorer vs the oracle's verdict** - the issue's measure: the oracle checks every fact of the
  caption, sizes and "nothing extra" included, which GenEval's form does not ask;
* **GenEval scorer vs GenEval's rules on the oracle's reading** - the same rules with the oracle's objects as
  the detections: where they differ, the grounder and the oracle read the image differently;
* **GenEval's rules on the oracle's reading vs the oracle's verdict** - what GenEval's form leaves out.

Each item's verdicts are cached in its run folder (``geneval.json``, keyed by the grounder and the rules'
version), so a rerun scores only what is new. Writes ``OUT/geneval.json`` and ``OUT/geneval.md``; the bench
report (``summary.json``, ``summary.md``, ``report.html``) shows them when they are there.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from autoalign.benchmarks.bench_runner import META_FILE, RESULTS_FILE, latest_results
from autoalign.benchmarks.geneval_rules import TAGS, evaluate, score_image, spec_metadata
from autoalign.benchmarks.metrics import N_BOOT, SEED, Metric, wilson
from autoalign.benchmarks.records import BenchRecord
from autoalign.benchmarks.suites import SHAPES_SUITES
from autoalign.errors import InputError
from autoalign.files import atomic_write_json, atomic_write_text
from autoalign.types import Box

logger = logging.getLogger(__name__)

RESULT_FILE = "geneval.json"
REPORT_FILE = "geneval.md"
ITEM_CACHE = "geneval.json"
#: bump when the rules or the metadata mapping change, so cached verdicts are scored again
RULES_VERSION = 2
STAGES = ("baseline", "reranked", "corrected")
GAINS = (("corrected", "baseline"), ("reranked", "baseline"), ("corrected", "reranked"))
SUITES = ("geneval", *SHAPES_SUITES)


# --------------------------------------------------------------------------------------------- metadata


def needs_grounder(config: Any, suite: str) -> None:
    """One clear line when the preset cannot score GenEval (no ``grounder`` role); nothing is written."""
    if getattr(config, "grounder", None) is None:
        raise InputError(
            f"--suite {suite}: GenEval's rules need a detector, the preset's [grounder] role, and preset "
            f"{config.name!r} has none; use a preset with one (e.g. shapes) or add [grounder] (backend owlv2, "
            "grounding-dino or segformer) with --config")


def geneval_metadata(item_metadata: dict[str, Any], tag: str, prompt: str) -> dict[str, Any]:
    """A GenEval suite item's metadata in GenEval's form; InputError when the file has no ``include``."""
    if not isinstance(item_metadata.get("include"), list) or not item_metadata["include"]:
        raise InputError(f"GenEval prompt {prompt!r} has no 'include' metadata: pass GenEval's "
                         "evaluation_metadata.jsonl (e.g. ../shared/data/geneval/evaluation_metadata.jsonl)")
    return {"tag": tag, "prompt": prompt, **{k: v for k, v in item_metadata.items() if k in ("include", "exclude")}}


def check_suite_metadata(suite: Any) -> None:
    """Every item of a ``geneval`` suite carries GenEval's metadata (checked before the bench starts)."""
    for item in suite.items:
        geneval_metadata(item.metadata, item.category, item.prompt)


def metadata_for(record: BenchRecord, suite_name: str, by_id: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """GenEval's metadata of a record's prompt: the suite file's (geneval) or the caption's (shapes)."""
    if suite_name in SHAPES_SUITES:
        from autoalign.world.scene import Spec, parse_caption

        spec = parse_caption(record.prompt)
        if spec is None:
            return None
        return spec_metadata(Spec(spec.groups, spec.relation, record.category))
    item = by_id.get(record.id)
    return None if item is None else geneval_metadata(item, record.category, record.prompt)


# --------------------------------------------------------------------------------------------- the oracle


def oracle_detections(reading) -> tuple[dict[str, list[Box]], Callable[[Box, str], str]]:
    """The oracle's reading as a detector: its objects per shape (bigger first) and their colours."""
    objects: dict[str, list[Box]] = {}
    colour: dict[tuple[float, ...], str] = {}
    for obj, xyxy in zip(reading.scene.objects, reading.boxes):
        objects.setdefault(obj.shape, []).append(Box(tuple(xyxy), 1.0, label=f"{obj.color} {obj.shape}"))
        colour[tuple(xyxy)] = obj.color
    for boxes in objects.values():
        boxes.sort(key=lambda b: -(b.xyxy[2] - b.xyxy[0]) * (b.xyxy[3] - b.xyxy[1]))
    return objects, lambda box, name: colour.get(tuple(box.xyxy), "")


def oracle_view(image, prompt: str, metadata: dict[str, Any]) -> dict[str, Any]:
    """The oracle on one shapes image: readable, its verdict, and GenEval's rules on its reading."""
    from autoalign.world import oracle
    from autoalign.world.scene import parse_caption

    reading = oracle.read(image)
    if not reading.readable:
        return {"readable": False, "reason": reading.reason}
    check = oracle.check(parse_caption(prompt), reading.scene)
    objects, colour_of = oracle_detections(reading)
    rules_ok, reasons = evaluate(objects, metadata, colour_of)
    return {"readable": True, "aligned": check.aligned, "geneval": bool(rules_ok), "geneval_reasons": reasons,
            "failed": [f.text for f in check.facts if not f.holds],
            "seen": [o.describe() for o in reading.scene.objects]}


# --------------------------------------------------------------------------------------------- scoring


class GenevalScorer:
    """GenEval's verdict on images with a preset's grounder (and CLIP for colours where the grounder has none)."""

    def __init__(self, models: Any, config: Any):
        self.grounder = models.grounder
        self.clip = models.clip  # used only where the grounder does not tell colours
        self.key = f"{config.grounder.backend}:{config.grounder.model}|{json.dumps(config.grounder.options, sort_keys=True)}"

    def score(self, image, metadata: dict[str, Any]) -> dict[str, Any]:
        return score_image(self.grounder, image, metadata, self.clip)


def score_item(record: BenchRecord, out: Path, metadata: dict[str, Any], scorer: GenevalScorer,
               with_oracle: bool) -> dict[str, Any]:
    """GenEval's verdicts on one record's stage images (cached in its run folder's ``geneval.json``)."""
    from PIL import Image

    cache = out / record.run_dir / ITEM_CACHE
    key = {"grounder": scorer.key, "rules": RULES_VERSION, "oracle": with_oracle, "metadata": metadata}
    if cache.exists():
        try:
            data = json.loads(cache.read_text(encoding="utf-8"))
            if data.get("key") == key:
                return data
        except ValueError:
            pass
    per_file: dict[str, dict[str, Any]] = {}
    stages: dict[str, dict[str, Any]] = {}
    for stage in STAGES:
        result = record.stages.get(stage)
        if result is None or not result.image:
            continue
        if result.image not in per_file:
            with Image.open(out / result.image) as im:
                image = im.convert("RGB")
            view = scorer.score(image, metadata)
            if with_oracle:
                view["oracle"] = oracle_view(image, record.prompt, metadata)
            per_file[result.image] = view
        stages[stage] = {"image": result.image, **per_file[result.image]}
    data = {"key": key, "id": record.id, "seed": record.seed, "tag": metadata["tag"], "prompt": record.prompt,
            "stages": stages}
    if (out / record.run_dir).is_dir():
        atomic_write_json(cache, data)
    return data


# --------------------------------------------------------------------------------------------- figures


def _overall(flags_by_tag: dict[str, list[float]]) -> float | None:
    shares = [float(np.mean(v)) for v in flags_by_tag.values() if len(v)]
    return float(np.mean(shares)) if shares else None


def _stratified_ci(by_tag: dict[str, np.ndarray], fn: Callable[[dict[str, np.ndarray]], float],
                   n_boot: int = N_BOOT, seed: int = SEED) -> tuple[float | None, float | None]:
    """95 % percentile interval of ``fn`` over bootstrap resamples of the rows within each tag."""
    if not by_tag or all(len(v) == 0 for v in by_tag.values()):
        return None, None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_boot):
        values.append(fn({t: v[rng.integers(0, len(v), len(v))] for t, v in by_tag.items() if len(v)}))
    lo, hi = np.quantile(values, [0.025, 0.975])
    return float(lo), float(hi)


def stage_scores(items: Sequence[dict[str, Any]], stage: str) -> dict[str, Any]:
    """GenEval's six task scores (Wilson intervals) and overall (mean of the tasks present; stratified bootstrap)."""
    by_tag: dict[str, list[float]] = {}
    for it in items:
        if stage in it["stages"]:
            by_tag.setdefault(it["tag"], []).append(float(it["stages"][stage]["correct"]))
    tasks = {t: wilson(int(sum(by_tag[t])), len(by_tag[t])) for t in TAGS if t in by_tag}
    tasks.update({t: wilson(int(sum(v)), len(v)) for t, v in by_tag.items() if t not in TAGS})
    arrays = {t: np.asarray(v) for t, v in by_tag.items()}
    value = _overall(by_tag)
    lo, hi = _stratified_ci(arrays, lambda d: _overall({t: list(v) for t, v in d.items()}))
    n = sum(len(v) for v in by_tag.values())
    overall = Metric("overall", value, n, lo, hi, True, {"tasks": len(by_tag)}).to_dict()
    return {"tasks": tasks, "overall": overall}


def stage_gain(items: Sequence[dict[str, Any]], after: str, before: str) -> dict[str, Any]:
    """overall(after) - overall(before) on the items with both stages; paired stratified bootstrap."""
    pairs: dict[str, list[tuple[float, float]]] = {}
    for it in items:
        if after in it["stages"] and before in it["stages"]:
            pairs.setdefault(it["tag"], []).append((float(it["stages"][after]["correct"]), float(it["stages"][before]["correct"])))
    arrays = {t: np.asarray(v) for t, v in pairs.items()}

    def gain(d: dict[str, np.ndarray]) -> float:
        return _overall({t: list(v[:, 0]) for t, v in d.items()}) - _overall({t: list(v[:, 1]) for t, v in d.items()})

    n = sum(len(v) for v in pairs.values())
    if not n:
        return Metric(f"{after} - {before}", None, 0).to_dict()
    lo, hi = _stratified_ci(arrays, gain)
    diffs = [a - b for v in pairs.values() for a, b in v]
    extra = {"n_improved": int(sum(d > 0 for d in diffs)), "n_worse": int(sum(d < 0 for d in diffs))}
    return Metric(f"{after} - {before}", gain(arrays), n, lo, hi, True, extra).to_dict()


def oracle_figures(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Agreement of the GenEval scorer with the oracle (shapes suite), per stage and over all three."""
    out: dict[str, Any] = {}
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in STAGES}
    unreadable: dict[str, list[bool]] = {s: [] for s in STAGES}
    for it in items:
        for stage, view in it["stages"].items():
            oracle = view.get("oracle")
            if oracle is None:
                continue
            unreadable[stage].append(not oracle["readable"])
            if oracle["readable"]:
                rows[stage].append({"scorer": view["correct"], "aligned": oracle["aligned"], "rules": oracle["geneval"]})
    every = [r for s in STAGES for r in rows[s]]
    measures = {
        "GenEval scorer = the oracle's verdict": lambda r: r["scorer"] == r["aligned"],
        "GenEval scorer = GenEval's rules on the oracle's reading": lambda r: r["scorer"] == r["rules"],
        "GenEval's rules on the oracle's reading = the oracle's verdict": lambda r: r["rules"] == r["aligned"],
        "scorer passes, oracle fails": lambda r: r["scorer"] and not r["aligned"],
        "scorer fails, oracle passes": lambda r: r["aligned"] and not r["scorer"],
        "disagree: the grounder reads the image otherwise": lambda r: r["scorer"] != r["aligned"] and r["scorer"] != r["rules"],
        "disagree: GenEval's form (sizes, extra objects, its relation rule)":
            lambda r: r["scorer"] != r["aligned"] and r["scorer"] == r["rules"],
    }
    for name, fn in measures.items():
        block = {s: wilson(sum(bool(fn(r)) for r in rows[s]), len(rows[s])) for s in STAGES if rows[s]}
        block["all stages"] = wilson(sum(bool(fn(r)) for r in every), len(every))
        out[name] = block
    out["oracle: full alignment (readable images)"] = {
        s: wilson(sum(r["aligned"] for r in rows[s]), len(rows[s])) for s in STAGES if rows[s]}
    out["oracle cannot read"] = {s: wilson(sum(v), len(v)) for s, v in unreadable.items() if v}
    return out


def figures(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    stages = [s for s in STAGES if any(s in it["stages"] for it in items)]
    out: dict[str, Any] = {"n": len(items), "stages": stages,
                           "scores": {s: stage_scores(items, s) for s in stages},
                           "gains": {f"{a} - {b}": stage_gain(items, a, b) for a, b in GAINS if a in stages and b in stages}}
    if any(v.get("oracle") for it in items for v in it["stages"].values()):
        out["oracle"] = oracle_figures(items)
    return out


# --------------------------------------------------------------------------------------------- the analysis


def _suite_metadata(out: Path, meta: dict[str, Any], suite: Any) -> dict[str, dict[str, Any]]:
    if meta.get("suite") != "geneval":
        return {}
    if suite is None:
        from autoalign.benchmarks.suites import load_suite

        source = Path(str(meta.get("suite_source") or ""))
        suite = load_suite("geneval", source if source.is_file() else None)
    return {item.id: item.metadata for item in suite.items}


def analyse(out: str | Path, config: Any, *, suite: Any = None, models: Any = None, progress: bool = True) -> dict[str, Any]:
    """GenEval's figures of a bench run (``geneval`` or ``shapes`` suite) in ``out``; writes ``geneval.json`` and
    ``geneval.md`` there and returns the result. ``config`` supplies the grounder (and CLIP); the records are the
    latest of the run's own config hash (``bench.json``)."""
    out = Path(out)
    meta_path = out / META_FILE
    if not meta_path.is_file() or not (out / RESULTS_FILE).is_file():
        raise InputError(f"{out}: not a bench directory (no {META_FILE} / {RESULTS_FILE}); pass the --out of a `bench run`")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    name = meta.get("suite")
    if name not in SUITES:
        raise InputError(f"{out}: a bench run of suite {name!r}; GenEval's rules score the geneval and shapes suites")
    needs_grounder(config, name)
    by_id = _suite_metadata(out, meta, suite)
    records = [r for r in latest_results(out / RESULTS_FILE, meta.get("config_hash")) if r.ok]
    if models is None:
        from autoalign.models.cache import Models

        models = Models(config)
    scorer = GenevalScorer(models, config)
    iterator: Any = records
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(records, desc="GenEval rules", unit="prompt")
    items, skipped = [], []
    for record in iterator:
        metadata = metadata_for(record, name, by_id)
        if metadata is None:
            skipped.append(record.id)
            continue
        items.append(score_item(record, out, metadata, scorer, with_oracle=name in SHAPES_SUITES))
    if skipped:
        logger.warning("%d prompt(s) without GenEval metadata skipped (first: %s)", len(skipped), skipped[0])
    result = {"suite": name, "config_hash": meta.get("config_hash"), "grounder": scorer.key,
              "rules_version": RULES_VERSION, "skipped": skipped,
              **figures(items)}
    atomic_write_json(out / RESULT_FILE, result)
    atomic_write_text(out / REPORT_FILE, markdown(result))
    return result


def analyse_locked(out: str | Path, config: Any, **kw: Any) -> dict[str, Any]:
    """:func:`analyse` holding the output directory's writer lock (one writer per directory; re-entrant)."""
    from autoalign.files import directory_lock

    with directory_lock(Path(out), "bench geneval"):
        return analyse(out, config, **kw)


# --------------------------------------------------------------------------------------------- tables


def _cell(m: dict[str, Any] | None) -> str:
    return "" if m is None else Metric.from_dict(m).fmt()


def read_result(out: str | Path, config_hash: str | None) -> dict[str, Any] | None:
    """``OUT/geneval.json`` when it belongs to the run of ``config_hash`` (the bench report shows it), else None."""
    path = Path(out) / RESULT_FILE
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return None
    return result if isinstance(result, dict) and result.get("config_hash") == config_hash else None


def tables(result: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of GenEval's figures: the bench report and ``geneval.md`` share them."""
    stages = result.get("stages", [])
    scores = result.get("scores", {})
    tags = [t for t in TAGS if any(t in scores[s]["tasks"] for s in stages)]
    tags += [t for s in stages for t in scores[s]["tasks"] if t not in tags]
    rows = [[t, *[_cell(scores[s]["tasks"].get(t)) for s in stages]] for t in tags]
    rows.append(["overall (mean of the tasks)", *[_cell(scores[s]["overall"]) for s in stages]])
    out = [(f"GenEval's rules, detector {result.get('grounder')} (share right [95% CI] (n))", ["task", *stages], rows)]
    gains = [[name, _cell(m), f"{m.get('extra', {}).get('n_improved', 0)}/{m.get('extra', {}).get('n_worse', 0)}"]
             for name, m in result.get("gains", {}).items()]
    if gains:
        out.append(("GenEval overall, paired gains (bootstrap within tags)", ["gain", "mean [CI] (n)", "improved/worse"], gains))
    if result.get("oracle"):
        cols = [*stages, "all stages"]
        out.append(("GenEval scorer and the oracle (shapes world; images the oracle reads)", ["measure", *cols],
                    [[name, *[_cell(block.get(c)) for c in cols]] for name, block in result["oracle"].items()]))
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = [f"# GenEval's rules on the {result.get('suite')} suite", "",
             "Per stage: the share of images GenEval's rules call right per task, with its Wilson 95 % interval and n; "
             "overall is the mean of the tasks (GenEval's summary), its interval a bootstrap over prompts within each "
             "task. The detector is the preset's grounder (its own threshold, not GenEval's Mask2Former's).", ""]
    if result.get("skipped"):
        lines += [f"Skipped (no GenEval metadata): {len(result['skipped'])} prompt(s).", ""]
    for title, header, rows in tables(result):
        lines += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    return "\n".join(lines)


def results_doc(result: dict[str, Any], command: str) -> dict[str, Any]:
    """The figures in the project's generic results shape (``docs/results/*.json``, rendered by
    ``scripts/make_results.py``)."""
    measures = ("GenEval's rules (objects, counts, colours, positions, colour attribution; Ghosh et al. 2023) on the "
                "baseline (candidate 0), reranked (best of N) and corrected image of every prompt of a bench run, the "
                "preset's grounder as the detector. Task scores: share of images right, Wilson 95 % interval; overall: "
                "the mean of the tasks, 95 % interval by a bootstrap over prompts within each task; gains paired on "
                "the same prompts.")
    if result.get("oracle"):
        measures += (" Shapes world: the verdicts against the oracle's (which also checks sizes and that nothing "
                     "extra is drawn) on the images it reads, and against GenEval's rules with the oracle's reading as "
                     "the detector (where these differ, the grounder and the oracle read the image differently).")
    return {"title": f"GenEval's rules on the {result.get('suite')} suite ({result.get('grounder')})",
            "command": command, "measures": measures,
            "tables": [{"name": title, "columns": header, "rows": rows} for title, header, rows in tables(result)]}
