"""The unit environment a restart writes, as the plan shows it (its rules live in mtptui.remote.unitenv)."""

from __future__ import annotations

from mtptui.remote.unitenv import ENV_HEADING, EnvChange, merge_env, shown_changes

__all__ = ["ENV_HEADING", "EnvChange", "merge_env", "shown_changes"]
