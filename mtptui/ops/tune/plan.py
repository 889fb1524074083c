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
from mtptui.errors import UserError
from mtptui.ops.readonly import refuse_if_readonly
from mtptui.ops.restart.drain import DrainOptions, DrainPlan, plan_drain
from mtptui.ops.tune.arms import Arm, make_arms, resolved_values
from mtptui.ops.tune.grid import parse_concurrency, parse_grid

if TYPE_CHECKING:
    from mtptui.ops.connect import HostSession
    from mtptui.ops.tune.proposal import Proposal

ORIGINAL = "original"
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

    @property
    def runnable(self) -> list[Arm]:
        """The arms to run, the base arm (the base profile's own settings: the canary's reference) first."""
        pending = [a for a in self.arms if a.status == "pending"]
        return sorted(pending, key=lambda a: a.flags != self.base_values)

    def describe(self) -> list[str]:
        """What the tune will do, one line each (the CLI's plan and the confirm dialog's body)."""
        keep = "the best arm" if self.keep == "best" else f"the original launch ({self.original.name})"
        lines = [f"tune {self.host.name} from profile {self.base}: {len(self.runnable)} arm(s), each a restart "
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


async def find_original(session: HostSession) -> Original:
    """What runs now, as a profile; a UserError when nothing runs (there would be nothing to restore)."""
    from mtptui.ops.launches import running_side, profile_side
    from mtptui.sglang.flags import FlagError, diff_flagsets

    host = session.host
    env_names = {name for profile in host.profiles.values() for name in profile.env}
    running = await running_side(session, env_names)
    if running is None:
        raise UserError(f"no SGLang server runs on {host.name}: a tune restores what ran before it, so start the "
                        f"server first (mtptui restart {host.name} --profile NAME)")
    for name in host.profiles:
        try:
            _, side = profile_side(host, name)
        except FlagError:
            continue
        if diff_flagsets([(running.side.label, running.side.flagset), (side.label, side.flagset)]).empty:
            return Original(name, host.profiles[name], True, running.side.label)
    fields = running.side.flagset.to_profile_fields()
    fields["note"] = f"what ran before the tune ({running.side.label})"
    return Original(ORIGINAL, LaunchProfile(**fields), False, running.side.label)


def _check_workload(workload: Workload) -> None:
    from mtptui.bench.prompts import load_prompt_set

    if min(workload.requests, workload.max_tokens, workload.canary_tokens) < 1:
        raise UserError("--requests, --max-tokens and --canary-tokens must be positive")
    load_prompt_set(workload.prompts)  # an unknown set is a UserError now, not after the first restart


async def plan_tune(session: HostSession, *, base: str | None = None, grid: list[str] | None = None,
                    concurrency: str | None = None, requests: int = 4, max_tokens: int = 256,
                    prompts: str = "rbtree", keep: str = "original", canary_tokens: int = 48,
                    adaptive: bool = False, drain: DrainOptions = DrainOptions()) -> TunePlan:
    """The plan (reads the host, changes nothing); UserError for bad input or nothing to restore."""
    from mtptui.ops.diff_live import default_profile

    host = session.host
    refuse_if_readonly(session.readonly, "run a tune (every arm restarts the server)", host.name)
    if keep not in KEEP:
        raise UserError(f"--keep takes original or best, not {keep!r}")
    base_name = base or default_profile(host)
    base_profile = host.profile(base_name)
    workload = Workload(tuple(parse_concurrency(concurrency)), requests, max_tokens, prompts, canary_tokens)
    _check_workload(workload)
    points = parse_grid(grid)
    arms = make_arms(base_profile, base_name, points, host.sglang_version)
    original = await find_original(session)
    gateway, gateway_notes = await plan_drain(session, drain)  # a gateway problem stops here, before any restart
    profiles = {**host.profiles, **{arm.name: arm.profile for arm in arms}}
    if not original.matched:
        profiles[ORIGINAL] = original.profile
    flags = [flag for flag, _ in points[0].values]
    return TunePlan(host.model_copy(update={"profiles": profiles}), base_name, arms, workload, keep, original,
                    resolved_values(base_profile, flags, host.sglang_version),
                    resolved_values(original.profile, flags, host.sglang_version), adaptive, drain=drain,
                    gateway=gateway, gateway_notes=gateway_notes)


def tune_session(session: HostSession, plan: TunePlan) -> HostSession:
    """The session with the tune's host (the arms and the original as profiles): same transport, same manager."""
    return dataclasses.replace(session, host=plan.host)
