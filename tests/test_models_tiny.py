"""Tiny random-weight models: built in code, saved as safetensors, placed atomically, loadable."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from autoalign.errors import InputError
from autoalign.models import loading, tiny, tiny_check


@pytest.mark.parametrize("name", ["sd", "ip2p", "clip"])
def test_tiny_model_is_saved_as_small_safetensors_with_a_random_weights_note(name):
    path = tiny.ensure(name, loading.tiny_dir())
    assert path == loading.tiny_dir() / name
    assert tiny.is_built(path)
    assert "RANDOM" in (path / "README.md").read_text()
    weights = list(path.rglob("*.safetensors"))
    assert weights, f"no safetensors in {path}"
    assert not list(path.rglob("*.bin")) and not list(path.rglob("*.pt"))
    assert tiny.disk_size(path) < 5 * 1024 * 1024
    assert 10_000 < tiny.param_count(path) < 2_000_000


def test_tiny_models_build_the_same_weights_every_time(tmp_path):
    from safetensors.torch import load_file

    first = tiny.build("clip", tmp_path / "a")
    second = tiny.build("clip", tmp_path / "b")
    a = load_file(str(first / "open_clip_model.safetensors"))
    b = load_file(str(second / "open_clip_model.safetensors"))
    assert a.keys() == b.keys()
    assert all((a[k] == b[k]).all() for k in a)


def test_tiny_resolves_through_resolve_model():
    assert loading.resolve_model("tiny:clip", "clip") == str(loading.tiny_dir() / "clip")


def test_unknown_tiny_name_lists_the_known_ones():
    with pytest.raises(InputError) as info:
        tiny.ensure("nope", loading.tiny_dir())
    for name in ("sd", "ip2p", "clip", "llava", "blip2"):
        assert name in str(info.value)


def test_diffusion_tokenizer_is_a_working_clip_bpe_built_offline():
    from transformers import CLIPTokenizer

    tok = CLIPTokenizer.from_pretrained(tiny.ensure("sd", loading.tiny_dir()) / "tokenizer")
    ids = tok("A red cube on a blue table").input_ids
    assert ids[0] == tok.bos_token_id and ids[-1] == tok.eos_token_id
    assert tok.unk_token_id not in ids[1:-1]
    assert tok.decode(ids, skip_special_tokens=True) == "a red cube on a blue table"
    assert tok.model_max_length == 77
    assert len(tok) == 256 * 2 + tiny.TOKENIZER_MERGES + 2


def test_ip2p_unet_reads_image_latents_as_extra_channels():
    sd = json.loads((tiny.ensure("sd", loading.tiny_dir()) / "unet" / "config.json").read_text())
    ip2p = json.loads((tiny.ensure("ip2p", loading.tiny_dir()) / "unet" / "config.json").read_text())
    assert (sd["in_channels"], ip2p["in_channels"]) == (4, 8)
    text = json.loads((tiny.ensure("sd", loading.tiny_dir()) / "text_encoder" / "config.json").read_text())
    assert sd["cross_attention_dim"] == text["hidden_size"]


def test_racing_builds_leave_one_complete_directory(tmp_path):
    results, errors = [], []

    def worker():
        try:
            results.append(tiny.build("clip", tmp_path))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert set(results) == {tmp_path / "clip"}
    assert tiny.is_built(tmp_path / "clip")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clip"]  # no temp dirs left behind


def test_a_build_from_an_older_builder_version_is_rebuilt(tmp_path):
    path = tiny.build("clip", tmp_path)
    (path / tiny.MARKER).write_text(json.dumps({"name": "clip", "builder_version": 0}))
    (path / "stale.txt").write_text("old")
    rebuilt = tiny.build("clip", tmp_path)
    assert tiny.is_built(rebuilt) and not (rebuilt / "stale.txt").exists()


def test_a_failed_build_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(out_dir: Path) -> None:
        (out_dir / "half.bin").write_text("x")
        raise RuntimeError("builder crashed")

    monkeypatch.setitem(tiny.TINY_MODELS, "clip", broken)
    with pytest.raises(RuntimeError):
        tiny.build("clip", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_vlm_names_dispatch_to_the_vlm_builders(tmp_path, monkeypatch):
    from autoalign.models import tiny_vlm

    calls = []

    def builder_double(out_dir: Path) -> None:  # stands in for tiny_vlm's builder; records the call
        calls.append(out_dir)
        (out_dir / "config.json").write_text("{}")

    monkeypatch.setattr(tiny_vlm, "build_llava", builder_double)
    monkeypatch.setattr(tiny_vlm, "build_blip2", builder_double)
    for name in ("llava", "blip2"):
        path = tiny.build(name, tmp_path)
        assert (path / "config.json").exists() and tiny.is_built(path)
    assert len(calls) == 2 and all(c.parent == tmp_path for c in calls)


def test_make_all_builds_and_loads_back_through_the_backends(tmp_path):
    built = tiny_check.make_all(tmp_path, names=["sd", "ip2p", "clip"])
    assert list(built) == ["sd", "ip2p", "clip"]
    assert all(tiny.is_built(p) for p in built.values())


def test_make_all_refuses_unknown_names_before_building(tmp_path):
    with pytest.raises(InputError, match="nope"):
        tiny_check.make_all(tmp_path, names=["clip", "nope"])
    assert not (tmp_path / "clip").exists()
