"""The health verdict of a running server: drift from the known-good profile, speed against this host's own
baseline, acceptance against what this speculative shape reached before, whether speculation pays, and whether
a memory pool is full.

Each check is ok, warn, bad or unknown (no figures to judge yet, or only a stale baseline); the verdict is bad
when a check is bad, a warning when one warns, and ok only when every check holds. "Below the baseline" is the
bench's noise-aware test (``mtptui.bench.compare``): with several baseline runs, the prediction test of the live
mean against the runs' own means (the run-to-run spread); with one, Welch's t-test of the live samples against
its samples; and a change of at least ``MIN_EFFECT`` either way. Red only when the change *lasts*: the samples
of the last ``LASTS_S`` seconds of the log's own time (the host file's ``health_lasts_s``) are below too, and
the samples span at least that long (a replayed log is judged as it was lived); until then the check says it is
watching. No Textual here: a headless command can print the same verdict.

The checks are reasons, ``Reason = Callable[[Evidence], Check | None]``, run in ``REASONS``' order (each reads
``Evidence``, which carries the serving figures and the launch); mtptui.ops.health.more changes the list after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median
from typing import TYPE_CHECKING, Callable, Sequence

from mtptui.bench.compare import ALPHA, MIN_EFFECT_NO_REPEATS, prediction_p
from mtptui.bench.stats import mean, welch
from mtptui.config.models import HEALTH_LASTS_S
from mtptui.ops.baseline import Baseline
from mtptui.ops.drift import Drift

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags import FlagSet
    from mtptui.engines.sglang.state.serving import ServingStats

OK, WARN, BAD, UNKNOWN = "ok", "warn", "bad", "unknown"
COLLAPSE_AT = 1.2  # accept length: the drafts are almost never accepted (as the fleet's health flag)
MIN_LIVE = 3  # steady decode lines of this startup before speed or acceptance is judged
MIN_EFFECT = MIN_EFFECT_NO_REPEATS
FULL_AT = 0.99  # a pool this full admits nothing new: requests wait, or running ones are retracted
LASTS_S = HEALTH_LASTS_S  # seconds of log time a change must hold before it is red (the host's health_lasts_s)
LASTS_LINES = 15  # the same, counted in decode lines, for a log without timestamps


@dataclass(frozen=True)
class Check:
    """One judged aspect: ``text`` in full, ``short`` for a narrow line."""

    name: str
    state: str
    text: str
    short: str
    items: tuple[str, ...] = ()  # details, most telling first, shown as far as the width allows
    lead: str = ""  # what the short form says before its details


@dataclass(frozen=True)
class Health:
    """The checks in reading order and the actions that help (``diff``, ``restore``, ``bench``)."""

    checks: tuple[Check, ...]
    actions: tuple[str, ...] = field(default_factory=tuple)

    @property
    def state(self) -> str:
        states = {check.state for check in self.checks}
        return BAD if BAD in states else WARN if WARN in states else OK if states == {OK} else UNKNOWN


@dataclass(frozen=True)
class Evidence:
    """What the reasons judge: the drift, the live samples (speed: steady lines per request; acceptance), the
    baselines, whether the running launch is speculative, and the serving figures and launch themselves."""

    drift: Drift | None
    speed: Sequence[float]
    accept: Sequence[float]
    speed_base: Baseline | None = None
    speed_t: Sequence[float | None] = ()  # the log time of each speed sample (None: the line had no timestamp)
    accept_t: Sequence[float | None] = ()
    accept_base: Baseline | None = None
    no_spec_base: Baseline | None = None
    speculative: bool = True
    unmeasured: int = 0  # bench runs at this load measured another way (no log rate): why there is no baseline
    serving: ServingStats | None = None
    launch: FlagSet | None = None
    engine: str = "SGLang"  # the label of the host's engine (its baselines are of its releases)
    lasts_s: float = LASTS_S  # how long a change must last to be red (the host file's health_lasts_s)


Reason = Callable[[Evidence], "Check | None"]


def signed_percent(change: float) -> str:
    return f"{change * 100:+.0f} %".replace("-", "−")


def below(live: Sequence[float], base: Baseline | Sequence[float]) -> tuple[float, float | None]:
    """(change of the live mean against the base mean, two-sided p or None when nothing can be tested)."""
    samples = base.samples if isinstance(base, Baseline) else tuple(base)
    runs = base.run_means if isinstance(base, Baseline) else ()
    change = mean(live) / mean(samples) - 1 if mean(samples) else 0.0
    if len(runs) >= 2 and live:
        return change, prediction_p(mean(live), runs)  # the spread of repeated runs: the honest noise
    if len(live) >= 2 and len(samples) >= 2:
        return change, welch(live, samples)[2]
    if len(live) >= 2:
        return change, prediction_p(samples[0], live)
    return change, None


def significantly_below(live: Sequence[float], base: Baseline | Sequence[float]) -> bool:
    change, p_value = below(live, base)
    return p_value is not None and p_value < ALPHA and change <= -MIN_EFFECT


def thirds(live: Sequence[float], times: Sequence[float | None],
           lasts_s: float = LASTS_S) -> tuple[list[list[float]], float | None]:
    """The samples of the last ``lasts_s`` of log time in three parts, oldest first, and how long all the samples
    span; by count (the last LASTS_LINES) for a log without timestamps."""
    if len(times) != len(live) or not live or any(t is None for t in times):
        last = list(live[-LASTS_LINES:])
        size = max(len(last) // 3, 1)
        return [last[:size], last[size:-size] or last, last[-size:]], None
    stamps = [float(t) for t in times if t is not None]
    now, third = stamps[-1], lasts_s / 3
    parts = [[value for value, t in zip(live, stamps) if now - lasts_s + i * third <= t <= now - lasts_s +
              (i + 1) * third] for i in range(3)]
    return parts, now - stamps[0]


def lasting(live: Sequence[float], times: Sequence[float | None], base: Baseline | Sequence[float],
            lasts_s: float = LASTS_S) -> str | None:
    """"bad" when the samples are below the baseline beyond noise and have been for ``lasts_s``: in each third
    of the last ``lasts_s`` most samples are at least MIN_EFFECT below (the median: a dip that came back is not);
    "watching (N s of 30)" until then; None when the samples are not below."""
    if not significantly_below(live, base):
        return None
    parts, span = thirds(live, times, lasts_s)
    held = span >= lasts_s if span is not None else len(live) >= LASTS_LINES
    floor = mean(base.samples if isinstance(base, Baseline) else base) * (1 - MIN_EFFECT)
    if held and all(part and median(part) <= floor for part in parts):
        return BAD
    return f"watching ({min(span, lasts_s):.0f} s of {lasts_s:.0f})" if span is not None else \
        f"watching ({len(live)} lines of {LASTS_LINES})"


def drift_check(drift: Drift | None) -> Check:
    if drift is None:
        return Check("drift", UNKNOWN, "running launch not known yet", "launch ?")
    if drift.unreadable is not None:  # a file a launch reads at start: not "no drift" while it cannot be read
        return Check("drift", WARN, f"running vs known-good not compared ({drift.profile})", "known-good ?",
                     (drift.unreadable,), "known-good ?")
    if not drift.count:
        return Check("drift", OK, f"runs the known-good profile ({drift.profile})", "known-good")
    noun = "flag" if drift.count == 1 else "flags"
    return Check("drift", BAD, f"running ≠ known-good: {drift.count} {noun}", f"≠ known-good: {drift.count}",
                 tuple(str(item) for item in drift.items), "≠ known-good")


def speed_check(live: Sequence[float], baseline: Baseline | None, unmeasured: int = 0,
                times: Sequence[float | None] = (), engine: str = "SGLang", lasts_s: float = LASTS_S) -> Check:
    if baseline is None and unmeasured:
        return Check("speed", UNKNOWN, f"no log-rate baseline: {unmeasured} bench run(s) here did not read the "
                     "server log", "no baseline")
    if baseline is None:
        return Check("speed", UNKNOWN, "no baseline on this host yet", "no baseline")
    if baseline.stale:
        return Check("speed", UNKNOWN, f"baseline {baseline.mean:.0f} tok/s is {engine} {baseline.stale}'s: stale",
                     "baseline stale")
    if len(live) < MIN_LIVE:
        return Check("speed", UNKNOWN, f"measuring vs {baseline.mean:.0f} = {baseline.source}", "measuring")
    change = signed_percent(below(live, baseline)[0])
    verdict = lasting(live, times, baseline, lasts_s)
    said = f"{mean(live):.0f} tok/s ({change}) vs {baseline.mean:.0f} = {baseline.source}"
    return Check("speed", BAD if verdict == BAD else OK, f"{said} · {verdict}" if verdict not in (None, BAD) else said,
                 f"{mean(live):.0f} tok/s ({change})")


def accept_check(live: Sequence[float], baseline: Baseline | None, times: Sequence[float | None] = (),
                 lasts_s: float = LASTS_S) -> Check | None:
    """Collapse (towards 1.0, or below what this shape reached before); None while nothing was accepted."""
    if len(live) < MIN_LIVE:
        return None
    now = mean(live)
    if now <= COLLAPSE_AT:
        return Check("accept", BAD, f"acceptance collapse: accept {now:.2f}", f"accept {now:.2f}!")
    if baseline is None or baseline.stale:
        return Check("accept", UNKNOWN, f"accept {now:.2f}, no earlier run of this shape", f"accept {now:.2f}")
    usual = f"accept {now:.2f} vs {baseline.mean:.2f} usual"
    verdict = lasting(live, times, baseline, lasts_s)
    if verdict == BAD:
        change = signed_percent(below(live, baseline)[0])
        return Check("accept", BAD, f"acceptance collapse: {usual} ({change})", f"accept {now:.2f}↓")
    return Check("accept", OK, f"{usual} · {verdict}" if verdict else usual, f"accept {now:.2f}")


def spec_cost_check(live: Sequence[float], no_spec: Baseline | None,
                    times: Sequence[float | None] = (), lasts_s: float = LASTS_S) -> Check | None:
    """Said only when speculation makes this host slower than it decodes without it, for good."""
    if no_spec is None or no_spec.stale or len(live) < MIN_LIVE or lasting(live, times, no_spec, lasts_s) != BAD:
        return None
    return Check("spec-cost", BAD, f"speculation costs more than it gains: {no_spec.mean:.0f} tok/s without it",
                 "spec slower")


def pool_check(serving: ServingStats | None) -> Check | None:
    """A saturated KV or mamba pool, a warning: full while requests wait or were retracted. Full alone is no
    warning: SGLang keeps cached prefix (and mamba) states in the pool and evicts them for new requests, so the
    known-good profile's mamba pool reads 1.00 at one request at a time."""
    if serving is None or not serving.squeezed():
        return None
    full = [(name, series[-1]) for name, series in (("KV", serving.token_usage), ("mamba", serving.mamba_usage))
            if series and series[-1] >= FULL_AT]
    if not full:
        return None
    said = ", ".join(f"{name} {usage:.2f}" for name, usage in full)
    waiting = f"{serving.queued[-1]} queued" if serving.queued and serving.queued[-1] else "requests retracted"
    return Check("pool", WARN, f"pool full: {said}, {waiting}", f"{full[0][0]} full")


REASONS: list[Reason] = [
    lambda e: drift_check(e.drift),
    lambda e: speed_check(e.speed, e.speed_base, e.unmeasured, e.speed_t, e.engine, e.lasts_s),
    lambda e: accept_check(e.accept, e.accept_base, e.accept_t, e.lasts_s) if e.speculative else None,
    lambda e: spec_cost_check(e.speed, e.no_spec_base, e.speed_t, e.lasts_s) if e.speculative else None,
    lambda e: pool_check(e.serving),
]


def actions_for(evidence: Evidence) -> tuple[str, ...]:
    actions = []
    if evidence.drift is not None and evidence.drift.count:
        actions += ["diff", "restore"]
    elif evidence.drift is not None and evidence.drift.unreadable is not None:
        actions.append("diff")  # the diff says why, in the same sentence
    if evidence.speed_base is None or evidence.speed_base.stale:
        actions.append("bench")
    return tuple(actions)


Adjust = Callable[[list[Check]], list[Check]]
"""A hook over the whole list of checks (mtptui.ops.health.more: one check in place of another, one added)."""


def judge_evidence(evidence: Evidence, reasons: Sequence[Reason] | None = None, adjust: Adjust | None = None) -> Health:
    """The verdict of every reason on ``evidence``, in order, then ``adjust``'s changes to the list."""
    checks = [check for reason in (REASONS if reasons is None else reasons) if (check := reason(evidence))]
    return Health(tuple(adjust(checks) if adjust is not None else checks), actions_for(evidence))


def judge(drift: Drift | None, speed: Sequence[float], accept: Sequence[float], *, speed_base: Baseline | None,
          accept_base: Baseline | None = None, no_spec_base: Baseline | None = None,
          speculative: bool = True, down: str | None = None,
          adjust: Callable[[list[Check]], list[Check]] | None = None) -> Health:
    """The verdict on what runs now (``speculative``: the running launch decodes speculatively; ``down``:
    "crashed" or "stopped" when no server runs, and then the figures of the last run are not judged;
    ``adjust``: checks of their own modules added to the list, e.g. mtptui.ops.health.speculation's). The
    samples carry no times here: a change lasts once it holds over ``LASTS_LINES`` of them."""
    if down is not None:
        return server_down(drift, down)
    return judge_evidence(Evidence(drift, speed, accept, speed_base, accept_base=accept_base,
                                   no_spec_base=no_spec_base, speculative=speculative), adjust=adjust)


def server_down(drift: Drift | None, down: str) -> Health:
    return Health((Check("server", BAD, f"server {down}: nothing serves", f"server {down}"),
                   drift_check(drift)), ("restore",) if drift is not None else ())


def not_connected(reason: str, host: str) -> Health:
    """The host does not answer: nothing it said before is judged as if it were now."""
    return Health((Check("connection", UNKNOWN, f"not connected: {reason} · mtptui check {host} says why",
                         f"not connected: {reason}"),), ("reconnect",))


def restarting(profile: str) -> Health:
    """During a restart: which profile comes, and no figure (the old process's are not the new one's)."""
    return Health((Check("restart", UNKNOWN, f"restarting to {profile}…", "restarting…"),))
