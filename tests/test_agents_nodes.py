"""Each loop node on its own, driven by the scene double (a TEST DOUBLE that judges nothing),
plus the router on every branch and the graph wiring."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from langgraph.graph import END
from PIL import Image

from autoalign.agents import nodes
from autoalign.agents.graph import NODES, build_graph, recursion_limit
from autoalign.agents.state import LoopContext, add_counts
from autoalign.config import load_config
from autoalign.detection import detect as library_detect
from autoalign.doubles.scene import decode_scene, parse_scene, render_scene
from autoalign.editing import make_writer
from autoalign.models.cache import Models
from autoalign.scoring.scorer import Scorer
from autoalign.types import STOP_REASONS, Instruction

PROMPT = "two red apples and a blue plate"


class EmptySceneEditorDouble:
    """TEST DOUBLE editor whose every edit wipes the scene (a harmful edit)."""

    def __init__(self):
        self.calls = 0

    def edit(self, image, instruction, n, seed):
        self.calls += 1
        return [render_scene([], image.size) for _ in range(n)]


class CountingDetectorDouble:
    """TEST DOUBLE around the library's detect(): counts calls."""

    def __init__(self):
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        return library_detect(*args)


class FixedWriterDouble:
    """TEST DOUBLE writer: always returns the same instruction texts."""

    def __init__(self, texts):
        self.texts = texts

    def write(self, prompt, mismatches, tried):
        return [Instruction(text=t, writer="double") for t in self.texts]


class ModelsDouble:
    """The run's models with one role replaced by a double."""

    def __init__(self, base, **roles):
        self._base, self._roles = base, roles

    def __getattr__(self, name):
        return self._roles[name] if name in self._roles else getattr(self._base, name)


def make_runtime(tmp_path: Path, overrides=None, **parts) -> SimpleNamespace:
    config = load_config("scene-double", overrides=overrides or {})
    models = parts.pop("models", None) or Models(config)
    ctx = LoopContext(
        config=config,
        models=models,
        run_dir=tmp_path,
        scorer=parts.pop("scorer", None) or Scorer(models, config, question_disk_cache=False),
        writer=parts.pop("writer", None) or make_writer(models, config),
        detect=parts.pop("detect", None) or library_detect,
    )
    return SimpleNamespace(context=ctx)


def start_state(**extra):
    return {"prompt": PROMPT, "seed": 0, "round": 0, "rounds_without_gain": 0, **extra}


def run_nodes(state, runtime, *names):
    for name in names:
        update = getattr(nodes, name)(state, runtime)
        for key, value in update.items():
            if key in ("instructions", "rounds"):
                state[key] = state.get(key, []) + value
            elif key in ("model_calls", "timings"):
                state[key] = add_counts(state.get(key), value)
            else:
                state[key] = value
    return state


@pytest.mark.parametrize(
    ("stop_reason", "branch"),
    [("aligned", "aligned"), ("max_rounds", "max_rounds"), ("no_improvement", "no_improvement"), (None, "next_round")],
)
def test_router_takes_the_branch_of_the_stop_decision(stop_reason, branch):
    assert nodes.route({"stop_reason": stop_reason}) == branch


def test_graph_compiles_with_every_node_and_ends_on_stop_branches():
    graph = build_graph()
    compiled = graph.compile()
    assert set(NODES) <= set(compiled.get_graph().nodes)
    (branch,) = graph.branches["detect"].values()  # the router after detect, and where each branch leads
    for stop in STOP_REASONS:
        assert branch.ends[nodes.route({"stop_reason": stop})] == END, stop
    assert branch.ends[nodes.route({"stop_reason": None})] == "instruct"
    edges = {(e.source, e.target) for e in compiled.get_graph().edges}
    assert {("instruct", "edit"), ("edit", "detect"), ("detect", "__end__")} <= edges
    assert recursion_limit(3) > recursion_limit(1) >= 3 + 3


def test_generate_saves_one_file_per_candidate_with_consecutive_seeds(tmp_path):
    runtime = make_runtime(tmp_path, {"loop": {"candidates": 3}})
    update = nodes.generate(start_state(), runtime)
    assert [c["path"] for c in update["candidates"]] == [f"candidates/cand_{i:02d}.png" for i in range(3)]
    assert [c["seed"] for c in update["candidates"]] == [0, 1, 2]
    assert all((tmp_path / c["path"]).is_file() for c in update["candidates"])
    assert update["model_calls"] == {"generator": 1}


def test_generate_corrects_an_uploaded_image_instead_of_generating(tmp_path):
    upload = tmp_path / "mine.png"
    render_scene(parse_scene("one red apple and a blue plate")).save(upload)
    runtime = make_runtime(tmp_path)
    update = nodes.generate(start_state(init_image=str(upload)), runtime)
    (cand,) = update["candidates"]
    assert cand["origin"] == "upload" and "generator" not in update["model_calls"]
    with Image.open(tmp_path / cand["path"]) as im:
        assert decode_scene(im) == parse_scene("one red apple and a blue plate")


def test_score_ranks_candidates_and_remembers_the_first_best(tmp_path):
    runtime = make_runtime(tmp_path, {"loop": {"candidates": 3}})
    state = run_nodes(start_state(), runtime, "generate", "score")
    # seed 2 is the scene double's flawless drawing
    assert state["best"]["path"] == "candidates/cand_02.png" == state["first_best"]["path"]
    assert state["best"]["score"]["overall"] == max(c["score"]["overall"] for c in state["candidates"])


def test_detect_finds_the_wrong_count_and_does_not_repeat_itself(tmp_path):
    detector = CountingDetectorDouble()
    runtime = make_runtime(tmp_path, {"generator": {"flaw": "count"}, "loop": {"candidates": 1}}, detect=detector)
    state = run_nodes(start_state(), runtime, "generate", "score", "detect")
    assert [m["aspect"] for m in state["mismatches"]] == ["number"]
    assert state["stop_reason"] is None and detector.calls == 1
    again = nodes.detect(state, runtime)
    assert again["mismatches"] == state["mismatches"] and detector.calls == 1


def test_detect_decides_to_stop_at_max_rounds(tmp_path):
    runtime = make_runtime(tmp_path, {"generator": {"flaw": "count"}, "loop": {"candidates": 1, "max_rounds": 0}})
    state = run_nodes(start_state(), runtime, "generate", "score", "detect")
    assert state["stop_reason"] == "max_rounds" and nodes.route(state) == "max_rounds"


def test_instruct_skips_instructions_already_tried(tmp_path):
    runtime = make_runtime(tmp_path, writer=FixedWriterDouble(["add another apple", "add one more apple"]))
    state = start_state(mismatches=[], instructions=[{"text": "add another apple", "writer": "double"}])
    update = nodes.instruct(state, runtime)
    assert [i["text"] for i in update["pending"]] == ["add one more apple"]


def test_harmful_edit_is_rejected_and_the_best_image_kept(tmp_path):
    base = load_config("scene-double")
    models = ModelsDouble(Models(base), editor=EmptySceneEditorDouble())
    runtime = make_runtime(tmp_path, {"generator": {"flaw": "count"}, "loop": {"candidates": 1}}, models=models)
    state = run_nodes(start_state(), runtime, "generate", "score", "detect", "instruct")
    best_before = state["best"]
    state = run_nodes(state, runtime, "edit")
    (record,) = state["rounds"]
    assert record["accepted"] is False and state["best"] == best_before
    assert all(a["decision"]["accepted"] is False for a in record["attempts"])
    assert state["rounds_without_gain"] == 1
    assert nodes.final_candidate(state)["path"] == best_before["path"]


def test_rejected_instruction_is_followed_by_the_next_one(tmp_path):
    writer = FixedWriterDouble(["sing a song", "add another apple"])
    runtime = make_runtime(tmp_path, {"generator": {"flaw": "count"}, "loop": {"candidates": 1}}, writer=writer)
    state = run_nodes(start_state(), runtime, "generate", "score", "detect", "instruct", "edit")
    (record,) = state["rounds"]
    assert [a["decision"]["reason"] for a in record["attempts"]] == ["no_gain", "accepted"]
    assert state["best"]["origin"] == "edit" and state["best"]["path"] == "rounds/r01/i1_s0.png"
    assert state["mismatches"] == [] and state["round"] == 1


def test_edit_seed_changes_every_round():
    assert len({nodes.edit_seed(0, r, 0) for r in (1, 2, 3)}) == 3


class WrongThenRightEditorDouble:
    """TEST DOUBLE editor: its first sample keeps the wrong count, its second draws the prompt's scene."""

    def edit(self, image, instruction, n, seed):
        return [render_scene(parse_scene("one red apple and a blue plate"), image.size),
                render_scene(parse_scene(PROMPT), image.size)][:n]


class FlatteringScorerDouble:
    """TEST DOUBLE around the real scorer: of two images, it scores the first above the second (a judge that
    prefers the wrong sample), and leaves every other call alone."""

    def __init__(self, scorer):
        self.scorer = scorer

    def score(self, images, prompt):
        cards = self.scorer.score(images, prompt)
        if len(cards) == 2:  # every score the ranking reads
            for key in ("overall", "vq2", "vnli", "clip"):
                if getattr(cards[1], key) is not None:
                    setattr(cards[0], key, getattr(cards[1], key) + 0.05)
        return cards


@pytest.mark.parametrize(("pick", "accepted", "path"), [("score", False, None),
                                                        ("fewest_mismatches", True, "rounds/r01/i0_s1.png")])
def test_the_sample_with_fewest_mismatches_can_be_judged_instead_of_the_top_scored(tmp_path, pick, accepted, path):
    overrides = {"generator": {"flaw": "count"}, "loop": {"candidates": 1, "edit_samples": 2, "pick_sample": pick,
                                                          "max_instructions": 1}}
    config = load_config("scene-double", overrides=overrides)
    models = ModelsDouble(Models(config), editor=WrongThenRightEditorDouble())
    scorer = FlatteringScorerDouble(Scorer(models, config, question_disk_cache=False))
    runtime = make_runtime(tmp_path, overrides, models=models, scorer=scorer,
                           writer=FixedWriterDouble(["add another apple"]))
    state = run_nodes(start_state(), runtime, "generate", "score", "detect", "instruct", "edit")
    (record,) = state["rounds"]
    (attempt,) = record["attempts"]
    assert attempt["decision"]["accepted"] is accepted
    assert attempt["chosen"] == ("rounds/r01/i0_s0.png" if pick == "score" else path)
    if accepted:
        assert state["best"]["path"] == path and state["mismatches"] == []
        assert state["model_calls"]["detect"] == 3  # the first best, then both samples
