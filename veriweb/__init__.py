"""veriweb: verified, deterministic websites for training and evaluating web agents."""

from __future__ import annotations

__version__ = "0.1.0"
