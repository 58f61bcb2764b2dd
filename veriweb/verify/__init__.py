"""Verification: checks, repairs, certificates found by search, and reports."""

from __future__ import annotations

from veriweb.verify.search import Result, oracle, solve

__all__ = ["Result", "oracle", "solve"]
