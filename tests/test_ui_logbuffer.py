"""The log view's bounded store: eviction keeps sequence numbers, filters and find agree with brute force."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.ui.logbuffer import ERROR, MAX_LINE_CHARS, LineFilter, LogBuffer, LogLine


def lines(*texts: str) -> list[LogLine]:
    return [LogLine(t) for t in texts]


def visible(buffer: LogBuffer) -> list[str]:
    return [buffer.text(buffer.seq_at(i)) for i in range(len(buffer))]


def test_eviction_keeps_absolute_sequence_numbers() -> None:
    buffer = LogBuffer(maxlen=3)
    assert buffer.append(lines("a", "b")) == (2, 0)
    assert buffer.append(lines("c", "d", "e")) == (3, 2)
    assert (buffer.first, buffer.total, visible(buffer)) == (2, 5, ["c", "d", "e"])
    assert buffer.text(4) == "e" and buffer.index_of(3) == 1 and buffer.index_of(0) == 0


def test_filter_and_inverted_filter() -> None:
    buffer = LogBuffer()
    buffer.append(lines("Decode batch 1", "INFO access", "decode batch 2", "Load weight end"))
    buffer.set_filter(LineFilter.parse("DECODE"))
    assert visible(buffer) == ["Decode batch 1", "decode batch 2"]
    buffer.set_filter(LineFilter.parse("!decode"))
    assert visible(buffer) == ["INFO access", "Load weight end"]
    added, _ = buffer.append(lines("Decode batch 3", "Prefill batch"))
    assert added == 1 and visible(buffer)[-1] == "Prefill batch"
    buffer.set_filter(LineFilter.parse(""))
    assert buffer.filter is None and len(buffer) == 6


def test_progress_refreshes_replace_the_last_line() -> None:
    buffer = LogBuffer()
    buffer.append([LogLine("start"), LogLine("shards 1/15", progress="bar"), LogLine("shards 2/15", progress="bar")])
    buffer.append([LogLine("shards 15/15", progress="bar"), LogLine("Load weight end")])
    assert visible(buffer) == ["start", "shards 15/15", "Load weight end"]
    assert buffer.total == 3


def test_a_refreshed_line_leaves_or_joins_the_filtered_view() -> None:
    buffer = LogBuffer()
    buffer.set_filter(LineFilter.parse("15/15"))
    buffer.append([LogLine("shards 1/15", progress="bar")])
    assert len(buffer) == 0
    buffer.append([LogLine("shards 15/15", progress="bar")])
    assert visible(buffer) == ["shards 15/15"]


def test_very_long_lines_are_cut_when_stored() -> None:
    buffer = LogBuffer()
    buffer.append([LogLine("x" * (MAX_LINE_CHARS * 3), ERROR)])
    assert buffer.text(0) == "x" * MAX_LINE_CHARS + f" … [{MAX_LINE_CHARS * 2:,} more chars not kept]"
    assert buffer.level(0) == ERROR


def test_find_wraps_in_both_directions() -> None:
    buffer = LogBuffer()
    buffer.append(lines("accept len: 1.75", "other", "ACCEPT LEN: 1.80", "other"))
    assert buffer.find("accept len", 0, forward=True) == 2
    assert buffer.find("accept len", 2, forward=True) == 0
    assert buffer.find("accept len", 0, forward=False) == 2
    assert buffer.find("missing", 0) is None
    assert buffer.count_matches("accept len") == 2


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.sampled_from(["Decode a", "decode b", "INFO c", "warn d", ""]), max_size=60),
       maxlen=st.integers(1, 20), needle=st.sampled_from(["decode", "!decode", "in", "!", "x"]),
       split=st.integers(0, 60))
def test_filtered_view_equals_brute_force(texts: list[str], maxlen: int, needle: str, split: int) -> None:
    buffer = LogBuffer(maxlen)
    line_filter = LineFilter.parse(needle)
    buffer.append(lines(*texts[:split]))
    buffer.set_filter(line_filter)
    buffer.append(lines(*texts[split:]))
    kept = texts[-maxlen:]
    expected = [t for t in kept if line_filter is None or line_filter.matches(t)]
    assert visible(buffer) == expected
    assert buffer.total == len(texts)
