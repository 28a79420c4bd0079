"""``autoalign world eval``: how well the shapes world's oracle and trained judges do, with n and 95 % CIs.

* **oracle** - exact scene recovery (every object's shape, colour and size) on rendered test and
  compositional scenes; Wilson intervals.
* **vlm** - yes/no accuracy per question type (existence, colour, shape, count, size, relation,
  and VNLI's entailment question) on test and compositional scenes, and short-answer accuracy
  (exact match) on the detector's open questions. Questions come from the project's question
  generator on the scene's caption and on one-edit-away captions (the training recipe's forms),
  asked through the real VQA backend of the ``shapes`` preset.
* **vq2** - ROC AUC of VQ2 and VNLI for telling a caption's own image from an image one edit away
  (SeeTRUE's protocol in this world), with bootstrap intervals; VQ2 per kind of edit, and VQ2 also
  with the other setting of the question generator's ``closed_counts`` option (a count question for
  every "a"; off, DSG's questions, in the ``shapes`` preset and by default), and the ceiling of each
  question setting: the AUC of a perfect VQA whose answers are read off the scene graph (:func:`truth_vq2`).
* **rerank** - the judges on the trained generator's own candidates (4 per caption, seeded): how often
  the candidate each judge ranks first is one the oracle reads as right (best of 4; the oracle's own
  pick is the upper bound), and how well each score separates right candidates from wrong ones (ROC
  AUC, the best threshold): the figures that choose the preset's judge and ``loop.threshold`` on the
  validation split.
* **instructions** - the loop's detection and writing on rendered scenes one edit away from their
  caption, by the preset's detectors (the CLIP probe) and, to compare, by the VQ2 detector (the
  trained VLM answers the caption's questions and the detector's open questions) and by both merged; the template
  writer writes. The share whose instruction is exactly the one written from the true scene (the
  editor's training instruction), and the share of a caption's *own* image with no mismatch
  reported (no false alarm).
* **editor** - the trained editor given that true instruction on a rendered one-edit-away scene:
  the share of edits the oracle reads as showing the caption (per kind of edit), and the share the
  oracle cannot read.
* **region** - the region editor given the true layout error (removal, addition, move, recolour,
  reshape) on rendered scenes, read by the oracle, and the share of the other objects left as they
  were (:mod:`autoalign.benchmarks.region_eval`).
* **clip** - Winoground text / image / group scores of the CLIP with hard negatives and of the one
  trained without them (``clip-plain``) and of one trained with binding swaps among its negatives
  (``clip-swap``), on colour-swapped and relation-swapped pairs (ColorSwap /
  BiVLC protocol); chance is 0.25 / 0.25 / 0.167.

Everything is seeded; scenes come from the ``test`` and ``compositional`` splits, never ``train``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path
from typing import Any, Sequence

from autoalign.benchmarks.meta import winoground_item
from autoalign.benchmarks.metrics import Metric, wilson
from autoalign.world import facts, oracle
from autoalign.world.render import draw, scene_for
from autoalign.world.scene import Group, Scene, Spec, parse_caption, spec_for
from autoalign.world.training.data import questions as caption_questions
from autoalign.world.training.data import world_scenes
from autoalign.world.training.edits import adds_to_a_single, edit_away, one_edit_away

SPLITS = ("test", "compositional")
PARTS = ("oracle", "vlm", "vq2", "rerank", "instructions", "editor", "region", "clip")


def auc_with_ci(labels: Sequence[int], scores: Sequence[float], n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    import numpy as np
    from sklearn.metrics import roc_auc_score

    y, s = np.asarray(labels), np.asarray(scores, dtype=float)
    if len(set(y.tolist())) < 2:
        return Metric("roc_auc", None, int(len(y)), higher_is_better=True).to_dict()
    rng = np.random.default_rng(seed)
    boots = []
    for _ in range(n_boot):
        idx = rng.integers(0, len(y), len(y))
        if len(set(y[idx].tolist())) == 2:
            boots.append(roc_auc_score(y[idx], s[idx]))
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return Metric("roc_auc", float(roc_auc_score(y, s)), int(len(y)), float(lo), float(hi), True).to_dict()


def best_threshold(scores: Sequence[float], labels: Sequence[bool]) -> tuple[float, int]:
    """The score threshold (among the scores seen) that classifies most items right as ``score >= t``
    for a true label, and how many it gets right; the lowest such threshold on ties."""
    def hits(t: float) -> int:
        return sum((s >= t) == bool(y) for s, y in zip(scores, labels))

    best = max(sorted(set(scores)), key=hits)
    return best, hits(best)


def config_for(weights: Path | None = None, **overrides: Any):
    from autoalign.config import deep_merge, load_config

    data: dict[str, Any] = {}
    if weights is not None:
        w = Path(weights)
        data = {"generator": {"model": str(w / "generator")}, "editor": {"model": str(w / "editor")},
                "vqa": {"model": str(w / "vlm")}, "clip": {"model": str(w / "clip")}}
    return load_config("shapes", overrides=deep_merge(data, overrides) if overrides else data)


# --------------------------------------------------------------------------------------------- oracle


def eval_oracle(n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    out = {}
    for split in splits:
        ok = 0
        for _spec, scene in world_scenes(split, n):
            reading = oracle.read(draw(scene))
            key = lambda s: sorted((o.shape, o.color, o.size) for o in s.objects)  # noqa: E731
            ok += bool(reading.readable and key(reading.scene) == key(scene))
        out[split] = wilson(ok, n)
    return out


# --------------------------------------------------------------------------------------------- VLM


def vlm_items(split: str, n: int, seed: int = 0) -> list[dict[str, Any]]:
    """Yes/no items: the generator's questions on the caption and on one-edit-away captions, VNLI, and
    shape questions (a colour the scene has, on another shape); labels from the scene graph."""
    from autoalign import prompts

    rng = random.Random(seed)
    predicate = prompts.load("vq2_predicate.txt").strip()
    vnli = prompts.load("vnli.txt").strip()
    items = []
    for spec, scene in world_scenes(split, n):
        for cap in (spec, facts.perturb(spec, rng)):
            caption = cap.caption()
            items.append({"scene": scene, "text": vnli.format(text=caption), "type": "vnli",
                          "label": oracle.check(cap, scene).aligned})
            for q in caption_questions(caption):
                truth = facts.question_truth(q, scene)
                if truth is not None:
                    items.append({"scene": scene, "text": predicate.format(answer=q.answer, question=q.text),
                                  "type": facts.question_topic(q.text, q.aspect, q.answer), "label": truth})
        o = rng.choice(scene.objects)
        shape = rng.choice(["circle", "square", "triangle"])
        items.append({"scene": scene, "text": f"is there a {o.color} {shape}?", "type": "shape",
                      "label": bool(facts.matching(scene, Group(1, o.color, shape)))})
    return items


def answer_items(split: str, n: int, seed: int = 0) -> list[dict[str, Any]]:
    from autoalign.world.training.data import _open_questions

    rng = random.Random(seed + 1)
    items = []
    for spec, scene in world_scenes(split, n):
        for q in _open_questions(spec, scene, rng):
            ans = facts.open_answer(q, scene)
            if ans:
                items.append({"scene": scene, "text": q, "answer": ans})
    return items


def eval_vlm(models, n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in splits:
        items = vlm_items(split, n)
        images = {id(it["scene"]): draw(it["scene"]) for it in items}
        probs = models.vqa.yes_prob([images[id(it["scene"])] for it in items], [it["text"] for it in items])
        per_type: dict[str, list[bool]] = {}
        for it, p in zip(items, probs):
            per_type.setdefault(it["type"], []).append((p >= 0.5) == it["label"])
        table = {t: wilson(sum(v), len(v)) for t, v in sorted(per_type.items())}
        yes_no = [ok for t, v in per_type.items() if t != "vnli" for ok in v]
        table["all yes/no (no vnli)"] = wilson(sum(yes_no), len(yes_no))
        table["share of yes labels"] = wilson(sum(it["label"] for it in items), len(items))
        ans = answer_items(split, max(1, n // 3))
        got = models.vqa.answer([draw(it["scene"]) for it in ans], [it["text"] for it in ans], max_new_tokens=12)
        right = [g.strip().lower().rstrip(".") == it["answer"] for g, it in zip(got, ans)]
        table["short answers (exact)"] = wilson(sum(right), len(right))
        out[split] = table
    return out


# --------------------------------------------------------------------------------------------- VQ2 / VNLI AUC


#: the kind of edit no question of DSG's (the preset's) can see: a second copy of an object the caption names with "a" (:func:`adds_to_a_single`)
A_COPY = "extra copy of an 'a' object"


def truth_vq2(questions, scene: Scene, zeroing: bool = True) -> float:
    """VQ2 as a *perfect* VQA model would score it: each question's P(yes) is its truth on the scene
    graph (:func:`facts.question_truth`; 0.5 where that cannot be read), DSG zeroing as the scorer
    applies it. Over one-edit-away pairs its ROC AUC is the ceiling a question set allows."""
    from autoalign.scoring.vq2 import dependency_zeroed, vq2_score

    p = [0.5 if (t := facts.question_truth(q, scene)) is None else float(t) for q in questions]
    return vq2_score(dependency_zeroed(questions, p) if zeroing else p) or 0.0


def eval_vq2(models, config, n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    scorer = Scorer(models, config)
    # VQ2 also with the other question setting: with a count for every "a" ("is there one red circle?",
    # the question generator's closed_counts option: what the world's closed captions mean), or, for a
    # preset that sets it, without it (DSG's questions, the generator's default)
    closed_in_preset = bool(config.questions.options.get("closed_counts", False))
    alt = replace(config, questions=replace(config.questions, options={**config.questions.options, "closed_counts": not closed_in_preset}))
    alt_scorer = Scorer(Models(alt), alt, only={"vq2"})
    alt_row = "vq2 ROC AUC with DSG's questions (no count for 'a')" if closed_in_preset else "vq2 ROC AUC with a count for every 'a' (closed_counts)"
    rng = random.Random(7)
    out: dict[str, Any] = {}
    for split in splits:
        labels: list[int] = []
        kinds: list[str] = []  # of each edited image ("" for the caption's own)
        scores: dict[str, list[float]] = {"vq2": [], "vnli": [], "clip": []}
        alt_scores: list[float] = []
        ceiling: dict[str, list[float]] = {"preset": [], "alt": []}  # a perfect VQA's VQ2 (truth_vq2)
        for spec, scene in world_scenes(split, n):
            got = edit_away(spec, scene, rng)
            if got is None:
                continue
            other, kind = got
            pair = [draw(scene), draw(other)]
            cards = scorer.score(pair, spec.caption())
            alt_scores += [float(c.vq2) for c in alt_scorer.score(pair, spec.caption())]
            for key, which in (("preset", scorer), ("alt", alt_scorer)):
                qs = which.questions(spec.caption())
                ceiling[key] += [truth_vq2(qs, s, config.scoring.dependency_zeroing) for s in (scene, other)]
            kinds += ["", A_COPY if adds_to_a_single(spec, other, kind) else kind]
            for label, card in zip((1, 0), cards):
                labels.append(label)
                for key in scores:
                    if getattr(card, key) is not None:
                        scores[key].append(float(getattr(card, key)))
        table = {f"{k} ROC AUC": auc_with_ci(labels, v) for k, v in scores.items() if len(v) == len(labels)}
        table[alt_row] = auc_with_ci(labels, alt_scores)
        # the ceiling of each question set: VQ2 with every answer read off the scene graph
        table["vq2 ROC AUC with a perfect VQA (answers from the scene graph): the preset's questions' ceiling"] = auc_with_ci(labels, ceiling["preset"])
        table[f"{alt_row.replace('vq2 ROC AUC', 'the same ceiling')}"] = auc_with_ci(labels, ceiling["alt"])
        if len(scores["vq2"]) == len(labels):
            # VQ2 by the kind of edit: every own image against the edited images of that kind
            own = [s for s, k in zip(scores["vq2"], kinds) if not k]
            for kind in sorted(set(kinds) - {""}):
                edited = [s for s, k in zip(scores["vq2"], kinds) if k == kind]
                table[f"vq2 ROC AUC, edit: {kind}"] = auc_with_ci([1] * len(own) + [0] * len(edited), own + edited)
            seen = [i for i, k in enumerate(kinds) if k != A_COPY]
            table["vq2 ROC AUC, edits its questions can see (all but extra copies of an 'a' object)"] = auc_with_ci(
                [labels[i] for i in seen], [scores["vq2"][i] for i in seen])
        out[split] = table
    return out


# --------------------------------------------------------------------------------------------- rerank


def eval_rerank(models, config, n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    """Each judge's first pick among the generator's candidates, read by the oracle (module docstring)."""
    from autoalign.scoring.scorer import Scorer

    scorer = Scorer(models, config)
    k = config.loop.candidates  # the preset's: as many candidates as the loop draws
    judges = ("vq2", "vnli", "clip")
    out: dict[str, Any] = {}
    for split in splits:
        picks: dict[str, list[bool]] = {j: [] for j in ("first candidate", *judges, "oracle (upper bound)")}
        scores: dict[str, list[float]] = {j: [] for j in judges}
        right: list[int] = []
        for i, (spec, _scene) in enumerate(world_scenes(split, n)):
            caption = spec.caption()
            images = models.generator.generate(caption, n=k, seed=i)
            cards = scorer.score(images, caption)
            ok = [oracle.shows(image, spec) for image in images]
            picks["first candidate"].append(ok[0])
            picks["oracle (upper bound)"].append(any(ok))
            for j in judges:
                values = [getattr(c, j) for c in cards]
                if any(v is None for v in values):
                    continue
                picks[j].append(ok[max(range(len(values)), key=lambda k: values[k])])
                scores[j] += [float(v) for v in values]
            right += [int(x) for x in ok]
        table: dict[str, Any] = {f"best of {k} right by {j}": wilson(sum(v), len(v)) for j, v in picks.items() if v}
        for j, v in scores.items():
            if len(v) != len(right):
                continue
            table[f"{j}: ROC AUC right vs wrong candidates"] = auc_with_ci(right, v)
            best, hits = best_threshold(v, right)
            table[f"{j}: accuracy at its best threshold here, {best:.3f}"] = wilson(hits, len(v))
        table["share of candidates right"] = wilson(sum(right), len(right))
        out[split] = table
    return out


# --------------------------------------------------------------------------------------------- detection, editing


def edit_cases(split: str, n: int, seed: int = 11) -> list[Any]:
    """Editor triples (:func:`autoalign.world.training.edits.triple`) from ``n`` scenes of ``split``."""
    from autoalign.world.training.edits import triple

    rng = random.Random(f"{seed}/{split}")
    return [t for spec, scene in world_scenes(split, n) if (t := triple(spec, scene, rng)) is not None]


def eval_instructions(models, config, n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    """The loop's instruction on one-edit-away scenes, by the preset's detectors and, to compare, by VQ2's."""
    from autoalign.detection import detect
    from autoalign.editing.template_writer import TemplateWriter
    from autoalign.scoring.scorer import Scorer

    scorer = Scorer(models, config)
    writer = TemplateWriter(config=config, mode=config.loop.multi_mismatch)
    # the preset's detectors, VQ2's alone and (merged) both, to compare
    setups = [list(config.detection.detectors)]
    for extra in (["vq2"], [*config.detection.detectors, "vq2"]):
        if extra not in setups and len(set(extra)) == len(extra):
            setups.append(extra)
    out: dict[str, Any] = {}
    for split in splits:
        cases = [(t, draw(t.source), draw(t.target)) for t in edit_cases(split, n)]
        cards = [scorer.score([source, own], t.prompt) for t, source, own in cases]
        for detectors in setups:
            cfg = replace(config, detection=replace(config.detection, detectors=detectors))
            right, quiet = [], []
            for (t, source, own), (s_card, o_card) in zip(cases, cards):
                found = detect(source, t.prompt, s_card, models, cfg)  # as the loop runs them
                written = writer.write(t.prompt, found, tried=[]) if found else []
                right.append(bool(written) and written[0].text == t.instruction)
                quiet.append(not detect(own, t.prompt, o_card, models, cfg))
            name = "+".join(detectors)
            out.setdefault(split, {}).update({
                f"{name}: instruction = the true one (one edit away)": wilson(sum(right), len(right)),
                f"{name}: no mismatch on the caption's own image": wilson(sum(quiet), len(quiet)),
            })
    return out


def eval_editor(models, n: int, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in splits:
        per_kind: dict[str, list[bool]] = {}
        unread = 0
        cases = edit_cases(split, n)
        for t in cases:
            edited = models.editor.edit(draw(t.source), t.instruction, n=1, seed=0)[0]
            reading = oracle.read(edited)
            unread += not reading.readable
            ok = reading.readable and oracle.check(parse_caption(t.prompt), reading.scene).aligned
            per_kind.setdefault(t.kind, []).append(ok)
        table = {f"fixed: {k}": wilson(sum(v), len(v)) for k, v in sorted(per_kind.items())}
        every = [ok for v in per_kind.values() for ok in v]
        table["fixed: every kind"] = wilson(sum(every), len(every))
        table["oracle cannot read the edit"] = wilson(unread, len(cases))
        out[split] = table
    return out


# --------------------------------------------------------------------------------------------- CLIP


def swap_pairs(n: int, split: str, kind: str, seed: int = 0) -> list[tuple[str, str, Any, Any]]:
    """(caption 0, caption 1, image 0, image 1): two objects with colours swapped, or a relation reversed."""
    rng = random.Random(f"{seed}/{split}/{kind}")
    out = []
    i = 0
    while len(out) < n and i < 100 * n:
        i += 1
        spec = spec_for(split, i, "spatial")
        a, rel, b = spec.relation  # type: ignore[misc]
        ga, gb = spec.groups[a], spec.groups[b]
        if kind == "colour":
            if ga.color == gb.color or ga.shape == gb.shape:
                continue
            s0 = Spec((Group(1, ga.color, ga.shape), Group(1, gb.color, gb.shape)))
            s1 = Spec((Group(1, gb.color, ga.shape), Group(1, ga.color, gb.shape)))
            scene0 = scene_for(s0, rng.randrange(10**6))
            x, y = scene0.objects
            scene1 = Scene([replace(x, color=y.color), replace(y, color=x.color)])
        else:
            if (ga.color, ga.shape) == (gb.color, gb.shape):
                continue
            s0 = Spec((Group(1, ga.color, ga.shape), Group(1, gb.color, gb.shape)), (0, rel, 1))
            opposite = {"to the left of": "to the right of", "to the right of": "to the left of", "above": "below", "below": "above"}
            s1 = Spec(s0.groups, (0, opposite[rel], 1))
            scene0 = scene_for(s0, rng.randrange(10**6))
            x, y = scene0.objects
            scene1 = Scene([replace(x, x=y.x, y=y.y), replace(y, x=x.x, y=x.y)])
        out.append((s0.caption(), s1.caption(), draw(scene0), draw(scene1)))
    return out


def winoground(score, pairs) -> dict[str, Any]:
    text = image = group = 0
    for c0, c1, i0, i1 in pairs:
        s = score([i0, i1], [c0, c1])  # s[c][i]
        item = winoground_item(s[0][0], s[0][1], s[1][0], s[1][1])
        text += item.text
        image += item.image
        group += item.group
    n = len(pairs)
    return {"text": wilson(text, n), "image": wilson(image, n), "group": wilson(group, n)}


def clip_score_fn(clip):
    def score(images, captions):
        return [clip.cosine(images, c) for c in captions]

    return score


def clip_scorer(folder: str | Path):
    """The open_clip scorer of a CLIP folder (open_clip's hub layout) on the CPU in float32, as the world is judged."""
    from autoalign.config import RoleSpec
    from autoalign.models.clip import OpenClipScorer
    from autoalign.models.loading import DeviceSpec

    return OpenClipScorer(RoleSpec(backend="open_clip", model=str(folder), options={}), DeviceSpec("cpu", "float32"))


def eval_clip(config, n: int, weights: Path | None = None, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    from autoalign.world import WEIGHTS_DIR

    root = Path(weights) if weights else WEIGHTS_DIR
    out: dict[str, Any] = {}
    for name in ("clip", "clip-plain", "clip-swap"):
        if not (root / name).is_dir():
            out[name] = {"missing": str(root / name)}
            continue
        clip = clip_scorer(root / name)
        out[name] = {
            f"{split} {kind} swap": winoground(clip_score_fn(clip), swap_pairs(n, split, kind))
            for split in splits for kind in ("colour", "relation")
        }
    return out


def run(n: int = 300, weights: Path | None = None, parts: Sequence[str] | None = None, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    """The figures of the parts asked for (all by default) on ``splits`` (``("val",)`` to tune on, never the held-out ones)."""
    from autoalign.models.cache import Models

    parts = list(parts or PARTS)
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        from autoalign.errors import InputError

        raise InputError(f"--only must be among {', '.join(PARTS)} (got {', '.join(unknown)})")
    from autoalign.world import WEIGHTS_DIR

    has_clip = ((Path(weights) if weights else WEIGHTS_DIR) / "clip" / "open_clip_config.json").is_file()
    config = config_for(weights, **({} if has_clip else {"scoring": {"clip": False}}))
    models = Models(config)
    result: dict[str, Any] = {"n_per_split": n}
    if "oracle" in parts:
        result["oracle exact scene recovery"] = eval_oracle(n, splits)
    if "vlm" in parts:
        result["vlm accuracy"] = eval_vlm(models, n, splits)
    if "vq2" in parts:
        result["own image vs one edit away"] = eval_vq2(models, config, n, splits)
    if "rerank" in parts:
        result["the judges on generated candidates"] = eval_rerank(models, config, n, splits)
    if "instructions" in parts:
        result["the loop's instruction on one-edit-away scenes"] = eval_instructions(models, config, n, splits)
    if "editor" in parts:
        result["editor, given the true instruction"] = eval_editor(models, n, splits)
    if "region" in parts:
        from autoalign.benchmarks.region_eval import eval_region

        result["region editor, given the true layout error"] = eval_region(models.region_editor, n, splits)
    if "clip" in parts:
        result["clip winoground"] = eval_clip(config, n, weights, splits)
    return result


def _fmt(m: dict[str, Any]) -> str:
    return Metric.from_dict(m).fmt()


def print_table(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    for section, body in result.items():
        if not isinstance(body, dict):
            continue
        table = Table(title=section)
        table.add_column("where")
        table.add_column("figure")
        table.add_column("value [95% CI] (n)")
        for where, rows in body.items():
            if isinstance(rows, dict) and "value" in rows:
                table.add_row(where, "", _fmt(rows))
                continue
            for name, m in rows.items():
                if isinstance(m, dict) and "value" in m:
                    table.add_row(where, name, _fmt(m))
                elif isinstance(m, dict):
                    for sub, mm in m.items():
                        table.add_row(where, f"{name} {sub}", _fmt(mm))
                else:
                    table.add_row(where, name, str(m))
        console.print(table)


def calibrate_threshold(n: int = 100, split: str = "val", weights: Path | None = None, key: str = "vq2") -> dict[str, Any]:
    """The threshold of score ``key`` that best separates a caption's own image from one edit away on the
    *validation* split (the development set: the shapes preset's ``loop.threshold`` is tuned here,
    never on test or compositional scenes)."""
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    config = config_for(weights, scoring={"clip": key == "clip", "vnli": key == "vnli"})
    scorer = Scorer(Models(config), config)
    rng = random.Random(3)
    pos, neg = [], []
    for spec, scene in world_scenes(split, n):
        other = one_edit_away(spec, scene, rng)
        if other is None:
            continue
        own, edited = scorer.score([draw(scene), draw(other)], spec.caption())
        pos.append(getattr(own, key))
        neg.append(getattr(edited, key))
    best, hits = best_threshold(pos + neg, [True] * len(pos) + [False] * len(neg))
    acc = hits / (len(pos) + len(neg))
    return {"split": split, "score": key, "n_pairs": len(pos), "threshold": best, "accuracy": acc,
            "mean_own": sum(pos) / len(pos), "mean_one_edit_away": sum(neg) / len(neg)}
