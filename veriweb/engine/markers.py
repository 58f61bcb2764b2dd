"""Running a state-change marker: typed parameters, preconditions, effects in one transaction, invariants."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from veriweb.engine.database import Database
from veriweb.engine.query import Context, holds
from veriweb.errors import MarkerFailed, VeriwebError
from veriweb.scaffold.site import Marker, MarkerParam


@dataclass(frozen=True)
class MarkerResult:
    """A marker that committed: its name, its coerced arguments and the id it inserted, if any."""

    marker: str
    args: tuple[tuple[str, Any], ...]
    last_id: int | None


_MONEY = re.compile(r"^\s*(-)?\s*(?:USD|US\$|\$)?\s*(-)?\s*([0-9][0-9,]*(?:\.[0-9]{1,2})?|\.[0-9]{1,2})\s*(?:USD|dollars?)?\s*$",
                    re.IGNORECASE)


def coerce(param: MarkerParam, raw: Any) -> Any:
    """Turn a submitted value into the parameter's type.

    Raises:
        ValueError: with the message the site shows ("Quantity must be a whole number.").
    """
    label = param.label or param.name.replace("_", " ").capitalize()
    if raw is None or (isinstance(raw, str) and raw.strip() == ""):
        if param.required and param.type != "boolean":
            raise ValueError(f"{label} is required.")
        return False if param.type == "boolean" else None
    text = raw.strip() if isinstance(raw, str) else raw
    value: Any
    if param.type == "integer":
        if isinstance(text, bool) or not re.fullmatch(r"-?\d{1,15}", str(text)):
            raise ValueError(f"{label} must be a whole number.")
        value = int(text)
    elif param.type == "real":
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise ValueError(f"{label} must be a number.") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{label} must be a number.")
    elif param.type == "money":
        if isinstance(text, int) and not isinstance(text, bool):
            value = text  # already cents (a reference to a money column)
        else:
            found = _MONEY.match(str(text))
            if not found:
                raise ValueError(f"{label} must be an amount such as 12.50.")
            try:
                amount = Decimal(found.group(3).replace(",", ""))
            except InvalidOperation:
                raise ValueError(f"{label} must be an amount such as 12.50.") from None
            value = int(amount * 100) * (-1 if (found.group(1) or found.group(2)) else 1)
    elif param.type == "boolean":
        value = str(text).lower() in ("on", "true", "1", "yes")
    elif param.type in ("date", "datetime"):
        try:
            value = (dt.date.fromisoformat(str(text)) if param.type == "date"
                     else dt.datetime.fromisoformat(str(text))).isoformat()
        except ValueError:
            raise ValueError(f"{label} must be a date (YYYY-MM-DD).") from None
    else:
        value = str(text)
        if param.min_length is not None and len(value) < param.min_length:
            raise ValueError(f"{label} must be at least {param.min_length} characters.")
        if param.max_length is not None and len(value) > param.max_length:
            raise ValueError(f"{label} must be at most {param.max_length} characters.")
    if param.choices is not None and str(value) not in param.choices:
        raise ValueError(f"{label} must be one of: {', '.join(param.choices)}.")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        scale = 100 if param.type == "money" else 1
        if param.min is not None and value < param.min * scale:
            raise ValueError(f"{label} must be at least {_num(param.min, param.type)}.")
        if param.max is not None and value > param.max * scale:
            raise ValueError(f"{label} must be at most {_num(param.max, param.type)}.")
    return value


def _num(bound: float, kind: str) -> str:
    if kind == "money":
        return f"${bound:,.2f}"
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def run_marker(db: Database, marker: Marker, raw_args: dict[str, Any], ctx: Context) -> MarkerResult:
    """Check and apply a marker; on any failure nothing is written.

    Args:
        db: the session's database.
        marker: the marker to run.
        raw_args: submitted values by parameter name (strings from forms, or typed values).
        ctx: the context (user, clock) in which checks run; ``param.*`` is filled here.

    Raises:
        MarkerFailed: a parameter, precondition or invariant check failed, or an effect
            failed; its message is what the site shows.
    """
    if marker.requires_login and not ctx.user:
        raise MarkerFailed("Please log in first.", marker=marker.name, reason="login required")
    args: dict[str, Any] = {}
    for param in marker.params:
        try:
            args[param.name] = coerce(param, raw_args.get(param.name))
        except ValueError as exc:
            raise MarkerFailed(str(exc), marker=marker.name, reason=f"parameter {param.name}") from None
    check_ctx = Context(param=args, user=ctx.user, clock=ctx.clock, slot=ctx.slot)
    for number, check in enumerate(marker.preconditions):
        if not _holds(db, check.predicate, check_ctx, marker, f"precondition {number}"):
            raise MarkerFailed(check.message, marker=marker.name, reason=f"precondition {number}")
    bind = dict(args)
    bind.update(user_id=ctx.user.get("id"), today=ctx.clock.get("today"), now=ctx.clock.get("now"))
    last_id: int | None = None
    db.guard.engine("SAVEPOINT vw_marker")
    try:
        for number, effect in enumerate(marker.effects):
            try:
                cursor = db.guard.write(effect.table, effect.sql, bind)
            except VeriwebError as exc:
                raise MarkerFailed(marker.message, marker=marker.name, reason=f"effect {number}: {exc}") from None
            if effect.op == "insert" and last_id is None:
                last_id = cursor.lastrowid
        for number, check in enumerate(marker.invariants):
            if not _holds(db, check.predicate, check_ctx, marker, f"invariant {number}"):
                raise MarkerFailed(check.message, marker=marker.name, reason=f"invariant {number}")
    except BaseException:
        db.guard.engine("ROLLBACK TO vw_marker")
        db.guard.engine("RELEASE vw_marker")
        raise
    db.guard.engine("RELEASE vw_marker")
    return MarkerResult(marker.name, tuple(sorted(args.items())), last_id)


def _holds(db: Database, predicate: Any, ctx: Context, marker: Marker, where: str) -> bool:
    try:
        return holds(db.guard, predicate, ctx)
    except VeriwebError as exc:
        raise MarkerFailed(marker.message, marker=marker.name, reason=f"{where}: {exc}") from None
