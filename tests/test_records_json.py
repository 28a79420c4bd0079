"""The typed records read every file written before they were typed, and write the same JSON back.

The fixtures were written by the code of the commit before the types (``autoalign run`` and
``autoalign bench run`` on the scene-double preset with a counting flaw): a ``summary.json`` whose
edit rounds hold score cards with their questions, and a ``results.jsonl``.
"""

from __future__ import annotations

import json
from pathlib import Path

from autoalign.benchmarks.bench_runner import latest_results, read_results
from autoalign.benchmarks.records import BenchRecord, StageResult
from autoalign.types import Attempt, QuestionScore, RunResult, ScoreCard

FIXTURES = Path(__file__).parent / "fixtures"
SUMMARY = FIXTURES / "summary-before-34c-scene-double.json"
RESULTS = FIXTURES / "results-before-34c-scene-double.jsonl"


def test_an_old_summary_loads_its_cards_questions_as_question_scores_and_writes_the_same_json():
    data = json.loads(SUMMARY.read_text(encoding="utf-8"))
    result = RunResult.from_dict(data)
    cards = [a.score for r in result.round_records for a in r.attempts]
    assert cards and all(isinstance(c, ScoreCard) for c in cards)
    questions = [q for c in cards for q in c.questions]
    assert questions and all(isinstance(q, QuestionScore) for q in questions)
    q = questions[0]
    assert (q.question.id, q.question.aspect, q.p_yes) == ("q1", "entity", 0.97) and q.counted == q.score
    assert result.to_dict() == data


def test_a_card_from_before_dependency_zeroing_was_recorded_keeps_its_form():
    old = {"overall": 0.5, "vq2": 0.5, "vnli": None, "clip": None,
           "questions": [{"id": "q1", "text": "is there a cat?", "answer": "cat", "aspect": "entity", "span": "a cat",
                          "depends_on": [], "open_question": "", "p_yes": 0.5}]}
    card = ScoreCard.from_dict(old)
    assert card.questions[0].score is None and card.questions[0].counted == 0.5
    assert card.to_dict() == old


def test_an_attempt_writes_its_card_questions_flat_as_before():
    data = json.loads(SUMMARY.read_text(encoding="utf-8"))["round_records"][0]["attempts"][0]
    attempt = Attempt.from_dict(data)
    assert attempt.to_dict() == data
    assert "question" not in attempt.to_dict()["score"]["questions"][0]  # not nested: the question's fields, p_yes, score


def test_old_results_lines_load_as_bench_records_and_write_the_same_json():
    lines = [json.loads(line) for line in RESULTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = read_results(RESULTS)
    assert len(records) == len(lines) == 3
    assert all(isinstance(r, BenchRecord) and r.ok for r in records)
    assert [r.to_dict() for r in records] == lines
    first = records[0]
    assert isinstance(first.stage("corrected"), StageResult)
    assert first.stage("baseline").has_mismatch("number") and not first.stage("corrected").has_mismatch()
    assert first.stage("corrected").score("overall") == 0.97 and first.stage("baseline").n_questions == 5
    assert [r.key for r in latest_results(RESULTS)] == [r.key for r in records]


def test_error_and_batch_records_keep_their_own_keys():
    error = {"id": "p1", "seed": 0, "config_hash": "h", "mode": "run", "category": "c", "prompt": "p", "run_dir": "items/p1",
             "status": "error", "error": "RuntimeError: boom", "traceback": "Traceback ...", "stages": {}, "wall_time_s": 0.1}
    failed = {"id": "b", "seed": 3, "config_hash": "h", "mode": "batch", "category": "all", "prompt": "p", "run_dir": "items/b",
              "line": 2, "status": "error", "error": "out of memory", "stages": {}, "attempts": 3, "wall_time_s": 1.5}
    for data in (error, failed):
        record = BenchRecord.from_dict(data)
        assert not record.ok and record.to_dict() == data
    assert BenchRecord.from_dict(failed).extra == {"line": 2, "attempts": 3}
