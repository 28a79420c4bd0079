"""The loop policy: pure decisions on scores and mismatches, no models and no LangGraph.

* :func:`judge_edit` — keep an edited image only if it is a real improvement.
* :func:`mismatches_to_fix` — what the next edit should address; never empty while the score is
  below the threshold and the score card says which question failed.
* :func:`is_aligned` / :func:`should_stop` — when the loop ends, and why.
* :func:`best_so_far` — the highest-scoring of some candidates (a run returns the last image
  :func:`judge_edit` kept: ``autoalign.agents.nodes.final_candidate``).

Score cards, mismatches and candidates are the dataclasses of :mod:`autoalign.types` (the loop's
nodes read them out of the graph state, which holds their ``to_dict()`` form).
"""

from __future__ import annotations

import logging
from typing import Any, Collection, Literal, get_args

from autoalign.errors import InputError
from autoalign.types import Candidate, EditDecision, Mismatch, ScoreCard, StopReason

logger = logging.getLogger(__name__)

# Why judge_edit accepted or refused an edit (stable strings: they appear in traces and reports).
ACCEPTED = "accepted"
NO_GAIN = "no_gain"  # the score did not rise by at least min_gain (by more than 0 when min_gain == 0)
NOTHING_FIXED = "nothing_fixed"  # no mismatch of the image before the edit is gone
NEW_MISMATCH = "new_mismatch"  # the edit introduced a mismatch that was not there before
EditReason = Literal["accepted", "no_gain", "nothing_fixed", "new_mismatch"]
EDIT_REASONS: tuple[str, ...] = get_args(EditReason)

# Why the loop stopped (autoalign.types.StopReason; the router's branches carry the same names).
ALIGNED = "aligned"  # score >= threshold and no mismatch left
MAX_ROUNDS = "max_rounds"  # loop.max_rounds edit rounds done
NO_IMPROVEMENT = "no_improvement"  # loop.patience rounds in a row without an accepted edit

LOW_SCORE_SOURCE = "low_score"
# Floating-point slack for comparing score differences with min_gain (0.7 - 0.6 != 0.1 in floats).
_EPS = 1e-9


def judge_edit(
    before: ScoreCard,
    before_mm: list[Mismatch],
    after: ScoreCard,
    after_mm: list[Mismatch],
    min_gain: float,
    *,
    question_threshold: float = 0.5,
    grounded_aspects: Collection[str] = (),
    errors: tuple[int | None, int | None] = (None, None),
) -> EditDecision:
    """Accept an edit only if it raised the score, fixed something and broke nothing.

    Accepted when all hold:

    * ``after.overall - before.overall >= min_gain`` — and strictly ``> 0`` when ``min_gain`` is 0,
      so an edit that changes nothing is never accepted;
    * at least one mismatch of ``before_mm`` is gone (identity is :meth:`Mismatch.key`); when
      ``before_mm`` is empty there was nothing listed to fix and the score alone decides;
    * no mismatch in ``after_mm`` is new. A "low_score" mismatch (see :func:`low_score_mismatches`) is new
      only when its question scored at least ``question_threshold`` on ``before`` too: the fallback lists
      failing questions only once the detectors are silent, so a question that already failed was there
      before (and a stand-in for a passing question never counts).

    With ``grounded_aspects`` (the grounded pass decides, ``detection.pass_decides``), "low_score"
    mismatches of those aspects are left out on both sides: the boxes, not the VQA model, say whether a
    count or a place is right; and an edit that removes a detector's mismatch of those aspects needs no
    score gain (the first rule is waived; the others hold).

    With ``errors`` = (object errors of the grounded layout before, after; ``loop.accept = "fewer_errors"``,
    :func:`autoalign.detection.layout.layout_errors`), an edit that lowers that count is progress too: it needs
    no score gain and nothing of ``before_mm`` gone, and the layout detector's triplets it shows anew do not
    refuse it (the same objects, told another way: a colour triplet becomes a count and an extra thing once
    one of three is recoloured). Other detectors' new mismatches still refuse it.

    Checked in that order; ``reason`` names the first rule that failed. Pass the mismatches the loop
    worked on for both images (e.g. both through :func:`mismatches_to_fix`), so that "low_score"
    mismatches compare like for like.
    """
    if min_gain < 0:
        raise InputError(f"min_gain must be >= 0 (got {min_gain})")
    grounded = set(grounded_aspects)

    def counted(m: Mismatch) -> bool:
        return not (m.source == LOW_SCORE_SOURCE and m.aspect in grounded)

    bm, am = [m for m in before_mm if counted(m)], [m for m in after_mm if counted(m)]
    failed_before = {qs.question.id for qs in before.questions if qs.p_yes < question_threshold}
    gain = float(after.overall) - float(before.overall)
    before_keys = {m.key() for m in bm}
    after_keys = {m.key() for m in am}
    removed = [m.to_dict() for m in bm if m.key() not in after_keys]
    # A "low_score" stand-in for a question that passes (the weakest one, named only so the loop
    # has something to work on) is not a new failure.
    added = [m.to_dict() for m in am if m.key() not in before_keys and not _passing_stand_in(m)
             and not (m.source == LOW_SCORE_SOURCE and m.evidence.get("question_id") in failed_before)]

    raised = gain > _EPS if min_gain == 0 else gain >= min_gain - _EPS
    # the grounded pass decides: an edit that makes its boxes agree with one more thing the prompt says
    # (and breaks nothing) is progress whatever the score says
    # (``bm`` holds no low-score mismatch of those aspects, so each of them removed is a detector's)
    grounded_progress = any(m["aspect"] in grounded for m in removed)
    fewer = bool(grounded) and None not in errors and errors[1] < errors[0]
    if fewer:
        added = [m for m in added if m.get("source") != "layout"]
    if not raised and not grounded_progress and not fewer:
        reason = NO_GAIN
    elif added:
        reason = NEW_MISMATCH
    elif bm and not removed and not fewer:
        reason = NOTHING_FIXED
    else:
        reason = ACCEPTED
    decision = EditDecision(accepted=reason == ACCEPTED, reason=reason, gain=gain, removed=removed, added=added)
    logger.debug("edit %s (gain %+.4f, removed %d, added %d)", reason, gain, len(removed), len(added))
    return decision


def _passing_stand_in(m: Mismatch) -> bool:
    return m.source == LOW_SCORE_SOURCE and bool(m.evidence.get("passing"))


def by_confidence(mismatches: list[Mismatch]) -> list[Mismatch]:
    """Most confident first; ties keep the given order."""
    return sorted(mismatches, key=lambda m: -float(m.confidence))


def low_score_mismatches(card: ScoreCard, below: float, limit: int, prompt: str = "") -> list[Mismatch]:
    """Mismatches made from the card's lowest-scoring questions (P(yes) < ``below``; at least one).

    Each has ``source="low_score"``, the question's aspect, ``phrase`` = what the VQ2 detector would
    report for the question given the ``prompt`` (the attribute word, the relation words, the span;
    :func:`autoalign.detection.vq2_detector.locate`, whose hints join the evidence), else the
    question's span (its answer when it has no span), no correction, and ``confidence = 1 - P(yes)``.
    When no question is below ``below``, the weakest one is named with ``evidence["passing"] = True``;
    :func:`judge_edit` does not count such a stand-in as a new mismatch.
    """
    from autoalign.detection.vq2_detector import locate

    scored = sorted(card.questions, key=lambda qs: qs.p_yes)
    if not scored:
        return []
    failing = [qs for qs in scored if qs.p_yes < below]
    picked = failing or scored[:1]
    out: list[Mismatch] = []
    seen: set[tuple[str, str]] = set()
    for qs in picked:
        q, p_yes = qs.question, qs.p_yes
        aspect = q.aspect or "entity"
        span, answer = q.span, q.answer
        # "is the circle small?" (span "small yellow circle"): the attribute is "small", on the circle
        located, hints = locate(aspect, span, answer, prompt) if prompt else (None, {})
        phrase = located or span or answer or q.text
        m = Mismatch(
            aspect=aspect,
            phrase=phrase,
            correction="",
            confidence=1.0 - p_yes,
            source=LOW_SCORE_SOURCE,
            evidence={
                "question": q.text,
                "question_id": q.id,
                "answer": q.answer,
                "p_yes": p_yes,
                "span": span or phrase,  # the question's span, as the VQ2 detector gives it (the writer searches it)
                "passing": not failing,  # True: no question fails; this is only the weakest one
                **hints,
            },
        )
        if not phrase or m.key() in seen:
            continue
        seen.add(m.key())
        out.append(m)
        if len(out) >= limit:
            break
    return out


def mismatches_to_fix(mismatches: list[Mismatch], card: ScoreCard, config: Any, prompt: str = "") -> list[Mismatch]:
    """What the next edit should address, most confident first.

    The detectors' mismatches when there are any. When there are none but the score is below
    ``config.loop.threshold``, the card's lowest-scoring questions become mismatches (see
    :func:`low_score_mismatches`; below ``config.detection.threshold``, at most
    ``config.detection.max_mismatches``), so the loop never stalls silently. Empty only when the
    image is aligned, or when the card has no questions to point at (logged as a warning).
    """
    if mismatches:
        return by_confidence(list(mismatches))
    if card.overall >= threshold_for(config, prompt):
        return []
    low = low_score_mismatches(card, below=config.detection.threshold, limit=config.detection.max_mismatches, prompt=prompt)
    if not low:
        logger.warning(
            "score %.3f is below the threshold %.3f but no detector named a mismatch and the score card has "
            "no questions to point at; nothing to edit", card.overall, config.loop.threshold,
        )
    else:
        logger.info("no detector named a mismatch; editing the %d lowest-scoring question(s)", len(low))
    return by_confidence(low)


def threshold_for(config: Any, prompt: str) -> float:
    """The score an image of ``prompt`` must reach to pass: ``loop.threshold``; for a prompt that names a pair the
    preset's vocabulary marks unseen (:func:`autoalign.vocabulary.unseen_phrases`), ``loop.unseen_threshold`` when
    set, and none at all (minus infinity) with ``loop.unseen_gate = false``."""
    from autoalign.vocabulary import unseen_phrases

    loop = config.loop
    gate_off = not getattr(loop, "unseen_gate", True)
    unseen_threshold = getattr(loop, "unseen_threshold", None)
    if prompt and (gate_off or unseen_threshold is not None) and unseen_phrases(prompt, config):
        return float("-inf") if gate_off else float(unseen_threshold)
    return float(loop.threshold)


def is_aligned(card: ScoreCard, mismatches: list[Mismatch], threshold: float) -> bool:
    """Aligned: the score reaches ``threshold`` and no mismatch is left."""
    return float(card.overall) >= threshold and not mismatches


def should_stop(
    rounds_done: int,
    rounds_without_gain: int,
    card: ScoreCard,
    mismatches: list[Mismatch],
    loop_settings: Any,
    threshold: float | None = None,
) -> StopReason | None:
    """The :data:`StopReason` to stop for, or None to run another edit round.

    Checked in order: "aligned" (the score reaches ``threshold``, by default ``loop.threshold``; the loop passes
    :func:`threshold_for` its prompt), then "max_rounds" (``rounds_done >= loop.max_rounds``), then
    "no_improvement" (``rounds_without_gain >= loop.patience``). ``loop_settings`` is a
    :class:`~autoalign.config.LoopSettings` (a whole Config works too).
    """
    loop = getattr(loop_settings, "loop", loop_settings)
    if is_aligned(card, mismatches, loop.threshold if threshold is None else threshold):
        return ALIGNED
    if rounds_done >= loop.max_rounds:
        return MAX_ROUNDS
    if rounds_without_gain >= loop.patience:
        return NO_IMPROVEMENT
    return None


def best_so_far(candidates: list[Candidate]) -> Candidate:
    """The highest-scoring candidate; on a tie the earliest (fewest edits) wins.

    Pass every candidate of the run, first-round ones included: the returned image then never
    scores below the best first-round candidate, whatever the edits did.
    """
    if not candidates:
        raise InputError("candidates must not be empty: a run has at least one generated image")
    best = candidates[0]
    for c in candidates[1:]:
        if c.overall > best.overall:
            best = c
    return best


def region_aspects(config: Any) -> tuple[str, ...]:
    """The mismatch aspects the region editor answers: counts, missing / extra things and places, and
    attributes too when the preset's ``[region_editor] attributes = true``."""
    from autoalign.config import region_attributes
    from autoalign.editing.layout_plan import REGION_ASPECTS

    if getattr(config, "region_editor", None) is None:
        return ()
    return REGION_ASPECTS + (("attribute",) if region_attributes(config) else ())


def region_mismatches(mismatches: list[Mismatch], config: Any) -> list[Mismatch]:
    """The mismatches the loop sends to the region editor: those of :func:`region_aspects` that carry
    evidence boxes or ask for an addition (the rest go to the instruction editor), a colour that is
    half of a count (``evidence["surplus"]``: a surplus object of that noun is recoloured) and an object the
    grounder cannot read for sure (``evidence["unsure"]``: redrawn in its box)."""
    from autoalign.editing.layout_plan import fixed_in_place

    aspects = region_aspects(config)
    out = []
    for m in mismatches:
        ev = m.evidence or {}
        if (m.aspect in aspects or (fixed_in_place(m) and bool(aspects))) and (ev.get("boxes") or ev.get("action") == "add"):
            out.append(m)
    return out
