"""``python -m autoalign.ui``: the same as ``autoalign ui`` (see ``autoalign ui --help``)."""

from __future__ import annotations

import sys

from autoalign.cli import main

if __name__ == "__main__":
    main(["ui", *sys.argv[1:]])
