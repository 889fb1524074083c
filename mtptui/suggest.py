"""Did you mean …? The closest of the names a user could have meant, for a sentence that refuses a word."""

from __future__ import annotations

from difflib import get_close_matches
from typing import Iterable

CUTOFF = 0.6  # difflib's ratio: 'ct12' → 'ct129', 'benhc' → 'bench', not 'demo' → 'tune'


def closest(word: str, names: Iterable[str], count: int = 2) -> list[str]:
    """Up to ``count`` names close to ``word``, the closest first (none for an exact name or nothing close)."""
    choices = sorted(set(names))
    return [] if word in choices else get_close_matches(word, choices, n=count, cutoff=CUTOFF)
