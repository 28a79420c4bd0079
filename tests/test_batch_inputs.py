"""Prompt files for `autoalign batch`: bad rows are reported with their line numbers, good rows kept."""

from __future__ import annotations

import json

import pytest

from autoalign.agents.batch_inputs import derive_id, read_prompts
from autoalign.agents.ledger import Ledger
from autoalign.errors import InputError


def test_txt_one_prompt_a_line_skips_blank_and_comment_lines(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("a red cube\n\n# a comment\ntwo blue balls\n")
    parsed = read_prompts(f)
    assert [i.prompt for i in parsed.items] == ["a red cube", "two blue balls"]
    assert [i.line for i in parsed.items] == [1, 4]
    assert parsed.bad_rows == []


def test_ids_are_stable_across_reads_and_given_ids_win(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"prompt": "a cat"}\n{"prompt": "a dog", "id": "dog-1", "seed": 7}\n')
    first, second = read_prompts(f), read_prompts(f)
    assert [i.id for i in first.items] == [i.id for i in second.items]
    assert first.items[0].id == derive_id("a cat", None, None)
    assert first.items[1].id == "dog-1" and first.items[1].seed == 7


def test_mixed_csv_with_bad_rows_reports_each_with_its_line_and_keeps_the_good(tmp_path):
    long_prompt = "x" * 20_000
    lines = [
        b"id,prompt,seed,category",
        b"a,a red apple,1,colors",
        b"b,,2,colors",  # empty prompt
        ("c," + long_prompt + ",3,colors").encode(),  # 20k characters
        b'd,"broken quoting,4,colors',  # unterminated quote
        b"a,a duplicate id,5,colors",  # duplicate id
        b"e,caf\xe9 \xff broken bytes,6,colors",  # not UTF-8
        b"f,two green pears,notanumber,colors",  # bad seed
        b"g,a blue plate,8,colors",
    ]
    f = tmp_path / "p.csv"
    f.write_bytes(b"\n".join(lines) + b"\n")
    parsed = read_prompts(f, max_chars=1000)
    assert [i.id for i in parsed.items] == ["a", "g"]
    bad = {b.line: b.error for b in parsed.bad_rows}
    assert set(bad) == {3, 4, 5, 6, 7, 8}
    assert "empty prompt" in bad[3]
    assert "20000 characters" in bad[4] and "1000" in bad[4]
    assert "duplicate id 'a'" in bad[6] and "line 2" in bad[6]
    assert "UTF-8" in bad[7]
    assert "seed" in bad[8]


def test_jsonl_bad_json_and_non_object_lines_are_reported(tmp_path):
    f = tmp_path / "p.jsonl"
    f.write_text('{"prompt": "ok"}\n{"prompt": \n[1, 2]\n{"text": "no prompt field"}\n')
    parsed = read_prompts(f)
    assert [i.prompt for i in parsed.items] == ["ok"]
    assert [b.line for b in parsed.bad_rows] == [2, 3, 4]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("p.md", "a prompt", "must be one of"),
        ("p.csv", "text,category\nhello,x\n", "no 'prompt' column"),
    ],
)
def test_unusable_files_are_refused_with_a_clear_error(tmp_path, name, content, message):
    f = tmp_path / name
    f.write_text(content)
    with pytest.raises(InputError, match=message):
        read_prompts(f)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        read_prompts(tmp_path / "nope.txt")


def _items(tmp_path, n):
    f = tmp_path / "p.txt"
    f.write_text("".join(f"prompt number {i}\n" for i in range(n)))
    return read_prompts(f).items


def test_ledger_claims_in_file_order_and_never_twice(tmp_path):
    items = _items(tmp_path, 3)
    led = Ledger(tmp_path / "ledger.sqlite")
    assert led.add(items) == 3
    assert led.add(items) == 0  # rerun: nothing duplicated
    ids = {i.id for i in items}
    claimed = [led.claim(ids, "w", "h")["id"] for _ in range(3)]
    assert claimed == [i.id for i in items]
    assert led.claim(ids, "w", "h") is None
    assert led.statuses()["running"] == 3


def test_ledger_reclaims_crashed_retries_failed_and_names_other_configs(tmp_path):
    items = _items(tmp_path, 4)
    led = Ledger(tmp_path / "ledger.sqlite")
    led.add(items)
    ids = [i.id for i in items]
    a, b, c = (led.claim(set(ids), "w", "h1")["id"] for _ in range(3))
    led.finish(a, run_dir="r", final_image="i.png", result={})
    led.fail(b, "boom")
    # c stays "running" as if the process died; the 4th is still pending
    counts = led.prepare(ids, "h1")
    assert counts == {"reclaimed": 1, "retry": 1}
    st = led.statuses()
    assert st == {"pending": 3, "running": 0, "done": 1, "failed": 0}
    # the three claimed items ran under h1: a batch under h2 is told so (and refuses, see test_batch_integrity)
    assert led.other_configs("h2") == {"h1": 3} and led.other_configs("h1") == {}
    row = [r for r in led.rows() if r["id"] == b][0]
    assert row["error"] == "boom"  # the last error is kept for the report
    assert json.loads(led.rows()[0]["result"]) == {}
