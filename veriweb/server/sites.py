"""The sites one server serves, each under its own path (``/s/NAME/``): one port for all of them."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from veriweb.errors import VeriwebError
from veriweb.scaffold import Site

SITE_ROOT = "/s"
"""Where sites live on the server: ``/s/NAME/...``."""


@dataclass(frozen=True)
class Catalog:
    """Sites by slug, in the order given."""

    sites: dict[str, Site]

    @classmethod
    def of(cls, sites: Iterable[Site]) -> Catalog:
        """A catalog of ``sites``; slugs come from site names, made unique with ``-2``, ``-3``, ..."""
        found: dict[str, Site] = {}
        for site in sites:
            base = slugify(site.name)
            slug, number = base, 1
            while slug in found:
                number += 1
                slug = f"{base}-{number}"
            found[slug] = site
        if not found:
            raise VeriwebError("no sites to serve; give a site file, a bundled example name or a corpus directory")
        return cls(found)

    @classmethod
    def load(cls, refs: Iterable[str | None]) -> Catalog:
        """Load sites from site files, bundled example names (``shop``) or corpus directories."""
        from veriweb.cli import load_site
        from veriweb.generate.corpus import load_sites

        sites: list[Site] = []
        for ref in refs:
            if ref is not None and Path(ref).is_dir():
                sites.extend(load_sites(ref))
            else:
                sites.append(load_site(ref))
        return cls.of(sites)

    def prefix(self, slug: str) -> str:
        """The path of a site on the server, such as ``/s/shop``."""
        return f"{SITE_ROOT}/{slug}"

    def get(self, slug: str) -> Site:
        """The site called ``slug``.

        Raises:
            KeyError: no such site (the message lists a few known ones).
        """
        site = self.sites.get(slug)
        if site is None:
            known = ", ".join(list(self.sites)[:8])
            raise KeyError(f"no site {slug!r} on this server; sites are: {known}")
        return site


def slugify(name: str) -> str:
    """A path-safe site name: lower-case letters, digits and dashes."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return slug or "site"
