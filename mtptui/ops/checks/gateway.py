"""The gateway (only for a host whose file names one under ``[gateway]``): it answers through the session, which
router API generation it speaks, and that it lists this host's server, with the worker's status and load."""

from __future__ import annotations

from mtptui.errors import ConfigError, UserError
from mtptui.gateway.generation import NAMES
from mtptui.gateway.http import GatewayError
from mtptui.gateway.workers import Worker
from mtptui.ops.checks import FAIL, OK, WARN, Context, Result
from mtptui.ops.gateway import open_gateway, this_worker

NAME = "gateway"


def applies(ctx: Context) -> bool:
    return ctx.host.gateway is not None


async def check_gateway(ctx: Context) -> Result:
    config = ctx.host.gateway
    assert config is not None  # run only for a host that names one (applies)
    where = f"[gateway] in {ctx.file_name}"
    try:
        async with await open_gateway(ctx.session) as gateway:
            generation = await gateway.generation()
            workers = await gateway.workers()
            mine = await this_worker(gateway, ctx.host, workers)
    except ConfigError as exc:
        return Result(NAME, FAIL, str(exc), f"fix bearer_token_file or bearer_token_env under {where}")
    except GatewayError as exc:
        return Result(NAME, FAIL, str(exc), _fix(str(exc), where))
    except UserError as exc:  # the tunnel to the gateway could not be opened
        return Result(NAME, FAIL, str(exc), f"check url under {where}: the gateway as the GPU host sees it")
    ready = sum(worker.ready for worker in workers)
    detail = (f"{NAMES[generation]} at {config.url} lists this server as {mine.describe()}; "
              f"{ready} of {len(workers)} workers ready")
    return _verdict(detail, mine, generation != "smg")


def _verdict(detail: str, mine: Worker, old_router: bool) -> Result:
    if old_router:
        return Result(NAME, WARN, f"{detail}; mtptui only reads it (an older router API)",
                      "upgrade the gateway to SMG (pip install smg) for restarts that drain through it")
    if not mine.ready:
        return Result(NAME, WARN, f"{detail}; it does not send this server traffic",
                      "wait until the server is ready, or add it back to the gateway (POST /workers with its url)")
    return Result(NAME, OK, detail)


def _fix(message: str, where: str) -> str:
    if "credentials" in message:
        return f"set bearer_token_file or bearer_token_env under {where} to a key the gateway accepts"
    if "lists no worker" in message or "could be this host" in message:
        return f"register the server with the gateway (POST /workers with its url), or set worker_url under {where}"
    return f"check url under {where}: the gateway's address as the GPU host sees it, and that it runs"
