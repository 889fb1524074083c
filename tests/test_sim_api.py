"""The simulated server's HTTP API on each SGLang version, as the official openai client, a raw SSE reader and
prometheus_client's exposition parser see it, against what the version's surface says the real release does."""

from __future__ import annotations

import json

import httpx
import openai
import pytest
from httpx_sse import connect_sse
from prometheus_client.parser import text_string_to_metric_families

from mtptui.engines.sglang.surface import surface_of

PROMPT = [{"role": "user", "content": "Write a red-black tree in Python."}]
SHORT_THINKER = [{"role": "user", "content": "Write a trie."}]  # its simulated reasoning is 86 tokens
TOO_LARGE = "max_completion_tokens is too large: 200000.This model supports at most 131072 completion tokens."


def sse_events(url: str, body: dict) -> list[dict | str]:
    """Every data event of a stream, JSON-decoded ("[DONE]" kept as text)."""
    with httpx.Client(timeout=60) as client, connect_sse(client, "POST", url + "/v1/chat/completions",
                                                         json=body) as source:
        assert source.response.status_code == 200
        assert source.response.headers["content-type"].startswith("text/event-stream")
        return [event.data if event.data == "[DONE]" else json.loads(event.data) for event in source.iter_sse()]


def client_of(sim) -> openai.OpenAI:
    return openai.OpenAI(base_url=sim.url + "/v1", api_key="none", max_retries=0)


def test_openai_client_streams_reasoning_then_content_then_usage(sim_restored_each) -> None:
    stream = client_of(sim_restored_each).chat.completions.create(
        model="qwen", messages=SHORT_THINKER, max_tokens=120, stream=True, stream_options={"include_usage": True})
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
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage.completion_tokens == 120
    assert usage.total_tokens == usage.prompt_tokens + 120 and 0 < usage.reasoning_tokens < 120
    details = usage.completion_tokens_details
    assert (details.reasoning_tokens if details else None) == \
        (usage.reasoning_tokens if sim_restored_each.version == "0.5.23" else None)


def test_openai_client_non_streaming_and_n_choices(sim_restored_each) -> None:
    reply = client_of(sim_restored_each).chat.completions.create(
        model="qwen", messages=PROMPT, max_tokens=40, temperature=0.6, n=2,
        extra_body={"chat_template_kwargs": {"enable_thinking": False}})
    assert reply.object == "chat.completion" and reply.model == "qwen"
    assert [c.index for c in reply.choices] == [0, 1]
    assert all(c.finish_reason == "length" and c.message.content for c in reply.choices)
    assert reply.usage.completion_tokens == 80


def test_openai_client_completions(sim_restored_each) -> None:
    client = client_of(sim_restored_each)
    reply = client.completions.create(model="qwen", prompt="def fib(n):", max_tokens=12)
    assert reply.object == "text_completion" and reply.choices[0].text and reply.usage.completion_tokens == 12
    chunks = list(client.completions.create(model="qwen", prompt=["a", "b"], max_tokens=6, stream=True,
                                            stream_options={"include_usage": True}))
    assert {c.choices[0].index for c in chunks if c.choices} == {0, 1}
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 12
    assert client.completions.create(model="qwen", prompt="x").usage.completion_tokens == 16  # its default


@pytest.mark.parametrize("stream", [False, True])
def test_a_too_large_max_tokens_is_a_bad_request_streamed_or_not(sim_restored_each, stream: bool) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client_of(sim_restored_each).chat.completions.create(model="x", messages=PROMPT, max_tokens=200_000,
                                                             stream=stream)
    assert caught.value.status_code == 400 and caught.value.body["message"] == TOO_LARGE


def test_streaming_validation_errors_are_http_400(sim_redeploy) -> None:
    body = {"messages": PROMPT, "stream": True, "max_tokens": 300_000}  # no --context-length: the tokenizer's check
    response = httpx.post(sim_redeploy.url + "/v1/chat/completions", json=body)
    assert response.status_code == 400 and response.headers["content-type"] == "application/json"
    assert response.json()["message"].startswith("Requested token count exceeds the model's maximum context length")
    for bad in ({**body, "max_tokens": -3}, {**body, "messages": []}):
        response = httpx.post(sim_redeploy.url + "/v1/chat/completions", json=bad)
        assert response.status_code == 400 and response.json()["type"] == "BadRequestError"
    assert response.json()["message"] == "Messages cannot be empty."


def test_request_errors_have_sglangs_texts(sim_redeploy) -> None:
    url = sim_redeploy.url + "/v1/chat/completions"
    bad_json = httpx.post(url, content=b"{", headers={"content-type": "application/json"})
    assert bad_json.status_code == 400 and bad_json.json()["message"].startswith("1 validation error:\n")
    assert "'json_invalid'" in bad_json.json()["message"] and bad_json.json()["type"] == "Bad Request"
    plain = httpx.post(url, content=json.dumps({"messages": PROMPT}), headers={"content-type": "text/plain"})
    assert plain.status_code == 400 and "Unsupported Media Type" in plain.json()["message"]
    missing = httpx.post(url, json={"model": "x"})
    assert missing.status_code == 400 and "'missing'" in missing.json()["message"]
    assert httpx.get(url).status_code == 405 and httpx.get(url).json() == {"detail": "Method Not Allowed"}
    zero = httpx.post(url, json={"model": "anything", "messages": PROMPT, "max_tokens": 0}).json()
    assert zero["model"] == "anything" and zero["usage"]["completion_tokens"] == 0


def test_raw_stream_shapes_of_each_version(sim_restored_each) -> None:
    surface = surface_of(sim_restored_each.version)
    events = sse_events(sim_restored_each.url, {
        "messages": PROMPT, "stream": True, "max_tokens": 80, "return_spec_tokens_details": True,
        "stream_options": {"include_usage": True, "continuous_usage_stats": True}})
    assert events[-1] == "[DONE]"
    usage_chunk = events[-2]
    assert usage_chunk["choices"] == [] and list(usage_chunk["usage"]) == list(surface.usage_fields)
    role = events[0]["choices"][0]["delta"]
    assert role == {"reasoning_content": None, "role": "assistant", "content": ""} and "usage" not in events[0]
    sglext = [e for e in events[:-1] if "sglext" in e]
    if not surface.spec_in_sglext:  # 0.5.12.post1 ignores return_spec_tokens_details
        assert sglext == [] and events[-3]["choices"][0]["finish_reason"] == "length"
        return
    details = sglext[0]["sglext"]["spec_tokens_details"]
    assert list(details) == list(surface.spec_details_fields)
    assert details["spec_accept_length"] == pytest.approx(80 / details["spec_verify_ct"])
    assert details["spec_num_proposed_drafts"] == 3 * details["spec_verify_ct"]
    assert sum(details["spec_correct_drafts_histogram"]) == details["spec_verify_ct"]


def test_text_chunks_carry_cumulative_usage_and_several_tokens(sim_restored) -> None:
    events = sse_events(sim_restored.url, {"messages": PROMPT, "stream": True, "max_tokens": 80,
                                           "stream_options": {"include_usage": True, "continuous_usage_stats": True}})
    text_chunks = [e for e in events[1:-2] if e["choices"] and e["choices"][0]["finish_reason"] is None]
    assert all("tool_calls" not in e["choices"][0]["delta"] for e in text_chunks)
    counts = [e["usage"]["completion_tokens"] for e in text_chunks]
    assert counts == sorted(counts) and counts[-1] == 80
    assert 1 < max(b - a for a, b in zip(counts, counts[1:])) <= 4  # several tokens per chunk: MTP, 3 drafts + bonus


def test_reasoning_stays_in_content_without_a_parser(sim_redeploy) -> None:
    events = sse_events(sim_redeploy.url, {"messages": PROMPT, "stream": True, "max_tokens": 30})
    deltas = [e["choices"][0]["delta"] for e in events[:-1] if e["choices"]]
    assert all(d["reasoning_content"] is None for d in deltas)
    assert "".join(d.get("content") or "" for d in deltas).startswith("<think>")


def test_server_info_of_each_version(sim_restored_each) -> None:
    info = httpx.get(sim_restored_each.url + "/server_info").json()
    surface = surface_of(sim_restored_each.version)
    server_args = set(info["internal_states"][0]) - set(surface.internal_state_keys)
    assert set(info) - server_args == set(surface.server_info_keys)
    assert info["speculative_algorithm"] == "EAGLE" and info["tokenizer_path"] == info["model_path"]
    assert info["max_req_input_len"] == min(131072 - 1, info["max_total_num_tokens"] - 1) - 5
    state = info["internal_states"][0]
    assert set(surface.internal_state_keys) - {"avg_spec_accept_length"} <= set(state)
    if sim_restored_each.version == "0.5.12.post1":
        assert "launch_command" not in info and "startup_time" not in info and "world_size" not in state
        return
    assert info["launch_command"].startswith("--model-path /data/models/Qwen3.6-27B ")
    assert set(info["startup_time"]) == {"load_weight", "kv_cache_allocation", "scheduler_e2e", "cuda_graph",
                                         "tokenizer_e2e"} and 0 < info["startup_time"]["load_weight"] < 60
    assert len(state["memory_usage"]["graph"]) == 6


def test_server_info_reports_resolved_values(sim_redeploy) -> None:
    info = httpx.get(sim_redeploy.url + "/server_info").json()
    assert info["speculative_algorithm"] == "EAGLE"  # NEXTN resolves to EAGLE
    assert (info["speculative_num_steps"], info["speculative_num_draft_tokens"]) == (1, 2)
    assert info["tp_size"] == 2 and info["max_running_requests"] == 1
    assert 0.5 < info["mem_fraction_static"] < 0.95  # sized automatically
    assert info["version"] == "0.5.12.post1"
    state = info["internal_states"][0]
    assert state["memory_usage"]["weight"] == pytest.approx(25.64 + 2.82)
    assert httpx.get(sim_redeploy.url + "/get_server_info").json()["tp_size"] == 2
    assert "Endpoint '/get_server_info' is deprecated" in sim_redeploy.log_text()
    resolved = next(line for line in sim_redeploy.log_text().splitlines() if "server_args=ServerArgs(" in line)
    assert "speculative_algorithm='EAGLE'" in resolved and "speculative_num_draft_tokens=2" in resolved


def test_models_model_info_loads_and_health(sim_restored_each) -> None:
    url, version = sim_restored_each.url, sim_restored_each.version
    models = httpx.get(url + "/v1/models").json()
    assert models["data"][0]["id"] == "/data/models/Qwen3.6-27B" and models["data"][0]["max_model_len"] == 131072
    assert httpx.get(url + "/v1/models//data/models/Qwen3.6-27B").json()["id"] == "/data/models/Qwen3.6-27B"
    assert httpx.get(url + "/v1/models/other").status_code == 404
    info = httpx.get(url + "/model_info").json()
    assert info["architectures"] == ["Qwen3_5ForCausalLM"] and info["is_generation"] is True
    loads = httpx.get(url + "/v1/loads").json()
    assert loads["version"] == version and loads["loads"][0]["max_running_requests"] == 16
    assert httpx.get(url + "/get_load").status_code == (200 if version == "0.5.12.post1" else 404)
    assert httpx.get(url + "/v1/loads?format=prometheus").text.startswith("# HELP sglang_num_running_reqs")
    assert httpx.post(url + "/flush_cache").text.startswith("Cache flushed.")
    assert httpx.get(url + "/ping").status_code == 200
    assert httpx.get(url + "/health", timeout=30).status_code == 200


def _families(url: str) -> dict:
    response = httpx.get(url + "/metrics")
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return {f.name: f for f in text_string_to_metric_families(response.text)}


def _generated(families: dict) -> float:
    return sum(s.value for s in families["sglang:generation_tokens"].samples if s.name.endswith("_total"))


def test_metrics_families_and_labels_of_each_version(sim_restored_each) -> None:
    # enough tokens for a decode-log interval of its own (the gauges appear with the first decode log line),
    # whichever tests ran on this server before: the next log line is at most 40 steps away (the default
    # --decode-log-interval), and a step of 3 MTP steps makes at most 4 tokens
    sse_events(sim_restored_each.url, {"messages": PROMPT, "stream": True, "max_tokens": 200})
    families = _families(sim_restored_each.url)
    surface = surface_of(sim_restored_each.version)
    assert not [name for name in families if name.endswith("_created")]
    exported = {f.name + ("_total" if f.type == "counter" else "") for f in families.values()}
    assert exported <= set(surface.metrics)  # a family appears once written, as from SGLang's multiprocess registry
    assert {"sglang:num_running_reqs", "sglang:spec_accept_length", "sglang:generation_tokens_total",
            "sglang:time_to_first_token_seconds"} <= exported
    for family in families.values():
        metric = surface.metrics[family.name + ("_total" if family.type == "counter" else "")]
        labels = {k for s in family.samples for k in s.labels if k not in ("le", "quantile")}
        assert labels == set(metric.labels) and family.type == metric.kind, family.name
    assert _generated(families) >= 200
    assert ("sglang:spec_verify_calls" in families) == (sim_restored_each.version == "0.5.23")


def test_token_counters_move_only_when_a_request_finishes(sim_restored) -> None:
    before = _generated(_families(sim_restored.url))
    body = {"messages": PROMPT, "stream": True, "max_tokens": 150}
    with httpx.Client(timeout=60) as client, connect_sse(client, "POST", sim_restored.url + "/v1/chat/completions",
                                                         json=body) as source:
        events = source.iter_sse()
        for _ in range(20):  # well into the stream: dozens of tokens decoded
            next(events)
        during = _generated(_families(sim_restored.url))
        list(events)
    after = _generated(_families(sim_restored.url))
    assert during == before and after == before + 150


def test_sim_requests_truth_matches_usage(sim_restored) -> None:
    events = sse_events(sim_restored.url, {"messages": PROMPT, "stream": True, "max_tokens": 64,
                                           "stream_options": {"include_usage": True}})
    rid = events[0]["id"]
    truth = {r["rid"]: r for r in httpx.get(sim_restored.url + "/sim/requests").json()["requests"]}[rid]
    assert truth["completion_tokens"] == events[-2]["usage"]["completion_tokens"] == 64
    assert truth["verify_steps"] >= 64 / 4 and truth["last_token"] > truth["first_token"]


def test_native_generate_single_and_batch(sim_restored) -> None:
    one = httpx.post(sim_restored.url + "/generate", json={"text": "Hi", "sampling_params": {"max_new_tokens": 8}},
                     timeout=30).json()
    assert one["meta_info"]["completion_tokens"] == 8 and one["meta_info"]["spec_verify_ct"] >= 2
    batch = httpx.post(sim_restored.url + "/generate", json={"text": ["a", "b", "c"],
                                                             "sampling_params": {"max_new_tokens": 4}}, timeout=30)
    assert [r["meta_info"]["completion_tokens"] for r in batch.json()] == [4, 4, 4]
    none = httpx.post(sim_restored.url + "/generate", json={"sampling_params": {}})
    assert none.status_code == 400
    assert none.json() == {"error": {"message": "Either text, input_ids or input_embeds should be provided."}}


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


def test_requests_beyond_max_running_requests_queue(sim_redeploy) -> None:
    first, second = _concurrent_truth(sim_redeploy.url, 2, 20)  # --max-running-requests 1
    assert second["prefill_start"] >= first["last_token"]


def test_requests_within_max_running_requests_decode_together(sim_restored) -> None:
    first, second = _concurrent_truth(sim_restored.url, 2, 40)  # --max-running-requests 16
    assert second["prefill_start"] < first["last_token"]
