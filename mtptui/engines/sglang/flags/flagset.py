"""A launch configuration as SGLang reads it: model, flags by canonical name with typed values, env, entry."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from mtptui.engines.entry import Entries, entry_python, module_entry
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.resolve import missing_required, parse_values
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION, FlagSpec, FlagTable, load_table

if TYPE_CHECKING:
    from mtptui.config.models import FlagValue, LaunchProfile

Value = Union[bool, int, float, str, list[Any]]
"""A flag value: True for store_true, int/float/str by the flag's type, a list for nargs '+'/'*'."""

LAUNCH_MODULE = "sglang.launch_server"
ENTRIES = Entries(modules=((LAUNCH_MODULE,),), scripts=(("sglang", "serve"),))  # read by mtptui.engines.entry
DEFAULT_ENTRY = module_entry(None, LAUNCH_MODULE)
MODEL_PATH = "--model-path"


@dataclass
class FlagSet:
    """What a launch command sets.

    ``flags`` is keyed by the canonical long name of ``version``'s table (``--tensor-parallel-size`` in
    0.5.12.post1, ``--tp-size`` in 0.5.23) and excludes ``--model-path``, kept in ``model_path``.
    ``entry`` is the shell-quoted program part (``python3 -m sglang.launch_server``, ``sglang serve``).
    Values are typed by the flag's argparse type; JSON-typed options (``loads``, ``json_list_type``) keep
    their text, so a command renders back exactly.
    """

    model_path: str | None = None
    flags: dict[str, Value] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    entry: str = DEFAULT_ENTRY
    version: str = DEFAULT_VERSION

    @property
    def table(self) -> FlagTable:
        return load_table(self.version)

    @property
    def entry_argv(self) -> list[str]:
        return shlex.split(self.entry)

    @property
    def python(self) -> str | None:
        """The interpreter of a ``python -m sglang.launch_server`` entry, else None."""
        return entry_python(self.entry_argv)

    def spec(self, name: str) -> FlagSpec:
        return self.table[name]

    def get(self, name: str, default: Any = None) -> Any:
        """The value set for a flag, by any exact spelling of it; ``default`` when unset."""
        spec = self.table.get(name)
        if spec is None:
            return default
        if spec.name == MODEL_PATH:
            return self.model_path if self.model_path is not None else default
        return self.flags.get(spec.name, default)

    def is_set(self, name: str) -> bool:
        return self.get(name) is not None

    @classmethod
    def from_profile(cls, profile: "LaunchProfile", version: str = DEFAULT_VERSION) -> "FlagSet":
        """The flag set of a TOML launch profile, read through SGLang's parser (aliases and prefixes resolve)."""
        flagset = parse_argv(profile_argv(profile, version), version)
        flagset.env = dict(profile.env)
        flagset.entry = module_entry(profile.python, LAUNCH_MODULE)
        return flagset

    def to_profile_fields(self) -> dict[str, Any]:
        """Fields for a LaunchProfile: model_path, flags keyed without "--", env (and python when known)."""
        fields: dict[str, Any] = {
            "model_path": self.model_path or "",
            "flags": {name[2:]: _profile_value(value) for name, value in self.flags.items()},
            "env": dict(self.env),
        }
        if self.python:
            fields["python"] = self.python
        return fields


def profile_argv(profile: "LaunchProfile", version: str = DEFAULT_VERSION) -> list[str]:
    """SGLang's arguments for a TOML launch profile, as written (keys may be aliases or prefixes)."""
    argv = ["--model-path", profile.model_path]
    for key, value in profile.flags.items():
        argv += _profile_tokens("--" + key.removeprefix("--"), value, load_table(version))
    return argv


def _profile_value(value: Value) -> Value:
    return [str(item) for item in value] if isinstance(value, list) else value


def _profile_tokens(name: str, value: "FlagValue", table: FlagTable) -> list[str]:
    """argv words for one profile entry; False leaves a store_true flag out (or gives --no-X)."""
    spec = table.get(name)
    if value is False:
        if spec is not None and spec.flag_kind == "boolean_optional":
            return [spec.negative or name] if name == spec.name else [name]
        return []
    if value is True and (spec is None or not spec.takes_value):
        return [name]
    if isinstance(value, list):
        return [name, *(str(item) for item in value)]
    if isinstance(value, dict):  # a TOML table: the JSON object a JSON-typed flag takes
        return [name, json.dumps(value)]
    text = repr(value) if isinstance(value, float) else str(value)
    return [f"{name}={text}"] if text.startswith("-") else [name, text]


def parse_argv(argv: list[str], version: str = DEFAULT_VERSION, *, require_model: bool = True) -> FlagSet:
    """The flag set of SGLang's own arguments (no program name); FlagError carries argparse's message."""
    table = load_table(version)
    values = parse_values(argv, version)
    if require_model and (message := missing_required(values, table)):
        raise FlagError(message, flag=MODEL_PATH, fix="add --model-path PATH")
    model_path = values.pop(MODEL_PATH, None)
    return FlagSet(model_path=model_path, flags=values, version=version)
