"""How the studio presents a streamed run: captions, highlights, instruction log, before/after, status."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from autoalign.types import RunResult, StepUpdate, StreamUpdate
from autoalign.ui.run_view import RunView

FIXTURES = Path(__file__).parent / "fixtures"


def cand(path, overall, origin="generate", seed=0, **scores):
    return {"path": path, "seed": seed, "origin": origin, "score": {"overall": overall, **scores}}


def step(node, round=0, **fields):
    """One streamed step, built as the runner builds it (the typed contract)."""
    return StreamUpdate(node=node, round=round, update=StepUpdate.from_dict(fields))


MM_RED = {"aspect": "attribute", "phrase": "red", "correction": "blue", "confidence": 0.9}
MM_THREE = {"aspect": "number", "phrase": "three apples", "correction": "two apples"}


def attempt(paths, chosen, overall, accepted, reason, origin="edit", seed=1000, text="make the car red"):
    return {
        "origin": origin,
        "instruction": {"text": text, "writer": "template"},
        "seed": seed,
        "samples": [{"path": p, "overall": o} for p, o in paths],
        "chosen": chosen,
        "score": {"overall": overall, "vq2": overall},
        "mismatches": [],
        "decision": {"accepted": accepted, "reason": reason, "gain": 0.1},
    }


def test_gallery_captions_carry_each_candidates_scores_and_mark_the_best():
    view = RunView(prompt="a red car")
    view.apply(step("score", candidates=[cand("a.png", 0.4, vq2=0.4, vnli=0.7), cand("b.png", 0.6, seed=1)],
                    best=cand("b.png", 0.6, seed=1)))
    (pa, ca), (pb, cb) = view.gallery()
    assert (pa, pb) == ("a.png", "b.png")
    assert "overall 0.40" in ca and "VQ2 0.40" in ca and "VNLI 0.70" in ca and "★" not in ca
    assert cb.startswith("★ best") and "seed 1" in cb


def test_best_is_the_runners_choice_not_the_highest_score():
    view = RunView(prompt="a red car")
    view.apply(step("score", candidates=[cand("a.png", 0.4), cand("b.png", 0.9)], best=cand("a.png", 0.4)))
    record = {"round": 1, "mismatches": [], "accepted": False, "best": "a.png", "best_overall": 0.4,
              "attempts": [attempt([("e.png", 0.95)], "e.png", 0.95, False, "new_mismatch")]}
    view.apply(step("edit", round=1, rounds=[record]))
    assert view.best_path == "a.png"


def test_a_scored_candidate_is_updated_in_place_not_listed_twice():
    view = RunView(prompt="p")
    view.apply(step("generate", candidates=[{"path": "a.png", "seed": 0, "score": {}}]))
    view.apply(step("score", candidates=[cand("a.png", 0.1)], best=cand("a.png", 0.1)))
    [(path, caption)] = view.gallery()
    assert path == "a.png" and "overall 0.10" in caption


def test_mismatched_phrases_are_highlighted_with_their_aspect():
    view = RunView(prompt="three apples on a red plate")
    view.apply(step("detect", mismatches=[MM_RED, MM_THREE]))
    assert view.highlighted_prompt() == [
        ("three apples", "number"),
        (" on a ", None),
        ("red", "attribute"),
        (" plate", None),
    ]


def test_highlight_is_case_insensitive_and_the_log_lists_phrases_it_cannot_place():
    view = RunView(prompt="A Red car")
    view.apply(step("detect", mismatches=[MM_RED, {"aspect": "entity", "phrase": "a dog"}]))
    assert view.highlighted_prompt() == [("A ", None), ("Red", "attribute"), (" car", None)]
    assert "entity: asked for a dog, image does not show it" in view.instruction_log()


def test_fixed_mismatches_stop_being_highlighted():
    view = RunView(prompt="a red car")
    view.apply(step("detect", mismatches=[MM_RED]))
    view.apply(step("detect", mismatches=[]))
    assert view.highlighted_prompt() == [("a red car", None)]


def test_instruction_log_groups_instructions_by_the_edit_round_they_were_written_for():
    view = RunView(prompt="a red car", max_rounds=2)
    ins = {"text": "make the car red", "writer": "template", "mismatches": [MM_RED]}
    view.apply(step("instruct", pending=[ins]))
    view.apply(step("edit", round=1, instructions=[ins]))
    view.apply(step("detect", round=1, mismatches=[MM_RED]))
    log = view.instruction_log()
    assert log.count("make the car red") == 1  # written, then tried: one line
    assert "**Edit round 1**" in log and "_(template)_" in log
    assert "fixes attribute: asked for red, image shows blue" in log  # in words, not an arrow
    assert "→" not in log
    assert "Still mismatched:** attribute: asked for red, image shows blue" in log


def test_round_records_add_edited_samples_and_count_rounds():
    view = RunView(prompt="p", max_rounds=3)
    r1 = {"round": 1, "mismatches": [], "accepted": False, "best": "a.png", "best_overall": 0.4,
          "attempts": [attempt([("e1.png", 0.5)], "e1.png", 0.5, False, "no_gain")]}
    r2 = {"round": 2, "mismatches": [], "accepted": True, "best": "e2.png", "best_overall": 0.6,
          "attempts": [attempt([("e2.png", 0.6)], "e2.png", 0.6, True, "accepted")]}
    view.apply(step("edit", round=1, rounds=[r1]))
    view.apply(step("edit", round=2, rounds=[r2], best=cand("e2.png", 0.6, origin="edit")))
    assert view.round == 2
    assert view.latest_edit() == "e2.png"
    assert [c.removeprefix("★ best · ").split(" · ")[0] for _, c in view.gallery()] == ["#1 edit r1", "#2 edit r2"]


def test_before_after_compares_the_first_best_or_upload_with_the_current_best():
    view = RunView(prompt="p")
    view.apply(step("score", best=cand("a.png", 0.3), first_best=cand("a.png", 0.3)))
    view.apply(step("edit", round=1, best=cand("e.png", 0.7, origin="edit")))
    assert view.before_after() == ("a.png", "e.png")
    uploaded = RunView(prompt="p", init_image="mine.png")
    uploaded.apply(step("edit", round=1, best=cand("e.png", 0.7, origin="edit")))
    assert uploaded.before_after() == ("mine.png", "e.png")


def test_status_line_shows_step_round_best_and_stop_reason():
    view = RunView(prompt="p", max_rounds=2)
    view.apply(step("edit", round=1, best=cand("e.png", 0.71), mismatches=[MM_RED]))
    assert view.status() == "Running · step 1 · edit · round 1/2 · best 0.71 · 1 mismatch(es)"
    view.apply(step("detect", round=1, stop_reason="max_rounds"))
    assert view.status(running=False) == "Done · 1 edit round(s) · best 0.71 · 1 mismatch(es) left · stopped: max_rounds"
    assert 0.0 < view.progress() <= 1.0


def test_a_step_the_runner_never_emits_cannot_be_built():
    with pytest.raises(ValueError, match="node must be one of"):
        StreamUpdate(node="finish", round=0)
    with pytest.raises(ValueError, match="stream contract does not know: final_image"):
        StepUpdate.from_dict({"final_image": "final.png"})
    with pytest.raises(ValueError, match="stop_reason must be one of"):
        StepUpdate(stop_reason="out_of_rounds")  # type: ignore[arg-type]


def test_finish_reads_the_runs_result_from_an_old_run_directory(tmp_path):
    """A summary.json written by autoalign 0.1.0 (the format before the typed contract) still reads."""
    shutil.copy(FIXTURES / "summary-0.1.0-scene-double.json", tmp_path / "summary.json")
    (tmp_path / "final.png").write_bytes(b"png")
    view = RunView(prompt="p")
    view.finish(tmp_path)
    old = json.loads((tmp_path / "summary.json").read_text())
    assert view.final_image == str(tmp_path / "final.png")
    assert view.stop_reason == old["stop_reason"] == "aligned" and view.round == old["rounds"] == 1
    assert view.table_row(str(tmp_path), "10:00:00")[4] == "aligned"
    result = RunResult.load(tmp_path)
    assert result.round_records[0].attempts[0].decision.accepted is True
    assert result.scores.final == old["scores"]["final"] and result.final.path == old["final"]["path"]


def test_runner_paths_relative_to_the_run_dir_are_shown_absolute(tmp_path):
    view = RunView(prompt="p", run_dir=str(tmp_path))
    view.apply(step("generate", candidates=[{"path": "candidates/cand_00.png", "seed": 0, "score": {}}]))
    view.apply(step("score", candidates=[cand("candidates/cand_00.png", 0.4)], best=cand("candidates/cand_00.png", 0.4)))
    [(path, caption)] = view.gallery()  # scored in place, not listed twice
    assert path == str(tmp_path / "candidates" / "cand_00.png")
    assert caption.startswith("★ best") and "overall 0.40" in caption


def test_edit_attempts_show_every_sample_and_the_judges_verdict(tmp_path):
    view = RunView(prompt="a red car", run_dir=str(tmp_path))
    a = attempt([("rounds/r01/i0_s0.png", 0.3), ("rounds/r01/i0_s1.png", 0.5)], "rounds/r01/i0_s1.png", 0.5,
                False, "no_gain")
    view.apply(step("edit", round=1, rounds=[{"round": 1, "mismatches": [], "attempts": [a], "accepted": False,
                                              "best": "x.png", "best_overall": 0.4}]))
    captions = dict(view.gallery())
    assert captions[str(tmp_path / "rounds/r01/i0_s0.png")] == "#1 edit r1 · seed 1000 · overall 0.30"
    assert captions[str(tmp_path / "rounds/r01/i0_s1.png")].endswith("VQ2 0.50 · rejected: no_gain")
    assert view.latest_edit() == str(tmp_path / "rounds/r01/i0_s1.png")


def test_a_regeneration_attempt_is_captioned_as_one_and_counts_as_the_latest_change(tmp_path):
    view = RunView(prompt="a red car", run_dir=str(tmp_path))
    a = attempt([("rounds/r01/regen_0.png", 0.9)], "rounds/r01/regen_0.png", 0.9, True, "accepted",
                origin="regenerate", seed=1500, text="regenerate: a red car. The image must clearly show: red car.")
    view.apply(step("edit", round=1, rounds=[{"round": 1, "mismatches": [], "attempts": [a], "accepted": True,
                                              "best": "x.png", "best_overall": 0.9}]))
    caption = dict(view.gallery())[str(tmp_path / "rounds/r01/regen_0.png")]
    assert "#1 regenerate r1 · seed 1500" in caption and caption.endswith("kept")
    assert view.latest_edit() == str(tmp_path / "rounds/r01/regen_0.png")


def test_a_region_edit_shows_its_plan_picture_first_and_counts_as_the_latest_edit(tmp_path):
    """A region edit (issue 37) keeps ``rounds/r01/plan.png``: the studio lists it before the samples,
    captioned as a plan (no score, not a pick), and the region sample the scorer chose is the latest edit."""
    (tmp_path / "rounds" / "r01").mkdir(parents=True)
    (tmp_path / "rounds" / "r01" / "plan.png").write_bytes(b"png")
    view = RunView(prompt="a blue square and two red squares", run_dir=str(tmp_path))
    view.apply(step("score", candidates=[cand("candidates/cand_00.png", 1.07)], best=cand("candidates/cand_00.png", 1.07)))
    region = attempt([("rounds/r01/region_s0.png", 2.3), ("rounds/r01/region_s1.png", 2.1)], "rounds/r01/region_s0.png",
                     2.3, True, "", origin="region", text="layout: recolor blue square")
    region["instruction"]["note"] = "rounds/r01/plan.json"
    record = {"round": 1, "mismatches": [], "accepted": True, "best": "rounds/r01/region_s0.png", "best_overall": 2.3,
              "attempts": [region]}
    view.apply(step("edit", round=1, rounds=[record]))
    paths = [Path(p).relative_to(tmp_path).as_posix() for p, _ in view.gallery()]
    assert paths == ["candidates/cand_00.png", "rounds/r01/plan.png", "rounds/r01/region_s0.png", "rounds/r01/region_s1.png"]
    plan_caption = view.gallery()[1][1]
    assert "layout plan r1" in plan_caption and "overall" not in plan_caption
    assert Path(view.latest_edit()).name == "region_s0.png"
