"""A shapes-suite run's figures with one category's prompts taken from another run (round 34, issue 36).

    python -m experiments.swap_category BASE CANDIDATE --category unseen_combinations --out DIR [--json X.json]

Why: a setting that touches only some prompts (``[detection.options.layout] unseen_sure`` changes the pass only for
objects of a pair the vocabulary marks unseen, and only the ``unseen_combinations`` prompts name one) need not run
the whole suite again: CANDIDATE is a ``bench run ... --categories CATEGORY`` of the setting, BASE a whole run of
the preset it changes, on the same suite and seed. This reads every prompt's oracle analysis (the item's cached
``oracle.json``, which ``bench run`` writes) from BASE, replaces the prompts of CATEGORY by CANDIDATE's, and writes
``DIR/oracle.json`` and ``DIR/oracle.md`` as a whole run would (so :mod:`experiments.compare_shapes_runs` reads it).

It also prints the check the shortcut rests on: every prompt of *another* category that CANDIDATE also ran (a run
stopped and resumed with ``--categories``) must end exactly as in BASE (final image right or not, the judge's verdict,
the loop's calls); and the paired comparison of the final images, BASE against the merged run (the prompts that
differ are all in CATEGORY).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from autoalign.files import atomic_write_json, atomic_write_text


def items(run: Path) -> dict[str, dict[str, Any]]:
    """Each analysed prompt of a run, by record id: its category and its item analysis (``oracle.json``)."""
    from autoalign.benchmarks.bench_runner import latest_results

    out = {}
    for record in latest_results(run / "results.jsonl"):
        cache = run / record.run_dir / "oracle.json"
        if record.ok and cache.is_file():
            out[record.id] = {"category": record.category, "item": json.loads(cache.read_text(encoding="utf-8"))}
    return out


def outcome(item: dict[str, Any]) -> tuple[Any, ...]:
    """What the identity check compares: the final image right or not, the judge's verdict, the loop's calls."""
    return (item["stages"]["corrected"]["aligned"], item["judge_aligned"], json.dumps(item.get("loop_calls"), sort_keys=True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="a whole bench run of the preset (its --out)")
    ap.add_argument("candidate", type=Path, help="a bench run of the setting, at least CATEGORY's prompts")
    ap.add_argument("--category", required=True)
    ap.add_argument("--out", type=Path, required=True, help="a folder for the merged oracle.json / oracle.md")
    ap.add_argument("--judge", default="clip", help="the preset's scoring.primary (the ablations' judge)")
    args = ap.parse_args(argv)

    from autoalign.benchmarks.metrics import paired_gain
    from autoalign.benchmarks.shapes_bench import figures, markdown

    base, cand = items(args.base), items(args.candidate)
    in_category = sorted(k for k, v in base.items() if v["category"] == args.category)
    missing = [k for k in in_category if k not in cand]
    if missing:
        print(f"error: the candidate run lacks {len(missing)} of the {len(in_category)} {args.category} prompts", file=sys.stderr)
        return 2
    others = sorted(k for k, v in cand.items() if v["category"] != args.category and k in base)
    changed = [k for k in others if outcome(base[k]["item"]) != outcome(cand[k]["item"])]
    print(f"identity check: {len(others)} prompts of other categories in both runs, {len(changed)} end otherwise"
          + (f": {changed[:10]}" if changed else ""))
    ids = sorted(base)
    merged = [cand[k]["item"] if k in in_category else base[k]["item"] for k in ids]
    result = figures(merged, judge=args.judge)
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(args.out / "oracle.json", result)
    atomic_write_text(args.out / "oracle.md", markdown(result))
    before = [float(base[k]["item"]["stages"]["corrected"]["aligned"]) for k in ids]
    after = [float(it["stages"]["corrected"]["aligned"]) for it in merged]
    gain = paired_gain("corrected: merged - base", before, after).to_dict()
    within = paired_gain(f"corrected, {args.category} only", [before[i] for i, k in enumerate(ids) if k in in_category],
                         [after[i] for i, k in enumerate(ids) if k in in_category]).to_dict()
    print(json.dumps({"n": len(ids), "paired gain": gain, "within the category": within,
                      "identity check": {"prompts": len(others), "changed": len(changed)}}, indent=1))
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
