"""Uploads an artist may send the studio: real images pass, anything else is refused readably."""

from __future__ import annotations

import struct
import zlib

import pytest
from PIL import Image

from autoalign.errors import InputError
from autoalign.ui.uploads import validate_upload


def png_claiming_size(path, width: int, height: int):
    """A tiny PNG whose header claims ``width x height`` pixels (a decompression-bomb shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)  # 1-bit greyscale
    idat = zlib.compress(b"\x00" * 64)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("fmt,suffix", [("PNG", "png"), ("JPEG", "jpg"), ("WEBP", "webp")])
def test_png_jpeg_and_webp_images_are_accepted(tmp_path, fmt, suffix):
    path = tmp_path / f"mine.{suffix}"
    Image.new("RGB", (48, 32), (200, 30, 30)).save(path, format=fmt)
    assert validate_upload(path) == str(path)


def test_text_file_renamed_png_is_refused_as_not_an_image(tmp_path):
    path = tmp_path / "notes.png"
    path.write_text("this is not a picture\n" * 10)
    with pytest.raises(InputError, match=r"image: not a readable image file"):
        validate_upload(path)


def test_other_image_formats_are_refused_naming_the_allowed_ones(tmp_path):
    path = tmp_path / "old.png"  # a GIF with a misleading name: the bytes decide
    Image.new("RGB", (8, 8)).save(path, format="GIF")
    with pytest.raises(InputError, match=r"GIF files are not accepted; upload png, jpg, webp"):
        validate_upload(path)


def test_decompression_bomb_is_refused_without_decoding(tmp_path):
    # 200k x 200k claims 40 G pixels: Pillow's own guard fires while reading the header
    with pytest.raises(InputError, match="decompression bomb"):
        validate_upload(png_claiming_size(tmp_path / "bomb.png", 200_000, 200_000))


def test_image_over_the_pixel_limit_is_refused_with_its_size(tmp_path):
    path = png_claiming_size(tmp_path / "huge.png", 3000, 3000)
    with pytest.raises(InputError, match=r"3000x3000 pixels is too large"):
        validate_upload(path, max_pixels=1_000_000)


def test_oversized_file_is_refused_with_the_limit(tmp_path):
    path = tmp_path / "big.png"
    Image.effect_noise((64, 64), 50).convert("RGB").save(path)
    with pytest.raises(InputError, match=r"the limit is 100 bytes"):
        validate_upload(path, max_bytes=100)


def test_truncated_image_is_refused_as_damaged(tmp_path):
    full = tmp_path / "full.png"
    Image.effect_noise((128, 128), 50).convert("RGB").save(full)
    cut = tmp_path / "cut.png"
    cut.write_bytes(full.read_bytes()[:2000])
    with pytest.raises(InputError, match="damaged or truncated"):
        validate_upload(cut)


def test_empty_and_missing_files_are_refused(tmp_path):
    empty = tmp_path / "empty.png"
    empty.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        validate_upload(empty)
    with pytest.raises(InputError, match="missing"):
        validate_upload(tmp_path / "gone.png")


def test_a_refused_upload_logs_one_line_and_the_page_prints_no_traceback(tmp_path, caplog):
    import gradio as gr

    from autoalign.ui.app import refuse_bad_uploads

    bomb = png_claiming_size(tmp_path / "bomb.png", 30000, 30000)
    with caplog.at_level("WARNING"):
        with pytest.raises(InputError):
            validate_upload(bomb)
    refused = [r for r in caplog.records if "upload refused" in r.getMessage()]
    assert len(refused) == 1 and refused[0].exc_info is None and "\n" not in refused[0].getMessage()

    image = refuse_bad_uploads(gr.Image(type="filepath"))
    with pytest.raises(gr.Error) as err:
        image.preprocess(gr.data_classes.FileData(path=str(bomb)))
    assert err.value.print_exception is False and "decompression bomb" in str(err.value)
