"""Ranking score cards: primary key, tie-breakers, None lowest, stable on full ties."""

from __future__ import annotations

import pytest

from autoalign.config import load_config
from autoalign.scoring.rerank import keys_for, rank
from autoalign.types import ScoreCard


def card(vq2=None, vnli=None, clip=None):
    return ScoreCard(overall=vq2 or 0.0, vq2=vq2, vnli=vnli, clip=clip)


def test_rank_by_primary_then_tie_breakers():
    cards = [card(0.5, 0.9, 0.1), card(0.8, 0.1, 0.1), card(0.5, 0.9, 0.7), card(0.5, 0.95, 0.0)]
    assert rank(cards, ["vq2", "vnli", "clip"]) == [1, 3, 2, 0]
    assert rank(cards, ["clip", "vq2"]) == [2, 1, 0, 3]  # clip tie of 0 and 1 broken by vq2


def test_none_ranks_lowest_and_full_ties_keep_input_order():
    cards = [card(None, 0.9), card(0.1, None), card(0.1, None), card(0.0, 0.2)]
    assert rank(cards, ["vq2", "vnli"]) == [1, 2, 3, 0]
    assert rank([card(0.5, 0.5, 0.5)] * 4) == [0, 1, 2, 3]


def test_rank_keys_from_config_and_bad_keys():
    cfg = load_config("tiny", overrides={"scoring": {"primary": "vnli"}})
    assert keys_for(cfg) == ["vnli", "vq2", "clip"]
    with pytest.raises(ValueError, match="rank keys"):
        rank([card(0.1)], ["bleu"])
