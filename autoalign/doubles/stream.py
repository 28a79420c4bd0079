"""``StreamDouble``: a TEST DOUBLE of :func:`autoalign.agents.runner.stream` for the studio's tests.

It judges nothing and runs no model. It draws flat-colour PNGs with Pillow, gives them scores that
simply rise round by round, and yields the runner's own types: a
:class:`~autoalign.types.StreamUpdate` per step, named for the graph's nodes in the order the loop
visits them (``generate``, ``score``, ``detect``, then ``instruct``, ``edit``, ``detect`` per edit
round), carrying a typed :class:`~autoalign.types.StepUpdate`. At the end it writes ``final.png``,
``trace.jsonl`` and a ``summary.json`` built from :class:`~autoalign.types.RunResult`, like a real
run directory. Because it builds the same types, it cannot emit a node name or a field the runner
does not. Tests use it to check how the page presents a stream, how it stops, and how it reports
failures, without loading models.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image

from autoalign.types import (
    FINAL_IMAGE,
    SUMMARY_FILE,
    Attempt,
    Candidate,
    EditDecision,
    EditSample,
    Instruction,
    Mismatch,
    Round,
    RunResult,
    RunScores,
    ScoreCard,
    StepUpdate,
    StreamUpdate,
)


def _card(overall: float, vnli: float = 0.5, clip: float = 0.25) -> ScoreCard:
    return ScoreCard(overall=round(overall, 4), vq2=round(overall, 4), vnli=vnli, clip=clip)


class StreamDouble:
    """Callable like ``runner.stream(prompt, config, out_dir, *, init_image=None)``.

    ``fail_at``: raise ``fail_with`` when that step number (1-based) is reached (to test error reporting).
    ``step_delay``: seconds to sleep per step (to test Stop while a run is in flight).
    ``calls`` records each call's ``(prompt, init_image)``; ``configs`` each call's config.
    Each edit raises the score by 0.3; the run stops "aligned" once it reaches ``loop.threshold``,
    else after ``loop.max_rounds`` rounds.
    """

    def __init__(self, *, fail_at: int | None = None, fail_with: Exception | None = None, step_delay: float = 0.0):
        self.fail_at = fail_at
        self.fail_with = fail_with or RuntimeError("double: the model failed")
        self.step_delay = step_delay
        self.calls: list[tuple[str, str | None]] = []
        self.configs: list[Any] = []

    def __call__(self, prompt: str, config: Any, out_dir: str | Path, *, init_image: str | None = None,
                 **_: Any) -> Iterator[StreamUpdate]:
        self.calls.append((prompt, init_image))
        self.configs.append(config)
        return self._steps(prompt, config, Path(out_dir), init_image)

    @staticmethod
    def _image(out: Path, rel: str, colour: tuple[int, int, int]) -> str:
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (32, 32), colour).save(path)
        return rel

    def _steps(self, prompt: str, config: Any, out: Path, init_image: str | None) -> Iterator[StreamUpdate]:
        trace: list[dict[str, Any]] = []
        loop = config.loop

        def emit(node: str, round_no: int, update: StepUpdate) -> StreamUpdate:
            step = len(trace)
            if self.fail_at is not None and step + 1 >= self.fail_at:
                raise self.fail_with
            if self.step_delay:
                time.sleep(self.step_delay)
            typed = StreamUpdate(node=node, round=round_no, update=update, step=step)  # type: ignore[arg-type]
            trace.append({"step": step, "node": node, "round": round_no, "update": update.to_dict()})
            return typed

        if init_image:  # like the runner: the upload is the one round-0 candidate, saved into the run
            rel = "candidates/cand_00.png"
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            with Image.open(init_image) as im:
                im.convert("RGB").save(out / rel)
            drawn = [Candidate(path=rel, seed=int(loop.seed), score={}, origin="upload")]
        else:
            drawn = [
                Candidate(path=self._image(out, f"candidates/cand_{i:02d}.png", (40 * i % 255, 80, 120)),
                          seed=int(loop.seed) + i, score={}, origin="generate")
                for i in range(int(loop.candidates))
            ]
        yield emit("generate", 0, StepUpdate(candidates=drawn, round=0, rounds_without_gain=0))
        scored = [Candidate(path=c.path, seed=c.seed, origin=c.origin, score=_card(0.2 + 0.05 * i).to_dict())
                  for i, c in enumerate(drawn)]
        best = max(scored, key=lambda c: c.overall)
        first_best = best
        yield emit("score", 0, StepUpdate(candidates=scored, best=best, first_best=best))

        phrase = prompt.split()[-1]
        mismatch = Mismatch(aspect="attribute", phrase=phrase, correction=f"not {phrase}", confidence=0.9,
                            source="double")
        mismatches = [mismatch]
        records: list[Round] = []
        tried: list[Instruction] = []
        round_no = 0
        stop = "max_rounds" if loop.max_rounds == 0 else None  # the double always finds one mismatch at first
        yield emit("detect", 0, StepUpdate(mismatches=mismatches, mismatches_for=best.path, stop_reason=stop))
        while stop is None:
            instruction = Instruction(text=f"make it {phrase} (round {round_no + 1})", writer="double",
                                      mismatches=[mismatch.to_dict()])
            yield emit("instruct", round_no, StepUpdate(pending=[instruction]))
            round_no += 1
            score = min(1.0, best.overall + 0.3)
            edited = self._image(out, f"rounds/r{round_no:02d}/i0_s0.png", (200, 40 * round_no % 255, 60))
            card = _card(score, vnli=0.6, clip=0.3)
            aligned = score >= loop.threshold
            after = [] if aligned else [mismatch]
            decision = EditDecision(accepted=True, reason="accepted", gain=score - best.overall,
                                    removed=[mismatch.to_dict()] if aligned else [])
            attempt = Attempt(instruction=instruction, seed=int(loop.seed) + 1000 * round_no, chosen=edited,
                              samples=[EditSample(path=edited, overall=score)], score=card, mismatches=after,
                              decision=decision)
            best = Candidate(path=edited, seed=attempt.seed, score=card.to_dict(), origin="edit")
            record = Round(round=round_no, mismatches=mismatches, attempts=[attempt], accepted=True,
                           best=edited, best_overall=score)
            records.append(record)
            tried.append(instruction)
            mismatches = after
            yield emit("edit", round_no, StepUpdate(best=best, mismatches=after, mismatches_for=edited, round=round_no,
                                                    pending=[], instructions=[instruction], rounds=[record],
                                                    rounds_without_gain=0))
            stop = "aligned" if aligned else ("max_rounds" if round_no >= loop.max_rounds else None)
            yield emit("detect", round_no, StepUpdate(mismatches=after, mismatches_for=edited, stop_reason=stop))

        with Image.open(out / best.path) as im:
            im.convert("RGB").save(out / FINAL_IMAGE)
        (out / "trace.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trace), encoding="utf-8")
        baseline = scored[0]
        result = RunResult(
            prompt=prompt, preset=config.name, config_hash=config.hash(), seed=int(loop.seed), final=best,
            writer="double", rounds=round_no, max_rounds=int(loop.max_rounds), stop_reason=stop,
            scores=RunScores(baseline=baseline.overall, first_best=first_best.overall, final=best.overall),
            gain=best.overall - baseline.overall, gain_over_first_best=best.overall - first_best.overall,
            baseline=baseline, first_best=first_best, mismatches_before=list(records[0].mismatches if records else mismatches),
            mismatches_after=mismatches, instructions=tried, edits_accepted=len(records), round_records=records,
            graph_steps=len(trace), init_image=init_image,
        )
        (out / SUMMARY_FILE).write_text(json.dumps(result.to_dict(), indent=2), encoding="utf-8")
