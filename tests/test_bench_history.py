"""History round trip, and the regression verdict: noise stays "no-change", a real drop is a regression."""

from __future__ import annotations

import json
import random
from pathlib import Path

from mtptui.bench import history
from mtptui.bench.compare import compare, prediction_p
from mtptui.bench.fingerprint import class_key, config_key

GOOD = {"speculative_algorithm": "NEXTN", "speculative_num_steps": 3, "speculative_num_draft_tokens": 4}
BAD = {"speculative_algorithm": "NEXTN", "speculative_num_steps": 1, "speculative_num_draft_tokens": 2}


def fingerprint(flags: dict, concurrency: int = 1, target: str = "ct129") -> dict:
    return {"target": target, "url": "http://127.0.0.1:30000", "server_version": "0.5.12.post1",
            "launch_flags": flags, "launch_command": None, "model": "Qwen3.6-27B",
            "sampling": {"temperature": 0.0, "top_p": None, "top_k": None, "ignore_eos": False},
            "prompt_set": {"name": "rbtree", "digest": "abc", "prompts": 1}, "concurrency": concurrency,
            "max_tokens": 512, "requests": 8, "warmup": 1, "rate": None, "seed": 0}


def run(tok_s: float, flags: dict, rng: random.Random | None = None, spread: float = 0.02, **fp) -> dict:
    """A stored-run look-alike whose per-request decode speeds scatter around `tok_s`."""
    rng = rng or random.Random(0)
    speeds = [tok_s * (1 + rng.gauss(0, spread)) for _ in range(8)]
    return {"fingerprint": fingerprint(flags, **fp), "summary": {"output_tok_s": tok_s},
            "requests": [{"ok": True, "decode_tok_s": s} for s in speeds]}


def store(*runs: dict) -> list[dict]:
    return [history.append_run(r) for r in runs]


def test_history_round_trip_under_xdg_data_home(isolated_dirs: Path) -> None:
    stored = store(run(70.0, GOOD), run(35.0, BAD))
    path = isolated_dirs / "xdg_data_home" / "mtptui" / "bench-history.jsonl"
    assert history.history_path() == path and path.is_file()
    with path.open("a") as handle:
        handle.write('{"fingerprint": {"trunc')  # a crash mid-write
    loaded = history.load_runs()
    assert [r["id"] for r in loaded] == [r["id"] for r in stored] and len({r["id"] for r in loaded}) == 2
    assert loaded[0]["summary"]["output_tok_s"] == 70.0 and loaded[1]["fingerprint"]["launch_flags"] == BAD
    assert loaded[0]["class_key"] == loaded[1]["class_key"] != class_key(fingerprint(GOOD, concurrency=16))
    assert loaded[0]["config_key"] != loaded[1]["config_key"] == config_key(fingerprint(BAD))
    assert json.loads(path.read_text().splitlines()[0])["recorded_at"]


def test_no_baseline_when_nothing_comparable() -> None:
    store(run(70.0, GOOD, concurrency=16), run(70.0, GOOD, target="other"))
    result = compare([run(40.0, BAD)], history.load_runs())
    assert result.verdict == "no-baseline" and "no earlier run" in result.sentence()


def test_forty_now_vs_seventy_before_is_a_regression_with_the_flags_that_changed() -> None:
    rng = random.Random(1)
    store(*[run(70.0 * (1 + rng.gauss(0, 0.02)), GOOD, rng) for _ in range(3)], run(50.0, GOOD, concurrency=4))
    now = store(*[run(40.0 * (1 + rng.gauss(0, 0.02)), BAD, rng) for _ in range(3)])
    result = compare(now, [r for r in history.load_runs() if r["id"] not in {n["id"] for n in now}])
    assert result.verdict == "regression" and result.p_value < 0.01
    assert 39 < result.now_tok_s < 41 and 68 < result.before_tok_s < 72
    assert result.sentence().startswith(f"{result.now_tok_s:.1f} tok/s now vs {result.before_tok_s:.1f} before")
    assert ("speculative_num_steps", 1, 3) in result.flag_diff and result.before_runs == 3
    assert result.to_json()["baseline_id"] == result.baseline["id"]


def test_baseline_is_the_best_configuration_not_the_latest() -> None:
    store(run(70.0, GOOD), run(35.0, BAD))
    result = compare([run(36.0, BAD)], history.load_runs())
    assert result.before_tok_s == 70.0 and result.baseline["fingerprint"]["launch_flags"] == GOOD


def test_run_to_run_noise_is_no_change() -> None:
    """Repeats of one configuration drawn with 3 % noise: the verdict must not cry regression."""
    verdicts = []
    for seed in range(20):
        rng = random.Random(seed)
        before = [run(55.0 * (1 + rng.gauss(0, 0.03)), GOOD, rng) for _ in range(3)]
        now = [run(55.0 * (1 + rng.gauss(0, 0.03)), GOOD, rng) for _ in range(3)]
        for i, r in enumerate(before):
            r.update(id=f"b{i}", class_key=class_key(r["fingerprint"]), config_key=config_key(r["fingerprint"]))
        verdicts.append(compare(now, before).verdict)
    assert verdicts.count("no-change") >= 18


def test_small_drop_inside_the_repeat_spread_is_no_change_but_outside_it_is_a_regression() -> None:
    store(run(55.0, GOOD), run(56.0, GOOD), run(54.0, GOOD))
    assert compare([run(54.0, GOOD)], history.load_runs()).verdict == "no-change"
    assert compare([run(47.0, GOOD)], history.load_runs()).verdict == "regression"
    assert compare([run(64.0, GOOD)], history.load_runs()).verdict == "improvement"


def test_without_repeats_the_test_uses_per_request_spread_and_a_larger_floor() -> None:
    store(run(55.0, GOOD, random.Random(3), spread=0.005))
    small = compare([run(53.0, GOOD, random.Random(4), spread=0.005)], history.load_runs())
    assert small.verdict == "no-change" and "no repeats" in small.method  # significant, but under 5 %
    big = compare([run(35.0, BAD, random.Random(5))], history.load_runs())
    assert big.verdict == "regression" and "no repeats" in big.method


def test_prediction_p() -> None:
    assert prediction_p(55.0, [54.0, 55.0, 56.0]) > 0.5
    assert prediction_p(40.0, [54.0, 55.0, 56.0]) < 0.01
