"""`mtptui tune` over SSH on the lab host, started in the mission's bad redeploy (steps 1, one running request).

The tune restarts the server once per arm through the restart's public entry points, checks the running launch,
benches through the SSH tunnel, runs the greedy canary, finds the restored settings (steps 3 / draft 4) best and
puts the original launch back (process) or keeps the best arm (systemd, --keep best). An abort mid-arm, or a
connection lost mid-arm, restores the original too; --readonly refuses the whole tune. The tune screen is driven
over SSH too (T, s, y, then q mid-tune).
The simulated server decodes in real time, so the workloads are small (few requests, short answers): every arm
and every token is seconds of the suite's time.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
import tomllib

import pytest
import tomli_w

from mtptui.ops.connect import open_session
from mtptui.ops.tune.plan import plan_tune
from mtptui.ops.tune.runner import Tuner
from mtptui.remote.errors import ReadOnlyError
from mtptui.sim.lossy import LOSSY_ENV
from tests.lab import operator_env
from tests.sshd import NVIDIA_SMI, ROOT

pytestmark = pytest.mark.ssh
# systemd runs the whole grid and ladder; process the arms and the level the lossy canary and the margin need.
GRID = {"systemd": ["steps=1,2,3,4", "topk=1", "draft=auto"], "process": ["steps=1,3,4", "topk=1", "draft=auto"]}
LADDER = {"systemd": [1, 4], "process": [1]}
# 16 canary tokens reach the token the lossy switch changes (mtptui.sim.lossy.LOSSY_AT). 4 requests of 48 tokens:
# fewer, and the bench's noise test no longer tells steps 3 from steps 2 (their requests are too few to compare).
WORKLOAD = ["--requests", "4", "--max-tokens", "48", "--canary-tokens", "16"]


def server_info(lab) -> dict:
    status, body = lab.api("/server_info")
    assert status == 200, body
    return json.loads(body)


def settle(lab, count: int, timeout: float = 10.0) -> int:
    """The host's process count once it is back to ``count`` (sessions end shortly after they are closed)."""
    deadline = time.monotonic() + timeout
    while len(lab.pids()) != count and time.monotonic() < deadline:
        time.sleep(0.1)
    return len(lab.pids())


def with_base_env(host, **env: str) -> None:
    """Add environment variables to the host file's known-good profile (the tune's base)."""
    data = tomllib.loads(host.path.read_text())
    data["profiles"]["restored"]["env"].update(env)
    host.path.write_text(tomli_w.dumps(data))


def plain(renderable) -> str:
    """What a pane shows, as text."""
    from io import StringIO

    from rich.console import Console

    console = Console(width=160, record=True, file=StringIO())
    console.print(renderable)
    return console.export_text()


@pytest.fixture(params=["systemd", "process"])
def lab_host(request):
    return request.getfixturevalue(f"lab_{request.param}")


def test_a_grid_tune_finds_the_restored_settings_then_keeps_the_best_or_puts_the_original_back(lab_host, tmp_path):
    """systemd: four arms, the GPUs are known (stand-in nvidia-smi), every canary passes and --keep best leaves the
    host on the best arm (its unit says so); process: the lossy test switch makes steps 4 change the greedy output,
    so the canary fires for that arm, and the original launch is put back."""
    host, lab = lab_host, lab_host.lab
    host.wait_ready()
    lossy = host.manager == "process"  # and the original is kept; systemd keeps the best arm
    if lossy:
        with_base_env(host, **{LOSSY_ENV: "4"})
    else:
        lab.install(NVIDIA_SMI)
    processes = len(lab.pids())
    out = tmp_path / "tune.json"
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                             "--grid", *GRID[host.manager], "--concurrency", ",".join(map(str, LADDER[host.manager])),
                             *WORKLOAD, "--yes", "--json", str(out), "--save-best", "tuned",
                             *([] if lossy else ["--known-good", "--keep", "best"])],
                            capture_output=True, text=True, timeout=600, cwd=ROOT, env=operator_env(lab))
    assert result.returncode == 0, result.stderr[-3000:]
    tune = json.loads(out.read_text())
    arms = {arm["name"]: arm for arm in tune["arms"]}
    assert list(arms) == (["steps1-topk1-draft2", "steps3-topk1-draft4", "steps4-topk1-draft5"] if lossy else
                          ["steps1-topk1-draft2", "steps2-topk1-draft3", "steps3-topk1-draft4", "steps4-topk1-draft5"])
    assert {arm["status"] for arm in arms.values()} == {"done"}, tune
    assert tune["best"] == "steps3-topk1-draft4", tune["verdict"]
    assert tune["kept"] == ("original" if lossy else "best") and tune["keep"] == tune["kept"], tune["restore"]
    assert (tune["host"], tune["base_profile"], tune["sglang_version"]) == ("lab", "restored", "0.5.12.post1")
    for arm in arms.values():
        assert [r["concurrency"] for r in arm["results"]] == LADDER[host.manager]
        assert all(r["output_tok_s"] > 0 and r["accept_len"] and r["ttft_ms"] and r["tpot_ms"] for r in arm["results"])
        assert arm["flags"]["speculative-num-draft-tokens"] == arm["flags"]["speculative-num-steps"] + 1
    speed = {name: arm["results"][0]["output_tok_s"] for name, arm in arms.items()}
    assert speed["steps3-topk1-draft4"] > 1.4 * speed["steps1-topk1-draft2"]  # the incident's ~35 vs ~55
    accept = {name: arm["results"][0]["accept_len"] for name, arm in arms.items()}
    assert accept["steps1-topk1-draft2"] < accept["steps3-topk1-draft4"]
    assert tune["verdict"].startswith("steps 3 / draft 4: ") and "% over steps 1 / draft 2" in tune["verdict"]
    assert [arm["canary"] for arm in arms.values()] == ["pass"] * (len(arms) - 1) + ["fail" if lossy else "pass"]
    assert ("steps 4 / draft 5 changed the greedy output" in " ".join(tune["notes"])) == lossy
    if not lossy:
        assert "steps 4 / draft 5 adds nothing within noise" in tune["verdict"]
        assert tune["rig"]["gpu_model"] == "NVIDIA RTX A6000" and tune["rig"]["gpu_count"] == 2
    assert tune["original"] == {"profile": "redeploy-1step", "from": tune["original"]["from"], "host_profile": True}
    info = server_info(lab)
    if lossy:  # the original is back: the redeploy's launch
        assert (info["speculative_num_steps"], info["max_running_requests"]) == (1, 1)
        assert "now: lab runs redeploy-1step again" in result.stdout
    else:  # the best arm stays, from its unit
        assert (info["speculative_num_steps"], info["max_running_requests"]) == (3, 16)
        assert tune["restore"] == "lab keeps the best arm, steps3-topk1-draft4"
        assert "now: lab keeps the best arm, steps3-topk1-draft4" in result.stdout
        assert "--speculative-num-steps 3" in host.unit_file.read_text()
    assert settle(lab, processes) == processes
    assert "steps 3 / draft 4 *" in result.stdout
    saved = tomllib.loads(host.path.read_text())  # --save-best: the best arm, in the host's own file
    assert saved["profiles"]["tuned"]["flags"]["speculative-num-steps"] == 3
    assert "speculative-num-draft-tokens" not in saved["profiles"]["tuned"]["flags"]  # auto: SGLang's choice
    assert saved["known_good"] == ("restored" if lossy else "tuned")
    saved_as = "saved steps 3 / draft 4 as profile tuned" + ("" if lossy else " (the host's known-good profile)")
    assert saved_as in result.stdout


async def test_an_abort_mid_arm_rolls_back_to_the_original(lab_process_each):
    """On each supported SGLang version (the arms' flags are checked against the version's own launch)."""
    lab = lab_process_each.lab
    lab_process_each.wait_ready()
    processes = len(lab.pids())
    async with open_session(lab_process_each.config) as session:
        plan = await plan_tune(session, grid=["steps=3,4"], concurrency="1", requests=3, max_tokens=16)
        task = None

        def on_event(event) -> None:
            if event.arm == "steps3" and event.message == "c=1: 1/3 requests":
                task.cancel()  # what Ctrl+C, the screen's abort or quit do

        task = asyncio.create_task(Tuner(session, plan, on_event=on_event).run())
        run = await task
    assert run.aborted == "aborted" and run.state == "aborted" and run.kept == "original"
    assert [(a.name, a.status, a.reason) for a in run.arms] == [("steps3", "aborted", "aborted"),
                                                              ("steps4", "aborted", "not run: the tune stopped")]
    assert run.arms[0].results == [] and run.verdict.best is None
    info = server_info(lab)
    assert (info["speculative_num_steps"], info["max_running_requests"]) == (1, 1)  # the redeploy runs again
    assert settle(lab, processes) == processes


async def test_a_connection_lost_mid_arm_aborts_the_tune_and_the_original_comes_back(lab_process):
    """Every SSH connection is killed while the first arm is measured: the tune stops there (the arm's figures
    are not trusted) and the original launch is restored over a new connection."""
    lab = lab_process.lab
    lab_process.wait_ready()
    killed = []
    async with open_session(lab_process.config) as session:
        plan = await plan_tune(session, grid=["steps=3,4"], concurrency="1", requests=3, max_tokens=16)

        def on_event(event) -> None:
            if event.arm == "steps3" and event.message == "c=1: 1/3 requests" and not killed:
                killed.append(lab.sshd.kill_connections())

        run = await Tuner(session, plan, on_event=on_event).run()
    assert killed and killed[0] > 0
    assert run.aborted.startswith("lost the connection: it dropped while steps 3 was measured at c=1 ("), run.aborted
    assert [(a.name, a.status) for a in run.arms] == [("steps3", "aborted"), ("steps4", "aborted")]
    assert run.arms[1].reason == "not run: the tune stopped" and run.verdict.best is None
    assert run.kept == "original" and run.restore == "lab runs redeploy-1step again"
    info = server_info(lab)
    assert (info["speculative_num_steps"], info["max_running_requests"]) == (1, 1)


async def test_readonly_refuses_the_tune_before_anything_changes(lab_systemd, tmp_path):
    lab_systemd.wait_ready()
    pid = server_info(lab_systemd.lab)
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "--readonly", "tune", "lab", "--config",
                             str(lab_systemd.path), "--yes"], capture_output=True, text=True, timeout=60, cwd=ROOT,
                            env=operator_env(lab_systemd.lab))
    assert result.returncode == 1 and result.stderr.strip() == (
        "mtptui: refusing to run a tune (every arm restarts the server) on lab: mtptui runs with --readonly")
    async with open_session(lab_systemd.config, readonly=True) as session:
        with pytest.raises(ReadOnlyError):
            await plan_tune(session)
    assert server_info(lab_systemd.lab) == pid and "Stopping" not in lab_systemd.log_text()


async def test_the_tune_screen_runs_a_tune_and_q_aborts_it_back_to_the_original(lab_systemd):
    """The dashboard on the lab host: T, s, the one confirmation, an arm measured live; q mid-tune asks, aborts,
    and mtptui quits only once the original launch runs again."""
    from mtptui.ops.feed.host import feed_for_host
    from mtptui.ui.app import AppContext, MtpApp, QuitScreen
    from mtptui.ui.screens.confirm import ConfirmScreen
    from mtptui.ui.screens.tune import SCREEN_NAME, TuneScreen
    from tests.ui_fixtures.support import SIZE, wait_handled, wait_until

    lab_systemd.wait_ready()
    unit_before = lab_systemd.unit_file.read_text()
    session = open_session(lab_systemd.config)
    context = AppContext("lab", host=lab_systemd.config, session=session)
    app = MtpApp(feed_for_host(session, every_s=3600.0, slow_every_s=3600.0), context, cursor_blink=False, keymap={})
    async with app.run_test(size=SIZE) as pilot:
        app.install_screen(TuneScreen(context, grid=["steps=3,4"], concurrency="1", requests=2, max_tokens=48,
                                      canary_tokens=16), SCREEN_NAME)
        await wait_until(pilot, lambda: app.live.host is not None, timeout=30)
        await pilot.press("T")
        await wait_until(pilot, lambda: isinstance(app.screen, TuneScreen))
        screen = app.screen
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), timeout=30)
        assert "tune lab from profile restored: 2 arm(s)" in str(app.screen.body)
        await pilot.press("y")
        # the second arm is measuring (a state: no repaint needed while the tune runs)
        await wait_handled(lambda: screen.run is not None and (screen.run.arms[1].phase or "").startswith("c=1"),
                           timeout=120)
        assert screen.run.arms[0].results[0].output_tok_s > 0 and screen.run.arms[0].canary == "pass"
        table = plain(screen.query_one("#tune-table").renderable).splitlines()
        first_row = table[2].split()  # under the title and the header: the base arm, run first
        assert first_row[:4] == ["steps", "3", "done", f"{screen.run.arms[0].results[0].output_tok_s:.1f}"]
        assert first_row[-1] == "pass"
        await pilot.press("q")
        await wait_until(pilot, lambda: isinstance(app.screen, QuitScreen))
        assert "the original launch is restarted and checked" in str(app.screen.body)
        await pilot.press("y")
        await wait_handled(lambda: not app.is_running, timeout=120)
    run = screen.run
    assert run.state == "aborted" and run.kept == "original", run.restore
    assert [a.status for a in run.arms] == ["done", "aborted"]
    info = server_info(lab_systemd.lab)
    assert (info["speculative_num_steps"], info["max_running_requests"]) == (1, 1)
    assert lab_systemd.unit_file.read_text() == unit_before  # the original's unit, as it was
