"""Deterministic pseudo-text for the simulated model: one token is one word-ish piece.

A stand-in for the model's sampler. The same seed and prompt give the same text (as greedy decoding does,
whatever the speculative settings); with ``temperature > 0`` the request counter is mixed in as well.
A thinking model first writes ``<think>`` ... ``</think>`` (reasoning), then the answer (content).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Iterator

from mtptui.sim.jsonbody import Json

THINK_START, THINK_END = "<think>", "</think>"

_REASONING = (
    "Okay, the user wants a red-black tree in Python . Let me think about the invariants first . "
    "Every node is red or black , the root is black , and a red node never has a red child . "
    "Each path from a node down to its leaves has the same number of black nodes . "
    "Insertion adds a red leaf , then fixes violations by recoloring and rotating around the parent . "
    "If the uncle is red , recolor the parent and uncle black and move up to the grandparent . "
    "Otherwise rotate : a left rotation when the node is a right child , then a right rotation at the grandparent . "
    "Deletion is harder , so maybe I should keep a sentinel nil node to simplify the cases . "
    "I should also add an in-order traversal so the user can check the ordering , and a small test ."
).split(" ")

_PROSE = (
    "Here is a complete implementation of a red-black tree with insertion , deletion and search . "
    "The tree keeps itself balanced , so every operation runs in logarithmic time . "
    "A sentinel node stands in for every leaf , which removes most of the special cases . "
    "The fix-up after insertion walks up the tree while the parent is red . "
    "Rotations preserve the ordering of keys while changing the shape of the tree . "
    "You can verify the invariants with the helper below after each operation ."
).split(" ")

_CODE = [
    "class Node:", "    def __init__(self, key, color=RED):", "        self.key = key",
    "        self.color = color", "        self.left = self.right = self.parent = None", "",
    "class RedBlackTree:", "    def __init__(self):", "        self.nil = Node(None, BLACK)",
    "        self.root = self.nil", "", "    def left_rotate(self, x):", "        y = x.right",
    "        x.right = y.left", "        if y.left is not self.nil:", "            y.left.parent = x",
    "        y.parent = x.parent", "        if x.parent is None:", "            self.root = y",
    "        elif x is x.parent.left:", "            x.parent.left = y", "        else:",
    "            x.parent.right = y", "        y.left = x", "        x.parent = y", "",
    "    def insert(self, key):", "        node = Node(key)", "        node.left = node.right = self.nil",
    "        parent, current = None, self.root", "        while current is not self.nil:",
    "            parent = current", "            current = current.left if key < current.key else current.right",
    "        node.parent = parent", "        self._fix_insert(node)", "",
]

_CODE_PIECE = re.compile(r" ?[A-Za-z_]+|\d+|[^\sA-Za-z_\d]| +")


@dataclass(frozen=True)
class Piece:
    """One generated token: ``kind`` is think_start, reasoning, think_end, content or eos."""

    kind: str
    text: str


def _words(words: tuple[str, ...] | list[str], rng: random.Random) -> Iterator[str]:
    """The sentences in order from a random sentence, looping; pieces keep their leading space."""
    starts = [0] + [i + 1 for i, word in enumerate(words[:-1]) if word == "."]
    index = rng.choice(starts)
    while True:
        word = words[index % len(words)]
        yield word if word in ",.:" else " " + word
        index += 1


def _code(rng: random.Random) -> Iterator[str]:
    prose = _words(_PROSE, rng)
    yield "\n\n```python\n"
    index = 0
    while True:
        for piece in _CODE_PIECE.findall(_CODE[index % len(_CODE)]):
            yield piece
        yield "\n"
        index += 1
        if index % len(_CODE) == 0:
            yield "```\n\n"
            for _ in range(rng.randint(12, 30)):
                yield next(prose)
            yield "\n\n```python\n"


def _content(rng: random.Random) -> Iterator[str]:
    prose = _words(_PROSE, rng)
    first = next(prose).lstrip()
    yield first
    for _ in range(rng.randint(15, 40)):
        yield next(prose)
    yield from _code(rng)


def request_rng(seed: int, prompt: str, counter: int, temperature: float) -> random.Random:
    """The sampler's randomness: fixed by seed and prompt; the request counter joins when sampling."""
    salt = f"{seed}\x00{prompt}\x00{counter if temperature > 0 else 0}"
    return random.Random(int.from_bytes(hashlib.sha256(salt.encode()).digest()[:8], "big"))


def generate(rng: random.Random, thinking: bool) -> Iterator[Piece]:
    """An endless token stream; the caller stops at ``max_tokens`` or at the first eos piece."""
    if thinking:
        yield Piece("think_start", THINK_START)
        yield Piece("reasoning", "\n")
        reasoning = _words(_REASONING, rng)
        for _ in range(rng.randint(40, 260)):
            yield Piece("reasoning", next(reasoning))
        yield Piece("reasoning", "\n")
        yield Piece("think_end", THINK_END)
        yield Piece("content", "\n\n")
    natural = rng.randint(120, 700)
    content = _content(rng)
    for _ in range(natural):
        yield Piece("content", next(content))
    yield Piece("eos", "")
    while True:  # ignore_eos: the model keeps writing
        yield Piece("content", next(content))


_PROMPT_PIECE = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")


def text_pieces(text: str) -> list[str]:
    """A text cut into tokens by the same word-ish rule the generator uses."""
    return _PROMPT_PIECE.findall(text)


def count_text_tokens(text: str) -> int:
    """Tokens of a text by the same word-ish rule the generator uses."""
    return len(text_pieces(text))


def count_prompt_tokens(messages: list[Json]) -> int:
    """Chat-template tokens: <|im_start|>role\\n ... <|im_end|>\\n per message, then the assistant header."""
    total = 3
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        total += 4 + count_text_tokens(str(content or ""))
    return total
