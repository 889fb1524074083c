"""The speculation pane's words, without Textual: settings as the engine resolves them, configured vs live.

``steps 3 configured · 1 live (adaptive: 1,3,7)`` when the engine adapts or runs other steps than configured;
the plain resolved value (``3``, ``4 (auto)``) otherwise, so a launch without adaptive speculation reads as it
always did.
"""

from __future__ import annotations

from mtptui.speculation import LiveSpeculation
from mtptui.ui.format import NONE

NO_SETTINGS = [("algorithm", NONE), ("steps", NONE), ("draft tokens", NONE), ("topk", NONE)]


def settings_from_log(view: LiveSpeculation | None, launched: bool) -> list[tuple[str, str]] | None:
    """The rows as the server's log states its launch (for an engine whose command line mtptui does not resolve,
    or before the running one is read); None when the log said nothing of it."""
    shape = view.configured if view is not None else None
    if shape is None:
        return [("algorithm", "none (no speculative decoding)")] if launched else None
    return [("algorithm", shape.algorithm or NONE)] + [
        (label, str(value) if value is not None else NONE)
        for label, value in (("steps", shape.steps), ("draft tokens", shape.draft_tokens), ("topk", shape.topk))
        if value is not None or label != "topk"]  # an engine without a draft tree has no top-k to show


def per_position(rates: list[float | None] | None) -> str:
    """``0.98 · 0.87 · 0.83``: how often each draft position was accepted in the last interval."""
    if not rates:
        return NONE
    return " · ".join(NONE if rate is None else f"{rate:.2f}" for rate in rates)


def _adaptive_note(view: LiveSpeculation) -> str:
    if view.turned_off:
        return f" (adaptive turned off: {view.turned_off})"
    if not view.adaptive:
        return ""
    return f" (adaptive: {','.join(map(str, view.candidates))})" if view.candidates else " (adaptive)"


def configured_vs_live(rows: list[tuple[str, str]], view: LiveSpeculation | None) -> list[tuple[str, str]]:
    """The steps and draft-token rows as ``N configured · M live`` where the engine adapts or changed them."""
    if view is None or view.configured is None:
        return rows
    live = view.live or view.configured
    if not view.adaptive and not view.turned_off and live.steps == view.configured.steps:
        return rows
    pairs = {"steps": (view.configured.steps, live.steps), "draft tokens": (view.configured.draft_tokens,
                                                                           live.draft_tokens)}
    out = []
    for label, value in rows:
        if label in pairs and not view.turned_off:
            configured, now = pairs[label]
            value = f"{configured} configured · {now} live" + (_adaptive_note(view) if label == "steps" else "")
        elif label == "steps":
            value += _adaptive_note(view)
        out.append((label, value))
    return out


def live_steps_label(view: LiveSpeculation | None, samples: int) -> str:
    """The sparkline's words: the steps now and the switches seen, or why there is nothing to draw."""
    if view is None or not view.adaptive:
        return NONE
    now = view.live_steps
    switches = f" · {view.switches} switch{'es' if view.switches != 1 else ''}" if view.source == "log" else ""
    source = f" ({view.source})" if view.source and view.source != "log" else ""
    return f"{now if now is not None else NONE} now{switches}{source}" if samples or now is not None else NONE
