"""The world's captions keep their questions.

The world VLM was trained on the project's own questions for world captions
(:mod:`autoalign.world.data`), so a change of the question generator that changes them silently changes
what the committed VLM was trained on and what VQ2 asks it. This pins a digest of the questions of 600
world captions (200 per split: train, val, test), with their labels on each caption's scene (since round 13
the VLM is taught each question as its text reads, :func:`autoalign.world.facts.answer_truth`). If it fails after a parser change, prefer a rule that
leaves these captions alone; if the change is meant, retrain the VLM (``autoalign world train --only
vlm``), re-measure it, and put the new digest here.
"""

from __future__ import annotations

import hashlib
import json

from autoalign.world import data as wdata
from autoalign.world import facts

DIGEST = "5bfe0cfb51a45ba26b9fc541322c6225c62f34f1c32e438bfd5f4a027d873449"


def questions_digest() -> str:
    h = hashlib.sha256()
    for split in ("train", "val", "test"):
        for spec, scene in wdata.world_scenes(split, 200):
            caption = spec.caption()
            qs = [q.to_dict() for q in wdata.questions(caption)]
            labels = [facts.answer_truth(q, scene) for q in wdata.questions(caption)]  # what the VLM is taught
            h.update(json.dumps([caption, qs, labels], sort_keys=True).encode())
    return h.hexdigest()


def test_world_captions_keep_their_questions():
    assert questions_digest() == DIGEST


#: The editor's training instructions are written from the same questions (autoalign.world.edits): a
#: digest of those of the first 600 training scenes. Round 13's question change moved 142 of the 4,661
#: instructions of the committed editor's recipe (count fixes on captions naming one shape twice); the
#: committed editor was trained before it (README, round 13). If this fails, retrain the editor
#: (``autoalign world train --only editor``), re-measure it, and put the new digest here.
EDITOR_DIGEST = "576fccddee297eabfc16af32feffac05a00c82003f66ce989e3f6b3eb451e9d3"


def editor_instructions_digest() -> str:
    from autoalign.world.train_editor import triples

    h = hashlib.sha256()
    for t in triples(600, 0):
        h.update(json.dumps([t.prompt, t.instruction, t.kind]).encode())
    return h.hexdigest()


def test_editor_instructions_keep_their_words():
    assert editor_instructions_digest() == EDITOR_DIGEST
