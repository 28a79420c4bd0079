"""The one registry of backends: every built-in entry resolves, listing names imports nothing, a clash
or a miss says what exists."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autoalign import registry
from autoalign.registry import BUILTIN, RegistryError


@pytest.mark.parametrize("role,name", [(r, n) for r, entries in BUILTIN.items() for n in entries])
def test_every_builtin_backend_resolves_to_the_object_it_names(role, name):
    obj = registry.get(role, name)
    assert f"{obj.__module__}:{obj.__qualname__}" == BUILTIN[role][name]
    assert registry.get(role, name) is obj


def test_listing_names_imports_no_backend_module():
    code = (
        "import sys; from autoalign import registry; "
        "names = {r: registry.names(r) for r in registry.ROLES}; "
        "assert 'template' in names['writer'] and 'vq2' in names['detector'], names; "
        "heavy = [m for m in ('autoalign.models.vqa', 'autoalign.editing.template_writer', 'diffusers') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_clash_with_a_builtin_name_and_a_miss_say_what_exists():
    with pytest.raises(RegistryError, match="already registered"):
        registry.register("writer", "template")(type("Impostor", (), {}))
    with pytest.raises(RegistryError, match="known writer backends: llm, template"):
        registry.get("writer", "nope")
    with pytest.raises(RegistryError, match="roles are"):
        registry.names("painter")


def test_an_outside_backend_registers_once(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "writer", dict(registry._REGISTRY["writer"]))

    @registry.register("writer", "outside-test")
    class Outside:
        pass

    assert registry.get("writer", "outside-test") is Outside
    assert "outside-test" in registry.names("writer")
    with pytest.raises(RegistryError):
        registry.register("writer", "outside-test")(type("Other", (), {}))
