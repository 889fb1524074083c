"""Plan a tune before anything changes: the base profile, the arms (linted), the workload, and the original launch
that is restored at the end (or after an abort).

The original is what runs now: named by the host profile it matches exactly, else kept as the running process's
own launch (its command line and environment) under the name ``ORIGINAL``. The arms and the original become
profiles of a copy of the host, so each restart goes through the restart's public entry points by name.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mtptui.config.models import HostConfig, LaunchProfile
from mtptui.engines.registry import flag_form, launches
from mtptui.errors import UserError
from mtptui.ops.readonly import refuse_if_readonly
from mtptui.ops.restart.drain import DrainOptions, DrainPlan, plan_drain
from mtptui.ops.tune.arms import Arm, make_arms, resolved_values
from mtptui.ops.tune.grid import parse_concurrency, parse_grid
from mtptui.ops.tune.profile_arms import grid_arms, parse_arms
from mtptui.ops.tune.profile_grid import grid_over_profiles

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.tune.proposal import Proposal

ORIGINAL = "original"
ADAPTIVE_ONLY = ("--adaptive measures SGLang's adaptive proposal after a grid over an SGLang profile; a tune of --arms "
                 "or of another engine's own grid proposes its winning engine's ladder instead, without --adaptive")
KEEP = ("original", "best")


@dataclass(frozen=True)
class Workload:
    """What every arm is measured with: ``requests`` per concurrency (at least the concurrency itself)."""

    concurrency: tuple[int, ...] = (1, 4, 16)
    requests: int = 4
    max_tokens: int = 256
    prompts: str = "rbtree"
    canary_tokens: int = 48

    def requests_at(self, concurrency: int) -> int:
        return max(self.requests, concurrency)

    def to_json(self) -> dict[str, Any]:
        return {"concurrency": list(self.concurrency), "requests": self.requests, "max_tokens": self.max_tokens,
                "prompts": self.prompts, "canary_tokens": self.canary_tokens}


@dataclass
class Original:
    """The launch restored at the end: ``name`` of its profile in the tune's host, ``matched`` when that is one of
    the host's own profiles, ``label`` the running side it was read from."""

    name: str
    profile: LaunchProfile
    matched: bool
    label: str
    engine: str = "sglang"  # the engine that ran it (the tune ends with that engine's server running)


@dataclass
class TunePlan:
    """Everything a tune will do, readable before it does it."""

    host: HostConfig  # the host with the arms' and the original's profiles added
    base: str
    arms: list[Arm]
    workload: Workload
    keep: str
    original: Original
    base_values: dict[str, Any] = field(default_factory=dict)
    original_values: dict[str, Any] = field(default_factory=dict)
    adaptive: bool = False  # measure the adaptive proposal as one more arm (mtptui.ops.tune.adaptive)
    proposal: Proposal | None = None  # set after the grid's arms ran
    drain: DrainOptions = DrainOptions()  # every restart's gateway steps (--drain-timeout, --no-gateway)
    gateway: DrainPlan | None = None  # those steps as planned before the first arm (None: no gateway, or left out)
    gateway_notes: list[str] = field(default_factory=list)
    engine_grid: bool = False  # the grid is the base engine's own (vLLM's tokens): its ladder, not SGLang's adaptive
    base_arms: dict[str, str] = field(default_factory=dict)  # ``--arms``: engine -> its base arm (the canary's
    # reference, mtptui.ops.tune.profile_grid)
    grid: tuple[str, ...] = ()  # ``--arms`` with ``--grid``: the dimensions, as written

    @property
    def runnable(self) -> list[Arm]:
        """The arms to run, the base arm (the base profile's own settings: the canary's reference) first; with arms
        of several engines, the original's engine first (one switch there, one back at the end)."""
        pending = [a for a in self.arms if a.status == "pending"]
        return sorted(pending, key=lambda a: (a.engine != self.original.engine, self._not_base(a)))

    def _not_base(self, arm: Arm) -> bool:
        if self.base_arms:
            return arm.name != self.base_arms.get(arm.engine)
        return arm.flags != self.base_values if arm.profile_name is None else False

    @property
    def engine_ladder(self) -> bool:
        """The answer's ladder is the winning engine's own launch (``Launches.ladder``): arms by profile or an
        engine's own grid. Otherwise (SGLang's grid over one profile) it is the adaptive proposal."""
        return self.by_profile or self.engine_grid

    @property
    def by_profile(self) -> bool:
        """The arms are the host's own profiles (``--arms``), not a grid over the base."""
        return any(arm.profile_name is not None for arm in self.arms)

    @property
    def engines(self) -> list[str]:
        """The engines the tune runs: the original's, then the arms' in their order."""
        return list(dict.fromkeys([self.original.engine, *(arm.engine for arm in self.arms)]))

    def describe(self) -> list[str]:
        """What the tune will do, one line each (the CLI's plan and the confirm dialog's body)."""
        keep = "the best arm" if self.keep == "best" else f"the original launch ({self.original.name})"
        profiles = dict.fromkeys(a.profile_name or a.name for a in self.arms)
        source = f"the profiles {', '.join(profiles)}" if self.by_profile else f"profile {self.base}"
        if self.grid:
            source += f", each over its engine's part of the grid {' '.join(self.grid)}"
        lines = [f"tune {self.host.name} from {source}: {len(self.runnable)} arm(s), each a restart "
                 f"(rolled back automatically if it crashes or times out), then {keep} is restarted and kept",
                 f"original: {self.original.name} ({self.original.label}); an abort restores it",
                 f"workload: {self.workload.prompts} prompts, concurrency "
                 f"{', '.join(map(str, self.workload.concurrency))}, {self.workload.requests} requests "
                 f"(at least one per slot), {self.workload.max_tokens} tokens; then a greedy canary of "
                 f"{self.workload.canary_tokens} tokens"]
        for arm in self.arms:
            lines.append(f"  {arm.name}: {arm.label}" + (f" — {arm.status}: {arm.reason}" if arm.reason else ""))
        if self.adaptive:
            lines.append("  then, when the best steps differ by concurrency: an adaptive profile as one more arm")
        if len(self.engines) > 1:
            lines.append(f"engines: {', '.join(self.engines)}; one runs at a time: switching stops one engine's "
                         f"server and starts the other's, checked live against its arm before it is measured")
        return lines + self.gateway_lines()

    def gateway_lines(self) -> list[str]:
        """How the restarts meet the gateway (none without one): drained, or why not; and the traffic measured."""
        gateway = self.gateway
        if gateway is None or gateway.last:
            return [f"gateway: {note}" for note in self.gateway_notes]
        return [f"gateway: every restart (each arm's, the final one) is drained through the gateway at "
                f"{gateway.gateway}: {gateway.worker_url} is removed, waits until it holds no request (at most "
                f"{gateway.timeout_s:g} s, --drain-timeout), restarts, and is added back once ready",
                f"gateway: while an arm is measured its server is back in the gateway, so the gateway's own traffic "
                f"reaches it and mixes with the benchmark ({', '.join(gateway.peers)} share that traffic)"]

    def gateway_json(self) -> dict[str, Any] | None:
        if self.gateway is None:
            return None
        return {**self.gateway.to_json(), "drained": self.gateway.active, "notes": list(self.gateway_notes)}


async def find_original(session: HostSession, engines: list[str] | None = None) -> Original:
    """What runs now, as a profile; a UserError when nothing runs (there would be nothing to restore) or when
    servers of two engines run at once (a tune across engines runs one at a time). ``engines``: the engines to
    look for besides the host's own."""
    from mtptui.engines.registry import engine as engine_of

    found: list[Original] = []
    for name in dict.fromkeys([session.host.engine, *(engines or [])]):
        original = await _original_of(engine_session(session, name), session.host.engine)
        if original is not None:
            found.append(original)
    host = session.host
    if not found:
        raise UserError(f"no {engine_of(host.engine).label} server runs on {host.name}: a tune restores what ran "
                        f"before it, so start the server first (mtptui restart {host.name} --profile NAME)")
    if len(found) > 1:
        raise UserError(f"servers of {' and '.join(engine_of(o.engine).label for o in found)} both run on "
                        f"{host.name}: a tune runs one engine at a time, so stop one of them first")
    if not found[0].matched:  # named so that it replaces none of the host's profiles (of either engine)
        found[0].name = unused_name(host, ORIGINAL)
    return found[0]


async def _original_of(session: HostSession, home: str) -> Original | None:
    """What runs now on ``session``'s engine, as a profile (one of the host's when one matches); None: nothing."""
    from mtptui.ops.launches import running_side, profile_side

    host, model = session.host, launches(session.host.engine)
    own = {name: profile for name, profile in host.profiles.items() if (profile.engine or home) == host.engine}
    env_names = {name for profile in own.values() for name in profile.env}  # another engine's are not this one's
    running = await running_side(session, env_names)
    if running is None:
        return None
    for name in own:
        try:
            _, side = profile_side(host, name)
        except UserError:
            continue
        if model.diff([(running.side.label, running.side.flagset), (side.label, side.flagset)], False).empty:
            return Original(name, host.profiles[name], True, running.side.label, host.engine)
    fields = flag_form(host.engine).profile_fields(running.side.flagset)
    fields["note"] = f"what ran before the tune ({running.side.label})"
    if host.engine != home:
        fields["engine"] = host.engine
    return Original(ORIGINAL, LaunchProfile(**fields), False, running.side.label, host.engine)


def unused_name(host: HostConfig, name: str) -> str:
    """``name``, or ``name-2``, ``name-3``, ... when the host has a profile called that already."""
    found, number = name, 2
    while found in host.profiles:
        found, number = f"{name}-{number}", number + 1
    return found


def tune_profiles(host: HostConfig, arms: list[Arm], original: Original) -> dict[str, LaunchProfile]:
    """The tune's host's profiles: the host's own, each derived arm's and the original's when it is none of them.
    A derived arm named like one of the host's profiles is one sentence: the copy would replace that profile, and
    a tune whose original it is would restore the arm's launch instead."""
    for arm in arms:
        if arm.profile_name != arm.name and arm.name in host.profiles:
            raise UserError(f"the tune would name an arm {arm.name}, which is already a profile of {host.name}: "
                            f"rename that profile")
    profiles = {**host.profiles, **{arm.name: arm.profile for arm in arms if arm.profile_name != arm.name}}
    if not original.matched:
        profiles[original.name] = original.profile
    return profiles


def engine_session(session: HostSession, name: str) -> HostSession:
    """The session seen running engine ``name``: the same transport, that engine's server, log and API."""
    from mtptui.ops.connect import make_manager

    if name == session.host.engine:
        return session
    view = session.host.for_engine(name)
    return dataclasses.replace(session, host=view, manager=make_manager(view, session.transport))


def _check_workload(workload: Workload) -> None:
    from mtptui.bench.prompts import load_prompt_set

    if min(workload.requests, workload.max_tokens, workload.canary_tokens) < 1:
        raise UserError("--requests, --max-tokens and --canary-tokens must be positive")
    load_prompt_set(workload.prompts)  # an unknown set is a UserError now, not after the first restart


async def plan_tune(session: HostSession, *, base: str | None = None, grid: list[str] | None = None,
                    concurrency: str | None = None, requests: int = 4, max_tokens: int = 256,
                    prompts: str = "rbtree", keep: str = "original", canary_tokens: int = 48,
                    adaptive: bool = False, drain: DrainOptions = DrainOptions(),
                    arms: str | None = None) -> TunePlan:
    """The plan (reads the host, changes nothing); UserError for bad input or nothing to restore. ``arms``: the
    host's profiles to run as they are (of either engine), instead of a grid over the base profile."""
    host = session.host
    refuse_if_readonly(session.readonly, "run a tune (every arm restarts the server)", host.name)
    if keep not in KEEP:
        raise UserError(f"--keep takes original or best, not {keep!r}")
    if adaptive and arms is not None:
        raise UserError(ADAPTIVE_ONLY)
    if arms is not None and base:
        raise UserError("--arms names the arms' profiles themselves, each the base of its own engine's part of "
                        "--grid: it does not take --base")
    workload = Workload(tuple(parse_concurrency(concurrency)), requests, max_tokens, prompts, canary_tokens)
    _check_workload(workload)
    if arms is not None:
        return await _plan_profiles(session, parse_arms(arms), grid, workload, keep, drain)
    return await _plan_grid(session, base, grid, workload, keep, adaptive, drain)


async def _plan_grid(session: HostSession, base: str | None, grid: list[str] | None, workload: Workload, keep: str,
                     adaptive: bool, drain: DrainOptions) -> TunePlan:
    from mtptui.ops.diff_live import default_profile

    host = session.host
    base_name = base or default_profile(host)
    base_profile = host.profile(base_name)
    own = grid_arms(host, base_name, grid)
    if own is not None and adaptive:
        raise UserError(ADAPTIVE_ONLY)
    if own is not None:
        return await _plan_engine_grid(session, base_name, own, workload, keep, drain)
    points = parse_grid(grid)
    arms = make_arms(base_profile, base_name, points, host.sglang_version)
    for arm in arms:
        arm.engine = host.engine
    original = await find_original(session)
    gateway, gateway_notes = await plan_drain(session, drain)  # a gateway problem stops here, before any restart
    profiles = tune_profiles(host, arms, original)
    flags = [flag for flag, _ in points[0].values]
    return TunePlan(host.model_copy(update={"profiles": profiles}), base_name, arms, workload, keep, original,
                    resolved_values(base_profile, flags, host.sglang_version),
                    resolved_values(original.profile, flags, host.sglang_version), adaptive, drain=drain,
                    gateway=gateway, gateway_notes=gateway_notes)


async def _plan_engine_grid(session: HostSession, base: str, arms: list[Arm], workload: Workload, keep: str,
                            drain: DrainOptions) -> TunePlan:
    """A grid the base profile's engine writes itself (vLLM's ``tokens=1,2,3,4``); its server may be another
    engine's than the host's own (a switch at the start and at the end)."""
    from mtptui.ops.tune.profile_arms import profile_arm

    host = session.host
    original = await find_original(session, [arms[0].engine])
    gateway, gateway_notes = await plan_drain(session, drain)
    profiles = tune_profiles(host, arms, original)
    base_values = profile_arm(host, base).flags
    original_values = next((a.flags for a in arms if original.engine == a.engine and original.matched and
                            a.flags == profile_arm(host, original.name).flags), {})
    return TunePlan(host.model_copy(update={"profiles": profiles}), base, arms, workload, keep, original, base_values,
                    original_values, False, drain=drain, gateway=gateway, gateway_notes=gateway_notes,
                    engine_grid=True)


async def _plan_profiles(session: HostSession, names: list[str], grid: list[str] | None, workload: Workload,
                         keep: str, drain: DrainOptions) -> TunePlan:
    """Arms that are the host's own profiles, of one engine or several (the "more MTP or vLLM?" tune), each the
    base of its engine's part of ``grid`` when there is one (mtptui.ops.tune.profile_grid)."""
    host = session.host
    arms, bases = grid_over_profiles(host, names, grid)
    original = await find_original(session, [arm.engine for arm in arms])
    gateway, gateway_notes = await plan_drain(session, drain)
    profiles = tune_profiles(host, arms, original)
    base = next(arm for arm in arms if arm.name == bases[arm.engine])
    values = next((arm.flags for arm in arms if arm.name == original.name), {})
    return TunePlan(host.model_copy(update={"profiles": profiles}), names[0], arms, workload, keep, original,
                    base.flags, values, False, drain=drain, gateway=gateway, gateway_notes=gateway_notes,
                    base_arms=bases, grid=tuple(grid or ()))


def tune_session(session: HostSession, plan: TunePlan) -> HostSession:
    """The session with the tune's host (the arms and the original as profiles): same transport, same manager."""
    return dataclasses.replace(session, host=plan.host)
