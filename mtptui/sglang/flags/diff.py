"""Side-by-side diff of two or three flag sets: one row per flag that differs, plus environment variables.

A row's ``values`` are the values as written (None where unset) and ``resolved`` what SGLang will use
(``"2 (auto)"``, ``"unset (default 0.9)"``). A flag differs when its written or its resolved values differ.
Flags are matched by what they set (argparse ``dest``), so aliases, prefixes and versions line up.
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.sglang.flags.effective import Effective, _text, resolve_effective
from mtptui.sglang.flags.errors import FlagError
from mtptui.sglang.flags.flagset import MODEL_PATH, FlagSet


@dataclass(frozen=True)
class DiffRow:
    flag: str
    values: tuple[str | None, ...]
    resolved: tuple[str, ...]


@dataclass(frozen=True)
class EnvRow:
    var: str
    values: tuple[str | None, ...]


@dataclass(frozen=True)
class Diff:
    """The differing flags and env vars of labelled sides (``to_json()`` is design.md's Diff JSON)."""

    sides: tuple[str, ...]
    rows: tuple[DiffRow, ...]
    env: tuple[EnvRow, ...]

    @property
    def empty(self) -> bool:
        return not self.rows and not self.env

    def to_json(self) -> dict[str, object]:
        """``{"sides": [...], "rows": [{"flag", "values", "resolved"}], "env": [{"var", "values"}]}``."""
        return {
            "sides": list(self.sides),
            "rows": [{"flag": r.flag, "values": list(r.values), "resolved": list(r.resolved)} for r in self.rows],
            "env": [{"var": e.var, "values": list(e.values)} for e in self.env],
        }

    def render_text(self) -> str:
        from mtptui.sglang.flags.diff_text import render_diff

        return render_diff(self)


@dataclass(frozen=True)
class _Cell:
    written: str | None
    resolved: str


def _side_cells(fs: FlagSet, model_arch: str | None) -> dict[str, tuple[str, _Cell]]:
    """dest -> (canonical name, cell) for every flag written or resolved on one side."""
    table = fs.table
    effective = resolve_effective(fs, model_arch)
    cells: dict[str, tuple[str, _Cell]] = {}
    if fs.model_path is not None:
        cells[table[MODEL_PATH].dest] = (MODEL_PATH, _Cell(fs.model_path, fs.model_path))
    for name in list(fs.flags) + [n for n in effective if n not in fs.flags]:
        spec = table[name]
        written = _text(fs.flags[name]) if name in fs.flags else None
        cells[spec.dest] = (spec.name, _Cell(written, _resolved(fs, name, written, effective)))
    return cells


def _resolved(fs: FlagSet, name: str, written: str | None, effective: dict[str, Effective]) -> str:
    if name in effective:
        return str(effective[name])
    return written if written is not None else _unset(fs, name)


def _unset(fs: FlagSet, dest_or_name: str) -> str:
    spec = fs.table.get(dest_or_name)
    if spec is None:
        return "unset"
    if spec.name == MODEL_PATH:
        return "unset (required)"
    if spec.default is None or spec.default == []:
        return "unset"
    return str(Effective(spec.default, "default"))


def _unset_for_dest(fs: FlagSet, dest: str) -> str:
    spec = next((s for s in fs.table.flags if s.dest == dest), None)
    return _unset(fs, spec.name) if spec else "unset (not in this version)"


def _order(sides: list[FlagSet], dest: str) -> int:
    first = sides[0].table
    spec = next((s for s in first.flags if s.dest == dest), None)
    return -1 if spec and spec.name == MODEL_PATH else first.order.get(spec.name, 10**6) if spec else 10**6


def diff_flagsets(sides: list[tuple[str, FlagSet]], model_arch: str | None = None) -> Diff:
    """Compare two or three labelled flag sets; flags in the first side's table order."""
    if not 2 <= len(sides) <= 3:
        raise FlagError("a diff compares two or three launch configurations")
    flagsets = [fs for _, fs in sides]
    cells = [_side_cells(fs, model_arch) for fs in flagsets]
    names = {dest: name for side in reversed(cells) for dest, (name, _) in side.items()}
    rows = []
    for dest in sorted(names, key=lambda d: (_order(flagsets, d), names[d])):
        row_cells = [side[dest][1] if dest in side else _Cell(None, _unset_for_dest(fs, dest))
                     for side, fs in zip(cells, flagsets)]
        if len({c.written for c in row_cells}) > 1 or len({c.resolved for c in row_cells}) > 1:
            rows.append(DiffRow(names[dest], tuple(c.written for c in row_cells), tuple(c.resolved for c in row_cells)))
    return Diff(tuple(label for label, _ in sides), tuple(rows), _env_rows(flagsets))


def _env_rows(flagsets: list[FlagSet]) -> tuple[EnvRow, ...]:
    variables = sorted({var for fs in flagsets for var in fs.env})
    rows = []
    for var in variables:
        values = tuple(fs.env.get(var) for fs in flagsets)
        if len(set(values)) > 1:
            rows.append(EnvRow(var, values))
    return tuple(rows)
