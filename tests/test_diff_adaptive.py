"""The diff's adaptive speculation: each side that turns it on, its config file as read on the host, and the
candidate steps its release takes from it (0.5.12.post1 adds the launch's own steps)."""

from __future__ import annotations

import asyncio
import json

from mtptui.ops.adaptive_config import adaptive_files, local_reader
from mtptui.ops.diff_live import LiveDiff
from mtptui.ops.launches import Side
from mtptui.engines.sglang.flags import diff_flagsets, parse_argv

MODEL = "/data/models/Qwen3.6-27B"


def side(label: str, version: str, *words: str) -> Side:
    argv = ["--model-path", MODEL, "--speculative-algorithm", "NEXTN", "--speculative-eagle-topk", "1", *words]
    return Side(label, parse_argv(argv, version))


def test_each_adaptive_side_shows_its_file_and_candidates(tmp_path) -> None:
    tiers, flat = tmp_path / "tiers.json", tmp_path / "flat.json"
    tiers.write_text(json.dumps({"1": {"candidate_steps": [1, 3, 5]}, "16": {"candidate_steps": [0, 1]}}))
    flat.write_text('{"candidate_steps": [2, 4]}')
    sides = [side("running:pid 7", "0.5.23", "--speculative-adaptive", "--speculative-adaptive-config", str(tiers)),
             side("unit:x.service", "0.5.12.post1", "--speculative-num-steps", "5", "--speculative-adaptive",
                  "--speculative-adaptive-config", str(flat)),
             side("profile:default", "0.5.12.post1", "--speculative-num-steps", "3", "--speculative-adaptive"),
             side("profile:static", "0.5.12.post1", "--speculative-num-steps", "3")]
    files = asyncio.run(adaptive_files(sides, local_reader))
    assert [(f.side, f.candidates) for f in files] == [("running:pid 7", (0, 1, 3, 5)), ("unit:x.service", (2, 4, 5)),
                                                       ("profile:default", (1, 3, 7))]
    assert files[0].content == '{"1": {"candidate_steps": [1, 3, 5]}, "16": {"candidate_steps": [0, 1]}}'
    assert files[2].line() == ("profile:default: adaptive, no config file (SGLang's defaults) → candidate steps "
                               "1 3 7")


def test_a_file_the_host_cannot_give_or_sglang_refuses_says_so(tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"1": {"candidate_steps": "1,3"}}')
    sides = [side("a", "0.5.23", "--speculative-adaptive", "--speculative-adaptive-config", str(tmp_path / "nope")),
             side("b", "0.5.23", "--speculative-adaptive", "--speculative-adaptive-config", str(bad))]
    missing, refused = asyncio.run(adaptive_files(sides, local_reader))
    assert missing.problem == "not known: the file cannot be read on the host" and missing.candidates is None
    assert refused.problem.startswith("not known: SGLang refuses it (ValueError: BS 1: candidate_steps must be")


def test_the_live_diff_carries_them_in_its_json_and_text(tmp_path) -> None:
    sides = [side("running:pid 7", "0.5.12.post1", "--speculative-num-steps", "3", "--speculative-adaptive"),
             side("profile:restored", "0.5.12.post1", "--speculative-num-steps", "3")]
    diff = diff_flagsets([(s.label, s.flagset) for s in sides])
    live = LiveDiff(diff, None, [], asyncio.run(adaptive_files(sides, local_reader)))
    rows = {row["flag"]: row for row in live.to_json()["rows"]}
    assert rows["--speculative-adaptive"]["resolved"] == ["true", "unset (default false)"]
    assert live.to_json()["adaptive_config"][0]["candidates"] == [1, 3, 7]
    assert "adaptive config of running:pid 7: adaptive, no config file" in live.render_text()
