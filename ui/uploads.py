"""Checking an image an artist uploads before any model sees it.

An upload must be a real PNG, JPEG or WebP file (what the bytes say, not the file name), at most
``max_bytes`` large and at most ``max_pixels`` in area. The pixel limit is checked from the header,
before decoding, so a *decompression bomb* (a small file that expands to gigabytes of pixels) is
refused without being decoded (:func:`autoalign.images.check_image`, the check every command that
opens a user's image makes).

Every refusal is an :class:`autoalign.errors.InputError` whose message names the field ("image")
and what is allowed; the app shows it to the artist and keeps serving.
"""

from __future__ import annotations

import logging
from pathlib import Path

from autoalign.errors import InputError
from autoalign.images import MAX_PIXELS, check_image

logger = logging.getLogger(__name__)

ALLOWED_FORMATS: dict[str, str] = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
MAX_UPLOAD_BYTES = 20_000_000  # 20 MB
MAX_UPLOAD_PIXELS = MAX_PIXELS  # the limit every entry point applies (autoalign.images)


def _human(n: float) -> str:
    for unit in ("bytes", "KB", "MB"):
        if n < 1000 or unit == "MB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} MB"


def _allowed() -> str:
    return ", ".join(ALLOWED_FORMATS.values())


def validate_upload(
    path: str | Path,
    *,
    max_bytes: int = MAX_UPLOAD_BYTES,
    max_pixels: int = MAX_UPLOAD_PIXELS,
) -> str:
    """Return ``path`` as a string when it is an acceptable image, else raise :class:`InputError`.

    Checks, in order: the file exists, its size, that Pillow recognises it as PNG/JPEG/WebP, its
    pixel count (from the header, before decoding), that its structure verifies, and that it decodes
    completely (a truncated file fails here).
    """
    path = Path(path)
    if not path.is_file():
        raise InputError(f"image: the uploaded file is missing ({path.name}); upload it again")
    size = path.stat().st_size
    if size == 0:
        logger.warning("upload refused: %s is empty", path.name)
        raise InputError("image: the uploaded file is empty; upload a png, jpg or webp image")
    if size > max_bytes:
        logger.warning("upload refused: %s is %s (limit %s)", path.name, _human(size), _human(max_bytes))
        raise InputError(
            f"image: the upload is {_human(size)}; the limit is {_human(max_bytes)} ({_allowed()})"
        )
    try:
        fmt, width, height = check_image(path, "image", max_pixels=max_pixels, formats=tuple(ALLOWED_FORMATS))
    except InputError as exc:
        logger.warning("upload refused: %s", exc)  # one line; the artist sees the same message
        raise
    logger.debug("accepted upload %s (%s, %dx%d, %d bytes)", path.name, fmt, width, height, size)
    return str(path)
