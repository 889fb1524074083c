"""The simulated server's HTTP API, as the official openai client and a raw SSE reader see it."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from httpx_sse import connect_sse
from prometheus_client.parser import text_string_to_metric_families

from tests.simserver import sim_redeploy, sim_restored  # noqa: F401  (module fixtures)

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]
SHORT_THINKER = [{"role": "user", "content": "Write a trie."}]  # its simulated reasoning is 86 tokens


def sse_events(url: str, body: dict) -> list[dict | str]:
    """Every data event of a stream, JSON-decoded ("[DONE]" kept as text)."""
    with httpx.Client(timeout=60) as client, connect_sse(client, "POST", url + "/v1/chat/completions",
                                                         json=body) as source:
        assert source.response.headers["content-type"].startswith("text/event-stream")
        return [event.data if event.data == "[DONE]" else json.loads(event.data) for event in source.iter_sse()]


def test_openai_client_streams_reasoning_then_content(sim_restored) -> None:  # noqa: F811
    client = openai.OpenAI(base_url=sim_restored.url + "/v1", api_key="none")
    stream = client.chat.completions.create(model="qwen", messages=SHORT_THINKER, max_tokens=120, stream=True,
                                            stream_options={"include_usage": True})
    chunks = list(stream)
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    assert deltas[0].role == "assistant"
    reasoning = "".join(getattr(d, "reasoning_content", None) or "" for d in deltas)
    content = "".join(d.content or "" for d in deltas)
    assert reasoning and content
    first_content = next(i for i, d in enumerate(deltas) if d.content)
    assert not any(getattr(d, "reasoning_content", None) for d in deltas[first_content + 1:])
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["length"]
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 120
    assert chunks[-1].usage.total_tokens == chunks[-1].usage.prompt_tokens + 120


def test_openai_client_non_streaming(sim_restored) -> None:  # noqa: F811
    client = openai.OpenAI(base_url=sim_restored.url + "/v1", api_key="none")
    reply = client.chat.completions.create(model="qwen", messages=PROMPT, max_tokens=40, temperature=0.6,
                                           extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    assert reply.object == "chat.completion" and reply.model == "qwen"
    assert reply.choices[0].finish_reason == "length" and reply.choices[0].message.content
    assert reply.usage.completion_tokens == 40


def test_raw_sse_sequence_and_cumulative_usage(sim_restored) -> None:  # noqa: F811
    events = sse_events(sim_restored.url, {
        "messages": PROMPT, "stream": True, "max_tokens": 80, "return_spec_tokens_details": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True}})
    assert events[-1] == "[DONE]"
    usage_chunk, sglext_chunk, finish_chunk = events[-2], events[-3], events[-4]
    assert usage_chunk["choices"] == [] and usage_chunk["usage"]["completion_tokens"] == 80
    details = sglext_chunk["sglext"]["spec_tokens_details"]
    assert sglext_chunk["choices"] == []
    assert details["spec_accept_length"] == pytest.approx(80 / details["spec_verify_ct"])
    assert details["spec_num_proposed_drafts"] == 3 * details["spec_verify_ct"]
    assert sum(details["spec_correct_drafts_histogram"]) == details["spec_verify_ct"]
    assert finish_chunk["choices"][0]["finish_reason"] == "length"
    text_chunks = [e for e in events[1:-4]]
    counts = [e["usage"]["completion_tokens"] for e in text_chunks]
    assert counts == sorted(counts) and counts[-1] == 80
    assert max(b - a for a, b in zip(counts, counts[1:])) > 1  # several tokens per chunk, as with MTP
    assert max(b - a for a, b in zip(counts, counts[1:])) <= 4  # at most draft tokens (3) + bonus


def test_reasoning_stays_in_content_without_a_parser(sim_redeploy) -> None:  # noqa: F811
    events = sse_events(sim_redeploy.url, {"messages": PROMPT, "stream": True, "max_tokens": 30})
    deltas = [e["choices"][0]["delta"] for e in events[:-1] if e["choices"]]
    assert all(d["reasoning_content"] is None for d in deltas)
    assert "".join(d["content"] or "" for d in deltas).startswith("<think>")


def test_too_long_request_is_an_error_chunk_when_streaming(sim_restored) -> None:  # noqa: F811
    body = {"messages": PROMPT, "stream": True, "max_tokens": 200_000}
    events = sse_events(sim_restored.url, body)
    assert events[-1] == "[DONE]" and "error" in events[0]
    assert "maximum context length of 131072 tokens" in events[0]["error"]["message"]
    response = httpx.post(sim_restored.url + "/v1/chat/completions", json={**body, "stream": False})
    assert response.status_code == 400 and response.json()["object"] == "error"


def test_bad_request_body_is_400(sim_restored) -> None:  # noqa: F811
    response = httpx.post(sim_restored.url + "/v1/chat/completions", json={"model": "x"})
    assert response.status_code == 400 and "messages" in response.json()["message"]
    with pytest.raises(openai.BadRequestError):
        openai.OpenAI(base_url=sim_restored.url + "/v1", api_key="none").chat.completions.create(
            model="x", messages=PROMPT, max_tokens=-3)


def test_server_info_reports_resolved_values(sim_redeploy) -> None:  # noqa: F811
    info = httpx.get(sim_redeploy.url + "/server_info").json()
    assert info["speculative_algorithm"] == "EAGLE"  # NEXTN resolves to EAGLE
    assert (info["speculative_num_steps"], info["speculative_num_draft_tokens"]) == (1, 2)
    assert info["tp_size"] == 2 and info["max_running_requests"] == 1
    assert 0.5 < info["mem_fraction_static"] < 0.95  # sized automatically
    assert info["version"] == "0.5.12.post1" and "--speculative-num-steps 1" in info["launch_command"]
    state = info["internal_states"][0]
    assert state["memory_usage"]["weight"] == pytest.approx(25.64 + 2.82)
    assert "avg_spec_accept_length" in state
    assert httpx.get(sim_redeploy.url + "/get_server_info").json()["tp_size"] == 2


def test_models_model_info_and_health(sim_restored) -> None:  # noqa: F811
    models = httpx.get(sim_restored.url + "/v1/models").json()
    assert models["data"][0]["id"] == "/data/models/Qwen3.6-27B"
    assert models["data"][0]["max_model_len"] == 131072
    info = httpx.get(sim_restored.url + "/model_info").json()
    assert info["architectures"] == ["Qwen3_5ForCausalLM"] and info["is_generation"] is True
    assert httpx.get(sim_restored.url + "/health").status_code == 200
    assert httpx.get(sim_restored.url + "/health_generate").status_code == 200


def test_metrics_in_prometheus_text_format(sim_restored) -> None:  # noqa: F811
    sse_events(sim_restored.url, {"messages": PROMPT, "stream": True, "max_tokens": 50})
    text = httpx.get(sim_restored.url + "/metrics").text
    families = {f.name: f for f in text_string_to_metric_families(text)}
    for name in ("sglang:num_running_reqs", "sglang:gen_throughput", "sglang:spec_accept_length",
                 "sglang:generation_tokens", "sglang:time_to_first_token_seconds"):
        assert name in families, name
    generated = [s.value for s in families["sglang:generation_tokens"].samples if s.name.endswith("_total")]
    assert generated and generated[0] >= 50


def test_sim_requests_truth_matches_usage(sim_restored) -> None:  # noqa: F811
    events = sse_events(sim_restored.url, {"messages": PROMPT, "stream": True, "max_tokens": 64,
                                           "stream_options": {"include_usage": True}})
    rid = events[0]["id"]
    truth = {r["rid"]: r for r in httpx.get(sim_restored.url + "/sim/requests").json()["requests"]}[rid]
    assert truth["completion_tokens"] == events[-2]["usage"]["completion_tokens"] == 64
    assert truth["verify_steps"] >= 64 / 4 and truth["last_token"] > truth["first_token"]


def test_no_metrics_endpoint_without_enable_metrics(tmp_path) -> None:
    from tests.simserver import start_sim

    with start_sim(tmp_path, ["--model-path", "/data/models/Qwen3.6-27B", "--tp-size", "2"]) as sim:
        assert httpx.get(sim.url + "/metrics").status_code == 404
        assert httpx.get(sim.url + "/v1/models").status_code == 200


def _concurrent_truth(url: str, count: int, max_tokens: int) -> list[dict]:
    from concurrent.futures import ThreadPoolExecutor

    body = {"messages": PROMPT, "max_tokens": max_tokens}
    with ThreadPoolExecutor(count) as pool:
        replies = list(pool.map(lambda _: httpx.post(url + "/v1/chat/completions", json=body, timeout=60).json(),
                                range(count)))
    truth = {r["rid"]: r for r in httpx.get(url + "/sim/requests").json()["requests"]}
    return sorted((truth[reply["id"]] for reply in replies), key=lambda r: r["prefill_start"])


def test_requests_beyond_max_running_requests_queue(sim_redeploy) -> None:  # noqa: F811
    first, second = _concurrent_truth(sim_redeploy.url, 2, 20)  # --max-running-requests 1
    assert second["prefill_start"] >= first["last_token"]


def test_requests_within_max_running_requests_decode_together(sim_restored) -> None:  # noqa: F811
    first, second = _concurrent_truth(sim_restored.url, 2, 40)  # --max-running-requests 16
    assert second["prefill_start"] < first["last_token"]
