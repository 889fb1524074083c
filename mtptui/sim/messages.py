"""The text of SGLang's startup and batch log messages, per version (sglang-log-formats.md §2-§8).

Only two formats are written: the mission's 0.5.12.post1 (default) and 0.5.23.
"""

from __future__ import annotations

from mtptui.engines.sglang.surface import SUPPORTED
from mtptui.sim.memory import MambaPool

VERSIONS = SUPPORTED
READY = "The server is fired up and ready to roll!"
SIGQUIT = "Received sigquit from a child process. It usually means the child failed."


def new_format(version: str) -> bool:
    return version == "0.5.23"


def dist_init_begin(version: str) -> str | None:
    return None if new_format(version) else "Init torch distributed begin."


def dist_init_end(version: str, elapsed: float, usage: float) -> str:
    if new_format(version):
        return f"Memory baseline taken. mem usage={usage:.2f} GB"
    return f"Init torch distributed ends. elapsed={elapsed:.2f} s, mem usage={usage:.2f} GB"


def weight_begin(avail: float) -> str:
    return f"Load weight begin. avail mem={avail:.2f} GB"


def weight_end(elapsed: float, model_type: str, avail: float, usage: float) -> str:
    return (f"Load weight end. elapsed={elapsed:.2f} s, type={model_type}, "
            f"avail mem={avail:.2f} GB, mem usage={usage:.2f} GB.")


def kv_cache(version: str, dtype: str, tokens: int, k_gb: float) -> str:
    dtype_part = f"dtype: {dtype}, " if new_format(version) else ""
    return f"KV Cache is allocated. {dtype_part}#tokens: {tokens}, K size: {k_gb:.2f} GB, V size: {k_gb:.2f} GB"


def mamba_cache(pool: MambaPool, speculative: bool) -> str:
    text = (f"Mamba Cache is allocated. max_mamba_cache_size: {pool.size}, "
            f"conv_state size: {pool.conv_gb:.2f}GB, ssm_state size: {pool.ssm_gb:.2f}GB ")
    if speculative:
        text += (f"intermediate_ssm_state_cache size: {pool.inter_ssm_gb:.2f}GB "
                 f"intermediate_conv_window_cache size: {pool.inter_conv_gb:.2f}GB ")
    return text


def pool_end(avail: float) -> str:
    return f"Memory pool end. avail mem={avail:.2f} GB"


def capture_begin(version: str, role: str, avail: float, tokens_per_req: int, bs: list[int]) -> str:
    """``role``: "target decode", "target verify", "draft decode" or "draft extend"."""
    if new_format(version):
        bs_part = f"bs={bs}, " if role.startswith("draft") else ""
        return (f"Capture {role} CUDA graph begin. backend=full, num_tokens_per_req={tokens_per_req}, "
                f"{bs_part}avail mem={avail:.2f} GB")
    name = {"draft decode": "draft cuda graph", "draft extend": "draft extend cuda graph"}.get(role, "cuda graph")
    return f"Capture {name} begin. This can take up to several minutes. avail mem={avail:.2f} GB"


def capture_end(version: str, role: str, elapsed: float, usage: float, avail: float, bs: list[int]) -> str:
    if new_format(version):
        bs_part = "" if role.startswith("draft") else f"bs={bs}, "
        return (f"Capture {role} CUDA graph end. {bs_part}elapsed={elapsed:.2f} s, "
                f"mem usage={usage:.2f} GB, avail mem={avail:.2f} GB.")
    name = {"draft decode": "draft cuda graph", "draft extend": "draft extend cuda graph"}.get(role, "cuda graph")
    return f"Capture {name} end. Time elapsed: {elapsed:.2f} s. mem usage={usage:.2f} GB. avail mem={avail:.2f} GB."


def capture_desc(bs: int, avail: float) -> str:
    return f"Capturing batches (bs={bs} avail_mem={avail:.2f} GB)"


def capacity(tokens: int, chunked: int, max_prefill: int, max_running: int, context_len: int, avail: float) -> str:
    return (f"max_total_num_tokens={tokens}, chunked_prefill_size={chunked}, max_prefill_tokens={max_prefill}, "
            f"max_running_requests={max_running}, context_len={context_len}, available_gpu_mem={avail:.2f} GB")


def usage_parts(hybrid: bool, used: int, usage: float, mamba_used: int, mamba_usage: float,
                decode: bool) -> list[str]:
    """``token_usage_msg`` parts of the decode (``decode``) or prefill line for a plain or mamba pool."""
    if not hybrid:
        return [f"#token: {used}", f"token usage: {usage:.2f}"] if decode else [f"token usage: {usage:.2f}"]
    if decode:
        return [f"#full token: {used}", f"full token usage: {usage:.2f}",
                f"mamba num: {mamba_used}", f"mamba usage: {mamba_usage:.2f}"]
    return [f"full token usage: {usage:.2f}", f"mamba usage: {mamba_usage:.2f}"]


def decode_batch(running: int, usage: list[str], spec: tuple[float, float] | None, graph: bool,
                 throughput: float, queued: int) -> str:
    msg = f"Decode batch, #running-req: {running}, " + ", ".join(usage) + ", "
    if spec is not None:
        msg += f"accept len: {spec[0]:.2f}, accept rate: {spec[1]:.2f}, "
    return msg + f"cuda graph: {graph}, gen throughput (token/s): {throughput:.2f}, #queue-req: {queued}"


def prefill_batch(new_seq: int, new_tokens: int, cached: int, usage: list[str], running: int, queued: int,
                  pending: int, graph: bool, throughput: float) -> str:
    return (f"Prefill batch, #new-seq: {new_seq}, #new-token: {new_tokens}, #cached-token: {cached}, "
            + ", ".join(usage) + ", "
            f"#running-req: {running}, #queue-req: {queued}, #pending-token: {pending}, "
            f"cuda graph: {graph}, input throughput (token/s): {throughput:.2f}")
