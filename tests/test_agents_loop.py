"""The whole loop through LangGraph and the runner, on the scene double (a TEST DOUBLE that judges
nothing: it shows the loop's LOGIC works), plus run-directory, resume and input checks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PIL import Image

from autoalign.agents import runner
from autoalign.config import load_config
from autoalign.doubles.scene import decode_scene, parse_scene, render_scene
from autoalign.errors import InputError
from autoalign.models.cache import Models
from autoalign.types import RunResult

PROMPT = "two red apples and a blue plate"
VOLATILE = {"run_id", "wall_time_s", "model_ms"}


def cfg(**loop):
    flaw = loop.pop("flaw", "auto")
    return load_config("scene-double", overrides={"generator": {"flaw": flaw}, "loop": {"candidates": 1, **loop}})


class ExplodingEditorDouble:
    """TEST DOUBLE editor that fails on its first call (simulates a run killed mid-loop)."""

    def edit(self, image, instruction, n, seed):
        raise RuntimeError("killed")


class EmptySceneEditorDouble:
    """TEST DOUBLE editor whose every edit wipes the scene (a harmful edit)."""

    def edit(self, image, instruction, n, seed):
        return [render_scene([], image.size) for _ in range(n)]


class ModelsDouble:
    """The run's models with one role replaced by a double."""

    def __init__(self, base, **roles):
        self._base, self._roles = base, roles

    def __getattr__(self, name):
        return self._roles[name] if name in self._roles else getattr(self._base, name)


def final_scene(run_dir: Path):
    with Image.open(run_dir / "final.png") as im:
        return decode_scene(im)


@pytest.mark.parametrize("flaw", ["count", "colour"])
def test_loop_fixes_a_wrong_count_or_colour_and_stops_aligned(tmp_path, flaw):
    summary = runner.run(PROMPT, cfg(flaw=flaw), tmp_path / "run")
    assert summary.stop_reason == "aligned"
    assert summary.rounds == 1 and summary.edits_accepted == 1
    assert summary.mismatches_before and summary.mismatches_after == []
    assert summary.scores.final > summary.scores.first_best
    assert final_scene(tmp_path / "run") == parse_scene(PROMPT)


def test_aligned_first_image_is_not_edited(tmp_path):
    summary = runner.run(PROMPT, cfg(flaw="none"), tmp_path / "run")
    assert summary.stop_reason == "aligned" and summary.rounds == 0 and summary.instructions == []


def test_harmful_edits_are_rejected_and_the_first_best_returned(tmp_path):
    config = cfg(flaw="count", max_rounds=3, patience=2)
    models = ModelsDouble(Models(config), editor=EmptySceneEditorDouble())
    summary = runner.run(PROMPT, config, tmp_path / "run", models=models)
    assert summary.stop_reason == "no_improvement" and summary.rounds == 2
    assert summary.edits_accepted == 0 and summary.edits_rejected >= 2
    assert summary.final.path == summary.first_best.path
    assert summary.scores.final == summary.scores.first_best


def test_run_directory_holds_config_images_trace_and_summary(tmp_path):
    out = tmp_path / "run"
    summary = runner.run(PROMPT, cfg(flaw="count"), out)
    for name in ("config.json", "final.png", "summary.json", "trace.jsonl", "checkpoint.sqlite", "candidates/cand_00.png", "rounds/r01/i0_s0.png"):
        assert (out / name).is_file(), name
    lines = (out / "trace.jsonl").read_text().splitlines()
    records = [json.loads(ln) for ln in lines]
    assert [r["node"] for r in records] == ["generate", "score", "detect", "instruct", "edit", "detect"]
    assert [r["step"] for r in records] == list(range(6)) and summary.graph_steps == 6
    assert all(r["duration_ms"] >= r["model_ms"] >= 0 for r in records)
    stored = json.loads((out / "config.json").read_text())
    assert stored["prompt"] == PROMPT and stored["config_hash"] == summary.config_hash
    written = json.loads((out / "summary.json").read_text())
    for key in ("prompt", "preset", "config_hash", "seed", "models", "rounds", "max_rounds", "stop_reason", "scores",
                "gain", "mismatches_before", "mismatches_after", "instructions", "edits_accepted", "edits_rejected",
                "round_records", "wall_time_s", "model_calls", "autoalign_version"):
        assert key in written, key
    assert RunResult.from_dict(written) == summary and "run_dir" not in written
    assert summary.instructions[0].writer == "template"
    assert summary.scores.baseline == summary.baseline.score["overall"]
    (record,) = summary.round_records
    assert record.accepted and record.attempts[0].decision.accepted and record.best == summary.final.path


def test_killed_run_resumes_to_the_same_summary_as_an_uninterrupted_one(tmp_path):
    config = cfg(flaw="count")
    whole = runner.run(PROMPT, config, tmp_path / "whole")
    killed = tmp_path / "killed"
    with pytest.raises(RuntimeError, match="killed"):
        runner.run(PROMPT, config, killed, models=ModelsDouble(Models(config), editor=ExplodingEditorDouble()))
    assert not (killed / "summary.json").exists()
    with open(killed / "trace.jsonl", "a") as fh:  # a step traced but killed before its checkpoint
        fh.write(json.dumps({"step": 4, "node": "edit"}) + "\n")
    resumed = runner.run(PROMPT, config, killed, resume=True)
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k not in VOLATILE}
    assert strip(resumed) == strip(whole)
    nodes = [json.loads(ln)["node"] for ln in (killed / "trace.jsonl").read_text().splitlines()]
    assert nodes == ["generate", "score", "detect", "instruct", "edit", "detect"]


def test_resuming_a_finished_run_returns_its_summary_without_new_steps(tmp_path):
    out = tmp_path / "run"
    first = runner.run(PROMPT, cfg(flaw="count"), out)
    lines = (out / "trace.jsonl").read_text()
    assert list(runner.stream(PROMPT, cfg(flaw="count"), out, resume=True)) == []
    assert runner.run(PROMPT, cfg(flaw="count"), out, resume=True) == first
    assert (out / "trace.jsonl").read_text() == lines


def test_corrupt_checkpoint_is_a_one_line_input_error(tmp_path):
    out = tmp_path / "run"
    runner.run(PROMPT, cfg(flaw="count"), out)
    (out / "summary.json").unlink()
    (out / "checkpoint.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(InputError, match="checkpoint") as info:
        runner.run(PROMPT, cfg(flaw="count"), out, resume=True)
    assert "\n" not in str(info.value)
    assert not (out / "summary.json").exists()


def test_resume_with_another_configuration_is_refused(tmp_path):
    out = tmp_path / "run"
    runner.run(PROMPT, cfg(flaw="count"), out)
    with pytest.raises(InputError, match="different configuration"):
        runner.run(PROMPT, cfg(flaw="count", max_rounds=5), out, resume=True)
    with pytest.raises(InputError, match="prompt"):
        runner.run("three cats", cfg(flaw="count"), out, resume=True)


def test_fresh_run_into_a_non_empty_directory_is_refused(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match="not empty"):
        runner.run(PROMPT, cfg(), tmp_path / "run")
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("prompt", ["", "   \n\t"])
def test_empty_prompt_is_refused_before_anything_is_written(tmp_path, prompt):
    with pytest.raises(InputError, match="empty"):
        runner.run(prompt, cfg(), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_overlong_prompt_is_refused_with_the_limit_named(tmp_path):
    config = cfg()
    with pytest.raises(InputError, match=str(config.scoring.max_prompt_chars)):
        runner.run("apple " * 2000, config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_uploaded_image_is_corrected(tmp_path):
    upload = tmp_path / "upload.png"
    render_scene(parse_scene("two green apples and a blue plate")).save(upload)
    summary = runner.run(PROMPT, cfg(), tmp_path / "run", init_image=str(upload))
    assert summary.baseline.origin == "upload" and summary.stop_reason == "aligned"
    assert final_scene(tmp_path / "run") == parse_scene(PROMPT)


def test_same_seed_gives_identical_images(tmp_path):
    a = runner.run(PROMPT, cfg(flaw="auto", candidates=2), tmp_path / "a")
    b = runner.run(PROMPT, cfg(flaw="auto", candidates=2), tmp_path / "b")
    assert (tmp_path / "a/final.png").read_bytes() == (tmp_path / "b/final.png").read_bytes()
    assert a.scores == b.scores


def test_checkpoint_is_a_sqlite_database_with_the_run_thread(tmp_path):
    out = tmp_path / "run"
    summary = runner.run(PROMPT, cfg(flaw="count"), out)
    with sqlite3.connect(out / "checkpoint.sqlite") as conn:
        threads = {row[0] for row in conn.execute("select distinct thread_id from checkpoints")}
    assert threads == {summary.run_id}


class LongPromptGeneratorDouble:
    """TEST DOUBLE generator around the scene double that reports a 5-token text encoder."""

    def __init__(self, inner):
        self.inner = inner

    def generate(self, *args, **kwargs):
        return self.inner.generate(*args, **kwargs)

    def max_prompt_tokens(self):
        return 5

    def count_prompt_tokens(self, prompt):
        return len(prompt.split())


def test_prompt_longer_than_the_text_encoder_reads_is_warned_about(tmp_path, caplog):
    config = cfg(flaw="none")
    base = Models(config)
    models = ModelsDouble(base, generator=LongPromptGeneratorDouble(base.generator))
    with caplog.at_level("WARNING", logger="autoalign.agents.runner"):
        runner.run(PROMPT, config, tmp_path / "run", models=models)
    assert any("7 tokens" in r.message and "first 5" in r.message for r in caplog.records)


def test_resume_of_a_directory_without_a_run_starts_one(tmp_path):
    summary = runner.run(PROMPT, cfg(flaw="count"), tmp_path / "new", resume=True)
    assert summary.stop_reason == "aligned" and (tmp_path / "new" / "config.json").is_file()


def test_run_killed_before_its_first_checkpoint_starts_over_on_resume(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    sqlite3.connect(out / "checkpoint.sqlite").close()  # killed right after creating the database
    summary = runner.run(PROMPT, cfg(flaw="count"), out, resume=True)
    assert summary.stop_reason == "aligned" and summary.graph_steps == 6


def test_run_killed_while_its_checkpoint_database_is_in_wal_mode_starts_over_on_resume(tmp_path):
    # SqliteSaver.setup() switches the database to WAL: a kill right after leaves -wal and -shm files
    out = tmp_path / "run"
    out.mkdir()
    conn = sqlite3.connect(out / "checkpoint.sqlite")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE t (x)")
    (out / "checkpoint.sqlite-wal").touch()
    (out / "checkpoint.sqlite-shm").touch()
    conn.close()
    (out / "checkpoint.sqlite-wal").touch()
    (out / ".config.json.k3j2x1").write_text('{"run_id": ')  # write_json_atomic's temp file, cut short
    summary = runner.run(PROMPT, cfg(flaw="count"), out, resume=True)
    assert summary.stop_reason == "aligned" and (out / "config.json").is_file()


def _cut_after_checkpoint(run_dir: Path, keep: int) -> None:
    """Make ``run_dir`` look killed right after its checkpoint number ``keep`` (0 = the input one):
    later checkpoints and their writes are gone, that checkpoint's pending writes stay (a node
    that finished but whose step was never checkpointed), and so do the trace and images."""
    with sqlite3.connect(run_dir / "checkpoint.sqlite") as conn:
        ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints ORDER BY checkpoint_id")]
        for later in ids[keep + 1 :]:
            conn.execute("DELETE FROM checkpoints WHERE checkpoint_id = ?", (later,))
            conn.execute("DELETE FROM writes WHERE checkpoint_id = ?", (later,))
    (run_dir / "summary.json").unlink()
    (run_dir / "final.png").unlink()


def test_a_run_killed_after_any_checkpoint_resumes_to_the_uninterrupted_result(tmp_path):
    import shutil

    config = cfg(flaw="count")
    whole = runner.run(PROMPT, config, tmp_path / "whole")
    nodes = [json.loads(ln)["node"] for ln in (tmp_path / "whole" / "trace.jsonl").read_text().splitlines()]
    with sqlite3.connect(tmp_path / "whole" / "checkpoint.sqlite") as conn:
        n_checkpoints = conn.execute("SELECT COUNT(*) FROM checkpoints").fetchone()[0]
    assert whole.stop_reason == "aligned" and n_checkpoints == len(nodes) + 2  # input + start + one per node
    for keep in range(n_checkpoints):
        cut = tmp_path / f"cut{keep}"
        shutil.copytree(tmp_path / "whole", cut)
        _cut_after_checkpoint(cut, keep)
        resumed = runner.run(PROMPT, config, cut, resume=True)
        for key in ("stop_reason", "rounds", "scores", "graph_steps", "model_calls"):
            assert getattr(resumed, key) == getattr(whole, key), (keep, key)
        assert [json.loads(ln)["node"] for ln in (cut / "trace.jsonl").read_text().splitlines()] == nodes, keep


@pytest.fixture(params=["memory", "sqlite"])
def checkpointer(request, tmp_path):
    """The checkpointer a run is given: LangGraph's in-memory saver, or a SqliteSaver of our own."""
    if request.param == "memory":
        from langgraph.checkpoint.memory import InMemorySaver

        yield InMemorySaver()
    else:
        conn, saver = runner.sqlite_checkpointer(tmp_path / "elsewhere.sqlite")
        yield saver
        conn.close()


def test_a_given_checkpointer_holds_the_run_and_resumes_it(tmp_path, checkpointer):
    config = cfg(flaw="count")
    whole = runner.run(PROMPT, config, tmp_path / "whole")
    killed = tmp_path / "killed"
    with pytest.raises(RuntimeError, match="killed"):
        runner.run(PROMPT, config, killed, checkpointer=checkpointer,
                   models=ModelsDouble(Models(config), editor=ExplodingEditorDouble()))
    assert not (killed / "checkpoint.sqlite").exists()  # the given checkpointer was used, not the default
    run_id = json.loads((killed / "config.json").read_text())["run_id"]
    assert checkpointer.get_tuple({"configurable": {"thread_id": run_id, "checkpoint_ns": ""}}) is not None
    resumed = runner.run(PROMPT, config, killed, resume=True, checkpointer=checkpointer)
    assert resumed.stop_reason == "aligned" and resumed.final.path == whole.final.path
    assert resumed.scores == whole.scores and resumed.graph_steps == whole.graph_steps
    assert list(runner.stream(PROMPT, config, killed, resume=True, checkpointer=checkpointer)) == []  # finished
