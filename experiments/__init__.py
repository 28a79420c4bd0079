"""One-off experiment scripts: they measured something once (the lab notes say what), and stay runnable.

Not part of the installed package (the wheel holds only ``autoalign``); run them from the repository
root, with AutoAlign installed::

    python -m experiments.NAME [--help]      # or: python experiments/NAME.py

* ``vlm_refine`` - round 12: train the committed VLM on with count grounding.
* ``loop_settings`` - choose the ``shapes`` preset's judge and detector on validation prompts.
* ``train_step_cost`` - training-step cost of the world's generator UNet (fp32, bf16, compile).
* ``editor_source_use`` - does the world's editor read its source image.
* ``multi_mismatch`` - sequential vs combined edit instructions, on the scene double.
* ``oracle_sheet`` - a contact sheet for checking the oracle by eye on generated images.
* ``question_stats`` - speed and coverage of the offline question generator on real prompts.
* ``layout_readers`` - both readings of a prompt's layout (grounding, planner) over the benchmark prompts.

The repeatable benchmarks (suites, speed, memory, kill-and-resume) stay in ``autoalign.benchmarks``.
"""
