"""The world's captions keep their questions.

The world VLM was trained on the project's own questions for world captions
(:mod:`autoalign.world.training.data`), so a change of the question generator that changes them silently changes
what the committed VLM was trained on and what VQ2 asks it. This pins a digest of the questions of 600
world captions (200 per split: train, val, test). If it fails after a parser change, prefer a rule that
leaves these captions alone; if the change is meant, retrain the VLM (``autoalign world train --only
vlm``), re-measure it, and put the new digest here.
"""

from __future__ import annotations

import hashlib
import json

from autoalign.world.scene import spec_for
from autoalign.world.training import data as wdata

DIGEST = "91a6bfe3ad7a355a3bfa38411ef5d798ebe34298f4cf44578c3a4c30ac1bd061"


def questions_digest() -> str:
    h = hashlib.sha256()
    for split in ("train", "val", "test"):
        for i in range(200):
            caption = spec_for(split, i).caption()
            qs = [q.to_dict() for q in wdata.questions(caption)]
            h.update(json.dumps([caption, qs], sort_keys=True).encode())
    return h.hexdigest()


def test_world_captions_keep_their_questions():
    assert questions_digest() == DIGEST


#: The editor's training instructions are written from the same questions (autoalign.world.training.edits): a
#: digest of those of the first 600 training scenes, so a question change that would move what the
#: committed editor learned is seen (round 13's naming experiment moved 142 of its 4,661). If this
#: fails and the change is meant, retrain the editor (``autoalign world train --only editor``),
#: re-measure it, and put the new digest here.
EDITOR_DIGEST = "ac283b02f0dde8ca6957e831e38e309cbb52ed2fa2046ee4741af4266289a9c5"


def editor_instructions_digest() -> str:
    from autoalign.world.training.train_editor import triples

    h = hashlib.sha256()
    for t in triples(600, 0):
        h.update(json.dumps([t.prompt, t.instruction, t.kind]).encode())
    return h.hexdigest()


def test_editor_instructions_keep_their_words():
    assert editor_instructions_digest() == EDITOR_DIGEST
