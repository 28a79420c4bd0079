"""The reading of one prompt: mend the parse, then read things, attributes, relations, global tags and quotes."""

from __future__ import annotations

from autoalign.scoring.parse.attributes import _AttributesReader
from autoalign.scoring.parse.lexicon import DEFAULT_SPACY_MODEL, lexicon, load_spacy
from autoalign.scoring.parse.mend import _join_hyphens, _mend_parse
from autoalign.scoring.parse.quotes import read_quotes
from autoalign.scoring.parse.records import Parse
from autoalign.scoring.parse.relations import _RelationsReader
from autoalign.scoring.parse.things import _ThingsReader


class _Reader(_ThingsReader, _AttributesReader, _RelationsReader):
    """One reading of one parse: things first, then their attributes, then the relations between them."""


def parse_prompt(prompt: str, model: str = DEFAULT_SPACY_MODEL) -> Parse:
    """Read things, modifiers, relations, global tags and quotes out of ``prompt``."""
    lex = lexicon()
    text = lex["flag_re"].sub(" ", prompt).rstrip() if "--" in prompt else prompt
    doc = _mend_parse(_join_hyphens(load_spacy(model)(text)), lex, model)
    reader = _Reader(doc, lex)
    reader.read_nouns()
    reader.read_attributes()
    reader.read_relations()
    nouns = sorted(reader.nouns.values(), key=lambda n: n.index)
    quotes = read_quotes(text, doc, nouns, lex)
    # nouns inside quotes are text, not objects
    quote_chars = [(q.char_start, q.char_end) for q in quotes]
    nouns = [n for n in nouns if not any(a <= doc[n.index].idx < b for a, b in quote_chars)]
    kept = {n.index for n in nouns}
    relations = [r for r in reader.relations if r.subject in kept and r.obj in kept and all(i in kept for i in r.also)]
    return Parse(doc=doc, nouns=nouns, relations=relations, quotes=quotes, globals=reader.globals, model=model)
