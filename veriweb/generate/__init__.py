"""Blueprints per domain, the task plans, and corpus generation."""

from __future__ import annotations

from veriweb.generate.site import available_domains, generate_site
from veriweb.generate.streams import GENERATOR_VERSION

__all__ = ["GENERATOR_VERSION", "available_domains", "generate_site"]
