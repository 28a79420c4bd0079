"""The region editor given the TRUE layout error (``autoalign world eval --only region``).

For rendered scenes of a split, each operation gets its own cases, built from the scene graph:

* **removal** - the scene with one extra object (a copy of one of its objects, or one the caption
  does not name, placed in free space): remove that object's box;
* **addition** - the scene with one of its objects dropped (captions with two or more objects): add
  that object's phrase at the box it had;
* **move** - a relation caption's scene with one of the related objects moved to a free place where
  the relation fails: move it back to its box;
* **recolour** / **reshape** - one object drawn in another colour / shape: redraw it in its box;
* **resize** - one object whose size the caption names drawn at the other size: the layout planner's
  operations for the size triplet (:func:`autoalign.editing.layout_plan.ops_for_mismatches`: remove it, add
  it at the caption's size where it stood).

The edited image is read by the oracle: *fixed* when it shows the caption exactly; *others unchanged*
per object the operation does not touch, when the oracle reads an object of the same colour, shape and
size within :data:`SAME_PLACE` pixels of its centre. Wilson 95 % intervals. The region editor never
sees the oracle or the scene graph, only the boxes and phrases of the operation.

**Removal and recolour on generated images** (``--generated N``, :func:`generated_ops`): the rendered scenes' edges are
crisp, the generator's are soft, so a box that is exact on a render may leave a rim of the object on a
generated image. The world's generator draws one image per caption of the split (seed = index, as
:func:`autoalign.benchmarks.grounding_eval.generated` does); on each the oracle reads with two or more objects,
every box the preset's grounder gives (as the loop gets them) that holds exactly one of the oracle's objects
is removed, one case each: *fixed* when the oracle then reads the other objects and nothing else; and
recoloured to another colour of the palette (each in turn): *fixed* when the oracle reads the same objects with that one
in its new colour (same shape, size and place).
"""

from __future__ import annotations

import json
import logging
import random
from dataclasses import dataclass, replace
from typing import Any, Sequence

from autoalign.benchmarks.metrics import Metric
from autoalign.types import Box, LayoutOp
from autoalign.world import oracle
from autoalign.world.render import _overlaps, draw, relation_holds
from autoalign.world.scene import IMAGE_SIZE, Group, Obj, Scene, Spec, colors, shapes, sizes
from autoalign.world.training.data import world_scenes
from autoalign.world.training.edits import MOST_OBJECTS, _free_spot

logger = logging.getLogger(__name__)

OPS = ("removal", "addition", "move", "recolour", "reshape", "resize")
#: the operations ``--generated`` measures on the generator's images (their truth needs only the oracle's reading)
GENERATED_OPS = ("removal", "recolour")
SAME_PLACE = 2.5


@dataclass
class Case:
    kind: str
    spec: Spec
    source: Scene  # the scene with the error
    ops: list[LayoutOp]
    untouched: list[Obj]  # objects of the source the operation must leave as they are


def obj_box(o: Obj, label: str | None = None) -> Box:
    """The pixel box an object covers (xyxy, right/bottom exclusive)."""
    h = sizes()[o.size]
    return Box((o.x - h, o.y - h, o.x + h + 1, o.y + h + 1), 1.0, label=label or o.describe())


def make_case(kind: str, spec: Spec, scene: Scene, rng: random.Random) -> Case | None:
    objs = list(scene.objects)
    if kind == "removal":
        if len(objs) >= MOST_OBJECTS:
            return None
        model = rng.choice(objs)
        if rng.random() < 0.5:  # a copy of one of its objects, else some other kind
            g = Group(1, model.color, model.shape, model.size)
        else:
            g = Group(1, rng.choice(list(colors())), rng.choice(shapes()), rng.choice(list(sizes())))
        new = _free_spot(rng, scene, g)
        if new is None:
            return None
        source = Scene([*objs, new])
        if oracle.check(spec, source).aligned:
            return None
        return Case(kind, spec, source, [LayoutOp("remove", new.describe(), source=obj_box(new))], objs)
    if kind == "addition":
        if len(objs) < 2:
            return None
        i = rng.randrange(len(objs))
        gone = objs[i]
        rest = objs[:i] + objs[i + 1:]
        return Case(kind, spec, Scene(rest), [LayoutOp("add", gone.describe(), target=obj_box(gone))], rest)
    if kind == "move":
        if spec.relation is None:
            return None
        a, rel, b = spec.relation
        i = rng.choice((a, b))
        o = objs[i]
        for _ in range(100):
            cand = _free_spot(rng, scene, Group(1, o.color, o.shape, o.size), avoid=o)
            if cand is None:
                return None
            moved = list(objs)
            moved[i] = cand
            if not relation_holds(moved[a], rel, moved[b]) and not any(_overlaps(cand, p) for j, p in enumerate(objs) if j != i):
                break
        else:
            return None
        return Case(kind, spec, Scene(moved), [LayoutOp("move", o.describe(), source=obj_box(cand), target=obj_box(o))],
                    [p for j, p in enumerate(objs) if j != i])
    if kind in ("recolour", "reshape"):
        i = rng.randrange(len(objs))
        o = objs[i]
        if kind == "recolour":
            wrong = replace(o, color=rng.choice([c for c in colors() if c != o.color]))
        else:
            wrong = replace(o, shape=rng.choice([s for s in shapes() if s != o.shape]))
        source = Scene(objs[:i] + [wrong] + objs[i + 1:])
        if oracle.check(spec, source).aligned:
            return None
        op = LayoutOp("recolor" if kind == "recolour" else "reshape", o.describe(), source=obj_box(wrong), target=obj_box(wrong))
        return Case(kind, spec, source, [op], [p for j, p in enumerate(objs) if j != i])
    if kind == "resize":
        i = rng.randrange(len(objs))
        o = objs[i]
        wrong = replace(o, size=next(z for z in sizes() if z != o.size))
        source = Scene(objs[:i] + [wrong] + objs[i + 1:])
        if oracle.check(spec, source).aligned or any(_overlaps(wrong, p) for j, p in enumerate(objs) if j != i):
            return None  # the caption names no size of it, or the other size would touch a neighbour
        from autoalign.editing.layout_plan import ops_for_mismatches
        from autoalign.types import Mismatch

        noun = f"{o.color} {o.shape}"
        triplet = Mismatch("attribute", o.size, wrong.size, 1.0, "layout",
                           {"noun": noun, "expected": o.size, "found": wrong.size, "size": True,
                            "boxes": [obj_box(wrong, noun).to_dict()]})
        ops = ops_for_mismatches(spec.caption(), [triplet], (IMAGE_SIZE, IMAGE_SIZE), aspects=("attribute",)).ops
        return Case(kind, spec, source, ops, [p for j, p in enumerate(objs) if j != i])
    raise ValueError(f"unknown operation {kind!r}")


def cases(split: str, n: int, kind: str, seed: int = 37) -> list[Case]:
    rng = random.Random(f"{seed}/{split}/{kind}")
    return [c for spec, scene in world_scenes(split, n) if (c := make_case(kind, spec, scene, rng)) is not None]


def untouched_kept(reading: oracle.Reading, untouched: list[Obj]) -> list[bool]:
    """Per untouched object: the oracle reads one of its colour, shape and size at its place."""
    if not reading.readable:
        return [False] * len(untouched)
    seen = reading.scene.objects
    return [any(r.color == o.color and r.shape == o.shape and r.size == o.size
                and abs(r.x - o.x) <= SAME_PLACE and abs(r.y - o.y) <= SAME_PLACE for r in seen) for o in untouched]


def eval_region(region_editor, n: int, splits: Sequence[str], kinds: Sequence[str] = OPS, samples: int = 1) -> dict[str, Any]:
    """Fixed rate per operation and the share of untouched objects kept (module docstring).

    With ``samples`` > 1, a case counts as fixed when any of the samples is (best of ``samples``,
    as the loop's edit samples are judged); the untouched share is over every sample."""
    from autoalign.benchmarks.metrics import wilson

    out: dict[str, Any] = {}
    for split in splits:
        table: dict[str, Any] = {}
        kept_all: list[bool] = []
        for kind in kinds:
            fixed, kept, unread = [], [], 0
            for k, case in enumerate(cases(split, n, kind)):
                edited = region_editor.edit(draw(case.source), case.ops, n=samples, seed=k, prompt=case.spec.caption())
                ok = False
                for image in edited:
                    reading = oracle.read(image)
                    unread += not reading.readable
                    ok = ok or bool(reading.readable and oracle.check(case.spec, reading.scene).aligned)
                    kept += untouched_kept(reading, case.untouched)
                fixed.append(ok)
                logger.info("%s %s case %d: fixed %d of %d so far", split, kind, k, sum(fixed), len(fixed))
            table[f"fixed: {kind}"] = wilson(sum(fixed), len(fixed))
            table[f"others unchanged: {kind}"] = wilson(sum(kept), len(kept))
            table[f"oracle cannot read: {kind}"] = wilson(unread, len(fixed) * samples)
            kept_all += kept
        table["others unchanged: every operation"] = wilson(sum(kept_all), len(kept_all))
        out[split] = table
    return out


def generated_ops(region_editor, generator, grounder, split: str, n: int,
                  kinds: Sequence[str] = GENERATED_OPS) -> dict[str, Any]:
    """Removal and recolour of one grounded object on generated images (module docstring): fixed, others
    unchanged, unreadable, per operation."""
    from autoalign.benchmarks.metrics import wilson
    from autoalign.world.scene import spec_for

    palette = list(colors())
    phrases = [f"{c} {s}" for c in palette for s in shapes()]
    fixed: dict[str, list[bool]] = {k: [] for k in kinds}
    kept: dict[str, list[bool]] = {k: [] for k in kinds}
    unread = dict.fromkeys(kinds, 0)
    agree: dict[str, list[bool]] = {k: [] for k in kinds}
    images = 0
    for i in range(n):
        image = generator.generate(spec_for(split, i).caption(), n=1, seed=i)[0]
        reading = oracle.read(image)
        if not reading.readable or len(reading.scene.objects) < 2:
            continue
        images += 1
        objects = reading.scene.objects
        for g in grounder.ground([image], phrases)[0]:
            for box in g.boxes:
                x0, y0, x1, y1 = box.xyxy
                inside = [o for o in objects if x0 - 1 <= o.x <= x1 + 1 and y0 - 1 <= o.y <= y1 + 1]
                if len(inside) != 1:
                    continue  # the box holds none or several of the oracle's objects: no one true operation
                target = inside[0]
                rest = [o for o in objects if o is not target]
                for kind in kinds:
                    if kind == "removal":
                        op, want = LayoutOp("remove", g.phrase, source=box), rest
                    else:  # recolour: another colour of the palette, each in turn
                        others = [c for c in palette if c != target.color]
                        colour = others[len(fixed[kind]) % len(others)]  # each colour in turn
                        op = LayoutOp("recolor", f"{colour} {target.shape}", source=box, target=box)
                        want = [*rest, replace(target, color=colour)]
                    edited = region_editor.edit(image, [op], n=1, seed=len(fixed[kind]))[0]
                    after = oracle.read(edited)
                    unread[kind] += not after.readable
                    fixed[kind].append(bool(after.readable and sorted(o.describe() for o in after.scene.objects)
                                            == sorted(o.describe() for o in want)))
                    kept[kind] += untouched_kept(after, rest)
                    if after.readable:  # the loop's judge reads the result as the oracle does (no residue seen)
                        seen = sorted(h.phrase for h in grounder.ground([edited], phrases)[0] for _ in h.boxes)
                        agree[kind].append(seen == sorted(f"{o.color} {o.shape}" for o in after.scene.objects))
        logger.info("generated %s, image %d: fixed %s", split, i, {k: sum(v) for k, v in fixed.items()})
    out: dict[str, Any] = {"images generated": n, "images read with two or more objects": images}
    for kind in kinds:
        out[f"fixed: {kind} (generated)"] = wilson(sum(fixed[kind]), len(fixed[kind]))
        out[f"others unchanged: {kind} (generated)"] = wilson(sum(kept[kind]), len(kept[kind]))
        out[f"oracle cannot read: {kind} (generated)"] = wilson(unread[kind], len(fixed[kind]))
        out[f"grounder reads as the oracle: {kind} (generated)"] = wilson(sum(agree[kind]), len(agree[kind]))
    return out


def results_json(result: dict[str, Any], command: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The figures in the results page's generic shape (``docs/results/*.json``)."""

    def cell(m: dict[str, Any]) -> str:
        return Metric.from_dict(m).fmt()

    rows = []
    for split, table in result.items():
        for kind in OPS:
            if f"fixed: {kind}" in table:
                rows.append([split, kind, cell(table[f"fixed: {kind}"]), cell(table[f"others unchanged: {kind}"]),
                             cell(table[f"oracle cannot read: {kind}"]), ""])
        for kind in GENERATED_OPS:
            if f"fixed: {kind} (generated)" in table:
                rows.append([split, f"{kind} on generated images ({table['images read with two or more objects']} images)",
                             cell(table[f"fixed: {kind} (generated)"]), cell(table[f"others unchanged: {kind} (generated)"]),
                             cell(table[f"oracle cannot read: {kind} (generated)"]),
                             cell(table[f"grounder reads as the oracle: {kind} (generated)"])
                             if f"grounder reads as the oracle: {kind} (generated)" in table else ""])
        if "others unchanged: every operation" in table:
            rows.append([split, "every operation", "", cell(table["others unchanged: every operation"]), "", ""])
    return {
        "title": "Region editor given the true layout error (shapes world, oracle-read)",
        "command": command,
        "measures": (
            "Rendered scenes of the split with one true layout error (an extra object, a dropped one, one moved so the "
            "caption's relation fails, one recoloured or reshaped); the region editor gets the true operation (boxes "
            "from the scene graph, the object's phrase) and the oracle reads the result. 'fixed' = the oracle reads "
            "exactly the caption; 'others unchanged' = per object the operation does not touch, the oracle reads one "
            "of its colour, shape and size within 2.5 px of its centre. 'removal / recolour on generated images': the world's "
            "generator draws one image per caption of the split; every box the preset's grounder gives that holds "
            "exactly one of the oracle's objects is removed (fixed = the oracle then reads the other objects and "
            "nothing else) and, separately, recoloured to another palette colour, each in turn (fixed = the oracle reads the same "
            "objects with that one in its new colour); 'grounder reads as the oracle' = on the results the oracle reads, "
            "the preset's grounder finds exactly the oracle's objects (colour and shape), so the loop's judge sees no "
            "residue of the removed object. Wilson 95 % intervals. Settings: "
            + json.dumps(settings, sort_keys=True)
        ),
        "tables": [{"name": "fixed rate per operation", "columns": ["split", "operation", "fixed", "others unchanged", "oracle cannot read",
                                                                 "grounder reads as the oracle"],
                    "rows": rows}],
    }


def main(argv: Sequence[str] | None = None) -> None:
    import argparse
    import sys

    from autoalign.config import load_config
    from autoalign.files import atomic_write_json
    from autoalign.models.cache import Models

    parser = argparse.ArgumentParser(description="The region editor given the true layout error, read by the oracle.")
    parser.add_argument("--n", type=int, default=100, help="scenes per split and operation")
    parser.add_argument("--split", action="append", choices=("val", "test", "compositional"), help="repeatable (default: val)")
    parser.add_argument("--only", action="append", choices=OPS, help="operations (repeatable; default: all)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=JSON", help="a [region_editor] option to try (validation)")
    parser.add_argument("--generated", type=int, default=0, metavar="N",
                        help="also removal and recolour on N generated images per split (the grounder's boxes); 0: none")
    parser.add_argument("--only-generated", action="store_true", help="only the generated operations (with --generated)")
    parser.add_argument("--out", help="write the figures as docs/results JSON here")
    args = parser.parse_args(argv)
    if args.only_generated and args.generated <= 0:
        raise SystemExit("--only-generated needs --generated N (N > 0)")
    overrides = {k: json.loads(v) for k, v in (item.split("=", 1) for item in args.set)}
    config = load_config("shapes", overrides={"region_editor": overrides} if overrides else None)
    models = Models(config)
    editor = models.region_editor
    splits = args.split or ["val"]
    result = {} if args.only_generated else eval_region(editor, args.n, splits, args.only or OPS)
    for split in splits if args.generated > 0 else []:
        result.setdefault(split, {}).update(generated_ops(editor, models.generator, models.grounder, split, args.generated))
    print(json.dumps(result, indent=1))
    if args.out:
        command = "python -m autoalign.benchmarks.region_eval " + " ".join(sys.argv[1:] if argv is None else argv)
        atomic_write_json(args.out, results_json(result, command, dict(config.region_editor.options)))


if __name__ == "__main__":
    main()
