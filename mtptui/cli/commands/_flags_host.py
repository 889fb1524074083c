"""`mtptui flags lint HOST [--profile P]`: a host's launch profile judged by the SGLang installed on the host; on a
host of an engine that lints its own launches (vLLM), by that engine's flag model, as a restart judges it."""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING, Any

from mtptui.engines.registry import engine, launches
from mtptui.errors import ConfigError, UserError

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.sglang.lint.verdict import LintVerdict

USAGE = "mtptui flags lint HOST [--profile P] [--json]"


def _options(words: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The host and the options after it (argparse leaves them to the SGLang arguments' REMAINDER), and the rest."""
    parser = argparse.ArgumentParser(prog="mtptui flags lint", usage=USAGE, add_help=False)
    parser.add_argument("host")
    for name in ("--profile", "--model-arch", "--config"):
        parser.add_argument(name, default=None)
    for name in ("--json", "--readonly"):
        parser.add_argument(name, action="store_true")
    return parser.parse_known_args(words)


def _host(name: str, config: str | None) -> HostConfig:
    from mtptui.cli.commands._flags_report import USAGE_HINT
    from mtptui.config.loader import find_host

    try:
        return find_host(name, config)[1]
    except ConfigError as exc:
        if not str(exc).startswith("unknown host"):
            raise
        raise ConfigError(f"{name!r} is neither a configured host nor an SGLang option or launch command "
                          f"({exc}); {USAGE_HINT}") from None


def gpus_text(gpus: dict[str, Any] | None) -> str:
    if not gpus:
        return ""
    count = f"{gpus['count']} × {gpus['name']}" if gpus.get("name") else f"{gpus['count']} GPU(s)"
    memory = f"{gpus['memory_gb']:.1f} GB" if gpus.get("memory_gb") is not None else "48 GB assumed"
    capability = gpus.get("capability") or "8.6 assumed"
    return f"{count}, {memory}, compute capability {capability} (from {gpus['from']})"


def run_host(args: argparse.Namespace, words: list[str]) -> int:
    from mtptui.cli.commands._flags_report import report
    from mtptui.ops.diff_live import default_profile
    from mtptui.sglang.flags.flagset import profile_argv
    from mtptui.sglang.lint.verdict import offline_version
    from mtptui.text import visible

    options, extra = _options(words)
    if args.sglang_version:
        raise UserError("--version is for SGLang arguments: with a host, the host's SGLang says which release it "
                        "is (its host file's sglang_version when the offline table judges)")
    host = _host(options.host, options.config or args.config)
    if extra:
        raise UserError(f"unexpected {extra[0]!r} after the host; usage: {USAGE}")
    name = options.profile or args.profile or default_profile(host)
    profile = host.profile(name)
    if launches(host.engine).lint is not None:
        return _engine_host_lint(host, name, options.json or args.json)
    argv = profile_argv(profile, offline_version(host.sglang_version))
    verdict = asyncio.run(_check(host, argv, profile.env, profile.python, options.readonly or args.readonly,
                                 options.model_arch or args.model_arch))
    as_json = options.json or args.json
    if not as_json:
        print(visible(f"profile {name}: lint by {verdict.source.phrase}{verdict.source.because}"))
        if verdict.source.gpus:
            print(visible(f"GPUs: {gpus_text(verdict.source.gpus)}"))
    return report(verdict, as_json, f"from {verdict.source.phrase}")


def _engine_host_lint(host: HostConfig, name: str, as_json: bool) -> int:
    """A profile of a host whose engine lints its own launches (vLLM: its Launches.lint, as a restart does): the
    launch read by the engine's flag model (a refusal is the error), then what that lint says it judged."""
    from mtptui.cli.commands._common import print_json
    from mtptui.text import visible

    chosen, model = engine(host.engine), launches(host.engine)
    assert model.lint is not None  # the caller asked
    version = model.version(host)
    try:
        verdict = model.lint(model.profile(host.profile(name), version))
        errors: list[str] = []
    except UserError as exc:  # the engine refuses the launch: its one sentence
        verdict, errors = None, [str(exc)]
    notes = list(verdict.notes) if verdict is not None else []
    if as_json:
        print_json({"engine": chosen.name, "version": version, "host": host.name, "profile": name,
                    "ok": not errors, "errors": len(errors),
                    "findings": [{"severity": "error", "message": text} for text in errors], "notes": notes})
    else:
        print(visible(f"profile {name}: lint by {chosen.label} {version}'s flag model, offline"))
        for line in [*(f"error: {text}" for text in errors), *(f"note: {note}" for note in notes)]:
            print(visible(line))
        print(visible(f"{len(errors)} error{'s' * (len(errors) != 1)} for {chosen.label} {version}"))
    return 1 if errors else 0


async def _check(host: HostConfig, argv: list[str], env: dict[str, str], python: str | None, readonly: bool,
                 model_arch: str | None) -> LintVerdict:
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.connect import open_session
    from mtptui.ops.host_lint import lint_on_host

    async with open_session(host, readonly=readonly, accept_host_key=ask_on_terminal) as session:
        return await lint_on_host(session, argv, env, python, model_arch)
