#!/usr/bin/env python3
"""Regenerate mtptui/engines/sglang/flags/data/flag_help.json: SGLang's own help text of every flag, per release.

Kept apart from flags.json (argparse facts the linter needs) because only the diff screen's explanation reads it.
Each flag maps to its distinct help texts, each with the releases that print it, newest release first.

Usage: python scripts/gen_flag_help.py [SOURCE_JSON] [OUTPUT_JSON]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "reference" / "sglang-server-flags.json"
OUTPUT = ROOT / "mtptui" / "engines" / "sglang" / "flags" / "data" / "flag_help.json"


def build(source: dict) -> dict[str, list[dict]]:
    """Flag name → [{"versions": [...], "help": text}], in the source's release order (newest first)."""
    texts: dict[str, dict[str, list[str]]] = {}
    for version, entry in source["versions"].items():
        for flag in entry["flags"]:
            if flag.get("help"):
                texts.setdefault(flag["name"], {}).setdefault(flag["help"], []).append(version)
    return {name: [{"versions": versions, "help": text} for text, versions in by_text.items()]
            for name, by_text in sorted(texts.items())}


def dump(data: dict) -> str:
    """One flag per line, so a regenerated file reads well in a git diff."""
    lines = [f"{json.dumps(name)}:{json.dumps(entries, ensure_ascii=False, separators=(',', ':'))}"
             for name, entries in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv: list[str]) -> int:
    source = Path(argv[1]) if len(argv) > 1 else SOURCE
    output = Path(argv[2]) if len(argv) > 2 else OUTPUT
    text = dump(build(json.loads(source.read_text(encoding="utf-8"))))
    output.write_text(text, encoding="utf-8")
    print(f"wrote {output} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
