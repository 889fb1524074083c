"""The restart's confirm dialog: the plan, ``e`` to enable a unit that is not enabled once the server is ready,
and ``u`` to hand a hand-started server back to the unit it replaced instead (mtptui.ops.restart.handback)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding
from mtptui.ui.plain import PlainStatic as Static

from mtptui.text import visible
from mtptui.ui.restart_text import plan_body
from mtptui.ui.screens.confirm import ConfirmScreen

if TYPE_CHECKING:
    from mtptui.ops.restart.plan import RestartPlan, Step


class RestartConfirmScreen(ConfirmScreen):
    """ConfirmScreen for a restart plan; ``plan`` is what a yes runs (with the unit enabled once ready after e,
    the hand-back after u). ``handback``: the plan handing the server back to its unit, when offered;
    ``handback_note``: why it is not, when the host file names a unit."""

    BINDINGS = [*ConfirmScreen.BINDINGS, Binding("e", "enable", "Enable the unit too", id="confirm.enable"),
                Binding("u", "hand_back", "Hand back to the unit", id="confirm.hand-back")]

    def __init__(self, plan: RestartPlan, save_as: str = "restart", handback: RestartPlan | None = None,
                 handback_note: str | None = None) -> None:
        self.restart_plan, self.handback, self.handback_note = plan, handback, handback_note
        self.plan = plan
        super().__init__(_title(plan), self._body(), confirm_label="Restart anyway" if plan.blocking else "Restart",
                         plain=self._words(), save_as=save_as)

    @property
    def handing_back(self) -> bool:
        return self.handback is not None and self.plan is self.handback

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "enable":
            return self.plan.enable_offer is not None
        if action == "hand_back":
            return self.handback is not None
        return super().check_action(action, parameters)

    def action_enable(self) -> None:
        """Enable the unit once the server is ready (the mission's last command), or not: e toggles."""
        offer = self.plan.enable_offer
        if offer is None:
            return
        finish = [step for step in self.plan.finish if step != offer]
        self.plan = self.plan.enabling() if len(finish) == len(self.plan.finish) else _without(self.plan, finish)
        self.restart_plan = self.plan
        self._repaint()

    def action_hand_back(self) -> None:
        """Hand the server back to its unit instead of relaunching it by hand, or not: u toggles."""
        if self.handback is None:
            return
        self.plan = self.restart_plan if self.handing_back else self.handback
        self._repaint()

    def _repaint(self) -> None:
        self.body, self.plain = self._body(), self._words()
        self.query_one("#confirm-text", Static).update(self.body)
        self.query_one("#confirm-dialog").border_title = Text(visible(_title(self.plan)))
        self.refresh_bindings()

    def _offer(self) -> str | None:
        """The dialog's line about the hand-back: what u does, or why there is none."""
        if self.handback is not None and self.handing_back:
            return "pressing u restarts the hand-started server instead (relaunched by hand, the unit untouched)"
        if self.handback is not None:
            unit = getattr(self.handback, "unit", "its unit")
            return (f"this hand-started server replaced {unit}: pressing u hands it back to the unit instead (stop "
                    f"it, write the unit with this profile, daemon-reload, start, enable once ready; a failure "
                    f"relaunches it by hand)")
        return self.handback_note

    def _body(self) -> RenderableType:
        offer = self._offer()
        body = plan_body(self.plan)
        return Group(Text(visible(f"note: {offer}"), "bold yellow"), body) if offer else body

    def _words(self) -> str:
        """The whole plan as text: what `c` copies and `s` saves."""
        from mtptui.ops.restart.text import render_plan

        offer = self._offer()
        return visible((f"note: {offer}\n" if offer else "") + render_plan(self.plan))


def _title(plan: RestartPlan) -> str:
    unit = getattr(plan, "unit", None)
    if unit:
        return f"Hand {plan.host}'s server back to {unit} with profile {plan.profile}?"
    return f"Restart {plan.host} with profile {plan.profile}?"


def _without(plan: RestartPlan, finish: list[Step]) -> RestartPlan:
    from dataclasses import replace

    return replace(plan, finish=finish)
