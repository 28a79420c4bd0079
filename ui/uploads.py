"""Checking an image an artist uploads before any model sees it.

An upload must be a real PNG, JPEG or WebP file (what the bytes say, not the file name), at most
``max_bytes`` large and at most ``max_pixels`` in area. The pixel limit is checked from the header,
before decoding, so a *decompression bomb* (a small file that expands to gigabytes of pixels) is
refused without being decoded. Pillow's own ``Image.MAX_IMAGE_PIXELS`` guard is turned from a
warning into the same readable refusal.

Every refusal is an :class:`autoalign.errors.InputError` whose message names the field ("image")
and what is allowed; the app shows it to the artist and keeps serving.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from autoalign.errors import InputError

logger = logging.getLogger(__name__)

ALLOWED_FORMATS: dict[str, str] = {"PNG": "png", "JPEG": "jpg", "WEBP": "webp"}
MAX_UPLOAD_BYTES = 20_000_000  # 20 MB
MAX_UPLOAD_PIXELS = 40_000_000  # about 6300 x 6300; far above what the editors work at


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
        raise InputError("image: the uploaded file is empty; upload a png, jpg or webp image")
    if size > max_bytes:
        raise InputError(
            f"image: the upload is {_human(size)}; the limit is {_human(max_bytes)} ({_allowed()})"
        )
    with warnings.catch_warnings():
        # Pillow warns between MAX_IMAGE_PIXELS and twice that; treat the warning as the error it is.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            with Image.open(path) as im:
                fmt = im.format
                width, height = im.size
                if fmt not in ALLOWED_FORMATS:
                    raise InputError(f"image: {fmt or 'this'} files are not accepted; upload {_allowed()}")
                if width * height > max_pixels:
                    raise InputError(
                        f"image: {width}x{height} pixels is too large (limit {max_pixels:,} pixels); "
                        "downscale it and upload again"
                    )
                im.verify()
            with Image.open(path) as im:  # verify() leaves the image unusable; decode a fresh one
                im.load()
        except InputError:
            raise
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise InputError(
                f"image: the file expands to too many pixels (limit {max_pixels:,}); "
                "it looks like a decompression bomb and was refused"
            ) from exc
        except UnidentifiedImageError as exc:
            raise InputError(f"image: the uploaded file is not an image Pillow can read; upload {_allowed()}") from exc
        except (OSError, SyntaxError, ValueError) as exc:
            # truncated or corrupt data: verify() raises SyntaxError/OSError, load() OSError
            raise InputError(f"image: the uploaded file is damaged or truncated ({exc}); upload {_allowed()}") from exc
    logger.debug("accepted upload %s (%s, %dx%d, %d bytes)", path.name, fmt, width, height, size)
    return str(path)
