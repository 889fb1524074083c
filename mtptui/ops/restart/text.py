"""Plain-text rendering of a restart plan: the diff, the lint, the exact commands, the rollback."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from mtptui.remote.unitenv import ENV_HEADING, shown_changes
from mtptui.engines.sglang.flags.diff_text import render_diff

if TYPE_CHECKING:
    from mtptui.ops.restart.plan import RestartPlan, Step


def _command_lines(index: int, step: Step) -> list[str]:
    command = step.command
    stdin = "   (the new file on stdin)" if command.input is not None else ""
    first, *rest = command.shown.split("\n")
    return [f"  {index}. {command.what}{stdin}", f"     $ {first}", *(f"       {line}" for line in rest)]


def service_facts(plan: RestartPlan, enable_hint: str = "mtptui restart --enable") -> list[str]:
    """What the plan shows of the service beyond the commands: its drop-ins, whether it is enabled (and how to
    have the restart enable it: ``enable_hint``)."""
    lines = [f"service: {', '.join(f'{k}={v}' for k, v in plan.facts.items())}"] if plan.facts else []
    if plan.enable_offer is not None and plan.enable_offer not in plan.finish:
        lines.append(f"note: the unit is not enabled, so it would not start at boot; {enable_hint} runs "
                     f"{plan.enable_offer.command.shown} once the server is ready")
    return lines


def render_plan(plan: RestartPlan) -> str:
    lines = [f"Restart {plan.host} ({plan.manager}) with profile {plan.profile}.", ""]
    lines += [f"note: {note}" for note in plan.notes] + service_facts(plan)
    lines += [render_diff(plan.diff) if plan.diff else "(nothing to compare the profile with)", ""]
    if env := shown_changes(plan.env):
        lines += [ENV_HEADING, *(f"  {line}" for line in env), ""]
    lines += [f"{plan.judged_by.heading}:", *(f"  {finding}" for finding in plan.findings),
              *(f"  note: {note}" for note in plan.lint_notes), *([] if plan.findings else ["  no findings"]), ""]
    lines.append("Commands:")
    gateway = plan.drain
    lines += [f"  gateway: {line}" for line in (gateway.before() if gateway else [])]
    for index, step in enumerate(plan.steps, start=1):
        lines += _command_lines(index, step)
    lines.append("  then watch the log until the server is ready, crashes, or the timeout passes")
    lines += [f"  gateway, once ready: {line}" for line in (gateway.after() if gateway else [])]
    for index, step in enumerate(plan.finish, start=len(plan.steps) + 1):
        lines += [line.replace(f"  {index}. ", f"  {index}. once ready: ", 1) for line in _command_lines(index, step)]
    lines.append(f"  {plan.rollback}")
    if plan.lock:
        lines.append(f"  all of it under the restart lock {plan.lock} on the host (a second restart is refused)")
    if plan.shown_unit:
        lines += ["", f"New {plan.written or 'unit'} (backup of the old one: {plan.backup}):",
                  textwrap.indent(plan.shown_unit.rstrip(), "  ")]
    return "\n".join(lines)

