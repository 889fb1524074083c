"""Metric math on hand-built chunk timelines with known answers, and properties on generated ones."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.bench.chunks import Chunk, StreamRecord
from mtptui.bench.metrics import BURST_TPOT_S, RequestMetrics, request_metrics
from mtptui.bench.summary import run_accept_len, summarize


def timeline(start: float, steps: list[tuple[float, int]], done: float, spec: dict | None = None) -> StreamRecord:
    """A content-only stream: (arrival time, tokens in the chunk) per step, cumulative usage on each chunk."""
    record, total = StreamRecord(start=start, end=done, done=True, spec=spec), 0
    for t, tokens in steps:
        total += tokens
        record.chunks.append(Chunk(t=t, content="x" * tokens, completion_tokens=total, reasoning_tokens=0))
    record.usage = {"completion_tokens": total, "reasoning_tokens": 0}
    return record


def test_tpot_and_itl_with_multi_token_chunks() -> None:
    # first token at 1.0 s; then verify steps of 3, 4 and 1 tokens, 0.3 s apart; [DONE] at 2.0 s
    m = request_metrics(timeline(0.5, [(1.0, 1), (1.3, 3), (1.6, 4), (1.9, 1)], 2.0))
    assert m.ttft == 0.5 and m.e2e == 1.5 and m.output_tokens == 9
    assert math.isclose(m.tpot, 1.0 / 8)
    assert math.isclose(m.decode_tok_s, 8.0)
    expected = [0.1] * 3 + [0.075] * 4 + [0.3]
    assert len(m.itl) == 8 and all(math.isclose(a, b) for a, b in zip(m.itl, expected))
    assert all(math.isclose(a, 0.3) for a in m.icl) and len(m.icl) == 3
    assert math.isclose(summarize([m], 2.0)["tokens_per_chunk"], 8 / 3)


def test_accept_length_per_request_and_verify_weighted_per_run() -> None:
    a = request_metrics(timeline(0, [(0.1, 1), (0.2, 99)], 0.3, spec={"spec_verify_ct": 50}))
    b = request_metrics(timeline(0, [(0.1, 1), (0.2, 9)], 0.3, spec={"spec_verify_ct": 10}))
    assert a.accept_len == 2.0 and b.accept_len == 1.0
    # 110 tokens over 60 verify steps, not the mean of 2.0 and 1.0
    assert math.isclose(run_accept_len([a, b]), 110 / 60)
    plain = request_metrics(timeline(0, [(0.1, 1), (0.2, 9)], 0.3))
    assert plain.accept_len is None and run_accept_len([plain]) is None


def test_summary_aggregates_only_successful_requests() -> None:
    good = request_metrics(timeline(0, [(0.2, 1), (1.2, 10)], 1.2))
    failed = RequestMetrics(ok=False, error="HTTP 500: boom", output_tokens=3)
    s = summarize([good, good, failed], duration=2.0)
    assert s["requests_ok"] == 2 and s["requests_failed"] == 1
    assert s["output_tok_s"] == 11.0 and s["request_throughput"] == 1.0
    assert math.isclose(s["request_tok_s"], 10.0)
    assert math.isclose(s["ttft_ms"]["mean"], 200.0) and math.isclose(s["e2e_ms"]["p99"], 1200.0)
    assert set(s["tpot_ms"]) == {"mean", "median", "p90", "p95", "p99"}


def test_summary_of_no_successful_request_has_null_figures() -> None:
    s = summarize([RequestMetrics(ok=False, error="timed out")], duration=1.0)
    assert s["requests_ok"] == 0 and s["output_tok_s"] == 0 and s["request_tok_s"] is None
    assert s["ttft_ms"] == {"mean": None, "median": None, "p90": None, "p95": None, "p99": None}


steps_strategy = st.lists(st.tuples(st.floats(0.001, 0.5), st.integers(0, 6)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(ttft=st.floats(0.01, 2.0), first_tokens=st.integers(1, 4), steps=steps_strategy, tail=st.floats(0, 0.1))
def test_itl_is_token_correct_for_any_timeline(ttft, first_tokens, steps, tail) -> None:
    points, t = [(ttft, first_tokens)], ttft
    for gap, tokens in steps:
        t += gap
        points.append((t, tokens))
    m = request_metrics(timeline(0.0, points, t + tail))
    total = first_tokens + sum(tokens for _, tokens in steps)
    last_token_t = max(p[0] for p in points if p[1] > 0 or p is points[0])
    assert m.output_tokens == total
    assert len(m.itl) == total - first_tokens  # one ITL per token after the first chunk
    assert math.isclose(sum(m.itl), last_token_t - ttft, abs_tol=1e-9)
    assert math.isclose(sum(m.icl), sum(m.itl), abs_tol=1e-9)  # splitting a gap keeps its length
    if total > 1 and (m.e2e - m.ttft) / (total - 1) >= BURST_TPOT_S:
        assert m.tpot is not None and math.isclose(m.tpot * (total - 1), m.e2e - m.ttft, rel_tol=1e-9)
    else:  # one token, or a burst faster than any decode: no TPOT to say
        assert m.tpot is None
