"""The shapes world's training recipes (``autoalign world train``): not loaded by the loop or the benchmarks' runs.

* :mod:`~autoalign.world.training.recipes` - the recipes by name, in training order.
* :mod:`~autoalign.world.training.train` - what every recipe shares: plans, seeded resumable fitting.
* ``train_clip``, ``train_clip_plain``, ``train_clip_swap``, ``train_vlm``, ``train_vae``,
  ``train_generator``, ``train_editor`` - one recipe per model.
* :mod:`~autoalign.world.training.data` and :mod:`~autoalign.world.training.edits` - the training data
  (questions with answers, caption pairs, one-edit-away scenes and editing triples), which
  ``autoalign world eval`` also draws from its validation and test splits.
"""
