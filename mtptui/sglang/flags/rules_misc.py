"""Smaller checks: mtptui's own range warnings, the spec v2 switch by version, options read from elsewhere."""

from __future__ import annotations

from typing import Iterator

from mtptui.sglang.flags.finding import Finding
from mtptui.sglang.flags.flagset import FlagSet

SPEC_V2 = "SGLANG_ENABLE_SPEC_V2"
SPEC_V2_NOTES = {
    "0.5.23": "SGLang 0.5.23 no longer reads SGLANG_ENABLE_SPEC_V2 (EAGLE-family always uses spec v2).",
    "0.5.2": "SGLang 0.5.2 has no spec v2 (it arrived later as SGLANG_ENABLE_SPEC_V2), so the variable has no effect.",
    "0.4.6.post5": "SGLang 0.4.6.post5 has no spec v2, so SGLANG_ENABLE_SPEC_V2 has no effect.",
}


def misc(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    yield from _memory(fs)
    if SPEC_V2 in fs.env and fs.version in SPEC_V2_NOTES:
        yield Finding("info", SPEC_V2, SPEC_V2_NOTES[fs.version], f"drop {SPEC_V2} for SGLang {fs.version}")
    if fs.get("--config") is not None:
        yield Finding("info", "--config", "options in the --config YAML file are merged by SGLang and not checked "
                      "here.", "put the options on the command line to have them checked")


OWN = "mtptui's own check, SGLang starts with it"


def _memory(fs: FlagSet) -> Iterator[Finding]:
    """Ranges SGLang does not check at start (the failure comes later, or never): warnings of mtptui's own."""
    fraction = fs.get("--mem-fraction-static")
    if fraction is not None and not 0 < fraction < 1:
        yield Finding("warning", "--mem-fraction-static", f"--mem-fraction-static {fraction} is not a fraction "
                      f"of GPU memory between 0 and 1 ({OWN}; the memory pool then fails or starves).",
                      "use a value such as 0.85, or leave it unset for auto")
    ratio = fs.get("--mamba-full-memory-ratio")
    if ratio is not None and ratio <= 0:
        yield Finding("warning", "--mamba-full-memory-ratio", f"--mamba-full-memory-ratio must be positive to size "
                      f"the mamba cache ({OWN}).", "use a value such as 0.5, or leave it unset")
