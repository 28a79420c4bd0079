"""bench_run bookkeeping with named doubles: records, resume after a crash, failures recorded, audits."""

from __future__ import annotations

import json

import pytest
from bench_doubles import EvaluatorDouble, LoopRunnerDouble, made_up_score

from autoalign.benchmarks.bench_runner import bench_run, latest_results, outcome_from_result, read_results
from autoalign.benchmarks.suites import Suite, SuiteItem
from autoalign.config import load_config

VOLATILE = ("wall_time_s", "traceback")


def _suite(n=6):
    return Suite("hand", [SuiteItem(f"p{i}", f"prompt number {i}", "even" if i % 2 == 0 else "odd") for i in range(n)])


def _stable(records):
    return [{k: v for k, v in r.to_dict().items() if k not in VOLATILE} for r in records]


@pytest.fixture()
def cfg():
    return load_config("tiny")


def test_one_line_per_prompt_and_seed_with_three_scored_stages(tmp_path, cfg):
    records = bench_run(_suite(4), cfg, tmp_path, seeds=2, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(),
                        progress=False)
    assert len(records) == 8 and len(read_results(tmp_path)) == 8
    rec = records[0]
    assert rec.status == "ok" and rec.config_hash == cfg.hash() and rec.seed == cfg.loop.seed
    assert set(rec.stages) == {"baseline", "reranked", "corrected"}
    assert rec.stages["corrected"].vq2 == made_up_score(rec.prompt, rec.seed, "corrected")
    assert (tmp_path / rec.stages["baseline"].image).is_file()  # image paths relative to the bench dir
    assert rec.model_calls == {"generator": 1, "eval_double": 3}
    assert {r.seed for r in records} == {cfg.loop.seed, cfg.loop.seed + 1}
    meta = json.loads((tmp_path / "bench.json").read_text())
    assert meta["mode"] == "run" and meta["config_hash"] == cfg.hash() and meta["seeds"] == [0, 1]


def test_a_failing_prompt_is_recorded_and_the_batch_goes_on_then_a_rerun_retries_it(tmp_path, cfg):
    suite = _suite(5)
    runner = LoopRunnerDouble(fail_on={"prompt number 2"})
    records = bench_run(suite, cfg, tmp_path, loop_runner=runner, evaluator=EvaluatorDouble(), progress=False)
    statuses = [r.status for r in records]
    assert statuses == ["ok", "ok", "error", "ok", "ok"]
    assert "injected failure" in records[2].error
    runner2 = LoopRunnerDouble()
    again = bench_run(suite, cfg, tmp_path, loop_runner=runner2, evaluator=EvaluatorDouble(), progress=False)
    assert runner2.calls == 1  # only the failed prompt ran again
    assert [r.status for r in again] == ["ok"] * 5 and [r.id for r in again] == [f"p{i}" for i in range(5)]


def test_resume_after_a_crash_gives_the_same_results_as_an_uninterrupted_run(tmp_path, cfg):
    suite = _suite(6)
    clean = bench_run(suite, cfg, tmp_path / "clean", loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(),
                      progress=False)
    crashed_dir = tmp_path / "crashed"
    with pytest.raises(KeyboardInterrupt):
        bench_run(suite, cfg, crashed_dir, loop_runner=LoopRunnerDouble(crash_on={"prompt number 3"}),
                  evaluator=EvaluatorDouble(), progress=False)
    assert len(read_results(crashed_dir)) == 3  # the crash lost only the prompt in flight
    runner = LoopRunnerDouble()
    resumed = bench_run(suite, cfg, crashed_dir, loop_runner=runner, evaluator=EvaluatorDouble(), progress=False)
    assert runner.calls == 3

    def no_calls(rs):  # the evaluator double's counter is per instance; everything else must match
        return [{k: v for k, v in r.items() if k != "model_calls"} for r in _stable(rs)]

    assert no_calls(resumed) == no_calls(clean)


def test_a_torn_last_line_is_ignored_and_that_prompt_runs_again(tmp_path, cfg):
    suite = _suite(3)
    bench_run(suite, cfg, tmp_path, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(), progress=False)
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    (tmp_path / "results.jsonl").write_text("\n".join(lines[:2]) + "\n" + lines[2][:40])  # a kill mid-write
    runner = LoopRunnerDouble()
    out = bench_run(suite, cfg, tmp_path, loop_runner=runner, evaluator=EvaluatorDouble(), progress=False)
    assert runner.calls == 1 and len(out) == 3


def test_another_config_does_not_count_as_done(tmp_path, cfg):
    suite = _suite(2)
    bench_run(suite, cfg, tmp_path, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(), progress=False)
    other = load_config("tiny", overrides={"loop": {"threshold": 0.5}})
    runner = LoopRunnerDouble()
    out = bench_run(suite, other, tmp_path, loop_runner=runner, evaluator=EvaluatorDouble(), progress=False)
    assert runner.calls == 2 and {r.config_hash for r in out} == {other.hash()}
    assert len(latest_results(tmp_path)) == 4


def test_audit_runs_without_edit_rounds_and_records_no_corrected_stage(tmp_path, cfg):
    seen = []

    class Spy(LoopRunnerDouble):
        def run(self, prompt, config, run_dir, models):
            seen.append(config.loop.max_rounds)
            return super().run(prompt, config, run_dir, models)

    records = bench_run(_suite(3), cfg, tmp_path, correct=False, loop_runner=Spy(correct=False),
                        evaluator=EvaluatorDouble(), progress=False)
    assert seen == [0, 0, 0]
    assert all(set(r.stages) == {"baseline", "reranked"} and r.mode == "audit" for r in records)


def test_limit_and_categories_select_prompts(tmp_path, cfg):
    records = bench_run(_suite(6), cfg, tmp_path, limit=2, categories=["odd"], loop_runner=LoopRunnerDouble(),
                        evaluator=EvaluatorDouble(), progress=False)
    assert [r.id for r in records] == ["p1", "p3"]


def test_outcome_of_a_real_run_names_its_stage_images_and_counts(tmp_path):
    """The stages and counts come from what the runner writes (scene double: a TEST DOUBLE preset)."""
    from autoalign.agents.runner import run

    config = load_config("scene-double", overrides={"generator": {"flaw": "count"}, "loop": {"candidates": 2}})
    result = run("two red apples and a blue plate", config, tmp_path / "run")
    assert result.rounds >= 1 and result.edits_accepted >= 1  # the run edited: there is something to count
    out = outcome_from_result(result, correct=True)
    assert out.images == {"baseline": tmp_path / "run" / "candidates" / "cand_00.png",
                          "reranked": tmp_path / "run" / result.first_best.path,
                          "corrected": tmp_path / "run" / "final.png"}
    assert all(path.is_file() for path in out.images.values())
    assert (out.rounds, out.edits_accepted, out.edits_rejected, out.stop_reason) == (
        result.rounds, result.edits_accepted, result.edits_rejected, result.stop_reason)
    assert [i["text"] for i in out.instructions] == [i.text for i in result.instructions]
    assert out.model_calls == {k: int(v) for k, v in result.model_calls.items()} and out.model_calls["generator"] >= 1
    assert "corrected" not in outcome_from_result(result, correct=False).images
