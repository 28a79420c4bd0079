"""The pass-decision benchmark (autoalign.benchmarks.pass_eval): its prompts stay off the tuned and held-out
suites, its verdict column is the loop's decision, its rules and rates count what they say."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from autoalign.benchmarks.pass_eval import Rule, paired, prompts, rates, search  # noqa: E402


def _rec(clip=2.3, grounded=(), probe=(), min_box=0.95, relations=0, aligned=True, readable=True, part="choose", id="p",
         unseen=False):
    return {"id": id, "clip": clip, "grounded": [{"aspect": a, "unsure": a == "unsure"} for a in grounded], "probe": list(probe),
            "min_box": min_box, "relations": relations, "part": part, "source": "generated", "unseen": unseen,
            "oracle": {"aligned": aligned, "readable": readable}}


def test_prompts_leave_out_shapes_val_and_the_held_out_suite():
    from autoalign.benchmarks.suites import SHAPES_VAL_TARGETS, shapes_items

    got = prompts(6)
    tuned = {i.prompt for i in shapes_items(split="val")}
    held_out = {i.prompt for i in shapes_items()}
    assert len(got) == 6 * len(SHAPES_VAL_TARGETS)
    assert not {g["prompt"] for g in got} & (tuned | held_out)
    assert len({g["prompt"] for g in got}) == len(got)
    for cat in SHAPES_VAL_TARGETS:
        parts = [g["part"] for g in got if g["category"] == cat]
        assert parts == ["choose", "confirm"] * 3


def test_the_preset_rule_refuses_each_thing_the_pass_refuses():
    rule = Rule(gate=2.1, sure=0.8)
    assert rule.passes(_rec())
    assert not rule.passes(_rec(clip=2.05))  # CLIP under the gate
    assert not rule.passes(_rec(grounded=["number"]))  # a grounded triplet
    assert not rule.passes(_rec(probe=[{"aspect": "attribute"}]))  # a clip-probe colour
    assert not rule.passes(_rec(min_box=0.7, grounded=["unsure"]))  # an object not read for sure
    assert rule.passes(_rec(min_box=None))  # a prompt without objects: no box to be unsure of
    assert Rule(probe=False).passes(_rec(probe=[{"aspect": "attribute"}]))


def test_the_band_under_the_gate_needs_a_surer_box():
    rule = Rule(gate=2.1, sure=0.8, low_gate=1.9, low_sure=0.95)
    assert rule.passes(_rec(clip=2.0, min_box=0.96))
    assert not rule.passes(_rec(clip=2.0, min_box=0.9))
    assert not rule.passes(_rec(clip=1.85, min_box=0.99))  # below the band
    assert not rule.passes(_rec(clip=2.0, min_box=0.99, grounded=["relation"]))
    rel = Rule(gate=2.1, sure=0.8, relation_gate=2.3)
    assert not rel.passes(_rec(clip=2.2, relations=1)) and rel.passes(_rec(clip=2.2))


def test_without_the_unseen_gate_a_prompt_with_an_unseen_pair_is_judged_by_the_detectors_alone():
    rule = Rule(gate=2.1, sure=0.8, unseen_gate=False)
    assert rule.passes(_rec(clip=1.2, unseen=True))  # no gate: CLIP never saw the pair
    assert not rule.passes(_rec(clip=1.2))  # a prompt of seen pairs keeps the gate
    assert not rule.passes(_rec(clip=1.2, unseen=True, grounded=["number"]))  # the grounded pass still refuses
    assert not rule.passes(_rec(clip=2.3, unseen=True, min_box=0.7, grounded=["unsure"]))
    assert not Rule(gate=2.1, sure=0.8).passes(_rec(clip=1.2, unseen=True))  # the default asks the gate of every prompt
    assert "no gate for unseen pairs" in rule.name()


def test_an_unseen_threshold_is_a_lower_gate_for_prompts_with_an_unseen_pair():
    rule = Rule(gate=2.0, sure=0.8, unseen_threshold=1.7)
    assert rule.passes(_rec(clip=1.75, unseen=True)) and not rule.passes(_rec(clip=1.65, unseen=True))
    assert not rule.passes(_rec(clip=1.75))  # a prompt of seen pairs keeps the gate
    assert not rule.passes(_rec(clip=1.9, unseen=True, grounded=["number"]))
    assert "unseen pairs gate 1.7" in rule.name()


def test_unseen_sure_reads_the_weakest_box_of_the_unseen_pairs_objects_apart():
    rule = Rule(gate=2.0, sure=0.8, unseen_sure=0.55)
    split = {"min_box_seen": 0.95}
    assert rule.passes({**_rec(min_box=0.6, unseen=True), **split, "min_box_unseen": 0.6})
    assert not rule.passes({**_rec(min_box=0.5, unseen=True), **split, "min_box_unseen": 0.5})  # a blob at blob_score
    assert not rule.passes({**_rec(min_box=0.6), "min_box_seen": 0.6, "min_box_unseen": None})  # a seen object: sure
    assert not Rule(gate=2.0, sure=0.8).passes({**_rec(min_box=0.6, unseen=True), **split, "min_box_unseen": 0.6})
    assert "unseen pairs sure 0.55" in rule.name()


def test_rates_and_pairs_count_images():
    records = [_rec(aligned=True, id="a"), _rec(aligned=False, id="a"), _rec(aligned=True, id="b"),
               _rec(aligned=False, readable=False, id="b")]
    base = [True, True, False, False]  # right passed, false pass, missed, wrong refused
    got = rates(records, base)
    assert got["false pass"]["value"] == 0.25 and got["missed"]["value"] == 0.25
    assert got["passed | wrong"]["value"] == 0.5 and got["refused | right"]["value"] == 0.5
    assert got["unreadable"]["value"] == 0.25
    assert got["false pass"]["extra"]["prompts"] == 2 and got["false pass"]["n"] == 4
    assert 0.0 <= got["false pass"]["ci_low"] <= 0.25 <= got["false pass"]["ci_high"] <= 0.5  # prompt a: 1/2, b: 0/2
    new = [True, False, True, True]
    got = paired(records, base, new)
    assert {k: v for k, v in got.items() if "prompts" not in k} == {
        "right now passed": 1, "right now refused": 0, "wrong now refused": 1, "wrong now passed": 1}
    assert got["wrong now passed (prompts)"] == 1 and got["right now refused (prompts)"] == 0


def test_search_ranks_a_rule_that_refuses_a_false_pass_first():
    # a wrong image that passes at 2.15 with a weak box, a right one at 2.3 with a sure box
    records = [_rec(clip=2.15, min_box=0.85, aligned=False), _rec(clip=2.3, min_box=0.97)] * 3
    rows = search(records, Rule(2.1, 0.8))
    best = rows[0]
    assert best["no worse"] and best["false pass"] == 0.0 and best["missed"] == 0.0
    assert best["paired"]["wrong now refused"] == 3 and best["paired"]["right now refused"] == 0


def test_collect_judges_with_the_loops_code_and_reads_with_the_oracle(tmp_path):
    """A test double draws the caption's rendered scene (the oracle reads it right) and one object short;
    each record's verdict is the loop's (the preset rule over its signals gives the same), the oracle's truth
    follows the scene, and the drawings are cached: a second call draws nothing."""
    from autoalign.benchmarks.pass_eval import collect, preset_rule
    from autoalign.config import load_config
    from autoalign.models.cache import Models
    from autoalign.world.render import draw, scene_for
    from autoalign.world.scene import Scene, spec_for

    class RenderingGenerator:  # test double: the rendered scene, then the same scene without its last object
        calls = 0

        def generate(self, caption, n, seed):
            RenderingGenerator.calls += 1
            spec = next(spec_for("val", i, "counting") for i in range(200)
                        if spec_for("val", i, "counting").caption() == caption)
            scene = scene_for(spec, seed)
            short = Scene(list(scene.objects)[:-1])
            return [draw(scene), draw(short)][:n]

    class WorldWithDrawnScenes(Models):  # the world's models, the generator replaced by the double
        generator = RenderingGenerator()

    config = load_config("shapes", overrides={"loop": {"candidates": 2}})
    models = WorldWithDrawnScenes(config)
    item = next(p for p in prompts(2) if p["category"] == "counting")
    records = collect([item], models, config, tmp_path, progress=False)
    assert len(records) == 2 and sum(r["top"] for r in records) == 1
    assert records[0]["oracle"]["aligned"] and not records[1]["oracle"]["aligned"]
    assert not records[1]["pass"]  # one object short: the grounded pass refuses it
    rule = preset_rule(config)
    assert all(rule.passes(r) == r["pass"] for r in records)
    again = collect([item], models, config, tmp_path, progress=False)
    assert RenderingGenerator.calls == 1 and [r["pass"] for r in again] == [r["pass"] for r in records]
