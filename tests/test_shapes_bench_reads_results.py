"""The shapes benchmark reads a run through the typed RunResult (no summary keys by string)."""

import json
import shutil
from pathlib import Path

from autoalign.benchmarks import shapes_bench
from autoalign.types import RunResult

FIXTURE = Path(__file__).parent / "fixtures" / "summary-0.1.0-scene-double.json"


def _run_dir(tmp_path: Path, edit: dict | None = None) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    if edit is None:
        shutil.copy(FIXTURE, run / "summary.json")
    else:
        data = json.loads(FIXTURE.read_text(encoding="utf-8"))
        data.update(edit)
        (run / "summary.json").write_text(json.dumps(data), encoding="utf-8")
    return run


def test_round_images_follow_the_accepted_edits(tmp_path):
    run = _run_dir(tmp_path)
    result = RunResult.load(run)
    assert shapes_bench._round_images(result, run) == [run / "candidates/cand_00.png", run / "rounds/r01/i0_s0.png"]
    assert shapes_bench._judge_says_aligned(result) is True
    assert shapes_bench.summary_seed(run) == 0


def test_a_rejected_edit_keeps_the_previous_image_and_max_rounds_is_not_aligned(tmp_path):
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    rounds = data["round_records"]
    rounds[0]["attempts"][0]["decision"]["accepted"] = False
    run = _run_dir(tmp_path, {"round_records": rounds, "stop_reason": "max_rounds", "seed": 7,
                              "first_best": {**data["first_best"], "path": "candidates/cand_01.png"}})
    result = RunResult.load(run)
    assert shapes_bench._round_images(result, run) == [run / "candidates/cand_01.png"] * 2
    assert shapes_bench._judge_says_aligned(result) is False
    assert shapes_bench.summary_seed(run) == 7
