"""The diff in the operator's words: rows by impact, every env var with "every flag", Enter explains a flag."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from mtptui.engines.sglang.flags import DiffRow, diff_flagsets, parse_command
from mtptui.engines.sglang.lint.explain import explain_env, explain_flag
from mtptui.engines.sglang.flags.impact import MEMORY, OTHER, SPECULATIVE, env_group, flag_group
from mtptui.ui.screens.diff import DiffScreen
from mtptui.ui.screens.flag_explain import FlagExplainScreen
from tests.ui_fixtures.support import SIZE, demo_host_with_unit, make_app, settle, wait_until

BASE = "python3 -m sglang.launch_server --model-path /m/x --port 1"



def test_groups_put_speculative_first_then_memory_and_capacity() -> None:
    assert [flag_group(f) for f in ("--speculative-num-steps", "--mem-fraction-static", "--context-length",
                                    "--mamba-full-memory-ratio", "--reasoning-parser", "--model-path")] == \
        [SPECULATIVE, MEMORY, MEMORY, MEMORY, OTHER, OTHER]
    assert [env_group(v) for v in ("SGLANG_ENABLE_SPEC_V2", "SGLANG_KV_CACHE_X", "HF_HOME")] == \
        [SPECULATIVE, MEMORY, OTHER]


def test_diff_rows_come_by_impact_and_keep_the_table_order_within_a_group() -> None:
    left = parse_command(f"{BASE} --reasoning-parser qwen3 --context-length 4096 --speculative-num-steps 3 "
                         "--speculative-algorithm NEXTN --max-running-requests 4")
    right = parse_command(f"SGLANG_ENABLE_SPEC_V2=1 HF_HOME=/h {BASE}")
    diff = diff_flagsets([("a", left), ("b", right)])
    flags = [row.flag for row in diff.rows]  # (SGLang's auto values of the other speculative flags differ too)
    groups = [flag_group(flag) for flag in flags]
    assert groups == sorted(groups) and groups[0] == SPECULATIVE and groups[-1] == OTHER
    written = ["--speculative-algorithm", "--speculative-num-steps", "--context-length", "--max-running-requests",
               "--reasoning-parser"]
    assert [flag for flag in flags if flag in written] == written
    assert [env.var for env in diff.env] == ["SGLANG_ENABLE_SPEC_V2", "HF_HOME"]


def test_every_flag_shows_equal_env_vars_too() -> None:
    one, two = (parse_command(f"SGLANG_ENABLE_SPEC_V2=1 HF_HOME={h} {BASE}") for h in ("/h", "/other"))
    assert [env.var for env in diff_flagsets([("a", one), ("b", two)]).env] == ["HF_HOME"]
    every = diff_flagsets([("a", one), ("b", two)], show_all=True).env
    assert [(env.var, env.values) for env in every] == [("SGLANG_ENABLE_SPEC_V2", ("1", "1")),
                                                       ("HF_HOME", ("/h", "/other"))]


def test_an_explanation_quotes_sglang_and_says_what_each_side_gets() -> None:
    row = DiffRow("--speculative-num-draft-tokens", ("4", None), ("4", "2 (auto)"))
    parts = dict(explain_flag(row, ("unit", "profile"), "0.5.12.post1").parts)
    assert parts["group"] == "speculative decoding"
    assert parts["SGLang 0.5.12.post1 says"] == ("The number of tokens sampled from the draft model in "
                                                 "Speculative Decoding.")
    assert parts["argparse (0.5.12.post1)"] == "takes int; no default"
    assert parts["unit"] == "written 4" and parts["profile"] == "not written; SGLang uses 2 (auto)"
    assert "works out itself" in parts["auto and defaults"]
    renamed = dict(explain_flag(DiffRow("--mamba-scheduler-strategy", ("a", "b"), ("a", "b")), ("x", "y"),
                                "0.5.12.post1").parts)
    assert renamed["renamed"] == "--mamba-scheduler-strategy is --mamba-radix-cache-strategy from SGLang 0.5.23 on"
    env = explain_env(diff_flagsets([("a", parse_command(f"SGLANG_ENABLE_SPEC_V2=1 {BASE}")),
                                     ("b", parse_command(BASE))]).env[0], ("a", "b"))
    assert env.title == "SGLANG_ENABLE_SPEC_V2" and dict(env.parts)["b"] == "unset"


async def test_enter_on_a_diff_row_explains_it_and_s_adds_the_equal_env_vars(tmp_path: Path) -> None:
    app, _ = make_app()
    app.context.host = demo_host_with_unit(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.shown_rows)
        screen = app.screen
        assert [row.flag for row in screen.shown_rows[:2]] == ["--speculative-num-steps",
                                                               "--speculative-num-draft-tokens"]
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, FlagExplainScreen))
        assert app.screen.explanation.title == "--speculative-num-draft-tokens"
        assert dict(app.screen.explanation.parts)["group"] == "speculative decoding"
        await pilot.press("escape")
        assert app.screen is screen
        differing_env = [row for row in screen.shown_rows if hasattr(row, "var")]
        await pilot.press("s")
        every_env = [row for row in screen.shown_rows if hasattr(row, "var")]
        assert len(every_env) > len(differing_env) and "every flag and env var" in str(
            screen.query_one("#diff-head").render())
        assert screen.query_one(DataTable).row_count == len(screen.shown_rows)


# Effects, not only syntax -------------------------------------------------------------------------------------

def test_an_effect_line_says_what_each_value_does() -> None:
    from mtptui.engines.sglang.lint.effects import effect_line

    assert effect_line("--speculative-num-steps", ("1", "3", "3"), ("running", "unit", "known-good")) == (
        "a verify accepts at most 2 tokens (running) · 4 tokens (unit, known-good)")
    assert effect_line("--max-running-requests", ("1", "16"), ("running", "known-good")) == (
        "decoding together: 1 request: no batching, a second one waits (running) · up to 16 requests (known-good)")
    assert effect_line("--mem-fraction-static", ("auto (from GPU memory)", "0.88")) == (
        "weights and KV pool take a share chosen from the GPU's memory · 88% of the GPU")
    assert effect_line("--mamba-full-memory-ratio", ("unset (default 0.9)", "0.5")) == (
        "mamba state, against the full-attention KV: 0.9x · 0.5x")
    assert effect_line("--speculative-algorithm", ("NEXTN", "NEXTN")) == (
        "drafting by the model's own MTP head (run as EAGLE)")
    assert effect_line("--reasoning-parser", ("unset", "qwen3")) is None  # neither speculative nor capacity


def test_the_explanation_says_what_the_flag_does_on_each_side() -> None:
    row = DiffRow("--max-running-requests", ("1", "16"), ("1", "16"))
    parts = dict(explain_flag(row, ("running", "known-good"), "0.5.12.post1").parts)
    assert parts["what it does"] == ("decoding together: 1 request: no batching, a second one waits (running) · "
                                     "up to 16 requests (known-good)")


def test_what_was_written_stays_when_sglang_runs_it_as_another() -> None:
    from mtptui.engines.sglang.flags.diff_text import shown_cell

    assert shown_cell("NEXTN", "EAGLE") == "NEXTN (runs as EAGLE)"
    assert shown_cell(None, "2 (auto)") == "2 (auto)" and shown_cell("3", "3") == "3"


async def diff_screen(pilot, app) -> DiffScreen:
    await settle(pilot, app)
    await pilot.press("d")
    await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen) and app.screen.shown_rows)
    return app.screen


def effects_of(screen: DiffScreen) -> list[str]:
    return str(screen.query_one("#diff-effects").render()).splitlines()


async def test_the_diff_gives_one_effect_line_per_speculative_and_capacity_flag(tmp_path: Path) -> None:
    app, _ = make_app()
    app.context.host = demo_host_with_unit(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await diff_screen(pilot, app)
        lines = effects_of(screen)
        names = [line.split(":")[0] for line in lines]
        assert names == ["steps", "draft", "context", "mem-fraction", "max-running", "mamba-ratio"]
        assert lines[4] == ("max-running: decoding together: 1 request: no batching, a second one waits (running) · "
                            "up to 16 requests (unit, known-good)")
        titles = [str(column.label) for column in screen.query_one(DataTable).columns.values()]
        assert titles[-1] == "profile restored ★ known-good" and not any("★" in t for t in titles[:-1])
        await pilot.press("s")  # every flag: the algorithm row keeps what each side wrote
        await wait_until(pilot, lambda: any(row.flag == "--speculative-algorithm" for row in screen.shown_rows))
        table = screen.query_one(DataTable)
        index = next(i for i, row in enumerate(screen.shown_rows) if row.flag == "--speculative-algorithm")
        assert {str(cell) for cell in table.get_row_at(index)[1:]} == {"NEXTN (runs as EAGLE)"}


async def test_on_a_short_terminal_the_effect_line_is_the_cursors_row(tmp_path: Path) -> None:
    app, _ = make_app()
    app.context.host = demo_host_with_unit(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await diff_screen(pilot, app)
        assert [line.split(":")[0] for line in effects_of(screen)] == ["steps"]
        await pilot.press("down")
        await wait_until(pilot, lambda: effects_of(screen)[0].startswith("draft:"))
