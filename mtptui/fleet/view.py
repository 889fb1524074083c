"""What the fleet screen shows of a snapshot: sort, filter, selection and columns (no Textual, so the CLI's
table and the tests use it too). The view outlives one screen: after a host's dashboard it comes back as left."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from mtptui.fleet.rows import HEALTH_ORDER, Row, Snapshot
from mtptui.fleet.spark import sparkline

# sort key → (title, worst/most first when true: descending numbers)
SORTS: dict[str, tuple[str, bool]] = {
    "health": ("health", False), "instance": ("instance", False), "output_tok_s": ("tok/s", True),
    "accept_len": ("accept", False), "queued": ("queued", True), "kv_usage": ("KV", True),
    "ttft_p99_ms": ("TTFT p99", True), "itl_p99_ms": ("ITL p99", True), "error_rate": ("errors", True),
}


def _num(value: float | None, fmt: str) -> str:
    return "–" if value is None else format(value, fmt)


def _age(row: Row) -> str:
    state = "up" if row.up else "down" if row.up is False else "new"
    return state if row.scrape_age_s is None else f"{state} {row.scrape_age_s:.0f}s"


def _gateway(row: Row) -> str:
    if row.gateway_status is None and row.gateway_load is None:
        return "–"
    load = "" if row.gateway_load is None else f" {row.gateway_load}"
    return f"{row.gateway_status or '?'}{load}"


# column title → (cell text of a row, right-aligned)
COLUMNS: dict[str, tuple[Callable[[Row], str], bool]] = {
    "": (lambda r: {"ok": "●", "warn": "▲", "down": "✖"}.get(r.health, "?"), False),
    "instance": (lambda r: r.instance, False),
    "job": (lambda r: r.job, False),
    "state": (_age, False),
    "version": (lambda r: r.version or "–", False),
    "tok/s": (lambda r: _num(r.output_tok_s, ".1f"), True),
    "trend": (lambda r: sparkline(r.spark), False),
    "accept": (lambda r: _num(r.accept_len, ".2f"), True),
    "run": (lambda r: _num(r.running, ".0f"), True),
    "queue": (lambda r: _num(r.queued, ".0f"), True),
    "KV": (lambda r: "–" if r.kv_usage is None else f"{r.kv_usage * 100:.1f}%", True),
    "TTFT p50/p99 ms": (lambda r: f"{_num(r.ttft_p50_ms, '.0f')}/{_num(r.ttft_p99_ms, '.0f')}", True),
    "ITL p99 ms": (lambda r: _num(r.itl_p99_ms, ".1f"), True),
    "req/s": (lambda r: _num(r.request_rate, ".2f"), True),
    "err/s": (lambda r: _num(r.error_rate, ".2f"), True),
    "gateway": (_gateway, False),
    "host": (lambda r: r.host or "–", False),
}


def _sort_key(name: str, descending: bool) -> Callable[[Row], tuple[Any, ...]]:
    def key(row: Row) -> tuple[Any, ...]:
        if name == "health":
            return (HEALTH_ORDER.get(row.health, 3), row.instance)
        if name == "instance":
            return (row.instance, row.job)
        value = getattr(row, name)
        return (value is None, -value if descending and value is not None else value or 0, row.instance)
    return key


def _matches(row: Row, text: str) -> bool:
    """Case-insensitive substring of instance, job, version, host or health; ``!text`` excludes."""
    negate, needle = text.startswith("!"), text.lstrip("!").lower()
    words = " ".join(str(v) for v in (row.instance, row.job, row.version, row.host, row.health) if v).lower()
    return (needle in words) != negate


@dataclass
class FleetView:
    """Sort, filter and selection of the fleet screen, and a notice to show once (e.g. why a dashboard failed)."""

    sort: str = "health"
    reverse: bool = False
    filter: str = ""
    selected: tuple[str, str] | None = None
    notice: str | None = None
    snapshot: Snapshot | None = None

    def next_sort(self) -> str:
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.reverse = False
        return self.sort

    def rows(self) -> list[Row]:
        """The snapshot's rows that pass the filter, in the chosen order (no figure always last)."""
        rows = self.snapshot.rows if self.snapshot else []
        shown = [r for r in rows if not self.filter or _matches(r, self.filter)]
        descending = SORTS[self.sort][1] != self.reverse
        if self.sort in ("health", "instance"):
            return sorted(shown, key=_sort_key(self.sort, False), reverse=self.reverse)
        return sorted(shown, key=_sort_key(self.sort, descending))

    def sort_title(self) -> str:
        return SORTS[self.sort][0] + (" (reversed)" if self.reverse else "")


# The columns a terminal of each width class shows (mtptui/ui/layout.py): at 80 columns the table fits without
# scrolling sideways; the detail line under the table still names the version and the reasons of the health.
NARROW_COLUMNS = ("", "instance", "state", "tok/s", "accept", "run", "queue", "KV", "host")
MEDIUM_COLUMNS = ("", "instance", "state", "tok/s", "accept", "run", "queue", "KV", "TTFT p50/p99 ms", "err/s",
                  "host")
COLUMNS_BY_WIDTH = {"-narrow": NARROW_COLUMNS, "-medium": MEDIUM_COLUMNS,
                    "-wide": tuple(title for title in COLUMNS if title != "gateway")}
# With a gateway (mtptui fleet --gateway), its column takes the place of one, so the widths still fit.
GATEWAY_IN_PLACE_OF = {"-narrow": "KV", "-medium": "err/s", "-wide": "job"}


def columns_for(width_class: str, gateway: bool) -> tuple[str, ...]:
    """The columns a width class shows; with a gateway its column replaces the one GATEWAY_IN_PLACE_OF names."""
    columns = COLUMNS_BY_WIDTH[width_class]
    if not gateway:
        return columns
    return tuple("gateway" if title == GATEWAY_IN_PLACE_OF[width_class] else title for title in columns)


def cells(row: Row, columns: tuple[str, ...] = tuple(COLUMNS)) -> list[str]:
    return [COLUMNS[title][0](row) for title in columns]


@dataclass(frozen=True)
class Drill:
    """What the fleet screen ends with when Enter picks a row that has a host profile."""

    host_file: object  # pathlib.Path of the host file
    host: object  # mtptui.config.HostConfig
    instance: str


def detail(row: Row) -> str:
    """The line under the table for the selected row: why its flag, where figures come from, its host."""
    parts = list(row.health_reasons) or [f"healthy ({row.health})"]
    if row.version:
        parts.append(f"SGLang {row.version} (from {row.version_source})")
    if row.accept_len_source:
        parts.append(f"accept length from {row.accept_len_source}")
    if row.gateway_status is not None:
        parts.append(f"gateway: {row.gateway_status}, {row.gateway_load} in flight")
    if row.decode_tok_s is not None:
        parts.append(f"a request decodes at {row.decode_tok_s:.1f} tok/s")
    if row.host:
        parts.append(f"Enter: dashboard of {row.host} ({row.host_file}, read-only)")
    else:
        from mtptui.fleet.hosts import no_profile_hint

        parts.append(no_profile_hint(row.instance))
    return " · ".join(parts)
