"""Write a launch back into a unit: a new ExecStart= and Environment= lines, every other line untouched."""

from __future__ import annotations

from typing import Protocol

from mtptui.config.models import ENV_NAME
from mtptui.engines.sglang.flags.command import flag_groups
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.unit.syntax import quote_word
from mtptui.engines.sglang.unit.unit import Unit


class Launch(Protocol):
    """What a unit's launch is written from: SGLang's FlagSet, or another engine's launch with its own groups."""

    @property
    def entry_argv(self) -> list[str]: ...

    env: dict[str, str]


def exec_start_lines(fs: FlagSet | Launch, prefix: str = "", multiline: bool = True,
                     groups: list[list[str]] | None = None) -> list[str]:
    """``ExecStart=`` for a flag set, one flag per continuation line when ``multiline``; ``groups`` are the
    option words per flag when they are not a FlagSet's (another engine's launch)."""
    parts = [" ".join(quote_word(w) for w in fs.entry_argv)]
    if groups is None:
        assert isinstance(fs, FlagSet), "a launch that is not SGLang's FlagSet brings its groups"
        groups = flag_groups(fs)
    parts += [" ".join(quote_word(w) for w in group) for group in groups]
    if not multiline:
        return [f"ExecStart={prefix}{' '.join(parts)}\n"]
    lines = [f"    {part} \\\n" for part in parts[1:]]
    if lines:
        lines[-1] = lines[-1][:-3] + "\n"
    return [f"ExecStart={prefix}{parts[0]}" + (" \\\n" if lines else "\n"), *lines]


def environment_lines(env: dict[str, str]) -> list[str]:
    """One ``Environment="NAME=value"`` line per variable, sorted; a name systemd would drop is a FlagError."""
    for name in env:
        if not ENV_NAME.fullmatch(name):
            raise FlagError(f"{name!r} is not an environment variable name systemd accepts (letters, digits and _, "
                            f"not starting with a digit)")
    return [f"Environment={_env_word(name, value)}\n" for name, value in sorted(env.items())]


def _env_word(name: str, value: str) -> str:
    word = quote_word(f"{name}={value}", exec_line=False)
    return word if word.startswith('"') else f'"{word}"'


def with_launch(unit: Unit, fs: FlagSet | Launch, multiline: bool = True,
                groups: list[list[str]] | None = None) -> str:
    """The unit text with ``fs`` as ExecStart= and Environment=, nothing else changed (``groups``: see
    exec_start_lines)."""
    exec_start = unit.exec_start
    if exec_start is None:
        raise FlagError("the unit has no ExecStart= in [Service] to replace")
    prefix = unit.exec_prefix.replace("@", "")  # the new command line has no separate argv[0]
    replaced: dict[int, list[str]] = {exec_start.start: exec_start_lines(fs, prefix, multiline, groups)}
    dropped = set(range(exec_start.start, exec_start.end + 1))
    env_settings = unit.service("Environment")
    env_lines = environment_lines(fs.env)
    if env_settings:
        replaced[env_settings[0].start] = env_lines + replaced.get(env_settings[0].start, [])
    else:
        replaced[exec_start.start] = env_lines + replaced[exec_start.start]
    for setting in env_settings:
        dropped |= set(range(setting.start, setting.end + 1))
    out: list[str] = []
    for index, line in enumerate(unit.lines):
        out += replaced.get(index, [])
        if index not in dropped:
            out.append(line)
    text = "".join(out)
    return text if text.endswith("\n") or not text else text + "\n"
