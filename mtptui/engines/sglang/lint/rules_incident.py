"""mtptui's judgment on the mission's incident shape: launches SGLang starts without a word, that serve slowly.

Warnings only (SGLang starts with them, so lint still exits 0): one MTP step drafts a single token, so a verify
accepts at most two (the bad redeploy ran ~35 tok/s where three steps gave ~55 on the same host), and
``--max-running-requests 1`` turns batching off (a second request waits for the first to finish).
"""

from __future__ import annotations

from typing import Iterator

from mtptui.engines.sglang.flags.effective import ALGO, DRAFT, MRR, STEPS, TOPK, resolve_spec
from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet

JUDGED = "mtptui's judgment: SGLang starts with it"


def incident_shape(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    yield from _one_mtp_step(fs, model_arch)
    if fs.get(MRR) == 1:
        yield Finding("warning", MRR, f"{MRR} 1 turns batching off: a second request waits until the first one "
                      f"is done ({JUDGED}; the mission's redeploy had it).",
                      f"raise it (the mission's known-good unit ran {MRR} 16), unless the server has one user")


def _one_mtp_step(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    """NEXTN names the model's own MTP head; one step of it drafts one token per verify."""
    if str(fs.get(ALGO) or "").upper() != "NEXTN":
        return
    spec = resolve_spec(fs, model_arch)
    steps = spec.values.get(STEPS)
    if spec.error is None and steps is not None and steps.value == 1:
        yield Finding("warning", STEPS, f"one MTP step drafts a single token, so a verify accepts at most 2 "
                      f"({JUDGED}; the mission's redeploy ran ~35 tok/s with it, ~55 with 3 steps).",
                      f"set {STEPS} 3 {TOPK} 1 {DRAFT} 4, or measure the steps with `mtptui tune`")
