"""How the studio presents a streamed run: captions, highlights, instruction log, before/after, status."""

from __future__ import annotations

from autoalign.ui.run_view import RunView


def cand(path, overall, origin="generate", seed=0, **scores):
    return {"path": path, "seed": seed, "origin": origin, "score": {"overall": overall, **scores}}


MM_RED = {"aspect": "attribute", "phrase": "red", "correction": "blue", "confidence": 0.9}
MM_THREE = {"aspect": "number", "phrase": "three apples", "correction": "two apples"}


def test_gallery_captions_carry_each_candidates_scores_and_mark_the_best():
    view = RunView(prompt="a red car")
    view.apply("generate", {"candidates": [cand("a.png", 0.4, vq2=0.4, vnli=0.7), cand("b.png", 0.6, seed=1)]})
    view.apply("select", {"best": cand("b.png", 0.6, seed=1)})
    (pa, ca), (pb, cb) = view.gallery()
    assert (pa, pb) == ("a.png", "b.png")
    assert "overall 0.40" in ca and "VQ2 0.40" in ca and "VNLI 0.70" in ca and "★" not in ca
    assert cb.startswith("★ best") and "seed 1" in cb


def test_best_is_the_runners_choice_not_the_highest_score():
    view = RunView(prompt="a red car")
    view.apply("generate", {"candidates": [cand("a.png", 0.4), cand("b.png", 0.9)]})
    view.apply("select", {"best": cand("a.png", 0.4)})  # e.g. the runner ranks by another key
    view.apply("edit", {"rounds": [{"round": 1, "edits": [cand("e.png", 0.95, origin="edit")], "accepted": False}]})
    assert view.best_path == "a.png"


def test_appended_and_whole_list_updates_give_the_same_view():
    appended, whole = RunView(prompt="p"), RunView(prompt="p")
    appended.apply("generate", {"candidates": [cand("a.png", 0.1)]})
    appended.apply("generate", {"candidates": [cand("b.png", 0.2)]})
    whole.apply("generate", {"candidates": [cand("a.png", 0.1)]})
    whole.apply("generate", {"candidates": [cand("a.png", 0.1), cand("b.png", 0.2)]})
    assert appended.gallery() == whole.gallery()


def test_mismatched_phrases_are_highlighted_with_their_aspect():
    view = RunView(prompt="three apples on a red plate")
    view.apply("detect", {"mismatches": [MM_RED, MM_THREE]})
    assert view.highlighted_prompt() == [
        ("three apples", "number"),
        (" on a ", None),
        ("red", "attribute"),
        (" plate", None),
    ]


def test_highlight_is_case_insensitive_and_the_log_lists_phrases_it_cannot_place():
    view = RunView(prompt="A Red car")
    view.apply("detect", {"mismatches": [MM_RED, {"aspect": "entity", "phrase": "a dog"}]})
    assert view.highlighted_prompt() == [("A ", None), ("Red", "attribute"), (" car", None)]
    assert "entity: asked for a dog, image does not show it" in view.instruction_log()


def test_fixed_mismatches_stop_being_highlighted():
    view = RunView(prompt="a red car")
    view.apply("detect", {"mismatches": [MM_RED]})
    view.apply("detect", {"mismatches": []})
    assert view.highlighted_prompt() == [("a red car", None)]


def test_instruction_log_groups_instructions_by_the_edit_round_they_were_written_for():
    view = RunView(prompt="a red car", max_rounds=2)
    ins = {"text": "make the car red", "writer": "template", "mismatches": [MM_RED]}
    view.apply("write", {"pending": [ins]})
    view.apply("edit", {"instructions": [ins], "round": 1})  # the same instruction, now tried: one line
    view.apply("detect", {"mismatches": [MM_RED]})
    log = view.instruction_log()
    assert log.count("make the car red") == 1
    assert "**Edit round 1**" in log and "_(template)_" in log
    assert "fixes attribute: asked for red, image shows blue" in log  # in words, not an arrow
    assert "→" not in log
    assert "Still mismatched:** attribute: asked for red, image shows blue" in log


def test_round_records_add_edited_candidates_and_count_rounds():
    view = RunView(prompt="p", max_rounds=3)
    view.apply("edit", {"rounds": [{"round": 1, "edits": [cand("e1.png", 0.5, origin="edit")]}]})
    view.apply("edit", {"rounds": [{"round": 2, "best": cand("e2.png", 0.6, origin="edit")}]})
    assert view.round == 2
    assert view.latest_edit() == "e2.png"
    assert [c.removeprefix("★ best · ").split(" · ")[0] for _, c in view.gallery()] == ["#1 edit r1", "#2 edit r2"]


def test_before_after_compares_the_first_best_or_upload_with_the_current_best():
    view = RunView(prompt="p")
    view.apply("select", {"best": cand("a.png", 0.3), "first_best": cand("a.png", 0.3)})
    view.apply("edit", {"best": cand("e.png", 0.7, origin="edit"), "round": 1})
    assert view.before_after() == ("a.png", "e.png")
    uploaded = RunView(prompt="p", init_image="mine.png")
    uploaded.apply("edit", {"best": cand("e.png", 0.7, origin="edit")})
    assert uploaded.before_after() == ("mine.png", "e.png")


def test_status_line_shows_step_round_best_and_stop_reason():
    view = RunView(prompt="p", max_rounds=2)
    view.apply("edit", {"best": cand("e.png", 0.71), "round": 1, "mismatches": [MM_RED]})
    assert view.status() == "Running · step 1 · edit · round 1/2 · best 0.71 · 1 mismatch(es)"
    view.apply("finish", {"stop_reason": "max_rounds"})
    assert view.status(running=False) == "Done · 1 edit round(s) · best 0.71 · 1 mismatch(es) left · stopped: max_rounds"
    assert 0.0 < view.progress() <= 1.0


def test_finish_picks_up_final_png_and_summary(tmp_path):
    (tmp_path / "final.png").write_bytes(b"png")
    (tmp_path / "summary.json").write_text('{"stop_reason": "aligned", "rounds": 1}')
    view = RunView(prompt="p")
    view.finish(tmp_path)
    assert view.final_image == str(tmp_path / "final.png")
    assert view.stop_reason == "aligned" and view.round == 1
    assert view.table_row(str(tmp_path), "10:00:00")[4] == "aligned"


def test_runner_paths_relative_to_the_run_dir_are_shown_absolute(tmp_path):
    view = RunView(prompt="p", run_dir=str(tmp_path))
    view.apply("generate", {"candidates": [{"path": "candidates/cand_00.png", "seed": 0, "score": {}}]})
    view.apply("score", {"candidates": [cand("candidates/cand_00.png", 0.4)], "best": cand("candidates/cand_00.png", 0.4)})
    [(path, caption)] = view.gallery()  # scored in place, not listed twice
    assert path == str(tmp_path / "candidates" / "cand_00.png")
    assert caption.startswith("★ best") and "overall 0.40" in caption


def test_edit_attempts_show_every_sample_and_the_judges_verdict(tmp_path):
    view = RunView(prompt="a red car", run_dir=str(tmp_path))
    attempt = {
        "instruction": {"text": "make the car red", "writer": "template"},
        "seed": 1000,
        "samples": [{"path": "rounds/r01/i0_s0.png", "overall": 0.3}, {"path": "rounds/r01/i0_s1.png", "overall": 0.5}],
        "chosen": "rounds/r01/i0_s1.png",
        "score": {"overall": 0.5, "vq2": 0.5},
        "decision": {"accepted": False, "reason": "no_gain"},
    }
    view.apply("edit", {"round": 1, "rounds": [{"round": 1, "attempts": [attempt], "accepted": False, "best": "x.png"}]})
    captions = dict(view.gallery())
    assert captions[str(tmp_path / "rounds/r01/i0_s0.png")] == "#1 edit r1 · seed 1000 · overall 0.30"
    assert captions[str(tmp_path / "rounds/r01/i0_s1.png")].endswith("VQ2 0.50 · rejected: no_gain")
    assert view.latest_edit() == str(tmp_path / "rounds/r01/i0_s1.png")


def test_a_regeneration_attempt_is_captioned_as_one_and_counts_as_the_latest_change(tmp_path):
    view = RunView(prompt="a red car", run_dir=str(tmp_path))
    attempt = {
        "origin": "regenerate",
        "instruction": {"text": "regenerate: a red car. The image must clearly show: red car.", "writer": "regenerate"},
        "seed": 1500,
        "samples": [{"path": "rounds/r01/regen_0.png", "overall": 0.9}],
        "chosen": "rounds/r01/regen_0.png",
        "score": {"overall": 0.9},
        "decision": {"accepted": True, "reason": "gain"},
    }
    view.apply("edit", {"round": 1, "rounds": [{"round": 1, "attempts": [attempt], "accepted": True, "best": "x.png"}]})
    caption = dict(view.gallery())[str(tmp_path / "rounds/r01/regen_0.png")]
    assert "#1 regenerate r1 · seed 1500" in caption and caption.endswith("kept")
    assert view.latest_edit() == str(tmp_path / "rounds/r01/regen_0.png")
