"""Smaller checks: mtptui's own range warnings, the spec v2 switch by version, options read from elsewhere."""

from __future__ import annotations

from typing import Iterator

from mtptui.engines.sglang.lint.finding import Finding
from mtptui.engines.sglang.flags.flagset import FlagSet

SPEC_V2 = "SGLANG_ENABLE_SPEC_V2"
SPEC_V2_NOTES = {
    "0.5.23": "SGLang 0.5.23 no longer reads SGLANG_ENABLE_SPEC_V2 (EAGLE-family always uses spec v2).",
    "0.5.2": "SGLang 0.5.2 has no spec v2 (it arrived later as SGLANG_ENABLE_SPEC_V2), so the variable has no effect.",
    "0.4.6.post5": "SGLang 0.4.6.post5 has no spec v2, so SGLANG_ENABLE_SPEC_V2 has no effect.",
}


TRTLLM_GPUS = {"0.5.12.post1": ("Blackwell (SM100)", "TRTLLM MHA backend for prefill is only supported on "
                                 "Blackwell GPUs (SM100). Please use a different prefill backend."),
               "0.5.23": ("Hopper (SM90), Blackwell (SM100) or SM120", "TRTLLM MHA backend for prefill requires "
                          "Hopper (SM90), Blackwell (SM100), or SM120 GPUs. Please use a different prefill backend.")}


def misc(fs: FlagSet, model_arch: str | None) -> Iterator[Finding]:
    yield from _memory(fs)
    yield from _gpu_generation(fs)
    if SPEC_V2 in fs.env and fs.version in SPEC_V2_NOTES:
        yield Finding("info", SPEC_V2, SPEC_V2_NOTES[fs.version], f"drop {SPEC_V2} for SGLang {fs.version}")
    if fs.get("--config") is not None:
        yield Finding("info", "--config", "options in the --config YAML file are merged by SGLang and not checked "
                      "here.", "put the options on the command line to have them checked")


def _gpu_generation(fs: FlagSet) -> Iterator[Finding]:
    """What SGLang refuses on older GPUs: a warning, since the GPU is not known offline."""
    if fs.get("--attention-backend") == "trtllm_mha" and fs.version in TRTLLM_GPUS:
        gpus, text = TRTLLM_GPUS[fs.version]
        yield Finding("warning", "--attention-backend", f"SGLang {fs.version} runs trtllm_mha only on {gpus} GPUs "
                      f"and stops on others (an A6000 is SM86) with \"ValueError: {text}\"; the GPU is not known "
                      "offline.", "use flashinfer, fa3 or triton unless the host has such GPUs")


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
