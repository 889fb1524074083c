"""Files the user names are read within bounds: no device, no FIFO, no huge file, and only the host's own file.

`--config /dev/zero` used to grow without bound, a FIFO hung the command, and every lookup parsed every host
file (a 200 MB one cost a minute on unrelated hosts). The CLI runs are subprocesses with a memory limit and a
timeout, so the unfixed code fails the test instead of the machine.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import mtptui.config.loader as loader
from mtptui.config import find_host, load_host_file
from mtptui.errors import ConfigError
from tests.conftest import CONFIGS

HOST = '''name = "{name}"
api_url = "http://127.0.0.1:30000"
[server]
manager = "process"
log_file = "/tmp/x.log"
[log]
kind = "file"
path = "/tmp/x.log"
'''


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True,
                          timeout=30, preexec_fn=_limit_memory, stdin=subprocess.DEVNULL)


def one_sentence(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1, result.stderr[-2000:]
    return result.stderr


def test_config_dev_zero_is_refused_at_once() -> None:
    err = one_sentence(run_cli("check", "nosuch", "--config", "/dev/zero"))
    assert err == "mtptui: /dev/zero: not a regular file (a character device), so not a host file\n"


def test_config_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "hosts.toml"
    os.mkfifo(fifo)
    err = one_sentence(run_cli("check", "nosuch", "--config", str(fifo)))
    assert err == f"mtptui: {fifo}: not a regular file (a FIFO), so not a host file\n"


def test_a_host_file_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text(HOST.format(name="big") + "# padding\n" * 200_000)
    with pytest.raises(ConfigError) as err:
        load_host_file(big)
    size = big.stat().st_size
    assert str(err.value) == f"{big}: {size:,} bytes is too large for a host file (the limit is 1 MiB)"


def test_a_diff_source_that_is_a_device_is_one_sentence() -> None:
    result = run_cli("diff", "--left", "/dev/zero", "--right", f"{CONFIGS / 'ct129.toml'}:restored")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr == "mtptui: /dev/zero: not a regular file (a character device), so not a file to compare\n"


def test_a_prompt_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "prompts.toml"
    os.mkfifo(fifo)
    result = run_cli("bench", "--url", "http://127.0.0.1:9", "--prompts", str(fifo))
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr == f"mtptui: {fifo}: not a regular file (a FIFO), so not a prompt file\n"


@pytest.fixture
def spied_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the host files find_host reads (the real loader still reads them)."""
    read: list[str] = []
    real = loader.load_host_file

    def spy(path):
        read.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(loader, "load_host_file", spy)
    return read


def test_a_host_is_read_from_its_own_file_only(tmp_path: Path, spied_loads: list[str]) -> None:
    for name in ("aa", "ab", "zz"):
        (tmp_path / f"{name}.toml").write_text(HOST.format(name=name))
    path, host = find_host("zz", str(tmp_path))
    assert (path.name, host.name) == ("zz.toml", "zz")
    assert spied_loads == ["zz.toml"]


def test_a_host_named_inside_another_file_is_still_found(tmp_path: Path, spied_loads: list[str]) -> None:
    (tmp_path / "a.toml").write_text(HOST.format(name="a"))
    (tmp_path / "lab.toml").write_text(HOST.format(name="gpu-lab"))
    path, host = find_host("gpu-lab", str(tmp_path))
    assert (path.name, host.name) == ("lab.toml", "gpu-lab") and spied_loads == ["a.toml", "lab.toml"]


def test_the_file_named_after_the_host_wins_within_its_directory(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(HOST.format(name="zz").replace("/tmp/x.log", "/tmp/a.log"))
    (tmp_path / "zz.toml").write_text(HOST.format(name="zz"))
    assert find_host("zz", str(tmp_path))[0].name == "zz.toml"


def test_an_explicit_config_file_still_wins_over_a_named_file(tmp_path: Path, isolated_dirs: Path) -> None:
    hosts = isolated_dirs / "xdg_config_home" / "mtptui" / "hosts"
    hosts.mkdir(parents=True)
    (hosts / "zz.toml").write_text(HOST.format(name="zz"))
    (tmp_path / "mine.toml").write_text(HOST.format(name="zz").replace("/tmp/x.log", "/tmp/mine.log"))
    path, host = find_host("zz", str(tmp_path / "mine.toml"))
    assert path == tmp_path / "mine.toml" and host.server.log_file == "/tmp/mine.log"
