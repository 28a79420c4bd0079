"""``autoalign questions check FILE``: run the offline question generator over a prompt file and report failures.

The file is read as ``autoalign batch`` reads one (``.txt`` one prompt a line, ``.csv`` with a ``prompt``
column, ``.jsonl`` with a ``prompt`` field). Exit status 1 when a prompt made the generator raise (a bug:
please report it with the prompt), 0 otherwise; prompts whose questions lost a step to a logged
warning are counted as *salvaged*.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer

from autoalign.cli_apps import app

questions_app = typer.Typer(help="The question generator: check it on your own prompts.", no_args_is_help=True)
app.add_typer(questions_app, name="questions")


@questions_app.command("check")
def check_command(
    file: Path = typer.Argument(..., help="Prompt file: .txt (one a line), .csv (a 'prompt' column) or .jsonl."),
    model: str = typer.Option("", "--model", help="spaCy pipeline (default: the generator's own)."),
    no_filter: bool = typer.Option(False, "--no-filter", help="Skip the answer-consistency filter (checks the parse and templates only)."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Generate questions for every prompt of FILE; report crashes, salvaged prompts and time per prompt."""
    import logging

    from autoalign.agents.batch_inputs import read_prompts
    from autoalign.config import RoleSpec
    from autoalign.scoring.question_check import check_prompts
    from autoalign.scoring.questions import SpacyQuestions

    batch = read_prompts(file, max_chars=100_000)
    options = {"filter": not no_filter}
    generator = SpacyQuestions(RoleSpec(backend="spacy", model=model or None, options=options))
    logging.getLogger("autoalign.scoring").setLevel(logging.WARNING)
    generator.generate("a cat")  # load the spaCy pipeline before the clock starts
    report = check_prompts((item.prompt for item in batch.items), generator.generate)
    out = report.to_dict()
    out["file"] = str(file)
    out["bad_rows"] = [{"line": b.line, "error": b.error} for b in batch.bad_rows]
    if as_json:
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        typer.echo(
            f"{out['prompts']} prompts, {out['questions']} questions, {out['crashes']} crashed, {out['salvaged']} salvaged "
            f"(a step skipped with a warning), {out['empty']} with no question; {out['ms_per_prompt_mean']} ms a prompt "
            f"(max {out['ms_per_prompt_max']})"
        )
        for row in out["bad_rows"]:
            typer.echo(f"  unreadable line {row['line']}: {row['error']}")
        for f in report.crashes[:20]:
            typer.echo(f"  CRASH {f.error}: {f.prompt[:200]!r}")
        for f in report.salvaged[:10]:
            typer.echo(f"  salvaged: {f.error[:200]}")
    if report.crashes:
        raise typer.Exit(1)
