"""``StreamDouble``: a test double of :func:`autoalign.agents.runner.stream` for the studio's tests.

It judges nothing and runs no model. It draws flat-colour PNGs with Pillow, gives them scores that
simply rise round by round, and yields ``(node_name, update)`` pairs shaped like the runner's
(the keys of ``autoalign.agents.state.LoopState``: ``candidates``, ``best``, ``first_best``,
``mismatches``, ``pending``, ``instructions``, ``rounds`` records, ``round``, ``stop_reason``), then writes
``final.png``, ``trace.jsonl`` and ``summary.json`` like a real run directory. Tests use it to check
how the page presents a stream, how it stops, and how it reports failures, without loading models.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PIL import Image


class StreamDouble:
    """Callable like ``runner.stream(prompt, config, out_dir, *, init_image=None)``.

    ``fail_at``: raise ``fail_with`` when that step number is reached (to test error reporting).
    ``step_delay``: seconds to sleep per step (to test Stop while a run is in flight).
    ``calls`` records each call's ``(prompt, init_image)``.
    """

    def __init__(self, *, fail_at: int | None = None, fail_with: Exception | None = None, step_delay: float = 0.0):
        self.fail_at = fail_at
        self.fail_with = fail_with or RuntimeError("double: the model failed")
        self.step_delay = step_delay
        self.calls: list[tuple[str, str | None]] = []

    def __call__(self, prompt: str, config: Any, out_dir: str, *, init_image: str | None = None, **_: Any):
        self.calls.append((prompt, init_image))
        return self._steps(prompt, config, Path(out_dir), init_image)

    def _image(self, path: Path, colour: tuple[int, int, int]) -> str:
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (32, 32), colour).save(path)
        return str(path)

    def _steps(self, prompt: str, config: Any, out: Path, init_image: str | None) -> Iterator[tuple[str, dict]]:
        trace = []
        step = 0

        def emit(node: str, update: dict[str, Any]):
            nonlocal step
            step += 1
            if self.fail_at is not None and step >= self.fail_at:
                raise self.fail_with
            if self.step_delay:
                time.sleep(self.step_delay)
            trace.append({"step": step, "node": node, "update": update})
            return node, update

        n = int(config.loop.candidates)
        phrase = prompt.split()[-1]
        if init_image:
            cands = [{"path": init_image, "seed": 0, "origin": "upload",
                      "score": {"overall": 0.3, "vq2": 0.3, "vnli": 0.4, "clip": 0.2, "questions": []}}]
        else:
            cands = [
                {"path": self._image(out / "candidates" / f"cand_{i:02d}.png", (40 * i % 255, 80, 120)),
                 "seed": int(config.loop.seed) + i, "origin": "generate",
                 "score": {"overall": 0.2 + 0.05 * i, "vq2": 0.2 + 0.05 * i, "vnli": 0.5, "clip": 0.25,
                           "questions": []}}
                for i in range(n)
            ]
        yield emit("generate", {"candidates": cands, "round": 0})
        best = max(cands, key=lambda c: c["score"]["overall"])
        yield emit("select", {"best": best, "first_best": best})
        mismatch = {"aspect": "attribute", "phrase": phrase, "correction": f"not {phrase}", "confidence": 0.9,
                    "source": "double", "evidence": {}}
        yield emit("detect", {"mismatches": [mismatch], "mismatches_for": best["path"]})
        rounds_done = 0
        for r in range(1, int(config.loop.max_rounds) + 1):
            rounds_done = r
            instruction = {"text": f"make it {phrase} (round {r})", "writer": "double", "mismatches": [mismatch]}
            yield emit("write", {"pending": [instruction]})
            score = min(1.0, best["score"]["overall"] + 0.3)
            edit = {"path": self._image(out / "rounds" / f"r{r:02d}" / "edit_00.png", (200, 40 * r % 255, 60)),
                    "seed": r, "origin": "edit",
                    "score": {"overall": score, "vq2": score, "vnli": 0.6, "clip": 0.3, "questions": []}}
            best = edit
            record = {"round": r, "instruction": instruction, "edits": [edit], "accepted": True}
            yield emit("edit", {"instructions": [instruction], "rounds": [record], "round": r, "best": edit,
                                "pending": []})
            done = score >= float(config.loop.threshold)
            yield emit("detect", {"mismatches": [] if done else [mismatch], "mismatches_for": edit["path"]})
            if done:
                break
        stop_reason = "aligned" if best["score"]["overall"] >= float(config.loop.threshold) else "max_rounds"
        Image.open(best["path"]).convert("RGB").save(out / "final.png")
        yield emit("finish", {"stop_reason": stop_reason, "final_image": str(out / "final.png")})
        (out / "trace.jsonl").write_text("".join(json.dumps(t) + "\n" for t in trace), encoding="utf-8")
        (out / "summary.json").write_text(
            json.dumps({"prompt": prompt, "stop_reason": stop_reason, "rounds": rounds_done, "final_image": "final.png"}),
            encoding="utf-8",
        )
