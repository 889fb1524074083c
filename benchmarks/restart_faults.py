"""Restarts under faults on the lab host, counted: concurrent restarts and SSH kills, and how many ended wrong.

    sudo .venv/bin/python benchmarks/restart_faults.py [--pairs 8] [--killed 8]

Needs what the lab host needs (root, iproute2, netcat, systemd-container; see tests/lab). Two kinds of trial,
each on a fresh lab host running the bad redeploy from its systemd unit (the process-managed host too, for the
kills):

- a pair: a restart with a profile that crashes at start, and 0.3 s later a restart with the known-good one from
  a second session. Right: the second is refused naming the holder, the first ends rolled back (the crash, not
  the other's ready), the unit on disk is the original and the only backup holds the original.
- a killed restart: every SSH connection is dropped every 0.4 s from the new server's start until it is ready
  (at most 4 times).
  Right: the restart ends ready with the new profile running.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtptui.errors import UserError  # noqa: E402
from mtptui.ops.connect import open_session  # noqa: E402
from mtptui.ops.restart.plan import plan_restart  # noqa: E402
from mtptui.ops.restart.run import Restarter  # noqa: E402
from tests.lab import Lab, lab_host_file, lab_missing, start_server  # noqa: E402


def fresh(lab: Lab, manager: str):
    lab.reset()
    host = lab_host_file(lab, lab.root / f"{manager}.toml", manager)
    start_server(host, "redeploy-1step")
    host.wait_ready()
    return host


async def pair(lab: Lab) -> list[str]:
    """One pair of restarts 0.3 s apart; what went wrong (empty when all is right)."""
    host = fresh(lab, "systemd")
    original, wrong = host.unit_file.read_text(), []
    async with open_session(host.config) as first, open_session(host.config) as second:
        crashing, healthy = await plan_restart(first, "no-extra-buffer"), await plan_restart(second, "restored")
        running = asyncio.ensure_future(Restarter(first, crashing, timeout_s=60, force=True).run())
        await asyncio.sleep(0.3)
        try:
            await Restarter(second, healthy, timeout_s=60).run()
            wrong.append("the second restart ran")
        except UserError as refused:
            wrong += [] if "no-extra-buffer" in str(refused) else [f"refused without the holder: {refused}"]
        result = await running
    wrong += [] if result.outcome == "rolled_back" else [f"the first ended {result.outcome}"]
    wrong += [] if host.unit_file.read_text() == original else ["the unit on disk is not the original"]
    backups = [p.read_text() for p in host.unit_file.parent.glob("*.bak")]
    return wrong + ([] if backups == [original] else [f"{len(backups)} backups, not one of the original"])


async def killed(lab: Lab, manager: str) -> tuple[int, list[str]]:
    """One restart whose connections are dropped while the server starts: (drops, what went wrong)."""
    host, events = fresh(lab, manager), []
    async with open_session(host.config) as session:
        plan = await plan_restart(session, "restored")
        task = asyncio.ensure_future(Restarter(session, plan, timeout_s=120, on_event=events.append).run())
        kills = 0
        while not task.done() and "ready" not in [e.step for e in events] and kills < 4:
            await asyncio.sleep(0.4)
            if any(e.step == "starting" and e.detail.get("pid") for e in events):
                kills += lab.sshd.kill_connections() > 0
        result = await task
    argv = lab.argv(result.pid) if result.pid else []  # the host's own pid (the lab has its PID namespace)
    right = result.outcome == "ready" and "--speculative-num-steps" in argv and \
        argv[argv.index("--speculative-num-steps") + 1] == "3"
    return kills, [] if right else [f"{manager}: {result.summary()}"]


async def trials(lab: Lab, pairs: int, restarts: int) -> None:
    wrong_pairs = [problems for _ in range(pairs) if (problems := await pair(lab))]
    print(f"concurrent restarts (pairs 0.3 s apart): {pairs} tried, {len(wrong_pairs)} ended wrong")
    for problems in wrong_pairs:
        print(f"  wrong: {'; '.join(problems)}")
    kills, wrong = 0, []
    for index in range(restarts):
        dropped, problems = await killed(lab, ("systemd", "process")[index % 2])
        kills, wrong = kills + dropped, wrong + problems
    print(f"SSH kills during restarts: {kills} drops over {restarts} restarts, {len(wrong)} ended wrong")
    for line in wrong:
        print(f"  wrong: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--killed", type=int, default=8, help="restarts whose connections are dropped")
    args = parser.parse_args()
    if missing := lab_missing():
        sys.exit(missing)
    lab = Lab(Path(tempfile.mkdtemp(prefix="mtptui-restart-faults-")))
    lab.start()
    os.environ["HOME"] = str(lab.home)
    os.environ.pop("SSH_AUTH_SOCK", None)
    try:
        asyncio.run(trials(lab, args.pairs, args.killed))
    finally:
        lab.stop()


if __name__ == "__main__":
    main()
