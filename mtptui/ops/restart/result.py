"""What a restart did, said precisely: its outcome, the steps that changed the host, and the host's end state.

Outcomes: ``ready``; ``aborted`` (it stopped before changing anything: the server was left alone);
``rolled_back`` / ``rolled_back_stopped`` (what ran was undone); ``rollback_failed``; ``unreachable`` (the host
could not be reached, so what runs there now is unknown: the report lists what was done, and claims nothing else).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mtptui.ops.host_state import EndState
from mtptui.ops.progress import RestartEvent
from mtptui.remote.steps import RestartStep

SERVER_STEPS = frozenset({"stopping", "starting"})

# "started" only while the restart runs; the others as the module doc says
Outcome = Literal["started", "ready", "aborted", "rolled_back", "rolled_back_stopped", "rollback_failed", "unreachable"]


@dataclass(frozen=True)
class Ran:
    """A step that changed the host, or may have (``certain`` False: the connection dropped while it ran)."""

    step: RestartStep
    what: str
    certain: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "what": self.what, "certain": self.certain}

    def __str__(self) -> str:
        return self.what if self.certain else f"{self.what} (perhaps: the connection dropped while it ran)"


@dataclass
class RestartResult:
    """What a restart did: ``outcome`` (module doc); ``reason`` why the target failed; ``end`` the host afterwards."""

    host: str
    profile: str
    manager: str
    outcome: Outcome
    reason: str | None = None
    rollback_reason: str | None = None
    pid: int | None = None
    backup: str | None = None
    elapsed_s: float = 0.0
    commands: list[str] = field(default_factory=list)
    events: list[RestartEvent] = field(default_factory=list)
    changed: list[Ran] = field(default_factory=list)
    undone: list[Ran] = field(default_factory=list)
    end: EndState | None = None
    gateway: dict[str, Any] | None = None  # what the gateway steps did (mtptui.ops.restart.drain.GatewayDrain)

    @property
    def ok(self) -> bool:
        return self.outcome == "ready"

    def summary(self) -> str:
        if self.ok:
            return f"{self.host} is ready with profile {self.profile} (pid {self.pid}) after {self.elapsed_s:.1f} s"
        text = f"profile {self.profile} failed on {self.host}: {self.reason}; {self._what_happened()}"
        if (gateway := gateway_said(self.gateway)) is not None:
            text = f"{text}; {gateway}"
        return f"{text}; {self.end}" if self.end is not None else text

    def _what_happened(self) -> str:
        if self.outcome == "aborted":
            return "nothing was changed" if not self.changed else \
                f"stopped there; done and not undone: {_listed(self.changed)}"
        if self.outcome == "rolled_back" and self.changed and not SERVER_STEPS & {r.step for r in self.changed}:
            return "rolled back the unit; the server that ran before was never stopped"
        if self.outcome == "rolled_back":
            return "rolled back to the previous launch, which is running again"
        if self.outcome == "rolled_back_stopped":
            return "rolled back (nothing was running before, so the server is stopped)"
        if self.outcome == "unreachable" and self.rollback_reason:
            return (f"then the host went away during the rollback ({self.rollback_reason}): what runs there now is "
                    f"unknown; done so far: {_listed(self.changed)}; undone before it went away: "
                    f"{_listed(self.undone)}; the rollback did not finish")
        if self.outcome == "unreachable":
            return f"what runs there now is unknown; done so far: {_listed(self.changed)}; not rolled back"
        return f"the rollback failed too: {self.rollback_reason}"

    def to_json(self) -> dict[str, Any]:
        return {"host": self.host, "profile": self.profile, "manager": self.manager, "outcome": self.outcome,
                "ok": self.ok, "reason": self.reason, "rollback_reason": self.rollback_reason, "pid": self.pid,
                "backup": self.backup, "elapsed_s": round(self.elapsed_s, 2), "summary": self.summary(),
                "changed": [r.to_json() for r in self.changed], "undone": [r.to_json() for r in self.undone],
                "end_state": self.end.to_json() if self.end is not None else None,
                "commands": list(self.commands), "events": [e.to_json() for e in self.events],
                "gateway": self.gateway}


def gateway_said(report: dict[str, Any] | None) -> str | None:
    """What a failed restart did with the worker in the gateway, when it is more than "taken out and put back":
    taken out again before the rollback (or not, and why), and whether it ends in the gateway or out, and why."""
    if not report:
        return None
    worker, out, again = report.get("worker") or "the worker", report.get("out"), report.get("again_problem")
    if report.get("removed_again"):
        said = f"{worker} was taken out of the gateway again for the rollback"
    elif again:
        said = f"{worker} could not be taken out of the gateway again before the rollback ({again})"
    elif out:
        return f"{worker} is left out of the gateway, as it could not be added back: {out}"
    else:
        return None
    if out:
        return f"{said}, and is left out of it, as it could not be added back: {out}"
    return f"{said}, and is back in it, ready" if report.get("re_added") else said


def _listed(ran: list[Ran]) -> str:
    return ", ".join(str(r) for r in ran) or "nothing"
