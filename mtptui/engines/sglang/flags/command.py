"""Read a whole shell launch command into a FlagSet, and render a FlagSet back as a canonical command."""

from __future__ import annotations

import shlex
from typing import Any, cast

from mtptui.engines.entry import NAME_VALUE, prefix_env, shell_script
from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.sglang.flags.flagset import ENTRIES, MODEL_PATH, FlagSet, Value, parse_argv
from mtptui.engines.sglang.flags.shellwords import Token, simple_commands, tokenize
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION, FlagSpec

NOT_FOUND = ("no SGLang launch command found: expected `python -m sglang.launch_server ...` "
             "or `sglang serve ...`")


def find_entry(words: list[str]) -> tuple[int, int] | None:
    """(start, end) of the program part: ``[/path/]python[3] [opts] -m sglang.launch_server`` or ``sglang serve``."""
    return ENTRIES.find(words)


def split_launch(words: list[Token]) -> tuple[dict[str, str], str, list[str]] | None:
    """(env, entry, SGLang args) of one simple command, or None when it does not start SGLang."""
    texts = [token.text for token in words]
    found = find_entry(texts)
    if found is None:
        return None
    start, end = found
    return prefix_env((t.text, t.assignment) for t in words[:start]), shlex.join(texts[start:end]), texts[end:]


def parse_command(text: str, version: str = DEFAULT_VERSION, *, require_model: bool = True) -> FlagSet:
    """The flag set of a shell command line (env prefixes, wrappers such as nohup, redirections, continuations)."""
    try:
        commands = simple_commands(tokenize(text))
    except ValueError as exc:
        raise FlagError(f"cannot read the command line: {exc}") from None
    for words in commands:
        launch = split_launch(words)
        if launch is not None:
            env, entry, argv = launch
            flagset = parse_argv(argv, version, require_model=require_model)
            flagset.env, flagset.entry = env, entry
            return flagset
    if len(commands) == 1 and commands[0][0].text.startswith("--"):
        return parse_argv([t.text for t in commands[0]], version, require_model=require_model)
    raise FlagError(NOT_FOUND)


def parse_words(words: list[str], version: str = DEFAULT_VERSION, *, require_model: bool = True) -> FlagSet:
    """The flag set of an argv that was already split (ExecStart=, /proc/PID/cmdline, a shell's "$@")."""
    tokens = [Token(word, assignment=bool(NAME_VALUE.match(word))) for word in words]
    launch = split_launch(tokens)
    if launch is None:
        if words and words[0].startswith("--"):
            return parse_argv(words, version, require_model=require_model)
        raise FlagError(NOT_FOUND)
    env, entry, argv = launch
    flagset = parse_argv(argv, version, require_model=require_model)
    flagset.env, flagset.entry = env, entry
    return flagset


def parse_cmdline(data: bytes, version: str = DEFAULT_VERSION, *, require_model: bool = True) -> FlagSet:
    """The flag set of /proc/PID/cmdline bytes: NUL-separated argv words (undecodable bytes replaced)."""
    words = [w.decode("utf-8", "replace") for w in data.split(b"\0") if w]
    return parse_words(words, version, require_model=require_model)


def parse_launch_argv(argv: list[str], version: str = DEFAULT_VERSION, *, require_model: bool = True) -> FlagSet:
    """The flag set an argv launches (ExecStart=, /proc/PID/cmdline): a shell's ``-c`` script is read as the
    command line it runs, the same way wherever the argv came from."""
    script = shell_script(argv)
    if script is not None:
        return parse_command(script, version, require_model=require_model)
    return parse_words(argv, version, require_model=require_model)


def value_text(value: object) -> str:
    """A value as one argv word: floats by repr (round-trips), everything else by str."""
    return repr(value) if isinstance(value, float) else str(value)


def flag_tokens(spec: FlagSpec, value: Value) -> list[str]:
    """argv words for one flag; values that start with "-" use ``--opt=value`` so argparse takes them."""
    if spec.flag_kind in ("store_true", "const"):
        return [spec.name] if value else []
    if spec.flag_kind == "boolean_optional":
        return [spec.name] if value else [spec.negative or spec.name]
    if spec.is_list:
        return [spec.name, *(value_text(item) for item in cast("list[Any]", value))]
    if value is True and spec.nargs == "?":
        return [spec.name]
    text = value_text(value)
    return [f"{spec.name}={text}"] if text.startswith("-") else [spec.name, text]


def flag_groups(fs: FlagSet) -> list[list[str]]:
    """argv words grouped per flag: --model-path first, then the table's order (stable and canonical)."""
    table = fs.table
    groups = [flag_tokens(table[MODEL_PATH], fs.model_path)] if fs.model_path is not None else []
    for name in sorted(fs.flags, key=lambda n: table.order.get(table[n].name, 0)):
        groups.append(flag_tokens(table[name], fs.flags[name]))
    return [group for group in groups if group]


def render_argv(fs: FlagSet) -> list[str]:
    """SGLang's arguments in canonical form (no program, no env)."""
    return [word for group in flag_groups(fs) for word in group]


def render_command(fs: FlagSet, multiline: bool = False) -> str:
    """A shell-safe command line: ``VAR=value ... ENTRY --flag value ...``; ``multiline`` puts a flag per line."""
    head = [f"{name}={shlex.quote(value)}" for name, value in sorted(fs.env.items())] + [fs.entry]
    parts = [" ".join(head)] + [" ".join(shlex.quote(word) for word in group) for group in flag_groups(fs)]
    return (" \\\n    " if multiline else " ").join(parts)
