"""The learned world: a procedural shapes world small enough to train every model role on a CPU.

* :mod:`~autoalign.world.scene` - objects, scenes, caption specs, the world's words, splits by seed.
* :mod:`~autoalign.world.render` - draw a scene at 64x64 pixels.
* :mod:`~autoalign.world.oracle` - read any world image back into a scene graph, and check a caption
  against it fact by fact. The measuring stick of benchmarks and tests, never the loop's judge.
* :mod:`~autoalign.world.facts` - what a question about the world asks, answered from a scene graph
  (labels for training the judges and writing the editor's instructions).
* :mod:`~autoalign.world.data` and :mod:`~autoalign.world.edits` - training examples for the judges and the
  editor's triples, labelled from scene graphs.
* :mod:`~autoalign.world.train`, :mod:`~autoalign.world.recipes` and the ``train_*`` modules - the training
  recipes behind ``autoalign world train``. ``autoalign world eval`` measures the models; it lives with the
  benchmarks, in ``autoalign.benchmarks.world_eval`` (the core does not import it).

The trained weights live in ``autoalign/world/weights/`` (committed, fp16 where it keeps accuracy)
and are named in presets as ``world:NAME`` (see :func:`autoalign.models.loading.resolve_model`).
"""
