"""Work that differs by service manager, asked of the manager (``ServiceManager.pick``): a use case hands the
manager a ``ByManager`` and the manager runs its own part, so nothing above remote/ asks which manager it is."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from mtptui.config.models import ProcessServer
    from mtptui.remote.service_state import ServiceState
    from mtptui.remote.shell import Command

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class UnitView(Protocol):
    """A manager's systemd unit as a check reads it: its name, and the commands and words that read it."""

    unit: str
    command_prefix: tuple[str, ...]  # what systemctl and journalctl run under

    def systemctl(self, *args: str, what: str = "", changes_host: bool = False) -> Command:
        ...

    def state_command(self) -> Command:
        """`systemctl show` of the unit's state and its FragmentPath (read with ``state_of``)."""
        ...

    def state_of(self, props: dict[str, str]) -> ServiceState:
        ...

    def killed_by_signal(self, state: ServiceState, signal: int) -> bool:
        ...


class ByManager(Protocol[T_co]):
    """Work that differs by manager (a check, what a log file is): the manager picks its own part
    (``ServiceManager.pick``), so a use case never asks which manager it is."""

    def unit(self, unit: UnitView) -> T_co:
        ...

    def process(self, config: ProcessServer) -> T_co:
        ...
