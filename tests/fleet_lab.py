"""The fleet tests' world: simulated SGLang servers of both versions and different profiles under steady load,
scraped every second by a real Prometheus, and the check of a fleet row against a server's truth.

    .venv/bin/python -m tests.fleet_lab      # prints every figure of every server: fleet vs truth bounds
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from mtptui.engines.sglang.surface_metrics import ITL_BUCKETS, TTFT_BUCKETS
from tests import fleet_truth as truth
from tests.fleet_load import Load
from tests.prometheus import JOB, REEXPORT_JOB, SCRAPE_S, PrometheusServer, start_prometheus
from tests.simserver import NO_SPEC_ARGV, ROOT, SimServer, launch_sim, profile_argv, profile_env, version_args

WINDOW_S = 20.0
GAUGE_AGE_S = 10.0


@dataclass(frozen=True)
class Server:
    """One simulated server of the lab: its profile, version and load."""

    name: str
    argv: tuple[str, ...]
    version: str
    env: tuple[tuple[str, str], ...] = ()
    clients: int = 2
    max_tokens: int = 48
    abort_every: int = 0
    reexported: bool = False  # scraped under the sglang_ prefix, as a router or dashboard re-exports it

    @property
    def job(self) -> str:
        return REEXPORT_JOB if self.reexported else JOB


SERVERS = (
    Server("restored-0.5.12", tuple(profile_argv("restored")), "0.5.12.post1", tuple(profile_env("restored").items()),
           clients=2, max_tokens=64, abort_every=4),
    Server("redeploy-0.5.23", tuple(profile_argv("redeploy-1step", "0.5.23")), "0.5.23",
           tuple(profile_env("redeploy-1step").items()), clients=2, max_tokens=48, abort_every=5, reexported=True),
    Server("nospec-0.5.23", tuple(NO_SPEC_ARGV), "0.5.23", clients=1, max_tokens=32),
)


@dataclass
class FleetLab:
    """Servers by name, their loads, and the Prometheus that scrapes them."""

    root: Path
    sims: dict[str, SimServer] = field(default_factory=dict)
    loads: dict[str, Load] = field(default_factory=dict)
    prom: PrometheusServer | None = None

    def instance(self, name: str) -> str:
        return f"127.0.0.1:{self.sims[name].port}"

    def prometheus(self, root: Path, rules: str | None = None):
        """Prometheus scraping every server of the lab (the re-exported ones under the sglang_ prefix)."""
        plain = [self.instance(s.name) for s in SERVERS if not s.reexported]
        renamed = [self.instance(s.name) for s in SERVERS if s.reexported]
        return start_prometheus(root, plain, rules=rules, reexported=renamed)

    def start_servers(self) -> None:
        for server in SERVERS:
            self.sims[server.name] = launch_sim(self.root, list(server.argv), env=dict(server.env),
                                                sim_args=version_args(server.version), seed=len(self.sims))
        for name, sim in self.sims.items():
            if not sim.wait_for("The server is fired up and ready to roll!", 90):
                raise RuntimeError(f"simulated server {name} did not start:\n{sim.log_text()[-3000:]}")

    def start_load(self) -> None:
        for server in SERVERS:
            self.loads[server.name] = Load(self.sims[server.name].url, server.clients, server.max_tokens,
                                           server.abort_every).start()

    def wait_for_full_windows(self) -> None:
        """Until every server's token counter has samples older than a whole window (Prometheus's state)."""
        def covered() -> bool:
            samples = self.prom.samples('{__name__=~"sglang[:_]generation_tokens_total"}', WINDOW_S + 10)
            oldest = {instance: min(t for t, _ in points) for instance, points in samples.items()}
            edge = time.time() - WINDOW_S - 2 * SCRAPE_S
            return all(oldest.get(self.instance(n), edge + 1) <= edge for n in self.sims)
        self.prom.wait_until(covered, f"{WINDOW_S:g} s of token counter samples from every server", timeout=120)

    def stop_server(self, name: str) -> float:
        """Stop a server (its load first); the epoch second it was gone."""
        self.loads.pop(name).stop()
        self.sims[name].stop()
        return time.time()

    def stop(self) -> None:
        for load in self.loads.values():
            load.stop()
        for sim in self.sims.values():
            sim.stop()


def fleet_rules() -> str:
    """The recording rules `mtptui fleet --rules` prints for the lab's window."""
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", "--rules", "--window", f"{WINDOW_S:g}s"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, check=True)
    return done.stdout


def fleet_json(url: str, *args: str) -> tuple[subprocess.CompletedProcess, dict | None]:
    """`mtptui fleet --prometheus URL --once --json ...` in a subprocess: the process and its JSON."""
    done = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", "--prometheus", url, "--once", "--json",
                           "--window", f"{WINDOW_S:g}s", *args], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)
    return done, json.loads(done.stdout) if done.returncode == 0 else None


@dataclass(frozen=True)
class Check:
    """One figure of one row against the bounds its server's truth allows."""

    figure: str
    value: float | None
    low: float | None
    high: float | None

    @property
    def ok(self) -> bool:
        if self.low is None:
            return self.value is None
        return self.value is not None and self.low - 1e-9 <= self.value <= self.high + 1e-9


def server_truth(sim: SimServer) -> tuple[list[dict], int]:
    """(requests with every ITL, KV pool size in tokens) from the simulated server."""
    requests = httpx.get(f"{sim.url}/sim/requests", params={"itl": "1"}, timeout=30).json()["requests"]
    pool = httpx.get(f"{sim.url}/server_info", timeout=30).json()["max_total_num_tokens"]
    return requests, pool


def checks(row: dict, server: Server, requests: list[dict], pool: int, at: float, lag: float = 0.0) -> list[Check]:
    """Every figure of ``row`` (a fleet JSON instance) against ``server``'s truth at ``at`` (epoch); ``lag``: the
    figures come from recording rules evaluated up to that long before."""
    offset, window = truth.mono_to_wall(), truth.Window(at, WINDOW_S, SCRAPE_S, lag)
    done = truth.finished(requests, offset)
    out = [Check(name, row[name], *truth.rate_bounds(done, window, amount)) for name, amount in (
        ("output_tok_s", lambda r: r["completion_tokens"]), ("request_rate", lambda r: 1),
        ("error_rate", lambda r: r["finish_reason"] == "abort"))]
    out += _latency_checks(row, requests, offset, window) + _gauge_checks(row, requests, pool, offset, at)
    return out + [_accept_check(row, server, done, window)]


def _latency_checks(row: dict, requests: list[dict], offset: float, window: truth.Window) -> list[Check]:
    ttft, itl = truth.ttft_observations(requests, offset), truth.itl_observations(requests, offset)
    bounds = {"ttft_p50_ms": (ttft, 0.5, TTFT_BUCKETS), "ttft_p99_ms": (ttft, 0.99, TTFT_BUCKETS),
              "itl_p50_ms": (itl, 0.5, ITL_BUCKETS), "itl_p99_ms": (itl, 0.99, ITL_BUCKETS)}
    out = [Check(name, row[name], *(1000 * b for b in truth.quantile_bounds(obs, window, q, buckets)))
           for name, (obs, q, buckets) in bounds.items()]
    decode = truth.mediant_bounds([(1, v) for t, v in itl if window.sure(t)],
                                  [(1, v) for t, v in itl if window.possible(t) and not window.sure(t)])
    return out + [Check("decode_tok_s", row["decode_tok_s"], decode[0] - 0.01, decode[1] + 0.01)]


def _gauge_checks(row: dict, requests: list[dict], pool: int, offset: float, at: float) -> list[Check]:
    """Gauges are republished at each decode log (every 40 steps, a few seconds): their value is a moment of the
    last seconds (ten, for a busy machine)."""
    start = at - GAUGE_AGE_S
    running = truth.counts_over(requests, offset, start, at, truth.running)
    queued = truth.counts_over(requests, offset, start, at, truth.queued)
    live = [r for r in requests if any(truth.running(r, start + i * 0.01 - offset) for i in range(1001))]
    kv_high = sum(r["prompt_tokens"] + r["completion_tokens"] for r in live) / pool
    return [Check("running", row["running"], *running), Check("queued", row["queued"], *queued),
            Check("kv_usage", row["kv_usage"], 0.0, round(kv_high, 5) + 1e-5)]


def _accept_check(row: dict, server: Server, done: list[dict], window: truth.Window) -> Check:
    if "--speculative-algorithm" not in server.argv:
        return Check("accept_len", row["accept_len"], None, None)
    if row["accept_len_source"] == "spec_verify_calls_total":  # exact: tokens / verify calls over the window
        low, high = truth.ratio_bounds(done, window, lambda r: r["completion_tokens"], lambda r: r["verify_steps"])
        return Check("accept_len", row["accept_len"], round(low, 3) - 0.001, round(high, 3) + 0.001)
    # The gauge: SGLang's ratio over each decode-log interval (40 steps, tokens made by verify steps only),
    # averaged over the window's samples: the window's truth within the noise of a few intervals.
    low, high = truth.ratio_bounds(done, window, lambda r: r["completion_tokens"] - 1, lambda r: r["verify_steps"])
    return Check("accept_len", row["accept_len"], low - GAUGE_TOLERANCE, high + GAUGE_TOLERANCE)


GAUGE_TOLERANCE = 0.3  # ~5 standard errors of a ~600-step mean of a per-step SD of ~1.3 tokens


def main() -> int:
    """Start the lab, print every figure against its truth bounds, stop."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="fleet-lab-") as tmp:
        lab = FleetLab(Path(tmp))
        try:
            lab.start_servers()
            with lab.prometheus(Path(tmp) / "prom", rules=fleet_rules()) as prom:
                lab.prom = prom
                lab.start_load()
                lab.wait_for_full_windows()
                for args, lag in (((), 0.0), (("--recorded",), SCRAPE_S)):
                    done, data = fleet_json(prom.url, *args)
                    print(f"mtptui fleet --once --json --window {WINDOW_S:g}s {' '.join(args)}".rstrip())
                    print_checks(lab, data, lag)
        finally:
            lab.stop()
    return 0


def print_checks(lab: FleetLab, data: dict, lag: float = 0.0) -> None:
    rows = {row["instance"]: row for row in data["instances"]}
    for server in SERVERS:
        requests, pool = server_truth(lab.sims[server.name])
        row = rows[lab.instance(server.name)]
        print(f"{server.name}, job {row['job']} ({row['version']}, {row['version_source']}; accept from "
              f"{row['accept_len_source']})")
        for check in checks(row, server, requests, pool, data["time"], lag):
            bounds = "null" if check.low is None else f"[{check.low:.4g}, {check.high:.4g}]"
            print(f"  {check.figure:<13} fleet {check.value!s:<10} truth {bounds:<24} {'ok' if check.ok else 'OUT'}")


if __name__ == "__main__":
    sys.exit(main())
