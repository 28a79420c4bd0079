"""AutoAlign: make text-to-image models draw what the prompt says.

Core library: types, config/presets, model loading, scoring, detection, editing, CLI.
``autoalign.agents`` (the LangGraph loop), ``autoalign.benchmarks`` and ``autoalign.ui`` build on it.
"""

__version__ = "0.1.0"
