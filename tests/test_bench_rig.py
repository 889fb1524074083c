"""Baselines that know what they measured: a run on another SGLang version or rig is stale, not a baseline."""

from __future__ import annotations

import subprocess

from mtptui.bench import history
from mtptui.bench.compare import compare
from mtptui.bench.report import comparison_text
from mtptui.bench.rig import make_rig, rig_differences, rig_of
from mtptui.remote.gpu_rig import parse_rig_gpus
from tests.sshd import NVIDIA_SMI
from tests.test_bench_history import BAD, GOOD, run

A6000 = {"model": "NVIDIA RTX A6000", "count": 2, "driver": "550.127.05"}


def on_rig(tok_s: float, flags: dict, version: str = "0.5.12.post1", gpus: dict | None = A6000) -> dict:
    made = run(tok_s, flags)
    made["fingerprint"]["server_version"] = version
    made["fingerprint"]["rig"] = make_rig(version, {**flags, "tp_size": 2}, gpus)
    return made


def test_the_stand_in_nvidia_smi_gives_model_count_and_driver() -> None:
    out = subprocess.run([str(NVIDIA_SMI), "--query-gpu=name,driver_version",
                          "--format=csv,noheader"], capture_output=True, text=True, check=True).stdout
    assert parse_rig_gpus(out) == A6000
    assert parse_rig_gpus("") is None and parse_rig_gpus("NVIDIA A100, 80GB, 535.1\n")["driver"] == "535.1"
    rig = make_rig("0.5.12.post1", {"tp_size": 2}, A6000, "sglang")
    fields = ("engine", "engine_version", "gpu_model", "gpu_count", "driver", "tp_size")
    assert {key: rig[key] for key in fields} == {
        "engine": "sglang", "engine_version": "0.5.12.post1", "gpu_model": "NVIDIA RTX A6000", "gpu_count": 2,
        "driver": "550.127.05", "tp_size": 2}


def test_a_baseline_on_another_sglang_version_is_stale_and_not_a_verdict() -> None:
    history.append_run(on_rig(70.0, GOOD, version="0.5.12.post1"))
    result = compare([on_rig(40.0, BAD, version="0.5.23")], history.load_runs())
    assert result.verdict == "no-baseline" and result.baseline is None
    assert result.sentence() == ("re-bench owed: 1 earlier run of this workload measured on another rig (SGLang "
                                 "0.5.23 now, 0.5.12.post1 then), not compared")


def test_a_fresh_baseline_is_used_and_a_better_stale_one_is_named_not_used() -> None:
    history.append_run(on_rig(90.0, GOOD, gpus={**A6000, "model": "NVIDIA H100", "count": 1}))
    history.append_run(on_rig(70.0, GOOD))
    result = compare([on_rig(40.0, BAD)], history.load_runs())
    assert result.before_tok_s == 70.0 and result.verdict in ("regression", "inconclusive")
    assert result.stale.startswith("re-bench owed: 1 earlier run") and "GPU NVIDIA RTX A6000 now, NVIDIA H100 then" \
        in result.stale and "GPUs 2 now, 1 then" in result.stale
    assert result.to_json()["stale"] == result.stale
    assert comparison_text(result).splitlines()[1] == f"  {result.stale}"


def test_what_one_side_does_not_know_is_not_a_difference() -> None:
    older = run(70.0, GOOD)  # a record from before rigs were stored: version and TP from its fingerprint
    assert rig_of(older["fingerprint"])["gpu_model"] is None
    assert rig_differences(make_rig("0.5.12.post1", {"tp_size": 2}, A6000), rig_of(older["fingerprint"])) == []
    history.append_run(older)
    assert compare([on_rig(40.0, BAD)], history.load_runs()).before_tok_s == 70.0
