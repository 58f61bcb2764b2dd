"""Words of task texts and page labels: content words with a small thesaurus, dates written in words, value kinds.

The search's relevance (:mod:`veriweb.verify.relevance`) compares an instruction's words with the
labels a page shows, a slot's value with the kind of field it may go in (a date, an amount, an
e-mail address, a person's name); these are the shared pieces.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "the a an and or of to in on for with from into at by as is are be it its this that then my me i you your "
    "please find show open set all every any one each which what who how many much need want give tell".split())
ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
AMOUNT = re.compile(r"\$\s?(\d[\d,]*\.\d{2})")
NUMERIC = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
NUMBER_WORDS = frozenset({"amount", "refund", "price", "total", "qty", "quantity", "stock", "count", "number",
                           "level", "limit", "discount", "percent", "percentage"})
EMAIL_WORDS = frozenset({"email", "mail", "to", "recipient", "address"})
AMOUNT_WORDS = frozenset({"amount", "refund", "price", "total", "sum", "pay", "payment"})
_MONTHS = ("jan(?:uary)?", "feb(?:ruary)?", "mar(?:ch)?", "apr(?:il)?", "may", "june?", "july?", "aug(?:ust)?",
           "sep(?:t|tember)?", "oct(?:ober)?", "nov(?:ember)?", "dec(?:ember)?")
_WEEKDAY = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?|(?:mon|tues|wednes|thurs|fri|satur|sun)day),?\s+"
"""A weekday written before a date ("Sunday, June 21", "Sun Jun 21"): part of the date, not its month."""
_DATE_TEXT = re.compile(r"(?:" + _WEEKDAY + r")?(?:(?:\d{1,2}\s+)?(" + "|".join(_MONTHS)
                        + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?"
                        r"|\d{1,2}\s+(" + "|".join(_MONTHS) + r")(?:\s+\d{4})?)", re.IGNORECASE)
PERSON = re.compile(r"[A-Z][a-z'\-]+(?: [A-Z][a-z'\-]+){1,2}")


def month_day(value: str) -> tuple[int, int] | None:
    """(month, day) of a date written as 2026-06-20, June 20, 20 June or Jun 20, 2026."""
    text = value.strip()
    if ISO.fullmatch(text):
        return int(text[5:7]), int(text[8:10])
    match = _DATE_TEXT.fullmatch(text)
    if match is None:
        return None
    month_word = re.search(r"[A-Za-z]{3,}", re.sub(r"^" + _WEEKDAY, "", text, flags=re.IGNORECASE))
    day = re.search(r"\b(\d{1,2})(?:st|nd|rd|th)?\b(?!\d)", text)
    if month_word is None or day is None:
        return None
    month = next((i + 1 for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep",
                                                  "oct", "nov", "dec")) if month_word.group(0).casefold().startswith(m)),
                 None)
    return (month, int(day.group(1))) if month is not None else None


def date_aliases(slots: dict[str, Any]) -> dict[str, list[str]]:
    """For each ISO date among the slots, the other slots naming the same day in words."""
    out: dict[str, list[str]] = {}
    for name, value in slots.items():
        text = "" if value is None else str(value)
        if not ISO.fullmatch(text):
            continue
        same = [other for other, v in slots.items() if other != name and v is not None
                and not ISO.fullmatch(str(v)) and month_day(str(v)) == month_day(text)]
        if same:
            out.setdefault(text, []).extend(same)
    return out


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")


def reworded(text: str, day: str) -> str | None:
    """``text``, a date in words ("Sunday, June 21", "21 Jun 2026"), written for the ISO ``day`` in
    the same style: its weekday, month, day and year replaced, each spelt as before (full or
    short, capitalised or not); ``None`` when the result would not read as that day."""
    import datetime

    try:
        new = datetime.date.fromisoformat(day)
    except ValueError:
        return None

    def spell(token: str, names: tuple[str, ...], index: int) -> str:
        name = names[index] if token.casefold() in names else names[index][:3]
        return name.upper() if token.isupper() else name.capitalize() if token[0].isupper() else name

    def word(match: re.Match[str]) -> str:
        token = match.group(0)
        folded = token.casefold()
        if any(folded.startswith(w[:3]) and w.startswith(folded) for w in _WEEKDAYS):
            return spell(token, _WEEKDAYS, new.weekday())
        if any(folded.startswith(m[:3]) and m.startswith(folded) for m in _MONTH_NAMES) or folded == "sept":
            return spell(token, _MONTH_NAMES, new.month - 1)
        return token

    out = re.sub(r"[A-Za-z]{3,}", word, text)
    out = re.sub(r"\b\d{4}\b", str(new.year), out)
    out = re.sub(r"\b\d{1,2}(?=(?:st|nd|rd|th)?\b)(st|nd|rd|th)?",
                 lambda m: f"{new.day}{_ordinal(new.day) if m.group(1) else ''}", out, count=1)
    return out if month_day(out) == (new.month, new.day) else None


def _ordinal(number: int) -> str:
    if 10 <= number % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


def looks_like_date(value: str) -> bool:
    """Is ``value`` a date (2026-06-26, June 26, Jun 26, 2026, 26 June)?"""
    text = value.strip()
    return bool(ISO.fullmatch(text) or _DATE_TEXT.fullmatch(text))


def _stem(word: str) -> str:
    for suffix in ("est", "ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def stem(word: str) -> str:
    """A crude stem that one value or verb keeps across its forms: "ship", "shipped" and "shipping";
    "cancel" and "cancelled"; "archive" and "archived" (for matching a label or a message against
    values and marker names, not the content words of :func:`words`)."""
    word = word.lower()
    for suffix in ("ing", "ed", "es", "s", "d"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiou":
        word = word[:-1]
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


_THESAURUS = (
    "reply respond answer", "delete remove trash discard", "search find lookup", "home start front",
    "contact people", "send submit post publish", "save update apply", "refund reimburse", "edit change modify",
    "buy purchase checkout", "cart basket bag trolley", "email mail message letter", "book reserve booking",
    "reservation booking", "customer client", "product item", "report insight", "stock inventory",
    "setting preference", "compose write", "address street", "city town", "phone telephone mobile",
    "quantity qty", "traveller passenger guest", "note comment remark", "body text content",
)
"""Common English words for the same action or thing on a web page (a site may label a reply link
"Respond" or its contacts "People"); a general list, not the generator's."""


def _thesaurus() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _THESAURUS:
        stems = [_stem(word) for word in group.split()]
        for stem in stems:
            out.setdefault(stem, f"~{stems[0]}")
    return out


def words(text: str) -> frozenset[str]:
    """The content words of a text (lower case, stop words dropped, crude suffixes cut: newest -> new),
    with ``~reply`` and the like added for words the thesaurus groups (respond -> ~reply).

    Memoised per text (a search asks about the same labels thousands of times)."""
    found = _WORDS.get(text)
    if found is None:
        stems = {_stem(w) for w in _WORD.findall(text.casefold()) if w not in _STOP and len(w) > 1}
        found = frozenset(stems | {_CANONICAL[w] for w in stems if w in _CANONICAL})
        if len(_WORDS) >= _WORDS_KEEP:
            _WORDS.clear()
        _WORDS[text] = found
    return found


_WORDS: dict[str, frozenset[str]] = {}
_WORDS_KEEP = 100_000
"""How many texts :func:`words` remembers (then it starts afresh)."""


_CANONICAL = _thesaurus()
# Number and amount label words, stemmed as :func:`words` stems a label (price -> pric).
NUMBER_WORDS = frozenset(words(" ".join(NUMBER_WORDS))) | NUMBER_WORDS
AMOUNT_WORDS = frozenset(words(" ".join(AMOUNT_WORDS))) | AMOUNT_WORDS
PERSON_SLOTS = frozenset(words("traveller sender recipient contact customer guest passenger person author member "
                                "friend owner attendee"))
DATE_WORDS = frozenset(words("date day when expires expiry departure depart arrival arrive birth deadline due until "
                              "check end return scheduled time"))
TEXT_WORDS = frozenset(words("reason note comment message body text description title subject"))
"""Label words of free-text fields (a refund's reason): a bare number is not what they take."""


def singular(name: str) -> str:
    """``categories`` -> ``category``, ``addresses`` -> ``address``, ``posts`` -> ``post``."""
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith(("sses", "xes", "ches", "shes")):
        return name[:-2]
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def fold(value: Any) -> str:
    """A text folded for comparison: lower case, runs of white space as one space."""
    return _fold(value) if type(value) is str else " ".join(str(value).casefold().split())


@functools.lru_cache(maxsize=65_536)  # the search folds the same labels and slot values at every state
def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


_NOT = {"not", "never", "no"}


def flag_words(text: str, column: str) -> bool | None:
    """What ``text`` says of the yes/no ``column``: ``True`` when it names it ("read", "starred"),
    ``False`` when it names it only negated ("unread", "not read yet", "unstarred"), ``None`` when it
    says neither, or both."""
    root = stem(column)
    if len(root) < 3:
        return None
    tokens = re.findall(r"[a-z]+", text.lower())
    named = negated = False
    for index, token in enumerate(tokens):
        if stem(token) == root:
            if index and tokens[index - 1] in _NOT:
                negated = True
            else:
                named = True
        elif (token.startswith("un") and stem(token[2:]) == root) or (token.startswith("non") and stem(token[3:]) == root):
            negated = True
    return None if named == negated else named


__all__ = ["AMOUNT", "AMOUNT_WORDS", "DATE_WORDS", "EMAIL", "EMAIL_WORDS", "ISO", "NUMBER_WORDS", "NUMERIC", "PERSON",
           "PERSON_SLOTS", "TEXT_WORDS", "date_aliases", "flag_words", "fold", "looks_like_date", "month_day", "singular",
           "words"]
