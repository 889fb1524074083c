"""`mtptui flags lint HOST [--profile P]`: a host's launch profile judged by the engine installed on the host (SGLang
through mtptui.ops.host_lint.lint_on_host; vLLM through its host check, ask_host_engine), else offline."""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mtptui.engines.registry import engine, launches
from mtptui.errors import ConfigError, UserError

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.engines.sglang.lint.verdict import LintVerdict

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
    from mtptui.engines.sglang.flags.flagset import profile_argv
    from mtptui.engines.sglang.lint.verdict import offline_version
    from mtptui.text import visible

    options, extra = _options(words)
    if args.sglang_version:
        raise UserError("--version is for SGLang arguments: with a host, the host's SGLang says which release it "
                        "is (its host file's sglang_version when the offline table judges)")
    host = _host(options.host, options.config or args.config)
    if extra:
        raise UserError(f"unexpected {extra[0]!r} after the host; usage: {USAGE}")
    name = options.profile or args.profile or default_profile(host)
    profile = host.own_profile(name)
    if launches(host.engine).lint is not None:
        return _engine_host_lint(host, name, options.json or args.json, options.readonly or args.readonly)
    argv = profile_argv(profile, offline_version(host.sglang_version))
    verdict = asyncio.run(_check(host, argv, profile.env, profile.python, options.readonly or args.readonly,
                                 options.model_arch or args.model_arch))
    as_json = options.json or args.json
    if not as_json:
        print(visible(f"profile {name}: lint by {verdict.source.phrase}{verdict.source.because}"))
        if verdict.source.gpus:
            print(visible(f"GPUs: {gpus_text(verdict.source.gpus)}"))
    return report(verdict, as_json, f"from {verdict.source.phrase}")


def _engine_host_lint(host: HostConfig, name: str, as_json: bool, readonly: bool) -> int:
    """A profile of a host whose engine lints its own launches (vLLM): judged by the engine installed on the host
    (its Launches.host_check, in the profile's python) where it can be asked; else read by the engine's flag model
    offline, as a restart reads it (a refusal is the error), saying why the host did not judge."""
    from mtptui.cli.commands._common import print_json
    from mtptui.text import visible

    chosen = engine(host.engine)
    asked = asyncio.run(_ask_host(host, name, readonly))
    judged, verdict, errors, reason, version = asked.report, asked.offline, asked.errors, asked.reason, asked.version
    if judged is not None:
        data = {**judged.to_json(), "host": host.name, "profile": name}
        if as_json:
            print_json(data)
        else:
            print(visible(f"profile {name}: lint by {chosen.label} {judged.version} on {host.name} "
                          f"({data['source']['python']})"))
            for line in judged.lines():
                print(visible(line))
        return 1 if judged.count("error") else 0
    notes = list(verdict.notes) if verdict is not None else []
    if as_json:
        print_json({"engine": chosen.name, "version": version, "host": host.name, "profile": name,
                    "ok": not errors, "errors": len(errors),
                    "findings": [{"severity": "error", "message": text} for text in errors], "notes": notes,
                    "source": {"kind": "offline", "vllm_version": version, "reason": reason}})
    else:
        print(visible(f"profile {name}: lint by {chosen.label} {version}'s flag model, offline ({reason})"))
        for line in [*(f"error: {text}" for text in errors), *(f"note: {note}" for note in notes)]:
            print(visible(line))
        print(visible(f"{len(errors)} error{'s' * (len(errors) != 1)} for {chosen.label} {version}"))
    return 1 if errors else 0


@dataclass
class _Asked:
    """What `flags lint HOST` got on an engine that checks on the host: the host engine's ``report``, or the
    ``offline`` verdict with its ``errors`` and the ``reason`` the host did not judge; ``version`` the release."""

    report: Any | None
    offline: Any | None
    errors: list[str]
    reason: str
    version: str


async def _ask_host(host: HostConfig, name: str, readonly: bool) -> _Asked:
    """The host engine's judgement of the profile, else the offline one (see _Asked). The launch's files (a
    `--config` YAML) are read on the host, through the session."""
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.connect import open_session
    from mtptui.ops.host_files import session_file_reader, with_launch_files
    from mtptui.ops.host_lint import ask_host_engine
    from mtptui.ops.launches import Side

    model = launches(host.engine)
    version = model.version(host)
    async with open_session(host, readonly=readonly, accept_host_key=ask_on_terminal) as session:
        try:
            profile = host.own_profile(name)
            side = Side(f"profile:{name}", model.profile(profile, version))
            await with_launch_files(side, model, session_file_reader(session))
        except UserError as exc:  # the engine refuses the launch, or its file cannot be read: one sentence
            return _Asked(None, None, [str(exc)], "the launch cannot be read, so the host was not asked", version)
        judged, reason = await ask_host_engine(session, side.flagset, profile.python)
    if judged is not None:
        return _Asked(judged, None, [], "", version)
    assert model.lint is not None  # engines with a host check lint their own launches
    return _Asked(None, model.lint(side.flagset), [], reason, version)


async def _check(host: HostConfig, argv: list[str], env: dict[str, str], python: str | None, readonly: bool,
                 model_arch: str | None) -> LintVerdict:
    from mtptui.cli.hostkey_prompt import ask_on_terminal
    from mtptui.ops.connect import open_session
    from mtptui.ops.host_lint import lint_on_host

    async with open_session(host, readonly=readonly, accept_host_key=ask_on_terminal) as session:
        return await lint_on_host(session, argv, env, python, model_arch)
