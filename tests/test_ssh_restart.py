"""Process-mode restarts over real SSH, the simulated SGLang server being the GPU host's server.

From the mission's ad-hoc redeploy (started by hand with nohup) to the known-good profile, ending ready; and
an automatic rollback when the new profile crashes at start (hybrid model without extra_buffer) or is not
ready in time.
"""

from __future__ import annotations

import httpx
import pytest

from mtptui.errors import UserError
from mtptui.ops.connect import open_session
from mtptui.ops.restart.plan import plan_restart
from mtptui.ops.restart.run import Restarter
from mtptui.remote.procinfo import read_process
from tests.sshd import nohup_server, process_host, wait_ready

pytestmark = pytest.mark.ssh
NO_BUFFER_CRASH = ("ValueError: Speculative decoding for Qwen3_5ForCausalLM is not compatible with radix cache "
                   "when using --mamba-scheduler-strategy no_buffer.")


@pytest.fixture
def host(tmp_path, sshd):
    test_host = process_host(tmp_path, sshd)
    yield test_host
    test_host.cleanup()


def steps(result) -> list[str]:
    return [event.step for event in result.events]


def row(diff, flag):
    return next(r for r in diff.rows if r.flag == flag)


async def test_ssh_restart_from_the_nohup_redeploy_to_restored_ends_ready(sshd, host):
    old = nohup_server(sshd, host, "redeploy-1step")
    wait_ready(host, host.log)
    events = []
    async with open_session(host.config) as session:
        plan = await plan_restart(session, "restored")
        assert plan.diff.sides == (f"running:pid {old.pid}", "profile:restored")
        assert row(plan.diff, "--speculative-num-steps").values == ("1", "3")
        assert [s.step for s in plan.steps] == ["stopping", "starting"]
        result = await Restarter(session, plan, timeout_s=60, on_event=events.append).run()
        new = await read_process(session.transport, result.pid)
        assert await session.service_state() == (f"process pid {result.pid}", "running")
        assert await session.gpus() is None  # the test host has no nvidia-smi
    assert result.ok and result.outcome == "ready" and events == result.events
    assert old.wait(timeout=10) is not None  # the ad-hoc server's whole group is gone
    assert steps(result)[:4] == ["plan", "stopping", "starting", "starting"]
    assert "loading shards 15/15" in [e.message for e in result.events]
    assert steps(result).index("capturing_graphs") < steps(result).index("ready") < steps(result).index("done")
    assert new.argv[new.argv.index("--speculative-num-steps") + 1] == "3"
    assert new.server_env()["SGLANG_ENABLE_SPEC_V2"] == "1"
    assert int(host.pid_file.read_text()) == result.pid == new.pgid
    assert httpx.get(f"http://127.0.0.1:{host.api_port}/health", timeout=10).status_code == 200


async def test_ssh_restart_rolls_back_when_the_new_profile_crashes(sshd, host):
    async with open_session(host.config) as session:
        first = await Restarter(session, await plan_restart(session, "restored"), timeout_s=60).run()
        assert first.ok
        before = await read_process(session.transport, first.pid)
        plan = await plan_restart(session, "no-extra-buffer")
        with pytest.raises(UserError, match="SGLang would stop at start .*extra_buffer"):
            await Restarter(session, plan, timeout_s=60).run()
        result = await Restarter(session, plan, timeout_s=60, force=True).run()
        after = await read_process(session.transport, result.pid)
    assert result.outcome == "rolled_back" and not result.ok
    assert result.reason.startswith(NO_BUFFER_CRASH)
    crash = steps(result).index("crashed")
    assert steps(result)[crash:] == ["crashed", "rolling_back", "stopping", "starting", "starting", *
                                     steps(result)[crash + 5:]]
    assert steps(result)[-3:] == ["ready", "rolled_back", "done"]
    assert {e.launch for e in result.events[crash + 1:]} == {"rollback"}
    assert after.argv == before.argv and after.pid != before.pid  # the exact previous command line, relaunched
    assert after.server_env() == before.server_env()
    assert "rolled back to the previous launch" in result.summary()
    assert httpx.get(f"http://127.0.0.1:{host.api_port}/health", timeout=10).status_code == 200


async def test_ssh_restart_rolls_back_when_the_server_is_not_ready_in_time(sshd, host):
    async with open_session(host.config) as session:
        assert (await Restarter(session, await plan_restart(session, "redeploy-1step"), timeout_s=60).run()).ok
        plan = await plan_restart(session, "restored")
        result = await Restarter(session, plan, timeout_s=0.01, rollback_timeout_s=60).run()
        running = await session.manager.find()
    assert result.outcome == "rolled_back" and result.reason.startswith("not ready after 0.01 s")
    assert "timeout" in steps(result)
    assert running.argv[running.argv.index("--speculative-num-steps") + 1] == "1"


async def test_ssh_restart_from_nothing_that_crashes_leaves_it_stopped(sshd, host):
    async with open_session(host.config) as session:
        plan = await plan_restart(session, "no-extra-buffer")
        assert plan.diff is None and not plan.previous.running
        result = await Restarter(session, plan, timeout_s=60, force=True).run()
        assert await session.manager.find() is None
        assert await session.service_state() == ("process", "not running")
    assert result.outcome == "rolled_back_stopped" and result.reason.startswith(NO_BUFFER_CRASH)


async def test_ssh_readonly_session_refuses_to_restart(sshd, host):
    async with open_session(host.config, readonly=True) as session:
        plan = await plan_restart(session, "restored")  # reading is fine
        with pytest.raises(UserError, match="^refusing to restart with profile restored on gpu: mtptui runs with "
                                            "--readonly$"):
            await Restarter(session, plan).run()
        with pytest.raises(UserError, match="mtptui runs with --readonly"):
            await session.transport.run(plan.steps[-1].command)
        assert await session.manager.find() is None
