"""ITM-IoU (FineMatch §3.7): hand-computed cases with a deterministic similarity.

``ExactSimDouble`` stands in for BERTScore: 1.0 for the same words (case-insensitive), else the
word Jaccard of the two strings - simple enough to compute every expected value by hand. chrF is
the real sacrebleu chrF; where a case needs a partial chrF value the test computes it directly.
"""

from __future__ import annotations

import numpy as np
import pytest
from sacrebleu.metrics import CHRF

from autoalign.detection.itm_iou import (
    BertScoreSim,
    SemanticSimUnavailable,
    Triplet,
    evaluate,
    itm_iou,
    one_to_one,
    pair_score,
    semantic_sim,
)
from autoalign.errors import AutoAlignError


def ExactSimDouble(hyps: list[str], refs: list[str]) -> list[float]:  # noqa: N802 - named as a double
    out = []
    for h, r in zip(hyps, refs):
        a, b = set(h.lower().split()), set(r.lower().split())
        out.append(len(a & b) / len(a | b))
    return out


RED = Triplet("attribute", "red car", "blue car")


def test_perfect_match_scores_one_in_both_modes():
    assert itm_iou([RED], [RED], ExactSimDouble, mode="mdc") == pytest.approx(1.0)
    assert itm_iou([RED], [RED], ExactSimDouble, mode="md") == pytest.approx(1.0)


def test_wrong_class_loses_the_class_weight():
    pred = Triplet("entity", "red car", "blue car")
    # mdc: 0.4 * 1 + 0.4 * 1 = 0.8 >= T; md: (0.4 / 0.6) * 1 = 2/3 >= T
    assert itm_iou([pred], [RED], ExactSimDouble, mode="mdc") == pytest.approx(0.8)
    assert itm_iou([pred], [RED], ExactSimDouble, mode="md") == pytest.approx(2 / 3)


def test_class_is_compared_ignoring_case_and_spaces():
    pred = Triplet(" Attribute ", "red car", "blue car")
    assert itm_iou([pred], [RED], ExactSimDouble) == pytest.approx(1.0)


def test_partial_phrase_overlap_uses_semantic_and_chrf_halves():
    pred = Triplet("attribute", "red sports car", "blue car")
    sem = 2 / 3  # {red, car} / {red, sports, car}
    chrf = CHRF(char_order=6).sentence_score("red sports car", ["red car"]).score / 100
    detection = (sem + chrf) / 2
    expected_mdc = 0.2 + 0.4 * detection + 0.4 * 1.0
    expected_md = (0.2 + 0.4 * detection) / 0.6
    assert 0 < chrf < 1
    assert itm_iou([pred], [RED], ExactSimDouble, mode="mdc") == pytest.approx(expected_mdc)
    assert itm_iou([pred], [RED], ExactSimDouble, mode="md") == pytest.approx(expected_md)


def test_extra_prediction_halves_the_mean_and_the_iou():
    junk = Triplet("number", "zebra", "seven")
    # matched sum 1.0 over |P| = 2 -> 0.5; IoU = 1 / (2 + 1 - 1) = 0.5
    assert itm_iou([RED, junk], [RED], ExactSimDouble) == pytest.approx(0.25)


def test_missed_truth_lowers_only_the_iou():
    other = Triplet("number", "two dogs", "three dogs")
    # matched sum 1.0 over |P| = 1 -> 1.0; IoU = 1 / (1 + 2 - 1) = 0.5
    assert itm_iou([RED], [RED, other], ExactSimDouble) == pytest.approx(0.5)


def test_empty_sets():
    assert itm_iou([], [], ExactSimDouble) == 1.0
    assert itm_iou([], [RED], ExactSimDouble) == 0.0
    assert itm_iou([RED], [], ExactSimDouble) == 0.0


def test_unrelated_prediction_below_threshold_scores_zero():
    pred = Triplet("entity", "zebra", "lion")  # 0 class, chrF 0, sem 0 -> 0 < T
    assert itm_iou([pred], [RED], ExactSimDouble) == 0.0


def test_threshold_is_inclusive():
    assert pair_score(np.array([[0.55]])).score == pytest.approx(0.55)
    assert pair_score(np.array([[0.5499]])).score == 0.0
    # class right + phrase exact + correction wrong: 0.2 + 0.4 = 0.6 in mdc: matched at T = 0.55, not at T = 0.61
    pred = Triplet("attribute", "red car", "zebra")
    assert itm_iou([pred], [RED], ExactSimDouble, threshold=0.55) == pytest.approx(0.6)
    assert itm_iou([pred], [RED], ExactSimDouble, threshold=0.61) == 0.0


def test_matching_is_one_to_one_with_maximum_total():
    # Greedy per-prediction max would give both predictions truth 0; the assignment pairs 0-1 and 1-0.
    matrix = np.array([[0.9, 0.8], [0.85, 0.1]])
    matches = one_to_one(matrix)
    assert sorted((i, j) for i, j, _ in matches) == [(0, 1), (1, 0)]
    assert pair_score(matrix).score == pytest.approx((0.8 + 0.85) / 2 * 2 / 2)


def test_two_predictions_cannot_share_one_truth():
    # Both predictions equal the single truth: one is matched, the other counts as extra.
    assert itm_iou([RED, RED], [RED], ExactSimDouble) == pytest.approx(0.5 * 0.5)


def test_dataset_score_is_the_mean_on_a_0_to_100_scale():
    result = evaluate([([RED], [RED]), ([], [RED]), ([], [])], ExactSimDouble)
    assert result.n == 3
    assert result.itm_iou_mdc == pytest.approx(100 * (1 + 0 + 1) / 3)
    assert result.itm_iou_md == pytest.approx(100 * (1 + 0 + 1) / 3)


def test_triplets_read_from_dicts_with_class_or_aspect():
    truth = [{"class": "attribute", "phrase": "red car", "correction": "blue car"}]
    pred = [{"aspect": "attribute", "phrase": "red car", "correction": "blue car", "confidence": 0.3}]
    assert itm_iou(pred, truth, ExactSimDouble) == pytest.approx(1.0)


def test_chrf_only_similarity_needs_no_model():
    assert itm_iou([RED], [RED], semantic_sim("chrf")) == pytest.approx(1.0)


def test_unknown_similarity_and_mode_are_refused():
    with pytest.raises(AutoAlignError, match="bertscore, chrf"):
        semantic_sim("rouge")
    with pytest.raises(AutoAlignError, match="mdc, md"):
        itm_iou([RED], [RED], ExactSimDouble, mode="both")


def test_bertscore_offline_without_weights_suggests_chrf():
    sim = BertScoreSim("bert-base-uncased")
    with pytest.raises(SemanticSimUnavailable, match="--semantic-sim chrf"):
        sim(["red car"], ["blue car"])


def test_bertscore_runs_on_a_local_bert(tmp_path):
    """The BERTScore path with a tiny random BERT saved locally: identical strings give F1 = 1."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *"abcdefghijklmnopqrstuvwxyz", "red", "blue", "car"]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab))
    BertTokenizerFast(vocab_file=str(tmp_path / "vocab.txt")).save_pretrained(tmp_path)  # no model_max_length: handled
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32)
    BertModel(cfg).save_pretrained(tmp_path)
    sim = BertScoreSim(str(tmp_path), num_layers=2, device="cpu")
    same, different = sim(["red car", "red car"], ["red car", "blue"])
    assert same == pytest.approx(1.0, abs=1e-4)
    assert different < 1.0
