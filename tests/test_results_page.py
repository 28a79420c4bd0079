"""docs/results.md is rendered from docs/results/*.json by scripts/make_results.py, never typed by hand:
the committed page is what the committed JSON renders, and bad results files are refused with one line."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "make_results.py"


def _module():
    spec = importlib.util.spec_from_file_location("make_results", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


GENERIC = {
    "title": "Grounding on held-out scenes",
    "command": "autoalign world eval --only grounder --json",
    "measures": "Share of objects found, with n and Wilson intervals.",
    "tables": [{"name": "boxes", "columns": ["split", "recall [95 % CI] (n)"],
                "rows": [["test", "0.812 [0.770, 0.847] (n=400)"], ["compositional", 0.5]]}],
}


def test_the_committed_page_is_what_the_committed_json_renders():
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    assert page == _module().render(ROOT / "docs" / "results"), "docs/results.md is stale: run python scripts/make_results.py"
    done = _run("--check")
    assert done.returncode == 0, done.stderr


def test_every_json_file_in_docs_results_appears_on_the_page():
    page = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    module = _module()
    for entry in module._sources(ROOT / "docs" / "results"):
        assert f"## {entry['title']}" in page and entry["command"] in page
    for path in (ROOT / "docs" / "results").glob("*.json"):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "tables" in doc:
            assert f"## {doc['title']}" in page


def test_a_generic_results_file_is_rendered_with_its_command_and_tables(tmp_path):
    (tmp_path / "grounder.json").write_text(json.dumps(GENERIC), encoding="utf-8")
    out = tmp_path / "results.md"
    done = _run("--results-dir", str(tmp_path), "--out", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert "## Grounding on held-out scenes" in page
    assert "Command: `autoalign world eval --only grounder --json`" in page
    assert "| split | recall [95 % CI] (n) |" in page
    assert "| test | 0.812 [0.770, 0.847] (n=400) |" in page and "| compositional | 0.5 |" in page
    assert "- [Grounding on held-out scenes](#grounding-on-held-out-scenes)" in page
    (tmp_path / "grounder-2.json").write_text(json.dumps(GENERIC), encoding="utf-8")  # the same title twice
    assert _run("--results-dir", str(tmp_path), "--out", str(out)).returncode == 0
    assert "](#grounding-on-held-out-scenes-1)" in out.read_text(encoding="utf-8")
    assert _run("--results-dir", str(tmp_path), "--out", str(out), "--check").returncode == 0
    out.write_text(page.replace("0.812", "0.900"), encoding="utf-8")  # a hand-edited figure
    stale = _run("--results-dir", str(tmp_path), "--out", str(out), "--check")
    assert stale.returncode == 1 and "stale" in stale.stderr


@pytest.mark.parametrize("doc, words", [
    ({k: v for k, v in GENERIC.items() if k != "command"}, "'command' must be a str"),
    ({**GENERIC, "tables": [{"name": "t", "columns": ["a", "b"], "rows": [["only one"]]}]}, "row 0 must be a list of 2 cells"),
    ({**GENERIC, "tables": [{"name": "t", "columns": ["a"], "rows": [[{"value": 1}]]}]}, "cells are strings or numbers"),
    ({"value": 0.5}, "neither named in sources.toml nor in the generic shape"),
])
def test_a_bad_results_file_is_refused_with_one_line_and_nothing_written(tmp_path, doc, words):
    (tmp_path / "bad.json").write_text(json.dumps(doc), encoding="utf-8")
    out = tmp_path / "results.md"
    done = _run("--results-dir", str(tmp_path), "--out", str(out))
    assert done.returncode == 2
    assert words in done.stderr and done.stderr.count("\n") == 1 and "bad.json" in done.stderr
    assert not out.exists()


def test_a_source_entry_must_name_an_existing_file_and_a_known_renderer(tmp_path):
    entry = ('[[source]]\nfile = "{file}"\nkind = "{kind}"\ntitle = "t"\ncommand = "c"\nmeasured = "m"\nmeasures = "x"\n')
    (tmp_path / "sources.toml").write_text(entry.format(file="gone.json", kind="world_eval"), encoding="utf-8")
    assert "no file docs/results/gone.json" in _run("--results-dir", str(tmp_path), "--check").stderr
    (tmp_path / "w.json").write_text("{}", encoding="utf-8")
    (tmp_path / "sources.toml").write_text(entry.format(file="w.json", kind="nonsense"), encoding="utf-8")
    assert "kind must be one of" in _run("--results-dir", str(tmp_path), "--check").stderr


def test_the_renderers_read_the_shapes_the_commands_write():
    module = _module()
    world = {"n_per_split": 2, "vlm accuracy": {"test": {"count": {"value": 0.5, "n": 2, "ci": [0.1, 0.9]}},
                                                "compositional": {"count": {"value": None, "n": 0, "ci": [None, None]}}},
             "clip winoground": {"clip": {"test colour swap": {"group": {"value": 0.25, "n": 4, "ci": [0.05, 0.7]}}},
                                 "clip-plain": {"missing": "weights/clip-plain"}}}
    text = "\n".join(module.render_world_eval(world, "w.json"))
    assert "| count | 0.500 [0.100, 0.900] (n=2) | n/a (n=0) |" in text
    assert "| clip · test colour swap · group | 0.250 [0.050, 0.700] (n=4) |" in text
    assert "Not measured (no weights): clip-plain: weights/clip-plain" in text
    bench = {"n": 10, "gains": {"corrected - baseline": {"name": "g", "value": 0.2, "n": 10, "ci_low": 0.1, "ci_high": 0.3,
                                                         "extra": {"wilcoxon": {"p": 0.0027}}}}}
    text = "\n".join(module.render_shapes_bench(bench, "b.json"))
    assert "| corrected - baseline | 0.200 [0.100, 0.300] (n=10) | 0.0027 |" in text
    assert module._recall({"recall": 0.667, "n": 9}).startswith("0.667 (6/9) [0.354, 0.879]")


def test_the_gpu_check_renderer_reads_what_scripts_gpu_check_writes():
    module = _module()
    report = {"device": "cuda", "counts": {"passed": 2, "failed": 1, "skipped": 1}, "checks": [
        {"name": "env", "status": "passed", "details": {"device_name": "GPU X", "versions": {"torch": "2.11.0"}, "bf16_native": True}},
        {"name": "world/generator/cuda-bfloat16", "status": "passed", "error": None, "details": {
            "against_cpu_float32": {"oracle_verdict_agreement": {"k": 50, "n": 64, "share": 0.781, "ci95": [0.666, 0.865]},
                                    "clipscore_diff_device_minus_cpu": {"mean_abs": 0.36, "max_abs": 1.8}},
            "throughput_batched": {"images_per_call": 32, "images_per_second": 99.6}}},
        {"name": "world/grounder/cuda-float16", "status": "failed", "error": "TypeError: numpy", "details": {}},
        {"name": "tiny/x", "status": "skipped", "error": None, "details": {}}]}
    text = "\n".join(module.render_gpu_check(report, "g.json"))
    assert "Device: GPU X, torch 2.11.0" in text and "2 passed, 1 failed, 1 skipped" in text
    assert ("oracle verdict = cpu 0.781 [0.666, 0.865] (n=64); CLIPScore mean \\|diff\\| 0.36; max \\|diff\\| 1.8; "
            "99.6 images/s (32 a call)") in text  # a table cell's | escaped
    assert "| world/grounder/cuda-float16 | failed | TypeError: numpy |  |" in text and "tiny/x" not in text
    with pytest.raises(module.ResultsError, match="no 'checks'"):
        module.render_gpu_check({"device": "cuda"}, "g.json")
