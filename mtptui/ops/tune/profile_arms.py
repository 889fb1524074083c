"""Arms named by profile (``--arms restored,vllm-ngram3``): each arm is one of the host's launch profiles, of
either engine. Every engine reads its own profile (the registry's ``Launches``), says its speculative shape
(``Dashboard.launch_speculation``) and judges it with its own offline lint where it has one; a profile its engine
would refuse is listed with the reason and not run.

An arm's ``flags`` are its speculative shape in SGLang's profile names (steps, topk, draft tokens), whatever the
engine: that is what the verdict's cost (fewer steps first) and the ladder read. Labels name the engine and its
speculation (``SGLang steps 3 / draft 4``, ``vLLM ngram 3``), and the profile when two arms would read alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.engines.registry import dashboard, engine as engine_of, launches
from mtptui.errors import UserError
from mtptui.ops.tune.arms import SPEC_FLAGS, Arm

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig, LaunchProfile
    from mtptui.ops.tune.grid import GridPoint
    from mtptui.speculation import SpecShape

MAX_PROFILE_ARMS = 16


def parse_arms(text: str) -> list[str]:
    """``restored,vllm-ngram3`` → the profile names, in order, each once; a UserError for an empty list."""
    names = list(dict.fromkeys(word.strip() for word in text.split(",") if word.strip()))
    if not names:
        raise UserError(f"--arms takes profile names separated by commas, not {text!r}")
    if len(names) > MAX_PROFILE_ARMS:
        raise UserError(f"--arms names {len(names)} profiles; at most {MAX_PROFILE_ARMS} (each one is a restart)")
    return names


def _shape_words(shape: SpecShape | None) -> str:
    if shape is None:
        return "no speculation"
    if shape.steps is not None and shape.draft_tokens not in (None, shape.steps):  # a tree (SGLang's draft tokens)
        return f"steps {shape.steps} / draft {shape.draft_tokens}"
    algorithm = shape.algorithm or ""
    return f"{algorithm} {shape.steps}".strip() if shape.steps is not None else algorithm or "speculation"


def _flags(shape: SpecShape | None) -> dict[str, Any]:
    if shape is None:
        return {}
    values = {"speculative-num-steps": shape.steps, "speculative-eagle-topk": 1 if shape.topk is None else shape.topk,
              "speculative-num-draft-tokens": shape.draft_tokens}  # a chain (vLLM) is topk 1
    return {flag: values[flag] for flag in SPEC_FLAGS if values[flag] is not None}


def _read(host: HostConfig, engine: str, profile: LaunchProfile) -> tuple[Any, str | None]:
    """(the profile's launch as its engine reads it, or None; the engine's refusal in one sentence, or None)."""
    from mtptui.engines.sglang.flags import FlagError

    model = launches(engine)
    try:
        launch = model.profile(profile, model.version(host.for_engine(engine)))
    except (FlagError, UserError) as exc:
        return None, str(exc)
    if model.lint is not None:
        verdict = model.lint(launch)
        blocking = [f.engine_message or f.message for f in verdict.findings if f.stops_server]
        if blocking:
            return launch, blocking[0]
    return launch, None


def arm_of(host: HostConfig, name: str, profile: LaunchProfile, engine: str, profile_name: str | None) -> Arm:
    """The arm running ``profile`` on ``engine``, labelled with the engine and its speculation."""
    label = engine_of(engine).label
    launch, refusal = _read(host, engine, profile)
    live = dashboard(engine).launch_speculation(launch) if launch is not None else None
    shape = live.configured if live is not None else None
    arm = Arm(name, f"{label} {_shape_words(shape)}", _flags(shape), (), profile, engine=engine,
              profile_name=profile_name)
    if refusal is not None:  # its speculation is not known: the profile names it
        arm.label, arm.status, arm.reason = f"{label} {name}", "refused", f"{label} would refuse it: {refusal}"
    return arm


def profile_arm(host: HostConfig, name: str) -> Arm:
    """The arm that runs profile ``name`` of ``host`` (``refused`` with the reason when its engine would refuse)."""
    return arm_of(host, name, host.profile(name), host.engine_of(name), name)


def grid_arms(host: HostConfig, base: str, specs: list[str] | None) -> list[Arm] | None:
    """The arms of a grid over ``base`` when its engine writes its own grid (vLLM: ``tokens=1,2,3,4``); None when
    the tune's own grid (SGLang's flags) applies. Each arm's profile is the base with the point's values."""
    from mtptui.ops.tune.grid import AUTO, parse_grid

    engine = host.engine_of(base)
    model = launches(engine)
    if model.grid is None:
        return None
    profile = host.profile(base)
    arms = []
    for point in parse_grid(specs or model.grid_default, aliases={}):
        derived = model.grid(profile, list(point.values), AUTO).model_copy(update={"note": f"tune arm of {base}"})
        arms.append(arm_of(host, point_name(point), derived, engine, None))
    return arms


def point_name(point: GridPoint) -> str:
    """An engine's own grid point as an arm's name: ``tokens3-methodngram`` (``key=value`` where not one word)."""
    return "-".join(f"{key}{value}" if str(value).isalnum() else f"{key}={value}" for key, value in point.values)


def profile_arms(host: HostConfig, names: list[str]) -> list[Arm]:
    """One arm per profile, in the order named; labels that would read alike name their profile too."""
    return name_alike([profile_arm(host, name) for name in names])


def name_alike(arms: list[Arm]) -> list[Arm]:
    """``arms``, where labels would read alike each naming its arm too."""
    labels = [arm.label for arm in arms]
    for arm in arms:
        if labels.count(arm.label) > 1:
            arm.label = f"{arm.label} ({arm.name})"
    return arms


def across_engines(host: HostConfig) -> str | None:
    """The arms of a tune across engines on ``host``: its default profile, then every profile of its other
    engines (``--arms`` as text); None when the host names no other engine, or no profile of one."""
    own = host.default_profile()
    others = [name for name, profile in host.profiles.items() if profile.engine not in (None, host.engine)]
    if not host.engines or not others or own is None:
        return None
    return ",".join([own, *others])
