"""Values several of SGLang's checks read after it resolved them: DP-attention width, backend, page, chunk.

Defaults that SGLang derives from the GPU are the ones it picks on the mission's GPUs (compute capability 8.6,
48 GB): the flashinfer attention backend and a 4096-token prefill chunk. A host with other GPUs may differ;
CONTRIBUTING.md lists what cannot be known offline.
"""

from __future__ import annotations

from mtptui.engines.sglang.flags.flagset import FlagSet

DEFAULT_BACKEND = "flashinfer"
DEFAULT_CHUNK = 4096
ATTN_DP = "--attn-dp-size"


def attention_dp(fs: FlagSet) -> int:
    """The DP-attention width: 0.5.23's --attn-dp-size (the deprecated --enable-dp-attention moves --dp-size
    there); before, --dp-size with --enable-dp-attention. 1 when DP attention is off."""
    dp = int(fs.get("--dp-size", 1) or 1)
    if ATTN_DP in fs.table:
        width = int(fs.get(ATTN_DP, 1) or 1)
        return dp if fs.get("--enable-dp-attention") and width == 1 else width
    return dp if fs.get("--enable-dp-attention") and dp > 1 else 1


def attention_backend(fs: FlagSet) -> str:
    return str(fs.get("--attention-backend") or DEFAULT_BACKEND)


def page_size(fs: FlagSet) -> int:
    return int(fs.get("--page-size") or 1)


def chunked_prefill(fs: FlagSet) -> int:
    """The prefill chunk check_server_args sees: as set, or the default, divided by the DP-attention width."""
    chunk = fs.get("--chunked-prefill-size")
    chunk = DEFAULT_CHUNK if chunk is None else int(chunk)
    width = attention_dp(fs)
    return chunk // width if width > 1 else chunk
