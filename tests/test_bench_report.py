"""Bench reports: summary.json records provenance, report.html parses and references only existing files."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from bench_doubles import EvaluatorDouble, LoopRunnerDouble
from typer.testing import CliRunner

from autoalign.benchmarks.bench_runner import bench_run
from autoalign.benchmarks.report import machinery_note, write_reports
from autoalign.benchmarks.suites import Suite, SuiteItem
from autoalign.config import load_config


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs, self.hrefs, self.tags = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attrs = dict(attrs)
        if "src" in attrs:
            self.srcs.append(attrs["src"])
        if "href" in attrs:
            self.hrefs.append(attrs["href"])


def _bench_dir(tmp_path, name="b", correct=True, fail=()):
    suite = Suite("hand", [SuiteItem(f"p{i}", f"{i} red apples on a plate", ["fruit", "plates"][i % 2]) for i in range(8)])
    out = tmp_path / name
    bench_run(suite, load_config("tiny"), out, correct=correct, loop_runner=LoopRunnerDouble(correct, fail_on=set(fail)),
              evaluator=EvaluatorDouble(), progress=False)
    return out


def test_reports_are_written_with_provenance_and_directions(tmp_path):
    out = _bench_dir(tmp_path, fail={"3 red apples on a plate"})
    paths = write_reports(out)
    assert set(paths) == {"summary.json", "summary.md", "report.html"} and all(p.is_file() for p in paths.values())
    summary = json.loads((out / "summary.json").read_text())
    assert summary["preset"] == "tiny" and summary["seeds"] == [0]
    assert summary["model_ids"]["generator"] == "tiny:sd"
    assert summary["versions"]["numpy"] and summary["versions"]["python"]
    assert summary["metric_directions"]["hallucination.any_mismatch.baseline"] is False
    assert summary["metric_directions"]["vq2.corrected"] is True
    m = summary["metrics"]
    assert m["n_ok"] == 7 and m["n_errors"] == 1
    corr = m["scores"]["corrected"]["vq2"]
    assert corr["n"] == 7 and corr["ci_low"] <= corr["value"] <= corr["ci_high"]
    md = (out / "summary.md").read_text()
    assert "| score | baseline | reranked | corrected |" in md and "injected failure" in md


def test_tiny_preset_reports_say_they_show_machinery_not_model_quality(tmp_path):
    out = _bench_dir(tmp_path)
    write_reports(out)
    for name in ("summary.md", "report.html"):
        assert "not the quality of any model" in (out / name).read_text()
    assert machinery_note(load_config("scene-double").to_dict()).count("test doubles") == 1
    assert machinery_note({"name": "real", "generator": {"backend": "diffusers", "model": "stabilityai/sd-turbo"}}) == ""


def test_report_html_parses_and_references_only_files_that_exist(tmp_path):
    out = _bench_dir(tmp_path)
    write_reports(out)
    text = (out / "report.html").read_text()
    parser = _Collector()
    parser.feed(text)
    parser.close()
    assert "table" in parser.tags
    charts = [s for s in parser.srcs if s.startswith("data:image/png;base64,")]
    assert len(charts) >= 2  # per-category bar charts embedded
    files = [s for s in parser.srcs if not s.startswith("data:")]
    assert len(files) == 16  # baseline and corrected thumbnail for each of the 8 prompts
    for src in files:
        assert not Path(src).is_absolute() and (out / src).is_file(), src
    assert all(h.startswith(("#", "data:")) or (out / h).exists() for h in parser.hrefs)
    assert "make it right" in text  # instructions under the images


def test_a_missing_image_is_shown_as_missing_not_linked(tmp_path):
    out = _bench_dir(tmp_path)
    for png in (out / "items").rglob("corrected.png"):
        png.unlink()
    write_reports(out)
    parser = _Collector()
    parser.feed((out / "report.html").read_text())
    files = [s for s in parser.srcs if not s.startswith("data:")]
    assert len(files) == 8 and all((out / s).is_file() for s in files)


def test_cli_report_and_compare(tmp_path):
    import autoalign.commands.bench_suite  # noqa: F401 - registers the commands
    from autoalign.cli_apps import app

    a = _bench_dir(tmp_path, "a", correct=False)
    b = _bench_dir(tmp_path, "b", correct=True)
    runner = CliRunner()
    res = runner.invoke(app, ["bench", "report", str(b)])
    assert res.exit_code == 0, res.output
    assert (b / "report.html").is_file()
    res = runner.invoke(app, ["bench", "compare", str(a), str(b), "--out", str(tmp_path / "cmp")])
    assert res.exit_code == 0, res.output
    data = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert data["n_shared"] == 8
    assert data["diffs"]["reranked"]["overall"]["value"] == pytest.approx(0.0)  # same doubles, same seeds
    assert "B − A" in (tmp_path / "cmp" / "compare.md").read_text()


def test_cli_compare_on_a_folder_that_is_not_a_bench_dir_is_a_one_line_error(tmp_path):
    from autoalign.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["bench", "compare", str(tmp_path), str(tmp_path)])
    assert exc.value.code == 2
