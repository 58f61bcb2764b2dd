"""C006's repair formats only the amounts of a text, never a count beside them."""

from __future__ import annotations

import copy
import re

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.repair import repair_static
from veriweb.verify.repair_links import json_dicts


def test_a_count_beside_an_amount_keeps_its_format() -> None:
    shop = generate_site("shop", 1)
    data = copy.deepcopy(to_data(shop))
    data.pop("id", None)
    text = next(n for n in json_dicts(data["pages"]) if n.get("type") == "text"
                and "|money}" in str(n.get("text")) and re.search(r"\{row\.\w+\}", str(n.get("text"))))
    shown = text["text"]
    text["text"] = shown.replace("|money}", "}")
    site = from_data(data, check_id=False)
    assert "C006" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "C006"] == []
    texts = {n.get("text") for n in json_dicts(to_data(fixed)["pages"]) if n.get("type") == "text"}
    assert shown in texts, [r.change for r in log if r.code == "C006"]


def test_a_number_with_its_unit_or_currency_keeps_its_value() -> None:
    from veriweb.verify.repair import coerce_value

    assert coerce_value("money", "91.99 USD", [100, 200]) == (True, 9199)
    assert coerce_value("integer", "7 units", [3, 4, 4]) == (True, 7)  # not the column's usual 4
    assert coerce_value("integer", "#38", []) == (True, 38)
    assert coerce_value("integer", "3 to 4", []) == (False, None)


def test_a_dangling_key_is_repointed_at_the_row_that_agrees_with_it() -> None:
    """An order line whose product is gone points at a product with the line's price (not the
    nearest id, whose price the line would then contradict: C006)."""
    shop = generate_site("shop", 1)
    data = copy.deepcopy(to_data(shop))
    data.pop("id", None)
    lines = next(t for t in data["database"]["tables"] if t["name"] == "order_items")
    products = next(t for t in data["database"]["tables"] if t["name"] == "products")
    price = {p["id"]: p["price"] for p in products["rows"]}
    line = next(r for r in lines["rows"] if r["price"] == price[r["product_id"]]
                and sum(p == r["price"] for p in price.values()) == 1)
    wanted = line["product_id"]
    line["product_id"] = max(price) + 500
    site = from_data(data, check_id=False)
    assert "C001" in {i.code for i in static_issues(site)}
    fixed, _, _, left, _ = repair_static(site)
    assert left == [] or all(i.code not in ("C001", "C006") for i in left)
    mended = next(t for t in to_data(fixed)["database"]["tables"] if t["name"] == "order_items")
    assert next(r for r in mended["rows"] if r["id"] == line["id"])["product_id"] == wanted
