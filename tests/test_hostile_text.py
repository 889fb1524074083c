"""Text from a host or a file never drives the operator's terminal: controls and bidi overrides are shown escaped.

A server's /server_info version retitled the terminal (OSC 0) and wrote its clipboard (OSC 52); ESC in a flag
value reached `mtptui diff` raw; the log pane passed C1 controls and U+202E. ``mtptui.text.visible`` is the one
function for all of them; here it is checked on its own, on `mtptui diff` and on what the dashboard draws.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mtptui.text import UNSAFE, visible, visible_json
from mtptui.ui.pump import clean
from tests.ui_fixtures.support import DEMO_LOG, SIZE, demo_status, make_app, wait_until

OSC_TITLE = "\x1b]0;pwned title\x07"
OSC_CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"
HOSTILE = f"0.5.12{OSC_TITLE}{OSC_CLIPBOARD}\x1b[2J\x9b2J\x85\u202eevil\u2066"
SEEN = "\\x1b]52;c;cHduZWQ=\\x07"  # how the clipboard write looks once it is shown, not obeyed
ROOT = Path(__file__).resolve().parents[1]


def test_visible_escapes_controls_c1_and_bidi_and_keeps_tab_newline_and_text() -> None:
    assert visible("a\x1b]0;t\x07b\x85c\u202ed\u200f\te\nf\x7f\x00é中😀") == \
        "a\\x1b]0;t\\x07b\\x85c\\u202ed\\u200f\te\nf\\x7f\\x00é中😀"
    assert visible("plain text") == "plain text"
    for char in ["\x1b", "\x9b", "\x07", "\r", "\u061c", "\u200e", "\u202a", "\u2069"]:
        assert UNSAFE.search(visible(f"x{char}y")) is None


def test_visible_json_is_the_same_json_value() -> None:
    text = json.dumps({"v": HOSTILE}, ensure_ascii=False)
    shown = visible_json(text)
    assert UNSAFE.search(shown) is None and json.loads(shown) == {"v": HOSTILE}


def test_the_log_pane_shows_c1_and_bidi_controls_escaped() -> None:
    line = clean("[2026-05-11 23:49:07 TP0] model \x85next\u202eevil \x9b2J bell\x07 ok\x1b[0m")
    assert line == "[2026-05-11 23:49:07 TP0] model \\x85next\\u202eevil \\x9b2J bell\\x07 ok"


def test_mtptui_diff_shows_an_esc_in_a_flag_value_escaped(tmp_path: Path) -> None:
    left, right = tmp_path / "a.sh", tmp_path / "b.sh"
    left.write_text("python3 -m sglang.launch_server --model-path /m --served-model-name 'qwen'\n")
    right.write_text(f"python3 -m sglang.launch_server --model-path /m --served-model-name '{HOSTILE}'\n")
    for extra in ([], ["--json"]):
        result = subprocess.run([sys.executable, "-m", "mtptui.cli.main", "diff", "--left", str(left), "--right",
                                 str(right), *extra], capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert result.returncode in (0, 1), result.stderr
        assert "--served-model-name" in result.stdout and UNSAFE.search(result.stdout) is None
    assert json.loads(result.stdout)["rows"][0]["values"][1] == HOSTILE  # the JSON value itself is exact


def screen_text(app) -> str:
    """Everything the screen draws: Textual's own SVG export of it, its character references decoded."""
    import html

    return html.unescape(app.export_screenshot())


async def test_the_dashboard_draws_a_hostile_version_service_log_line_and_toast_escaped(tmp_path: Path) -> None:
    log = tmp_path / "hostile.log"
    log.write_text(DEMO_LOG.read_text() + f"[2026-11-29 14:50:01 TP0] served {HOSTILE}\n")
    status = demo_status(version=HOSTILE, service=f"sglang{OSC_TITLE}.service", where=f"host{OSC_CLIPBOARD}")
    app, feed = make_app(log, status=status)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.lines_seen >= len(feed.lines) and app.live.host is not None)
        app.notify(f"restart failed: {HOSTILE}", title=f"host {HOSTILE}")
        app.screen.paint(everything=True)
        await pilot.pause(0.2)
        drawn = screen_text(app)
        toasts = [(n.title, n.message, n.markup) for n in app._notifications]
    assert UNSAFE.search(drawn) is None
    assert SEEN in drawn and "\\u202eevil" in drawn  # the header's host, the log's last line: shown escaped
    assert (f"host {visible(HOSTILE)}", f"restart failed: {visible(HOSTILE)}", False) in toasts
