"""A systemd unit's state as `systemctl show` gives it, in the service managers' vocabulary (ServiceState).

``ActiveState``/``SubState`` make the phase; ``Result``, ``ExecMainStatus`` and ``NRestarts`` (automatic restarts
since the last start by hand: ``Restart=`` at work) make the words precise; ``TimeoutStopUSec`` is how long a
stop may take before systemd sends SIGKILL.
"""

from __future__ import annotations

import re

from mtptui.remote.service_state import ServicePhase, ServiceState

STATE_PROPERTIES = ("LoadState", "ActiveState", "SubState", "Result", "ExecMainStatus", "NRestarts", "MainPID")
PHASES: dict[str, ServicePhase] = {"active": "running", "reloading": "running", "refreshing": "running",
                                   "activating": "starting", "deactivating": "stopping", "inactive": "stopped",
                                   "failed": "failed"}
PLAIN = {("active", "running"), ("inactive", "dead"), ("failed", "failed")}  # SubStates that say nothing more
_SPAN = re.compile(r"(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d|w|M|y)?")
_SECONDS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0,
            "M": 2629800.0, "y": 31557600.0}


def number(props: dict[str, str], name: str) -> int:
    value = props.get(name, "").strip()
    return int(value) if value.isdigit() else 0


def service_state(props: dict[str, str]) -> ServiceState:
    """The state `systemctl show -p STATE_PROPERTIES` describes."""
    active, sub = props.get("ActiveState", "").strip(), props.get("SubState", "").strip()
    words = active or "unknown"
    if props.get("LoadState", "").strip() == "not-found":
        words += " (no such unit)"
    elif sub and (active, sub) not in PLAIN:
        words += f" ({sub})"
    if active == "failed" or sub == "auto-restart":
        words += f", {props.get('Result', '').strip() or 'failed'}, status {number(props, 'ExecMainStatus')}"
    if restarts := number(props, "NRestarts"):
        words += f", restarted {restarts} time{'s' if restarts > 1 else ''} by systemd"
    pid = number(props, "MainPID") or None
    return ServiceState(PHASES.get(active, "unknown"), words, pid, dict(props))


def killed_by_signal(state: ServiceState, signal: int) -> bool:
    """Whether the unit's main process last ended killed by ``signal`` (systemd's Result=signal)."""
    return state.facts.get("Result", "").strip() == "signal" and number(state.facts, "ExecMainStatus") == signal


def why_exited(state: ServiceState, pid: int | None) -> str | None:
    """Why the server started as ``pid`` no longer runs, or None while it does (``state`` just read)."""
    restarts, main = number(state.facts, "NRestarts"), state.pid
    if restarts or state.facts.get("SubState", "").strip() == "auto-restart":
        return f"it exited and systemd restarts it by itself (Restart= in the unit): {state.words}"
    if state.down:
        return f"it exited before it was ready: systemd says {state.words}"
    if pid and main and main != pid:
        return f"its main process changed (pid {main}, not {pid}): {state.words}"
    return None


def timespan_s(value: str) -> float | None:
    """Seconds of a systemd time span as `systemctl show` prints it ("1min 30s", "500ms"); None for infinity."""
    value = value.strip()
    if not value or value == "infinity":
        return None
    return sum(float(amount) * _SECONDS[unit or "s"] for amount, unit in _SPAN.findall(value))
