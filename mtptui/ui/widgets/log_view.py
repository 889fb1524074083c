"""The log pane: a line-API scroll view over a bounded LogBuffer that follows, pauses, finds, filters and wraps.

Only the visible rows are rendered. Following keeps the view at the end; scrolling back (wheel, keys,
scrollbar) pauses it and counts the lines that arrive meanwhile; ``resume()`` jumps back to the end. Lines
longer than ``MAX_DISPLAY`` characters are shown abbreviated (the full stored line is what ``c`` copies).
"""

from __future__ import annotations

from time import monotonic
from typing import Callable

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from mtptui.ops.own_polls import is_own_poll
from mtptui.ui.log_rows import MAX_DISPLAY, WrapRows, display_text, matches, prefix_end
from mtptui.ui.logbuffer import ERROR, WARNING, LineFilter, LogBuffer, LogLine
from mtptui.ui.messages import FollowChanged
from mtptui.ui.plain import plain


class LogView(ScrollView, can_focus=True):
    """The server log, newest at the bottom.

    ``following``, ``wrap``, ``find_text``, ``filter_text`` and ``cursor`` are reactives: setting one repaints
    the view, and the ``watch_`` methods do the rest (the ``pause``/``set_*`` methods only set them).
    """

    COMPONENT_CLASSES = {"log-view--error", "log-view--warning", "log-view--prefix", "log-view--match",
                         "log-view--cursor"}
    DEFAULT_CSS = """
    LogView > .log-view--error { color: $error; }
    LogView > .log-view--warning { color: $warning; }
    LogView > .log-view--prefix { color: $foreground 55%; }
    LogView > .log-view--match { background: $accent; color: $background; text-style: bold; }
    LogView > .log-view--cursor { background: $primary 30%; }
    """
    BINDINGS = [  # the pager keys operators know from less and vi, next to the arrows
        Binding("up,k", "cursor(-1)", "Line up", show=False, id="log.up"),
        Binding("down,j", "cursor(1)", "Line down", show=False, id="log.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="log.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="log.page-down"),
        Binding("ctrl+u", "page(-1, True)", "Half a page up", show=False, id="log.half-up"),
        Binding("ctrl+d", "page(1, True)", "Half a page down", show=False, id="log.half-down"),
        Binding("home,g", "first", "First line", show=False, id="log.first"),
        Binding("end,G", "resume", "Last line, follow", show=False, id="log.end"),
    ]

    following = reactive(True, init=False)
    wrap = reactive(False, init=False)
    find_text = reactive("", init=False)
    filter_text = reactive("", init=False, always_update=True)  # Enter on the same filter re-applies it, as before
    cursor: reactive[int | None] = reactive(None, init=False)
    own_polls = reactive(False, init=False)  # mtptui's own /metrics, /server_info, /health lines shown

    def __init__(self, maxlen: int = 20_000, *, id: str | None = None, classes: str | None = None,
                 own_poll: Callable[[str], bool] = is_own_poll) -> None:
        """``own_poll``: whether a line is one of mtptui's own polls (the host's engine's paths)."""
        super().__init__(id=id, classes=classes)
        self.buffer = LogBuffer(maxlen)
        self.own_poll = own_poll
        self.buffer.set_hide(own_poll)
        self.new_lines = 0
        self._rows: WrapRows | None = None
        self._programmatic = False
        self._count, self._count_total, self._count_at = 0, -1, 0.0
        self._count_key: tuple[str, LineFilter | None] | None = None  # what _count counted

    # Content ---------------------------------------------------------------------------------------------

    def append_lines(self, lines: list[LogLine]) -> None:
        """Add lines (from a LogBatch); keeps a paused viewport on the same lines."""
        if not lines:
            return
        anchor = None if self.following else self._top_anchor()
        added, evicted = self.buffer.append(lines)
        self._extend_rows(added, evicted)
        if self.cursor is not None and self.cursor < self.buffer.first:
            self.cursor = self.buffer.first
        if self.following:
            self._sync(end=True)
        else:
            self.new_lines += added
            self._sync(anchor=anchor)
        self.refresh()
        self.update_title()

    def clear(self) -> None:
        """Forget every line (the log is read again from elsewhere); the filter and the find stay."""
        line_filter = self.buffer.filter
        self.buffer = LogBuffer(self.buffer.maxlen)
        self.buffer.set_filter(line_filter)
        self._rows, self.new_lines, self.cursor = None, 0, None
        self._sync(end=self.following)
        self.refresh()
        self.update_title()

    @property
    def current_seq(self) -> int | None:
        """The line that ``c`` copies: the cursor's, or the last visible one."""
        if self.cursor is not None:
            return self.cursor
        return self.buffer.seq_at(len(self.buffer) - 1) if len(self.buffer) else None

    def current_text(self) -> str | None:
        """The current line whole (as far as the store kept it: mtptui.ui.logbuffer)."""
        seq = self.current_seq
        return None if seq is None else self.buffer.full_text(seq)

    # Modes -----------------------------------------------------------------------------------------------

    def pause(self) -> None:
        self.following = False

    def resume(self) -> None:
        """Follow the end again; jumps there even when already following (a cursor may have been placed)."""
        if self.following:
            self._to_end()
            self.update_title()
        self.following = True

    def toggle_follow(self) -> None:
        self.following = not self.following

    def set_wrap(self, wrap: bool) -> None:
        self.wrap = wrap

    def set_filter(self, text: str) -> None:
        """``text`` keeps matching lines, ``!text`` drops them, "" shows everything."""
        self.filter_text = text

    def set_find(self, text: str) -> None:
        self.find_text = text

    def watch_show_horizontal_scrollbar(self, shown: bool) -> None:
        """The horizontal scrollbar (the first line wider than the view) takes a row: a following view, which
        scrolled to the end as the lines came, goes on showing the last one. Without this, a layout pass that adds
        the bar after _sync's after-refresh check (a busy machine) left the view one row short of the end."""
        if self.following:
            self.call_after_refresh(self._stick_to_end)

    def watch_following(self, following: bool) -> None:
        """Following jumps to the end; paused, the cursor starts on the bottom line and new lines are counted."""
        if following:
            self._to_end()
        else:
            self.new_lines = 0
            if self.cursor is None and len(self.buffer):
                self.cursor = self._bottom_seq()
        self.post_message(FollowChanged(following))
        self.update_title()

    def watch_wrap(self, was_wrapped: bool, wrap: bool) -> None:
        """Lay the rows out again; a paused view keeps the line that was at its top."""
        anchor = None if self.following else self._top_anchor(was_wrapped)
        self._rows = None
        self._sync(end=self.following, anchor=anchor)
        self.update_title()

    def watch_filter_text(self, text: str) -> None:
        """Filter the buffer; a paused view stays on the cursor's line (or the nearest one left) or its top line."""
        anchor = None if self.following else (self.cursor, 0) if self.cursor is not None else self._top_anchor()
        self.buffer.set_filter(LineFilter.parse(text))
        self._rows = None
        if self.cursor is not None and len(self.buffer):
            index = min(self.buffer.index_of(self.cursor), len(self.buffer) - 1)
            self.cursor = self.buffer.seq_at(index)
        self._sync(end=self.following, anchor=anchor)
        self.update_title()

    def watch_own_polls(self, shown: bool) -> None:
        """Show or hide mtptui's own polls, keeping a paused view where it was (as a filter does)."""
        anchor = None if self.following else (self.cursor, 0) if self.cursor is not None else self._top_anchor()
        self.buffer.set_hide(None if shown else self.own_poll)
        self._rows = None
        if self.cursor is not None and len(self.buffer):
            self.cursor = self.buffer.seq_at(min(self.buffer.index_of(self.cursor), len(self.buffer) - 1))
        self._sync(end=self.following, anchor=anchor)
        self.update_title()

    def watch_find_text(self) -> None:
        self.update_title()

    def find_next(self, forward: bool = True) -> bool:
        """Move the cursor to the next (or previous) line holding the find text; pauses following."""
        if not self.find_text or not len(self.buffer):
            return False
        if self.cursor is None:  # following: search back from the end, or forward from the top
            start = len(self.buffer) if not forward else len(self.buffer) - 1
        else:
            start = self.buffer.index_of(self.cursor)
        found = self.buffer.find(self.find_text, start, forward)
        if found is None:
            return False
        self.pause()
        self.move_cursor_to(found)
        return True

    def move_cursor_to(self, index: int) -> None:
        index = max(0, min(index, len(self.buffer) - 1))
        self.cursor = self.buffer.seq_at(index)
        self._show_index(index)
        self.update_title()

    # Actions ---------------------------------------------------------------------------------------------

    def action_cursor(self, step: int) -> None:
        if not len(self.buffer):
            return
        self.pause()
        seq = self.current_seq
        if seq is not None:  # never None with lines
            self.move_cursor_to(self.buffer.index_of(seq) + step)

    def action_page(self, step: int, half: bool = False) -> None:
        """Scroll a page (or half of one) and keep the cursor on the same screen row; past the end follows again."""
        if not len(self.buffer):
            return
        self.pause()
        height = max(self.scrollable_content_region.height - 1, 1)
        height = max(height // 2, 1) if half else height
        if step > 0 and self.scroll_y >= self.max_scroll_y:
            self.resume()
            return
        seq = self.current_seq
        if seq is None:  # never None with lines
            return
        index = self.buffer.index_of(seq) + step * height
        self._scroll_quietly(max(self.scroll_y + step * height, 0))
        self.move_cursor_to(index)

    def action_first(self) -> None:
        if len(self.buffer):
            self.pause()
            self.move_cursor_to(0)

    def action_resume(self) -> None:
        self.resume()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self.pause()
        super()._on_mouse_scroll_up(event)

    async def _on_click(self, event: events.Click) -> None:
        """A click makes the clicked line the current one."""
        await super()._on_click(event)
        located = self._locate(int(self.scroll_y) + event.y)
        if located is not None:
            self.pause()
            self.cursor = self.buffer.seq_at(located[0])
            self.update_title()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        scrolled_up = new_value < old_value - 0.01 and new_value < self.max_scroll_y - 0.01
        if not self._programmatic and self.following and scrolled_up:  # a taller view stays at the end
            self.pause()

    def on_resize(self, event: events.Resize) -> None:
        if self.wrap:
            self._rows = None
        self._sync(end=self.following)

    # Geometry --------------------------------------------------------------------------------------------

    def _content_width(self) -> int:
        return max(self.scrollable_content_region.width, 1)

    def _wrap_rows(self) -> WrapRows:
        """The visible lines' rows wrapped at the current width (cached until the lines or the width change)."""
        width = self._content_width()
        if self._rows is None or self._rows.width != width:
            buffer = self.buffer
            texts = list(buffer.texts) if buffer.view is None else [buffer.text(s) for s in buffer.view]
            self._rows = WrapRows(texts, width)
        return self._rows

    def _extend_rows(self, added: int, evicted: int) -> None:
        if self._rows is None or not self.wrap:
            return
        if evicted or self.buffer._progress is not None:  # a progress bar may have refreshed in place
            self._rows = None
            return
        rows, buffer = self._rows, self.buffer
        for index in range(len(buffer) - added, len(buffer)):
            rows.append(buffer.text(buffer.seq_at(index)))

    def _row_of(self, index: int) -> int:
        return self._wrap_rows().starts[index] if self.wrap else index

    def _locate(self, row: int, wrap: bool | None = None) -> tuple[int, int] | None:
        """(visible line index, row within the wrapped line) at ``row``, None past the end; ``wrap``: in that mode."""
        if row < 0:
            return None
        if not (self.wrap if wrap is None else wrap):
            return (row, 0) if row < len(self.buffer) else None
        return self._wrap_rows().locate(row)

    def _top_anchor(self, wrap: bool | None = None) -> tuple[int, int] | None:
        """(seq, row within it) of the top row, as laid out now or, with ``wrap``, in that mode."""
        located = self._locate(int(self.scroll_y), wrap)
        return None if located is None else (self.buffer.seq_at(located[0]), located[1])

    def _bottom_seq(self) -> int:
        located = self._locate(int(self.scroll_y) + self.scrollable_content_region.height - 1)
        return self.buffer.seq_at(located[0] if located else len(self.buffer) - 1)

    def _sync(self, end: bool = False, anchor: tuple[int, int] | None = None) -> None:
        """Set the virtual size, then scroll to the end or back onto ``anchor`` (seq, row within it)."""
        if self.wrap:
            self.virtual_size = Size(self._content_width(), self._wrap_rows().total)
        else:
            self.virtual_size = Size(min(self.buffer.max_chars, MAX_DISPLAY + 24), len(self.buffer))
        target = None
        if end:
            target = self.max_scroll_y
            self.call_after_refresh(self._stick_to_end)
        elif anchor is not None:
            index = self.buffer.index_of(anchor[0])
            target = self._row_of(min(index, max(len(self.buffer) - 1, 0))) + anchor[1] if len(self.buffer) else 0
        if target is not None:
            self._scroll_quietly(target)

    def _to_end(self) -> None:
        """Forget the cursor and the count of new lines, and scroll to the last line."""
        self.new_lines, self.cursor = 0, None
        self._sync(end=True)

    def _stick_to_end(self) -> None:
        """After a layout pass (a scrollbar may have appeared), still at the very end while following."""
        if self.following and self.scroll_y != self.max_scroll_y:
            self._scroll_quietly(self.max_scroll_y)

    def _scroll_quietly(self, y: float) -> None:
        self._programmatic = True
        try:
            self.scroll_to(y=y, animate=False, immediate=True)
        finally:
            self._programmatic = False

    def _show_index(self, index: int) -> None:
        """Scroll so the visible line ``index`` is on screen (a little context above when jumping)."""
        top, height = int(self.scroll_y), self.scrollable_content_region.height
        row = self._row_of(index)
        if row < top or row >= top + height:
            self._scroll_quietly(max(row - height // 3, 0))

    # Rendering -------------------------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self._content_width()
        located = self._locate(scroll_y + y)
        if located is None:
            if y == 0 and not self.buffer.total:
                return self._placeholder(width)
            return Strip.blank(width, self.rich_style)
        index, sub = located
        seq = self.buffer.seq_at(index)
        text = display_text(self.buffer.text(seq))
        start, end = (sub * width, (sub + 1) * width) if self.wrap else (0, len(text))
        strip = self._styled(seq, text, start, min(end, len(text)))
        if self.wrap:
            return strip.extend_cell_length(width, self._line_style(seq))
        return strip.crop_extend(scroll_x, scroll_x + width, self._line_style(seq))

    def _placeholder(self, width: int) -> Strip:
        text = Text(" waiting for the first log lines …", no_wrap=True, end="")
        text.stylize(self.rich_style + self.get_component_rich_style("log-view--prefix", partial=True))
        return Strip(text.render(self.app.console)).extend_cell_length(width, self.rich_style)

    def _line_style(self, seq: int) -> Style:
        style = self.rich_style
        level = self.buffer.level(seq)
        if level == ERROR:
            style += self.get_component_rich_style("log-view--error", partial=True)
        elif level == WARNING:
            style += self.get_component_rich_style("log-view--warning", partial=True)
        if seq == self.cursor:
            style += self.get_component_rich_style("log-view--cursor", partial=True)
        return style

    def _styled(self, seq: int, text: str, start: int, end: int) -> Strip:
        line = Text(text[start:end], no_wrap=True, end="")
        line.stylize(self._line_style(seq))  # Text.render applies only spans, never the base style
        prefix = prefix_end(text)
        if prefix > start:
            line.stylize(self.get_component_rich_style("log-view--prefix", partial=True), 0, min(prefix, end) - start)
        if self.find_text:
            match_style = self.get_component_rich_style("log-view--match", partial=True)
            for a, b in matches(text.lower(), self.find_text.lower()):
                if b > start and a < end:
                    line.stylize(match_style, max(a, start) - start, min(b, end) - start)
        return Strip(line.render(self.app.console), end - start)

    def _find_count(self) -> int:
        """Lines holding the find text, recounted at most once a second while lines stream in."""
        key = (self.find_text, self.buffer.filter)
        now = monotonic()
        if self._count_key != key or (self._count_total != self.buffer.total and now - self._count_at > 1.0):
            self._count = self.buffer.count_matches(self.find_text)
            self._count_key, self._count_total, self._count_at = key, self.buffer.total, now
        return self._count

    def _match_place(self) -> str:
        """``3/15`` when the cursor is on the 3rd of 15 matching lines, else ``15 lines``."""
        count = self._find_count()
        number = None
        if self.cursor is not None:
            number = self.buffer.match_number(self.find_text, self.buffer.index_of(self.cursor))
        return f"{number:,}/{count:,}" if number is not None else f"{count:,} lines"

    # Title -----------------------------------------------------------------------------------------------

    def update_title(self) -> None:
        buffer = self.buffer
        if self.following:
            self.border_title = "log ▸ following"
        else:
            more = f" · +{self.new_lines:,} new lines" if self.new_lines else ""
            self.border_title = plain(f"log ‖ paused{more} · space/End resumes")
        parts = []
        if buffer.filter is not None:
            parts.append(f"filter {'!' if buffer.filter.inverted else ''}“{buffer.filter.needle}”: "
                         f"{len(buffer):,} of {len(buffer.texts):,}")
        if self.find_text:
            parts.append(f"find “{self.find_text}”: {self._match_place()} · n/N")
        if self.wrap:
            parts.append("wrap")
        if not self.own_polls:
            parts.append("own polls hidden (o)")
        parts.append(f"{len(buffer.texts):,} lines" if buffer.filter is None else "")
        self.border_subtitle = plain(" · ".join(p for p in parts if p))
