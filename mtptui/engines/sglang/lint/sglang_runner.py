"""Run SGLang's own argument stage on launch arguments and print one JSON verdict per command.

Standalone on purpose (standard library only, imports nothing of mtptui but its sibling sglang_standins.py):
it is run with the Python that has SGLang installed, locally by the differential test or shipped over SSH to a
GPU host by mtptui's host check (mtptui.ops.host_lint), read-only. The stage is what ``sglang serve`` does
before loading anything: argparse (``prepare_server_args``), resolution (``ServerArgs.__post_init__`` up to
0.5.12.post1, ``resolve_once`` from 0.5.23) and ``check_server_args``.

    python3 sglang_runner.py [--gpus N --gpu-memory-gb G --capability 8.6 --gpu-name NAME] -- SGLANG-ARGS...
    python3 sglang_runner.py [GPU FACTS] --batch < commands.jsonl   # {"argv": [...], "env": {...}} a line

torch, triton and the kernels are always the stand-ins of sglang_standins.py, answering the GPU facts given
(default: the mission's host, 2 GPUs of 48 GB, compute capability 8.6), so no CUDA context is ever created.
A verdict: ``{"sglang_version", "accepted", "stage", "error_class", "message", "sglang_message", "resolved",
"warnings"}``. ``stage`` is argparse, resolution or check where it stopped (null when accepted);
``sglang_message`` is the line the server dies with (``ValueError: ...``, ``sglang serve: error: ...``).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys

RESOLVED = (
    "speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
    "max_running_requests", "mamba_scheduler_strategy", "mamba_radix_cache_strategy", "disable_radix_cache",
    "disable_overlap_schedule", "page_size", "chunked_prefill_size", "context_length", "mem_fraction_static",
    "tp_size", "dp_size", "attn_dp_size", "enable_dp_attention", "attention_backend", "mamba_full_memory_ratio",
    "mamba_track_interval", "served_model_name", "model_path",
)


class _Warnings(logging.Handler):
    """SGLang's log warnings while the arguments are handled (what the server would print at start)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _plain(value):
    """A JSON value for a resolved setting (enums and other objects as text)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    name = getattr(value, "name", None)
    return name if isinstance(name, str) else str(value)


def _resolved(server_args) -> dict:
    try:
        from sglang.srt.arg_groups.overrides import resolution_result
    except ImportError:
        resolution_result = None
    out = {}
    for name in RESOLVED:
        if not hasattr(server_args, name):
            continue
        value = resolution_result(server_args, name) if resolution_result else getattr(server_args, name)
        out[name] = _plain(value)
    return out


def _sglang_version() -> str | None:
    try:
        from importlib.metadata import version

        return version("sglang")
    except Exception:  # noqa: BLE001 - a source checkout has no metadata
        return None


def _stage_one(argv: list[str], progress: dict):
    from sglang.srt.server_args import prepare_server_args

    progress["stage"] = "argparse"
    server_args = prepare_server_args(list(argv))
    progress["stage"] = "resolution"
    if hasattr(server_args, "resolve_once"):
        server_args.resolve_once()
    progress["stage"] = "check"
    server_args.check_server_args()
    return server_args


def _stage_of(exc: BaseException, stage: str) -> str:
    """Up to 0.5.12.post1 ``prepare_server_args`` also resolves (``__post_init__``): tell the two apart."""
    frame = exc.__traceback__
    while frame is not None:
        if stage == "argparse" and frame.tb_frame.f_code.co_name == "__post_init__":
            return "resolution"
        frame = frame.tb_next
    return stage


def _failure(exc: BaseException, stderr: str) -> dict:
    if isinstance(exc, SystemExit):
        lines = [line for line in stderr.splitlines() if line.strip()]
        message = lines[-1] if lines and exc.code else f"exit {exc.code} (help or version printed)"
        return {"error_class": "SystemExit", "message": message, "sglang_message": message}
    text = str(exc)
    name = type(exc).__name__
    return {"error_class": name, "message": text, "sglang_message": f"{name}: {text}" if text else name}


def check(argv: list[str], env: dict | None = None) -> dict:
    """SGLang's verdict on one command (its arguments, without the program)."""
    progress = {"stage": "import"}
    handler = _Warnings()
    logging.getLogger("sglang").addHandler(handler)
    saved = dict(os.environ)
    os.environ.update(env or {})
    stderr = io.StringIO()
    verdict = {"sglang_version": _sglang_version(), "argv": list(argv), "accepted": True, "stage": None,
               "error_class": None, "message": None, "sglang_message": None, "resolved": {}}
    try:
        with contextlib.redirect_stderr(stderr):
            server_args = _stage_one(argv, progress)
        verdict["resolved"] = _resolved(server_args)
    except BaseException as exc:  # noqa: BLE001 - the verdict is the exception
        if isinstance(exc, KeyboardInterrupt):
            raise
        verdict.update(accepted=False, stage=_stage_of(exc, progress["stage"]), **_failure(exc, stderr.getvalue()))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        logging.getLogger("sglang").removeHandler(handler)
    verdict["warnings"] = handler.messages
    return verdict


def _standins():
    """sglang_standins: already loaded by whoever shipped both files (mtptui's host check), else the file beside
    this one. The runner's own folder leaves the import path, so mtptui's modules shadow nothing of SGLang's."""
    here = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else None
    if here and sys.path and os.path.abspath(sys.path[0] or os.curdir) == here:
        del sys.path[0]
    if "sglang_standins" not in sys.modules:
        import importlib.util

        spec = importlib.util.spec_from_file_location("sglang_standins", os.path.join(here, "sglang_standins.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules["sglang_standins"] = module
        spec.loader.exec_module(module)
    return sys.modules["sglang_standins"]


def _install_standins(args) -> None:
    capability = tuple(int(part) for part in args.capability.split(".")) if args.capability else None
    _standins().install(gpus=args.gpus, gpu_memory_gb=args.gpu_memory_gb, capability=capability,
                        gpu_name=args.gpu_name)


def _options(argv: list[str]):
    parser = argparse.ArgumentParser(prog="sglang_runner", description="SGLang's argument stage, as JSON.")
    parser.add_argument("--gpus", type=int, default=None, help="GPUs the server sees (default 2)")
    parser.add_argument("--gpu-memory-gb", type=float, default=None, help="memory of each GPU (default 48)")
    parser.add_argument("--capability", default=None, metavar="MAJOR.MINOR", help="compute capability (8.6)")
    parser.add_argument("--gpu-name", default=None, help="the GPUs' name (default NVIDIA RTX A6000)")
    parser.add_argument("--batch", action="store_true", help="JSON lines on stdin: {\"argv\": [...], \"env\": {}}")
    parser.add_argument("sglang_args", nargs=argparse.REMAINDER)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _options(sys.argv[1:] if argv is None else argv)
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):  # read local configs only, never download
        os.environ.setdefault(name, "1")
    _install_standins(args)
    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):  # SGLang's own prints must not mix with the verdicts
        if args.batch:
            for line in sys.stdin:
                if line.strip():
                    case = json.loads(line)
                    print(json.dumps(check(case["argv"], case.get("env"))), file=out, flush=True)
            return 0
        words = args.sglang_args[1:] if args.sglang_args[:1] == ["--"] else args.sglang_args
        verdict = check(words)
    print(json.dumps(verdict), file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
