"""Every dict inside a site's JSON data, for tests that edit one element wherever it sits."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def dicts(node: Any) -> Iterator[dict[str, Any]]:
    """Each dict in ``node`` (itself included), depth first, in document order."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from dicts(value)
