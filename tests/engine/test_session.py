"""UI transitions, markers seen through the UI, and determinism of the session."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from veriweb.engine import Session, axtree_text, element_list, html_page
from veriweb.engine.page import overlay
from veriweb.scaffold import Site


def bid(session: Session, role: str, name: str | None = None, nth: int = 0) -> str:
    return session.page().find(role, name, nth=nth).bid


def act(session: Session, action: str) -> None:
    result = session.step(action)
    assert result.error is None, f"{action}: {result.error}"


def test_home_page_has_layout_and_content(session: Session) -> None:
    page = session.page()
    assert page.url == "/" and page.title == "Threadline: clothes that last"
    roles = [n.role for n in page.nodes]
    assert roles[:2] == ["banner", "link"] and "main" in roles and "contentinfo" in roles
    assert page.find("heading", "Welcome to Threadline").level == 1
    # the virtual clock, never the wall clock
    assert page.find("paragraph").text.startswith("Today is Jun 15, 2026.")


def test_links_navigate_and_history_goes_back_and_forward(session: Session) -> None:
    act(session, f"click('{bid(session, 'link', 'Shirts')}')")
    assert session.page().url == "/category/1"
    act(session, f"click('{bid(session, 'link', 'Red Flannel Shirt')}')")
    assert session.page().url == "/product/3"
    act(session, "go_back()")
    assert session.page().url == "/category/1"
    act(session, "go_back()")
    assert session.page().url == "/"
    assert session.step("go_back()").error == "there is no previous page in the history"
    act(session, "go_forward()")
    assert session.page().url == "/category/1"
    act(session, "goto('/about')")
    assert session.step("go_forward()").error is not None  # going somewhere new drops the forward history


def test_search_form_submits_with_enter_and_keeps_query(session: Session) -> None:
    box = bid(session, "textbox", "Search products")
    act(session, f"fill('{box}', 'red')")
    act(session, f"press('{box}', 'Enter')")
    page = session.page()
    assert page.url == "/search?q=red"
    assert page.find("textbox", "Search products").value == "red"
    names = [n.name for n in page.nodes if n.role == "link" and n.href and n.href.startswith("/product/")]
    assert names == ["Red Flannel Shirt", "Red Jogger Pants", "Red Suede Loafers", "Red Bucket Hat"]


def test_sort_and_pagination_are_links_kept_in_the_url(session: Session) -> None:
    act(session, "goto('/category/1')")
    first = [n.name for n in session.page().nodes if n.role == "link" and (n.href or "").startswith("/product/")]
    assert len(first) == 5 and session.page().find("paragraph", "Page 1 of 2")
    act(session, f"click('{bid(session, 'link', 'Next')}')")
    assert session.page().url == "/category/1?products_page=2"
    second = [n.name for n in session.page().nodes if n.role == "link" and (n.href or "").startswith("/product/")]
    assert second == ["Denim Work Shirt"]
    act(session, f"click('{bid(session, 'link', 'Price: low to high')}')")
    assert session.page().url == "/category/1?products_sort=price_asc"  # sorting starts again at page 1
    cheapest = [n.name for n in session.page().nodes if n.role == "link" and (n.href or "").startswith("/product/")]
    assert cheapest[0] == "Crimson Polo Shirt"
    assert session.page().find("paragraph", "Price: low to high")  # the active sort is not a link


def test_tabs_show_one_panel_and_hidden_elements_refuse_actions(session: Session) -> None:
    act(session, "goto('/product/3')")
    page = session.page()
    panels = [(n.name, n.visible) for n in page.nodes if n.role == "tabpanel"]
    assert panels == [("Description", True), ("Options", False), ("Reviews", False)]
    hidden_box = next(n for n in page.nodes if n.role == "textbox" and n.name == "Quantity")
    assert not hidden_box.visible
    error = session.step(f"fill('{hidden_box.bid}', '3')").error
    assert error is not None and "not visible" in error
    act(session, f"click('{bid(session, 'tab', 'Options')}')")
    assert session.page().find("tab", "Options").selected
    assert session.page().find("textbox", "Quantity").value == "1"
    assert "Quantity" not in [n.name for n in session.page().nodes if n.role == "textbox" and not n.visible]


def test_select_option_by_value_or_label_and_bad_option_is_an_error(session: Session) -> None:
    session.reset("/checkout", user="alice")
    box = bid(session, "combobox", "Shipping")
    act(session, f"select_option('{box}', 'Express ($15.00)')")
    assert session.page().find("combobox", "Shipping").value == "Express ($15.00)"
    act(session, f"select_option('{box}', 'standard')")
    assert session.page().find("option", "Standard ($5.00)").selected
    error = session.step(f"select_option('{box}', 'teleport')").error
    assert error is not None and "no option 'teleport'" in error
    error = session.step(f"fill('{box}', 'express')").error
    assert error is not None and "select_option" in error


def test_checkbox_and_radio(session: Session) -> None:
    session.reset("/product/16", user="bob")
    act(session, f"click('{bid(session, 'tab', 'Reviews')}')")
    four = bid(session, "radio", "4 stars")
    act(session, f"check('{four}')")
    assert session.page().find("radio", "4 stars").checked
    assert not session.page().find("radio", "5 stars").checked
    assert session.step(f"uncheck('{four}')").error is not None
    act(session, f"click('{bid(session, 'radio', '5 stars')}')")
    assert session.page().find("radio", "5 stars").checked and not session.page().find("radio", "4 stars").checked


def test_menu_collapsible_and_dialog(session: Session) -> None:
    account = bid(session, "button", "Account")
    assert not [n for n in session.page().nodes if n.role == "link" and n.name == "Log in" and n.visible]
    act(session, f"click('{account}')")
    assert session.page().find("button", "Account").expanded is True
    act(session, f"click('{bid(session, 'link', 'Log in')}')")
    assert session.page().url == "/login"
    act(session, "goto('/about')")
    act(session, f"click('{bid(session, 'button', 'Contact us')}')")
    page = session.page()
    dialog = page.find("dialog", "Contact us")
    assert dialog.visible and page.modal is dialog
    error = session.step(f"click('{bid(session, 'link', 'Home')}')").error
    assert error is not None and "covered by an open dialog" in error
    act(session, f"press('{bid(session, 'button', 'Close')}', 'Escape')")
    assert session.page().modal is None
    session.reset("/orders/5", user="bob")
    act(session, f"click('{bid(session, 'button', 'Need to cancel?')}')")
    assert session.page().find("button", "Need to cancel?").expanded is True
    assert session.page().find("button", "Cancel this order").visible


def test_login_required_pages_redirect_and_login_returns(session: Session) -> None:
    act(session, f"click('{bid(session, 'link', 'Orders')}')")
    assert session.page().url == "/login?next=%2Forders"
    act(session, f"fill('{bid(session, 'textbox', 'Username')}', 'bob')")
    act(session, f"fill('{bid(session, 'textbox', 'Password')}', 'wrong')")
    act(session, f"click('{bid(session, 'button', 'Log in')}')")
    assert session.page().find("alert").text == "Invalid username or password."
    assert session.ui.user_id is None
    act(session, f"fill('{bid(session, 'textbox', 'Password')}', 'hunter2-bob')")
    act(session, f"click('{bid(session, 'button', 'Log in')}')")
    assert session.page().url == "/orders" and session.ui.user_id == 2
    assert session.page().find("status").text == "You are logged in."
    assert "hunter2" not in axtree_text(session.page())


def test_password_is_masked(session: Session) -> None:
    act(session, "goto('/login')")
    act(session, f"fill('{bid(session, 'textbox', 'Password')}', 'secret')")
    assert session.page().find("textbox", "Password").value == "\u2022" * 6
    assert "secret" not in axtree_text(session.page()) + html_page(session.page())


def test_marker_failure_is_shown_and_rolled_back(session: Session) -> None:
    session.reset("/product/15", user="carol")  # 2 in stock
    before = session.db.state_hash()
    act(session, f"click('{bid(session, 'tab', 'Options')}')")
    act(session, f"fill('{bid(session, 'textbox', 'Quantity')}', '3')")
    act(session, f"click('{bid(session, 'button', 'Add to cart')}')")
    assert session.page().find("alert").text == "Sorry, we do not have that many in stock."
    assert session.db.state_hash() == before and session.version == "0"
    act(session, f"fill('{bid(session, 'textbox', 'Quantity')}', 'two')")
    act(session, f"click('{bid(session, 'button', 'Add to cart')}')")
    assert session.page().find("alert").text == "Quantity must be a whole number."
    assert session.db.state_hash() == before
    act(session, f"fill('{bid(session, 'textbox', 'Quantity')}', '2')")
    act(session, f"click('{bid(session, 'button', 'Add to cart')}')")
    assert session.page().find("status").text == "Added to your cart."
    assert session.db.state_hash() != before and session.version != "0"


def test_marker_needs_login(session: Session) -> None:
    act(session, "goto('/product/3')")
    act(session, f"click('{bid(session, 'tab', 'Options')}')")
    act(session, f"click('{bid(session, 'button', 'Add to cart')}')")
    assert session.page().find("alert").text == "Please log in first."
    assert session.db.change_count() == 0


def test_confirm_dialog_guards_an_irreversible_marker(session: Session) -> None:
    session.reset("/checkout", user="alice")
    act(session, f"click('{bid(session, 'button', 'Place order')}')")
    page = session.page()
    assert page.find("dialog", "Place this order?") is page.modal
    assert session.db.change_count() == 0
    act(session, f"click('{bid(session, 'button', 'Go back')}')")
    assert session.page().modal is None and session.db.change_count() == 0
    act(session, f"click('{bid(session, 'button', 'Place order')}')")
    act(session, f"click('{bid(session, 'button', 'Yes, place order')}')")
    page = session.page()
    assert page.url == "/orders/6" and page.find("heading", "Order #6")
    assert page.find("paragraph", "Total (with shipping): $75.97")
    session.reset("/cart", user="alice")
    assert session.db.change_count() == 0  # reset restored the snapshot
    assert session.page().find("link", "Red Flannel Shirt")


def test_required_field_left_empty_is_reported_not_submitted(session: Session) -> None:
    session.reset("/checkout", user="alice")
    act(session, f"clear('{bid(session, 'textbox', 'City')}')")
    act(session, f"click('{bid(session, 'button', 'Place order')}')")
    assert session.page().find("alert").text == "Please fill in: City."
    assert session.page().modal is None


@pytest.mark.parametrize("action, message", [
    ("click('9999')", "no element with bid '9999'"),
    ("clik('3')", "unknown action"),
    ("fill('13', 'x')", "cannot be typed into"),
    ("click(", "expected"),
    ("goto('javascript:alert(1)')", "only pages of this site"),
    ("check('2')", "not a checkbox"),
    ("select_option('2', 'x')", "not a drop-down"),
])
def test_bad_actions_are_errors_and_change_nothing(session: Session, action: str, message: str) -> None:
    act(session, f"fill('{bid(session, 'textbox', 'Search products')}', 'hat')")
    before = (session.state_hash(), axtree_text(session.page()))
    result = session.step(action)
    assert result.error is not None and message in result.error
    assert (session.state_hash(), axtree_text(session.page())) == before


def test_keyboard_typing_tab_and_backspace(session: Session) -> None:
    box = bid(session, "textbox", "Search products")
    for key in ("h", "a", "t", "s", "Backspace"):
        act(session, f"press('{box}', '{key}')")
    assert session.page().find("textbox", "Search products").value == "hat"
    act(session, f"press('{box}', 'Tab')")
    focused = [n for n in session.page().nodes if n.focused]
    assert [(n.role, n.name) for n in focused] == [("button", "Search")]


def test_unknown_route_is_a_404_page_with_the_layout(session: Session) -> None:
    act(session, "goto('/no/such/page')")
    page = session.page()
    assert page.status == 404 and page.find("heading", "Page not found")
    act(session, "goto('/product/99999')")
    assert session.page().find("paragraph", "This product does not exist.")


def _random_walk(session: Session, rng: random.Random, steps: int) -> list[str]:
    log = []
    for _ in range(steps):
        page = session.page()
        nodes = [n for n in page.nodes if n.interactable and not page.blocked(n)]
        node = rng.choice(nodes)
        if node.editable:
            action = f"fill('{node.bid}', '{rng.choice(['red', '2', 'alice', ''])}')"
        elif node.role == "combobox":
            action = f"select_option('{node.bid}', '{rng.choice(node.children).name}')"
        else:
            action = f"click('{node.bid}')"
        session.step(action)
        log.append(axtree_text(session.page()) + repr(element_list(session.page())) + session.state_hash())
    return log


def test_same_actions_give_identical_observations_and_state(shop: Site) -> None:
    runs = []
    for _ in range(2):
        session = Session(shop)
        session.reset("/", user="alice")
        runs.append(_random_walk(session, random.Random(7), 120))
    assert runs[0] == runs[1]


def test_cached_and_overlaid_pages_equal_fresh_builds(shop: Site) -> None:
    session = Session(shop)
    session.reset("/", user="alice")
    rng = random.Random(3)
    for _ in range(150):
        _random_walk(session, rng, 1)
        fresh = session._build(fields=session.ui.fields, focus=session.ui.focus)
        assert axtree_text(fresh) == axtree_text(session.page())
        assert element_list(fresh) == element_list(session.page())
        assert html_page(fresh) == html_page(session.page())
    base = session._build(fields={}, focus=None)
    assert axtree_text(overlay(base, {}, None)) == axtree_text(base)


@pytest.mark.parametrize("undo_limit", [0, 1000])
def test_reset_by_undo_or_snapshot_restores_the_same_rows(shop: Site, undo_limit: int) -> None:
    session = Session(shop)
    seeded = session.db.state_hash()
    for task_id in ("buy_under_budget", "cancel_recent_order", "review_product", "remove_from_cart"):
        task = shop.task(task_id)
        assert task is not None
        session.reset(task.start_url, user=task.user if task.start_logged_in else None)
        for action in task.certificate:
            session.step(action)
        assert session.db.change_count() > 0 and session.db.state_hash() != seeded
        session.db.reset(undo_limit=undo_limit)
        assert session.db.change_count() == 0 and session.db.state_hash() == seeded

_NAMES = ["click", "dblclick", "hover", "fill", "clear", "select_option", "check", "uncheck", "press", "focus",
          "scroll", "goto", "go_back", "go_forward", "send_msg_to_user", "noop", "report_infeasible", "frobnicate"]
_ARGS = st.one_of(st.integers(-5, 80).map(str), st.integers(-5, 80).map(lambda n: f"'{n}'"),
                  st.text(max_size=12).map(repr), st.sampled_from(["'Enter'", "'Tab'", "['a', 'b']", "None", "1.5"]))


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from(_NAMES), args=st.lists(_ARGS, max_size=3), junk=st.text(max_size=30))
def test_random_action_strings_never_raise(shop: Site, fast: Callable[..., object], name: str, args: list[str],
                                          junk: str) -> None:
    session = Session(shop)
    session.reset("/product/3", user="alice")
    for text in (f"{name}({', '.join(args)})", junk):
        result = fast(lambda: session.step(text))
        assert result.error is None or isinstance(result.error, str)
        session.page()


def test_sessions_are_freed_when_dropped(shop: Site) -> None:
    import gc
    import weakref

    refs = []
    for _ in range(3):
        session = Session(shop)
        session.page()
        refs.append(weakref.ref(session))
        del session
    gc.collect()
    assert all(ref() is None for ref in refs)
