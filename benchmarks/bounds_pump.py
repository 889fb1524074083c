"""The dashboard's log path without a terminal: a log file through the UI pump's LineParser into the LogBuffer.

    .venv/bin/python benchmarks/bounds_pump.py FILE       # prints lines stored and the longest one kept

Run by bounds_bench.py under /usr/bin/time to see what one huge log line costs the dashboard.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtptui.ui.logbuffer import LogBuffer  # noqa: E402
from mtptui.ui.pump import LineParser  # noqa: E402


def main(path: str) -> None:
    parser, buffer = LineParser(), LogBuffer()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            lines, events = [], []
            parser.feed(block, lines, events)
            buffer.append(lines)
    longest = max(buffer.texts, key=len)
    print(f"{len(buffer.texts)} lines stored, longest {len(longest):,} chars: ...{longest[-60:]}")


if __name__ == "__main__":
    main(sys.argv[1])
