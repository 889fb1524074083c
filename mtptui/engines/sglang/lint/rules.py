"""Lint a FlagSet with SGLang's own rules: what it rejects, what it silently changes, what crashed the mission.

Each Finding says, in one sentence, what is wrong or what SGLang will do, how to fix it, and
``engine_message`` (``sglang_message`` in the JSON): the exact text SGLang itself prints or raises for that case
(None when SGLang says nothing and the rule is ours). An error with an SGLang message stops the server at start.
"""

from __future__ import annotations

from mtptui.engines.sglang.lint.finding import SEVERITIES, Finding
from mtptui.engines.sglang.flags.flagset import FlagSet
from mtptui.engines.sglang.lint.rules_incident import incident_shape
from mtptui.engines.sglang.lint.rules_mamba import hybrid_mamba
from mtptui.engines.sglang.lint.rules_misc import misc
from mtptui.engines.sglang.lint.rules_server import data_parallel, server_checks
from mtptui.engines.sglang.lint.rules_spec import Rule, deprecated_options, speculative

__all__ = ["Finding", "RULES", "SEVERITIES", "lint"]

# SGLang's order: argparse (deprecated options raise there), model adjustments (mamba cache), DP attention,
# speculative handling, check_server_args; then mtptui's own warnings. The first error is what the server dies of.
RULES: list[Rule] = [deprecated_options, hybrid_mamba, data_parallel, speculative, server_checks, misc,
                     incident_shape]


def lint(fs: FlagSet, model_arch: str | None = None) -> list[Finding]:
    """Every finding for a parsed flag set, in the order SGLang would hit them at start."""
    return [finding for rule in RULES for finding in rule(fs, model_arch)]
