"""Hostile names in a host file: an env or flag name is refused at load, and `env` never takes one as an option.

A profile env name starting with `-` (``--split-string=...``, ``-S...``) was taken by ``env(1)`` as an option
when the process manager relaunched the server, and ran a command on the host. The loader refuses such names
with one sentence, and every ``env`` mtptui runs on a host ends its options with ``--``, so even a name that
bypasses the loader (a previous process's environment, a caller building the command) is an assignment.
"""

from __future__ import annotations

import pytest

from mtptui.config.loader import parse_host
from mtptui.errors import ConfigError
from mtptui.remote.process import STOP_GROUP, ProcessManager

BASE = """name = "evil"
api_url = "http://127.0.0.1:30000"
[server]
manager = "process"
log_file = "/tmp/x.log"
[log]
kind = "file"
path = "/tmp/x.log"
[profiles.p]
model_path = "/m"
"""

# Names that env(1) would take as an option (each one ran `touch` on the host before the fix).
OPTION_NAMES = ["--split-string=sh -c 'touch {marker}' #", "-Ssh -c 'touch {marker}' #",
                "-S sh -c \"touch {marker}\" #", "-vS sh -c 'touch {marker}' #", "--split-str=sh -c 'touch {marker}' #"]
BAD_ENV_NAMES = [name.format(marker="/tmp/x") for name in OPTION_NAMES] + [
    "-i", "--chdir=/", "1ABC", "A B", "A;B", "A-B", "", "\u202eHF_TOKEN", "A\nB", "NAME$(id)"]
BAD_FLAG_NAMES = ["--port", "-p", "Port", "port number", "port;id", "port\nid", "port_x", "", "-", "p\u202e"]


def host_text(section: str, key: str) -> str:
    import json

    return BASE + f"[profiles.p.{section}]\n{json.dumps(key)} = \"1\"\n"


@pytest.mark.parametrize("name", BAD_ENV_NAMES)
def test_an_env_name_that_is_not_a_variable_name_is_refused_at_load(name: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host(host_text("env", name), "/hosts/evil.toml")
    message = str(error.value)
    assert message.startswith("/hosts/evil.toml:12: profile 'p': env name ")
    assert repr(name) in message and "\n" not in message


@pytest.mark.parametrize("name", BAD_FLAG_NAMES)
def test_a_flag_name_that_is_not_an_sglang_long_name_is_refused_at_load(name: str) -> None:
    with pytest.raises(ConfigError) as error:
        parse_host(host_text("flags", name), "/hosts/evil.toml")
    message = str(error.value)
    assert message.startswith("/hosts/evil.toml:12: profile 'p': flag name ") and repr(name) in message


def test_good_names_still_load() -> None:
    text = BASE + '[profiles.p.env]\nHF_HOME = "/h"\n_X1 = "y"\n[profiles.p.flags]\nport = 1\ntp-size = 2\n'
    profile = parse_host(text).profile("p")
    assert profile.env == {"HF_HOME": "/h", "_X1": "y"} and profile.flags == {"port": 1, "tp-size": 2}


def test_every_env_mtptui_runs_on_a_host_ends_its_options() -> None:
    from mtptui.config.models import ProcessServer

    manager = ProcessManager(None, ProcessServer(log_file="/srv/log"))  # building a command needs no transport
    words = list(manager.launch_command(["python3", "-m", "sglang.launch_server"], {"-S": "x"}).words)
    assert words[words.index("env") + 1] == "--"
    empty = list(manager.launch_command(["-python3"], {}).words)
    assert empty[empty.index("env") + 1:empty.index("env") + 3] == ["--", "-python3"]
    assert STOP_GROUP.count("env -- kill") == 2 and STOP_GROUP.count("env ") == 2


@pytest.mark.parametrize("name", ["-S touch /tmp/x #", "1ABC", "ÄB", "A\u202eB"])
def test_the_flags_form_calls_such_an_env_name_an_error(name: str) -> None:
    from mtptui.ops.flag_form import FormValues, env_findings

    findings = env_findings(FormValues(env=[(name, "1"), ("GOOD", "2")]))
    assert [(f.severity, f.message) for f in findings] == [("error", f"{name!r} is not an environment variable name.")]
