"""Opening a user's image safely: every entry point (``run --image``, ``score``, ``detect``, the studio,
benchmark image folders) goes through :func:`open_image` or :func:`check_image`.

The pixel count is read from the header and checked *before* decoding, so a decompression bomb (a
small file that expands to gigabytes of pixels) is refused without being decoded, and Pillow's own
``DecompressionBombWarning`` becomes the same readable refusal. The limit, :data:`MAX_PIXELS`
(40 megapixels, about 6300 x 6300, far above what the generators and editors work at), is the one
the studio has always applied to uploads.

Every refusal is an :class:`autoalign.errors.InputError` naming the field and what is allowed. Pillow
reports a damaged file with many exception types (``OSError``, ``SyntaxError``, ``ValueError`` for a
text chunk that expands past ``PngImagePlugin.MAX_TEXT_CHUNK``, ``struct.error``, ``EOFError``, ...),
at open or at decode; :data:`DECODE_ERRORS` lists them, and each becomes the same one line.
"""

from __future__ import annotations

import struct
import warnings
import zlib
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from autoalign.errors import InputError

MAX_PIXELS = 40_000_000
#: What Pillow raises on a damaged, truncated or hostile file, at open or at decode.
DECODE_ERRORS: tuple[type[BaseException], ...] = (
    OSError, SyntaxError, ValueError, EOFError, struct.error, zlib.error, IndexError, KeyError, TypeError,
    ZeroDivisionError, OverflowError, RecursionError, MemoryError,
)


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
        if exc.strerror:  # the file system's answer (permission, I/O), not Pillow's
            raise InputError(f"{what}: cannot be read ({exc.strerror})") from None
        raise _damaged(what, exc) from None
    except DECODE_ERRORS as exc:
        raise _damaged(what, exc) from None
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


def _damaged(what: str, exc: BaseException) -> InputError:
    detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return InputError(f"{what}: the file is damaged or truncated ({detail})")


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
        except DECODE_ERRORS as exc:
            raise _damaged(what, exc) from None


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
        except DECODE_ERRORS as exc:
            raise _damaged(what, exc) from None
    return fmt, width, height


__all__ = ["DECODE_ERRORS", "MAX_PIXELS", "check_image", "open_image"]
