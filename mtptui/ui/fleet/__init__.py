"""The fleet screen of `mtptui fleet` and its app (Textual; the figures come from mtptui.fleet)."""
