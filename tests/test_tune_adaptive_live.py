"""`mtptui tune --adaptive` against the simulated SGLang 0.5.12.post1 on this machine (the demo host: a local,
process-managed server on loopback, no SSH), with the adaptive arm on.

The base profile's drafts are accepted less often than the mission's (MTPTUI_SIM_ACCEPTANCE=0.58 in its
environment, so every arm has it): three steps still pay at c=1 (about +10 % over one step), while at c=16 the
verify work of the deeper drafts eats their gain (within the 5 % noise floor), so one step is best there. The best
steps differ by concurrency and the release's own candidates (1,3,7) hold them: the tune proposes adaptive
speculation and measures it as one more arm. The simulated server decodes in real time: a small grid (steps 1
and 3) and short answers.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.bench import history
from mtptui.demo.run import DemoRun, dump_host

ACCEPTANCE = "0.58"
TUNE = ["--grid", "steps=1,3", "topk=1", "draft=auto", "--concurrency", "1,16", "--requests", "6",
        "--max-tokens", "64", "--canary-tokens", "16", "--adaptive", "--yes"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def low_acceptance_run(tmp_path, monkeypatch):
    """The demo host in its bad redeploy, its known-good profile (the tune's base) under a low acceptance."""
    run = DemoRun.prepare(tmp_path, speed=200)
    restored = run.host.profile("restored")
    low = restored.model_copy(update={"env": {**restored.env, "MTPTUI_SIM_ACCEPTANCE": ACCEPTANCE}})
    run.host = run.host.model_copy(update={"profiles": {**run.host.profiles, "restored": low}})
    run.host_path.write_text(dump_host(run.host), encoding="utf-8")
    for name, value in run.server_environment().items():
        monkeypatch.setenv(name, value)
    run.start()
    yield run
    run.stop()


def test_tune_adaptive_measures_the_proposal_as_one_more_arm(low_acceptance_run, tmp_path) -> None:
    run = low_acceptance_run
    out = tmp_path / "tune.json"
    result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "tune", "demo", "--config", str(run.host_path),
                             *TUNE, "--json", str(out)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-3000:]
    tune = json.loads(out.read_text())
    arms = {arm["name"]: arm for arm in tune["arms"]}
    assert list(arms) == ["steps1-topk1-draft2", "steps3-topk1-draft4", "adaptive"], tune
    assert {arm["status"] for arm in arms.values()} == {"done"}, tune

    proposal = tune["adaptive"]
    assert proposal["best_steps"] == {"1": 3, "16": 1}, (tune["verdict"], tune["notes"])
    assert (proposal["candidates"], proposal["ladder"], proposal["config"]) == ([1, 3, 7], [1, 3], None)
    assert proposal["flags"]["speculative-adaptive"] is True and proposal["flags"]["speculative-num-steps"] == 3
    assert "speculative-num-draft-tokens" not in proposal["flags"]

    adaptive = arms["adaptive"]
    assert adaptive["flags"] == {"speculative-num-steps": 3, "speculative-adaptive": True}
    assert [r["concurrency"] for r in adaptive["results"]] == [1, 16]
    assert all(r["output_tok_s"] > 0 and r["ttft_ms"] and r["tpot_ms"] for r in adaptive["results"])
    assert all(r["accept_len_source"] == "server log" for r in adaptive["results"])
    # it starts at 3 steps and moves only between the release's candidates: its accept length lies between one
    # step's and three steps'
    steps1, steps3 = (arms[name]["results"][0]["accept_len"] for name in ("steps1-topk1-draft2", "steps3-topk1-draft4"))
    assert steps1 < steps3
    for measured in adaptive["results"]:
        assert steps1 - 0.1 <= measured["accept_len"] <= steps3 + 0.1, (measured, steps1, steps3)
    # the live steps, as the server reported them before each measurement (/server_info's server args): 3 before
    # the first (nothing decoded yet), a candidate before the second
    runs = {r["id"]: r for r in history.load_runs()}
    live = [runs[r["run_id"]]["fingerprint"]["launch_flags"]["speculative_num_steps"] for r in adaptive["results"]]
    assert live[0] == 3 and live[1] in (1, 3, 7), live
    log = run.log_path.read_text(encoding="utf-8")
    marker = "AdaptiveSpeculativeParams initialized: steps=3, candidate_steps=[1, 3, 7]"
    assert log.count(marker) == 1
    arm_log = log[log.index(marker):].split("server_args=")[0]  # up to the restore's launch
    switches = re.findall(r"Switch adaptive runtime state: steps (\d+) -> (\d+)", arm_log)
    assert all({int(a), int(b)} <= {1, 3, 7} for a, b in switches), switches
    if live[1] != 3:
        assert switches, "the live steps moved without a switch in the log"

    assert tune["kept"] == "original" and tune["restore"] == "demo runs redeploy-1step again"
    assert "adaptive from steps 3" in result.stdout
    assert ("  adaptive: the best steps differ by concurrency (c=1: steps 3, c=16: steps 1): an adaptive profile "
            "could serve both, starting at 3 (the release's own candidates 1,3,7 hold those steps; measured ladder "
            "1,3)") in result.stdout
    assert proposal["sentence"] in result.stdout
