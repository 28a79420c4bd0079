"""``autoalign questions check FILE``: the never-crash check on a user's own prompt file (issue 39)."""

from __future__ import annotations

import json

MIDJOURNEY = (
    "a painting of a huangshan, a matte painting by marc simonetti, deviantart, fantasy art, apocalypse landscape, "
    "matte painting, apocalypse art"
)


def test_a_prompt_file_is_checked_and_reported(tmp_path, cli):
    path = tmp_path / "prompts.txt"
    path.write_text(f"a red cat on a wooden table\n# a comment\n{MIDJOURNEY}\n\U0001f44d \u200b --ar 16:9\n", encoding="utf-8")
    code, out, err = cli("questions", "check", str(path))
    assert code == 0, err
    assert out.startswith("3 prompts,") and "0 crashed" in out
    code, out, _ = cli("questions", "check", str(path), "--json")
    report = json.loads(out)
    assert code == 0 and report["prompts"] == 3 and report["crashes"] == 0 and report["questions"] >= 8


def test_a_prompt_the_generator_raises_on_is_reported_with_exit_1(tmp_path, monkeypatch, cli):
    from autoalign.scoring.questions import SpacyQuestions

    real = SpacyQuestions.generate

    def raising(self, prompt, llm=None):  # a test double for a generator bug
        if "boom" in prompt:
            raise RuntimeError("a bug the check must surface")
        return real(self, prompt, llm)

    monkeypatch.setattr(SpacyQuestions, "generate", raising)
    path = tmp_path / "prompts.txt"
    path.write_text("a cat\nboom goes the dynamite\n", encoding="utf-8")
    code, out, _ = cli("questions", "check", str(path))
    assert code == 1
    assert "1 crashed" in out and "CRASH RuntimeError: a bug the check must surface" in out and "boom goes" in out


def test_a_missing_file_is_one_line_and_exit_2(tmp_path, cli):
    code, out, err = cli("questions", "check", str(tmp_path / "nope.txt"))
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and "not found" in lines[0]
