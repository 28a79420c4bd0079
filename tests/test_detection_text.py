"""The OCR text detector reads text rendered with Pillow (real RapidOCR, CPU) and checks the spelling."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from autoalign.detection.text_detector import TextDetector, best_fragment, requested_texts

FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")


def sign(text: str) -> Image.Image:
    """A white sign with black lettering (DejaVu when installed, else PIL's default font, large)."""
    img = Image.new("RGB", (320, 128), "white")
    font = ImageFont.truetype(str(FONT), 40) if FONT.exists() else ImageFont.load_default(size=40)
    ImageDraw.Draw(img).text((20, 40), text, fill="black", font=font)
    return img


@pytest.fixture(scope="module")
def detector():
    return TextDetector()


def test_correctly_spelled_sign_is_no_mismatch(detector):
    assert detector.detect(sign("OPEN"), 'a wooden sign that says "open" above a door') == []


def test_misspelled_sign_is_reported_with_what_is_written(detector):
    (m,) = detector.detect(sign("OPNE"), 'a wooden sign that says "OPEN" above a door')
    assert (m.aspect, m.phrase, m.correction, m.source) == ("attribute", "OPEN", "OPNE", "text")
    assert m.evidence["kind"] == "text" and m.evidence["requested"] == "OPEN"
    assert [line["text"] for line in m.evidence["ocr"]] == ["OPNE"]
    assert 0.0 < m.evidence["similarity"] < 0.9
    assert 0.0 < m.confidence < 1.0


def test_missing_text_says_no_text(detector):
    (m,) = detector.detect(Image.new("RGB", (128, 128), (120, 160, 90)), "a poster with the word HELLO")
    assert (m.phrase, m.correction, m.confidence) == ("HELLO", "no text", 0.8)
    assert m.evidence["ocr"] == []


def test_prompt_without_requested_text_runs_no_ocr(detector, monkeypatch):
    import autoalign.detection.text_detector as td

    monkeypatch.setattr(td, "read_text", lambda image: pytest.fail("OCR should not run"))
    assert detector.detect(sign("OPEN"), "a red car on a street") == []


@pytest.mark.parametrize(
    "prompt, wanted",
    [
        ('a sign that says "OPEN"', ["OPEN"]),
        ("a shop sign that reads Bakery, in gold letters", ["Bakery"]),
        ("a cake with the words happy birthday on it", ["happy birthday"]),
        ("a mug labeled coffee", ["coffee"]),
        ("a t-shirt with “Hello World” printed on it", ["Hello World"]),
        ("a dog's bone and a cat's toy", []),
        ("a note written in pencil", []),
        ("The white clock with a red roof reads 11:44.", ["11:44"]),
        ("a girl reading a book in a cozy reading nook", []),
    ],
)
def test_requested_texts(prompt, wanted):
    assert requested_texts(prompt) == wanted


def test_best_fragment_finds_words_inside_a_longer_line():
    lines = [{"text": "OPEN 24 HOURS", "confidence": 0.9, "box": []}]
    fragment, sim, conf = best_fragment("open", lines)
    assert (fragment, sim, conf) == ("OPEN", 1.0, 0.9)
