"""Question generation: the offline spaCy (VQ2) generator, its F1 filter, the LLM (DSG) generator, caching."""

from __future__ import annotations

import logging

import pytest

from autoalign.config import RoleSpec
from autoalign.models.llm import OpenAILLM
from autoalign.scoring.f1 import ANSWER_F1_THRESHOLD, consistent, token_f1
from autoalign.scoring.questions import (
    LLMQuestions,
    SpacyQuestions,
    cached_questions,
    clear_cache,
    filter_consistent,
)
from autoalign.scoring.text_qa import RuleTextAnswerer
from autoalign.types import Question


def spacy_gen(**options) -> SpacyQuestions:
    return SpacyQuestions(RoleSpec("spacy", None, options))


def as_rows(questions):
    return [(q.aspect, q.text, q.answer, q.span, q.depends_on) for q in questions]


def test_spacy_questions_for_two_red_apples_on_a_blue_plate():
    qs = spacy_gen().generate("two red apples on a blue plate")
    assert as_rows(qs) == [
        ("entity", "are there apples?", "apples", "two red apples", []),
        ("number", "are there two apples?", "two", "two red apples", ["q1"]),
        ("attribute", "are the apples red?", "red", "red apples", ["q1"]),
        ("entity", "is there a plate?", "plate", "a blue plate", []),
        ("attribute", "is the plate blue?", "blue", "blue plate", ["q4"]),
        ("relation", "are the apples on the plate?", "plate", "apples on a blue plate", ["q1", "q4"]),
    ]
    # short-answer forms where they tell the detector what the image shows instead
    assert [q.open_question for q in qs] == [
        "", "how many apples are there?", "what color are the apples?", "", "what color is the plate?", ""]


def test_spacy_questions_cover_verbs_compound_prepositions_and_quoted_text():
    qs = spacy_gen().generate('a photo of a tall man holding a sign that says "hello world"')
    texts = {q.text: q.answer for q in qs}
    assert texts["is the man holding the sign?"] == "sign"
    assert texts['is "hello world" written on the sign?'] == "hello world"
    assert texts["is the man tall?"] == "tall"
    assert "is there a photo?" not in texts  # "a photo of" frames the picture ...
    assert [q.aspect for q in qs if q.text == "is this a photo?"] == ["global"]  # ... and is asked about the picture
    texts = {q.text: q.answer for q in spacy_gen().generate("a cat in front of a red car")}
    assert texts["is the cat in front of the car?"] == "car"
    texts = {q.text: q.answer for q in spacy_gen().generate("a New York skyline with 'hello' written on it, a car on the left of a bus")}
    assert texts["is there a New York skyline?"] == "New York skyline"  # compounds kept together
    assert texts['is "hello" written on the New York skyline?'] == "hello"  # single quotes, not apostrophes
    assert texts["is the car on the left of the bus?"] == "bus"


def test_filter_drops_short_answer_pairs_the_text_does_not_support():
    qs = [q for q in spacy_gen(filter=False).generate("a red car")]
    answers = ["green" if q.open_question else q.answer for q in qs]
    kept, dropped = filter_consistent(qs, answers)
    assert [d["question"].text for d in dropped] == ["is the car red?"]  # "what color is the car?" -> "green" != "red"
    # the real rule answerer supports every pair it can read back, so nothing is dropped here
    gen = spacy_gen()
    assert len(gen.generate("a red car")) == 2 and gen.last_dropped == []


def test_same_named_things_get_bound_questions_not_contradicting_ones():
    texts = [q.text for q in spacy_gen().generate("a red apple and a green apple")]
    assert texts == ["is there an apple?", "is there a red apple?", "is there a green apple?"]
    texts = [q.text for q in spacy_gen().generate("left leg is straight, right leg is bent")]
    assert "is the left leg straight?" in texts and "is the right leg bent?" in texts


def test_token_f1_squad_normalisation():
    assert token_f1("The Red car!", "red car") == 1.0
    assert token_f1("red", "red car") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0 and token_f1("", "car") == 0.0


def test_f1_filter_boundary_at_0_54():
    assert ANSWER_F1_THRESHOLD == 0.54
    # 2 of 5 predicted tokens match a 2-token answer: P=0.4, R=1, F1=0.571 >= 0.54 -> kept
    # 2 of 6 predicted tokens match: P=1/3, R=1, F1=0.5 < 0.54 -> dropped
    assert token_f1("big red car on road", "red car") == pytest.approx(4 / 7)
    assert token_f1("big red car on wet road", "red car") == pytest.approx(0.5)
    qs = [Question("a", "q?", "red car"), Question("b", "q?", "red car", depends_on=["a"]), Question("c", "q?", "x", depends_on=["b"])]
    kept, dropped = filter_consistent(qs, ["big red car on road", "big red car on wet road", "x"])
    assert [q.id for q in kept] == ["a", "c"] and [d["question"].id for d in dropped] == ["b"]
    assert kept[1].depends_on == []  # a dependency on a dropped question is removed
    assert consistent("a b c d e f g h i j k l m", "a b c d e f g", threshold=token_f1("a b c d e f g h i j k l m", "a b c d e f g"))


def test_rule_answerer_answers_from_the_text_only():
    qa = RuleTextAnswerer()
    text = "three dogs next to a yellow taxi"
    assert qa.answer(text, ["how many dogs are there?", "what color is the taxi?", "what are the dogs next to?", "is there a cat?", "why?"]) == [
        "three", "yellow", "taxi", "", ""]


def dsg_reply():
    return {
        "questions": [
            {"id": 1, "question": "is there a dog?", "aspect": "entity", "answer": "dog", "span": "a brown dog", "depends_on": []},
            {"id": "2", "question": "what color is the dog?", "aspect": "attribute", "answer": "brown", "span": "brown dog", "depends_on": ["1", "9"]},
        ]
    }


def stub_llm(stub) -> OpenAILLM:
    return OpenAILLM(RoleSpec("openai", "stub-model", {"base_url": stub.url, "max_retries": 0, "timeout": 5, "json_retries": 1}))


def test_llm_questions_from_valid_json(openai_stub):
    openai_stub.push_json(dsg_reply())
    llm = stub_llm(openai_stub)
    gen = LLMQuestions(RoleSpec("llm", None, {}))
    rows = as_rows(gen.generate("a brown dog", lambda: llm))
    assert rows == [
        ("entity", "is there a dog?", "dog", "a brown dog", []),
        ("attribute", "what color is the dog?", "brown", "brown dog", ["1"]),  # unknown id 9 dropped
    ]
    assert not gen.fell_back
    sent = openai_stub.requests[0]["body"]
    assert sent["messages"][-1]["content"] == "Prompt: a brown dog"
    assert any("two red apples" in m["content"] for m in sent["messages"])  # few-shot examples included


def test_llm_questions_malformed_json_retries_then_falls_back_to_spacy(openai_stub, caplog):
    openai_stub.push_text("here are questions: {oops").push_json({"questions": [{"id": "1"}]})
    gen = LLMQuestions(RoleSpec("llm", None, {}))
    with caplog.at_level(logging.WARNING):
        qs = gen.generate("a brown dog", lambda: stub_llm(openai_stub))
    assert len(openai_stub.requests) == 2  # first try + one retry
    assert gen.fell_back
    assert as_rows(qs) == [
        ("entity", "is there a dog?", "dog", "a brown dog", []),
        ("attribute", "is the dog brown?", "brown", "brown dog", ["q1"]),
    ]
    assert "using the spaCy generator instead" in caplog.text


def test_cached_questions_generate_once_and_persist_on_disk(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOALIGN_HOME", str(tmp_path))
    clear_cache()

    class CountingGenerator:
        """A question-generator double counting its calls."""

        calls = 0

        def generate(self, prompt, llm=None):
            self.calls += 1
            return [Question("q1", "is there a cat?", "cat")]

    gen, spec = CountingGenerator(), RoleSpec("spacy", None, {})
    a = cached_questions("a cat", spec, gen)
    b = cached_questions("a cat", spec, gen)
    assert gen.calls == 1 and a == b and a is not b
    assert len(list((tmp_path / "cache" / "questions").glob("*.json"))) == 1
    clear_cache()  # a new process: read back from disk
    assert cached_questions("a cat", spec, gen) == a and gen.calls == 1
    cached_questions("a cat", RoleSpec("spacy", None, {"filter": False}), gen)  # other settings: new entry
    assert gen.calls == 2


def test_spacy_generator_can_filter_with_the_llm_answering_on_text(openai_stub):
    # "a red car and a dog": only "is the car red?" has a short-answer form ("what color is the car?");
    # the LLM (stub) answers it on the text and gets the colour wrong
    openai_stub.push_json({"answers": ["blue"]})
    gen = spacy_gen(qa="llm")
    llm = stub_llm(openai_stub)
    kept = gen.generate("a red car and a dog", lambda: llm)
    assert [q.text for q in kept] == ["is there a car?", "is there a dog?"]
    assert [d["question"].answer for d in gen.last_dropped] == ["red"]
    asked = openai_stub.requests[0]["body"]["messages"][-1]["content"]
    assert "Text: a red car and a dog" in asked and "1. what color is the car?" in asked


# ---- the DSG-style offline generator -----------------------------------------------------------------


def facts(prompt):
    from autoalign.scoring.parse import parse_prompt
    from autoalign.scoring.questions import facts_from_parse

    return facts_from_parse(parse_prompt(prompt))


SHAPES = {
    # shapes-world captions the lead trains a VLM on: existence, colour, count, size, relation, nothing else
    "two red circles and a blue square": [
        "are there circles?", "are there two circles?", "are the circles red?", "is there a square?", "is the square blue?"],
    "a small green triangle to the left of a yellow circle": [
        "is there a triangle?", "is the triangle small?", "is the triangle green?", "is there a circle?", "is the circle yellow?",
        "is the triangle to the left of the circle?"],
    "three purple squares": ["are there squares?", "are there three squares?", "are the squares purple?"],
    "a big red square above a small blue circle": [
        "is there a square?", "is the square big?", "is the square red?", "is there a circle?", "is the circle small?",
        "is the circle blue?", "is the square above the circle?"],
    "one yellow triangle below two green squares": [
        "is there a triangle?", "is there one triangle?", "is the triangle yellow?", "are there squares?", "are there two squares?",
        "are the squares green?", "is the triangle below the squares?"],
}


@pytest.mark.parametrize("caption", sorted(SHAPES))
def test_shapes_world_captions_give_clean_questions(caption):
    got = spacy_gen().generate(caption)
    assert [q.text for q in got] == SHAPES[caption]
    by_text = {q.text: q for q in got}
    for q in got:  # every attribute, count and relation hangs on the existence question(s) of its thing(s)
        if q.aspect == "entity":
            assert q.depends_on == []
        else:
            assert q.depends_on and all(by_text_id in {p.id for p in got if p.aspect == "entity"} for by_text_id in q.depends_on)
    assert {q.aspect for q in got} <= {"entity", "attribute", "number", "relation"}
    assert by_text[SHAPES[caption][0]].span in caption


def test_closed_counts_ask_one_for_a_singular_thing_and_nothing_more():
    # DSG's default: "a" asks no count, so a second red circle is invisible to the questions
    assert not [q for q in spacy_gen().generate("a red circle and two blue squares") if q.aspect == "number" and q.answer == "one"]
    closed = spacy_gen(closed_counts=True)
    got = closed.generate("a red circle and two blue squares")
    assert [q.text for q in got] == ["is there a circle?", "is there one red circle?", "is the circle red?", "are there squares?",
                                     "are there two squares?", "are the squares blue?"]
    one = got[1]
    assert (one.aspect, one.answer, one.span, one.depends_on) == ("number", "one", "a red circle", [got[0].id])
    # a thing already counted ("one yellow triangle") or plural gets no second count; two things of one name each get theirs
    assert [q.text for q in closed.generate("one yellow triangle below two green squares") if q.aspect == "number"] == [
        "is there one triangle?", "are there two squares?"]
    assert [q.text for q in closed.generate("a red circle and a blue circle") if q.aspect == "number"] == [
        "is there one red circle?", "is there one blue circle?"]
    # the option is part of the question cache's key
    from autoalign.scoring.questions import cache_key

    assert cache_key("a red circle", RoleSpec("spacy", None, {})) != cache_key("a red circle", RoleSpec("spacy", None, {"closed_counts": True}))


def test_facts_carry_dsg_categories_and_parent_links():
    rows = [(f.category, f.detailed, f.args, f.question.text, f.question.depends_on) for f in facts("a dog sleeping on a wooden table, digital art")]
    assert rows == [
        ("global", "frame", ("digital art",), "is this digital art?", []),
        ("entity", "whole", ("dog",), "is there a dog?", []),
        ("entity", "whole", ("table",), "is there a table?", []),
        ("attribute", "material", ("table", "wood"), "is the table made of wood?", ["q3"]),
        ("relation", "action", ("dog", "sleeping on", "table"), "is the dog sleeping on the table?", ["q2", "q3"]),
    ]


@pytest.mark.parametrize(
    "prompt, expected, absent",
    [
        # not things: meta words, flags, "4K", colour words used as nouns
        # (a described background is a thing since round 16 of issue 39, as DSG's annotators write it: "is the background blurry?")
        # (the aspect-ratio flag is asked of the picture since round 24: "is the image in a 16:9 aspect ratio?")
        ("a cat in front of a blurry background, 4K, --ar 16:9", ["is there a cat?", "is the background blurry?", "is the image in a 16:9 aspect ratio?"],
         ["there 16:9", "K?", "--ar"]),
        ("a girl dressed in green", ["is the girl dressed in green?"], ["is there a green?"]),
        # lost attributes: states, materials, predicative colours, colours on compound nouns
        ("a broken vase on a wooden table", ["is the vase broken?", "is the table made of wood?"], ["is the table wooden?"]),
        ("a pinata which is orange", ["is the pinata orange?"], ["is there an orange?"]),
        ("a pink bathroom sink", ["is the bathroom sink pink?"], []),
        ("a cube made of denim", ["is the cube made of denim?"], ["is there a denim?"]),
        # lost relations: actions with and without objects, lists, pronouns
        ("a man sitting on a motorcycle smoking a cigarette", ["is the man sitting on the motorcycle?", "is the man smoking the cigarette?"], []),
        ("a car parked on the road", ["is the car parked on the road?"], []),
        ("a man in a wet suit is surfing", ["is the man surfing?"], []),
        ("a chair near the sofa, a table near the sofa", ["is the chair near the sofa?", "is the table near the sofa?"], []),
        ("a mountain with a cloud hanging over it", ["is the cloud hanging over the mountain?"], []),
        # counts of each group and the total
        ("two red flowers and three white flowers", ["are there two red flowers?", "are there three white flowers?", "are there five flowers?"], []),
        # global: frame, style, time
        ("a watercolor painting of a fox at night", ["is this a painting?", "is this a watercolor painting?", "is it night?", "is there a fox?"], []),
        ("a fox in the style of Van Gogh, hyperrealistic", ["is the image in the style of Van Gogh?", "is the image hyperrealistic?"], ["is there a Van Gogh?"]),
        # common misparses repaired from the dependency structure
        # the tagger reads "geese" as an adjective: the object of a preposition is a thing; the group hands its relations on
        ("a flock of geese near a barn", ["are there geese?", "are the geese near the barn?"], ["flock"]),
        ("a herd of cows are grazing in a field", ["are the cows grazing in the field?"], ["herd"]),
        # "left to X" / "next to X" with X hung on "to" as an infinitive
        ("a photo of a cat and a bench; cat is left to bench", ["is the cat to the left of the bench?"], ["benching", "is the cat left?"]),
        ("Man with red hat sitting next to lamp", ["is there a man?", "is the man sitting next to the lamp?"], ["Man", "lamping"]),
        # a colour as the object: the relation after it is the wearer's
        ("a girl dressed in red next to a horse", ["is the girl next to the horse?"], []),
        # "trying to catch": the subject of "trying" catches; "trying" alone is no state
        ("a dog is trying to catch a frisbee", ["does the dog catch the frisbee?"], ["is the dog trying?"]),
        # a clause with its own subject ("you") is not about the thing; what it shows is in the thing
        ("a kitchen where you can see a stove", ["is the stove in the kitchen?"], ["see"]),
        # "it" is the thing the participle is not about
        ("a cat with kittens sleeping on top of it", ["are the kittens sleeping on top of the cat?"], []),
        # an infinitive of purpose belongs to the participle's thing; "him" / "her" is the sentence's subject
        ("a dog running across a field to get onto a boat", ["does the dog get onto the boat?"], []),
        ("a man eating a sandwich with children around him", ["are the children around the man?"], []),
        # "each other" is a relation within the group; the reciprocal word itself is no thing
        ("two elephants touching each other", ["are the elephants touching each other?"], ["is there an other?"]),
        ("two dogs facing each other on a rug", ["are the dogs facing each other?", "are the dogs on the rug?"], ["facing on"]),
        ("a wheel behind the other", ["is there a wheel?"], ["is there an other?", "are there others?"]),
        # a noun read as an adjective is asked as a compound name; a material is not asked of itself
        ("a frog on a lily pad", ["is the pad a lily pad?"], ["is the pad lily?"]),
        ("a squirrel in a leather jacket", ["is the jacket made of leather?"], ["is the leather jacket made of leather?"]),
        # a place phrase right after a placed thing is that thing's place too; a thing next to X in Y is in Y
        ("a cat sitting in a basket next to a lamp", ["is the cat sitting next to the lamp?", "is the basket next to the lamp?"],
         ["is the cat next to the lamp?"]),
        ("a truck on a bridge above a river", ["is the bridge above the river?", "is the truck above the river?"], []),
        # (round 22: "living room" is one name, what the room is for, not a state of the room)
        ("a dog lying next to a sofa in a living room", ["is the sofa in the living room?", "is the dog in the living room?"], ["is the room living?"]),
        # only places are handed on, not ways ("through", "from")
        ("a boy riding a bike through a park", ["is the boy riding through the park?"], ["is the bike through"]),
        # an adjective of material is asked as the material (material_adjectives in question_words.json)
        ("a woolen hat on a metallic robot", ["is the hat made of wool?", "is the robot made of metal?"], ["woolen?", "metallic?"]),
        # "with X around him": X is around the subject, not a part of the thing before "with"
        ("a boy holding a kite with birds around him", ["are the birds around the boy?"], ["have birds"]),
        # two adjectives joined by "and" where the tagger read the first as an adverb: two attributes
        ("a measly and underdeveloped pine on a hill", ["is the pine measly?", "is the pine underdeveloped?"], ["a measly pine", "measly underdeveloped"]),
        # a frame's compound modifier keeps its own adjective
        ("a high resolution photo of a lighthouse", ["is this a high resolution photo?"], ["is this a resolution photo?"]),
        # "makes X from Y" is an action with an object, not "made of Y"
        ("a machine that makes paper from wood", ["does the machine make paper?"], ["made of", "making from"]),
        # a proper name with "of" is one name
        ("a tourist next to the Statue of Liberty", ["is there a Statue of Liberty?", "is the tourist next to the Statue of Liberty?"],
         ["is there a Liberty?", "is there Liberty?"]),
        # a quote right after a text noun is that text, written on what follows; "says" before a quote is no action
        ("the word 'STOP' painted on a wall", ['is "STOP" written on the wall?'], ["written on the word"]),
        ('a sign that says "hello"', ['is "hello" written on the sign?'], ["saying"]),
        # lost subjects: a verb read as a plural name after a singular article ("a raft floats"), an -ing word read as
        # a describing word of the object ("a man vacuuming sand"); "rides" is "ride", not "rid"
        ("a blue raft floats on white water", ["is there a raft?", "is the raft blue?", "does the raft float on water?"], ["raft floats"]),
        ("a woman with an umbrella walks in the rain", ["does the woman have an umbrella?", "does the woman walk in the rain?"], ["umbrella walks"]),
        ("a man vacuuming sand", ["is the man vacuuming sand?"], ["is the sand vacuuming?"]),
        ("a man rides a horse", ["does the man ride the horse?"], ["rid "]),
        # a verb's object is not placed by the phrase after it ("flying a kite on a beach")
        ("a kid flying a kite on a beach", ["is the kid on the beach?"], ["is the kite on the beach?"]),
        # a verb with an object: its place is asked as the subject's place, not "verb + place" without the object
        ("two women sharing a pizza next to a fountain", ["are the women sharing the pizza?", "are the women next to the fountain?"],
         ["sharing next to"]),
        # what a thing is made of does not act: the thing does ("a giant made of rocks walking into a village")
        ("a giant made of rocks walking into a village", ["is the giant walking into the village?"], ["are the rocks walking"]),
        # a way ("towards", "into": motion_prepositions) hung on the object of the verb's first phrase is the verb's way
        ("hikers walking across a bridge towards a castle", ["are the hikers walking towards the castle?"], ["is the bridge towards"]),
        # where the things a thing is "with" are, the thing is too; not a place that belongs to someone
        ("a tray with cups, a teapot and a spoon on a bench", ["is the spoon on the bench?", "is the tray on the bench?"], []),
        ("a vase with flowers on a table", ["is the vase on the table?"], []),
        # a sentence that is only a frame word, read by the tagger as a verb or an adjective, is the frame
        ("a fox jumping over a fence. painting in the style of Monet.", ["is this a painting?", "is the image in the style of Monet?"], []),
        ("A cat on a roof. Comic.", ["is this a comic?"], []),
        # a colour hung on "in" as a describing word is still what the thing is dressed in
        ("a woman dressed in black, smiling", ["is the woman dressed in black?", "is the woman smiling?"], ["is the woman dressed?"]),
        # "a kid's bedroom": the kind of bedroom, DSG's way
        ("a toy robot inside a kid's bedroom", ["is the bedroom a kid's bedroom?", "is the toy robot inside the bedroom?"], []),
        # the place rules also read "next to X" where the tagger hung X on "to" as an infinitive
        ("Girl sitting in wooden chair next to lamp in dark room", ["is the chair next to the lamp?", "is the girl in the room?"], ["lamping"]),
        # tagger slips mended from the structure: an adverb takes no article ("a tattoo"); an apposition without a comma
        # ends the thing's name ("fire hydrant"); a thing read as an adjective keeps its comma; a style word after the frame
        ("a man with a tattoo on his arm", ["is there a tattoo?", "does the man have a tattoo?"], []),
        ("a photo of red fire hydrant", ["is there a fire hydrant?", "is the fire hydrant red?"], ["is there fire?"]),
        ("a painting of a fox, hyperrealistic", ["is there a fox?", "is the image hyperrealistic?"], []),
        # "-es" after a hissing sound or an "o" is the verb's ending ("touches" -> "touch", not "touche")
        ("a woman washes dishes", ["does the woman wash the dishes?"], ["washe "]),
        ("a man touches his toes while a boy does push-ups", ["does the man touch the toes?"], ["touche ", "doe "]),
        ("a cat goes outside", [], ["goeing"]),
        # a word that shades a colour ("dark blue", "neon green": colour_modifiers) is part of the colour, never the thing's kind
        ("a woman in a dark blue coat", ["is the coat blue?"], ["dark coat"]),
        ("a girl with pale pink gloves", ["are the gloves pink?"], ["pale gloves"]),
        # a colour read as a noun with its shade ("neon green and orange paint") is the colour of the thing after "and"
        ("a clown with neon green and neon orange face paint", ["is the face paint green?"], ["is there neon green?", "have a neon green?"]),
        # a colour read as a compound of the name is asked as the colour, not repeated in the name ("are the orange boots orange?")
        # a verb whose object is a number or a time shows it: no bare action, its place is the subject's
        ("A clock that reads 12:43 on a wall.", ["is the clock on the wall?"], ["is the clock reading?", "read on the wall"]),
        ("A sign that says 3:15 above a door.", [], ["is the sign saying?"]),
        # a place that is part of someone's own after a verb's "with" thing: the thing is there, not the subject
        ("A woman standing with her hands on her hips.", ["are the hands on the hips?"], ["is the woman standing on the hips?"]),
        ("a young woman with piercings all over her face", ["are the piercings over the face?"], ["is the woman over the face?"]),
        ("a man in his car", ["is the man in the car?"], []),
        # "in black and white" on a verb that is not a participle is the picture's colouring, not a place
        ("Horses running in black and white.", ["is the image black and white?", "are the horses running?"], ["running in black"]),
        ("A man dressed in green.", ["is the man dressed in green?"], ["is the image green?"]),
        # a material that is a participle ("knitted") is asked as it is, not "made of knitted"
        ("a sloth with a knitted hat", ["is the hat knitted?"], ["made of knitted"]),
        # a thing named after a place phrase is not in that place ("a woman in a black jacket and a pizza")
        ("a woman in a black jacket and a pizza", ["is there a pizza?", "is the woman in the jacket?"], ["is the pizza in the jacket?"]),
        ("A pear, orange, and two bananas in a wooden bowl.", ["is the pear in the bowl?", "are the bananas in the bowl?"], []),
        # a two-word name split into a noun and a clause on it ("teddy" + "bear") is one name
        ("A teddy bear under some furniture.", ["is there a teddy bear?", "is the teddy bear under the furniture?"],
         ["is there a teddy?", "is there bear?"]),
        ("a wrestler with bright orange boots", ["are there boots?", "are the boots orange?"], ["orange boots orange", "bright orange boots?"]),
        # a way ("towards") hung on a quantity of a thing the verb goes across is still the verb's way
        ("skiers travelling across a vast expanse of snow covered land towards a mountain",
         ["are the skiers travelling towards the mountain?"], ["is the land towards"]),
        # a noun on the participle before a thing is what the participle is done by ("snow covered land")
        ("a moss covered rock near a river", ["is there a rock?", "is there moss?", "is the rock covered by moss?", "is the rock near the river?"],
         ["is the moss covered rock?", "is there a moss?"]),
        ("an ivy covered wall", ["is the wall covered by ivy?"], ["is the wall covered?"]),
        # a verb's object that is a quantity of a thing ("a slice of pizza", "a game of tennis"): the thing
        ("a man eating a slice of pizza", ["is the man eating pizza?"], []),
        ("The woman is on the court playing a game of tennis.", ["is the woman playing tennis?", "is the woman on the court?"], ["game"]),
        # a colour right after a wearing verb / "in", hung by the tagger on "-ing word + noun": worn; the -ing word is a verb
        ("A lady wearing red playing tennis on a blue and green court.",
         ["is the lady wearing red?", "is the lady playing tennis?", "is the lady on the court?"], ["is there playing tennis?", "is the lady wearing playing"]),
        ("a man in red playing golf", ["is the man playing golf?"], ["is there playing golf?"]),
        ("a man wearing red running shoes", ["are the running shoes red?"], ["is the man running"]),
        ("a man in black hiking gear", ["is there hiking gear?"], ["is the man hiking"]),
        # a base-form verb right after "and" after a thing, without a subject, is a thing ("a suit and tie")
        ("A young man in a suit and tie with a beer in his hand.", ["is there a tie?", "is the beer in the hand?"], []),
        # the verb after a quote that follows a text noun is about that noun
        ("the word 'START' written in chalk on a sidewalk", ["is the word written on the sidewalk?", 'is "START" written on the sidewalk?'], []),
        # a picture on a thing is a thing ("a vase with a painting of X"), and X is in it; not the picture's frame
        ("a vase with a painting of pangolins", ["is there a painting?", "are the pangolins in the painting?"], ["is this a painting?"]),
        # "for" after a verb without an object names what the action is about; not a length of time
        ("A man is standing on a street corner and waiting for a bus.",
         ["is the man waiting for the bus?", "is there a street corner?", "is the man standing on the street corner?"], []),
        ("a man waiting for an hour", [], ["hour"]),
        ("The sushi chef is slicing fresh fish for sashimi.", ["is the sushi chef slicing fish?"], ["for sashimi"]),
        # "it" / "them" as a verb's object: the last thing named before, when it is an earlier object of the same subject
        ("A child is holding a book and reading it in bed.", ["is the child reading the book?"], ["reading in bed"]),
        ("The baker kneaded the dough before placing it in the oven.", ["is the dough in the oven?"], ["placing in"]),
        ("The twisted, gnarled roots of the old oak tree snaked through the rich soil, anchoring it firmly to the earth.", [],
         ["anchoring the soil"]),
        # a sentence's own past verb that the tagger read as a participle is asked as a verb; "over and over" is no particle
        ("The rough brown boots contrasted with the soft white snow.", ["do the boots contrast with the snow?"], ["contrasted with"]),
        ("A chef is seasoning a dish, tasting it over and over until it's just right.", ["is the chef tasting the dish?"], ["tasting over"]),
        # "between X and Y" is one place
        ("The rough square was nestled between the smooth rectangle and the bumpy sphere.",
         ["is the square nestled between the rectangle and the sphere?"], ["between the rectangle?"]),
        # "next to" / "close to" after "be": a place, not a look
        ("The black suitcase was next to the brown briefcase.", ["is the suitcase next to the briefcase?"], ["is the suitcase next?"]),
        ("a photo of cup and sofa; sofa is close to cup", ["is the sofa close to the cup?"], ["is the sofa close?"]),
        # "left" read as a verb in "is left to": one "to the left of"
        ("a photo of cup and sofa; sofa is left to cup", ["is the sofa to the left of the cup?"], ["left to the left"]),
        # a noun tagged as a pronoun with its own article is a thing
        ("The red book was on top of the yellow bookshelf.", ["is there a bookshelf?", "is the book on top of the bookshelf?"], []),
        # a time after an -ing verb is no object: the action is asked
        ("A dog is panting and resting after a long walk.", ["is the dog resting?"], []),
        # a two-word name the tagger split, in a caption without a verb
        ("A red fire hydrant on a sidewalk.", ["is there a fire hydrant?", "is the fire hydrant on the sidewalk?"],
         ["is there a fire?", "is the fire hydrant?"]),
        ("A teddy bear on a bed.", ["is there a teddy bear?", "is the teddy bear on the bed?"], ["is there a teddy?"]),
        # a place hung on a verb's object is the one acting's place too
        ("A gymnast is performing a perfect routine on the balance beam.", ["is the gymnast on the balance beam?"], []),
        ("The painter is creating a landscape painting on canvas.", [], ["is the painter on canvas?"]),
        # "on it" after a list "with" a thing: the holder; "above it": the thing before
        ("A plate with a sandwich and a pickle on it.", ["is the sandwich on the plate?", "is the pickle on the plate?"],
         ["on the sandwich?", "on the pickle?"]),
        ("A bathroom with a sink and a mirror above it.", ["is the mirror above the sink?"],
         ["is the bathroom above", "is the sink above the mirror?"]),
        # a participle after "in front of X" is about the one in front
        ("A man standing in front of a building holding an umbrella.", ["is the man holding the umbrella?"], ["is the building holding"]),
        # a picture a thing acts on is a thing, not the frame
        ("A woman taking a photo of a bird.", ["is the woman taking the photo?"], ["is this a photo?"]),
        # "X and Y ... each other": each with the other, by name
        ("A cat and a dog sitting next to each other on a couch.", ["is the cat sitting next to the dog?", "is the dog sitting next to the cat?"],
         ["each other"]),
        ("A man and a woman hugging each other.", ["is the man hugging the woman?"], ["each other"]),
        # a list of things, each with its own place
        ("A lamp on a desk and a chair under the window.", ["is the lamp on the desk?", "is the chair under the window?"],
         ["is the lamp on the chair?", "is the lamp under the window?"]),
        ("A cup on a table and a cat on the floor.", ["is the cat on the floor?"], ["is the cup on the floor?"]),
        ],
)
def test_offline_generator_reads_the_failure_classes_of_issue_17(prompt, expected, absent):
    texts = [q.text for q in spacy_gen().generate(prompt)]
    for want in expected:
        assert want in texts, (want, texts)
    for bad in absent:
        assert not any(bad in t for t in texts), (bad, texts)


def test_cache_key_follows_the_word_lists(monkeypatch):
    from autoalign import prompts as prompt_files
    from autoalign.scoring import questions as questions_module

    spec = RoleSpec("spacy", None, {})
    before = questions_module.cache_key("a cat", spec)
    real_load = prompt_files.load

    def edited_load(name):
        text = real_load(name)
        return text.replace('"next"', '"nearby"') if name == "question_words.json" else text

    monkeypatch.setattr(prompt_files, "load", edited_load)
    assert questions_module.cache_key("a cat", spec) != before


def test_offline_generator_is_deterministic():
    # speed is measured by the benchmark (python -m autoalign.benchmarks.dsg_questions), not asserted
    # here: a shared CI box makes wall-clock bounds flaky
    prompt = "a small green triangle to the left of a yellow circle, and two red apples on a blue plate"
    first = spacy_gen().generate(prompt)
    for _ in range(3):
        assert spacy_gen().generate(prompt) == first


def test_not_a_thing_words_are_data_in_prompts():
    import json

    from autoalign import prompts as prompt_files

    words = json.loads(prompt_files.load("question_words.json"))
    assert {"meta", "frame", "style", "flag"} <= set(words["not_things"])
    assert "foreground" in words["not_things"]["meta"] and "--ar" in words["not_things"]["flag"]


def test_parse_compares_tokens_by_position_not_identity():
    """spaCy makes a new ``Token`` object on every access, so ``tok.head is tok`` is never true, not even at the root:
    the parse compares tokens by position. A noun at the root has no head noun to be about (with ``is`` the walk
    went round the root and answered the noun itself)."""
    from autoalign.scoring.parse import _subject_of, load_spacy

    doc = load_spacy()("a lighthouse on a rocky cliff")
    root = next(t for t in doc if t.dep_ == "ROOT")
    assert root.lower_ == "lighthouse" and root.head is not root and root.head == root
    assert _subject_of(root) is None
    assert _subject_of(doc[2]).lower_ == "lighthouse"  # "on": about the lighthouse


def test_a_describing_word_hung_on_a_colour_compound_stays_in_the_name():
    # "clean" read as a compound of "white" (itself a compound of "bed"): only the colour leaves the name; dropping
    # "clean" too (a rule that never fired while tokens were compared with ``is``) would lose a word of the prompt
    qs = [q.text for q in spacy_gen().generate("The old man napped on the clean white bed.")]
    assert "is the clean bed white?" in qs and "is there a bed?" not in qs
