"""Per-version SGLang flag tables, loaded from the package data file (see scripts/gen_flag_table.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from mtptui.errors import UserError
from mtptui.engines.sglang.versions import DEFAULT_VERSION as DEFAULT_VERSION  # re-exported

PROG = "sglang serve"


@dataclass(frozen=True)
class FlagSpec:
    """What SGLang's argparse knows about one option (facts from its parser)."""

    name: str
    aliases: tuple[str, ...] = ()
    dest: str = ""
    type: str | None = None
    default: Any = None
    choices: tuple[Any, ...] | None = None
    store_true: bool = False
    nargs: str | None = None
    flag_kind: str = "value"
    required: bool = False
    action: str | None = None
    message: str | None = None

    @property
    def takes_value(self) -> bool:
        return self.flag_kind == "value"

    @property
    def is_list(self) -> bool:
        return self.nargs in ("+", "*")

    @property
    def option_strings(self) -> tuple[str, ...]:
        """Every spelling argparse registers, in its order (BooleanOptionalAction adds --no-X)."""
        return (self.name, *self.aliases)

    @property
    def negative(self) -> str | None:
        """The --no-X spelling of a boolean_optional flag."""
        return "--no-" + self.name[2:] if self.flag_kind == "boolean_optional" else None


@dataclass(frozen=True)
class FlagTable:
    """The options of one SGLang release, by primary name and by every spelling."""

    version: str
    flags: tuple[FlagSpec, ...]
    spec_builtins: tuple[str, ...]
    by_name: dict[str, FlagSpec] = field(repr=False, compare=False, default_factory=dict)
    order: dict[str, int] = field(repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        for index, spec in enumerate(self.flags):
            self.order[spec.name] = index
            for spelling in spec.option_strings:
                self.by_name.setdefault(spelling, spec)

    def get(self, spelling: str) -> FlagSpec | None:
        """The flag an exact spelling (primary name or alias) belongs to."""
        return self.by_name.get(spelling)

    def __getitem__(self, name: str) -> FlagSpec:
        return self.by_name[name]

    def __contains__(self, spelling: object) -> bool:
        return spelling in self.by_name

    def canonical(self, spelling: str) -> str | None:
        spec = self.by_name.get(spelling)
        return spec.name if spec else None


def _spec(raw: dict[str, Any]) -> FlagSpec:
    choices = raw.get("choices")
    boolean_optional = raw.get("flag_kind") == "boolean_optional"  # argparse adds the --no-X spelling itself
    return FlagSpec(
        name=raw["name"],
        aliases=tuple(a for a in raw.get("aliases", ()) if not (boolean_optional and a.startswith("--no-"))),
        dest=raw.get("dest") or raw["name"].lstrip("-").replace("-", "_"),
        type=raw.get("type"),
        default=raw.get("default"),
        choices=tuple(choices) if choices is not None else None,
        store_true=bool(raw.get("store_true")),
        nargs=raw.get("nargs"),
        flag_kind=raw.get("flag_kind", "value"),
        required=bool(raw.get("required")),
        action=raw.get("action"),
        message=raw.get("message"),
    )


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    text = resources.files("mtptui.engines.sglang.flags").joinpath("data/flags.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def versions() -> list[str]:
    """The SGLang releases with a flag table, newest first."""
    return list(_data()["versions"])


@lru_cache(maxsize=None)
def load_table(version: str = DEFAULT_VERSION) -> FlagTable:
    """The flag table of an SGLang release; an unknown release is a UserError naming the known ones."""
    entry = _data()["versions"].get(version)
    if entry is None:
        raise UserError(f"unknown SGLang version {version!r} (known: {', '.join(versions())})")
    flags = tuple(_spec(raw) for raw in entry["flags"])
    return FlagTable(version=version, flags=flags, spec_builtins=tuple(entry["spec_builtins"]))


def renamed(version: str) -> dict[str, str]:
    """Options renamed in ``version``: old name -> new name (documented renames only)."""
    return dict(_data()["renamed"].get(version, {}))


def option_changes(name: str) -> list[tuple[str, str, str]]:
    """(``added`` | ``removed``, release before, release after) for ``name``, from the reference's option diffs."""
    changes = []
    for step, diff in _data()["option_diffs"].items():
        before, after = step.split("->")
        changes += [(kind, before, after) for kind in ("added", "removed") if name in diff[kind]]
    return changes
