"""Side-by-side diff of two or three flag sets: one row per flag that differs, plus environment variables.

A row's ``values`` are the values as written (None where unset) and ``resolved`` what SGLang will use
(``"2 (auto)"``, ``"unset (default 0.9)"``). A flag differs when its written or its resolved values differ.
Values of secret-looking flags and env vars (``--api-key``, ``HF_TOKEN``) are masked (mtptui.secrets) once the
comparison is made on the real ones.
Flags are matched through their spellings and documented renames, so aliases, prefixes and versions line up.
Rows come by impact: speculative flags first, then memory and capacity, then the rest
(mtptui.engines.sglang.flags.impact).
"""

from __future__ import annotations

from dataclasses import dataclass

from mtptui.secrets import display_values
from mtptui.engines.sglang.flags.effective import Effective, resolve_effective, show_value
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.flagset import MODEL_PATH, FlagSet
from mtptui.engines.sglang.flags.impact import env_group, flag_group
from mtptui.engines.sglang.flags.table import FlagTable, renamed


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


@dataclass(frozen=True)
class _Cell:
    written: str | None
    resolved: str


def row_key(name: str, fs: FlagSet, first: FlagTable) -> str:
    """The first side's canonical name for a flag of ``fs`` (through aliases and documented renames)."""
    spec = fs.table[name]
    for spelling in spec.option_strings:
        if spelling in first:
            return first[spelling].name
    for old, new in {**renamed(first.version), **_reverse(renamed(fs.version))}.items():
        if spec.name == old and new in first:
            return first[new].name
    return spec.name


def _reverse(mapping: dict[str, str]) -> dict[str, str]:
    return {new: old for old, new in mapping.items()}


def _side_cells(fs: FlagSet, first: FlagTable, model_arch: str | None) -> dict[str, _Cell]:
    """Row key -> cell for every flag written or resolved on one side."""
    effective = resolve_effective(fs, model_arch)
    cells: dict[str, _Cell] = {}
    if fs.model_path is not None:
        cells[MODEL_PATH] = _Cell(fs.model_path, fs.model_path)
    for name in list(fs.flags) + [n for n in effective if n not in fs.flags]:
        written = show_value(fs.flags[name]) if name in fs.flags else None
        cells[row_key(name, fs, first)] = _Cell(written, _resolved(fs, name, written, effective))
    return cells


def _missing_cell(fs: FlagSet, key: str, first: FlagTable) -> _Cell | None:
    """The cell of a flag this side leaves unset; None when its version has no such flag."""
    for name in fs.table.by_name:
        if row_key(name, fs, first) == key:
            return _Cell(None, _unset(fs, name))
    return None


def _resolved(fs: FlagSet, name: str, written: str | None, effective: dict[str, Effective]) -> str:
    if name in effective:
        return str(effective[name])
    return written if written is not None else _unset(fs, name)


def _unset(fs: FlagSet, name: str) -> str:
    spec = fs.table.get(name)
    if spec is None:
        return "unset"
    if spec.name == MODEL_PATH:
        return "unset (required)"
    if spec.default is None or spec.default == []:
        return "unset"
    return str(Effective(spec.default, "default"))


def _not_a_value(resolved: str) -> bool:
    """A resolved cell that says a flag is unset (its default, or missing in a version), not what it holds."""
    return resolved.startswith("unset")


def diff_flagsets(sides: list[tuple[str, FlagSet]], model_arch: str | None = None, show_all: bool = False) -> Diff:
    """Compare two or three labelled flag sets; rows in the first side's table order, named by its version.

    Only differing rows, unless ``show_all``: then every flag any side writes or resolves, and every env var.
    """
    if not 2 <= len(sides) <= 3:
        raise FlagError("a diff compares two or three launch configurations")
    flagsets = [fs for _, fs in sides]
    first = flagsets[0].table
    cells = [_side_cells(fs, first, model_arch) for fs in flagsets]
    keys = sorted({key for side in cells for key in side},  # by impact (flags.impact), then table order
                  key=lambda k: (flag_group(k), -1 if k == MODEL_PATH else first.order.get(k, len(first.order)), k))
    rows = []
    for key in keys:
        row = [side.get(key) or _missing_cell(fs, key, first) for side, fs in zip(cells, flagsets)]
        if not show_all and any(cell is None for cell in row) and all(c is None or c.written is None for c in row):
            continue  # only resolved defaults, and some version has no such flag: not a difference anyone made
        filled = [cell or _Cell(None, "unset (not in this version)") for cell in row]
        if show_all or len({c.written for c in filled}) > 1 or len({c.resolved for c in filled}) > 1:
            rows.append(DiffRow(key, display_values(key, (c.written for c in filled)),
                                display_values(key, (c.resolved for c in filled), keep=_not_a_value)))
    return Diff(tuple(label for label, _ in sides), tuple(rows), _env_rows(flagsets, show_all))


def _env_rows(flagsets: list[FlagSet], show_all: bool = False) -> tuple[EnvRow, ...]:
    variables = sorted({var for fs in flagsets for var in fs.env}, key=lambda var: (env_group(var), var))
    rows = []
    for var in variables:
        values = tuple(fs.env.get(var) for fs in flagsets)
        if show_all or len(set(values)) > 1:  # compared on the real values, shown masked when the name looks secret
            rows.append(EnvRow(var, display_values(var, values)))
    return tuple(rows)
