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
    return diff_flagsets(pairs, show_all=show_all)


def differs(row: DiffRow) -> bool:
    return len(set(row.values)) > 1 or len(set(row.resolved)) > 1
