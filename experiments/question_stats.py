"""How the offline (spaCy) VQ2 question generator behaves on real prompts: speed and coverage.

    python -m experiments.question_stats --csv ../shared/data/drawbench/DrawBench.csv --column Prompts
    python -m experiments.question_stats --csv ../shared/data/seetrue/SeeTRUE.csv --column text --limit 500

Prints, per prompt on average: questions written, questions kept by the answer-consistency filter,
questions per aspect; the share of prompts with no question (VQ2 undefined for them); and the
generation time per prompt (spaCy parse + rule-based text QA, one CPU thread). Nothing is cached.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import time
from collections import Counter

from autoalign.config import RoleSpec
from autoalign.scoring.questions import SpacyQuestions


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--csv", required=True, help="A CSV file with one prompt per row.")
    ap.add_argument("--column", default="text", help="The prompt column (DrawBench: Prompts; SeeTRUE: text).")
    ap.add_argument("--limit", type=int, default=None, help="Only the first N distinct prompts.")
    ap.add_argument("--json", action="store_true", help="Print JSON.")
    args = ap.parse_args(argv)

    with open(args.csv, newline="", encoding="utf-8") as fh:
        seen, prompts = set(), []
        for row in csv.DictReader(fh):
            p = (row.get(args.column) or "").strip()
            if p and p not in seen:
                seen.add(p)
                prompts.append(p)
    prompts = prompts[: args.limit] if args.limit else prompts

    gen = SpacyQuestions(RoleSpec("spacy", None, {}))
    gen.generate("warm up the spaCy pipeline")
    kept_counts, dropped_counts, times, aspects = [], [], [], Counter()
    for p in prompts:
        t0 = time.perf_counter()
        kept = gen.generate(p)
        times.append(time.perf_counter() - t0)
        kept_counts.append(len(kept))
        dropped_counts.append(len(gen.last_dropped))
        aspects.update(q.aspect for q in kept)
    n = len(prompts)
    written = sum(kept_counts) + sum(dropped_counts)
    out = {
        "file": args.csv,
        "prompts": n,
        "questions_kept_per_prompt": statistics.mean(kept_counts) if n else None,
        "questions_written_per_prompt": written / n if n else None,
        "filter_drop_rate": sum(dropped_counts) / written if written else None,
        "prompts_without_questions": sum(1 for k in kept_counts if k == 0) / n if n else None,
        "kept_by_aspect": dict(aspects),
        "ms_per_prompt_median": 1000 * statistics.median(times) if times else None,
        "ms_per_prompt_p95": 1000 * sorted(times)[int(0.95 * (n - 1))] if times else None,
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for k, v in out.items():
            print(f"{k:32s} {v if not isinstance(v, float) else round(v, 3)}")
    return out


if __name__ == "__main__":
    main()
