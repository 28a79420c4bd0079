"""A contact sheet for checking the oracle by eye on *generated* images.

``python -m experiments.oracle_sheet --n 50 --out docs/oracle_check`` draws one image per
held-out prompt with the ``shapes`` generator and writes ``sheet.png`` (each image enlarged, with
its number and the oracle's reading underneath) and ``readings.json``. A person then looks at the
sheet and records, per number, whether the reading matches what they see (``docs/oracle_check/
eye.json``: ``{"3": "agree", "7": "disagree: one circle is a square", ...}``); ``--score`` prints the
agreement with its interval from that file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from PIL import Image, ImageDraw

from autoalign.world import oracle
from autoalign.world.scene import CATEGORIES, spec_for

SCALE = 3
CELL_W, CELL_H = 64 * SCALE + 8, 64 * SCALE + 44


def reading_text(reading: oracle.Reading) -> str:
    if not reading.readable:
        return "unreadable: " + reading.reason
    objs = sorted(f"{o.size[0]} {o.color} {o.shape}" for o in reading.scene.objects)
    return ", ".join(objs) or "(empty)"


def make_sheet(n: int, out: Path, seed: int = 11) -> list[dict]:
    from autoalign.benchmarks.world_eval import config_for
    from autoalign.models.cache import Models

    models = Models(config_for())
    rows = []
    images = []
    for i in range(n):
        category = CATEGORIES[i % len(CATEGORIES)]
        spec = spec_for("test", 1000 + i, category)
        image = models.generator.generate(spec.caption(), n=1, seed=seed + i)[0]
        reading = oracle.read(image)
        aligned = oracle.check(spec, reading.scene).aligned if reading.readable else None
        rows.append({"index": i, "prompt": spec.caption(), "reading": reading_text(reading), "aligned": aligned})
        images.append(image)
    cols = 6
    sheet = Image.new("RGB", (cols * CELL_W, ((n + cols - 1) // cols) * CELL_H), "white")
    pen = ImageDraw.Draw(sheet)
    for row, image in zip(rows, images):
        x, y = (row["index"] % cols) * CELL_W, (row["index"] // cols) * CELL_H
        sheet.paste(image.resize((64 * SCALE, 64 * SCALE), Image.NEAREST), (x + 4, y + 4))
        text = f"{row['index']}: {row['reading']}"
        pen.text((x + 4, y + 64 * SCALE + 6), text[:34], fill="black")
        pen.text((x + 4, y + 64 * SCALE + 20), text[34:68], fill="black")
    out.mkdir(parents=True, exist_ok=True)
    sheet.save(out / "sheet.png")
    (out / "readings.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return rows


def score(out: Path) -> dict:
    from autoalign.benchmarks.metrics import wilson

    eye = json.loads((out / "eye.json").read_text(encoding="utf-8"))
    rows = json.loads((out / "readings.json").read_text(encoding="utf-8"))
    verdicts = [str(eye[str(r["index"])]) for r in rows if str(r["index"]) in eye]
    readable = [r for r in rows if not r["reading"].startswith("unreadable")]
    agree = sum(v.startswith("agree") for v in verdicts)
    return {
        "checked by eye": len(verdicts),
        "agreement": wilson(agree, len(verdicts)),
        "abstained": wilson(len(rows) - len(readable), len(rows)),
        "disagreements": {k: v for k, v in eye.items() if not str(v).startswith("agree")},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=54)
    parser.add_argument("--out", type=Path, default=Path("docs/oracle_check"))
    parser.add_argument("--score", action="store_true", help="print the agreement recorded in OUT/eye.json")
    args = parser.parse_args(argv)
    if args.score:
        print(json.dumps(score(args.out), indent=1))
    else:
        rows = make_sheet(args.n, args.out)
        print(f"wrote {args.out / 'sheet.png'} ({len(rows)} images); record what you see in {args.out / 'eye.json'}")


if __name__ == "__main__":
    main()
