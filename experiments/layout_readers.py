"""Both readings of a prompt's layout over the benchmark prompts, as JSON lines: one line per (suite, prompt) with
the fields of :func:`autoalign.grounding.read_layout` (objects: chunk, noun, colours, count, token index, size;
relations: words, direction, subject, object) and of the layout planner's
:func:`autoalign.editing.layout_plan.read_layout` (objects: noun, count, attributes, size; relations).

Written to show that the planner's reading became a view of the grounding one (round 20) without changing
either: run it at the commit before and after, and compare the files (``cmp``)::

    python -m experiments.layout_readers /tmp/before.jsonl   # at 9a7fc06, then at the change
    python -m experiments.layout_readers /tmp/after.jsonl && cmp /tmp/before.jsonl /tmp/after.jsonl

Prompts: the ``shapes`` and ``shapes-val`` suites (generated in code), and from ``../shared/data``: TIFA v1.0,
DrawBench, GenEval, every T2I-CompBench file, the DSG csv files (each (suite, prompt) once). A reader's
exception is written as its output. About 15 minutes on one CPU thread.
"""

from __future__ import annotations

import argparse
import csv
import json
from collections import Counter
from pathlib import Path

from autoalign import grounding
from autoalign.benchmarks.suites import load_suite
from autoalign.editing import layout_plan

DATA = Path("..") / "shared" / "data"


def prompts(data: Path):
    for name in ("shapes", "shapes-val"):
        for item in load_suite(name).items:
            yield name, item.prompt
    for item in json.loads((data / "tifa/tifa_v1.0_text_inputs.json").read_text(encoding="utf-8")):
        yield "tifa", item["caption"]
    with open(data / "drawbench/DrawBench.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            yield "drawbench", row["Prompts"]
    for line in (data / "geneval/evaluation_metadata.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield "geneval", json.loads(line)["prompt"]
    for path in sorted((data / "t2i_compbench").glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                yield "t2i-compbench", line.strip()
    for name in ("tifa160-dev-anns.csv", "dsg1k-dev-anns.csv"):
        with open(data / "dsg" / name, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                yield "dsg", row["text"]


def grounding_view(prompt: str) -> dict:
    try:
        lay = grounding.read_layout(prompt)
    except Exception as e:  # noqa: BLE001 - an exception is an output to compare too
        return {"error": f"{type(e).__name__}: {e}"}
    return {"objects": [[o.chunk, o.noun, o.colors, o.count, o.index, o.size] for o in lay.objects],
            "relations": [[r.words, r.direction, r.subject, r.obj] for r in lay.relations]}


def planner_view(prompt: str) -> dict:
    try:
        lay = layout_plan.read_layout(prompt)
    except Exception as e:  # noqa: BLE001
        return {"error": f"{type(e).__name__}: {e}"}
    return {"objects": [[w.noun, w.count, list(w.attrs), w.size] for w in lay.objects],
            "relations": [list(r) for r in lay.relations]}


def main(argv: list[str] | None = None) -> Counter:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="The JSON lines file to write.")
    ap.add_argument("--data", default=str(DATA), help="The benchmark data folder (default ../shared/data).")
    ap.add_argument("--only", nargs="*", default=None,
                    help="Only these suites (shapes shapes-val tifa drawbench geneval t2i-compbench dsg).")
    args = ap.parse_args(argv)
    seen: set[tuple[str, str]] = set()
    counts: Counter = Counter()
    with open(args.out, "w", encoding="utf-8") as f:
        for source, prompt in prompts(Path(args.data)):
            if (source, prompt) in seen or args.only is not None and source not in args.only:
                continue
            seen.add((source, prompt))
            counts[source] += 1
            f.write(json.dumps({"source": source, "prompt": prompt, "grounding": grounding_view(prompt),
                                "planner": planner_view(prompt)}) + "\n")
    print(json.dumps(dict(counts)), "rows:", sum(counts.values()), "distinct prompts:", len({p for _, p in seen}))
    return counts


if __name__ == "__main__":
    main()
