"""One English inflection for the whole project: the template writer and the scene double agree."""

from __future__ import annotations

import pytest

from autoalign.doubles.scene.words import plural as scene_plural
from autoalign.doubles.scene.words import singular as scene_singular
from autoalign.editing.template_writer import pluralize
from autoalign.inflect import is_plural, plural, singular

NOUNS = ["apple", "box", "bus", "glass", "cherry", "boy", "mouse", "child", "knife", "potato", "photo", "dish",
         "sheep", "shoe", "leaf", "person", "tooth", "watch"]


@pytest.mark.parametrize("noun", NOUNS)
def test_singular_undoes_plural_and_every_user_gets_the_same_plural(noun):
    assert singular(plural(noun)) == noun
    assert pluralize(noun) == scene_plural(noun) == plural(noun)
    assert scene_singular(plural(noun)) == noun
    assert is_plural(plural(noun)) == (plural(noun) != noun) and not is_plural(noun)


def test_irregular_and_rule_plurals():
    assert [plural(w) for w in ("mouse", "cherry", "boy", "potato", "photo", "box")] == [
        "mice", "cherries", "boys", "potatoes", "photos", "boxes"]
    assert plural("Box") == "Boxes"  # the writer's capitalised nouns keep their case
