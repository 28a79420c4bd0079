"""`autoalign batch` writes the same reports as `bench run`; a rerun only evaluates new items.

Tiny preset (random weights: the scores mean nothing; the tests check the bookkeeping), one
candidate per prompt, at most one edit round.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autoalign.agents.batch import run_batch
from autoalign.benchmarks import bench_runner
from autoalign.benchmarks.batch_report import write_batch_reports
from autoalign.benchmarks.bench_runner import read_results
from autoalign.config import load_config
from autoalign.errors import InputError

PROMPTS = ["two red apples on a table", "a blue cube next to a cup", "three green balls"]
NO_ROUNDS = {"loop": {"candidates": 1, "max_rounds": 0}}


def _prompts(tmp_path: Path, lines: list[str] = PROMPTS) -> Path:
    f = tmp_path / "prompts.txt"
    f.write_text("".join(p + "\n" for p in lines), encoding="utf-8")
    return f


class _ImageSources(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.append(dict(attrs).get("src", ""))


def _local_image_sources(html_text: str) -> list[str]:
    parser = _ImageSources()
    parser.feed(html_text)
    parser.close()
    return [s for s in parser.srcs if not s.startswith("data:")]


@pytest.fixture
def evaluations(monkeypatch):
    """Counts the prompts the real ScorerEvaluator evaluates (it still does the work)."""
    seen: list[str] = []
    real = bench_runner.ScorerEvaluator.evaluate

    def counting(self, prompt, images):
        seen.append(prompt)
        return real(self, prompt, images)

    monkeypatch.setattr(bench_runner.ScorerEvaluator, "evaluate", counting)
    return seen


def test_batch_command_writes_the_bench_reports_and_a_rerun_evaluates_nothing_again(tmp_path, evaluations):
    from typer.testing import CliRunner

    import autoalign.commands.batch  # noqa: F401 - registers `batch` on the app
    from autoalign.cli_apps import app

    prompts = _prompts(tmp_path)
    out = tmp_path / "batch"
    args = ["batch", str(prompts), "--out", str(out), "--preset", "tiny", "--candidates", "1",
            "--max-rounds", "1", "--no-progress"]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert sorted(evaluations) == sorted(PROMPTS)

    for name in ("summary.json", "summary.md", "report.html", "results.jsonl", "bench.json"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["suite"], summary["mode"], summary["preset"]) == ("prompts.txt", "batch", "tiny")
    assert summary["metrics"]["n_prompts"] == 3 and summary["metrics"]["n_errors"] == 0
    assert summary["metrics"]["stages"] == ["baseline", "reranked", "corrected"]
    assert "tiny random-weight models" in summary["note"]
    assert "prompts: 3, records ok: 3, errors: 0" in (out / "summary.md").read_text()

    html_text = (out / "report.html").read_text()
    srcs = _local_image_sources(html_text)
    assert len(srcs) == 2 * 3  # baseline and corrected thumbnail per prompt
    assert all((out / s).is_file() for s in srcs), srcs
    records = read_results(out)
    assert len(records) == 3 and {r.category for r in records} == {"all"}

    evaluations.clear()
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    assert evaluations == []  # finished items are neither rerun nor re-evaluated
    assert len(read_results(out)) == 3
    assert json.loads((out / "summary.json").read_text())["metrics"]["n_prompts"] == 3


def test_the_report_evaluates_only_items_finished_since_the_last_report(tmp_path, evaluations):
    prompts = _prompts(tmp_path)
    out = tmp_path / "batch"
    cfg = load_config("tiny", overrides=NO_ROUNDS)
    run_batch(prompts, out, cfg, limit=2, progress=False)
    write_batch_reports(out, cfg, prompts_file=prompts, progress=False)
    assert len(evaluations) == 2
    first = {r.id: r for r in read_results(out)}

    run_batch(prompts, out, cfg, progress=False)  # the third item now runs
    paths = write_batch_reports(out, cfg, prompts_file=prompts, progress=False)
    assert evaluations[2:] == [PROMPTS[2]]
    later = {r.id: r for r in read_results(out)}
    assert len(later) == 3 and all(later[i] == first[i] for i in first)  # earlier records untouched
    summary = json.loads(paths["summary.json"].read_text())
    assert summary["metrics"]["n_prompts"] == 3
    # No edit rounds: the report shows baseline and best-of-N only, like `bench audit`.
    assert summary["metrics"]["stages"] == ["baseline", "reranked"]


def test_failed_items_are_counted_as_errors_and_categories_come_from_the_prompt_file(tmp_path, monkeypatch, evaluations):
    import autoalign.agents.batch as batch_mod

    prompts = tmp_path / "prompts.jsonl"
    rows = [{"prompt": PROMPTS[0], "category": "counting"}, {"prompt": PROMPTS[1], "category": "spatial"},
            {"prompt": PROMPTS[2], "category": "counting"}]
    prompts.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    real = batch_mod.process_item

    def flaky(row, config, out_dir, models=None):
        if row["prompt"] == PROMPTS[1]:
            raise RuntimeError("CUDA out of memory (injected by the test)")
        return real(row, config, out_dir, models)

    monkeypatch.setattr(batch_mod, "process_item", flaky)
    out = tmp_path / "batch"
    cfg = load_config("tiny", overrides=NO_ROUNDS)
    report = run_batch(prompts, out, cfg, retries=0, progress=False)
    assert (report.succeeded, report.failed) == (2, 1)
    paths = write_batch_reports(out, cfg, prompts_file=prompts, progress=False)

    metrics = json.loads(paths["summary.json"].read_text())["metrics"]
    assert (metrics["n_prompts"], metrics["n_ok"], metrics["n_errors"]) == (2, 2, 1)
    assert "out of memory" in metrics["errors"][0]["error"]
    assert list(metrics["per_category"]) == ["counting"]  # the ok records' categories
    assert "out of memory" in paths["summary.md"].read_text()
    assert "out of memory" in paths["report.html"].read_text()

    lines_before = len(read_results(out))
    write_batch_reports(out, cfg, prompts_file=prompts, progress=False)
    assert len(read_results(out)) == lines_before  # the same failure is not recorded twice
    assert len(evaluations) == 2


def test_a_directory_that_is_not_a_batch_is_refused_with_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="not a batch directory"):
        write_batch_reports(tmp_path, load_config("tiny"), progress=False)
