"""nvidia-smi: present on the host's PATH and listing GPUs (the dashboard's memory panes need it), and as many GPUs
as the known-good profile's tensor parallelism asks for. A GPU host without it fails the check."""

from __future__ import annotations

from mtptui.errors import UserError
from mtptui.ops.checks import FAIL, OK, WARN, Context, Result, last_line, not_found
from mtptui.remote.gpu import GpuStat, parse_gpus, query_command

NAME = "nvidia-smi"


async def check_gpu(ctx: Context) -> Result:
    result = await ctx.run(query_command())
    if not_found(result):
        return Result(NAME, FAIL, f"not found on the PATH of {ctx.user or 'the login user'}'s SSH session",
                      "install the NVIDIA driver utilities on the host, or add nvidia-smi's directory to the PATH "
                      "of SSH sessions")
    if not result.ok:
        return Result(NAME, FAIL, f"nvidia-smi fails: {last_line(result)}",
                      "run nvidia-smi on the host and repair the NVIDIA driver it complains about")
    gpus = parse_gpus(result.out)
    if not gpus:
        return Result(NAME, FAIL, "nvidia-smi lists no GPU", "check that the host's GPUs and driver are visible "
                                                             "(nvidia-smi -L on the host)")
    detail = f"{len(gpus)} GPU{'s' * (len(gpus) > 1)}: " + "; ".join(_gpu(g) for g in gpus)
    wanted = _tensor_parallel(ctx)
    if wanted and wanted > len(gpus):
        return Result(NAME, WARN, f"{detail}; profile {ctx.host.known_good} asks for {wanted}",
                      f"set {_tp_flag(ctx)} of profile {ctx.host.known_good} to at most {len(gpus)}")
    return Result(NAME, OK, detail)


def _gpu(gpu: GpuStat) -> str:
    if gpu.memory_used_mib is None or gpu.memory_total_mib is None:
        return f"{gpu.index} {gpu.name}"
    return f"{gpu.index} {gpu.name} {gpu.memory_used_mib / 1024:.1f}/{gpu.memory_total_mib / 1024:.1f} GiB used"


def _tp_flag(ctx: Context) -> str:
    """The profile's name of the engine's tensor-parallel flag (tp-size, tensor-parallel-size)."""
    flag = next((name for name, short in ctx.launches.short_names.items() if short == "tp"), "--tp-size")
    return flag.removeprefix("--")


def _tensor_parallel(ctx: Context) -> int | None:
    """The known-good profile's tensor-parallel size (GPUs per server), when it has one, read by the host's engine
    (its flag the health line calls "tp": SGLang's --tp-size, vLLM's --tensor-parallel-size)."""
    if not ctx.host.known_good:
        return None
    model = ctx.launches
    flag = next((name for name, short in model.short_names.items() if short == "tp"), None)
    try:
        launch = model.profile(ctx.host.profile(ctx.host.known_good), ctx.engine_version)
    except UserError:  # a profile the engine's parser refuses: the flags lint says why
        return None
    value = launch.get(flag) if flag is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None
