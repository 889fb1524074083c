"""`mtptui check HOST` against the lab host, run as the operator runs it (a subprocess with the private HOME).

The healthy lab passes every check but nvidia-smi (the lab has no GPU) until a stand-in nvidia-smi is put on its
PATH; then each thing an operator gets wrong on a new host (the unit's name, the log path, the model path, a
stopped server, sudo that asks for a password, an unknown or changed host key, a key the host refuses) fails its
own line, with what to do, and the other lines say what they found. (sudo for a non-root account whose rule
allows only the unit: tests/test_lab_operator.py.)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
import tomllib

from tests.lab import API_PORT, UNIT, LabHost, operator_env, prepare_lab_host
from tests.sshd import NVIDIA_SMI, ROOT, keygen

pytestmark = pytest.mark.ssh

NAMES = ["ssh", "sudo", "server", "log", "api", "nvidia-smi", "model"]


@pytest.fixture(params=["systemd", "process"])
def lab_host(request, lab, tmp_path, monkeypatch):
    """The lab host (systemd, then process) with the bad redeploy running and its model directory on the host."""
    yield _with_model(lab, tmp_path, monkeypatch, request.param)
    lab.reset()


@pytest.fixture
def lab_systemd_model(lab, tmp_path, monkeypatch):
    yield _with_model(lab, tmp_path, monkeypatch, "systemd")
    lab.reset()


@pytest.fixture
def lab_process_model(lab, tmp_path, monkeypatch):
    yield _with_model(lab, tmp_path, monkeypatch, "process")
    lab.reset()


def _with_model(lab, tmp_path: Path, monkeypatch, manager: str) -> LabHost:
    model = lab.models / "Qwen3.6-27B"
    model.mkdir(parents=True, exist_ok=True)
    (model / "config.json").write_text('{"architectures": ["Qwen3_5ForCausalLM"]}\n')
    host = prepare_lab_host(lab, tmp_path, monkeypatch, manager, model=str(model))
    host.wait_ready()
    return host


def check(host: LabHost, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "check", "lab", "--config", str(host.path),
                           *args], capture_output=True, text=True, timeout=180, cwd=ROOT,
                          env=operator_env(host.lab))


def check_json(host: LabHost) -> tuple[int, dict]:
    result = check(host, "--json")
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, json.loads(result.stdout)


def by_name(report: dict) -> dict[str, dict]:
    assert [c["name"] for c in report["checks"]] == NAMES
    return {c["name"]: c for c in report["checks"]}


def statuses(report: dict) -> dict[str, str]:
    return {name: c["status"] for name, c in by_name(report).items()}


def edit_host_file(host: LabHost, change) -> None:
    data = tomllib.loads(host.path.read_text())
    change(data)
    host.path.write_text(tomli_w.dumps(data))


def test_the_healthy_lab_fails_only_nvidia_smi_until_the_host_has_one(lab_host):
    model = str(lab_host.lab.models / "Qwen3.6-27B")
    result = check(lab_host)
    lines = result.stdout.splitlines()
    assert result.returncode == 1, result.stdout + result.stderr
    assert [line.split()[:2] for line in lines[:7]] == [["ok", name] for name in NAMES[:5]] + \
        [["FAIL", "nvidia-smi"], ["ok", "model"]]
    assert "not found on the PATH of root's SSH session -> install the NVIDIA driver" in lines[5]
    assert f"SGLang 0.5.12.post1 answers at http://127.0.0.1:30000 (through SSH), serving {model}" in lines[4]
    assert f"{model} (profile restored, " in lines[6] and "running server) exists" in lines[6]
    assert lines[7:] == ["lab: 6 of 7 checks pass; failed: nvidia-smi"]
    assert "\x1b[" not in result.stdout and " -> " not in "".join(lines[:5] + lines[6:])

    lab_host.lab.install(NVIDIA_SMI)
    code, report = check_json(lab_host)
    assert code == 0 and report["ok"] is True and report["host"] == "lab"
    assert set(report) == {"host", "engine", "ok", "checks"} and report["engine"] == "sglang"
    assert all(set(c) == {"name", "status", "detail", "fix"} for c in report["checks"])
    assert set(statuses(report).values()) == {"ok"} and {c["fix"] for c in report["checks"]} == {None}
    # the stand-in's GPUs hold what the running server's startup took (mtptui/demo_bin/nvidia-smi)
    detail = re.fullmatch(r"2 GPUs: 0 NVIDIA RTX A6000 (\d+\.\d)/48\.0 GiB used; 1 NVIDIA RTX A6000 (\d+\.\d)/48\.0 "
                          r"GiB used", by_name(report)["nvidia-smi"]["detail"])
    assert detail and all(30 < float(used) < 48 for used in detail.groups()), report


def test_the_server_line_says_what_runs_and_the_check_changes_nothing(lab_systemd_model):
    host = lab_systemd_model
    unit_text, before = host.unit_file.read_text(), host.lab.pids()
    code, report = check_json(host)
    server = by_name(report)["server"]["detail"]
    assert server.startswith(f"{UNIT} ({host.unit_path}) starts SGLang with {host.lab.models / 'Qwen3.6-27B'}; "
                             f"active, pid ")
    assert by_name(report)["log"]["detail"].startswith(f"the journal of {UNIT} is readable (last: ")
    assert host.unit_file.read_text() == unit_text and host.lab.pids() == before
    assert code == 1 and statuses(report)["nvidia-smi"] == "fail"


def test_a_wrong_unit_name_fails_the_server_line(lab_systemd_model):
    host = lab_systemd_model
    host.lab.install(NVIDIA_SMI)
    edit_host_file(host, lambda data: data["server"].update(unit="sglang-qwen3.service"))
    code, report = check_json(host)
    checks = by_name(report)
    assert code == 1 and statuses(report) == {"ssh": "ok", "sudo": "ok", "server": "fail", "log": "skip",
                                              "api": "ok", "nvidia-smi": "ok", "model": "ok"}
    assert checks["server"]["detail"] == "systemd has no unit sglang-qwen3.service (LoadState=not-found)"
    assert checks["server"]["fix"].startswith(f"set server.unit in {host.path} to the unit that runs SGLang")
    assert checks["log"]["detail"] == "skipped: systemd has no unit sglang-qwen3.service"


def test_a_wrong_log_path_fails_the_log_line(lab_process_model):
    host = lab_process_model
    host.lab.install(NVIDIA_SMI)
    edit_host_file(host, lambda data: data["log"].update(path="/var/log/nope/sglang.log"))
    code, report = check_json(host)
    log = by_name(report)["log"]
    assert code == 1 and [n for n, s in statuses(report).items() if s != "ok"] == ["log"]
    assert log["detail"] == "/var/log/nope/sglang.log does not exist on the host"
    assert log["fix"] == (f"set log.path in {host.path} to the file the server writes "
                          f"(server.log_file is {host.lab.srv / 'sglang.log'})")
    pid_file = host.lab.srv / "sglang.pid"
    assert by_name(report)["server"]["detail"].startswith(f"pid {pid_file.read_text().strip()}"
                                                          f" (from {pid_file}) runs SGLang")


def test_a_wrong_model_path_fails_the_model_line(lab_systemd_model):
    host = lab_systemd_model
    host.lab.install(NVIDIA_SMI)
    missing, running = "/data/models/Qwen3.6-27B-FP8", str(host.lab.models / "Qwen3.6-27B")
    edit_host_file(host, lambda data: data["profiles"]["restored"].update(model_path=missing))
    code, report = check_json(host)
    model = by_name(report)["model"]
    assert code == 1 and [n for n, s in statuses(report).items() if s != "ok"] == ["model"]
    assert model["detail"] == (f"{missing} (profile restored) does not exist on the host; "
                               f"{running} (unit {UNIT}, running server) exists")
    assert model["fix"] == (f"copy the model to {missing} on the host, or set profiles.restored.model_path in "
                            f"{host.path} to where it is")


def test_another_sglang_version_or_model_than_the_host_file_says_warns_and_passes(lab_process_model):
    host = lab_process_model
    host.lab.install(NVIDIA_SMI)
    other = host.lab.models / "Qwen3.6-27B-FP8"
    other.mkdir()

    def change(data: dict) -> None:
        data["sglang_version"] = "0.5.23"
        for profile in data["profiles"].values():
            profile["model_path"] = str(other)

    edit_host_file(host, change)
    code, report = check_json(host)
    api = by_name(report)["api"]
    assert code == 0 and report["ok"] is True
    assert statuses(report) == {"ssh": "ok", "sudo": "ok", "server": "warn", "log": "ok", "api": "warn",
                                "nvidia-smi": "ok", "model": "ok"}
    assert api["detail"].endswith("; the host file says 0.5.23, no profile has that model")
    assert api["fix"] == (f'set sglang_version = "0.5.12.post1" in {host.path}; add a profile for it (or check that '
                          f"api_url reaches the right server)")
    assert "SGLang 0.5.23 refuses its flags (" in by_name(report)["server"]["detail"]


def stop_server(host: LabHost) -> str:
    """Stop the lab's server; the api_url that now has no server behind it."""
    if host.manager == "systemd":
        assert host.lab.run("systemctl", "stop", UNIT).returncode == 0
        return f"http://127.0.0.1:{API_PORT}"
    pid = (host.lab.srv / "sglang.pid").read_text().strip()  # the host's own pid (its PID namespace)
    stopped = host.lab.run("sh", "-c", 'env -- kill -TERM -- "-$(ps -o pgid= -p "$1" | tr -d " ")"; '
                                       'while [ -e "/proc/$1" ]; do sleep 0.05; done', "sh", pid, timeout=30)
    assert stopped.returncode == 0, stopped.stderr
    return f"http://127.0.0.1:{API_PORT}"


def test_a_stopped_server_fails_the_api_line_and_says_how_to_start_it(lab_host):
    lab_host.lab.install(NVIDIA_SMI)
    url = stop_server(lab_host)
    code, report = check_json(lab_host)
    checks = by_name(report)
    assert code == 1 and statuses(report) == {"ssh": "ok", "sudo": "ok", "server": "warn", "log": "ok",
                                              "api": "fail", "nvidia-smi": "ok", "model": "ok"}
    start = f"systemctl start {UNIT}" if lab_host.manager == "systemd" else "mtptui restart lab --profile restored"
    assert checks["api"]["detail"].startswith(f"nothing answers at {url} (through SSH): ")
    assert checks["api"]["fix"] == f"start the server ({start}), then check again"
    if lab_host.manager == "systemd":  # 0.5.12.post1 ends its drain by SIGKILL to itself: systemd says failed
        assert "failed, signal, status 9: no server runs" in checks["server"]["detail"]
        assert checks["server"]["fix"] == (f"SGLang 0.5.12.post1 ends every stop so (SIGKILL to itself after its "
                                           f"drain), a crash too: read which (journalctl -u {UNIT} -n 50), then "
                                           f"start it: {start}")
    else:
        assert checks["server"]["fix"] == f"start it: {start}"
        assert "which is not running" in checks["server"]["detail"]


def set_sudo(host: LabHost, sudo: Path) -> None:
    edit_host_file(host, lambda data: data["server"].update(command_prefix=[str(sudo)]))


def test_sudo_in_the_prefix_is_checked_with_what_mtptui_runs_through_it(lab_systemd_model):
    """Real sudo on the lab host (root may run everything; the non-root account's rule: test_lab_operator.py)."""
    host = lab_systemd_model
    host.lab.install(NVIDIA_SMI)
    set_sudo(host, Path("sudo"))
    code, report = check_json(host)
    assert code == 0 and set(statuses(report).values()) == {"ok"}, report
    assert by_name(report)["sudo"]["detail"] == (f"sudo -n runs systemctl, journalctl for {UNIT} without a password, "
                                                 f"and sh (the unit's files are written through it)")

    set_sudo(host, Path("/nonexistent/sudo"))
    code, report = check_json(host)
    checks = by_name(report)
    assert code == 1 and statuses(report) == {"ssh": "ok", "sudo": "fail", "server": "skip", "log": "skip",
                                              "api": "ok", "nvidia-smi": "ok", "model": "ok"}
    assert checks["sudo"]["detail"].startswith("/nonexistent/sudo is not installed on the host (")
    assert checks["sudo"]["fix"] == ("install sudo on the host, or drop it from server.command_prefix "
                                     "(you log in as root: it can go)")
    assert checks["server"]["detail"] == "skipped: needs sudo for systemctl"


def test_an_unknown_changed_or_refusing_host_fails_ssh_and_skips_the_rest(lab_process, tmp_path):
    lab = lab_process.lab
    trusted = lab.known_hosts.read_text()
    lab.known_hosts.write_text("")
    code, report = check_json(lab_process)
    ssh = by_name(report)["ssh"]
    fingerprint = ssh["detail"].split("ssh-ed25519 ")[1].split()[0]
    assert code == 1 and report["ok"] is False and ssh["status"] == "fail"
    assert ssh["detail"] == (f"refusing to connect to gpu.lab: its host key ssh-ed25519 {fingerprint} is not in "
                             f"{lab.known_hosts} (check the fingerprint and add it, or set known_hosts = \"ask\" to "
                             f"confirm it)")
    assert ssh["fix"].startswith(f"check that {fingerprint} is the host's own key (ssh-keygen -lf "
                                 f"/etc/ssh/ssh_host_ed25519_key.pub on its console), then add it with "
                                 f"ssh-keyscan -t ed25519 gpu.lab >> {lab.known_hosts}")
    assert [(c["status"], c["detail"]) for c in report["checks"][1:]] == [("skip", "skipped: needs SSH")] * 6
    assert lab.known_hosts.read_text() == ""  # nothing was trusted behind the operator's back

    other = keygen(tmp_path / "other_host_key")
    lab.known_hosts.write_text(f"gpu.lab {' '.join(other.split()[:2])}\n")
    ssh = by_name(check_json(lab_process)[1])["ssh"]
    assert "does not match the key recorded in" in ssh["detail"]
    assert ssh["fix"].startswith("find out why the host key changed before connecting again; only if the host was "
                                 f"reinstalled, remove the old key with ssh-keygen -R gpu.lab -f {lab.known_hosts}")

    lab.known_hosts.write_text(trusted)
    keygen(tmp_path / "stranger")
    config = lab.home / ".ssh" / "config"
    config.write_text(config.read_text().replace(str(lab.identity), str(tmp_path / "stranger")))
    code, report = check_json(lab_process)
    ssh = by_name(report)["ssh"]
    assert code == 1 and ssh["detail"].startswith("cannot log in to root@gpu-lab: no key was accepted")
    assert ssh["fix"].startswith("install your public key on the host (ssh-copy-id gpu-lab)")
    assert statuses(report)["api"] == "skip"
