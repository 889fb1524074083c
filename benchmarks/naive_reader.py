"""The baseline for `parse_log_bench.py`: a naive reader with one regex per line, as a whole process.

It does a small part of what `parse-log --summary` does: line counts by kind, HTTP statuses, the mean decode
throughput. What it costs is what a straightforward Python reader of these logs costs; the parser is judged
against it on the same machine in the same run.

    python benchmarks/naive_reader.py FILE
"""

from __future__ import annotations

import json
import re
import sys

LINE = re.compile(
    r"(?:[\w.-]+\s*\| )?\[(?:\d{4}-\d{2}-\d{2} )?(\d{2}:\d{2}:\d{2})(?:\.\d{3})?"
    r"((?: (?:DP|PP|ATTN_CP|MOE_DP|TP|EP)\d+)*)\] "
    r"(?:Decode batch.*?#running-req: (\d+).*gen throughput \(token/s\): ([\d.]+)"
    r"|(Prefill batch)|INFO: +\S+ - \"[A-Z]+ \S+[^\"]*\" (\d{3}))?")


def read(path: str) -> dict:
    lines = prefixed = decodes = prefills = 0
    gen_total, statuses = 0.0, {}
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            lines += 1
            m = LINE.match(line)
            if m is None:
                continue
            prefixed += 1
            _, _, running, gen, prefill, status = m.groups()
            if gen is not None:
                decodes += 1
                gen_total += float(gen) if int(running) else 0.0
            elif prefill is not None:
                prefills += 1
            elif status is not None:
                statuses[status] = statuses.get(status, 0) + 1
    return {"lines": lines, "prefixed": prefixed, "decode": decodes, "prefill": prefills, "http": statuses,
            "mean_gen_throughput": gen_total / decodes if decodes else None}


if __name__ == "__main__":
    print(json.dumps(read(sys.argv[1])))
