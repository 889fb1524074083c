"""Command line: argument parsing and headless subcommands (no Textual at import time)."""
