"""Helpers the hand-made-set tests share: every dict inside a site's JSON data, clean sites as data, the
static issues of a code found in edited data, and a site with one piece of its JSON text replaced."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from veriweb.generate.domains import MODULES
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues

Data = dict[str, Any]


def dicts(node: Any) -> Iterator[dict[str, Any]]:
    """Each dict in ``node`` (itself included), depth first, in document order."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from dicts(value)
    elif isinstance(node, list):
        for value in node:
            yield from dicts(value)


def clean_sites() -> dict[str, Data]:
    """Seed 0's site of every domain, as JSON data without its id (so that edits need no new id)."""
    out = {}
    for domain in MODULES:
        out[domain] = to_data(generate_site(domain, 0))
        out[domain].pop("id", None)
    return out


def found(data: Data, code: str, said: str) -> list[str]:
    """Where ``static_issues`` finds ``code`` in ``data`` with ``said`` in its message."""
    return [i.location for i in static_issues(from_data(data, check_id=False)) if i.code == code and said in i.message]


def site_data(site: Site) -> Data:
    """A site as JSON data without its id (so that edits need no new id)."""
    data = to_data(site)
    data.pop("id", None)
    return data


def messages(site: Site, code: str) -> list[str]:
    """The messages of the static issues of ``code`` on ``site``."""
    return [i.message for i in static_issues(site) if i.code == code]


def planted(clean: Site, old: str, new: str) -> Site:
    """``clean`` with the first ``old`` of its JSON text written as ``new`` (which must be there)."""
    import json

    text = json.dumps(site_data(clean))
    assert old in text, old
    return from_data(json.loads(text.replace(old, new, 1)), check_id=False)


def same(a: Site, b: Site) -> bool:
    """Whether two sites are the same data (ids aside)."""
    import json

    return json.dumps(site_data(a)) == json.dumps(site_data(b))


def edited(domain: str, edit: Any) -> tuple[Site, Site]:
    """Seed 0's site of ``domain``, and that site with ``edit`` (a function of its JSON data) applied."""
    clean = generate_site(domain, 0)
    data = site_data(clean)
    edit(data)
    return clean, from_data(data, check_id=False)


def said(site: Site, code: str, words: str) -> list[str]:
    """The messages of ``code`` on ``site`` that say ``words``."""
    return [m for m in messages(site, code) if words in m]
