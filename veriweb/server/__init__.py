"""Serve sites over HTTP: the engine's HTML for real browsers, and a control and state API.

Needs the ``server`` extra (``pip install 'veriweb[server]'``). ``veriweb serve`` runs
:func:`create_app` under uvicorn; :class:`veriweb.client.Client` talks to its API.
"""

from __future__ import annotations

from veriweb.server.app import ServerState, create_app
from veriweb.server.sites import Catalog

__all__ = ["Catalog", "ServerState", "create_app"]
