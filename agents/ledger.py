"""The batch ledger: one SQLite file, the single source of truth of a batch.

Each item has a status (``pending`` → ``running`` → ``done`` | ``failed``), the config hash it ran
under, timings, attempts, the error of its last failure and its outputs. Rerunning a batch:

* ``done`` items are skipped. A batch directory holds one configuration: a rerun with another one
  is refused before anything runs (:func:`autoalign.agents.batch.check_same_config`; see
  :meth:`Ledger.other_configs`);
* ``failed`` items are tried again, with ``retries`` more attempts in each invocation;
* ``running`` items were left by a crash (one batch process holds the directory's lock) and are
  reclaimed;
* an item whose content (prompt, seed or negative prompt) changed in the prompt file under the
  same id runs again with the new content (:meth:`Ledger.reset_changed` returns it; the batch logs one line
  for it and clears its old outputs): a ledger never reports an image of a prompt the file no
  longer holds.

Claims are atomic (``BEGIN IMMEDIATE``), so several workers can feed from one ledger.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

from autoalign import files
from autoalign.agents.batch_inputs import BatchItem

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    id TEXT PRIMARY KEY,
    line INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    seed INTEGER,
    negative_prompt TEXT,
    category TEXT,
    status TEXT NOT NULL DEFAULT 'pending',
    attempts INTEGER NOT NULL DEFAULT 0,
    config_hash TEXT,
    error TEXT,
    worker TEXT,
    started_at REAL,
    finished_at REAL,
    wall_s REAL,
    run_dir TEXT,
    final_image TEXT,
    result TEXT
);
CREATE INDEX IF NOT EXISTS items_status ON items(status, line);
"""

STATUSES = ("pending", "running", "done", "failed")


class Ledger:
    """A thin wrapper over the SQLite ledger of one batch directory."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        files.watch_sqlite(self.conn, self.path.name)  # a fault point per write, when a kill test asks
        self.conn.row_factory = sqlite3.Row
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        self.conn.close()

    # -- set-up -------------------------------------------------------------------------------
    def add(self, items: list[BatchItem]) -> int:
        """Insert new items as pending; existing ids keep their status. Returns how many were new.

        Call :meth:`reset_changed` first: an existing id whose content changed is not an old item.
        """
        before = self.count()
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany(
            "INSERT OR IGNORE INTO items (id, line, prompt, seed, negative_prompt, category) VALUES (?, ?, ?, ?, ?, ?)",
            [(i.id, i.line, i.prompt, i.seed, i.negative_prompt, i.category) for i in items],
        )
        self.conn.executemany("UPDATE items SET line=?, category=? WHERE id=?", [(i.line, i.category, i.id) for i in items])
        self.conn.execute("COMMIT")
        return self.count() - before

    def reset_changed(self, items: list[BatchItem]) -> list[BatchItem]:
        """Reset to pending, with the new content, every known id whose prompt, seed or negative prompt changed.

        Their old result, image, error, attempts and config hash are cleared. Returns those items;
        the caller removes their old outputs.
        """
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            stored = {r["id"]: r for r in self.conn.execute("SELECT id, prompt, seed, negative_prompt FROM items")}
            changed = [
                i for i in items
                if i.id in stored
                and (stored[i.id]["prompt"], stored[i.id]["seed"], stored[i.id]["negative_prompt"])
                != (i.prompt, i.seed, i.negative_prompt)
            ]
            self.conn.executemany(
                "UPDATE items SET prompt=?, seed=?, negative_prompt=?, status='pending', attempts=0, config_hash=NULL, "
                "error=NULL, worker=NULL, started_at=NULL, finished_at=NULL, wall_s=NULL, run_dir=NULL, final_image=NULL, "
                "result=NULL WHERE id=?",
                [(i.prompt, i.seed, i.negative_prompt, i.id) for i in changed],
            )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return changed

    def prepare(self, ids: list[str], config_hash: str) -> dict[str, int]:
        """Make the selected items runnable for this invocation.

        ``running`` items (left by a crash) are reclaimed and ``failed`` ones get a fresh set of
        retries. (Items of another config never reach here: the batch refuses that rerun.)
        """
        counts = {"reclaimed": 0, "retry": 0}
        self.conn.execute("BEGIN IMMEDIATE")
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            cur = self.conn.execute(
                f"UPDATE items SET status='pending', worker=NULL, attempts=0 WHERE status='running' AND id IN ({marks})", chunk
            )
            counts["reclaimed"] += cur.rowcount
            cur = self.conn.execute(
                f"UPDATE items SET status='pending', attempts=0 WHERE status='failed' AND id IN ({marks})", chunk
            )
            counts["retry"] += cur.rowcount
        self.conn.execute("COMMIT")
        return counts

    def other_configs(self, config_hash: str) -> dict[str, int]:
        """How many items ran (or started) under each config hash other than ``config_hash``."""
        rows = self.conn.execute(
            "SELECT config_hash, COUNT(*) FROM items WHERE config_hash IS NOT NULL AND config_hash != ? GROUP BY config_hash",
            (config_hash,),
        ).fetchall()
        return {r[0]: r[1] for r in rows}

    def retry(self, item_id: str) -> None:
        """Queue a just-failed item again (its attempts count is kept)."""
        self.conn.execute("UPDATE items SET status='pending', worker=NULL WHERE id=?", (item_id,))

    # -- work ---------------------------------------------------------------------------------
    def claim(self, ids: set[str] | None, worker: str, config_hash: str) -> sqlite3.Row | None:
        """Atomically take the next pending item (in file order), mark it running, return it."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            rows = self.conn.execute("SELECT id FROM items WHERE status='pending' ORDER BY line").fetchall()
            chosen = next((r["id"] for r in rows if ids is None or r["id"] in ids), None)
            if chosen is None:
                self.conn.execute("COMMIT")
                return None
            self.conn.execute(
                "UPDATE items SET status='running', worker=?, started_at=?, attempts=attempts+1, config_hash=? WHERE id=?",
                (worker, time.time(), config_hash, chosen),
            )
            row = self.conn.execute("SELECT * FROM items WHERE id=?", (chosen,)).fetchone()
            self.conn.execute("COMMIT")
            return row
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise

    def finish(self, item_id: str, *, run_dir: str, final_image: str, result: dict[str, Any]) -> None:
        now = time.time()
        self.conn.execute(
            "UPDATE items SET status='done', error=NULL, finished_at=?, wall_s=?-started_at, run_dir=?, final_image=?, result=? WHERE id=?",
            (now, now, run_dir, final_image, json.dumps(result, default=str), item_id),
        )

    def fail(self, item_id: str, error: str) -> None:
        now = time.time()
        self.conn.execute(
            "UPDATE items SET status='failed', error=?, finished_at=?, wall_s=?-started_at WHERE id=?",
            (error[:2000], now, now, item_id),
        )

    def release(self, item_id: str) -> None:
        """Put a running item back (interrupted before it finished)."""
        self.conn.execute("UPDATE items SET status='pending', worker=NULL, attempts=MAX(attempts-1, 0) WHERE id=?", (item_id,))

    # -- reading ------------------------------------------------------------------------------
    def count(self, status: str | None = None) -> int:
        if status is None:
            return self.conn.execute("SELECT COUNT(*) FROM items").fetchone()[0]
        return self.conn.execute("SELECT COUNT(*) FROM items WHERE status=?", (status,)).fetchone()[0]

    def rows(self, ids: list[str] | None = None) -> list[sqlite3.Row]:
        rows = self.conn.execute("SELECT * FROM items ORDER BY line").fetchall()
        if ids is None:
            return rows
        keep = set(ids)
        return [r for r in rows if r["id"] in keep]

    def statuses(self, ids: list[str] | None = None) -> dict[str, int]:
        counts = {s: 0 for s in STATUSES}
        for r in self.rows(ids):
            counts[r["status"]] += 1
        return counts


def _chunks(seq: list[str], size: int):
    for start in range(0, len(seq), size):
        yield seq[start : start + size]
