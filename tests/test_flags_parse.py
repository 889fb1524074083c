"""Parsing launch commands the way a shell and SGLang's argparse read them, and rendering them back."""

from __future__ import annotations

import pytest

from mtptui.errors import UserError
from mtptui.engines.sglang.flags import FlagError, FlagSet, parse_argv, parse_command, parse_words, render_argv, \
    render_command

MODEL = "/data/models/Qwen3.6-27B"


def test_whole_command_with_env_wrappers_quotes_continuations_and_redirections() -> None:
    text = (
        "SGLANG_ENABLE_SPEC_V2=1 CUDA_VISIBLE_DEVICES=0,1 nohup /opt/venv/bin/python3 -m sglang.launch_server \\\n"
        f"  --model {MODEL} --tp 2 --speculative-algo NEXTN \\\n"
        "  --served-model-name 'qwen 3.6' --context-length=32k --enable-metrics \\\n"
        "  --cuda-graph-bs 1 2 4 > /var/log/sglang.log 2>&1 &\n"
    )
    fs = parse_command(text)
    assert fs.model_path == MODEL
    assert fs.entry == "/opt/venv/bin/python3 -m sglang.launch_server"
    assert fs.env == {"SGLANG_ENABLE_SPEC_V2": "1", "CUDA_VISIBLE_DEVICES": "0,1"}
    assert fs.flags == {"--tensor-parallel-size": 2, "--speculative-algorithm": "NEXTN",
                        "--served-model-name": "qwen 3.6", "--context-length": 32000, "--enable-metrics": True,
                        "--cuda-graph-bs": [1, 2, 4]}


@pytest.mark.parametrize("prefix, entry", [
    ("python -m sglang.launch_server", "python -m sglang.launch_server"),
    ("python3 -u -m sglang.launch_server", "python3 -u -m sglang.launch_server"),
    ("env A=1 'B=x y' /usr/bin/python3.11 -m sglang.launch_server", "/usr/bin/python3.11 -m sglang.launch_server"),
    ("sglang serve", "sglang serve"),
    ("exec /opt/venv/bin/sglang serve", "/opt/venv/bin/sglang serve"),
])
def test_entry_points(prefix: str, entry: str) -> None:
    fs = parse_command(f"{prefix} --model-path {MODEL} --port 30001")
    assert (fs.entry, fs.model_path, fs.flags) == (entry, MODEL, {"--port": 30001})


def test_env_wrapper_assignments_are_env() -> None:
    fs = parse_command(f"env A=1 'B=x y' python3 -m sglang.launch_server --model-path {MODEL}")
    assert fs.env == {"A": "1", "B": "x y"}


def test_quoted_assignment_is_not_an_assignment_for_the_shell() -> None:
    assert parse_command(f"'A=1' B=2 python3 -m sglang.launch_server --model-path {MODEL}").env == {"B": "2"}
    with pytest.raises(FlagError, match="no SGLang launch command found"):
        parse_command("A=1 ls -l")


def test_first_launch_in_a_script_is_read() -> None:
    script = f"#!/bin/sh\ncd /data  # workdir\nexport X=1\nexec python3 -m sglang.launch_server --model-path {MODEL}\n"
    assert parse_command(script).model_path == MODEL


def test_semicolon_inside_quotes_is_a_value() -> None:
    fs = parse_command(f"python -m sglang.launch_server --model-path {MODEL} --served-model-name 'a;b' ; echo done")
    assert fs.flags == {"--served-model-name": "a;b"}


@pytest.mark.parametrize("argv, message", [
    (["--port", "x"], "sglang serve: error: argument --port: invalid int value: 'x'"),
    (["--kv-cache-dtype", "fp9"], "sglang serve: error: argument --kv-cache-dtype: invalid choice: 'fp9'"),
    (["--bogus", "1"], "sglang serve: error: unrecognized arguments: --bogus 1"),
    (["--port"], "sglang serve: error: argument --port: expected one argument"),
])
def test_argparse_messages(argv: list[str], message: str) -> None:
    with pytest.raises(FlagError) as caught:
        parse_argv(["--model-path", MODEL, *argv])
    assert str(caught.value).startswith(message)
    assert isinstance(caught.value, UserError)


def test_missing_model_path_is_argparses_required_message() -> None:
    with pytest.raises(FlagError, match=r"^sglang serve: error: the following arguments are required: --model-path"):
        parse_argv(["--port", "1"])
    assert parse_argv(["--port", "1"], require_model=False).model_path is None


def test_prefixes_and_ambiguity_follow_the_version() -> None:
    assert parse_argv(["--model", MODEL, "--tp", "2"], "0.5.23").flags == {"--tp-size": 2}
    assert parse_argv(["--model", MODEL, "--cuda-graph-max-bs", "8"]).flags == {"--cuda-graph-max-bs": 8}
    with pytest.raises(FlagError) as caught:
        parse_argv(["--model", MODEL, "--cuda-graph-max-bs", "8"], "0.5.23")
    assert str(caught.value) == ("sglang serve: error: ambiguous option: --cuda-graph-max-bs could match "
                                 "--cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill")
    with pytest.raises(FlagError, match="unrecognized arguments: --mamba-scheduler-strategy extra_buffer"):
        parse_argv(["--model", MODEL, "--mamba-scheduler-strategy", "extra_buffer"], "0.5.23")


@pytest.mark.parametrize("text, value", [("131072", 131072), ("32k", 32000), ("1Mi", 2**20), ("25.6k", 25600),
                                         ("4Ki", 4096)])
def test_context_length_is_human_readable(text: str, value: int) -> None:
    assert parse_argv(["--model", MODEL, "--context-length", text]).flags["--context-length"] == value


def test_context_length_is_a_plain_int_before_0_5_12() -> None:
    with pytest.raises(FlagError, match="invalid int value: '32k'"):
        parse_argv(["--model", MODEL, "--context-length", "32k"], "0.5.2")


def test_boolean_optional_and_negative_values() -> None:
    fs = parse_argv(["--model", MODEL, "--no-lora-strict-loading", "--chunked-prefill-size", "-1"])
    assert fs.flags == {"--lora-strict-loading": False, "--chunked-prefill-size": -1}
    assert render_argv(fs) == ["--model-path", MODEL, "--chunked-prefill-size=-1", "--no-lora-strict-loading"]


def test_equivalent_commands_render_the_same() -> None:
    one = parse_command(f"python3 -m sglang.launch_server --model {MODEL} --tp 2 --speculative-algo NEXTN --port=30000")
    two = parse_command(f"python3 -m sglang.launch_server --port 30000 --speculative-algorithm NEXTN "
                        f"--tensor-parallel-size 2 --model-path {MODEL}")
    assert one == two and render_command(one) == render_command(two)


def test_render_is_shell_safe_and_multiline_reads_back() -> None:
    fs = FlagSet(model_path="/m/a b", flags={"--served-model-name": "x; rm -rf / `id` $HOME"},
                 env={"E": "it's"})
    text = render_command(fs)
    assert text == ("E='it'\"'\"'s' python3 -m sglang.launch_server --model-path '/m/a b' "
                    "--served-model-name 'x; rm -rf / `id` $HOME'")
    assert parse_command(render_command(fs, multiline=True)) == fs


def test_profile_round_trip() -> None:
    from mtptui.config.models import LaunchProfile

    profile = LaunchProfile(model_path=MODEL, flags={"tp": 2, "enable-metrics": True, "disable-radix-cache": False,
                                                     "cuda-graph-bs": ["1", "2"]}, env={"A": "1"}, python="python3.11")
    fs = FlagSet.from_profile(profile)
    assert fs.flags == {"--tensor-parallel-size": 2, "--enable-metrics": True, "--cuda-graph-bs": [1, 2]}
    assert fs.entry == "python3.11 -m sglang.launch_server"
    fields = fs.to_profile_fields()
    assert fields == {"model_path": MODEL, "flags": {"tensor-parallel-size": 2, "enable-metrics": True,
                                                     "cuda-graph-bs": ["1", "2"]}, "env": {"A": "1"},
                      "python": "python3.11"}
    assert FlagSet.from_profile(LaunchProfile(**fields)) == fs


def test_already_split_words_and_bare_arguments() -> None:
    words = ["/usr/bin/env", "A=1", "python3", "-m", "sglang.launch_server", "--model-path", MODEL]
    assert parse_words(words).env == {"A": "1"}
    assert parse_command(f"--model-path {MODEL} --port 1").flags == {"--port": 1}


def test_unterminated_quote_is_one_sentence() -> None:
    with pytest.raises(FlagError, match="cannot read the command line: unterminated single quote"):
        parse_command("python -m sglang.launch_server --model-path 'x")
