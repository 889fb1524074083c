"""Host/profile config: TOML round trip, lookup order, and every bad-input case."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from mtptui.config import dump_host, find_host, list_hosts, load_host_file, save_host
from mtptui.config.loader import parse_host
from mtptui.config.models import HostConfig, ProcessServer, SystemdServer
from mtptui.errors import ConfigError
from tests.conftest import CONFIGS

MISSION_RESTORED = {
    "speculative-algorithm": "NEXTN",
    "speculative-num-steps": 3,
    "speculative-eagle-topk": 1,
    "speculative-num-draft-tokens": 4,
    "mem-fraction-static": 0.88,
    "context-length": 131072,
    "max-running-requests": 16,
    "mamba-full-memory-ratio": 0.5,
    "mamba-scheduler-strategy": "extra_buffer",
    "reasoning-parser": "qwen3",
    "tool-call-parser": "qwen3_coder",
    "tp-size": 2,
    "host": "0.0.0.0",
    "port": 30000,
}


def test_ct129_holds_every_value_of_the_mission_table() -> None:
    host = load_host_file(CONFIGS / "ct129.toml")
    assert host.name == "ct129"
    assert isinstance(host.server, SystemdServer) and host.server.unit == "sglang-qwen.service"
    assert host.known_good == "restored"
    assert host.api_url.endswith(":30000")
    assert host.profiles["restored"].flags == MISSION_RESTORED
    assert host.profiles["restored"].env == {"SGLANG_ENABLE_SPEC_V2": "1"}
    bad = host.profiles["redeploy-1step"]
    assert bad.flags["speculative-num-steps"] == 1
    assert bad.flags["max-running-requests"] == 1
    for unset in ("speculative-num-draft-tokens", "mem-fraction-static", "context-length",
                  "mamba-full-memory-ratio", "reasoning-parser", "tool-call-parser"):
        assert unset not in bad.flags
    for shared in ("speculative-algorithm", "speculative-eagle-topk", "tp-size", "host", "port",
                   "mamba-scheduler-strategy"):
        assert bad.flags[shared] == MISSION_RESTORED[shared]
    assert bad.env == {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert bad.model_path == host.profiles["restored"].model_path


@pytest.mark.parametrize("name", ["ct129.toml", "demo.toml"])
def test_round_trip_is_exact(name: str, tmp_path: Path) -> None:
    host = load_host_file(CONFIGS / name)
    out = tmp_path / name
    save_host(host, out)
    again = load_host_file(out)
    assert again == host
    assert dump_host(again) == dump_host(host)
    # what tomli-w wrote is plain TOML with the same data as the original file
    original = tomllib.loads((CONFIGS / name).read_text())
    assert tomllib.loads(out.read_text()) == original


def test_save_keeps_a_backup_of_the_previous_file(tmp_path: Path) -> None:
    host = load_host_file(CONFIGS / "ct129.toml")
    out = tmp_path / "h.toml"
    save_host(host, out)
    first = out.read_text()
    host.profiles["restored"].note = "changed"
    save_host(host, out)
    assert (tmp_path / "h.toml.bak").read_text() == first
    assert load_host_file(out).profiles["restored"].note == "changed"


def test_types_survive_the_round_trip(tmp_path: Path) -> None:
    host = HostConfig(
        name="x", api_url="http://127.0.0.1:1", server=ProcessServer(log_file="/tmp/l"),
        log={"kind": "file", "path": "/tmp/l"},
        profiles={"p": {"model_path": "/m", "flags": {"enable-metrics": True, "mem-fraction-static": 0.9,
                                                      "cuda-graph-bs": ["1", "2"], "port": 1}}},
    )
    save_host(host, tmp_path / "x.toml")
    flags = load_host_file(tmp_path / "x.toml").profiles["p"].flags
    assert flags == {"enable-metrics": True, "mem-fraction-static": 0.9, "cuda-graph-bs": ["1", "2"], "port": 1}
    assert type(flags["port"]) is int and type(flags["enable-metrics"]) is bool


BASE = '''name = "h"
api_url = "http://127.0.0.1:30000"
[server]
manager = "process"
log_file = "/tmp/x.log"
[log]
kind = "file"
path = "/tmp/x.log"
'''


def test_malformed_toml_names_file_and_line() -> None:
    with pytest.raises(ConfigError) as err:
        parse_host(BASE + "[profiles.a\nmodel_path = 1\n", "bad.toml")
    assert "bad.toml" in str(err.value) and "line 9" in str(err.value)
    assert err.value.exit_code == 2


def test_unknown_field_names_field_and_line() -> None:
    with pytest.raises(ConfigError) as err:
        parse_host(BASE + "[profiles.a]\nmodel_path = \"/m\"\nmodle = 3\n", "bad.toml")
    assert str(err.value) == "bad.toml:11: field 'profiles.a.modle': unknown field"


def test_wrong_type_names_field_and_line() -> None:
    text = BASE.replace('[log]', '[ssh]\ntarget = "h"\nport = "twenty-two"\n[log]')
    with pytest.raises(ConfigError) as err:
        parse_host(text, "bad.toml")
    assert str(err.value).startswith("bad.toml:8: field 'ssh.port':")


def test_the_health_window_is_a_bounded_number_of_seconds() -> None:
    assert parse_host("health_lasts_s = 12\n" + BASE, "h.toml").health_lasts_s == 12.0
    assert parse_host(BASE, "h.toml").health_lasts_s == 30.0
    with pytest.raises(ConfigError) as err:
        parse_host("health_lasts_s = 0.5\n" + BASE, "bad.toml")
    assert str(err.value).startswith("bad.toml:1: field 'health_lasts_s':") and "\n" not in str(err.value)


def test_known_good_must_name_a_profile() -> None:
    with pytest.raises(ConfigError, match="known_good names profile 'nope'"):
        parse_host('known_good = "nope"\n' + BASE, "bad.toml")


def test_unknown_host_is_one_sentence() -> None:
    with pytest.raises(ConfigError, match="unknown host 'nosuch'") as err:
        find_host("nosuch")
    assert err.value.exit_code == 2


def test_lookup_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_dirs: Path) -> None:
    def write(path: Path, description: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'description = "{description}"\n' + BASE.replace('name = "h"', 'name = "ct129"'))

    assert find_host("ct129")[0] == CONFIGS / "ct129.toml"  # repo checkout is last
    write(isolated_dirs / "xdg_config_home" / "mtptui" / "hosts" / "ct129.toml", "xdg")
    assert find_host("ct129")[1].description == "xdg"
    write(tmp_path / "env" / "ct129.toml", "env")
    monkeypatch.setenv("MTPTUI_CONFIG", str(tmp_path / "env"))
    assert find_host("ct129")[1].description == "env"
    write(tmp_path / "cli.toml", "cli")
    assert find_host("ct129", str(tmp_path / "cli.toml"))[1].description == "cli"


def test_list_hosts_reports_broken_files_without_failing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text("this is = = not toml")
    monkeypatch.setenv("MTPTUI_CONFIG", str(tmp_path))
    hosts, errors = list_hosts()
    assert {h.name for _, h in hosts} >= {"ct129", "demo"}
    assert len(errors) == 1 and "broken.toml" in str(errors[0])


def test_missing_field_in_server_table_is_named_without_union_noise() -> None:
    text = BASE.replace('manager = "process"\nlog_file = "/tmp/x.log"', 'manager = "systemd"')
    with pytest.raises(ConfigError) as err:
        parse_host(text, "bad.toml")
    assert str(err.value) == "bad.toml:3: field 'server.unit': required field is missing"
