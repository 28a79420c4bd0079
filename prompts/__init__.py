"""Every LLM/VLM prompt and few-shot example, as text files; ``load(name)`` reads one."""

from importlib import resources


def load(name: str) -> str:
    """Return the text of ``prompts/<name>`` (e.g. ``load("finematch_instruction.txt")``)."""
    res = resources.files("autoalign.prompts").joinpath(name)
    if not res.is_file():
        known = sorted(p.name for p in resources.files("autoalign.prompts").iterdir() if p.name.endswith((".txt", ".json")))
        raise FileNotFoundError(f"no prompt file {name!r}; prompt files: {', '.join(known)}")
    return res.read_text(encoding="utf-8")
