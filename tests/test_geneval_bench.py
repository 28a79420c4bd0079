"""``bench run --suite geneval`` and GenEval's rules on bench runs (:mod:`autoalign.benchmarks.geneval_bench`).

* the CLI on six GenEval prompts (one per task) with the tiny preset (random weights: the verdicts mean
  nothing) and its tiny OWLv2 as the grounder: the six tasks, overall and gains per stage, the report, a
  resumed rerun; a preset without a grounder is refused in one line with nothing written;
* the figures from a GROUNDER DOUBLE (named as such: it "finds" what a table says) on the bench's
  LoopRunnerDouble images: known verdicts give known task scores, overall and gains;
* the shapes suite: rendered world scenes through the bench, read by the world's grounder and the oracle;
* the rules' extension for a class named twice (the shapes world) and the mapping of world captions.
"""

from __future__ import annotations

import json

import pytest
from bench_doubles import EvaluatorDouble, LoopRunnerDouble
from typer.testing import CliRunner

from autoalign.benchmarks import geneval_bench
from autoalign.benchmarks.bench_runner import RunOutcome, bench_run, read_results
from autoalign.benchmarks.geneval_rules import evaluate, spec_metadata
from autoalign.benchmarks.suites import Suite, SuiteItem, load_suite
from autoalign.config import load_config
from autoalign.types import Box, Grounding

# One GenEval prompt per task, in GenEval's evaluation_metadata.jsonl form.
GENEVAL_LINES = [
    {"tag": "single_object", "include": [{"class": "bench", "count": 1}], "prompt": "a photo of a bench"},
    {"tag": "two_object", "include": [{"class": "cat", "count": 1}, {"class": "dog", "count": 1}],
     "prompt": "a photo of a cat and a dog"},
    {"tag": "counting", "include": [{"class": "clock", "count": 2}], "exclude": [{"class": "clock", "count": 3}],
     "prompt": "a photo of two clocks"},
    {"tag": "colors", "include": [{"class": "car", "count": 1, "color": "red"}], "prompt": "a photo of a red car"},
    {"tag": "position", "include": [{"class": "kite", "count": 1}, {"class": "dog", "count": 1, "position": ["right of", 0]}],
     "prompt": "a photo of a dog right of a kite"},
    {"tag": "color_attr", "include": [{"class": "bus", "count": 1, "color": "green"},
                                      {"class": "apple", "count": 1, "color": "black"}],
     "prompt": "a photo of a green bus and a black apple"},
]
TINY_GROUNDER_TOML = """
[grounder]
backend = "owlv2"
model = "tiny:owlv2"
[loop]
candidates = 2
max_rounds = 1
edit_samples = 1
max_instructions = 1
[editor]
resolution = 64
"""


def _suite_file(tmp_path):
    path = tmp_path / "evaluation_metadata.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in GENEVAL_LINES), encoding="utf-8")
    return path


def _cli():
    import autoalign.commands.bench_suite  # noqa: F401
    from autoalign.cli_apps import app

    return CliRunner(), app


def test_geneval_without_a_grounder_is_one_line_and_writes_nothing(tmp_path, cli):
    out = tmp_path / "run"
    code, stdout, err = cli("bench", "run", "--suite", "geneval", "--suite-file", str(_suite_file(tmp_path)),
                            "--preset", "tiny", "--out", str(out), "--no-progress")
    assert code == 2, (stdout, err)
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1 and "[grounder]" in lines[0] and "'tiny' has none" in lines[0], err
    assert not out.exists()


def test_geneval_suite_file_without_metadata_is_refused(tmp_path, cli):
    bad = tmp_path / "plain.jsonl"
    bad.write_text(json.dumps({"tag": "single_object", "prompt": "a photo of a bench"}) + "\n", encoding="utf-8")
    cfg = tmp_path / "g.toml"
    cfg.write_text(TINY_GROUNDER_TOML, encoding="utf-8")
    code, stdout, err = cli("bench", "run", "--suite", "geneval", "--suite-file", str(bad), "--preset", "tiny",
                            "--config", str(cfg), "--out", str(tmp_path / "run"), "--no-progress")
    assert code == 2 and "no 'include' metadata" in err, (stdout, err)
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_bench_run_geneval_end_to_end_on_the_tiny_preset(tmp_path):
    """Random weights: the verdicts mean nothing; the wiring, the figures' form, the report and resume are checked."""
    runner, app = _cli()
    cfg = tmp_path / "g.toml"
    cfg.write_text(TINY_GROUNDER_TOML, encoding="utf-8")
    out = tmp_path / "run"
    args = ["bench", "run", "--suite", "geneval", "--suite-file", str(_suite_file(tmp_path)), "--preset", "tiny",
            "--config", str(cfg), "--limit", "6", "--out", str(out), "--no-progress"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    result = json.loads((out / "geneval.json").read_text())
    assert result["suite"] == "geneval" and result["grounder"].startswith("owlv2:tiny:owlv2")
    assert result["stages"] == ["baseline", "reranked", "corrected"]
    for stage in result["stages"]:
        tasks = result["scores"][stage]["tasks"]
        assert sorted(tasks) == sorted(line["tag"] for line in GENEVAL_LINES)
        assert all(m["n"] == 1 and m["value"] in (0.0, 1.0) for m in tasks.values())
        overall = result["scores"][stage]["overall"]
        assert overall["n"] == 6 and overall["value"] == pytest.approx(sum(m["value"] for m in tasks.values()) / 6)
    assert set(result["gains"]) == {"corrected - baseline", "reranked - baseline", "corrected - reranked"}
    items = sorted((out / "items").glob("*/*/s*/geneval.json"))
    assert len(items) == 6
    summary = json.loads((out / "summary.json").read_text())
    assert summary["geneval"]["scores"] == result["scores"]
    import html

    assert "GenEval's rules" in html.unescape((out / "report.html").read_text())
    assert "GenEval's rules" in (out / "summary.md").read_text()
    assert "color_attr" in res.output  # the tables are printed
    first = len(read_results(out))
    res = runner.invoke(app, args)  # resumed: nothing runs again, the same figures
    assert res.exit_code == 0, res.output
    assert len(read_results(out)) == first
    assert json.loads((out / "geneval.json").read_text())["scores"] == result["scores"]


# ------------------------------------------------------------------------------------ a grounder double


class GrounderDouble:
    """TEST DOUBLE of the grounder role: "finds" in an image what ``table[(prompt, grey level)]`` says.

    The bench's LoopRunnerDouble writes flat grey images whose level encodes the stage; the double maps a
    level to detections per class, so the verdicts (and every figure) are known in advance. Judges nothing."""

    def __init__(self, table):
        self.table = table

    def ground(self, images, phrases):
        level = images[0].getpixel((0, 0))[0]
        found = self.table.get(level, {})
        return [[Grounding(p, list(found.get(p, []))) for p in phrases]]

    def colors(self):
        return ["red", "green"]


def _b(x0, y0, x1, y1, score=0.9):
    return Box((float(x0), float(y0), float(x1), float(y1)), score)


class LevelLoopDouble:
    """TEST DOUBLE loop: flat grey stage images, level ``levels[prompt][k]`` for stage k (baseline, reranked,
    corrected), so that the grounder double knows which image it reads."""

    def __init__(self, levels):
        self.levels = levels

    def run(self, prompt, config, run_dir, models):
        from PIL import Image

        run_dir.mkdir(parents=True, exist_ok=True)
        images = {}
        for stage, level in zip(("baseline", "reranked", "corrected"), self.levels[prompt]):
            path = run_dir / f"{stage}.png"
            Image.new("RGB", (64, 64), (level, level, level)).save(path)
            images[stage] = path
        return RunOutcome(images=images, stop_reason="aligned")


def test_figures_from_a_grounder_double_give_the_known_task_scores(tmp_path):
    lines = GENEVAL_LINES[:3]
    items = [SuiteItem(f"g{i}", line["prompt"], line["tag"], {k: v for k, v in line.items() if k not in ("prompt", "tag")})
             for i, line in enumerate(lines)]
    suite = Suite("geneval", items)
    cfg = load_config("tiny", overrides={"grounder": {"backend": "owlv2", "model": "tiny:owlv2"}})
    levels = {line["prompt"]: (30 * i + 10, 30 * i + 20, 30 * i + 30) for i, line in enumerate(lines)}
    out = tmp_path / "run"
    bench_run(suite, cfg, out, loop_runner=LevelLoopDouble(levels), evaluator=EvaluatorDouble(), progress=False)
    bench, cat, dog, clock = [_b(0, 0, 9, 9)], [_b(0, 0, 9, 9)], [_b(20, 0, 29, 9)], [_b(0, 0, 9, 9), _b(20, 0, 29, 9)]
    table = {}
    # single_object: right at every stage; two_object: only the corrected image has the dog; counting: the
    # baseline has three clocks (wrong), reranked and corrected two (right)
    for k, stage in enumerate(("baseline", "reranked", "corrected")):
        table[levels["a photo of a bench"][k]] = {"bench": bench}
        table[levels["a photo of a cat and a dog"][k]] = {"cat": cat, **({"dog": dog} if stage == "corrected" else {})}
        table[levels["a photo of two clocks"][k]] = {"clock": clock + ([_b(40, 0, 49, 9)] if stage == "baseline" else [])}

    class Models:
        grounder = GrounderDouble(table)
        clip = None

    result = geneval_bench.analyse(out, cfg, suite=suite, models=Models(), progress=False)
    tasks = {s: {t: m["value"] for t, m in result["scores"][s]["tasks"].items()} for s in result["stages"]}
    assert tasks["baseline"] == {"single_object": 1.0, "two_object": 0.0, "counting": 0.0}
    assert tasks["reranked"] == {"single_object": 1.0, "two_object": 0.0, "counting": 1.0}
    assert tasks["corrected"] == {"single_object": 1.0, "two_object": 1.0, "counting": 1.0}
    assert result["scores"]["baseline"]["overall"]["value"] == pytest.approx(1 / 3)
    assert result["scores"]["corrected"]["overall"]["value"] == pytest.approx(1.0)
    gain = result["gains"]["corrected - baseline"]
    assert gain["value"] == pytest.approx(2 / 3) and gain["extra"] == {"n_improved": 2, "n_worse": 0}
    assert result["gains"]["corrected - reranked"]["value"] == pytest.approx(1 / 3)
    assert "oracle" not in result
    md = (out / "geneval.md").read_text()
    assert "| counting | 0.000" in md and "overall (mean of the tasks)" in md


def test_bench_geneval_refuses_a_suite_it_cannot_score(tmp_path, cli):
    suite = Suite("drawbench", [SuiteItem("d0", "a red car", "Colors")])
    bench_run(suite, load_config("tiny"), tmp_path / "run", loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(),
              progress=False)
    code, stdout, err = cli("bench", "geneval", str(tmp_path / "run"), "--preset", "shapes", "--no-progress")
    assert code == 2 and "geneval and shapes suites" in err, (stdout, err)
    code, stdout, err = cli("bench", "geneval", str(tmp_path / "nothing"), "--no-progress")
    assert code == 2 and "not a bench directory" in err, (stdout, err)


# ------------------------------------------------------------------------------------ the shapes world


class SceneLoopDouble:
    """TEST DOUBLE loop: the baseline is a rendered world scene of ``wrong[prompt]``, the corrected image the
    caption's own scene (the world's renderer, not its generator)."""

    def __init__(self, scenes):
        self.scenes = scenes

    def run(self, prompt, config, run_dir, models):
        from autoalign.world.render import draw

        run_dir.mkdir(parents=True, exist_ok=True)
        images = {}
        for stage, scene in zip(("baseline", "reranked", "corrected"), self.scenes[prompt]):
            path = run_dir / f"{stage}.png"
            draw(scene).save(path)
            images[stage] = path
        return RunOutcome(images=images, stop_reason="aligned")


def test_shapes_bench_scored_by_geneval_rules_agrees_with_the_oracle_on_rendered_scenes(tmp_path):
    from autoalign.world.scene import Obj, Scene

    right = Scene([Obj("circle", "red", "big", 14, 30), Obj("square", "blue", "big", 48, 30)])
    swapped = Scene([Obj("circle", "red", "big", 48, 30), Obj("square", "blue", "big", 14, 30)])
    two = Scene([Obj("triangle", "green", "big", 14, 30), Obj("triangle", "green", "big", 48, 30)])
    three = Scene([Obj("triangle", "green", "big", 12, 20), Obj("triangle", "green", "big", 48, 20),
                   Obj("triangle", "green", "big", 30, 48)])
    scenes = {"a red circle to the left of a blue square": (swapped, swapped, right),
              "two green triangles": (three, two, two)}
    suite = Suite("shapes", [SuiteItem(f"shapes-{i}", p, c) for i, (p, c) in
                             enumerate(zip(scenes, ("spatial", "counting")))])
    cfg = load_config("shapes")
    out = tmp_path / "run"
    bench_run(suite, cfg, out, loop_runner=SceneLoopDouble(scenes), evaluator=EvaluatorDouble(), progress=False)
    result = geneval_bench.analyse(out, cfg, progress=False)
    tasks = {s: {t: m["value"] for t, m in result["scores"][s]["tasks"].items()} for s in result["stages"]}
    assert tasks["baseline"] == {"position": 0.0, "counting": 0.0}
    assert tasks["reranked"] == {"position": 0.0, "counting": 1.0}
    assert tasks["corrected"] == {"position": 1.0, "counting": 1.0}
    agree = result["oracle"]["GenEval scorer = the oracle's verdict"]
    assert agree["all stages"]["value"] == 1.0 and agree["all stages"]["n"] == 6
    assert result["oracle"]["oracle: full alignment (readable images)"]["corrected"]["value"] == 1.0


# ------------------------------------------------------------------------------------ the rules


def test_a_class_named_twice_takes_the_boxes_of_each_entry_s_colour():
    """The shapes world names one shape twice ("a yellow triangle and a purple triangle"); GenEval's rule gave
    both entries the same best box (the purple entry failed on the image that shows both)."""
    meta = {"tag": "color_attr", "include": [{"class": "triangle", "count": 1, "color": "yellow"},
                                             {"class": "triangle", "count": 1, "color": "purple"}]}
    yellow, purple = _b(0, 0, 9, 9, 0.9), _b(20, 0, 29, 9, 0.8)
    colour = {yellow.xyxy: "yellow", purple.xyxy: "purple"}.get
    assert evaluate({"triangle": [yellow, purple]}, meta, lambda b, n: colour(b.xyxy))[0]
    ok, why = evaluate({"triangle": [yellow, _b(40, 0, 49, 9, 0.7)]}, meta, lambda b, n: colour(b.xyxy, "yellow"))
    assert not ok and "purple triangle" in why[0]
    # a class named once is scored as GenEval does: the best box only, whatever the others' colours
    once = {"tag": "colors", "include": [{"class": "car", "count": 1, "color": "red"}]}
    assert not evaluate({"car": [_b(0, 0, 9, 9, 0.9), _b(20, 0, 29, 9, 0.8)]}, once,
                        lambda b, n: "red" if b.xyxy[0] == 20 else "blue")[0]
    # a relation between two boxes of one class: each side is its own colour's box
    pos = {"tag": "position", "include": [{"class": "triangle", "count": 1, "color": "green"},
                                          {"class": "triangle", "count": 1, "color": "purple", "position": ["above", 0]}]}
    green, high_purple = _b(0, 40, 9, 49, 0.9), _b(0, 0, 9, 9, 0.5)
    colours = {green.xyxy: "green", high_purple.xyxy: "purple"}
    assert evaluate({"triangle": [green, high_purple]}, pos, lambda b, n: colours[b.xyxy])[0]


def test_world_captions_map_to_geneval_tasks():
    from autoalign.world.scene import parse_caption

    tags = {c: spec_metadata(parse_caption(c))["tag"] for c in (
        "a red circle", "three blue squares", "a red circle and a blue square", "a green circle and two white squares",
        "a red circle to the left of a blue square", "a small blue square")}
    assert tags == {"a red circle": "colors", "three blue squares": "counting", "a red circle and a blue square": "color_attr",
                    "a green circle and two white squares": "counting", "a red circle to the left of a blue square": "position",
                    "a small blue square": "colors"}
    meta = spec_metadata(parse_caption("two white triangles and a yellow triangle"))
    assert meta["exclude"] == [{"class": "triangle", "count": 4}]  # one more than the caption's triangles in all


@pytest.mark.shared_data
def test_shared_geneval_metadata_all_load_in_geneval_form(shared_data):
    suite = load_suite("geneval", shared_data / "geneval" / "evaluation_metadata.jsonl")
    geneval_bench.check_suite_metadata(suite)
    assert sorted(suite.categories()) == sorted(["single_object", "two_object", "counting", "colors", "position", "color_attr"])


class ClipDouble:
    """TEST DOUBLE of the CLIP role: cosine 1 for texts naming the colour of the crop's centre pixel, else 0."""

    NAMES = {(255, 0, 0): "red", (0, 0, 255): "blue", (153, 153, 153): "grey"}

    def __init__(self):
        self.seen = []

    def cosine_texts(self, image, texts):
        centre = image.getpixel((image.width // 2, image.height // 2))
        corner = image.getpixel((0, 0))
        self.seen.append((centre, corner))
        name = self.NAMES.get(centre, "")
        return [1.0 if f" {name}" in t else 0.0 for t in texts]


def test_colours_come_from_clip_on_geneval_s_crop_with_the_mask_over_grey():
    import numpy as np
    from PIL import Image

    from autoalign.benchmarks.geneval_rules import COLOR_TEMPLATES, clip_colour, crop, detect

    image = Image.new("RGB", (40, 20), (0, 0, 255))  # blue everywhere ...
    image.paste((255, 0, 0), (4, 4, 16, 16))  # ... but a red object
    mask = np.zeros((20, 40), dtype=bool)
    mask[6:14, 6:14] = True
    box = Box((2.0, 2.0, 18.0, 18.0), 0.9, mask_array=mask)
    cut = crop(image, box)
    assert cut.size == (16, 16) and cut.getpixel((8, 8)) == (255, 0, 0) and cut.getpixel((0, 0)) == (153, 153, 153)
    assert crop(image, Box(box.xyxy, 0.9)).getpixel((0, 0)) == (0, 0, 255)  # no mask: the plain crop
    clip = ClipDouble()
    assert clip_colour(clip, cut, "car") == "red" and len(COLOR_TEMPLATES) == 3

    class OneBox:  # TEST DOUBLE grounder without colours(): CLIP reads them
        def ground(self, images, phrases):
            return [[Grounding(p, [box]) for p in phrases]]

    meta = {"tag": "colors", "include": [{"class": "car", "count": 1, "color": "red"}]}
    objects, colour_of = detect(OneBox(), image, meta, clip)
    assert evaluate(objects, meta, colour_of)[0]
    assert not evaluate(objects, {"tag": "colors", "include": [{"class": "car", "count": 1, "color": "blue"}]}, colour_of)[0]


def test_an_audit_has_geneval_s_figures_for_its_two_stages(tmp_path):
    lines = GENEVAL_LINES[:1]
    suite = Suite("geneval", [SuiteItem("g0", lines[0]["prompt"], lines[0]["tag"], {"include": lines[0]["include"]})])
    cfg = load_config("tiny", overrides={"grounder": {"backend": "owlv2", "model": "tiny:owlv2"}})
    out = tmp_path / "audit"
    bench_run(suite, cfg, out, correct=False, loop_runner=LevelLoopDouble({lines[0]["prompt"]: (10, 20)}),
              evaluator=EvaluatorDouble(), progress=False)

    class Models:
        grounder = GrounderDouble({20: {"bench": [_b(0, 0, 9, 9)]}})
        clip = None

    result = geneval_bench.analyse(out, cfg, suite=suite, models=Models(), progress=False)
    assert result["stages"] == ["baseline", "reranked"] and list(result["gains"]) == ["reranked - baseline"]
    assert result["gains"]["reranked - baseline"]["value"] == 1.0
