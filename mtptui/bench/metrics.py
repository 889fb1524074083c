"""Per-request and per-run metrics, with the definitions of `../shared/reference/serving-benchmarks.md` §4.2-4.3.

Per request (times from the moment just before the POST):
- TTFT: first chunk with non-empty reasoning or content; TTFC: first chunk with non-empty content.
- E2E: the `[DONE]` line. N: the server's last `usage.completion_tokens` (else the chunks counted).
- TPOT = (E2E - TTFT) / (N - 1); decode tok/s = its inverse. None when the stream cannot show it: one token, or
  the tokens after the first came faster than BURST_TPOT_S each. No server decodes one request at that pace: the
  completion had been made by the time its first chunk went out (vLLM's API server behind its engine on a busy
  CPU sends the rest within a fraction of a millisecond), so the stream holds no decode time to divide.
- ICL (inter-chunk latency): gaps between chunks that brought tokens after the first text chunk; a chunk
  whose usage did not move (Δ = 0, e.g. the content half of a step that also emitted reasoning) is merged
  with the previous one.
- ITL (token-correct under MTP): each such gap split evenly over the Δ tokens its chunk brought.
- Accept length: completion tokens / `spec_verify_ct` from `sglext.spec_tokens_details`.

Without per-chunk usage (a server that ignores `continuous_usage_stats`) each chunk counts as one token: the
totals still come from the final usage when there is one, but ITL is then per chunk (`itl_per_chunk`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mtptui.bench.chunks import StreamRecord
from mtptui.bench.tokens import TokenCounter

BURST_TPOT_S = 0.2e-3  # 5,000 tok/s for a single request: beyond any server's decode, a burst of what was made


@dataclass
class RequestMetrics:
    """What one request measured; times in seconds. Failed requests keep what was seen before the failure."""

    ok: bool
    error: str | None = None
    ttft: float | None = None
    ttfc: float | None = None
    e2e: float | None = None
    output_tokens: int = 0
    reasoning_tokens: int = 0
    tpot: float | None = None
    itl: list[float] = field(default_factory=list, repr=False)
    icl: list[float] = field(default_factory=list, repr=False)
    accept_len: float | None = None
    verify_ct: float | None = None
    usage_approximate: bool = False
    itl_per_chunk: bool = False
    rid: str | None = None
    events: int = 0

    @property
    def content_tokens(self) -> int:
        return self.output_tokens - self.reasoning_tokens

    @property
    def decode_tok_s(self) -> float | None:
        """Per-request decode speed (N - 1) / (E2E - TTFT), i.e. 1 / TPOT."""
        return 1.0 / self.tpot if self.tpot else None


def _gaps(record: StreamRecord) -> tuple[list[float], list[float], TokenCounter, float | None, float | None]:
    """ITL and ICL lists, the token counter after every chunk, and the TTFT and TTFC instants."""
    counter, itl, icl = TokenCounter(), [], []
    first: float | None = None
    first_content: float | None = None
    last: float | None = None  # the last chunk that brought tokens; set together with `first`
    for chunk in record.chunks:
        delta = counter.step(chunk)
        if last is None and chunk.has_text:
            first = last = chunk.t
        elif last is not None and delta.total > 0:
            gap = chunk.t - last
            icl.append(gap)
            itl.extend([gap / delta.total] * delta.total)
            last = chunk.t
        if first_content is None and chunk.content:
            first_content = chunk.t
    return itl, icl, counter, first, first_content


def _final_tokens(record: StreamRecord, counter: TokenCounter) -> tuple[int, int, bool]:
    """(completion, reasoning, approximate): the final usage when the server sent one, else the counter's."""
    usage = record.usage or {}
    completion = usage.get("completion_tokens")
    if isinstance(completion, int) and completion >= counter.completion:
        reasoning = usage.get("reasoning_tokens")
        reasoning = reasoning if isinstance(reasoning, int) else counter.reasoning
        return completion, min(reasoning, completion), False
    return counter.completion, counter.reasoning, counter.approximate


def _accept(record: StreamRecord, tokens: int) -> tuple[float | None, float | None]:
    """(accept length, verify steps) from `sglext.spec_tokens_details`, or (None, None)."""
    spec = record.spec or {}
    verify = spec.get("spec_verify_ct")
    if isinstance(verify, (int, float)) and verify > 0 and tokens > 0:
        return tokens / verify, float(verify)
    length = spec.get("spec_accept_length")
    if isinstance(length, (int, float)) and length > 0:
        return float(length), (tokens / length if tokens else None)
    return None, None


def request_metrics(record: StreamRecord) -> RequestMetrics:
    """Measure one request from its recorded timeline."""
    itl, icl, counter, first, first_content = _gaps(record)
    tokens, reasoning, approximate = _final_tokens(record, counter)
    accept_len, verify_ct = _accept(record, tokens)
    m = RequestMetrics(ok=record.ok, error=record.error, output_tokens=tokens, reasoning_tokens=reasoning,
                       itl=itl, icl=icl, accept_len=accept_len, verify_ct=verify_ct, usage_approximate=approximate,
                       itl_per_chunk=counter.approximate, rid=record.rid, events=record.events)
    if first is not None:
        m.ttft = first - record.start
    if first_content is not None:
        m.ttfc = first_content - record.start
    if record.end is not None:
        m.e2e = record.end - record.start
    if m.ttft is not None and m.e2e is not None and tokens > 1 and m.e2e > m.ttft:
        tpot = (m.e2e - m.ttft) / (tokens - 1)
        m.tpot = tpot if tpot >= BURST_TPOT_S else None
    return m
