"""vLLM's `vllm serve` options per release, as generated from the wheel (scripts/gen_vllm_flag_table.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from mtptui.errors import UserError

DATA = Path(__file__).resolve().parent / "data"
DEFAULT_VERSION = "0.32.0"


@dataclass(frozen=True)
class Option:
    """One argparse option of `vllm serve` (``options`` empty for the positional model)."""

    options: tuple[str, ...]
    dest: str
    action: str
    type: str | None = None
    nargs: str | int | None = None
    const: Any = None
    default: Any = None
    choices: tuple[Any, ...] | None = None

    @property
    def name(self) -> str:
        longs = [o for o in self.options if o.startswith("--") and not o.startswith("--no-")]
        return longs[0] if longs else (self.options[0] if self.options else self.dest)


@dataclass(frozen=True)
class FlagTable:
    version: str
    options: tuple[Option, ...]
    groups: dict[str, str]
    bounds: dict[str, dict[str, dict[str, float]]]
    speculative: dict[str, list[str]]

    def by_dest(self, dest: str) -> Option | None:
        return next((o for o in self.options if o.dest == dest), None)

    def by_option(self, word: str) -> Option | None:
        return next((o for o in self.options if word in o.options), None)


def versions() -> list[str]:
    return sorted((p.stem.removeprefix("flags-") for p in DATA.glob("flags-*.json")), reverse=True)


def _option(raw: dict[str, Any]) -> Option:
    choices = raw.get("choices")
    return Option(tuple(raw["options"]), raw["dest"], raw["action"], raw.get("type"), raw.get("nargs"),
                  raw.get("const"), raw.get("default"), tuple(choices) if choices is not None else None)


@lru_cache(maxsize=4)
def load_table(version: str = DEFAULT_VERSION) -> FlagTable:
    path = DATA / f"flags-{version}.json"
    if not path.exists():
        raise UserError(f"mtptui has no flag table for vLLM {version} (it knows {', '.join(versions())})")
    raw = json.loads(path.read_text(encoding="utf-8"))
    options = tuple(_option(o) for o in raw["options"] if o["action"] != "help")
    bounds = {config: dict(fields) for config, fields in raw["bounds"].items()}  # field order kept
    return FlagTable(raw["vllm_version"], options, raw["groups"], bounds, raw["speculative"])
