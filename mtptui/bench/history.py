"""Every benchmark run appended to a local JSONL store, so "70 before" is a recorded number.

The store is `$XDG_DATA_HOME/mtptui/bench-history.jsonl`: one Bench JSON object per line, plus `id`,
`recorded_at` and the class and configuration keys of its fingerprint. Appending is one `write` of one line
on a file opened in append mode, so concurrent runs do not interleave lines. The file is 0600 and its folder 0700.
"""

from __future__ import annotations

import json
import os
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from mtptui.bench.fingerprint import class_key, config_key
from mtptui.config.paths import data_home
from mtptui.errors import UserError
from mtptui.secrets import open_private, private_dir

FILE_NAME = "bench-history.jsonl"
MAX_ENTRY_BYTES = 8 << 20  # a run of 10,000 requests is about 4 MB


def history_path() -> Path:
    return data_home() / FILE_NAME


def append_run(run: dict[str, Any], path: Path | None = None) -> dict[str, Any]:
    """Store one run (its Bench JSON) and return the stored record, which carries its new `id`."""
    path = path or history_path()
    record = dict(run)
    record["id"] = uuid.uuid4().hex[:12]
    record["recorded_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    record["class_key"] = class_key(run["fingerprint"])
    record["config_key"] = config_key(run["fingerprint"])
    line = _line(record)
    if len(line) > MAX_ENTRY_BYTES:
        record.update(requests=[], timeline=[], trimmed=(
            f"per-request results and timeline not stored: the record was {len(line):,} bytes, over "
            f"{MAX_ENTRY_BYTES >> 20} MiB"))
        line = _line(record)
    try:
        private_dir(path.parent)
        fd = open_private(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        raise UserError(f"cannot write the benchmark history {path}: {exc.strerror or exc}") from None
    return record


def _line(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def _lines(path: Path) -> Iterator[bytes]:
    """The history's lines; one over MAX_ENTRY_BYTES (an older version stored a server's 300 MB model id) is
    skipped without being read whole."""
    try:
        with path.open("rb") as handle:
            while line := handle.readline(MAX_ENTRY_BYTES + 1):
                if len(line) <= MAX_ENTRY_BYTES:
                    yield line
                    continue
                while line and not line.endswith(b"\n"):
                    line = handle.readline(1 << 20)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UserError(f"cannot read the benchmark history {path}: {exc}") from None


def load_runs(path: Path | None = None) -> list[dict[str, Any]]:
    """Every stored run, oldest first; a damaged line (e.g. a crash mid-write) or an oversize one is skipped."""
    runs = []
    for line in _lines(path or history_path()):
        try:
            run = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(run, dict) and isinstance(run.get("fingerprint"), dict) and "summary" in run:
            run.setdefault("class_key", class_key(run["fingerprint"]))
            run.setdefault("config_key", config_key(run["fingerprint"]))
            runs.append(run)
    return runs


def same_class(runs: list[dict[str, Any]], fingerprint: dict[str, Any]) -> list[dict[str, Any]]:
    """The runs comparable with a run of this fingerprint."""
    key = class_key(fingerprint)
    return [run for run in runs if run["class_key"] == key]
