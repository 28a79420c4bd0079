"""`autoalign world eval` and the shapes suite on a handful of prompts (CI-sized: numbers in range,
not the headline figures)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from autoalign.cli import _load_commands
from autoalign.cli_apps import app

_load_commands()


def test_world_eval_oracle_prints_json_with_n_and_intervals():
    result = CliRunner().invoke(app, ["world", "eval", "--only", "oracle", "--n", "6", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    for split in ("test", "compositional"):
        m = data["oracle exact scene recovery"][split]
        assert m["n"] == 6 and m["value"] == 1.0 and m["ci_low"] < 1.0 and m["ci_high"] == pytest.approx(1.0)


def test_world_eval_refuses_an_unknown_part():
    result = CliRunner().invoke(app, ["world", "eval", "--only", "vibes", "--n", "2"])
    assert result.exit_code != 0


@pytest.mark.slow
def test_world_eval_judges_on_a_small_sample():
    from autoalign.benchmarks import world_eval

    data = world_eval.run(n=4, parts=["vlm", "vq2", "clip"])
    vlm = data["vlm accuracy"]["test"]
    assert vlm["all yes/no (no vnli)"]["n"] > 20
    assert 0.0 <= vlm["all yes/no (no vnli)"]["value"] <= 1.0
    vq2 = data["own image vs one edit away"]["test"]
    auc = vq2["vq2 ROC AUC"]
    assert auc["n"] == 8 and 0.0 <= auc["value"] <= 1.0
    by_kind = {k: v for k, v in vq2.items() if k.startswith("vq2 ROC AUC, edit: ")}
    assert by_kind and sum(v["n"] - 4 for v in by_kind.values()) == 4  # the 4 own images beside each kind's edits
    clip = data["clip winoground"]["clip"]["test colour swap"]
    assert clip["group"]["n"] == 4


@pytest.mark.slow
def test_world_eval_reads_instructions_and_edits_with_the_oracle():
    from autoalign.benchmarks import world_eval

    cases = world_eval.edit_cases("test", 6)
    assert cases and all(c.instruction and c.prompt for c in cases)
    config = world_eval.config_for(editor={"num_inference_steps": 4})
    from autoalign.models.cache import Models

    models = Models(config)
    got = world_eval.eval_instructions(models, config, 6, splits=("test",))
    assert set(got) == {"test"}  # only the splits asked for
    for detectors in ("clip-probe", "vq2", "clip-probe+vq2"):  # the preset's detector, VQ2's and both, to compare
        assert got["test"][f"{detectors}: instruction = the true one (one edit away)"]["n"] == len(cases)
        assert got["test"][f"{detectors}: no mismatch on the caption's own image"]["n"] == len(cases)
    edits = world_eval.eval_editor(models, 6)["test"]
    assert edits["fixed: every kind"]["n"] == len(cases)
    assert 0 <= edits["oracle cannot read the edit"]["value"] <= 1


def test_shapes_suite_holds_300_held_out_prompts_in_every_category():
    from autoalign.benchmarks.suites import load_suite
    from autoalign.world.scene import parse_caption, spec_for

    suite = load_suite("shapes")
    assert len(suite) >= 300
    assert set(suite.categories()) == {"counting", "colour_binding", "shape", "size", "spatial", "unseen_combinations"}
    train = {spec_for("train", i).caption() for i in range(2000)}
    assert sum(item.prompt in train for item in suite) < len(suite) * 0.5  # short captions recur; most are new
    assert all(parse_caption(item.prompt) is not None for item in suite)
    first = suite.select(limit=6)
    assert len({item.category for item in first}) == 6


def test_shapes_val_is_the_validation_twin_and_shares_no_caption_with_the_held_out_suite():
    from autoalign.benchmarks.suites import load_suite
    from autoalign.world.scene import parse_caption

    val, held_out = load_suite("shapes-val"), load_suite("shapes")
    assert len(val) == 100 and len({item.prompt for item in val}) == 100
    assert set(val.categories()) == {"counting", "colour_binding", "size", "spatial", "unseen_combinations"}
    assert not {item.prompt for item in val} & {item.prompt for item in held_out}
    assert all(item.id.startswith("shapes-val-") and parse_caption(item.prompt) is not None for item in val)


def test_shapes_val_300_holds_shapes_val_first_and_no_held_out_caption():
    from autoalign.benchmarks.suites import load_suite

    val, large, held_out = load_suite("shapes-val"), load_suite("shapes-val-300"), load_suite("shapes")
    assert len(large) == 300 and len({item.prompt for item in large}) == 300
    assert [(i.id, i.prompt) for i in large.items[:100]] == [(i.id, i.prompt) for i in val]  # a shapes-val run is its first 100
    assert {c: sum(i.category == c for i in large) for c in large.categories()} == dict.fromkeys(val.categories(), 60)
    assert not {item.prompt for item in large} & {item.prompt for item in held_out}


@pytest.mark.slow
def test_bench_run_on_shapes_reads_every_stage_with_the_oracle(tmp_path):
    config = tmp_path / "fast.toml"
    config.write_text(
        "[generator]\nnum_inference_steps = 6\n[editor]\nnum_inference_steps = 6\n"
        "[loop]\ncandidates = 2\nmax_rounds = 1\nedit_samples = 2\n"
    )
    out = tmp_path / "bench"
    result = CliRunner().invoke(app, ["bench", "run", "--suite", "shapes", "--preset", "shapes", "--limit", "3",
                                      "--config", str(config), "--out", str(out), "--no-progress"])
    assert result.exit_code in (0, 1), result.output
    data = json.loads((out / "oracle.json").read_text())
    assert data["n"] == 3
    for stage in ("baseline", "reranked", "corrected"):
        m = data["full alignment"][stage]
        assert m["n"] == 3 and 0.0 <= m["value"] <= 1.0
    assert set(data["ablation: rerank judge (first N candidates)"]) == {"vq2", "vnli", "clip", "oracle"}
    oracle_pick = data["ablation: rerank judge (first N candidates)"]["oracle"]["value"]
    assert oracle_pick >= data["ablation: rerank judge (first N candidates)"]["vq2"]["value"]  # an upper bound
    assert (out / "oracle.md").read_text().startswith("# The shapes suite")
    geneval = json.loads((out / "geneval.json").read_text())  # GenEval's rules, the world's grounder as detector
    assert geneval["suite"] == "shapes" and geneval["n"] == 3 and geneval["stages"] == ["baseline", "reranked", "corrected"]
    assert geneval["scores"]["corrected"]["overall"]["n"] == 3
    assert "GenEval scorer = the oracle's verdict" in geneval["oracle"]


@pytest.mark.slow
def test_world_eval_rerank_reads_each_judges_pick_with_the_oracle():
    from autoalign.benchmarks import world_eval
    from autoalign.models.cache import Models

    config = world_eval.config_for(generator={"num_inference_steps": 4})
    got = world_eval.eval_rerank(Models(config), config, 3, splits=("val",))
    table = got["val"]
    k = config.loop.candidates
    assert table["share of candidates right"]["n"] == 3 * k
    upper = table[f"best of {k} right by oracle (upper bound)"]
    for judge in ("first candidate", "vq2", "vnli", "clip"):
        m = table[f"best of {k} right by {judge}"]
        assert m["n"] == 3 and m["value"] <= upper["value"]  # no judge beats the oracle's own pick


@pytest.mark.slow
def test_loop_settings_runs_the_loop_on_validation_captions_and_counts_with_the_oracle():
    from autoalign.world.scene import spec_for
    from experiments import loop_settings

    prompts = loop_settings.captions(2)
    assert len(set(prompts)) == 2 and prompts[0] == spec_for("val", 0).caption()
    counts = loop_settings.run_setting({"max_rounds": 1}, prompts)
    assert all(0 <= v <= 2 for v in counts.values())
    assert counts["false passes"] <= counts["judge passed"]


def test_editor_source_use_measures_the_committed_editor_reading_its_source():
    from autoalign.benchmarks import world_eval
    from autoalign.world import WEIGHTS_DIR
    from experiments.editor_source_use import BANDS, source_use

    kinds = ["drop", "extra", "swap"]
    got = source_use(WEIGHTS_DIR / "editor", scenes=60, kinds=kinds)
    cases = [t for t in world_eval.edit_cases("val", 60) if t.kind in kinds]  # the same cases, world eval's
    assert got["n"] == len(cases) >= 8 and got["kinds"] == {k: sum(t.kind == k for t in cases) for k in sorted({t.kind for t in cases})}
    noisy, source = got["conv_in weight norm: noisy / source channels"]
    assert noisy > 0 and source > 0  # the source channels started at zero and were trained
    for lo, hi in BANDS:
        losses = got[f"t in [{lo}, {hi})"]
        assert all(0 < v < 1 for v in losses.values())
    # at high noise, where the layout forms, the trained editor reads its source: a wrong source hurts
    high = got["t in [800, 1000)"]
    assert high["true source"] < high["another's source"]


def test_truth_vq2_is_the_ceiling_of_a_question_set_blind_to_an_a_copy():
    # A perfect VQA (answers from the scene graph) scores the caption's own scene 1; DSG's questions ask
    # no count for "a", so a second red circle leaves even a perfect VQA at 1, while the closed count sees it.
    from autoalign.benchmarks.world_eval import truth_vq2
    from autoalign.world.scene import Group, Obj, Scene, Spec
    from autoalign.world.training.data import questions

    spec = Spec((Group(1, "red", "circle"), Group(2, "blue", "square")), None, "count")
    scene = Scene([Obj("circle", "red", "big", 14, 14), Obj("square", "blue", "big", 50, 14), Obj("square", "blue", "big", 30, 50)])
    copy = Scene(scene.objects + [Obj("circle", "red", "big", 50, 50)])
    recoloured = Scene([Obj("circle", "green", "big", 14, 14), *scene.objects[1:]])
    dsg, closed = questions(spec.caption()), questions(spec.caption(), closed_counts=True)
    assert truth_vq2(dsg, scene) == truth_vq2(closed, scene) == 1.0
    assert truth_vq2(dsg, copy) == 1.0 and truth_vq2(closed, copy) < 1.0
    assert truth_vq2(dsg, recoloured) < 1.0
