"""TEST DOUBLES for the bench runner: a pretend loop and a pretend evaluator (used by the bench tests).

The bench doubles judge nothing. ``LoopRunnerDouble`` writes three flat-colour PNGs per prompt (baseline, reranked, corrected) whose
grey level encodes a made-up score derived from the prompt and seed; ``EvaluatorDouble`` reads the
grey level back. They exist to test the bench bookkeeping (resume, errors, records, reports).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from PIL import Image

from autoalign.benchmarks.bench_runner import RunOutcome


def made_up_score(prompt: str, seed: int, stage: str) -> float:
    h = int(hashlib.sha256(f"{prompt}|{seed}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    base = round(0.2 + 0.5 * h, 2)
    return {"baseline": base, "reranked": round(base + 0.05, 2), "corrected": round(min(1.0, base + 0.2), 2)}[stage]


class LoopRunnerDouble:
    """Writes the stage images of a pretend loop run; ``fail_on``/``crash_on`` inject failures."""

    def __init__(self, correct: bool = True, fail_on: set[str] | None = None, crash_on: set[str] | None = None):
        self.correct = correct
        self.fail_on = set(fail_on or ())
        self.crash_on = set(crash_on or ())
        self.calls = 0

    def run(self, prompt, config, run_dir: Path, models) -> RunOutcome:
        self.calls += 1
        if prompt in self.crash_on:
            raise KeyboardInterrupt(f"injected crash on {prompt!r}")
        if prompt in self.fail_on:
            raise RuntimeError(f"injected failure on {prompt!r}")
        run_dir.mkdir(parents=True, exist_ok=True)
        stages = ("baseline", "reranked", "corrected") if self.correct else ("baseline", "reranked")
        images = {}
        for stage in stages:
            level = int(round(made_up_score(prompt, config.loop.seed, stage) * 255))
            path = run_dir / f"{stage}.png"
            Image.new("RGB", (16, 16), (level, level, level)).save(path)
            images[stage] = path
        return RunOutcome(images=images, rounds=1 if self.correct else 0, edits_accepted=int(self.correct),
                          edits_rejected=0, stop_reason="aligned" if self.correct else "max_rounds",
                          instructions=[{"text": "make it right", "writer": "template"}] if self.correct else [],
                          model_calls={"generator": 1})


class EvaluatorDouble:
    """Reads the made-up score back from the image's grey level; a mismatch when it is below 0.5."""

    def __init__(self):
        self.n = 0

    def evaluate(self, prompt, images):
        out = {}
        for stage, path in images.items():
            self.n += 1
            with Image.open(path) as im:
                score = round(im.getpixel((0, 0))[0] / 255, 2)
            mms = [{"aspect": "number", "phrase": prompt.split()[0], "correction": "", "confidence": 1.0,
                    "source": "double", "evidence": {}}] if score < 0.5 else []
            out[stage] = {"overall": score, "vq2": score, "vnli": score, "clip": 0.25, "mismatches": mms}
        return out

    def calls(self):
        return {"eval_double": self.n}
