"""Every line format of ../shared/reference/sglang-log-formats.md, one row each: line → the contract's JSON."""

from __future__ import annotations

import pytest

from mtptui.engines.sglang.logparse import FIELDS, parse_text
from tests.logparse_contract import CONTRACT, ev

TS = "2026-05-11 23:49:07"
P = f"[{TS} TP0] "
TP0 = {"TP": 0}


def one(line: str) -> dict:
    events = parse_text(line + "\n")
    assert len(events) == 1, events
    return events[0].to_dict()


def test_fields_table_is_the_contract() -> None:
    assert FIELDS == CONTRACT


PREFIXES = [
    # (line, ts, ranks)
    ("[2026-04-05 20:02:51] Memory pool end. avail mem=8.40 GB", "2026-04-05 20:02:51", {}),
    ("[2025-10-16 09:06:22 TP5] Memory pool end. avail mem=8.40 GB", "2025-10-16 09:06:22", {"TP": 5}),
    ("[2026-03-17 17:35:07 DP13 TP13] Memory pool end. avail mem=8.40 GB", "2026-03-17 17:35:07",
     {"DP": 13, "TP": 13}),
    ("[2025-12-26 23:02:39 DP0 TP0 EP0] Memory pool end. avail mem=8.40 GB", "2025-12-26 23:02:39",
     {"DP": 0, "TP": 0, "EP": 0}),
    ("[2026-06-20 18:38:13 PP0] Memory pool end. avail mem=8.40 GB", "2026-06-20 18:38:13", {"PP": 0}),
    ("[2026-06-27 08:55:14 PP2 ATTN_CP3 TP3 EP3] Memory pool end. avail mem=8.40 GB", "2026-06-27 08:55:14",
     {"PP": 2, "ATTN_CP": 3, "TP": 3, "EP": 3}),
    ("[2026-06-27 08:55:14 DP1 PP0 ATTN_CP1 MOE_DP2 TP5 EP5] Memory pool end. avail mem=8.40 GB",
     "2026-06-27 08:55:14", {"DP": 1, "PP": 0, "ATTN_CP": 1, "MOE_DP": 2, "TP": 5, "EP": 5}),
    ("[2025-06-01 10:00:00 DP1 TP2 PP3] Memory pool end. avail mem=8.40 GB", "2025-06-01 10:00:00",  # 0.4.6 order
     {"DP": 1, "TP": 2, "PP": 3}),
    ("[2025-09-01 10:00:00 DP1 TP2 EP2 PP1] Memory pool end. avail mem=8.40 GB", "2025-09-01 10:00:00",  # 0.5.2
     {"DP": 1, "TP": 2, "EP": 2, "PP": 1}),
    ("[2026-05-11 23:49:07.123 TP0] Memory pool end. avail mem=8.40 GB", "2026-05-11 23:49:07.123", TP0),
    ("[2026-05-11 23:49:07.123] Memory pool end. avail mem=8.40 GB", "2026-05-11 23:49:07.123", {}),
    ("[16:43:29 TP0] Memory pool end. avail mem=8.40 GB", "16:43:29", TP0),
    ("[gpu_id=0] Memory pool end. avail mem=8.40 GB", None, {}),
    ("llm0-1  | [2026-05-11 23:49:07 TP1] Memory pool end. avail mem=8.40 GB", TS, {"TP": 1}),
    ("3|qwen  | [2026-05-11 23:49:07] Memory pool end. avail mem=8.40 GB", TS, {}),
    ("2025-03-07 23:50:27,531 - __main__ - INFO - [2025-03-07 23:50:27 TP0] Memory pool end. avail mem=8.40 GB",
     "2025-03-07 23:50:27", TP0),
    ("2025-03-07 23:50:27,531 - __main__ - INFO - Memory pool end. avail mem=8.40 GB", "2025-03-07 23:50:27,531", {}),
    ("2026-06-07 10:59:31,659 [INFO] sglang.srt.mem_cache.kv_cache_configurator: Memory pool end. avail mem=8.40 GB",
     "2026-06-07 10:59:31,659", {}),
    ("\x1b[32m[2026-05-11 23:49:07 TP0]\x1b[0m Memory pool end. avail mem=8.40 GB", TS, TP0),
    ("\x1b[36mllm0-1  | \x1b[0m[2026-05-11 23:49:07 TP0] Memory pool end. avail mem=\x1b[1m8.40\x1b[0m GB", TS, TP0),
    ("(SGLangEngine pid=35555) [2026-05-11 23:49:07 TP0] Memory pool end. avail mem=8.40 GB", TS, TP0),
    ("May 11 23:49:07 ct129 python3[12345]: [2026-05-11 23:49:07 TP0] Memory pool end. avail mem=8.40 GB", TS, TP0),
]


@pytest.mark.parametrize(("line", "ts", "ranks"), PREFIXES)
def test_prefixes_wrappers_and_rank_tags(line: str, ts: str | None, ranks: dict) -> None:
    assert one(line) == ev("memory_pool_end", ts, ranks, avail_mem_gb=8.40)


DECODE = [
    # 0.2.15 / 0.3.6.post3: no graph field
    ("Decode batch. #running-req: 1, #token: 108, token usage: 0.00, gen throughput (token/s): 35.81, #queue-req: 0",
     dict(running_req=1, tokens=108, token_usage=0.0, gen_throughput=35.81, queue_req=0)),
    # 0.4.6.post5: accept len, pre-allocated usage, cuda graph
    ("Decode batch. #running-req: 3, #token: 4000, token usage: 0.05, accept len: 1.75, pre-allocated usage: 0.10, "
     "cuda graph: True, gen throughput (token/s): 35.81, #queue-req: 2",
     dict(running_req=3, tokens=4000, token_usage=0.05, accept_len=1.75, graph=True, gen_throughput=35.81,
          queue_req=2)),
    # 0.5.2: trailing `, `; cpu graph
    ("Decode batch. #running-req: 2, #token: 1000, token usage: 0.01, cpu graph: False, "
     "gen throughput (token/s): 100.00, #queue-req: 0, ",
     dict(running_req=2, tokens=1000, token_usage=0.01, graph=False, gen_throughput=100.0, queue_req=0)),
    # 0.5.2 hybrid SWA pool
    ("Decode batch. #running-req: 2, #full token: 900, full token usage: 0.02, #swa token: 300, swa token usage: 0.30, "
     "cuda graph: True, gen throughput (token/s): 71.20, #queue-req: 1, ",
     dict(running_req=2, tokens=900, token_usage=0.02, graph=True, gen_throughput=71.2, queue_req=1)),
    # Oct 2025: `Decode batch.` + accept rate + trailing `, `
    ("Decode batch. #running-req: 1, #token: 186, token usage: 0.00, accept len: 1.95, accept rate: 0.49, "
     "cuda graph: True, gen throughput (token/s): 178.86, #queue-req: 0, ",
     dict(running_req=1, tokens=186, token_usage=0.0, accept_len=1.95, accept_rate=0.49, graph=True,
          gen_throughput=178.86, queue_req=0)),
    # Dec 2025: `Decode batch,` and a trailing `,`
    ("Decode batch, #running-req: 8, #token: 5120, token usage: 0.04, cuda graph: True, "
     "gen throughput (token/s): 812.33, #queue-req: 5,",
     dict(running_req=8, tokens=5120, token_usage=0.04, graph=True, gen_throughput=812.33, queue_req=5)),
    # 0.5.12.post1: iteration number, PD-decode queues, npu graph
    ("Decode batch [1234], #running-req: 4, #token: 800, token usage: 0.01, pre-allocated usage: 0.00, "
     "#prealloc-req: 0, #transfer-req: 0, #retracted-req: 0, npu graph: False, gen throughput (token/s): 55.10, "
     "#queue-req: 0",
     dict(running_req=4, tokens=800, token_usage=0.01, graph=False, gen_throughput=55.1, queue_req=0)),
    # 0.5.23 plain pool
    ("Decode batch, #running-req: 12, #token: 20800, token usage: 0.29, cuda graph: True, "
     "gen throughput (token/s): 144.95, #queue-req: 0",
     dict(running_req=12, tokens=20800, token_usage=0.29, graph=True, gen_throughput=144.95, queue_req=0)),
    # 0.5.23 hybrid mamba pool with speculative fields (the reference's example)
    ("Decode batch, #running-req: 4, #full token: 685000, full token usage: 0.49, mamba num: 12, mamba usage: 0.67, "
     "accept len: 2.77, accept rate: 0.69, cuda graph: True, gen throughput (token/s): 8.44, #queue-req: 0",
     dict(running_req=4, tokens=685000, token_usage=0.49, mamba_usage=0.67, accept_len=2.77, accept_rate=0.69,
          graph=True, gen_throughput=8.44, queue_req=0)),
    # 0.5.23 with every optional extra: cap len, block accept len, host receive, musa graph, MFU and occupancy
    ("Decode batch, #running-req: 2, #full token: 10, full token usage: 0.10, #swa token: 5, swa token usage: 0.05, "
     "accept len: 3.20, accept rate: 0.73, cap len: 4.00, block accept len: 2.50, #host-receive-req: 0, "
     "waiting-image-req: 0, musa graph: True, gen throughput (token/s): 61.00, #queue-req: 3, "
     "est. decode TFLOPS/s (per GPU): 1.23, est. read BW (GB/s per GPU): 400.00, "
     "est. write BW (GB/s per GPU): 2.00, fwd occupancy: 91.50%, fwd+idle occupancy: 99.00%",
     dict(running_req=2, tokens=10, token_usage=0.1, accept_len=3.2, accept_rate=0.73, graph=True,
          gen_throughput=61.0, queue_req=3)),
    # HiSparse parts
    ("Decode batch, #running-req: 1, #token: 64, token usage: 0.01, #gpu token: 32, gpu token usage: 0.02, "
     "#cpu token: 32, cpu token usage: 0.03, cuda graph: True, gen throughput (token/s): 9.99, #queue-req: 0",
     dict(running_req=1, tokens=64, token_usage=0.01, graph=True, gen_throughput=9.99, queue_req=0)),
]


@pytest.mark.parametrize(("msg", "fields"), DECODE)
def test_decode_lines(msg: str, fields: dict) -> None:
    assert one(P + msg) == ev("decode", TS, TP0, **fields)


PREFILL = [
    # 0.3.6.post3: cache hit rate
    ("Prefill batch. #new-seq: 1, #new-token: 28, #cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, "
     "#running-req: 0, #queue-req: 0",
     dict(new_seq=1, new_token=28, cached_token=0, token_usage=0.0, running_req=0, queue_req=0)),
    # 0.4.6.post5
    ("Prefill batch. #new-seq: 2, #new-token: 512, #cached-token: 64, token usage: 0.01, #running-req: 1, "
     "#queue-req: 3",
     dict(new_seq=2, new_token=512, cached_token=64, token_usage=0.01, running_req=1, queue_req=3)),
    # 0.5.2 PD prefill server, trailing `, `
    ("Prefill batch. #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0, "
     "#unbootstrapped-req: 0, #queue-req: 0, #transferring-req: 1, input throughput (token/s): 120.50, ",
     dict(new_seq=1, new_token=8, cached_token=0, token_usage=0.0, running_req=0, queue_req=0,
          input_throughput=120.5)),
    # transitional Dec 2025 (mamba usage, trailing `, `)
    ("Prefill batch, #new-seq: 1, #new-token: 33, #cached-token: 0, full token usage: 0.00, mamba usage: 0.00, "
     "#running-req: 0, #queue-req: 0, ",
     dict(new_seq=1, new_token=33, cached_token=0, token_usage=0.0, mamba_usage=0.0, running_req=0, queue_req=0)),
    # real 0.5.x line of the reference
    ("Prefill batch, #new-seq: 1, #new-token: 8, #cached-token: 255983, full token usage: 0.12, mamba usage: 0.02, "
     "#running-req: 0, #queue-req: 0, #pending-token: 0, cuda graph: False, input throughput (token/s): 9.58",
     dict(new_seq=1, new_token=8, cached_token=255983, token_usage=0.12, mamba_usage=0.02, running_req=0,
          queue_req=0, input_throughput=9.58)),
    # 0.5.23 with iteration, replay tokens, PD prefill queues and the MFU suffix
    ("Prefill batch [77], #new-seq: 3, #new-token: 4096, #cached-token: 100, token usage: 0.40, #running-req: 5, "
     "#queue-req: 2, #pending-token: 128, #replay-token: 16, #bootstrap-req: 0, #inflight-req: 1, "
     "#optimistic-req: 0, cuda graph: False, input throughput (token/s): 8123.45, "
     "est. prefill TFLOPS/s (per GPU): 88.10",
     dict(new_seq=3, new_token=4096, cached_token=100, token_usage=0.4, running_req=5, queue_req=2,
          input_throughput=8123.45)),
]


@pytest.mark.parametrize(("msg", "fields"), PREFILL)
def test_prefill_lines(msg: str, fields: dict) -> None:
    assert one(P + msg) == ev("prefill", TS, TP0, **fields)


STARTUP = [
    ("Load weight begin. avail mem=46.85 GB", ev("weight_load_begin", TS, TP0, avail_mem_gb=46.85)),
    # 0.2.15 / 0.3.6.post3: no mem usage, no final dot
    ("Load weight end. type=LlamaForCausalLM, dtype=torch.float16, avail mem=62.45 GB",
     ev("weight_load_end", TS, TP0, model_type="LlamaForCausalLM", dtype="torch.float16", avail_mem_gb=62.45)),
    # 0.4.6.post5 / 0.5.2
    ("Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, avail mem=13.97 GB, mem usage=79.54 GB.",
     ev("weight_load_end", TS, TP0, model_type="DeepseekV3ForCausalLM", dtype="torch.bfloat16", avail_mem_gb=13.97,
        mem_usage_gb=79.54)),
    # early 2026: elapsed and dtype
    ("Load weight end. elapsed=31.07 s, type=Qwen3NextForCausalLM, dtype=torch.bfloat16, avail mem=20.11 GB, "
     "mem usage=38.20 GB.",
     ev("weight_load_end", TS, TP0, model_type="Qwen3NextForCausalLM", dtype="torch.bfloat16", elapsed_s=31.07,
        avail_mem_gb=20.11, mem_usage_gb=38.2)),
    # 0.5.12.post1 / 0.5.23: dtype gone (the mission's MTP head load)
    ("Load weight end. elapsed=0.19 s, type=Qwen3_5ForCausalLMMTP, avail mem=3.37 GB, mem usage=2.82 GB.",
     ev("weight_load_end", TS, TP0, model_type="Qwen3_5ForCausalLMMTP", elapsed_s=0.19, avail_mem_gb=3.37,
        mem_usage_gb=2.82)),
    # 0.5.23 with a quantisation string
    ("Load weight end. elapsed=12.50 s, type=Qwen3MoeForCausalLM, quant=fp8, fmt=e4m3, avail mem=30.00 GB, "
     "mem usage=15.25 GB.",
     ev("weight_load_end", TS, TP0, model_type="Qwen3MoeForCausalLM", elapsed_s=12.5, avail_mem_gb=30.0,
        mem_usage_gb=15.25)),
    # deferred startup weight load
    ("Load weight end. Committed real weights after CUDA graph capture in 4.20 s (capture overlap window 3.10 s, "
     "startup overlap total 7.30 s)",
     ev("weight_load_end", TS, TP0, elapsed_s=4.2)),
    ("KV Cache is allocated. dtype: torch.bfloat16, #tokens: 327310, K size: 2.50 GB, V size: 2.50 GB",
     ev("kv_cache", TS, TP0, dtype="torch.bfloat16", tokens=327310, k_size_gb=2.5, v_size_gb=2.5)),
    ("KV Cache is allocated. #tokens: 327310, K size: 2.50 GB, V size: 2.50 GB",  # 0.4.6–0.5.12: no dtype
     ev("kv_cache", TS, TP0, tokens=327310, k_size_gb=2.5, v_size_gb=2.5)),
    ("KV Cache is allocated. #tokens: 69931, KV size: 4.58 GB",  # MLA single buffer
     ev("kv_cache", TS, TP0, tokens=69931, kv_size_gb=4.58)),
    ("KV Cache is allocated. dtype: torch.float8_e4m3fn, #tokens: 69931, KV size: 2.29 GB",
     ev("kv_cache", TS, TP0, dtype="torch.float8_e4m3fn", tokens=69931, kv_size_gb=2.29)),
    ("Draft KV Cache is allocated. dtype: torch.bfloat16, #tokens: 1000, K size: 0.10 GB, V size: 0.10 GB",
     ev("kv_cache", TS, TP0, dtype="torch.bfloat16", tokens=1000, k_size_gb=0.1, v_size_gb=0.1)),
    ("Post-capture KV sizing: KV cache allocated. dtype: torch.bfloat16, #tokens: 500000, KV size: 7.63 GB, "
     "avail mem=2.10 GB",
     ev("kv_cache", TS, TP0, dtype="torch.bfloat16", tokens=500000, kv_size_gb=7.63)),
    ("Post-capture KV sizing: draft KV cache allocated. dtype: torch.bfloat16, #tokens: 500000, KV size: 0.48 GB",
     ev("kv_cache", TS, TP0, dtype="torch.bfloat16", tokens=500000, kv_size_gb=0.48)),
    ("Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.28GB, ssm_state size: 6.33GB ",
     ev("mamba_cache", TS, TP0, max_size=48, conv_state_gb=0.28, ssm_state_gb=6.33)),
    ("Mamba Cache is allocated. conv_state size: 0.14GB, ssm_state size: 3.10GB ",  # 0.5.2
     ev("mamba_cache", TS, TP0, conv_state_gb=0.14, ssm_state_gb=3.1)),
    ("Mamba Cache is allocated. max_mamba_cache_size: 16, conv_state size: 0.10GB, ssm_state size: 2.00GB "
     "intermediate_ssm_state_cache size: 1.50GB intermediate_conv_window_cache size: 0.05GB ",
     ev("mamba_cache", TS, TP0, max_size=16, conv_state_gb=0.1, ssm_state_gb=2.0)),
    ("Memory pool end. avail mem=4.12 GB", ev("memory_pool_end", TS, TP0, avail_mem_gb=4.12)),
    ("max_total_num_tokens=8192, max_prefill_tokens=16384, max_running_requests=2049, context_len=8192",  # 0.2.15
     ev("capacity", TS, TP0, max_total_num_tokens=8192, max_prefill_tokens=16384, max_running_requests=2049,
        context_len=8192)),
    ("max_total_num_tokens=600000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=4096, "
     "context_len=131072",  # 0.4.6.post5
     ev("capacity", TS, TP0, max_total_num_tokens=600000, chunked_prefill_size=8192, max_prefill_tokens=16384,
        max_running_requests=4096, context_len=131072)),
    ("max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=16, "
     "context_len=131072, available_gpu_mem=3.43 GB",
     ev("capacity", TS, TP0, max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384,
        max_running_requests=16, context_len=131072, available_gpu_mem_gb=3.43)),
    ("max_total_num_tokens=20000, chunked_prefill_size=-1, max_prefill_tokens=16384, max_running_requests=8, "
     "context_len=4096, available_cpu_mem=100.00 GB",
     ev("capacity", TS, TP0, max_total_num_tokens=20000, chunked_prefill_size=-1, max_prefill_tokens=16384,
        max_running_requests=8, context_len=4096, available_gpu_mem_gb=100.0)),
]


@pytest.mark.parametrize(("msg", "expected"), STARTUP, ids=[row[0][:40] for row in STARTUP])
def test_weight_pool_and_capacity_lines(msg: str, expected: dict) -> None:
    assert one(P + msg) == expected


GRAPHS = [
    ("Capture cuda graph begin. This can take up to several minutes.", ev("graph_capture_begin", TS, TP0)),
    ("Capture cuda graph begin. This can take up to several minutes. avail mem=20.50 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=20.5)),
    ("Capture draft cuda graph begin. This can take up to several minutes. avail mem=18.00 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=18.0)),
    ("Capture cpu graph begin. This can take up to several minutes. avail mem=90.00 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=90.0)),
    ("Capture npu graph begin. This can take up to several minutes. avail mem=30.00 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=30.0)),
    ("Capture target decode CUDA graph begin. backend=full, num_tokens_per_req=1, avail mem=4.04 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=4.04)),
    ("Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, avail mem=4.04 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=4.04)),
    ("Capture draft decode CUDA graph begin. backend=triton, num_tokens_per_req=1, bs=[1, 2, 4], avail mem=3.50 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=3.5)),
    ("Capture target extend CUDA graph begin. backend=fa3, num_tokens=8192, avail mem=5.00 GB",
     ev("graph_capture_begin", TS, TP0, avail_mem_gb=5.0)),
    ("Capture cuda graph end. Time elapsed: 12.34 s. mem usage=0.56 GB. avail mem=19.94 GB.",
     ev("graph_capture_end", TS, TP0, elapsed_s=12.34, mem_usage_gb=0.56, avail_mem_gb=19.94)),
    ("Capture target decode CUDA graph end. bs=[1, 2, 4, 8], elapsed=21.36 s, mem usage=0.61 GB, "
     "avail mem=3.43 GB.",
     ev("graph_capture_end", TS, TP0, elapsed_s=21.36, mem_usage_gb=0.61, avail_mem_gb=3.43)),
    ("Capture draft extend CUDA graph end. elapsed=3.00 s, mem usage=0.10 GB, avail mem=3.33 GB.",
     ev("graph_capture_end", TS, TP0, elapsed_s=3.0, mem_usage_gb=0.1, avail_mem_gb=3.33)),
]


@pytest.mark.parametrize(("msg", "expected"), GRAPHS, ids=[row[0][:40] for row in GRAPHS])
def test_graph_capture_lines(msg: str, expected: dict) -> None:
    assert one(P + msg) == expected


BARS = [
    ("Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:03,  1.07s/it]",
     ev("shard_progress", desc="Loading safetensors checkpoint shards", done=1, total=4, percent=25)),
    ("Multi-thread loading shards: 100% Completed | 163/163 [01:22<00:00,  1.98it/s]",
     ev("shard_progress", desc="Multi-thread loading shards", done=163, total=163, percent=100)),
    ("Loading pt checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]",
     ev("shard_progress", desc="Loading pt checkpoint shards", done=0, total=2, percent=0)),
    ("Multi-thread loading pt checkpoint shards:  50% Completed | 1/2 [00:03<00:03,  3.00s/it]",
     ev("shard_progress", desc="Multi-thread loading pt checkpoint shards", done=1, total=2, percent=50)),
    ("Loading np_cache checkpoint shards:  33% Completed | 1/3 [00:01<00:02,  1.00s/it]",
     ev("shard_progress", desc="Loading np_cache checkpoint shards", done=1, total=3, percent=33)),
    ("Loading safetensors using InstantTensor:  60% Completed | 3/5 [00:02<00:01,  1.50it/s]",
     ev("shard_progress", desc="Loading safetensors using InstantTensor", done=3, total=5, percent=60)),
    ("Loading safetensors using Fastsafetensor loader:  25%|██▌       | 1/4 [00:01<00:03,  1.07s/it]",
     ev("shard_progress", desc="Loading safetensors using Fastsafetensor loader", done=1, total=4, percent=25)),
    ("Capturing batches (bs=24 avail_mem=4.00 GB):  14%|█▍        | 1/7 [00:02<00:17,  2.96s/it]",
     ev("graph_capture_progress", bs=24, avail_mem_gb=4.0, done=1, total=7)),
    # 0.4.6: no bs in the description
    ("Capturing batches (avail_mem=20.10 GB): 100%|██████████| 23/23 [00:09<00:00,  2.41it/s]",
     ev("graph_capture_progress", avail_mem_gb=20.1, done=23, total=23)),
]


@pytest.mark.parametrize(("line", "expected"), BARS, ids=[row[0][:40] for row in BARS])
def test_tqdm_bars_without_prefix(line: str, expected: dict) -> None:
    assert one(line) == expected


def test_tqdm_updates_split_by_carriage_return() -> None:
    text = ("\rMulti-thread loading shards:   0% Completed | 0/4 [00:00<?, ?it/s]"
            "\rMulti-thread loading shards:  50% Completed | 2/4 [00:02<00:02,  1.00s/it]"
            "\rMulti-thread loading shards: 100% Completed | 4/4 [00:04<00:00,  1.00s/it]\n"
            f"{P}Load weight end. elapsed=4.10 s, type=X, avail mem=1.00 GB, mem usage=2.00 GB.\r\n")
    events = [event.to_dict() for event in parse_text(text)]
    bar = "Multi-thread loading shards"
    assert events == [
        ev("shard_progress", line=2, desc=bar, done=0, total=4, percent=0),
        ev("shard_progress", line=3, desc=bar, done=2, total=4, percent=50),
        ev("shard_progress", line=4, desc=bar, done=4, total=4, percent=100),
        ev("weight_load_end", TS, TP0, line=5, model_type="X", elapsed_s=4.1, avail_mem_gb=1.0, mem_usage_gb=2.0),
    ]


def test_ready_line() -> None:
    assert one("[2026-05-11 23:49:37] The server is fired up and ready to roll!") == \
        ev("server_ready", "2026-05-11 23:49:37")


ACCESS = [
    ('[2026-04-05 20:02:51] INFO:     127.0.0.1:40052 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
     ev("http_access", "2026-04-05 20:02:51", client="127.0.0.1:40052", method="POST", path="/v1/chat/completions",
        status=200)),
    ('INFO:     127.0.0.1:49272 - "POST /v1/audio/speech HTTP/1.1" 200 OK',  # stock uvicorn config, no timestamp
     ev("http_access", client="127.0.0.1:49272", method="POST", path="/v1/audio/speech", status=200)),
    ('[2026-04-05 20:02:51] \x1b[32mINFO\x1b[0m:     10.0.0.7:5123 - "GET /health HTTP/1.1" 503 Service Unavailable',
     ev("http_access", "2026-04-05 20:02:51", client="10.0.0.7:5123", method="GET", path="/health", status=503)),
    ('[2026-04-05 20:02:51] INFO:     [::1]:40000 - "GET /v1/models?x=1 HTTP/1.1" 404 Not Found',
     ev("http_access", "2026-04-05 20:02:51", client="[::1]:40000", method="GET", path="/v1/models?x=1",
        status=404)),
]


@pytest.mark.parametrize(("line", "expected"), ACCESS, ids=[row[0][:50] for row in ACCESS])
def test_uvicorn_access_lines(line: str, expected: dict) -> None:
    assert one(line) == expected


ERRORS = [
    "Scheduler hit an exception: Traceback (most recent call last):",
    "Received sigquit from a child proces. It usually means the child failed.",
    "Received sigquit from a child process. It usually means the child failed.",
    "SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
    "Initialization failed. Please see the error messages above.",
    "Initialization failed. warmup error: Traceback (most recent call last):",
    "Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.2",
    "Not enough memory. Please try to increase --mem-fraction-static. "
    "Current value: self.server_args.mem_fraction_static=0.2",
    "Prefill out of memory. Try to lower your batch size.",
    "Decode out of memory. Try to lower your batch size.",
    "DataParallelController hit an exception: Traceback (most recent call last):",
    "DetokenizerManager hit an exception: Traceback (most recent call last):",
    "TokenizerManager hit an exception: Traceback (most recent call last):",
    "MultiTokenizerRouter hit an exception: Traceback (most recent call last):",
    "TpModelWorkerClient hit an exception: Traceback (most recent call last):",
    "Exception in ModelTpServer:",
    "Exception in ModelRpcClient:",
    "Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. "
    "tic start time: 10.00. last_heartbeat time: 5.00",
]


@pytest.mark.parametrize("msg", ERRORS)
def test_error_lines(msg: str) -> None:
    """A header alone at the end of the input is a traceback cut off before it began."""
    truncated = msg.endswith("Traceback (most recent call last):")
    assert one(P + msg) == ev("error", TS, TP0, message=msg, truncated=truncated)


def test_argparse_error_without_prefix() -> None:
    line = "sglang serve: error: unrecognized arguments: --mamba-scheduler-strategy extra_buffer"
    assert one(line) == ev("error", message=line)


WARNINGS = [
    "KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 2048",
    "KV cache pool is full. Retract requests. #retracted_reqs: 2, #new_tokens_gained: 4096, #mamba_num_gained: 2, "
    "#new_token_ratio: 0.4000 -> 0.6000",
    "Decode out of memory happened. #retracted_reqs: 1, #new_token_ratio: 0.8024 -> 0.9085",
    "max_total_tokens=131072 is larger than the profiled value -561981. Use the profiled value instead.",
]


@pytest.mark.parametrize("msg", WARNINGS)
def test_warning_lines(msg: str) -> None:
    assert one(P + msg) == ev("warning", TS, TP0, message=msg)


NOTHING = [
    f"{P}Init torch distributed begin.",
    f"{P}Init torch distributed ends. elapsed=1.20 s, mem usage=0.52 GB",
    f"{P}Memory baseline taken. mem usage=0.52 GB",
    f"{P}Capture cuda graph bs [1, 2, 4, 8, 16]",
    f"{P}KV Cache skipped (no-op pool). Logical #tokens: 10, physical K/V size: ~4.0 KB placeholder",
    f"{P}KV Cache VA upper bound. dtype: torch.bfloat16, #tokens: 1000, KV size: 0.10 GB",
    f"{P}Using KV cache dtype: torch.bfloat16",
    f"{P}Use sliding window memory pool. full_layer_tokens=1000, swa_layer_tokens=500",
    f"{P}Decode batch size is 16",
    "[2025-11-30 11:18:05] INFO:     Started server process [177326]",
    "[2025-11-30 11:18:05] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)",
    "INFO:     Waiting for application startup.",
    "",
    "   ",
    "[not a prefix] Decode batch, #running-req: 1",
    "random words with Decode batch, #running-req: 1 inside",
]


@pytest.mark.parametrize("line", NOTHING)
def test_lines_that_match_no_kind(line: str) -> None:
    assert parse_text(line + "\n") == []


def test_fields_are_read_by_key_not_position() -> None:
    shuffled = (f"{P}Decode batch, #queue-req: 7, gen throughput (token/s): 50.00, a new field: 3, cuda graph: False, "
                "accept rate: 0.70, accept len: 3.10, #token: 99, #running-req: 5, token usage: 0.50")
    assert one(shuffled) == ev("decode", TS, TP0, running_req=5, tokens=99, token_usage=0.5, accept_len=3.1,
                               accept_rate=0.7, graph=False, gen_throughput=50.0, queue_req=7)


def test_unreadable_values_become_null() -> None:
    line = f"{P}Decode batch, #running-req: many, #token: 1e3, token usage: nan, cuda graph: maybe, " \
           "gen throughput (token/s): inf, #queue-req: 0"
    assert one(line) == ev("decode", TS, TP0, queue_req=0)
