"""Read a systemd unit's launch (ExecStart=, Environment=, EnvironmentFile=) and write a new one back.

Everything else in the file is kept byte for byte. Works on a unit file or on `systemctl cat` output (unit
plus drop-ins): the last non-empty ExecStart= of [Service] is the command that runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.unit.syntax import SyntaxProblem, expand_specifiers, split_words, substitute_env

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags.flagset import FlagSet

EXEC_PREFIXES = "@-:+!"


@dataclass(frozen=True)
class Setting:
    """One logical ``Key=value`` line of [Service]: physical lines ``start`` to ``end`` (inclusive)."""

    key: str
    value: str
    start: int
    end: int


@dataclass
class Unit:
    """A parsed unit: its lines, [Service] settings, and the launch they describe."""

    lines: list[str]
    settings: list[Setting] = field(default_factory=list)
    name: str | None = None
    exec_prefix: str = ""
    exec_argv: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)
    environment_files: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.lines)

    def service(self, key: str) -> list[Setting]:
        return [s for s in self.settings if s.key == key]

    @property
    def exec_start(self) -> Setting | None:
        """The ExecStart= that runs (the last non-empty one)."""
        found = [s for s in self.service("ExecStart") if s.value.strip()]
        return found[-1] if found else None


def _logical_lines(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """(start, end, text) of each logical line: backslash-newline joins with a space, comments skipped."""
    i = 0
    while i < len(lines):
        start, text = i, lines[i].rstrip("\r\n")
        comment = text.lstrip().startswith(("#", ";"))
        while not comment and text.endswith("\\") and i + 1 < len(lines):
            i += 1
            following = lines[i].rstrip("\r\n")
            if following.lstrip().startswith(("#", ";")):
                continue
            text = text[:-1] + " " + following
        yield start, i, text
        i += 1


def _service_settings(lines: list[str]) -> list[Setting]:
    settings, section = [], None
    for start, end, text in _logical_lines(lines):
        stripped = text.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
        elif section == "Service" and "=" in stripped:
            key, value = stripped.split("=", 1)
            settings.append(Setting(key.strip(), value.strip(), start, end))
    return settings


def _specifiers(name: str | None) -> dict[str, str]:
    if not name:
        return {}
    base = name.rsplit(".", 1)[0]
    prefix, _, instance = base.partition("@")
    return {"n": name, "N": base, "p": prefix, "i": instance, "I": instance}


def _read_environment(unit: Unit, specifiers: dict[str, str]) -> None:
    for setting in unit.settings:
        value = expand_specifiers(setting.value, specifiers)
        if setting.key == "Environment":
            if not value:
                unit.environment.clear()
            for word, _ in split_words(value):
                name, sep, val = word.partition("=")
                if sep:
                    unit.environment[name] = val
        elif setting.key == "EnvironmentFile":
            unit.environment_files += [w for w, _ in split_words(value)] if value else []


def _read_exec(unit: Unit, specifiers: dict[str, str]) -> None:
    setting = unit.exec_start
    if setting is None:
        return
    value = setting.value
    prefix_end = 0
    while prefix_end < len(value) and value[prefix_end] in EXEC_PREFIXES:
        prefix_end += 1
    unit.exec_prefix = value[:prefix_end]
    words = split_words(expand_specifiers(value[prefix_end:], specifiers))
    argv = []
    for word, escaped in words:
        if word == ";" and not escaped:
            break
        argv.append(word)
    if "@" in unit.exec_prefix and len(argv) > 1:
        del argv[1]  # with "@", the second word is only argv[0] of the program
    unit.exec_argv = substitute_env(argv, unit.environment)


def read_unit(text: str, name: str | None = None) -> Unit:
    """Parse unit text; ``name`` (e.g. ``sglang-qwen.service``) expands ``%n``/``%N``/``%p``/``%i``.

    Raises FlagError (a UserError) on quoting systemd itself would refuse.
    """
    lines = text.splitlines(keepends=True)
    unit = Unit(lines=lines, settings=_service_settings(lines), name=name)
    specifiers = _specifiers(name)
    try:
        _read_environment(unit, specifiers)
        _read_exec(unit, specifiers)
    except SyntaxProblem as exc:
        raise FlagError(f"unit{' ' + name if name else ''}: {exc}") from None
    return unit


def unit_flagset(unit: Unit, version: str | None = None) -> FlagSet:
    """The FlagSet the unit's ExecStart= launches, with Environment= (and any `env` prefix) as env."""
    from mtptui.engines.sglang.flags import DEFAULT_VERSION
    from mtptui.engines.sglang.flags.command import parse_launch_argv

    version = version or DEFAULT_VERSION
    argv = unit.exec_argv
    if not argv:
        raise FlagError(f"unit{' ' + unit.name if unit.name else ''} has no ExecStart= in [Service]")
    flagset = parse_launch_argv(argv, version)
    flagset.env = {**unit.environment, **flagset.env}
    return flagset
