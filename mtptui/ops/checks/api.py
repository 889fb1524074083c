"""The API: through the session (an SSH tunnel for a remote host), the engine's word about itself (SGLang's
/server_info or the old /get_server_info, vLLM's /version) and /v1/models answer; which release and model they
report, against the host file's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mtptui.errors import UserError
from mtptui.ops.checks import FAIL, OK, WARN, Context, Result
from mtptui.ops.checks.polls import polls_note
from mtptui.engines.registry import dashboard
from mtptui.engines.sglang.api import MODELS_PATH, first_model_id

if TYPE_CHECKING:
    import httpx

NAME = "api"
TIMEOUT_S = 10.0


async def check_api(ctx: Context) -> Result:
    import httpx

    where = f"{ctx.host.api_url} ({'through SSH' if ctx.host.ssh else 'on this machine'})"
    info_paths = dashboard(ctx.host.engine).info_paths
    try:
        url = await ctx.session.api_url()
    except UserError as exc:
        return Result(NAME, FAIL, str(exc), f"check api_url in {ctx.file_name}: host and port as the host sees them")
    try:
        async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(TIMEOUT_S), trust_env=False) as client:
            status, info = await _first(client, *info_paths)
            models = (await _first(client, MODELS_PATH))[1] if status == 200 else None
    except httpx.HTTPError as exc:
        return Result(NAME, FAIL, f"nothing answers at {where}: {_reason(exc)}", _unreachable_fix(ctx))
    if status != 200 or info is None:  # a 200 always comes with an object (empty when the body is not one)
        return Result(NAME, FAIL, f"{where} answers HTTP {status} to {info_paths[0]}",
                      f"wait until the server is ready (mtptui {ctx.host.name} shows its startup), then check again")
    return _verdict(ctx, where, info, models)


async def _first(client: httpx.AsyncClient, *paths: str) -> tuple[int, dict[str, Any] | None]:
    """(status, JSON object) of the first path answering 200, else the last status."""
    status = 0
    for path in paths:
        response = await client.get(path)
        status = response.status_code
        if status == 200:
            try:
                body = response.json()
            except ValueError:
                body = None
            return status, body if isinstance(body, dict) else {}
    return status, None


def _reason(exc: httpx.HTTPError) -> str:
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {TIMEOUT_S:g} s"
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.ConnectError)):
        return "the connection was closed (nothing listens there)"
    return str(exc) or type(exc).__name__


def _unreachable_fix(ctx: Context) -> str:
    from mtptui.ops.connect import api_port

    running = ctx.running
    if ctx.server_running is False:
        how = f" ({ctx.start_command})" if ctx.start_command else ""
        return f"start the server{how}, then check again"
    if running is not None and running.port is not None and api_port(ctx.host) not in (None, running.port):
        return f"set api_url in {ctx.file_name} to port {running.port}, where the running server listens"
    return "check that the server listens where api_url says (its --host and --port) and is not still starting"


def _served_model(info: dict[str, Any], models: dict[str, Any] | None) -> str | None:
    served = first_model_id(models)
    return str(served) if served else info.get("served_model_name") or info.get("model_path")


def _served_names(ctx: Context) -> set[str]:
    """The names the profiles serve their models as (--served-model-name, which both engines have)."""
    names: set[str] = set()
    for profile in ctx.host.profiles.values():
        value = profile.flags.get("served-model-name")
        names.update(value if isinstance(value, list) else [str(value)] if value is not None else [])
    return names


def _verdict(ctx: Context, where: str, info: dict[str, Any], models: dict[str, Any] | None) -> Result:
    version, model = info.get("version"), _served_model(info, models)
    detail = f"{ctx.engine_label} {version or '(no version reported)'} answers at {where}, serving " \
             f"{model or 'no model'}" + polls_note(info)
    problems: list[str] = []
    fixes: list[str] = []
    said = dashboard(ctx.host.engine).host_version(ctx.host)  # None: the host file names no release
    if version and said is not None and version != said:
        problems.append(f"the host file says {said}")
        fixes.append(f"set sglang_version = \"{version}\" in {ctx.file_name}")
    known = {profile.model_path for profile in ctx.host.profiles.values()} | _served_names(ctx)
    if ctx.host.profiles and not known & {model, info.get("model_path")}:
        problems.append("no profile has that model")
        fixes.append("add a profile for it (or check that api_url reaches the right server)")
    if problems:
        return Result(NAME, WARN, f"{detail}; {', '.join(problems)}", "; ".join(fixes))
    return Result(NAME, OK, detail)
