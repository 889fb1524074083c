"""The health verdict as one line of styled segments that fits a width: the most detailed variant that fits.

Variants shed detail in this order: the full wording of the checks (first of those that hold or cannot be
judged; their short forms stay; the speed's, which says where its baseline comes from, goes last), drift
details beyond the first, the checks that hold, the ones that cannot be
judged (the speed's last: it says when there is no baseline) after the third action key, the last drift detail,
then the action keys; what still does not fit is cut with an ellipsis.
Styles are names (ok, warn, bad, unknown, dim, key) the widget maps to colours.
"""

from __future__ import annotations

from typing import Callable, Iterator

from mtptui.ops.health.verdict import BAD, OK, UNKNOWN, WARN, Check, Health

Segment = tuple[str, str]  # (text, style name)
BADGE = {OK: "● healthy", WARN: "▲ warning", BAD: "● unhealthy", UNKNOWN: "● unverified"}
ACTION_WORDS = {"diff": "why", "restore": "restore", "bench": "bench", "reconnect": "reconnect"}
SEPARATOR = (" │ ", "dim")


def _check_segments(check: Check, short: bool, details: int) -> list[Segment]:
    shown = check.items[:details]
    if not shown:
        return [(check.short if short else check.text, check.state)]
    more = len(check.items) - len(shown)
    listed = ", ".join(shown) + (f" +{more}" if more else "")
    if short:
        return [(f"{check.lead}: {listed}", check.state)]
    return [(f"{check.text} — {listed}", check.state)]


def variant(health: Health, keys: Callable[[str], str], *, short: frozenset[str], details: int,
            shown: frozenset[str], actions: int = 3, speed: bool = True,
            full: frozenset[str] = frozenset()) -> list[Segment]:
    """One way of writing the line: checks in the ``shown`` states (all of them when everything holds), those in
    the ``short`` states in their short form but the ``full`` ones (by name), the first ``actions`` keys;
    ``speed``: the speed check whatever its state (it says when there is no baseline)."""
    out: list[Segment] = [(BADGE[health.state], health.state)]
    alone = len(health.checks) == 1  # the verdict itself (not connected, restarting): never shed
    for check in health.checks:
        if check.state not in shown and health.state != OK and not (speed and check.name == "speed") and not alone:
            continue
        out += [SEPARATOR, *_check_segments(check, check.state in short and check.name not in full, details)]
    if actions and health.actions:
        out.append(SEPARATOR)
        for index, action in enumerate(health.actions[:actions]):
            out += [((" · " if index else ""), "dim"), (keys(action), "key"), (f" {ACTION_WORDS[action]}", "dim")]
    return [segment for segment in out if segment[0]]


def _variants(health: Health, keys: Callable[[str], str]) -> Iterator[list[Segment]]:
    """Most detailed first; the drift's details outlive the other checks' full wording."""
    every, not_ok, bad = frozenset({OK, UNKNOWN, WARN, BAD}), frozenset({UNKNOWN, WARN, BAD}), frozenset({WARN, BAD})
    yield variant(health, keys, short=frozenset(), details=3, shown=every, actions=3)
    yield variant(health, keys, short=frozenset({OK, UNKNOWN}), details=3, shown=every, actions=3)
    yield variant(health, keys, short=every, details=3, shown=every, actions=3, full=frozenset({"speed"}))
    for details in (3, 2, 1):
        yield variant(health, keys, short=every, details=details, shown=every, actions=3)
    for details in (2, 1):
        yield variant(health, keys, short=every, details=details, shown=not_ok, actions=3)
    for details in (2, 1):
        yield variant(health, keys, short=every, details=details, shown=bad, actions=3)
    yield variant(health, keys, short=every, details=1, shown=bad, actions=2)
    for details in (1, 0):
        yield variant(health, keys, short=every, details=details, shown=bad, actions=2, speed=False)
    yield variant(health, keys, short=every, details=0, shown=bad, actions=0, speed=False)


def width_of(segments: list[Segment]) -> int:
    return sum(len(text) for text, _ in segments)


def health_line(health: Health, width: int, keys: Callable[[str], str] = lambda action: action) -> list[Segment]:
    """The most detailed variant within ``width`` cells, else the shortest one cut with an ellipsis."""
    last: list[Segment] = []
    for last in _variants(health, keys):
        if width_of(last) <= width:
            return last
    return _cut(last, width)


def _cut(segments: list[Segment], width: int) -> list[Segment]:
    out: list[Segment] = []
    room = max(width - 1, 0)
    for text, style in segments:
        if len(text) > room:
            out.append((text[:room] + "…", style))
            return out
        out.append((text, style))
        room -= len(text)
    return out
