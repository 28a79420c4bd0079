"""scripts/gpu_check.py (the one-call GPU check, docs/gpu.md): one failing check never stops the others and
is recorded with its one-line error; the parameter-placement and NaN checks can fail; the CPU mode runs a
real check end to end and records every CUDA check as skipped."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "gpu_check.py"


@pytest.fixture(scope="module")
def gc():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recorder_records_each_outcome_and_goes_on(gc, tmp_path):
    path = tmp_path / "gpu_check.json"
    rec = gc.Recorder(path, {"title": "t"})

    def passes(d):
        d["value"] = 1

    def verdict(d):
        d["partial"] = "kept"
        gc.require(False, "boxes agree for only 3/10 phrases")

    def crashes(d):
        raise RuntimeError("CUDA error: an illegal memory access\nsecond line of the message")

    rec.run("a", passes)
    assert json.loads(path.read_text())["checks"][0]["status"] == "passed"  # written after each check
    rec.run("b", verdict)
    rec.run("c", crashes)
    rec.run("d", passes, skip="needs CUDA")
    report = json.loads(path.read_text())
    by = {c["name"]: c for c in report["checks"]}
    assert [c["name"] for c in report["checks"]] == ["a", "b", "c", "d"]
    assert by["a"]["status"] == "passed" and by["a"]["details"] == {"value": 1}
    assert by["b"]["status"] == "failed" and by["b"]["error"] == "CheckFailed: boxes agree for only 3/10 phrases"
    assert by["b"]["details"] == {"partial": "kept"}
    assert by["c"]["status"] == "failed"
    assert by["c"]["error"] == "RuntimeError: CUDA error: an illegal memory access"  # one line
    assert by["c"]["at"].startswith("tests/test_gpu_check_script.py:")
    assert by["d"]["status"] == "skipped" and by["d"]["reason"] == "needs CUDA" and by["d"]["details"] == {}
    assert report["counts"] == {"passed": 1, "failed": 2, "skipped": 1}
    assert gc.summary(rec) == 1


def test_placement_fails_on_wrong_dtype_but_allows_what_a_library_keeps_in_fp32(gc):
    import torch

    class Block(torch.nn.Module):
        _keep_in_fp32_modules = ["wo"]

        def __init__(self):
            super().__init__()
            self.wi = torch.nn.Linear(2, 2)
            self.wo = torch.nn.Linear(2, 2)

    block = Block()
    assert gc.placement({"block": block}, "cpu", "float32")["block"]["params_by_device"] == {"cpu": 12}
    with pytest.raises(gc.CheckFailed, match="not bfloat16 \\(e.g. wi.weight\\)"):
        gc.placement({"block": block}, "cpu", "bfloat16")
    block.wi.to(torch.bfloat16)
    out = gc.placement({"block": block}, "cpu", "bfloat16")  # wo stays float32 on purpose (as T5's does)
    assert out["block"]["kept_fp32_by_library"]["params"] == 6
    with pytest.raises(gc.CheckFailed, match="not on cuda"):
        gc.placement({"block": block}, "cuda", "bfloat16")
    mixed = torch.nn.Sequential(torch.nn.Linear(2, 2).to(torch.bfloat16), torch.nn.LayerNorm(2))  # open_clip's "bf16"
    with pytest.raises(gc.CheckFailed, match="not bfloat16 \\(e.g. 1.weight\\)"):
        gc.placement({"clip": mixed}, "cpu", "bfloat16")
    assert gc.placement({"clip": mixed}, "cpu", "bfloat16", matmul_only=True)["clip"]["kept_fp32_by_library"]["params"] == 4
    mixed[0].to(torch.float32)
    with pytest.raises(gc.CheckFailed, match="not bfloat16 \\(e.g. 0.weight\\)"):
        gc.placement({"clip": mixed}, "cpu", "bfloat16", matmul_only=True)
    with pytest.raises(gc.CheckFailed, match="no torch module"):
        gc.placement({}, "cpu", "float32")


def test_non_finite_watch_names_the_module(gc):
    import torch

    class Decoder(torch.nn.Module):
        def forward(self, x):
            return x * float("nan")

    class Vae(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.decoder = Decoder()

        def forward(self, x):
            return {"sample": self.decoder(x)}

    vae = Vae()
    with gc.NonFiniteWatch({"vae": vae}) as watch:
        vae(torch.ones(2))
    assert watch.found == ["vae.decoder", "vae"]
    with pytest.raises(gc.CheckFailed, match="NaN output in vae.decoder, vae"):
        watch.verdict({})

    class MaskedLogits(torch.nn.Module):  # -inf on padded positions by design (Grounding DINO): noted, not failed
        def forward(self, x):
            return x.masked_fill(x < 0, float("-inf"))

    head = MaskedLogits()
    with gc.NonFiniteWatch({"head": head}) as watch:
        head(torch.tensor([1.0, -1.0]))
    details: dict = {}
    watch.verdict(details)
    assert details == {"inf_outputs_noted": ["head"]}
    with gc.NonFiniteWatch({"vae": torch.nn.Identity()}) as watch:
        torch.nn.Identity()(torch.ones(2))
    assert watch.found == []
    assert not vae._forward_hooks and not vae.decoder._forward_hooks  # removed on exit


def test_black_image_and_wrong_size_fail(gc):
    from PIL import Image

    d: dict = {}
    gc.check_images(d, [Image.new("RGB", (8, 8), (9, 9, 9))], (8, 8), 1)
    assert d["images"] == [{"mean": 9.0, "std": 0.0}]
    with pytest.raises(gc.CheckFailed, match="all black"):
        gc.check_images({}, [Image.new("RGB", (8, 8))], (8, 8), 1)
    with pytest.raises(gc.CheckFailed, match="expected \\(16, 16\\)"):
        gc.check_images({}, [Image.new("RGB", (8, 8), (9, 9, 9))], (16, 16), 1)
    with pytest.raises(gc.CheckFailed, match="not finite"):
        gc.finite_numbers([0.5, math.nan], -1.0, 1.0, "cosine")


def test_box_matching_and_share(gc):
    assert gc._match_iou([(0, 0, 10, 10), (20, 20, 30, 30)], [(20, 20, 30, 30)]) == [1.0]
    assert gc._match_iou([], [(0, 0, 1, 1)]) == []
    got = gc.share(32, 32)
    assert got["share"] == 1.0 and got["ci95"][1] == 1.0 and 0.88 < got["ci95"][0] < 0.9
    assert gc.share(0, 0) == {"k": 0, "n": 0, "share": None, "ci95": [0.0, 1.0]}


def test_cpu_mode_runs_one_real_check_and_skips_cuda(gc, tmp_path, monkeypatch):
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    code = gc.main(["--out", str(tmp_path), "--device", "cpu", "--quick", "--only", "tiny/clip/clip"])
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    by = {c["name"]: c for c in report["checks"]}
    assert code == 0, [c for c in report["checks"] if c["status"] == "failed"]
    clip = by["tiny/clip/clip/cpu-float32"]
    assert clip["status"] == "passed"
    assert clip["details"]["placement"]["CLIP"]["params_by_dtype"].keys() == {"float32"}
    assert len(clip["details"]["cosines"]) == 2
    assert by["tiny/clip/clip/cuda-bfloat16"]["status"] == "skipped"
    assert by["tiny/clip/clip/cuda-bfloat16"]["reason"] == "needs CUDA: --device cpu"
    assert by["world/generator/cuda-float32"]["status"] == "skipped"
    assert report["counts"]["passed"] == 1 and report["counts"]["failed"] == 0
    assert any("RANDOM-WEIGHT" in note for note in report["notes"])
