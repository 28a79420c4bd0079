"""The ``shapes`` suite, and what the oracle says about a ``bench run`` on it.

``autoalign bench run --suite shapes --preset shapes --out DIR`` runs the loop on held-out world
prompts (the ``test`` split in five categories, and ``unseen`` combinations from the
``compositional`` split) like any suite; then :func:`analyse` reads every baseline, reranked and
corrected image - and the images the ablations need - with the oracle (:mod:`autoalign.world.oracle`),
which the loop never sees, and reports with 95 % bootstrap intervals and paired tests:

* full prompt alignment (every fact of the caption right) of baseline -> reranked -> corrected;
* hallucination rate per aspect (entity / attribute / number / relation) before and after;
* how often the loop made an image worse, and how often the judge (primary score >= threshold with no
  mismatch, the loop's own "aligned") and the oracle disagree;
* ablations from the same runs: the judge used to rerank the first N candidates (VQ2 / VNLI / CLIP /
  the oracle itself - an upper bound, not a method), the number of edit rounds (0-3, read from the
  run's round records), N candidates (1-8) and, at equal numbers of generator + editor calls,
  correcting by edits vs simply drawing more candidates and keeping the best by the preset's judge
  (best-of-M).

Extra candidates for the ablations are drawn with the loop's own seeds (candidate ``i`` uses seed
``seed + i``, so the first N are the loop's candidates) and cached per item in ``extra/``, so a
rerun only does what is missing.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Sequence

from autoalign.benchmarks.bench_runner import bench_config, latest_results
from autoalign.benchmarks.metrics import Metric, mean_metric, paired_gain, rate_metric
from autoalign.benchmarks.records import BenchRecord
from autoalign.files import atomic_save_image, atomic_write_json, atomic_write_text
from autoalign.types import RunResult
from autoalign.world import oracle
from autoalign.world.scene import parse_caption

logger = logging.getLogger(__name__)

ASPECTS = ("entity", "attribute", "number", "relation")
MAX_CANDIDATES = 12
STAGE_NAMES = ("baseline", "reranked", "corrected")
JUDGES = ("vq2", "vnli", "clip", "oracle")


# --------------------------------------------------------------------------------------------- reading one item


def oracle_view(path: Path, spec) -> dict[str, Any]:
    from PIL import Image

    with Image.open(path) as im:
        reading = oracle.read(im)
    if not reading.readable:
        return {"readable": False, "reason": reading.reason, "aligned": False, "failed": {}}
    check = oracle.check(spec, reading.scene)
    return {
        "readable": True,
        "aligned": check.aligned,
        "failed": {a: bool(check.failed(a)) for a in sorted(check.aspects())},
        "facts": [f"{'ok ' if f.holds else 'NO '}{f.text}" for f in check.facts],
    }


def _round_images(result: RunResult, run_dir: Path) -> list[Path]:
    """The best image after each round 0..R (round 0: the reranked candidate), from the round records."""
    current = run_dir / (result.first_best.path if result.first_best is not None else "candidates/cand_00.png")
    out = [current]
    for rec in result.round_records:
        for attempt in rec.attempts:
            if attempt.decision.accepted and attempt.chosen:
                current = run_dir / attempt.chosen
        out.append(current)
    return out


def analyse_item(record: BenchRecord, out: Path, models: Any, config: Any, max_candidates: int = MAX_CANDIDATES) -> dict[str, Any]:
    """Oracle readings and ablation data of one ok bench record (cached in the item's ``oracle.json``)."""
    run_dir = out / record.run_dir
    cache = run_dir / "oracle.json"
    if cache.exists():
        try:
            return json.loads(cache.read_text(encoding="utf-8"))
        except ValueError:
            pass
    spec = parse_caption(record.prompt)
    result = RunResult.load(run_dir)
    stages = {s: oracle_view(out / record.stages[s].image, spec) for s in STAGE_NAMES if s in record.stages}
    rounds = [oracle_view(p, spec)["aligned"] for p in _round_images(result, run_dir)]
    calls = result.model_calls
    n_loop = len(list((run_dir / "candidates").glob("cand_*.png")))
    attempts = [a for r in result.round_records for a in r.attempts]
    # a region edit's pipeline may draw more images than it returns (the drawings it pastes from): the
    # larger of its samples and its drawn images counts, so best-of-M gets as many images as the edits drew
    region_samples = sum(len(a.samples) for a in attempts if a.origin == "region")
    region_drawn = int((calls or {}).get("region_editor_images", 0))
    edited = sum(len(a.samples) for a in attempts if a.origin != "region") + max(region_samples, region_drawn)
    budget = min(max_candidates, n_loop + edited)
    cands = _candidates(record, run_dir, models, config, max(8, budget))
    data = {
        "id": record.id, "category": record.category, "seed": record.seed,
        "stages": stages,
        "rounds_aligned": rounds,
        "loop_calls": {"generator_images": n_loop, "editor_images": edited, "images": n_loop + edited, "raw": calls},
        "budget": budget,
        "candidates": cands,
        "judge_aligned": _judge_says_aligned(result),
    }
    atomic_write_json(cache, data)
    return data


def _judge_says_aligned(result: RunResult) -> bool:
    """The loop's own verdict on its final image: it stopped because the judge found it aligned."""
    return result.stop_reason == "aligned"


def _candidates(record: BenchRecord, run_dir: Path, models: Any, config: Any, n: int) -> list[dict[str, Any]]:
    """Candidates 0..n-1 of the prompt (the loop's own first, then new ones with the next seeds), each
    scored by the judges and read by the oracle."""
    from PIL import Image

    from autoalign.scoring.scorer import Scorer

    spec = parse_caption(record.prompt)
    extra_dir = run_dir / "extra"
    extra_dir.mkdir(exist_ok=True)
    paths = sorted((run_dir / "candidates").glob("cand_*.png"))[:n]
    missing = n - len(paths)
    if missing > 0:
        start = len(paths)
        new = models.generator.generate(record.prompt, n=missing, seed=int(summary_seed(run_dir)) + start)
        for k, image in enumerate(new):
            p = extra_dir / f"cand_{start + k:02d}.png"
            atomic_save_image(p, image)
            paths.append(p)
    images = []
    for p in paths:
        with Image.open(p) as im:
            images.append(im.convert("RGB"))
    cards = Scorer(models, config).score(images, record.prompt)
    out = []
    for p, card in zip(paths, cards):
        view = oracle_view(p, spec)
        out.append({"path": str(p.relative_to(run_dir)), "vq2": card.vq2, "vnli": card.vnli, "clip": card.clip,
                    "oracle": view["aligned"], "readable": view["readable"]})
    return out


def summary_seed(run_dir: Path) -> int:
    """The seed of the run in ``run_dir`` (its ``summary.json``, read as a RunResult)."""
    return RunResult.load(run_dir).seed


# --------------------------------------------------------------------------------------------- figures


def _best(cands: Sequence[dict[str, Any]], judge: str) -> dict[str, Any]:
    if judge == "oracle":
        return next((c for c in cands if c["oracle"]), cands[0])
    return max(cands, key=lambda c: (c.get(judge) if c.get(judge) is not None else -1.0))


def figures(items: Sequence[dict[str, Any]], judge: str = "vq2") -> dict[str, Any]:
    """Every figure of the module docstring from the analysed items; ``judge`` (the preset's
    ``scoring.primary``) picks the best of N candidates in the N and best-of-M ablations, as the loop does."""

    def stage_flags(stage: str) -> list[bool]:
        return [it["stages"][stage]["aligned"] for it in items if stage in it["stages"]]

    out: dict[str, Any] = {"n": len(items)}
    out["full alignment"] = {s: rate_metric(s, stage_flags(s), higher_is_better=True).to_dict() for s in STAGE_NAMES}
    base, rer, cor = (stage_flags(s) for s in STAGE_NAMES)
    if cor:
        out["gains"] = {
            "corrected - baseline": paired_gain("corrected - baseline", [float(x) for x in base], [float(x) for x in cor]).to_dict(),
            "corrected - reranked": paired_gain("corrected - reranked", [float(x) for x in rer], [float(x) for x in cor]).to_dict(),
            "reranked - baseline": paired_gain("reranked - baseline", [float(x) for x in base], [float(x) for x in rer]).to_dict(),
        }
    out["hallucination rate per aspect"] = {
        s: {a: rate_metric(a, [it["stages"][s]["failed"].get(a) for it in items
                               if s in it["stages"] and it["stages"][s]["readable"] and a in it["stages"][s]["failed"]]).to_dict()
            for a in ASPECTS}
        for s in STAGE_NAMES
    }
    out["unreadable by the oracle"] = {s: rate_metric(s, [not it["stages"][s]["readable"] for it in items if s in it["stages"]]).to_dict()
                                       for s in STAGE_NAMES}
    worse = [it["stages"]["reranked"]["aligned"] and not it["stages"]["corrected"]["aligned"] for it in items if "corrected" in it["stages"]]
    better = [not it["stages"]["reranked"]["aligned"] and it["stages"]["corrected"]["aligned"] for it in items if "corrected" in it["stages"]]
    out["loop made it worse (reranked aligned, corrected not)"] = rate_metric("worse", worse).to_dict()
    out["loop fixed it (reranked not aligned, corrected aligned)"] = rate_metric("fixed", better, higher_is_better=True).to_dict()
    verdicts = [it["judge_aligned"] for it in items if "corrected" in it["stages"]]
    truth = [it["stages"]["corrected"]["aligned"] for it in items if "corrected" in it["stages"]]
    out["judge vs oracle on the final image"] = {
        "disagree": rate_metric("disagree", [j != t for j, t in zip(verdicts, truth)]).to_dict(),
        "judge aligned, oracle not (false pass)": rate_metric("false pass", [j and not t for j, t in zip(verdicts, truth)]).to_dict(),
        "oracle aligned, judge not (missed)": rate_metric("missed", [t and not j for j, t in zip(verdicts, truth)]).to_dict(),
    }
    # ablations
    n_loop = max((it["loop_calls"]["generator_images"] for it in items), default=4)
    out["ablation: rerank judge (first N candidates)"] = {
        j: rate_metric(j, [_best(it["candidates"][:n_loop], j)["oracle"] for it in items], higher_is_better=True).to_dict()
        for j in JUDGES
    }
    out[f"ablation: N candidates (best by {judge})"] = {
        str(n): rate_metric(str(n), [_best(it["candidates"][:n], judge)["oracle"] for it in items if len(it["candidates"]) >= n],
                            higher_is_better=True).to_dict()
        for n in (1, 2, 4, 8)
    }
    max_rounds = max((len(it["rounds_aligned"]) for it in items), default=1)
    out["ablation: edit rounds"] = {
        str(r): rate_metric(str(r), [it["rounds_aligned"][min(r, len(it["rounds_aligned"]) - 1)] for it in items],
                            higher_is_better=True).to_dict()
        for r in range(max_rounds)
    }
    bom = [_best(it["candidates"][: max(1, min(it["budget"], len(it["candidates"])))], judge)["oracle"] for it in items]
    edits = [it["stages"]["corrected"]["aligned"] for it in items if "corrected" in it["stages"]]
    out["ablation: edits vs best-of-M at equal generator+editor calls"] = {
        "edits (the loop)": rate_metric("edits", edits, higher_is_better=True).to_dict(),
        f"best-of-M by {judge}": rate_metric("best-of-M", bom, higher_is_better=True).to_dict(),
        "edits - best-of-M": paired_gain("edits - best-of-M", [float(x) for x in bom], [float(x) for x in edits]).to_dict(),
        "mean M": mean_metric("M", [it["budget"] for it in items], higher_is_better=None).to_dict(),
        # what the loop drew, uncapped (M is capped at MAX_CANDIDATES): when it is above M, best-of-M had fewer images
        "mean images the loop drew": mean_metric(
            "loop images", [it["loop_calls"].get("images", it["budget"]) for it in items], higher_is_better=None).to_dict(),
    }
    cats = sorted({it["category"] for it in items})
    out["full alignment per category"] = {
        c: {s: rate_metric(s, [it["stages"][s]["aligned"] for it in items if it["category"] == c and s in it["stages"]],
                           higher_is_better=True).to_dict() for s in STAGE_NAMES}
        for c in cats
    }
    return out


def analyse(out: Path, config: Any, models: Any = None, progress: bool = True) -> dict[str, Any]:
    """Oracle figures of a finished (or partial) ``bench run`` on the shapes suite; writes ``oracle.json``
    and ``oracle.md`` into ``out``."""
    out = Path(out)
    cfg = bench_config(config, correct=True)
    records = [r for r in latest_results(out / "results.jsonl", cfg.hash()) if r.ok]
    if models is None:
        from autoalign.models.cache import Models

        models = Models(cfg)
    items = []
    iterator = records
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(records, desc="oracle + ablations", unit="prompt")
    for record in iterator:
        items.append(analyse_item(record, out, models, cfg))
    result = figures(items, judge=cfg.scoring.primary)
    atomic_write_json(out / "oracle.json", result)
    atomic_write_text(out / "oracle.md", markdown(result))
    return result


def analyse_locked(out: Path, config: Any, models: Any = None, progress: bool = True) -> dict[str, Any]:
    """:func:`analyse` holding the output directory's writer lock (one writer per directory)."""
    from autoalign.files import directory_lock

    with directory_lock(Path(out), "bench analyse"):
        return analyse(out, config, models, progress)


def _cell(m: dict[str, Any]) -> str:
    return Metric.from_dict(m).fmt()


def markdown(result: dict[str, Any]) -> str:
    lines = ["# The shapes suite, read by the oracle", "",
             "Every figure is a share of prompts with its 95 % bootstrap interval and n. 'aligned' = the oracle finds "
             "every object, count, colour, size and relation of the prompt (and nothing extra).", ""]
    for section, body in result.items():
        if not isinstance(body, dict):
            continue
        lines += [f"## {section}", "", "| | value [95% CI] (n) | p (Wilcoxon) |", "|---|---|---|"]
        if "value" in body:  # a single figure
            body = {"": body}
        for key, m in body.items():
            if isinstance(m, dict) and "value" in m:
                p = ((m.get("extra") or {}).get("wilcoxon") or {}).get("p")
                lines.append(f"| {key} | {_cell(m)} | {'' if p is None else f'{p:.3g}'} |")
            elif isinstance(m, dict):
                for sub, mm in m.items():
                    lines.append(f"| {key} · {sub} | {_cell(mm)} | |")
        lines.append("")
    return "\n".join(lines)
