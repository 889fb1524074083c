"""SGLang's rules on a launch, and the lint built on them: what SGLang rejects, what it silently changes, what
crashed the mission, and what each flag's value does to serving.

``rules`` (with ``rules_*``) judges a FlagSet of mtptui.engines.sglang.flags; ``check`` runs SGLang's argument stage
as the offline table knows it and lints past the first problem; ``options`` explains options a release rejects;
``verdict`` says where a lint verdict comes from (the host's own SGLang, run by ``sglang_runner`` with its
``sglang_standins``, or the offline table); ``effects`` and ``explain`` say in words what a diff row means.
Nothing here is imported by mtptui.engines.sglang.flags: the rules build on the parsing, never the other way round.
"""

from mtptui.engines.sglang.lint.check import check_launch, lint_argv, lint_flagset, lint_profile
from mtptui.engines.sglang.lint.rules import Finding, lint

__all__ = ["Finding", "check_launch", "lint", "lint_argv", "lint_flagset", "lint_profile"]
