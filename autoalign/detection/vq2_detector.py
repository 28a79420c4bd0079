"""The VQ2-derived detector ("vq2"): failed VQ2 questions become FineMatch triplets.

The score card already holds, per question generated from the prompt, the VQA model's P(yes)
(SeeTRUE §3.1). A question whose P(yes) is below ``config.detection.threshold`` says its span is
not shown. For each such question:

* **aspect** = the question's aspect (entity/attribute/relation/number, synonyms normalised).
  Questions about *written text* (aspect ``text``) are left to the OCR detector when ``text`` is
  among ``config.detection.detectors`` (a VQA model's yes/no on spelling is unreliable); without
  it they are reported as ``attribute``, as the OCR detector does (see ``text_detector``).
* **phrase** = the mismatched words as written in the prompt (:func:`locate`): the attribute
  ("red"), the relation words ("on"), or the span for entities and numbers ("two red apples");
  else the span, else the expected answer; else the question is skipped and logged.
* **correction** = the VQA model's short answer to an open question: the question's own
  short-answer form (``open_question``, "what color is the car?" for "is the car red?") when it
  has one, else (:func:`open_question`) the VQ2 question itself when it already asks "what/how ..." ("what color is the car?"), else a
  template from ``prompts/detection_open_questions.json`` ("How many apples are there?",
  "Where is the cat relative to the table?", "What is in the image?").
* **confidence** = 1 - P(yes).
* **evidence** = ``{question, p_yes, open_question, open_answer}`` plus ``span`` and, where found,
  ``noun`` / ``subject`` / ``object`` (the hints the template writer reads).

DSG rule: a failed question whose parent (``depends_on``, transitively) also failed is not
reported: a missing dog is one mismatch, not also a wrong colour and a wrong count.
"""

from __future__ import annotations

import json
import logging
import re
from typing import TYPE_CHECKING, Any

from PIL import Image

from autoalign import prompts
from autoalign.detection.base import card_from, detector_options
from autoalign.detection.phrases import normalise_aspect, normalise_text, snap_phrase
from autoalign.scoring.parse import lexicon
from autoalign.types import Mismatch, QuestionScore, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

logger = logging.getLogger(__name__)

_ARTICLES = frozenset({"a", "an", "the", "some", "of"})
_NUMBER_RE = re.compile(r"^(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|several|many|none|no)$", re.I)


def _open_templates() -> dict[str, str]:
    return {k: v for k, v in json.loads(prompts.load("detection_open_questions.json")).items() if not k.startswith("_")}


def failed_roots(questions: list[QuestionScore], threshold: float) -> list[QuestionScore]:
    """Questions with P(yes) < ``threshold`` none of whose ancestors also failed (DSG), lowest P(yes) first."""
    by_id = {q.question.id: q for q in questions}
    failed = {qid for qid, q in by_id.items() if q.p_yes < threshold}

    def has_failed_ancestor(qs: QuestionScore) -> bool:
        seen: set[str] = set()
        stack = list(qs.question.depends_on)
        while stack:
            parent = str(stack.pop())
            if parent in seen:
                continue
            seen.add(parent)
            if parent in failed:
                return True
            if parent in by_id:
                stack.extend(by_id[parent].question.depends_on)
        return False

    roots = [q for q in questions if q.p_yes < threshold and not has_failed_ancestor(q)]
    return sorted(roots, key=lambda q: q.p_yes)


def _words(text: str) -> list[str]:
    return [w for w in normalise_text(text).split() if w not in _ARTICLES]


def _next_word(prompt: str, phrase: str) -> str:
    """The first non-article word after ``phrase`` in ``prompt`` ("red" in "a red car" -> "car")."""
    idx = prompt.lower().find(phrase.lower())
    if idx < 0:
        return ""
    rest = _words(prompt[idx + len(phrase) :])
    return rest[0] if rest else ""


_WH = re.compile(r"^\s*(what|how|where|which|who|whose)\b", re.I)


def locate(aspect: str, span: str, answer: str, prompt: str) -> tuple[str | None, dict[str, str]]:
    """The FineMatch phrase for a failed question, as written in the prompt, and hint words.

    * attribute: the attribute itself (the answer, "red"), noun = the rest of the span ("apples");
    * relation: the words between the subject (first word of the span) and the object's article
      or head ("apples on a blue plate" -> "on"), subject/object = first word / the answer;
    * entity, number, text: the span ("two red apples", "OPEN"), noun for number = span minus count.
    Falls back to the span, then the answer, when the specific phrase is not in the prompt.
    """
    hints: dict[str, str] = {}
    answer_words = set(_words(answer))
    rest = [w for w in _words(span) if w not in answer_words]
    phrase: str | None = None
    if aspect == "attribute":
        noun = rest[-1] if rest else _next_word(prompt, answer)
        if noun:
            hints["noun"] = noun
        phrase = snap_phrase(answer, prompt)
    elif aspect == "number":
        noun = " ".join(rest) if rest else _next_word(prompt, span or answer)
        if noun:
            hints["noun"] = noun
    elif aspect == "relation":
        words = [w for w in normalise_text(span).split()]
        obj = _words(answer)
        if len(words) >= 3 and obj:
            subject = words[0] if words[0] not in _ARTICLES else words[1]
            after = words[words.index(subject) + 1 :]
            rel = relation_words(after, obj)
            if rel and len(rel) < len(after):
                phrase = snap_phrase(" ".join(rel), prompt)
                hints.update({"subject": subject, "object": obj[-1]})
    phrase = phrase or snap_phrase(span, prompt) or snap_phrase(answer, prompt)
    return phrase, hints


def relation_words(after: list[str], obj: list[str]) -> list[str]:
    """The relation words between a relation's subject and its object.

    ``after`` is the span after the subject; the words before the object are cut at their last
    article or count word, so "on a blue plate" gives "on" and "to the left of a red square" keeps
    the inner "the": "to the left of".
    """
    before: list[str] = []
    for w in after:
        if w in obj:
            break
        before.append(w)
    cuts = [i for i, w in enumerate(before) if i > 0 and (w in _ARTICLES or _NUMBER_RE.match(w))]
    if cuts:
        return before[: cuts[-1]]
    colors = lexicon()["colors"]  # the colour words' one home: prompts/vq2_question_templates.json
    while before and before[-1] in colors:
        before.pop()
    return before


def open_question(aspect: str, question: str, hints: dict[str, str], templates: dict[str, str]) -> str:
    """The open question whose short answer is the correction.

    Attribute, number and text questions that already ask "what/how ..." (VQ2 questions are generated
    so that their answer is the span: "what color is the car?") are asked as they are; otherwise a
    template from ``prompts/detection_open_questions.json`` is filled.
    """
    if aspect in ("attribute", "number", "text") and _WH.match(question or ""):
        return question
    if aspect == "attribute":
        if not hints.get("noun"):
            return templates["attribute_no_noun"]
        return templates["attribute"].format(noun=hints["noun"])
    if aspect == "number":
        return templates["number"].format(noun=hints["noun"]) if hints.get("noun") else templates["number_no_noun"]
    if aspect == "relation":
        if hints.get("subject") and hints.get("object"):
            return templates["relation"].format(subject=hints["subject"], object=hints["object"])
        return templates["relation_no_sides"]
    if aspect == "text":
        return templates["text"]
    return templates["entity"]


def _correction(aspect: str, answer: str, hints: dict[str, str]) -> str:
    answer = " ".join(re.sub(r"[\x00-\x1f\x7f]", " ", answer).split()).strip(" .")
    if aspect == "number" and hints.get("noun") and _NUMBER_RE.match(answer):
        return f"{answer} {hints['noun']}"
    return answer


class VQ2Detector:
    """Failed VQ2 questions -> triplets, with corrections from open questions (module docstring).

    Options (``[detection.options.vq2]``): ``open_questions`` (default true; false leaves the
    correction empty and asks the VQA model nothing), ``max_new_tokens`` (default 12).
    """

    name = "vq2"

    def __init__(self, models: "Models", config: "Config", **options: Any):
        self.models = models
        self.config = config
        opts = {**detector_options(config, self.name), **options}
        self.open_questions = bool(opts.get("open_questions", True))
        self.max_new_tokens = int(opts.get("max_new_tokens", 12))
        self.defer_text = "text" in config.detection.detectors

    def _card(self, image: Image.Image, prompt: str, card: ScoreCard | None) -> ScoreCard:
        if card is not None:
            return card
        from autoalign.scoring.scorer import Scorer  # only when the caller brings no card

        return Scorer(self.models, self.config).score([image], prompt)[0]

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None) -> list[Mismatch]:
        card = self._card(image, prompt, card_from(card))
        limit = max(1, int(self.config.detection.max_mismatches))
        found: dict[tuple[str, str], tuple[Mismatch, dict[str, Any]]] = {}
        for qs in failed_roots(card.questions, float(self.config.detection.threshold)):
            q = qs.question
            raw_aspect = str(q.aspect or "entity").strip().lower()
            if raw_aspect == "text":
                if self.defer_text:
                    continue
                aspect = "attribute"
            else:
                aspect = normalise_aspect(raw_aspect)
            if aspect is None:
                logger.info("vq2 detector: question %r has unknown aspect %r; skipped", q.text, raw_aspect)
                continue
            span = q.span
            answer = q.answer
            phrase, hints = locate("text" if raw_aspect == "text" else aspect, span, answer, prompt)
            if phrase is None:
                logger.info("vq2 detector: neither span %r nor answer %r of %r is in the prompt; skipped", span, answer, q.text)
                continue
            p_yes = qs.p_yes
            m = Mismatch(
                aspect=aspect,
                phrase=phrase,
                confidence=round(1.0 - p_yes, 6),
                source=self.name,
                evidence={"question": q.text, "p_yes": p_yes, "span": span or phrase, "answer": answer, **hints},
            )
            if raw_aspect == "text":
                m.evidence["kind"] = "text"
            if m.key() not in found:  # failed_roots is lowest P(yes) first: the first one is the strongest
                found[m.key()] = (
                    m,
                    {
                        "raw_aspect": raw_aspect,
                        "question": q.text,
                        "open_question": q.open_question,
                        "hints": hints,
                    },
                )
        chosen = sorted(found.values(), key=lambda pair: -pair[0].confidence)[:limit]
        if chosen and self.open_questions:
            self._add_corrections(image, chosen)
        return [m for m, _ in chosen]

    def _add_corrections(self, image: Image.Image, chosen: list[tuple[Mismatch, dict[str, Any]]]) -> None:
        templates = _open_templates()
        questions = []
        for m, info in chosen:
            aspect = "text" if info["raw_aspect"] == "text" else m.aspect
            # the generator's own short-answer form of a yes/no question ("what color is the car?") first
            questions.append(info["open_question"] or open_question(aspect, info["question"], info["hints"], templates))
        answers = self.models.vqa.answer([image] * len(questions), questions, max_new_tokens=self.max_new_tokens)
        for (m, info), question, ans in zip(chosen, questions, answers):
            ans = str(ans or "")
            m.correction = _correction(m.aspect, ans, info["hints"])
            m.evidence.update({"open_question": question, "open_answer": ans})
