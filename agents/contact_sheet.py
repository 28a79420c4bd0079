"""One PNG that shows a whole run: candidates, each edit round, the final image (``RUN/contact_sheet.png``).

Read from the run directory alone (the image files, ``trace.jsonl`` for scores, ``summary.json``, read as a
:class:`~autoalign.types.RunResult`, for the final choice), so it works for any finished run, resumed or not::

    candidates  [cand_00 0.41] [cand_01 0.62 best]
    round 1     [plan] [region_s0 0.80 kept] [i0_s0 0.55] [i0_s1 0.70]
    final       [final 0.70]

A round with a layout plan (``rounds/rNN/plan.json``, issue 37) shows it as its first tile: the image
the round started from with the plan's boxes drawn on it - what is removed or changed in orange, where
an object goes in green, each with the operation's first letter (R remove, A add, M move, C recolour /
reshape) - in place of the bare ``mask.png``.

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
_SOURCE = (235, 140, 20)  # a plan's box that is removed / changed / moved from
_TARGET = (40, 200, 90)  # where a plan puts an object
_OP_LETTER = {"remove": "R", "add": "A", "move": "M", "recolor": "C", "reshape": "C"}


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


def _round_inputs(result: RunResult | None) -> dict[int, str]:
    """Round number -> the image that round started from (the best so far before it)."""
    if result is None or result.first_best is None:
        return {}
    inputs, current = {}, result.first_best.path
    for record in sorted(result.round_records, key=lambda r: r.round):
        inputs[record.round] = current
        current = record.best or current
    return inputs


def _plan_tile(run_dir: Path, plan_rel: str, input_rel: str, size: int) -> Image.Image:
    """The round's input image at tile size with the plan's boxes drawn on it."""
    import json

    plan = json.loads((run_dir / plan_rel).read_text(encoding="utf-8"))
    with Image.open(run_dir / input_rel) as im:
        w, h = im.size
    img = _tile(run_dir / input_rel, size)
    scale = img.width / max(1, w)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default()
    for op in plan.get("ops") or []:
        letter = _OP_LETTER.get(str(op.get("kind")), "?")
        for key, colour in (("source", _SOURCE), ("target", _TARGET)):
            box = op.get(key)
            if not isinstance(box, dict) or not isinstance(box.get("xyxy"), list) or len(box["xyxy"]) != 4:
                continue
            if key == "target" and op.get("source") == box:
                continue  # a recolour / reshape keeps its box: drawn once, as its source
            x0, y0, x1, y1 = (max(0.0, min(float(v), float(lim))) * scale for v, lim in zip(box["xyxy"], (w, h, w, h)))
            draw.rectangle((x0, y0, max(x0, x1 - 1), max(y0, y1 - 1)), outline=colour, width=2)
            draw.text((x0 + 3, y0 + 1), letter, fill=colour, font=font)
    return img


def _rows(run_dir: Path, result: RunResult | None) -> list[tuple[str, list[tuple[str, str]]]]:
    """``(row label, [(relative image path, mark)])`` in the order of the run."""
    kept = {r.best for r in result.round_records if r.accepted} if result is not None else set()
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    cands = sorted((run_dir / "candidates").glob("*.png"))
    first_best = result.first_best.path if result is not None and result.first_best is not None else ""
    if cands:
        rows.append(("candidates", [(str(p.relative_to(run_dir)), "best" if str(p.relative_to(run_dir)) == first_best else "")
                                    for p in cands]))
    inputs = _round_inputs(result)
    for folder in sorted(p for p in (run_dir / "rounds").glob("r*") if p.is_dir()):
        images = sorted(folder.glob("*.png"))
        number = int(folder.name[1:]) if folder.name[1:].isdigit() else None
        items = [(str(p.relative_to(run_dir)), "kept" if str(p.relative_to(run_dir)) in kept else "") for p in images]
        if (folder / "plan.json").is_file() and number in inputs:  # the plan drawn on its input replaces the mask
            items = [(str((folder / "plan.json").relative_to(run_dir)), "plan")] + [
                it for it in items if Path(it[0]).name != "mask.png"]
        if items:
            rows.append((f"round {number}" if number is not None else folder.name, items))
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
    inputs = _round_inputs(result)
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
                if mark == "plan":
                    img = _plan_tile(run_dir, rel, inputs[int(label.split()[-1])], tile)
                else:
                    img = _tile(run_dir / rel, tile)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                logger.warning("contact sheet: cannot read %s (%s)", rel, exc)
                continue
            sheet.paste(img, (left + (tile - img.width) // 2, top + (tile - img.height) // 2))
            score = final_score if label == "final" else scores.get(rel)
            name = Path(rel).stem
            caption = name + ("" if score is None else f"  {float(score):.3f}")
            draw.text((left, top + tile + 2), caption, fill=_INK, font=font)
            if mark == "plan":
                draw.text((left, top + tile + 14), "boxes: orange from, green to", fill=_INK, font=font)
            elif mark and label != "final":
                draw.text((left, top + tile + 14), mark, fill=_MARK, font=font)
                draw.rectangle((left - 2, top - 2, left + tile + 1, top + tile + 1), outline=_MARK, width=2)
        if len(items) > MAX_PER_ROW:
            draw.text((width - 60, top + tile + 14), f"+{len(items) - MAX_PER_ROW} more", fill=_INK, font=font)
    out = run_dir / NAME
    files.atomic_save_image(out, sheet)
    return out
