"""A reading of a prompt's spaCy parse: things, their attributes and counts, relations, global tags, quotes.

Shared by the offline question generator (:mod:`autoalign.scoring.questions`) and the rule-based
text answerer (:mod:`autoalign.scoring.text_qa`). The spaCy pipeline is loaded once per process.

What is read, from the dependency structure (English labels of spaCy's ``en_core_web_sm`` family);
word lists (``prompts/question_words.json``) only name the *kind* of a word the parse has placed::

    "two red apples on a blue plate"
      nouns      apples (plural, count "two", colour "red"), plate (colour "blue")
      relations  apples --on--> plate
    "a man holding an umbrella"        relation man --holding--> umbrella (verb + object)
    "a man sitting on a motorcycle"    relation man --sitting on--> motorcycle (verb + preposition)
    "a cat in front of a car"          relation cat --in front of--> car (compound preposition)
    "a cat with black ears"            relation cat --with--> ears (part)
    "a broken wooden vase"             attributes broken (state), wooden (material)
    "a pinata which is orange", "a girl dressed in green", "a cube made of denim"
                                       predicative attributes: orange, dressed in green, made of denim
    "a man is surfing"                 attribute surfing (an action without an object)
    "a photo of ...", "digital art", "in the style of Van Gogh", "at night"
                                       global tags: photo, digital art, style of Van Gogh, night
    'a sign that says "hello"'         quote "hello" on the sign

What is *not* a thing (``not_things`` in the word list): meta words ("background", "4K"), words that
stand for a thing named elsewhere ("one behind the other"), the
picture's frame ("photo", asked as a global question), style words, prompt flags ("--ar 16:9",
removed with their value) and colour words used as nouns ("dressed in green" is the girl's colour).

The package is split by what it reads: :mod:`.lexicon` (word lists, the spaCy pipeline), :mod:`.records`
(the plain data), :mod:`.tokens` (single-token readings), :mod:`.mend` (tagger slips mended before reading),
:mod:`.frames` (global tags), :mod:`.things`, :mod:`.attributes`, :mod:`.referents` (who a word is about),
:mod:`.relations`, :mod:`.quotes`, and :mod:`.reading` (:func:`parse_prompt`, which runs them in order).
"""

from __future__ import annotations

from autoalign.scoring.parse.lexicon import DEFAULT_SPACY_MODEL, lexicon, load_spacy, number_value
from autoalign.scoring.parse.quotes import read_quotes
from autoalign.scoring.parse.reading import parse_prompt
from autoalign.scoring.parse.records import Attribute, GlobalTag, Noun, Parse, Quote, Relation
from autoalign.scoring.parse.salvage import salvage
from autoalign.scoring.parse.tokens import _subject_of, ing_form

__all__ = [
    "DEFAULT_SPACY_MODEL",
    "Attribute",
    "GlobalTag",
    "Noun",
    "Parse",
    "Quote",
    "Relation",
    "_subject_of",
    "ing_form",
    "lexicon",
    "load_spacy",
    "number_value",
    "parse_prompt",
    "read_quotes",
    "salvage",
]
