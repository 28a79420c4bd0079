"""``autoalign models check`` and the same checks before run / batch / bench: one line per finding,
and a run stops with one line on no CUDA, emulated bf16 only, a gated repo without a token, an
incomplete snapshot, or too little memory (issue 38). The machine and the hub are doubles."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import autoalign.commands.models  # noqa: F401  (registers the commands on the app)
from autoalign.cli_apps import app
from autoalign.config import load_config
from autoalign.errors import InputError
from autoalign.models import doctor, loading


class MachineDouble(doctor.Machine):
    """A machine with the given GPU (or none), bf16 support, free GPU memory and host RAM."""

    def __init__(self, cuda=True, bf16=True, vram=80.0, ram=256.0):
        self.cuda, self.bf16, self.vram, self.ram = cuda, bf16, vram, ram

    def cuda_state(self):
        return "torch 2.x built for CUDA 12.4" + ("; 1 GPU(s)" if self.cuda else " but finds no usable GPU")

    def cuda_build(self):
        return "12.4"

    def cuda_available(self):
        return self.cuda

    def gpu_name(self):
        return "NVIDIA A100-SXM4-80GB" if self.bf16 else "Tesla T4"

    def driver(self):
        return "550.54.15" if self.cuda else None

    def bf16_native(self):
        return self.bf16

    def free_vram_gb(self):
        return self.vram

    def host_ram_gb(self):
        return self.ram


class HubDouble(doctor.Hub):
    def __init__(self, reachable=True, gated=(), token=True, accepted=True):
        self._reachable, self._gated, self.token, self.accepted = reachable, set(gated), token, accepted

    def reachable(self):
        return self._reachable

    def logged_in(self):
        return self.token

    def gated(self, repo, revision):
        return repo in self._gated

    def access_error(self, repo):
        return None if self.accepted else "this account has not accepted its licence"


@pytest.fixture
def nothing_cached(monkeypatch):
    monkeypatch.setattr(loading, "local_snapshot", lambda repo, revision=None: None)


def _fails(findings):
    return [f for f in findings if f.level == "fail"]


def test_a_ready_gpu_machine_passes_with_notes_on_what_will_download(nothing_cached):
    findings = doctor.check(load_config("sd-turbo"), machine=MachineDouble(), hub=HubDouble())
    assert not _fails(findings)
    assert {f.topic for f in findings} >= {"cuda", "bf16", "gpu-memory", "snapshot", "model"}
    assert all("\n" not in f.line() for f in findings)


def test_no_cuda_fails_in_one_line_naming_the_torch_build(nothing_cached):
    with pytest.raises(InputError) as info:
        doctor.require_ready(load_config("sd-turbo"), machine=MachineDouble(cuda=False), hub=HubDouble())
    text = str(info.value)
    assert "\n" not in text and "cuda: no usable GPU" in text and "CUDA 12.4" in text and "--device cpu" in text
    # --device cpu is the explicit choice: no CUDA check then
    cpu = load_config("sd-turbo", overrides={"device": "cpu"})
    assert not _fails(doctor.check(cpu, machine=MachineDouble(cuda=False), hub=HubDouble()))


def test_emulated_bf16_fails_for_models_trained_in_bf16_and_is_a_note_otherwise(nothing_cached):
    t4 = MachineDouble(bf16=False, vram=15.0, ram=64.0)
    flux = doctor.check(load_config("flux-dev-kontext"), machine=t4, hub=HubDouble())
    bf16 = [f for f in flux if f.topic == "bf16"]
    assert bf16[0].level == "fail" and "generator" in bf16[0].text and "emulation" in bf16[0].text
    sd15 = doctor.check(load_config("sd15-magicbrush"), machine=t4, hub=HubDouble())
    assert [f.level for f in sd15 if f.topic == "bf16"] == ["note"]


def test_a_gated_repo_fails_without_a_token_and_without_an_accepted_licence(nothing_cached):
    gated = {"black-forest-labs/FLUX.1-Kontext-dev", "stabilityai/stable-diffusion-3.5-medium"}
    config = load_config("sd35-kontext")
    no_token = _fails(doctor.check(config, machine=MachineDouble(), hub=HubDouble(gated=gated, token=False)))
    assert [f.topic for f in no_token] == ["hub", "hub"]
    assert all("not logged in" in f.text and "hf auth login" in f.text for f in no_token)
    refused = _fails(doctor.check(config, machine=MachineDouble(), hub=HubDouble(gated=gated, accepted=False)))
    assert len(refused) == 2 and "not accepted" in refused[0].text
    assert not _fails(doctor.check(config, machine=MachineDouble(), hub=HubDouble(gated=gated)))


def test_an_incomplete_snapshot_fails_offline(monkeypatch, tmp_path):
    partial = tmp_path / "qwen"
    partial.mkdir()
    (partial / "config.json").write_text(json.dumps({"vision_config": {}}))
    (partial / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"a": "model-00001-of-00002.safetensors"}}))
    monkeypatch.setattr(loading, "local_snapshot",
                        lambda repo, revision=None: str(partial) if repo == "Qwen/Qwen2-VL-2B-Instruct" else None)
    fails = _fails(doctor.check(load_config("sd-turbo"), machine=MachineDouble(), hub=HubDouble(reachable=False)))
    vqa = [f for f in fails if "Qwen/Qwen2-VL-2B-Instruct" in f.text]
    assert len(vqa) == 1 and "only partly cached" in vqa[0].text and "model-00001-of-00002.safetensors" in vqa[0].text


def test_too_little_gpu_memory_or_host_ram_fails(nothing_cached):
    small = _fails(doctor.check(load_config("flux-qwen-edit"), machine=MachineDouble(vram=24.0), hub=HubDouble()))
    assert [f.topic for f in small] == ["gpu-memory"] and "24.0 GB is free" in small[0].text
    ram = _fails(doctor.check(load_config("flux-qwen-edit"), machine=MachineDouble(ram=32.0), hub=HubDouble()))
    assert [f.topic for f in ram] == ["host-ram"] and "editor" in ram[0].text  # Qwen-Image-Edit offloaded: ~58 GB


def test_models_check_prints_one_line_per_finding_and_exits_2_on_failure():
    runner = CliRunner()
    ok = runner.invoke(app, ["models", "check", "tiny"])
    assert ok.exit_code == 0 and "ready" in ok.output
    bad = runner.invoke(app, ["models", "check", "--preset", "sd-turbo"])  # this machine: no GPU, offline
    assert bad.exit_code != 0 and bad.output.count("FAIL ") >= 2
    assert all(line.startswith(("FAIL ", "OK ", "NOTE ")) for line in bad.output.splitlines())


def test_batch_stops_before_writing_anything_when_the_checks_fail(tmp_path, capsys):
    from autoalign.cli import main

    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a red apple\n")
    out = tmp_path / "batch"
    with pytest.raises(SystemExit) as info:
        main(["batch", str(prompts), "--out", str(out), "--preset", "sd-turbo", "--no-progress"])
    assert info.value.code == 2 and not out.exists()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot run preset 'sd-turbo'" in err[0] and "cuda: no usable GPU" in err[0]
