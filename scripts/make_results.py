#!/usr/bin/env python
"""Render docs/results.md from the JSON files under docs/results/ (never type a figure by hand).

    python scripts/make_results.py           # write docs/results.md
    python scripts/make_results.py --check   # exit 1 when docs/results.md is not what the JSON renders

Two kinds of file live in docs/results/:

* **a command's own output**, unchanged (``autoalign world eval --json``, the ``oracle.json`` that
  ``autoalign bench run --suite shapes`` writes, ``python -m autoalign.benchmarks.dsg_questions --json``),
  named in ``docs/results/sources.toml`` with the renderer that reads it (``kind``), a title, the exact
  command that wrote it, where and when it ran (``measured``) and what its figures mean (``measures``);
* **the generic shape** any eval or bench command may write directly:
  ``{"title": str, "command": str, "measures": str, "tables": [{"name": str, "columns": [str, ...],
  "rows": [[cell, ...], ...]}]}`` (cells are strings or numbers; optional ``"measured"``: where and when).

Sections come in the order of sources.toml, then the generic files by name. A JSON file that is
neither is an error, as is a malformed one: one line naming the file and what is wrong, exit 2,
nothing written.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable

from autoalign.stats import wilson_interval

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "docs" / "results"
PAGE = ROOT / "docs" / "results.md"
SOURCES = "sources.toml"
SPLITS = ("test", "compositional", "val")


class ResultsError(Exception):
    """A results file the page cannot be rendered from (the message names the file)."""


# ---------------------------------------------------------------------------------------- cells


def is_metric(x: Any) -> bool:
    """A figure as the commands write it: ``{"value", "n", "ci": [lo, hi]}`` (world eval) or
    ``{"value", "n", "ci_low", "ci_high", ...}`` (benchmarks.metrics.Metric)."""
    return isinstance(x, dict) and "value" in x and "n" in x


def metric_cell(m: dict[str, Any], digits: int = 3) -> str:
    """``0.917 [0.900, 0.930] (n=1306)``; ``n/a (n=0)`` without a value."""
    if m.get("value") is None:
        return f"n/a (n={m.get('n', 0)})"
    lo, hi = m["ci"] if "ci" in m else (m.get("ci_low"), m.get("ci_high"))
    value = f"{m['value']:.{digits}f}"
    if lo is None or hi is None:
        return f"{value} (n={m['n']})"
    return f"{value} [{lo:.{digits}f}, {hi:.{digits}f}] (n={m['n']})"


def p_value(m: dict[str, Any]) -> str:
    p = ((m.get("extra") or {}).get("wilcoxon") or {}).get("p")
    return "" if p is None else f"{p:.2g}"


def cell(x: Any) -> str:
    text = "" if x is None else str(x)
    return text.replace("|", "\\|").replace("\n", " ")


def table(columns: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return out


def section_head(title: str, command: str, measured: str | None, measures: str) -> list[str]:
    lines = [f"## {title}", "", f"Command: `{command}`", ""]
    if measured:
        lines += [f"Measured: {measured}", ""]
    return lines + [measures.strip(), ""]


def flatten(body: Any, prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """(row name, metric) for every figure nested under ``body``, names joined with " · "."""
    if is_metric(body):
        return [(prefix, body)]
    if not isinstance(body, dict):
        return []
    out: list[tuple[str, dict[str, Any]]] = []
    for key, value in body.items():
        out += flatten(value, f"{prefix} · {key}" if prefix else str(key))
    return out


# ---------------------------------------------------------------------------------------- renderers


def render_generic(doc: dict[str, Any], source: str) -> list[str]:
    """The generic shape (module docstring)."""
    for key, kind in (("title", str), ("command", str), ("measures", str), ("tables", list)):
        if not isinstance(doc.get(key), kind):
            raise ResultsError(f"{source}: '{key}' must be a {kind.__name__} (the generic results shape)")
    lines = section_head(doc["title"], doc["command"], doc.get("measured"), doc["measures"])
    for i, t in enumerate(doc["tables"]):
        if not (isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("columns"), list)
                and isinstance(t.get("rows"), list)):
            raise ResultsError(f"{source}: tables[{i}] needs 'name' (str), 'columns' (list) and 'rows' (list)")
        width = len(t["columns"])
        for j, row in enumerate(t["rows"]):
            if not isinstance(row, list) or len(row) != width:
                raise ResultsError(f"{source}: tables[{i}] ('{t['name']}') row {j} must be a list of {width} cells")
            if any(not isinstance(c, (str, int, float)) or isinstance(c, bool) for c in row):
                raise ResultsError(f"{source}: tables[{i}] ('{t['name']}') row {j}: cells are strings or numbers")
        lines += [f"**{t['name']}**", "", *table(t["columns"], t["rows"]), ""]
    return lines


def render_world_eval(data: dict[str, Any], source: str) -> list[str]:
    """``autoalign world eval --json``: per part, one row per figure and one column per split."""
    lines: list[str] = []
    if "n_per_split" in data:
        lines += [f"{data['n_per_split']} scenes per split.", ""]
    for part, body in data.items():
        if not isinstance(body, dict):
            continue
        splits = [s for s in SPLITS if s in body]
        if splits and all(k in SPLITS for k in body):  # part -> split -> figure
            names: list[str] = []
            by_split = {s: dict(flatten(body[s])) for s in splits}
            for s in splits:
                names += [n for n in by_split[s] if n not in names]
            rows = [[n, *(metric_cell(by_split[s][n]) if n in by_split[s] else "" for s in splits)] for n in names]
            lines += [f"**{part}**", "", *table(["figure", *splits], rows), ""]
        else:  # part -> model -> figure (CLIP's Winoground scores)
            rows = [[n, metric_cell(m)] for n, m in flatten(body)]
            missing = [f"{k}: {v['missing']}" for k, v in body.items() if isinstance(v, dict) and "missing" in v]
            lines += [f"**{part}**", "", *table(["figure", "value [95 % CI] (n)"], rows), ""]
            if missing:
                lines += ["Not measured (no weights): " + "; ".join(missing), ""]
    if not lines:
        raise ResultsError(f"{source}: no figure found (expected the JSON of `autoalign world eval --json`)")
    return lines


def render_shapes_bench(data: dict[str, Any], source: str) -> list[str]:
    """``oracle.json`` of ``autoalign bench run --suite shapes``: one table per section, p from Wilcoxon."""
    if "n" not in data:
        raise ResultsError(f"{source}: no 'n' (expected the oracle.json of `autoalign bench run --suite shapes`)")
    lines = [f"n = {data['n']} prompts.", ""]
    for name, body in data.items():
        figures = flatten(body)
        if not figures:
            continue
        with_p = any(p_value(m) for _, m in figures)
        rows = [[n or name, metric_cell(m), *([p_value(m)] if with_p else [])] for n, m in figures]
        columns = ["", "value [95 % CI] (n)", *(["p (Wilcoxon)"] if with_p else [])]
        lines += [f"**{name}**", "", *table(columns, rows), ""]
    return lines


def _gpu_figures(details: dict[str, Any]) -> str:
    """The few figures of one gpu_check check worth a table cell."""
    out = []
    against = details.get("against_cpu_float32") or details
    for key, label in (("oracle_verdict_agreement", "oracle verdict = cpu"), ("box_agreement", "boxes = cpu"),
                       ("oracle_objects_identical", "oracle reads the same objects as cpu"),
                       ("oracle_shows_caption_device", "caption right (device)"), ("oracle_shows_caption_cpu", "(cpu)"),
                       ("oracle_sees_asked_colour_and_shape", "oracle sees the asked colour and shape"),
                       ("best_caption_agreement", "best caption = cpu")):
        v = against.get(key) if isinstance(against, dict) else None
        v = v if v is not None else details.get(key)
        if isinstance(v, dict) and "share" in v:
            ci = v.get("ci95") or ["", ""]
            out.append(f"{label} {v['share']:.3f} [{ci[0]}, {ci[1]}] (n={v.get('n')})")
    diff = against.get("clipscore_diff_device_minus_cpu") if isinstance(against, dict) else None
    for key, label in (("mean_abs", "CLIPScore mean |diff|"), ("max_abs", "max |diff|")):
        if isinstance(diff, dict) and key in diff:
            out.append(f"{label} {diff[key]}")
    for key in ("throughput", "throughput_batched"):
        t = details.get(key)
        if isinstance(t, dict) and "images_per_second" in t:
            out.append(f"{t['images_per_second']} images/s ({t.get('images_per_call')} a call)")
    return "; ".join(out)


def render_gpu_check(data: dict[str, Any], source: str) -> list[str]:
    """``scripts/gpu_check.py``'s gpu_check.json: the device, then one row per check that ran."""
    if not isinstance(data.get("checks"), list):
        raise ResultsError(f"{source}: no 'checks' (expected the gpu_check.json of scripts/gpu_check.py)")
    env = next((c.get("details", {}) for c in data["checks"] if c.get("name") == "env"), {})
    versions = env.get("versions", {})
    lines = [f"Device: {env.get('device_name', data.get('device'))}, torch {versions.get('torch', '?')} (CUDA "
             f"{env.get('torch_cuda', '?')}), diffusers {versions.get('diffusers', '?')}, transformers "
             f"{versions.get('transformers', '?')}; bf16 native: {env.get('bf16_native')}. Checks: "
             + ", ".join(f"{v} {k}" for k, v in (data.get("counts") or {}).items()) + ".", ""]
    rows = [[c.get("name", ""), c.get("status", ""), (c.get("error") or "")[:160], _gpu_figures(c.get("details") or {})]
            for c in data["checks"] if c.get("status") != "skipped" and c.get("name") != "env"]
    return lines + table(["check", "status", "error", "figures"], rows) + [""]


def _recall(r: dict[str, Any]) -> str:
    """A recall as the DSG command writes it (rounded to 3 places, with n), with its Wilson interval."""
    n = r["n"]
    if not n:
        return "n/a (n=0)"
    k = round(r["recall"] * n)  # exact: with n < 1000 the rounded recall names one k
    lo, hi = wilson_interval(k, n)
    return f"{r['recall']:.3f} ({k}/{n}) [{lo:.3f}, {hi:.3f}]"


def render_dsg_questions(data: dict[str, Any], source: str) -> list[str]:
    """``python -m autoalign.benchmarks.dsg_questions --json``: recall of human DSG tuples per part."""
    settings = [k for k in ("filter_on", "filter_off") if k in data]
    if not settings:
        raise ResultsError(f"{source}: no 'filter_on' / 'filter_off' (expected `dsg_questions --json`)")
    lines = [f"{data['prompts']} prompts, {data['human_tuples']} human tuples; parts: {data['split']}.", ""]
    parts = ("tune", "held")
    for setting in settings:
        res = data[setting]
        broad = [c for c in res["tune"]["by_category_broad"]]
        for c in res["held"]["by_category_broad"]:
            if c not in broad:
                broad.append(c)
        order = ["all", *sorted(c for c in broad if c != "all")]
        rows = [[c, *(_recall(res[p]["by_category_broad"][c]) if c in res[p]["by_category_broad"] else "" for p in parts)]
                for c in order]
        rows.append(["questions per prompt: generated (DSG's)",
                     *(f"{res[p]['questions_per_prompt']} ({res[p]['dsg_questions_per_prompt']})" for p in parts)])
        rows.append(["median ms per prompt (all prompts)", f"{res['ms_per_prompt_median']}", ""])
        label = "answer-consistency filter on" if setting == "filter_on" else "answer-consistency filter off"
        lines += [f"**recall of human DSG tuples, {label}**", "",
                  *table(["category", "tuning part: recall (k/n) [95 % CI]", "held-out part: recall (k/n) [95 % CI]"], rows), ""]
    cb = data.get("colour_binding")
    if cb and cb.get("pairs"):
        lo, hi = wilson_interval(cb["told_apart"], cb["pairs"])
        lines += [f"**colour binding**: {cb['told_apart']} of {cb['pairs']} colour-swapped caption pairs get a question "
                  f"that tells them apart ({cb['told_apart'] / cb['pairs']:.3f} [{lo:.3f}, {hi:.3f}]).", ""]
    return lines


RENDERERS: dict[str, Callable[[dict[str, Any], str], list[str]]] = {
    "world_eval": render_world_eval,
    "shapes_bench": render_shapes_bench,
    "dsg_questions": render_dsg_questions,
    "gpu_check": render_gpu_check,
}


# ---------------------------------------------------------------------------------------- the page


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ResultsError(f"{path.name}: not readable JSON ({exc})") from exc


def _sources(results_dir: Path) -> list[dict[str, Any]]:
    path = results_dir / SOURCES
    if not path.is_file():
        return []
    try:
        entries = tomllib.loads(path.read_text(encoding="utf-8")).get("source", [])
    except tomllib.TOMLDecodeError as exc:
        raise ResultsError(f"{SOURCES}: not valid TOML ({exc})") from exc
    for i, e in enumerate(entries):
        for key in ("file", "kind", "title", "command", "measured", "measures"):
            if not isinstance(e.get(key), str):
                raise ResultsError(f"{SOURCES}: source {i + 1} needs '{key}' (a string)")
        if e["kind"] not in RENDERERS:
            raise ResultsError(f"{SOURCES}: source {i + 1} ('{e['file']}'): kind must be one of {', '.join(RENDERERS)}")
        if not (results_dir / e["file"]).is_file():
            raise ResultsError(f"{SOURCES}: source {i + 1}: no file docs/results/{e['file']}")
    return entries


PREAMBLE = """# Results

<!-- Generated by `python scripts/make_results.py` from the JSON files in docs/results/. Do not edit by hand:
change the JSON (rerun the command named in each section) or the script, then run it again. -->

Every figure on this page is read from a JSON file in [results/](results/) that the named command wrote;
`python scripts/make_results.py` renders the page and a test checks that the committed page is what the
committed JSON renders. Intervals are 95 %: Wilson for shares, bootstrap for ROC AUC and for the
benchmark's shares and gains. Figures from earlier rounds that were not measured again, with how
they were measured, are in the [lab notes](lab-notes/README.md).
"""


def render(results_dir: Path = RESULTS_DIR) -> str:
    """The page, from every JSON file in ``results_dir``."""
    results_dir = Path(results_dir)
    entries = _sources(results_dir)
    named = {e["file"] for e in entries}
    sections: list[list[str]] = []
    for e in entries:
        data = _load(results_dir / e["file"])
        if not isinstance(data, dict):
            raise ResultsError(f"{e['file']}: expected a JSON object")
        body = RENDERERS[e["kind"]](data, e["file"])
        sections.append(section_head(e["title"], e["command"], e["measured"], e["measures"]) + body)
    for path in sorted(results_dir.glob("*.json")):
        if path.name in named:
            continue
        doc = _load(path)
        if not isinstance(doc, dict) or "tables" not in doc:
            raise ResultsError(f"{path.name}: neither named in {SOURCES} nor in the generic shape "
                               "(title, command, measures, tables)")
        sections.append(render_generic(doc, path.name))
    contents, seen = [], {}
    for s in sections:  # GitHub numbers repeated headings' anchors: x, x-1, x-2, ...
        anchor = _anchor(s[0][3:])
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        contents.append(f"- [{s[0][3:]}](#{anchor}{f'-{count}' if count else ''})")
    lines = [PREAMBLE, "## Contents", "", *contents, ""]
    for s in sections:
        lines += s
    return "\n".join(lines).rstrip("\n") + "\n"


def _anchor(title: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return keep.replace(" ", "-")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="Exit 1 if the page is not what the JSON renders; write nothing.")
    ap.add_argument("--results-dir", type=Path, default=RESULTS_DIR, help="Where the JSON files are (default: docs/results).")
    ap.add_argument("--out", type=Path, default=PAGE, help="The page to write or check (default: docs/results.md).")
    args = ap.parse_args(argv)
    try:
        page = render(args.results_dir)
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = args.out.read_text(encoding="utf-8") if args.out.is_file() else ""
        if current != page:
            print(f"{args.out} is stale: run python scripts/make_results.py", file=sys.stderr)
            return 1
        return 0
    from autoalign.files import atomic_write_text  # a half-written page never replaces a good one

    atomic_write_text(args.out, page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
