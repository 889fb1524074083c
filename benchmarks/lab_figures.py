"""The real-systemd lab's figures: its boot and teardown time, the time of each lab test module, and every
real-systemd scenario of the restart with its outcome, as a table.

    sudo .venv/bin/python benchmarks/lab_figures.py [--boots 5] [--scenarios-only] [--modules-only]

Boots: ``--boots`` lab machines one after another (tests/lab: systemd-nspawn on an overlay of this machine's
root), each timed from spawning systemd-nspawn to ``mtplab.target`` active, and its teardown (container stopped,
overlay unmounted, namespace deleted). Modules: every ``tests/test_lab*.py`` and ``tests/test_e2e_lab_story.py``
run by pytest in one process (as the ``labs`` group of ``make test`` runs them), each module's time the sum of
its tests' setup, call and teardown (its booted lab included). Scenarios: the tests of the scenarios (from the
same run, or run alone with ``--scenarios-only``), one row each with its outcome. Needs what the lab needs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.lab import Lab, lab_missing  # noqa: E402

# test -> the scenario it shows on the lab host's real systemd (issue 23, item 3, and the lab itself)
SCENARIOS = {
    "test_lab_machine.py::test_the_lab_boots_systemd_252_with_journald_and_sshd_and_leaves_this_machine_as_it_was":
        "the lab boots systemd 252 (journald, sshd by ssh.service); this machine's /tmp canary survives",
    "test_lab_machine.py::test_a_lab_left_by_a_killed_test_run_is_removed_when_the_next_lab_starts":
        "a killed run's lab (container, mounts, namespace) is removed at the next start",
    "test_lab_systemd.py::test_the_restore_writes_reloads_restarts_and_enables_only_when_asked":
        "restore: write, daemon-reload, reset-failed, restart, watch; enable only when asked; read back from "
        "systemctl show",
    "test_lab_systemd.py::test_a_crash_loop_under_restart_is_caught_within_one_cycle_and_rolled_back[always]":
        "Restart=always: a crashing profile caught in the first cycle, rolled back",
    "test_lab_systemd.py::test_a_crash_loop_under_restart_is_caught_within_one_cycle_and_rolled_back[on-failure]":
        "Restart=on-failure: a crashing profile caught in the first cycle, rolled back",
    "test_lab_systemd.py::test_a_rollback_is_not_defeated_by_start_limit_hit":
        "start-limit-hit (StartLimitBurst=1) does not defeat the rollback (reset-failed first)",
    "test_lab_systemd.py::test_a_crash_without_restart_is_caught_and_the_previous_unit_comes_back":
        "a unit without Restart= crashing: caught, the previous unit back and running",
    "test_lab_systemd.py::test_an_execstart_in_a_drop_in_is_diffed_rewritten_there_and_rolled_back":
        "ExecStart= in override.conf (systemctl edit): diffed via systemctl cat, rewritten there, backed up, "
        "rolled back; DropInPaths in the plan",
    "test_lab_systemd.py::test_environment_file_values_are_in_the_diff_and_the_plan_and_its_secrets_are_masked":
        "EnvironmentFile= values in diff and plan, secrets masked, a value it overrides named",
    "test_lab_systemd.py::test_a_unit_changed_on_disk_since_systemd_loaded_it_is_said_in_the_plan":
        "a unit changed on disk since systemd loaded it (NeedDaemonReload=yes): the plan says so",
    "test_lab_systemd.py::test_the_plan_says_what_the_units_kill_mode_and_stop_timeout_do_to_requests_in_flight":
        "the plan says what KillMode= and TimeoutStopSec= do to requests in flight (SGLang reads no "
        "SGLANG_GRACEFUL_SHUTDOWN_TIMEOUT; 0.5.12.post1 ends its drain by SIGKILL: failed, signal 9)",
    "test_lab_systemd.py::test_a_bench_in_flight_during_a_restart_ends_as_failed_requests":
        "a bench in flight during a restart ends as failed requests, never a hang",
    "test_lab_journal.py::test_the_follower_loses_and_repeats_nothing_across_drops_a_restart_rotation_and_vacuuming":
        "journal follower: no line lost or doubled across drops, a restart, --rotate and --vacuum-files",
    "test_lab_journal.py::test_journalds_rate_limit_is_a_visible_gap_not_a_server_line":
        "journald's 'Suppressed N messages' shown as a gap",
    "test_lab_operator.py::test_with_a_rule_for_the_unit_only_everything_works":
        "non-root account, sudoers for the unit's systemctl/journalctl only: check, diff, restart, enable work",
    "test_lab_operator.py::test_the_rule_allows_the_unit_and_refuses_other_units":
        "the sudoers rule mtptui proposes: the unit's verbs allowed, other units and other verbs refused",
    "test_lab_machine.py::test_two_labs_at_once_keep_their_units_cgroups_apart":
        "two labs at once: each machine's units in a cgroup of their own (one lab's stop never touches the other)",
    "test_lab_operator.py::test_without_the_rule_check_names_it_first_and_a_restart_says_what_sudo_refused":
        "without that rule: check names it first; a restart says in one sentence what sudo refused",
}
SCENARIO_FILES = sorted({name.split("::")[0] for name in SCENARIOS})


def boots(count: int) -> None:
    times = []
    for _ in range(count):
        with tempfile.TemporaryDirectory(prefix="mtptui-lab-figures-") as root:
            lab = Lab(Path(root) / "lab", shared=(Path(root),)).start()
            lab.stop()
            times.append((lab.boot_s, lab.teardown_s))
    boot, down = [b for b, _ in times], [t for _, t in times]
    print(f"lab boot (nspawn spawned -> mtplab.target active), {count} boots: median {statistics.median(boot):.2f} s, "
          f"min {min(boot):.2f} s, max {max(boot):.2f} s")
    print(f"lab teardown (container stopped, overlay unmounted, namespace deleted): median "
          f"{statistics.median(down):.2f} s, max {max(down):.2f} s")


def run_pytest(files: list[str], junit: Path) -> None:
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *files],
                   cwd=ROOT, check=False)


def cases(junit: Path) -> list[tuple[str, float, str]]:
    """(file::test, seconds, outcome) of every test case of a junit report."""
    found = []
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "").rsplit(".", 1)[-1]
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        name = case.get("name", "").split("@")[0]  # make test's xdist names end in @GROUP
        found.append((f"{module}.py::{name}", float(case.get("time", 0)), outcome))
    return found


def modules_table(found: list[tuple[str, float, str]]) -> None:
    per: dict[str, float] = defaultdict(float)
    for name, seconds, _ in found:
        per[name.split("::")[0]] += seconds
    print("\n| lab test module | tests | time |\n|---|---:|---:|")
    for module, seconds in sorted(per.items(), key=lambda item: -item[1]):
        count = sum(1 for name, _, _ in found if name.startswith(module + "::"))
        print(f"| {module} | {count} | {seconds:.0f} s |")
    print(f"| all lab modules, one after another | {len(found)} | {sum(per.values()):.0f} s |")


def scenarios_table(found: list[tuple[str, float, str]]) -> None:
    outcome = {name: (result, seconds) for name, seconds, result in found}
    print("\n| scenario (real systemd 252 on the lab host) | test | outcome |\n|---|---|---|")
    for name, scenario in SCENARIOS.items():
        result, seconds = outcome.get(name, ("not run", 0.0))
        print(f"| {scenario} | `{name}` | {result} ({seconds:.0f} s) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boots", type=int, default=5)
    parser.add_argument("--scenarios-only", action="store_true", help="run only the scenario modules")
    parser.add_argument("--modules-only", action="store_true", help="no boots, only the modules and scenarios")
    parser.add_argument("--from-junit", type=Path, help="the scenarios' outcomes from this junit report (e.g. of "
                        "make test PYTEST_ARGS=--junitxml=FILE) instead of a run of the lab modules")
    args = parser.parse_args()
    if missing := lab_missing():
        sys.exit(missing)
    if not args.modules_only and args.boots > 0:
        boots(args.boots)
    files = [f"tests/{name}" for name in SCENARIO_FILES] if args.scenarios_only else \
        sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*lab*.py"))
    if args.from_junit is not None:
        found = [case for case in cases(args.from_junit) if case[0].startswith(("test_lab", "test_e2e_lab"))]
    else:
        with tempfile.TemporaryDirectory(prefix="mtptui-lab-junit-") as tmp:
            junit = Path(tmp) / "junit.xml"
            run_pytest(files, junit)
            found = cases(junit)
    if not args.scenarios_only:
        modules_table(found)
    scenarios_table(found)


if __name__ == "__main__":
    main()
