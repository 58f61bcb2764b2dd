"""Tests for the answer judge: a table of equivalent formats and near misses, plus fuzzing."""

from __future__ import annotations

import datetime
import doctest
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veriweb.engine import answers
from veriweb.engine.answers import Verdict, judge_answer, parse_date, parse_money

TODAY = datetime.date(2026, 6, 16)
JUNE_15 = datetime.date(2026, 6, 15)
SHOPS = ("Acme Corp", "Beta Books", "Acme Corp Outlet")


def case(name: str, expected: object, answer: str, answer_type: str, correct: bool, **kwargs: Any) -> Any:
    """One row of the table; the id reads like ``number-pass-thousands-comma``."""
    verdict = "pass" if correct else "fail"
    return pytest.param(expected, answer, answer_type, correct, kwargs, id=f"{answer_type}-{verdict}-{name}")


CASES = [
    # --- number: equivalent formats pass
    case("plain", 1299, "1299", "number", True),
    case("thousands-comma", 1299, "1,299", "number", True),
    case("trailing-zero-decimal", 1299, "1299.0", "number", True),
    case("in-sentence", 12, "There are 12.", "number", True),
    case("with-unit", 12, "12 items", "number", True),
    case("word", 12, "twelve", "number", True),
    case("compound-word", 21, "Twenty-one reviews", "number", True),
    case("digits-and-word-same-value", 12, "12 (twelve)", "number", True),
    case("negative", -3, "-3", "number", True),
    case("expected-as-str", "1299", "It has 1,299 units", "number", True),
    case("expected-decimal", Decimal("4.5"), "Rated 4.50 stars", "number", True),
    case("zero-word", 0, "zero", "number", True),
    case("within-tolerance", 4.5, "about 4.46", "number", True, tolerance=0.05),
    # --- number: near misses fail
    case("off-by-one", 12, "13", "number", False),
    case("hedged-or", 12, "12 or 13", "number", False),
    case("range", 12, "between 10 and 14", "number", False),
    case("dash-range", 12, "10-14", "number", False),
    case("empty", 12, "", "number", False),
    case("whitespace-only", 12, "   ", "number", False),
    case("no-number", 12, "I could not find it", "number", False),
    case("scaled-k", 1300, "1.3k", "number", False),
    case("scaled-word", 2000000, "2 million", "number", False),
    case("sign-lost", -3, "3", "number", False),
    case("decimal-not-exact", 4.5, "4.46", "number", False),
    case("outside-tolerance", 4.5, "4.4", "number", False, tolerance=0.05),
    case("extra-number-year", 12, "12 as of 2026", "number", False),
    # --- currency: equivalent formats pass
    case("dollar-sign", 1299, "$1,299.00", "currency", True),
    case("bare", 1299, "1299", "currency", True),
    case("usd-prefix", 1299, "USD 1,299", "currency", True),
    case("dollars-word", 1299, "1,299 dollars", "currency", True),
    case("one-decimal", Decimal("12.50"), "$12.5", "currency", True),
    case("expected-str", "12.50", "The total is $12.50.", "currency", True),
    case("marked-beats-bare", "12.50", "$12.50 for 2 items", "currency", True),
    case("cents", "0.50", "50 cents", "currency", True),
    case("negative-before-sign", -5, "-$5.00", "currency", True),
    case("euro", 20, "€20", "currency", True),
    case("half-even-rounding", "12.50", "$12.499", "currency", True),
    # --- currency: near misses fail
    case("off-by-one-cent", "12.50", "$12.49", "currency", False),
    case("cents-not-dollars", 50, "50 cents", "currency", False),
    case("two-amounts", 1299, "$1,299 or $1,300", "currency", False),
    case("was-and-now", 15, "$15 (was $20)", "currency", False),
    case("scaled-k", 1300, "$1.3k", "currency", False),
    case("empty", 1299, "", "currency", False),
    case("no-amount", 1299, "expensive", "currency", False),
    # --- date: equivalent formats pass
    case("iso", JUNE_15, "2026-06-15", "date", True),
    case("long", "2026-06-15", "June 15, 2026", "date", True),
    case("abbrev-no-comma", JUNE_15, "Jun 15 2026", "date", True),
    case("day-first-words", JUNE_15, "15 June 2026", "date", True),
    case("ordinal-of", JUNE_15, "on the 15th of June, 2026", "date", True),
    case("us-slashes", JUNE_15, "06/15/2026", "date", True),
    case("year-first-slashes", JUNE_15, "2026/06/15", "date", True),
    case("weekday-and-dot", JUNE_15, "Monday, Jun. 15, 2026", "date", True),
    case("yesterday", JUNE_15, "It was yesterday", "date", True, today=TODAY),
    case("today", TODAY, "today", "date", True, today=TODAY),
    case("tomorrow", datetime.date(2026, 6, 17), "Tomorrow.", "date", True, today=TODAY),
    case("year-less-from-today", JUNE_15, "June 15", "date", True, today=TODAY),
    case("year-less-from-expected", JUNE_15, "June 15th", "date", True),
    case("same-date-twice", JUNE_15, "yesterday (June 15, 2026)", "date", True, today=TODAY),
    # --- date: near misses fail
    case("wrong-day", JUNE_15, "June 16, 2026", "date", False),
    case("wrong-year", JUNE_15, "June 15, 2025", "date", False),
    case("day-first-numeric", JUNE_15, "15/06/2026", "date", False),
    case("two-dates", JUNE_15, "June 15 or June 16, 2026", "date", False),
    case("invalid-date", JUNE_15, "February 30, 2026", "date", False),
    case("relative-without-today", JUNE_15, "yesterday", "date", False),
    case("year-less-wrong-year", datetime.date(2025, 6, 15), "June 15", "date", False, today=TODAY),
    case("empty", JUNE_15, "", "date", False),
    # --- text: equivalent formats pass
    case("exact", "Acme Corp", "Acme Corp", "text", True),
    case("case-and-space", "Acme Corp", "  acme   CORP ", "text", True),
    case("quotes-and-period", "Acme Corp", '"Acme Corp".', "text", True),
    case("fullwidth-nfkc", "Acme Corp", "Ａｃｍｅ Ｃｏｒｐ", "text", True),
    case("short-filler", "Acme Corp", "The answer is Acme Corp.", "text", True, candidates=SHOPS),
    case("candidate-inside-expected", "Acme Corp Outlet", "It's Acme Corp Outlet", "text", True,
         candidates=SHOPS),
    case("curly-apostrophe", "O'Brien's Books", "O’Brien’s Books", "text", True),
    # --- text: near misses fail
    case("different", "Acme Corp", "Beta Books", "text", False),
    case("enumerates-candidates", "Acme Corp", "Acme Corp or Beta Books", "text", False, candidates=SHOPS),
    case("names-other-candidate", "Acme Corp", "Acme Corp, not Beta Books", "text", False,
         candidates=SHOPS),
    case("longer-candidate", "Acme Corp", "Acme Corp Outlet", "text", False, candidates=SHOPS),
    case("list-separator", "Acme Corp", "Acme Corp, Zeta Ltd", "text", False),
    case("negated", "Acme Corp", "It is not Acme Corp", "text", False),
    case("partial-word", "Acme", "Acmeville", "text", False),
    case("long-filler", "Acme Corp", "I looked through every single page of the site to find Acme Corp",
         "text", False),
    case("empty", "Acme Corp", "", "text", False),
    # --- list: equivalent formats pass
    case("commas", ["apple", "pear", "fig"], "apple, pear, fig", "list", True),
    case("any-order", ["apple", "pear", "fig"], "fig; Apple; pear", "list", True),
    case("oxford-and", ["apple", "pear", "fig"], "apple, pear, and fig", "list", True),
    case("bullets-with-lead-in", ["apple", "pear"], "Here they are:\n- Apple\n- Pear", "list", True),
    case("numbered-lines", ["apple", "pear"], "1. apple\n2. pear", "list", True, order="exact"),
    case("item-containing-and", ["Ben and Jerry", "Acme"], "Ben and Jerry, Acme", "list", True),
    case("numbers-by-value", [1299, 5], "1,299, 5.0", "list", True),
    case("exact-order", ["a", "b", "c"], "a, b, c", "list", True, order="exact"),
    case("exact-tie-group", ["a", ["b", "c"], "d"], "a, c, b, d", "list", True, order="exact"),
    case("colon-inside-item", ["Star Wars: A New Hope", "Alien"], "Star Wars: A New Hope, Alien", "list",
         True),
    # --- list: near misses fail
    case("extra-item", ["apple", "pear"], "apple, pear, fig", "list", False),
    case("missing-item", ["apple", "pear", "fig"], "apple, pear", "list", False),
    case("duplicate-item", ["apple", "pear"], "apple, apple, pear", "list", False),
    case("wrong-order", ["a", "b", "c"], "a, c, b", "list", False, order="exact"),
    case("tie-group-broken", ["a", ["b", "c"], "d"], "a, b, d, c", "list", False, order="exact"),
    case("wrong-number", [1299, 5], "1,298, 5", "list", False),
    case("empty", ["apple"], "", "list", False),
    # --- boolean
    case("yes", True, "Yes", "boolean", True),
    case("yes-it-is", True, "Yes, it is", "boolean", True),
    case("true", True, "true.", "boolean", True),
    case("no-it-isnt", False, "No, it isn't.", "boolean", True),
    case("not-correct", False, "That is not correct", "boolean", True),
    case("n", False, "n", "boolean", True),
    case("wrong-polarity", True, "No", "boolean", False),
    case("both", True, "Yes and no", "boolean", False),
    case("neither", True, "It depends", "boolean", False),
    case("not-available", False, "N/A", "boolean", False),
    case("empty", True, "", "boolean", False),
]


@pytest.mark.parametrize(("expected", "answer", "answer_type", "correct", "kwargs"), CASES)
def test_judge_answer_table(expected: object, answer: str, answer_type: str, correct: bool,
                            kwargs: dict[str, Any]) -> None:
    verdict = judge_answer(answer, expected, answer_type, **kwargs)  # type: ignore[arg-type]
    assert isinstance(verdict, Verdict)
    assert verdict.correct is correct, verdict.reason
    assert verdict.reason


def test_table_is_large_and_covers_every_type() -> None:
    assert len(CASES) >= 80
    kinds = {(p.values[2], p.values[3]) for p in CASES}
    for answer_type in ("number", "currency", "date", "text", "list", "boolean"):
        assert {(answer_type, True), (answer_type, False)} <= kinds


def test_reason_names_expected_and_found() -> None:
    assert judge_answer("1299.0", 1299, "number") == Verdict(True, "expected 1299, found 1299.0")
    assert judge_answer("12 or 13 or 14", 12, "number").reason == "answer names 3 different numbers"


@pytest.mark.parametrize("answer", [None, 12, ["12"], b"12"])
def test_non_string_answer_is_wrong_not_an_error(answer: object) -> None:
    verdict = judge_answer(answer, 12, "number")  # type: ignore[arg-type]
    assert verdict.correct is False
    assert "not text" in verdict.reason


def test_overlong_answer_is_wrong() -> None:
    verdict = judge_answer("12 " + "x" * 6000, 12, "number")
    assert verdict.correct is False
    assert "characters long" in verdict.reason


def test_docstring_examples() -> None:
    assert doctest.testmod(answers, raise_on_error=True).attempted >= 2


def test_unknown_answer_type_raises_clear_value_error() -> None:
    with pytest.raises(ValueError, match="unknown answer_type 'integer'; use one of number"):
        judge_answer("12", 12, "integer")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("expected", "answer_type", "kwargs"),
    [
        ("twelve", "number", {}),
        (True, "number", {}),
        ("15/06/2026", "date", {}),
        ("", "text", {}),
        ("apple", "list", {}),
        ("yes", "boolean", {}),
        (12, "number", {"order": "sorted"}),
        (12, "number", {"tolerance": -1}),
    ],
)
def test_malformed_grader_input_raises_value_error(expected: object, answer_type: str,
                                                   kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        judge_answer("12", expected, answer_type, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "amount"),
    [("$1,299.00", Decimal("1299.00")), ("12.5 dollars", Decimal("12.50")), ("USD 3", Decimal("3.00")),
     ("$1 or $2", None), ("$1.3k", None), ("nothing", None)],
)
def test_parse_money(text: str, amount: Decimal | None) -> None:
    assert parse_money(text) == amount


@pytest.mark.parametrize(
    ("text", "today", "date"),
    [("2026-06-15", None, JUNE_15), ("15 June 2026", None, JUNE_15), ("yesterday", TODAY, JUNE_15),
     ("June 15", TODAY, JUNE_15), ("June 15", None, None), ("yesterday", None, None),
     ("June 15, 2026 and June 16, 2026", None, None), ("2026-02-30", None, None), ("soon", None, None)],
)
def test_parse_date(text: str, today: datetime.date | None, date: datetime.date | None) -> None:
    assert parse_date(text, today) == date


# --- fuzzing: arbitrary text never raises and is judged quickly ---

FRAGMENTS = ["$", "1,299", "12", ".5", "-", "k", " ", ",", ";", "\n", "- ", "1. ", " and ", " or ", ":",
             "June", "15", "2026", "/", "th", "yes", "no", "not", "Acme Corp", "twenty", "-one", "cents",
             "USD", "today", "e9", "n/a", "’", "０", "\u2212"]
ANY_TEXT = st.one_of(st.text(), st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
EXPECTED: dict[str, object] = {
    "number": 12, "currency": Decimal("1299.00"), "date": JUNE_15, "text": "Acme Corp",
    "list": ["a", ["b", 2], "c"], "boolean": True,
}


@settings(database=None, deadline=None, max_examples=300)
@given(answer=ANY_TEXT, answer_type=st.sampled_from(sorted(EXPECTED)),
       order=st.sampled_from(["any", "exact"]), today=st.none() | st.dates())
def test_judge_answer_never_raises_on_arbitrary_text(answer: str, answer_type: str, order: str,
                                                    today: datetime.date | None, fast: Callable[..., Any]) -> None:
    verdict = fast(lambda: judge_answer(answer, EXPECTED[answer_type], answer_type, today=today,  # type: ignore[arg-type]
                                        order=order, candidates=SHOPS))  # type: ignore[arg-type]
    assert isinstance(verdict, Verdict)
    assert isinstance(verdict.correct, bool) and verdict.reason


@settings(database=None, deadline=None)
@given(text=ANY_TEXT, today=st.none() | st.dates())
def test_parsers_never_raise_on_arbitrary_text(text: str, today: datetime.date | None,
                                               fast: Callable[..., Any]) -> None:
    fast(lambda: (parse_money(text), parse_date(text, today)))
    assert parse_money(text) is None or isinstance(parse_money(text), Decimal)
    assert parse_date(text, today) is None or isinstance(parse_date(text, today), datetime.date)
