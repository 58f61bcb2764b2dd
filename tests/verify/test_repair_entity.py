"""Repairs that read what the site still says: M005's rewrite picks a name whose entity the task finds
(the product to remove is in the cart); C003 restores a missing code from the options that pair it
with the row."""

from __future__ import annotations

import copy

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import static_issues
from veriweb.verify.feasibility import verify_task
from veriweb.verify.repair import repair_static


def test_a_misnamed_product_to_remove_becomes_one_in_the_cart() -> None:
    shop = next(site for site in (generate_site("shop", seed) for seed in range(40))
                if any(t.id == "remove_item" for t in site.tasks))
    task = shop.task("remove_item")
    data = copy.deepcopy(to_data(shop))
    data.pop("id", None)
    entry = next(t for t in data["tasks"] if t["id"] == "remove_item")
    words = task.slots["product"].split()
    invented = " ".join([words[0], "Juniper", *words[2:]])  # one word swapped: no such product
    entry["slots"]["product"] = invented
    entry["instruction"] = entry["instruction"].replace(task.slots["product"], invented)
    site = from_data(data, check_id=False)
    assert "M005" in {i.code for i in static_issues(site)}
    fixed, log, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "M005"] == []
    moved = fixed.task("remove_item")
    assert moved.slots["product"] != invented and moved.slots["product"] in moved.instruction
    session = Session(fixed)
    try:
        user = session.db.conn.execute("SELECT id FROM users WHERE username = ?", (moved.user,)).fetchone()[0]
        in_cart = {r[0] for r in session.db.conn.execute(
            "SELECT p.name FROM cart_items c JOIN products p ON p.id = c.product_id WHERE c.user_id = ?", (user,))}
    finally:
        session.close()
    assert moved.slots["product"] in in_cart, (moved.slots["product"], sorted(in_cart))
    verdict = verify_task(fixed, moved, budget=2_000)
    assert verdict.status == "certified", verdict.proof


def test_a_missing_code_is_restored_from_the_options_that_show_it() -> None:
    travel = generate_site("travel", 1)
    data = copy.deepcopy(to_data(travel))
    data.pop("id", None)
    cities = next(t for t in data["database"]["tables"] if t["name"] == "cities")
    row = cities["rows"][3]
    code = row["code"]
    row["code"] = None
    site = from_data(data, check_id=False)
    assert any(i.code == "C003" and i.location.endswith(".code") for i in static_issues(site))
    fixed, log, _, left, _ = repair_static(site)
    assert [i for i in left if i.code == "C003"] == []
    restored = next(t for t in to_data(fixed)["database"]["tables"] if t["name"] == "cities")["rows"][3]
    assert restored["code"] == code, [r.change for r in log if r.code == "C003"]
