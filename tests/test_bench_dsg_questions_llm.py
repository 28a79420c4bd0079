"""The DSG question benchmark's LLM path (``--generator llm``) with an LLM test double (never a server, never
../shared/data)."""

from __future__ import annotations

import csv
import json

from autoalign import registry
from autoalign.benchmarks.dsg_questions import Lemmas, Matcher, facts_from_questions, main, read_anns, split_of
from autoalign.models.llm import LLMError
from autoalign.types import Question

HEADER = ["item_id", "text", "keywords", "proposition_id", "dependency", "category_broad", "category_detailed", "tuple", "question_natural_language"]
DOGS = "two brown dogs on a red sofa"
HORSE = "a photo of a man riding a horse"
# two items of the same part, so that one run over that part reads both
ITEMS = [i for i in (f"vrd_{n}" for n in range(40)) if split_of(i) == "held"][:2]

# what the double answers for each prompt (DSG's reply shape); HORSE gets no valid reply
REPLIES = {
    DOGS: {"questions": [
        {"id": "1", "question": "are there dogs?", "aspect": "entity", "answer": "dogs", "span": "dogs", "depends_on": []},
        {"id": "2", "question": "how many dogs are there?", "aspect": "number", "answer": "two", "span": "two brown dogs", "depends_on": ["1"]},
        {"id": "3", "question": "what color are the dogs?", "aspect": "attribute", "answer": "brown", "span": "brown dogs", "depends_on": ["1"]},
        {"id": "4", "question": "is there a sofa?", "aspect": "entity", "answer": "sofa", "span": "a red sofa", "depends_on": []},
        {"id": "5", "question": "what are the dogs on?", "aspect": "relation", "answer": "sofa", "span": "dogs on a red sofa", "depends_on": ["1"]},
    ]},
}


@registry.register("llm", "dsg-reply-double")
class DSGReplyDouble:
    """Test double of the ``llm`` role: canned DSG replies by prompt; an LLMError for any other prompt."""

    def __init__(self, spec, device=None):
        self.spec = spec
        self.calls = 0
        self.model = "dsg-reply-double"

    def complete_json(self, messages, schema, name):
        self.calls += 1
        prompt = messages[-1]["content"].removeprefix("Prompt: ")
        if prompt not in REPLIES:
            raise LLMError("the double has no reply for this prompt")
        return REPLIES[prompt]


def _anns(path):
    rows = [
        (ITEMS[0], DOGS, "entity", "whole", "entity - whole (dogs)"),
        (ITEMS[0], DOGS, "other", "count", "other - count (dogs, ==2)"),
        (ITEMS[0], DOGS, "attribute", "color", "attribute - color (dogs, brown)"),
        (ITEMS[0], DOGS, "attribute", "color", "attribute - color (sofa, red)"),  # the double does not ask it
        (ITEMS[0], DOGS, "relation", "spatial", "relation - spatial (dogs, sofa, on)"),
        (ITEMS[1], HORSE, "entity", "whole", "entity - whole (man)"),
        (ITEMS[1], HORSE, "action", " ", "action -  (man, horse, ride)"),
    ]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for item, text, broad, detailed, tup in rows:
            w.writerow([item, text, "", "1", "0", broad, detailed, tup, "?"])
    return path


def _questions(*rows):
    return [Question(id=i, text=t, answer=a, aspect=k, span=s, depends_on=d) for i, t, a, k, s, d in rows]


def test_llm_questions_are_read_as_the_tuples_the_matching_rule_reads(tmp_path):
    lemmas = Lemmas()
    questions = _questions(
        ("1", "is there a cat?", "cat", "entity", "a black cat", []),
        ("2", "is the cat black?", "black", "attribute", "black cat", ["1"]),
        ("3", "is there a table?", "table", "entity", "the table", []),
        ("4", "what is the cat under?", "table", "relation", "cat under the table", ["1"]),  # object from the answer
        ("5", "is the cat sitting?", "yes", "relation", "cat sitting", ["1"]),  # "yes": the span's words
        ("6", "is this a watercolor?", "watercolor", "attribute", "a watercolor", []),  # no thing: the picture's
        ("7", 'what is written on the sign?', '"OPEN"', "text", 'the word "OPEN"', []),
        ("8", "how many cats?", "three", "number", "three cats", ["2"]),  # through the attribute to the cat
        ("9", "what color is the table?", "brown", "attribute", "brown table", []),  # no dependency named: the table
        ("10", "how many balls are there?", "two", "number", "two balls", []),  # no ball asked: the span's head
    )
    facts = {f.question.id: (f.category, f.args) for f in facts_from_questions(questions, lemmas)}
    assert facts["1"] == ("entity", ("cat",))
    assert facts["2"] == ("attribute", ("cat", "black"))
    assert facts["4"][0] == "relation" and facts["4"][1][0::2] == ("cat", "table")
    assert "under" in facts["4"][1][1].split() and "table" not in facts["4"][1][1].split()
    assert facts["5"][1][0] == "cat" and "sitting" in facts["5"][1][1]
    assert facts["6"] == ("global", ("watercolor",))
    assert facts["7"] == ("text", ("OPEN",))
    assert facts["8"] == ("count", ("cat", "three"))
    assert facts["9"] == ("attribute", ("table", "brown"))
    assert facts["10"] == ("count", ("ball", "two"))
    # and the matching rule covers the human tuples they state
    path = tmp_path / "a.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        prompt = 'a watercolor of three black cats sitting under the table, a sign with the word "OPEN"'
        for broad, detailed, tup in (("relation", "spatial", "relation - spatial (cat, table, under)"),
                                     ("action", " ", "action -  (cat, sit)"), ("global", " ", "global -  (watercolor)"),
                                     ("other", "text rendering", 'other - text rendering (sign, "OPEN")'),
                                     ("other", "count", "other - count (cat, ==3)"),
                                     ("relation", "spatial", "relation - spatial (cat, table, on)")):
            w.writerow(["p", prompt, "", "1", "0", broad, detailed, tup, "?"])
    matcher = Matcher(lemmas)
    got = [matcher.match(h, facts_from_questions(questions, lemmas)) for h in read_anns(path)]
    assert [f.question.id if f else None for f in got] == ["4", "5", "6", "7", "8", None]


def test_llm_generator_is_measured_beside_the_offline_one_on_the_same_prompts(tmp_path):
    anns = _anns(tmp_path / "anns.csv")
    out_jsonl, page_path = tmp_path / "q.jsonl", tmp_path / "page.json"
    argv = ["--anns", str(anns), "--generator", "llm", "--llm-backend", "dsg-reply-double", "--part", "held",
            "--questions-out", str(out_jsonl), "--results-json", str(page_path), "--json"]
    out = main(argv)
    assert out["prompts"] == 2 and out["human_tuples"] == 7
    # DOGS answered by the double: 4 of its 5 tuples (the sofa's colour is not asked)
    replies = out["llm_replies_only"]["by_category_broad"]["all"]
    assert (replies["recall"], replies["n"]) == (0.8, 5)
    # HORSE: the double fails, the offline generator answers, as a user's run would
    rep = out["replies"]
    assert rep["fell_back_to_offline"]["value"] == 0.5 and rep["valid_first_request"]["value"] == 0.5
    rows = [json.loads(line) for line in out_jsonl.read_text().splitlines()]
    assert [r["fell_back"] for r in rows] == [False, True] or [r["fell_back"] for r in rows] == [True, False]
    paired = out["paired_llm_minus_offline"]["all"]
    assert paired["prompts"] == 2 and paired["tuples"] == 7
    page = json.loads(page_path.read_text())
    assert set(page) == {"title", "command", "measures", "tables"} and "--generator llm" in page["command"]
    assert page["tables"][0]["rows"][0][0] == "LLM (fallback: offline)"
    # a rerun reads the answered prompts back (no request for them) and asks only those that are missing
    out_jsonl.write_text(out_jsonl.read_text().splitlines()[0] + "\n")
    again = main(argv)
    assert again["llm_generator"] == out["llm_generator"]
    assert len(out_jsonl.read_text().splitlines()) == 2


def test_a_bad_llm_option_is_a_one_line_error(tmp_path, capsys):
    anns = _anns(tmp_path / "anns.csv")
    try:
        main(["--anns", str(anns), "--generator", "llm", "--llm-backend", "dsg-reply-double", "--llm-option", "timeout"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("no exit")
    assert "--llm-option wants KEY=VALUE" in capsys.readouterr().err
