"""Rich renderings of the restart flow: the confirm dialog's body (exactly what will change) and the banner.

No Textual here: ``plan_body(plan)`` and ``RestartView`` are plain data to text, so tests read them directly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.table import Table
from rich.text import Text

from mtptui.engines.registry import engine
from mtptui.engines.sglang.flags.diff_text import shown_cell
from mtptui.text import visible
from mtptui.ops.restart.text import service_facts
from mtptui.remote.unitenv import shown_changes
from mtptui.ops.restart.result import SERVER_STEPS

if TYPE_CHECKING:
    from mtptui.ops.progress import RestartEvent
    from mtptui.ops.restart.plan import RestartPlan
    from mtptui.ops.restart.result import RestartResult
    from mtptui.engines.sglang.flags import Diff
    from mtptui.engines.finding import Finding

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}
STEPS = (("stopping", "stopping"), ("starting", "starting"), ("loading", "loading"),
         ("allocating", "allocating"), ("capturing_graphs", "capturing graphs"), ("warming_up", "warming up"),
         ("ready", "ready"))
GATEWAY_STEPS = (("gateway_remove", "out of gateway"), ("draining", "draining"), *STEPS,
                 ("gateway_add", "back in gateway"), ("gateway_ready", "ready in gateway"), ("canary", "canary"))


def side_title(label: str) -> str:
    """A column title for a side label: ``unit:/etc/x.service`` -> ``unit x.service``."""
    kind, _, rest = visible(label).partition(":")
    return f"{kind} {rest.rsplit('/', 1)[-1]}" if rest else kind


def diff_rows(diff: Diff) -> list[tuple[str, tuple[str, ...]]]:
    """(name, value per side) of every differing flag and env var, as the host's engine resolves them (visible text)."""
    rows = [(visible(row.flag), tuple(visible(shown_cell(written, resolved)) for written, resolved in
                                      zip(row.values, row.resolved))) for row in diff.rows]
    rows += [(f"env {visible(env.var)}", tuple(visible(value) if value is not None else "unset"
                                                for value in env.values)) for env in diff.env]
    return rows


def diff_table(diff: Diff) -> Table:
    """Differing flags and env vars, one column per side, values as the host's engine resolves them (plain text:
    no markup)."""
    table = Table(box=None, padding=(0, 2), header_style="bold")
    table.add_column("flag", style="bold", no_wrap=True)
    for label in diff.sides:
        table.add_column(side_title(label), overflow="fold")
    for name, values in diff_rows(diff):
        table.add_row(Text(name), *(Text(value) for value in values))
    return table


def change_lines(diff: Diff) -> Text:
    """The same changes as lines, ``flag: running → new`` (other sides in brackets), for a narrow dialog."""
    titles = [side_title(label) for label in diff.sides]
    text = Text.assemble((f"{titles[0]} → {titles[-1]}", "dim"))
    for name, values in diff_rows(diff):
        text.append(f"\n{name}: ", "bold")
        text.append(f"{values[0]} → {values[-1]}")
        for title, value in zip(titles[1:-1], values[1:-1]):
            text.append(f"  ({title}: {value})", "dim")
    return text


class DiffChanges:
    """The diff as a table where it fits the width it is drawn at, else as ``flag: running → new`` lines (at 80
    columns a table of 3 columns fitted 3 of 8 rows and broke words mid-name)."""

    def __init__(self, diff: Diff) -> None:
        self.diff = diff

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        table = diff_table(self.diff)
        if console.measure(table, options=options.update(width=10_000)).maximum <= options.max_width:
            yield table
        else:
            yield change_lines(self.diff)


def findings_text(findings: list[Finding]) -> Text:
    text = Text()
    for finding in findings:
        style = SEVERITY_STYLE.get(finding.severity, "")
        text.append(f"{finding.severity}: ", style)
        text.append(visible(finding.said))
        if finding.fix:
            text.append(visible(f" Fix: {finding.fix}."), "italic")
        text.append("\n")
    text.rstrip()
    return text


def gateway_text(lines: list[str], when: str) -> Text:
    """The gateway steps (mtptui.ops.restart.drain) before the stop or once ready, as the dialog lists them."""
    text = Text()
    for line in lines:
        text.append(f"gateway{when}: ", "bold")
        text.append(f"{visible(line)}\n")
    return text


def commands_text(plan: RestartPlan) -> Text:
    gateway = plan.drain
    text = gateway_text(gateway.before(), "") if gateway else Text()
    for index, step in enumerate(plan.steps + plan.finish, start=1):
        later = " (once ready)" if step in plan.finish else ""
        text.append(f"{index}. {step.command.what}{later}\n", "bold")
        first, *rest = visible(step.command.shown).split("\n")
        text.append(f"   $ {first}\n", "cyan")
        if rest:  # a shell script (stop the process group, launch detached): its last line holds the arguments
            if len(rest) > 1:
                text.append(f"     … {len(rest) - 1} more script lines (mtptui restart --dry-run prints them)\n", "dim")
            text.append(f"     {rest[-1]}\n", "cyan")
    if gateway:
        text.append_text(gateway_text(gateway.after(), ", once ready"))
    return text


def engine_label(plan: RestartPlan) -> str:
    """The name of the engine of the plan's host (SGLang for a plan that names none)."""
    return engine(getattr(plan, "engine", None)).label


def lint_parts(plan: RestartPlan) -> list[RenderableType]:
    """The lint and who judged it: the host's engine (SGLang on the host, vLLM's flag model), or the offline table
    and why."""
    source = plan.judged_by
    heading = Text.assemble(("\nLint", "bold underline"), (f" by {visible(source.phrase)}", "bold"))
    parts: list[RenderableType] = [heading]
    if source.reason:
        parts.append(Text(visible(f"(not the host's {engine_label(plan)}: {source.reason})"), "dim"))
    parts.append(findings_text(plan.findings) if plan.findings else Text("no findings", "dim"))
    parts += [Text(visible(f"note: {note}"), "yellow") for note in plan.lint_notes]
    return parts


def plan_body(plan: RestartPlan, force: bool = False) -> RenderableType:
    """What the confirm dialog shows: notes, the diff, lint, the exact commands, and what a rollback does (``e``
    in the dialog also enables a unit that is not enabled)."""
    parts: list[RenderableType] = [Text(visible(f"Restart {plan.host} ({plan.manager}) with profile {plan.profile}."),
                                        "bold")]
    parts += [Text(visible(f"note: {note}"), "yellow") for note in plan.notes]
    parts += [Text(visible(line), "yellow" if line.startswith("note:") else "dim")
              for line in service_facts(plan, enable_hint="pressing e")]
    if plan.diff is not None and not plan.diff.empty:
        parts += [Text("\nWhat changes", "bold underline"), DiffChanges(plan.diff)]
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
        parts.append(Text(f"{engine_label(plan)} would stop at start{where}: confirming restarts anyway, and the "
                          f"automatic rollback brings the previous launch back.", "bold red"))
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
    gateway: bool = False  # the restart has gateway steps: out, draining before the stop; back, ready, canary after

    @property
    def steps(self) -> tuple[tuple[str, str], ...]:
        return GATEWAY_STEPS if self.gateway else STEPS

    def apply(self, event: RestartEvent) -> None:
        self.step, self.launch, self.message, self.at_s = event.step, event.launch, visible(event.message), event.at_s
        if event.launch == "target":
            self.seen.add(event.step)
        if event.step == "loading" and event.detail.get("total"):
            self.shards = f"{event.detail['done']}/{event.detail['total']}"
        if event.step == "crashed" and self.reason is None:
            self.reason = self.message

    def finish(self, result: RestartResult) -> None:
        self.outcome, self.summary, self.at_s = result.outcome, visible(result.summary()), result.elapsed_s
        self.reason = visible(result.reason) if result.reason is not None else None
        self.tail = TAILS.get(result.outcome, "the rollback failed too: see the log")
        if result.outcome == "rolled_back" and result.changed and not SERVER_STEPS & {r.step for r in result.changed}:
            self.tail = "rolled back the unit: the server that ran before was never stopped"
        self.end = visible(str(result.end)) if getattr(result, "end", None) is not None else None

    def render(self) -> Text:
        if self.outcome is not None:
            return self._outcome(self.outcome)
        text = Text.assemble(("restarting ", "bold yellow"), (f"profile {visible(self.profile)} ", "bold"),
                             (f"· {self.at_s:4.0f} s  ", "dim"))
        if self.launch == "rollback":
            text.append("ROLLING BACK ", "bold red")
        text.append_text(self._steps())
        text.append(f"\n{self.message}", "italic")
        return text

    def _steps(self) -> Text:
        text, steps = Text(), self.steps
        order = {step: index for index, (step, _) in enumerate(steps)}
        current = order.get(self.step, -1) if self.launch == "target" else -1
        for index, (step, label) in enumerate(steps):
            if step == "loading" and self.shards:
                label = f"loading shards {self.shards}"
            done = step in self.seen and index < current
            style = "bold reverse yellow" if index == current else "green" if done else "dim"
            text.append(f"{'✓ ' if done else ''}{label}", style)
            if index < len(steps) - 1:
                text.append(" → ", "dim")
        return text

    def _outcome(self, outcome: str) -> Text:
        if outcome == "ready":
            return Text.assemble(("✓ restarted ", "bold green"), (self.summary or "", ""))
        """Where the host stands first (it must not be cut off), then why the new profile failed."""
        crashed = "crashed" if "crashed" in self.seen and not (self.reason or "").startswith("crashed") else "failed"
        head = HEADS.get(outcome, "✗ restart rolled back " if outcome.startswith("rolled_back") else
                         "✗ restart and rollback failed ")
        text = Text.assemble((head, "bold red"), (f"· profile {visible(self.profile)} {crashed} · ", ""),
                             (self.tail or "", "bold"),  # set with the outcome (finish)
                             (f"  ({self.at_s:.0f} s)\n", "dim"), (self.reason or "unknown reason", "italic"))
        if self.end:
            text.append(f"\nnow: {self.end}", "bold")
        return text


HEADS = {"aborted": "✗ restart stopped before any change ", "unreachable": "✗ restart lost its host "}
TAILS = {"rolled_back": "rolled back to the previous command, ready again",
         "rolled_back_stopped": "rolled back: nothing ran before, the server is stopped",
         "aborted": "nothing was changed, the server was left alone",
         "unreachable": "the host went away: what runs there now is unknown, nothing more was done"}
