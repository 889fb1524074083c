"""The rough edges a new operator met (issue 29, item 9): themes that are mtptui's only, a did-you-mean for a
mistyped command or host, every config error listed, and the small text bugs (lint, explain, bench verdict)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mtptui.bench.compare import Comparison
from mtptui.bench.verdict_text import statistics_line
from mtptui.config import find_host
from mtptui.config.loader import parse_host
from mtptui.errors import ConfigError, UserError
from mtptui.engines.sglang.flags import DiffRow
from mtptui.engines.sglang.lint.explain import explain_flag
from mtptui.ui.themes import check_theme, load_theme_file
from tests.test_config import BASE


def mtptui(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mtptui.cli.main", *args], capture_output=True, text=True, timeout=60)


# Themes ------------------------------------------------------------------------------------------------------

def test_textuals_own_themes_are_not_offered() -> None:
    check_theme("mtptui-light")
    with pytest.raises(UserError, match="unknown theme 'ansi-light' .themes: mtptui-dark, mtptui-light."):
        check_theme("ansi-light")


def test_a_theme_that_does_not_set_mtptuis_colours_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "plain.toml"
    path.write_text('primary = "#112233"\nsuccess = "#00ff00"\nwarning = "#ffff00"\nerror = "#ff0000"\n'
                    'background = "#000000"\n')
    with pytest.raises(ConfigError, match="sets variables.border, variables.footer-key-foreground"):
        load_theme_file(path)


async def test_the_palette_offers_only_the_shipped_themes() -> None:
    from tests.ui_fixtures.support import SIZE, make_app

    app, _ = make_app()
    async with app.run_test(size=SIZE):
        assert sorted(app.available_themes) == ["mtptui-dark", "mtptui-light"]


# Did you mean ------------------------------------------------------------------------------------------------

def test_a_mistyped_host_is_answered_with_the_close_one() -> None:
    with pytest.raises(ConfigError) as err:
        find_host("ct12")
    assert str(err.value).endswith("Did you mean host ct129?") and err.value.exit_code == 2


@pytest.mark.parametrize(("word", "hint"), [("benhc", "Did you mean the command `mtptui bench`?"),
                                            ("demoo", "Did you mean host demo or the command `mtptui demo`?")])
def test_a_mistyped_command_is_answered_with_the_command(word: str, hint: str) -> None:
    result = mtptui(word)
    assert result.returncode == 2 and result.stderr.rstrip().endswith(hint), result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_nothing_close_suggests_nothing() -> None:
    with pytest.raises(ConfigError) as err:
        find_host("zzzzzz")
    assert "Did you mean" not in str(err.value)


# Config errors -----------------------------------------------------------------------------------------------

def test_every_config_error_is_listed_with_its_line() -> None:
    text = "colour = 1\n" + BASE.replace('[log]', '[ssh]\ntarget = "h"\nport = "twenty-two"\n[log]') + "modle = 3\n"
    with pytest.raises(ConfigError) as err:
        parse_host(text, "bad.toml")
    lines = str(err.value).splitlines()
    assert lines[0] == "bad.toml: 3 problems:" and "more)" not in str(err.value)
    assert any("field 'ssh.port'" in line for line in lines) and any("'colour': unknown field" in line
                                                                     for line in lines)
    assert all(line.startswith("  bad.toml:") for line in lines[1:])


# Text bugs ---------------------------------------------------------------------------------------------------

def test_a_lint_line_names_its_flag_once() -> None:
    result = mtptui("flags", "lint", "--", "--model", "/m/Qwen3.6-27B", "--speculative-algorithm", "NEXTN",
                    "--mamba-scheduler-strategy", "extra_buffer", "--speculative-num-draft-tokens", "4")
    line = next(x for x in result.stdout.splitlines() if x.startswith("error: "))
    assert line.startswith("error: --speculative-num-draft-tokens without --speculative-num-steps fails")


def test_explain_says_what_a_default_is_in_words() -> None:
    row = DiffRow("--mem-fraction-static", ("0.88", None), ("0.88", "unset (default 0.9)"))
    parts = dict(explain_flag(row, ("unit", "running"), "0.5.12.post1").parts)
    assert parts["running"] == "not written; SGLang uses its default 0.9"
    assert "uses unset" not in " ".join(parts.values())


def test_the_bench_verdict_is_in_words() -> None:
    line = statistics_line(Comparison("no-change", 54.0, 55.0, -0.02, 0.4, "Welch", 1, 1))
    assert line.endswith("verdict: no change")
