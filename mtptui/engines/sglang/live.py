"""Speculation as SGLang's ``/server_info`` reports it: the launch's values and the scheduler's live ones.

The top level of ``/server_info`` is the main process's server arguments (the launch, after resolution);
``internal_states[0]`` holds the scheduler's own, into which an adaptive switch writes the steps and draft tokens
it moved to (0.5.12.post1: ``vars()`` of the scheduler's server args; 0.5.23: its resolved arguments with the
overrides published since). Both releases (mtptui.engines.sglang.surface).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.engines.sglang.flags.spec_values import DRAFT, STEPS, TOPK
from mtptui.speculation import LiveSpeculation, SpecShape

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags import FlagSet


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _shape(args: dict[str, Any]) -> SpecShape | None:
    algorithm = args.get("speculative_algorithm")
    if not isinstance(algorithm, str):
        return None
    return SpecShape(algorithm, _int(args.get("speculative_num_steps")), _int(args.get("speculative_eagle_topk")),
                     _int(args.get("speculative_num_draft_tokens")))


def live_from_server_info(info: dict[str, Any] | None) -> LiveSpeculation | None:
    """Configured (top level) vs live (the first scheduler's state); None without speculative decoding."""
    if not isinstance(info, dict):
        return None
    configured = _shape(info)
    if configured is None:
        return None
    states = info.get("internal_states")
    state = states[0] if isinstance(states, list) and states and isinstance(states[0], dict) else {}
    live = _shape({**info, **{k: v for k, v in state.items() if k.startswith("speculative_")}})
    candidates = () if info.get("speculative_adaptive") is True else None
    return LiveSpeculation(configured, live, candidates, source="/server_info")


def live_from_launch(launch: FlagSet | None) -> LiveSpeculation | None:
    """What a launch command configures, as SGLang resolves it; the candidates where adaptive speculation stays on
    (() when they are in a config file not readable here). No live side: a command line does not run."""
    from mtptui.engines.sglang.adaptive import FLAG
    from mtptui.engines.sglang.flags.effective import resolve_spec

    if launch is None:
        return None
    spec = resolve_spec(launch)
    if spec.algorithm is None or spec.error is not None:
        return None
    values = {flag: effective.value for flag, effective in spec.values.items()}
    configured = SpecShape(spec.algorithm, _int(values.get(STEPS)), _int(values.get(TOPK)), _int(values.get(DRAFT)))
    adaptive = spec.values.get(FLAG)
    on = adaptive is not None and adaptive.value is True
    candidates = (spec.adaptive.candidates if spec.adaptive else ()) if on else None
    turned_off = adaptive.note.removeprefix("turned off: ") if adaptive is not None and not on and adaptive.note \
        else None
    return LiveSpeculation(configured, None, candidates, turned_off=turned_off, source="launch")
