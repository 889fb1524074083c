"""Property tests: any text or bytes, any chunking — never an exception, never a lost line, same events."""

from __future__ import annotations

import io
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.engines.sglang.logparse import LogParser, parse_text
from mtptui.engines.sglang.logparse.splitter import MAX_LINE_CHARS, cut
from mtptui.engines.sglang.state import ServerState
from mtptui.engines.sglang.state.scan import summarize_stream
from mtptui.engines.sglang.state.summary import state_to_dict

SETTINGS = settings(max_examples=100, deadline=None)

num = st.integers(0, 99999).map(str)
flt = st.floats(0, 5000, allow_nan=False).map(lambda x: f"{x:.2f}")
rank = st.sampled_from(["", " TP0", " TP1", " DP0 TP0 EP0", " PP1 ATTN_CP1 TP3 EP3"])
stamp = st.sampled_from(["2026-05-11 23:49:07", "2026-05-11 23:49:08", "2026-05-11 23:49:08.120", "16:43:29"])
prefix = st.builds(lambda ts, r: f"[{ts}{r}] ", stamp, rank)
wrapper = st.sampled_from(["", "", "", "llm0-1  | ", "3|qwen  | ", "\x1b[32m"])

messages = st.one_of(
    st.builds("Decode batch, #running-req: {}, #full token: {}, full token usage: 0.49, mamba num: 12, "
              "mamba usage: 0.67, accept len: {}, accept rate: 0.69, cuda graph: True, gen throughput (token/s): {}, "
              "#queue-req: 0".format, st.sampled_from(["0", "1", "4", "x"]), num, flt, flt),
    st.builds("Decode batch. #running-req: {}, #token: {}, token usage: 0.00, gen throughput (token/s): {}, "
              "#queue-req: 0, ".format, num, num, st.sampled_from(["12.50", "nan", "inf", "7"])),
    st.builds("Prefill batch, #new-seq: 1, #new-token: {}, #cached-token: 0, token usage: 0.08, #running-req: 31, "
              "#queue-req: 0, cuda graph: True, input throughput (token/s): {}".format, num, flt),
    st.builds('INFO:     127.0.0.1:{} - "POST /v1/chat/completions HTTP/1.1" {} OK'.format, num,
              st.sampled_from(["200", "400", "503"])),
    st.builds("Load weight begin. avail mem={} GB".format, flt),
    st.builds("Load weight end. elapsed={} s, type=Qwen3_5ForCausalLM, avail mem={} GB, mem usage={} GB.".format,
              flt, flt, flt),
    st.builds("KV Cache is allocated. dtype: torch.bfloat16, #tokens: {}, K size: {} GB, V size: {} GB".format,
              num, flt, flt),
    st.just("Mamba Cache is allocated. max_mamba_cache_size: 48, conv_state size: 0.28GB, ssm_state size: 6.33GB "),
    st.builds("Memory pool end. avail mem={} GB".format, flt),
    st.just("Capture target verify CUDA graph begin. backend=full, num_tokens_per_req=4, avail mem=4.04 GB"),
    st.just("max_total_num_tokens=685000, chunked_prefill_size=8192, max_prefill_tokens=16384, "
            "max_running_requests=16, context_len=131072, available_gpu_mem=3.43 GB"),
    st.just("The server is fired up and ready to roll!"),
    st.just("Scheduler hit an exception: Traceback (most recent call last):"),
    st.just("KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 2048"),
    st.just("Health check failed. Server couldn't get a response from detokenizer for last 20 seconds."),
    st.text(max_size=40),
)
unprefixed = st.sampled_from([
    '  File "scheduler.py", line 1, in run', "RuntimeError: CUDA out of memory", "",
    "Multi-thread loading shards:  50% Completed | 2/4 [00:02<00:02,  1.00s/it]",
    "Capturing batches (bs=8 avail_mem=4.00 GB):  50%|█████     | 1/2 [00:01<00:01,  1.00s/it]",
    'INFO:     127.0.0.1:5 - "GET /health HTTP/1.1" 200 OK', "Traceback (most recent call last):",
])
log_line = st.one_of(st.builds(lambda w, p, m: w + p + m, wrapper, prefix, messages), unprefixed)
log_text = st.builds(lambda lines, ends: "".join(line + ends[i % len(ends)] for i, line in enumerate(lines)),
                     st.lists(log_line, max_size=40), st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1))
cuts = st.lists(st.integers(1, 64), min_size=1, max_size=20)


def chunked(data, sizes: list[int]):
    start, index = 0, 0
    while start < len(data):
        size = sizes[index % len(sizes)]
        yield data[start:start + size]
        start, index = start + size, index + 1


def feed_in_chunks(data, sizes: list[int]) -> tuple[list[str], list[dict]]:
    parser, raw, events = LogParser(), [], []
    for chunk in chunked(data, sizes):
        for text, found in parser.feed_lines(chunk):
            raw.append(text)
            events += [e.to_dict() for e in found]
    for text, found in parser.close_lines():
        raw.append(text)
        events += [e.to_dict() for e in found]
    return raw, events


def reference_lines(text: str) -> list[str]:
    parts = re.split(r"\r\n|\r|\n", text)
    return parts[:-1] + ([parts[-1]] if parts[-1] else [])


class Trickle(io.RawIOBase):
    """A stream whose reads return the given small chunk sizes (a pipe that delivers bits at a time)."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self.chunks = list(chunked(data, sizes))

    def read1(self, size: int = -1) -> bytes:
        return self.chunks.pop(0) if self.chunks else b""


@SETTINGS
@given(st.text(), cuts)
def test_arbitrary_text_any_chunking_same_events(text: str, sizes: list[int]) -> None:
    whole = [e.to_dict() for e in parse_text(text)]
    raw, events = feed_in_chunks(text, sizes)
    assert events == whole
    assert raw in (reference_lines(text), reference_lines(text) + [""])  # + the pair of a flushed error


@SETTINGS
@given(st.binary(max_size=2000), cuts)
def test_binary_garbage_never_raises_and_chunking_does_not_matter(data: bytes, sizes: list[int]) -> None:
    whole = [e.to_dict() for e in parse_text(data)]
    assert feed_in_chunks(data, sizes)[1] == whole


@SETTINGS
@given(log_text, cuts)
def test_log_text_any_chunking_same_events_and_every_line(text: str, sizes: list[int]) -> None:
    raw, events = feed_in_chunks(text.encode(), sizes)
    assert events == [e.to_dict() for e in parse_text(text)]
    assert raw in (reference_lines(text), reference_lines(text) + [""])
    assert len([e for e in events if e["kind"] == "decode"]) <= text.count("Decode batch")


@SETTINGS
@given(log_text, cuts)
def test_summary_fast_path_equals_event_reducer(text: str, sizes: list[int]) -> None:
    data = text.encode()
    state = ServerState(history=8)
    state.apply_all(parse_text(data))
    fast = summarize_stream(Trickle(data, sizes), ServerState(history=8))
    assert state_to_dict(fast) == state_to_dict(state)


def test_ten_megabyte_line_never_raises() -> None:
    huge = "Decode batch, #running-req: 1, " * 330_000  # ~10 MB on one line
    for data in (huge, "[2026-05-11 23:49:07 TP0] " + huge, "\x1b[1m" + huge):
        (event,) = parse_text(data)
        head = cut(data, MAX_LINE_CHARS).partition(" … [")[0]  # a value the head ends in may have gone on
        expected = None if head.endswith("#running-req: 1") else 1
        assert (event.kind, event.get("running_req"), event.get("gen_throughput")) == ("decode", expected, None)
    assert [e.line for e in parse_text(huge.replace(", D", "\rD", 2))] == [1, 2, 3]  # \r splits it in three
    state = summarize_stream(io.BytesIO(("[2026-05-11 23:49:07 TP0] " + huge).encode()), ServerState())
    assert state.decode_count == 1 and state.steady_gen_throughput is None


DECODE_BODY = ("Decode batch, #running-req: 3, #token: 5, token usage: 0.00, cuda graph: True, "
               "gen throughput (token/s): 50.00, #queue-req: 0")
EDGE_LINES = [
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace("#running-req: 3", "#running-req: 0"),
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace("#running-req: 3", "#running-req: 00"),
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace("#running-req: 3", "#running-req: " + "9" * 5000),
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace("50.00", "9" * 400 + ".0"),
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY + ", gen throughput (token/s): nan",
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace(", #queue-req: 0", ","),
    "[2026-05-11 23:49:07 TP0] " + DECODE_BODY.replace(", #queue-req: 0", ",, x"),
    "[2026-05-11 23:49:07 TP0] Decode batch [120], #running-req: 2, gen throughput (token/s): 3.00",
    "[2026-05-11 23:49:07.123 DP1 TP1 EP1] " + DECODE_BODY,
    "[2026-05-11 23:49:07,5 TP0] " + DECODE_BODY,
    "[16:43:29 TP0] " + DECODE_BODY,
    "[2026-05-11 23:49:0\u0667 TP0] " + DECODE_BODY,  # an Arabic-Indic digit: a prefix for `\\d`, not for ASCII
    "[2026-05-11 23:49:07 tp0] " + DECODE_BODY,
    "[2026-05-11 23:49:07 TP0]] " + DECODE_BODY,
    "[2026-05-11 23:49:07 TP0] [gpu_id=0] Load weight begin. avail mem=46.85 GB",
    "3|qwen  | [2026-05-11 23:49:07 TP0] " + DECODE_BODY,
    "llm0\u00e9-1  | [2026-05-11 23:49:07 TP0] " + DECODE_BODY,
    "llm0-1\u00a0 | [2026-05-11 23:49:07 TP0] " + DECODE_BODY,
    "a | b | [2026-05-11 23:49:07 TP0] " + DECODE_BODY,
    '[2026-05-11 23:49:08] INFO:     127.0.0.1:1 - "GET /health HTTP/1.1" 200 OK',
    '[2026-05-11 23:49:08] INFO:   127.0.0.1:1 - "GET /health HTTP/1.1" 200 OK',
    '[2026-05-11 23:49:08] INFO:     127.0.0.1:1 - "get /health HTTP/1.1" 200 OK',
    '[2026-05-11 23:49:08.5 TP3] INFO:     127.0.0.1:1 - "GET /x" 503 Service Unavailable',
    '[2026-05-11 23:49:08] INFO:      127.0.0.1:1 - "GET /a"b HTTP/1.1" 404 Not Found',
    '[2026-05-11 23:49:08] INFO:     127.0.0.1:1 - "GET /a HTTP/1.1" 2000 OK',
    "[2026-05-11 23:49:08 TP0] Prefill batch. #new-seq: 1, #new-token: 8, #cached-token: 0, token usage: 0.01",
    "[2026-05-11 23:49:08 TP0] Prefill batch [7], #new-seq: 1, #new-token: 8",
]


def test_summary_fast_path_equals_event_reducer_on_edge_lines() -> None:
    """Each line alone and all together, after a startup line so the phase logic runs too."""
    for lines in [[line] for line in EDGE_LINES] + [EDGE_LINES]:
        data = ("[2026-05-11 23:49:00 TP0] Load weight begin. avail mem=46.85 GB\n" + "\n".join(lines)).encode()
        state = ServerState(history=8)
        state.apply_all(parse_text(data))
        assert state_to_dict(summarize_stream(io.BytesIO(data), ServerState(history=8))) == state_to_dict(state), lines


# A decode line's numbers are `key: value` parts, the last of a key winning: these lines name a key twice, or
# end a longer key with the name of one. Each follows an ordinary decode line, so it counts in the steady mean.
REKEYED_DECODE_LINES = [
    DECODE_BODY.replace("token usage", "xgen throughput (token/s): 7.00, token usage"),
    DECODE_BODY + ", xgen throughput (token/s): 7.00",
    DECODE_BODY + ", #running-req: 0",
    DECODE_BODY.replace("#running-req: 3", "#running-req: 0") + ", #running-req: 2",
    DECODE_BODY.replace("#token: 5", "#running-req: 0") + ", gen throughput (token/s): 9.00",
    DECODE_BODY + ", gen throughput (token/s): 9.00",
    DECODE_BODY.replace("Decode batch, ", "Decode batch. ") + ", x#running-req: 0",
    DECODE_BODY.replace("Decode batch, ", "Decode batch. ") + ", xgen throughput (token/s): 7.00",
    DECODE_BODY.replace("Decode batch, ", "Decode batch. ") + ", #running-req: 0",
    DECODE_BODY.replace("Decode batch, ", "Decode batch.") + ", #running-req: 0",
]


def test_summary_fast_path_reads_decode_keys_as_the_full_parser() -> None:
    for line in REKEYED_DECODE_LINES:
        data = ("[2026-05-11 23:49:00 TP0] Load weight begin. avail mem=46.85 GB\n"
                f"[2026-05-11 23:49:06 TP0] {DECODE_BODY}\n[2026-05-11 23:49:07 TP0] {line}\n").encode()
        state = ServerState(history=8)
        state.apply_all(parse_text(data))
        assert state_to_dict(summarize_stream(io.BytesIO(data), ServerState(history=8))) == state_to_dict(state), line


WRAPPERS = ["", "llm0-1  | ", "llm0-1   | ", "llm0-1  |  ", "3|llm0-1  | ", "llm0-1  | llm0-1  | ", "llm0-1  | x",
            "llm0-1 | ", "a | b | ", "llm0-1\t| ", "llm0-1  |"]


def test_summary_fast_path_equals_event_reducer_behind_any_wrapper_after_another() -> None:
    """The first line's wrapper is tried literally on the lines after it: any other must read as before."""
    for first in WRAPPERS:
        lines = [f"{w}[2026-05-11 23:49:0{i % 10} TP0] {DECODE_BODY}" for i, w in enumerate([first, *WRAPPERS])]
        data = "\n".join(lines).encode()
        state = ServerState(history=8)
        state.apply_all(parse_text(data))
        assert state_to_dict(summarize_stream(io.BytesIO(data), ServerState(history=8))) == state_to_dict(state), first


def test_summary_fast_path_equals_event_reducer_on_recurring_messages_read_twice() -> None:
    """Recurring messages are classified once and remembered: each line still makes its own event."""
    lines = [f"[2026-05-11 23:49:0{n} TP0] {msg}" for n in range(3) for msg in (
        "KV cache pool is full. Retract requests. #retracted_reqs: 1, #new_tokens_gained: 10",
        "Cache flushed successfully!", "max_total_tokens=131072 is larger than the profiled value -561981.",
        "Load weight end. elapsed=28.41 s, type=Qwen3NextForCausalLM, avail mem=20.38 GB, mem usage=25.47 GB.")]
    data = "\n".join(lines).encode()
    state = ServerState(history=8)
    state.apply_all(parse_text(data))
    for _ in range(2):
        assert state_to_dict(summarize_stream(io.BytesIO(data), ServerState(history=8))) == state_to_dict(state)
