"""A JSON-object flag written as a TOML table in a profile (`speculative-config = { method = "mtp", ... }`) is the
same launch as its JSON text: read by the real TOML loader, rendered as one JSON word, shown as JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mtptui.config import load_host_file
from mtptui.engines.vllm.flags.launchset import from_profile
from mtptui.engines.vllm.flags.render import launch_words
from mtptui.engines.sglang.flags.flagset import profile_argv

HOST = """name = "t"
engine = "vllm"
api_url = "http://127.0.0.1:8000"
[server]
manager = "systemd"
unit = "vllm.service"
[log]
kind = "journal"
[profiles.table]
model_path = "/m"
[profiles.table.flags]
speculative-config = { method = "mtp", num_speculative_tokens = 3 }
[profiles.text]
model_path = "/m"
[profiles.text.flags]
speculative-config = '{"method": "mtp", "num_speculative_tokens": 3}'
"""


def test_a_table_and_its_json_text_are_one_launch(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(HOST)
    host = load_host_file(path)
    table, text = from_profile(host.profile("table")), from_profile(host.profile("text"))
    assert table.flags == text.flags == {"--speculative-config": {"method": "mtp", "num_speculative_tokens": 3}}
    words = launch_words(host.profile("table"))
    assert json.loads(words[words.index("--speculative-config") + 1]) == {"method": "mtp", "num_speculative_tokens": 3}
    shown = subprocess.run([sys.executable, "-m", "mtptui", "profiles", "show", "t", "--config", str(path)],
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert '  flag:   --speculative-config {"method": "mtp", "num_speculative_tokens": 3}' in shown.stdout
    assert "vLLM 0.32.0" in shown.stdout and "SGLang" not in shown.stdout


def test_sglang_takes_a_table_as_the_json_its_json_flags_read(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(HOST.replace('engine = "vllm"\n', "").replace("speculative-config", "json-model-override-args"))
    argv = profile_argv(load_host_file(path).profile("table"))
    assert argv[argv.index("--json-model-override-args") + 1] == '{"method": "mtp", "num_speculative_tokens": 3}'
