"""One PNG that shows a whole run: candidates, each edit round, the final image (``RUN/contact_sheet.png``).

Read from the run directory alone (the image files, ``trace.jsonl`` for scores, ``summary.json``, read as a
:class:`~autoalign.types.RunResult`, for the final choice), so it works for any finished run, resumed or not::

    candidates  [cand_00 0.41] [cand_01 0.62 best]
    round 1     [plan] [region_s0 0.80 kept] [i0_s0 0.55] [i0_s1 0.70]
    final       [final 0.70]

A round with a layout plan (issue 37) shows ``rounds/rNN/plan.png`` first - the image the round started
from with the plan's boxes drawn on it (:func:`autoalign.models.region_editor.plan_picture`) - and leaves
out the bare ``mask.png``.

Small images (the tiny preset draws 64 px) are enlarged with nearest-neighbour, so pixels stay
sharp; large ones are shrunk. The file is written atomically (:mod:`autoalign.files`).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from autoalign import files
from autoalign.agents import rundir
from autoalign.types import RunResult

logger = logging.getLogger(__name__)

NAME = "contact_sheet.png"
TILE = 128  # pixels per image tile
MAX_PER_ROW = 8
_LABEL_W = 92
_CAPTION_H = 28
_PAD = 6
_BG = (250, 250, 250)
_INK = (30, 30, 30)
_MARK = (46, 157, 91)


def _scores_in(value: Any, found: dict[str, float]) -> None:
    """Every ``{path, score: {overall}}`` or ``{path, overall}`` in a JSON value, into ``found``."""
    if isinstance(value, dict):
        path = value.get("path")
        overall = value.get("overall")
        score = value.get("score")
        if overall is None and isinstance(score, dict):
            overall = score.get("overall")
        if isinstance(path, str) and isinstance(overall, (int, float)):
            found[path] = float(overall)
        for v in value.values():
            _scores_in(v, found)
    elif isinstance(value, list):
        for v in value:
            _scores_in(v, found)


def _read_scores(run_dir: Path) -> dict[str, float]:
    found: dict[str, float] = {}
    trace = run_dir / rundir.TRACE
    if trace.is_file():
        for record in files.read_jsonl(trace).values:  # a line a kill cut short is skipped
            _scores_in(record, found)
    return found


def _tile(path: Path, size: int) -> Image.Image:
    with Image.open(path) as im:
        im = im.convert("RGB")
        scale = size / max(im.size)
        new = (max(1, round(im.width * scale)), max(1, round(im.height * scale)))
        resample = Image.Resampling.NEAREST if scale >= 1 else Image.Resampling.LANCZOS
        return im.resize(new, resample)


def _rows(run_dir: Path, result: RunResult | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(row label, [(relative image path, mark)])`` in the order of the run."""
    kept = {r.best for r in result.round_records if r.accepted} if result is not None else set()
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    cands = sorted((run_dir / "candidates").glob("*.png"))
    first_best = result.first_best.path if result is not None and result.first_best is not None else ""
    if cands:
        rows.append(("candidates", [(str(p.relative_to(run_dir)), "best" if str(p.relative_to(run_dir)) == first_best else "")
                                    for p in cands]))
    for folder in sorted(p for p in (run_dir / "rounds").glob("r*") if p.is_dir()):
        images = sorted(folder.glob("*.png"))
        if (folder / "plan.png") in images:  # the plan first; its mask is the same boxes, filled
            images = [folder / "plan.png"] + [p for p in images if p.name not in ("plan.png", "mask.png")]
        if images:
            label = f"round {int(folder.name[1:])}" if folder.name[1:].isdigit() else folder.name
            rows.append((label, [(str(p.relative_to(run_dir)), "kept" if str(p.relative_to(run_dir)) in kept else "")
                                 for p in images]))
    if (run_dir / rundir.FINAL).is_file():
        rows.append(("final", [(rundir.FINAL, "")]))
    return rows


def write_contact_sheet(run_dir: str | Path, tile: int = TILE) -> Path | None:
    """Write ``RUN/contact_sheet.png`` for a finished run; None when the run has no images yet."""
    run_dir = Path(run_dir)
    try:
        result: RunResult | None = RunResult.load(run_dir)
    except (OSError, ValueError, KeyError, TypeError):
        result = None  # not finished (or unreadable): the images alone
    rows = _rows(run_dir, result)
    if not rows:
        return None
    scores = _read_scores(run_dir)
    final_score = result.scores.final if result is not None else None
    font = ImageFont.load_default()
    cols = min(MAX_PER_ROW, max(len(items) for _, items in rows))
    width = _LABEL_W + cols * (tile + _PAD) + _PAD
    row_h = tile + _CAPTION_H + _PAD
    sheet = Image.new("RGB", (width, _PAD + len(rows) * row_h), _BG)
    draw = ImageDraw.Draw(sheet)
    for r, (label, items) in enumerate(rows):
        top = _PAD + r * row_h
        draw.text((_PAD, top + tile // 2 - 6), label, fill=_INK, font=font)
        shown = items[:MAX_PER_ROW]
        for c, (rel, mark) in enumerate(shown):
            left = _LABEL_W + _PAD + c * (tile + _PAD)
            try:
                img = _tile(run_dir / rel, tile)
            except (OSError, ValueError) as exc:
                logger.warning("contact sheet: cannot read %s (%s)", rel, exc)
                continue
            sheet.paste(img, (left + (tile - img.width) // 2, top + (tile - img.height) // 2))
            score = final_score if label == "final" else scores.get(rel)
            name = Path(rel).stem
            caption = name + ("" if score is None else f"  {float(score):.3f}")
            draw.text((left, top + tile + 2), caption, fill=_INK, font=font)
            if name == "plan" and label.startswith("round"):
                draw.text((left, top + tile + 14), "orange: from  green: to", fill=_INK, font=font)
            elif mark and label != "final":
                draw.text((left, top + tile + 14), mark, fill=_MARK, font=font)
                draw.rectangle((left - 2, top - 2, left + tile + 1, top + tile + 1), outline=_MARK, width=2)
        if len(items) > MAX_PER_ROW:
            draw.text((width - 60, top + tile + 14), f"+{len(items) - MAX_PER_ROW} more", fill=_INK, font=font)
    out = run_dir / NAME
    files.atomic_save_image(out, sheet)
    return out
