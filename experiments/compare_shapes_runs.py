"""One table of several ``bench run`` directories on the shapes suites, read from their ``oracle.json``.

``python -m experiments.compare_shapes_runs "the preset=/tmp/val-A" "pass decides=/tmp/val-C" --out X.json``
writes the table in the results page's generic shape (``title``, ``command``, ``measures``, ``tables``), so
``python scripts/make_results.py`` renders it. It only reads what the runs' oracle analysis wrote; choose
loop settings with it on ``--suite shapes-val`` runs, never on the held-out ``shapes`` suite.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from autoalign.files import atomic_write_json

COLUMNS = ["setting", "n", "corrected", "corrected - baseline", "corrected - reranked (better / worse prompts)",
           "edits - best-of-M", "false pass", "missed", "final image unreadable"]


def _cell(metric: dict[str, Any]) -> str:
    return f"{metric['value']:.3f} [{metric['ci_low']:.3f}, {metric['ci_high']:.3f}]"


def row(label: str, oracle: dict[str, Any]) -> list[Any]:
    """One setting's figures from a run's ``oracle.json``."""
    gains = oracle["gains"]
    judge = oracle["judge vs oracle on the final image"]
    bom = oracle["ablation: edits vs best-of-M at equal generator+editor calls"]["edits - best-of-M"]
    loop_gain = gains["corrected - reranked"]
    return [label, oracle["n"], _cell(oracle["full alignment"]["corrected"]), _cell(gains["corrected - baseline"]),
            f"{_cell(loop_gain)} ({loop_gain['extra']['n_improved']} / {loop_gain['extra']['n_worse']})", _cell(bom),
            _cell(judge["judge aligned, oracle not (false pass)"]), _cell(judge["oracle aligned, judge not (missed)"]),
            _cell(oracle["unreadable by the oracle"]["corrected"])]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="LABEL=DIR: a setting's name and its bench run's --out")
    ap.add_argument("--out", required=True, help="the JSON to write (docs/results/...)")
    ap.add_argument("--title", default="Loop settings compared on the shapes suites")
    ap.add_argument("--measures", default="", help="what the runs are and what differs between them, one paragraph")
    args = ap.parse_args(argv)
    rows = []
    for spec in args.runs:
        label, sep, folder = spec.rpartition("=")
        path = Path(folder) / "oracle.json"
        if not sep or not path.is_file():
            print(f"error: {spec!r}: want LABEL=DIR (split at the last '=') with DIR/oracle.json (a finished bench run on a shapes suite)", file=sys.stderr)
            return 2
        rows.append(row(label, json.loads(path.read_text(encoding="utf-8"))))
    command = "python -m experiments.compare_shapes_runs " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    measures = args.measures or ("Oracle-read shares of prompts with 95 % bootstrap intervals, one row per bench run "
                                 "(see each run's oracle.md for the whole report).")
    atomic_write_json(args.out, {"title": args.title, "command": command, "measures": measures,
                                 "tables": [{"name": "settings", "columns": COLUMNS, "rows": rows}]})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
