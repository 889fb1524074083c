"""The gateway's token as a host file names it: from a file only its owner can read, or from an environment
variable; never written in the host file; every refusal one sentence that names where it looked, never the
token. The last test reads it from a file and lists the real SGLang gateway's workers with it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config.loader import load_host_file
from mtptui.errors import ConfigError
from mtptui.gateway.client import Gateway
from mtptui.gateway.credentials import read_token
from tests.gateway_lab import gateway_rig
from tests.sshd import ROOT

TOKEN = "s3cret-token"


def token_file(tmp_path: Path, text: str = TOKEN + "\n", mode: int = 0o600) -> Path:
    path = tmp_path / "gateway.token"
    path.write_text(text)
    path.chmod(mode)
    return path


def host_file(tmp_path: Path, gateway: str) -> Path:
    path = tmp_path / "gpu.toml"
    path.write_text('name = "gpu"\napi_url = "http://127.0.0.1:31000"\n[server]\nmanager = "process"\n'
                    'log_file = "/tmp/gpu.log"\n[log]\nkind = "file"\npath = "/tmp/gpu.log"\n'
                    f'[gateway]\nurl = "http://127.0.0.1:30080"\n{gateway}')
    return path


def test_a_token_file_only_its_owner_reads_gives_the_token(tmp_path) -> None:
    assert read_token(str(token_file(tmp_path)), None) == TOKEN


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604])
def test_a_token_file_others_can_read_is_refused_with_the_fix(tmp_path, mode) -> None:
    path = token_file(tmp_path, mode=mode)
    with pytest.raises(ConfigError, match=rf"can be read by other users \(mode {mode:o}\): chmod 600 {path}") as c:
        read_token(str(path), None)
    assert TOKEN not in str(c.value)


@pytest.mark.parametrize("text, why", [("", "is empty"), ("two words\n", "characters a bearer token cannot have"),
                                       ("tok\x1b[2Jen", "characters a bearer token cannot have")])
def test_an_empty_or_unsendable_token_is_one_sentence(tmp_path, text, why) -> None:
    with pytest.raises(ConfigError, match=why):
        read_token(str(token_file(tmp_path, text)), None)


def test_a_missing_token_file_names_it(tmp_path) -> None:
    with pytest.raises(ConfigError, match="gone.token"):
        read_token(str(tmp_path / "gone.token"), None)


def test_the_token_from_an_environment_variable(monkeypatch) -> None:
    monkeypatch.setenv("MTPTUI_TEST_GATEWAY_TOKEN", f"  {TOKEN}\n")
    assert read_token(None, "MTPTUI_TEST_GATEWAY_TOKEN") == TOKEN
    monkeypatch.delenv("MTPTUI_TEST_GATEWAY_TOKEN")
    with pytest.raises(ConfigError, match="MTPTUI_TEST_GATEWAY_TOKEN, named for the gateway's token, is not set"):
        read_token(None, "MTPTUI_TEST_GATEWAY_TOKEN")
    assert read_token(None, None) is None


@pytest.mark.parametrize("key", ["token", "bearer_token", "api_key", "password"])
def test_a_token_written_in_the_host_file_is_refused(tmp_path, key) -> None:
    path = host_file(tmp_path, f'{key} = "{TOKEN}"\n')
    with pytest.raises(ConfigError, match=f"'{key}' is never stored in the host file") as caught:
        load_host_file(path)
    assert TOKEN not in str(caught.value)
    run = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "check", "gpu", "--config", str(path)],
                         capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert run.returncode != 0 and "Traceback" not in run.stderr and TOKEN not in run.stderr + run.stdout
    assert "is never stored in the host file" in run.stderr and run.stderr.count("\n") == 1, run.stderr


def test_both_a_file_and_a_variable_is_refused(tmp_path) -> None:
    path = host_file(tmp_path, 'bearer_token_file = "/x"\nbearer_token_env = "TOKEN"\n')
    with pytest.raises(ConfigError, match="either bearer_token_file or bearer_token_env, not both"):
        load_host_file(path)


def test_the_token_read_from_its_file_opens_the_real_gateway(tmp_path) -> None:
    async def workers(url: str, token: str | None):
        async with Gateway(url, token=token) as gateway:
            return await gateway.workers()

    with gateway_rig(tmp_path, replicas=1, token=TOKEN) as rig:
        listed = asyncio.run(workers(rig.url, read_token(str(token_file(tmp_path)), None)))
    assert [w.url for w in listed] == [rig.sims[0].url]
