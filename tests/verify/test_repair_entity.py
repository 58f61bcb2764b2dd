"""M005's rewrite picks a name whose entity the task finds: the product to remove is in the cart."""

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
