"""The log view's row arithmetic: wrapped rows agree with laying the lines out one by one."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mtptui.ui.log_rows import MAX_DISPLAY, WrapRows, display_text, matches, prefix_end, rows_of


def test_long_lines_are_shown_abbreviated_and_wrap_by_their_shown_length() -> None:
    long = "x" * (MAX_DISPLAY + 5)
    assert display_text(long).endswith(" … [+5 chars]") and display_text("short") == "short"
    assert rows_of("", 10) == 1 and rows_of("x" * 10, 10) == 1 and rows_of("x" * 11, 10) == 2
    assert rows_of(long, 100) == (len(display_text(long)) - 1) // 100 + 1


def test_prefix_and_matches() -> None:
    assert prefix_end("[2026-01-01 10:00:00 TP0] Decode batch") == len("[2026-01-01 10:00:00 TP0] ")
    assert prefix_end("Decode [x] batch") == 0 and prefix_end("[no end") == 0
    assert list(matches("aaaa", "aa")) == [(0, 2), (2, 4)] and list(matches("abc", "")) == []


@given(st.lists(st.text(max_size=40), max_size=12), st.integers(1, 15), st.lists(st.text(max_size=40), max_size=3))
def test_locate_agrees_with_laying_out_every_row(texts: list[str], width: int, more: list[str]) -> None:
    rows = WrapRows(texts, width)
    for text in more:
        rows.append(text)
    laid_out = [(index, sub) for index, text in enumerate(texts + more) for sub in range(rows_of(text, width))]
    assert rows.total == len(laid_out)
    assert [rows.locate(row) for row in range(rows.total + 2)] == laid_out + [None, None]
    assert [rows.starts[index] for index, sub in laid_out if sub == 0] == rows.starts[:-1]
