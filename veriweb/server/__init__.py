"""Serve sites over HTTP: the engine's HTML for real browsers, and a control and state API.

Needs the ``server`` extra (``pip install 'veriweb[server]'``). ``veriweb serve`` runs
:func:`create_app` under uvicorn; :class:`veriweb.client.Client` talks to its API. Importing
this package loads nothing heavy (so the ``veriweb`` command works without the extra).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Catalog", "ServerState", "create_app"]


def __getattr__(name: str) -> Any:
    if name in ("ServerState", "create_app"):
        from veriweb.server import app

        return getattr(app, name)
    if name == "Catalog":
        from veriweb.server.sites import Catalog

        return Catalog
    raise AttributeError(f"module 'veriweb.server' has no attribute {name!r}")
