#!/usr/bin/env python3
"""Regenerate mtptui/engines/sglang/flags/data/flags.json from ../shared/reference/sglang-server-flags.json.

The package keeps only facts argparse needs (name, aliases, dest, type, default, choices, store_true,
nargs, flag kind, required, the action of deprecated options and their message), per SGLang version,
plus the option diffs between releases and the renames documented in sglang-flags.md.

Usage: python scripts/gen_flag_table.py [SOURCE_JSON] [OUTPUT_JSON]
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "reference" / "sglang-server-flags.json"
OUTPUT = ROOT / "mtptui" / "engines" / "sglang" / "flags" / "data" / "flags.json"

DEFAULT_VERSION = "0.5.12.post1"

# Options renamed between releases (sglang-flags.md, sections 2.1 and 3): old name -> new name, per release.
RENAMED = {
    "0.5.23": {
        "--mamba-scheduler-strategy": "--mamba-radix-cache-strategy",
        "--cuda-graph-max-bs": "--cuda-graph-max-bs-decode",
        "--cuda-graph-bs": "--cuda-graph-bs-decode",
        "--speculative-dflash-draft-window-size": "--speculative-draft-window-size",
    },
}

STANDARD_ACTIONS = {"_StoreAction", "_StoreTrueAction", "BooleanOptionalAction"}
BUILTINS = re.compile(r"Builtins: ([A-Z0-9_, ]+)\.")


def _dest_of(name: str) -> str:
    return name.lstrip("-").replace("-", "_")


def compact_flag(flag: dict) -> dict:
    """Only the facts that differ from the obvious (missing key = null/false/empty)."""
    out: dict = {"name": flag["name"]}
    if flag["aliases"]:
        out["aliases"] = flag["aliases"]
    if flag["dest"] != _dest_of(flag["name"]):
        out["dest"] = flag["dest"]
    for key in ("type", "default", "choices"):
        if flag.get(key) is not None:
            out[key] = flag[key]
    if flag["store_true"]:
        out["store_true"] = True
    if flag["nargs"] not in (None, 0):
        out["nargs"] = flag["nargs"]
    if flag["flag_kind"] != "value":
        out["flag_kind"] = flag["flag_kind"]
    if flag["required"]:
        out["required"] = True
    if flag["action"] not in STANDARD_ACTIONS:
        out["action"] = flag["action"]
        if flag["action"].startswith("Deprecated"):
            out["message"] = flag["help"]
    return out


def spec_builtins(flags: list[dict]) -> list[str]:
    """Speculative algorithms SGLang knows: argparse choices, or the builtins named in the help text."""
    algo = next(f for f in flags if f["name"] == "--speculative-algorithm")
    if algo["choices"]:
        return list(algo["choices"])
    found = BUILTINS.search(algo["help"] or "")
    return [name.strip() for name in found.group(1).split(",")] if found else []


def build(source: dict) -> dict:
    versions = {}
    for version, entry in source["versions"].items():
        flags = entry["flags"]
        versions[version] = {
            "wheel_sha256": entry.get("wheel_sha256"),
            "spec_builtins": spec_builtins(flags),
            "flags": [compact_flag(f) for f in flags],
        }
    return {
        "_generated_by": "scripts/gen_flag_table.py from sglang-server-flags.json (SGLang's argparse facts)",
        "default_version": DEFAULT_VERSION,
        "versions": versions,
        "option_diffs": source["_meta"]["option_diffs"],
        "renamed": RENAMED,
    }


def _compact(value: object) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def dump(data: dict) -> str:
    """JSON with one flag per line, so a regenerated table reads well in a git diff."""
    lines = ["{"]
    for key, value in data.items():
        if key != "versions":
            lines.append(f"{_compact(key)}:{_compact(value)},")
    lines.append('"versions":{')
    for v_index, (version, entry) in enumerate(data["versions"].items()):
        head = {k: v for k, v in entry.items() if k != "flags"}
        opening = _compact(head)[:-1] + ',"flags":['
        lines.append(f"{_compact(version)}:{opening}")
        last = len(entry["flags"]) - 1
        lines += [_compact(flag) + ("," if i < last else "") for i, flag in enumerate(entry["flags"])]
        lines.append("]}" + ("," if v_index < len(data["versions"]) - 1 else ""))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else SOURCE
    output = Path(argv[2]) if len(argv) > 2 else OUTPUT
    data = build(json.loads(source.read_text(encoding="utf-8")))
    output.parent.mkdir(parents=True, exist_ok=True)
    text = dump(data)
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output} ({len(text)} bytes, versions: {', '.join(data['versions'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
