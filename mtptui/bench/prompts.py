"""Prompt sets: the built-in ones in `configs/prompts.toml`, the user's, and any TOML file named on the command line.

A file holds `[sets.NAME]` tables, each with `description` and `[[sets.NAME.prompts]]` entries, or (for a single
set) a top-level `prompts` array. A prompt has `name`, `text`, and optionally `system`, `context` and
`context_repeat` (`context` repeated that many times is placed before `text`: a cheap long prompt).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mtptui.config.files import INPUT_FILE_LIMIT, read_bounded
from mtptui.config.paths import config_home, shipped_config
from mtptui.errors import ConfigError, UserError

DEFAULT_SET = "rbtree"


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str
    system: str | None = None

    def messages(self) -> list[dict[str, str]]:
        """The chat messages sent for this prompt."""
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + [{"role": "user", "content": self.text}]


@dataclass(frozen=True)
class PromptSet:
    name: str
    prompts: tuple[Prompt, ...]
    description: str = ""
    source: str = ""

    def digest(self) -> str:
        """A short hash of the exact messages, so history only compares runs over the same prompts."""
        blob = json.dumps([p.messages() for p in self.prompts], sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def cycle(self, index: int) -> Prompt:
        return self.prompts[index % len(self.prompts)]


def _prompt(raw: Any, where: str) -> Prompt:
    if not isinstance(raw, dict) or not isinstance(raw.get("text"), str) or not raw["text"].strip():
        raise ConfigError(f"{where}: every prompt needs a non-empty `text`")
    repeat = raw.get("context_repeat", 1)
    context = raw.get("context", "")
    if not isinstance(context, str) or not isinstance(repeat, int) or repeat < 0:
        raise ConfigError(f"{where}: `context` must be text and `context_repeat` a non-negative integer")
    text = (context.strip() + "\n") * repeat + raw["text"].strip() if context.strip() else raw["text"].strip()
    system = raw.get("system")
    return Prompt(name=str(raw.get("name") or where), text=text, system=system if isinstance(system, str) else None)


def _set(name: str, raw: Any, source: str) -> PromptSet:
    prompts = raw.get("prompts") if isinstance(raw, dict) else None
    if not isinstance(prompts, list) or not prompts:
        raise ConfigError(f"{source}: prompt set {name!r} has no prompts")
    parsed = tuple(_prompt(p, f"{source}: set {name!r} prompt {i + 1}") for i, p in enumerate(prompts))
    return PromptSet(name, parsed, str(raw.get("description", "")), source)


def read_sets(path: Path) -> dict[str, PromptSet]:
    """Every prompt set in one TOML file (a file with only top-level `prompts` is one set named after it)."""
    if not path.exists():
        raise UserError(f"{path}: no such prompt file")
    body = read_bounded(path, "prompt file", INPUT_FILE_LIMIT, UserError)
    try:
        data = tomllib.loads(body.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if isinstance(data.get("sets"), dict):
        return {name: _set(name, raw, str(path)) for name, raw in data["sets"].items()}
    return {path.stem: _set(path.stem, data, str(path))}


def builtin_files() -> list[Path]:
    """Prompt files searched by set name: the user's `$XDG_CONFIG_HOME/mtptui/prompts.toml`, then the shipped one."""
    candidates = [config_home() / "prompts.toml", shipped_config("prompts.toml")]
    return [p for p in candidates if p.is_file()]


def available_sets() -> dict[str, PromptSet]:
    """Named sets from the search files; the user's file wins on a name clash."""
    found: dict[str, PromptSet] = {}
    for path in builtin_files():
        for name, prompt_set in read_sets(path).items():
            found.setdefault(name, prompt_set)
    return found


def _from_file(spec: str) -> PromptSet:
    path_text, _, name = spec.partition(".toml:")
    path = Path(path_text + ".toml" if name else spec).expanduser()
    sets = read_sets(path)
    if name:
        if name not in sets:
            raise UserError(f"{path}: no prompt set {name!r} (sets: {', '.join(sorted(sets))})")
        return sets[name]
    if len(sets) != 1:
        raise UserError(f"{path} holds several prompt sets; pick one with {path}:NAME ({', '.join(sorted(sets))})")
    return next(iter(sets.values()))


def load_prompt_set(spec: str | None) -> PromptSet:
    """The prompt set named `spec`, or read from the TOML file `spec` (`FILE.toml:NAME` picks one set)."""
    spec = spec or DEFAULT_SET
    if spec.endswith(".toml") or ".toml:" in spec or Path(spec).expanduser().is_file():
        return _from_file(spec)
    sets = available_sets()
    if spec not in sets:
        known = ", ".join(sorted(sets)) or "none found"
        raise UserError(f"unknown prompt set {spec!r} (known: {known}; or give a TOML file)")
    return sets[spec]
