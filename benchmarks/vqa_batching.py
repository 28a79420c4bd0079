"""Speed of batched VQA scoring versus one call per (image, question) pair, on the tiny LLaVA.

Run: ``python -m autoalign.benchmarks.vqa_batching [--questions 1 8 32] [--images 4] [--repeats 3]``

For Q questions on each of 4 images it times:

* **batched**: one ``yes_prob`` call with all 4*Q pairs (batches of ``batch_size``, each image
  encoded once and its embeddings reused for all its questions);
* **batched, no reuse**: the same call with ``reuse_images = false`` (batching alone);
* **one by one**: 4*Q calls of ``yes_prob([image], [question])``.

and prints a table of seconds (best of ``--repeats``) and the speed-up of batching. The model is the
TINY RANDOM-WEIGHT LLaVA built in code (:mod:`autoalign.models.tiny_vlm`) on the CPU: the figures
say how much the batching machinery saves, not how fast a real 7B VLM runs on a GPU.
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

QUESTION_BANK = (
    'is "red" true for "what color is the car?" in this image?',
    'is "two" true for "how many dogs are there?" in this image?',
    'is "on the table" true for "where is the cup?" in this image?',
    "Is there a bird in the image?",
    'Does this image entail the description: "a red car next to two dogs"?',
    "Is the man behind the horse?",
    "Are there three apples?",
    "Is the sign yellow?",
)


def _images(n: int):
    import numpy as np
    from PIL import Image

    rng = np.random.RandomState(0)
    return [Image.fromarray(rng.randint(0, 255, (256, 256, 3), dtype=np.uint8)) for _ in range(n)]


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def run(question_counts: list[int], n_images: int, repeats: int, batch_size: int, model_dir: str | None) -> list[dict]:
    import torch

    from autoalign.config import RoleSpec
    from autoalign.models.loading import DeviceSpec
    from autoalign.models.vqa import ImageTextToTextVQA

    if model_dir is None:
        from autoalign.models.tiny_vlm import build_llava

        model_dir = str(Path(tempfile.mkdtemp(prefix="autoalign-bench-")) / "llava")
        build_llava(Path(model_dir))
    device = DeviceSpec("cpu", "float32")
    batched = ImageTextToTextVQA(RoleSpec("image-text-to-text", model_dir, {"batch_size": batch_size}), device)
    no_reuse = ImageTextToTextVQA(
        RoleSpec("image-text-to-text", model_dir, {"batch_size": batch_size, "reuse_images": False}), device
    )
    images = _images(n_images)
    rows = []
    for q in question_counts:
        questions = [
            QUESTION_BANK[i % len(QUESTION_BANK)] + ("" if i < len(QUESTION_BANK) else f" ({i})") for i in range(q)
        ]
        pair_images = [im for im in images for _ in range(q)]
        pair_questions = [qq for _ in images for qq in questions]
        batched.yes_prob(pair_images[:2], pair_questions[:2])  # warm up (loads weights)
        no_reuse.yes_prob(pair_images[:2], pair_questions[:2])
        ims, qs = pair_images, pair_questions
        t_batched = _best_time(lambda ims=ims, qs=qs: batched.yes_prob(ims, qs), repeats)
        t_no_reuse = _best_time(lambda ims=ims, qs=qs: no_reuse.yes_prob(ims, qs), repeats)
        t_single = _best_time(lambda ims=ims, qs=qs: [batched.yes_prob([im], [qq]) for im, qq in zip(ims, qs)], repeats)
        rows.append(
            {
                "questions": q,
                "pairs": len(pair_questions),
                "batched_s": t_batched,
                "batched_no_reuse_s": t_no_reuse,
                "one_by_one_s": t_single,
                "speedup": t_single / t_batched,
                "speedup_no_reuse": t_single / t_no_reuse,
            }
        )
    rows_meta = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    for row in rows:
        row.update(rows_meta)
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, nargs="+", default=[1, 8, 32], help="questions per image")
    parser.add_argument("--images", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats; the best is reported")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument(
        "--model", default=None, help="a local image-text-to-text model dir (default: build the tiny LLaVA)"
    )
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads (default: torch's choice)")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)

    from rich.console import Console
    from rich.table import Table

    rows = run(args.questions, args.images, args.repeats, args.batch_size, args.model)
    console = Console()
    title = (
        f"VQA yes_prob: batched vs one call per pair ({args.images} images, batch_size {args.batch_size}, "
        f"CPU, {rows[0]['threads']} torch threads, best of {args.repeats})"
    )
    table = Table(title=title)
    columns = (
        "Q / image",
        "pairs",
        "batched + reuse (s)",
        "batched, no reuse (s)",
        "one by one (s)",
        "speed-up",
        "speed-up w/o reuse",
    )
    for col in columns:
        table.add_column(col, justify="right")
    for r in rows:
        table.add_row(
            str(r["questions"]),
            str(r["pairs"]),
            f"{r['batched_s']:.3f}",
            f"{r['batched_no_reuse_s']:.3f}",
            f"{r['one_by_one_s']:.3f}",
            f"{r['speedup']:.1f}x",
            f"{r['speedup_no_reuse']:.1f}x",
        )
    console.print(table)
    model = args.model or "the TINY RANDOM-WEIGHT LLaVA built in code (autoalign.models.tiny_vlm)"
    console.print(
        f"Model: {model}. Times measure the batching machinery on {platform.processor() or platform.machine()}, "
        "not the speed or quality of a real VLM. Target (issue #3): >= 3x at Q=32."
    )


if __name__ == "__main__":
    main()
