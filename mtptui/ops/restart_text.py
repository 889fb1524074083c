"""Plain-text rendering of a restart plan: the diff, the lint, the exact commands, the rollback."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from mtptui.ops.restart_env import ENV_HEADING, shown_changes
from mtptui.sglang.flags.diff_text import render_diff

if TYPE_CHECKING:
    from mtptui.ops.restart import RestartPlan, Step


def _command_lines(index: int, step: Step) -> list[str]:
    command = step.command
    stdin = "   (the new unit on stdin)" if command.input is not None else ""
    first, *rest = command.shown.split("\n")
    return [f"  {index}. {command.what}{stdin}", f"     $ {first}", *(f"       {line}" for line in rest)]


def render_plan(plan: RestartPlan) -> str:
    lines = [f"Restart {plan.host} ({plan.manager}) with profile {plan.profile}.", ""]
    lines += [f"note: {note}" for note in plan.notes]
    lines += [render_diff(plan.diff) if plan.diff else "(nothing to compare the profile with)", ""]
    if env := shown_changes(plan.env):
        lines += [ENV_HEADING, *(f"  {line}" for line in env), ""]
    lines += [f"{plan.judged_by.heading}:", *(f"  {finding}" for finding in plan.findings),
              *(f"  note: {note}" for note in plan.lint_notes), *([] if plan.findings else ["  no findings"]), ""]
    lines.append("Commands:")
    for index, step in enumerate(plan.steps, start=1):
        lines += _command_lines(index, step)
    lines.append("  then watch the log until the server is ready, crashes, or the timeout passes")
    for index, step in enumerate(plan.finish, start=len(plan.steps) + 1):
        lines += [line.replace(f"  {index}. ", f"  {index}. once ready: ", 1) for line in _command_lines(index, step)]
    lines.append(f"  {plan.rollback}")
    if plan.lock:
        lines.append(f"  all of it under the restart lock {plan.lock} on the host (a second restart is refused)")
    if plan.shown_unit:
        lines += ["", f"New unit (backup of the old one: {plan.backup}):",
                  textwrap.indent(plan.shown_unit.rstrip(), "  ")]
    return "\n".join(lines)

