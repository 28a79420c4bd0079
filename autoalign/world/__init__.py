"""The learned world: a procedural shapes world small enough to train every model role on a CPU.

What the loop, the presets and the benchmarks load:

* :mod:`~autoalign.world.scene` - objects, scenes, caption specs, the world's words, splits by seed.
* :mod:`~autoalign.world.render` - draw a scene at 64x64 pixels.
* :mod:`~autoalign.world.oracle` - read any world image back into a scene graph, and check a caption
  against it fact by fact. The measuring stick of benchmarks and tests, never the loop's judge.
* :mod:`~autoalign.world.facts` - what a question about the world asks, answered from a scene graph
  (labels for training the judges and writing the editor's instructions).

The training recipes behind ``autoalign world train`` live in :mod:`autoalign.world.training`
(the shared loop in ``training/train.py``, one ``train_*`` module per model, the training data in
``training/data.py`` and ``training/edits.py``); ``autoalign world eval`` is
:mod:`autoalign.benchmarks.world_eval`.

The trained weights live in :data:`WEIGHTS_DIR` = ``autoalign/world/weights/`` (committed, fp16 where
it keeps accuracy) and are named in presets as ``world:NAME`` (see
:func:`autoalign.models.loading.resolve_model`).
"""

from pathlib import Path

#: The committed weights of the world's models, one folder per model (``world:NAME`` in presets).
WEIGHTS_DIR = Path(__file__).parent / "weights"
