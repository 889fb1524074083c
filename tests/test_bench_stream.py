"""SSE payloads in SGLang's streaming format (serving-benchmarks.md §2.1) folded into a request timeline."""

from __future__ import annotations

import json

from mtptui.bench.chunks import StreamRecord, apply_event
from mtptui.bench.metrics import request_metrics
from mtptui.bench.sse import EventParser


def _chunk(delta: dict | None = None, usage: dict | None = None, finish: str | None = None, **extra) -> str:
    body = {"id": "r1", "object": "chat.completion.chunk", "created": 1790000000, "model": "qwen",
            "choices": [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None,
                                                  "finish_reason": finish, "matched_stop": None}], **extra}
    if usage is not None:
        body["usage"] = usage
    return "data: " + json.dumps(body) + "\n\n"


def _usage(completion: int, reasoning: int = 0) -> dict:
    return {"prompt_tokens": 812, "total_tokens": 812 + completion, "completion_tokens": completion,
            "reasoning_tokens": reasoning}


# A qwen3-parser MTP stream: role chunk, reasoning in multi-token steps, one step that emits both a reasoning and a
# content chunk with the same cumulative usage, content, finish, sglext, usage, [DONE]; plus the lines a client
# must skip (an SSE comment and a named sglext_ids event).
RECORDED = [
    (0.00, _chunk({"role": "assistant", "content": ""})),
    (0.40, _chunk({"reasoning_content": "Okay, the user", "content": None}, _usage(1, 1))),
    (0.50, ": keep-alive comment\n\n"),
    (0.52, _chunk({"reasoning_content": " wants a red-black"}, _usage(4, 4))),
    (0.64, "event: sglext_ids\ndata: {\"ids\": [1, 2, 3]}\n\n"),
    (0.64, _chunk({"reasoning_content": " tree."}, _usage(6, 5))),
    (0.64, _chunk({"content": "Here"}, _usage(6, 5))),
    (0.76, _chunk({"content": " is the code"}, _usage(9, 5))),
    (0.80, _chunk({}, None, finish="length")),
    (0.81, _chunk(None, None, sglext={"spec_tokens_details": {"spec_accept_length": 3.0, "spec_verify_ct": 3}})),
    (0.82, _chunk(None, _usage(9, 5))),
    (0.83, "data: [DONE]\n\n"),
]


def replay(events: list[tuple[float, str]], start: float = 0.0) -> StreamRecord:
    """Feed SSE text through the client's event parser, as the client does, with the given arrival times."""
    record, parser = StreamRecord(start=start), EventParser()
    for t, text in events:
        for sse in parser.feed(text):
            if sse.event in ("", "message"):
                apply_event(record, sse.data, t)
    return record


def test_recorded_mtp_stream_gives_token_correct_metrics() -> None:
    m = request_metrics(replay(RECORDED))
    assert m.ok and m.error is None and not m.usage_approximate
    assert m.ttft == 0.40 and m.ttfc == 0.64 and m.e2e == 0.83
    assert (m.output_tokens, m.reasoning_tokens, m.content_tokens) == (9, 5, 4)
    assert abs(m.tpot - (0.83 - 0.40) / 8) < 1e-12
    # gaps 0.12 (3 tokens), 0.12 (2 tokens; the Δ=0 content half is merged), 0.12 (3 tokens)
    assert [round(g, 6) for g in m.icl] == [0.12, 0.12, 0.12]
    assert [round(x, 6) for x in m.itl] == [0.04] * 3 + [0.06] * 2 + [0.04] * 3
    assert m.accept_len == 3.0 and m.verify_ct == 3


def test_role_chunk_and_null_fields_do_not_count_as_first_token() -> None:
    events = [(0.1, _chunk({"role": "assistant", "content": ""}, _usage(0))),
              (0.2, _chunk({"content": None, "reasoning_content": None}, _usage(0))),
              (0.3, _chunk({"content": "Hi"}, _usage(1))), (0.4, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert m.ttft == 0.3 and m.output_tokens == 1 and m.tpot is None


def test_stream_without_usage_counts_chunks_and_flags_it() -> None:
    events = [(0.1 * i, _chunk({"content": f"t{i}"})) for i in range(1, 6)] + [(0.6, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert m.ok and m.usage_approximate and m.output_tokens == 5
    assert abs(m.tpot - 0.5 / 4) < 1e-12


def test_error_chunk_in_a_200_stream_fails_the_request() -> None:
    error = {"error": {"object": "error", "message": "The server is aborting the request", "type": "BadRequestError",
                       "code": 503}}
    events = [(0.1, _chunk({"content": "a"}, _usage(1))), (0.2, "data: " + json.dumps(error) + "\n\n"),
              (0.3, _chunk(None, _usage(1))), (0.4, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert not m.ok and "aborting the request" in m.error and "server error" in m.error


def test_a_request_the_server_aborted_fails_even_when_its_stream_ends_with_done() -> None:
    """SGLang ends the requests in flight with finish_reason "abort" when it stops (a restart): not an answer."""
    events = [(0.1, _chunk({"content": "a"}, _usage(1))), (0.2, _chunk({}, _usage(1), finish="abort")),
              (0.3, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert not m.ok and m.error.startswith("the server aborted the request (finish_reason abort")


def test_malformed_chunk_and_missing_done_fail_with_a_reason() -> None:
    bad = request_metrics(replay([(0.1, "data: {not json\n\n"), (0.2, "data: [DONE]\n\n")]))
    assert not bad.ok and bad.error.startswith("malformed chunk")
    cut = replay([(0.1, _chunk({"content": "a"}, _usage(1)))])
    assert not cut.ok and cut.error is None  # the client sets "stream ended before [DONE]"


def test_spec_details_as_list_and_old_fields() -> None:
    events = [(0.1, _chunk({"content": "a"}, _usage(1))), (0.2, _chunk({"content": "bcd"}, _usage(8))),
              (0.3, _chunk(None, None, sglext={"spec_tokens_details": [{"spec_accept_length": 2.0}]})),
              (0.4, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert m.accept_len == 2.0 and m.verify_ct == 4.0


def test_final_usage_larger_than_last_chunk_usage_wins() -> None:
    events = [(0.1, _chunk({"content": "a"}, _usage(1))), (0.2, _chunk({"content": "b"}, _usage(2))),
              (0.3, _chunk(None, _usage(3))), (0.4, "data: [DONE]\n\n")]
    m = request_metrics(replay(events))
    assert m.output_tokens == 3 and m.itl == [0.1]
