"""The Gradio studio (``autoalign.ui``): ``autoalign ui`` or ``python -m autoalign.ui``.

* :func:`autoalign.ui.app.build_app` builds the page; :func:`autoalign.ui.app.launch` serves it.
* :mod:`autoalign.ui.run_view` turns the runner's stream into what the page shows.
* :mod:`autoalign.ui.settings` maps the page's settings onto a run config; :mod:`autoalign.ui.controls` makes
  a control per setting of :mod:`autoalign.settings`.
* :mod:`autoalign.ui.uploads` checks uploaded images.
* :mod:`autoalign.doubles.stream` is a test double of the runner's stream (judges nothing).
"""
