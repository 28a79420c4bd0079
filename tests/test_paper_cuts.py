"""Small things a newcomer trips over: bad rows said once, instruction capitals, chart legends off the
bars, ``models list`` agreeing with the README, and a README that says what each timing measures."""

from __future__ import annotations

import logging
import re
from pathlib import Path

from autoalign.editing.template_writer import TemplateWriter, instruction_texts
from autoalign.types import Mismatch

README = Path(__file__).parents[1] / "README.md"


def test_each_bad_batch_row_is_reported_once(tmp_path, cli, caplog):
    prompts = tmp_path / "prompts.csv"
    prompts.write_text('prompt,id\ntwo red apples,a\n,b\nthree blue cups,a\n', encoding="utf-8")
    with caplog.at_level(logging.INFO):
        code, stdout, err = cli("batch", str(prompts), "--out", str(tmp_path / "out"), "--preset", "scene-double",
                                "--candidates", "1", "--max-rounds", "0", "--no-progress", "--no-report")
    assert code == 1  # bad rows make the exit code non-zero
    logged_warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING and "line" in r.getMessage()]
    assert logged_warnings == []  # the library does not repeat what the command prints
    assert len(re.findall(r"^line 3: ", err, flags=re.M)) == 1
    assert len(re.findall(r"^line 4: ", err, flags=re.M)) == 1


def test_instructions_lower_case_the_prompts_sentence_capital():
    texts = instruction_texts("A red colored car.", Mismatch("entity", "A red colored car", ""))
    assert texts[0] == "add a red colored car"
    assert all(" A " not in f" {t} " for t in texts)
    swap = instruction_texts("The cat on a sofa.", Mismatch("entity", "The cat", "dog"))
    assert swap[0] == "replace the dog with the cat"
    fallback = instruction_texts("Two cats.", Mismatch("number", "Two cats", "one cat"))
    assert "make the image show two cats" in fallback
    # proper names keep their capital
    assert "Paris" in instruction_texts("Paris at night.", Mismatch("entity", "Paris", ""))[0]


def test_template_writer_output_for_a_drawbench_prompt():
    ins = TemplateWriter().write("A red colored car.", [Mismatch("attribute", "red", "blue")], [])
    assert [i.text for i in ins] == ["make the car red"]


def test_chart_legend_sits_beside_the_bars_not_on_them():
    from autoalign.benchmarks.metrics import Metric
    from autoalign.benchmarks.report import category_figure

    def m(v):
        return Metric(name="overall", value=v, n=10, ci_low=v - 0.05, ci_high=v + 0.05)

    stages = ["baseline", "reranked", "corrected"]
    cats = ["Colors", "Counting", "Positional"]
    metrics = {"stages": stages, "per_category": {
        c: {"scores": {s: {"overall": m(0.9)} for s in stages}} for c in cats}}
    fig = category_figure(metrics)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend_box = ax.get_legend().get_window_extent()
    axes_box = ax.get_window_extent()
    assert legend_box.x0 >= axes_box.x1  # entirely right of the plotting area
    for bar in ax.patches:
        assert not legend_box.overlaps(bar.get_window_extent())


def _readme_presets() -> dict[str, list[str]]:
    table = {}
    text = README.read_text(encoding="utf-8")
    section = text.split("## Presets and models", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) >= 5:
            table[cells[0].strip("`")] = cells[1:5]
    return table


def test_models_list_and_the_readme_preset_table_agree(cli):
    from autoalign.config import preset_names

    readme = _readme_presets()
    assert set(readme) == set(preset_names())
    code, out, _ = cli("models", "list", "--preset", "scene-double")
    assert code == 0
    flat = " ".join(out.split())
    assert "missing" not in flat  # the doubles need no weights
    assert flat.count("test double in code") == 3
    assert "unused by this preset (scoring.clip = false)" in flat
    generator, editor, vqa, clip = readme["scene-double"]
    assert all("double" in cell for cell in (generator, editor, vqa))
    assert "unused" in clip and "scoring.clip = false" in clip


def test_readme_install_is_lean_and_says_what_each_timing_measures():
    text = README.read_text(encoding="utf-8")
    assert "pip install -e ." in text and 'pip install -e ".[dev]"' in text
    assert "--index-url https://download.pytorch.org/whl/cpu" in text
    assert "contact_sheet.png" in text
    assert "measures" in text.split("## Speed and memory")[1]
