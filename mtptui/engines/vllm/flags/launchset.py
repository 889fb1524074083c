"""A vLLM launch read for comparing and rewriting: its entry, option words, environment and the options it sets.

``flags`` holds what the words set, by canonical long name (`--max-model-len`, through aliases, prefixes,
underscores and dotted options), as argparse on vLLM's flag table converts it; ``args`` keeps the words
themselves, so a launch written back runs exactly what was read or rendered. The model is ``model_path``
(`vllm serve`'s positional model or `--model`). A command line vLLM would refuse is one sentence (LaunchError).
"""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass, field
from typing import Any, Mapping

from mtptui.engines.vllm.flags import argv as rewrite
from mtptui.engines.entry import entry_python, module_entry, shell_script
from mtptui.engines.vllm.flags.command import API_SERVER, split_command
from mtptui.engines.vllm.flags.errors import VllmRefusal
from mtptui.engines.vllm.flags.parser import serve_parser
from mtptui.engines.vllm.flags.render import Profile, flag_words
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION, load_table
from mtptui.errors import UserError

MODEL = "--model"
UNSET = object()  # argparse leaves a preset attribute alone: what is still this was not written


class LaunchError(UserError):
    """A vLLM launch mtptui cannot read (vLLM would refuse it), in one sentence."""


@dataclass
class VllmFlagSet:
    """What a vLLM launch sets (see the module doc)."""

    model_path: str | None = None
    flags: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    entry: str = module_entry(None, API_SERVER)
    version: str = DEFAULT_VERSION
    args: list[str] = field(default_factory=list)
    said: dict[str, Any] | None = None  # what the running server logged it resolved (`non-default args`)

    @property
    def entry_argv(self) -> list[str]:
        return shlex.split(self.entry)

    @property
    def python(self) -> str | None:
        """The interpreter of a ``python -m vllm...`` entry, else None."""
        return entry_python(self.entry_argv)

    @property
    def serve(self) -> bool:
        """Whether the entry is `vllm serve` (its model comes first, as a positional word)."""
        return self.entry_argv[-1:] == ["serve"]

    def groups(self) -> list[list[str]]:
        """The option words, one group per option (the positional model alone first)."""
        groups: list[list[str]] = [[]]
        for word in self.args:
            if word.startswith("-") and groups[-1]:
                groups.append([])
            groups[-1].append(word)
        return [group for group in groups if group]

    def words(self) -> list[str]:
        return [*self.entry_argv, *self.args]

    def get(self, name: str, default: Any = None) -> Any:
        """The value written for an option, by its canonical long name (``default`` when unset)."""
        return self.flags.get(name, default)


def _refused(label: str, refusal: VllmRefusal) -> LaunchError:
    said = refusal.message.split(": error: ", 1)[-1]
    entry = (refusal.errors or [{}])[0]
    if entry:
        where = ".".join(map(str, entry.get("loc") or ())) or "its settings"
        said = f"{where}: {str(entry.get('msg') or '').removeprefix('Value error, ').splitlines()[0]}"
    flag = f"{refusal.flag} " if refusal.flag and refusal.flag not in said else ""
    return LaunchError(f"{label + ': ' if label else ''}vLLM refuses {flag}{said}".rstrip())


def _written(args: list[str], version: str) -> dict[str, Any]:
    """dest -> value of every option the words set (argparse's conversion, vLLM's table)."""
    parser = serve_parser(version)
    table = load_table(version)
    preset = argparse.Namespace(**{option.dest: UNSET for option in table.options})
    namespace = parser.parse_args(args, namespace=preset)
    return {dest: value for dest, value in vars(namespace).items() if value is not UNSET}


def _canonical(written: dict[str, Any], version: str) -> tuple[str | None, dict[str, Any]]:
    """(the model, the other options by canonical long name)."""
    table = load_table(version)
    model = written.pop("model_tag", None) or written.pop("model", None)
    written.pop("model", None)
    flags = {}
    for dest, value in written.items():
        option = table.by_dest(dest)
        if option is not None:
            flags[option.name] = value
    return model, flags


def read_args(args: list[str], version: str, *, serve: bool, label: str = "",
              read: rewrite.ReadConfig | None = None) -> tuple[str | None, dict[str, Any]]:
    """The model and the options of vLLM words (after the entry), as vLLM reads them; LaunchError if it would not.
    With ``read`` (a `--config` path -> the file's text) a `--config FILE` is replaced by the file's options, where
    vLLM puts them; without it `--config` is one more option, its path."""
    from mtptui.engines.vllm.flags.parser import known_negations
    from mtptui.engines.vllm.flags.speculative import merged_config, _validate_fields

    try:
        words = list(args)
        if serve:
            words, _ = rewrite.move_model(words)
        if read is not None and "--config" in words:
            words = rewrite.pull_config(words, known_negations(version), serve=serve, read=read)
        words, _ = rewrite.normalise(words)
        model, flags = _canonical(_written(words, version), version)
        config = flags.get("--speculative-config")
        if config is not None:
            spec = merged_config(argparse.Namespace(speculative_config=dict(config) if isinstance(config, dict)
                                                    else config))
            _validate_fields(spec or {}, load_table(version))
    except VllmRefusal as refusal:
        raise _refused(label, refusal) from None
    return model, flags


def from_words(words: list[str], version: str = DEFAULT_VERSION, label: str = "") -> VllmFlagSet:
    """The launch of a whole command line (`vllm serve M ...`, `python -m vllm.entrypoints.openai.api_server ...`,
    with `VAR=x` or `env` in front); a `sh -c "..."` wrapper is read as the command it runs."""
    script = shell_script(words)
    if script is not None:
        words = shlex.split(script)
    launch = split_command(words)
    if launch is None:
        subject = f"{label}: the command line" if label else "the command line"
        raise LaunchError(f"{subject} does not start vLLM (neither `vllm serve` nor `python -m {API_SERVER}`)")
    model, flags = read_args(launch.args, version, serve=launch.serve, label=label)
    return VllmFlagSet(model, flags, dict(launch.env), shlex.join(launch.entry), version, list(launch.args))


def from_command(text: str, version: str = DEFAULT_VERSION, label: str = "") -> VllmFlagSet:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise LaunchError(f"{label + ': ' if label else ''}not a command line: {exc}") from None
    return from_words(words, version, label)


def from_profile(profile: Profile, version: str = DEFAULT_VERSION, label: str = "") -> VllmFlagSet:
    """A TOML profile's launch: ``python -m vllm.entrypoints.openai.api_server --model MODEL FLAGS...``."""
    args = [MODEL, profile.model_path, *flag_words(profile.flags, version)]
    model, flags = read_args(args, version, serve=False, label=label)
    return VllmFlagSet(model, flags, dict(profile.env), module_entry(profile.python, API_SERVER), version, args)


def config_files(launch: VllmFlagSet) -> list[str]:
    """The file a launch's `--config FILE` names (vLLM reads its options from it at start), if any."""
    path = rewrite.config_path(launch.args)
    return [path] if path is not None else []


def with_config_files(launch: VllmFlagSet, texts: Mapping[str, str], label: str = "") -> VllmFlagSet:
    """``launch`` with the options of its `--config` file, whose text ``texts`` holds (read where the launch runs:
    the host's file for a host's launch); ``flags["--config"]`` keeps the path. One sentence when the text is not
    YAML options or vLLM refuses what it says."""
    import yaml
    from dataclasses import replace

    paths = config_files(launch)
    if not paths or paths[0] not in texts:
        return launch
    path, text = paths[0], texts[paths[0]]
    subject = f"{label + ': ' if label else ''}the --config file {path}"
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise LaunchError(f"{subject} is not YAML ({str(exc).splitlines()[0]})") from None
    if loaded is not None and not isinstance(loaded, dict):
        raise LaunchError(f"{subject} holds a YAML {type(loaded).__name__}, not vLLM options by name")
    model, flags = read_args(launch.args, launch.version, serve=launch.serve, label=label, read=lambda _: text)
    return replace(launch, model_path=model, flags={**flags, "--config": path})


def with_entry(launch: VllmFlagSet, entry: str) -> VllmFlagSet:
    """``launch`` started by another entry (the host's interpreter); the model moves to suit `vllm serve`."""
    from dataclasses import replace

    serve = shlex.split(entry)[-1:] == ["serve"]
    args = list(launch.args)
    if serve and MODEL in args[:-1]:
        index = args.index(MODEL)
        args = [args[index + 1], *args[:index], *args[index + 2:]]
    elif not serve and args and not args[0].startswith("-"):
        args = [MODEL, *args]
    return replace(launch, entry=entry, args=args)


def with_server_args(launch: VllmFlagSet, line: str) -> VllmFlagSet:
    """``launch`` with what its server's `non-default args: {...}` line says it resolved (by canonical name, the
    model as ``--model``); a line mtptui cannot read leaves it as it was."""
    from dataclasses import replace

    from mtptui.engines.vllm.logparse import parse_text

    found = [e.fields["args"] for e in parse_text(line + "\n") if e.kind == "launch_args"]
    if not found or not isinstance(found[-1], dict):
        return launch
    args = dict(found[-1])
    model = args.pop("model_tag", None) or args.pop("model", None)
    args.pop("model", None)
    table = load_table(launch.version)
    said = {option.name: value for dest, value in args.items() if (option := table.by_dest(dest)) is not None}
    if model is not None:
        said[MODEL] = model
    return replace(launch, said=said)


def entry_of(words: list[str]) -> str | None:
    """How ``words`` start vLLM, as shell words (None when they do not)."""
    launch = split_command(words)
    return shlex.join(launch.entry) if launch else None


def show(value: Any) -> str:
    """A value as the diff shows it: true/false, lists space-joined, JSON objects as JSON."""
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(map(show, value))
    if isinstance(value, Mapping):
        return json.dumps(value)
    return repr(value) if isinstance(value, float) else str(value)


def lint_verdict(launch: VllmFlagSet) -> Any:
    """A restart's lint of a vLLM launch: what reading it checked (vLLM's argparse stage and the
    `--speculative-config` fields; a refusal there stops the plan already), said as a verdict; the model itself
    is on the host and is not judged here."""
    from mtptui.engines.sglang.lint.verdict import LintSource, LintVerdict

    note = (f"judged offline by vLLM {launch.version}'s argument parser and its --speculative-config fields; the "
            f"model and the memory checks need the host")
    return LintVerdict(LintSource("offline", launch.version), None, [], {}, notes=[note])
