"""The top line: host, service state, engine and version, connection state, uptime and the READONLY badge."""

from __future__ import annotations

from rich.text import Text

from mtptui.text import visible
from mtptui.ui.widgets.render_pane import RenderPane

from mtptui.ui.format import duration
from mtptui.ui.live_host import LiveHost

CONNECTION_STYLE = {"connected": "green", "connecting": "yellow", "reconnecting": "yellow", "failed": "red",
                    "stopped": "red"}
SERVICE_STYLE = {"running": "green", "starting": "yellow", "stopping": "yellow", "unknown": "yellow",
                 "stopped": "bold red", "failed": "bold red"}  # by the service's phase, whoever manages it
QUIET_SAID_S = 10.0  # a host quiet this long (no log line, no GPU reading) has the time since its last byte said


class HeaderBar(RenderPane):
    """One line of facts about the host; repainted on changes and once a second for the uptime."""

    def __init__(self, host_label: str, readonly: bool = False, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.host_label = host_label
        self.readonly = readonly

    live: LiveHost | None = None

    def show(self, live: LiveHost) -> None:
        self.live = live
        text = self.text(live)
        if text.cell_len > self.size.width > 0:  # a narrow terminal: without where it runs and the service name
            text = self.text(live, full=False)
        if text != self.renderable:  # the once-a-second tick repaints only when the uptime text changed
            self.set(text)

    def on_resize(self) -> None:
        if self.live is not None:
            self.show(self.live)

    def text(self, live: LiveHost, full: bool = True) -> Text:
        status = live.host
        out = Text.assemble((" mtptui ", "bold reverse"), " ", (visible(self.host_label), "bold"))
        if self.readonly and not full:  # first on a narrow line, where the end may be cut
            out.append(" ")
            out.append(" READONLY ", "bold reverse red")
        if status is not None:  # every part of it comes from the host: shown, never obeyed (mtptui.text)
            if full:
                out.append(f" · {visible(status.where)}", "dim")
            self._service(out, visible(status.service) if full else "", visible(status.service_state),
                          SERVICE_STYLE.get(status.service_phase, "yellow"))
            out.append(" │ ")
            version = live.version
            out.append(f"{live.engine.label} {visible(version) if version else '?'}")
        connection, offline = live.connection, live.up.offline
        out.append(" │ ")
        out.append("● ", CONNECTION_STYLE.get(connection.state, "yellow"))
        out.append(visible(str(connection)) if full or offline is None else connection.state)
        quiet = live.quiet_s()
        if quiet is not None and (offline is not None or quiet >= QUIET_SAID_S):
            out.append(f" · last byte {duration(quiet)} ago", "bold red" if offline else "yellow")
        out.append(" │ ")
        out.append(f"up {duration(live.uptime_s())}")
        if self.readonly and full:
            out.append(" ")
            out.append(" READONLY ", "bold reverse red")
        return out

    @staticmethod
    def _service(out: Text, service: str, state: str, style: str) -> None:
        out.append(" │ ")
        if service:
            out.append(f"{service}: ")
        out.append(state, style)
