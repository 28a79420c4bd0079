"""The SCENE DOUBLE: test doubles of the generator, editor and VQA that read a known scene.

It judges nothing. It exists so that the *logic* of the self-correction loop (does it notice a
wrong count, write an instruction, apply it, see the fix and stop with "aligned"?) can be tested
on a CPU without pretending that a random-weight model sees anything.

A *scene* is a list of :class:`SceneObject` (name, colour, count, optional relation to another
object). Scenes are drawn as one coloured disc per object instance in 32x32 grid cells, and every
cell carries a one-row pixel header spelling the object's name and relation, so any image the
doubles produce can be decoded back into its scene from the pixels alone (:func:`decode_scene`):

* :class:`SceneGeneratorDouble` parses the prompt with simple word rules (:func:`parse_scene`:
  number words, colour words, nouns) and draws it with a deliberate, seed-dependent flaw: for
  ``seed % 3 == 0`` a wrong count, ``1`` a wrong colour, ``2`` no flaw (option ``flaw`` =
  ``"auto" | "count" | "colour" | "none"`` overrides this). It draws only the prompt's first
  sentence: what follows (style words, the loop's "The image must clearly show: ..." emphasis)
  names no new objects, and its word rules would otherwise read it as a second scene.
* :class:`SceneEditorDouble` applies edit instructions in the template writer's style ("make the
  apple red", "add another apple", "make it two apples", "remove one apple", "replace the X with
  a Y", "put the X on the Y") to the decoded scene and redraws it; an instruction it cannot parse
  leaves the image unchanged.
* :class:`SceneVQADouble` answers yes/no questions, VQ2 predicates
  (``is "red" true for "what color are the apples?" in this image?``), VNLI entailment questions
  and short open questions ("how many apples are there?", "what color is the plate?") by
  checking keyword claims against the decoded scene.

All three are known to the registry as ``scene-double`` (preset ``scene-double``).

The package splits the double by job: :mod:`.words` (vocabulary), :mod:`.parsing` (prompt to
scene), :mod:`.codec` (scene to pixels and back), :mod:`.judge` (checking text against a scene),
:mod:`.instructions` (applying edit instructions); this module holds the three backends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from PIL import Image

from autoalign.doubles.scene.codec import decode_scene, render_scene
from autoalign.doubles.scene.instructions import apply_instruction, split_instruction
from autoalign.doubles.scene.judge import answer_open, holds, judge_statement
from autoalign.doubles.scene.parsing import Scene, SceneObject, describe, first_sentence, parse_claim, parse_scene
from autoalign.doubles.scene.words import COLOURS

__all__ = [
    "Scene", "SceneObject", "SceneEditorDouble", "SceneGeneratorDouble", "SceneVQADouble", "answer_open",
    "apply_instruction", "decode_scene", "describe", "first_sentence", "flawed", "holds", "judge_statement",
    "parse_claim", "parse_scene", "render_scene", "split_instruction",
]

YES_P, NO_P = 0.97, 0.03


def _size(options: dict[str, Any]) -> tuple[int, int]:
    return int(options.get("width", 128)), int(options.get("height", 128))


def flawed(scene: Scene, seed: int, flaw: str = "auto") -> Scene:
    """The scene with the generator double's deliberate flaw for ``seed``.

    ``auto``: seed % 3 == 0 -> wrong count, 1 -> wrong colour, 2 -> correct. The flawed object is
    picked by the seed too. A colour flaw on a scene with no object falls back to a count flaw.
    ``both``: a wrong count on the seed's object and a wrong colour on the next one (two mismatches).
    """
    if not scene or flaw == "none":
        return list(scene)
    if flaw == "both":
        counted = flawed(scene, seed, "count")
        idx = (seed // 3 + 1) % len(scene)
        recoloured = flawed([counted[idx]], 0, "colour")[0]
        return [recoloured if i == idx else o for i, o in enumerate(counted)]
    kind = flaw if flaw != "auto" else ("count", "colour", "none")[seed % 3]
    if kind == "none":
        return list(scene)
    idx = (seed // 3) % len(scene)
    obj = scene[idx]
    if kind == "colour":
        names = list(COLOURS)
        wrong = names[(names.index(obj.colour) + 1 + (seed // 3) % (len(names) - 1)) % len(names)] if obj.colour else names[0]
        obj = replace(obj, colour=wrong)
    else:
        count = obj.count or 1
        obj = replace(obj, count=count + 1 if count <= 1 else count - 1)
    return [obj if i == idx else o for i, o in enumerate(scene)]


class _Double:
    """Constructed like a real backend (``cls(spec=..., device=...)``); loads nothing."""

    def __init__(self, spec: Any = None, device: Any = None, options: dict[str, Any] | None = None):
        self.spec = spec
        self.device = device
        self.options = {**(getattr(spec, "options", None) or {}), **(options or {})}
        self.calls = 0


class SceneGeneratorDouble(_Double):
    """TEST DOUBLE generator: draws the prompt's parsed scene with a seed-dependent flaw.

    Options: ``flaw`` ("auto" | "count" | "colour" | "both" | "none"), ``width``/``height`` (128).
    """

    def generate(self, prompt: str, n: int, seed: int, negative_prompt: str | None = None) -> list[Image.Image]:
        self.calls += 1
        scene = parse_scene(first_sentence(prompt))
        flaw = str(self.options.get("flaw", "auto"))
        return [render_scene(flawed(scene, seed + i, flaw), _size(self.options)) for i in range(n)]

    def max_prompt_tokens(self) -> int | None:
        return None


class SceneEditorDouble(_Double):
    """TEST DOUBLE editor: decodes the scene, applies the instruction, redraws at the input's size.

    All ``n`` samples are the same edit (the double has no randomness to sample from).
    """

    def edit(self, image: Image.Image, instruction: str, n: int, seed: int) -> list[Image.Image]:
        self.calls += 1
        scene = decode_scene(image)
        edited = apply_instruction(list(scene), instruction)
        if edited == scene:
            return [image.copy() for _ in range(n)]
        return [render_scene(edited, image.size) for _ in range(n)]


class SceneVQADouble(_Double):
    """TEST DOUBLE VQA: answers by checking the question's keywords against the decoded scene.

    P(yes) is 0.97 when the statement holds and 0.03 when it does not.
    """

    def yes_prob(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[float]:
        return [y / (y + n) for y, n in self.yes_no_probs(images, questions)]

    def yes_no_probs(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[tuple[float, float]]:
        self.calls += 1
        out = []
        for image, question in zip(images, questions, strict=True):
            truth = judge_statement(question, decode_scene(image))
            out.append((YES_P, NO_P) if truth else (NO_P, YES_P))
        return out

    def answer(self, images: Sequence[Image.Image], questions: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        self.calls += 1
        return [answer_open(q, decode_scene(im)) for im, q in zip(images, questions, strict=True)]
