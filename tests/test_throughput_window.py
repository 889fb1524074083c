"""The throughput plot's window (1 min / 5 min / whole log) and its idle gaps, as plain functions
(mtptui.ui.throughput_window): what is inside a window, where the line is cut, which restart markers stay."""

from __future__ import annotations

from mtptui.ui.throughput_window import GAP_MIN_S, WINDOWS, gap_threshold, split_at_gaps, window_series


def steady(start: float, end: float, step: float = 1.0, value: float = 70.0) -> list[tuple[float, float]]:
    count = int(round((end - start) / step)) + 1
    return [(start + i * step, value) for i in range(count)]


def test_the_gap_threshold_is_several_usual_spacings_and_never_below_the_minimum() -> None:
    assert gap_threshold(steady(0, 20, step=0.5)) == GAP_MIN_S
    assert gap_threshold(steady(0, 100, step=4.0)) == 16.0
    assert gap_threshold([]) == GAP_MIN_S and gap_threshold([(3.0, 1.0)]) == GAP_MIN_S


def test_an_idle_gap_cuts_the_line_and_steady_batches_do_not() -> None:
    points = steady(0, 10) + steady(300, 305)  # idle from 10 s to 300 s: no slope across it
    segments = split_at_gaps(points, gap_threshold(points))
    assert segments == [steady(0, 10), steady(300, 305)]
    assert split_at_gaps(steady(0, 30), 5.0) == [steady(0, 30)]
    assert split_at_gaps([], 5.0) == []


def test_the_whole_log_keeps_every_point_and_each_idle_gap() -> None:
    points = steady(0, 10) + steady(100, 110) + steady(400, 410)
    shown = window_series(points, [(0.0, 20.0)], [95.0], WINDOWS["all"])
    assert shown.segments == [steady(0, 10), steady(100, 110), steady(400, 410)]
    assert shown.x_range == (0.0, 410.0) and shown.warm_up == [(0.0, 20.0)] and shown.restarts == [95.0]


def test_the_last_minute_ends_at_the_latest_sample_and_drops_what_is_older() -> None:
    points = steady(0, 10) + steady(100, 110) + steady(400, 410)
    shown = window_series(points, [(0.0, 20.0), (399.0, 30.0)], [95.0, 390.0], WINDOWS["1m"])
    assert shown.x_range == (350.0, 410.0)
    assert shown.segments == [steady(400, 410)] and shown.warm_up == [(399.0, 30.0)]
    assert shown.restarts == [390.0]  # the restart marker inside the window stays; the older one goes


def test_five_minutes_keep_the_gap_inside_the_window() -> None:
    points = steady(0, 10) + steady(100, 110) + steady(400, 410)
    shown = window_series(points, [], [], WINDOWS["5m"])
    assert shown.x_range == (110.0, 410.0)
    assert shown.segments == [[(110.0, 70.0)], steady(400, 410)]


def test_a_window_longer_than_the_log_starts_at_its_first_sample() -> None:
    shown = window_series(steady(5, 20), [], [], WINDOWS["5m"])
    assert shown.x_range == (5.0, 20.0) and shown.points == steady(5, 20)


def test_no_samples_is_an_empty_plot_that_keeps_its_restarts() -> None:
    shown = window_series([], [], [12.0], WINDOWS["1m"])
    assert shown.segments == [] and shown.x_range is None and shown.restarts == [12.0]
