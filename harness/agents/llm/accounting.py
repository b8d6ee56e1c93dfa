"""Accounting and limits: one row per model call, token budgets, estimated cost.

The `llm_calls` rows say, per call: who asked (agent), when (minute → tick), why (purpose),
tokens in and out, the time spent waiting on the endpoint (0 on a cache hit), the adapter's
own time around it, whether the cache answered, the HTTP attempts, an error if any, how the
schema was asked for (`structured_output`), what became of the reply (`outcome`: valid,
corrected, rejected, fell back, chose nothing, failed) and the prompt tokens the server's prefix
cache served (`tokens_reused`, when the server says; none on a cache hit), and the prompt as sent
and the reply as it came (`prompt`, `reply`: what `villagelab inspect` shows).

Budgets: the episode budget counts every token the episode's calls used, cached or not, so the
same episode stops at the same call on a rerun (deterministic); the trial budget counts the
tokens actually paid for (cache misses) by every worker of the trial, in the cache file's
shared ledger — a spending cap, which a rerun served from the cache never touches.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any, ClassVar

import pyarrow as pa

from harness.engine.diagnostics import diagnostic_row

from .cache import Cached, ResponseCache
from .calls import BudgetExhausted, ChatCall, ChatModel, ChatReply, LLMFailure, ReplyOutcome
from .config import Price


@diagnostic_row
@dataclass(frozen=True)
class ModelCall:
    """One call an agent made to a language model: a row of the `llm_calls` trace table (its
    accounting: never scored)."""

    table: ClassVar[str] = "llm_calls"
    minute: int
    event_id: int
    agent: str
    purpose: str  # importance / trust / share / act / answer
    model: str
    tokens_in: int
    tokens_out: int
    latency_ms: float  # waiting on the endpoint (all attempts); 0 for a cache hit
    overhead_ms: float  # the adapter's own time: cache, slots, serialisation, parsing
    cache_hit: bool
    attempts: int
    error: str | None = None
    structured_output: str = "json_schema"  # how the call asked for the schema
    outcome: str | None = None  # a ReplyOutcome: what became of the reply
    tokens_reused: int | None = None  # prompt tokens the server's prefix cache served, if told
    prompt: str | None = None  # the messages as sent, "role: content" a paragraph each
    reply: str | None = None  # the reply's content, as it came back

    @staticmethod
    def summed(calls: pa.Table) -> dict[str, float]:
        """An episode's model calls summed: what a search logs per trial (`totals` adds
        episodes' up), declared to the runner through the row's registration."""
        rows = calls.select(["tokens_in", "tokens_out", "cache_hit", "error"]).to_pylist()
        paid = [r for r in rows if not r["cache_hit"]]
        return {
            "calls": float(len(rows)),
            "cache_hits": float(len(rows) - len(paid)),
            "tokens_in": float(sum(r["tokens_in"] for r in rows)),
            "tokens_out": float(sum(r["tokens_out"] for r in rows)),
            "paid_in": float(sum(r["tokens_in"] for r in paid)),
            "paid_out": float(sum(r["tokens_out"] for r in paid)),
            "errors": float(sum(r["error"] is not None for r in rows)),
        }


@dataclass
class Budgets:
    episode_tokens: int | None = None
    trial_tokens: int | None = None
    trial_scope: str | None = None  # the trial's id in the shared ledger (None: no trial cap)


class Accounted:
    """The outermost model wrapper of one episode: checks budgets, records a row per call."""

    def __init__(
        self,
        cache: ResponseCache,
        inner: ChatModel | None,
        model_id: str,
        budgets: Budgets,
        cache_only: bool = False,
    ) -> None:
        self.model_id, self.budgets, self.cache = model_id, budgets, cache
        self.cached = Cached(inner, cache, model_id, cache_only)
        self.rows: list[ModelCall] = []
        self.tokens_used = 0  # every call of this episode, cached or not
        self._drained = 0

    def _check_episode(self, call: ChatCall) -> None:
        cap = self.budgets.episode_tokens
        if cap is not None and self.tokens_used >= cap:
            raise BudgetExhausted(
                f"the episode used {self.tokens_used} tokens of its {cap} "
                f"before a {call.purpose} call by {call.agent}"
            )

    def _check_trial(self, call: ChatCall) -> None:
        cap, scope = self.budgets.trial_tokens, self.budgets.trial_scope
        if cap is not None and scope is not None:
            spent = self.cache.spent(scope)
            if spent >= cap:
                raise BudgetExhausted(f"the trial paid for {spent} tokens of its {cap}")

    def complete(self, call: ChatCall) -> ChatReply:
        started = time.perf_counter()
        self._check_episode(call)
        key = call.key(self.model_id)
        reply = self.cache.get(key)
        try:
            if reply is None:
                self._check_trial(call)
                reply = self.cached.complete(call)
                scope = self.budgets.trial_scope
                if scope is not None and not reply.cache_hit:
                    self.cache.spend(scope, reply.tokens_in + reply.tokens_out)
        except LLMFailure as exc:
            self._record(call, None, started, f"{exc.status}: {exc}")
            raise
        self.tokens_used += reply.tokens_in + reply.tokens_out
        self._record(call, reply, started, None)
        return reply

    def _record(
        self, call: ChatCall, reply: ChatReply | None, started: float, error: str | None
    ) -> None:
        total_ms = (time.perf_counter() - started) * 1000.0
        waited = 0.0 if reply is None or reply.cache_hit else reply.latency_ms
        self.rows.append(
            ModelCall(
                minute=call.minute,
                event_id=call.event_id,
                agent=call.agent,
                purpose=str(call.purpose),
                model=self.model_id,
                tokens_in=0 if reply is None else reply.tokens_in,
                tokens_out=0 if reply is None else reply.tokens_out,
                latency_ms=round(waited, 3),
                overhead_ms=round(max(0.0, total_ms - waited), 3),
                cache_hit=bool(reply is not None and reply.cache_hit),
                attempts=0 if reply is None else reply.attempts,
                error=error,
                structured_output=str(call.structured_output),
                outcome=str(ReplyOutcome.FAILED) if reply is None else None,
                tokens_reused=None if reply is None or reply.cache_hit else reply.tokens_reused,
                prompt=prompt_text(call.body(self.model_id)["messages"]),
                reply=None if reply is None else reply.content,
            )
        )

    def note_error(self, error: str) -> None:
        """Attach an error to the latest row (e.g. the reply could not be parsed)."""
        last = self.rows[-1]
        joined = error if last.error is None else f"{last.error}; {error}"
        self.rows[-1] = replace(last, error=joined)

    def note_outcome(self, outcome: ReplyOutcome) -> None:
        """Say what became of the latest row's reply."""
        self.rows[-1] = replace(self.rows[-1], outcome=str(outcome))

    def drain(self, agent: str | None = None) -> list[ModelCall]:
        """Rows not yet handed on (of one agent, or all): the agent gives them to the recorder."""
        taken = [r for r in self.rows[self._drained :] if agent is None or r.agent == agent]
        kept = [r for r in self.rows[self._drained :] if agent is not None and r.agent != agent]
        self.rows[self._drained :] = kept
        self._drained = len(self.rows) - len(kept)
        return taken


def prompt_text(messages: list[dict[str, str]]) -> str:
    """The messages of a request as a person reads them (`villagelab inspect` shows them)."""
    return "\n\n".join(f"{m['role']}: {m['content']}" for m in messages)


def estimated_cost(tokens_in: int, tokens_out: int, price: Price | None) -> float | None:
    """USD for the tokens paid for; None when the price table does not know the model."""
    if price is None:
        return None
    return (tokens_in * price.input + tokens_out * price.output) / 1_000_000


def summarise(rows: Iterable[ModelCall | dict[str, Any]], price: Price | None) -> dict[str, float]:
    """Totals for MLflow and the run's summary: calls, hits, tokens, hit rate, cost."""
    calls = hits = tin = tout = paid_in = paid_out = errors = 0
    latency = overhead = 0.0
    for row in rows:
        r = row if isinstance(row, dict) else asdict(row)
        calls += 1
        hits += bool(r["cache_hit"])
        errors += r["error"] is not None
        tin, tout = tin + int(r["tokens_in"]), tout + int(r["tokens_out"])
        if not r["cache_hit"]:
            paid_in, paid_out = paid_in + int(r["tokens_in"]), paid_out + int(r["tokens_out"])
        latency += float(r["latency_ms"])
        overhead += float(r["overhead_ms"])
    out = {
        "llm_calls": float(calls),
        "llm_cache_hits": float(hits),
        "llm_cache_hit_rate": hits / calls if calls else 0.0,
        "llm_tokens_in": float(tin),
        "llm_tokens_out": float(tout),
        "llm_tokens_paid": float(paid_in + paid_out),
        "llm_errors": float(errors),
        "llm_latency_ms_mean": latency / max(1, calls - hits),
        "llm_overhead_ms_mean": overhead / calls if calls else 0.0,
    }
    cost = estimated_cost(paid_in, paid_out, price)
    if cost is not None:
        out["llm_cost_usd"] = cost
    return out


def totals(usages: Iterable[dict[str, float]]) -> dict[str, float]:
    """Episodes' `model_usage` (harness.engine.runner) summed."""
    out: dict[str, float] = {}
    for usage in usages:
        for k, v in usage.items():
            out[k] = out.get(k, 0.0) + v
    return out


def trial_metrics(usages: Iterable[dict[str, float]], price: Price | None) -> dict[str, float]:
    """What a search logs per trial: calls, cache hit rate, tokens, tokens paid, cost."""
    t = totals(usages)
    if not t:
        return {}
    calls = t.get("calls", 0.0)
    out = {
        "llm_calls": calls,
        "llm_cache_hit_rate": t.get("cache_hits", 0.0) / calls if calls else 0.0,
        "llm_tokens_in": t.get("tokens_in", 0.0),
        "llm_tokens_out": t.get("tokens_out", 0.0),
        "llm_tokens_paid": t.get("paid_in", 0.0) + t.get("paid_out", 0.0),
        "llm_errors": t.get("errors", 0.0),
    }
    cost = estimated_cost(int(t.get("paid_in", 0)), int(t.get("paid_out", 0)), price)
    if cost is not None:
        out["llm_cost_usd"] = cost
    return out


def usage_lines(usages: Iterable[dict[str, float]], config_path: Any) -> dict[str, str]:
    """`key: value` lines for the end of a run (empty when no model was called)."""
    from .config import load_llm_config

    price = load_llm_config(config_path, need_key=False).price() if config_path else None
    m = trial_metrics(list(usages), price)
    if not m:
        return {}
    calls, rate = int(m["llm_calls"]), m["llm_cache_hit_rate"]
    lines = {
        "llm_calls": str(calls),
        "llm_calls_made": str(calls - round(calls * rate)),
        "llm_cache_hit_rate": f"{rate:.3f}",
        "llm_tokens": f"{int(m['llm_tokens_in'])} in, {int(m['llm_tokens_out'])} out",
        "llm_tokens_paid": str(int(m["llm_tokens_paid"])),
    }
    if "llm_cost_usd" in m:
        lines["llm_cost_usd"] = f"{m['llm_cost_usd']:.4f}"
    return lines
