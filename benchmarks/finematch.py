"""FineMatch-style evaluation: score mismatch triplets with ITM-IoU, from saved predictions or by running detection.

Data format, one JSON object per line (the FineMatch annotations converted to JSON lines)::

    {"id": "17", "image": "17.jpg", "caption": "a red car next to two dogs",
     "mismatches": [{"class": "attribute", "phrase": "red", "correction": "blue"}]}

``mismatches`` is empty for a caption that matches its image. Predictions use the same shape
(``id`` and ``mismatches``; ``aspect`` is accepted for ``class``), matched to the data by ``id``;
an item without a prediction counts as predicted aligned (no mismatch) and is counted in
``missing_predictions``.

Reported (all higher is better): ITM-IoU in both modes (0-100, :mod:`autoalign.detection.itm_iou`)
and, per class, detection precision and recall: a prediction is a hit for its class when the
Mismatch Detection matching pairs it with a truth (score >= T); a truth of a class is recalled
when it is paired.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from autoalign.detection.itm_iou import THRESHOLD, Evaluation, SemanticSim, Triplet, evaluate
from autoalign.errors import InputError
from autoalign.files import read_jsonl
from autoalign.types import ASPECTS

logger = logging.getLogger(__name__)

MAX_ERRORS_SHOWN = 10


@dataclass
class FineMatchItem:
    id: str
    image: str
    caption: str
    mismatches: list[Triplet] = field(default_factory=list)


def _triplets(value: Any, where: str, errors: list[str], strict_class: bool) -> list[Triplet]:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{where}: 'mismatches' must be a list (got {type(value).__name__})")
        return []
    out = []
    for k, item in enumerate(value):
        if not isinstance(item, dict):
            errors.append(f"{where}: mismatches[{k}] must be an object with class, phrase, correction")
            continue
        t = Triplet.from_dict(item)
        if not t.phrase.strip():
            errors.append(f"{where}: mismatches[{k}] has no 'phrase'")
            continue
        if strict_class and t.cls.strip().lower() not in ASPECTS:
            errors.append(f"{where}: mismatches[{k}].class {t.cls!r} is not one of {', '.join(ASPECTS)}")
            continue
        out.append(t)
    return out


def _json_lines(path: Path) -> Iterable[tuple[int, Any]]:
    """(line number, parsed value or the reason the line is bad) for each non-blank line."""
    if not path.is_file():
        raise InputError(f"{path}: file not found" if not path.exists() else f"{path}: is a directory; give a .jsonl file")
    contents = read_jsonl(path, objects_only=False, append_only=False)
    bad = {n: _BadLine(why) for n, why in contents.bad_lines}
    merged = sorted([*contents.records, *bad.items()], key=lambda pair: pair[0])
    return merged


@dataclass(frozen=True)
class _BadLine:
    reason: str


def _raise_errors(path: Path, errors: list[str]) -> None:
    if errors:
        shown = "; ".join(errors[:MAX_ERRORS_SHOWN])
        more = f" (and {len(errors) - MAX_ERRORS_SHOWN} more)" if len(errors) > MAX_ERRORS_SHOWN else ""
        raise InputError(f"{path}: {len(errors)} bad line(s): {shown}{more}")


def load_items(path: str | Path) -> list[FineMatchItem]:
    """Read a FineMatch JSON-lines file; every bad line is reported with its number (InputError)."""
    path = Path(path)
    items, errors, seen = [], [], set()
    for lineno, row in _json_lines(path):
        where = f"line {lineno}"
        if isinstance(row, _BadLine):
            errors.append(f"{where}: {row.reason}")
            continue
        if not isinstance(row, dict):
            errors.append(f"{where}: must be a JSON object")
            continue
        missing = [k for k in ("id", "image", "caption") if not str(row.get(k) or "").strip()]
        if missing:
            errors.append(f"{where}: missing {', '.join(missing)}")
            continue
        item_id = str(row["id"])
        if item_id in seen:
            errors.append(f"{where}: duplicate id {item_id!r}")
            continue
        seen.add(item_id)
        n_errors = len(errors)
        triplets = _triplets(row.get("mismatches", []), where, errors, strict_class=True)
        if len(errors) == n_errors:
            items.append(FineMatchItem(item_id, str(row["image"]), str(row["caption"]), triplets))
    _raise_errors(path, errors)
    if not items:
        raise InputError(f"{path}: no items")
    return items


def load_predictions(path: str | Path) -> dict[str, list[Triplet]]:
    """Read saved predictions ``{"id", "mismatches": [...]}`` per line, keyed by id."""
    path = Path(path)
    preds, errors = {}, []
    for lineno, row in _json_lines(path):
        where = f"line {lineno}"
        if isinstance(row, _BadLine):
            errors.append(f"{where}: {row.reason}")
            continue
        if not isinstance(row, dict) or row.get("id") is None:
            errors.append(f"{where}: must be a JSON object with an 'id'")
            continue
        preds[str(row["id"])] = _triplets(row.get("mismatches", []), where, errors, strict_class=False)
    _raise_errors(path, errors)
    return preds


def predict(items: list[FineMatchItem], images_dir: str | Path, models: Any, config: Any, progress: bool = True) -> dict[str, list[dict[str, Any]]]:
    """Run :func:`autoalign.detection.detect` on every item; predictions as triplet dicts by id."""
    from tqdm import tqdm

    from autoalign.detection import detect
    from autoalign.images import open_image

    images_dir = Path(images_dir)
    out: dict[str, list[dict[str, Any]]] = {}
    for item in tqdm(items, desc="finematch", disable=not progress, unit="pair"):
        path = images_dir / item.image
        image = open_image(path, f"item {item.id}: image {path}")
        found = detect(image, item.caption, None, models, config)
        out[item.id] = [
            {"class": m.aspect, "phrase": m.phrase, "correction": m.correction, "confidence": m.confidence, "source": m.source}
            for m in found
        ]
    return out


def per_class_detection(items: list[FineMatchItem], predictions: list[list[Triplet]], evaluation: Evaluation) -> dict[str, dict[str, Any]]:
    """Per class: precision (predictions of the class paired with a truth), recall (truths of the class paired)."""
    stats = {c: {"pred": 0, "hit": 0, "true": 0, "found": 0} for c in ASPECTS}
    for item, preds, pair in zip(items, predictions, evaluation.pairs_md):
        matched_pred = {i for i, _, _ in pair.matches}
        matched_true = {j for _, j, _ in pair.matches}
        for i, p in enumerate(preds):
            cls = p.cls.strip().lower()
            if cls in stats:
                stats[cls]["pred"] += 1
                stats[cls]["hit"] += i in matched_pred
        for j, g in enumerate(item.mismatches):
            cls = g.cls.strip().lower()
            stats[cls]["true"] += 1
            stats[cls]["found"] += j in matched_true
    return {
        c: {
            "precision": s["hit"] / s["pred"] if s["pred"] else None,
            "recall": s["found"] / s["true"] if s["true"] else None,
            "n_pred": s["pred"],
            "n_true": s["true"],
        }
        for c, s in stats.items()
    }


def score(
    items: list[FineMatchItem],
    predictions: dict[str, list[Triplet | dict[str, Any]]],
    semantic: SemanticSim,
    semantic_name: str = "",
    threshold: float = THRESHOLD,
) -> dict[str, Any]:
    """The report: ITM-IoU (0-100) in both modes, per-class detection precision/recall, counts."""
    missing = [it.id for it in items if it.id not in predictions]
    if missing:
        logger.warning("%d item(s) have no prediction and count as predicted aligned: %s", len(missing), ", ".join(missing[:5]))
    extra = sorted(set(predictions) - {it.id for it in items})
    if extra:
        logger.warning("%d prediction id(s) are not in the data and are ignored: %s", len(extra), ", ".join(extra[:5]))
    preds = [[t if isinstance(t, Triplet) else Triplet.from_dict(t) for t in predictions.get(it.id, [])] for it in items]
    evaluation = evaluate([(p, it.mismatches) for p, it in zip(preds, items)], semantic, threshold)
    return {
        "n": evaluation.n,
        "itm_iou_md": evaluation.itm_iou_md,
        "itm_iou_mdc": evaluation.itm_iou_mdc,
        "threshold": threshold,
        "semantic_sim": semantic_name,
        "per_class": per_class_detection(items, preds, evaluation),
        "missing_predictions": len(missing),
        "higher_is_better": {"itm_iou_md": True, "itm_iou_mdc": True, "precision": True, "recall": True},
        "per_item": [
            {"id": it.id, "md": md.score, "mdc": mdc.score, "n_pred": md.n_pred, "n_true": md.n_true, "n_matched_mdc": mdc.n_matched}
            for it, md, mdc in zip(items, evaluation.pairs_md, evaluation.pairs_mdc)
        ],
    }
