"""Textual app, screens and widgets: the only layer that imports Textual."""
