"""The one home of how a command line starts an engine (mtptui.engines.entry): both engines' launches are
found, split and rendered by the same rules, so a rule fixed for one holds for the other."""

from __future__ import annotations

import pytest

from mtptui.config.models import LaunchProfile
from mtptui.engines.entry import entry_python, is_python, module_entry, shell_script
from mtptui.engines.vllm.flags.command import API_SERVER, split_command
from mtptui.engines.vllm.flags.launchset import from_profile as vllm_profile
from mtptui.engines.vllm.flags.render import launch_words
from mtptui.engines.sglang.flags.command import find_entry, parse_words
from mtptui.engines.sglang.flags.flagset import FlagSet

SGLANG_REST = ["--model-path", "/m"]
VLLM_REST = ["/m", "--max-num-seqs", "4"]


@pytest.mark.parametrize("word, expected", [("python", True), ("python3", True), ("/opt/v/bin/python3.11", True),
                                            ("python3.11.2", True), ("pythonista", False), ("ipython", False)])
def test_an_interpreter_is_named_the_same_way_for_both_engines(word: str, expected: bool) -> None:
    assert is_python(word) is expected


@pytest.mark.parametrize("entry", [["python3", "-m", "sglang.launch_server"], ["/opt/v/bin/python", "-X", "utf8",
                                   "-m", "sglang.launch_server"], ["sglang", "serve"],
                                   ["/opt/v/bin/python3", "/opt/v/bin/sglang", "serve"]])
def test_sglangs_entry_with_env_and_a_wrapper_in_front(entry: list[str]) -> None:
    words = ["env", "A=1", "nohup", *entry, *SGLANG_REST]
    assert find_entry(words) == (3, 3 + len(entry))
    flagset = parse_words(words, require_model=False)
    assert (flagset.entry_argv, flagset.env, flagset.model_path) == (entry, {"A": "1"}, "/m")


@pytest.mark.parametrize("entry, serve", [(["/opt/v/bin/python", "-m", API_SERVER], False),
                                          (["python3", "-m", "vllm.entrypoints.cli.main", "serve"], True),
                                          (["/opt/v/bin/vllm", "serve"], True),
                                          (["/opt/v/bin/python3", "/opt/v/bin/vllm", "serve"], True)])
def test_vllms_entry_with_env_and_a_wrapper_in_front(entry: list[str], serve: bool) -> None:
    rest = VLLM_REST if serve else ["--model", *VLLM_REST]
    launch = split_command(["env", "VLLM_X=1", "nohup", *entry, *rest])
    assert launch is not None
    assert (launch.entry, launch.env, launch.args, launch.serve) == (entry, {"VLLM_X": "1"}, rest, serve)


def test_a_module_without_an_interpreter_before_it_starts_nothing() -> None:
    assert find_entry(["-m", "sglang.launch_server", *SGLANG_REST]) is None
    assert split_command(["-m", API_SERVER, "--model", "/m"]) is None
    assert split_command(["python3", "-m", "vllm.entrypoints.cli.main", "chat"]) is None


def test_a_profile_renders_its_interpreter_running_the_module_for_both_engines() -> None:
    profile = LaunchProfile(model_path="/m", python="/opt/my env/bin/python", flags={"max-num-seqs": 4})
    assert vllm_profile(profile).entry == module_entry(profile.python, API_SERVER) == \
        f"'/opt/my env/bin/python' -m {API_SERVER}"
    assert launch_words(profile)[:3] == ["/opt/my env/bin/python", "-m", API_SERVER]
    sglang = FlagSet.from_profile(LaunchProfile(model_path="/m", python="/opt/my env/bin/python"))
    assert sglang.entry == "'/opt/my env/bin/python' -m sglang.launch_server"
    assert sglang.python == vllm_profile(profile).python == "/opt/my env/bin/python"
    assert entry_python(["vllm", "serve"]) is None


def test_a_shell_wrapper_is_read_as_its_script() -> None:
    assert shell_script(["/bin/bash", "-lc", "x"]) is None
    assert shell_script(["/bin/bash", "-l", "-c", "exec vllm serve /m"]) == "exec vllm serve /m"
    assert shell_script(["zsh", "-c"]) is None
