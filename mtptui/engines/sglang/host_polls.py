"""The dashboard's polls of an SGLang server (its side of mtptui.engines.polls): ``/server_info`` for the version,
0.5.23's ``launch_command`` (argv without the interpreter) and the speculation it runs; ``/metrics`` for the
``sglang:`` families (``mtptui.engines.sglang.surface_metrics`` says which a release exports, so a figure the release
lacks is None, not 0), read with either prefix (``sglang:`` or the router's ``sglang_``).

``/server_info`` is never where the uptime comes from: 0.5.12.post1 has no start time there and 0.5.23's
``startup_time`` is a dict of durations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.engines.polls import GetJson, MetricsReader, ServerInfo

if TYPE_CHECKING:
    from mtptui.engines.sglang.flags import FlagSet

FAMILIES = {"requests": "sglang:num_requests_total", "aborted": "sglang:num_aborted_requests_total",
            "retracted": "sglang:num_retracted_reqs", "queue": "sglang:num_queue_reqs",
            "running": "sglang:num_running_reqs", "token_usage": "sglang:token_usage",
            "full_token_usage": "sglang:full_token_usage", "mamba_usage": "sglang:mamba_usage"}
SUMMED = ("requests", "aborted", "retracted", "queue", "running")  # over ranks and label sets; usage: the max


def info_of(info: dict[str, Any], version: str | None) -> ServerInfo:
    """What an answer of /server_info says: the version, and its ``launch_command`` where the release has one."""
    from mtptui.engines.sglang.live import live_from_server_info
    from mtptui.engines.sglang.surface import known_surface

    said = info.get("version")
    version = str(said) if said else version
    command = info.get("launch_command")
    surface = known_surface(version)
    launch = None
    if isinstance(command, str) and (surface is None or "launch_command" in surface.server_info_keys):
        launch = _parse_launch(command, version)
    return ServerInfo(version, launch, "server_info" if launch is not None else "", live_from_server_info(info))


async def server_status(get_json: GetJson, version: str | None) -> ServerInfo | None:
    """``GET /server_info`` (or the older ``/get_server_info``) read; None while the server cannot answer."""
    from mtptui.engines.sglang.api import server_info

    info = await server_info(get_json)
    return info_of(info, version) if info is not None else None


def _parse_launch(command: str, version: str | None) -> FlagSet | None:
    from mtptui.engines.sglang.flags import DEFAULT_VERSION, FlagError, parse_command, versions

    try:
        return parse_command(command, version if version in versions() else DEFAULT_VERSION, require_model=False)
    except FlagError:
        return None


def exported(version: str | None) -> dict[str, str]:
    """The families of FAMILIES this release exports (all of them for a release mtptui does not know)."""
    from mtptui.engines.sglang.surface_metrics import METRICS

    known = METRICS.get(version or "")
    if known is None:
        return dict(FAMILIES)
    names = {metric.name for metric in known}
    return {key: name for key, name in FAMILIES.items() if name in names}


def figures(text: str, families: dict[str, str]) -> dict[str, float | None]:
    """The figures of a Prometheus text exposition; a family the release exports but the text lacks is None."""
    from mtptui.engines.sglang.exposition import family_values

    found = family_values(text, families.values())
    out: dict[str, float | None] = {}
    for key, name in families.items():
        values = found.get(name)
        out[key] = None if values is None else sum(values) if key in SUMMED else max(0.0, *values)
    return out


def metrics_reader(version: str | None) -> MetricsReader:
    """A reader of the families ``version`` exports (SGLang's figures need no earlier read)."""
    families = exported(version)
    return lambda text: figures(text, families)
