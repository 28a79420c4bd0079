"""Issue 39, round 21: verbs of turning asked with their direction, and runs of comma-separated tags that are no list of
things. Each case failed before its rule (the prompts are written for the tests, not taken from a DSG file)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_verb_of_turning_is_asked_with_its_direction():
    qs = _questions("arms are bent down, head is looking forward")
    assert "is the head looking forward?" in qs and "is the head looking?" not in qs
    qs = _questions("the torso is leaning left, the right knee is bent")
    assert "is the torso leaning left?" in qs and "is the torso leaning?" not in qs


def test_a_direction_after_a_degree_word_or_as_to_the_side():
    assert "is the man looking straight ahead?" in _questions("a man looking straight ahead")
    qs = _questions("a woman standing on one leg. Her head is turned slightly to the right.")
    assert "is the head turned to the right?" in qs and "is the head turned?" not in qs
    assert not any("a right?" in q for q in qs)


def test_a_verb_of_turning_joined_to_a_state_keeps_its_direction():
    qs = _questions("The right arm is bent and facing down.")
    assert "is the arm facing down?" in qs and "is the arm facing?" not in qs


def test_a_turned_body_part_is_not_asked_twice():
    qs = _questions("head turned left, legs bent forward")
    assert "is the head turned left?" in qs
    assert "is the head turned?" not in qs and "is the head left?" not in qs


def test_a_verb_of_turning_with_an_object_is_unchanged():
    qs = _questions("a dog looking up at the moon")
    assert "is the dog looking up at the moon?" in qs


def test_a_place_in_a_run_of_tags_is_only_its_own_things():
    qs = _questions("Plastic doll at the mall, chic hat, short skirt, balloons in the air, Kodak, Fuji film, redshift, IMAX")
    assert "is the doll at the mall?" in qs and "are the balloons in the air?" in qs
    assert "is the doll at the skirt?" not in qs  # (the tagger hung the later tags on "mall" as a list)


def test_a_verb_object_is_not_carried_across_a_comma_in_a_run_of_tags():
    qs = _questions("spooky fox wrapped in mist, glowing eyes, glowing rune magic, occult, twisted")
    assert "is the fox wrapped in mist?" in qs
    assert not any("glowing the" in q for q in qs)


def test_a_list_with_and_still_shares_its_place():
    qs = _questions("a pear, an apple, and two bananas in a bowl")
    assert "is the pear in the bowl?" in qs and "is the apple in the bowl?" in qs and "are the bananas in the bowl?" in qs


def test_with_a_body_part_and_its_pose_says_how_the_part_is():
    qs = _questions("a dancer is standing with legs crossed")
    assert "are the legs crossed?" in qs and "is the dancer standing?" in qs
    assert "is the dancer crossed?" not in qs and "is the dancer standing with the legs?" not in qs


def test_a_place_right_after_with_and_a_body_part_is_the_parts():
    qs = _questions("the right arm hangs down with hand near the knee")
    assert "is the hand near the knee?" in qs and "is the arm hanging down?" in qs
    assert not any("with the hand" in q for q in qs) and "does the arm hang down near the knee?" not in qs


def test_with_a_thing_doing_something_is_no_company():
    qs = _questions("a gymnast is resting with her hands touching the floor")
    assert "is the gymnast resting?" in qs and "is the gymnast resting with the hands?" not in qs
    qs = _questions("a guard stands in a doorway, with a lamp flashing warnings")
    assert "does the guard stand with the lamp?" not in qs and "does the guard stand in the doorway?" in qs


def test_with_a_thing_and_a_place_of_its_own_is_still_company():
    qs = _questions("a man walking with an umbrella in the rain")
    assert "is the man walking with the umbrella?" in qs and "is the umbrella in the rain?" in qs


def test_a_word_in_a_nouns_place_with_an_article_is_a_noun():
    qs = _questions("two kids feeding a woolly mammoth at the zoo")  # ("mammoth" tagged a describing word)
    assert "is there a mammoth?" in qs and "is the mammoth woolly?" in qs and "are the kids feeding the mammoth?" in qs
    qs = _questions("Grape vines in the shape of text  stay open  sprouting out of a boot.")  # ("vines" tagged a verb)
    assert "are there Grape vines?" in qs and "are the Grape vines in the shape of text?" in qs


def test_a_word_of_a_text_is_no_look_of_a_thing():
    qs = _questions("Rose vines in the shape of text  open your heart  growing out of a teapot. DSLR photo.")
    assert 'is "open your heart" written on the rose vines?' in qs and "are the rose vines open?" not in qs


def test_an_arrangement_of_things_is_no_thing_of_its_own():
    qs = _questions("An arrangement of five green glass bottles with shadows on a grey background")
    assert "are there five glass bottles?" in qs and "is there an arrangement?" not in qs
    assert not any("the arrangement" in q for q in qs)
    assert "is there a heap?" not in _questions("a heap of red apples")


def test_a_body_part_after_with_keeps_its_own_pose():
    qs = _questions("a gymnast is balancing on the right leg with the left leg sticking out")
    assert "is the left leg sticking out?" in qs and "is the gymnast balancing on the right leg?" in qs
    assert "does the right leg have a leg?" not in qs and not any("with the left leg" in q for q in qs)


def test_what_a_thing_is_filled_with_is_no_absolute_clause():
    qs = _questions("a library filled with kids reading books")  # (no comma: the kids are what fills it)
    assert "is the library filled with the kids?" in qs
