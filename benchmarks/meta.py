"""Meta-evaluation of the alignment scores: do they agree with human judgements? (SeeTRUE §4)

Two kinds of data:

**Labelled pairs** (SeeTRUE format), a CSV with the columns
``image,text,label,original_dataset_id,dataset_source``: ``label`` is 1 when humans judged the image
to match the text, else 0. Every row is scored (VQ2, VNLI or CLIPScore, ``scorer=``) and the ROC AUC
of score vs label is reported per ``dataset_source`` and overall (``sklearn.metrics.roc_auc_score``;
higher is better, 0.5 is chance). A source whose rows are all of one class has no AUC: it is reported
as undefined. Rows whose image file is missing or unreadable are counted (``n_missing`` per source)
and listed, never silently dropped; rows the scorer cannot score (VQ2 of a text that yields no
question) are counted as ``n_unscored``.

**Winoground-style pairs**, a CSV with the columns ``id,image_0,image_1,caption_0,caption_1``
where ``caption_0`` describes ``image_0`` and ``caption_1`` describes ``image_1`` (ColorSwap, BiVLC,
Winoground). With ``s(c, i)`` the score of caption c on image i:

* text score  = ``s(c0,i0) > s(c1,i0)`` and ``s(c1,i1) > s(c0,i1)`` (the right caption wins for each image)
* image score = ``s(c0,i0) > s(c0,i1)`` and ``s(c1,i1) > s(c1,i0)`` (the right image wins for each caption)
* group score = both.

Image paths in either CSV are relative to the images directory. Scores are kept per row in a JSONL
file (``rows_path``) when given, so an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import csv
import json
import logging
import platform
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from PIL import Image

from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.files import JsonlAppender, read_jsonl

logger = logging.getLogger(__name__)

SCORERS: tuple[str, ...] = ("vq2", "vnli", "clip")
LABEL_COLUMNS: tuple[str, ...] = ("image", "text", "label", "original_dataset_id", "dataset_source")
PAIR_COLUMNS: tuple[str, ...] = ("id", "image_0", "image_1", "caption_0", "caption_1")

ScoreFn = Callable[[Sequence[Image.Image], str], list["float | None"]]


# ---- reading the CSVs --------------------------------------------------------------------------------


def _read_csv(path: str | Path, required: Sequence[str], what: str) -> list[dict[str, str]]:
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{what} file not found: {path}")
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(
                f"{what} file {path} lacks column(s) {', '.join(missing)}; required: {', '.join(required)}"
            )
        return [dict(row) for row in reader]


def load_labels(path: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Rows of a SeeTRUE-format CSV with ``label`` as int (0/1); bad labels are InputErrors."""
    rows = _read_csv(path, LABEL_COLUMNS, "labels")
    out = []
    for n, row in enumerate(rows[:limit] if limit else rows, start=2):
        try:
            label = int(float(row["label"]))
        except ValueError:
            raise InputError(f"{path}: line {n}: label must be 0 or 1 (got {row['label']!r})") from None
        if label not in (0, 1):
            raise InputError(f"{path}: line {n}: label must be 0 or 1 (got {row['label']!r})")
        out.append({**row, "label": label, "dataset_source": (row["dataset_source"] or "unknown").strip()})
    return out


def load_pairs(path: str | Path, limit: int | None = None) -> list[dict[str, str]]:
    """Rows of a Winoground-style pairs CSV (``id,image_0,image_1,caption_0,caption_1``)."""
    rows = _read_csv(path, PAIR_COLUMNS, "pairs")
    return rows[:limit] if limit else rows


def open_image(images_dir: str | Path, name: str) -> tuple[Image.Image | None, str]:
    """(RGB image, "") or (None, why it could not be opened)."""
    path = Path(images_dir) / name
    if not path.is_file():
        return None, "missing"
    from autoalign.images import open_image as open_checked

    try:
        return open_checked(path), ""
    except InputError as exc:  # unreadable, damaged, a bomb or over the pixel limit: counted, not fatal
        return None, f"unreadable ({exc})"


# ---- scoring -----------------------------------------------------------------------------------------


def scorer_config(config: Config, scorer: str) -> Config:
    """``config`` set up to compute only ``scorer`` (the others would cost model calls for nothing)."""
    import copy

    if scorer not in SCORERS:
        raise InputError(f"--scorer must be one of {', '.join(SCORERS)} (got {scorer!r})")
    cfg = copy.deepcopy(config)
    cfg.scoring.primary = scorer
    cfg.scoring.vnli = scorer == "vnli"
    cfg.scoring.clip = scorer == "clip"
    return cfg


def make_score_fn(models: Any, config: Config, scorer: str) -> ScoreFn:
    """A function scoring images against one text with the named score (``None`` where undefined)."""
    from autoalign.scoring.scorer import Scorer

    s = Scorer(models, scorer_config(config, scorer), only={scorer})

    def score(images: Sequence[Image.Image], text: str) -> list[float | None]:
        return [getattr(card, scorer) for card in s.score(list(images), text)]

    score.scorer = s  # type: ignore[attr-defined]  (call counts for the report)
    return score


def _row_key(image: str, text: str) -> str:
    return json.dumps([image, text])


class RowStore:
    """Scores already computed, kept in a JSONL file so a rerun resumes (``None`` path: memory only)."""

    def __init__(self, path: str | Path | None, scorer: str, config_hash: str):
        self.path = Path(path) if path else None
        self.tag = f"{scorer}:{config_hash}"
        self.scores: dict[str, float | None] = {}
        if self.path and self.path.exists():
            for rec in read_jsonl(self.path).values:  # a line cut by an interruption is skipped
                if rec.get("tag") == self.tag and "key" in rec:
                    self.scores[rec["key"]] = rec.get("score")
            logger.info("resuming: %d scores already in %s", len(self.scores), self.path)

    def add(self, key: str, score: float | None) -> None:
        self.scores[key] = score
        if self.path:
            with JsonlAppender(self.path, fsync=False) as out:  # cuts away a torn tail before appending
                out.write({"tag": self.tag, "key": key, "score": score})


def score_items(
    items: Iterable[tuple[str, str]],
    images_dir: str | Path,
    score_fn: ScoreFn,
    store: RowStore,
    progress: bool = True,
) -> dict[str, dict[str, Any]]:
    """Score every (image name, text) once; returns ``key -> {"score", "status"}``.

    Items are grouped by text so one scorer call handles all images of a text (its questions are
    asked of every image in one batch). ``status`` is ``ok``, ``unscored``, ``missing`` or
    ``unreadable (...)``.
    """
    from tqdm.auto import tqdm

    results: dict[str, dict[str, Any]] = {}
    by_text: dict[str, list[str]] = defaultdict(list)
    for image, text in items:
        key = _row_key(image, text)
        if key in results or image in by_text[text]:
            continue
        if key in store.scores:
            score = store.scores[key]
            results[key] = {"score": score, "status": "ok" if score is not None else "unscored"}
            continue
        by_text[text].append(image)
    groups = [(t, names) for t, names in by_text.items() if names]
    for text, names in tqdm(groups, desc="meta-eval", unit="text", disable=not progress):
        opened, good = [], []
        for name in names:
            img, why = open_image(images_dir, name)
            if img is None:
                results[_row_key(name, text)] = {"score": None, "status": why}
            else:
                opened.append(img)
                good.append(name)
        if not opened:
            continue
        scores = score_fn(opened, text)
        for name, score in zip(good, scores):
            value = None if score is None else float(score)
            key = _row_key(name, text)
            store.add(key, value)
            results[key] = {"score": value, "status": "ok" if value is not None else "unscored"}
    return results


# ---- metrics -----------------------------------------------------------------------------------------


def auc_summary(labels: Sequence[int], scores: Sequence[float]) -> dict[str, Any]:
    """ROC AUC with counts; ``auc`` is ``None`` (with a note) when only one class is present."""
    from sklearn.metrics import roc_auc_score

    n_pos = sum(1 for y in labels if y == 1)
    out: dict[str, Any] = {"n_scored": len(labels), "n_pos": n_pos, "n_neg": len(labels) - n_pos}
    if n_pos == 0 or n_pos == len(labels):
        out.update(auc=None, note="undefined: only one class among the scored rows" if labels else "undefined: no scored rows")
    else:
        out["auc"] = float(roc_auc_score(list(labels), list(scores)))
    return out


@dataclass
class WinogroundItem:
    text: bool
    image: bool

    @property
    def group(self) -> bool:
        return self.text and self.image


def winoground_item(s_c0_i0: float, s_c0_i1: float, s_c1_i0: float, s_c1_i1: float) -> WinogroundItem:
    """Text / image / group success for one pair, from the four caption-image scores (s_cX_iY = s(cX, iY))."""
    text = s_c0_i0 > s_c1_i0 and s_c1_i1 > s_c0_i1
    image = s_c0_i0 > s_c0_i1 and s_c1_i1 > s_c1_i0
    return WinogroundItem(text=text, image=image)


# ---- the runs ----------------------------------------------------------------------------------------


def _meta_header(config: Config, scorer: str) -> dict[str, Any]:
    import autoalign

    return {
        "scorer": scorer,
        "preset": config.name,
        "config_hash": scorer_config(config, scorer).hash(),
        "model_ids": config.model_ids(),
        "versions": {"autoalign": getattr(autoalign, "__version__", "0.1.0"), "python": platform.python_version()},
    }


def _setup(config: Config, scorer: str, images_dir: str | Path, models: Any, rows_path: str | Path | None):
    """What both meta-evaluations need: the scorer's config, the image folder, a score function, the row store."""
    cfg = scorer_config(config, scorer)
    images_dir = Path(images_dir)
    if not images_dir.is_dir():
        raise InputError(f"--images must be a directory (got {images_dir})")
    if models is None:
        from autoalign.models.cache import Models

        models = Models(cfg)
    return cfg, images_dir, make_score_fn(models, cfg, scorer), RowStore(rows_path, scorer, cfg.hash())


def run_labels(
    labels_csv: str | Path,
    images_dir: str | Path,
    config: Config,
    scorer: str = "vq2",
    models: Any = None,
    limit: int | None = None,
    rows_path: str | Path | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """ROC AUC of ``scorer`` against the human labels, per ``dataset_source`` and overall."""
    cfg, images_dir, score_fn, store = _setup(config, scorer, images_dir, models, rows_path)
    rows = load_labels(labels_csv, limit)
    results = score_items(((r["image"], r["text"]) for r in rows), images_dir, score_fn, store, progress)

    per_source: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for row in rows:
        per_source[row["dataset_source"]].append((row, results[_row_key(row["image"], row["text"])]))
    missing_rows = [
        {"image": r["image"], "text": r["text"], "status": res["status"]}
        for r, res in (pair for pairs in per_source.values() for pair in pairs)
        if res["status"] not in ("ok", "unscored")
    ]

    def summarise(pairs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
        ok = [(r["label"], res["score"]) for r, res in pairs if res["status"] == "ok"]
        out = {"n": len(pairs)}
        out.update(auc_summary([y for y, _ in ok], [s for _, s in ok]))
        out["n_missing"] = sum(1 for _, res in pairs if res["status"] not in ("ok", "unscored"))
        out["n_unscored"] = sum(1 for _, res in pairs if res["status"] == "unscored")
        return out

    report = _meta_header(config, scorer)
    report.update(
        {
            "kind": "labels",
            "labels": str(labels_csv),
            "images": str(images_dir),
            "metric": {"name": "roc_auc", "higher_is_better": True, "chance": 0.5},
            "sources": {src: summarise(pairs) for src, pairs in sorted(per_source.items())},
            "overall": summarise([p for pairs in per_source.values() for p in pairs]),
            "missing": missing_rows[:50],
            "calls": dict(score_fn.scorer.calls),
        }
    )
    if report["overall"]["n_missing"]:
        logger.warning("%d of %d rows have no readable image", report["overall"]["n_missing"], len(rows))
    return report


def run_pairs(
    pairs_csv: str | Path,
    images_dir: str | Path,
    config: Config,
    scorer: str = "vq2",
    models: Any = None,
    limit: int | None = None,
    rows_path: str | Path | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Winoground-style text / image / group scores (fractions of pairs, higher is better)."""
    cfg, images_dir, score_fn, store = _setup(config, scorer, images_dir, models, rows_path)
    pairs = load_pairs(pairs_csv, limit)
    items = [(p[f"image_{i}"], p[f"caption_{c}"]) for p in pairs for c in (0, 1) for i in (0, 1)]
    results = score_items(items, images_dir, score_fn, store, progress)

    per_pair, n_missing, n_unscored = [], 0, 0
    for p in pairs:
        s = {(c, i): results[_row_key(p[f"image_{i}"], p[f"caption_{c}"])] for c in (0, 1) for i in (0, 1)}
        if any(v["status"] not in ("ok", "unscored") for v in s.values()):
            n_missing += 1
            per_pair.append({"id": p["id"], "status": "missing"})
            continue
        if any(v["score"] is None for v in s.values()):
            n_unscored += 1
            per_pair.append({"id": p["id"], "status": "unscored"})
            continue
        item = winoground_item(s[0, 0]["score"], s[0, 1]["score"], s[1, 0]["score"], s[1, 1]["score"])
        per_pair.append({"id": p["id"], "status": "ok", "text": item.text, "image": item.image, "group": item.group})
    scored = [x for x in per_pair if x["status"] == "ok"]

    def frac(key: str) -> float | None:
        return sum(x[key] for x in scored) / len(scored) if scored else None

    report = _meta_header(config, scorer)
    report.update(
        {
            "kind": "pairs",
            "pairs": str(pairs_csv),
            "images": str(images_dir),
            "metric": {"name": "winoground", "higher_is_better": True, "chance": {"text": 0.25, "image": 0.25, "group": 1 / 6}},
            "n": len(pairs),
            "n_scored": len(scored),
            "n_missing": n_missing,
            "n_unscored": n_unscored,
            "text_score": frac("text"),
            "image_score": frac("image"),
            "group_score": frac("group"),
            "items": per_pair,
            "calls": dict(score_fn.scorer.calls),
        }
    )
    return report
