"""A misbehaving Prometheus (or something else at its URL) never gives the fleet a traceback, a hang or a flood.

The answers come from the stand-in of tests/prometheus_standin.py: wrong shapes at every level, JSON nested far
past any parser's limit, a body that is not UTF-8, 400 MB, a body that trickles a byte every half second. Each
refresh ends with one sentence (a UserError) within its one deadline. Credentials never show: a password in the
URL is taken as basic auth and kept out of the JSON, the errors and the screen; a bearer token that no header
can carry is refused at load, masked.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mtptui.errors import ConfigError, UserError
from mtptui.fleet.collect import collect
from mtptui.fleet.prom import Prometheus
from mtptui.fleet.settings import load_settings
from tests.prometheus_standin import BEHAVIOURS, serve_prometheus

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "s3cr3t-Pr0m-pass"
TOKEN = "eyJhbGciOi.tokenvalue-9f8e7d"


@pytest.fixture(scope="module")
def standin():
    with serve_prometheus() as prom:
        yield prom


@pytest.fixture(autouse=True)
def no_fleet_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


async def refresh(url: str, timeout: float = 10.0):
    settings = load_settings(url=url)
    async with Prometheus(settings.url, settings.auth, timeout=timeout) as prom:
        return await collect(prom, settings, {})


@pytest.mark.parametrize("behaviour", sorted(BEHAVIOURS))
async def test_a_wrong_answer_is_one_sentence(standin, behaviour: str) -> None:
    with pytest.raises(UserError) as error:
        await refresh(standin.url(behaviour))
    message = str(error.value)
    assert "\n" not in message and len(message) < 400 and "Prometheus" in message


async def test_a_trickling_answer_ends_the_refresh_at_its_one_deadline(standin) -> None:
    start = time.monotonic()
    with pytest.raises(UserError, match=r"did not give the fleet within 2 s"):
        await refresh(standin.url("trickle"), timeout=2.0)
    assert time.monotonic() - start < 30  # a bound against a hang, not a speed figure


async def test_a_400_mb_answer_is_refused_before_it_is_read(standin) -> None:
    with pytest.raises(UserError, match=r"answered the \S+ (list|query) with more than 64 MiB"):
        await refresh(standin.url("huge"), timeout=60.0)


async def test_a_large_fleet_gives_a_row_per_instance(standin) -> None:
    snapshot = await refresh(standin.url("fleet-300"))
    assert len(snapshot.rows) == 300 and {row.health for row in snapshot.rows} == {"ok"}
    assert all(row.output_tok_s is not None and len(row.spark) == 20 for row in snapshot.rows)


def fleet_cli(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", *argv], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, **(env or {})})


def test_a_password_in_the_url_is_basic_auth_and_never_shown(standin, tmp_path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    ok = fleet_cli("--prometheus", standin.url("fleet-3", f"ops:{PASSWORD}"), "--once", "--json", env=env)
    assert ok.returncode == 0, ok.stderr
    assert PASSWORD not in ok.stdout and json.loads(ok.stdout)["prometheus"] == standin.url("fleet-3")
    failing = fleet_cli("--prometheus", standin.url("top-list", f"ops:{PASSWORD}"), "--once", "--json", env=env)
    assert failing.returncode == 1 and PASSWORD not in failing.stdout + failing.stderr
    refused = fleet_cli("--prometheus", f"http://ops:{PASSWORD}@127.0.0.1:9/", "--once", env=env)
    assert refused.returncode == 1 and "cannot reach" in refused.stderr and PASSWORD not in refused.stderr


def test_the_fleet_header_shows_the_url_without_its_password(standin) -> None:
    from mtptui.fleet.view import FleetView
    from mtptui.ui.fleet.header import header_text

    settings = load_settings(url=standin.url("fleet-3", f"ops:{PASSWORD}"))
    assert settings.auth.username == "ops" and settings.auth.password == PASSWORD
    assert PASSWORD not in header_text(settings, FleetView(), None, None).plain


@pytest.mark.parametrize("token", [f"{TOKEN}\nX-Evil: 1", f"{TOKEN} x", f"{TOKEN}é", f"{TOKEN}\x1b[2J", "jeton-épais"])
def test_a_bearer_token_no_header_can_carry_is_refused_at_load_masked(tmp_path, monkeypatch, token: str) -> None:
    config = tmp_path / "config" / "mtptui"
    config.mkdir(parents=True)
    (config / "fleet.toml").write_text('[prometheus]\nurl = "http://127.0.0.1:9"\nbearer_token_env = "PROM_TOKEN"\n')
    monkeypatch.setenv("PROM_TOKEN", token)
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert "bearer token" in str(error.value) and token.strip() not in str(error.value)
    assert TOKEN not in str(error.value)
    done = fleet_cli("--once", env={"XDG_CONFIG_HOME": str(tmp_path / "config"), "PROM_TOKEN": token})
    assert done.returncode == 2 and "Traceback" not in done.stderr and TOKEN not in done.stderr
