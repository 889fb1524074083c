"""Secrets are masked wherever mtptui shows or stores them; its files are private and keep their mode and comments.

`mtptui diff` printed HF_TOKEN and --api-key values (text and --json), a server's --api-key reached the bench
history and --json (0644), and saving a 0600 host file made it and its .bak 0644 and dropped its comments.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.config import load_host_file, save_host
from mtptui.config.loader import parse_host
from tests.conftest import CONFIGS

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "hf_Zq8xK3vR7mT2pL9wN4bY6cJ1dF5gH0sA"
API_KEY = "sk-live-4f9a2c7e1b8d3f6a0e5c9b2d7f1a4e8c"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def mtptui(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *argv], capture_output=True, text=True,
                          timeout=60, cwd=cwd)


def test_the_names_that_look_secret() -> None:
    from mtptui.secrets import is_secret_name

    secret = ["HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
              "MY_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS", "APIKEY", "hf_token", "api_key", "--api-key",
              "--admin-api-key", "--hf-token", "--ssl-keyfile-password"]
    plain = ["TOKENIZERS_PARALLELISM", "HF_HOME", "SGLANG_ENABLE_SPEC_V2", "CUDA_VISIBLE_DEVICES", "PWD",
             "--max-total-tokens", "--tokenizer-path", "--speculative-num-draft-tokens", "--ssl-keyfile",
             "--bucket-time-to-first-token", "tokenizer_path", "max_prefill_tokens"]
    assert [n for n in secret if not is_secret_name(n)] == [] and [n for n in plain if is_secret_name(n)] == []


def test_sglangs_own_secret_flags_are_exactly_the_keys_and_the_password() -> None:
    from mtptui.secrets import is_secret_name

    names = set(re.findall(r'"(--[a-z0-9-]+)"', (ROOT / "mtptui/engines/sglang/flags/data/flags.json").read_text()))
    assert {n for n in names if is_secret_name(n)} == {"--api-key", "--admin-api-key", "--ssl-keyfile-password"}


def test_masked_values_say_set_and_length_and_stay_different_when_they_differ() -> None:
    from mtptui.secrets import display_value, display_values

    masked = f"••••(set, {len(TOKEN)} chars)"
    assert display_value("HF_TOKEN", TOKEN) == masked and display_value("HF_HOME", "/h") == "/h"
    shown = display_values("HF_TOKEN", [TOKEN, TOKEN[::-1], None, TOKEN])
    assert shown == (f"{masked} #1", f"{masked} #2", None, f"{masked} #1")


def test_mtptui_diff_masks_secret_env_and_flags_and_still_says_they_differ(tmp_path: Path) -> None:
    left, right = tmp_path / "a.sh", tmp_path / "b.sh"
    left.write_text(f"HF_TOKEN={TOKEN} python3 -m sglang.launch_server --model-path /m --api-key {API_KEY}\n")
    right.write_text(f"HF_TOKEN={TOKEN[::-1]} python3 -m sglang.launch_server --model-path /m --api-key x{API_KEY}\n")
    text = mtptui("diff", "--left", str(left), "--right", str(right))
    data = json.loads(mtptui("diff", "--left", str(left), "--right", str(right), "--json").stdout)
    for output in (text.stdout, json.dumps(data)):
        assert TOKEN not in output and TOKEN[::-1] not in output and API_KEY not in output
    assert "--api-key" in text.stdout and "HF_TOKEN" in text.stdout
    assert [row["flag"] for row in data["rows"]] == ["--api-key"] and [e["var"] for e in data["env"]] == ["HF_TOKEN"]
    assert len(set(data["rows"][0]["values"])) == 2 and len(set(data["env"][0]["values"])) == 2


def test_profiles_show_masks_a_secret_in_a_profile(tmp_path: Path) -> None:
    text = (CONFIGS / "demo.toml").read_text().replace('SGLANG_ENABLE_SPEC_V2 = "1"\n',
                                                      f'SGLANG_ENABLE_SPEC_V2 = "1"\nHF_TOKEN = "{TOKEN}"\n', 1)
    (tmp_path / "demo.toml").write_text(text)
    result = mtptui("profiles", "show", "demo", "--config", str(tmp_path / "demo.toml"))
    assert result.returncode == 0
    assert f"HF_TOKEN=••••(set, {len(TOKEN)} chars)" in result.stdout and TOKEN not in result.stdout
    data = json.loads(mtptui("profiles", "show", "demo", "--config", str(tmp_path / "demo.toml"), "--json").stdout)
    assert data["profiles"]["restored"]["env"]["HF_TOKEN"].startswith("••••") and TOKEN not in json.dumps(data)


COMMENTED = """# my GPU box: keep this file 0600, it is mine
name = "box"  # short name
api_url = "http://127.0.0.1:30000"
known_good = "a"  # the one that works

[server]
manager = "process"
log_file = "/srv/log"

[log]
kind = "file"
path = "/srv/log"

# profile a: the tuned one
[profiles.a]
model_path = "/m"  # the model
note = "tuned"

[profiles.a.flags]
port = 30000
# comment inside a's flags

[profiles.a.env]
SGLANG_ENABLE_SPEC_V2 = "1"

# profile b: leave it alone
[profiles.b]
model_path = "/m"  # b's model

[profiles.b.flags]
port = 30001  # b's port
"""


@pytest.mark.parametrize("old_mode", [0o600, 0o640])
def test_saving_a_profile_keeps_the_files_mode_its_comments_and_a_complete_backup(
        tmp_path: Path, old_mode: int) -> None:
    from mtptui.ops.profile_save import save_profile

    path = tmp_path / "box.toml"
    path.write_text(COMMENTED)
    path.chmod(old_mode)
    host = load_host_file(path)
    changed = host.profiles["a"].model_copy(update={"flags": {"port": 30002}})
    save_profile(host, "a", changed, path)
    save_profile(load_host_file(path), "c", host.profiles["b"], path, known_good=True)
    assert mode(path) == old_mode and mode(path.with_name("box.toml.bak")) == old_mode
    text = path.read_text()
    for comment in ("# my GPU box", "# short name", "# the one that works", "# profile a: the tuned one",
                    "# profile b: leave it alone", "# b's model", "# b's port"):
        assert comment in text
    saved = parse_host(text)
    assert saved.known_good == "c" and saved.profiles["a"].flags == {"port": 30002}
    assert saved.profiles["c"] == host.profiles["b"] and saved.profiles["b"] == host.profiles["b"]
    assert parse_host(path.with_name("box.toml.bak").read_text()).profiles["a"].flags == {"port": 30002}


def test_a_new_host_file_is_private_and_round_trips(tmp_path: Path) -> None:
    host = load_host_file(CONFIGS / "ct129.toml")
    save_host(host, tmp_path / "new.toml")
    assert mode(tmp_path / "new.toml") == 0o600 and load_host_file(tmp_path / "new.toml") == host


def test_the_bench_history_is_private_and_the_fingerprint_masks_the_api_key(isolated_dirs: Path) -> None:
    from mtptui.bench import history
    from mtptui.bench.fingerprint import make_fingerprint
    from mtptui.bench.load import LoadPlan
    from mtptui.bench.payload import Sampling
    from mtptui.bench.prompts import load_prompt_set
    from mtptui.bench.server import ServerInfo

    server = ServerInfo(version="0.5.12", model="m", launch_flags={"tp_size": 2, "api_key": API_KEY},
                        launch_command=f"python3 -m sglang.launch_server --model-path /m --api-key {API_KEY}")
    fingerprint = make_fingerprint(target="t", url="http://x", server=server, sampling=Sampling(),
                                   prompts=load_prompt_set("rbtree"), plan=LoadPlan(requests=1), max_tokens=8)
    path = history.history_path()
    path.parent.mkdir(parents=True, mode=0o755)
    history.append_run({"fingerprint": fingerprint, "summary": {}, "requests": []})
    assert API_KEY not in path.read_text() and "--api-key" in path.read_text()
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


def test_bench_json_is_written_private(tmp_path: Path) -> None:
    from mtptui.cli.commands.bench import _write_json

    out = tmp_path / "run.json"
    out.write_text("{}")
    out.chmod(0o644)
    _write_json(str(out), {"fingerprint": {}})
    assert mode(out) == 0o600 and json.loads(out.read_text()) == {"fingerprint": {}}
    os.remove(out)
    _write_json(str(out), {})
    assert mode(out) == 0o600
