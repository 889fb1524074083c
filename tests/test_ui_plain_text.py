"""Text from a host, server, log or file reaches Textual as text, never as markup (mtptui/ui/plain.py).

Two halves: a reading of every module under mtptui/ui that refuses the ways around ``plain`` (the bypass
check), and the dashboard, bench and fleet screens driven with hostile strings (``[/bold]``, ``[/INST]``,
``[link=...]``, ``[@click=...]``) in a log line, a toast raised by a screen, a model id, a fleet row.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
UI = ROOT / "mtptui" / "ui"
# Textual widgets and methods that read a str as markup, and the attributes that do.
SINK_CALLS = {"Static", "Label", "Button", "Option", "Tab", "TabPane", "Checkbox", "RadioButton", "Collapsible",
              "ListItem", "Link", "Digits"}
SINK_METHODS = {"update", "add_row", "add_rows", "add_column", "add_columns", "update_cell", "update_cell_at",
                "add_option", "add_options", "set_options"}
SINK_ATTRS = {"border_title", "border_subtitle", "title", "sub_title", "tooltip", "label"}
STRING_CALLS = {"visible", "str", "join", "format", "repr"}  # calls that make a str of their arguments
MARKUP_WORDS = ("[/bold]", "[/INST]", "[link=http://evil.example]x[/link]", "[@click=app.quit]q[/]", "[b")


def _makes_string(node: ast.AST) -> bool:
    """An expression that builds a str from values (never a literal, never ``plain(...)``/``Text(...)``)."""
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) for part in node.values)
    if isinstance(node, ast.BinOp):
        return _makes_string(node.left) or _makes_string(node.right) or isinstance(node.op, ast.Mod)
    if isinstance(node, ast.IfExp):
        return _makes_string(node.body) or _makes_string(node.orelse)
    if isinstance(node, ast.Starred):
        return _makes_string(node.value)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return _makes_string(node.elt)
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in STRING_CALLS
    return False


def _is_text(node: ast.AST) -> bool:
    """A title that cannot carry markup from a value: a literal, or ``plain(...)``/``Text(...)``. Anything else
    is refused, a helper's return value too (``offline_text(reason, ...)`` put a host's error in a subtitle)."""
    if isinstance(node, ast.Constant):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("plain", "Text")


TEXTUAL_SINKS = {"Static", "Label", "Button", "DataTable", "Option", "Select"}  # mtptui.ui.plain has their Plain* twins


def bypasses(source: str, where: str) -> list[str]:
    """Every place in ``source`` where markup can reach Textual from a value."""
    found = []
    for node in ast.walk(ast.parse(source)):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("textual"):
            found += [f"{line}: Textual's {a.name} (use mtptui.ui.plain's)" for a in node.names
                      if a.name in TEXTUAL_SINKS]
        if isinstance(node, ast.keyword) and node.arg == "markup" and not (
                isinstance(node.value, ast.Constant) and node.value.value is False):
            found.append(f"{line}: markup= other than False")
        if isinstance(node, ast.Attribute) and node.attr == "from_markup":
            found.append(f"{line}: from_markup")
        if isinstance(node, ast.Call):
            func = node.func
            sink = (isinstance(func, ast.Name) and func.id in SINK_CALLS) or (
                isinstance(func, ast.Attribute) and func.attr in SINK_METHODS)
            if sink and not any(k.arg == "markup" for k in node.keywords):
                found += [f"{line}: {ast.unparse(a)[:60]} handed to {ast.unparse(func)[:30]}"
                          for a in node.args if _makes_string(a)]
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr in SINK_ATTRS
                                                for t in node.targets) and not _is_text(node.value):
            found.append(f"{line}: {ast.unparse(node.value)[:60]} set as a title")
    return found


def test_no_module_under_ui_hands_a_built_string_to_textual_as_markup() -> None:
    found = [hit for path in sorted(UI.rglob("*.py")) if path.name != "plain.py"
             for hit in bypasses(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == [], "wrap these in mtptui.ui.plain.plain(...):\n" + "\n".join(found)


@pytest.mark.parametrize("source", [
    'Static(f"model {name}")', 'self.update(visible(text))', 'table.add_row(*(str(v) for v in row))',
    'w.border_title = f"bench · {model}"', 'self.notify(text, markup=True)', 'Text.from_markup(line)',
    'pane.border_subtitle = offline_text(reason, host, 80)', 'w.border_title = title',
    'Label(", ".join(names))', 'x.title = "a %s" % name', 'from textual.widgets import Input, Static',
    'from textual.widgets.option_list import Option', 'from textual.widgets import Select'])
def test_the_bypass_check_sees_each_way_around_plain(source: str) -> None:
    assert bypasses(source, "x.py")


@pytest.mark.parametrize("source", ['Static(plain(f"model {name}"))', 'Static("literal [b]ours[/b]")',
                                    'w.border_title = plain(f"bench · {model}")', 'self.notify(f"x {y}")',
                                    'w.border_title = "literal"', 'w.border_subtitle = plain(offline_text(r, h, 8))'])
def test_the_bypass_check_lets_text_through(source: str) -> None:
    assert bypasses(source, "x.py") == []


def test_plain_keeps_markup_as_text_and_escapes_controls() -> None:
    from mtptui.ui.plain import plain

    for word in MARKUP_WORDS:
        assert plain(f"error {word}\x1b]0;t\x07").plain == f"error {word}\\x1b]0;t\\x07"


def hostile_line(word: str) -> str:
    return f"[2026-11-29 14:50:01 TP0] Scheduler hit an exception: ValueError: template ended at {word} here"


async def test_a_toast_raised_by_a_screen_with_markup_in_a_log_line_is_text(tmp_path: Path) -> None:
    from tests.ui_fixtures.support import DEMO_LOG, SIZE, make_app, wait_until

    log = tmp_path / "hostile.log"
    log.write_text(DEMO_LOG.read_text() + "".join(hostile_line(word) + "\n" for word in MARKUP_WORDS))
    app, feed = make_app(log)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.lines_seen >= len(feed.lines))
        for word in MARKUP_WORDS:
            app.screen.notify(hostile_line(word), title=f"error {word}")  # a screen's notify passes markup=True
            app.screen.query_one("#log").notify(word)  # and a widget's
        await pilot.pause(0.3)
        toasts = [(n.message, n.title, n.markup) for n in app._notifications]
        assert app.is_running  # a MarkupError would have ended it
    assert all(markup is False for _, _, markup in toasts)
    assert (hostile_line("[/bold]"), "error [/bold]", False) in toasts


async def test_a_prompt_set_named_with_markup_opens_in_the_bench_form_as_text() -> None:
    """A set name comes from the user's prompts.toml; Select read it as markup when its list opened (exit 1)."""
    import html

    from textual.app import App, ComposeResult

    from mtptui.ui.widgets.bench_form import BenchForm

    names = {f"evil{word}": "from prompts.toml" for word in MARKUP_WORDS}

    class FormApp(App[None]):
        def compose(self) -> ComposeResult:
            yield BenchForm({"aaa": "first", **names}, id="form")

    app = FormApp()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.click("#bench-prompts")  # opens the list: every prompt is rendered
        await pilot.pause(0.3)
        for _ in names:
            await pilot.press("down")
        await pilot.press("enter")
        await pilot.pause(0.3)
        assert app.is_running  # a MarkupError would have ended it
        chosen, screen = app.query_one("#bench-prompts").value, app.export_screenshot()
    assert chosen == max(names)  # the last of the sorted names
    assert f">{chosen}</text>" in html.unescape(screen)  # shown with its markup as text


async def test_copying_the_server_args_line_puts_no_api_key_on_the_clipboard(tmp_path: Path) -> None:
    from tests.ui_fixtures.support import DEMO_LOG, SIZE, make_app, wait_until

    key = "sk-live-4f9a2c7e1b8d3f6a0e5c9b2d7f1a4e8c"
    log = tmp_path / "args.log"
    log.write_text(DEMO_LOG.read_text() + f"[2026-11-29 14:43:20] server_args=ServerArgs(model_path='/m', "
                                          f"api_key='{key}', admin_api_key=None, port=30000)\n")
    app, feed = make_app(log)
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.live.lines_seen >= len(feed.lines))
        await pilot.press("c")
        await pilot.pause(0.2)
        toasts = " ".join(n.message for n in app._notifications)
    assert copied and "server_args=" in copied[0] and "api_key='••••(set, 40 chars)'" in copied[0]
    assert key not in copied[0] and key not in toasts


async def test_the_fleet_table_shows_markup_from_prometheus_as_text() -> None:
    from mtptui.fleet.rows import Row, Snapshot
    from mtptui.fleet.settings import load_settings
    from mtptui.fleet.view import FleetView
    from mtptui.ui.fleet.app import FleetApp
    from tests.ui_fixtures.support import SIZE

    rows = [Row(f"10.0.0.{i}:30000{word}", f"sglang{word}", False, last_error=f"refused {word}", health="down",
                version=f"0.5{word}") for i, word in enumerate(MARKUP_WORDS)]
    settings = load_settings(url="http://127.0.0.1:9")
    snapshot = Snapshot(settings.url, 0.0, 60.0, 3600.0, "", 30.0, rows)

    async def collector():
        return snapshot

    app = FleetApp(settings, {}, FleetView(), collector=collector)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.5)
        table = app.screen.query_one("#fleet-table")
        cells = [str(table.get_cell_at((r, c))) for r in range(table.row_count) for c in range(len(table.columns))]
        assert app.is_running
    assert any("[/bold]" in cell for cell in cells) and any("[link=http://evil.example]" in cell for cell in cells)


async def test_a_connection_error_with_markup_shows_in_every_pane_as_text() -> None:
    """The reason a host does not answer comes from the host (an SSH banner, a ProxyCommand's stderr): in the
    panes' subtitles it once ended the dashboard with a MarkupError."""
    from mtptui.ops.feed.items import Connection
    from mtptui.ui.screens.dashboard import DOWN_PANES
    from tests.ui_fixtures.support import ControlledFeed, demo_status, make_app, wait_until

    feed = ControlledFeed(demo_status())
    app, _ = make_app(feed=feed)
    reason = "ProxyCommand said: " + " ".join(MARKUP_WORDS)
    async with app.run_test(size=(160, 48)) as pilot:
        feed.send(Connection("reconnecting", reason, 8.0))
        await wait_until(pilot, lambda: app.live.up.offline == reason)
        app.screen.paint(everything=True)
        await pilot.pause(0.3)
        subtitles = {name: str(app.screen.query_one(f"#{name}").border_subtitle) for name in (*DOWN_PANES, "gpus")}
        assert app.is_running  # a MarkupError would have ended it
    assert all("[/INST]" in text and "[@click=app.quit]" in text for text in subtitles.values()), subtitles


async def test_a_pane_handed_a_str_from_a_server_shows_it_as_text() -> None:
    """RenderPane (titles of the bench and tune screens, the stats strip, the gateway pane) renders what it is
    handed; a str would be read as markup, as a model id with ``[/bold]`` once ended the bench screen."""
    from textual.app import App, ComposeResult

    from mtptui.ui.widgets.render_pane import RenderPane

    class PaneApp(App[None]):
        def compose(self) -> ComposeResult:
            yield RenderPane(id="pane")

    app = PaneApp()
    async with app.run_test(size=(160, 10)) as pilot:
        app.query_one(RenderPane).set("model Qwen " + " ".join(MARKUP_WORDS))
        await pilot.pause(0.3)
        assert app.is_running  # a MarkupError would have ended it
        shown = app.query_one(RenderPane).renderable
    assert str(shown) == "model Qwen " + " ".join(MARKUP_WORDS)
