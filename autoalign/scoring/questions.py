"""Question generation (role ``questions``): the atomic checks VQ2 asks the VQA model about.

Two generators, chosen by ``[questions] backend``:

``spacy`` (offline, VQ2 style, SeeTRUE §3.1)
    Reads the prompt's parse (:mod:`autoalign.scoring.parse`) and writes one question per answer
    span from the templates in ``prompts/vq2_question_templates.json``::

        "two red apples on a blue plate"
          entity     are there apples?            -> apples
          number     how many apples are there?   -> two     (depends on the apples question)
          attribute  what color are the apples?   -> red     (depends on the apples question)
          entity     is there a plate?            -> plate
          attribute  what color is the plate?     -> blue
          relation   what are the apples on?      -> plate   (depends on apples and plate)

    Then the VQ2 answer-consistency filter: each question is answered on the prompt *text*
    (option ``qa``: ``"rules"``, the default, is a rule-based extractive answerer over the parse;
    ``"llm"`` asks the LLM; see :mod:`autoalign.scoring.text_qa`) and the pair is kept only when
    that answer has token F1 >= 0.54 with the expected answer (option ``min_f1``). Option
    ``filter = false`` keeps every pair.

``llm`` (DSG style)
    The LLM writes atomic questions with aspect, span, expected answer and dependency ids
    (``prompts/dsg_questions.txt`` + ``prompts/dsg_fewshot.json``) through
    :meth:`~autoalign.models.llm.OpenAILLM.complete_json`. Malformed output is retried by the LLM
    backend; when it still fails, the ``spacy`` generator answers instead, with a logged warning.

Questions are generated once per prompt and generator settings: :func:`cached_questions` keeps
them in memory and in ``$AUTOALIGN_HOME/cache/questions/`` (JSON).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from pathlib import Path
from typing import Any, Callable, Sequence

from autoalign import prompts
from autoalign.config import RoleSpec
from autoalign.errors import AutoAlignError
from autoalign.files import atomic_write_json
from autoalign.registry import register
from autoalign.scoring.f1 import ANSWER_F1_THRESHOLD, token_f1
from autoalign.scoring.parse import DEFAULT_SPACY_MODEL, Noun, Parse, lexicon, parse_prompt
from autoalign.scoring.text_qa import LLMTextAnswerer, RuleTextAnswerer
from autoalign.types import ASPECTS, Question

logger = logging.getLogger(__name__)

LLMProvider = Callable[[], Any]  # returns an object with complete_json(messages, schema, name)
CACHE_VERSION = "1"  # bump when generated questions change for the same settings


# ---- the VQ2 answer-consistency filter -------------------------------------------------------------


def filter_consistent(
    questions: Sequence[Question], text_answers: Sequence[str], min_f1: float = ANSWER_F1_THRESHOLD
) -> tuple[list[Question], list[dict[str, Any]]]:
    """Keep the questions whose answer on the text matches their expected answer (token F1 >= ``min_f1``).

    Returns (kept, dropped) where each dropped entry is ``{"question": Question, "text_answer", "f1"}``.
    Dependencies on dropped questions are removed from the kept ones.
    """
    if len(questions) != len(text_answers):
        raise ValueError(f"{len(questions)} questions but {len(text_answers)} text answers")
    kept, dropped = [], []
    for q, a in zip(questions, text_answers):
        f1 = token_f1(a, q.answer)
        if f1 >= min_f1:
            kept.append(q)
        else:
            dropped.append({"question": q, "text_answer": a, "f1": f1})
    ids = {q.id for q in kept}
    for q in kept:
        q.depends_on = [d for d in q.depends_on if d in ids]
    return kept, dropped


# ---- the offline generator --------------------------------------------------------------------------


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


class _Builder:
    """Numbers questions and fills templates."""

    def __init__(self) -> None:
        self.templates = lexicon()["templates"]
        self.questions: list[Question] = []
        self._seen: dict[tuple[str, str], Question] = {}

    def add(self, kind: str, aspect: str, answer: str, span: str, depends_on: list[str], **slots: str) -> Question:
        text = self.templates[kind].format(**slots)
        existing = self._seen.get((text, answer))
        if existing is not None:  # same question and answer twice ("an apple and an apple"): ask once
            return existing
        q = Question(id=f"q{len(self.questions) + 1}", text=text, answer=answer, aspect=aspect, span=span, depends_on=depends_on)
        self.questions.append(q)
        self._seen[(text, answer)] = q
        return q


def questions_from_parse(parse: Parse) -> list[Question]:
    """Every (question, answer) pair the templates can write for the parse, before filtering."""
    b = _Builder()
    entity_id: dict[int, str] = {}

    def be(noun: Noun) -> str:
        return "are" if noun.plural else "is"

    def modifier_span(noun: Noun, word: str) -> str:
        at = noun.modifier_start.get(word, noun.start)  # after the noun for "the car is red"
        return parse.span_text(min(at, noun.index), max(at, noun.index) + 1)

    for noun in parse.nouns:
        if noun.plural:
            q = b.add("entity_plural", "entity", noun.phrase, noun.chunk, [], noun=noun.phrase)
        else:
            q = b.add("entity_singular", "entity", noun.phrase, noun.chunk, [], noun=noun.phrase, article=_article(noun.phrase))
        entity_id[noun.index] = q.id
        parent = [q.id]
        for number in noun.numbers:
            b.add("number", "number", number, modifier_span(noun, number), parent, noun=noun.phrase)
        for color in noun.colors:
            b.add("color", "attribute", color, modifier_span(noun, color), parent, noun=noun.phrase, be=be(noun))
        for attr in noun.attributes:
            b.add("attribute", "attribute", attr, modifier_span(noun, attr), parent, noun=noun.phrase, be=be(noun))
    for rel in parse.relations:
        subject, obj = parse.noun_at(rel.subject), parse.noun_at(rel.obj)
        if subject is None or obj is None:
            continue
        deps = [entity_id[rel.subject], entity_id[rel.obj]]
        span = parse.span_text(rel.start, rel.end)
        if rel.kind == "prep":
            b.add("relation_prep", "relation", obj.phrase, span, deps, noun=subject.phrase, prep=rel.word, be=be(subject))
        elif rel.verb_tag == "VBG":
            b.add("relation_verb_ing", "relation", obj.phrase, span, deps, noun=subject.phrase, verb=rel.word, be=be(subject))
        else:
            do = "do" if subject.plural else "does"
            b.add("relation_verb", "relation", obj.phrase, span, deps, noun=subject.phrase, verb=rel.word, do=do)
    for quote in parse.quotes:
        owner = parse.noun_at(quote.noun) if quote.noun is not None else None
        span = quote.raw or f'"{quote.text}"'
        if owner is not None:
            b.add("text_on", "text", quote.text, span, [entity_id[owner.index]], noun=owner.phrase)
        else:
            b.add("text", "text", quote.text, span, [])
    return b.questions


@register("questions", "spacy")
class SpacyQuestions:
    """Offline VQ2-style question generation with the answer-consistency filter (module docstring)."""

    def __init__(self, spec: RoleSpec, device: Any = None):
        self.spec = spec
        self.spacy_model = spec.model or DEFAULT_SPACY_MODEL
        self.qa = str(spec.options.get("qa", "rules"))
        if self.qa not in ("rules", "llm"):
            from autoalign.config import ConfigError

            raise ConfigError(f"[questions] qa must be 'rules' or 'llm' (got {self.qa!r})")
        self.filter = bool(spec.options.get("filter", True))
        self.min_f1 = float(spec.options.get("min_f1", ANSWER_F1_THRESHOLD))
        self.last_dropped: list[dict[str, Any]] = []  # what the filter removed on the last call (reports, tests)

    def generate(self, prompt: str, llm: LLMProvider | None = None) -> list[Question]:
        candidates = questions_from_parse(parse_prompt(prompt, self.spacy_model))
        if not self.filter or not candidates:
            self.last_dropped = []
            return candidates
        if self.qa == "llm":
            if llm is None:
                raise AutoAlignError("[questions] qa = 'llm' needs an LLM, but none was passed to the question generator")
            answerer: Any = LLMTextAnswerer(llm())
        else:
            answerer = RuleTextAnswerer(self.spacy_model)
        answers = answerer.answer(prompt, [q.text for q in candidates])
        kept, dropped = filter_consistent(candidates, answers, self.min_f1)
        for d in dropped:
            logger.debug("VQ2 filter dropped %r (text answer %r, F1 %.2f)", d["question"].text, d["text_answer"], d["f1"])
        self.last_dropped = dropped
        return kept


# ---- the LLM (DSG) generator ------------------------------------------------------------------------

DSG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": ["string", "integer"]},
                    "question": {"type": "string"},
                    "aspect": {"type": "string", "enum": [*ASPECTS, "text"]},
                    "answer": {"type": "string"},
                    "span": {"type": "string"},
                    "depends_on": {"type": "array", "items": {"type": ["string", "integer"]}},
                },
                "required": ["id", "question", "aspect", "answer", "span", "depends_on"],
            },
        }
    },
    "required": ["questions"],
}


def dsg_messages(prompt: str) -> list[dict[str, str]]:
    """The chat messages asking for DSG questions: instructions, few-shot pairs, the prompt."""
    messages = [{"role": "system", "content": prompts.load("dsg_questions.txt")}]
    for example in json.loads(prompts.load("dsg_fewshot.json")):
        messages.append({"role": "user", "content": f"Prompt: {example['prompt']}"})
        messages.append({"role": "assistant", "content": json.dumps({"questions": example["questions"]})})
    messages.append({"role": "user", "content": f"Prompt: {prompt}"})
    return messages


def questions_from_dsg(data: dict[str, Any]) -> list[Question]:
    """Questions from a DSG reply; ids become strings, unknown/self dependencies are dropped."""
    out: list[Question] = []
    seen: set[str] = set()
    for item in data.get("questions", []):
        qid, text = str(item["id"]).strip(), str(item["question"]).strip()
        if not qid or not text or qid in seen:
            continue
        seen.add(qid)
        out.append(
            Question(
                id=qid,
                text=text,
                answer=str(item["answer"]).strip(),
                aspect=str(item["aspect"]),
                span=str(item["span"]).strip(),
                depends_on=[str(d) for d in item.get("depends_on", [])],
            )
        )
    for q in out:
        q.depends_on = [d for d in q.depends_on if d in seen and d != q.id]
    return out


@register("questions", "llm")
class LLMQuestions:
    """DSG-style questions from the LLM, falling back to :class:`SpacyQuestions` when it fails."""

    def __init__(self, spec: RoleSpec, device: Any = None):
        self.spec = spec
        fallback_opts = {"qa": "rules", **{k: v for k, v in spec.options.items() if k in ("min_f1", "filter")}}
        self.fallback = SpacyQuestions(RoleSpec("spacy", spec.options.get("spacy_model"), fallback_opts))
        self.fell_back = False  # did the last call use the fallback? (reports, tests)

    def generate(self, prompt: str, llm: LLMProvider | None = None) -> list[Question]:
        from autoalign.models.llm import LLMError

        self.fell_back = False
        if llm is None:
            reason = "no LLM was passed to the question generator"
        else:
            try:
                questions = questions_from_dsg(llm().complete_json(dsg_messages(prompt), DSG_SCHEMA, "dsg_questions"))
                if questions:
                    return questions
                reason = "the LLM returned no usable questions"
            except LLMError as exc:
                reason = str(exc)
        logger.warning("LLM question generation failed (%s); using the spaCy generator instead", reason)
        self.fell_back = True
        return self.fallback.generate(prompt)


# ---- caching ---------------------------------------------------------------------------------------

_memory: dict[str, list[dict[str, Any]]] = {}
_memory_lock = threading.Lock()


def cache_key(prompt: str, spec: RoleSpec) -> str:
    blob = json.dumps([CACHE_VERSION, prompt, spec.backend, spec.model, spec.options], sort_keys=True, default=str)
    blob += prompts.load("vq2_question_templates.json")  # editing the templates invalidates the cache
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _disk_path(key: str) -> Path:
    from autoalign.models.loading import autoalign_home

    return autoalign_home() / "cache" / "questions" / f"{key}.json"


def cached_questions(
    prompt: str,
    spec: RoleSpec,
    generator: Any,
    llm: LLMProvider | None = None,
    disk: bool = True,
) -> list[Question]:
    """``generator.generate(prompt, llm)`` once per (prompt, generator settings); copies are returned.

    A generator that fell back (``fell_back``) is not cached on disk, so a later run with a working
    LLM asks again.
    """
    key = cache_key(prompt, spec)
    with _memory_lock:
        hit = _memory.get(key)
    if hit is None and disk:
        path = _disk_path(key)
        if path.exists():
            try:
                hit = json.loads(path.read_text(encoding="utf-8"))["questions"]
            except (OSError, ValueError, KeyError):
                logger.warning("ignoring unreadable question cache file %s", path)
    if hit is None:
        questions = generator.generate(prompt, llm)
        hit = [q.to_dict() for q in questions]
        if disk and not getattr(generator, "fell_back", False):
            path = _disk_path(key)
            try:
                atomic_write_json(path, {"prompt": prompt, "questions": hit}, indent=1)
            except OSError as exc:
                logger.warning("cannot write question cache %s: %s", path, exc)
    with _memory_lock:
        _memory[key] = hit
    return [Question.from_dict(d) for d in hit]


def clear_cache() -> None:
    """Forget the in-memory question cache (tests)."""
    with _memory_lock:
        _memory.clear()
