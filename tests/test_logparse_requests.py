"""The per-request finish line of `--log-requests` (text and JSON formats, 0.5.2 / 0.5.12.post1 / 0.5.23) as
`request_finish` events, and the acceptance they add up to in the summary."""

from __future__ import annotations

import io
import json

from mtptui.engines.sglang.logparse import parse_text
from mtptui.engines.sglang.state import ServerState, state_to_dict
from mtptui.engines.sglang.state.scan import summarize_stream
from tests.logparse_contract import ev

TS = "2026-05-11 23:50:12"
RID = "9f1c2e7a0b6d4c3f8e2a1b0c9d8e7f6a"
OBJ = (f"GenerateReqInput(validation_time=0.0009, received_time=1778543409.5, rid='{RID}', http_worker_ipc=None, "
       "text=None, input_ids=None, sampling_params={'max_new_tokens': 256, 'temperature': 0.6}, "
       "return_logprob=False, stream=True, priority=None)")
# 0.5.23 at --log-requests-level 1, MTP on: the request's own acceptance is in meta_info.
V0523 = (f"[{TS}] Finish: obj={OBJ}, out={{'meta_info': {{'id': '{RID}', "
         "'finish_reason': {'type': 'length', 'length': 256}, 'prompt_tokens': 25, 'weight_version': 'default', "
         "'num_retractions': 0, 'reasoning_tokens': 0, 'completion_tokens': 256, 'cached_tokens': 0, "
         "'e2e_latency': 3.2123, 'spec_accept_rate': 0.6589, 'spec_accept_length': 2.9767, "
         "'spec_num_correct_drafts': 170, 'spec_num_proposed_drafts': 258, 'spec_verify_ct': 86, "
         "'response_sent_to_client_ts': 1778543412.75}}")
# 0.5.2 at level 2: output text first (here holding the very key the parser looks for), no acceptance fields.
V052 = (f"[{TS}] Finish: obj=GenerateReqInput(text='Hi', sampling_params={{'max_new_tokens': 128}}, rid='r052'), "
        "out={'text': \"it said 'meta_info': {'prompt_tokens': 9999}\", 'output_ids': [1, 2, 3], "
        "'meta_info': {'id': 'r052', 'finish_reason': {'type': 'stop', 'matched': 151645}, 'prompt_tokens': 18, "
        "'weight_version': 'default', 'completion_tokens': 96, 'cached_tokens': 0, 'spec_verify_ct': 40, "
        "'e2e_latency': 1.8731}}")
# 0.5.12.post1 with --log-requests-format json, no speculative decoding.
V0512_JSON = f"[{TS}] " + json.dumps({
    "timestamp": "2026-05-11T23:50:12.512345", "event": "request.finished", "rid": "j1",
    "obj": {"rid": "j1", "sampling_params": {"max_new_tokens": 64}},
    "out": {"meta_info": {"id": "j1", "finish_reason": {"type": "abort", "message": "client gone"},
                          "prompt_tokens": 7, "weight_version": "default", "num_retractions": 0,
                          "reasoning_tokens": 12, "completion_tokens": 40, "cached_tokens": 4,
                          "e2e_latency": 0.75}}})


def test_0_5_23_finish_line_carries_the_requests_own_acceptance() -> None:
    (event,) = parse_text(V0523)
    assert event.to_dict() == ev("request_finish", TS, rid=RID, finish_reason="length", prompt_tokens=25,
                                 completion_tokens=256, cached_tokens=0, reasoning_tokens=0, e2e_latency_s=3.2123,
                                 spec_verify_ct=86, spec_accept_length=2.9767, spec_accept_rate=0.6589)


def test_0_5_2_finish_line_has_verify_steps_only() -> None:
    (event,) = parse_text(V052)
    assert event.to_dict() == ev("request_finish", TS, rid="r052", finish_reason="stop", prompt_tokens=18,
                                 completion_tokens=96, cached_tokens=0, e2e_latency_s=1.8731, spec_verify_ct=40)


def test_json_format_finish_line() -> None:
    (event,) = parse_text(V0512_JSON)
    assert event.to_dict() == ev("request_finish", TS, rid="j1", finish_reason="abort", prompt_tokens=7,
                                 completion_tokens=40, cached_tokens=4, reasoning_tokens=12, e2e_latency_s=0.75)


def test_other_request_lines_are_not_finish_lines() -> None:
    for line in (f"[{TS}] Receive: obj={OBJ}", f'[{TS}] {{"timestamp": "x", "event": "request.received"}}',
                 f'[{TS}] {{"timestamp": "x", "event": "request.finished", broken', f"[{TS}] Finished loading."):
        assert parse_text(line) == [], line


def test_finish_line_without_meta_info_gives_nulls() -> None:
    (event,) = parse_text(f"[{TS}] Finish: obj={OBJ}")  # multimodal generation in 0.5.2 printed no `out`
    assert event.to_dict() == ev("request_finish", TS, line=1)


def test_summary_adds_up_acceptance_like_the_bench() -> None:
    text = "\n".join([V0523, V052, V0512_JSON]) + "\n"
    fast = state_to_dict(summarize_stream(io.BytesIO(text.encode()), ServerState()))
    reduced = ServerState()
    reduced.apply_all(parse_text(text))
    assert fast == state_to_dict(reduced)
    assert fast["requests"]["finished"] == 3
    spec = fast["request_speculation"]
    assert spec["requests"] == 2 and spec["accept_len"] == (256 + 96) / (86 + 40)
    assert spec["accept_rate"] == 0.6589  # only 0.5.23 prints a rate


def test_no_speculation_no_totals() -> None:
    summary = state_to_dict(summarize_stream(io.BytesIO(V0512_JSON.encode()), ServerState()))
    assert summary["request_speculation"] is None and summary["requests"]["finished"] == 1
