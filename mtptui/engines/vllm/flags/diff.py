"""Side-by-side diff of two or three vLLM launches, in the shape of design.md's Diff JSON (mtptui's Diff).

A row's ``values`` are the options as written (None where unset) and ``resolved`` what vLLM reads: for a running
server what its `non-default args` line says it resolved, else argparse's conversion (`128K` is 131072);
`--speculative-config` with its method named (vLLM infers one when missing, and reads the per-model MTP names as
`mtp`); an unset option as its default. Rows come by impact: speculation first, then memory and capacity, then
the flag table's order. Secret-looking values are masked once compared.
"""

from __future__ import annotations

import json
from typing import Any

from mtptui.engines.vllm.flags.launchset import MODEL, VllmFlagSet, show
from mtptui.engines.vllm.flags.table import FlagTable, load_table
from mtptui.secrets import display_values
from mtptui.engines.sglang.flags.diff import Diff, DiffRow, EnvRow
from mtptui.engines.sglang.flags.impact import env_group

SPECULATIVE = ("--speculative-config", "--spec-")
MEMORY = frozenset({"--gpu-memory-utilization", "--max-model-len", "--max-num-seqs", "--max-num-batched-tokens",
                    "--kv-cache-dtype", "--block-size", "--swap-space", "--cpu-offload-gb", "--kv-cache-memory-bytes",
                    "--tensor-parallel-size", "--pipeline-parallel-size", "--enable-prefix-caching",
                    "--quantization", "--dtype"})


def _impact(flag: str) -> int:
    if flag == MODEL:
        return -1
    return 0 if flag.startswith(SPECULATIVE) else 1 if flag in MEMORY else 2


def _speculative(value: Any, table: FlagTable) -> str:
    """The config as vLLM reads it: keys sorted, the method named (inferred where missing, MTP aliases as mtp)."""
    if not isinstance(value, dict):
        return show(value)
    spec = {str(k).replace("-", "_"): v for k, v in value.items()}
    method = spec.get("method")
    if method is None:
        method = "ngram" if spec.get("model") in ("ngram", "[ngram]") else "draft_model"
    if method in table.speculative["mtp_methods"]:
        method = "mtp"
    return json.dumps({**spec, "method": method}, sort_keys=True)


def _resolved(flag: str, value: Any, table: FlagTable) -> str:
    return _speculative(value, table) if flag == "--speculative-config" else show(value)


def _unset(flag: str, table: FlagTable) -> str:
    if flag == MODEL:
        return "unset (required)"
    option = table.by_option(flag)
    if option is None:
        return "unset (not in this version)"
    if option.default in (None, [], "") or option.default is False and option.action == "store_true":
        return "unset"
    return f"unset (default {show(option.default)})"


def _cells(launch: VllmFlagSet) -> dict[str, tuple[str | None, str]]:
    """Flag -> (as written, as resolved); a running server's own word (``said``) is what it resolved, and an
    option it does not name there kept its default, which is what was written when it was."""
    table = load_table(launch.version)
    said = launch.said or {}
    cells: dict[str, tuple[str | None, str]] = {}
    if launch.model_path is not None or MODEL in said:
        cells[MODEL] = (launch.model_path, show(said.get(MODEL, launch.model_path)))
    for flag in [*launch.flags, *(name for name in said if name not in launch.flags and name != MODEL)]:
        written = show(launch.flags[flag]) if flag in launch.flags else None
        value = said[flag] if flag in said else launch.flags[flag]
        cells[flag] = (written, _resolved(flag, value, table))
    return cells


def diff_launches(sides: list[tuple[str, VllmFlagSet]], show_all: bool = False) -> Diff:
    """Compare two or three labelled vLLM launches: the options that differ (every one with ``show_all``)."""
    from mtptui.errors import UserError

    if not 2 <= len(sides) <= 3:
        raise UserError("a diff compares two or three launch configurations")
    table = load_table(sides[0][1].version)
    order = {option.name: index for index, option in enumerate(table.options)}
    cells = [_cells(launch) for _, launch in sides]
    keys = sorted({key for side in cells for key in side}, key=lambda k: (_impact(k), order.get(k, len(order)), k))
    rows = []
    for key in keys:
        filled = [side.get(key) or (None, _unset(key, load_table(launch.version)))
                  for side, (_, launch) in zip(cells, sides)]
        if show_all or len({written for written, _ in filled}) > 1 or len({shown for _, shown in filled}) > 1:
            rows.append(DiffRow(key, display_values(key, (w for w, _ in filled)),
                                display_values(key, (r for _, r in filled), keep=lambda v: v.startswith("unset"))))
    return Diff(tuple(label for label, _ in sides), tuple(rows), _env_rows([launch for _, launch in sides], show_all))


def _env_rows(launches: list[VllmFlagSet], show_all: bool) -> tuple[EnvRow, ...]:
    variables = sorted({var for launch in launches for var in launch.env}, key=lambda var: (env_group(var), var))
    rows = []
    for var in variables:
        values = tuple(launch.env.get(var) for launch in launches)
        if show_all or len(set(values)) > 1:
            rows.append(EnvRow(var, display_values(var, values)))
    return tuple(rows)
