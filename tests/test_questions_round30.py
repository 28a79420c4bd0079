"""Issue 39, round 30: rules of English for whole classes of prompts, each checked on prompts written for these tests
(none taken from a DSG file): a word that is only ever a describing word is a look, never part of a name."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_word_only_ever_describing_is_a_look_not_a_kind():
    # before: "is the tree a bare tree?", "is the vase a fragrant vase?"
    qs = _questions("Behind the fence is a small, bare tree.")
    assert "is the tree bare?" in qs and "is the tree a bare tree?" not in qs
    qs = _questions("a sturdy ladder beside a pyramidal tent")
    assert "is the ladder sturdy?" in qs and "is the tent pyramidal?" in qs
    # a word that also names a thing makes names, asked as a kind, as before
    assert "is the piano a grand piano?" in _questions("a grand piano in a hall")
    assert "is the pad a lily pad?" in _questions("a frog on a lily pad")
    assert "is the yard a front yard?" in _questions("a dog sleeping in the front yard")
