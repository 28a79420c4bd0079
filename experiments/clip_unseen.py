"""How a world CLIP scores colour-shape pairs no model of the world was trained on (round 35, issue 36).

    python -m experiments.clip_unseen autoalign/world/weights/clip autoalign/world/weights/clip-swap \
        [--n 300] [--run VAL_RUN] [--gate 1.95] [--out X.json]

Why: on the held-out suite two thirds of the right final images of ``unseen_combinations`` prompts were refused,
nearly all by the CLIP gate (round 34). This measures each CLIP folder given, on **validation** data only:

* **rendered**: ``val`` scenes (pairs the models saw) and ``compositional`` scenes from the validation suite's range
  (``VAL_UNSEEN_START`` on, never the held-out suite's), each drawn clean. Per CLIP: the own caption's CLIPScore
  (2.5 x cosine, the loop's scale), the share at or above the gate, and how often the own caption beats a caption one
  edit away (``facts.perturb``, false on the scene) on the same image, with its ROC AUC;
* **generated** (``--run``, a ``bench run`` of ``shapes-val`` / ``shapes-val-300``): every image the run drew
  (candidates, region edits, the final image), read by the oracle; per CLIP and per kind of prompt (seen pair / unseen
  pair): the ROC AUC of CLIPScore for right against wrong images, and the share of right and of wrong images at or
  above the gate.

The images of ``--run`` were drawn by the loop with the preset's own CLIP; a CLIP that would rerank otherwise sees
the same images here, so this compares judges on one set of images, not whole loops.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any, Sequence


def rendered_cases(n: int) -> dict[str, list[tuple[Any, str, str]]]:
    """(image, own caption, a caption one edit away) for ``n`` seen-pair and ``n`` unseen-pair validation scenes."""
    from autoalign.benchmarks.suites import VAL_UNSEEN_START
    from autoalign.world.render import draw
    from autoalign.world.training.data import false_one_edit_away, world_scenes

    out: dict[str, list[tuple[Any, str, str]]] = {}
    for kind, split, start in (("seen pairs (val)", "val", 0), ("unseen pairs (compositional, validation range)", "compositional", VAL_UNSEEN_START)):
        rng = random.Random(f"clip_unseen/{split}")
        out[kind] = [(draw(scene), spec.caption(), false_one_edit_away(spec, scene, rng).caption())
                     for spec, scene in world_scenes(split, n, start)]
    return out


def rendered_figures(clip: Any, cases: Sequence[tuple[Any, str, str]], gate: float) -> dict[str, Any]:
    from autoalign.benchmarks.metrics import wilson
    from autoalign.benchmarks.world_eval import auc_with_ci

    own, away = [], []
    for image, caption, negative in cases:
        a, b = clip.cosine_texts(image, [caption, negative])
        own.append(2.5 * a)
        away.append(2.5 * b)
    n = len(cases)
    return {
        "own caption, mean CLIPScore": sum(own) / n if n else None,
        f"own caption at or above the gate {gate:g}": wilson(sum(x >= gate for x in own), n),
        "own caption above the one-edit-away caption": wilson(sum(a > b for a, b in zip(own, away)), n),
        "ROC AUC own vs one edit away": auc_with_ci([1] * n + [0] * n, own + away),
    }


def run_images(run: Path) -> list[dict[str, Any]]:
    """Every image a shapes bench run drew, with its prompt, whether the prompt names an unseen pair, and the oracle's
    verdict (unreadable counts as wrong, as in the bench's figures)."""
    from autoalign.benchmarks.bench_runner import latest_results
    from autoalign.benchmarks.pass_eval import edited_images
    from autoalign.benchmarks.shapes_bench import oracle_view
    from autoalign.world.scene import parse_caption

    rows = []
    for record in latest_results(run / "results.jsonl"):
        if not record.ok:
            continue
        spec = parse_caption(record.prompt)
        folder = run / record.run_dir
        paths = [*sorted(folder.glob("candidates/*.png")), *sorted(folder.glob("extra/*.png")), *edited_images(folder),
                 folder / "final.png"]
        for path in paths:
            if path.is_file():
                rows.append({"prompt": record.prompt, "unseen": spec.uses_held_out(), "path": path,
                             "right": bool(oracle_view(path, spec)["aligned"])})
    return rows


def generated_figures(clip: Any, rows: Sequence[dict[str, Any]], gate: float) -> dict[str, Any]:
    from PIL import Image

    from autoalign.benchmarks.metrics import wilson
    from autoalign.benchmarks.world_eval import auc_with_ci

    scores: dict[int, float] = {}
    by_prompt: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_prompt.setdefault(row["prompt"], []).append(i)
    for prompt, index in by_prompt.items():
        images = []
        for i in index:
            with Image.open(rows[i]["path"]) as im:
                images.append(im.convert("RGB"))
        for i, cosine in zip(index, clip.cosine(images, prompt)):
            scores[i] = 2.5 * cosine
    out: dict[str, Any] = {}
    for unseen in (False, True):
        index = [i for i, row in enumerate(rows) if row["unseen"] == unseen]
        right = [scores[i] for i in index if rows[i]["right"]]
        wrong = [scores[i] for i in index if not rows[i]["right"]]
        out["unseen pairs" if unseen else "seen pairs"] = {
            "ROC AUC right vs wrong images": auc_with_ci([1] * len(right) + [0] * len(wrong), right + wrong),
            f"right images at or above the gate {gate:g}": wilson(sum(x >= gate for x in right), len(right)),
            f"wrong images at or above the gate {gate:g}": wilson(sum(x >= gate for x in wrong), len(wrong)),
        }
    return out


def as_tables(result: dict[str, Any], argv: Sequence[str]) -> dict[str, Any]:
    """The figures in the docs' generic results shape (title, command, measures, tables; scripts/make_results.py)."""
    from autoalign.benchmarks.metrics import Metric

    tables = []
    for part in ("rendered", "generated"):
        rows, columns = [], None
        for folder, entry in result["clips"].items():
            for kind, figures in entry.get(part, {}).items():
                columns = columns or ["CLIP", "prompts", *figures]
                rows.append([Path(folder).name, kind, *(Metric.from_dict(m).fmt() if isinstance(m, dict) else f"{m:.3f}"
                                                         for m in figures.values())])
        if rows:
            tables.append({"name": f"{part} images" + (f" ({result['run']})" if part == "generated" else ""), "columns": columns, "rows": rows})
    return {
        "title": "World CLIPs on colour-shape pairs the world's models never saw (validation data)",
        "command": "python -m experiments.clip_unseen " + " ".join(argv),
        "measures": (f"CLIPScore (2.5 x cosine) against the loop's gate {result['gate']:g}. Rendered: validation scenes "
                     f"({result['n_rendered_per_kind']} a kind), the own caption against a caption one edit away; generated: "
                     f"the {result['n_run_images']} images of a validation bench run, read by the oracle. Wilson 95 % "
                     "intervals for shares, bootstrap for ROC AUC."),
        "tables": tables,
        "raw": result,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("clips", nargs="+", help="CLIP folders (open_clip hub layout), e.g. autoalign/world/weights/clip")
    ap.add_argument("--n", type=int, default=300, help="rendered scenes per kind")
    ap.add_argument("--run", type=Path, help="a shapes-val bench run: judge its images too")
    ap.add_argument("--gate", type=float, default=1.95, help="the loop's threshold (the shapes preset's)")
    ap.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = ap.parse_args(argv)

    from autoalign.benchmarks.world_eval import clip_scorer

    cases = rendered_cases(args.n)
    rows = run_images(args.run) if args.run else []
    result: dict[str, Any] = {"gate": args.gate, "n_rendered_per_kind": args.n, "run": str(args.run or ""),
                              "n_run_images": len(rows), "clips": {}}
    for folder in args.clips:
        clip = clip_scorer(folder)
        entry: dict[str, Any] = {"rendered": {kind: rendered_figures(clip, c, args.gate) for kind, c in cases.items()}}
        if rows:
            entry["generated"] = generated_figures(clip, rows, args.gate)
        result["clips"][folder] = entry
    data = as_tables(result, argv if argv is not None else sys.argv[1:])
    for table in data["tables"]:
        print(f"\n{table['name']}")
        for row in table["rows"]:
            for name, text in zip(table["columns"][2:], row[2:]):
                print(f"{row[0]:12s} {row[1]:48s} {name:42s} {text}")
    if args.out:
        from autoalign.files import atomic_write_json

        atomic_write_json(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
