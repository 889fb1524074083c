"""The fleet's settings and credentials: fleet.toml, secrets from a file or the environment (never the TOML),
basic auth against a real Prometheus (Debian's, with a web config), a bearer token, and one-sentence errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from mtptui.errors import ConfigError
from mtptui.fleet.settings import Auth, fleet_config_path, load_settings
from tests.prometheus import start_prometheus
from tests.simserver import ROOT

PASSWORD = "fleet-test-password"
HASHED = "$2b$04$BMFIQ54X8WX33khiYY7Dc.n5yZtF8BBPtHY7PHA0r5uCr7uGnUMp6"  # bcrypt of PASSWORD, cost 4


def write_config(text: str) -> Path:
    path = fleet_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def fleet(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", "fleet", "--once", "--json", *args],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env={**os.environ, **(env or {})})


def test_the_file_gives_url_match_and_windows_and_the_command_line_wins() -> None:
    write_config('[prometheus]\nurl = "http://prom.example:9090/"\nmatch = \'job="sglang"\'\nwindow = "2m"\n'
                 'history = "6h"\nrefresh_s = 10\n')
    settings = load_settings()
    assert (settings.url, settings.window_s, settings.history_s, settings.refresh_s) == \
        ("http://prom.example:9090", 120, 21600, 10)
    assert [m.promql() for m in settings.matchers] == ['job="sglang"'] and settings.auth == Auth()
    overridden = load_settings(url="http://127.0.0.1:9", match="", window="30s")
    assert (overridden.url, overridden.matchers, overridden.window_s) == ("http://127.0.0.1:9", (), 30)


@pytest.mark.parametrize(("line", "message"), [
    ('password = "hunter2"', "'password' is never stored in the file: name where to read it with password_file or "
                             "password_env"),
    ('bearer_token = "abc"', "'bearer_token' is never stored in the file: name where to read it with "
                             "bearer_token_file or bearer_token_env"),
    ('username = "ops"\npassword_file = "/a"\npassword_env = "B"', "name either the file or the environment "
                                                                   "variable of a secret, not both"),
    ('password_env = "B"', "a password needs a username (basic auth)"),
    ('urll = "http://x"', "[prometheus] urll: unknown field"),
])
def test_a_secret_in_the_file_or_a_mistake_is_one_sentence(line: str, message: str) -> None:
    path = write_config(f'[prometheus]\nurl = "http://127.0.0.1:9090"\n{line}\n')
    with pytest.raises(ConfigError) as error:
        load_settings()
    assert str(error.value).startswith(f"{path}: ") and str(error.value).endswith(message)


def test_secrets_come_from_a_file_or_an_environment_variable(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "pass").write_text(f"{PASSWORD}\n")
    write_config(f'[prometheus]\nurl = "http://127.0.0.1:9090"\nusername = "ops"\npassword_file = "{tmp_path}/pass"\n')
    assert load_settings().auth == Auth("ops", PASSWORD)
    write_config('[prometheus]\nurl = "http://127.0.0.1:9090"\nbearer_token_env = "FLEET_TEST_TOKEN"\n')
    monkeypatch.setenv("FLEET_TEST_TOKEN", "tok-123")
    assert load_settings().auth == Auth(bearer_token="tok-123")
    monkeypatch.delenv("FLEET_TEST_TOKEN")
    with pytest.raises(ConfigError, match="the environment variable FLEET_TEST_TOKEN, named for the Prometheus "
                                          "bearer token, is not set"):
        load_settings()


@pytest.mark.parametrize(("args", "code", "message"), [
    ((), 2, "no Prometheus to read: pass --prometheus URL or set url under [prometheus] in "),
    (("--prometheus", "prom:9090"), 1, "--prometheus 'prom:9090' is not an http(s) URL like http://prometheus:9090"),
    (("--prometheus", "http://127.0.0.1:9", "--window", "1 minute"), 1,
     "--window '1 minute' is not a duration like 30s, 1m or 1h"),
    (("--prometheus", "http://127.0.0.1:9", "--match", "job"), 1,
     "--match 'job' is not a list of label matchers like job=\"sglang\",env=~\"prod.*\""),
    (("--prometheus", "http://127.0.0.1:9", "--match", 'job=~"("'), 1, "--match 'job=~\"(\"': '(' is not a regular "
                                                                      "expression (missing ), unterminated subpattern"),
])
def test_bad_input_on_the_command_line_is_one_sentence(args: tuple[str, ...], code: int, message: str) -> None:
    done = fleet(*args)
    assert (done.returncode, done.stdout) == (code, "")
    assert done.stderr.startswith(f"mtptui: {message}") and done.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def guarded_prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Prometheus that asks for basic auth (its own --web.config.file), with no targets."""
    web = f"basic_auth_users:\n  ops: {HASHED}\n"
    with start_prometheus(tmp_path_factory.mktemp("prom-auth"), [], web_config=web) as prom:
        yield prom.url


def test_basic_auth_with_the_password_from_a_file(guarded_prometheus: str, tmp_path: Path) -> None:
    (tmp_path / "pass").write_text(PASSWORD)
    write_config(f'[prometheus]\nusername = "ops"\npassword_file = "{tmp_path}/pass"\n')
    done = fleet("--prometheus", guarded_prometheus)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["instances"] == [] and PASSWORD not in done.stdout + done.stderr


def test_a_refused_password_is_one_sentence(guarded_prometheus: str) -> None:
    write_config('[prometheus]\nusername = "ops"\npassword_env = "FLEET_TEST_PASSWORD"\n')
    done = fleet("--prometheus", guarded_prometheus, env={"FLEET_TEST_PASSWORD": "wrong"})
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"mtptui: Prometheus at {guarded_prometheus} refused the credentials (HTTP 401): check the "
                           f"username, password or bearer token named in fleet.toml\n")


class _TokenProxy(BaseHTTPRequestHandler):
    """A stand-in for an authenticating proxy in front of Prometheus (oauth2-proxy, a managed Prometheus's
    frontend): Prometheus itself checks no bearer token. It answers the API with an empty fleet."""

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        if self.headers.get("Authorization") != "Bearer tok-123":
            self.send_response(401)
            self.end_headers()
            return
        kind = "matrix" if "query_range" in self.path else "vector"
        data = {"activeTargets": []} if "targets" in self.path else {"resultType": kind, "result": []}
        body = json.dumps({"status": "success", "data": data}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def test_a_bearer_token_from_the_environment_is_sent(tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TokenProxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    write_config('[prometheus]\nbearer_token_env = "FLEET_TEST_TOKEN"\n')
    try:
        good = fleet("--prometheus", url, env={"FLEET_TEST_TOKEN": "tok-123"})
        bad = fleet("--prometheus", url, env={"FLEET_TEST_TOKEN": "tok-999"})
    finally:
        server.shutdown()
    assert good.returncode == 0 and json.loads(good.stdout)["instances"] == []
    assert bad.returncode == 1 and "refused the credentials (HTTP 401)" in bad.stderr


def test_an_answer_that_is_not_prometheus_is_one_sentence(tmp_path: Path) -> None:
    from tests.simserver import NO_SPEC_ARGV, start_sim

    with start_sim(tmp_path, NO_SPEC_ARGV) as sim:  # a real HTTP server that is not Prometheus
        done = fleet("--prometheus", sim.url)
    assert done.returncode == 1
    assert done.stderr.startswith(f"mtptui: {sim.url} does not answer like Prometheus's HTTP API (HTTP 404, ")
    assert done.stderr.endswith("is it the right URL?\n")
