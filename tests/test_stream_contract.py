"""The real runner and the studio's stream double go through the same RunView path, with the same types.

The runner runs the scene double preset (TEST DOUBLES for the models: they judge nothing, they
make the loop's logic checkable); ``StreamDouble`` runs no loop at all. Both must stream
``StreamUpdate``s whose node order is a path through the graph, and the double may only emit node
names and update fields the real runner emits for that node.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from autoalign.agents import runner
from autoalign.config import load_config
from autoalign.doubles.stream import StreamDouble
from autoalign.types import NODE_NAMES, RunResult, StreamUpdate
from autoalign.ui.run_view import RunView

PROMPT = "two red apples and a blue plate"
GRAPH_PATH = re.compile(r"generate score detect( instruct edit detect)*")


def config():
    return load_config("scene-double", overrides={"generator": {"flaw": "count"}, "loop": {"candidates": 2, "max_rounds": 2}})


def present(stream_fn, out_dir: Path) -> tuple[RunView, list[StreamUpdate]]:
    """What the studio does with a stream (ui.app's Run handler, without Gradio)."""
    cfg = config()
    view = RunView(prompt=PROMPT, max_rounds=cfg.loop.max_rounds, run_dir=str(out_dir))
    steps = []
    for step in stream_fn(PROMPT, cfg, str(out_dir)):
        assert isinstance(step, StreamUpdate)
        steps.append(step)
        view.apply(step)
    view.finish(out_dir)
    return view, steps


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    root = tmp_path_factory.mktemp("contract")
    return {"runner": (present(runner.stream, root / "runner"), root / "runner"),
            "double": (present(StreamDouble(), root / "double"), root / "double")}


@pytest.mark.parametrize("source", ["runner", "double"])
def test_both_streams_walk_the_graph_and_end_in_a_readable_run(streams, source):
    (view, steps), out = streams[source]
    nodes = [s.node for s in steps]
    assert GRAPH_PATH.fullmatch(" ".join(nodes)), nodes
    assert [s.step for s in steps] == list(range(len(steps)))
    result = RunResult.load(out)
    assert view.stop_reason == result.stop_reason and result.stop_reason is not None
    assert view.round == result.rounds == steps[-1].round == nodes.count("edit")
    assert result.graph_steps == len(steps)
    assert view.final_image == str(out / "final.png") and Path(view.final_image).is_file()
    assert view.best_path == str(out / result.final.path)
    assert all(Path(path).is_file() for path, _ in view.gallery())
    assert f"**Edit round {result.rounds}**" in view.instruction_log()
    assert view.status(running=False).startswith(f"Done · {result.rounds} edit round(s)")


def test_the_double_emits_only_what_the_runner_emits(streams):
    def fields_by_node(steps):
        out: dict[str, set[str]] = {}
        for s in steps:
            out.setdefault(s.node, set()).update(s.update.to_dict())
        return out

    real = fields_by_node(streams["runner"][0][1])
    double = fields_by_node(streams["double"][0][1])
    assert set(real) == set(NODE_NAMES) == set(double)
    for node, fields in double.items():
        assert fields <= real[node], (node, fields - real[node])
