"""The environment a restart writes into the unit: the profile's variables over the unit's own.

A unit's Environment= variables that the profile does not mention (a token, a cache directory, the GPUs it may
use) stay, unless the operator drops them (``mtptui restart --drop-env NAME``). ``EnvChange`` says per variable
what happens: kept (only in the unit), same, changed, added (only in the profile) or removed (dropped), and
``where`` the unit has it when that is not its Environment= (an EnvironmentFile=). Every value the plan shows,
in text, JSON or the confirm dialog, goes through ``_shown``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection

from mtptui.errors import UserError
from mtptui.secrets import display_value

SHOWN_STATUSES = ("kept", "changed", "added", "removed")  # "same" is left out of the text: nothing happens


def _shown(name: str, value: str) -> str:
    """A variable's value as the plan shows it (the one place that decides what is displayed): secrets masked."""
    return str(display_value(name, value))  # a str stays a str, masked or not


@dataclass(frozen=True)
class EnvChange:
    """What a restart does to one variable of the unit's environment."""

    var: str
    status: str
    before: str | None
    after: str | None
    where: str | None = None  # e.g. "EnvironmentFile /etc/sglang/qwen.env"; None: the unit's Environment=

    def to_json(self) -> dict[str, str | None]:
        return {"var": self.var, "status": self.status, "before": _value(self.var, self.before),
                "after": _value(self.var, self.after), "from": self.where}

    def describe(self) -> str:
        """One line: ``kept HF_HOME=/data/hf (only in the unit)``."""
        if self.status == "changed":
            return f"changed {self.var}: {_value(self.var, self.before)} -> {_value(self.var, self.after)}"
        if self.status == "removed":
            return f"removed {self.var}={_value(self.var, self.before)} (dropped)"
        unit = f"only in {self.where}" if self.where else "only in the unit"
        where = {"kept": f" ({unit})", "added": " (from the profile)"}.get(self.status, "")
        return f"{self.status} {self.var}={_value(self.var, self.after)}{where}"


def shown_changes(changes: list[EnvChange]) -> list[str]:
    """The lines a plan shows for the unit's environment: every variable a restart keeps, changes, adds or removes."""
    return [change.describe() for change in changes if change.status in SHOWN_STATUSES]


ENV_HEADING = "Environment of the new unit (mtptui restart --drop-env NAME leaves out one it keeps):"


def with_files(changes: list[EnvChange], files: dict[str, tuple[str, str]]) -> list[EnvChange]:
    """``changes`` plus the variables of the unit's EnvironmentFile=s (``files``: name -> (value, file)), which the
    new unit keeps as they are: systemd reads them after Environment=, so they win over the profile's."""
    out = [change for change in changes if change.var not in files]
    for name, (value, path) in sorted(files.items()):
        out.append(EnvChange(name, "kept", value, value, f"EnvironmentFile {path}"))
    return sorted(out, key=lambda change: change.var)


def _value(name: str, value: str | None) -> str | None:
    return None if value is None else _shown(name, value)


def merge_env(unit_env: dict[str, str], profile_env: dict[str, str],
              drop: Collection[str] = ()) -> tuple[dict[str, str], list[EnvChange]]:
    """The environment to write, and the change of each variable; ``drop`` names unit variables to remove."""
    _check_drop(unit_env, profile_env, drop)
    merged = {name: value for name, value in unit_env.items() if name not in drop}
    merged.update(profile_env)
    changes = [_change(name, unit_env.get(name), merged.get(name), name in profile_env)
               for name in sorted({*unit_env, *profile_env})]
    return merged, changes


def _change(name: str, before: str | None, after: str | None, in_profile: bool) -> EnvChange:
    if after is None:
        status = "removed"
    elif before is None:
        status = "added"
    elif not in_profile:
        status = "kept"
    else:
        status = "same" if before == after else "changed"
    return EnvChange(name, status, before, after)


def _check_drop(unit_env: dict[str, str], profile_env: dict[str, str], drop: Collection[str]) -> None:
    for name in sorted(drop):
        if name in profile_env:
            raise UserError(f"cannot drop {name}: the profile sets it (remove it from the profile instead)")
        if name not in unit_env:
            known = ", ".join(sorted(unit_env)) or "none"
            raise UserError(f"cannot drop {name}: the unit has no such Environment= variable (it has: {known})")
