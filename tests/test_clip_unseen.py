"""experiments.clip_unseen: the world CLIP's figures on seen and unseen colour-shape pairs, rendered and from a bench
run's images. A CLIP test double scores by a rule, so the figures are known; one run of the committed world CLIP
checks the real path end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autoalign.benchmarks.records import BenchRecord
from experiments import clip_unseen


class WordCountClip:
    """Test double: the cosine is 0.9 for a caption of at most five words, 0.5 for a longer one, whatever the image."""

    def cosine_texts(self, image, texts):
        return [0.9 if len(t.split()) <= 5 else 0.5 for t in texts]

    def cosine(self, images, text):
        return [self.cosine_texts(im, [text])[0] for im in images]


def test_rendered_cases_are_validation_scenes_with_a_false_caption_one_edit_away():
    from autoalign.benchmarks.suites import VAL_UNSEEN_START
    from autoalign.world.scene import parse_caption, spec_for

    cases = clip_unseen.rendered_cases(3)
    seen, unseen = cases.values()
    assert [c[1] for c in seen] == [spec_for("val", i).caption() for i in range(3)]
    assert [c[1] for c in unseen] == [spec_for("compositional", VAL_UNSEEN_START + i).caption() for i in range(3)]
    assert all(parse_caption(c[1]).uses_held_out() for c in unseen)
    assert not any(parse_caption(c[1]).uses_held_out() for c in seen)
    assert all(own != away for _, own, away in seen + unseen)


def test_rendered_figures_follow_the_scores():
    cases = [(None, "a red circle", "two red circles and a blue square")] * 3 + [(None, "two red circles and a blue square", "a red circle")]
    fig = clip_unseen.rendered_figures(WordCountClip(), cases, gate=2.0)
    # own 2.25 three times, 1.25 once; the edited caption beats the own one once
    assert fig["own caption at or above the gate 2"]["value"] == pytest.approx(0.75)
    assert fig["own caption above the one-edit-away caption"]["value"] == pytest.approx(0.75)
    assert fig["own caption, mean CLIPScore"] == pytest.approx((3 * 2.25 + 1.25) / 4)


def _run(root: Path) -> Path:
    """A bench run folder holding two prompts: a seen pair drawn right, an unseen pair drawn wrong."""
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    root.mkdir()
    lines = []
    drawn = {"a green circle": Scene([Obj("circle", "green", "big", 32, 32)]),
             "a red triangle": Scene([Obj("square", "red", "big", 32, 32)])}
    for pid, (prompt, scene) in enumerate(drawn.items()):
        folder = root / f"p{pid}"
        (folder / "candidates").mkdir(parents=True)
        draw(scene).save(folder / "candidates" / "cand_00.png")
        draw(scene).save(folder / "final.png")
        lines.append(json.dumps(BenchRecord(id=f"p{pid}", seed=0, config_hash="h", status="ok", category="c",
                                            prompt=prompt, run_dir=f"p{pid}").to_dict()))
    (root / "results.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_run_images_reads_every_image_with_the_oracle(tmp_path):
    rows = clip_unseen.run_images(_run(tmp_path / "run"))
    assert len(rows) == 4
    assert {(r["prompt"], r["unseen"], r["right"]) for r in rows} == {("a green circle", False, True), ("a red triangle", True, False)}
    fig = clip_unseen.generated_figures(WordCountClip(), rows, gate=2.0)
    assert fig["seen pairs"]["right images at or above the gate 2"]["value"] == 1.0
    assert fig["unseen pairs"]["wrong images at or above the gate 2"]["value"] == 1.0
    assert fig["unseen pairs"]["right images at or above the gate 2"]["n"] == 0


def test_the_committed_world_clip_end_to_end(tmp_path, capsys):
    from autoalign.world import WEIGHTS_DIR

    out = tmp_path / "clip.json"
    assert clip_unseen.main([str(WEIGHTS_DIR / "clip"), "--n", "4", "--run", str(_run(tmp_path / "run")), "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["tables"][0]["rows"][0][0] == "clip"
    entry = data["raw"]["clips"][str(WEIGHTS_DIR / "clip")]
    for figures in entry["rendered"].values():
        assert figures["own caption above the one-edit-away caption"]["n"] == 4
    assert entry["generated"]["seen pairs"]["right images at or above the gate 1.95"]["n"] == 2
    assert "own caption above" in capsys.readouterr().out
