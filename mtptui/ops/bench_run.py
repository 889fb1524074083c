"""The benchmark use case, for `mtptui bench` and the bench screen alike: reach the API, run, record, compare.

    outcome = await run_bench(target_of_session(session), config, on_event=post)

The API is always reached the way the target says: for a host, through its session (an SSH tunnel to the
``api_url`` as the GPU host sees it; the local transport for a host without SSH); for ``--url``, directly.
A host's server log is followed through the same session during the run: its decode lines give the accept
length where the SGLang release sends no per-request figures (0.5.12.post1); ``--url`` has no log.
Two comparisons come back: with the best earlier configuration of the same workload (mtptui.bench.compare, the
regression verdict), and with the run just before this one (so "how much better than the run before" is
answered even when an older, better run exists). A run that measured a model none of the host's profiles
serves says so and is kept out of the host's comparisons: it measured some other server.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from mtptui.bench.events import BenchEvent, Notice

if TYPE_CHECKING:
    from pathlib import Path

    from mtptui.bench.compare import Comparison
    from mtptui.bench.runner import BenchConfig
    from mtptui.bench.step_cost import StepVerdict
    from mtptui.config import HostConfig
    from mtptui.ops.connect import HostSession
    from mtptui.remote.follow import LogFollower

@dataclass(frozen=True)
class ApiTarget:
    """Where a benchmark's requests go (``url`` opens the way there), the name history files them under, and
    (``log``, when there is one) a new follower of the server's log, from its end."""

    name: str
    url: Callable[[], Awaitable[str]]
    models: tuple[str, ...] = ()  # the models the host's profiles serve; empty: any model is the host's
    log: Callable[[], LogFollower] | None = None
    gpus: Callable[[], Awaitable[dict[str, object] | None]] | None = None  # the host's GPUs, for the runs' rig


def target_of_session(session: HostSession) -> ApiTarget:
    """The API of a host session's host, reached through the session (an SSH tunnel for a remote host), its
    server log, followed through the same session, and its GPUs (nvidia-smi on the host)."""
    from mtptui.remote.gpu_rig import query_rig_gpus
    from mtptui.remote.logsource import Start

    return ApiTarget(session.host.name, session.api_url, profile_models(session.host),
                     lambda: session.follower(start=Start.end()), lambda: query_rig_gpus(session.transport))


async def target_gpus(target: ApiTarget) -> dict[str, object] | None:
    """The target's GPUs for the rig; None without a host or when the host cannot say (no nvidia-smi)."""
    from mtptui.remote.errors import RemoteError

    if target.gpus is None:
        return None
    try:
        return await target.gpus()
    except RemoteError:
        return None


def target_of_url(url: str) -> ApiTarget:
    async def direct() -> str:
        return url

    return ApiTarget(url.rstrip("/"), direct)


def profile_models(host: HostConfig) -> tuple[str, ...]:
    """The model names the host's server answers with: each profile's model path and served model name."""
    names: list[str] = []
    for profile in host.profiles.values():
        names.append(profile.model_path)
        served = profile.flags.get("served-model-name")
        if isinstance(served, str):
            names.append(served)
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class BenchRequest:
    """The bench screen's workload (the API comes from the screen's host session)."""

    prompts: str
    concurrency: int
    requests: int
    max_tokens: int
    warmup: int = 1


@dataclass
class BenchOutcome:
    """Finished runs as stored in history (Bench JSON with ``id``), the last one first-class, and comparisons."""

    run: dict[str, Any]
    best: Comparison
    previous: Comparison | None = None  # Comparison with the run just before, None when that is the best one or absent
    runs: list[dict[str, Any]] = field(default_factory=list)
    steps: StepVerdict | None = None  # the step cost against earlier runs of the same shape (mtptui.bench.step_cost)


def bench_config(request: BenchRequest) -> BenchConfig:
    """The engine's configuration for the bench screen's workload; an unknown prompt set is a UserError."""
    from mtptui.bench.load import LoadPlan
    from mtptui.bench.payload import Sampling
    from mtptui.bench.runner import BenchConfig

    plan = LoadPlan(requests=request.requests, concurrency=request.concurrency, warmup=request.warmup)
    return BenchConfig.for_workload(request.prompts, plan, request.max_tokens, Sampling(temperature=0.0))


def model_mismatch(target: ApiTarget, run: dict[str, Any]) -> str | None:
    """Why a run did not measure the host's own server (its model is none of the host's), or None."""
    measured = run["fingerprint"].get("model")
    if not target.models or measured is None or measured in target.models:
        return None
    return (f"the server answered with model {measured!r}, which none of {target.name}'s profiles serves "
            f"({', '.join(target.models)}): recorded, but not compared with {target.name}'s history")


async def run_bench(target: ApiTarget, config: BenchConfig, on_event: Callable[[BenchEvent], None], *,
                    repeat: int = 1, record: bool = True, history_path: Path | None = None) -> BenchOutcome:
    """Run ``repeat`` times against the target's API, record and compare; UserError when it cannot be reached."""
    from mtptui.bench.decodelog import DecodeLog
    from mtptui.bench.runner import BenchRunner

    config = dataclasses.replace(config, url=await target.url(), target=target.name, gpus=await target_gpus(target))
    runs: list[dict[str, Any]] = []
    for _ in range(repeat):
        log = DecodeLog(target.log()) if target.log is not None else None
        runs.append((await BenchRunner(config, log=log).run(on_event=on_event)).to_json())
    mismatch = model_mismatch(target, runs[-1])
    if mismatch:
        on_event(Notice(mismatch))
        for run in runs:
            run["foreign_model"] = mismatch
    return record_and_compare(runs, history_path, record=record)


def record_and_compare(runs: list[dict[str, Any]], history_path: Path | None = None, *,
                       record: bool = True) -> BenchOutcome:
    """Append the runs to history and compare them with the best earlier run and with the one just before."""
    from mtptui.bench import history
    from mtptui.bench.compare import Comparison, compare
    from mtptui.bench.step_cost import compare_steps

    earlier = [run for run in history.load_runs(history_path) if not run.get("foreign_model")]
    records = [history.append_run(run, history_path) for run in runs] if record else runs
    last = records[-1]
    if last.get("foreign_model"):
        return BenchOutcome(last, Comparison("no-baseline", reason=last["foreign_model"]), None, records)
    best = compare(records, earlier)
    same = history.same_class(earlier, last["fingerprint"])
    previous = None
    if same and (best.baseline is None or same[-1].get("id") != best.baseline.get("id")):
        previous = compare([last], [same[-1]])
    return BenchOutcome(last, best, previous, records, compare_steps(last, earlier))
