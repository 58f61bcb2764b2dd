"""Domain blueprints, one module each, registered from this table (imported when first used)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

MODULES = {
    "shop": "veriweb.generate.domains.shop",
    "admin": "veriweb.generate.domains.admin",
    "forum": "veriweb.generate.domains.forum",
    "code": "veriweb.generate.domains.code",
    "travel": "veriweb.generate.domains.travel",
    "mail": "veriweb.generate.domains.mail",
}


class _Blueprints(Mapping[str, Callable[..., Any]]):
    """Domain name to its blueprint's ``build`` function; modules load on first use."""

    def __getitem__(self, domain: str) -> Callable[..., Any]:
        return importlib.import_module(MODULES[domain]).build

    def __iter__(self) -> Iterator[str]:
        return iter(MODULES)

    def __len__(self) -> int:
        return len(MODULES)


BLUEPRINTS = _Blueprints()
