"""The DSG question benchmark on a small hand-written fixture (never ../shared/data)."""

from __future__ import annotations

import csv
import json

import pytest

from autoalign.benchmarks.dsg_questions import Lemmas, Matcher, colour_swap, main, read_anns, source_of, split_of
from autoalign.scoring.parse import parse_prompt
from autoalign.scoring.questions import facts_from_parse

HEADER = ["item_id", "text", "keywords", "proposition_id", "dependency", "category_broad", "category_detailed", "tuple", "question_natural_language"]
ROWS = [
    ("p1", "two brown dogs on a red sofa", "entity", "whole", "entity - whole (dogs)", "Are there dogs?"),
    ("p1", "two brown dogs on a red sofa", "other", "count", "other - count (dogs, ==2)", "Are there two dogs?"),
    ("p1", "two brown dogs on a red sofa", "attribute", "color", "attribute - color (dogs, brown)", "Are the dogs brown?"),
    ("p1", "two brown dogs on a red sofa", "relation", "spatial", "relation - spatial (dogs, sofa, on)", "Are the dogs on the sofa?"),
    ("p1", "two brown dogs on a red sofa", "attribute", "color", "attribute - color (sofa, green)", "Is the sofa green?"),  # not said: no match
    ("p2", "a photo of a man riding a horse", "global", " ", "global -  (photo)", "Is this a photo?"),
    ("p2", "a photo of a man riding a horse", "action", " ", "action -  (man, horse, ride)", "Is the man riding the horse?"),
    ("p2", "a photo of a man riding a horse", "relation", "spatial", "relation - spatial (man, horse, under)", "Is the man under the horse?"),  # wrong predicate
]


def _write_anns(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(HEADER)
        for item, text, broad, detailed, tup, q in rows:
            w.writerow([item, text, "", "1", "0", broad, detailed, tup, q])
    return path


@pytest.fixture
def anns(tmp_path):
    return _write_anns(tmp_path / "anns.csv", ROWS)


def test_matching_rule_on_hand_made_tuples(anns):
    tuples = read_anns(anns)
    assert [(h.broad, h.detailed, h.args) for h in tuples[:2]] == [("entity", "whole", ["dogs"]), ("other", "count", ["dogs", "==2"])]
    matcher = Matcher(Lemmas())
    got = {}
    for h in tuples:
        f = matcher.match(h, facts_from_parse(parse_prompt(h.prompt)))
        got[h.question] = f.question.text if f else None
    assert got == {
        "Are there dogs?": "are there dogs?",
        "Are there two dogs?": "are there two dogs?",
        "Are the dogs brown?": "are the dogs brown?",
        "Are the dogs on the sofa?": "are the dogs on the sofa?",
        "Is the sofa green?": None,
        "Is this a photo?": "is this a photo?",
        "Is the man riding the horse?": "is the man riding the horse?",
        "Is the man under the horse?": None,
    }


def test_matching_rule_spatial_synonyms_and_noun_heads(tmp_path):
    rows = [
        ("p3", "a bike parked by a building", "relation", "spatial", "relation - spatial (bike, building, next to)", "Is the bike next to the building?"),
        ("p3", "a bike parked by a building", "relation", "spatial", "relation - spatial (bike, building, behind)", "Is the bike behind the building?"),
    ]
    path = _write_anns(tmp_path / "anns.csv", rows)
    lemmas = Lemmas()
    assert lemmas.head("building") == "building"  # a thing, not the verb "build"
    next_to, behind = read_anns(path)
    facts = facts_from_parse(parse_prompt(next_to.prompt))
    assert Matcher(lemmas).match(next_to, facts).question.text == "is the bike parked by the building?"
    assert Matcher(lemmas, synonyms=False).match(next_to, facts) is None  # the lexical rule alone
    assert Matcher(lemmas).match(behind, facts) is None  # another place relation is no synonym


def test_matching_rule_names_of_several_words(tmp_path):
    # a human argument names the generated thing whose name holds its head word, as for entity rows: "the Tower of
    # London" (head word "london") is the generated thing "tower" named "Tower of London"
    rows = [
        ("p4", "the Tower of London behind a red double-decker bus", "relation", "spatial",
         "relation - spatial (the Tower of London, bus, behind)", "Is the Tower of London behind the bus?"),
        ("p4", "the Tower of London behind a red double-decker bus", "relation", "spatial",
         "relation - spatial (the Tower of London, bus, in front of)", "Is the Tower of London in front of the bus?"),
        ("p5", "a white Statue of Zeus in a garden", "attribute", "color", "attribute - color (Statue of Zeus, white)", "Is the statue white?"),
        ("p5", "a white Statue of Zeus in a garden", "relation", "spatial", "relation - spatial (Statue of Zeus, garden, in)", "Is the statue in the garden?"),
    ]
    matcher = Matcher(Lemmas())
    got = {}
    for h in read_anns(_write_anns(tmp_path / "anns.csv", rows)):
        f = matcher.match(h, facts_from_parse(parse_prompt(h.prompt)))
        got[h.question] = f.question.text if f else None
    assert got == {
        "Is the Tower of London behind the bus?": "is the Tower of London behind the double-decker bus?",
        "Is the Tower of London in front of the bus?": None,  # the predicate still has to agree
        "Is the statue white?": "is the Statue of Zeus white?",
        "Is the statue in the garden?": "is the Statue of Zeus in the garden?",
    }


def test_benchmark_reports_recall_per_category_and_part(anns, capsys):
    out = main(["--anns", str(anns), "--filter", "off", "--json"])
    res = out["filter_off"]["all"]
    assert res["by_category_broad"]["all"] == {"recall": 0.75, "n": 8, "ci95": [0.409, 0.929]}  # Wilson, 6 of 8
    assert {k: v for k, v in res["by_category_broad"]["attribute"].items() if k != "ci95"} == {"recall": 0.5, "n": 2}
    assert {k: v for k, v in res["by_category_detailed"]["other/count"].items() if k != "ci95"} == {"recall": 1.0, "n": 1}
    assert res["by_source"]["tifa160"]["all"]["n"] == 8  # ids without a "source_N" form: the TIFA160 file
    assert res["dsg_questions_per_prompt"] == 4.0
    parts = {split_of("p1"), split_of("p2")}
    assert sum(out["filter_off"][p]["by_category_broad"]["all"]["n"] for p in ("tune", "held") if p in parts) == 8


def test_bad_annotations_file_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(HEADER) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["--anns", str(bad)])
    assert exc.value.code == 2 and "no DSG tuples" in capsys.readouterr().err


def test_colour_swap_exchanges_the_first_two_different_colours():
    assert colour_swap("a red car and a blue bird") == "a blue car and a red bird"
    assert colour_swap("A Red book and a red pen next to a Green cup") == "A Green book and a red pen next to a Red cup"
    assert colour_swap("a red car") is None


def test_misses_prints_only_the_tuning_parts_uncovered_tuples(anns, capsys):
    main(["--anns", str(anns), "--filter", "on", "--misses"])
    printed = capsys.readouterr().out.split("# uncovered human tuples (tuning part)")[1]
    tune = {split_of(i) for i in ("p1", "p2")}
    for item, prompt, wrong in (("p1", "two brown dogs on a red sofa", "(sofa, green)"), ("p2", "a photo of a man riding a horse", "(man, horse, under)")):
        shown = split_of(item) == "tune"
        assert (f"[{prompt}]" in printed) == shown and (wrong in printed) == shown, tune


def test_global_tuples_with_no_detailed_category_are_read(tmp_path):
    # DSG-1k writes "global - - (by geert goiris)": 201 of its development half's tuples were dropped before round 15
    path = _write_anns(tmp_path / "g.csv", [("diffusiondb_1", "portrait of chaos, by geert goiris", "global", "-", "global - - (by geert goiris)", "Is this by geert goiris?")])
    (h,) = read_anns(path)
    assert (h.broad, h.detailed, h.args) == ("global", "-", ["by geert goiris"])
    assert source_of("diffusiondb_1") == "diffusiondb" and source_of("coco_301091") == "tifa160"
    f = Matcher(Lemmas()).match(h, facts_from_parse(parse_prompt(h.prompt)))
    assert f is not None and f.question.text == "is the image in the style of geert goiris?"


def test_results_json_has_the_results_page_shape(anns, tmp_path):
    path = tmp_path / "r.json"
    main(["--anns", str(anns), "--filter", "on", "--results-json", str(path)])
    page = json.loads(path.read_text())
    assert set(page) == {"title", "command", "measures", "tables"} and "--results-json" in page["command"]
    first = page["tables"][0]
    assert first["columns"][:5] == ["part", "prompts", "questions/prompt", "DSG questions/prompt", "all"]
    assert [r[0] for r in first["rows"]] == ["tune", "held", "all"]


def _matched(rows, tmp_path, matching):
    matcher = Matcher(Lemmas(matching))
    got = {}
    for h in read_anns(_write_anns(tmp_path / f"anns-{matching}.csv", rows)):
        f = matcher.match(h, facts_from_parse(parse_prompt(h.prompt)))
        got[h.question] = f.question.text if f else None
    return got


def test_matching_reads_british_spellings_as_american(tmp_path):
    rows = [
        ("p6", "a colourful kite above a grey sofa", "attribute", "color", "attribute - color (kite, colorful)", "Is the kite colorful?"),
        ("p6", "a colourful kite above a grey sofa", "attribute", "color", "attribute - color (sofa, gray)", "Is the sofa gray?"),
        ("p6", "a colourful kite above a grey sofa", "attribute", "color", "attribute - color (sofa, green)", "Is the sofa green?"),
    ]
    assert _matched(rows, tmp_path, "current") == {
        "Is the kite colorful?": "is the kite colourful?",
        "Is the sofa gray?": "is the sofa grey?",
        "Is the sofa green?": None,
    }
    assert set(_matched(rows, tmp_path, "round35").values()) == {None}  # the rule before round 36


def test_matching_reads_a_plural_head_word_as_its_singular():
    lemmas, before = Lemmas(), Lemmas("round35")
    assert lemmas.head("3-seater sofas") == "sofa"  # "the sofas" is left as "sofas" by the pipeline
    assert before.head("3-seater sofas") == "sofas"
    assert lemmas.head("news") == "news" and lemmas.head("series") == "series"  # no plural to undo
    assert lemmas.head("Jeff Bezos") == "bezos"  # a name is no plural
    assert lemmas("colourful greyish centre") == {"colorful", "grayish", "center"}
    assert lemmas.head("someone") == "person" and before.head("someone") == "someone"  # the generator's "is there a person?"
    with pytest.raises(ValueError, match="round35"):
        Lemmas("newest")


def test_matching_finds_an_attribute_named_as_the_object_of_the_things_relation(tmp_path):
    rows = [
        ("p7", "three glass jars with reflections", "attribute", "state", "attribute - state (jars, reflections)", "Do the jars have reflections?"),
        ("p8", "a cat on a wooden floor", "attribute", "material", "attribute - material (cat, wooden)", "Is the cat wooden?"),
        ("p9", "a zebra with stripes", "attribute", "color", "attribute - color (zebra, black stripes)", "Does the zebra have black stripes?"),
        ("p9", "a zebra with stripes", "attribute", "color", "attribute - color (zebra, stripes)", "Does the zebra have stripes?"),
    ]
    assert _matched(rows, tmp_path, "current") == {
        "Do the jars have reflections?": "do the glass jars have reflections?",
        "Is the cat wooden?": None,  # the floor's wood is not the cat's
        "Does the zebra have black stripes?": None,  # nothing says the stripes are black
        "Does the zebra have stripes?": "does the zebra have stripes?",
    }
    assert set(_matched(rows, tmp_path, "round35").values()) == {None}


def test_benchmark_matching_flag_keeps_the_rule_before_round_36(tmp_path):
    rows = [("p6", "a colourful kite above a grey sofa", "attribute", "color", "attribute - color (kite, colorful)", "Is the kite colorful?")]
    path = str(_write_anns(tmp_path / "anns.csv", rows))
    new = main(["--anns", path, "--filter", "on", "--json", "--tune-only"])  # (p6 is in the tuning part)
    old = main(["--anns", path, "--filter", "on", "--json", "--tune-only", "--matching", "round35"])
    assert (new["matching"], old["matching"]) == ("current", "round35")
    assert new["filter_on"]["tune"]["by_category_broad"]["attribute"]["recall"] == 1.0
    assert old["filter_on"]["tune"]["by_category_broad"]["attribute"]["recall"] == 0.0


def test_matching_reads_a_place_relation_with_its_things_swapped(tmp_path):
    rows = [
        ("p8", "a large wave behind a surfer", "relation", "spatial", "relation - spatial (surfer, wave, in front of)", "Is the surfer in front of the wave?"),
        ("p8", "a large wave behind a surfer", "relation", "spatial", "relation - spatial (surfer, wave, behind)", "Is the surfer behind the wave?"),
        ("p9", "a full moon above a tower", "relation", "spatial", "relation - spatial (tower, moon, below)", "Is the tower below the moon?"),
        ("p9", "a full moon above a tower", "relation", "spatial", "relation - spatial (moon, tower, below)", "Is the moon below the tower?"),
    ]
    assert _matched(rows, tmp_path, "current") == {
        "Is the surfer in front of the wave?": "is the wave behind the surfer?",
        # (the same words in either order: the rule before round 36 already counts it, and still does)
        "Is the surfer behind the wave?": "is the wave behind the surfer?",
        "Is the tower below the moon?": "is the moon above the tower?",
        "Is the moon below the tower?": None,  # the converse said of the wrong thing
    }
    before = _matched(rows, tmp_path, "round35")
    assert before["Is the surfer in front of the wave?"] is None and before["Is the tower below the moon?"] is None


def test_matching_reads_a_global_thing_and_look_as_the_things_look(tmp_path):
    rows = [
        ("p9", "a red teapot on a white background, studio shot", "global", "-", "global - (white background)", "Is the background white?"),
        ("p9", "a red teapot on a white background, studio shot", "global", "-", "global - (black background)", "Is the background black?"),
        ("p9", "a red teapot on a white background, studio shot", "global", "-", "global - (studio shot)", "Is this a studio shot?"),
    ]
    assert _matched(rows, tmp_path, "current") == {
        "Is the background white?": "is the background white?",
        "Is the background black?": None,
        "Is this a studio shot?": "is this a studio shot?",
    }
    assert _matched(rows, tmp_path, "round35")["Is the background white?"] is None


def test_matching_reads_a_picture_tag_hung_on_a_thing_as_the_pictures(tmp_path):
    prompt = "mystical cat with glowing eyes, shallow depth of field, 8k, stock vector"
    rows = [
        ("p9", prompt, "attribute", "state", "attribute - state (cat, shallow depth of field)", "Does the cat have shallow depth of field?"),
        ("p9", prompt, "attribute", "type", "attribute - type (cat, stock vector)", "Is the cat a stock vector?"),
        ("p9", prompt, "attribute", "state", "attribute - state (cat, deep depth of field)", "Does the cat have deep depth of field?"),
        ("p9", prompt, "attribute", "color", "attribute - color (cat, black)", "Is the cat black?"),
    ]
    got = _matched(rows, tmp_path, "current")
    assert got["Does the cat have shallow depth of field?"] == "does the image have shallow depth of field?"
    assert got["Is the cat a stock vector?"] == "is this a stock vector?"
    # every word of the value must be asked of the picture: "deep" is not, and no tag says black
    assert got["Does the cat have deep depth of field?"] is None and got["Is the cat black?"] is None
    # the rules before round 37 leave the picture's tags to the picture
    for before in ("round36", "round35"):
        assert set(_matched(rows, tmp_path, before).values()) == {None}
