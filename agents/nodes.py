"""The loop's nodes: thin steps that call the library and return a state update.

Each node takes ``(state, runtime)`` and reads its live dependencies from ``runtime.context``
(a :class:`~autoalign.agents.state.LoopContext`). All decisions live in
:mod:`autoalign.editing.policy`; the nodes only move data between the library and the state::

    generate -> score -> detect --route--> instruct -> edit -> detect --route--> ... -> END

* ``generate``: N candidates from the seed (``candidates/cand_XX.png``), or the uploaded image.
* ``score``: every candidate scored and reranked; the best becomes ``best`` and ``first_best``.
* ``detect``: the current best's mismatches (``policy.mismatches_to_fix``), then the stop decision
  (``policy.should_stop``) that :func:`route` reads. Skips the detector when the best image's
  mismatches are already known (the ``edit`` node detects on the image it accepts).
* ``instruct``: edit instructions from the writer, minus the ones already tried.
* ``edit``: K samples per instruction, scored; the best sample judged against the current best
  (``policy.judge_edit``); the first accepted edit ends the round, a rejection tries the next
  instruction (at most ``loop.max_instructions``).

Keep-best: ``best`` only changes when an edit is accepted, and ``judge_edit`` accepts only an
improvement: a score gain, or, with the grounded pass deciding (``detection.pass_decides``), a grounded
mismatch gone and none added. The final image is ``best``, never worse than ``first_best`` by those rules.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

from PIL import Image

from autoalign.agents.state import LoopContext, LoopState
from autoalign.detection import grounded_aspects
from autoalign.editing import policy
from autoalign.errors import AutoAlignError, InputError
from autoalign.scoring.rerank import keys_for, rank
from autoalign.types import STOP_REASONS, Attempt, Candidate, EditSample, Instruction, Mismatch, Round, ScoreCard

logger = logging.getLogger(__name__)

# The router's branches: a stop reason (autoalign.types.StopReason, same names) or another round.
Route = Literal["aligned", "max_rounds", "no_improvement", "next_round"]
NEXT_ROUND = "next_round"


class _Meter:
    """Counts model calls and the milliseconds spent in them, for one node's update."""

    def __init__(self, node: str):
        self.node = node
        self.calls: dict[str, float] = {}
        self.ms = 0.0
        self.by_call: dict[str, float] = {}

    @contextmanager
    def call(self, what: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            ms = (time.perf_counter() - start) * 1000.0
            self.ms += ms
            self.by_call[what] = self.by_call.get(what, 0.0) + ms
            self.calls[what] = self.calls.get(what, 0) + 1

    def count(self, what: str, n: float) -> None:
        """Add ``n`` to the ``what`` count (things a call made, such as images, rather than calls)."""
        self.calls[what] = self.calls.get(what, 0) + n

    def update(self) -> dict[str, Any]:
        """``model_calls`` per kind; ``timings``: model ms of the node, and per kind as ``node.kind``."""
        timings = {self.node: round(self.ms, 3), **{f"{self.node}.{k}": round(v, 3) for k, v in self.by_call.items()}}
        return {"model_calls": dict(self.calls), "timings": timings}


def _ctx(runtime: Any) -> LoopContext:
    return runtime.context


def _abs(ctx: LoopContext, rel: str) -> Path:
    return ctx.run_dir / rel


def _load(ctx: LoopContext, rel: str) -> Image.Image:
    with Image.open(_abs(ctx, rel)) as im:
        return im.convert("RGB")


def _save(ctx: LoopContext, image: Image.Image, rel: str) -> str:
    path = _abs(ctx, rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG")
    return rel


# --- the state, typed: LoopState holds the JSON form of each type (it is checkpointed); the nodes
# read it through these and write ``to_dict()`` back -----------------------------------------------


def _best(state: LoopState) -> Candidate:
    return Candidate.from_dict(state["best"])


def _candidates(state: LoopState) -> list[Candidate]:
    return [Candidate.from_dict(c) for c in state.get("candidates") or []]


def _state_mismatches(state: LoopState) -> list[Mismatch]:
    """The mismatches of the current best image."""
    return [Mismatch.from_dict(m) for m in state.get("mismatches") or []]


def _pending(state: LoopState) -> list[Instruction]:
    return [Instruction.from_dict(i) for i in state.get("pending") or []]


def _tried(state: LoopState) -> list[Instruction]:
    return [Instruction.from_dict(i) for i in state.get("instructions") or []]


def _observe(ctx: LoopContext, image: Image.Image, prompt: str, card: ScoreCard, meter: _Meter) -> list[Mismatch]:
    """The mismatches the loop works on for one image: detectors, with the low-score fallback."""
    with meter.call("detect"):
        found = ctx.detect(image, prompt, card, ctx.models, ctx.config)
    return policy.mismatches_to_fix(found, card, ctx.config, prompt)


# --- nodes ---------------------------------------------------------------------------------------


def generate(state: LoopState, runtime: Any) -> dict[str, Any]:
    """Round 0: generate ``loop.candidates`` images from the seed, or take the uploaded image."""
    ctx = _ctx(runtime)
    meter = _Meter("generate")
    seed = int(state.get("seed", ctx.config.loop.seed))
    if state.get("init_image"):
        try:
            with Image.open(state["init_image"]) as im:
                images = [im.convert("RGB")]
        except (OSError, ValueError) as exc:
            raise InputError(f"--image: cannot read {state['init_image']!r} as an image ({exc})") from exc
        origin = "upload"
    else:
        with meter.call("generator"):
            images = ctx.models.generator.generate(
                state["prompt"], ctx.config.loop.candidates, seed, negative_prompt=state.get("negative_prompt")
            )
        origin = "generate"
    candidates = [
        Candidate(path=_save(ctx, im, f"candidates/cand_{i:02d}.png"), seed=seed + i, score={}, origin=origin).to_dict()
        for i, im in enumerate(images)
    ]
    return {"candidates": candidates, "round": 0, "rounds_without_gain": 0, "stop_reason": None, **meter.update()}


def score(state: LoopState, runtime: Any) -> dict[str, Any]:
    """Score every candidate, rerank, and make the best one ``best`` and ``first_best``."""
    ctx = _ctx(runtime)
    meter = _Meter("score")
    candidates = _candidates(state)
    images = [_load(ctx, c.path) for c in candidates]
    with meter.call("scorer"):
        cards = ctx.scorer.score(images, state["prompt"])
    scored = [replace(c, score=card.to_dict()) for c, card in zip(candidates, cards)]
    order = rank(cards, keys_for(ctx.config))
    best = scored[order[0]]
    logger.info("round 0: best of %d candidates is %s (%.3f)", len(scored), best.path, best.overall)
    return {"candidates": [c.to_dict() for c in scored], "best": best.to_dict(), "first_best": best.to_dict(),
            **meter.update()}


def detect(state: LoopState, runtime: Any) -> dict[str, Any]:
    """Mismatches of the current best (reused when already known), then the stop decision."""
    ctx = _ctx(runtime)
    meter = _Meter("detect")
    best = _best(state)
    if state.get("mismatches_for") == best.path:
        mismatches = _state_mismatches(state)
    else:
        mismatches = _observe(ctx, _load(ctx, best.path), state["prompt"], best.card, meter)
    stop = policy.should_stop(
        int(state.get("round", 0)), int(state.get("rounds_without_gain", 0)), best.card, mismatches, ctx.config.loop,
        threshold=policy.threshold_for(ctx.config, state["prompt"]),
    )
    return {"mismatches": [m.to_dict() for m in mismatches], "mismatches_for": best.path, "stop_reason": stop,
            **meter.update()}


def instruct(state: LoopState, runtime: Any) -> dict[str, Any]:
    """Edit instructions for the current mismatches, skipping any already tried."""
    ctx = _ctx(runtime)
    meter = _Meter("instruct")
    tried = [i.text for i in _tried(state)]
    with meter.call("writer"):
        written = ctx.writer.write(state["prompt"], _state_mismatches(state), tried)
    seen = set(tried)
    pending: list[dict[str, Any]] = []
    for ins in written:
        if ins.text in seen:
            continue
        seen.add(ins.text)
        pending.append(ins.to_dict())
    return {"pending": pending[: ctx.config.loop.max_instructions], **meter.update()}


def edit_seed(seed: int, round_no: int, index: int) -> int:
    """The editor's seed for instruction ``index`` of edit round ``round_no`` (new every round)."""
    return seed + 1000 * round_no + index


def edit(state: LoopState, runtime: Any) -> dict[str, Any]:
    """One edit round: try the pending instructions until one edit is accepted."""
    ctx = _ctx(runtime)
    loop = ctx.config.loop
    meter = _Meter("edit")
    round_no = int(state.get("round", 0)) + 1
    seed = int(state.get("seed", loop.seed))
    best = _best(state)
    before_mm = _state_mismatches(state)
    image = _load(ctx, best.path)
    attempts: list[Attempt] = []
    new_best: Candidate | None = None
    tried: list[Instruction] = []
    region, new_best = _region_edit(ctx, state, best, before_mm, image, round_no, seed, meter)
    if region is not None:
        attempts.append(region)
    for j, ins in enumerate([] if new_best is not None else _pending(state)):
        tried.append(ins)
        with meter.call("editor"):
            samples = ctx.models.editor.edit(image, ins.text, loop.edit_samples, edit_seed(seed, round_no, j))
        paths = [_save(ctx, s, f"rounds/r{round_no:02d}/i{j}_s{k}.png") for k, s in enumerate(samples)]
        attempt, top = _judge(ctx, state, best, before_mm, samples, paths, meter, ins, edit_seed(seed, round_no, j), "edit")
        attempts.append(attempt)
        decision = attempt.decision
        logger.info("round %d: %r -> %s (gain %+.3f)", round_no, ins.text, decision.reason, decision.gain)
        if decision.accepted:
            new_best = Candidate(path=paths[top], seed=attempt.seed, score=attempt.score.to_dict(), origin="edit")
            break
    if new_best is None and loop.regenerate_on_stall and before_mm:
        attempt, new_best = _regenerate(ctx, state, best, before_mm, round_no, seed, meter)
        attempts.append(attempt)
    update: dict[str, Any] = {}
    if new_best is not None:  # the accepted attempt is the last one
        update = {"best": new_best.to_dict(), "mismatches": [m.to_dict() for m in attempts[-1].mismatches],
                  "mismatches_for": new_best.path}
    after = new_best or best
    record = Round(
        round=round_no,
        mismatches=before_mm,
        attempts=attempts,
        accepted=new_best is not None,
        best=after.path,
        best_overall=after.overall,
        note="" if attempts else "no new instruction to try",
    )
    return {
        **update,
        "round": round_no,
        "pending": [],
        "instructions": [i.to_dict() for i in tried],
        "rounds": [record.to_dict()],
        "rounds_without_gain": 0 if new_best is not None else int(state.get("rounds_without_gain", 0)) + 1,
        **meter.update(),
    }


def _region_edit(
    ctx: LoopContext,
    state: LoopState,
    best: Candidate,
    before_mm: list[Mismatch],
    image: Image.Image,
    round_no: int,
    seed: int,
    meter: _Meter,
) -> tuple[Attempt | None, Candidate | None]:
    """Layout edits inside boxes (issue 37), tried before the instructions when the preset has a region
    editor and the mismatches the policy routes to it carry boxes: the plan (``rounds/rNN/plan.json``),
    its mask (``mask.png``) and the samples are kept in the run directory, and judged like any edit."""
    from autoalign.editing.layout_plan import ops_for_mismatches
    from autoalign.files import atomic_save_image, atomic_write_json
    from autoalign.models.region_editor import plan_mask, plan_picture

    if ctx.config.region_editor is None:
        return None, None
    routed = policy.region_mismatches(before_mm, ctx.config)
    if not routed:
        return None, None
    planner = ctx.config.region_editor.options.get("planner", "triplets")
    if planner == "triplets":
        occupied = None
        if ctx.config.region_editor.options.get("clear_of", "evidence") == "objects":  # additions keep clear of them
            from autoalign.detection.layout import LayoutDetector

            with meter.call("grounder"):
                occupied = LayoutDetector(ctx.models, ctx.config).detected_objects(image, state["prompt"])
        plan = ops_for_mismatches(state["prompt"], routed, image.size, policy.region_aspects(ctx.config), occupied)
    else:  # the rules or the LLM (SLD's controller) plan from every object the grounder finds
        from autoalign.detection.layout import LayoutDetector
        from autoalign.editing.layout_plan import make_planner

        with meter.call("grounder"):
            detected = LayoutDetector(ctx.models, ctx.config).detected_objects(image, state["prompt"])
        try:
            chosen = make_planner(planner, ctx.models)
        except AutoAlignError as exc:  # e.g. no LLM model named: the rules plan, and the plan says why
            logger.warning("layout plan: the %s planner is not available (%s); the rules plan instead", planner, exc)
            chosen = make_planner("rules")
        with meter.call(f"planner:{chosen.name}"):
            plan = chosen.plan(state["prompt"], detected, image.size)
    if not plan.ops:
        return None, None
    folder = f"rounds/r{round_no:02d}"
    atomic_write_json(_abs(ctx, f"{folder}/plan.json"), plan.to_dict())
    region_editor = ctx.models.region_editor
    mask_of = getattr(region_editor, "mask", None)  # the editor's own margins; a bare box mask for other editors
    atomic_save_image(_abs(ctx, f"{folder}/mask.png"),
                      mask_of(plan.ops, image.size) if callable(mask_of) else plan_mask(plan.ops, image.size))
    atomic_save_image(_abs(ctx, f"{folder}/plan.png"), plan_picture(image, plan.ops))
    region_seed = edit_seed(seed, round_no, 900)
    drawn = getattr(region_editor, "images", 0)
    with meter.call("region_editor"):
        samples = region_editor.edit(image, plan.ops, ctx.config.loop.edit_samples, region_seed, prompt=state["prompt"])
    # the images its pipeline drew (drawings to paste included), for an honest best-of-M at equal images
    meter.count("region_editor_images", getattr(region_editor, "images", 0) - drawn)
    paths = [_save(ctx, s, f"{folder}/region_s{k}.png") for k, s in enumerate(samples)]
    text = "layout: " + "; ".join(f"{op.kind} {op.phrase}" for op in plan.ops)
    instruction = Instruction(text=text, writer=f"layout-plan:{plan.planner}", mismatches=[m.to_dict() for m in routed],
                              note=f"{folder}/plan.json")
    attempt, top = _judge(ctx, state, best, before_mm, samples, paths, meter, instruction, region_seed, "region")
    logger.info("round %d: %s -> %s (gain %+.3f)", round_no, text, attempt.decision.reason, attempt.decision.gain)
    if not attempt.decision.accepted:
        return attempt, None
    return attempt, Candidate(path=paths[top], seed=region_seed + top, score=attempt.score.to_dict(), origin="edit")


def _judge(
    ctx: LoopContext,
    state: LoopState,
    best: Candidate,
    before_mm: list[Mismatch],
    images: list[Any],
    paths: list[str],
    meter: _Meter,
    instruction: Instruction,
    seed: int,
    origin: str,
) -> tuple[Attempt, int]:
    """Score new images against the prompt, pick the top one, look for its mismatches and judge it
    against the best so far: ``(the attempt, index of the top image)``.

    The top image is the best by score, or with ``loop.pick_sample = "fewest_mismatches"`` the one the
    detectors find the fewest mismatches in (the score breaks ties; the low-score fallback is not a detector)."""
    with meter.call("scorer"):
        cards = ctx.scorer.score(images, state["prompt"])
    order = rank(cards, keys_for(ctx.config))
    if ctx.config.loop.pick_sample == "fewest_mismatches" and len(images) > 1:
        seen = {i: _observe(ctx, images[i], state["prompt"], cards[i], meter) for i in order}
        found = {i: sum(m.source != policy.LOW_SCORE_SOURCE for m in mm) for i, mm in seen.items()}
        top = min(order, key=lambda i: found[i])  # min keeps the first of equals: the best score among them
        after_mm = seen[top]
    else:
        top = order[0]
        after_mm = _observe(ctx, images[top], state["prompt"], cards[top], meter)
    card = cards[top]
    errors: tuple[int | None, int | None] = (None, None)
    if ctx.config.loop.accept == "fewer_errors" and grounded_aspects(ctx.config):
        from autoalign.detection.layout import LayoutDetector

        layout = LayoutDetector(ctx.models, ctx.config)
        with meter.call("detect"):
            errors = (layout.errors(_load(ctx, best.path), state["prompt"]), layout.errors(images[top], state["prompt"]))
    decision = policy.judge_edit(best.card, before_mm, card, after_mm, ctx.config.loop.min_gain,
                                 question_threshold=ctx.config.detection.threshold,
                                 grounded_aspects=grounded_aspects(ctx.config), errors=errors)
    attempt = Attempt(
        instruction=instruction,
        seed=seed,
        samples=[EditSample(path=p, overall=c.overall) for p, c in zip(paths, cards)],
        chosen=paths[top],
        score=card,
        mismatches=after_mm,
        decision=decision,
        origin=origin,
    )
    return attempt, top


def _regenerate(
    ctx: LoopContext,
    state: LoopState,
    best: Candidate,
    before_mm: list[Mismatch],
    round_no: int,
    seed: int,
    meter: _Meter,
) -> tuple[Attempt, Candidate | None]:
    """Every edit failed: draw new candidates from a prompt that names the mismatched phrases.

    The candidates are scored against the *original* prompt and judged like an edit, so a
    regeneration is kept only when it is a real improvement: ``(the attempt, the new best or None)``.
    """
    from autoalign import prompts

    loop = ctx.config.loop
    phrases = ", ".join(dict.fromkeys(m.phrase for m in before_mm))
    rewritten = prompts.load("regenerate_prompt.txt").format(prompt=state["prompt"].rstrip(". "), phrases=phrases).strip()
    regen_seed = edit_seed(seed, round_no, 500)
    with meter.call("generator"):
        images = ctx.models.generator.generate(rewritten, loop.candidates, regen_seed, state.get("negative_prompt"))
    paths = [_save(ctx, im, f"rounds/r{round_no:02d}/regen_{k}.png") for k, im in enumerate(images)]
    instruction = Instruction(text=f"regenerate: {rewritten}", writer="regenerate", mismatches=[m.to_dict() for m in before_mm])
    attempt, top = _judge(ctx, state, best, before_mm, images, paths, meter, instruction, regen_seed, "regenerate")
    decision = attempt.decision
    logger.info("round %d: regenerated from %r -> %s (gain %+.3f)", round_no, rewritten, decision.reason, decision.gain)
    if not decision.accepted:
        return attempt, None
    return attempt, Candidate(path=paths[top], seed=regen_seed + top, score=attempt.score.to_dict(), origin="regenerate")


def route(state: LoopState) -> Route:
    """Where to go after ``detect``: the stop decision it recorded, or another edit round."""
    stop = state.get("stop_reason")
    return stop if stop in STOP_REASONS else NEXT_ROUND  # type: ignore[return-value]


def final_candidate(state: LoopState) -> dict[str, Any]:
    """The run's answer: the image the judge kept last. ``best`` only changes when ``judge_edit`` accepts an
    edit, that is when the edit is an improvement by its rules (a higher score; with the grounded pass
    deciding, also one more grounded mismatch gone and none added), so the answer is never worse than the
    best first-round candidate by those rules. Without ``best`` (a run cut short) it is that candidate."""
    chosen = state.get("best") or state.get("first_best")
    if not chosen:
        raise InputError("the run has no candidate: a run has at least one generated image")
    return Candidate.from_dict(chosen).to_dict()
