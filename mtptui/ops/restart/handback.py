"""Hand a hand-started server back to the systemd unit it replaced: `mtptui restart --to-unit`, and `u` in the
restart dialog (the mission's last step, `systemctl daemon-reload && systemctl enable`, done with the restore).

    plan = await plan_handback(session, "restored")           # the unit from --to-unit, else [server] unit
    result = await Restarter(session_for(session, plan), plan).run()

The host file stays process-managed (``[server] manager = "process"``) and names the unit the server replaced
(``[server] unit``, or ``--to-unit UNIT``). The plan is an ordinary restart plan made through a session
whose manager is mtptui.remote.handback.HandBackManager and whose log is the unit's journal (the relaunched
hand-started server's file once a rollback brings it back); the same Restarter runs it, under the host file's
restart lock. mtptui does not rewrite the host file after a hand-back: it says what the file should now say.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Collection

from mtptui.config.models import ProcessServer
from mtptui.errors import UserError
from mtptui.ops.connect import HostSession, api_port
from mtptui.ops.restart.plan import RestartPlan, plan_restart
from mtptui.remote.handback import HandBackManager
from mtptui.remote.logsource import FileLog, JournalLog

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig


@dataclass
class HandBackSession(HostSession):
    """The host seen by a hand-back: the unit's journal while the unit starts, the host file's log after."""

    handback: HandBackManager | None = None

    @property
    def log_source(self) -> FileLog | JournalLog:
        handback = self.handback
        if handback is None or handback.rolling_back:
            return super().log_source
        return JournalLog(handback.unit_name, tuple(handback.unit.command_prefix))


@dataclass
class HandBackPlan(RestartPlan):
    """A restart plan that hands the server back to ``unit``; ``via`` is the session that runs it."""

    unit: str = ""
    via: HandBackSession | None = None

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "hand_back_to": self.unit}


def replaced_unit(host: HostConfig, asked: str | None = None) -> str:
    """The unit a hand-back returns ``host``'s server to: ``asked``, else the host file's; else one sentence."""
    server = host.server
    if not isinstance(server, ProcessServer):
        raise UserError(f"{host.name}'s server is the systemd unit {server.unit} already: --to-unit hands a "
                        f"hand-started server (server.manager = \"process\") back to its unit")
    unit = asked or server.unit
    if not unit:
        raise UserError(f"{host.name}'s host file names no unit its hand-started server replaced: set [server] "
                        f"unit = \"NAME.service\" or pass --to-unit NAME.service")
    return unit


def offers_handback(host: HostConfig) -> bool:
    """Whether a restart of ``host`` may offer the hand-back (a hand-started server whose unit is named)."""
    return isinstance(host.server, ProcessServer) and host.server.unit is not None


def handback_session(session: HostSession, unit: str) -> HandBackSession:
    """``session``'s host, its server to be handed back to ``unit`` (same transport: nothing is contacted)."""
    from mtptui.remote.managers import handback_manager

    server = session.host.server
    assert isinstance(server, ProcessServer)  # replaced_unit() refused every other host
    manager = handback_manager(server, unit, session.transport, api_port(session.host))
    return HandBackSession(session.host, session.transport, manager, session.readonly, handback=manager)


async def plan_handback(session: HostSession, profile: str | None = None, unit: str | None = None,
                        stamp: str | None = None, drop_env: Collection[str] = ()) -> HandBackPlan:
    """The plan that hands ``session``'s hand-started server back to its unit with ``profile`` (the known-good
    one by default); only reads the host."""
    via = handback_session(session, replaced_unit(session.host, unit))
    assert via.handback is not None
    await via.handback.refuse_unless_stopped()  # before the unit is read: a missing one in one sentence
    plan = await plan_restart(via, profile, stamp=stamp, drop_env=drop_env)
    return HandBackPlan(**{f.name: getattr(plan, f.name) for f in fields(plan)}, unit=via.handback.unit_name,
                        via=via)


def session_for(session: HostSession, plan: RestartPlan) -> HostSession:
    """The session that runs ``plan``: a hand-back's own, else ``session``."""
    return plan.via if isinstance(plan, HandBackPlan) and plan.via is not None else session


def host_file_advice(plan: RestartPlan, host: HostConfig | None = None) -> str | None:
    """After a restart that ended ready: for a hand-back, what the host file should now say (mtptui does not
    rewrite it); for a relaunch by hand of ``host``'s server whose unit is named, that the unit may take it back."""
    if not isinstance(plan, HandBackPlan):
        if host is None or not offers_handback(host):
            return None
        assert isinstance(host.server, ProcessServer)
        return (f"{host.name}'s server still runs by hand, outside {host.server.unit}: the restart dialog's u (or "
                f"mtptui restart {host.name} --to-unit) hands it back to the unit and enables it")
    return (f"{plan.unit} runs {plan.host}'s server now: its host file should say [server] manager = \"systemd\", "
            f"unit = \"{plan.unit}\" and [log] kind = \"journal\" (until then mtptui looks for a hand-started "
            f"server)")
