"""The live feed's per-second bins: every token booked once, in the bin of its arrival time."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mtptui.bench.live import RateBins
from mtptui.bench.tokens import Delta


def test_bins_pop_in_order_with_empty_ones_and_a_cut_last_bin() -> None:
    bins = RateBins(origin=100.0, width=1.0)
    bins.add(100.2, Delta(3, 0))
    bins.add(102.5, Delta(0, 4))
    assert bins.completed(100.9) == []
    first = bins.completed(102.0)
    assert [(b.start, b.reasoning, b.content) for b in first] == [(0.0, 3, 0), (1.0, 0, 0)]
    last = bins.flush(102.75)
    assert len(last) == 1 and last[0].content == 4 and abs(last[0].width - 0.75) < 1e-9


def test_token_arriving_after_its_bin_was_emitted_goes_to_the_next_bin() -> None:
    bins = RateBins(origin=0.0, width=1.0)
    bins.completed(2.0)
    bins.add(0.5, Delta(0, 2))
    assert [b.content for b in bins.flush(2.5)] == [2]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 20), st.integers(0, 5), st.integers(0, 5)), max_size=60),
       st.floats(0.1, 2.0))
def test_bins_keep_every_token(arrivals, width) -> None:
    bins, emitted = RateBins(origin=0.0, width=width), []
    for t, r, c in sorted(arrivals):
        emitted += bins.completed(t)
        bins.add(t, Delta(r, c))
    emitted += bins.flush(20.0 + width)
    assert sum(b.reasoning for b in emitted) == sum(a[1] for a in arrivals)
    assert sum(b.content for b in emitted) == sum(a[2] for a in arrivals)
    starts = [b.start for b in emitted]
    assert starts == sorted(starts) and len(set(starts)) == len(starts)
