"""Lint a launch with the SGLang installed on the host, in the server's Python; the offline table otherwise.

One read-only command over the host's session, bounded by ``timeout``:
``timeout 60 env [-u PYTHONPATH] PYTHON -B -c BOOT GPU-FACTS --batch``, with the runner and its stand-ins
(mtptui/engines/sglang/lint/sglang_runner.py and sglang_standins.py) and the launch on stdin. Nothing is written on the
host: the sources run from memory, ``-B`` keeps Python from writing bytecode, the runner reads model configs
offline. No GPU is touched: torch is a stand-in answering the facts nvidia-smi gave (mtptui.remote.gpu_facts).
A systemd unit does not inherit the login session's PYTHONPATH, so the check runs without it there (the
profile's own PYTHONPATH applies); a process started by hand from a shell does, so it is kept.

Any failure (no such python, no SGLang, a timeout, an answer that is not a verdict, a lost connection) gives the
offline table's verdict and one sentence saying why.

An engine with a host check of its own (vLLM: its ``Launches.host_check``, mtptui.engines.registry) is asked
the same way by ``ask_host_engine``: its program on stdin, in the profile's interpreter, read-only and bounded;
the caller falls back to the engine's offline reading with the sentence it gives.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import TYPE_CHECKING, Any, Callable, Mapping

from mtptui.engines.registry import Report, engine, launches
from mtptui.remote.errors import RemoteError
from mtptui.remote.gpu_facts import GpuFacts, query_gpu_facts
from mtptui.remote.shell import Command
from mtptui.remote.transport import Completed
from mtptui.engines.sglang.lint.verdict import LintSource, LintVerdict, host_verdict, offline_verdict, offline_version

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
    folder = resources.files("mtptui.engines.sglang.lint")
    return {name: folder.joinpath(f"{name}.py").read_text(encoding="utf-8") for name in MODULES}


def python_words(python: str, env: Mapping[str, str], keep_pythonpath: bool, timeout_s: int, boot: str) -> list[str]:
    """``python -B -c BOOT`` bounded by ``timeout_s``, with the PYTHONPATH the server has (see the module doc)."""
    words = ["timeout", "-k", "5", str(timeout_s), "env"]
    if not keep_pythonpath:
        words += ["-u", "PYTHONPATH"]
    if "PYTHONPATH" in env:
        words.append(f"PYTHONPATH={env['PYTHONPATH']}")
    return [*words, python, "-B", "-c", boot]


def runner_command(python: str, argv: list[str], env: dict[str, str], facts: GpuFacts,
                   keep_pythonpath: bool) -> Command:
    """The host check: the runner in ``python``; the launch's env travels on stdin (secrets stay out of ps)."""
    words = [*python_words(python, env, keep_pythonpath, HOST_TIMEOUT_S, BOOT), *facts.runner_args(), "--batch"]
    lines = [json.dumps(_sources()), json.dumps({"argv": list(argv), "env": dict(env)})]
    return Command.of(words, "check the launch with the host's SGLang", input=("\n".join(lines) + "\n").encode())


def _answer(result: Completed, is_answer: Callable[[dict[str, Any]], bool] = lambda answer: "accepted" in answer
            ) -> dict[str, Any] | None:
    """The last JSON line of the output, when it is an answer (``is_answer``: the engine's own test)."""
    for line in reversed(result.out.splitlines()):
        if line.startswith("{"):
            try:
                answer = json.loads(line)
            except ValueError:
                return None
            return answer if isinstance(answer, dict) and is_answer(answer) else None
    return None


def why_not(result: Completed, python: str, host: str, label: str = "SGLang",
            timeout_s: int = HOST_TIMEOUT_S) -> str | None:
    """Why ``result`` is no verdict of the engine's (``label``, its display name; one sentence), or None when it
    is one."""
    answer = _answer(result)
    if result.exit_status == 124:
        return f"{label}'s check did not finish within {timeout_s} s on {host}"
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


async def ask_host_engine(session: HostSession, launch: Any, python: str | None) -> tuple[Report | None, str]:
    """The verdict of the engine installed on the session's host on ``launch`` (its Launches.host_check), run in
    ``python``; (None, why) when it cannot give one, (report, "") when it did."""
    host = session.host
    label, check_of = engine(host.engine).label, launches(host.engine).host_check
    assert check_of is not None, "the caller asks engines that check on the host"
    check = check_of()
    if python is None:
        return None, f"the launch does not run {label} through a python interpreter mtptui can ask"
    keep = session.manager.inherits_login_environment
    command = Command.of(python_words(python, launch.env, keep, check.timeout_s, check.boot),
                         f"check the launch with the host's {label}", input=check.input(launch))
    try:
        result = await session.transport.run(command, check.timeout_s + 15)
    except RemoteError as exc:
        return None, f"the check could not run on {host.name}: {exc}"
    answer = _answer(result, check.is_answer)
    missing = check.import_failure(answer) if answer is not None else None
    if missing is not None:
        return None, f"{python} on {host.name} cannot import {label} ({missing})"
    reason = why_not(result, python, host.name, label, check.timeout_s)
    if reason is not None:
        return None, reason
    if answer is None:
        return None, f"{label}'s check on {host.name} gave no verdict"
    return check.report(answer, launch, host.name, python), ""
