"""What a site is: typed models, canonical JSON and content-hash ids. Imports nothing else of veriweb
but its errors."""

from __future__ import annotations

from veriweb.scaffold.io import dumps, from_data, json_schema, load, loads, save, site_id
from veriweb.scaffold.site import SCHEMA_VERSION, Page, Site, Task

__all__ = [
    "SCHEMA_VERSION", "Page", "Site", "Task", "dumps", "from_data", "json_schema", "load", "loads",
    "save", "site_id",
]
