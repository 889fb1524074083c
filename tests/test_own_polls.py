"""mtptui's own polls in the log: which access lines they are, the log buffer hiding them, and the launch option
that leaves them out of SGLang's log (what `mtptui check` suggests)."""

from __future__ import annotations

from mtptui.ops.checks.polls import polls_note
from mtptui.ops.own_polls import is_own_poll, unexcluded
from mtptui.ui.logbuffer import LineFilter, LogBuffer, LogLine

ACCESS = '[2026-11-29 14:44:06] INFO:     127.0.0.1:52108 - "{} {} HTTP/1.1" 200 OK'


def test_own_polls_are_gets_of_the_polled_paths_and_nothing_else() -> None:
    for path in ("/metrics", "/server_info", "/get_server_info", "/health"):
        assert is_own_poll(ACCESS.format("GET", path)), path
    for method, path in (("POST", "/v1/chat/completions"), ("GET", "/v1/models"), ("POST", "/metrics")):
        assert not is_own_poll(ACCESS.format(method, path)), (method, path)
    assert is_own_poll('sglang-1  | [2026-11-29 14:44:06] INFO:     10.0.0.2:1 - "GET /health HTTP/1.1" 200 OK')
    assert not is_own_poll('[2026-11-29 14:44:06 TP0] Decode batch, "GET /metrics"')


def test_the_buffer_hides_them_until_asked_and_a_filter_still_applies() -> None:
    buffer = LogBuffer()
    buffer.set_hide(is_own_poll)
    lines = [ACCESS.format("GET", "/metrics"), ACCESS.format("POST", "/v1/chat/completions"), "batch one",
             ACCESS.format("GET", "/server_info")]
    assert buffer.append([LogLine(text) for text in lines]) == (2, 0)
    assert [buffer.text(buffer.seq_at(i)) for i in range(len(buffer))] == lines[1:3]
    buffer.set_filter(LineFilter.parse("GET"))
    assert len(buffer) == 0
    buffer.set_hide(None)
    assert [buffer.text(buffer.seq_at(i)) for i in range(len(buffer))] == [lines[0], lines[3]]


def test_check_suggests_the_exclude_option_for_what_the_launch_still_logs() -> None:
    assert unexcluded(["/metrics", "/health"]) == ["/server_info", "/get_server_info"]
    assert unexcluded(["/"]) == [] and unexcluded(None) == ["/metrics", "/server_info", "/get_server_info", "/health"]
    note = polls_note({"uvicorn_access_log_exclude_prefixes": ["/metrics"]})
    assert note == (" (it logs mtptui's polls: add --uvicorn-access-log-exclude-prefixes /server_info "
                    "/get_server_info /health to the launch to leave them out)")
    assert polls_note({"uvicorn_access_log_exclude_prefixes": ["/metrics", "/server_info", "/get_server_info",
                                                                "/health"]}) == ""
    assert polls_note({}) == ""  # a release without the option: nothing to suggest


async def test_o_shows_and_hides_the_dashboards_own_polls() -> None:
    from tests.ui_fixtures.support import SIZE, make_app, settle

    app, _ = make_app()  # the recorded demo log has one of the dashboard's GET /server_info lines
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        log = app.screen.log_view

        def shown() -> list[str]:
            return [log.buffer.text(log.buffer.seq_at(i)) for i in range(len(log.buffer))]

        assert not any('"GET /server_info' in text for text in shown()) and "own polls hidden" in log.border_subtitle
        await pilot.press("o")
        assert any('"GET /server_info' in text for text in shown()) and "own polls" not in log.border_subtitle
        await pilot.press("o")
        assert not any('"GET /server_info' in text for text in shown())
