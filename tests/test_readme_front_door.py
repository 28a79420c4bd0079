"""The README is a front door: short, the main job first, no path outside the repository, every link
resolves, and CI (.ci/run) runs exactly the commands it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAIN_JOB = 'autoalign run "four white circles" --preset shapes --seed 0'


def _docs() -> list[Path]:
    return [README, ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_readme_is_short_and_shows_the_main_job_and_its_picture_first():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    first_section = text.split("\n## ", 2)[1]
    assert first_section.startswith("Quick start") and MAIN_JOB in first_section
    assert "](docs/shapes_main_job.png)" in text.split("\n## ", 2)[1]


def test_the_readme_names_no_path_outside_the_repository():
    text = README.read_text(encoding="utf-8")
    assert "../" not in text and "/work/" not in text


def test_every_relative_link_in_the_docs_resolves():
    broken = []
    for page in _docs():
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+://", target):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def test_ci_runs_the_commands_the_readme_shows():
    readme = README.read_text(encoding="utf-8")
    commands = []
    for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "echo", "set ", "cd ")):
            continue
        commands += [part.strip() for part in line.split("&&")]
    assert MAIN_JOB in commands and "python -m pytest" in commands
    assert 'pip install -e ".[dev]" -c constraints-ci.txt' in commands
    for command in commands:
        assert command in readme, command
        shlex.split(command)  # each is one well-formed shell command


def _packages() -> dict[str, Path]:
    """Every installed package (pyproject's ``packages``) and its folder (``package-dir``)."""
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    mapping = setup["package-dir"]
    out = {}
    for package in setup["packages"]:
        root = max((k for k in mapping if package == k or package.startswith(k + ".")), key=len)
        out[package] = ROOT / mapping[root] / Path(*package[len(root):].strip(".").split(".")) if package != root else ROOT / mapping[root]
    return out


def test_architecture_names_every_package_and_module():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [p for p in _packages() if f"`{p}`" not in text]
    for folder in _packages().values():
        missing += [str(f.relative_to(ROOT)) for f in sorted(folder.glob("*.py"))
                    if f.name != "__init__.py" and f.stem not in text]
    assert not missing, f"ARCHITECTURE.md does not name: {missing}"


def test_every_module_a_package_docstring_names_exists():
    import importlib.util

    missing = []
    for package, folder in _packages().items():
        init = folder / "__init__.py"
        if not init.is_file():
            continue
        for name in re.findall(r":mod:`~?([\w.]+)`", init.read_text(encoding="utf-8")):
            name = package + name if name.startswith(".") else name
            if importlib.util.find_spec(name) is None:
                missing.append(f"{package}: {name}")
    assert not missing, missing
