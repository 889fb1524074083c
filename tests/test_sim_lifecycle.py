"""Start, refuse, crash, stop: the simulated server's process behaves like SGLang's."""

from __future__ import annotations

import json
import re
import signal
import socket

import httpx
import pytest

from tests.simserver import MISSION_MODEL, READY_LINE, launch_sim, profile_argv, start_sim

SPEC = ["--model-path", MISSION_MODEL, "--tp", "2", "--speculative-algorithm", "NEXTN"]


def finished(tmp_path, argv: list[str], **kwargs) -> tuple[int, str]:
    """Run a launch that should end by itself: (exit status, whole output)."""
    sim = launch_sim(tmp_path, argv, speed=500, **kwargs)
    try:
        status = sim.wait_exit(30)
    finally:
        sim.stop()
    return status, sim.log_text()


def test_draft_tokens_without_steps_fails_with_sglangs_assertion(tmp_path) -> None:
    # with extra_buffer: without it SGLang 0.5.12.post1 stops at the hybrid's mamba check first (next test)
    status, out = finished(tmp_path, SPEC + ["--mamba-scheduler-strategy", "extra_buffer",
                                             "--speculative-num-draft-tokens", "4"])
    assert status == 1
    assert out.startswith("Traceback (most recent call last):")
    assert out.rstrip().splitlines()[-1] == "AssertionError"
    assert "Load weight begin" not in out  # refused before any model load


def test_bare_one_step_redeploy_dies_of_the_mamba_check_not_the_type_error(tmp_path) -> None:
    """SGLang 0.5.12.post1 checks the hybrid's mamba strategy before any speculative parameter."""
    status, out = finished(tmp_path, SPEC + ["--speculative-num-steps", "1"])
    assert status != 0
    assert "ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible with radix cache" in out
    assert "TypeError" not in out


def test_unknown_flag_fails_like_argparse(tmp_path) -> None:
    status, out = finished(tmp_path, ["--model-path", MISSION_MODEL, "--no-such-flag", "1"])
    assert status == 2
    assert out.startswith("usage: sglang serve")
    assert out.rstrip().splitlines()[-1] == "sglang serve: error: unrecognized arguments: --no-such-flag 1"


def test_hybrid_model_without_extra_buffer_crashes_after_weight_loading(tmp_path) -> None:
    status, out = finished(tmp_path, SPEC + ["--speculative-num-steps", "3", "--speculative-eagle-topk", "1"])
    assert status != 0
    assert out.index("Load weight end") < out.index("Scheduler hit an exception: Traceback")
    assert re.search(r"^\[[\d\- :]+ TP0\] Scheduler hit an exception: Traceback \(most recent call last\):$", out,
                     re.M)
    assert ("ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible with radix cache when using "
            "--mamba-scheduler-strategy no_buffer.To use radix cache") in out
    assert "Received sigquit from a child process. It usually means the child failed." in out
    assert READY_LINE not in out


def test_memory_budget_that_does_not_fit_fails_like_sglang(tmp_path) -> None:
    status, out = finished(tmp_path, ["--model-path", MISSION_MODEL, "--tp-size", "2", "--mem-fraction-static", "0.5"])
    assert status != 0
    assert ("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. "
            "Current value: mem_fraction_static=0.5") in out
    status, out = finished(tmp_path, ["--model-path", MISSION_MODEL])  # 51 GB of weights on one 48 GB GPU
    assert status != 0 and "torch.OutOfMemoryError: CUDA out of memory." in out


def test_second_instance_on_a_taken_port_fails_with_one_sentence(tmp_path) -> None:
    with start_sim(tmp_path, profile_argv("redeploy-1step")) as first:
        assert first.ready()
        status, out = finished(tmp_path, profile_argv("redeploy-1step"), port=first.port)
        assert status == 1
        assert out == f"mtptui: cannot listen on 127.0.0.1:{first.port}: the port is already in use\n"


@pytest.mark.parametrize("version, status", [("0.5.12.post1", -signal.SIGKILL), ("0.5.23", 0)])
def test_sigterm_stops_an_idle_server_as_its_release_does_and_frees_the_port(tmp_path, version, status) -> None:
    """An idle server drains at once: 0.5.12.post1 then kills itself (SIGKILL), 0.5.23 lets uvicorn finish
    (mtptui.engines.sglang.surface_shutdown; tests/test_sim_shutdown.py drains a busy one)."""
    sim = launch_sim(tmp_path, profile_argv("redeploy-1step", version), sim_args=["--sim-version", version])
    assert sim.wait_for(READY_LINE)
    sim.proc.send_signal(signal.SIGTERM)
    assert sim.wait_exit(15) == status
    assert ("Finished server process" in sim.log_text()) == (version == "0.5.23")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", sim.port))


def test_sigterm_during_startup_exits_cleanly(tmp_path) -> None:
    sim = launch_sim(tmp_path, profile_argv("redeploy-1step"), speed=10.0)
    assert sim.wait_for("Load weight begin")
    sim.proc.send_signal(signal.SIGTERM)
    assert sim.wait_exit(15) == 0
    assert READY_LINE not in sim.log_text()


def _run_once(tmp_path, seed: int) -> tuple[str, list[str]]:
    argv = profile_argv("restored") + ["--decode-log-interval", "3"]
    with start_sim(tmp_path, argv, seed=seed) as sim:
        body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 30, "temperature": 0.7}
        text = httpx.post(sim.url + "/v1/chat/completions", json=body, timeout=30).json()
        accept = re.findall(r"accept len: [\d.]+, accept rate: [\d.]+", sim.log_text())
    return json.dumps(text["choices"][0]["message"]), accept


def test_same_seed_same_text_and_acceptance(tmp_path) -> None:
    first, second, other = _run_once(tmp_path, 7), _run_once(tmp_path, 7), _run_once(tmp_path, 8)
    assert first == second
    assert first[1] and first[1] == second[1]
    assert other != first


def test_0523_refuses_the_renamed_mamba_flag(tmp_path) -> None:
    """The mission's --mamba-scheduler-strategy became --mamba-radix-cache-strategy in 0.5.23."""
    status, out = finished(tmp_path, profile_argv("restored"), sim_args=["--sim-version", "0.5.23"])
    assert status == 2
    assert out.rstrip().endswith("unrecognized arguments: --mamba-scheduler-strategy extra_buffer")
