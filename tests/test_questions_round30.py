"""Issue 39, round 30: rules of English for whole classes of prompts, each checked on prompts written for these tests
(none taken from a DSG file): a word that is only ever a describing word is a look, never part of a name; a genre set
off as a tag, and a style hung on a thing, describe that thing; what a participle covers a thing with is no subject of a
tag; a style written apart before a name is one describing word; days of the week and months of an act are asked
nowhere; a quoted text a doer is "with" is the picture's; "they" after a sentence about a body part is the posing person;
a describing past form between two bare nouns is a look; a part after a place with a pose of its own does that pose;
"single" stays in the name; a pose word with its place is one relation. All fail at the start of the round (80f5a63)."""

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


def test_a_genre_set_off_as_a_tag_describes_the_subject():
    # before: only "is the image in steampunk style?"
    qs = _questions("an old tram on a bridge, steampunk, 8k")
    assert "is the tram steampunk?" in qs and "is the image in steampunk style?" in qs
    qs = _questions("a lighthouse on a cliff, sci fi, artstation")
    assert "is the lighthouse sci fi?" in qs
    # a resolution or a site's name stays the picture's
    assert not any(q.startswith("is the tram 8k") for q in _questions("an old tram on a bridge, steampunk, 8k"))


def test_what_a_participle_covers_a_thing_with_is_no_subject_of_a_tag():
    # before: "is the snow detailed?"
    qs = _questions("a wooden cabin covered in snow, cozy, detailed")
    assert "is the cabin detailed?" in qs and "is the snow detailed?" not in qs
    qs = _questions("a fox wrapped in fog, twisted, eerie")
    assert "is the fox twisted?" in qs and "is the fog twisted?" not in qs


def test_a_describing_word_and_noun_naming_one_kind_stay_one_name():
    # only-describing words that with their noun name one kind of thing (adjective_names): one thing, no look
    qs = _questions("a tidal wave approaching a coastal road")
    assert "is there a tidal wave?" in qs and "is the wave tidal?" not in qs
    assert "is there outer space?" in _questions("a rocket in outer space")


def test_a_style_written_before_a_name_is_one_describing_word():
    # before: "is there a style living room?" (the "Victorian" lost)
    qs = _questions("a Victorian style living room with a fireplace")
    assert "is there a Victorian-style living room?" in qs and "is there a style living room?" not in qs
    qs = _questions("A row of Gothic style churches by a river.")
    assert "are there Gothic-style churches?" in qs and "are there style churches?" not in qs
    # the picture's style, and "style" as a verb, are read as before
    assert "is this a van gogh style painting?" in _questions("a van gogh style painting of a cat")
    assert "is the image in the victorian style?" in _questions("a house in the Victorian style")


def test_a_day_of_the_week_or_the_month_of_an_act_is_not_asked():
    # before: "is it september?", "is it a sunday morning?"
    qs = _questions("smartphones launched in September")
    assert "is it september?" not in qs and "are there smartphones?" in qs
    assert not any("september" in q.lower() for q in qs)
    qs = _questions("a farmers market on Sunday morning")
    assert "is it morning?" in qs and not any("sunday" in q.lower() for q in qs)
    # a time the picture shows, and the scene's month, are asked as before
    assert "is it a cold winter night?" in _questions("a cabin on a cold winter night")
    assert "is it december?" in _questions("a dog running in the snow in december")


def test_a_quoted_text_a_doer_is_with_is_written_in_the_picture():
    # before: "is the robot standing with the words?", "is the robot standing in the speech bubble?"
    qs = _questions("a robot standing with the words 'hello world' in a speech bubble")
    assert "is the robot standing with the words?" not in qs and "is the robot standing in the speech bubble?" not in qs
    assert "are the words in the speech bubble?" in qs and 'is "hello world" written in the image?' in qs
    qs = _questions("a green lizard sitting on a rock with the words 'stay calm' in a speech bubble")
    assert "is the lizard sitting with the words?" not in qs and "is the lizard sitting on the rock?" in qs
    # a sign with words keeps them
    assert 'is "stop" written on the sign?' in _questions("a man holding a sign with the words 'stop'")


def test_a_pronoun_after_a_sentence_about_a_body_part_is_the_posing_person():
    # before: "They are leaning to the right" was asked of nobody
    qs = _questions("Someone is in a wide stance. Left leg is far in front. They are leaning to the right.")
    assert "is the person leaning to the right?" in qs and "is the leg leaning to the right?" not in qs
    qs = _questions("The person is squatting. The left arm is raised. He is looking down.")
    assert "is the person looking down?" in qs
    # parts that are what "they" stands for stay the parts'
    assert "are the arms close to the body?" in _questions("The arms are bent. They are close to the body.")


def test_a_style_hung_on_a_thing_is_that_things_style_too():
    # before: only "is the image in the style of moebius?"
    qs = _questions("a futuristic white laboratory in the style of moebius")
    assert "is the laboratory in the style of moebius?" in qs and "is the image in the style of moebius?" in qs
    # not of a place the tagger hung it on
    assert "is the hill in the style of monet?" not in _questions("a castle on a hill in the style of monet")


def test_a_describing_past_form_between_two_bare_nouns_is_a_look():
    # before: "does the kitchen tile the backsplash?"
    qs = _questions("kitchen tiled backsplash with white cabinets")
    assert "is the kitchen backsplash tiled?" in qs and not any(q.startswith("does the kitchen tile") for q in qs)
    qs = _questions("brick lined path through a garden")
    assert "is the brick path lined?" in qs and "is the brick path through the garden?" in qs
    # a verb things do to things, or one of making, is read as before
    assert "does the dog chase the cat?" in _questions("dog chased cat")
    assert "does the man paint the fence?" in _questions("Man painted fence.")


def test_a_part_after_a_place_with_a_pose_of_its_own_does_that_pose():
    # before: "are the legs bent at the arms?", "are the legs raised?"; "is the knee hunched?"
    qs = _questions("legs bent at the knees and arms raised")
    assert "are the arms raised?" in qs and "are the legs bent at the knees?" in qs
    assert "are the legs bent at the arms?" not in qs and "are the legs raised?" not in qs
    qs = _questions("person bent at knee and body hunched over")
    assert "is the body hunched?" in qs and "is the knee hunched?" not in qs
    # parts listed before one pose share it
    qs = _questions("arms and legs crossed")
    assert "are the arms crossed?" in qs and "are the legs crossed?" in qs


def test_single_stays_in_the_name_and_is_no_look():
    # before: "is the cloud single?"; "a single red rose" asked nothing of a rose ("is there a single red?")
    qs = _questions("a single cloud in a blue sky")
    assert "is there a single cloud?" in qs and "is the cloud single?" not in qs
    qs = _questions("a single red rose in a vase")
    assert "is there a single rose?" in qs and "is the single rose red?" in qs and "is the single rose in the vase?" in qs
    assert not any("single red" in q for q in qs)
    # a verb "rose" is read as before
    assert "does the sun rise over the hills?" in _questions("The sun rose over the hills")


def test_a_pose_word_with_its_place_is_one_relation():
    # before: "are the arms parallel?" (the floor lost)
    qs = _questions("the arms are parallel to the floor")
    assert "are the arms parallel to the floor?" in qs and "are the arms parallel?" not in qs
    qs = _questions("left arm parallel to the ground, right arm bent")
    assert "is the left arm parallel to the ground?" in qs and "is the right arm bent?" in qs
    # a pose word said with no place is asked as before
    assert "are the knees parallel?" in _questions("The poser has both knees parallel with the floor.")
