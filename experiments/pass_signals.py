"""Which signal tells a right image from a wrong one once the grounded layout agrees with the prompt (round 33, issue 36;
analysis only).

``python -m experiments.pass_signals --records pe.jsonl --work PE_WORK --runs VAL_RUN [--scores] [--out X.json]``
reads :mod:`autoalign.benchmarks.pass_eval`'s records (validation images only: generated round-0 candidates, a
``shapes-val`` run's edited and final images) and keeps the **layout-clean** ones: no grounded triplet (an unsure
object aside), no ``clip-probe`` colour, the weakest object box at least the preset's ``sure``. There the pass
decision is the CLIP gate alone. Per ``pass_eval`` half (choose / confirm), against the oracle's verdict:

* ROC AUC of the recorded CLIP score and of the weakest box score; with ``--scores``, of VQ2 and VNLI too (the
  ``shapes`` preset's scorer, run again on each image: the VLM is the only extra model, about a minute on one thread);
* the **blob census**: the preset's grounder reads each image again with its shape head and ``drop_blobs`` off, and
  the images holding an instance the head calls ``blob`` (which ``drop_blobs`` leaves unread) are counted, right and
  wrong.

A signal whose AUC is near 0.5 cannot be gated into separating right from wrong; a kind of image that only wrong
images have can be refused at no miss.
"""

from __future__ import annotations

import argparse
import collections
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from autoalign.benchmarks.pass_eval import PARTS
from autoalign.config import load_config
from autoalign.files import atomic_write_json


def image_path(r: dict[str, Any], work: Path, runs: Path) -> Path:
    return work / r["id"] / f"cand_{r['image']:02d}.png" if r["source"] == "generated" else runs / r["image"]


def layout_clean(r: dict[str, Any], sure: float) -> bool:
    weakest = r["min_box"] if r["min_box"] is not None else 1.0
    return not any(not g["unsure"] for g in r["grounded"]) and not r["probe"] and weakest >= sure


def auc(right: list[bool], score: list[float]) -> float | None:
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(right, score)) if 0 < sum(right) < len(right) else None


def head_labels(config, paths: list[Path]) -> dict[str, list[str]]:
    """Per image, the shape head's label of every instance the SegFormer reads (nothing dropped)."""
    from autoalign.models.cache import Models
    from autoalign.models.shape_head import features

    grounder = Models(replace(config, grounder=replace(config.grounder, options={"drop_blobs": 0}))).grounder
    grounder.load()
    head, out = grounder._head, {}
    for start in range(0, len(paths), 32):
        chunk = paths[start:start + 32]
        grounder._head = None  # the SegFormer's instances before the head relabels or drops any
        try:
            found = grounder.read_instances([Image.open(p).convert("RGB") for p in chunk])
        finally:
            grounder._head = head
        for p, insts in zip(chunk, found):
            rows = np.stack([features(f["mask"], f["p_shape"]) for f in insts]) if insts else np.zeros((0, 8))
            out[str(p)] = head.predict(rows) if len(rows) else []
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True, help="pass_eval's --work (the generated candidates)")
    ap.add_argument("--runs", type=Path, required=True, help="the shapes-val run the edited and final images are from")
    ap.add_argument("--scores", action="store_true", help="also score VQ2 and VNLI again (the VLM)")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)

    from autoalign.detection.layout import LayoutDetector

    config = load_config("shapes")
    sure = LayoutDetector(None, config).sure
    records = [json.loads(line) for line in args.records.read_text(encoding="utf-8").splitlines() if line.strip()]
    clean = [r for r in records if layout_clean(r, sure)]
    path = {id(r): image_path(r, args.work, args.runs) for r in clean}
    extra: dict[str, dict[str, float | None]] = {}
    if args.scores:
        from autoalign.models.cache import Models
        from autoalign.scoring.scorer import Scorer

        scorer = Scorer(Models(config), config, only={"vq2", "vnli", "clip"})  # clip: the primary, so no fallback warning
        by_prompt: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
        for r in clean:
            by_prompt[r["prompt"]].append(r)
        for prompt, rs in by_prompt.items():
            for r, card in zip(rs, scorer.score([Image.open(path[id(r)]).convert("RGB") for r in rs], prompt)):
                extra[str(path[id(r)])] = {"vq2": card.vq2, "vnli": card.vnli}
    labels = head_labels(config, sorted({path[id(r)] for r in clean}))

    result: dict[str, Any] = {"command": "python -m experiments.pass_signals " + " ".join(argv or []), "sure": sure,
                              "records": len(records), "parts": {}}
    for part in PARTS:
        rs = [r for r in clean if r["part"] == part]
        right = [bool(r["oracle"]["aligned"]) for r in rs]
        row: dict[str, Any] = {"images": len(rs), "right": sum(right),
                               "auc": {"clip": auc(right, [r["clip"] for r in rs]),
                                       "weakest box": auc(right, [r["min_box"] if r["min_box"] is not None else 1.0 for r in rs])}}
        for key in ("vq2", "vnli") if extra else ():
            row["auc"][key] = auc(right, [extra[str(path[id(r)])][key] or 0.0 for r in rs])
        blob = ["blob" in labels[str(path[id(r)])] for r in rs]
        row["blob census"] = {"wrong with a blob": sum(b and not y for b, y in zip(blob, right)),
                              "wrong": len(rs) - sum(right),
                              "right with a blob": sum(b and y for b, y in zip(blob, right)), "right": sum(right)}
        row["wrong, by the oracle"] = dict(collections.Counter(
            "unreadable" if not r["oracle"]["readable"] else "+".join(r["oracle"]["failed"]) for r in rs
            if not r["oracle"]["aligned"]).most_common())
        result["parts"][part] = row
        aucs = ", ".join(f"{k} {v:.3f}" for k, v in row["auc"].items() if v is not None)
        census = row["blob census"]
        print(f"{part}: {len(rs)} layout-clean images, {sum(right)} right; ROC AUC {aucs}; a blob in "
              f"{census['wrong with a blob']} of {census['wrong']} wrong, {census['right with a blob']} of {census['right']} right")
    if args.out:
        atomic_write_json(args.out, result)


if __name__ == "__main__":
    main()
