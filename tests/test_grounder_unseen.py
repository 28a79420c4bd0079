"""experiments.grounder_unseen: the world grounder's box and head scores on seen and unseen colour-shape pairs. A
grounder test double reads every image as it is told, so the figures are known; the oracle's reading of the blob under
a mask (autoalign.world.oracle.reading_under) is checked on rendered scenes; one run of the committed world grounder
checks the real path end to end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from autoalign.world import oracle
from autoalign.world.render import draw
from autoalign.world.scene import Obj, Scene
from experiments import grounder_unseen


def test_reading_under_names_the_blob_a_mask_covers():
    image = draw(Scene([Obj("circle", "red", "big", 16, 16), Obj("triangle", "blue", "big", 46, 46)]))
    blobs = oracle.objects_of(image)
    assert sorted(name for name, _ in blobs) == ["blue", "red"]
    red = next(mask for name, mask in blobs if name == "red")
    assert oracle.reading_under(red, blobs) == ("circle", "red")
    corner = np.zeros_like(red)
    corner[:4, 60:] = True  # background only
    assert oracle.reading_under(corner, blobs) == ("none", None)
    ys = np.nonzero(red)[0]
    low = red.copy()
    low[: ys.min() + int(0.6 * (ys.max() - ys.min()))] = False  # the circle's lowest 40 %: IoU about 0.37
    assert oracle.reading_under(low, blobs) == ("none", None)
    assert oracle.reading_under(low, blobs, min_iou=0.3) == ("circle", "red")


class ToldGrounder:
    """Test double: reads each image as one instance over the image's first blob, with the labels and scores given."""

    def __init__(self, readings):
        self.readings = list(readings)

    def read_instances(self, images):
        out = []
        for image in images:
            labels, score, head = self.readings.pop(0)
            mask = oracle.objects_of(image)[0][1]
            out.append([{"labels": set(labels), "mask": mask, "score": score, "head_score": head, "p_color": 0.99,
                         "p_shape": [score, 0.0, 0.0]}])
        return out


def test_generated_figures_count_right_and_wrong_reads_by_pair_and_score(tmp_path):
    paths = []
    for i, obj in enumerate([Obj("circle", "red", "big", 32, 32), Obj("triangle", "red", "big", 32, 32),
                             Obj("circle", "green", "big", 32, 32)]):
        paths.append(tmp_path / f"{i}.png")
        draw(Scene([obj])).save(paths[-1])
    told = ToldGrounder([({"triangle", "red"}, 0.6, 0.9),   # unseen pair, wrong: the oracle reads a red circle
                         ({"triangle", "red"}, 0.6, 0.9),   # unseen pair, right
                         ({"circle", "green"}, 0.95, None)])  # seen pair, right; no head score: the box's
    fig = grounder_unseen.generated_figures(told, [{"path": p} for p in paths], sure=0.8)
    unseen, seen = fig["unseen pairs"], fig["seen pairs"]
    assert (unseen["right instances"], unseen["wrong instances"]) == (1, 1)
    assert unseen["right at or above sure 0.8, box score"]["value"] == 0.0
    assert unseen["right at or above sure 0.8, head score"]["value"] == 1.0
    assert unseen["wrong at or above sure 0.8, head score"]["value"] == 1.0
    assert (seen["right instances"], seen["wrong instances"]) == (1, 0)
    assert seen["right at or above sure 0.8, head score"]["value"] == 1.0  # 0.95 from the box


def test_the_committed_world_grounder_end_to_end(tmp_path, capsys):
    out = tmp_path / "g.json"
    assert grounder_unseen.main(["--n", "4", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    rendered = data["raw"]["rendered"]
    assert rendered["seen pairs"]["instances"] > 0 and rendered["unseen pairs"]["instances"] > 0
    assert 0.0 <= rendered["unseen pairs"]["head score at or above sure 0.8"]["value"] <= 1.0
    assert [t["name"] for t in data["tables"]] == ["rendered images"]
    assert "head score at or above sure 0.8" in capsys.readouterr().out
    assert data["command"].startswith("python -m experiments.grounder_unseen")
    with pytest.raises(SystemExit):
        grounder_unseen.main(["--n", "x"])
