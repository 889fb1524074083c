"""vLLM launches as diff and restart read them (mtptui.engines.vllm.flags.launchset, the registry's Launches).

The command lines are vLLM's own forms (`vllm serve MODEL`, the API-server module with `--model`, underscores,
`-sc`, dotted options, `128K`: 131072, as vLLM reads a capital K); what they set is read by argparse on the flag
table generated from vLLM 0.32.0, so the same launch written three ways reads the same. Nothing here needs a host.
"""

from __future__ import annotations

import json

import pytest

from mtptui.config import LaunchProfile
from mtptui.engines.registry import launches
from mtptui.errors import UserError
from mtptui.engines.sglang.unit import read_unit

VLLM = launches("vllm")
SPEC = '{"method": "ngram", "num_speculative_tokens": 3}'
SKELETON = ("[Unit]\nDescription=vLLM\n\n[Service]\nType=simple\nExecStart=/bin/true\n\n[Install]\n"
            "WantedBy=multi-user.target\n")


def read(words: list[str]):
    return VLLM.argv(words, "0.32.0")


def test_the_three_spellings_of_one_launch_set_the_same_options() -> None:
    serve = read(["/opt/v/bin/vllm", "serve", "/models/q", "--max-model-len", "131072", "--speculative-config", SPEC,
                  "--served-model-name", "q"])
    module = read(["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/models/q", "--max_model_len",
                   "128K", "-sc", SPEC, "--served-model-name", "q"])
    dotted = read(["VLLM_USE_V1=1", "vllm", "serve", "/models/q", "--max-model-len=131072",
                   "--speculative-config.method", "ngram", "--speculative-config.num_speculative_tokens", "3",
                   "--served-model-name", "q"])
    assert serve.model_path == module.model_path == dotted.model_path == "/models/q"
    assert serve.flags == module.flags == dotted.flags
    assert serve.flags["--speculative-config"] == {"method": "ngram", "num_speculative_tokens": 3}
    assert serve.flags["--max-model-len"] == 131072 and dotted.env == {"VLLM_USE_V1": "1"}
    diff = VLLM.diff([("a", serve), ("b", module), ("c", dotted)], False)
    assert diff.rows == () and [(row.var, row.values) for row in diff.env] == [("VLLM_USE_V1", (None, None, "1"))]


def test_a_diff_names_options_canonically_and_says_what_vllm_reads() -> None:
    running = read(["vllm", "serve", "/models/q", "--speculative-config", '{"method": "qwen3_5_mtp", '
                    '"num_speculative_tokens": 1}', "--max-num-seqs", "1"])
    profile = VLLM.profile(LaunchProfile(model_path="/models/q", flags={
        "speculative-config": '{"method": "mtp", "num_speculative_tokens": 3}', "max-num-seqs": 16,
        "gpu-memory-utilization": 0.92}), "0.32.0")
    data = VLLM.diff([("running:pid 1", running), ("profile:restored", profile)], False).to_json()
    rows = {row["flag"]: row for row in data["rows"]}
    assert list(rows) == ["--speculative-config", "--gpu-memory-utilization", "--max-num-seqs"]  # speculation first
    spec = [json.loads(value) for value in rows["--speculative-config"]["resolved"]]
    assert spec == [{"method": "mtp", "num_speculative_tokens": 1}, {"method": "mtp", "num_speculative_tokens": 3}]
    assert rows["--gpu-memory-utilization"]["resolved"] == ["unset (default 0.92)", "0.92"]
    assert rows["--max-num-seqs"]["values"] == ["1", "16"]


@pytest.mark.parametrize("words, said", [
    (["vllm", "serve", "/m", "--speculative-config", "{method: ngram"], "--speculative-config"),
    (["vllm", "serve", "/m", "--speculative-config", '{"method": "lookahead", "num_speculative_tokens": 2}'],
     "method: Input should be"),
    (["vllm", "serve", "/m", "--no-such-option", "1"], "unrecognized arguments: --no-such-option"),
    (["python3", "-m", "sglang.launch_server", "--model-path", "/m"], "does not start vLLM"),
])
def test_a_launch_vllm_would_refuse_is_one_sentence(words: list[str], said: str) -> None:
    with pytest.raises(UserError) as refused:
        read(words)
    text = str(refused.value)
    assert said in text and "\n" not in text and "Traceback" not in text


def test_a_launch_written_into_a_unit_reads_back_as_itself() -> None:
    profile = LaunchProfile(model_path="/models/q", python="/opt/v/bin/python", env={"VLLM_LOGGING_LEVEL": "INFO"},
                            flags={"speculative-config": SPEC, "served-model-name": ["q", "qwen"], "port": 8000})
    launch = VLLM.profile(profile, "0.32.0")
    text = VLLM.write_unit(read_unit(SKELETON, "vllm.service"), launch)
    unit = read_unit(text, "vllm.service")
    back = VLLM.unit(unit, "0.32.0")
    assert unit.exec_argv == VLLM.words(launch) and back.flags == launch.flags and back.env == launch.env
    assert "Description=vLLM" in text and "WantedBy=multi-user.target" in text


def test_another_entry_moves_the_model_where_vllm_serve_wants_it() -> None:
    launch = VLLM.profile(LaunchProfile(model_path="/models/q", flags={"port": 8000}), "0.32.0")
    served = VLLM.with_entry(launch, VLLM.entry(["/opt/v/bin/vllm", "serve", "/old", "--port", "1"]) or "")
    assert VLLM.words(served) == ["/opt/v/bin/vllm", "serve", "/models/q", "--port", "8000"]
    assert read(VLLM.words(served)).flags == launch.flags


def test_the_unit_a_plan_shows_masks_the_api_key() -> None:
    from mtptui.secrets import mask_flagset

    launch = VLLM.profile(LaunchProfile(model_path="/models/q", flags={"api-key": "s3cret-value", "port": 8000}),
                          "0.32.0")
    shown = VLLM.write_unit(read_unit(SKELETON, "vllm.service"), mask_flagset(launch))
    written = VLLM.write_unit(read_unit(SKELETON, "vllm.service"), launch)
    assert "s3cret-value" not in shown and "--api-key" in shown and "s3cret-value" in written


def test_a_running_servers_non_default_args_are_what_it_resolved() -> None:
    running = read(["vllm", "serve", "/models/q", "--speculative-config", '{"method": "qwen3_5_mtp", '
                    '"num_speculative_tokens": 2}', "--max-num-seqs", "256"])
    line = ("(APIServer pid=7) INFO 12-02 08:19:25 [api_utils.py:286] non-default args: {'model_tag': '/models/q', "
            "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 2}, 'max_model_len': 32768}")
    said = VLLM.resolved.apply(running, line)
    assert said.said == {"--speculative-config": {"method": "mtp", "num_speculative_tokens": 2},
                         "--max-model-len": 32768, "--model": "/models/q"}
    profile = VLLM.profile(LaunchProfile(model_path="/models/q", flags={"max-num-seqs": 256}), "0.32.0")
    rows = {row["flag"]: row for row in VLLM.diff([("running", said), ("profile", profile)], False).to_json()["rows"]}
    assert rows["--max-model-len"] == {"flag": "--max-model-len", "values": [None, None],
                                       "resolved": ["32768", "unset"]}  # the server's own word, written nowhere
    assert "--max-num-seqs" not in rows  # written 256 on both; the server leaves out what it kept as written
    assert VLLM.resolved.apply(running, "non-default args: not a dict") == running


def test_the_speculation_pane_reads_a_running_vllm_launch_as_vllm_does() -> None:
    """The method is the algorithm and K tokens are K steps and K draft tokens; a shorthand flag counts too."""
    from mtptui.engines.registry import dashboard

    view = dashboard("vllm")
    spec = view.launch_speculation(read(["vllm", "serve", "/models/q", "--speculative-config", SPEC]))
    assert (spec.configured.algorithm, spec.configured.steps, spec.configured.draft_tokens) == ("ngram", 3, 3)
    assert spec.candidates is None and view.launch_rows(read(["vllm", "serve", "/models/q"]), "—") is None
    assert view.launch_speculation(read(["vllm", "serve", "/models/q"])) is None
    assert dashboard("sglang").launch_speculation(read(["vllm", "serve", "/models/q", "-sc", SPEC])) is None
