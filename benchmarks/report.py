"""Benchmark reports: ``summary.json``, ``summary.md`` and a self-contained ``report.html``.

``write_reports(out_dir)`` reads ``bench.json`` and ``results.jsonl`` from a bench directory,
computes the metrics (:mod:`autoalign.benchmarks.metrics`) and writes:

* ``summary.json`` — metrics (every figure with n, 95 % CI and direction), the config, preset,
  model ids, seeds, suite source and checksum, package versions, metric directions;
* ``summary.md`` — the same as tables;
* ``report.html`` — viewable offline: the tables, per-category bar charts (baseline vs reranked vs
  corrected with CI error bars, embedded as base64 PNG) and an image grid per category (baseline ->
  corrected thumbnails by relative path inside the bench directory, with the detected mismatches
  and the edit instructions under each).

When the preset uses test doubles or tiny random-weight models, every report says so at the top:
the numbers then show that the machinery works, not how good any model is.
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

from autoalign.benchmarks.bench_runner import META_FILE, RESULTS_FILE, latest_results
from autoalign.benchmarks.geneval_bench import read_result as geneval_result
from autoalign.benchmarks.geneval_bench import tables as geneval_tables
from autoalign.benchmarks.metrics import (
    SCORE_KEYS,
    Metric,
    categories_of,
    compute_metrics,
    directions,
    to_jsonable,
)
from autoalign.benchmarks.records import BenchRecord, StageResult
from autoalign.files import atomic_write_text, directory_lock
from autoalign.wording import clean_text, mismatch_words, scores_warning

logger = logging.getLogger(__name__)

PACKAGES: tuple[str, ...] = (
    "autoalign", "torch", "diffusers", "transformers", "open_clip_torch", "langgraph", "numpy", "scipy", "matplotlib",
)
STAGE_COLORS = {"baseline": "#9e9e9e", "reranked": "#4f81bd", "corrected": "#2e9d5b"}
MAX_GRID_ITEMS_PER_CATEGORY = 24


def package_versions(names: Sequence[str] = PACKAGES) -> dict[str, str | None]:
    out: dict[str, str | None] = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def machinery_note(config: dict[str, Any] | None) -> str:
    """A plain warning when the config uses test doubles or tiny random models; '' for real models.

    The wording and the test live in one place, :func:`autoalign.wording.scores_warning`.
    """
    return scores_warning(config)


# --------------------------------------------------------------------------- loading


def load_bench(out_dir: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``bench.json`` and the latest records of its config hash from a bench directory."""
    out = Path(out_dir)
    meta_path = out / META_FILE
    meta: dict[str, Any] = {}
    if meta_path.exists():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    records = latest_results(out / RESULTS_FILE, meta.get("config_hash"))
    return meta, records


def build_summary(meta: dict[str, Any], records: Sequence[BenchRecord]) -> dict[str, Any]:
    metrics = compute_metrics(records, threshold=meta.get("threshold"))
    return {
        "note": machinery_note(meta.get("config")),
        "suite": meta.get("suite"),
        "suite_source": meta.get("suite_source"),
        "suite_sha256": meta.get("suite_sha256"),
        "mode": meta.get("mode"),
        "preset": meta.get("preset"),
        "config_hash": meta.get("config_hash"),
        "model_ids": meta.get("model_ids"),
        "seeds": meta.get("seeds"),
        "threshold": meta.get("threshold"),
        "config": meta.get("config"),
        "versions": package_versions(),
        "metric_directions": directions(metrics),
        "metrics": to_jsonable(metrics),
        "_metrics_objects": metrics,
    }


def write_reports(out_dir: str | Path) -> dict[str, Path]:
    """Write summary.json, summary.md and report.html into ``out_dir``; return their paths."""
    out = Path(out_dir)
    meta, records = load_bench(out)
    summary = build_summary(meta, records)
    metrics = summary.pop("_metrics_objects")
    geneval = geneval_result(out, meta.get("config_hash"))
    if geneval is not None:  # GenEval's rules on this run's images (geneval and shapes suites)
        summary["geneval"] = geneval
    paths = {
        "summary.json": out / "summary.json",
        "summary.md": out / "summary.md",
        "report.html": out / "report.html",
    }
    with directory_lock(out, "bench report"):  # re-entrant: a bench or batch holding `out` may call this
        atomic_write_text(paths["summary.json"], json.dumps(summary, indent=2, default=str))
        atomic_write_text(paths["summary.md"], render_markdown(summary, metrics))
        atomic_write_text(paths["report.html"], render_html(out, summary, metrics, records))
    return paths


# --------------------------------------------------------------------------- tables (shared by md and html)


def _p(metric: Metric) -> str:
    w = (metric.extra.get("wilcoxon") or {}).get("p")
    perm = (metric.extra.get("permutation") or {}).get("p")
    fmt = lambda v: "n/a" if v is None else f"{v:.3g}"  # noqa: E731
    return f"{fmt(w)} / {fmt(perm)}"


def tables(summary: dict[str, Any], metrics: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) for every table of the report."""
    stages = metrics["stages"]
    out = []
    out.append((
        "Mean scores (95% bootstrap CI, n)",
        ["score", *stages],
        [[key, *[metrics["scores"][s][key].fmt() for s in stages]] for key in SCORE_KEYS],
    ))
    gain_rows = []
    for label, per_key in metrics["gains"].items():
        for key in SCORE_KEYS:
            m = per_key[key]
            gain_rows.append([label, key, m.fmt(), _p(m), f"{m.extra.get('n_improved', 0)}/{m.extra.get('n_worse', 0)}"])
    out.append(("Paired gains (higher is better)", ["gain", "score", "mean [CI] (n)", "p wilcoxon / permutation",
                                                    "improved/worse"], gain_rows))
    thr = summary.get("threshold")
    hall_rows = []
    for row in ["any_mismatch", "vq2_below_threshold"] + [f"aspect:{a}" for a in ("entity", "attribute", "relation", "number")]:
        label = row if row != "vq2_below_threshold" else f"vq2 < {thr}"
        hall_rows.append([label, *[metrics["hallucination"][s][row].fmt() for s in stages]])
    out.append(("Hallucination rate: share of images (lower is better)", ["measure", *stages], hall_rows))
    cat_rows = []
    for cat, block in metrics["per_category"].items():
        cat_rows.append([
            cat, str(block["n"]),
            *[block["scores"][s]["overall"].fmt() for s in stages],
            *[block["hallucination"][s]["any_mismatch"].fmt(2) for s in stages],
        ])
    out.append((
        "Per category: overall score and share with >= 1 mismatch",
        ["category", "n", *[f"score {s}" for s in stages], *[f"mismatch {s}" for s in stages]],
        cat_rows,
    ))
    proc = metrics["process"]
    out.append((
        "Process, per prompt",
        ["measure", "mean [CI] (n)"],
        [[k, proc[k].fmt(2)] for k in ("rounds", "edits_accepted", "edits_rejected", "wall_time_s", "model_calls")]
        + [[f"stop: {reason}", str(count)] for reason, count in proc["stop_reasons"].items()],
    ))
    if summary.get("geneval"):
        out.extend(geneval_tables(summary["geneval"]))
    return out


def render_markdown(summary: dict[str, Any], metrics: dict[str, Any]) -> str:
    lines = [f"# Benchmark: {summary.get('suite')} ({summary.get('mode')}), preset {summary.get('preset')}", ""]
    if summary.get("note"):
        lines += [f"> **Note:** {summary['note']}", ""]
    lines += [
        f"- prompts: {metrics['n_prompts']}, records ok: {metrics['n_ok']}, errors: {metrics['n_errors']}",
        f"- seeds: {summary.get('seeds')}, threshold: {summary.get('threshold')}, config hash: {summary.get('config_hash')}",
        f"- suite source: {summary.get('suite_source')} (sha256 {summary.get('suite_sha256')})",
        f"- models: {json.dumps(summary.get('model_ids'))}",
        "",
    ]
    for title, header, rows in tables(summary, metrics):
        lines += [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        lines.append("")
    if metrics["errors"]:
        lines += ["## Errors", ""] + [f"- {e['id']} (seed {e['seed']}): {e['error']}" for e in metrics["errors"]] + [""]
    return "\n".join(lines)


# --------------------------------------------------------------------------- charts


def _figure_png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def category_bar_chart(metrics: dict[str, Any], key: str = "overall", measure: str = "score") -> str | None:
    """Grouped bars per category, one bar per stage, CI error bars; base64 PNG (None if no data).

    ``measure="score"`` plots the mean ``key`` score; ``"hallucination"`` the share with >= 1 mismatch.
    """
    fig = category_figure(metrics, key, measure)
    return None if fig is None else _figure_png(fig)


def category_figure(metrics: dict[str, Any], key: str = "overall", measure: str = "score"):
    """The matplotlib Figure of :func:`category_bar_chart`; the legend sits right of the axes, off the bars."""
    from matplotlib.figure import Figure  # no pyplot: no global backend state

    stages = metrics["stages"]
    cats = list(metrics["per_category"])
    if not cats or not stages:
        return None
    width = 0.8 / len(stages)
    fig = Figure(figsize=(max(6.0, 0.9 * len(cats) + 2), 3.6))
    ax = fig.add_subplot(1, 1, 1)
    for i, stage in enumerate(stages):
        vals, lo_err, hi_err = [], [], []
        for cat in cats:
            block = metrics["per_category"][cat]
            m = block["scores"][stage][key] if measure == "score" else block["hallucination"][stage]["any_mismatch"]
            v = m.value if m.value is not None else 0.0
            vals.append(v)
            lo_err.append(max(0.0, v - (m.ci_low if m.ci_low is not None else v)))
            hi_err.append(max(0.0, (m.ci_high if m.ci_high is not None else v) - v))
        xs = [j + (i - (len(stages) - 1) / 2) * width for j in range(len(cats))]
        ax.bar(xs, vals, width, yerr=[lo_err, hi_err], capsize=2, label=stage, color=STAGE_COLORS.get(stage))
    ax.set_xticks(range(len(cats)))
    ax.set_xticklabels(cats, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"mean {key}" if measure == "score" else "share with >= 1 mismatch")
    ax.set_title(f"{'Mean ' + key if measure == 'score' else 'Hallucination rate'} per category (95% CI)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return fig


# --------------------------------------------------------------------------- html


_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}
th{background:#f3f3f3}.note{background:#fff4d6;border:1px solid #e0b84d;padding:.7em;margin:1em 0}
.grid{display:flex;flex-wrap:wrap;gap:12px}.item{border:1px solid #ddd;padding:6px;width:300px;font-size:12px}
.pair{display:flex;gap:4px;align-items:center}.pair figure{margin:0;text-align:center}
.pair img{width:128px;height:128px;object-fit:contain;background:#eee;image-rendering:pixelated}.mm{color:#a33}.ins{color:#236}
.missing{width:128px;height:128px;background:#eee;display:flex;align-items:center;justify-content:center}
"""


def _img(out: Path, rel: str | None, alt: str) -> str:
    """An <img> with a relative path if the file exists inside the bench dir; a placeholder otherwise."""
    if rel:
        path = (out / rel).resolve()
        try:
            path.relative_to(out.resolve())
            inside = True
        except ValueError:
            inside = False
        if inside and path.is_file():
            return f'<img src="{html.escape(Path(rel).as_posix())}" alt="{html.escape(alt)}" loading="lazy">'
    return f'<div class="missing">{html.escape(alt)}: no image</div>'


def _mismatch_list(stage: StageResult | None) -> str:
    if stage is None:
        return ""
    mms = stage.mismatches
    if not mms:
        return "<div>no mismatch detected</div>"
    items = "".join(f"<li class=mm>{html.escape(mismatch_words(m, aspect=True))}</li>" for m in mms)
    return f"<ul>{items}</ul>"


def _score_line(stage: StageResult | None) -> str:
    if stage is None:
        return ""
    parts = [f"{k} {v:.2f}" for k in ("vq2", "vnli", "clip") for v in [stage.score(k)] if v is not None]
    return html.escape(", ".join(parts))


def _image_grid(out: Path, records: Sequence[BenchRecord]) -> str:
    chunks = []
    ok = [r for r in records if r.ok]
    for cat in categories_of(ok):
        recs = [r for r in ok if r.category_or_default() == cat]
        shown = recs[:MAX_GRID_ITEMS_PER_CATEGORY]
        chunks.append(f"<h3>{html.escape(cat)} ({len(recs)} prompts{', first ' + str(len(shown)) if len(shown) < len(recs) else ''})</h3><div class=grid>")
        for r in shown:
            final_stage = "corrected" if "corrected" in r.stages else "reranked"
            base, final = r.stage("baseline"), r.stage(final_stage)
            instructions = r.instructions or []
            ins = "".join(
                f"<li class=ins>{html.escape(clean_text(i.get('text', i) if isinstance(i, dict) else i))}"
                f"{' (' + html.escape(str(i.get('writer'))) + ')' if isinstance(i, dict) and i.get('writer') else ''}</li>"
                for i in instructions
            )
            chunks.append(
                "<div class=item>"
                f"<div><b>{html.escape(r.prompt)}</b><br><small>{html.escape(str(r.id))} seed {r.seed}"
                f" · rounds {0 if r.rounds is None else r.rounds} · stop {html.escape(str(r.stop_reason or '-'))}</small></div>"
                "<div class=pair>"
                f"<figure>{_img(out, base.image if base else None, 'baseline')}<figcaption>baseline<br>{_score_line(base)}</figcaption></figure>"
                "<span>→</span>"
                f"<figure>{_img(out, final.image if final else None, final_stage)}<figcaption>{final_stage}<br>{_score_line(final)}</figcaption></figure>"
                "</div>"
                f"<div>baseline mismatches:{_mismatch_list(base)}</div>"
                f"<div>{final_stage} mismatches:{_mismatch_list(final)}</div>"
                + (f"<div>instructions:<ul>{ins}</ul></div>" if ins else "")
                + "</div>"
            )
        chunks.append("</div>")
    return "\n".join(chunks)


def _html_table(title: str, header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<h2>{html.escape(title)}</h2><table><tr>{head}</tr>{body}</table>"


def render_html(out: Path, summary: dict[str, Any], metrics: dict[str, Any], records: Sequence[BenchRecord]) -> str:
    title = f"AutoAlign benchmark: {summary.get('suite')} ({summary.get('mode')}), preset {summary.get('preset')}"
    parts = [f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{html.escape(title)}</title>"
             f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"]
    if summary.get("note"):
        parts.append(f"<div class=note><b>Note:</b> {html.escape(summary['note'])}</div>")
    parts.append(
        f"<p>prompts {metrics['n_prompts']} · records ok {metrics['n_ok']} · errors {metrics['n_errors']} · "
        f"seeds {html.escape(str(summary.get('seeds')))} · threshold {summary.get('threshold')} · "
        f"config {html.escape(str(summary.get('config_hash')))}<br>models {html.escape(json.dumps(summary.get('model_ids')))}<br>"
        f"suite source {html.escape(str(summary.get('suite_source')))} (sha256 {html.escape(str(summary.get('suite_sha256')))})</p>"
    )
    for title_, header, rows in tables(summary, metrics):
        parts.append(_html_table(title_, header, rows))
    parts.append("<h2>Per-category charts</h2>")
    for key, measure in (("overall", "score"), ("vq2", "score"), ("overall", "hallucination")):
        png = category_bar_chart(metrics, key, measure)
        if png:
            parts.append(f'<img alt="{html.escape(measure + " " + key)} per category" src="data:image/png;base64,{png}"><br>')
    parts.append("<h2>Images per category: baseline → final, with detected mismatches and instructions</h2>")
    parts.append(_image_grid(out, records))
    if metrics["errors"]:
        parts.append("<h2>Errors</h2><ul>" + "".join(
            f"<li>{html.escape(str(e['id']))} (seed {e['seed']}): {html.escape(str(e['error']))}</li>" for e in metrics["errors"]
        ) + "</ul>")
    parts.append(f"<h2>Versions</h2><pre>{html.escape(json.dumps(summary.get('versions'), indent=1))}</pre></body></html>")
    return "\n".join(parts)


# --------------------------------------------------------------------------- compare


def write_compare(dir_a: str | Path, dir_b: str | Path, out_dir: str | Path | None = None) -> tuple[dict[str, Any], dict[str, Path]]:
    """Paired differences B − A between two bench directories; writes compare.json and compare.md."""
    from autoalign.benchmarks.metrics import compare_records

    meta_a, rec_a = load_bench(dir_a)
    meta_b, rec_b = load_bench(dir_b)
    result = compare_records(rec_a, rec_b)
    payload = {
        "a": {"dir": str(dir_a), "preset": meta_a.get("preset"), "mode": meta_a.get("mode"), "config_hash": meta_a.get("config_hash")},
        "b": {"dir": str(dir_b), "preset": meta_b.get("preset"), "mode": meta_b.get("mode"), "config_hash": meta_b.get("config_hash")},
        "notes": [n for n in (machinery_note(meta_a.get("config")), machinery_note(meta_b.get("config"))) if n],
        "versions": package_versions(),
        **to_jsonable(result),
    }
    payload["metric_directions"] = directions(result["diffs"])
    out = Path(out_dir) if out_dir else Path(dir_b)
    out.mkdir(parents=True, exist_ok=True)
    rows = compare_rows(result)
    md = [f"# Compare: B ({dir_b}) − A ({dir_a})", "",
          f"shared (id, seed): {result['n_shared']} · only in A: {result['n_only_a']} · only in B: {result['n_only_b']}", ""]
    md += [f"> **Note:** {n}" for n in payload["notes"]] + ([""] if payload["notes"] else [])
    md += ["| stage | measure | B − A mean [CI] (n) | p wilcoxon / permutation |", "|---|---|---|---|"]
    md += [f"| {' | '.join(r)} |" for r in rows]
    paths = {"compare.json": out / "compare.json", "compare.md": out / "compare.md"}
    with directory_lock(out, "bench compare"):
        atomic_write_text(paths["compare.json"], json.dumps(payload, indent=2, default=str))
        atomic_write_text(paths["compare.md"], "\n".join(md) + "\n")
    return result, paths


def compare_rows(result: dict[str, Any]) -> list[list[str]]:
    rows = []
    for stage, per in result["diffs"].items():
        for name, m in per.items():
            rows.append([stage, name, m.fmt(), _p(m)])
    return rows
