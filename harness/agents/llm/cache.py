"""The response cache: content-addressed replies in one SQLite file under the runs folder.

Why SQLite (the standard library's) and not a cache library: the store must take writes from
several Ray workers at once, survive a killed writer, and stay readable by anyone debugging a
run (`sqlite3 runs/llm/cache.sqlite 'select ...'`). SQLite in WAL mode gives exactly that —
atomic transactions, one writer at a time with the others waiting (busy timeout), readers never
blocked — with no new dependency; `diskcache` is a layer over the same SQLite plus pickled
values, which would make the store opaque and Python-version-bound for no gain here.

A key is `ChatCall.key(model)`: model id, full messages, sampling parameters, the call's keyed
seed and the response schema. The first reply stored under a key wins: a writer that loses a
race gets the stored reply back, so every episode that asks the same call sees the same words.
The same file keeps the per-trial token ledger (`spend`), shared by every worker of a trial,
and the structured-output mode `auto` found for each endpoint and model (`formats`), so that a
rerun and a `--cache-only` replay ask the same way and hit the same keys.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import replace
from pathlib import Path

from .calls import CacheMiss, ChatCall, ChatModel, ChatReply, canonical

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS replies (
         key TEXT PRIMARY KEY, model TEXT NOT NULL, purpose TEXT NOT NULL,
         content TEXT NOT NULL, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL,
         latency_ms REAL NOT NULL, request TEXT NOT NULL) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS spend (
         scope TEXT PRIMARY KEY, tokens INTEGER NOT NULL) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS formats (
         endpoint TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL,
         PRIMARY KEY (endpoint, model)) WITHOUT ROWID""",
)
BUSY_TIMEOUT_S = 60.0


class ResponseCache:
    """Replies by key; safe to share between threads and processes (one connection each)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = -1

    def __getstate__(self) -> dict[str, object]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():  # never share one across a fork
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            _retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
            conn.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                _retry_locked(lambda s=statement: conn.execute(s))
            self._conn, self._pid = conn, os.getpid()
        return self._conn

    def get(self, key: str) -> ChatReply | None:
        with self._lock:
            row = (
                self._db()
                .execute(
                    "SELECT content, tokens_in, tokens_out, latency_ms FROM replies WHERE key = ?",
                    (key,),
                )
                .fetchone()
            )
        if row is None:
            return None
        return ChatReply(row[0], row[1], row[2], row[3], cache_hit=True, attempts=0)

    def put(self, key: str, model: str, call: ChatCall, reply: ChatReply) -> ChatReply:
        """Store a reply unless one is there already; returns the stored one (the winner)."""
        with self._lock:
            db = self._db()
            db.execute(
                "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    str(call.purpose),
                    reply.content,
                    reply.tokens_in,
                    reply.tokens_out,
                    reply.latency_ms,
                    canonical(call.body(model)),
                ),
            )
            row = db.execute(
                "SELECT content, tokens_in, tokens_out FROM replies WHERE key = ?", (key,)
            ).fetchone()
        return replace(reply, content=row[0], tokens_in=row[1], tokens_out=row[2])

    def count(self) -> int:
        with self._lock:
            return int(self._db().execute("SELECT count(*) FROM replies").fetchone()[0])

    def spend(self, scope: str, tokens: int) -> int:
        """Add tokens to a shared scope (a trial) atomically; returns the scope's new total."""
        with self._lock:
            row = (
                self._db()
                .execute(
                    "INSERT INTO spend VALUES (?, ?) ON CONFLICT(scope) DO UPDATE "
                    "SET tokens = tokens + excluded.tokens RETURNING tokens",
                    (scope, tokens),
                )
                .fetchone()
            )
        return int(row[0])

    def spent(self, scope: str) -> int:
        with self._lock:
            row = (
                self._db().execute("SELECT tokens FROM spend WHERE scope = ?", (scope,)).fetchone()
            )
        return 0 if row is None else int(row[0])

    def remembered_format(self, endpoint: str, model: str) -> str | None:
        """The structured-output mode found for this endpoint (without credentials) and model."""
        with self._lock:
            row = (
                self._db()
                .execute(
                    "SELECT mode FROM formats WHERE endpoint = ? AND model = ?", (endpoint, model)
                )
                .fetchone()
            )
        return None if row is None else str(row[0])

    def remember_format(self, endpoint: str, model: str, mode: str) -> str:
        """Keep the mode found; the first one stored wins (returned), as for replies."""
        with self._lock:
            db = self._db()
            db.execute("INSERT OR IGNORE INTO formats VALUES (?, ?, ?)", (endpoint, model, mode))
            row = db.execute(
                "SELECT mode FROM formats WHERE endpoint = ? AND model = ?", (endpoint, model)
            ).fetchone()
        return str(row[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _retry_locked(statement: object, tries: int = 200) -> None:
    """Schema set-up by several processes at once: 'database is locked' is worth a retry."""
    for n in range(tries):
        try:
            statement()  # type: ignore[operator]
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or n == tries - 1:
                raise
            time.sleep(0.01)


class Cached:
    """A model behind the cache: a hit costs nothing; a miss calls `inner` (or, cache-only,
    raises `CacheMiss`) and stores what came back."""

    def __init__(
        self, inner: ChatModel | None, cache: ResponseCache, model_id: str, cache_only: bool = False
    ) -> None:
        self.inner, self.cache, self.model_id = inner, cache, model_id
        self.cache_only = cache_only or inner is None

    def complete(self, call: ChatCall) -> ChatReply:
        key = call.key(self.model_id)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        if self.cache_only or self.inner is None:
            raise CacheMiss(
                f"{call.purpose} call by {call.agent or 'an agent'} is not in the "
                f"response cache ({self.cache.path.name}, key {key[:12]})"
            )
        return self.cache.put(key, self.model_id, call, self.inner.complete(call))
