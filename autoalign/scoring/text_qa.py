"""Answering a question on the prompt *text*: the first half of the VQ2 answer-consistency filter.

VQ2 keeps a generated (question, answer) pair only if a QA model, reading the prompt, answers the
question with the expected answer (token F1 >= 0.54, :mod:`autoalign.scoring.f1`). The paper uses a
neural QA model; two answerers are offered here:

* :class:`RuleTextAnswerer` (``qa = "rules"``, the offline default) is a **rule-based extractive
  answerer over the spaCy parse**, not a learned model. It reads the question back with the same
  templates the generator fills (``prompts/vq2_question_templates.json``), locates the question's
  noun in the prompt (the *first* noun with that wording) and extracts the answer from the parse
  (its colours, other adjectives, numerals, the object of the named relation, the quoted text). It
  therefore rejects what the parse does not support: a question about the second of two
  same-named nouns ("a red apple and a green apple": "what color is the apple?" answers "red", so
  the "green" pair is dropped as ambiguous), questions the templates do not cover, spans it cannot
  find.
* :class:`LLMTextAnswerer` (``qa = "llm"``) asks the configured LLM to answer every question from
  the text in one call (prompt ``prompts/qa_on_text.txt``).
"""

from __future__ import annotations

import functools
import logging
import re
from typing import Any, Sequence

from autoalign import prompts
from autoalign.scoring.parse import DEFAULT_SPACY_MODEL, Parse, lexicon, parse_prompt, salvage

logger = logging.getLogger(__name__)

_SLOTS = {
    "{be}": r"(?:is|are)",
    "{do}": r"(?:does|do)",
    "{article}": r"(?:a|an)",
    "{noun}": r"(?P<noun>.+?)",
    "{prep}": r"(?P<prep>.+?)",
    "{verb}": r"(?P<verb>\S+)",
}


@functools.lru_cache(maxsize=1)
def template_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """(template kind, regex reading a question of that kind back), most specific first."""
    out = []
    for kind, template in lexicon()["templates"].items():
        pattern = re.escape(template)
        for slot, group in _SLOTS.items():
            pattern = pattern.replace(re.escape(slot), group)
        out.append((kind, re.compile(f"^{pattern}$", re.IGNORECASE)))
    # literal templates ("what text is written in the image?") before ones with free slots
    out.sort(key=lambda kv: kv[1].pattern.count("(?P<"))
    return out


def read_question(question: str) -> tuple[str, dict[str, str]] | None:
    """(kind, slots) of a question written from the templates, or None."""
    text = " ".join(question.strip().split())
    for kind, pattern in template_patterns():
        m = pattern.match(text)
        if m:
            return kind, {k: v for k, v in m.groupdict().items() if v is not None}
    return None


class RuleTextAnswerer:
    """Extractive answers from the prompt's parse; see the module docstring for what it can answer."""

    name = "rules"

    def __init__(self, spacy_model: str = DEFAULT_SPACY_MODEL):
        self.spacy_model = spacy_model

    def answer(self, text: str, questions: Sequence[str]) -> list[str]:
        parse = parse_prompt(text, self.spacy_model)
        answers = []
        for q in questions:
            answer = ""  # a question the rules fail on gets no answer (the filter then drops it)
            with salvage(f"answering {q!r}", text):
                answer = self._answer_one(parse, q)
            answers.append(answer)
        return answers

    def _answer_one(self, parse: Parse, question: str) -> str:
        read = read_question(question)
        if read is None:
            return ""
        kind, slots = read
        if kind == "text":
            return parse.quotes[0].text if parse.quotes else ""
        if kind.startswith("relation"):
            return self._relation_object(parse, f"{slots.get('noun', '')} {slots.get('prep') or slots.get('verb') or ''}")
        noun = parse.find_noun(slots.get("noun", ""))
        if noun is None:
            return ""
        if kind.startswith("entity"):
            return noun.phrase
        if kind == "color":
            return " ".join(noun.colors)
        if kind == "attribute":
            return " ".join(noun.attributes)
        if kind == "material":
            return " ".join(a.value for a in noun.attrs if a.kind == "material")
        if kind == "number":
            return " ".join(noun.numbers)
        if kind == "text_on":
            quote = next((q for q in parse.quotes if q.noun == noun.index), None)
            return quote.text if quote else ""
        return ""

    @staticmethod
    def _relation_object(parse: Parse, subject_and_word: str) -> str:
        """"apples on" -> the object of the first noun "apples"'s relation "on" ("plate")."""
        combined = " ".join(subject_and_word.lower().split())
        for noun in parse.nouns:  # nouns and relation words may both be several words long
            head = noun.phrase.lower() + " "
            if not combined.startswith(head):
                continue
            word = combined[len(head) :]
            first = parse.find_noun(noun.phrase)  # the first noun so named, as a reader would take it
            for rel in parse.relations:
                if first is not None and rel.subject == first.index and rel.word == word:
                    obj = parse.noun_at(rel.obj)
                    return obj.phrase if obj else ""
            return ""
        return ""


class LLMTextAnswerer:
    """Asks the LLM to answer each question from the text alone (one request for all questions)."""

    name = "llm"

    def __init__(self, llm: Any):
        self.llm = llm

    def answer(self, text: str, questions: Sequence[str]) -> list[str]:
        if not questions:
            return []
        listing = "\n".join(f"{i + 1}. {q}" for i, q in enumerate(questions))
        messages = [
            {"role": "system", "content": prompts.load("qa_on_text.txt")},
            {"role": "user", "content": f"Text: {text}\nQuestions:\n{listing}"},
        ]
        schema = {
            "type": "object",
            "properties": {"answers": {"type": "array", "items": {"type": "string"}}},
            "required": ["answers"],
        }
        out = self.llm.complete_json(messages, schema, "qa_on_text")["answers"]
        if len(out) != len(questions):
            logger.warning("text QA returned %d answers for %d questions; missing ones count as empty", len(out), len(questions))
        return [str(out[i]) if i < len(out) else "" for i in range(len(questions))]
