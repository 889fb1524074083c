"""What a server start does with its arguments, and a lint that keeps going past the first problem."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mtptui.engines.sglang.flags.errors import FlagError
from mtptui.engines.entry import module_entry
from mtptui.engines.sglang.flags.flagset import LAUNCH_MODULE, MODEL_PATH, FlagSet, parse_argv
from mtptui.engines.sglang.lint.options import explain_option, rejected_options, value_words
from mtptui.engines.sglang.flags.resolve import match_option, missing_required, parse_values
from mtptui.engines.sglang.lint.rules import Finding, lint
from mtptui.engines.sglang.flags.table import DEFAULT_VERSION, FlagSpec, load_table

if TYPE_CHECKING:
    from mtptui.config.models import LaunchProfile

_ARGUMENT = re.compile(r"error: argument ([^/:\s]+)")
MAX_ROUNDS = 50


def check_launch(argv: list[str], version: str = DEFAULT_VERSION, model_arch: str | None = None,
                 env: dict[str, str] | None = None) -> FlagSet:
    """The flag set a server would run with; FlagError with the server's last words when it would exit.

    The message is argparse's (``sglang serve: error: ...``) or the last line of SGLang's traceback
    (``AssertionError``, ``ValueError: Unknown speculative algorithm name: FOO``, ...).
    """
    flagset = parse_argv(list(argv), version)
    flagset.env = dict(env or {})
    for finding in lint(flagset, model_arch):
        if finding.stops_server:
            raise FlagError(finding.engine_message or finding.message, flag=finding.flag, fix=finding.fix)
    return flagset


def lint_argv(argv: list[str], version: str = DEFAULT_VERSION, model_arch: str | None = None,
              env: dict[str, str] | None = None) -> tuple[FlagSet | None, list[Finding]]:
    """Findings for SGLang arguments, including the ones argparse rejects (with their new names).

    Returns the flag set that is left once rejected options are set aside (None when it cannot be read).
    """
    argv = list(argv)
    findings: list[Finding] = []
    for _ in range(MAX_ROUNDS):
        try:
            flagset = parse_argv(argv, version, require_model=False)
            break
        except FlagError as exc:
            dropped = _explain_failure(argv, version, str(exc), findings)
            if not dropped:
                return None, findings
            argv = [word for index, word in enumerate(argv) if index not in dropped]
    else:
        return None, findings
    flagset.env = dict(env or {})
    return flagset, findings + _missing_model(flagset) + lint(flagset, model_arch)


def lint_profile(profile: LaunchProfile, version: str = DEFAULT_VERSION,
                 model_arch: str | None = None) -> tuple[FlagSet | None, list[Finding]]:
    """Findings for a TOML launch profile against ``version`` (a renamed key is a finding, not an exception)."""
    from mtptui.engines.sglang.flags.flagset import profile_argv

    flagset, findings = lint_argv(profile_argv(profile, version), version, model_arch, env=profile.env)
    if flagset is not None:
        flagset.entry = module_entry(profile.python, LAUNCH_MODULE)
    return flagset, findings


def lint_flagset(flagset: FlagSet, model_arch: str | None = None) -> list[Finding]:
    """Findings for a flag set built elsewhere (a profile, a unit), including a missing --model-path."""
    return _missing_model(flagset) + lint(flagset, model_arch)


def _missing_model(flagset: FlagSet) -> list[Finding]:
    if flagset.model_path is not None:
        return []
    message = missing_required({}, load_table(flagset.version))
    return [Finding("error", MODEL_PATH, "SGLang needs the model to serve.", "add --model-path PATH", message)]


def _span(argv: list[str], index: int) -> set[int]:
    """An option word and the values argparse would give it."""
    count = 0 if "=" in argv[index] else len(value_words(argv, index))
    return set(range(index, index + 1 + count))


def _explain_failure(argv: list[str], version: str, message: str, findings: list[Finding]) -> set[int]:
    """Add findings for one argparse failure; the word indices to drop before trying again."""
    rejected = rejected_options(argv, version)
    if rejected:
        dropped: set[int] = set()
        for number, (index, match) in enumerate(rejected):
            values = value_words(argv, index)
            words = [argv[index]] if "=" in argv[index] else [argv[index], *values]
            # the first one carries what SGLang prints: argparse names every unrecognized word at once
            whole = number == 0 and not findings and "unrecognized arguments" in message
            alone = message if whole else _message_alone(words, version) or message
            findings.append(explain_option(argv[index], match, version, values, alone))
            dropped |= _span(argv, index)
        return dropped
    return _value_failure(argv, version, message, findings)


TYPE_FIXES = {"int": "give a whole number", "human_readable_int": "give a whole number such as 131072 or 128Ki",
              "float": "give a number such as 0.88", "loads": "give valid JSON"}


def _value_fix(spec: FlagSpec, version: str) -> str:
    if spec.choices:
        return "use one of: " + ", ".join(map(str, spec.choices))
    return TYPE_FIXES.get(spec.type or "", f"see {spec.name} in `sglang serve --help` of SGLang {version}")


def _message_alone(words: list[str], version: str) -> str | None:
    """What argparse says about these words on their own (the message SGLang gives for this option)."""
    try:
        parse_values(words, version)
    except FlagError as exc:
        return str(exc)
    return None


def _value_failure(argv: list[str], version: str, message: str, findings: list[Finding]) -> set[int]:
    """A bad value (type, choice, count): one finding, and the option's words to drop."""
    detail = message.split("error: ", 1)[-1]
    found = _ARGUMENT.search(message)
    table = load_table(version)
    spec = table.get(found.group(1)) if found else None
    flag = spec.name if spec else None
    fix = _value_fix(spec, version) if spec else None
    findings.append(Finding("error", flag, f"SGLang {version} rejects {detail}.", fix, message))
    if spec is None:
        return set()
    return {i for index in range(len(argv)) if argv[index].startswith("--")
            and match_option(argv[index], table).spec == spec for i in _span(argv, index)}
