"""Seeds: one named random stream per generation stage, so changing one stage never reshuffles another."""

from __future__ import annotations

import hashlib
import random

GENERATOR_VERSION = "veriweb-gen/5"
"""Part of every generated site's content (and so of its id): a corpus says which code made it."""

STAGES = ("structure", "content", "tasks")


def derive(*parts: object) -> int:
    """A 64-bit seed derived from ``parts`` (stable across processes and Python versions)."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


class StageRandom(random.Random):
    """A stage's random stream; ``vocab_part`` (0 or 1) restricts labels to half of each synonym list."""

    vocab_part: int | None = None


class Streams:
    """The random streams of one site: ``structure`` (pages, navigation, labels, widgets),
    ``content`` (records) and ``tasks`` (which tasks, slots and phrasings).

    Args:
        seed: the site's seed.
        domain: the site's domain (part of every stream's seed).
    """

    def __init__(self, seed: int, domain: str, *, vocab_part: int | None = None) -> None:
        self.seed = seed
        self.domain = domain
        self.structure = StageRandom(derive(GENERATOR_VERSION, domain, seed, "structure"))
        self.structure.vocab_part = vocab_part
        self.content = random.Random(derive(GENERATOR_VERSION, domain, seed, "content"))
        self.tasks = random.Random(derive(GENERATOR_VERSION, domain, seed, "tasks"))

    def sub(self, name: str) -> random.Random:
        """An extra stream for a named sub-stage (e.g. one table's rows)."""
        return random.Random(derive(GENERATOR_VERSION, self.domain, self.seed, name))
