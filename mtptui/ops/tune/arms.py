"""The arms of a tune: a launch profile per grid point, derived from the base profile, linted offline.

An arm SGLang would refuse (the offline table's verdict; the restart plan asks the host's own SGLang again) is
listed with the reason and not run. Names come from the values SGLang resolves (``steps3-topk1-draft4``: draft
tokens auto at topk 1 are steps + 1); labels name only what varies across the grid (``steps 3 / draft 4``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal

from mtptui.config.models import LaunchProfile
from mtptui.ops.tune.grid import AUTO, SHORT, GridPoint
from mtptui.engines.sglang.lint.verdict import offline_version

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags import FlagSet

ArmStatus = Literal["pending", "running", "done", "refused", "failed", "aborted"]
CanaryVerdict = Literal["pass", "fail", "skipped"]

SPEC_FLAGS = ("speculative-num-steps", "speculative-eagle-topk", "speculative-num-draft-tokens")


@dataclass
class Measured:
    """One concurrency of one arm, as the contract names it (times are medians, in ms)."""

    concurrency: int
    output_tok_s: float | None
    request_tok_s: float | None
    accept_len: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    accept_len_source: str | None = None
    run_id: str | None = None
    itl_ms: float | None = None
    warmup: int = 0  # requests sent (and left out of the figures) before this concurrency was measured

    def to_json(self) -> dict[str, Any]:
        return {"concurrency": self.concurrency, "output_tok_s": self.output_tok_s,
                "request_tok_s": self.request_tok_s, "accept_len": self.accept_len, "ttft_ms": self.ttft_ms,
                "tpot_ms": self.tpot_ms, "accept_len_source": self.accept_len_source, "run_id": self.run_id,
                "itl_ms": self.itl_ms, "warmup": self.warmup}


@dataclass
class Arm:
    """One arm: its profile, and what happened to it (``status`` pending, running, done, refused, failed,
    aborted; ``canary`` pass, fail or skipped)."""

    name: str
    label: str
    flags: dict[str, Any]  # the grid's flags as SGLang resolves them (profile names)
    auto: tuple[str, ...]  # of those, the ones left to SGLang
    profile: LaunchProfile
    status: ArmStatus = "pending"
    reason: str | None = None
    phase: str | None = None
    results: list[Measured] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list, repr=False)  # the stored bench runs, for comparisons
    canary: CanaryVerdict = "skipped"
    canary_detail: str | None = None
    started: float | None = None
    ended: float | None = None
    engine: str = "sglang"  # the engine the arm's profile launches
    profile_name: str | None = None  # the host's profile the arm is (``--arms``), or derives from (``--arms`` with
    # ``--grid``); None: derived from the base
    engine_version: str | None = None  # the release the arm's server said it runs (its bench fingerprint)

    @property
    def cost(self) -> tuple[float, ...]:
        """Cheaper first: fewer draft steps, then fewer draft tokens, then a narrower tree."""
        return tuple(_number(self.flags.get(flag)) for flag in SPEC_FLAGS)

    def result_at(self, concurrency: int) -> Measured | None:
        return next((r for r in self.results if r.concurrency == concurrency), None)

    def run_at(self, concurrency: int) -> dict[str, Any] | None:
        return next((r for r in self.runs if r["fingerprint"].get("concurrency") == concurrency), None)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "flags": dict(self.flags), "auto": list(self.auto),
                "status": self.status, "reason": self.reason, "results": [r.to_json() for r in self.results],
                "canary": self.canary, "canary_detail": self.canary_detail,
                "duration_s": seconds_between(self.started, self.ended), "engine": self.engine,
                "profile": self.profile_name, "engine_version": self.engine_version}


def seconds_between(started: float | None, ended: float | None) -> float | None:
    """Seconds from ``started`` to ``ended`` (to a tenth), None until both are known."""
    return round(ended - started, 1) if started is not None and ended is not None else None


def _number(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def derive_profile(base: LaunchProfile, point: GridPoint, base_name: str) -> LaunchProfile:
    """The base profile with the grid point's flags (``auto``: removed, so SGLang chooses)."""
    flags = dict(base.flags)
    for flag, value in point.values:
        if value == AUTO:
            flags.pop(flag, None)
        else:
            flags[flag] = value
    return base.model_copy(update={"flags": flags, "note": f"tune arm of {base_name}"})


def _resolved(profile: LaunchProfile, point: GridPoint, version: str) -> tuple[dict[str, Any], list[str]]:
    """(the grid's flags as SGLang resolves them, the lint's blocking findings as sentences)."""
    from mtptui.engines.sglang.lint import lint_profile

    flagset, findings = lint_profile(profile, offline_version(version))
    blocking = [f.engine_message or f.message for f in findings if f.stops_server]
    values = {flag: value for flag, value in point.values}
    if flagset is not None and not blocking:
        values.update(_spec_values(flagset, values))
    return values, blocking


def _spec_values(flagset: FlagSet, flags: Iterable[str]) -> dict[str, Any]:
    """The values SGLang resolves for ``flags`` (profile names) in a flag set: steps, topk and draft tokens through
    its speculative handler (draft tokens auto), the others as written."""
    from mtptui.engines.sglang.flags.effective import resolve_spec

    spec = resolve_spec(flagset).values
    out: dict[str, Any] = {}
    for flag in flags:
        found = spec.get("--" + flag) if flag in SPEC_FLAGS else None
        value = found.value if found is not None and found.value is not None else flagset.get("--" + flag)
        if value is not None:
            out[flag] = value
    return out


def resolved_values(profile: LaunchProfile, flags: Iterable[str], version: str) -> dict[str, Any]:
    """What SGLang resolves for ``flags`` in ``profile`` (e.g. the base's or the original's speculative settings);
    empty when the profile does not parse."""
    from mtptui.engines.sglang.flags import FlagError, FlagSet

    try:
        return _spec_values(FlagSet.from_profile(profile, offline_version(version)), flags)
    except FlagError:
        return {}


def _label(values: dict[str, Any], varying: set[str]) -> str:
    shown = [flag for flag in values if flag in varying] or list(values)
    return " / ".join(f"{SHORT.get(flag, flag)} {values[flag]}" for flag in shown)


def make_arms(base: LaunchProfile, base_name: str, points: list[GridPoint], version: str) -> list[Arm]:
    """One arm per grid point; arms SGLang would refuse are ``refused`` with the reason."""
    made = []
    for point in points:
        profile = derive_profile(base, point, base_name)
        values, blocking = _resolved(profile, point, version)
        made.append((point, profile, values, blocking))
    varying = {flag for flag in made[0][2] if len({str(m[2].get(flag)) for m in made}) > 1} if made else set()
    arms = []
    for point, profile, values, blocking in made:
        name = "-".join(f"{SHORT[flag]}{value}" if flag in SHORT else f"{flag}={value}"
                        for flag, value in values.items())
        auto = tuple(flag for flag, value in point.values if value == AUTO)
        arm = Arm(name, _label(values, varying), values, auto, profile)
        if blocking:
            arm.status, arm.reason = "refused", f"SGLang would refuse it: {blocking[0]}"
        arms.append(arm)
    return _unique(arms)


def _unique(arms: list[Arm]) -> list[Arm]:
    """Two grid points SGLang resolves alike (draft 4 and auto at steps 3) are one arm: the first is kept."""
    seen: dict[str, Arm] = {}
    for arm in arms:
        if arm.name in seen and arm.status != "refused":
            continue
        seen.setdefault(arm.name, arm)
    return list(seen.values())
