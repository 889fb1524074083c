"""Pilot tests of the flags form: the inline lint as you type, saving a profile read back with tomllib."""

from __future__ import annotations

import tomllib
from pathlib import Path

from textual.widgets import Input, Static

from mtptui.config.paths import config_home
from mtptui.ui import messages
from mtptui.ui.screens.confirm import ConfirmScreen
from mtptui.ui.screens.flags import FlagsScreen
from tests.ui_fixtures.support import SIZE, make_app, settle, wait_until


def of_type(posted: list, kind: type) -> list:
    return [m for m in posted if isinstance(m, kind)]


async def open_form(pilot, app, profile: str = "restored") -> FlagsScreen:
    await settle(pilot, app)
    await app.run_action(f"ops('flags', {profile!r})")
    await wait_until(pilot, lambda: isinstance(app.screen, FlagsScreen))
    await pilot.pause()
    return app.screen


async def test_draft_tokens_without_steps_shows_the_error_inline_naming_steps() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        assert not any(f.severity == "error" for f in form.findings)
        steps = form.query_one("#f-speculative-num-steps", Input)
        steps.focus()
        await pilot.press("end", "backspace")  # typed: steps cleared, draft tokens 4 still set
        await wait_until(pilot, lambda: any(f.severity == "error" for f in form.findings))
        shown = str(form.query_one("#flags-findings", Static).render())
        assert "--speculative-num-draft-tokens without --speculative-num-steps" in shown
        assert form.has_class("-errors")
        await pilot.press("3")
        await wait_until(pilot, lambda: not form.has_class("-errors"))


async def test_save_a_profile_and_read_it_back(tmp_path: Path) -> None:
    app, _ = make_app()
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#f-max-running-requests", Input).value = "8"
        form.query_one("#flags-name", Input).value = "eight"
        await pilot.pause(0.5)
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: of_type(posted, messages.ProfileSaved))
    saved = of_type(posted, messages.ProfileSaved)[0]
    path = config_home() / "hosts" / "demo.toml"  # the repo's example is not overwritten: the user's copy
    assert Path(saved.path) == path and saved.known_good
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert data["known_good"] == "eight" and data["profiles"]["eight"]["flags"]["max-running-requests"] == 8
    assert data["profiles"]["eight"]["flags"]["speculative-num-steps"] == 3
    assert data["profiles"]["eight"]["env"] == {"SGLANG_ENABLE_SPEC_V2": "1"}
    assert "restored" in data["profiles"] and app.context.host.known_good == "eight"


async def test_saving_with_lint_errors_asks_first_and_no_saves_nothing() -> None:
    app, _ = make_app()
    posted: list = []
    async with app.run_test(size=SIZE, message_hook=posted.append) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#f-speculative-num-steps", Input).value = ""
        await pilot.pause(0.5)
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await pilot.pause()
        assert not of_type(posted, messages.ProfileSaved)
        assert not (config_home() / "hosts" / "demo.toml").exists()


async def test_secret_values_show_as_dots_while_editing_and_follow_the_name() -> None:
    from mtptui.ops.profile_save import with_profile
    from tests.ui_fixtures.support import demo_host

    token, key = "hf_s3cr3tvalue0123456789", "sk-live-0123456789abcdef"
    host = demo_host()
    restored = host.profile("restored")
    keyed = restored.model_copy(update={"env": {**restored.env, "HF_TOKEN": token},
                                        "flags": {**restored.flags, "api-key": key}})
    app, _ = make_app()
    app.context.host = with_profile(host, "keyed", keyed)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app, "keyed")
        values = {i.value: i for i in form.query(".pair-value").results(Input)}
        assert values[token].password and values[key].password
        assert not any(i.password for v, i in values.items() if v not in (token, key))
        screen_text = app.export_screenshot()
        assert token not in screen_text and key not in screen_text
        (name,) = [i for i in form.query(".pair-name").results(Input) if i.value == "HF_TOKEN"]
        name.value = "HF_HOME"
        await wait_until(pilot, lambda: not values[token].password)
        name.value = "MY_PASSWORD"
        await wait_until(pilot, lambda: values[token].password)


# Typing is text: what a new operator tripped on -----------------------------------------------------------


async def test_the_first_field_has_the_focus_and_typed_letters_fire_no_binding() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        model = form.query_one("#f-model-path", Input)
        assert form.focused is model
        theme = app.theme
        await pilot.press("end", *"abc steps2 q?R")  # b opened the bench, t switched the theme, q would quit
        await pilot.pause()
        assert app.screen is form and app.theme == theme and app.is_running
        assert model.value.endswith("abc steps2 q?R")


async def test_no_printable_key_reaches_the_app_whatever_has_the_focus() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#flags-form").focus()  # the scrolling form itself, not an input
        await pilot.pause()
        await pilot.press(*"bdtfrq")
        await pilot.pause()
        assert app.screen is form and app.theme == "mtptui-dark" and app.is_running


async def test_tab_into_a_path_puts_the_cursor_at_its_end_without_selecting_it() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        form.query_one("#f-speculative-algorithm").focus()
        await pilot.press("shift+tab")  # back into the model path
        await pilot.pause()
        model = form.query_one("#f-model-path", Input)
        assert form.focused is model and model.selection.is_empty
        await pilot.press("x")
        assert model.value == "/data/models/Qwen3.6-27Bx"


async def test_escape_with_edits_asks_before_discarding_them() -> None:
    app, _ = make_app()
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(pilot, app)
        await pilot.press("escape")  # no edits: straight back
        await wait_until(pilot, lambda: not isinstance(app.screen, FlagsScreen))
        form = await open_form(pilot, app)
        await pilot.press("end", "1")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Discard" in str(app.screen.title_text)
        await pilot.press("n")  # keep editing
        await wait_until(pilot, lambda: app.screen is form)
        assert form.query_one("#f-model-path", Input).value.endswith("1")
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, (FlagsScreen, ConfirmScreen)))
