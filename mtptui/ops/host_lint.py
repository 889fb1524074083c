"""Lint a launch with the SGLang installed on the host, in the server's Python; the offline table otherwise.

One read-only command over the host's session, bounded by ``timeout``:
``timeout 60 env [-u PYTHONPATH] PYTHON -B -c BOOT GPU-FACTS --batch``, with the runner and its stand-ins
(mtptui/sglang/lint/sglang_runner.py and sglang_standins.py) and the launch on stdin. Nothing is written on the
host: the sources run from memory, ``-B`` keeps Python from writing bytecode, the runner reads model configs
offline. No GPU is touched: torch is a stand-in answering the facts nvidia-smi gave (mtptui.remote.gpu_facts).
A systemd unit does not inherit the login session's PYTHONPATH, so the check runs without it there (the
profile's own PYTHONPATH applies); a process started by hand from a shell does, so it is kept.

Any failure (no such python, no SGLang, a timeout, an answer that is not a verdict, a lost connection) gives the
offline table's verdict and one sentence saying why.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING, Any

from mtptui.engines.registry import engine
from mtptui.remote.errors import RemoteError
from mtptui.remote.gpu_facts import GpuFacts, query_gpu_facts
from mtptui.remote.shell import Command
from mtptui.remote.transport import Completed
from mtptui.sglang.lint.verdict import LintSource, LintVerdict, host_verdict, offline_verdict, offline_version

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig
    from mtptui.ops.connect import HostSession

HOST_TIMEOUT_S = 60
MODULES = ("sglang_standins", "sglang_runner")
BOOT = ("import json, sys, types\n"
        "sources = json.loads(sys.stdin.readline())\n"
        "for name in ('sglang_standins', 'sglang_runner'):\n"
        "    module = sys.modules[name] = types.ModuleType(name)\n"
        "    exec(compile(sources[name], '<mtptui ' + name + '>', 'exec'), module.__dict__)\n"
        "sys.exit(sys.modules['sglang_runner'].main(sys.argv[1:]))\n")


def _sources() -> dict[str, str]:
    folder = resources.files("mtptui.sglang.lint")
    return {name: folder.joinpath(f"{name}.py").read_text(encoding="utf-8") for name in MODULES}


def runner_command(python: str, argv: list[str], env: dict[str, str], facts: GpuFacts,
                   keep_pythonpath: bool) -> Command:
    """The host check: the runner in ``python``; the launch's env travels on stdin (secrets stay out of ps)."""
    words = ["timeout", "-k", "5", str(HOST_TIMEOUT_S), "env"]
    if not keep_pythonpath:
        words += ["-u", "PYTHONPATH"]
    if "PYTHONPATH" in env:
        words.append(f"PYTHONPATH={env['PYTHONPATH']}")
    words += [python, "-B", "-c", BOOT, *facts.runner_args(), "--batch"]
    lines = [json.dumps(_sources()), json.dumps({"argv": list(argv), "env": dict(env)})]
    return Command.of(words, "check the launch with the host's SGLang", input=("\n".join(lines) + "\n").encode())


def _answer(result: Completed) -> dict[str, Any] | None:
    for line in reversed(result.out.splitlines()):
        if line.startswith("{"):
            try:
                answer = json.loads(line)
            except ValueError:
                return None
            return answer if isinstance(answer, dict) and "accepted" in answer else None
    return None


def why_not(result: Completed, python: str, host: str, label: str = "SGLang") -> str | None:
    """Why ``result`` is no verdict of the engine's (``label``, its display name; one sentence), or None when it
    is one."""
    answer = _answer(result)
    if result.exit_status == 124:
        return f"{label}'s check did not finish within {HOST_TIMEOUT_S} s on {host}"
    if result.exit_status in (126, 127):
        return f"{python} was not found on {host} (set python in the profile to the server's interpreter)"
    if answer is not None and answer.get("stage") == "import":
        return f"{python} on {host} cannot import {label} ({answer.get('sglang_message')})"
    if answer is None:
        lines = [line.strip() for line in result.err.splitlines() if line.strip()]
        detail = lines[-1] if lines else f"exit status {result.exit_status}"
        return f"{label}'s check on {host} gave no verdict ({detail})"
    return None


def _host_facts(verdict: LintVerdict, host: HostConfig) -> GpuFacts:
    """Without nvidia-smi: one GPU per tensor-parallel rank, of the host file's gpu_memory_gb."""
    tp = verdict.flagset.get("--tp-size", 1) if verdict.flagset is not None else 1
    return GpuFacts(int(tp or 1), host.gpu_memory_gb, None, None, "host file")


async def lint_on_host(session: HostSession, argv: list[str], env: dict[str, str], python: str | None,
                       model_arch: str | None = None) -> LintVerdict:
    """SGLang's verdict on the launch from the host's own SGLang, or the offline one with the reason."""
    host = session.host
    label = engine(host.engine).label
    offline = offline_verdict(argv, env, offline_version(host.sglang_version), model_arch, host=host.name)
    if python is None:
        return _fallback(offline, f"the launch does not run {label} through a python interpreter mtptui can ask",
                         host)
    try:
        facts = await query_gpu_facts(session.transport, env.get("CUDA_VISIBLE_DEVICES")) or _host_facts(offline, host)
        keep = session.manager.inherits_login_environment
        result = await session.transport.run(runner_command(python, argv, env, facts, keep), HOST_TIMEOUT_S + 15)
    except RemoteError as exc:
        return _fallback(offline, f"the check could not run on {host.name}: {exc}", host)
    reason = why_not(result, python, host.name, label)
    if reason is not None:
        return _fallback(offline, reason, host)
    answer = _answer(result)
    assert answer is not None  # why_not gives a reason whenever there is no answer
    return host_verdict(answer, argv, env, host.name, host.sglang_version, model_arch, facts.to_json())


def _fallback(offline: LintVerdict, reason: str, host: HostConfig) -> LintVerdict:
    """The offline verdict, saying why the host's engine did not judge (and which table did)."""
    table = offline.source.sglang_version
    offline.source = LintSource("offline", table, host.name, reason)
    if table != host.sglang_version:
        offline.notes.append(f"mtptui has no offline table for {engine(host.engine).label} {host.sglang_version} "
                             f"(the host file's sglang_version): the newest one, {table}, judged")
    return offline
