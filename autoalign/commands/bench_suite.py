"""``autoalign bench run|audit|compare|report``: benchmark suites through the loop, with reports.

* ``bench run --suite drawbench --preset P --out DIR``: baseline, best-of-N and corrected image per
  prompt, scored and checked; resumable (rerun the same command).
* ``bench audit ...``: the same without edit rounds: the text-to-image model's hallucination profile.
* ``bench compare DIR_A DIR_B``: paired differences B − A on shared prompts, with CIs and tests.
* ``bench report DIR``: re-render summary.json / summary.md / report.html from results.jsonl.
* ``bench geneval DIR``: GenEval's rules (the preset's grounder as detector) on a ``geneval`` or ``shapes``
  bench run's images, again; on ``shapes``, compared with the oracle. ``bench run`` on these suites does it
  at its end (when the preset has a grounder; ``--suite geneval`` needs one).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.table import Table

from autoalign.cli_apps import bench_app, config_option, preset_option, quiet_model_bars, setting_options
from autoalign.settings import MODEL_FLAGS

SUITE_HELP = "drawbench | editbench | geneval | t2i-compbench | shapes, or a .csv/.jsonl file with a 'prompt' column."
LIMIT_NOTE = "--limit takes its N prompts (after --categories) in turn from each category, in file order."
SUITE_FILE_HELP = "A local copy of the suite's file (e.g. a downloaded DrawBench.csv); no download."


def _bench(
    *, correct: bool, suite: str, preset: str, out: Path, suite_file: Optional[Path], limit: Optional[int],
    categories: Optional[str], seeds: int, config: Optional[Path], no_progress: bool, overrides: dict[str, Any],
) -> None:
    from autoalign.benchmarks.bench_runner import bench_run
    from autoalign.benchmarks.report import write_reports as write_reports_of
    from autoalign.benchmarks.suites import SHAPES_SUITES, load_suite
    from autoalign.config import load_config
    from autoalign.memory_check import check_memory

    cfg = load_config(preset, config, overrides)
    the_suite = load_suite(suite, suite_file)
    geneval = the_suite.name == "geneval" or (the_suite.name in SHAPES_SUITES and correct and cfg.grounder is not None)
    if the_suite.name == "geneval":  # before anything runs or is written: one line
        from autoalign.benchmarks.geneval_bench import check_suite_metadata, needs_grounder

        needs_grounder(cfg, "geneval")
        check_suite_metadata(the_suite)
    check_memory(cfg)
    quiet_model_bars()
    cats = [c for c in categories.split(",")] if categories else None
    paths: dict = {}
    oracle: dict = {}

    def write_reports(_records: list) -> None:
        """The reports (GenEval's rules, the shapes oracle), written while the bench still holds ``out``: no gap."""
        if geneval:  # first, so that the bench report shows GenEval's table
            from autoalign.benchmarks import geneval_bench

            oracle["geneval"] = geneval_bench.analyse_locked(out, cfg, suite=the_suite, progress=not no_progress)
            paths["geneval"] = out / geneval_bench.REPORT_FILE
        paths.update(write_reports_of(out))
        if correct and the_suite.name in SHAPES_SUITES:  # the oracle reads every stage image and the ablations
            from autoalign.benchmarks import shapes_bench

            oracle["result"] = shapes_bench.analyse_locked(out, cfg, progress=not no_progress)
            paths["oracle"] = out / "oracle.md"

    records = bench_run(the_suite, cfg, out, limit=limit, categories=cats, seeds=seeds, correct=correct,
                        progress=not no_progress, then=write_reports)
    _print_summary(out, correct)
    if "geneval" in oracle:
        _print_geneval(oracle["geneval"])
    if "result" in oracle:
        _print_oracle(oracle["result"])
    Console().print(f"reports: {', '.join(str(p) for p in paths.values())}")
    failed = [r for r in records if not r.ok]
    if failed:
        Console(stderr=True).print(
            f"[red]{len(failed)} prompt(s) failed[/] (first: {failed[0].id}: {failed[0].error}); "
            "rerun the same command to retry them"
        )
        raise typer.Exit(1)


def _print_geneval(result: dict) -> None:
    from autoalign.benchmarks.geneval_bench import tables

    for title, header, rows in tables(result):
        table = Table(title=title)
        for col in header:
            table.add_column(col)
        for row in rows:
            table.add_row(*row)
        Console().print(table)


def _print_oracle(result: dict) -> None:
    from autoalign.benchmarks.shapes_bench import _cell

    table = Table(title=f"shapes world, read by the oracle (n={result['n']} prompts)")
    table.add_column("measure")
    table.add_column("value [95% CI] (n)", justify="right")
    for stage, m in result["full alignment"].items():
        table.add_row(f"full alignment: {stage}", _cell(m))
    for name, m in (result.get("gains") or {}).items():
        p = ((m.get("extra") or {}).get("wilcoxon") or {}).get("p")
        table.add_row(f"gain {name}", _cell(m) + ("" if p is None else f", p={p:.3g}"))
    for name, m in result["ablation: edits vs best-of-M at equal generator+editor calls"].items():
        table.add_row(name, _cell(m))
    Console().print(table)


def _print_summary(out: Path, correct: bool) -> None:
    import json

    from autoalign.benchmarks.metrics import Metric

    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    metrics = summary["metrics"]
    console = Console()
    if summary.get("note"):  # the preset's warning (autoalign.wording.scores_warning), said once
        from rich.text import Text

        console.print(Text("note: ", style="yellow") + Text(summary["note"]))
    table = Table(title=f"bench {'run' if correct else 'audit'}: {summary.get('suite')} · {metrics['n_ok']} ok, "
                        f"{metrics['n_errors']} errors")
    table.add_column("measure")
    for stage in metrics["stages"]:
        table.add_column(stage, justify="right")

    def cell(m: dict) -> str:
        metric = Metric.from_dict(m)
        if metric.value is None or metric.ci_low is None:
            return metric.fmt()
        return f"{metric.value:.3f} [{metric.ci_low:.3f}, {metric.ci_high:.3f}]"

    for key in ("vq2", "vnli", "clip"):
        table.add_row(f"mean {key}", *[cell(metrics["scores"][s][key]) for s in metrics["stages"]])
    table.add_row("share with >= 1 mismatch", *[cell(metrics["hallucination"][s]["any_mismatch"]) for s in metrics["stages"]])
    table.add_row(f"share vq2 < {summary.get('threshold')}",
                  *[cell(metrics["hallucination"][s]["vq2_below_threshold"]) for s in metrics["stages"]])
    console.print(table)
    for label, per in metrics["gains"].items():
        m = per["overall"]
        p = (m["extra"].get("wilcoxon") or {}).get("p")
        console.print(f"gain {label} (overall): {cell(m)} n={m['n']}, wilcoxon p={'n/a' if p is None else f'{p:.3g}'}")


def _common(correct: bool):
    @setting_options("limit", "seeds", run=("candidates", "max_rounds", *MODEL_FLAGS))
    def command(
        suite: str = typer.Option(..., "--suite", "-s", help=SUITE_HELP),
        preset: str = preset_option(),
        out: Path = typer.Option(..., "--out", "-o", help="Bench directory (results.jsonl, reports, images). Rerun to resume."),
        suite_file: Optional[Path] = typer.Option(None, "--suite-file", help=SUITE_FILE_HELP),
        categories: Optional[str] = typer.Option(None, "--categories", help="Comma-separated categories to keep."),
        config: Optional[Path] = config_option(),
        no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
        *,
        limit: Optional[int],
        seeds: int,
        overrides: dict[str, Any],
    ) -> None:
        _bench(correct=correct, suite=suite, preset=preset, out=out, suite_file=suite_file, limit=limit,
               categories=categories, seeds=seeds, config=config, no_progress=no_progress, overrides=overrides)

    return command


bench_app.command(
    "run", help="Baseline, best-of-N and corrected images per prompt of a suite, scored and checked; resumable. " + LIMIT_NOTE
)(_common(correct=True))
bench_app.command(
    "audit", help="No correction: the text-to-image model's hallucination profile on a suite; resumable. " + LIMIT_NOTE
)(_common(correct=False))


@bench_app.command("compare")
def compare(
    dir_a: Path = typer.Argument(..., help="Bench directory A (the reference)."),
    dir_b: Path = typer.Argument(..., help="Bench directory B."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Where compare.json/md go (default: DIR_B)."),
) -> None:
    """Paired differences B − A on the prompts both runs finished, with 95% CIs and paired tests."""
    from autoalign.benchmarks.report import compare_rows, write_compare
    from autoalign.errors import InputError

    for d in (dir_a, dir_b):
        if not (d / "results.jsonl").is_file():
            raise InputError(f"{d}: not a bench directory (no results.jsonl); pass the --out of a `bench run`/`audit`")
    result, paths = write_compare(dir_a, dir_b, out)
    table = Table(title=f"B − A on {result['n_shared']} shared prompts (only A {result['n_only_a']}, only B {result['n_only_b']})")
    for col in ("stage", "measure", "B − A mean [CI] (n)", "p wilcoxon / permutation"):
        table.add_column(col)
    for row in compare_rows(result):
        table.add_row(*row)
    Console().print(table)
    Console().print(f"written: {', '.join(str(p) for p in paths.values())}")


@bench_app.command("geneval")
def geneval(
    bench_dir: Path = typer.Argument(..., help="A bench directory of the geneval or shapes suite (holds results.jsonl)."),
    preset: Optional[str] = typer.Option(None, "--preset", "-p", help="Whose grounder (and CLIP) score; default: the run's preset."),
    config: Optional[Path] = config_option(),
    suite_file: Optional[Path] = typer.Option(None, "--suite-file", help="GenEval's evaluation_metadata.jsonl, when the "
                                              "run's own suite file has moved (geneval suite)."),
    results: Optional[Path] = typer.Option(None, "--results", help="Also write the figures as a results JSON "
                                           "(docs/results/NAME.json, the shape scripts/make_results.py renders)."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
) -> None:
    """GenEval's six task scores and overall (baseline, reranked, corrected) of a bench run, with the preset's grounder
    as the detector; on the shapes suite also its agreement with the oracle. Writes geneval.json / geneval.md there and
    refreshes the bench report."""
    import json

    from autoalign.benchmarks import geneval_bench
    from autoalign.benchmarks.report import write_reports
    from autoalign.config import load_config
    from autoalign.errors import InputError

    meta_file = bench_dir / "bench.json"
    if not (bench_dir / "results.jsonl").is_file() or not meta_file.is_file():
        raise InputError(f"{bench_dir}: not a bench directory (no results.jsonl / bench.json); pass the --out of a `bench run`")
    cfg = load_config(preset or json.loads(meta_file.read_text(encoding="utf-8")).get("preset") or "shapes", config)
    quiet_model_bars()
    suite = None
    if suite_file is not None:
        from autoalign.benchmarks.suites import load_suite

        suite = load_suite("geneval", suite_file)
    result = geneval_bench.analyse_locked(bench_dir, cfg, suite=suite, progress=not no_progress)
    paths = write_reports(bench_dir)
    if results is not None:
        from autoalign.files import atomic_write_json

        command = f"autoalign bench geneval {bench_dir}" + (f" --preset {preset}" if preset else "") + f" --results {results}"
        atomic_write_json(results, geneval_bench.results_doc(result, command))
        paths["results"] = results
    _print_geneval(result)
    Console().print(f"written: {bench_dir / geneval_bench.RESULT_FILE}, {bench_dir / geneval_bench.REPORT_FILE}, "
                    f"{', '.join(str(p) for p in paths.values())}")


@bench_app.command("report")
def report(bench_dir: Path = typer.Argument(..., help="A bench directory (holds results.jsonl).")) -> None:
    """Re-render summary.json, summary.md and report.html from results.jsonl."""
    from autoalign.benchmarks.report import write_reports
    from autoalign.errors import InputError

    if not (bench_dir / "results.jsonl").is_file():
        raise InputError(f"{bench_dir}: not a bench directory (no results.jsonl)")
    paths = write_reports(bench_dir)
    Console().print(f"written: {', '.join(str(p) for p in paths.values())}")
