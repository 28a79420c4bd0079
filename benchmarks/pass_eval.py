"""The loop's pass decision on many generated images, against the oracle: ``python -m autoalign.benchmarks.pass_eval``.

When does the loop call an image "aligned"? :func:`verdict` asks exactly the code the loop asks: the
detectors (:func:`autoalign.detection.detect`, the loop's ``ctx.detect``), the mismatches the loop works on
(:func:`autoalign.editing.policy.mismatches_to_fix`) and the stop decision (:func:`autoalign.editing.policy.should_stop`
says "aligned"). A whole-loop run gives one final image per prompt (n = 100 on ``shapes-val``); this measures
the decision alone on many images, with no loop:

* **Images**: the world's generator draws ``loop.candidates`` images per caption at the loop's seed (the
  loop's own round-0 candidates for that prompt) for captions of the ``val`` split (``unseen_combinations``:
  later ``compositional`` ones), as ``shapes-val`` takes them (:func:`autoalign.benchmarks.suites.shapes_items`),
  **minus the 100 captions of shapes-val itself** (settings have been chosen on those for many rounds) and never
  a caption of the held-out ``shapes`` suite. Drawn images are cached (``--work``), so judging them again with
  other settings (``--set``) costs no generation.
* **Truth**: the oracle (:mod:`autoalign.world.oracle`, the measuring instrument; the loop never calls it) reads
  each image; an image it cannot read counts as wrong, as in the suite's figures.
* **Figures**, per image, 95 % intervals by bootstrap over prompts: *false pass* (the judge passes it, the oracle reads it wrong)
  and *missed* (the oracle reads it right, the judge does not pass it) as shares of all images, as the suite
  reports them per prompt; and as shares of the wrong / right images. Per category, and on the candidate the
  loop reranks first (``top``). The signals the decision reads: the CLIP score, the grounded pass's triplets,
  ``clip-probe``'s colours, the weakest box score of the prompt's objects, unreadable images.
* **Rules**: other pass decisions written over the recorded signals (:class:`Rule`), searched on one half of
  the prompts (``choose``: even positions within each category) and confirmed on the other (``confirm``), paired
  image by image against the preset's verdict. A rule that wins must then be made a preset option and measured
  again here by the loop's own code (``--set``): the recorded verdict column is always the loop's code.

``--runs DIR`` adds a bench run's final images (``autoalign bench run --suite shapes-val``): the verdict
recomputed here must equal the loop's own stop reason there (a check that :func:`verdict` is the loop's decision).
"""

from __future__ import annotations

import argparse
import itertools
import json
import logging
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from autoalign.benchmarks.metrics import Metric, wilson
from autoalign.types import Mismatch, ScoreCard

logger = logging.getLogger(__name__)

COMMAND = "python -m autoalign.benchmarks.pass_eval"
PARTS = ("choose", "confirm")


# ----------------------------------------------------------------------------------------------- the prompts


def prompts(per_category: int) -> list[dict[str, Any]]:
    """``per_category`` validation captions per shapes-val category that are not shapes-val's own, each with its
    category, its position within the category and its part (``choose``: even positions, ``confirm``: odd)."""
    from autoalign.benchmarks.suites import SHAPES_VAL_TARGETS, shapes_items

    tuned = {item.prompt for item in shapes_items(split="val")}
    wider = {c: per_category + want for c, want in SHAPES_VAL_TARGETS.items()}
    out: list[dict[str, Any]] = []
    position: dict[str, int] = {}
    for item in shapes_items(wider, split="val"):
        k = position.get(item.category, 0)
        if item.prompt in tuned or k >= per_category:
            continue
        position[item.category] = k + 1
        out.append({"id": item.id, "prompt": item.prompt, "category": item.category, "part": PARTS[k % 2]})
    return out


# ----------------------------------------------------------------------------------------- the loop's verdict


def verdict(image: Any, prompt: str, card: ScoreCard, models: Any, config: Any) -> tuple[bool, list[Mismatch]]:
    """The loop's pass decision on one image: ``(aligned, the mismatches the loop would work on)``. The same
    calls as the loop's ``detect`` node (``autoalign.agents.nodes._observe`` and ``policy.should_stop``)."""
    from autoalign.detection import detect
    from autoalign.editing import policy

    mismatches = policy.mismatches_to_fix(detect(image, prompt, card, models, config), card, config, prompt)
    stop = policy.should_stop(0, 0, card, mismatches, config.loop, threshold=policy.threshold_for(config, prompt))
    return stop == policy.ALIGNED, mismatches


def signals(image: Any, prompt: str, card: ScoreCard, models: Any, config: Any) -> dict[str, Any]:
    """What the decision reads, one image: the CLIP score, the grounded pass's triplets (aspect, unsure),
    ``clip-probe``'s own colours, the prompt's object boxes (weakest score), the grounder's object errors and the
    prompt's layout (objects, counts, relations, size words)."""
    from autoalign import registry
    from autoalign.detection import grounded_aspects, grounded_pass
    from autoalign.detection.layout import LayoutDetector
    from autoalign.grounding import read_layout
    from autoalign.vocabulary import unseen_object, unseen_phrases

    layout = read_layout(prompt)
    detector = LayoutDetector(models, config)
    boxes = detector.ground_layout(image, layout) if layout.objects else {}
    scores = [b.score for o in layout.objects for b in boxes.get(o.query, [])]
    unseen = [b.score for o in layout.objects if unseen_object(o, config) for b in boxes.get(o.query, [])]
    seen = [b.score for o in layout.objects if not unseen_object(o, config) for b in boxes.get(o.query, [])]
    grounded = grounded_pass(image, prompt, models, config) if getattr(config.detection, "grounded_pass", False) else []
    probe = []
    if "clip-probe" in config.detection.detectors:
        decided = grounded_aspects(config)
        probe = [m for m in registry.get("detector", "clip-probe")(models, config).detect(image, prompt, card)
                 if m.aspect not in decided]
    return {
        "clip": float(card.overall),
        "grounded": [{"aspect": m.aspect, "phrase": m.phrase, "unsure": bool((m.evidence or {}).get("unsure")),
                      "size": bool((m.evidence or {}).get("size"))} for m in grounded],
        "probe": [{"aspect": m.aspect, "phrase": m.phrase, "correction": m.correction} for m in probe],
        "min_box": min(scores) if scores else None,
        "min_box_seen": min(seen) if seen else None,
        "min_box_unseen": min(unseen) if unseen else None,
        "boxes": len(scores),
        "errors": detector.errors(image, prompt),
        "objects": len(layout.objects),
        "max_count": max((o.count or 1 for o in layout.objects), default=0),
        "relations": len(layout.relations),
        "sizes": sum(1 for o in layout.objects if o.size),
        "unseen": bool(unseen_phrases(prompt, config)),
    }


def truth(image: Any, prompt: str) -> dict[str, Any]:
    """The oracle's reading: readable, aligned (an unreadable image is not), the aspects it finds wrong."""
    from autoalign.world import oracle
    from autoalign.world.scene import parse_caption

    reading = oracle.read(image)
    if not reading.readable:
        return {"readable": False, "aligned": False, "failed": [], "reason": reading.reason}
    check = oracle.check(parse_caption(prompt), reading.scene)
    return {"readable": True, "aligned": check.aligned, "failed": sorted({f.aspect for f in check.failed()}), "reason": ""}


def judge_record(image: Any, prompt: str, card: ScoreCard, models: Any, config: Any) -> dict[str, Any]:
    passed, mismatches = verdict(image, prompt, card, models, config)
    return {"pass": passed, "mismatches": [[m.aspect, m.source] for m in mismatches],
            **signals(image, prompt, card, models, config), "oracle": truth(image, prompt)}


# ------------------------------------------------------------------------------------------- the images


def collect(items: Sequence[dict[str, Any]], models: Any, config: Any, work: Path, progress: bool = True) -> list[dict[str, Any]]:
    """One record per image: ``loop.candidates`` drawings per prompt at the loop's seed, cached as PNGs in
    ``work`` (drawn once; judged again with every call)."""
    from PIL import Image

    from autoalign.files import atomic_save_image
    from autoalign.scoring.rerank import keys_for, rank
    from autoalign.scoring.scorer import Scorer

    scorer = Scorer(models, config)
    m, seed = config.loop.candidates, config.loop.seed
    records: list[dict[str, Any]] = []
    iterator: Iterable[dict[str, Any]] = items
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(items, desc="pass eval", unit="prompt", file=sys.stderr)
    for item in iterator:
        paths = [work / item["id"] / f"cand_{k:02d}.png" for k in range(m)]
        if all(p.exists() for p in paths):
            images = []
            for p in paths:
                with Image.open(p) as im:
                    images.append(im.convert("RGB"))
        else:
            images = models.generator.generate(item["prompt"], m, seed)
            for p, im in zip(paths, images):
                p.parent.mkdir(parents=True, exist_ok=True)
                atomic_save_image(p, im)
        cards = scorer.score(images, item["prompt"])
        top = rank(cards, keys_for(config))[0]
        for k, (image, card) in enumerate(zip(images, cards)):
            records.append({**item, "image": k, "top": k == top, "source": "generated",
                            **judge_record(image, item["prompt"], card, models, config)})
    return records


def edited_images(item_dir: Path) -> list[Path]:
    """Every image a run item's rounds drew after round 0: instruction edits, region edits, regenerations."""
    return sorted(p for pattern in ("i*_s*.png", "region_s*.png", "regen_*.png") for p in (item_dir / "rounds").glob(f"r*/{pattern}"))


def run_images(run_dir: Path, models: Any, config: Any) -> list[dict[str, Any]]:
    """The images of a ``bench run`` on shapes-val (its latest record per prompt): the final image, with the loop's
    own verdict (``loop_pass``: the run stopped "aligned"), and every edited image the run drew (instruction edits,
    region edits, regenerations: the images the pass judges after round 0), each judged here. Parts by the prompt's
    position within its category, as for the generated images."""
    from PIL import Image

    from autoalign.benchmarks.bench_runner import latest_results
    from autoalign.scoring.scorer import Scorer
    from autoalign.types import RunResult

    scorer = Scorer(models, config)
    records = [r for r in latest_results(run_dir / "results.jsonl") if r.ok and "corrected" in r.stages]
    position: dict[str, int] = {}
    out = []
    for record in sorted(records, key=lambda r: r.id):
        k = position.get(record.category, 0)
        position[record.category] = k + 1
        item = {"id": record.id, "prompt": record.prompt, "category": record.category, "part": PARTS[k % 2], "top": False}
        item_dir = run_dir / record.run_dir
        paths = [(run_dir / record.stages["corrected"].image, "final"), *((p, "edit") for p in edited_images(item_dir))]
        images = []
        for path, _ in paths:
            with Image.open(path) as im:
                images.append(im.convert("RGB"))
        cards = scorer.score(images, record.prompt)
        loop_pass = RunResult.load(item_dir).stop_reason == "aligned"
        for (path, source), image, card in zip(paths, images, cards):
            extra = {"loop_pass": loop_pass} if source == "final" else {}
            out.append({**item, "image": str(path.relative_to(run_dir)), "source": source, **extra,
                        **judge_record(image, record.prompt, card, models, config)})
    return out


# ------------------------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    """A pass decision over the recorded signals. The preset's is ``Rule()`` with its gate and ``sure``: no
    grounded triplet (an unsure object aside), no ``clip-probe`` colour, the weakest object box >= ``sure``, CLIP
    >= ``gate``. ``low_gate`` < ``gate`` passes a clean image whose CLIP lies in [low_gate, gate) when its weakest
    box is >= ``low_sure`` (the CLIP-just-under-the-gate case); ``probe = False`` ignores clip-probe;
    ``relation_gate`` (when set) is the gate for prompts with a relation; ``unseen_gate = False`` asks no gate of a
    prompt that names a pair the vocabulary marks unseen (``[loop] unseen_gate``), ``unseen_threshold`` (when set)
    the gate such a prompt gets instead (``[loop] unseen_threshold``)."""

    gate: float = 2.1
    sure: float = 0.8
    low_gate: float | None = None
    low_sure: float = 1.0
    probe: bool = True
    relation_gate: float | None = None
    unseen_gate: bool = True
    unseen_threshold: float | None = None
    unseen_sure: float | None = None

    def name(self) -> str:
        parts = [f"gate {self.gate:g}", f"sure {self.sure:g}"]
        if self.low_gate is not None:
            parts.append(f"[{self.low_gate:g}, {self.gate:g}) if weakest box >= {self.low_sure:g}")
        if not self.probe:
            parts.append("no clip-probe")
        if self.relation_gate is not None:
            parts.append(f"relations gate {self.relation_gate:g}")
        if not self.unseen_gate:
            parts.append("no gate for unseen pairs")
        elif self.unseen_threshold is not None:
            parts.append(f"unseen pairs gate {self.unseen_threshold:g}")
        if self.unseen_sure is not None:
            parts.append(f"unseen pairs sure {self.unseen_sure:g}")
        return ", ".join(parts)

    def passes(self, r: dict[str, Any]) -> bool:
        if any(not g["unsure"] for g in r["grounded"]):
            return False
        if self.probe and r["probe"]:
            return False
        weakest = r["min_box"] if r["min_box"] is not None else 1.0
        gate = self.relation_gate if self.relation_gate is not None and r["relations"] else self.gate
        if not self.unseen_gate and r.get("unseen"):
            gate = float("-inf")
        elif self.unseen_threshold is not None and r.get("unseen"):
            gate = self.unseen_threshold
        sure = weakest >= self.sure
        if self.unseen_sure is not None:  # records before round 34 lack the split: they read as all seen
            seen, unseen = r.get("min_box_seen", r["min_box"]), r.get("min_box_unseen")
            sure = (seen is None or seen >= self.sure) and (unseen is None or unseen >= self.unseen_sure)
        if r["clip"] >= gate and sure:
            return True
        return self.low_gate is not None and self.low_gate <= r["clip"] < gate and weakest >= max(self.low_sure, self.sure)


def preset_rule(config: Any) -> Rule:
    from autoalign.detection.layout import LayoutDetector

    detector = LayoutDetector(None, config)
    return Rule(gate=float(config.loop.threshold), sure=detector.sure, unseen_sure=detector.unseen_sure,
                unseen_gate=bool(config.loop.unseen_gate), unseen_threshold=config.loop.unseen_threshold)


def share(flags: Sequence[bool], ids: Sequence[str]) -> dict[str, Any]:
    """The share of True flags with a 95 % interval by bootstrap over *prompts* (a prompt's images are drawn
    together, so its images are not independent: the interval is wider than a per-image Wilson interval);
    n = images, ``extra["prompts"]``."""
    import numpy as np

    from autoalign.benchmarks.metrics import N_BOOT, SEED

    if not flags:
        return Metric("share", None, 0).to_dict()
    keys = sorted(set(ids))
    where = {k: i for i, k in enumerate(keys)}
    hits, counts = np.zeros(len(keys)), np.zeros(len(keys))
    for f, i in zip(flags, ids):
        hits[where[i]] += bool(f)
        counts[where[i]] += 1
    rng = np.random.default_rng(SEED)
    idx = rng.integers(0, len(keys), size=(N_BOOT, len(keys)))
    boot = hits[idx].sum(axis=1) / counts[idx].sum(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    return Metric("share", float(hits.sum() / counts.sum()), len(flags), float(lo), float(hi),
                  extra={"prompts": len(keys)}).to_dict()


def rates(records: Sequence[dict[str, Any]], passes: Sequence[bool]) -> dict[str, Any]:
    """False pass and missed as shares of all images, and of the wrong / right ones; unreadable images;
    intervals by bootstrap over prompts (:func:`share`)."""
    right = [r["oracle"]["aligned"] for r in records]
    ids = [r["id"] for r in records]
    fp = [p and not t for p, t in zip(passes, right)]
    mi = [t and not p for p, t in zip(passes, right)]
    wrong_ids = [i for i, t in zip(ids, right) if not t]
    right_ids = [i for i, t in zip(ids, right) if t]
    return {"n": len(records), "right": sum(right), "passed": sum(passes),
            "false pass": share(fp, ids), "missed": share(mi, ids),
            "passed | wrong": share([f for f, t in zip(fp, right) if not t], wrong_ids),
            "refused | right": share([m for m, t in zip(mi, right) if t], right_ids),
            "unreadable": share([not r["oracle"]["readable"] for r in records], ids),
            "false pass, unreadable": sum(p and not r["oracle"]["readable"] for p, r in zip(passes, records))}


def paired(records: Sequence[dict[str, Any]], base: Sequence[bool], new: Sequence[bool]) -> dict[str, int]:
    """Image by image against the baseline verdict: right images newly passed / newly refused, wrong images
    newly refused / newly passed, and in how many prompts each happened."""
    out = {"right now passed": 0, "right now refused": 0, "wrong now refused": 0, "wrong now passed": 0}
    prompts_of: dict[str, set[str]] = {k: set() for k in out}
    for r, b, a in zip(records, base, new):
        if a == b:
            continue
        key = ("right" if r["oracle"]["aligned"] else "wrong") + (" now passed" if a else " now refused")
        out[key] += 1
        prompts_of[key].add(r["id"])
    return {**out, **{f"{k} (prompts)": len(v) for k, v in prompts_of.items()}}


def grid(gate: float, sure: float) -> list[Rule]:
    """The rules searched: the gate and ``sure`` moved, an under-the-gate band with a surer box, clip-probe off,
    a separate gate for relations, no gate or a lower one for prompts with an unseen pair (either way of the preset's),
    a lower ``sure`` for the objects of an unseen pair (``[detection.options.layout] unseen_sure``)."""
    rules = [Rule(g, s) for g, s in itertools.product((1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4), (0.0, 0.7, 0.8, 0.85, 0.9, 0.95))]
    rules += [Rule(gate, sure, low_gate=lo, low_sure=ls) for lo, ls in
              itertools.product((1.6, 1.7, 1.8, 1.9, 2.0), (0.85, 0.9, 0.93, 0.95, 0.97))]
    rules += [Rule(g, s, probe=False) for g, s in itertools.product((2.0, 2.1, 2.2), (0.8, 0.9))]
    rules += [Rule(gate, sure, relation_gate=rg) for rg in (1.8, 1.9, 2.0, 2.2, 2.3, 2.4)]
    rules += [Rule(g, s, unseen_gate=u) for g, s, u in itertools.product((2.0, 2.1, 2.2), (0.7, 0.75, 0.8, 0.85), (True, False))]
    rules += [Rule(gate, sure, unseen_threshold=u) for u in (1.5, 1.6, 1.7, 1.8, 1.9)]
    rules += [Rule(gate, sure, unseen_sure=u) for u in (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75)]
    return rules


def search(records: Sequence[dict[str, Any]], base: Rule) -> list[dict[str, Any]]:
    """Every rule of :func:`grid` on ``records``, those that refuse more wrong images than they add right ones
    refused first: sorted by (false passes, missed)."""
    base_pass = [base.passes(r) for r in records]
    base_rates = rates(records, base_pass)
    rows = []
    for rule in grid(base.gate, base.sure):
        p = [rule.passes(r) for r in records]
        rt = rates(records, p)
        rows.append({"rule": rule, "false pass": rt["false pass"]["value"], "missed": rt["missed"]["value"],
                     "paired": paired(records, base_pass, p),
                     "no worse": rt["missed"]["value"] <= base_rates["missed"]["value"] + 1e-12
                     and rt["false pass"]["value"] <= base_rates["false pass"]["value"] + 1e-12})
    rows.sort(key=lambda row: (not row["no worse"], row["false pass"] + row["missed"], row["false pass"]))
    return rows


# ------------------------------------------------------------------------------------------- the figures


def _cell(m: dict[str, Any]) -> str:
    return Metric.from_dict(m).fmt()


SOURCES = {"generated": "generated (round-0 candidates)", "edit": "edited (bench run)", "final": "final (bench run)"}


def figures(records: Sequence[dict[str, Any]], base: Rule) -> dict[str, Any]:
    """Verdict rates per group, the signals per outcome, the rule search on ``choose`` (generated and edited
    images together) and the winners on ``confirm``, per source."""
    out: dict[str, Any] = {"images": {s: sum(r["source"] == s for r in records) for s in SOURCES},
                           "prompts": {s: len({r["id"] for r in records if r["source"] == s}) for s in SOURCES}}
    out["rule reproduces the loop's verdict"] = wilson(sum(r["pass"] == base.passes(r) for r in records), len(records))
    finals = [r for r in records if r["source"] == "final"]
    if finals:
        out["verdict here = the loop's own (bench run finals)"] = wilson(sum(r["pass"] == r["loop_pass"] for r in finals), len(finals))
    groups: dict[str, list[dict[str, Any]]] = {}
    for source, label in SOURCES.items():
        mine = [r for r in records if r["source"] == source]
        groups[label] = mine
        if source == "generated":
            groups[f"{label}: the loop's reranked pick"] = [r for r in mine if r["top"]]
        for part in PARTS:
            groups[f"{label}: part {part}"] = [r for r in mine if r["part"] == part]
        if source != "final":
            for cat in sorted({r["category"] for r in mine}):
                groups[f"{label}: {cat}"] = [r for r in mine if r["category"] == cat]
    out["verdict"] = {k: rates(v, [r["pass"] for r in v]) for k, v in groups.items() if v}
    out["signals"] = {SOURCES[s]: signal_table([r for r in records if r["source"] == s]) for s in SOURCES
                      if any(r["source"] == s for r in records)}
    choose = [r for r in records if r["part"] == "choose" and r["source"] != "final"]
    ranked = search(choose, base)
    chosen = [row for row in ranked if row["no worse"] and (row["paired"]["wrong now refused"] or row["paired"]["right now passed"])]
    out["search on choose (best 12)"] = [{**row, "rule": row["rule"].name()} for row in ranked[:12]]
    out["confirm"] = []
    for source, label in SOURCES.items():
        confirm = [r for r in records if r["part"] == "confirm" and r["source"] == source]
        if not confirm:
            continue
        base_pass = [base.passes(r) for r in confirm]
        rt = rates(confirm, base_pass)
        out["confirm"].append({"images": label, "rule": base.name() + " (the preset)", "false pass": rt["false pass"],
                               "missed": rt["missed"], "paired": None})
        for row in chosen[:5]:
            p = [row["rule"].passes(r) for r in confirm]
            rt = rates(confirm, p)
            out["confirm"].append({"images": label, "rule": row["rule"].name(), "params": asdict(row["rule"]),
                                   "false pass": rt["false pass"], "missed": rt["missed"], "paired": paired(confirm, base_pass, p)})
    return out


def signal_table(records: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """Per outcome (passed right, false pass, missed, refused wrong): how many, CLIP median, the share with a
    grounded triplet / an unsure object / a clip-probe colour / CLIP below the gate, median weakest box,
    unreadable share."""
    import numpy as np

    rows = []
    for name, test in (("passed, right", lambda r: r["pass"] and r["oracle"]["aligned"]),
                       ("false pass", lambda r: r["pass"] and not r["oracle"]["aligned"]),
                       ("missed", lambda r: not r["pass"] and r["oracle"]["aligned"]),
                       ("refused, wrong", lambda r: not r["pass"] and not r["oracle"]["aligned"])):
        sel = [r for r in records if test(r)]
        if not sel:
            rows.append([name, 0, "", "", "", "", "", "", ""])
            continue
        boxes = [r["min_box"] for r in sel if r["min_box"] is not None]
        rows.append([
            name, len(sel),
            round(float(np.median([r["clip"] for r in sel])), 3),
            round(float(np.mean([any(not g["unsure"] for g in r["grounded"]) for r in sel])), 3),
            round(float(np.mean([any(g["unsure"] for g in r["grounded"]) for r in sel])), 3),
            round(float(np.mean([bool(r["probe"]) for r in sel])), 3),
            round(float(np.mean([bool(r["mismatches"]) and all(s == "low_score" for _, s in r["mismatches"]) for r in sel])), 3),
            round(float(np.median(boxes)), 3) if boxes else "",
            round(float(np.mean([not r["oracle"]["readable"] for r in sel])), 3),
        ])
    return rows


SIGNAL_COLUMNS = ["outcome", "images", "CLIP median", "grounded triplet", "unsure object", "clip-probe colour",
                  "only CLIP below the gate", "weakest box median", "oracle cannot read"]


def results_json(fig: dict[str, Any], command: str, settings: dict[str, Any]) -> dict[str, Any]:
    paired_cols = ["wrong now refused", "right now refused", "wrong now passed", "right now passed"]
    verdict_rows = [[k, v["n"], v["right"], v["passed"], _cell(v["false pass"]), _cell(v["missed"]),
                     _cell(v["passed | wrong"]), _cell(v["refused | right"]), _cell(v["unreadable"])]
                    for k, v in fig["verdict"].items()]
    signal_rows = [[source, *row] for source, rows in fig["signals"].items() for row in rows]
    def pair_cells(p: dict[str, int]) -> list[str]:
        return [f"{p[c]} ({p[c + ' (prompts)']} prompts)" for c in paired_cols]

    search_rows = [[row["rule"], round(row["false pass"], 4), round(row["missed"], 4), *pair_cells(row["paired"])]
                   for row in fig["search on choose (best 12)"]]
    confirm_rows = [[row["images"], row["rule"], _cell(row["false pass"]), _cell(row["missed"]),
                     *(pair_cells(row["paired"]) if row["paired"] else ("",) * 4)] for row in fig["confirm"]]
    checks = [["Rule(gate, sure) over the recorded signals gives the loop's verdict", _cell(fig["rule reproduces the loop's verdict"])]]
    if "verdict here = the loop's own (bench run finals)" in fig:
        checks.append(["the verdict here = the loop's own stop reason, bench run finals",
                       _cell(fig["verdict here = the loop's own (bench run finals)"])])
    counts = ", ".join(f"{fig['images'][s]} {SOURCES[s]} images of {fig['prompts'][s]} prompts" for s in SOURCES if fig["images"][s])
    return {
        "title": "The loop's pass decision on validation images, against the oracle (shapes world)",
        "command": command,
        "measures": (
            f"{counts}. Generated: val-split captions (unseen combinations from later compositional ones; shapes-val's own "
            "100 prompts and every held-out caption left out), the loop's round-0 candidates at its seed. Edited and final: "
            "the images a shapes-val bench run drew after round 0 and the image it ended on. Each image is judged by the "
            "loop's own pass decision (autoalign.detection.detect, policy.mismatches_to_fix, policy.should_stop) and read "
            "by the oracle (an unreadable image counts as wrong). false pass = judge passes, oracle reads wrong; missed = "
            "oracle reads right, judge does not pass; both as shares of all images (the suite's per-prompt definition, per "
            "image), and as shares of wrong / right images. 95 % intervals by bootstrap over prompts (a prompt's images "
            "are not independent). Rules over the recorded signals were "
            "searched on the 'choose' half of the prompts (generated and edited images); those that raised neither rate "
            "there are shown on the 'confirm' half, paired image by image against the preset's verdict. Settings: "
            + json.dumps(settings, sort_keys=True)
        ),
        "tables": [
            {"name": "the pass decision against the oracle, per image",
             "columns": ["images", "n", "oracle right", "judge passed", "false pass (of all)", "missed (of all)",
                         "passed | oracle wrong", "refused | oracle right", "oracle cannot read"],
             "rows": verdict_rows},
            {"name": "what the decision reads, per outcome", "columns": ["source", *SIGNAL_COLUMNS], "rows": signal_rows},
            {"name": "rules searched on the choose half (best 12 of the grid)",
             "columns": ["rule", "false pass", "missed", *paired_cols], "rows": search_rows},
            {"name": "the rules that raised neither rate on choose, on the confirm half (paired against the preset)",
             "columns": ["images", "rule", "false pass", "missed", *paired_cols], "rows": confirm_rows},
            {"name": "checks", "columns": ["check", "share"], "rows": checks},
        ],
    }


# ------------------------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> None:
    from autoalign.config import load_config
    from autoalign.files import atomic_write_json
    from autoalign.models.cache import Models

    parser = argparse.ArgumentParser(description="The loop's pass decision on generated validation images, against the oracle.")
    parser.add_argument("--per-category", type=int, default=60, help="validation prompts per category (shapes-val's own left out)")
    parser.add_argument("--work", default="pass-eval", help="where drawn images are cached (reused on the next call)")
    parser.add_argument("--records", help="write one JSON line per judged image here")
    parser.add_argument("--runs", action="append", default=[], help="a shapes-val bench run dir: its final images too (repeatable)")
    parser.add_argument("--config", help="a config file over the shapes preset (the settings to judge with)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=JSON", help="a setting to judge with (validation)")
    parser.add_argument("--from-records", help="figures from the JSON lines --records wrote (no models run)")
    parser.add_argument("--out", help="write the figures as docs/results JSON here")
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {}
    for item in args.set:
        key, _, value = item.partition("=")
        *path, last = key.split(".")
        node = overrides
        for part in path:
            node = node.setdefault(part, {})
        node[last] = json.loads(value)
    config = load_config("shapes", config_file=args.config, overrides=overrides or None)
    if args.from_records:
        text = Path(args.from_records).read_text(encoding="utf-8")
        records = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        models = Models(config)
        records = collect(prompts(args.per_category), models, config, Path(args.work))
        for run in args.runs:
            records += run_images(Path(run), models, config)
    if args.records:
        from autoalign.files import atomic_write_text

        atomic_write_text(args.records, "".join(json.dumps(r) + "\n" for r in records))
    fig = figures(records, preset_rule(config))
    print(json.dumps({k: v for k, v in fig.items() if k != "signals"}, indent=1, default=str))
    if args.out:
        command = COMMAND + " " + " ".join(sys.argv[1:] if argv is None else argv)
        settings = {"threshold": config.loop.threshold, "detection": {"detectors": config.detection.detectors,
                    "grounded_pass": config.detection.grounded_pass, "options": config.detection.options}}
        atomic_write_json(args.out, results_json(fig, command, settings))


if __name__ == "__main__":
    main()
