"""The restart's canary through the real SGLang gateway (smg 1.13.0) in front of two simulated servers: it is
sent until the gateway routes one to the restarted worker (SMG names the worker that served each), and a launch
that refuses it (the simulator's MTPTUI_SIM_REFUSE_PROMPT switch) fails it with the gateway's 400, not retried
on the other worker. And what a failed restart's summary says about the worker in the gateway."""

from __future__ import annotations

import asyncio

import pytest

from mtptui.gateway.client import Gateway
from mtptui.gateway.drain import canary
from mtptui.gateway.http import GatewayError
from mtptui.ops.restart.result import RestartResult, gateway_said
from mtptui.sim.refuse import REFUSE_ENV, refusal
from tests.gateway_lab import gateway_rig

ROUND_ROBIN = ("--policy", "round_robin")


async def _canary(url: str, worker_url: str, tries: int) -> str | None:
    async with Gateway(url) as gateway:
        model = (await gateway.workers())[0].model_id
        return await canary(gateway, model, worker_url, tries)


def test_the_canary_is_sent_until_the_gateway_routes_one_to_the_worker(tmp_path) -> None:
    with gateway_rig(tmp_path, gateway_args=ROUND_ROBIN) as rig:
        for sim in (*rig.sims, *rig.sims):  # round robin: whichever the gateway would pick next, it gets there
            assert asyncio.run(_canary(rig.url, sim.url, 4)) == sim.url
        assert asyncio.run(_canary(rig.url, "http://127.0.0.1:1", 3)) in {s.url for s in rig.sims}  # not listed


def test_a_launch_that_refuses_the_canary_fails_it_through_the_gateway(tmp_path) -> None:
    with gateway_rig(tmp_path, gateway_args=ROUND_ROBIN, sim_env={REFUSE_ENV: "mtptui canary"}) as rig:
        with pytest.raises(GatewayError, match=rf"the canary request through the gateway at {rig.url} failed "
                                               rf"\(HTTP 400 from ({rig.sims[0].url}|{rig.sims[1].url}): "
                                               rf".*{REFUSE_ENV}"):  # every replica refuses: whichever is next
            asyncio.run(_canary(rig.url, rig.sims[0].url, 4))


def test_the_refusal_switch_holds_only_the_text_it_names() -> None:
    said = [{"role": "user", "content": "mtptui canary after a restart: say ok."}]
    assert refusal({}, said) is None and refusal({REFUSE_ENV: ""}, said) is None
    assert refusal({REFUSE_ENV: "canary"}, [{"role": "user", "content": "Write a long story."}]) is None
    assert refusal({REFUSE_ENV: "canary"}, said) is not None
    parts = [{"role": "user", "content": [{"type": "text", "text": "a canary in parts"}]}]
    assert refusal({REFUSE_ENV: "canary"}, parts) is not None


W = "http://127.0.0.1:30000"


def _report(**kw) -> dict:
    return {"worker": W, "removed": True, "re_added": True, "removed_again": None, "again_problem": None,
            "out": None, **kw}


def test_a_failed_restart_says_what_it_did_with_the_worker_in_the_gateway() -> None:
    assert gateway_said(None) is None and gateway_said(_report()) is None  # taken out and put back: nothing more
    assert gateway_said(_report(removed_again=True)) == \
        f"{W} was taken out of the gateway again for the rollback, and is back in it, ready"
    assert gateway_said(_report(again_problem="cannot reach the gateway at G")) == \
        f"{W} could not be taken out of the gateway again before the rollback (cannot reach the gateway at G), " \
        f"and is back in it, ready"
    assert gateway_said(_report(removed_again=True, out="cannot reach the gateway at G")) == \
        f"{W} was taken out of the gateway again for the rollback, and is left out of it, as it could not be " \
        f"added back: cannot reach the gateway at G"
    assert gateway_said(_report(out="it did not become ready")) == \
        f"{W} is left out of the gateway, as it could not be added back: it did not become ready"
    result = RestartResult("lab", "p", "systemd", "rolled_back", reason="the canary failed",
                           gateway=_report(removed_again=True))
    assert result.summary() == ("profile p failed on lab: the canary failed; rolled back to the previous launch, "
                                f"which is running again; {W} was taken out of the gateway again for the rollback, "
                                "and is back in it, ready")
    assert "gateway" not in RestartResult("lab", "p", "systemd", "ready", gateway=_report(removed_again=True)).summary()
