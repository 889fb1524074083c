"""A grid over named profiles (``--arms restored,vllm-ngram2 --grid steps=1,3 tokens=1,3``): each named profile is
the base of the grid of its own engine's dimensions.

Every dimension is one engine's: a key of that engine's own grid (the tune's own, SGLang's: ``steps``, ``topk``,
``draft``, mtptui.ops.tune.grid; another engine's: the registry's ``Launches.grid_keys``, vLLM's ``tokens`` and
``method``), else a flag that exactly one of the arms' engines knows by that name (``mem-fraction-static``,
``max-num-seqs``). A key no arm's engine takes, or that two of them take, is one sentence before anything changes.

A profile whose engine has dimensions gives one arm per point, derived as that engine's grid derives it (the
tune's own: ``make_arms``, which also lints and merges points SGLang resolves alike; another engine's: its
``Launches.grid``), named PROFILE-POINT (``vllm-ngram2-tokens3``); a profile whose engine has none runs as it is,
under its own name. Labels are those of ``--arms`` (mtptui.ops.tune.profile_arms).

The base arm of an engine (the greedy canary's reference for that engine's arms, run first among them) comes from
the first named profile of that engine: the profile itself when it runs as it is; else the point whose launch is
the profile's own (the engine's diff of the two is empty) when the grid has one, else the grid's first point.
When that arm is refused, the first of the engine's arms that runs is the reference (mtptui.ops.tune.runner).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mtptui.engines.names import NAMES
from mtptui.engines.registry import engine as engine_of, flag_form, launches
from mtptui.errors import UserError
from mtptui.ops.tune.arms import make_arms
from mtptui.ops.tune.grid import ALIASES, AUTO, MAX_ARMS, GridPoint, parse_dimension, parse_grid
from mtptui.ops.tune.profile_arms import arm_of, name_alike, point_name, profile_arm

if TYPE_CHECKING:
    from mtptui.config.models import HostConfig, LaunchProfile
    from mtptui.ops.tune.arms import Arm


def own_keys(engine: str) -> tuple[str, ...]:
    """The keys of ``engine``'s own grid, which are no flag's name."""
    model = launches(engine)
    return tuple(ALIASES) if model.grid is None else model.grid_keys


def _version(host: HostConfig, engine: str, placed: list[str]) -> str:
    """The release whose flags apply: the host's for an engine it places, else the engine's default."""
    return launches(engine).version(host.for_engine(engine)) if engine in placed else engine_of(engine).default_version


def _takes(host: HostConfig, engine: str, key: str, placed: list[str]) -> bool:
    return key in own_keys(engine) or flag_form(engine).resolve(f"--{key}", _version(host, engine, placed)) is not None


def _owner(host: HostConfig, key: str, engines: list[str]) -> str:
    """The one engine of ``engines`` that dimension ``key`` is for; a UserError when none or several are."""
    own = [engine for engine in engines if key in own_keys(engine)]
    takers = own or [engine for engine in engines if _takes(host, engine, key, engines)]
    if len(takers) == 1:
        return takers[0]
    labels = [engine_of(engine).label for engine in takers]
    if takers:
        raise UserError(f"--grid: {key} is a flag of both {' and '.join(labels)}, and each dimension of a grid over "
                        f"--arms is one engine's: set it in the profiles instead")
    elsewhere = [engine for engine in NAMES if engine not in engines and _takes(host, engine, key, engines)]
    if elsewhere:
        label = engine_of(elsewhere[0]).label
        what = f"a key of {label}'s grid" if key in own_keys(elsewhere[0]) else f"a flag of {label}"
        raise UserError(f"--grid: {key} is {what}, and no profile of --arms runs {label}")
    keys = "; ".join(f"{engine_of(engine).label}: {', '.join(own_keys(engine))} or one of its flags"
                     for engine in engines)
    raise UserError(f"--grid: {key!r} is no key of the arms' engines ({keys})")


def dimensions_by_engine(host: HostConfig, engines: list[str], specs: list[str]) -> dict[str, list[str]]:
    """The grid's dimensions (as written) by the engine each is for; only engines with one are keys."""
    found: dict[str, list[str]] = {}
    for spec in specs:
        key, _ = parse_dimension(spec, aliases={})
        found.setdefault(_owner(host, key, engines), []).append(spec)
    return found


def _aliases(engine: str) -> dict[str, str]:
    return ALIASES if launches(engine).grid is None else {}


def _derived(host: HostConfig, name: str, points: list[GridPoint]) -> list[tuple[str, LaunchProfile, str | None]]:
    """(point's name, the profile with it, the engine's refusal or None) per point, as the engine's grid derives."""
    engine, profile = host.engine_of(name), host.profile(name)
    model = launches(engine)
    if model.grid is None:  # the tune's own grid
        made = make_arms(profile, name, points, model.version(host.for_engine(engine)))
        return [(arm.name, arm.profile, arm.reason if arm.status == "refused" else None) for arm in made]
    return [(point_name(point), model.grid(profile, list(point.values), AUTO).model_copy(
        update={"note": f"tune arm of {name}"}), None) for point in points]


def _expand(host: HostConfig, name: str, points: list[GridPoint]) -> list[Arm]:
    arms = []
    for point, profile, refusal in _derived(host, name, points):
        arm = arm_of(host, f"{name}-{point}", profile, host.engine_of(name), name)
        if refusal is not None and arm.status != "refused":
            arm.status, arm.reason = "refused", refusal
        arms.append(arm)
    return arms


def _same_launch(host: HostConfig, engine: str, left: LaunchProfile, right: LaunchProfile) -> bool:
    from mtptui.engines.sglang.flags import FlagError

    model = launches(engine)
    version = model.version(host.for_engine(engine))
    try:
        sides = [("arm", model.profile(left, version)), ("profile", model.profile(right, version))]
    except (FlagError, UserError):
        return False
    return bool(model.diff(sides, False).empty)


def _base(host: HostConfig, name: str, arms: list[Arm]) -> Arm:
    """Of the arms profile ``name`` gave, the one with its own launch, else the first."""
    own = host.profile(name)
    return next((arm for arm in arms if _same_launch(host, arm.engine, arm.profile, own)), arms[0])


def grid_over_profiles(host: HostConfig, names: list[str], specs: list[str] | None) -> tuple[list[Arm], dict[str, str]]:
    """(the arms, in the order named, each profile's points in the grid's order; engine -> its base arm's name)."""
    for name in names:
        host.profile(name)  # an unknown profile is a ConfigError naming the host's
    engines = list(dict.fromkeys(host.engine_of(name) for name in names))
    points = {engine: parse_grid(found, _aliases(engine))
              for engine, found in dimensions_by_engine(host, engines, specs or []).items()}
    count = sum(len(points.get(host.engine_of(name), [None])) for name in names)
    if count > MAX_ARMS:
        raise UserError(f"--arms with --grid makes {count} arms; at most {MAX_ARMS} (each one is a restart)")
    arms: list[Arm] = []
    bases: dict[str, str] = {}
    for name in names:
        engine = host.engine_of(name)
        made = _expand(host, name, points[engine]) if engine in points else [profile_arm(host, name)]
        bases.setdefault(engine, _base(host, name, made).name)
        arms += made
    _check_names(host, arms)
    return name_alike(arms), bases


def _check_names(host: HostConfig, arms: list[Arm]) -> None:
    """Each arm's name is its own: two derived arms named alike would run one launch twice (a name the host's
    profiles already have is refused for every tune, mtptui.ops.tune.plan.tune_profiles)."""
    seen: set[str] = set()
    for arm in arms:
        if arm.name in seen:
            raise UserError(f"--arms with --grid names two arms {arm.name}: rename one of the profiles")
        seen.add(arm.name)
