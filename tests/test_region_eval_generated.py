"""``region_eval --generated``: removal and recolour of one grounded object on the generator's images, read by the
oracle.

The generator here is a test double (``RenderingGenerator``) that returns the rendered scene of the caption, so
the cases and the oracle's expected reading are known; the grounder and the region editor are the shapes
preset's own. A region editor that changes nothing (``UnchangedEditor``, a test double) must fix no case."""

from __future__ import annotations

import pytest

from autoalign.benchmarks.region_eval import generated_ops, main
from autoalign.config import load_config
from autoalign.world.render import draw, scene_for
from autoalign.world.scene import spec_for


class RenderingGenerator:
    """Test double: 'draws' a caption of the split as the world's renderer does (crisp, readable)."""

    def __init__(self, split: str):
        self.split = split
        self.captions = {spec_for(split, i).caption(): i for i in range(6)}

    def generate(self, prompt, n=1, seed=0):
        i = self.captions[prompt]
        return [draw(scene_for(spec_for(self.split, i), seed=i)) for _ in range(n)]


class UnchangedEditor:
    """Test double: a region editor that returns the image as it was."""

    grow = 0

    def edit(self, image, ops, n, seed, prompt=""):
        return [image.copy() for _ in range(n)]


@pytest.fixture(scope="module")
def models():
    from autoalign.models.cache import Models

    return Models(load_config("shapes"))


def test_removal_and_recolour_of_each_grounded_object(models):
    result = generated_ops(models.region_editor, RenderingGenerator("val"), models.grounder, "val", 6)
    fixed = result["fixed: removal (generated)"]
    assert result["images read with two or more objects"] >= 2
    assert fixed["n"] >= 4  # one case per grounded object of those images
    assert fixed["value"] == 1.0  # renders are crisp: every removal leaves exactly the other objects
    assert result["others unchanged: removal (generated)"]["value"] == 1.0
    # on crisp renders the grounder reads every removal's result as the oracle does (no residue)
    assert result["grounder reads as the oracle: removal (generated)"]["n"] == fixed["n"]
    assert result["grounder reads as the oracle: removal (generated)"]["value"] >= 0.9
    # the shapes preset's colour transfer on renders (0.98 on 100 validation scenes given the true error)
    assert result["fixed: recolour (generated)"]["n"] == fixed["n"]
    assert result["fixed: recolour (generated)"]["value"] >= 0.75


def test_an_editor_that_changes_nothing_fixes_no_case(models):
    result = generated_ops(UnchangedEditor(), RenderingGenerator("val"), models.grounder, "val", 6)
    assert result["fixed: removal (generated)"]["n"] >= 4
    assert result["fixed: removal (generated)"]["value"] == 0.0
    assert result["fixed: recolour (generated)"]["value"] == 0.0
    # the object is still there, and the grounder sees it: the oracle's reading is the scene's, not the edit's
    assert result["grounder reads as the oracle: removal (generated)"]["value"] >= 0.9


def test_only_generated_needs_a_count():
    with pytest.raises(SystemExit):
        main(["--only-generated"])
