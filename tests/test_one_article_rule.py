"""One a/an rule for the whole project (``autoalign.inflect.indefinite_article``, by sound): the template writer,
the CLIP probe's rewrites and the parser's noun check all use it, and none picks by the first letter any more.
The shapes world's words get exactly the article the old first-letter rule gave them, so its figures do not move."""

from __future__ import annotations

import ast
import importlib
import itertools
from pathlib import Path
from types import SimpleNamespace

import pytest

from autoalign.detection import clip_probe
from autoalign.editing.template_writer import with_article
from autoalign.inflect import indefinite_article
from autoalign.world.scene import colors, shapes, sizes

ROOT = Path(__file__).resolve().parent.parent
lexicon = importlib.import_module("autoalign.scoring.parse.lexicon")  # the module (the package exports a function of its name)
WORLD_WORDS = [*colors(), *shapes(), *sizes()]


def old_rule(word: str) -> str:
    """The first-letter rule the template writer, the CLIP probe and the parser used before."""
    return "an" if word[:1].lower() in "aeiou" else "a"


@pytest.mark.parametrize("word", WORLD_WORDS)
def test_every_world_word_gets_the_article_it_got_before(word):
    assert indefinite_article(word) == old_rule(word)


def test_every_world_phrase_the_writer_adds_keeps_its_article():
    phrases = [" ".join(w for w in words if w) for words in itertools.product(["", *sizes()], ["", *colors()], shapes())]
    assert len(phrases) == 3 * 7 * 3
    for phrase in phrases:
        assert with_article(phrase) == f"{old_rule(phrase)} {phrase}"


def test_the_writer_adds_a_or_an_by_sound():
    assert with_article("unicorn") == "a unicorn"  # the first-letter rule wrote "an unicorn"
    assert with_article("hour glass") == "an hour glass"
    assert with_article("European car") == "a European car"
    assert with_article("orange cat") == "an orange cat"
    assert with_article("two cats") == "two cats"  # a number stays, no article


def test_the_clip_probe_rewrite_fixes_the_article_by_sound(monkeypatch):
    classes = clip_probe.word_classes()
    monkeypatch.setattr(clip_probe, "word_classes", lambda: {**classes, "entity": [["umbrella", "unicorn", "hat"]]})
    rewrites = {s.phrase: [text for text, _ in s.rewrites] for s in clip_probe.slots("an umbrella next to a dog")
                if s.aspect == "entity"}
    assert rewrites == {"an umbrella": ["a unicorn next to a dog", "a hat next to a dog"]}


def test_the_parser_asks_spacy_about_a_listed_noun_with_the_right_article(monkeypatch):
    asked: list[str] = []

    def nlp_double(name):  # a spaCy pipeline double: tags every word a noun, records what it was asked
        def nlp(text):
            asked.append(text)
            return [SimpleNamespace(tag_="NN") for _ in text.split()]
        return nlp

    monkeypatch.setattr(lexicon, "load_spacy", nlp_double)
    assert lexicon._reads_as_listed_noun("unicorn", "double-model")
    assert asked[-1] == "a unicorn and a dog"  # the first-letter rule asked about "an unicorn"


def test_no_other_code_picks_a_or_an_by_the_first_letter():
    """The letters "aeiou" appear only in the one rule and in the verb-form/syllable helper (no article there)."""
    allowed = {"autoalign/inflect.py", "autoalign/scoring/parse/tokens.py"}
    found = []
    for folder in ("autoalign", "agents", "ui", "benchmarks", "experiments", "scripts"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "aeiou" in node.value.lower():
                    found.append(rel)
    assert found and set(found) <= allowed, sorted(set(found) - allowed)
