"""Templates and URLs: the memoised paths give what the plain ones give."""

from __future__ import annotations

from veriweb.engine.query import Context
from veriweb.engine.templates import Url, render


def test_with_params_keeps_values_as_their_text_even_when_memoised() -> None:
    url = Url.parse("/list?page=2&q=red")
    assert str(url.with_params(page=1)) == "/list?page=1&q=red"
    assert str(url.with_params(page=True)) == "/list?page=True&q=red"  # 1 == True, but not as text
    assert str(url.with_params(page=1.0)) == "/list?page=1.0&q=red"
    assert str(url.with_params(page=None)) == "/list?q=red" and str(url.with_params(page=None, q=None)) == "/list"
    assert url.with_params(page=3) == url.with_params(page="3") == Url("/list", (("page", "3"), ("q", "red")))
    assert str(url) == "/list?page=2&q=red"  # URLs are values: the original is unchanged


def test_render_static_and_filled_templates() -> None:
    ctx = Context(row={"name": "Red shoes", "price": 1299, "n": 1, "gone": None})
    assert render("Plain text", ctx) == "Plain text" and render("", ctx) == ""
    assert render("{{row.name}}", ctx) == "{row.name}" and render("{nope.name}", ctx) == "{nope.name}"
    assert render("{row.name}: {row.price|money}", ctx) == "Red shoes: $12.99"
    assert render("{row.n} item{row.n|plural}{row.gone}", ctx) == "1 item"
    assert render("/p/{row.name}", ctx, url=True) == "/p/Red%20shoes"
