"""Debian's Prometheus server, started by the tests on loopback with its own config and storage (never the
Debian service), scraping the simulated servers every second.

    with start_prometheus(tmp_path, ["127.0.0.1:31001", "127.0.0.1:31002"]) as prom:
        prom.wait_until(lambda: prom.target_health() == {...}, "both targets scraped")

Every wait is on Prometheus's own state (its target list, its samples), never a sleep and a timed assertion.
``make test`` installs the ``prometheus`` package when it is missing and we are root.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.needs import need
from tests.simserver import free_port

PROMETHEUS_BIN = shutil.which("prometheus") or "/usr/bin/prometheus"
SCRAPE_S = 1.0
JOB = "sglang"


def prometheus_missing() -> str | None:
    if not Path(PROMETHEUS_BIN).is_file():
        return "Debian's prometheus is not installed (make test installs it when run as root)"
    return None


REEXPORT_JOB = "sglang-reexport"
# What a router or a dashboard's re-export does: the same series as sglang_* instead of sglang:*.
_REEXPORT = ("    metric_relabel_configs:\n      - source_labels: [__name__]\n        regex: 'sglang:(.*)'\n"
             "        target_label: __name__\n        replacement: 'sglang_$1'\n")


def _job(name: str, targets: list[str], relabel: str = "") -> str:
    listed = ", ".join(json.dumps(t) for t in targets)
    return (f"  - job_name: {name}\n    scrape_timeout: {SCRAPE_S:g}s\n"
            f"    static_configs:\n      - targets: [{listed}]\n{relabel}")


def config_text(targets: list[str], job: str = JOB, rule_file: Path | None = None,
                reexported: list[str] = ()) -> str:
    """A scrape config: ``targets`` in one job, ``reexported`` in another that renames sglang:* to sglang_*; every
    target scraped every second (rules evaluated as often)."""
    rules = f"rule_files: [{json.dumps(str(rule_file))}]\n" if rule_file else ""
    jobs = _job(job, targets) + (_job(REEXPORT_JOB, list(reexported), _REEXPORT) if reexported else "")
    return (f"global:\n  scrape_interval: {SCRAPE_S:g}s\n  evaluation_interval: {SCRAPE_S:g}s\n{rules}"
            f"scrape_configs:\n{jobs}")


@dataclass
class PrometheusServer:
    """A running Prometheus on 127.0.0.1."""

    proc: subprocess.Popen
    port: int
    root: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def api(self, path: str, **params: str) -> dict:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}{path}{query}", timeout=10) as answer:
            return json.load(answer)["data"]

    def targets(self) -> list[dict]:
        return self.api("/api/v1/targets", state="active")["activeTargets"]

    def target_health(self) -> dict[str, str]:
        """instance → up / down / unknown."""
        return {t["labels"]["instance"]: t["health"] for t in self.targets()}

    def samples(self, expr: str, seconds: float) -> dict[str, list[tuple[float, float]]]:
        """instance → raw samples of ``expr`` (a plain selector) over the last ``seconds``."""
        result = self.api("/api/v1/query", query=f"{expr}[{int(seconds)}s]", time=f"{time.time():.3f}")["result"]
        return {r["metric"].get("instance", ""): [(float(t), float(v)) for t, v in r["values"]] for r in result}

    def wait_until(self, predicate: Callable[[], bool], what: str, timeout: float = 90.0) -> None:
        """Poll Prometheus's state until ``predicate()``; fail naming ``what`` if it never comes."""
        deadline = time.monotonic() + timeout
        while not predicate():
            if self.proc.poll() is not None:
                pytest.fail(f"prometheus exited ({self.proc.returncode}) while waiting for {what}:\n{self.log()}")
            if time.monotonic() > deadline:
                pytest.fail(f"Prometheus never reached: {what}\n{self.log()[-2000:]}")
            time.sleep(0.2)

    def log(self) -> str:
        return (self.root / "prometheus.log").read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _ready(server: PrometheusServer) -> bool:
    """Listening: /-/ready answers (401 too, when the web config asks for basic auth)."""
    try:
        with urllib.request.urlopen(f"{server.url}/-/ready", timeout=2) as answer:
            return answer.status == 200
    except urllib.error.HTTPError as exc:
        return exc.code == 401
    except OSError:
        return False


@contextlib.contextmanager
def start_prometheus(root: Path, targets: list[str], job: str = JOB, web_config: str | None = None,
                     rules: str | None = None, reexported: list[str] = ()) -> Iterator[PrometheusServer]:
    """``prometheus`` on a free 127.0.0.1 port, its config and TSDB under ``root``, stopped afterwards;
    ``web_config`` is the text of its --web.config.file (e.g. basic_auth_users), ``rules`` of a rule file,
    ``reexported`` targets are scraped with their names renamed to the sglang_ prefix."""
    need(prometheus_missing())
    root.mkdir(parents=True, exist_ok=True)
    rule_file = root / "rules.yml" if rules is not None else None
    if rule_file:
        rule_file.write_text(rules)
    (root / "prometheus.yml").write_text(config_text(targets, job, rule_file, reexported))
    port = free_port()
    command = [PROMETHEUS_BIN, f"--config.file={root / 'prometheus.yml'}", f"--storage.tsdb.path={root / 'data'}",
               f"--web.listen-address=127.0.0.1:{port}", "--storage.tsdb.retention.time=1h"]
    if web_config is not None:
        (root / "web.yml").write_text(web_config)
        command.append(f"--web.config.file={root / 'web.yml'}")
    with open(root / "prometheus.log", "wb") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    server = PrometheusServer(proc, port, root)
    try:
        server.wait_until(lambda: _ready(server), "ready", timeout=60)
        yield server
    finally:
        server.stop()
