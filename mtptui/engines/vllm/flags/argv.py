"""What vLLM's FlexibleArgumentParser does to a command line before argparse sees it (facts of 0.32.0).

For `vllm serve`: a `--model M` is moved to the front as the positional model (vLLM warns it is deprecated);
without a positional model but with `--served-model-name`, vLLM refuses. `--config FILE.yaml` is replaced by
the file's keys as options, after the model and before the other options (so the command line wins).
Then option names take dashes for underscores (`--max_model_len`), `-O3` and `-O 3` become
`--optimization-level 3`, and dotted options (`--speculative-config.method ngram`) are gathered into one JSON
object per option, appended at the end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

from mtptui.engines.vllm.flags.converters import human_readable_int
from mtptui.engines.vllm.flags.errors import VllmRefusal

MODEL = re.compile(r"^--model(=.+|$)")
SERVED = re.compile(r"^--served[-_]model[-_]name(=.+|$)")
CONFIG = re.compile(r"^--config(=.+|$)")
NAME = re.compile(r"(?<=--)[^.]*")
ReadConfig = Callable[[str], str]  # a `--config` path -> the file's text (a refusal when it cannot be read)


def read_local(path: str) -> str:
    """The `--config` file on this machine, as `vllm serve` run here would read it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise VllmRefusal(type(exc).__name__, str(exc), "argparse") from None


def move_model(args: list[str]) -> tuple[list[str], list[str]]:
    """`vllm serve`'s handling of `--model` (words after `serve`); returns (args, warnings)."""
    index = next((i for i, word in enumerate(args) if MODEL.match(word)), None)
    warnings = []
    if index is not None:
        warnings.append("With `vllm serve`, you should provide the model as a positional argument or in a config "
                        "file instead of via the `--model` option.")
        if args[index] == "--model":
            tag, rest = (args[index + 1] if index + 1 < len(args) else None), index + 2
        else:
            tag, rest = args[index].removeprefix("--model="), index + 1
        args = [*([tag] if tag is not None else []), *args[:index], *args[rest:]]
    if args and args[0].startswith("-") and not any(CONFIG.match(w) for w in args) \
            and any(SERVED.match(w) for w in args):
        raise VllmRefusal("ValueError", "`model` should be provided as the first positional argument when using "
                          "`vllm serve`. i.e. `vllm serve <model> --<arg> <value>`.", "argparse")
    return args, warnings


def config_words(path: str, known_no: set[str], read: ReadConfig = read_local) -> list[str]:
    """A YAML config file as options, the way vLLM flattens it (booleans as flags, dicts as JSON); ``read`` gives
    the file's text (this machine's file by default; a host's launch reads the host's)."""
    import yaml

    if path.split(".")[-1] not in ("yaml", "yml"):
        raise VllmRefusal("ValueError", f"Config file must be of a yaml/yml type. {path.split('.')[-1]} supplied",
                          "argparse")
    try:
        loaded = yaml.safe_load(read(path))
    except yaml.YAMLError as exc:
        raise VllmRefusal(type(exc).__name__, str(exc).splitlines()[0], "argparse") from None
    words: list[str] = []
    for key, value in (loaded or {}).items():
        words += _config_option(str(key), value, known_no)
    return words


def _config_option(key: str, value: Any, known_no: set[str]) -> list[str]:
    if isinstance(value, bool):
        if value:
            return [f"--{key}"]
        return [f"--no-{key}"] if f"--no-{key}" in known_no else []
    if isinstance(value, list):
        return [f"--{key}", *map(str, value)] if value else []
    if isinstance(value, dict):
        return [f"--{key}", json.dumps(value)]
    return [f"--{key}", str(value)]


def config_path(args: list[str]) -> str | None:
    """The file a `--config FILE` in vLLM's words names (None: there is none, or no file after it)."""
    index = args.index("--config") if "--config" in args else None
    return args[index + 1] if index is not None and index + 1 < len(args) else None


def pull_config(args: list[str], known_no: set[str], serve: bool, read: ReadConfig = read_local) -> list[str]:
    """Replace `--config FILE` by the file's options (its text from ``read``), where vLLM puts them."""
    if args.count("--config") > 1:
        raise VllmRefusal("AssertionError", "More than one config file specified!", "argparse")
    index = args.index("--config")
    if index == len(args) - 1:
        raise VllmRefusal("ValueError", "No config file specified! Please check your command-line arguments.",
                          "argparse")
    from_file = config_words(args[index + 1], known_no, read)
    rest = args[:index] + args[index + 2:]
    if not serve:
        return from_file + rest
    if rest and not rest[0].startswith("-"):
        return rest[:1] + from_file + rest[1:]
    if "--model" not in from_file:
        raise VllmRefusal("ValueError", "No model specified! Please specify model either as a positional argument "
                          "or in a config file.", "argparse")
    return from_file + rest


def normalise(args: list[str]) -> tuple[list[str], list[str]]:
    """Dashes for underscores, `-O`, dotted JSON options; returns (args, warnings)."""
    words: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--"):
            key, eq, value = arg.partition("=")
            words.append(NAME.sub(lambda m: m.group(0).replace("_", "-"), key, count=1) + eq + value)
        elif arg.startswith("-O") and arg != "-O":
            words += ["--optimization-level", arg[3:] if arg[2:3] == "=" else arg[2:]]
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            words.append("--optimization-level")
        else:
            words.append(arg)
    return _gather_dotted(words)


def _dotted_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        try:
            return human_readable_int(text)
        except (ValueError, TypeError, Exception):  # noqa: B014 - vLLM falls back to the text on any failure
            return text


def _merge(into: dict[str, Any], update: dict[str, Any], path: str, duplicates: list[str]) -> None:
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value, f"{path}{key}.", duplicates)
        elif isinstance(value, list) and isinstance(into.get(key), list):
            into[key] += value
        else:
            if key in into:
                duplicates.append(path + key)
            into[key] = value


def _gather_dotted(words: list[str]) -> tuple[list[str], list[str]]:
    kept: list[str] = []
    gathered: dict[str, dict[str, Any]] = {}
    duplicates: list[str] = []
    seen: set[str] = set()
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word.startswith("--") and "." not in word:
            name = word.split("=", 1)[0]
            if name in seen:
                duplicates.append(name)
            seen.add(name)
            kept.append(word)
            continue
        if word.startswith("-") and "." in word:
            name, eq, value = word.partition("=")
            if eq and "." not in name:
                kept.append(word)
                continue
            if not eq:
                if i + 1 >= len(words):
                    raise VllmRefusal("IndexError", "list index out of range", "argparse")
                value, skip = words[i + 1], True
            if name.endswith("+"):
                name, value = name[:-1], json.dumps(value.split(","))
            key, *keys = name.split(".")
            nested: Any = _dotted_value(value)
            for part in reversed(keys):
                nested = {part: nested}
            _merge(gathered.setdefault(key, {}), nested, f"{key}.", duplicates)
            continue
        kept.append(word)
    for key, merged in gathered.items():
        kept += [key, json.dumps(merged)]
    warnings = [f"Found duplicate keys {', '.join(duplicates)}"] if duplicates else []
    return kept, warnings
