"""Rich renderings of the restart flow: the confirm dialog's body (exactly what will change) and the banner.

No Textual here: ``plan_body(plan)`` and ``RestartView`` are plain data to text, so tests read them directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from mtptui.text import visible
from mtptui.ops.restart_env import shown_changes
from mtptui.ops.restart_result import SERVER_STEPS

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}
STEPS = (("stopping", "stopping"), ("starting", "starting"), ("loading", "loading"),
         ("allocating", "allocating"), ("capturing_graphs", "capturing graphs"), ("warming_up", "warming up"),
         ("ready", "ready"))
STEP_ORDER = {step: index for index, (step, _) in enumerate(STEPS)}


def side_title(label: str) -> str:
    """A column title for a side label: ``unit:/etc/x.service`` -> ``unit x.service``."""
    kind, _, rest = visible(label).partition(":")
    return f"{kind} {rest.rsplit('/', 1)[-1]}" if rest else kind


def diff_table(diff) -> Table:
    """Differing flags and env vars, one column per side, values as SGLang resolves them (plain text: no markup)."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column("flag", style="bold", no_wrap=True)
    for label in diff.sides:
        table.add_column(side_title(label), overflow="fold")
    for row in diff.rows:
        table.add_row(Text(visible(row.flag)), *(Text(visible(value)) for value in row.resolved))
    for env in diff.env:
        table.add_row(Text(f"env {visible(env.var)}"),
                      *(Text(visible(value) if value is not None else "unset") for value in env.values))
    return table


def findings_text(findings) -> Text:
    text = Text()
    for finding in findings:
        style = SEVERITY_STYLE.get(finding.severity, "")
        text.append(f"{finding.severity}: ", style)
        text.append(visible(f"{finding.flag + ' ' if finding.flag else ''}{finding.message}"))
        if finding.fix:
            text.append(visible(f" Fix: {finding.fix}."), "italic")
        text.append("\n")
    text.rstrip()
    return text


def commands_text(plan) -> Text:
    text = Text()
    for index, step in enumerate(plan.steps + plan.finish, start=1):
        later = " (once ready)" if step in plan.finish else ""
        text.append(f"{index}. {step.command.what}{later}\n", "bold")
        first, *rest = visible(step.command.shown).split("\n")
        text.append(f"   $ {first}\n", "cyan")
        if rest:  # a shell script (stop the process group, launch detached): its last line holds the arguments
            if len(rest) > 1:
                text.append(f"     … {len(rest) - 1} more script lines (mtptui restart --dry-run prints them)\n", "dim")
            text.append(f"     {rest[-1]}\n", "cyan")
    return text


def lint_parts(plan) -> list[RenderableType]:
    """The lint and who judged it: SGLang on the host, or the offline table and why."""
    source = plan.judged_by
    heading = Text.assemble(("\nLint", "bold underline"), (f" by {visible(source.phrase)}", "bold"))
    parts: list[RenderableType] = [heading]
    if source.reason:
        parts.append(Text(visible(f"(not the host's SGLang: {source.reason})"), "dim"))
    parts.append(findings_text(plan.findings) if plan.findings else Text("no findings", "dim"))
    parts += [Text(visible(f"note: {note}"), "yellow") for note in plan.lint_notes]
    return parts


def plan_body(plan, force: bool = False) -> RenderableType:
    """What the confirm dialog shows: notes, the diff, lint, the exact commands, and what a rollback does."""
    parts: list[RenderableType] = [Text(visible(f"Restart {plan.host} ({plan.manager}) with profile {plan.profile}."),
                                        "bold")]
    parts += [Text(visible(f"note: {note}"), "yellow") for note in plan.notes]
    if plan.diff is not None and not plan.diff.empty:
        parts += [Text("\nWhat changes", "bold underline"), diff_table(plan.diff)]
    elif plan.diff is not None:
        parts.append(Text("\nNo flag changes: the server restarts with the same launch.", "dim"))
    if env := shown_changes(plan.env):
        parts += [Text.assemble(("\nEnvironment of the new unit", "bold underline"),
                                ("  mtptui restart --drop-env NAME leaves out one it keeps", "dim")),
                  Text(visible("\n".join(env)))]
    parts += lint_parts(plan)
    if plan.blocking:
        flag = plan.blocking[0].flag
        where = f" ({visible(flag)})" if flag else ""
        parts.append(Text(f"SGLang would stop at start{where}: confirming restarts anyway, and the automatic "
                          f"rollback brings the previous launch back.", "bold red"))
    parts += [Text("\nCommands", "bold underline"), commands_text(plan),
              Text("then the log is watched until the server is ready, crashes or times out; "
                   + visible(plan.rollback), "italic")]
    return Group(*parts)


@dataclass
class RestartView:
    """The banner's state: the profile, the steps seen, the last message, and how it ended."""

    profile: str
    step: str = "plan"
    launch: str = "target"
    message: str = "planning"
    at_s: float = 0.0
    shards: str | None = None
    outcome: str | None = None
    reason: str | None = None
    summary: str | None = None
    seen: set[str] = field(default_factory=set)
    tail: str | None = None
    end: str | None = None

    def apply(self, event) -> None:
        self.step, self.launch, self.message, self.at_s = event.step, event.launch, visible(event.message), event.at_s
        if event.launch == "target":
            self.seen.add(event.step)
        if event.step == "loading" and event.detail.get("total"):
            self.shards = f"{event.detail['done']}/{event.detail['total']}"
        if event.step == "crashed" and self.reason is None:
            self.reason = self.message

    def finish(self, result) -> None:
        self.outcome, self.summary, self.at_s = result.outcome, visible(result.summary()), result.elapsed_s
        self.reason = visible(result.reason) if result.reason is not None else None
        self.tail = TAILS.get(result.outcome, "the rollback failed too: see the log")
        if result.outcome == "rolled_back" and result.changed and not SERVER_STEPS & {r.step for r in result.changed}:
            self.tail = "rolled back the unit: the server that ran before was never stopped"
        self.end = visible(str(result.end)) if getattr(result, "end", None) is not None else None

    def render(self) -> Text:
        if self.outcome is not None:
            return self._outcome()
        text = Text.assemble(("restarting ", "bold yellow"), (f"profile {visible(self.profile)} ", "bold"),
                             (f"· {self.at_s:4.0f} s  ", "dim"))
        if self.launch == "rollback":
            text.append("ROLLING BACK ", "bold red")
        text.append_text(self._steps())
        text.append(f"\n{self.message}", "italic")
        return text

    def _steps(self) -> Text:
        text = Text()
        current = STEP_ORDER.get(self.step, -1) if self.launch == "target" else -1
        for index, (step, label) in enumerate(STEPS):
            if step == "loading" and self.shards:
                label = f"loading shards {self.shards}"
            done = step in self.seen and index < current
            style = "bold reverse yellow" if index == current else "green" if done else "dim"
            text.append(f"{'✓ ' if done else ''}{label}", style)
            if index < len(STEPS) - 1:
                text.append(" → ", "dim")
        return text

    def _outcome(self) -> Text:
        if self.outcome == "ready":
            return Text.assemble(("✓ restarted ", "bold green"), (self.summary or "", ""))
        """Where the host stands first (it must not be cut off), then why the new profile failed."""
        crashed = "crashed" if "crashed" in self.seen and not (self.reason or "").startswith("crashed") else "failed"
        head = HEADS.get(self.outcome, "✗ restart rolled back " if self.outcome.startswith("rolled_back") else
                         "✗ restart and rollback failed ")
        text = Text.assemble((head, "bold red"), (f"· profile {visible(self.profile)} {crashed} · ", ""),
                             (self.tail, "bold"),
                             (f"  ({self.at_s:.0f} s)\n", "dim"), (self.reason or "unknown reason", "italic"))
        if self.end:
            text.append(f"\nnow: {self.end}", "bold")
        return text


HEADS = {"aborted": "✗ restart stopped before any change ", "unreachable": "✗ restart lost its host "}
TAILS = {"rolled_back": "rolled back to the previous command, ready again",
         "rolled_back_stopped": "rolled back: nothing ran before, the server is stopped",
         "aborted": "nothing was changed, the server was left alone",
         "unreachable": "the host went away: what runs there now is unknown, nothing more was done"}
