"""Real Chromium on served sites: drive it with engine actions, read its accessibility tree, prove parity.

Needs the ``browser`` extra (Playwright, driving Debian's ``chromium``; no browser download).
"""

from __future__ import annotations
