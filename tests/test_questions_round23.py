"""Issue 39, round 23: two overreaches of round 22's pose rules mended, and attributes / relations / sensible questions
from the tuning part's misses. Each case failed before its rule (the prompts are written for the tests, not taken from
a DSG file)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_hyphenated_noun_ending_in_a_pose_word_is_a_thing():
    # "sit-up" ends in "up", a pose word, but the whole word is a noun (round 22 dropped it in a pose text)
    # (since round 24 an act done, ``acts``, is asked with its verb and an article, not as a thing to see)
    qs = _questions("a man doing a sit-up on the floor, knees bent")
    assert "is the man doing a sit-up?" in qs and "is the man on the floor?" in qs
    qs = _questions("a woman doing a push-up on a mat with her arms straight")
    assert "is the woman doing a push-up?" in qs
    # a body part + "-ed" after a hyphen is still a pose word, not a thing
    qs = _questions("standing flat-footed with both arms down")
    assert not any("footed?" in q and q.startswith("is there") for q in qs)


def test_a_pose_word_that_takes_a_preposition_is_part_of_the_relation():
    qs = _questions("the right arm is held roughly level with the shoulder, left leg bent")
    assert "is the arm held level with the shoulder?" in qs
    assert not any(q.endswith("held with the shoulder?") or q.endswith("hold with the shoulder?") for q in qs)
    qs = _questions("right arm extended parallel to the floor, palm down")
    assert "is the arm extended parallel to the floor?" in qs
    qs = _questions("the left leg is straight and perpendicular to the ground")
    assert "is the leg perpendicular to the ground?" in qs and "is the leg to the ground?" not in qs
    qs = _questions("the left arm is raised, with the hand level with the head")
    assert "is the hand level with the head?" in qs and "does the hand have a head?" not in qs
    # a thing named "level" keeps its own "with"
    assert "does the spirit level have a handle?" in _questions("a spirit level with a yellow handle")


def test_a_describing_tag_is_also_asked_of_the_subject():
    qs = _questions("a wooden cabin beside a frozen lake, atmospheric, highly detailed, red and white, artstation, 8k")
    # (round 28: the lake is the cabin's place, no subject of a tag; the cabin is: "is the cabin highly detailed?")
    assert "is the cabin highly detailed?" in qs and "is the cabin red and white?" in qs
    assert "is the image highly detailed?" in qs  # still a look of the picture
    assert not any(q.startswith(("is the lake", "is the cabin")) and ("8k" in q or "artstation" in q) for q in qs)


def test_a_describing_tag_is_not_asked_of_a_place_on_the_way():
    qs = _questions("a maid at the store, groceries in the air, kodak, photoreal")
    assert "is the air photoreal?" not in qs


def test_a_lower_case_noun_in_a_prompt_without_articles_is_a_thing_not_a_name():
    # a relation list written without any article: "van", "bush" are read as names by the small tagger
    qs = _questions("person next to van. sky above bush")
    assert "is there a van?" in qs and "is there a bush?" in qs
    assert "is the person next to the van?" in qs and "is the sky above the bush?" in qs
    # a name written as one keeps no article
    assert "is there Greta Thunberg?" in _questions("Greta Thunberg holding a sign")


def test_a_game_played_is_no_thing():
    qs = _questions("a man playing tennis on a court")
    assert "is there tennis?" not in qs and "is the man playing tennis?" in qs and "is there a court?" in qs
    qs = _questions("a woman playing the guitar on a stage")
    assert "is there a guitar?" in qs
    qs = _questions("kids playing soccer in a park")
    assert "are the kids playing soccer?" in qs and "are the kids in the park?" in qs and "is the soccer in the park?" not in qs


def test_a_film_still_is_the_frame_not_a_film():
    qs = _questions("35mm film still of a woman in a diner")
    assert "is this a 35mm film still?" in qs and "is there a woman?" in qs
    assert not any("film?" in q and q.startswith("is there") for q in qs) and "is there a mm film?" not in qs
    qs = _questions("a movie still of a man on a horse")
    assert "is this a movie still?" in qs and "is this a still?" not in qs and "is there a movie?" not in qs
    assert "is there a film?" in _questions("the film is still wet")


def test_an_ing_word_after_made_of_describes_the_material():
    qs = _questions("a man made of swirling smoke standing in a doorway")
    assert "is the man swirling smoke?" not in qs
    assert "is the man made of smoke?" in qs and "is the smoke swirling?" in qs and "is the man standing in the doorway?" in qs


def test_what_a_container_holds_is_in_it():
    qs = _questions("A bowl of ice cream is inside the microwave")
    assert "is the ice cream in the bowl?" in qs and "is the bowl inside the microwave?" in qs
    qs = _questions("a plate of cookies and a glass of milk on a table")
    assert "are the cookies on the plate?" in qs and "is the milk in the glass?" in qs
    qs = _questions("a bike at the side of the road")  # a side holds nothing
    assert "is the bike at the side of the road?" in qs and not any(q.startswith("is the road") for q in qs)


def test_a_verb_of_a_relation_list_is_no_part_of_a_name():
    qs = _questions("person ride boat. boat has person")
    assert "does the person ride the boat?" in qs and "is there a person ride boat?" not in qs
    qs = _questions("bear walk past grass. sky above bear")
    assert "does the bear walk past grass?" in qs and "is there a bear walk?" not in qs
    # with articles it is a name as written
    assert "is there a bus park?" in _questions("a bus park on a road")


def test_a_particle_after_another_thing_is_not_the_verbs():
    qs = _questions("The person is leaning toward the right with their right arm up and left arm bent.")
    assert "is the person leaning toward the right?" in qs and "is the person leaning up?" not in qs
    assert "is the right arm up?" in qs
    assert "is the man picking up the cup?" in _questions("a man picking the cup up from the floor")


def test_singular_they_is_the_person_of_the_sentence_before():
    qs = _questions("Someone is in a wide stance. They are leaning to the right.")
    assert "is the person leaning to the right?" in qs
    qs = _questions("The person is standing. They are holding a cup.")
    assert "is the person holding the cup?" in qs


def test_colours_said_by_how_many_are_the_things_look():
    assert "is the vase in different colors?" in _questions("a vase with different colors on a table")
    assert "are the balloons in different colors?" in _questions("balloons in different colors")
    qs = _questions("a bird in black and white colors")
    assert "is the bird in black?" in qs and "is the bird in white?" in qs


def test_the_artists_of_a_thing_made_by_them_are_asked_of_it():
    qs = _questions("a castle on a cliff, painted by ivan shishkin and albert bierstadt, 8k")
    assert "is the castle painted by ivan shishkin?" in qs and "is the castle painted by albert bierstadt?" in qs
    assert "is the castle painted?" not in qs and "is the image in the style of ivan shishkin?" in qs


def test_a_layout_quantity_is_the_things_look():
    qs = _questions("a row of five red cars parked on a street")
    assert "are the cars in a row?" in qs and "are there five cars?" in qs and "is there a row?" not in qs
    assert "are the books in a pile?" in _questions("a pile of books on a desk")
    assert not any(" in a group" in q for q in _questions("a group of giraffes"))


def test_a_work_a_picture_comes_from_and_its_maker_are_no_things():
    qs = _questions("film still from David Lynch's remake of a western, a man on a horse")
    assert "is there David Lynch?" not in qs and "is there a remake?" not in qs
    assert "is this a film still?" in qs and "is the man on the horse?" in qs
    qs = _questions("a scene from Tarantino's movie, a man in a suit")
    assert "is there Tarantino?" not in qs and "is the man in the suit?" in qs
    assert "is there a man?" in _questions("a man's hat on a table")


def test_a_word_and_a_participle_before_a_thing_are_one_look():
    qs = _questions("a heart shaped box on a table")
    assert "is the box heart shaped?" in qs and "is there a heart?" not in qs and "is the box on the table?" in qs
    qs = _questions("a woman at a pirate themed party")
    assert "is the party pirate themed?" in qs and "is the woman at the party?" in qs and "is there a pirate?" not in qs
    qs = _questions("a kitchen with a moroccan inspired backsplash")
    assert "is the backsplash moroccan inspired?" in qs and "is the backsplash inspired?" not in qs


def test_a_style_of_names_ends_at_the_comma():
    qs = _questions("a portrait of a woman in the style of Alex Grey and Norman Rockwell, fantasy, 8k")
    assert "is the image in the style of Alex Grey and Norman Rockwell?" in qs
    assert "is the image in fantasy style?" in qs


def test_a_tag_of_a_part_with_a_look_is_the_subjects():
    qs = _questions("two wolves in a forest, glowing eyes")
    assert "do the wolves have glowing eyes?" in qs and "does the image have glowing eyes?" not in qs
    assert "does the forest have glowing eyes?" not in qs
