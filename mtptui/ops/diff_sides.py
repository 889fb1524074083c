"""The sides of the diff screen: running, unit (or launch command), profile; and every flag for "show all".

With a host session the running side is the live process (mtptui.ops.launches); without one (recorded
feeds) it is the launch the host status reports. The demo's host is process-managed, so its known-good
unit on disk (``demo.unit_path``) is read as the unit side, the way `systemctl cat` would give it.
"""

from __future__ import annotations

from pathlib import Path

from mtptui.ops.launches import Side, configured_side, profile_side, running_side, unit_side
from mtptui.remote.systemd import UnitFile
from mtptui.sglang.flags import Diff, DiffRow, FlagSet, diff_flagsets
from mtptui.sglang.flags.diff import _Cell, _missing_cell, _side_cells


async def diff_sides(host, profile: str, *, session=None, status=None, demo=None) -> tuple[list[Side], list[str]]:
    """(sides in running, configured, profile order; notes about missing sides)."""
    from mtptui.ops.demo import UNIT_NAME

    _, profile_s = profile_side(host, profile)
    notes: list[str] = []
    configured = None
    if session is not None:
        configured, _ = await configured_side(session)
    if configured is None and demo is not None:
        text = Path(demo.unit_path).read_text(encoding="utf-8")
        configured = unit_side(UnitFile(str(demo.unit_path), text, text), UNIT_NAME, host.sglang_version)
    running = None
    if session is not None:
        env_names = set(profile_s.flagset.env) | (set(configured.flagset.env) if configured else set())
        live = await running_side(session, env_names)
        running = live.side if live else None
    elif status is not None and status.launch is not None:
        running = Side(f"running:{status.launch_source or 'status'}", status.launch)
    if running is None:
        notes.append(f"no SGLang server is running on {host.name}")
    if configured is None:
        notes.append(f"{host.name} has no unit or launch command to compare")
    return [side for side in (running, configured, profile_s) if side is not None], notes


def compare(sides: list[Side], show_all: bool) -> Diff:
    """The diff of the sides; with ``show_all`` every flag any side writes or resolves, differing or not."""
    pairs = [(side.label, side.flagset) for side in sides]
    if len(pairs) == 1:
        pairs.append(("(nothing)", FlagSet(version=sides[0].flagset.version)))
    diff = diff_flagsets(pairs)
    if not show_all:
        return diff
    return Diff(diff.sides, tuple(_all_rows([fs for _, fs in pairs])), diff.env)


def _all_rows(flagsets: list[FlagSet]) -> list[DiffRow]:
    first = flagsets[0].table
    cells = [_side_cells(fs, first, None) for fs in flagsets]
    keys = sorted({key for side in cells for key in side}, key=lambda k: (first.order.get(k, len(first.order)), k))
    rows = []
    for key in keys:
        row = [side.get(key) or _missing_cell(fs, key, first) or _Cell(None, "unset") for side, fs in
               zip(cells, flagsets)]
        rows.append(DiffRow(key, tuple(c.written for c in row), tuple(c.resolved for c in row)))
    return rows


def differs(row: DiffRow) -> bool:
    return len(set(row.values)) > 1 or len(set(row.resolved)) > 1
