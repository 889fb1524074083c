"""Module and function sizes of a package, for the architecture figures: `python3 benchmarks/code_sizes.py mtptui`.

Counts lines per module and per function (from the syntax tree, decorators excluded); "before" figures come from an
older tree (`git archive COMMIT mtptui | tar -x -C /tmp/before`, then `code_sizes.py /tmp/before/mtptui`).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def sizes(root: Path) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(lines, module) per module and (lines, module:function) per function under ``root``."""
    modules, functions = [], []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        modules.append((len(text.splitlines()), str(path)))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((node.end_lineno - node.lineno + 1, f"{path}:{node.name}"))
    return modules, functions


def main() -> int:
    modules, functions = sizes(Path(sys.argv[1] if len(sys.argv) > 1 else "mtptui"))
    lines = [n for n, _ in modules]
    print(f"modules {len(lines)}, lines {sum(lines)}, mean {sum(lines) / len(lines):.0f}, largest {max(modules)[0]} "
          f"({max(modules)[1]}), over 300 lines: {sum(n > 300 for n in lines)}")
    print(f"functions {len(functions)}, over 30 lines: {sum(n > 30 for n, _ in functions)}, longest "
          f"{max(functions)[0]} ({max(functions)[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
