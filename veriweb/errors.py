"""The small hierarchy of errors veriweb raises; every message says what to do."""

from __future__ import annotations


class VeriwebError(Exception):
    """Base class of every error veriweb raises on purpose."""


class ScaffoldError(VeriwebError):
    """A scaffold is malformed: the message names the JSON path and what was expected."""

    def __init__(self, message: str, *, path: str = "$", source: str = "") -> None:
        prefix = f"{source}: " if source else ""
        super().__init__(f"{prefix}{path}: {message}")
        self.path = path
        self.detail = message
        self.source = source


class ActionSyntaxError(VeriwebError):
    """An action string does not parse; the agent sees this as ``last_action_error``."""


class ActionError(VeriwebError):
    """An action parsed but cannot be carried out here (unknown id, hidden element, ...)."""


class QueryRefused(VeriwebError):
    """A predicate or query tried something the read-only guard forbids."""


class MarkerFailed(VeriwebError):
    """A state-change marker's precondition, parameter check or invariant failed.

    The write was rolled back; ``message`` is what the site shows the user.
    """

    def __init__(self, message: str, *, marker: str, reason: str) -> None:
        super().__init__(message)
        self.marker = marker
        self.reason = reason


class EngineFault(VeriwebError):
    """An internal engine failure (never the agent's fault): report it as an infra error."""
