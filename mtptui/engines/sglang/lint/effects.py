"""What a speculative or capacity flag's value does to serving, in one line: the diff's effect line.

``effect_line(flag, values)`` reads the values as a diff resolves them (``"1"``, ``"2 (auto)"``, ``"unset
(default 0.9)"``) and says, per value, what it means for the server (``steps 1`` → a verify accepts at most 2
tokens; ``max-running-requests 1`` → no batching). These are mtptui's words about SGLang's documented behaviour,
not SGLang's help text (that is ``mtptui.engines.sglang.flags.help_text``). Flags outside the two groups have none.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

NUMBER = re.compile(r"-?\d+(\.\d+)?")


def number(value: str | None) -> float | None:
    """The leading number of a resolved value (``"2 (auto)"`` → 2.0); None for ``unset``, ``auto``, text."""
    match = NUMBER.match(value or "")
    return float(match.group()) if match else None


def _default(value: str | None) -> float | None:
    """The number of ``unset (default 0.9)``, else the value's own."""
    if value and value.startswith("unset (default "):
        return number(value.removeprefix("unset (default "))
    return number(value)


def _numbered(unknown: str, said: Callable[[float], str], read: Callable[[str | None], float | None] = number
              ) -> Callable[[str | None], str]:
    """A phrase for a numeric value: ``said(number)``, or ``unknown`` where the value has no number."""
    def phrase(value: str | None) -> str:
        found = read(value)
        return unknown if found is None else said(found)

    return phrase


def _topk(topk: float) -> str:
    return "one chain" if topk == 1 else f"a tree of {topk:g} branches"


def _running(count: float) -> str:
    return "1 request: no batching, a second one waits" if count == 1 else f"up to {count:g} requests"


def _algorithm(value: str | None) -> str:
    word = (value or "").split(" ")[0].upper()
    if word in ("", "UNSET", "NONE"):
        return "none: one token per step"
    if word == "NEXTN":
        return "the model's own MTP head (run as EAGLE)"
    return f"{word}, verified by the target"


def _mamba_strategy(value: str | None) -> str:
    word = (value or "").split(" ")[0]
    if word == "extra_buffer":
        return "extra (speculation on a hybrid model needs them)"
    return "none extra" if word in ("", "unset") else word


EFFECTS: dict[str, tuple[str, Callable[[str | None], str]]] = {
    "--speculative-algorithm": ("drafting by", _algorithm),
    "--speculative-num-steps": ("a verify accepts at most",
                                _numbered("1 token (no drafts)", lambda steps: f"{steps + 1:g} tokens")),
    "--speculative-num-draft-tokens": ("per step the target checks", _numbered("none", lambda n: f"{n:g} tokens")),
    "--speculative-eagle-topk": ("drafts per step form", _numbered("—", _topk)),
    "--max-running-requests": ("decoding together:", _numbered("as many requests as the KV pool holds", _running)),
    "--mem-fraction-static": ("weights and KV pool take", _numbered(
        "a share chosen from the GPU's memory", lambda share: f"{share:.0%} of the GPU", _default)),
    "--context-length": ("the longest request:", _numbered("the model's own maximum", lambda n: f"{n:,.0f} tokens")),
    "--mamba-full-memory-ratio": ("mamba state, against the full-attention KV:",
                                  _numbered("—", lambda ratio: f"{ratio:g}x", _default)),
    "--mamba-scheduler-strategy": ("mamba state buffers:", _mamba_strategy),
    "--max-total-tokens": ("the KV pool holds", _numbered("chosen by SGLang", lambda n: f"{n:,.0f} tokens")),
    "--chunked-prefill-size": ("a prefill step takes",
                               _numbered("chosen by SGLang", lambda n: f"{n:,.0f} prompt tokens")),
    "--cuda-graph-max-bs": ("the largest CUDA-graph batch:",
                            _numbered("chosen by SGLang", lambda n: f"{n:,.0f} requests")),
}


def effect_line(flag: str, values: Sequence[str | None], sides: Sequence[str] = ()) -> str | None:
    """``a verify accepts at most 2 tokens (running) · 4 tokens (unit, known-good)``: one phrase per distinct
    value, with the sides that have it when ``sides`` names them; None for a flag outside the two groups."""
    known = EFFECTS.get(flag)
    if known is None:
        return None
    what, phrase = known
    by_phrase: dict[str, list[str]] = {}
    for index, value in enumerate(values):
        by_phrase.setdefault(phrase(value), []).append(sides[index] if index < len(sides) else "")
    if len(by_phrase) == 1:
        return f"{what} {next(iter(by_phrase))}"
    said = [f"{text} ({', '.join(filter(None, who))})" if any(who) else text for text, who in by_phrase.items()]
    return f"{what} {' · '.join(said)}"
