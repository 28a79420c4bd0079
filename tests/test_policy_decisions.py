"""The loop policy: when an edit is kept, what gets fixed next, when the loop stops, what a run returns."""

from __future__ import annotations

import pytest

from autoalign.config import LoopSettings, load_config
from autoalign.editing import policy
from autoalign.editing.policy import (
    ACCEPTED,
    EDIT_REASONS,
    NEW_MISMATCH,
    NO_GAIN,
    NOTHING_FIXED,
    EditDecision,
    best_so_far,
    is_aligned,
    judge_edit,
    mismatches_to_fix,
    should_stop,
)
from autoalign.errors import InputError
from autoalign.types import STOP_REASONS, Candidate, Mismatch, Question, QuestionScore, ScoreCard

RED = Mismatch("attribute", "red", "blue", confidence=0.8)
DOG = Mismatch("entity", "a dog", "", confidence=0.6)
HAT = Mismatch("entity", "a hat", "a cap", confidence=0.5)


def card(overall: float, questions: list[QuestionScore] | None = None) -> ScoreCard:
    return ScoreCard(overall=overall, vq2=overall, questions=questions or [])


def q(id: str, aspect: str, span: str, p_yes: float) -> QuestionScore:
    return QuestionScore(Question(id, f"is there {span}?", span, aspect, span, []), p_yes)


# ---- judge_edit -------------------------------------------------------------------------------------
def test_edit_that_raises_score_and_fixes_a_mismatch_is_accepted():
    d = judge_edit(card(0.5), [RED, DOG], card(0.7), [DOG], min_gain=0.0)
    assert isinstance(d, EditDecision)
    assert (d.accepted, d.reason) == (True, ACCEPTED)
    assert d.gain == pytest.approx(0.2)
    assert d.removed == [RED.to_dict()] and d.added == []


def test_edit_without_score_gain_is_refused():
    d = judge_edit(card(0.5), [RED], card(0.5), [], min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NO_GAIN)


def test_edit_that_lowers_score_is_refused_even_if_it_fixes_something():
    d = judge_edit(card(0.6), [RED], card(0.4), [], min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NO_GAIN)
    assert d.gain == pytest.approx(-0.2)


def test_edit_that_fixes_nothing_is_refused():
    d = judge_edit(card(0.5), [RED], card(0.6), [RED], min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NOTHING_FIXED)


def test_edit_that_introduces_a_mismatch_is_refused():
    d = judge_edit(card(0.5), [RED], card(0.8), [HAT], min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NEW_MISMATCH)
    assert d.added == [HAT.to_dict()] and d.removed == [RED.to_dict()]


def test_judge_edit_gives_exactly_the_listed_reasons():
    """Every reason in EDIT_REASONS is reachable, and judge_edit gives no reason outside it."""
    cases = [
        (card(0.5), [RED], card(0.7), []),  # fixed and better
        (card(0.5), [RED], card(0.5), []),  # no gain
        (card(0.5), [RED], card(0.6), [RED]),  # nothing fixed
        (card(0.5), [RED], card(0.8), [HAT]),  # something new broken
        (card(0.5), [], card(0.6), []),  # nothing listed to fix: the score decides
        (card(0.9), [RED, DOG], card(0.1), [HAT]),  # worse on every count
    ]
    reasons = {judge_edit(b, bm, a, am, min_gain=0.0).reason for b, bm, a, am in cases}
    assert reasons == set(EDIT_REASONS)


def test_mismatch_identity_ignores_case_correction_and_confidence():
    after = Mismatch("attribute", " Red ", "green", confidence=0.1)
    d = judge_edit(card(0.5), [RED, DOG], card(0.6), [after], min_gain=0.0)
    assert d.reason == ACCEPTED and d.removed == [DOG.to_dict()]


def test_min_gain_boundary_is_inclusive():
    # 0.7 - 0.6 is 0.09999999999999998 in floats; a gain of exactly min_gain must still pass.
    assert judge_edit(card(0.6), [RED], card(0.7), [], min_gain=0.1).accepted
    d = judge_edit(card(0.6), [RED], card(0.69), [], min_gain=0.1)
    assert (d.accepted, d.reason) == (False, NO_GAIN)


def test_zero_min_gain_needs_a_strict_rise():
    assert not judge_edit(card(0.6), [RED], card(0.6), [], min_gain=0.0).accepted
    assert judge_edit(card(0.6), [RED], card(0.6001), [], min_gain=0.0).accepted


def test_negative_min_gain_is_refused():
    with pytest.raises(InputError, match="min_gain"):
        judge_edit(card(0.5), [RED], card(0.6), [], min_gain=-0.1)


def test_cards_read_back_from_the_graph_state_are_judged_like_the_originals():
    state = {"before": card(0.5).to_dict(), "mismatches": [RED.to_dict()], "after": card(0.7).to_dict()}
    d = judge_edit(ScoreCard.from_dict(state["before"]), [Mismatch.from_dict(m) for m in state["mismatches"]],
                   ScoreCard.from_dict(state["after"]), [], min_gain=0.0)
    assert d.reason == ACCEPTED
    assert d.to_dict()["removed"] == [RED.to_dict()]


def test_with_nothing_listed_to_fix_the_score_alone_decides():
    assert judge_edit(card(0.5), [], card(0.6), [], min_gain=0.0).reason == ACCEPTED


# ---- mismatches_to_fix ----------------------------------------------------------------------------
CFG = load_config("tiny", overrides={"loop": {"threshold": 0.8}, "detection": {"threshold": 0.5, "max_mismatches": 2}})


def test_detector_mismatches_come_most_confident_first():
    out = mismatches_to_fix([HAT, RED, DOG], card(0.3), CFG)
    assert [m.phrase for m in out] == ["red", "a dog", "a hat"]


def test_low_score_without_named_mismatch_edits_the_lowest_questions():
    qs = [q("q1", "entity", "a cat", 0.9), q("q2", "attribute", "red car", 0.1), q("q3", "number", "two cats", 0.3), q("q4", "relation", "cat on the sofa", 0.45)]
    out = mismatches_to_fix([], card(0.4, qs), CFG)
    assert [(m.aspect, m.phrase) for m in out] == [("attribute", "red car"), ("number", "two cats")]
    assert all(m.source == "low_score" and m.correction == "" for m in out)
    assert out[0].confidence == pytest.approx(0.9)
    assert out[0].evidence["question"] == "is there red car?"


def test_low_score_with_every_question_passing_still_names_the_weakest():
    qs = [q("q1", "entity", "a cat", 0.9), q("q2", "entity", "a sofa", 0.7)]
    out = mismatches_to_fix([], card(0.6, qs), CFG)
    assert [m.phrase for m in out] == ["a sofa"]


def test_aligned_image_has_nothing_to_fix():
    assert mismatches_to_fix([], card(0.9, [q("q1", "entity", "a cat", 0.2)]), CFG) == []


def test_low_score_without_questions_is_warned_about(caplog):
    with caplog.at_level("WARNING", logger="autoalign.editing.policy"):
        assert mismatches_to_fix([], card(0.2), CFG) == []
    assert "no questions" in caplog.text


def test_low_score_mismatches_feed_the_template_writer():
    from autoalign.editing.template_writer import TemplateWriter

    out = mismatches_to_fix([], card(0.2, [q("q1", "attribute", "red car", 0.1)]), CFG)
    assert [i.text for i in TemplateWriter(None, CFG).write("a red car", out, tried=[])] == ["make the car red"]


def test_a_low_score_attribute_question_edits_its_own_attribute_not_its_whole_span():
    # "is the circle small?" on "a small yellow circle": span "small yellow circle", answer "small"
    small = QuestionScore(Question("q3", "is the circle small?", "small", "attribute", "small yellow circle", ["q1"]), 0.1)
    from autoalign.editing.template_writer import TemplateWriter

    prompt = "a small yellow circle"
    out = mismatches_to_fix([], card(0.2, [small]), CFG, prompt)
    assert [(m.aspect, m.phrase, m.evidence["noun"], m.evidence["span"]) for m in out] == [("attribute", "small", "circle", "small yellow circle")]
    assert [i.text for i in TemplateWriter(None, CFG).write(prompt, out, tried=[])] == ["make the circle small"]
    # without the prompt the span stands in, as before
    assert [m.phrase for m in mismatches_to_fix([], card(0.2, [small]), CFG)] == ["small yellow circle"]


# ---- stopping ---------------------------------------------------------------------------------------
LOOP = LoopSettings(max_rounds=3, threshold=0.8, patience=2)


def test_aligned_needs_threshold_and_no_mismatch():
    assert is_aligned(card(0.8), [], 0.8)
    assert not is_aligned(card(0.79), [], 0.8)
    assert not is_aligned(card(0.95), [RED], 0.8)


def test_stop_when_aligned():
    assert should_stop(1, 0, card(0.9), [], LOOP) == policy.ALIGNED


def test_stop_after_max_rounds():
    assert should_stop(3, 0, card(0.5), [RED], LOOP) == policy.MAX_ROUNDS


def test_stop_after_patience_rounds_without_gain():
    assert should_stop(2, 2, card(0.5), [RED], LOOP) == policy.NO_IMPROVEMENT


def test_keep_going_otherwise():
    assert should_stop(1, 1, card(0.5), [RED], LOOP) is None
    assert should_stop(0, 0, card(0.5), [], LoopSettings(max_rounds=0, threshold=0.8)) == policy.MAX_ROUNDS


def test_every_stop_reason_is_reachable_and_a_whole_config_works():
    seen = {
        should_stop(1, 0, card(0.9), [], CFG),  # a whole Config is read through its .loop
        should_stop(3, 0, card(0.5), [RED], LOOP),
        should_stop(2, 2, card(0.5), [RED], LOOP),
    }
    assert seen == set(STOP_REASONS)


# ---- best so far ------------------------------------------------------------------------------------
def cand(path: str, overall: float, origin: str = "generate") -> Candidate:
    return Candidate(path=path, seed=0, score=card(overall).to_dict(), origin=origin)


def test_run_never_returns_worse_than_best_first_round_candidate():
    first_round = [cand("c0.png", 0.4), cand("c1.png", 0.6)]
    edits = [cand("r1.png", 0.55, "edit"), cand("r2.png", 0.5, "edit")]
    assert best_so_far(first_round + edits).path == "c1.png"


def test_better_edit_wins():
    assert best_so_far([cand("c0.png", 0.6), cand("r1.png", 0.7, "edit")]).path == "r1.png"


def test_tie_keeps_the_earlier_candidate():
    assert best_so_far([cand("c0.png", 0.6), cand("r1.png", 0.6, "edit")]).path == "c0.png"


def test_best_so_far_of_one_is_that_one_and_of_none_is_refused():
    assert best_so_far([cand("c0.png", 0.3)]).path == "c0.png"
    with pytest.raises(InputError, match="candidates"):
        best_so_far([])


def test_weakest_passing_question_after_an_edit_is_not_a_new_mismatch():
    before_qs = [q("q1", "entity", "a cat", 0.2), q("q2", "entity", "a sofa", 0.9)]
    after_qs = [q("q1", "entity", "a cat", 0.95), q("q2", "entity", "a sofa", 0.7)]
    before_mm = mismatches_to_fix([], card(0.55, before_qs), CFG)
    after_mm = mismatches_to_fix([], card(0.75, after_qs), CFG)  # still below 0.8, nothing fails
    assert [m.phrase for m in after_mm] == ["a sofa"] and after_mm[0].evidence["passing"]
    d = judge_edit(card(0.55, before_qs), before_mm, card(0.75, after_qs), after_mm, min_gain=0.0)
    assert (d.accepted, d.reason) == (True, ACCEPTED)


def test_question_that_starts_failing_after_an_edit_is_a_new_mismatch():
    before_qs = [q("q1", "entity", "a cat", 0.2), q("q2", "entity", "a sofa", 0.9)]
    after_qs = [q("q1", "entity", "a cat", 0.95), q("q2", "entity", "a sofa", 0.3)]
    before_mm = mismatches_to_fix([], card(0.55, before_qs), CFG)
    after_mm = mismatches_to_fix([], card(0.62, after_qs), CFG)
    d = judge_edit(card(0.55, before_qs), before_mm, card(0.62, after_qs), after_mm, min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NEW_MISMATCH)


def _layout_relation() -> Mismatch:
    return Mismatch("relation", "below", "above", 0.9, "layout", {"subject": "circle", "object": "triangle", "boxes": [
        {"xyxy": [38.0, 5.0, 48.0, 16.0], "score": 0.93, "label": "green circle", "mask": ""}]})


def test_a_question_that_already_failed_before_is_not_new_when_the_detectors_fall_silent():
    # the detectors named the misplaced circle; after the move they are silent and the fallback lists the
    # VQA model's failing questions, one of which ("small") failed on the image before as well
    before_qs = [q("q1", "entity", "a circle", 0.9), q("q2", "attribute", "small circle", 0.45)]
    after_qs = [q("q1", "entity", "a circle", 0.9), q("q2", "attribute", "small circle", 0.49)]
    after_mm = mismatches_to_fix([], card(0.6, after_qs), CFG)
    assert [m.source for m in after_mm] == ["low_score"] and not after_mm[0].evidence["passing"]
    d = judge_edit(card(0.5, before_qs), [_layout_relation()], card(0.6, after_qs), after_mm, min_gain=0.0)
    assert (d.accepted, d.reason) == (True, ACCEPTED) and d.added == []
    # the same question passing before and failing now is new
    before_passing = [q("q1", "entity", "a circle", 0.9), q("q2", "attribute", "small circle", 0.8)]
    d = judge_edit(card(0.5, before_passing), [_layout_relation()], card(0.6, after_qs), after_mm, min_gain=0.0)
    assert (d.accepted, d.reason) == (False, NEW_MISMATCH)


def test_when_the_grounded_pass_decides_a_vqa_relation_question_does_not_undo_a_grounded_move():
    before_qs = [q("q1", "relation", "circle below a triangle", 0.2)]
    after_qs = [q("q1", "relation", "circle below a triangle", 0.22)]  # the VQA model still says no
    after_mm = mismatches_to_fix([], card(0.6, after_qs), CFG)
    assert [(m.source, m.aspect) for m in after_mm] == [("low_score", "relation")]
    after_mm = [Mismatch("relation", "below", "", 0.78, "low_score", {**after_mm[0].evidence})]  # same key as layout's
    plain = judge_edit(card(0.5, before_qs), [_layout_relation()], card(0.6, after_qs), after_mm, min_gain=0.0)
    assert (plain.accepted, plain.reason) == (False, NOTHING_FIXED)
    grounded = judge_edit(card(0.5, before_qs), [_layout_relation()], card(0.6, after_qs), after_mm, min_gain=0.0,
                          grounded_aspects=("entity", "number", "relation"))
    assert (grounded.accepted, grounded.reason) == (True, ACCEPTED)
    assert [m["source"] for m in grounded.removed] == ["layout"]
    # a layout finding after the edit still counts: the boxes say the circle is not below
    still = judge_edit(card(0.5, before_qs), [_layout_relation()], card(0.6, after_qs), [_layout_relation()],
                       min_gain=0.0, grounded_aspects=("entity", "number", "relation"))
    assert (still.accepted, still.reason) == (False, NOTHING_FIXED)


def test_grounded_aspects_follow_the_preset():
    from autoalign.detection import grounded_aspects

    assert grounded_aspects(load_config("tiny")) == ()
    assert grounded_aspects(load_config("shapes")) == ("entity", "number", "relation")  # on in the preset
    off = load_config("shapes", overrides={"detection": {"pass_decides": False}})
    assert grounded_aspects(off) == ()
    no_pass = load_config("shapes", overrides={"detection": {"pass_decides": True, "grounded_pass": False}})
    assert grounded_aspects(no_pass) == ()


def test_when_the_grounded_pass_decides_a_grounded_fix_needs_no_score_gain():
    count = Mismatch("number", "two green circles", "three green circles", 0.9, "layout", {"boxes": []})
    colour = Mismatch("attribute", "green", "blue", 0.8, "clip-probe")
    grounded = ("entity", "number", "relation")
    # the boxes now count two circles; CLIP likes the new image a little less
    plain = judge_edit(card(2.1), [count], card(2.0), [], min_gain=0.0)
    assert (plain.accepted, plain.reason) == (False, NO_GAIN)
    fixed = judge_edit(card(2.1), [count], card(2.0), [], min_gain=0.0, grounded_aspects=grounded)
    assert (fixed.accepted, fixed.reason) == (True, ACCEPTED) and fixed.gain < 0
    # the waiver is for the pass's own aspects only, and breaking something still refuses the edit
    recoloured = judge_edit(card(2.1), [colour], card(2.0), [], min_gain=0.0, grounded_aspects=grounded)
    assert (recoloured.accepted, recoloured.reason) == (False, NO_GAIN)
    broke = judge_edit(card(2.1), [count], card(2.0), [colour], min_gain=0.0, grounded_aspects=grounded)
    assert (broke.accepted, broke.reason) == (False, NEW_MISMATCH)


# ---- the threshold of a prompt with a pair the preset's models never saw (loop.unseen_gate) -----------------------
UNSEEN = "a red triangle and two blue squares"  # red triangles are held out of the shapes world's training splits


def test_unseen_phrases_name_the_held_out_pairs_of_the_prompt():
    from autoalign.vocabulary import unseen_phrases

    shapes = load_config("shapes")
    assert unseen_phrases(UNSEEN, shapes) == ["a red triangle"]
    assert unseen_phrases("four green triangles and a blue circle", shapes) == ["four green triangles", "a blue circle"]
    assert unseen_phrases("two red circles and a blue square", shapes) == []
    assert unseen_phrases(UNSEEN, load_config("tiny")) == []  # no vocabulary: every pair counts as seen


def test_without_the_unseen_gate_the_detectors_alone_decide_an_unseen_prompt():
    shapes = load_config("shapes")
    shapes.loop.unseen_gate = False
    low = card(1.2, [q("q1", "entity", "a red triangle", 0.02)])  # the world's CLIP and VLM never saw a red triangle
    assert policy.threshold_for(shapes, UNSEEN) == float("-inf")
    assert policy.threshold_for(shapes, "two red circles") == shapes.loop.threshold
    assert mismatches_to_fix([], low, shapes, UNSEEN) == []  # nothing to fix: no low-score stand-ins
    assert should_stop(1, 0, low, [], shapes.loop, threshold=policy.threshold_for(shapes, UNSEEN)) == "aligned"
    assert should_stop(1, 0, low, [DOG], shapes.loop, threshold=float("-inf")) is None  # a detector's mismatch still stops it
    assert [m.source for m in mismatches_to_fix([], low, shapes, "two red circles")] == ["low_score"]
    shapes.loop.unseen_gate = True  # the default: a gate for every prompt, for an unseen one the preset's unseen_threshold
    assert shapes.loop.unseen_threshold == 1.8 and policy.threshold_for(shapes, UNSEEN) == 1.8  # as shapes ships (round 36)
    shapes.loop.unseen_threshold = None  # unset: one gate for every prompt
    assert policy.threshold_for(shapes, UNSEEN) == shapes.loop.threshold
    assert should_stop(1, 0, low, [], shapes.loop) is None


def test_an_unseen_threshold_lowers_the_gate_for_an_unseen_prompt_only():
    shapes = load_config("shapes", overrides={"loop": {"unseen_threshold": 1.5}})
    assert policy.threshold_for(shapes, UNSEEN) == 1.5
    assert policy.threshold_for(shapes, "two red circles") == shapes.loop.threshold
    between = card(1.6, [q("q1", "entity", "a red triangle", 0.02)])  # over the unseen threshold, under the gate
    assert mismatches_to_fix([], between, shapes, UNSEEN) == []
    assert should_stop(1, 0, between, [], shapes.loop, threshold=policy.threshold_for(shapes, UNSEEN)) == "aligned"
    assert [m.source for m in mismatches_to_fix([], between, shapes, "two red circles")] == ["low_score"]
    shapes.loop.unseen_gate = False  # no gate at all wins over a lower one
    assert policy.threshold_for(shapes, UNSEEN) == float("-inf")


def test_the_unseen_threshold_is_bounded_by_the_score_scale():
    from autoalign.config import ConfigError

    with pytest.raises(ConfigError, match="loop.unseen_threshold.*0, 2.5"):
        load_config("shapes", overrides={"loop": {"unseen_threshold": 3.0}})
    with pytest.raises(ConfigError, match="loop.unseen_threshold.*0, 1"):
        load_config("tiny", overrides={"loop": {"unseen_threshold": 1.5}})
    with pytest.raises(ConfigError, match="unseen_threshold"):
        load_config("shapes", overrides={"loop": {"unseen_threshold": "low"}})


def test_unseen_gate_must_be_true_or_false():
    from autoalign.config import ConfigError

    with pytest.raises(ConfigError, match="unseen_gate"):
        load_config("shapes", overrides={"loop": {"unseen_gate": "no"}})
