"""The action grammar: BrowserGym-style action strings parsed into typed, frozen actions.

An agent sends one call such as ``click('12')`` or ``fill("a3", "hello\\nworld")``. A small
tokenizer and a recursive-descent parser turn it into an :class:`Action`; nothing is ever
evaluated. Each action is documented once, in its docstring, which also gives the prompt text
(:func:`action_prompt`) and the examples the tests parse.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, NamedTuple

from veriweb.errors import ActionSyntaxError

__all__ = [
    "ACTIONS", "BUTTONS", "MAX_ACTION_LENGTH", "MODIFIERS", "Action", "Check", "Clear", "Click",
    "DblClick", "ElementAction", "Fill", "Focus", "GoBack", "GoForward", "Goto", "Hover", "Noop",
    "Press", "ReportInfeasible", "Scroll", "SelectOption", "SendMsgToUser", "Uncheck",
    "action_examples", "action_prompt", "format_action", "parse_action",
]

MAX_ACTION_LENGTH = 10_000
BUTTONS = ("left", "middle", "right")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")

# ----------------------------------------------------------------------------- the actions


@dataclass(frozen=True, slots=True)
class Action:
    """Base class of every action; ``name`` is its function name in the action syntax."""

    name: ClassVar[str] = ""

    @property
    def bid(self) -> str | None:
        """The id of the element the action targets, or ``None`` if it targets none."""
        return None

    def __str__(self) -> str:
        return format_action(self)


@dataclass(frozen=True, slots=True)
class ElementAction(Action):
    """Base class of the actions on one element, named by its ``bid``."""

    # ``field()`` because a bare annotation would take the inherited property as its default.
    bid: str = field()


@dataclass(frozen=True, slots=True)
class Click(ElementAction):
    """Click an element, optionally with another mouse button or while holding modifier keys.

    Examples:
        click('a51')
        click('b22', button='right')
        click('48', button='middle', modifiers=['Shift'])
    """

    name: ClassVar[str] = "click"
    button: str = "left"
    modifiers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class DblClick(ElementAction):
    """Double-click an element, optionally with another mouse button or modifier keys.

    Examples:
        dblclick('12')
        dblclick('ca42', button='right')
        dblclick('178', modifiers=['ControlOrMeta'])
    """

    name: ClassVar[str] = "dblclick"
    button: str = "left"
    modifiers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Hover(ElementAction):
    """Move the mouse over an element.

    Examples:
        hover('b8')
    """

    name: ClassVar[str] = "hover"


@dataclass(frozen=True, slots=True)
class Fill(ElementAction):
    """Replace the text of an input, textarea or editable element with the given value.

    Examples:
        fill('237', 'example value')
        fill('45', 'first line\\nsecond line')
        fill('a12', "it's \\"quoted\\"")
    """

    name: ClassVar[str] = "fill"
    value: str


@dataclass(frozen=True, slots=True)
class Clear(ElementAction):
    """Empty an input field.

    Examples:
        clear('996')
    """

    name: ClassVar[str] = "clear"


@dataclass(frozen=True, slots=True)
class SelectOption(ElementAction):
    """Select one or several options of a <select> element, by value or by label.

    Examples:
        select_option('a48', 'blue')
        select_option('c48', ['red', 'green', 'blue'])
    """

    name: ClassVar[str] = "select_option"
    options: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Check(ElementAction):
    """Make sure a checkbox or radio button is checked.

    Examples:
        check('55')
    """

    name: ClassVar[str] = "check"


@dataclass(frozen=True, slots=True)
class Uncheck(ElementAction):
    """Make sure a checkbox is unchecked.

    Examples:
        uncheck('a5289')
    """

    name: ClassVar[str] = "uncheck"


@dataclass(frozen=True, slots=True)
class Press(ElementAction):
    """Focus an element and press a key or key combination such as Enter or Control+a.

    Key names follow KeyboardEvent.key: Enter, Tab, Escape, Backspace, Delete, ArrowUp,
    ArrowDown, ArrowLeft, ArrowRight, Home, End, PageUp, PageDown, F1 to F12, or a single
    character. Join modifiers (Alt, Control, ControlOrMeta, Meta, Shift) with '+'.

    Examples:
        press('88', 'Enter')
        press('a26', 'Control+a')
        press('a61', 'ArrowDown')
    """

    name: ClassVar[str] = "press"
    key: str


@dataclass(frozen=True, slots=True)
class Focus(ElementAction):
    """Give the keyboard focus to an element.

    Examples:
        focus('b455')
    """

    name: ClassVar[str] = "focus"


@dataclass(frozen=True, slots=True)
class Scroll(Action):
    """Scroll the page by a number of pixels; positive is right or down, negative left or up.

    Examples:
        scroll(0, 200)
        scroll(-50.2, -100.5)
    """

    name: ClassVar[str] = "scroll"
    delta_x: float
    delta_y: float


@dataclass(frozen=True, slots=True)
class Goto(Action):
    """Open a URL in the current tab.

    Examples:
        goto('http://www.example.com')
    """

    name: ClassVar[str] = "goto"
    url: str


@dataclass(frozen=True, slots=True)
class GoBack(Action):
    """Go back to the previous page in the history.

    Examples:
        go_back()
    """

    name: ClassVar[str] = "go_back"


@dataclass(frozen=True, slots=True)
class GoForward(Action):
    """Go forward to the next page in the history.

    Examples:
        go_forward()
    """

    name: ClassVar[str] = "go_forward"


@dataclass(frozen=True, slots=True)
class SendMsgToUser(Action):
    """Send a message to the user, for instance the answer to their question.

    Examples:
        send_msg_to_user('Based on the results of my search, the city was founded in 1751.')
    """

    name: ClassVar[str] = "send_msg_to_user"
    text: str


@dataclass(frozen=True, slots=True)
class ReportInfeasible(Action):
    """Tell the user that their instructions cannot be carried out, and why.

    Examples:
        report_infeasible('There is no email field in this form.')
    """

    name: ClassVar[str] = "report_infeasible"
    reason: str


@dataclass(frozen=True, slots=True)
class Noop(Action):
    """Do nothing, and wait for the given number of milliseconds.

    Examples:
        noop()
        noop(500)
    """

    name: ClassVar[str] = "noop"
    wait_ms: float = 1000


ACTIONS: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (
        Click, DblClick, Hover, Fill, Clear, SelectOption, Check, Uncheck, Press, Focus,
        Scroll, Goto, GoBack, GoForward, SendMsgToUser, ReportInfeasible, Noop,
    )
}

# ----------------------------------------------------------------------------- argument checks


@dataclass(frozen=True, slots=True)
class _Number:
    """A number literal, kept as written (a bid or a fill value is the text itself)."""

    text: str
    is_int: bool


class _BadValue(Exception):
    """An argument has the wrong type or value; the message completes "argument 'x' ..."."""


def _show(value: object) -> str:
    """A short rendering of a literal for error messages."""
    if isinstance(value, str):
        text = _quote(value)
        return text if len(text) <= 40 else text[:36] + "...'"
    if isinstance(value, _Number):
        return value.text if len(value.text) <= 40 else value.text[:36] + "..."
    return "a list" if isinstance(value, list) else repr(value)


def _string(value: object) -> str:
    if isinstance(value, str):
        return value
    raise _BadValue(f"must be a string, got {_show(value)}")


def _nonempty(value: object) -> str:
    if not (text := _string(value)):
        raise _BadValue("must not be empty")
    return text


def _bid(value: object) -> str:
    if isinstance(value, str) and value:
        return value
    if isinstance(value, _Number) and value.is_int and not value.text.startswith("-"):
        return value.text
    raise _BadValue(f"must be an element id such as '12' or 'a3', got {_show(value)}")


def _fill_value(value: object) -> str:
    return value.text if isinstance(value, _Number) else _string(value)


def _button(value: object) -> str:
    if isinstance(value, str) and value in BUTTONS:
        return value
    raise _BadValue(f"must be one of {', '.join(map(_quote, BUTTONS))}, got {_show(value)}")


def _modifiers(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _BadValue(f"must be a list such as ['Shift'], got {_show(value)}")
    for item in value:
        if not (isinstance(item, str) and item in MODIFIERS):
            allowed = ", ".join(map(_quote, MODIFIERS))
            raise _BadValue(f"may only hold {allowed}, got {_show(item)}")
    return tuple(value)


def _options(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise _BadValue(f"must be a string or a list of strings, got {_show(value)}")


def _float(value: object) -> float:
    if not isinstance(value, _Number):
        raise _BadValue(f"must be a number, got {_show(value)}")
    number = float(value.text)
    if not math.isfinite(number):
        raise _BadValue(f"is out of range, got {_show(value)}")
    return number


def _wait(value: object) -> float:
    if (number := _float(value)) < 0:
        raise _BadValue(f"must not be negative, got {_show(value)}")
    return number


# How each dataclass field is checked: (argument name, type shown in signatures, converter).
_ARGUMENTS: dict[str, tuple[str, str, Callable[[object], object]]] = {
    "bid": ("bid", "str", _bid),
    "button": ("button", "str", _button),
    "modifiers": ("modifiers", "list[str]", _modifiers),
    "value": ("value", "str", _fill_value),
    "options": ("options", "str | list[str]", _options),
    "key": ("key_comb", "str", _nonempty),
    "delta_x": ("delta_x", "float", _float),
    "delta_y": ("delta_y", "float", _float),
    "url": ("url", "str", _nonempty),
    "text": ("text", "str", _string),
    "reason": ("reason", "str", _string),
    "wait_ms": ("wait_ms", "float", _wait),
}


class _Param(NamedTuple):
    name: str
    field: str
    annotation: str
    convert: Callable[[object], object]
    default: Any  # a field value, or MISSING when the argument is required


_PARAMS: dict[type[Action], tuple[_Param, ...]] = {
    cls: tuple(_Param(arg, f.name, shown, convert, f.default) for f in fields(cls)
               for arg, shown, convert in [_ARGUMENTS[f.name]])
    for cls in ACTIONS.values()
}


def _signature(cls: type[Action]) -> str:
    """The call signature shown in error messages and in the prompt."""
    parts = [
        f"{p.name}: {p.annotation}" + ("" if p.default is MISSING else f" = {_literal(p.default)}")
        for p in _PARAMS[cls]
    ]
    return f"{cls.name}({', '.join(parts)})"


def _bind(cls: type[Action], args: list[object], kwargs: list[tuple[str, object]]) -> Action:
    """Match the arguments to the action's parameters, check them, and build the action."""
    params, name = _PARAMS[cls], cls.name
    total = len(args) + len(kwargs)
    expects = f"{name}() expects {_signature(cls)}; got {total} argument{'' if total == 1 else 's'}"
    if len(args) > len(params):
        raise ActionSyntaxError(expects)
    given = {p.name: value for p, value in zip(params, args)}
    for key, value in kwargs:
        if key not in {p.name for p in params}:
            raise ActionSyntaxError(f"{name}() got an unknown argument '{key}'; {expects}")
        if key in given:
            raise ActionSyntaxError(f"{name}() got argument '{key}' twice; {expects}")
        given[key] = value
    values: dict[str, object] = {}
    for p in params:
        if p.name not in given:
            if p.default is MISSING:
                raise ActionSyntaxError(f"{expects} (missing '{p.name}')")
            continue
        try:
            values[p.field] = p.convert(given[p.name])
        except _BadValue as bad:
            message = f"{name}() argument '{p.name}' {bad}; expects {_signature(cls)}"
            raise ActionSyntaxError(message) from None
    return cls(**values)


# ----------------------------------------------------------------------------- tokenizer


class _Token(NamedTuple):
    kind: str  # "name", "literal", "punct" (one of "()[],="), "end"
    value: object
    pos: int  # offset in the text, for "at column ..." messages


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_CONSTANTS = {"True": True, "False": False, "None": None}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}
_HEX = frozenset("0123456789abcdefABCDEF")


def _tokens(text: str) -> Iterator[_Token]:
    """Yield the tokens of ``text`` lazily, so errors come in reading order; then "end" forever."""
    pos = 0
    while pos < len(text):
        char = text[pos]
        if char.isspace():
            pos += 1
        elif char in "()[],=":
            yield _Token("punct", char, pos)
            pos += 1
        elif char in "'\"":
            value, end = _scan_string(text, pos)
            yield _Token("literal", value, pos)
            pos = end
        elif match := _NUMBER.match(text, pos):
            number, pos = match.group(), match.end()
            if pos < len(text) and (text[pos].isalnum() or text[pos] in "_."):
                raise ActionSyntaxError(
                    f"malformed number at column {match.start() + 1}; put ids and text in quotes"
                )
            is_int = not any(c in number for c in ".eE")
            if is_int and len(number.lstrip("-")) > 1 and number.lstrip("-")[0] == "0":
                raise ActionSyntaxError(f"integer with leading zeros at column {match.start() + 1}")
            yield _Token("literal", _Number(number, is_int), match.start())
        elif match := _NAME.match(text, pos):
            word = match.group()
            if word in _CONSTANTS:
                yield _Token("literal", _CONSTANTS[word], pos)
            else:
                yield _Token("name", word, pos)
            pos = match.end()
        else:
            raise ActionSyntaxError(f"unexpected character {char!r} at column {pos + 1}")
    while True:
        yield _Token("end", None, len(text))


def _scan_string(text: str, start: int) -> tuple[str, int]:
    """Read the string literal opening at ``start``; return its value and the offset after it."""
    quote, parts, pos = text[start], [], start + 1
    chunk = pos
    while pos < len(text):
        char = text[pos]
        if char == quote:
            parts.append(text[chunk:pos])
            return "".join(parts), pos + 1
        if char != "\\":
            pos += 1
            continue
        parts.append(text[chunk:pos])
        escape = text[pos + 1 : pos + 2]
        if escape in _ESCAPES:
            parts.append(_ESCAPES[escape])
            pos += 2
        elif escape == "u" and len(digits := text[pos + 2 : pos + 6]) == 4 and set(digits) <= _HEX:
            parts.append(chr(int(digits, 16)))
            pos += 6
        elif escape == "u":
            raise ActionSyntaxError(
                f"\\u at column {pos + 1} needs exactly 4 hex digits, e.g. \\u00e9"
            )
        elif escape:
            raise ActionSyntaxError(
                f"unknown escape \\{escape} at column {pos + 1}; write \\\\ for a backslash"
            )
        else:
            break
        chunk = pos
    raise ActionSyntaxError(
        f"unterminated string starting at column {start + 1}; close it with {quote}"
    )


# ----------------------------------------------------------------------------- parser


class _Parser:
    """Recursive descent over this grammar (lists hold scalars only)::

        call   := NAME '(' [arg (',' arg)* [',']] ')' END
        arg    := NAME '=' value | value
        value  := STRING | NUMBER | 'True' | 'False' | 'None' | '[' items ']' | '(' items ')'
        items  := [value (',' value)* [',']]
    """

    def __init__(self, text: str) -> None:
        self._tokens = _tokens(text)
        self._ahead: list[_Token] = []

    def _peek(self, k: int = 0) -> _Token:
        while len(self._ahead) <= k:
            self._ahead.append(next(self._tokens))
        return self._ahead[k]

    def _next(self) -> _Token:
        token = self._peek()
        self._ahead.pop(0)
        return token

    def _at(self, punct: str, k: int = 0) -> bool:
        return self._peek(k).kind == "punct" and self._peek(k).value == punct

    def _unexpected(self, wanted: str) -> ActionSyntaxError:
        token = self._peek()
        if token.kind == "end":
            return ActionSyntaxError(f"unexpected end of the action; expected {wanted}")
        found = _show(token.value) if token.kind == "literal" else repr(token.value)
        return ActionSyntaxError(f"expected {wanted} at column {token.pos + 1}, got {found}")

    def call(self) -> Action:
        token = self._next()
        if token.kind != "name":
            raise ActionSyntaxError("an action starts with a function name, e.g. click('12')")
        name = str(token.value)
        cls = ACTIONS.get(name)
        if cls is None:
            shown = name if len(name) <= 40 else name[:36] + "..."
            close = difflib.get_close_matches(name[:40], ACTIONS, n=1)
            hint = f"did you mean {close[0]}()? " if close else ""
            raise ActionSyntaxError(f"unknown action '{shown}'; {hint}known: {', '.join(ACTIONS)}")
        if not self._at("("):
            raise self._unexpected(f"'(' after {cls.name}")
        self._next()
        args: list[object] = []
        kwargs: list[tuple[str, object]] = []
        while not self._at(")"):
            if self._peek().kind == "name" and self._at("=", 1):
                key = str(self._next().value)
                self._next()
                kwargs.append((key, self._value()))
            elif kwargs:
                raise ActionSyntaxError(
                    f"positional argument after a keyword argument at column {self._peek().pos + 1}"
                )
            else:
                args.append(self._value())
            if not self._at(")"):
                if not self._at(","):
                    raise self._unexpected("',' or ')'")
                self._next()
        self._next()
        if self._peek().kind != "end":
            raise ActionSyntaxError(
                f"unexpected text after the action at column {self._peek().pos + 1}; "
                "send exactly one action"
            )
        return _bind(cls, args, kwargs)

    def _value(self, nested: bool = False) -> object:
        token = self._peek()
        if token.kind == "literal":
            return self._next().value
        if token.kind == "name":
            raise ActionSyntaxError(
                f"unexpected name '{str(token.value)[:40]}' at column {token.pos + 1}; "
                "put text in quotes"
            )
        if self._at("[") or self._at("("):
            if nested:
                raise ActionSyntaxError(f"lists cannot be nested (column {token.pos + 1})")
            close = "]" if self._next().value == "[" else ")"
            items = []
            while not self._at(close):
                items.append(self._value(nested=True))
                if not self._at(close):
                    if not self._at(","):
                        raise self._unexpected(f"',' or '{close}'")
                    self._next()
            self._next()
            return items
        raise self._unexpected("a value")


def parse_action(text: str) -> Action:
    """Parse one action string in BrowserGym's high-level syntax.

    Args:
        text: One call such as ``click('12')``, with optional surrounding whitespace.

    Returns:
        The typed action; a bare integer bid (``click(12)``) becomes the string ``'12'``.

    Raises:
        ActionSyntaxError: The text is blank, too long, or not exactly one known call with
            arguments of the right number and types; the message says what to fix.
    """
    if not isinstance(text, str):
        raise ActionSyntaxError(f"an action must be a string, got {type(text).__name__}")
    if len(text) > MAX_ACTION_LENGTH:
        raise ActionSyntaxError(
            f"action is {len(text)} characters long; the limit is {MAX_ACTION_LENGTH}"
        )
    if not text.strip():
        raise ActionSyntaxError("empty action; send one call such as click('12') or noop()")
    return _parse_cached(text)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Action:
    # Actions are immutable, and agents repeat the same strings: parse each one once.
    return _Parser(text).call()


# ----------------------------------------------------------------------------- formatting


def _quote(text: str) -> str:
    """A single-quoted literal escaping only backslashes, quotes and control characters."""
    out = []
    for char in text:
        if char in "\\'":
            out.append("\\" + char)
        elif char in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "'" + "".join(out) + "'"


def _literal(value: str | float | tuple[str, ...]) -> str:
    """A field value written as a literal of the action syntax."""
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, tuple):
        return "[" + ", ".join(map(_literal, value)) + "]"
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)


def format_action(action: Action) -> str:
    """The canonical string of an action: ``parse_action(format_action(a)) == a``.

    Required arguments are positional, others are keywords and left out when they equal their
    default; strings are single-quoted; a single option of ``select_option`` is a plain string.

    Args:
        action: An action of one of the types in :data:`ACTIONS`.

    Returns:
        The call, e.g. ``click('12', button='right')``.

    Raises:
        TypeError: ``action`` is not one of the actions in :data:`ACTIONS`.
    """
    cls = type(action)
    if ACTIONS.get(getattr(cls, "name", "")) is not cls:
        raise TypeError(f"not a veriweb action: {action!r}")
    parts = []
    for p in _PARAMS[cls]:
        value = getattr(action, p.field)
        text = _quote(value[0]) if p.field == "options" and len(value) == 1 else _literal(value)
        if p.default is MISSING:
            parts.append(text)
        elif value != p.default:
            parts.append(f"{p.name}={text}")
    return f"{cls.name}({', '.join(parts)})"


# ----------------------------------------------------------------------------- documentation


def _docstring(cls: type[Action]) -> tuple[str, tuple[str, ...]]:
    """The description and the example calls of an action's docstring."""
    description, _, examples = inspect.cleandoc(cls.__doc__ or "").partition("Examples:")
    lines = (line.strip() for line in examples.splitlines())
    return description.strip(), tuple(line for line in lines if line)


def action_examples(cls: type[Action]) -> tuple[str, ...]:
    """The example calls listed under ``Examples:`` in an action's docstring."""
    return _docstring(cls)[1]


def action_prompt() -> str:
    """Describe every action for an LLM prompt: signature, description and examples.

    Returns:
        Plain text with one block per action of :data:`ACTIONS`, in table order.
    """
    lines = [
        f"{len(ACTIONS)} types of actions are available. Send exactly one action per step, "
        "written as a single call. Elements are named by their bid, the id shown in the "
        "observation, e.g. click('12'). Put text in single or double quotes.",
        "",
    ]
    for cls in ACTIONS.values():
        description, examples = _docstring(cls)
        lines.append(_signature(cls))
        lines += [f"    {line}" if line else "" for line in description.splitlines()]
        lines.append("    Examples:")
        lines += ["        " + example for example in examples]
        lines.append("")
    return "\n".join(lines)
