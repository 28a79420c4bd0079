"""Opening a user's image safely: every entry point (``run --image``, ``score``, ``detect``, the studio,
benchmark image folders) goes through :func:`open_image` or :func:`check_image`.

The pixel count is read from the header and checked *before* decoding, so a decompression bomb (a
small file that expands to gigabytes of pixels) is refused without being decoded, and Pillow's own
``DecompressionBombWarning`` becomes the same readable refusal. The limit, :data:`MAX_PIXELS`
(40 megapixels, about 6300 x 6300, far above what the generators and editors work at), is the one
the studio has always applied to uploads.

Every refusal is an :class:`autoalign.errors.InputError` naming the field and what is allowed.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from autoalign.errors import InputError

MAX_PIXELS = 40_000_000


def _open_checked(path: Path, what: str, max_pixels: int, formats: tuple[str, ...] | None) -> Image.Image:
    """Open (not decode) ``path`` with the header checks done; the caller closes it."""
    if not path.exists():
        raise InputError(f"{what}: file not found")
    if not path.is_file():
        raise InputError(f"{what}: not a file")
    try:
        im = Image.open(path)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise _bomb(what, path, max_pixels) from exc
    except UnidentifiedImageError:
        raise InputError(f"{what}: not a readable image file (png, jpg, webp, ...)") from None
    except OSError as exc:
        raise InputError(f"{what}: cannot be read ({exc.strerror or exc})") from None
    width, height = im.size
    if formats is not None and im.format not in formats:
        im.close()
        allowed = ", ".join({"JPEG": "jpg"}.get(f, f.lower()) for f in formats)
        raise InputError(f"{what}: {im.format or 'this'} files are not accepted; upload {allowed}")
    if width * height > max_pixels:
        im.close()
        raise InputError(
            f"{what}: {width}x{height} pixels is too large (limit {max_pixels:,} pixels); "
            "downscale it first"
        )
    return im


def _bomb(what: str, path: Path, max_pixels: int) -> InputError:
    return InputError(
        f"{what}: the file expands to too many pixels (limit {max_pixels:,}); "
        "it looks like a decompression bomb and was refused"
    )


def open_image(path: str | Path, what: str | None = None, *, max_pixels: int = MAX_PIXELS,
               formats: tuple[str, ...] | None = None) -> Image.Image:
    """Decode ``path`` into an RGB image, refusing bombs, over-large and damaged files (InputError).

    ``what`` starts every message (default ``"image PATH"``).
    """
    path = Path(path)
    what = what or f"image {path}"
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        im = _open_checked(path, what, max_pixels, formats)
        try:
            with im:
                return im.convert("RGB")
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise _bomb(what, path, max_pixels) from exc
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{what}: the file is damaged or truncated ({exc})") from None


def check_image(path: str | Path, what: str | None = None, *, max_pixels: int = MAX_PIXELS,
                formats: tuple[str, ...] | None = None) -> tuple[str | None, int, int]:
    """Check that ``path`` is a whole, acceptable image without keeping it; (format, width, height)."""
    path = Path(path)
    what = what or f"image {path}"
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        im = _open_checked(path, what, max_pixels, formats)
        fmt, (width, height) = im.format, im.size
        try:
            with im:
                im.verify()
            with Image.open(path) as fresh:  # verify() leaves the image unusable; decode a fresh one
                fresh.load()
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            raise _bomb(what, path, max_pixels) from exc
        except (OSError, SyntaxError, ValueError) as exc:
            raise InputError(f"{what}: the file is damaged or truncated ({exc})") from None
    return fmt, width, height


__all__ = ["MAX_PIXELS", "check_image", "open_image"]
