#!/usr/bin/env python3
"""Read the published SGLang wheels and write the facts of their HTTP surface to a fixture.

    .venv/bin/python scripts/sglang_conformance.py [--version V ...] [--cache DIR] [--out FILE]

For each supported version (mtptui.engines.sglang.surface.SUPPORTED unless --version is given) the wheel is downloaded
once without its dependencies (``pip download --no-deps sglang==V`` into ``$XDG_CACHE_HOME/mtptui-test/wheels``)
and read straight from the zip. Source files are parsed with ``ast``; nothing of SGLang is imported or copied,
only facts: HTTP routes and their methods, the field names of the response models, the Prometheus metric
names, kinds, labels and histogram buckets, the keys of ``/server_info``, and the templates of the log lines
and error texts the per-version description names (f-strings with the expressions left out: ``{:.2f}``).

The output (tests/fixtures/sglang-conformance.json) is checked in; tests/test_sglang_conformance.py holds the
per-version description and the simulated server to it without downloading anything. Adding a version means
adding it to SUPPORTED, running this script and fixing what that test shows.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "fixtures" / "sglang-conformance.json"
ROUTE_FILES = ("entrypoints/http_server.py", "entrypoints/v1_loads.py")
MODEL_DIR = "entrypoints/openai/"
MODELS = ("UsageInfo", "PromptTokensDetails", "CompletionTokensDetails", "SglExt", "SpecTokensDetails",
          "DeltaMessage", "ChatMessage", "ChatCompletionResponse", "ChatCompletionResponseChoice",
          "ChatCompletionStreamResponse", "ChatCompletionResponseStreamChoice", "CompletionResponse",
          "CompletionResponseChoice", "CompletionStreamResponse", "CompletionResponseStreamChoice", "ErrorResponse",
          "ModelCard", "ModelList", "StreamOptions", "ChatCompletionRequest", "CompletionRequest",
          "StreamDelta", "_StreamDelta", "StreamChoice", "_StreamChoice", "StreamChunk", "_StreamChunk")
METRIC_FILE = "observability/metrics_collector.py"
METRIC_KINDS = ("Counter", "Gauge", "Histogram", "Summary")
LABEL_FILES = ("observability/metrics_collector.py", "observability/scheduler_metrics_mixin.py",
               "managers/tokenizer_manager.py")
# Functions whose dict keys and subscript assignments make up /server_info and its internal_states.
INFO_FUNCTIONS = {"server_info": ("server_info", "build_server_info"), "scheduler_info": ("get_init_info",),
                  "internal_state": ("get_internal_state", "_add_topology", "_add_memory_usage", "_add_speculative")}
# Text templates are kept when they contain one of these markers (log lines and error texts the surface names).
MARKERS = ("Decode batch", "Prefill batch", "accept len", "gen throughput", "#queue-req", "Load weight",
           "KV Cache is allocated", "Mamba Cache is allocated", "Memory pool end", "Capture", "cuda graph",
           "Init torch distributed", "Memory baseline", "fired up and ready to roll", "max_total_num_tokens=",
           "Using KV cache dtype", "is too large", "cannot be empty", "Requested token count", "is longer than",
           "must be at least 0", "must be positive", "must be non-negative", "must be a non-negative",
           "Unsupported Media Type", "should be provided", "is deprecated and will be removed", "Cache flushed",
           "Health check", "Prompt cannot be empty", "token usage", "#token: ", "#full token", "mamba num",
           "mamba usage", "#running-req", "#tokens: ", "input throughput", "#new-seq", "Capturing batches",
           "server_args=", "Draining requests", "Gracefully exiting", "Triggering SIGQUIT", "SIGQUIT received",
           "kill_process_tree called", "AdaptiveSpeculativeParams", "adaptive runtime state",
           "speculative_adaptive disabled", "Adaptive spec params updated", "Adding initial speculative_num_steps",
           "adaptive config candidate_steps", "candidate_steps must")
TEXT_DIRS = ("entrypoints/", "managers/", "model_executor/", "mem_cache/", "observability/", "speculative/",
             "sampling/", "distributed/", "utils/", "server_args.py", "arg_groups/")
ADAPTIVE_FILE = "speculative/adaptive_spec_params.py"
ADAPTIVE_REASONS = "adaptive_unsupported_reason"


def cache_dir() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "mtptui-test" / "wheels"


def wheel_for(version: str, cache: Path) -> Path:
    """The wheel of ``version`` in ``cache``, downloaded (without dependencies) when missing."""
    found = sorted(cache.glob(f"sglang-{version}-*.whl"))
    if not found:
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                        "-d", str(cache), f"sglang=={version}"], check=True)
        found = sorted(cache.glob(f"sglang-{version}-*.whl"))
    if not found:
        raise SystemExit(f"no wheel of sglang {version} in {cache}")
    return found[0]


class Wheel:
    """The ``sglang/srt/`` sources of one wheel, parsed on demand."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.zip = zipfile.ZipFile(path)
        self.names = [n for n in self.zip.namelist() if n.startswith("sglang/srt/") and n.endswith(".py")]
        self._trees: dict[str, ast.Module] = {}

    def text(self, name: str) -> str:
        return self.zip.read(name).decode("utf-8", "replace")

    def tree(self, name: str) -> ast.Module:
        if name not in self._trees:
            self._trees[name] = ast.parse(self.text(name))
        return self._trees[name]

    def find(self, suffix: str) -> list[str]:
        return [n for n in self.names if n.endswith("/" + suffix)]


# Templates --------------------------------------------------------------------------------------------------

def template(node: ast.AST) -> str | None:
    """An f-string or string literal as a format template without expressions: ``x={:.2f} GB``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value).replace("{", "{{").replace("}", "}}"))
        elif isinstance(value, ast.FormattedValue):
            spec = template(value.format_spec) if value.format_spec is not None else ""
            parts.append("{" + (":" + spec if spec else "") + "}")
    return "".join(parts)


def texts(wheel: Wheel) -> list[str]:
    """Every template under TEXT_DIRS that contains a marker."""
    found: set[str] = set()
    for name in wheel.names:
        rel = name[len("sglang/srt/"):]
        if not rel.startswith(TEXT_DIRS) or "/test" in rel:
            continue
        source = wheel.text(name)
        if not any(marker in source for marker in MARKERS):
            continue
        for node in _strings(wheel.tree(name)):
            text = template(node)
            if text and any(marker in text for marker in MARKERS):
                found.add(text)
    return sorted(found)


def _strings(tree: ast.Module) -> list[ast.AST]:
    """Whole f-strings and string literals, without docstrings and without the pieces of f-strings."""
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in ast.walk(n) if v is not n}
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    return [n for n in ast.walk(tree) if isinstance(n, (ast.JoinedStr, ast.Constant)) and isinstance(
        getattr(n, "value", ""), (str, list)) and id(n) not in parts and id(n) not in docs]


# Routes -----------------------------------------------------------------------------------------------------

def _route(decorator: ast.AST) -> tuple[str, list[str]] | None:
    if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)):
        return None
    verb = decorator.func.attr
    if verb not in ("get", "post", "put", "delete", "api_route") or not decorator.args:
        return None
    path = decorator.args[0]
    if not (isinstance(path, ast.Constant) and isinstance(path.value, str)):
        return None
    if verb != "api_route":
        return path.value, [verb.upper()]
    methods = next((k.value for k in decorator.keywords if k.arg == "methods"), None)
    names = [e.value for e in getattr(methods, "elts", []) if isinstance(e, ast.Constant)]
    return path.value, names or ["GET"]


def routes(wheel: Wheel) -> dict[str, list[str]]:
    out: dict[str, set[str]] = {}
    for suffix in ROUTE_FILES:
        for name in wheel.find(suffix):
            for node in ast.walk(wheel.tree(name)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for decorator in node.decorator_list:
                        found = _route(decorator)
                        if found:
                            out.setdefault(found[0], set()).update(found[1])
    return {path: sorted(methods) for path, methods in sorted(out.items())}


# Response models --------------------------------------------------------------------------------------------

def models(wheel: Wheel) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name in wheel.names:
        if not name.startswith("sglang/srt/" + MODEL_DIR):
            continue
        for node in ast.walk(wheel.tree(name)):
            if isinstance(node, ast.ClassDef) and node.name in MODELS and node.name not in out:
                out[node.name] = [s.target.id for s in node.body
                                  if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    return dict(sorted(out.items()))


# Metrics ----------------------------------------------------------------------------------------------------

def _extra_labels(node: ast.AST | None) -> list[str] | None:
    """Labels added to the collector's base labels (``labels.keys()`` alone: none); None if not a literal."""
    if node is None:
        return []
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "keys":
        return []
    if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "list" and node.args:
        return _extra_labels(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _extra_labels(node.left), _extra_labels(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                inner = _extra_labels(element.value)
                if inner is None:
                    return None
                out += inner
            elif isinstance(element, ast.Constant):
                out.append(element.value)
            else:
                return None
        return out
    return None


def _numbers(node: ast.AST | None, function: ast.AST) -> list[float] | None:
    if isinstance(node, ast.Name):  # a list assigned to that name in the same function
        for sub in ast.walk(function):
            if isinstance(sub, ast.Assign) and any(getattr(t, "id", None) == node.id for t in sub.targets):
                node = sub.value
                break
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) for e in node.elts):
        return [float(e.value) for e in node.elts]
    return None


def _metric(call: ast.Call, collector: str, function: ast.AST) -> tuple[str, dict] | None:
    kind = getattr(call.func, "id", None)
    keywords = {k.arg: k.value for k in call.keywords}
    name = keywords.get("name")
    if kind not in METRIC_KINDS or not (isinstance(name, ast.Constant) and str(name.value).startswith("sglang:")):
        return None
    fact = {"kind": kind.lower(), "collector": collector, "extra_labels": _extra_labels(keywords.get("labelnames"))}
    buckets = _numbers(keywords.get("buckets"), function)
    if buckets is not None:
        fact["buckets"] = buckets
    return name.value, fact


def metrics(wheel: Wheel) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for name in wheel.find(METRIC_FILE):
        for cls in (n for n in ast.walk(wheel.tree(name)) if isinstance(n, ast.ClassDef)):
            for function in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
                for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
                    found = _metric(call, cls.name, function)
                    if found and found[0] not in out:
                        out[found[0]] = found[1]
    return dict(sorted(out.items()))


def base_labels(wheel: Wheel) -> dict[str, list[str]]:
    """The label dicts the collectors are built with: scheduler (with tp_rank) and tokenizer."""
    out: dict[str, list[str]] = {}
    for suffix in LABEL_FILES:
        for name in wheel.find(suffix):
            for node in ast.walk(wheel.tree(name)):
                if not isinstance(node, ast.Dict):
                    continue
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                if keys[:1] == ["model_name"] and "engine_type" in keys:
                    out.setdefault("scheduler" if "tp_rank" in keys else "tokenizer", keys)
    return out


# /server_info -----------------------------------------------------------------------------------------------

def _keys_in(function: ast.AST) -> list[str]:
    keys: list[str] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Dict):
            keys += [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                    keys.append(target.slice.value)
    return keys


def info_keys(wheel: Wheel) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for group, functions in INFO_FUNCTIONS.items():
        keys: list[str] = []
        for name in wheel.names:
            if not any(f"def {f}(" in wheel.text(name) for f in functions):
                continue
            for node in ast.walk(wheel.tree(name)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in functions:
                    keys += [k for k in _keys_in(node) if isinstance(k, str)]
        out[group] = sorted(set(keys))
    return out


# Adaptive speculative decoding ------------------------------------------------------------------------------

def _literal(node: ast.AST | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else None
    except ValueError:
        return None


def adaptive(wheel: Wheel) -> dict:
    """The tuning defaults (``cfg.get(NAME, DEFAULT)``), the default config (0.5.23's per-batch-size table) and
    the reasons ``adaptive_unsupported_reason`` gives for turning it off (templates)."""
    out: dict = {"defaults": {}, "default_config": None, "reasons": []}
    for name in wheel.find(ADAPTIVE_FILE):
        tree = wheel.tree(name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get" and len(node.args) == 2 \
                    and isinstance(node.args[0], ast.Constant) and getattr(node.func.value, "id", None) == "cfg":
                out["defaults"].setdefault(node.args[0].value, _literal(node.args[1]))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and "DEFAULT_ADAPTIVE_CONFIG" in [
                    getattr(t, "id", None) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]:
                out["default_config"] = _literal(node.value)
            elif isinstance(node, ast.FunctionDef) and node.name == ADAPTIVE_REASONS:
                out["reasons"] = [text for ret in ast.walk(node) if isinstance(ret, ast.Return)
                                  and (text := template(ret.value)) is not None]
    return out


def facts(version: str, wheel_path: Path) -> dict:
    wheel = Wheel(wheel_path)
    return {
        "wheel": wheel_path.name,
        "sha256": hashlib.sha256(wheel_path.read_bytes()).hexdigest(),
        "routes": routes(wheel),
        "models": models(wheel),
        "metric_labels": base_labels(wheel),
        "metrics": metrics(wheel),
        "server_info": info_keys(wheel),
        "texts": texts(wheel),
        "adaptive": adaptive(wheel),
    }


def main(argv: list[str] | None = None) -> int:
    from mtptui.engines.sglang.surface import SUPPORTED

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="append", help="an SGLang version (default: every supported one)")
    parser.add_argument("--cache", type=Path, default=cache_dir(), help="where wheels are kept")
    parser.add_argument("--out", type=Path, default=OUT, help="the fixture to write")
    args = parser.parse_args(argv)
    document = {"note": "Facts read from SGLang's published wheels by scripts/sglang_conformance.py; "
                        "regenerate with that script, do not edit by hand.", "versions": {}}
    for version in args.version or list(SUPPORTED):
        document["versions"][version] = facts(version, wheel_for(version, args.cache))
        print(f"{version}: {len(document['versions'][version]['routes'])} routes, "
              f"{len(document['versions'][version]['metrics'])} metrics", file=sys.stderr)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
