"""Use cases shared by the dashboard and the headless commands: connect, follow, diff, restart, bench."""
