"""Tests of the action grammar: parsing, errors, canonical formatting and the prompt text."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veriweb.engine.actions import (
    _parse_cached,
    ACTIONS,
    BUTTONS,
    MAX_ACTION_LENGTH,
    MODIFIERS,
    Action,
    Check,
    Clear,
    Click,
    DblClick,
    ElementAction,
    Fill,
    Focus,
    GoBack,
    GoForward,
    Goto,
    Hover,
    Noop,
    Press,
    ReportInfeasible,
    Scroll,
    SelectOption,
    SendMsgToUser,
    Uncheck,
    action_examples,
    action_prompt,
    format_action,
    parse_action,
)
from veriweb.errors import ActionSyntaxError

ALL_EXAMPLES = [example for cls in ACTIONS.values() for example in action_examples(cls)]

# ----------------------------------------------------------------------------- every action parses

PARSES = [
    # (positional form, keyword form, expected action)
    ("click('a51')", "click(bid='a51')", Click("a51")),
    (
        "click('48', 'middle', ['Shift', 'Alt'])",
        "click(modifiers=['Shift', 'Alt'], bid='48', button='middle')",
        Click("48", "middle", ("Shift", "Alt")),
    ),
    ("dblclick('12', 'right')", "dblclick(bid='12', button='right')", DblClick("12", "right")),
    ("hover('b8')", "hover(bid='b8')", Hover("b8")),
    ("fill('237', 'hi')", "fill(value='hi', bid='237')", Fill("237", "hi")),
    ("clear('996')", "clear(bid='996')", Clear("996")),
    ("select_option('a48', 'blue')", "select_option(bid='a48', options='blue')",
     SelectOption("a48", ("blue",))),
    ("select_option('c4', ['r', 'g'])", "select_option(bid='c4', options=['r', 'g'])",
     SelectOption("c4", ("r", "g"))),
    ("check('55')", "check(bid='55')", Check("55")),
    ("uncheck('a5289')", "uncheck(bid='a5289')", Uncheck("a5289")),
    ("press('88', 'Control+a')", "press(bid='88', key_comb='Control+a')", Press("88", "Control+a")),
    ("focus('b455')", "focus(bid='b455')", Focus("b455")),
    ("scroll(0, 200)", "scroll(delta_y=200, delta_x=0)", Scroll(0.0, 200.0)),
    ("scroll(-50.2, -100.5)", "scroll(delta_x=-50.2, delta_y=-100.5)", Scroll(-50.2, -100.5)),
    ("goto('http://x.org/?a=1')", "goto(url='http://x.org/?a=1')", Goto("http://x.org/?a=1")),
    ("go_back()", "go_back( )", GoBack()),
    ("go_forward()", "go_forward()", GoForward()),
    ("send_msg_to_user('done')", "send_msg_to_user(text='done')", SendMsgToUser("done")),
    ("report_infeasible('no')", "report_infeasible(reason='no')", ReportInfeasible("no")),
    ("noop()", "noop(wait_ms=1000)", Noop()),
    ("noop(500)", "noop(wait_ms=500.0)", Noop(500.0)),
]


@pytest.mark.parametrize(("positional", "keyword", "expected"), PARSES)
def test_positional_and_keyword_forms_parse(
    positional: str, keyword: str, expected: Action
) -> None:
    assert parse_action(positional) == expected
    assert parse_action(keyword) == expected


def test_every_action_is_covered() -> None:
    assert {type(expected) for _, _, expected in PARSES} == set(ACTIONS.values())


def test_action_table_and_bid() -> None:
    assert all(cls.name == name for name, cls in ACTIONS.items())
    for cls in ACTIONS.values():
        action = parse_action(action_examples(cls)[0])
        assert dataclasses.is_dataclass(action) and not hasattr(action, "__dict__")
        if isinstance(action, ElementAction):
            assert action.bid and isinstance(action.bid, str)
        else:
            assert action.bid is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        Click("1").bid = "2"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click(12)", Click("12")),
        ("click(0)", Click("0")),
        ("  \n\tclick( 'a3' , )  \n", Click("a3")),
        ("click('1', modifiers=('Shift',),)", Click("1", modifiers=("Shift",))),
        ("click('1', modifiers=())", Click("1")),
        ("select_option('1', ('a', 'b'))", SelectOption("1", ("a", "b"))),
        ("select_option('1', [])", SelectOption("1", ())),
        ("fill('1', 42)", Fill("1", "42")),
        ("fill('1', -3.50)", Fill("1", "-3.50")),
        ("fill('1', '')", Fill("1", "")),
        ("scroll(.5, 1e3)", Scroll(0.5, 1000.0)),
        ("scroll(-0, 1.5E-2)", Scroll(0.0, 0.015)),
        ("noop(0)", Noop(0.0)),
        ("press('1', ' ')", Press("1", " ")),
    ],
)
def test_literal_forms(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("'plain'", "plain"),
        ('"double"', "double"),
        ("\"it's\"", "it's"),
        ("'say \"hi\"'", 'say "hi"'),
        (r"'it\'s'", "it's"),
        (r'"say \"hi\""', 'say "hi"'),
        (r"'a\nb'", "a\nb"),
        (r"'a\tb'", "a\tb"),
        (r"'a\rb'", "a\rb"),
        (r"'back\\slash'", "back\\slash"),
        (r"'\\n is not a newline'", "\\n is not a newline"),
        (r"'caf\u00e9'", "café"),
        (r"'\u00E9\u4e2d'", "é中"),
        ("'raw\nnewline'", "raw\nnewline"),
        ("'unicode ✓ 中文'", "unicode ✓ 中文"),
        ("'(not, a=call)'", "(not, a=call)"),
    ],
)
def test_string_quoting_and_escapes(literal: str, value: str) -> None:
    assert parse_action(f"fill('1', {literal})") == Fill("1", value)


# ----------------------------------------------------------------------------- malformed input

MALFORMED = [
    ("", "empty action"),
    ("   \n\t ", "empty action"),
    ("x" * (MAX_ACTION_LENGTH + 1), "limit is 10000"),
    ("click", "expected '(' after click"),
    ("click('12'", "expected ',' or ')'"),
    ("click('12') click('13')", "unexpected text after the action"),
    ("click('12');", "unexpected character ';'"),
    ("clik('12')", "did you mean click()"),
    ("eval('1+1')", "unknown action 'eval'"),
    ("'12'", "starts with a function name"),
    ("fill('12')", "fill() expects fill(bid: str, value: str); got 1 argument"),
    ("fill('1', 'a', 'b')", "got 3 arguments"),
    ("go_back('now')", "go_back() expects go_back(); got 1 argument"),
    ("fill(value='a')", "missing 'bid'"),
    ("fill('1', 'a', bid='2')", "got argument 'bid' twice"),
    ("fill(bid='1', bid='2', value='a')", "got argument 'bid' twice"),
    ("fill('1', text='a')", "unknown argument 'text'"),
    ("press('1', key='Enter')", "press(bid: str, key_comb: str)"),
    ("fill(bid='1', 'a')", "positional argument after a keyword"),
    ("click(a12)", "unexpected name 'a12'"),
    ("click(12abc)", "malformed number"),
    ("click(1.5)", "argument 'bid' must be an element id"),
    ("click(-3)", "argument 'bid' must be an element id"),
    ("click('')", "argument 'bid' must be an element id"),
    ("click(True)", "argument 'bid' must be an element id"),
    ("click(None)", "argument 'bid' must be an element id"),
    ("click(007)", "leading zeros"),
    ("click('1', button='up')", "must be one of 'left', 'middle', 'right'"),
    ("click('1', modifiers='Shift')", "must be a list"),
    ("click('1', modifiers=['Super'])", "may only hold 'Alt'"),
    ("click('1', modifiers=[['Shift']])", "lists cannot be nested"),
    ("select_option('1', [1, 2])", "must be a string or a list of strings"),
    ("fill('1', ['a'])", "argument 'value' must be a string"),
    ("scroll('0', 100)", "argument 'delta_x' must be a number"),
    ("scroll(1e999, 0)", "out of range"),
    ("noop(-5)", "must not be negative"),
    ("goto('')", "must not be empty"),
    ("press('1', '')", "must not be empty"),
    ("fill('1', 'abc)", "unterminated string starting at column 11"),
    ("fill('1', \"abc')", "unterminated string"),
    ("fill('1', 'a\\qb')", "unknown escape \\q"),
    ("fill('1', '\\u12')", "4 hex digits"),
    ("fill('1', 'abc\\", "unterminated string"),
    ("click(,)", "expected a value"),
    ("click('1',,)", "expected a value"),
    ("click('1' '2')", "expected ',' or ')'"),
    ("click('1', button=)", "expected a value"),
    ("click(['1')", "expected ',' or ']'"),
    ("click('1', - 2)", "unexpected character '-'"),
    ("click('1', 1.2.3)", "malformed number"),
    ("click(**{'bid': '1'})", "unexpected character '*'"),
    ("__import__('os')", "unknown action '__import__'"),
    ("noop(wait_ms=1000, wait_ms=2)", "twice"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[t[:30] for t, _ in MALFORMED])
def test_malformed_input_is_explained(text: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError) as caught:
        parse_action(text)
    assert message in str(caught.value)


def test_messages_show_the_signature() -> None:
    with pytest.raises(ActionSyntaxError, match=r"expects click\(bid: str, button: str = 'left'"):
        parse_action("click('1', button='up')")


def test_non_string_input_is_a_syntax_error() -> None:
    with pytest.raises(ActionSyntaxError, match="must be a string"):
        parse_action(None)  # type: ignore[arg-type]


def test_longest_allowed_input_parses() -> None:
    prefix, suffix = "fill('1', '", "')"
    text = prefix + "a" * (MAX_ACTION_LENGTH - len(prefix) - len(suffix)) + suffix
    assert len(text) == MAX_ACTION_LENGTH
    assert isinstance(parse_action(text), Fill)


# ----------------------------------------------------------------------------- round trip

BIDS = st.from_regex(r"[a-z]{0,2}[0-9]{1,5}", fullmatch=True) | st.text(min_size=1, max_size=20)
MODIFIER_TUPLES = st.lists(st.sampled_from(MODIFIERS), max_size=3).map(tuple)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
ACTION_VALUES = st.one_of(
    st.builds(Click, BIDS, st.sampled_from(BUTTONS), MODIFIER_TUPLES),
    st.builds(DblClick, BIDS, st.sampled_from(BUTTONS), MODIFIER_TUPLES),
    st.builds(Hover, BIDS),
    st.builds(Fill, BIDS, st.text()),
    st.builds(Clear, BIDS),
    st.builds(SelectOption, BIDS, st.lists(st.text(), max_size=4).map(tuple)),
    st.builds(Check, BIDS),
    st.builds(Uncheck, BIDS),
    st.builds(Press, BIDS, st.text(min_size=1)),
    st.builds(Focus, BIDS),
    st.builds(Scroll, FINITE, FINITE),
    st.builds(Goto, st.text(min_size=1)),
    st.just(GoBack()),
    st.just(GoForward()),
    st.builds(SendMsgToUser, st.text()),
    st.builds(ReportInfeasible, st.text()),
    st.builds(Noop, st.floats(min_value=0, allow_infinity=False) | st.just(1000)),
)


@settings(max_examples=500, deadline=None)
@given(ACTION_VALUES)
def test_format_round_trips(action: Action) -> None:
    text = format_action(action)
    assert parse_action(text) == action
    assert format_action(parse_action(text)) == text
    assert str(action) == text
    assert "\n" not in text and "\t" not in text


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Click("12"), "click('12')"),
        (Click("12", modifiers=("Shift",)), "click('12', modifiers=['Shift'])"),
        (DblClick("a", "right"), "dblclick('a', button='right')"),
        (Fill("1", "it's \"x\"\n\\"), "fill('1', 'it\\'s \"x\"\\n\\\\')"),
        (Fill("1", "\x00\x7f"), "fill('1', '\\u0000\\u007f')"),
        (SelectOption("1", ("one",)), "select_option('1', 'one')"),
        (SelectOption("1", ("a", "b")), "select_option('1', ['a', 'b'])"),
        (Press("1", "Enter"), "press('1', 'Enter')"),
        (Scroll(0.0, -100.5), "scroll(0, -100.5)"),
        (Scroll(1e-7, 1e20), "scroll(1e-07, 1e+20)"),
        (Noop(), "noop()"),
        (Noop(1000.0), "noop()"),
        (Noop(250), "noop(wait_ms=250)"),
    ],
)
def test_canonical_format(action: Action, text: str) -> None:
    assert format_action(action) == text


def test_format_rejects_foreign_objects() -> None:
    with pytest.raises(TypeError, match="not a veriweb action"):
        format_action("click('1')")  # type: ignore[arg-type]


# ----------------------------------------------------------------------------- robustness

GRAMMAR_CHARS = "clickfl_nop()[],='\"\\ \n0123456789-.eETrueFalsNu"


@st.composite
def mutated_examples(draw: st.DrawFn) -> str:
    """A docstring example with a few characters inserted, deleted or replaced."""
    text = draw(st.sampled_from(ALL_EXAMPLES))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        char = draw(st.sampled_from(GRAMMAR_CHARS))
        kind = draw(st.sampled_from(["insert", "delete", "replace"]))
        if kind == "insert":
            text = text[:at] + char + text[at:]
        else:
            text = text[:at] + (char if kind == "replace" else "") + text[at + 1 :]
    return text


def _parse_quickly(text: str, fast: Callable[..., object]) -> None:
    def parse() -> None:
        _parse_cached.cache_clear()  # time the parser, not the cache
        try:
            parse_action(text)
        except ActionSyntaxError as error:
            assert str(error)

    fast(parse)


@settings(max_examples=400, deadline=None)
@given(text=st.text(max_size=300) | st.text(alphabet=GRAMMAR_CHARS, max_size=80) | mutated_examples())
def test_arbitrary_text_only_raises_action_syntax_error(text: str, fast: Callable[..., object]) -> None:
    _parse_quickly(text, fast)


@pytest.mark.parametrize(
    "text",
    [
        "(" * MAX_ACTION_LENGTH,
        "click(" + "[" * (MAX_ACTION_LENGTH - 6),
        "click(" + "1," * 4997,
        "fill('1', '" + "\\n" * 4990 + "')",
        "fill('1', '" + "\\u00e9" * 1600 + "')",
        "scroll(" + "9" * 4990 + ", 1)",
        "fill('1', " + "9" * 9980 + ")",
        "clik" + "k" * 9990 + "()",
        " " * (MAX_ACTION_LENGTH - 9) + "go_back()",
        "select_option('1', [" + "'a'," * 2490 + "])",
        "click(" + "a=1," * 2490 + ")",
    ],
    ids=lambda text: f"{text[:12]!r}..{len(text)}",
)
def test_longest_inputs_stay_fast(text: str, fast: Callable[..., object]) -> None:
    assert len(text) <= MAX_ACTION_LENGTH
    _parse_quickly(text, fast)


# ----------------------------------------------------------------------------- documentation


@pytest.mark.parametrize("cls", list(ACTIONS.values()), ids=list(ACTIONS))
def test_docstring_examples_parse(cls: type[Action]) -> None:
    examples = action_examples(cls)
    assert examples, f"{cls.__name__} has no Examples: section"
    for example in examples:
        action = parse_action(example)
        assert type(action) is cls
        assert parse_action(format_action(action)) == action


def test_prompt_documents_every_action() -> None:
    prompt = action_prompt()
    for name, cls in ACTIONS.items():
        assert f"\n{name}(" in prompt
        assert (cls.__doc__ or "").splitlines()[0] in prompt
        for example in action_examples(cls):
            assert example in prompt
    assert "click(bid: str, button: str = 'left', modifiers: list[str] = [])" in prompt
    assert "noop(wait_ms: float = 1000)" in prompt
