"""The command palette's domain commands: ops screens, restore/restart per profile, log actions, themes."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable, Iterator

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from mtptui.ui.context import HostApp

Command = tuple[str, str, str]  # title, help, action string

OPS_COMMANDS: tuple[Command, ...] = (
    ("Restore the known-good profile", "restart the server with the host's known-good profile (R)",
     "ops('restore')"),
    ("Show the diff: running vs unit vs profile", "side by side, differing flags highlighted (d)", "ops('diff')"),
    ("Edit launch flags", "the validated flags form (f)", "ops('flags')"),
    ("Restart with a chosen profile", "pick a profile, confirm, watch it start; rolled back on a crash (r)",
     "ops('restart')"),
    ("Benchmark the server", "fire prompts, plot tok/s live, compare with earlier runs (b)", "ops('bench')"),
    ("Tune the speculative settings", "restart with each arm of a grid, bench, canary, keep the best (T)",
     "ops('tune')"),
)
HOST_CHANGING = ("ops('restore')", "ops('restart')")
LOG_COMMANDS: tuple[Command, ...] = (
    ("Find in the log", "highlight a text; n / N jump between matches (/)", "screen.find"),
    ("Filter the log", "keep lines holding a text; !text hides them (\\)", "screen.filter"),
    ("Clear the log filter", "show every line again", "screen.clear_filter"),
    ("Toggle line wrap", "wrap long log lines (w)", "screen.wrap"),
    ("Pause or resume following the log", "space / End", "screen.follow"),
    ("Copy the current log line", "to the clipboard (c)", "screen.copy_line"),
    ("Show keys and help", "F1 / ?", "help"),
)


class DomainCommands(Provider):
    """mtptui's own commands, next to Textual's system commands."""

    @property
    def mtp_app(self) -> "HostApp":
        return self.app  # type: ignore[return-value]

    def commands(self) -> Iterator[Command]:
        readonly = self.mtp_app.readonly  # what --readonly refuses is not offered
        yield from (command for command in OPS_COMMANDS if not (readonly and command[2] in HOST_CHANGING))
        host = self.mtp_app.context.host
        for name, profile in sorted(host.own_profiles().items()) if host and not readonly else ():
            yield f"Restart with profile {name}", profile.note or "restart the server with this profile", \
                f"ops('restart', {name!r})"
        yield from LOG_COMMANDS
        for theme in sorted(self.mtp_app.shipped_themes):
            yield f"Theme: {theme}", "switch the colors (t cycles)", f"use_theme({theme!r})"

    def _run(self, action: str) -> Callable[[], object]:
        return partial(self.app.run_action, action)

    async def discover(self) -> Hits:
        for title, help_text, action in self.commands():
            yield DiscoveryHit(title, self._run(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in self.commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), self._run(action), help=help_text)
