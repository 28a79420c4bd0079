"""One reading of a prompt's layout: the layout planner's objects and relations are a view of
:func:`autoalign.grounding.read_layout` (the parse is read once, in one place), and the two share one
home for their number and relation words (``prompts/layout_plan.json``)."""

from __future__ import annotations

from autoalign import grounding
from autoalign.editing import layout_plan
from autoalign.editing.layout_plan import wanted, words
from autoalign.grounding import COUNT_WORDS, DIRECTIONS, Layout, LayoutObject, LayoutRelation


def test_the_planner_reads_no_prompt_itself(monkeypatch):
    """The planner's layout is built from grounding.read_layout's objects and relations: a stand-in reading
    (a named test double) is what the planner sees, word for word."""
    stand_in = Layout(
        objects=[
            LayoutObject("three small red circles", "circle", ["red"], 3, 2, "small", lemma="circle",
                         attributes=["small"], numbers=["three"], plural=True),
            LayoutObject("squares", "square", [], None, 6, lemma="square", attributes=["striped"], plural=True),
        ],
        relations=[LayoutRelation("to the left of", "left", 0, 1, parsed="left of"),
                   LayoutRelation("Above", "above", 1, 0, parsed="Above")],  # not a relation word as written
    )
    monkeypatch.setattr(grounding, "read_layout", lambda prompt: stand_in)
    layout = layout_plan.read_layout("whatever the prompt")
    assert [(w.noun, w.count, w.attrs, w.size) for w in layout.objects] == [
        ("circle", 3, ("red",), "small"), ("square", 2, ("striped",), None)]
    assert layout.relations == [(0, "left of", 1)]


def test_a_bare_plural_is_unsaid_to_the_reading_and_two_to_the_planner():
    (circles, _square) = grounding.read_layout("red circles above a blue square").objects
    assert circles.count is None and circles.plural and not circles.numbers
    assert wanted(circles).count == 2


def test_one_home_for_the_number_and_relation_words():
    # the planner's number words are the reading's count words less the count nouns: "pair" counts two words
    # before a noun to the reading ("a red pair shoes"), never to the planner ("shoes set of pair": one)
    assert {w: n for w, n in COUNT_WORDS.items() if w not in words()["count_nouns"]} == words()["numbers"]
    assert COUNT_WORDS["pair"] == 2 and "pair" not in words()["numbers"]
    # every planner relation word is one of the reading's, with the direction of its (dx, dy)
    unit = {"left": [-1, 0], "right": [1, 0], "above": [0, -1], "below": [0, 1]}
    assert {w: unit[d] for w, d in DIRECTIONS.items()} == words()["relations"]
    # written as the reading normalises a parsed word (lower case, single spaces), so every relation the
    # planner keeps is one the reading keeps
    assert all(" ".join(w.lower().split()) == w for w in words()["relations"])
