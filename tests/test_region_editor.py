"""The region editor: masks stay inside the image, nothing outside them changes, the inpainting code
paths of tiny random SD / SDXL / FLUX Fill pipelines, and each operation on a rendered world scene
read by the oracle (the world's generator, 4-channel latent blending)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec, load_config
from autoalign.models.loading import DeviceSpec
from autoalign.models.region_editor import InpaintRegionEditor, box_mask, nearest_fill, plan_mask, steps_of
from autoalign.types import Box, LayoutOp

CPU = DeviceSpec("cpu", "float32")


def colours(image: Image.Image) -> set[tuple[int, ...]]:
    return set(map(tuple, np.asarray(image.convert("RGB")).reshape(-1, 3).tolist()))


def editor(model: str, **options) -> InpaintRegionEditor:
    return InpaintRegionEditor(RoleSpec("diffusers-inpaint", model, options), CPU)


@pytest.mark.parametrize("xyxy", [(-10, -10, 5, 5), (60, 60, 200, 90), (-1e6, 3, 1e6, 4), (70, 70, 90, 90)])
def test_masks_never_reach_outside_the_image(xyxy):
    mask = box_mask(xyxy, (64, 48), grow=3)
    assert mask.size == (64, 48) and mask.mode == "L"
    arr = np.asarray(mask)
    assert set(np.unique(arr)) <= {0, 255}
    if xyxy == (70, 70, 90, 90):
        assert not arr.any()


def test_a_box_mask_covers_the_box_and_its_margin_only():
    arr = np.asarray(box_mask((10, 20, 20, 30), (64, 64), grow=2)) > 0
    assert arr[18:32, 8:22].all() and arr.sum() == 14 * 14


def test_steps_remove_first_then_recolour_then_add():
    a, b = Box((0, 0, 8, 8), 1.0, "red circle"), Box((20, 20, 28, 28), 1.0, "blue square")
    ops = [LayoutOp("add", "green circle", target=Box((40, 0, 48, 8), 1.0)), LayoutOp("move", "red circle", source=a, target=b),
           LayoutOp("recolor", "white square", source=b, target=b), LayoutOp("remove", "blue square", source=b)]
    assert [s[0] for s in steps_of(ops)] == ["remove", "remove", "recolor", "add", "add"]
    assert np.asarray(plan_mask(ops, (64, 64))).any()


def test_nearest_fill_takes_the_surroundings():
    image = Image.new("RGB", (32, 32), (50, 50, 50))
    image.paste((220, 40, 40), (10, 10, 20, 20))
    filled = nearest_fill(image, box_mask((9, 9, 21, 21), (32, 32)))
    assert set(filled.getdata()) == {(50, 50, 50)}


def test_a_removal_margin_takes_the_objects_halo_and_other_operations_keep_their_own():
    """A generated object's soft halo lies a pixel outside its box; ``remove_grow`` widens only the masks of
    removed objects, so the fill takes the halo with the object (round 21: a cross-shaped rim was left)."""
    image = Image.new("RGB", (32, 32), (50, 50, 50))
    image.paste((150, 60, 60), (9, 9, 21, 21))     # the halo, one pixel wide
    image.paste((220, 40, 40), (10, 10, 20, 20))   # the object, exactly its box
    op = [LayoutOp("remove", "red square", source=Box((10, 10, 20, 20), 0.9))]
    rim = editor("tiny:sd-inpaint", remove="fill", grow=0).edit(image, op, n=1, seed=0)[0]
    assert (150, 60, 60) in set(rim.getdata())
    margin = editor("tiny:sd-inpaint", remove="fill", grow=0, remove_grow=1)
    clean = margin.edit(image, op, n=1, seed=0)[0]
    assert set(clean.getdata()) == {(50, 50, 50)}
    # the run directory's mask.png (the editor's mask) is what the edit may change: the box and its margin
    mask = np.asarray(margin.mask(op, image.size)) > 0
    changed = (np.asarray(clean) != np.asarray(image)).any(axis=-1)
    assert mask.sum() == 12 * 12 and not (changed & ~mask).any() and changed[9, 9]
    assert np.asarray(plan_mask(op + [LayoutOp("add", "blue circle", target=Box((0, 0, 4, 4), 0.9))], (32, 32), 0, 1)).sum() == (12 * 12 + 16) * 255
    assert editor("tiny:sd-inpaint", grow=2).remove_grow == 2
    with pytest.raises(ConfigError, match="remove_grow"):
        editor("tiny:sd-inpaint", remove_grow=-1)


def test_a_halo_reach_takes_a_soft_object_larger_than_its_box_and_copies_only_background():
    """A soft object two pixels larger than its box: the nearest fill streaks its halo inward (the cross-shaped
    residue round 24 found on validation finals, which the grounder reads as an object); ``remove_reach`` takes
    the halo and fills from background pixels only, and a neighbour next to the mask keeps every pixel."""
    image = Image.new("RGB", (40, 32), (50, 50, 50))
    image.paste((120, 60, 60), (8, 8, 22, 22))     # the halo, two pixels wide
    image.paste((220, 40, 40), (10, 10, 20, 20))   # the object, exactly its box
    image.paste((40, 40, 220), (25, 10, 33, 20))   # a blue neighbour, three pixels from the halo
    op = [LayoutOp("remove", "red square", source=Box((10, 10, 20, 20), 0.9))]
    streaks = editor("tiny:sd-inpaint", remove="fill", grow=0).edit(image, op, n=1, seed=0)[0]
    assert (120, 60, 60) in colours(streaks.crop((10, 10, 20, 20)))  # the halo copied into the box
    reach = editor("tiny:sd-inpaint", remove="fill", grow=0, remove_reach=3)
    clean = reach.edit(image, op, n=1, seed=0)[0]
    assert colours(clean.crop((0, 0, 24, 32))) == {(50, 50, 50)}
    assert np.array_equal(np.asarray(clean)[:, 24:], np.asarray(image)[:, 24:])
    # mask.png still bounds every pixel the edit changed: the box grown by the reach
    mask = np.asarray(reach.mask(op, image.size)) > 0
    changed = (np.asarray(clean) != np.asarray(image)).any(axis=-1)
    assert changed.any() and not (changed & ~mask).any() and mask.sum() == 16 * 16
    # a pasted move fills its source whatever ``remove`` says: its halo is inside mask.png too
    move = [LayoutOp("move", "red square", source=Box((10, 10, 20, 20), 0.9), target=Box((26, 21, 36, 31), 0.9))]
    mover = editor("tiny:sd-inpaint", remove="inpaint", move="paste", paste_strength=0.0, grow=0, remove_reach=3)
    moved = mover.edit(image, move, n=1, seed=0)[0]
    changed = (np.asarray(moved) != np.asarray(image)).any(axis=-1)
    assert changed[8, 8] and not (changed & ~(np.asarray(mover.mask(move, image.size)) > 0)).any()
    for bad in (-1, 1.5, True, 17):
        with pytest.raises(ConfigError, match="remove_reach"):
            editor("tiny:sd-inpaint", remove_reach=bad)


def test_bad_options_are_one_clear_error():
    with pytest.raises(ConfigError, match="remove must be one of"):
        editor("tiny:sd-inpaint", remove="erase")
    with pytest.raises(ConfigError, match="add_prompt"):
        editor("tiny:sd-inpaint", add_prompt="draw it")
    with pytest.raises(ConfigError, match="clear_of must be one of"):
        editor("tiny:sd-inpaint", clear_of="everything")


def _noisy(size=(32, 32)) -> Image.Image:
    rng = np.random.default_rng(0)
    return Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8), "RGB")


@pytest.mark.parametrize("tiny, options", [
    ("tiny:sd-inpaint", {}),
    ("tiny:sdxl-inpaint", {"pipeline": "StableDiffusionXLInpaintPipeline"}),
    ("tiny:flux-fill", {"pipeline": "FluxFillPipeline", "max_sequence_length": 32}),
    ("tiny:flux-fill", {"max_sequence_length": 32}),  # no pipeline named: FluxFillPipeline from model_index.json
])
def test_tiny_inpainting_pipelines_change_only_inside_the_masks(tiny, options):
    ed = editor(tiny, num_inference_steps=2, resolution=32, **options)
    source = _noisy()
    ops = [LayoutOp("remove", "cat", source=Box((2, 2, 10, 10), 1.0)), LayoutOp("add", "dog", target=Box((16, 16, 30, 30), 1.0))]
    out = ed.edit(source, ops, n=2, seed=3)
    assert len(out) == 2 and all(im.size == source.size for im in out)
    mask = np.asarray(plan_mask(ops, source.size)) > 0
    for im in out:
        diff = np.abs(np.asarray(im, dtype=int) - np.asarray(source, dtype=int)).sum(-1)
        assert not diff[~mask].any()  # outside the masks: the input, exactly
        assert diff[mask].any()  # inside: the pipeline drew something
    assert ed.calls == 2  # one batched call per inpainting step
    again = ed.edit(source, ops, n=1, seed=3)[0]
    assert np.array_equal(np.asarray(again), np.asarray(out[0]))  # seeded


def test_the_loop_never_calls_the_oracle():
    import inspect

    import autoalign.agents.nodes as nodes
    import autoalign.editing.layout_plan as layout_plan
    import autoalign.editing.policy as policy
    import autoalign.models.region_editor as region_editor

    for module in (nodes, layout_plan, policy, region_editor):
        source = inspect.getsource(module)
        assert "oracle" not in source.replace("never calls the oracle", ""), module.__name__


def test_the_policy_routes_counts_places_and_missing_things_to_the_region_editor():
    from types import SimpleNamespace

    from autoalign.editing.policy import region_aspects, region_mismatches
    from autoalign.types import Mismatch

    box = Box((1, 1, 9, 9), 0.9, "red circle").to_dict()
    found = [Mismatch("number", "a red circle", "two", evidence={"expected": 1, "boxes": [box, box]}),
             Mismatch("entity", "a blue square", "", evidence={"action": "add", "boxes": []}),
             Mismatch("attribute", "red", "white", evidence={"noun": "circle", "expected": "red", "boxes": [box]}),
             Mismatch("relation", "above", "below", source="clip-probe")]  # no boxes: the instruction editor's
    with_region = SimpleNamespace(region_editor=RoleSpec("diffusers-inpaint", "world:generator", {}))
    assert [m.aspect for m in region_mismatches(found, with_region)] == ["number", "entity"]
    attrs = SimpleNamespace(region_editor=RoleSpec("diffusers-inpaint", "world:generator", {"attributes": True}))
    assert "attribute" in region_aspects(attrs) and len(region_mismatches(found, attrs)) == 3
    assert region_mismatches(found, SimpleNamespace(region_editor=None)) == []


def test_two_objects_change_places_by_cut_and_paste():
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    a, b = Obj("circle", "red", "big", 48, 30), Obj("square", "blue", "big", 14, 30)
    box = lambda o: Box((o.x - 9, o.y - 9, o.x + 10, o.y + 10), 1.0, o.describe())  # noqa: E731
    ops = [LayoutOp("move", "red circle", source=box(a), target=box(b)), LayoutOp("move", "blue square", source=box(b), target=box(a))]
    assert [s[0] for s in steps_of(ops, paste_moves=True)] == ["paste"]
    ed = editor("world:generator", move="paste", paste_strength=0.0, remove="fill")
    out = ed.edit(draw(Scene([a, b])), ops, n=1, seed=0)[0]
    swapped = draw(Scene([Obj("circle", "red", "big", 14, 30), Obj("square", "blue", "big", 48, 30)]))
    assert np.array_equal(np.asarray(out), np.asarray(swapped))
    assert ed.calls == 0  # no pipeline call: a pure cut and paste


def test_paste_options_are_checked():
    with pytest.raises(ConfigError, match="change must be one of"):
        editor("tiny:sd-inpaint", change="recolour")
    with pytest.raises(ConfigError, match="paste_tries must be an integer from 1 to 16"):
        editor("tiny:sd-inpaint", paste_tries=0)
    with pytest.raises(ConfigError, match="paste_choose must be one of"):
        editor("tiny:sd-inpaint", paste_choose="best")


def test_a_pasted_change_draws_several_times_in_one_call_and_the_ranker_picks_the_drawing():
    """``change = "paste"``: the old object is filled away, the phrase drawn ``paste_tries`` times in one
    batched call, and the drawing the ranker (a test double standing in for the preset's CLIP) scores
    highest is pasted into the box; nothing outside the box changes."""
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    ed = editor("world:generator", num_inference_steps=2, resolution=64, remove="fill", change="paste", add="paste",
                paste_tries=3, paste_choose="clip", paste_strength=0.0, add_prompt="a {phrase}")
    seen: list[tuple[int, str]] = []

    def pick_the_last(images, text):  # test double: prefers the last drawing of each group
        seen.append((len(images), text))
        return list(range(len(images)))

    ed.rank = pick_the_last
    o = Obj("circle", "red", "big", 20, 30)
    box = Box((o.x - 9, o.y - 9, o.x + 10, o.y + 10), 1.0, "red circle")
    source = draw(Scene([o, Obj("square", "green", "small", 50, 50)]))
    out = ed.edit(source, [LayoutOp("recolor", "blue circle", source=box, target=box)], n=2, seed=0)
    assert ed.calls == 1  # 2 samples x 3 drawings in one pipeline call
    assert seen and all(text == "a blue circle" for _, text in seen)
    mask = np.asarray(box_mask(box.xyxy, source.size)) > 0
    for im in out:
        diff = np.abs(np.asarray(im, dtype=int) - np.asarray(source, dtype=int)).sum(-1)
        assert not diff[~mask].any()
    ed.rank = None
    with pytest.raises(ConfigError, match="needs the preset's \\[clip\\] role"):
        ed.edit(source, [LayoutOp("recolor", "blue circle", source=box, target=box)], n=1, seed=0)


def test_the_model_cache_wires_the_presets_clip_as_the_ranker():
    from autoalign.models.cache import Models

    config = load_config("shapes")
    assert config.region_editor.options.get("paste_choose") == "clip"
    ed = Models(config).region_editor
    assert callable(ed.rank)


def test_the_plan_picture_draws_sources_and_targets_and_the_contact_sheet_shows_it_first(tmp_path):
    from autoalign.agents.contact_sheet import _rows
    from autoalign.models.region_editor import PLAN_SOURCE, PLAN_TARGET, plan_picture

    image = Image.new("RGB", (64, 64), (50, 50, 50))
    ops = [LayoutOp("remove", "red circle", source=Box((4, 4, 20, 20), 0.9)),
           LayoutOp("add", "blue square", target=Box((40, 40, 60, 60), 1.0)),
           LayoutOp("recolor", "blue circle", source=Box((30, 4, 50, 20), 0.9), target=Box((30, 4, 50, 20), 0.9))]
    picture = plan_picture(image, ops)
    assert picture.size == (256, 256)  # enlarged 4x, nearest-neighbour
    arr = np.asarray(picture)
    assert tuple(arr[16, 40]) == PLAN_SOURCE and tuple(arr[160, 200]) == PLAN_TARGET  # box edges (4x)
    assert tuple(arr[100, 100]) == (50, 50, 50)  # the image itself elsewhere
    assert not (arr == PLAN_TARGET).all(-1)[:90, 110:210].any()  # a recolour's box is drawn once, as its source
    same = Box((30, 4, 50, 20), 0.9)  # the planner gives a recolour one Box object as source and target
    arr = np.asarray(plan_picture(image, [LayoutOp("recolor", "blue circle", source=same, target=same)]))
    assert (arr == PLAN_SOURCE).all(-1)[16, 120:200].all() and not (arr == PLAN_TARGET).all(-1).any()
    folder = tmp_path / "rounds" / "r01"
    folder.mkdir(parents=True)
    for name in ("mask.png", "plan.png", "region_s0.png", "i0_s0.png"):
        image.save(folder / name)
    [(label, items)] = _rows(tmp_path, None)
    assert label == "round 1" and [p for p, _ in items] == ["rounds/r01/plan.png", "rounds/r01/i0_s0.png", "rounds/r01/region_s0.png"]


def test_a_colour_transfer_recolours_the_object_in_place_and_keeps_its_outline():
    """``transfer_colour``: a rendered red circle becomes green with the same outline (the oracle reads a green
    circle where the red one was), the other object and the background stay as they were; an empty box has
    no object to recolour."""
    from autoalign.models.region_editor import transfer_colour
    from autoalign.world.oracle import read
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene, colors

    o = Obj("circle", "red", "big", 20, 30)
    source = draw(Scene([o, Obj("square", "blue", "small", 50, 50)]))
    box = (o.x - 9, o.y - 9, o.x + 10, o.y + 10)
    out = transfer_colour(source, box, np.array(colors()["green"], dtype=np.float32), threshold=60)
    scene = read(out).scene
    assert scene is not None
    assert sorted((b.color, b.shape) for b in scene.objects) == [("blue", "square"), ("green", "circle")]
    before = np.abs(np.asarray(source, dtype=int) - 50).sum(-1) > 60
    after = np.abs(np.asarray(out, dtype=int) - 50).sum(-1) > 60
    assert (before == after).all()  # the same outline
    grown = np.zeros((64, 64), bool)
    grown[max(0, box[1] - 3):box[3] + 3, max(0, box[0] - 3):box[2] + 3] = True
    assert (np.asarray(out)[~grown] == np.asarray(source)[~grown]).all()
    assert transfer_colour(source, (30, 2, 44, 14), np.array([0, 200, 0], np.float32), threshold=60) is None


def test_recolour_transfer_keeps_the_drawn_colour_and_the_old_outline_outside_the_box_nothing_changes():
    """``recolour = "transfer"`` in the editor: the phrase is drawn (the world's generator), its colour laid on
    the old object, so the object's outline (its non-background pixels) stays; a reshape still goes as
    ``change`` says."""
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    ed = editor("world:generator", num_inference_steps=4, resolution=64, remove="fill", change="paste", add="paste",
                paste_tries=2, paste_strength=0.0, add_prompt="a {phrase}", recolour="transfer")
    o = Obj("square", "red", "big", 22, 30)
    box = Box((o.x - 9, o.y - 9, o.x + 10, o.y + 10), 1.0, "red square")
    source = draw(Scene([o, Obj("circle", "white", "small", 50, 50)]))
    out = ed.edit(source, [LayoutOp("recolor", "blue square", source=box, target=box)], n=2, seed=0)
    assert ed.calls == 1  # the drawings only: the transfer itself calls no pipeline
    mask = np.asarray(box_mask(box.xyxy, source.size)) > 0
    src = np.asarray(source, dtype=int)
    for im in out:
        arr = np.asarray(im, dtype=int)
        assert not np.abs(arr - src).sum(-1)[~mask].any()
        body = np.abs(src - 50).sum(-1) > 60
        assert (np.abs(arr - 50).sum(-1)[mask & body] > 0).all() and (arr[mask & ~body] == src[mask & ~body]).all()
        assert np.abs(arr - src).sum(-1)[mask & body].mean() > 60  # its colour changed
    with pytest.raises(ConfigError, match="recolour must be one of"):
        editor("tiny:sd-inpaint", recolour="paint")


def test_a_pair_the_generator_never_learnt_is_composed_from_parts():
    """The world's generator never saw a red triangle (a held-out pair) and draws an empty canvas for it, so a
    paste or a colour transfer of "red triangle" finds nothing; with ``compose`` the editor draws a triangle in
    another colour and red on another shape, and pastes the triangle in red: the oracle reads a red triangle."""
    from autoalign.world.oracle import read
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene, held_out_pairs

    assert ("red", "triangle") in held_out_pairs()
    options = dict(num_inference_steps=10, resolution=64, remove="fill", change="paste", add="paste", paste_tries=4,
                   paste_strength=0.0, add_prompt="a {phrase}", recolour="transfer")
    white = Obj("circle", "white", "big", 48, 48)
    source = draw(Scene([white]))
    add = LayoutOp("add", "red triangle", target=Box((8, 8, 27, 27), 1.0))
    plain = editor("world:generator", **options).edit(source, [add], n=1, seed=0)[0]
    assert sorted((o.color, o.shape) for o in read(plain).scene.objects) == [("white", "circle")]  # nothing drawn
    ed = editor("world:generator", compose="world_vocabulary.json", **options)
    added = ed.edit(source, [add], n=1, seed=0)[0]
    assert sorted((o.color, o.shape) for o in read(added).scene.objects) == [("red", "triangle"), ("white", "circle")]
    green = Obj("triangle", "green", "big", 20, 20)
    box = Box((green.x - 9, green.y - 9, green.x + 10, green.y + 10), 1.0, "green triangle")
    recoloured = ed.edit(draw(Scene([green, white])), [LayoutOp("recolor", "red triangle", source=box, target=box)],
                         n=1, seed=0)[0]
    assert sorted((o.color, o.shape) for o in read(recoloured).scene.objects) == [("red", "triangle"), ("white", "circle")]
    with pytest.raises(ConfigError, match="compose"):
        editor("tiny:sd-inpaint", compose="no_such_words.json")


def test_a_drawing_the_grounder_does_not_read_as_the_phrase_is_not_pasted():
    """``paste_check = "grounder"`` (round 22): a drawing counts only where the preset's grounder finds the phrase in
    it, so a blob the generator drew for "green triangle" that reads as a circle is not pasted (with ``compose`` the
    phrase is then composed from parts). The model cache wires the preset's grounder as the check."""
    from autoalign.models.cache import Models
    from autoalign.world.oracle import read
    from autoalign.world.render import draw
    from autoalign.world.scene import Obj, Scene

    options = dict(num_inference_steps=10, resolution=64, remove="fill", add="paste", paste_tries=2,
                   paste_strength=0.0, add_prompt="a {phrase}", paste_check="grounder")
    source = draw(Scene([Obj("circle", "white", "big", 48, 48)]))
    add = LayoutOp("add", "blue square", target=Box((8, 8, 27, 27), 1.0))
    ed = editor("world:generator", **options)
    with pytest.raises(ConfigError, match="paste_check"):
        ed.edit(source, [add], n=1, seed=0)  # no check wired: one clear error
    asked = []

    def refuse_all(images, phrase):  # test double: the check refuses every drawing
        asked.append((len(images), phrase))
        return [False] * len(images)

    ed.check = refuse_all
    kept = ed.edit(source, [add], n=1, seed=0)[0]
    assert asked == [(2, "blue square")] and (np.asarray(kept) == np.asarray(source)).all()
    ed.check = lambda images, phrase: [True] * len(images)  # test double: accepts every drawing
    added = ed.edit(source, [add], n=1, seed=0)[0]
    assert ("blue", "square") in {(o.color, o.shape) for o in read(added).scene.objects}

    config = load_config("shapes", overrides={"region_editor": {"paste_check": "grounder"}})
    wired = Models(config).region_editor
    square = draw(Scene([Obj("square", "blue", "big", 20, 20)]))
    assert wired.check([square, square], "blue square") == [True, True]
    assert wired.check([square], "red circle") == [False]
    with pytest.raises(ConfigError, match="paste_check must be one of"):
        editor("tiny:sd-inpaint", paste_check="clip")


def test_wire_connects_what_the_settings_ask_for_and_keeps_what_is_connected():
    """``InpaintRegionEditor.wire`` is the one place the preset's CLIP and grounder are connected (the model cache and
    scripts/gpu_check.py both call it; round 26's GPU check failed on a hand-wired editor without the grounder). The
    grounder is asked for only when a drawing is checked."""
    built = []

    class FakeGrounder:  # test double: finds the phrase in the first image only
        def ground(self, images, phrases):
            return [[type("G", (), {"boxes": [Box((0, 0, 1, 1), 0.9)] if i == 0 else []})()] for i in range(len(images))]

    def grounder():
        built.append(1)
        return FakeGrounder()

    ed = editor("world:generator", paste_check="grounder", paste_choose="clip")
    cosine = lambda images, text: [0.0] * len(images)  # noqa: E731 - test double
    assert ed.wire(cosine, grounder) is ed and ed.rank is cosine and built == []
    assert ed.check([None, None], "blue square") == [True, False] and built == [1]
    keep = ed.check
    ed.wire(lambda images, text: [1.0], grounder)
    assert ed.check is keep and ed.rank is cosine
    plain = editor("world:generator").wire(cosine, grounder)
    assert plain.check is None and plain.rank is None


def test_the_paste_check_does_not_take_a_blob_for_the_phrase():
    """With the grounder's ``blob_score`` (round 33) a blob is read at that score, found but not for sure; a drawing
    whose only box for the phrase is such a blob does not show the phrase, as before the option."""

    class BlobGrounder:  # test double: the first image shows the phrase, the second only a blob read at 0.5
        blob_floor = 0.5

        def ground(self, images, phrases):
            return [[type("G", (), {"boxes": [Box((0, 0, 1, 1), 0.9 if i == 0 else 0.5)]})()] for i in range(len(images))]

    ed = editor("world:generator", paste_check="grounder").wire(lambda images, text: [0.0] * len(images), BlobGrounder)
    assert ed.check([None, None], "blue square") == [True, False]
