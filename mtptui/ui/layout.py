"""Terminal-size classes: every screen gets one width class and one height class, set by Textual on resize.

The .tcss files lay each screen out per class (``Screen.-narrow #row-top {...}``), so a pane added later takes
its rules from the same three sizes instead of measuring the terminal itself. The sizes mtptui is drawn for
are 80x24 (-narrow -short), 100x30 (-medium -mid) and 160x48 (-wide -tall).

A new dashboard pane follows the panes around it: hidden under -narrow and -short (the strip,
mtptui/ui/widgets/stats_strip.py, carries the essentials there), a fixed compact height under -mid, and the
log keeps at least 10 rows at every size (tests/test_ui_sizes.py checks it).
"""

from __future__ import annotations

WIDTHS = [(0, "-narrow"), (100, "-medium"), (140, "-wide")]
HEIGHTS = [(0, "-short"), (30, "-mid"), (40, "-tall")]
