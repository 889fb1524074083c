"""The fleet screen's header line: which Prometheus, what window, how many instances in which state."""

from __future__ import annotations

import time

from rich.text import Text

from mtptui.fleet.durations import short_duration
from mtptui.fleet.settings import FleetSettings
from mtptui.fleet.view import FleetView
from mtptui.text import visible


def header_text(settings: FleetSettings, view: FleetView, error: str | None, updated_at: float | None) -> Text:
    rows = view.snapshot.rows if view.snapshot else []
    counts = {state: sum(r.health == state for r in rows) for state in ("ok", "warn", "down")}
    text = Text()
    text.append("fleet ", "bold")
    text.append(visible(" + ".join(where for where in (settings.url, settings.gateway and
                                                        f"gateway {settings.gateway.url}") if where)))
    match = ",".join(m.promql() for m in settings.matchers)
    text.append(visible(f" {{{match}}}") if match else "")
    text.append(f" · window {short_duration(settings.window_s)} · history {short_duration(settings.history_s)} · ")
    text.append(f"{len(rows)} instances: ")
    text.append(f"{counts['ok']} ok", "green")
    text.append(", ")
    text.append(f"{counts['warn']} warn", "yellow" if counts["warn"] else "")
    text.append(", ")
    text.append(f"{counts['down']} down", "red" if counts["down"] else "")
    text.append(f" · sort {view.sort_title()}")
    if view.filter:
        text.append(visible(f" · filter {view.filter!r}"))
    text.append(" · READ-ONLY", "bold")
    text.append("\n")
    if error:
        text.append(visible(error), "bold red")
    elif view.snapshot and view.snapshot.notes:
        text.append(visible(" · ".join(view.snapshot.notes)), "yellow")
    elif updated_at is not None:
        text.append(f"updated {time.strftime('%H:%M:%S', time.localtime(updated_at))}, every "
                    f"{settings.refresh_s:g} s", "dim")
    else:
        text.append("asking Prometheus…", "dim")
    return text
