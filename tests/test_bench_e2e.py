"""The whole bench pipeline through the real agent, Scorer and detector.

* tiny preset (random weights: scores mean nothing) on 10-prompt slices of DrawBench and EditBench,
  with a crash injected mid-batch and a rerun that ends with the same results;
* scene-double preset (test doubles reading a known scene): correction lowers the hallucination rate,
  and the report says it demonstrates machinery, not a model.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

pytest.importorskip("autoalign.agents.runner", reason="the agent runner (autoalign.agents.runner) is not written yet")
pytest.importorskip("autoalign.scoring.scorer", reason="the Scorer (autoalign.scoring.scorer) is not written yet")

from autoalign.agents import runner as agent_runner  # noqa: E402
from autoalign.benchmarks.bench_runner import bench_run, read_results  # noqa: E402
from autoalign.benchmarks.report import write_reports  # noqa: E402
from autoalign.benchmarks.suites import Suite, SuiteItem, load_suite  # noqa: E402
from autoalign.config import load_config  # noqa: E402

# Small suites in the benchmarks' own formats, written by the tests (the full copies: shared_data tests).
DRAWBENCH_CSV = (
    "Prompts,Category\n"
    "A red colored car.,Colors\n"
    "Two cats and one dog.,Counting\n"
    "A blue cup on a table.,Colors\n"
    "Three apples.,Counting\n"
    "A cat under a chair.,Positional\n"
)
EDITBENCH_CSV = (
    "aos,attribute,object,scene,full_prompt\n"
    "a=few_o=cat_s=indoor,few,cat,indoor,a few cats sitting on a sofa.\n"
    "a=red_o=car_s=outdoor,red,car,outdoor,a red car in front of a garden.\n"
    "a=wooden_o=spoon_s=real,wooden,spoon,real,a wooden spoon on a table.\n"
    "a=round_o=table_s=indoor,round,table,indoor,a round table in a kitchen.\n"
)
VOLATILE = ("wall_time_s", "traceback")
# Keep it cheap: 2 candidates, 1 round, 1 instruction with 1 edit sample, the tiny editor at its own 64 px.
CHEAP = {"loop": {"candidates": 2, "max_rounds": 1, "edit_samples": 1, "max_instructions": 1},
         "editor": {"resolution": 64}}
CHEAP_TOML = """
[loop]
candidates = 2
max_rounds = 1
edit_samples = 1
max_instructions = 1
[editor]
resolution = 64
"""

pytestmark = pytest.mark.slow


def _stable(records):
    return [{k: v for k, v in r.to_dict().items() if k not in VOLATILE} for r in records]


def _srcs(html_text: str) -> list[str]:
    found = []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(v for k, v in attrs if k == "src" and v and not v.startswith("data:"))

    P().feed(html_text)
    return found


def test_tiny_drawbench_slice_resumes_after_an_injected_crash_with_identical_results(tmp_path, monkeypatch):
    suite_file = tmp_path / "DrawBench.csv"
    suite_file.write_text(DRAWBENCH_CSV, encoding="utf-8")
    _check_crash_and_resume(tmp_path, monkeypatch, load_suite("drawbench", suite_file), crash_at=3)


@pytest.mark.shared_data
def test_shared_drawbench_slice_resumes_after_an_injected_crash_with_identical_results(tmp_path, monkeypatch, shared_data):
    suite = load_suite("drawbench", shared_data / "drawbench" / "DrawBench.csv").select(limit=10)
    _check_crash_and_resume(tmp_path, monkeypatch, suite, crash_at=6)


def _check_crash_and_resume(tmp_path, monkeypatch, suite, crash_at: int) -> None:
    cfg = load_config("tiny", overrides=CHEAP)
    crash_prompt = suite.items[crash_at].prompt
    real_run = agent_runner.run

    def crashing_run(prompt, config, out_dir, **kw):
        if prompt == crash_prompt:
            raise KeyboardInterrupt("injected crash")  # like a kill: not caught by the batch
        return real_run(prompt, config, out_dir, **kw)

    out = tmp_path / "drawbench"
    monkeypatch.setattr(agent_runner, "run", crashing_run)
    with pytest.raises(KeyboardInterrupt):
        bench_run(suite, cfg, out, progress=False)
    assert len(read_results(out)) == crash_at  # the crash lost only the prompt in flight
    first = _stable(read_results(out))

    calls = []

    def counting_run(prompt, config, out_dir, **kw):
        calls.append(prompt)
        return real_run(prompt, config, out_dir, **kw)

    monkeypatch.setattr(agent_runner, "run", counting_run)
    records = bench_run(suite, cfg, out, progress=False)
    assert calls == [i.prompt for i in suite.items[crash_at:]]  # finished prompts were skipped
    assert [r.status for r in records] == ["ok"] * len(suite), [r.error for r in records]
    assert _stable(records[:crash_at]) == first

    # identical results: the crashed prompt, rerun in a fresh directory, gives the same record
    again = bench_run(Suite("drawbench", [suite.items[crash_at]]), cfg, tmp_path / "again", progress=False)
    assert _stable(again)[0] == {**_stable(records)[crash_at]}

    rec = records[0]
    assert set(rec.stages) == {"baseline", "reranked", "corrected"}
    for stage in rec.stages.values():
        assert 0.0 <= stage.vq2 <= 1.0 and (out / stage.image).is_file()
        assert isinstance(stage.mismatches, list)
    assert rec.rounds <= 1 and rec.stop_reason

    write_reports(out)
    html_text = (out / "report.html").read_text()
    assert "not the quality of any model" in html_text
    srcs = _srcs(html_text)
    assert srcs and all((out / s).is_file() for s in srcs)


def test_tiny_editbench_slice_through_the_cli_with_a_failing_prompt_retried_on_rerun(tmp_path, monkeypatch):
    suite_file = tmp_path / "editbench.csv"
    suite_file.write_text(EDITBENCH_CSV, encoding="utf-8")
    _check_cli_failure_and_retry(tmp_path, monkeypatch, suite_file, limit=4, failing_at=1)


@pytest.mark.shared_data
def test_shared_editbench_slice_through_the_cli_with_a_failing_prompt_retried_on_rerun(tmp_path, monkeypatch, shared_data):
    suite_file = shared_data / "editbench" / "editbench_full_prompts_from_seetrue.csv"
    _check_cli_failure_and_retry(tmp_path, monkeypatch, suite_file, limit=10, failing_at=3)


def _check_cli_failure_and_retry(tmp_path, monkeypatch, suite_file, *, limit: int, failing_at: int) -> None:
    from typer.testing import CliRunner

    import autoalign.commands.bench_suite  # noqa: F401
    from autoalign.benchmarks.suites import load_suite as load
    from autoalign.cli_apps import app

    selected = load("editbench", suite_file).select(limit=limit)
    failing = selected.items[failing_at].prompt
    real_run = agent_runner.run

    def failing_run(prompt, config, out_dir, **kw):
        if prompt == failing:
            raise RuntimeError("injected failure")
        return real_run(prompt, config, out_dir, **kw)

    runner = CliRunner()
    cheap = tmp_path / "cheap.toml"
    cheap.write_text(CHEAP_TOML, encoding="utf-8")
    common = ["--suite", "editbench", "--suite-file", str(suite_file), "--config", str(cheap),
              "--preset", "tiny", "--limit", str(limit), "--candidates", "2", "--no-progress"]
    run_args = ["bench", "run", *common, "--max-rounds", "1", "--out", str(tmp_path / "run")]
    monkeypatch.setattr(agent_runner, "run", failing_run)
    res = runner.invoke(app, run_args)
    assert res.exit_code == 1, res.output  # the batch went on, reported the failure, and says so
    first = read_results(tmp_path / "run")
    assert [r.status for r in first] == ["ok"] * failing_at + ["error"] + ["ok"] * (limit - failing_at - 1)
    monkeypatch.setattr(agent_runner, "run", real_run)
    res = runner.invoke(app, run_args)
    assert res.exit_code == 0, res.output
    lines = read_results(tmp_path / "run")
    assert len(lines) == limit + 1 and lines[-1].id == first[failing_at].id  # only the failed prompt ran again
    from autoalign.benchmarks.bench_runner import latest_results

    records = latest_results(tmp_path / "run")
    assert len(records) == limit and all(r.ok for r in records), [r.error for r in records]
    assert _stable(records[:failing_at]) == _stable(first[:failing_at])
    assert records[0].id.startswith("a=")
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["suite"] == "editbench" and summary["metrics"]["n_ok"] == limit
    assert "corrected-baseline" in summary["metrics"]["gains"]

    res = runner.invoke(app, ["bench", "audit", *common, "--limit", "2", "--out", str(tmp_path / "audit")])
    assert res.exit_code == 0, res.output
    audit = read_results(tmp_path / "audit")
    assert len(audit) == 2 and all("corrected" not in r.stages and r.rounds == 0 for r in audit)

    res = runner.invoke(app, ["bench", "compare", str(tmp_path / "audit"), str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    cmp = json.loads((tmp_path / "run" / "compare.json").read_text())
    assert cmp["n_shared"] == 2


def test_scene_double_correction_lowers_the_hallucination_rate(tmp_path):
    prompts = ["two red apples", "three blue cups", "one green ball", "four yellow stars",
               "two purple boxes", "three orange balls"]
    suite = Suite("scenes", [SuiteItem(f"s{i}", p, "scene") for i, p in enumerate(prompts)])
    cfg = load_config("scene-double", overrides={"loop": {"candidates": 2, "max_rounds": 2}})
    out = tmp_path / "scenes"
    records = bench_run(suite, cfg, out, progress=False)
    assert all(r.ok for r in records), [r.error for r in records]
    paths = write_reports(out)
    m = json.loads(paths["summary.json"].read_text())["metrics"]
    before = m["hallucination"]["baseline"]["any_mismatch"]["value"]
    after = m["hallucination"]["corrected"]["any_mismatch"]["value"]
    assert before > after, (before, after)
    assert m["gains"]["corrected-baseline"]["vq2"]["value"] > 0
    for name in ("summary.md", "report.html"):
        text = paths[name].read_text()
        assert "test doubles" in text and "not the quality of any model" in text
