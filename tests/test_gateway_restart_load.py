"""A plain restart of one replica behind the real gateway, under a steady streamed load (tests/stream_load.py):
the requests it had in flight are cut, and the gateway ends each cut stream with an error event and a clean
``[DONE]``, so only a finish_reason tells a whole answer from a short one. This is what a drain-aware restart
must avoid, and what lets its test fail (benchmarks/gateway_restart.py measures it for every way of stopping)."""

from __future__ import annotations

import time

from tests.gateway_lab import gateway_rig, wait_workers
from tests.simserver import MISSION_MODEL, READY_LINE, launch_sim, profile_argv, profile_env, version_args
from tests.stream_load import StreamLoad


def test_a_killed_replica_cuts_its_streams_and_the_gateway_ends_them_with_done(tmp_path) -> None:
    with gateway_rig(tmp_path, gateway_args=("--policy", "round_robin")) as rig:
        victim = rig.sims[0]
        with StreamLoad(rig.url, clients=6, max_tokens=120, model=MISSION_MODEL) as load:
            time.sleep(3)
            victim.proc.kill()
            victim.proc.wait(10)
            rig.sims[0] = launch_sim(tmp_path, profile_argv("restored"), port=victim.port,
                                     env=profile_env("restored"), sim_args=version_args("0.5.12.post1"))
            assert rig.sims[0].wait_for(READY_LINE, 60)
            assert wait_workers(rig.url, {victim.url: "ready"}, timeout=60)
            time.sleep(2)
        tally = load.tally()
    assert tally.sent == tally.whole + tally.cut + tally.failed and tally.whole > 0
    assert tally.cut >= 1, tally.line()
    cut = [o for o in tally.outcomes if o.kind == "cut"]
    assert all(o.finish_reason is None for o in cut)
    assert any(o.chunks > 0 for o in cut)  # cut mid-answer (on a busy machine one may not have had its first token)
    assert any(o.done and o.error and "Stream error" in o.error for o in cut)  # a short answer ending in [DONE]
