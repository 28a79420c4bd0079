"""User-facing errors. The CLI prints these as one line and exits non-zero; the UI shows them.

Anything else that escapes is a bug and keeps its traceback.
"""


class AutoAlignError(Exception):
    """Base of every error caused by input, configuration or environment rather than a bug."""


class InputError(AutoAlignError, ValueError):
    """Bad user input (prompt, image, file, flag); the message names the field and what is allowed."""


class StorageError(AutoAlignError, OSError):
    """The disk cannot take what a command writes (full, read-only, quota); one line, rerun to resume."""
