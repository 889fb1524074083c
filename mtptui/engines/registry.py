"""The engines mtptui knows, by name: what the stable commands need of each (a small seam; the full engine
protocol comes with the engine layer). `parse-log` asks every engine whether a log is its own, `flags lint
--engine E` asks E's offline lint; the CLI never asks which engine it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, BinaryIO, Callable, Iterable, Iterator, Mapping, Protocol

from mtptui.engines import names
from mtptui.engines.polls import GetJson, GetText, HeldCount, MetricsReader, ServerInfo
from mtptui.engines.vllm.flags.table import DEFAULT_VERSION as VLLM_DEFAULT
from mtptui.engines.sglang.api import HELD_SOURCE as SGLANG_HELD, POLL_PATHS as SGLANG_POLLS, \
    SERVER_INFO_PATHS as SGLANG_INFO
from mtptui.engines.sglang.versions import DEFAULT_VERSION as SGLANG_DEFAULT


class Parser(Protocol):
    """An incremental log parser: events with ``to_dict()``."""

    def feed(self, data: bytes | str) -> list[Any]: ...

    def close(self) -> list[Any]: ...


class Report(Protocol):
    """An offline lint's result: JSON, text lines, and whether it found errors."""

    def to_json(self) -> dict[str, Any]: ...

    def lines(self) -> list[str]: ...

    def count(self, severity: str) -> int: ...


@dataclass(frozen=True)
class Launcher:
    """How a launch profile of this engine starts its server: the command line, and a systemd unit running it
    (``skeleton``: a unit whose [Service] has a placeholder ExecStart=). ``stand_in`` names the directory beside
    mtptui's packages that plays the engine's module for `mtptui demo` (put first on the server's PYTHONPATH)."""

    words: Callable[[Any, Any], list[str]]  # (HostConfig, LaunchProfile)
    unit: Callable[[str, str, Any, Any], str]  # (skeleton, unit name, HostConfig, LaunchProfile)
    stand_in: str
    demo_host: str  # the demo's host file in configs/


@dataclass(frozen=True)
class Engine:
    name: str
    label: str
    new_parser: Callable[[], Parser]
    summarize: Callable[[Iterable[tuple[str, BinaryIO]], Callable[..., None]], dict[str, Any]]
    recognises: Callable[[str], bool]
    default_version: str
    offline_lint: Callable[[list[str], str], Report] | None = None  # None: the engine's lint is the CLI's own
    simulate: Callable[..., int] | None = None  # the simulated server (`mtptui sim --engine E`), in the foreground
    launcher: Launcher | None = None


def _sglang_parser() -> Parser:
    from mtptui.engines.sglang.logparse import LogParser

    return LogParser()


def _sglang_summary(streams: Iterable[tuple[str, BinaryIO]], read: Callable[..., None]) -> dict[str, Any]:
    from mtptui.engines.sglang.state import ServerState, state_to_dict
    from mtptui.engines.sglang.state.scan import summarize_stream

    state = ServerState()
    for name, stream in streams:
        read(name, summarize_stream, stream, state)
    return {"engine": "sglang", **state_to_dict(state)}


def _vllm_parser() -> Parser:
    from mtptui.engines.vllm.logparse import LogParser

    return LogParser()


def _vllm_summary(streams: Iterable[tuple[str, BinaryIO]], read: Callable[..., None]) -> dict[str, Any]:
    from mtptui.engines.vllm.state import VllmState, state_to_dict, summarize_stream

    state = VllmState()
    for name, stream in streams:
        read(name, summarize_stream, stream, state)
    return state_to_dict(state)


def _vllm_recognises(head: str) -> bool:
    from mtptui.engines.vllm.logparse.recognise import looks_like_vllm

    return looks_like_vllm(head)


def _vllm_lint(words: list[str], version: str) -> Report:
    from mtptui.engines.vllm.flags.lint import lint_words

    return lint_words(words, version)


def _sglang_sim(argv: list[str], **options: Any) -> int:
    from mtptui.sim.launch import run_sim

    return run_sim(argv, **options)


def _vllm_sim(argv: list[str], **options: Any) -> int:
    from mtptui.engines.vllm.sim.launch import run_sim

    return run_sim(argv, **options)


def _sglang_words(host: Any, profile: Any) -> list[str]:
    from mtptui.engines.sglang.flags import FlagSet, render_argv

    flagset = FlagSet.from_profile(profile, host.sglang_version)
    return [*flagset.entry_argv, *render_argv(flagset)]


def _sglang_unit(skeleton: str, name: str, host: Any, profile: Any) -> str:
    from mtptui.engines.sglang.flags import FlagSet
    from mtptui.engines.sglang.unit import read_unit, with_launch

    return with_launch(read_unit(skeleton, name), FlagSet.from_profile(profile, host.sglang_version))


def _vllm_words(host: Any, profile: Any) -> list[str]:
    from mtptui.engines.vllm.flags.render import launch_words

    return launch_words(profile)


def _vllm_unit(skeleton: str, name: str, host: Any, profile: Any) -> str:
    from mtptui.engines.vllm.flags.render import unit_text

    return unit_text(skeleton, _vllm_words(host, profile), profile.env)


def _never(head: str) -> bool:
    return False


SGLANG = Engine("sglang", "SGLang", _sglang_parser, _sglang_summary, _never, SGLANG_DEFAULT, simulate=_sglang_sim,
                launcher=Launcher(_sglang_words, _sglang_unit, "demo_sglang", "demo.toml"))
VLLM = Engine("vllm", "vLLM", _vllm_parser, _vllm_summary, _vllm_recognises, VLLM_DEFAULT, _vllm_lint, _vllm_sim,
              Launcher(_vllm_words, _vllm_unit, "demo_vllm", "demo-vllm.toml"))
ENGINES: dict[str, Engine] = {engine.name: engine for engine in (SGLANG, VLLM)}
DEFAULT = ENGINES[names.DEFAULT]
NAMES = names.NAMES
assert tuple(ENGINES) == NAMES, "mtptui.engines.names lists the engines of the registry"


def engine(name: str | None) -> Engine:
    """The engine called ``name`` (None: the default, SGLang)."""
    from mtptui.errors import UserError

    if name is None:
        return DEFAULT
    if name not in ENGINES:
        raise UserError(f"unknown engine {name!r}: mtptui knows {', '.join(NAMES)}")
    return ENGINES[name]


def launcher(name: str | None) -> Launcher:
    """How the engine called ``name`` starts its server (one sentence if mtptui cannot start it)."""
    from mtptui.errors import UserError

    chosen = engine(name)
    if chosen.launcher is None:
        raise UserError(f"mtptui cannot start a {chosen.label} server")
    return chosen.launcher


def recognise(head: str) -> Engine:
    """The engine whose log ``head`` (the start of a log, as text) is; SGLang when none says so."""
    return next((e for e in ENGINES.values() if e.recognises(head)), DEFAULT)


# --- The bench: an engine's speculation counters in /metrics ----------------------------------------------------

def _vllm_accept_counters(text: str) -> tuple[float, float] | None:
    from mtptui.engines.vllm.metrics import accept_counters as vllm_counters

    return vllm_counters(text)


# SGLang's (generation tokens, verify calls) are mtptui.bench.metrics_poll's own, read with either name prefix.
ACCEPT_COUNTERS: tuple[Callable[[str], tuple[float, float] | None], ...] = (_vllm_accept_counters,)


def accept_counters(text: str) -> tuple[float, float] | None:
    """A pair of an engine's counters in a `/metrics` text (``text``) whose differences over a window divide to
    the window's accept length (vLLM: drafts + accepted tokens, drafts); None when no engine's are there."""
    return next((found for counters in ACCEPT_COUNTERS if (found := counters(text)) is not None), None)


# --- Launches: how an engine's launch is read, compared, written back and watched (diff and restart) -----------


class StartupState(Protocol):
    """A server's state as its log tells it, reduced from the parser's events (the phases of sglang.state)."""

    phase: str

    def apply(self, event: Any) -> None: ...


@dataclass(frozen=True)
class Launches:
    """An engine's launches for `mtptui diff` and `mtptui restart`. A launch is the engine's own flag set (SGLang's
    FlagSet, vLLM's VllmFlagSet); every one has ``env``, ``entry`` (shell words), ``entry_argv``, ``version`` and
    ``python``, and is copied with copy.copy. Reading one that the engine would refuse is a UserError."""

    version: Callable[[Any], str]  # (HostConfig) -> the release whose flags apply
    profile: Callable[[Any, str], Any]  # (LaunchProfile, version)
    argv: Callable[[list[str], str], Any]  # a whole command line's words (a process's, an ExecStart='s), version
    command: Callable[[str, str], Any]  # a command line as text (server.launch_command), version
    unit: Callable[[Any, str], Any]  # (parsed unit: sglang.unit.Unit, version): its ExecStart= and Environment=
    diff: Callable[[list[tuple[str, Any]], bool], Any]  # (labelled launches, show_all) -> sglang.flags.Diff
    words: Callable[[Any], list[str]]  # the words a launch runs: its entry, then its options
    entry: Callable[[list[str]], str | None]  # how a command line starts this engine (None: it does not)
    with_entry: Callable[[Any, str], Any]  # the launch started by another entry (the host's interpreter)
    write_unit: Callable[[Any, Any], str]  # (parsed unit, launch) -> the unit's text running the launch
    watch: Callable[[], tuple[Parser, StartupState]]  # a parser and a state for following a start
    lint: Callable[[Any], Any] | None = None  # launch -> sglang.lint.verdict.LintVerdict; None: the host's own
    stop_facts: bool = False  # mtptui knows what the engine's stop does to requests (ops.restart.stop)
    resolved: ResolvedLine | None = None  # the log line in which a running server says what it resolved
    process: str = ""  # an extended regex a server's command line (words joined by spaces) matches
    env_prefixes: tuple[str, ...] = ()  # the engine's own environment variables (beside CUDA_, NCCL_, HF_, ...)
    shape: Callable[[Any], tuple[str, ...] | None] | None = None  # a launch -> its speculative shape as the bench
    # records one ((steps, draft tokens, topk) as text); None from it: no speculative decoding
    short_names: Mapping[str, str] = field(default_factory=dict)  # flag -> its short name in the health line,
    # weightiest first (the drift's order)
    short_value: Callable[[str, str], str | None] | None = None  # (flag, resolved value) -> the value shortly for
    # the health line, where the engine says it better than the words of the diff (None: those words)
    default_port: Callable[[], int] = lambda: 0  # the port a launch without --port serves on (its flag table's)
    files: Callable[[Any], list[str]] = lambda launch: []  # the files a launch reads at start (paths where it
    # runs: vLLM's `--config FILE.yaml`), read there by the caller (mtptui.ops.host_files)
    with_files: Callable[[Any, Mapping[str, str], str], Any] = lambda launch, texts, label: launch  # (launch,
    # path -> text, side label) -> the launch with what its files say (one sentence when they cannot be read)
    host_check: Callable[[], HostCheck] | None = None  # how the engine on a host judges a launch (None: the
    # engine's host lint is SGLang's own, mtptui.ops.host_lint.lint_on_host)
    ladder: Callable[[Any, dict[int, int], str], Any] | None = None  # (LaunchProfile, best steps by concurrency,
    # version) -> mtptui.engines.ladder.Ladder: one launch serving the best steps of every load; None: none
    grid: Callable[[Any, list[tuple[str, Any]], str], Any] | None = None  # (LaunchProfile, a tune grid's point:
    # (key, value), the word for "left to the engine") -> the profile with it; None: the tune's own (SGLang's) grid
    grid_default: tuple[str, ...] = ()  # that grid's default dimensions (``--grid`` unset)
    grid_keys: tuple[str, ...] = ()  # that grid's own keys, which no flag of the engine's needs to spell out: in a
    # grid over profiles of several engines (``--arms ... --grid``) they say which engine a dimension is for


@dataclass(frozen=True)
class HostCheck:
    """How the engine installed on a host judges a launch (`mtptui flags lint HOST`, mtptui.ops.host_lint): ``boot``
    is a `python -c` program that reads ``input(launch)`` on stdin and prints one JSON answer per case, within
    ``timeout_s``; ``is_answer`` tells an answer from other output, ``import_failure`` says why an answer means
    there is no engine to ask (None: there is), ``report(answer, launch, host name, python)`` is the lint report."""

    boot: str
    input: Callable[[Any], bytes]
    timeout_s: int
    is_answer: Callable[[dict[str, Any]], bool]
    import_failure: Callable[[dict[str, Any]], str | None]
    report: Callable[[dict[str, Any], Any, str, str], Report]


def _vllm_host_check() -> HostCheck:
    from mtptui.engines.vllm.flags import host_check as check

    return HostCheck(check.BOOT, check.runner_input, check.TIMEOUT_S, check.is_answer, check.import_failure,
                     check.host_report)


@dataclass(frozen=True)
class ResolvedLine:
    """A startup log line in which the server says what it resolved (vLLM's `non-default args: {...}`):
    ``marker`` finds it, ``apply(launch, line)`` gives the running launch with what the line says."""

    marker: str
    apply: Callable[[Any, str], Any]


def _sglang_version(host: Any) -> str:
    return str(host.sglang_version)


def _sglang_profile(profile: Any, version: str) -> Any:
    from mtptui.engines.sglang.flags import FlagSet

    return FlagSet.from_profile(profile, version)


def _sglang_argv(words: list[str], version: str) -> Any:
    from mtptui.engines.sglang.flags.command import parse_launch_argv

    return parse_launch_argv(words, version, require_model=False)


def _sglang_command(text: str, version: str) -> Any:
    from mtptui.engines.sglang.flags import parse_command

    return parse_command(text, version, require_model=False)


def _sglang_unit_launch(parsed: Any, version: str) -> Any:
    from mtptui.engines.sglang.unit import unit_flagset

    return unit_flagset(parsed, version)


def _sglang_diff(sides: list[tuple[str, Any]], show_all: bool) -> Any:
    from mtptui.engines.sglang.flags import diff_flagsets

    return diff_flagsets(sides, show_all=show_all)


def _sglang_launch_words(launch: Any) -> list[str]:
    from mtptui.engines.sglang.flags import render_argv

    return [*launch.entry_argv, *render_argv(launch)]


def _sglang_entry(words: list[str]) -> str | None:
    import shlex

    from mtptui.engines.sglang.flags.command import find_entry

    found = find_entry(words)
    return shlex.join(words[found[0]:found[1]]) if found else None


def _with_entry(launch: Any, entry: str) -> Any:
    import copy

    moved = copy.copy(launch)
    moved.entry = entry
    return moved


def _sglang_write_unit(parsed: Any, launch: Any) -> str:
    from mtptui.engines.sglang.unit import with_launch

    return with_launch(parsed, launch)


def _sglang_watch() -> tuple[Parser, StartupState]:
    from mtptui.engines.sglang.logparse import LogParser
    from mtptui.engines.sglang.state import ServerState

    return LogParser(), ServerState(own_start_only=True)  # the old server's last batches come first


def _sglang_default_port() -> int:
    from mtptui.engines.sglang.flags.table import load_table

    return int(load_table(SGLANG_DEFAULT).by_name["--port"].default)


def _vllm_default_port() -> int:
    from mtptui.engines.vllm.flags.table import load_table

    option = load_table(VLLM_DEFAULT).by_option("--port")
    assert option is not None, "vLLM's flag table has --port"
    return int(option.default)


def _vllm_version(host: Any) -> str:
    return VLLM_DEFAULT


def _vllm_profile(profile: Any, version: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import from_profile

    return from_profile(profile, version)


def _vllm_argv(words: list[str], version: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import from_words

    return from_words(words, version)


def _vllm_command(text: str, version: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import from_command

    return from_command(text, version)


def _vllm_unit_launch(parsed: Any, version: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import from_words

    launch = from_words(parsed.exec_argv, version, "its ExecStart=")
    launch.env = {**parsed.environment, **launch.env}
    return launch


def _vllm_diff(sides: list[tuple[str, Any]], show_all: bool) -> Any:
    from mtptui.engines.vllm.flags.diff import diff_launches

    return diff_launches(sides, show_all)


def _vllm_launch_words(launch: Any) -> list[str]:
    return list(launch.words())


def _vllm_entry(words: list[str]) -> str | None:
    from mtptui.engines.vllm.flags.launchset import entry_of

    return entry_of(words)


def _vllm_with_entry(launch: Any, entry: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import with_entry

    return with_entry(launch, entry)


def _vllm_write_unit(parsed: Any, launch: Any) -> str:
    from mtptui.engines.sglang.unit.write import with_launch

    return with_launch(parsed, launch, groups=launch.groups())


def _vllm_watch() -> tuple[Parser, StartupState]:
    from mtptui.engines.vllm.logparse import LogParser
    from mtptui.engines.vllm.state import VllmState

    return LogParser(), VllmState(own_start_only=True)  # the old server's shutdown lines come first


def _vllm_server_said(launch: Any, line: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import with_server_args

    return with_server_args(launch, line)


def _vllm_files(launch: Any) -> list[str]:
    from mtptui.engines.vllm.flags.launchset import config_files

    return config_files(launch)


def _vllm_with_files(launch: Any, texts: Mapping[str, str], label: str) -> Any:
    from mtptui.engines.vllm.flags.launchset import with_config_files

    return with_config_files(launch, texts, label)


def _vllm_restart_lint(launch: Any) -> Any:
    from mtptui.engines.vllm.flags.launchset import lint_verdict

    return lint_verdict(launch)


SGLANG_SHORT = {
    "--speculative-num-steps": "steps", "--speculative-num-draft-tokens": "draft",
    "--speculative-eagle-topk": "topk", "--speculative-algorithm": "spec", "--max-running-requests": "max-running",
    "--mem-fraction-static": "mem-fraction", "--context-length": "context", "--mamba-full-memory-ratio": "mamba-ratio",
    "--mamba-scheduler-strategy": "mamba-strategy", "--tp-size": "tp", "--model-path": "model",
}
VLLM_SHORT = {
    "--speculative-config": "spec", "--spec-tokens": "draft", "--max-num-seqs": "max-seqs",
    "--gpu-memory-utilization": "mem-util", "--max-model-len": "context", "--tensor-parallel-size": "tp",
    "--model": "model",
}
SPEC_FLAGS = ("--speculative-num-steps", "--speculative-num-draft-tokens", "--speculative-eagle-topk")


def _sglang_shape(launch: Any) -> tuple[str, ...] | None:
    from mtptui.engines.sglang.flags import resolve_effective

    if launch is None or launch.get("--speculative-algorithm") is None:
        return None
    effective = resolve_effective(launch)
    return tuple("" if effective.get(flag) is None or effective[flag].value is None else str(effective[flag].value)
                 for flag in SPEC_FLAGS)


def _sglang_ladder(profile: Any, best: dict[int, int], version: str) -> Any:
    from mtptui.engines.sglang.ladder import sglang_ladder

    return sglang_ladder(profile, best, version)


def _vllm_ladder(profile: Any, best: dict[int, int], version: str) -> Any:
    from mtptui.engines.vllm.flags.ladder import vllm_ladder

    return vllm_ladder(profile, best, version)


def _vllm_grid(profile: Any, values: list[tuple[str, Any]], auto: str) -> Any:
    from mtptui.engines.vllm.flags.grid import derive

    return derive(profile, values, auto)


def _vllm_short_value(flag: str, resolved: str) -> str | None:
    """`--speculative-config` as METHOD:TOKENS (``mtp:3``), the rest of it left to the diff."""
    import json

    if flag != "--speculative-config":
        return None
    try:
        config = json.loads(resolved)
    except ValueError:
        return None
    if not isinstance(config, dict) or "method" not in config:
        return None
    tokens = config.get("num_speculative_tokens")
    return f"{config['method']}:{tokens}" if tokens is not None else str(config["method"])


def _vllm_shape(launch: Any) -> tuple[str, ...] | None:
    from mtptui.engines.vllm.flags.launch_speculation import launch_speculation

    found = launch_speculation(launch)
    shape = found.configured if found is not None else None
    if shape is None:
        return None
    return tuple("" if value is None else str(value) for value in (shape.steps, shape.draft_tokens, shape.topk))


LAUNCHES: dict[str, Launches] = {
    "sglang": Launches(_sglang_version, _sglang_profile, _sglang_argv, _sglang_command, _sglang_unit_launch,
                       _sglang_diff, _sglang_launch_words, _sglang_entry, _with_entry, _sglang_write_unit,
                       _sglang_watch, stop_facts=True,
                       process=r"-m sglang[.]launch_server( |$)|sglang serve( |$)", shape=_sglang_shape,
                       short_names=SGLANG_SHORT, default_port=_sglang_default_port, ladder=_sglang_ladder),
    "vllm": Launches(_vllm_version, _vllm_profile, _vllm_argv, _vllm_command, _vllm_unit_launch, _vllm_diff,
                     _vllm_launch_words, _vllm_entry, _vllm_with_entry, _vllm_write_unit, _vllm_watch,
                     _vllm_restart_lint, resolved=ResolvedLine("non-default args: ", _vllm_server_said),
                     process=r"-m vllm[.]entrypoints[.](openai[.])?api_server( |$)|vllm serve( |$)"
                             r"|-m vllm[.]entrypoints[.]cli[.]main serve( |$)", env_prefixes=("VLLM_",),
                     shape=_vllm_shape, short_names=VLLM_SHORT, short_value=_vllm_short_value,
                     default_port=_vllm_default_port, files=_vllm_files, with_files=_vllm_with_files,
                     host_check=_vllm_host_check, ladder=_vllm_ladder, grid=_vllm_grid,
                     grid_default=("tokens=1,2,3,4",), grid_keys=("tokens", "method")),
}
assert tuple(LAUNCHES) == NAMES, "every engine says how its launches are read"


def server_pattern() -> str:
    """An extended regex the command line of a server of any engine mtptui knows matches (`find_servers`)."""
    return "|".join(model.process for model in LAUNCHES.values())


def launch_port(argv: list[str]) -> int | None:
    """The port a server's command line serves on: its ``--port N`` / ``--port=N``, else the default of the engine
    whose launch it is (SGLang's when no engine's entry starts it); None when the value is not a number."""
    for index, word in enumerate(argv):
        value = argv[index + 1] if word == "--port" and index + 1 < len(argv) else \
            word.split("=", 1)[1] if word.startswith("--port=") else None
        if value is not None:
            return int(value) if value.isdigit() else None
    model = next((model for model in LAUNCHES.values() if model.entry(argv) is not None), LAUNCHES[DEFAULT.name])
    return model.default_port()


def launches(name: str | None) -> Launches:
    """How the launches of the engine called ``name`` are read and written (None: the default, SGLang)."""
    return LAUNCHES[engine(name).name]


# The dashboard's view of an engine (mtptui.ui and mtptui.ops read an engine through it, never by its name) -----

class DashboardParser(Parser, Protocol):
    """A log parser whose events are the dashboard state's (engines.sglang.state.ServerState reads SGLang's
    contract kinds), line by line for the log view: ``in_error`` while an error is held back for its traceback,
    ``holding`` while anything is (a quiet stream releases it through ``flush_pending``)."""

    @property
    def holding(self) -> bool: ...

    @property
    def in_error(self) -> bool: ...

    def feed_lines(self, data: bytes | str) -> Iterator[tuple[str, list[Any]]]: ...

    def flush_pending(self, out: list[Any]) -> list[Any]: ...


@dataclass(frozen=True)
class Dashboard:
    """What the dashboard needs of a host's engine: its name for the header, its log read into the dashboard's
    events, and the version the host's configuration names (None: the server's own log or API says it)."""

    label: str
    new_parser: Callable[[], DashboardParser]
    host_version: Callable[[Any], str | None]  # (HostConfig)
    launch_speculation: Callable[[Any], Any]  # a running launch -> mtptui.speculation.LiveSpeculation | None
    launch_rows: Callable[[Any, str], list[tuple[str, str]] | None]  # (launch, unknown): the pane's settings rows
    # as the engine resolves a launch; None: the launch's speculation (launch_speculation) says them
    server_info: Callable[[GetJson, str | None], Awaitable[ServerInfo | None]]  # (get_json, the version known so
    # far): what the server's API says of itself (mtptui.engines.polls), None while it cannot answer
    metrics_reader: Callable[[str | None], MetricsReader]  # (version): a reader of its /metrics into figures
    metrics_off: str = ""  # what a /metrics that does not answer 200 may mean ("" when it is always on)
    poll_paths: tuple[str, ...] = ("/metrics", "/health")  # what the dashboard (and monitors) GET every few
    # seconds: the log view hides their access lines
    info_paths: tuple[str, ...] = ("/version",)  # where the server says its release (a JSON object with
    # "version"), the first answering 200 (`mtptui check`'s api line)


def _sglang_dashboard_parser() -> DashboardParser:
    from mtptui.engines.sglang.logparse import LogParser

    return LogParser()


def _vllm_dashboard_parser() -> DashboardParser:
    from mtptui.engines.vllm.dashboard import DashboardParser as VllmDashboardParser

    return VllmDashboardParser()


def _sglang_host_version(host: Any) -> str | None:
    return str(host.sglang_version)


def _no_host_version(host: Any) -> str | None:
    return None  # the host file names no vLLM version: the banner of the server's log does


def _sglang_launch_speculation(launch: Any) -> Any:
    from mtptui.engines.sglang.live import live_from_launch

    return live_from_launch(launch)


def _sglang_launch_rows(launch: Any, unknown: str) -> list[tuple[str, str]] | None:
    from mtptui.engines.sglang.spec_rows import launch_rows

    return launch_rows(launch, unknown)


def _no_launch_rows(launch: Any, unknown: str) -> list[tuple[str, str]] | None:
    return None


def _vllm_launch_speculation(launch: Any) -> Any:
    from mtptui.engines.vllm.flags.launch_speculation import launch_speculation

    return launch_speculation(launch)


async def _sglang_server_info(get_json: GetJson, version: str | None) -> ServerInfo | None:
    from mtptui.engines.sglang.host_polls import server_status

    return await server_status(get_json, version)


def _sglang_metrics(version: str | None) -> MetricsReader:
    from mtptui.engines.sglang.host_polls import metrics_reader

    return metrics_reader(version)


async def _vllm_server_info(get_json: GetJson, version: str | None) -> ServerInfo | None:
    from mtptui.engines.vllm.host_polls import server_status

    return await server_status(get_json, version)


def _vllm_metrics(version: str | None) -> MetricsReader:
    from mtptui.engines.vllm.host_polls import metrics_reader

    return metrics_reader(version)


DASHBOARDS: dict[str, Dashboard] = {
    "sglang": Dashboard(SGLANG.label, _sglang_dashboard_parser, _sglang_host_version, _sglang_launch_speculation,
                        _sglang_launch_rows, _sglang_server_info, _sglang_metrics,
                        metrics_off="no --enable-metrics?", poll_paths=SGLANG_POLLS,
                        info_paths=SGLANG_INFO),
    "vllm": Dashboard(VLLM.label, _vllm_dashboard_parser, _no_host_version, _vllm_launch_speculation,
                      _no_launch_rows, _vllm_server_info, _vllm_metrics,
                      poll_paths=("/metrics", "/version", "/health")),
}
assert tuple(DASHBOARDS) == NAMES, "every engine of the registry has a dashboard view"


async def server_engine(get_json: GetJson) -> tuple[Engine, ServerInfo] | None:
    """The engine a running server is, by what its API says of itself (each engine's own word, asked in the
    registry's order: SGLang's /server_info, vLLM's /version), with that word; None when no engine's answers."""
    for name, view in DASHBOARDS.items():
        said = await view.server_info(get_json, None)
        if said is not None:
            return ENGINES[name], said
    return None


def dashboard(name: str | None) -> Dashboard:
    """The dashboard's view of the engine called ``name`` (None: the default, SGLang)."""
    return DASHBOARDS[engine(name).name]


# --- The drain: the requests a server holds by its own count (mtptui.ops.restart.drain waits for 0) -----------

async def _sglang_held(get_text: GetText, label: str) -> int:
    from mtptui.engines.sglang.api import held_requests

    return await held_requests(get_text, label)


async def _vllm_held(get_text: GetText, label: str) -> int:
    from mtptui.engines.vllm.host_polls import held_requests

    return await held_requests(get_text, label)


def _vllm_held_source() -> str:
    from mtptui.engines.vllm.host_polls import HELD_SOURCE

    return HELD_SOURCE


HELD: dict[str, HeldCount] = {
    "sglang": HeldCount(SGLANG_HELD, _sglang_held),
    "vllm": HeldCount(_vllm_held_source(), _vllm_held),
}
assert tuple(HELD) == NAMES, "every engine says where its server counts the requests it holds"


def held_count(name: str | None) -> HeldCount:
    """Where a server of the engine called ``name`` counts the requests it holds (None: the default, SGLang)."""
    return HELD[engine(name).name]


# --- The fleet: an engine's families as Prometheus holds them (mtptui.fleet.promql) -----------------------------

@dataclass(frozen=True)
class FleetFamilies:
    """An engine's Prometheus families for the fleet's figures, named without their prefix (``prefix`` is the
    regex of it: SGLang's ``sglang:`` and a re-export's ``sglang_``). The fleet asks every engine's figure in one
    query per figure, joined by PromQL's ``or``: an instance exports one engine's families, so each gets its own.
    ``accept`` is (numerator, denominator, base): accept length = base + Δnumerator / Δdenominator over the
    window; ``per_rank``: the scheduler gauges carry rank labels, ranks of one batch report the same count."""

    prefix: str
    generation: str  # counter: tokens generated
    finished: str  # counter: requests finished
    aborted: tuple[str, str]  # counter of aborted requests, and the label matcher that picks them ("": all of it)
    running: str
    queued: str
    kv_usage: str  # 0-1; the fullest rank's is the instance's
    ttft: str  # histograms, in seconds
    itl: str
    accept: tuple[str, str, float]
    accept_source: str  # the accept length's source as a row names it
    anchor: str  # a family every server of the engine exports from its start: the instance is one of its
    accept_gauge: str | None = None  # a gauge of the accept length, where counters are missing (older SGLang)
    per_rank: bool = False


FLEET: dict[str, FleetFamilies] = {
    "sglang": FleetFamilies("sglang[:_]", "generation_tokens_total", "num_requests_total",
                            ("num_aborted_requests_total", ""), "num_running_reqs", "num_queue_reqs", "token_usage",
                            "time_to_first_token_seconds", "inter_token_latency_seconds",
                            ("generation_tokens_total", "spec_verify_calls_total", 0.0), "spec_verify_calls_total",
                            "max_total_num_tokens", accept_gauge="spec_accept_length", per_rank=True),
    "vllm": FleetFamilies("vllm[:_]", "generation_tokens_total", "request_success_total",
                          ("request_success_total", 'finished_reason="abort"'), "num_requests_running",
                          "num_requests_waiting", "kv_cache_usage_perc", "time_to_first_token_seconds",
                          "inter_token_latency_seconds",
                          ("spec_decode_num_accepted_tokens_total", "spec_decode_num_drafts_total", 1.0),
                          "spec_decode counters", "num_requests_running"),
}
assert tuple(FLEET) == NAMES, "every engine says how the fleet reads its families"


def fleet_families(name: str | None) -> FleetFamilies:
    """The fleet's view of the families of the engine called ``name`` (None: the default, SGLang)."""
    return FLEET[engine(name).name]


def family_engine(name: str) -> str | None:
    """The engine whose family a Prometheus series name (``vllm:num_requests_running``) is; None: no engine's."""
    import re

    return next((engine for engine, families in FLEET.items() if re.match(families.prefix, name)), None)


# --- The flags form: an engine's flag model for editing a launch profile (mtptui.ops.flag_form) ------------------

@dataclass(frozen=True)
class FlagForm:
    """What the flags form needs of an engine's flag model. A launch is the engine's own (as in Launches);
    findings are mtptui.engines.finding.Finding (severity, flag, message, fix, engine_message)."""

    label: str  # the engine's display name ("vLLM"), for the form's words
    model_flag: str  # the option naming the model (SGLang's --model-path, vLLM's --model)
    fields: tuple[tuple[str, str, bool], ...]  # (canonical flag, label, whether a choice), the named fields
    choices: Callable[[str, str], tuple[str, ...]]  # (flag, version) -> the values a choice offers
    resolve: Callable[[str, str], str | None]  # (a row's option word, version) -> its canonical flag, or None
    pairs: Callable[[Any], list[tuple[str, str]]]  # launch -> (canonical flag, value as typed), its order
    lint: Callable[[list[str], dict[str, str], str, str], tuple[Any | None, list[Any]]]  # (option words, env,
    # python, version) -> (the launch, None when the engine cannot read it; the offline lint's findings)
    command: Callable[[Any], str]  # launch -> its command line, one option per line
    profile_fields: Callable[[Any], dict[str, Any]]  # launch -> a LaunchProfile's fields (no note)


SGLANG_FIELDS: tuple[tuple[str, str, bool], ...] = (
    ("--speculative-algorithm", "speculative algorithm", True),
    ("--speculative-num-steps", "steps", False),
    ("--speculative-num-draft-tokens", "draft tokens", False),
    ("--speculative-eagle-topk", "top-k", False),
    ("--mem-fraction-static", "memory fraction", False),
    ("--context-length", "context length", False),
    ("--max-running-requests", "max running requests", False),
    ("--mamba-full-memory-ratio", "mamba full memory ratio", False),
    ("--mamba-scheduler-strategy", "mamba scheduler strategy", True),
    ("--reasoning-parser", "reasoning parser", True),
    ("--tool-call-parser", "tool-call parser", True),
    ("--tp-size", "TP size", False),
)


def _sglang_choices(flag: str, version: str) -> tuple[str, ...]:
    from mtptui.engines.sglang.flags import load_table

    table = load_table(version)
    spec = table.get(flag)
    if flag == "--speculative-algorithm":
        return tuple(table.spec_builtins)
    return tuple(str(c) for c in spec.choices) if spec is not None and spec.choices else ()


def _sglang_resolve(word: str, version: str) -> str | None:
    from mtptui.engines.sglang.flags import load_table
    from mtptui.engines.sglang.flags.resolve import match_option

    spec = match_option(word, load_table(version)).spec
    return spec.name if spec is not None else None


def _sglang_pairs(launch: Any) -> list[tuple[str, str]]:
    from mtptui.engines.sglang.flags.command import value_text

    return [(name, "" if value is True else " ".join(map(value_text, value)) if isinstance(value, list)
             else value_text(value)) for name, value in launch.flags.items()]


def _sglang_form_lint(args: list[str], env: dict[str, str], python: str, version: str) -> tuple[Any | None,
                                                                                                 list[Any]]:
    from mtptui.engines.entry import module_entry
    from mtptui.engines.sglang.lint import lint_argv
    from mtptui.engines.sglang.flags.flagset import LAUNCH_MODULE

    flagset, findings = lint_argv(args, version, env=env)
    if flagset is not None:
        flagset.entry = module_entry(python, LAUNCH_MODULE)
    return flagset, list(findings)


def _sglang_form_command(launch: Any) -> str:
    from mtptui.engines.sglang.flags import render_command

    return render_command(launch, multiline=True)


def _sglang_profile_fields(launch: Any) -> dict[str, Any]:
    return dict(launch.to_profile_fields())


def _vllm_form() -> FlagForm:
    from mtptui.engines.vllm.flags import form

    return FlagForm(VLLM.label, "--model", form.FIELDS, form.choices, form.resolve, form.pairs, form.lint,
                    form.command, form.profile_fields)


FORMS: dict[str, Callable[[], FlagForm]] = {
    "sglang": lambda: FlagForm(SGLANG.label, "--model-path", SGLANG_FIELDS, _sglang_choices, _sglang_resolve,
                               _sglang_pairs, _sglang_form_lint, _sglang_form_command, _sglang_profile_fields),
    "vllm": _vllm_form,
}
assert tuple(FORMS) == NAMES, "every engine of the registry has a flags form"


def flag_form(name: str | None) -> FlagForm:
    """The flags form's view of the engine called ``name`` (None: the default, SGLang)."""
    return FORMS[engine(name).name]()
