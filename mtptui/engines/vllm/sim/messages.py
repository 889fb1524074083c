"""The text of vLLM 0.32.0's startup lines, each with the source it is logged from (`file.py:N`, as printed).

Format strings are vLLM's (vllm/entrypoints, vllm/v1/engine/core.py, vllm/v1/worker/gpu_*.py,
vllm/v1/core/kv_cache_utils.py, vllm/config/model.py); line numbers are those of the 0.32.0 wheel.
"""

from __future__ import annotations

from typing import Any

VERSION = "0.32.0"
API, CORE = "APIServer", "EngineCore"
SOURCES = {
    "banner": "api_utils.py:347", "args": "api_utils.py:286", "arch": "model.py:733", "max_len": "model.py:2152",
    "deprecated": "speculative.py:1142", "engine": "core.py:133", "rank": "parallel_state.py:2350",
    "load": "gpu_model_runner.py:5039", "backend": "cuda.py:506", "weights": "default_loader.py:501",
    "drafter": "gpu_model_runner.py:5071", "loaded": "gpu_model_runner.py:5149", "kv_memory": "gpu_worker.py:759",
    "kv_size": "kv_cache_utils.py:2327", "graphs": "gpu_model_runner.py:6581", "init": "core.py:402",
    "tasks": "entry.py:136", "scale_out": "factories.py:89", "template": "hf.py:648", "listen": "entry.py:140",
    "routes": "launcher.py:186", "route": "launcher.py:195", "failed": "core.py:1510",
    "core_died": "core_client.py:600", "stats": "loggers.py:335", "spec": "metrics.py:120",
    "fatal": "core.py:1512", "output_handler": "async_llm.py:906",
}
LOGO = ("\n       {w}█     █     █▄   ▄█{r}\n"
        " {o}▄▄{r} {b}▄█{r} {w}█     █     █ ▀▄▀ █{r}  version {w}%s{r}\n"
        "  {o}█{r}{b}▄█▀{r} {w}█     █     █     █{r}  model   {w}%s{r}\n"
        "   {b}▀▀{r}  {w}▀▀▀▀▀ ▀▀▀▀▀ ▀     ▀{r}\n")
LOGO_COLOURS = {"w": "\033[1m", "o": "\033[93m", "b": "\033[94m", "r": "\033[0m"}
BACKENDS = "['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']"
SCALE_OUT = "Scale-out endpoints are disabled. Restart vllm serve with --enable-scale-out to enable them."
TEMPLATE = ("Detected the chat template content format to be 'string'. You can set `--chat-template-content-format` "
            "to override this.")


def worker(rank: int, tp: int) -> str:
    """A worker's process name: `Worker` alone, `Worker_TP0`... with tensor parallelism."""
    return "Worker" if tp == 1 else f"Worker_TP{rank}"


def banner(model: str, colour: bool, version: str = VERSION) -> str:
    if colour:
        return LOGO.format(**LOGO_COLOURS) % (version, model)
    return LOGO.format(**dict.fromkeys(LOGO_COLOURS, "")) % (version, model)


def gib(value: float) -> str:
    """vLLM's `format_gib`: GiB rounded to 2 decimals, as Python prints the float."""
    return f"{round(value, 2)}"


def rank_assigned(rank: int, world: int) -> str:
    return (f"rank {rank} in world size {world} is assigned as DP rank 0, PP rank 0, PCP rank 0, TP rank {rank}, "
            "ETP rank 0, EP rank N/A, EPLB rank N/A")


def spec_config(method: str | None, model: str | None, tokens: int) -> str:
    if method is None:
        return "None"
    return f"SpeculativeConfig(method='{method}', model={model!r}, num_spec_tokens={tokens})"


def engine_config(fields: dict[str, Any]) -> str:
    """`Initializing a V1 LLM engine (vX) with config: ...`: the main settings, in vLLM's order."""
    f = fields
    parts = [f"model='{f['model']}'", f"speculative_config={f['spec']}", f"tokenizer='{f['model']}'",
             "skip_tokenizer_init=False", "tokenizer_mode=auto", "revision=None", "tokenizer_revision=None",
             "trust_remote_code=False", f"dtype={f['dtype']}", f"max_seq_len={f['max_seq_len']}",
             "download_dir=None", "load_format=auto", f"tensor_parallel_size={f['tp']}",
             "pipeline_parallel_size=1", "data_parallel_size=1", "decode_context_parallel_size=1",
             "disable_custom_all_reduce=False", "quantization=None", "quantization_config=None",
             f"enforce_eager={f['enforce_eager']}", f"kv_cache_dtype={f['kv_cache_dtype']}", "device_config=cuda",
             f"seed={f['seed']}", f"served_model_name={f['served']}",
             f"enable_prefix_caching={f['prefix_caching']}", "enable_chunked_prefill=True", "pooler_config=None"]
    return f"Initializing a V1 LLM engine (v{VERSION}) with config: " + ", ".join(parts)


def kv_size(tokens: int, max_model_len: int, concurrency: float) -> str:
    return (f"GPU KV cache size: {tokens:,} tokens, Maximum concurrency for {max_model_len:,} tokens per request: "
            f"{concurrency:.2f}x")


def init_engine(elapsed: float, compile_s: float) -> str:
    text = f"init engine (profile, create kv cache, warmup model) took {elapsed:.2f} s"
    return text + (f" (compilation: {compile_s:.2f} s)" if compile_s > 0 else "")


def too_long(max_len: int, needed_gb: float, available_gb: float, estimate: int) -> str:
    estimated = f"Based on the available memory, the estimated maximum model length is {estimate}. " \
        if estimate > 0 else ""
    return (f"ValueError: To serve at least one request with the model's max seq len ({max_len}), "
            f"({gib(needed_gb)} GiB KV cache is needed, which is larger than the available KV cache memory "
            f"({gib(available_gb)} GiB). {estimated}Try increasing `gpu_memory_utilization` (which also controls CPU "
            "memory on the CPU backend) or decreasing `max_model_len` when initializing the engine. See "
            "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")


NO_MEMORY = ("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
             "initializing the engine (this flag also controls CPU memory reservation on the CPU backend, despite "
             "its name). See https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more details.")
WEIGHTS_OOM = ("Failed to load model - not enough GPU memory. Try lowering --gpu-memory-utilization to free memory "
               "for weights, increasing --tensor-parallel-size, or using --quantization. See "
               "https://docs.vllm.ai/en/latest/configuration/conserving_memory/ for more tips.")
