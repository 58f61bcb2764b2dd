"""Strict, fair judging of an agent's free-text answer to a retrieve task."""

from __future__ import annotations

import datetime
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal
from typing import Any, Literal, NamedTuple, get_args

__all__ = ["AnswerType", "Verdict", "judge_answer", "parse_date", "parse_money", "stateable"]

AnswerType = Literal["number", "currency", "date", "text", "list", "boolean"]
_ANSWER_TYPES: tuple[str, ...] = get_args(AnswerType)


@dataclass(frozen=True)
class Verdict:
    """The judgement of one answer.

    Attributes:
        correct: Whether the answer is accepted.
        reason: A short human explanation, e.g. ``"expected 1299, found 1299.0"``.
    """

    correct: bool
    reason: str


# --- normalising ------------------------------------------------------------

_MAX_CHARS = 5000  # longer is no answer to a retrieve task, and bounds the judging time
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN, rounding=ROUND_HALF_EVEN)
_CENT = Decimal("0.01")
_ASCII = str.maketrans({"\u2018": "'", "\u2019": "'", "\u2212": "-", "\u2013": "-"})


def _fold(text: str) -> str:
    """NFKC, curly quotes and minus signs made ASCII, casefold; line breaks are kept."""
    return unicodedata.normalize("NFKC", text).translate(_ASCII).casefold()


def _is_edge(ch: str) -> bool:
    return ch.isspace() or ch == "`" or unicodedata.category(ch).startswith("P")


def _normalise(text: str) -> str:
    """Fold, collapse whitespace and strip surrounding punctuation and quotes."""
    text = " ".join(_fold(text).split())
    start, end = 0, len(text)
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        end -= 1
    return text[start:end]


def _phrase(text: str) -> re.Pattern[str]:
    """A pattern finding normalised ``text`` as whole words, any whitespace between them."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, text.split())) + r"(?!\w)")


# --- numbers and money ---------------------------------------------------------
# A number is digits (thousands commas, decimals, exponent) or a word from zero to
# ninety-nine. Distinct values count: "12 (twelve)" names one number, "12 or 13" two.
# A scaled figure ("1.3k", "2 million") is rounded by nature and never exact.

_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
          "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety".split()
_WORD_VALUE = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_NUMBER = re.compile(
    r"(?P<sign>(?<![\w.])-)?(?<![\w.])(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?P<frac>\.\d+)?"
    r"(?P<exp>e[-+]?\d+)?(?P<suffix>[^\W\d_]*)(?:\s*(?P<scale>thousand|million|billion|trillion)\b)?"
)
_WORD_NUMBER = re.compile(
    rf"\b(?:(?P<tens>{'|'.join(_TENS)})(?:[-\s](?P<unit>{'|'.join(_UNITS[9:0:-1])}))?"
    rf"|(?P<word>{'|'.join(sorted(_UNITS, key=len, reverse=True))}))\b"
)
_SCALE_SUFFIXES = {"k", "m", "b", "bn", "mn", "mm"}
_MONEY_BEFORE = re.compile(r"(?P<neg>-\s*)?(?:us\s?\$|\$|€|£|(?<![a-z])(?:usd|eur|gbp))\s*$")
_MAJOR = r"dollars?|usd|eur|gbp|euros?|pounds?|bucks"
_MONEY_AFTER = re.compile(rf"\s*(?:(?P<major>{_MAJOR})\b|(?P<minor>cents?\b|¢))")


class _Num(NamedTuple):
    value: Decimal | None  # None: a scaled or absurd figure, never an exact value
    start: int
    end: int
    text: str


def _numbers(folded: str) -> list[_Num]:
    """Every numeric mention in folded text, in order of appearance."""
    found = []
    for m in _NUMBER.finditer(folded):
        value: Decimal | None = Decimal(m["int"].replace(",", "") + (m["frac"] or "") + (m["exp"] or ""))
        if m["scale"] or m["suffix"] in _SCALE_SUFFIXES or len(m["exp"] or "") > 5:
            value = None
        elif m["sign"]:
            value = -value
        found.append(_Num(value, m.start(), m.end(), m.group().strip()))
    for m in _WORD_NUMBER.finditer(folded):
        whole = _WORD_VALUE[m["word"] or m["tens"]] + (_WORD_VALUE[m["unit"]] if m["unit"] else 0)
        found.append(_Num(Decimal(whole), m.start(), m.end(), m.group()))
    return sorted(found, key=lambda n: n.start)


def _amounts(folded: str) -> list[_Num]:
    """Money amounts in major units; if any figure is marked as money, only marked ones count."""
    marked, bare = [], []
    for n in _numbers(folded):
        before = _MONEY_BEFORE.search(folded, max(0, n.start - 8), n.start)
        after = _MONEY_AFTER.match(folded, n.end)
        value = n.value
        if value is not None and before is not None and before["neg"]:
            value = -value
        if value is not None and after is not None and after["minor"]:
            value = value.scaleb(-2, context=_EXACT)
        is_money = before is not None or after is not None or re.search(f"(?:{_MAJOR})$", n.text)
        (marked if is_money else bare).append(n._replace(value=value))
    return marked or bare


def _whole_number(text: str) -> Decimal | None:
    """The value of normalised text that is one number and nothing else (a currency sign aside)."""
    text = text.lstrip("$€£ ")
    nums = _numbers(text)
    return nums[0].value if len(nums) == 1 and nums[0].text == text else None


def _as_decimal(value: object, what: str) -> Decimal:
    """An expected number as an exact Decimal, or a ValueError saying what to pass."""
    if isinstance(value, Decimal | int | float | str) and not isinstance(value, bool):
        try:
            result = Decimal(str(value).replace(",", "").strip())
        except ArithmeticError:
            result = Decimal("NaN")
        if result.is_finite():
            return result
    raise ValueError(f"{what} must be a finite int, float, Decimal or numeric str; got {value!r}")


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, context=_EXACT)


def parse_money(text: str) -> Decimal | None:
    """Parse the single money amount named in ``text``, rounded half-even to cents.

    Args:
        text: Free text such as ``"$1,299.00"``, ``"USD 1,299"`` or ``"12.5 dollars"``.

    Returns:
        The amount, e.g. ``Decimal("1299.00")``, or None if the text names no amount,
        several distinct amounts, or a scaled one like ``"$1.3k"``.
    """
    if not isinstance(text, str):
        return None
    values = {None if a.value is None else _cents(a.value) for a in _amounts(_fold(text))}
    return values.pop() if len(values) == 1 else None


# --- dates -------------------------------------------------------------------------

_MONTH_NAMES = "january february march april may june july august september october november december".split()
_MONTHS = {n: i for i, n in enumerate(_MONTH_NAMES, 1)} | {n[:3]: i for i, n in enumerate(_MONTH_NAMES, 1)}
_MONTH = "|".join(sorted([*_MONTHS, "sept"], key=len, reverse=True))
_ORD = r"(?:st|nd|rd|th)?"
_DATE = re.compile(
    r"(?<![\w/.-])(?P<iy>\d{4})(?P<s>[-/.])(?P<im>\d{1,2})(?P=s)(?P<id>\d{1,2})(?![\d/])"
    r"|(?<![\w/.-])(?P<um>\d{1,2})(?P<t>[-/])(?P<ud>\d{1,2})(?P=t)(?P<uy>\d{4})(?![\d/])"
    rf"|\b(?P<mm>{_MONTH})\.?\s+(?P<md>\d{{1,2}}){_ORD}(?!\w)(?:,?\s+(?P<my>\d{{4}})(?!\d))?"
    rf"|(?<![\w.])(?P<dd>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<dm>{_MONTH})\b\.?(?:,?\s+(?P<dy>\d{{4}})(?!\d))?"
    r"|\b(?P<rel>today|yesterday|tomorrow)\b"
)
_RELATIVE = {"yesterday": -1, "today": 0, "tomorrow": 1}
_Found = list[tuple[datetime.date | None, str]]


def _dates(folded: str, today: datetime.date | None, year: int | None) -> _Found:
    """Every date mention as (the date, or None if invalid or unresolvable; the matched text)."""
    found: _Found = []
    for m in _DATE.finditer(folded):
        g, value = m.groupdict(), None
        try:
            if g["rel"]:
                value = None if today is None else today + datetime.timedelta(days=_RELATIVE[g["rel"]])
            elif g["iy"] or g["uy"]:
                y, mo, d = (g["iy"], g["im"], g["id"]) if g["iy"] else (g["uy"], g["um"], g["ud"])
                value = datetime.date(int(y), int(mo), int(d))
            else:
                name, d, y = (g["mm"], g["md"], g["my"]) if g["mm"] else (g["dm"], g["dd"], g["dy"])
                y_num = int(y) if y else year
                value = None if y_num is None else datetime.date(y_num, _MONTHS[name[:3]], int(d))
        except (ValueError, OverflowError):
            value = None
        found.append((value, m.group()))
    return found


def parse_date(text: str, today: datetime.date | None = None) -> datetime.date | None:
    """Parse the single calendar date named in ``text``.

    Args:
        text: Free text such as ``"2026-06-15"``, ``"June 15, 2026"``, ``"15 June 2026"``,
            ``"06/15/2026"`` (US, month first), ``"2026/06/15"`` or ``"yesterday"``.
        today: The virtual clock's date; resolves ``today``/``yesterday``/``tomorrow``
            and gives the year of a month-day like ``"June 15"``.

    Returns:
        The date, or None if the text names none, several distinct ones, or one that
        is invalid or cannot be resolved without ``today``.
    """
    if not isinstance(text, str):
        return None
    if isinstance(today, datetime.datetime):
        today = today.date()
    values = {v for v, _ in _dates(_fold(text), today, today.year if today else None)}
    return values.pop() if len(values) == 1 else None


# --- judges: each takes the folded answer, the parsed expected value and options ---


@dataclass(frozen=True)
class _Options:
    today: datetime.date | None
    order: str
    candidates: tuple[str, ...]
    tolerance: Decimal


def _judge_single(found: list[_Num], expected: Decimal, what: str, tolerance: Decimal) -> Verdict:
    if not found:
        return Verdict(False, f"answer contains no {what}")
    scaled = [n.text for n in found if n.value is None]
    if scaled:
        return Verdict(False, f"answer gives a scaled figure {scaled[0]!r}, not an exact {what}")
    values = {_cents(n.value) if what == "amount" else n.value for n in found if n.value is not None}
    if len(values) > 1:
        return Verdict(False, f"answer names {len(values)} different {what}s")
    value = values.pop()
    correct = _EXACT.abs(_EXACT.subtract(value, expected)) <= tolerance
    shown = value if what == "amount" else found[0].text  # an amount's sign may sit before its "$"
    return Verdict(correct, f"expected {expected}, found {shown}")


def _judge_date(folded: str, expected: datetime.date, opts: _Options) -> Verdict:
    found = _dates(folded, opts.today, (opts.today or expected).year)
    values = {v for v, _ in found}
    if not found:
        return Verdict(False, "answer contains no date")
    if None in values:
        return Verdict(False, f"answer has an invalid or unresolvable date in {[t for _, t in found]}")
    if len(values) > 1:
        return Verdict(False, f"answer names {len(values)} different dates")
    return Verdict(values.pop() == expected, f"expected {expected.isoformat()}, found {found[0][1]}")


_SEPARATORS = re.compile(r"[,;/|&\n\r\v\f\x85\u2028\u2029]|(?<!\w)(?:or|and|nor|vs)(?!\w)")
_NEGATION = re.compile(r"(?<!\w)(?:not|no|never|neither)(?!\w)|n't(?!\w)")


def _judge_text(folded: str, expected: str, opts: _Options) -> Verdict:
    if _normalise(folded) == expected:
        return Verdict(True, f"answer is {expected!r}")
    spans = [m.span() for m in _phrase(expected).finditer(folded)]
    if not spans:
        return Verdict(False, f"answer does not name {expected!r}")
    for candidate in map(_normalise, opts.candidates):
        if candidate and candidate != expected:  # a name inside the expected one does not count
            for m in _phrase(candidate).finditer(folded):
                if not any(s <= m.start() and m.end() <= e for s, e in spans):
                    return Verdict(False, f"answer also names {candidate!r}")
    cuts = [0, *(i for span in spans for i in span), len(folded)]
    rest = " ".join(folded[cuts[i]:cuts[i + 1]] for i in range(0, len(cuts), 2))
    if _SEPARATORS.search(rest):
        return Verdict(False, f"answer names {expected!r} among other items")
    if _NEGATION.search(rest):
        return Verdict(False, f"answer names {expected!r} but negates it")
    if len(re.findall(r"\w+", rest)) > 8:
        return Verdict(False, f"answer hides {expected!r} in more than 8 words of other text")
    return Verdict(True, f"answer names {expected!r} with short filler")


_Key = tuple[str, object]
_BULLET = re.compile(r"^\s*(?:[-*•·]|\d+[.)])\s+")
_ITEM_SEP = re.compile(r";|(?<!\d),|,(?!\d{3}(?!\d))")  # "1,299" is one number, "1, 299" two
_AND = re.compile(r"\s+and\s+")


def _item_key(item: object) -> _Key:
    """What an item compares as: its numeric value if it is a number, else its normalised text."""
    if isinstance(item, Decimal | int | float) and not isinstance(item, bool):
        return ("number", _as_decimal(item, "an expected list item"))
    if not isinstance(item, str):
        raise ValueError(f"expected list items must be str or numbers (a list for ties); got {item!r}")
    text = _normalise(item)
    number = _whole_number(text)
    return ("text", text) if number is None else ("number", number)


def _split_items(folded: str, *, split_and: bool, drop_lead_in: bool) -> list[_Key]:
    if drop_lead_in:
        folded = folded.partition(":")[2]
    items = []
    for line in folded.splitlines():
        for part in _ITEM_SEP.split(_BULLET.sub("", line, count=1)):
            for piece in _AND.split(part) if split_and else [part]:
                text = _normalise(re.sub(r"^\s*and\s+", "", piece))
                if text:
                    items.append(_item_key(text))
    return items


def _judge_list(folded: str, expected: list[Counter[_Key]], opts: _Options) -> Verdict:
    want = sum(expected, Counter())
    # Readings: with and without splitting on " and ", with and without a lead-in "...:".
    lead_in = (False, True) if ":" in folded else (False,)
    readings = [_split_items(folded, split_and=a, drop_lead_in=d) for d in lead_in for a in (True, False)]
    for items in readings:
        if Counter(items) != want:
            continue
        if opts.order == "any":
            return Verdict(True, f"all {len(items)} items match")
        bounds = [0]
        for group in expected:
            bounds.append(bounds[-1] + sum(group.values()))
        if all(Counter(items[a:b]) == g for a, b, g in zip(bounds, bounds[1:], expected)):
            return Verdict(True, f"all {len(items)} items match in order")
    got = Counter(readings[0])
    missing, extra = list((want - got).elements()), list((got - want).elements())
    if not missing and not extra:
        return Verdict(False, "items match but are in the wrong order")
    show = lambda keys: ", ".join(str(v) for _, v in keys) or "none"  # noqa: E731
    return Verdict(False, f"missing [{show(missing)}]; unexpected [{show(extra)}]")


_YES = {"yes", "true", "y", "correct", "yeah", "yep"}
_NO = {"no", "false", "n", "incorrect", "nope"}


def _judge_boolean(folded: str, expected: bool, opts: _Options) -> Verdict:
    tokens = re.findall(r"[\w']+", folded.replace("n/a", " "))
    said = set()
    for i, token in enumerate(tokens):
        if token in _YES or token in _NO:
            negated = i > 0 and (tokens[i - 1] == "not" or tokens[i - 1].endswith("n't"))
            said.add((token in _YES) != negated)
    if len(said) != 1:
        return Verdict(False, "answer says both yes and no" if said else "answer says neither yes nor no")
    word = {True: "yes", False: "no"}
    return Verdict(said == {expected}, f"expected {word[expected]}, found {word[said.pop()]}")


# --- expected values ------------------------------------------------------------------

_EXPECTED_FORMS = {
    "date": "a datetime.date or an ISO 'YYYY-MM-DD' str",
    "text": "a non-empty str",
    "list": "a list or tuple of str or numbers (a nested list for ties)",
    "boolean": "True or False",
}


def _parse_expected(expected: object, answer_type: str, order: str) -> object:
    """The expected value in the form its judge compares; ValueError if the grader passed junk."""
    if answer_type in ("number", "currency"):
        return _as_decimal(expected, f"expected {answer_type}")
    if answer_type == "boolean" and isinstance(expected, bool):
        return expected
    if answer_type == "text" and isinstance(expected, str) and _normalise(expected):
        return _normalise(expected)
    if answer_type == "date" and isinstance(expected, datetime.date):
        return expected.date() if isinstance(expected, datetime.datetime) else expected
    if answer_type == "date" and isinstance(expected, str):
        try:
            return datetime.date.fromisoformat(expected.strip())
        except ValueError:
            pass
    if answer_type == "list" and isinstance(expected, list | tuple):
        groups = [Counter(map(_item_key, e if isinstance(e, list | tuple) else [e])) for e in expected]
        return [sum(groups, Counter())] if order == "any" else groups
    raise ValueError(f"expected {answer_type} must be {_EXPECTED_FORMS[answer_type]}; got {expected!r}")


def stateable(expected: object, answer_type: AnswerType, order: Literal["any", "exact"] = "any") -> bool:
    """Whether ``expected`` is a value of ``answer_type`` that :func:`judge_answer` can compare an
    answer with (a date-and-time is not a date; text with no words is no text)."""
    try:
        _parse_expected(expected, answer_type, order)
    except ValueError:
        return False
    return True


_JUDGES: dict[str, Callable[[str, Any, _Options], Verdict]] = {
    "number": lambda answer, expected, opts: _judge_single(_numbers(answer), expected, "number", opts.tolerance),
    "currency": lambda answer, expected, opts: _judge_single(
        _amounts(answer), _cents(expected), "amount", opts.tolerance),
    "date": _judge_date,
    "text": _judge_text,
    "list": _judge_list,
    "boolean": _judge_boolean,
}


def judge_answer(
    answer: str,
    expected: object,
    answer_type: AnswerType,
    *,
    today: datetime.date | None = None,
    order: Literal["any", "exact"] = "any",
    candidates: Sequence[str] = (),
    tolerance: float = 0.0,
) -> Verdict:
    """Judge an agent's free-text answer against the value computed from the database.

    Strict (wrong, hedged or enumerating answers fail) and fair (equivalent formats
    pass); pure and deterministic, with "today" taken from the virtual clock.

    * ``number``: exactly one distinct value, equal to ``expected`` within ``tolerance``.
      Digits (``1,299``, ``1299.0``, ``-3``) and words up to ninety-nine count, so
      "12 items" passes, "12 or 13" and "12 as of 2026" fail; "1.3k" never passes.
    * ``currency``: one distinct amount at cents (half-even): ``$1,299.00``, ``USD 1,299``,
      ``1,299 dollars``, ``50 cents``. If any figure is marked as money, bare ones are ignored.
    * ``date``: one distinct date: ISO, ``June 15, 2026``, ``15 June 2026``, US
      ``06/15/2026``, ``2026/06/15``; ``today``/``yesterday``/``tomorrow`` need ``today``;
      ``June 15`` takes the year of ``today``, else of ``expected``.
    * ``text``: equal after normalising (NFKC, casefold, whitespace, outer punctuation
      and quotes), or the expected phrase as whole words with at most 8 words of filler
      holding no list separator or negation, and naming no other of ``candidates``.
    * ``list``: items split on commas, semicolons, lines, " and " and bullets; the same
      multiset (``order="any"``) or sequence (``order="exact"``, where a nested list in
      ``expected`` is a group of ties in any order). Numbers compare by value. A lead-in
      ending in ":" and items that contain " and " are tolerated.
    * ``boolean``: yes/no/true/false/y/n/correct/incorrect, "not" flipping the next word;
      saying both fails.

    An answer over 5000 characters is wrong.

    Args:
        answer: The text the agent sent with ``send_msg_to_user``; a non-str is wrong.
        expected: The true value, in a form that depends on ``answer_type``.
        answer_type: ``number``, ``currency``, ``date``, ``text``, ``list`` or ``boolean``.
        today: The virtual clock's date, for relative and year-less dates.
        order: For lists, ``"any"`` or ``"exact"``.
        candidates: For text, the other entity names; an answer naming one fails.
        tolerance: For numbers and amounts, the largest accepted absolute difference.

    Returns:
        The verdict and a short reason.

    Raises:
        ValueError: If ``answer_type``, ``order``, ``today``, ``tolerance`` or ``expected``
            is malformed (a grader bug, never the agent's fault).

    Examples:
        >>> judge_answer("There are 1,299.", 1299, "number")
        Verdict(correct=True, reason='expected 1299, found 1,299')
        >>> judge_answer("12 or 13", 12, "number").reason
        'answer names 2 different numbers'
    """
    if not isinstance(answer_type, str) or answer_type not in _ANSWER_TYPES:
        raise ValueError(f"unknown answer_type {answer_type!r}; use one of {', '.join(_ANSWER_TYPES)}")
    if order not in ("any", "exact"):
        raise ValueError(f"unknown order {order!r}; use 'any' or 'exact'")
    if today is not None and not isinstance(today, datetime.date):
        raise ValueError(f"today must be a datetime.date from the virtual clock or None; got {today!r}")
    tol = _as_decimal(tolerance, "tolerance")
    if tol < 0:
        raise ValueError(f"tolerance must be >= 0; got {tolerance!r}")
    value = _parse_expected(expected, answer_type, order)
    if not isinstance(answer, str):
        return Verdict(False, f"answer is not text (got {type(answer).__name__})")
    if len(answer) > _MAX_CHARS:
        return Verdict(False, f"answer is {len(answer)} characters long; at most {_MAX_CHARS} are judged")
    if not _normalise(answer):
        return Verdict(False, "answer is empty")
    if isinstance(today, datetime.datetime):
        today = today.date()
    return _JUDGES[answer_type](_fold(answer), value, _Options(today, order, tuple(candidates), tol))
