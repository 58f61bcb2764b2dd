"""Storefront blueprint: catalogue, search, filters and sort, product options, cart, checkout, orders, reviews.

Description:
    A clothing and homeware store. Categories with hundreds of products (colour, price, stock,
    rating), search by name, sorting and pagination, product pages whose options (size and
    quantity) sit in tabs, a collapsible or plainly on the page, a cart per user, a checkout with
    an address form, a shipping choice (drop-down or radio) and, on some sites, a confirmation
    dialog; order history with cancellation of orders that have not shipped; product reviews.

Action Space:
    BrowserGym high-level actions on the rendered pages (see ``veriweb.engine.actions``).

Observation Space:
    The engine's page model: accessibility-tree text, element list, HTML.

Rewards:
    From the task's goal and progress predicates over the database (see ``veriweb.engine.judge``).

Starting State:
    The seeded database; the task's start URL, logged in when the task says so.

Episode End:
    As ``veriweb.engine.episode`` rules: an answer, an infeasibility report, the goal reached, a
    broken constraint or footprint, or the step budget.

Arguments:
    ``Streams`` of the site's seed: ``structure`` (pages, labels, widgets, layout), ``content``
    (records), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import random
from typing import Any

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page, login_plan
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import all_pages, as_user, make_task, next_pages, start_somewhere, with_login
from veriweb.generate.vocab import CITIES, Labels, password, person, street_address

SHOP_NAMES = ["Threadline", "Northwind Goods", "Maple & Co", "Harbor Supply", "Fern Street", "Copper Kettle",
              "Bright Basket", "Olive Lane", "Tidewater Shop", "Granite Outfitters", "Little Lantern", "Bluebird Market"]
CATEGORIES: dict[str, list[str]] = {
    "Shirts": ["Oxford Shirt", "Flannel Shirt", "Polo Shirt", "Linen Shirt", "Denim Shirt", "Breton Shirt"],
    "Pants": ["Chino Pants", "Cargo Pants", "Jogger Pants", "Wool Trousers", "Straight Jeans", "Corduroys"],
    "Shoes": ["Canvas Sneakers", "Chelsea Boots", "Trail Runners", "Suede Loafers", "Leather Sandals"],
    "Hats": ["Wool Beanie", "Straw Hat", "Baseball Cap", "Bucket Hat", "Flat Cap"],
    "Jackets": ["Rain Jacket", "Denim Jacket", "Puffer Jacket", "Field Coat", "Fleece Jacket"],
    "Bags": ["Tote Bag", "Backpack", "Duffel Bag", "Messenger Bag", "Weekender"],
    "Kitchen": ["Chef Knife", "Cast Iron Pan", "Teapot", "Mixing Bowl", "Cutting Board"],
    "Homeware": ["Throw Blanket", "Table Lamp", "Linen Pillow", "Wool Rug", "Scented Candle"],
}
COLOURS = ["Red", "Blue", "Green", "Black", "White", "Grey", "Navy", "Olive", "Brown", "Yellow"]
STYLES = ["Classic", "Slim", "Relaxed", "Vintage", "Everyday", "Heavy", "Light", "Organic", "Waxed", "Washed",
          "Summer", "Winter", "Travel", "Studio", "Coastal", "Urban"]
SIZES = ["S", "M", "L", "XL"]
STATUSES = ["placed", "shipped", "delivered"]
MISSING = ["Velvet Tuxedo Jacket", "Gold Plated Kettle", "Silk Opera Gloves", "Titanium Snow Boots",
           "Cashmere Sleeping Bag", "Crystal Dog Bowl"]
MAX_CERTIFICATE = 20
"""Half the default 40-step budget: no certificate may be longer."""
MISSING_CATEGORY = {"Velvet Tuxedo Jacket": "Jackets", "Gold Plated Kettle": "Kitchen", "Titanium Snow Boots": "Shoes",
                    "Cashmere Sleeping Bag": "Bags", "Crystal Dog Bowl": "Homeware", "Silk Opera Gloves": "Hats"}
"""Where a shopper would look for each missing product."""


def _catalogue(rng: random.Random, categories: list[str], count: int) -> list[dict[str, Any]]:
    products, seen = [], set()
    while len(products) < count:
        cat_index = rng.randrange(len(categories))
        name = f"{rng.choice(COLOURS)} {rng.choice(STYLES)} {rng.choice(CATEGORIES[categories[cat_index]])}"
        if name in seen:
            continue
        seen.add(name)
        products.append({"id": len(products) + 1, "name": name, "category_id": cat_index + 1,
                         "color": name.split()[0].lower(), "price": rng.randrange(900, 25000, 100) - 1,
                         "stock": rng.randint(0, 40), "rating": round(rng.uniform(2.0, 5.0), 1),
                         "description": f"{name.split(' ', 1)[1]} made to last, in {name.split()[0].lower()}."})
    return products


def build(streams: Streams) -> Draft:
    """Build one storefront (see the module docstring)."""
    srng, crng, trng = streams.structure, streams.content, streams.tasks
    labels = Labels(srng)
    site_name = srng.choice(SHOP_NAMES)
    categories = sorted(srng.sample(sorted(CATEGORIES), srng.randint(4, 7)))
    options_ui = srng.choice(["tabs", "collapsible", "plain"])
    listing_kind = srng.choice(["list", "table"])
    page_size = srng.choice([5, 8, 10, 12])
    shipping_ui = srng.choice(["select", "radio"])
    confirm_checkout = srng.random() < 0.6
    confirm_cancel = srng.random() < 0.7
    confirm_remove = srng.random() < 0.4
    search_in_header = srng.random() < 0.5
    has_deals = srng.random() < 0.5
    address_order = srng.sample(["name", "address", "city"], 3)
    sort_keys = ["price_asc"] + srng.sample(["price_desc", "rating_desc", "name_asc"], srng.randint(1, 3))
    sorts = [(key, labels[key], {"price_asc": "price", "price_desc": "price", "rating_desc": "rating",
                                 "name_asc": "name"}[key], "desc" if key in ("price_desc", "rating_desc") else "asc")
             for key in sort_keys]

    # ------------------------------------------------------------------ content
    products = _catalogue(crng, categories, crng.randint(150, 600))
    users = []
    for number in range(1, crng.randint(20, 60) + 1):
        first, last = person(crng)
        username = f"{first.lower()}{number}"
        users.append({"id": number, "username": username, "password": password(crng, username),
                      "name": f"{first} {last}", "address": street_address(crng), "city": crng.choice(CITIES)})
    orders, items = [], []
    for number in range(1, crng.randint(60, 300) + 1):
        user = crng.choice(users)
        lines = crng.sample(products, crng.randint(1, 3))
        total = 0
        for product in lines:
            qty = crng.randint(1, 3)
            items.append({"id": len(items) + 1, "order_id": number, "product_id": product["id"],
                          "size": crng.choice(SIZES), "qty": qty, "price": product["price"]})
            total += qty * product["price"]
        shipping = crng.choice(["standard", "express"])
        orders.append({"id": number, "user_id": user["id"], "created": f"2026-{crng.randint(1, 6):02d}-{crng.randint(1, 14):02d}",
                       "status": crng.choice(STATUSES), "shipping": shipping,
                       "total": total + (1500 if shipping == "express" else 500),
                       "name": user["name"], "address": user["address"], "city": user["city"]})
    cart = []
    stocked = [p for p in products if p["stock"] >= 5]
    for user in crng.sample(users, 6):
        for product in crng.sample(stocked, crng.randint(1, 3)):
            cart.append({"id": len(cart) + 1, "user_id": user["id"], "product_id": product["id"],
                         "size": crng.choice(SIZES), "qty": crng.randint(1, 2)})
    reviews = [{"id": n, "product_id": crng.choice(products)["id"], "user_id": crng.choice(users)["id"],
                "rating": crng.randint(1, 5), "body": crng.choice(["Great quality.", "Runs small.", "Love the colour.",
                                                                  "Arrived quickly.", "Not for me.", "Worth it."])}
               for n in range(1, crng.randint(100, 400) + 1)]
    tables = [
        kit.table_def("categories", [("id", "integer"), ("name", "text")],
                      [{"id": i + 1, "name": c} for i, c in enumerate(categories)]),
        kit.table_def("products", [("id", "integer"), ("name", "text"), ("category_id", "integer"), ("color", "text"),
                                   ("price", "money"), ("stock", "integer"), ("rating", "real"), ("description", "text")],
                      products, foreign_keys=[("category_id", "categories")], indexes=[["name"], ["price"]]),
        kit.table_def("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("address", "text"), ("city", "text")], users, indexes=[["username"]]),
        kit.table_def("cart_items", [("id", "integer"), ("user_id", "integer"), ("product_id", "integer"),
                                     ("size", "text"), ("qty", "integer")], cart,
                      foreign_keys=[("user_id", "users"), ("product_id", "products")]),
        kit.table_def("orders", [("id", "integer"), ("user_id", "integer"), ("created", "date"), ("status", "text"),
                                 ("shipping", "text"), ("total", "money"), ("name", "text"), ("address", "text"),
                                 ("city", "text")], orders, foreign_keys=[("user_id", "users")]),
        kit.table_def("order_items", [("id", "integer"), ("order_id", "integer"), ("product_id", "integer"),
                                      ("size", "text"), ("qty", "integer"), ("price", "money")], items,
                      foreign_keys=[("order_id", "orders"), ("product_id", "products")]),
        kit.table_def("reviews", [("id", "integer"), ("product_id", "integer"), ("user_id", "integer"),
                                  ("rating", "integer"), ("body", "text")], reviews,
                      foreign_keys=[("product_id", "products"), ("user_id", "users")]),
    ]
    views = [
        {"name": "cart_view", "money_columns": ["price", "line_total"],
         "sql": "SELECT c.id AS id, c.user_id AS user_id, c.product_id AS product_id, p.name AS name, c.size AS size, "
                "c.qty AS qty, p.price AS price, c.qty * p.price AS line_total FROM cart_items c "
                "JOIN products p ON p.id = c.product_id"},
        {"name": "cart_totals", "money_columns": ["total"],
         "sql": "SELECT c.user_id AS id, c.user_id AS user_id, sum(c.qty) AS items, sum(c.qty * p.price) AS total "
                "FROM cart_items c JOIN products p ON p.id = c.product_id GROUP BY c.user_id"},
        {"name": "order_lines", "money_columns": ["price", "line_total"],
         "sql": "SELECT i.id AS id, i.order_id AS order_id, i.product_id AS product_id, p.name AS name, i.size AS size, "
                "i.qty AS qty, i.price AS price, i.qty * i.price AS line_total FROM order_items i "
                "JOIN products p ON p.id = i.product_id"},
        {"name": "review_view", "sql": "SELECT r.id AS id, r.product_id AS product_id, u.name AS author, "
                                       "r.rating AS rating, r.body AS body FROM reviews r JOIN users u ON u.id = r.user_id"},
    ]

    # ------------------------------------------------------------------ markers
    markers = [
        kit.marker("add_to_cart", [kit.param("product_id", "integer"),
                                   kit.param("size", "text", labels["size"], choices=SIZES),
                                   kit.param("qty", "integer", labels["quantity"], min=1, max=10)],
                   [kit.effect("update", "cart_items", "UPDATE cart_items SET qty = qty + :qty WHERE user_id = :user_id "
                                                       "AND product_id = :product_id AND size = :size"),
                    kit.effect("insert", "cart_items", "INSERT INTO cart_items (user_id, product_id, size, qty) SELECT "
                               ":user_id, :product_id, :size, :qty WHERE NOT EXISTS (SELECT 1 FROM cart_items WHERE "
                               "user_id = :user_id AND product_id = :product_id AND size = :size)")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM products WHERE id = :p AND stock >= :q)",
                                          p=ref("param.product_id"), q=ref("param.qty")),
                                  "Sorry, we do not have that many in stock.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM cart_items WHERE user_id = :user_id AND qty > 10)"),
                                  "You can have at most 10 of an item.")],
                   message="That item could not be added."),
        kit.marker("remove_from_cart", [kit.param("item_id", "integer")],
                   [kit.effect("delete", "cart_items", "DELETE FROM cart_items WHERE id = :item_id AND user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM cart_items WHERE id = :i AND user_id = :user_id)",
                                          i=ref("param.item_id")), "That item is not in your cart.")]),
        kit.marker("place_order", [kit.param("name", "text", labels["full_name"], min_length=2),
                                   kit.param("address", "text", labels["address"], min_length=3),
                                   kit.param("city", "text", labels["city"], min_length=2),
                                   kit.param("shipping", "text", labels["shipping"], choices=["standard", "express"])],
                   [kit.effect("insert", "orders", "INSERT INTO orders (user_id, created, status, shipping, total, name, "
                               "address, city) SELECT :user_id, :today, 'placed', :shipping, sum(c.qty * p.price) + "
                               "(CASE :shipping WHEN 'express' THEN 1500 ELSE 500 END), :name, :address, :city FROM "
                               "cart_items c JOIN products p ON p.id = c.product_id WHERE c.user_id = :user_id"),
                    kit.effect("insert", "order_items", "INSERT INTO order_items (order_id, product_id, size, qty, price) "
                               "SELECT (SELECT max(id) FROM orders WHERE user_id = :user_id), c.product_id, c.size, c.qty, "
                               "p.price FROM cart_items c JOIN products p ON p.id = c.product_id WHERE c.user_id = :user_id "
                               "ORDER BY c.id"),
                    kit.effect("update", "products", "UPDATE products SET stock = stock - (SELECT sum(qty) FROM cart_items "
                               "WHERE user_id = :user_id AND product_id = products.id) WHERE id IN (SELECT product_id FROM "
                               "cart_items WHERE user_id = :user_id)"),
                    kit.effect("delete", "cart_items", "DELETE FROM cart_items WHERE user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM cart_items WHERE user_id = :user_id)"),
                                  "Your cart is empty.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM products WHERE stock < 0)"),
                                  "Sorry, an item in your cart is out of stock.")],
                   irreversible=True, message="Your order could not be placed."),
        kit.marker("cancel_order", [kit.param("order_id", "integer")],
                   [kit.effect("update", "orders", "UPDATE orders SET status = 'cancelled' WHERE id = :order_id "
                                                   "AND user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM orders WHERE id = :o AND user_id = :user_id AND "
                                          "status = 'placed')", o=ref("param.order_id")),
                                  "Only orders that have not shipped can be cancelled.")], irreversible=True),
        kit.marker("write_review", [kit.param("product_id", "integer"),
                                    kit.param("rating", "integer", "Rating", min=1, max=5),
                                    kit.param("body", "text", "Review", min_length=3, max_length=500)],
                   [kit.effect("insert", "reviews", "INSERT INTO reviews (product_id, user_id, rating, body) VALUES "
                                                    "(:product_id, :user_id, :rating, :body)")]),
    ]

    # ------------------------------------------------------------------ pages
    nav = [(labels["home"], "/"), (labels["cart"], "/cart"), (labels["orders"], "/orders")]
    if has_deals:
        nav.append((labels["deals"], "/deals"))
    chrome = build_chrome(srng, labels, site_name, nav)
    search_form = kit.form(labels["search"], kit.navigate_action("/search"),
                           [kit.textbox("q", labels["search_box"], value=ref("query.q"))], label=labels["search"])
    header = list(chrome.layout["header"])
    if search_in_header:
        header.append(kit.section([search_form], role="search"))
    item = [kit.link("{row.name}", "/product/{row.id}"), kit.text("{row.price|money}")]

    def catalogue(name: str, q: dict[str, Any], empty: str) -> dict[str, Any]:
        if listing_kind == "list":
            return kit.listing(name, q, item, page_size=page_size, sorts=sorts, empty=empty)
        return kit.table(name, q, [("Product", [item[0]]), ("Price", [item[1]]), ("Rating", [kit.text("{row.rating}")])],
                         page_size=page_size, sorts=sorts, empty=empty)

    home = [kit.heading(f"Welcome to {site_name}", 1), kit.text("Today is {clock.today|date}.")]
    if not search_in_header:
        home.append(search_form)
    home += [kit.heading(labels["categories"]),
             kit.listing("cats", kit.query("categories", order=[("name", "asc")]),
                         [kit.link("{row.name}", "/category/{row.id}")])]
    options_form = kit.form(labels["add_to_cart"], kit.marker_action(
        "add_to_cart", {"product_id": ref("row.id"), "size": ref("field.size"), "qty": ref("field.qty")},
        message="Added to your cart."),
        srng.sample([kit.select("size", labels["size"], [(s, s) for s in SIZES]),
                     kit.textbox("qty", labels["quantity"], value="1")], 2), label=labels["add_to_cart"])
    review_form = kit.form("Post review", kit.marker_action(
        "write_review", {"product_id": ref("row.id"), "rating": ref("field.rating"), "body": ref("field.body")},
        message="Thanks for your review!"),
        [kit.radio("rating", "Rating", [(str(i), f"{i} star{'s' if i > 1 else ''}") for i in range(1, 6)]),
         kit.textbox("body", "Your review", kind="textarea")], label="Write a review")
    reviews_list = kit.listing("reviews", kit.query("review_view", cond("product_id", ref("row.id")), order=[("id", "asc")]),
                               [kit.text("{row.author} ({row.rating}/5): {row.body}")], page_size=5, empty="No reviews yet.")
    details = [kit.text("{row.description}"), kit.text("Rated {row.rating} out of 5.")]
    if options_ui == "tabs":
        body = [kit.tabs("product_tabs", [(labels["description"], details), (labels["options"], [options_form]),
                                          (labels["reviews"], [reviews_list, review_form])])]
    elif options_ui == "collapsible":
        body = details + [kit.collapsible("buy", labels["options"], [options_form]),
                          kit.collapsible("reviews_box", labels["reviews"], [reviews_list, review_form])]
    else:
        body = details + [options_form, kit.heading(labels["reviews"]), reviews_list, review_form]
    shipping_field = (kit.select if shipping_ui == "select" else kit.radio)(
        "shipping", labels["shipping"], [("standard", "Standard ($5.00)"), ("express", "Express ($15.00)")],
        value="standard")
    address_fields = {"name": kit.textbox("name", labels["full_name"], required=True, value=ref("user.name")),
                      "address": kit.textbox("address", labels["address"], required=True, value=ref("user.address")),
                      "city": kit.textbox("city", labels["city"], required=True, value=ref("user.city"))}
    checkout_form = kit.form(
        labels["place_order"], kit.marker_action(
            "place_order", {n: ref(f"field.{n}") for n in ("name", "address", "city", "shipping")},
            redirect="/orders/{result.id}", message="Thank you! Your order has been placed."),
        [address_fields[n] for n in address_order] + [shipping_field], label=labels["shipping"],
        confirm=kit.confirm("Place this order?", labels["confirm"], labels["cancel"]) if confirm_checkout else None)
    cart_cols = [("Product", [kit.link("{row.name}", "/product/{row.product_id}")]), ("Size", [kit.text("{row.size}")]),
                 (labels["quantity"], [kit.text("{row.qty}")]), ("Price", [kit.text("{row.line_total|money}")]),
                 ("", [kit.form(labels["delete"], kit.marker_action("remove_from_cart", {"item_id": ref("row.id")},
                                                                    message="Removed."),
                                confirm=kit.confirm("Remove this item?", labels["confirm"], labels["cancel"])
                                if confirm_remove else None)])]
    pages = [
        kit.page("home", "/", site_name, chrome.crumbs([]) + home),
        kit.page("search", "/search", f"{labels['search']}: {{query.q}}", [
            kit.heading(labels["search"], 1), *([] if search_in_header else [search_form]),
            catalogue("results", kit.query("products", cond("name", ref("query.q"), "contains", skip_if_empty=True),
                                           order=[("id", "asc")]), "No products match your search.")]),
        kit.page("category", "/category/{id:int}", "Category", [kit.record(
            kit.query("categories", cond("id", ref("param.id"))),
            chrome.crumbs([(labels["home"], "/")]) + [kit.heading("{row.name}", 1),
                                                        catalogue("products", kit.query("products", cond("category_id", ref("row.id")),
                                                                                        order=[("id", "asc")]), "Nothing here yet.")],
            "This category does not exist.")]),
        kit.page("product", "/product/{id:int}", "Product", [kit.record(
            kit.query("products", cond("id", ref("param.id"))),
            chrome.crumbs([(labels["home"], "/")]) + [kit.heading("{row.name}", 1), kit.text("Price: {row.price|money}"),
                                                        kit.text("In stock: {row.stock}"), *body],
            "This product does not exist.")]),
        kit.page("cart", "/cart", labels["cart"], [
            kit.heading(labels["cart"], 1),
            kit.table("cart", kit.query("cart_view", cond("user_id", ref("user.id")), order=[("id", "asc")]), cart_cols,
                      label=labels["cart"], empty="Your cart is empty."),
            kit.record(kit.query("cart_totals", cond("user_id", ref("user.id"))),
                       [kit.text("Subtotal ({row.items} items): {row.total|money}"),
                        kit.link(labels["checkout"], "/checkout")], "")], login=True),
        kit.page("checkout", "/checkout", labels["checkout"], [
            kit.heading(labels["checkout"], 1),
            kit.record(kit.query("cart_totals", cond("user_id", ref("user.id"))),
                       [kit.text("Subtotal: {row.total|money}")], "Your cart is empty."),
            kit.text("Shipping: standard $5.00, express $15.00."), checkout_form], login=True),
        kit.page("orders", "/orders", labels["orders"], [
            kit.heading(labels["orders"], 1),
            kit.table("orders", kit.query("orders", cond("user_id", ref("user.id")), order=[("created", "desc"), ("id", "desc")]),
                      [("Order", [kit.link("Order #{row.id}", "/orders/{row.id}")]), ("Date", [kit.text("{row.created|date}")]),
                       ("Status", [kit.text("{row.status|title}")]), ("Total", [kit.text("{row.total|money}")])],
                      label=labels["orders"], page_size=10, empty="You have no orders yet.")], login=True),
        kit.page("order", "/orders/{id:int}", "Order", [kit.record(
            kit.query("orders", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
            [kit.heading("Order #{row.id}", 1), kit.text("Placed on {row.created|date}"), kit.text("Status: {row.status|title}"),
             kit.table("lines", kit.query("order_lines", cond("order_id", ref("row.id")), order=[("id", "asc")]),
                       [("Product", [kit.text("{row.name}")]), ("Quantity", [kit.text("{row.qty}")]),
                        ("Price", [kit.text("{row.line_total|money}")])], label="Items"),
             kit.text("Total: {row.total|money}"),
             kit.form("Cancel this order",
                      kit.marker_action("cancel_order", {"order_id": ref("row.id")}, message="Your order has been cancelled."),
                      confirm=kit.confirm("Cancel this order?", labels["confirm"], "Keep my order") if confirm_cancel else None)],
            "This order does not exist.")], login=True),
        login_page(labels),
        *chrome.pages,
    ]
    if has_deals:
        pages.append(kit.page("deals", "/deals", labels["deals"], [
            kit.heading(labels["deals"], 1), kit.text("Prices you will not see again."),
            kit.listing("deals", kit.query("products", cond("price", 2000, "<"), order=[("price", "asc")], limit=20), item,
                        page_size=page_size)]))
    site = {"name": site_name, "clock": {"today": "2026-06-15"}, "auth": {"table": "users", "username_column": "username",
            "password_column": "password", "name_column": "name", "login_page": "/login"},
            "database": {"tables": tables, "views": views}, "markers": markers,
            "layout": {"header": header, "footer": chrome.layout["footer"]}, "pages": pages}
    ctx = _Ctx(trng, labels, categories, products, users, orders, cart, sorts, search_in_header)
    ctx.page_size, ctx.confirm_checkout, ctx.shipping_ui = page_size, confirm_checkout, shipping_ui
    ctx.listing_shows_rating = listing_kind == "table"
    ctx.confirm_cancel, ctx.confirm_remove = confirm_cancel, confirm_remove
    ctx.menu_links = {label for label, _ in nav} if chrome.nav_style == "menu" else set()
    if chrome.nav_style in ("topbar", "split"):  # the log-in link sits in the account menu
        ctx.menu_links.add(labels["login"])
    ctx.options_hidden = options_ui != "plain"
    ctx.options_ui, ctx.reviews, ctx.orders_items = options_ui, reviews, items
    ctx.elsewhere = [p["route"] for p in chrome.pages] + (["/deals"] if has_deals else []) + ["/search"] + [
        f"/product/{p['id']}" for p in crng.sample(products, 3)]
    return Draft(site=site, tasks=_tasks(ctx))


class _Ctx:
    """What the task families need to know about the site they write tasks for."""

    def __init__(self, rng: random.Random, labels: Labels, categories: list[str], products: list[dict[str, Any]],
                 users: list[dict[str, Any]], orders: list[dict[str, Any]], cart: list[dict[str, Any]],
                 sorts: list[tuple[str, str, str, str]], search_in_header: bool) -> None:
        self.rng, self.labels, self.categories, self.products = rng, labels, categories, products
        self.users, self.orders, self.cart, self.sorts = users, orders, cart, sorts
        self.search_in_header = search_in_header
        self.listing_shows_rating = True
        self.by_name = {p["name"]: p for p in products}
        self.page_size = 5
        self.confirm_checkout = False
        self.shipping_ui = "select"
        self.confirm_cancel = True
        self.confirm_remove = False
        self.elsewhere: list[str] = []
        self.menu_links: set[str] = set()
        self.options_hidden = False
        self.options_ui = "plain"
        self.reviews: list[dict[str, Any]] = []
        self.orders_items: list[dict[str, Any]] = []

    def cost(self, plan: list[tuple[Any, ...]]) -> int:
        """An upper bound on the certificate length of ``plan``: its steps and the widgets (the
        main menu, the product options) the engine will have to open on the way."""
        extra = 0
        for step in plan:
            if step[:2] == ("click", "link") and step[2] in self.menu_links:
                extra += 1
            elif step == ("click", "button", self.labels["add_to_cart"]) and self.options_hidden:
                extra += 1
        return len(plan) + extra

    def unique_product(self, *, in_stock: int = 1) -> dict[str, Any]:
        while True:
            product = self.rng.choice(self.products)
            if product["stock"] >= in_stock:
                return product

    def search(self, name: str, *, open_it: bool = True) -> list[tuple[Any, ...]]:
        """Plan steps that reach a product: by its full name, by part of it, or through its category."""
        product = self.by_name.get(name)
        # only whole slot values are typed: a compact policy's arguments are the task's slots
        way = self.rng.choice(["full", "enter", "browse"]) if product is not None else "full"
        if way == "browse" and product is not None:
            in_cat = [p for p in self.products if p["category_id"] == product["category_id"]]
            position = in_cat.index(product)
            if position // self.page_size <= 3:
                home = self.rng.choice([("click", "link", self.labels["home"]), ("goto", "/")])
                return [home, ("click", "link", self.categories[product["category_id"] - 1]),
                               *next_pages(position, self.page_size)] + (
                    [("click", "link", name)] if open_it else [])
            way = "full"
        plan: list[tuple[Any, ...]] = [] if self.search_in_header else [("click", "link", self.labels["home"])]
        query = name
        matches = [p for p in self.products if query.lower() in p["name"].lower()]
        position = [p["name"] for p in matches].index(name) if name in [p["name"] for p in matches] else 0
        if position // self.page_size > 2:
            query, position = name, 0
        submit: tuple[Any, ...] = (("press", "textbox", self.labels["search_box"], "Enter") if way == "enter"
                                   else ("click", "button", self.labels["search"]))
        return plan + [("fill", "textbox", self.labels["search_box"], query), submit,
                       *next_pages(position, self.page_size)] + ([("click", "link", name)] if open_it else [])


def _tasks(ctx: _Ctx) -> list[TaskDraft]:
    rng, labels = ctx.rng, ctx.labels
    out: list[TaskDraft] = []
    cart_users = sorted({c["user_id"] for c in ctx.cart})
    empty_users = [u for u in ctx.users if u["id"] not in cart_users]

    # navigate: the cheapest product of a colour in a category (sort-dependent)
    for number in range(2):
        cat_index = rng.randrange(len(ctx.categories))
        in_cat = [p for p in ctx.products if p["category_id"] == cat_index + 1]
        lowest: dict[str, list[int]] = {}
        for p in in_cat:
            lowest.setdefault(p["color"], []).append(p["price"])
        unique = sorted(c for c, prices in lowest.items() if prices.count(min(prices)) == 1)
        if not unique:  # every colour's cheapest ties: "the cheapest" would name no single product
            continue
        colour = rng.choice(unique)
        cheapest = min((p for p in in_cat if p["color"] == colour), key=lambda p: (p["price"], p["id"]))
        target = kit.scalar("products", "id", cond("category_id", cat_index + 1), cond("color", colour),
                            order=[("price", "asc"), ("id", "asc")])
        start, plan = start_somewhere(ctx, [u for u in ctx.elsewhere if u != f"/product/{cheapest['id']}"],
                                      home_label=labels["home"])
        plan += [("click", "link", ctx.categories[cat_index]), ("click", "link", labels["price_asc"])]
        plan += _page_through(ctx, in_cat, cheapest, key=lambda p: (p["price"], p["id"]))
        out.append(make_task(ctx, f"cheapest_{number}", "navigate_sorted", "navigate",
                         ["Open the page of the cheapest {colour} item in {category}.",
                          "Find the least expensive {colour} product in the {category} category and open it.",
                          "Go to the cheapest {colour} {category} product."],
                         {"colour": colour, "category": ctx.categories[cat_index]}, plan, start_url=start,
                         goal=[kit.on_page("product", id=target)],
                         progress=[{"description": "on the cheapest matching product", "predicate": kit.on_page("product", id=target)}]))

    # retrieve: a product's price (lookup, currency answer)
    product = ctx.unique_product()
    out.append(make_task(ctx, "price_lookup", "retrieve_lookup", "retrieve",
                     ["How much does the {product} cost?", "What is the price of the {product}?",
                      "Tell me the price of the {product}."], {"product": product["name"]},
                     ctx.search(product["name"], open_it=rng.random() < 0.6) + [("send", f"It costs ${product['price'] / 100:,.2f}.")],
                     answer={"type": "currency", "value": kit.scalar("products", "price", cond("name", ref("slot.product")))}))

    # retrieve, number: orders with a status, an order's lines, the cart's lines, a product's
    # reviews, a search's results or a category's products
    draft = _count(ctx) or _count(ctx, "orders")
    if draft is not None:
        out.append(draft)

    # retrieve: the best-rated product of a category (extreme, text answer), in a category whose
    # best product is unique and (on a site with no rating sort) near enough the front to page to;
    # only where the category page shows the ratings or sorts by them: a list of names and prices
    # says nothing of which is best (the draws are made all the same, so the site's other tasks
    # stay as they were)
    rating_sort = next((s for s in ctx.sorts if s[0] == "rating_desc"), None)
    extreme = _extreme(ctx) if rng.random() < 0.4 else None
    if extreme is not None:
        out.append(extreme)
    for cat_index in rng.sample(range(len(ctx.categories)), len(ctx.categories) if extreme is None else 0):
        in_cat = [p for p in ctx.products if p["category_id"] == cat_index + 1]
        best = max(in_cat, key=lambda p: (p["rating"], -p["id"]))
        if sum(1 for p in in_cat if p["rating"] != best["rating"]) != len(in_cat) - 1:
            continue
        start, plan = start_somewhere(ctx, ctx.elsewhere, home_label=labels["home"])
        plan.append(("click", "link", ctx.categories[cat_index]))
        if rating_sort is not None:
            plan.append(("click", "link", rating_sort[1]))
        else:
            plan += _page_through(ctx, in_cat, best, key=lambda p: p["id"], stop_before_click=True)
        if ctx.cost(plan) + 1 > MAX_CERTIFICATE:
            continue
        draft = make_task(ctx, "best_rated", "retrieve_extreme", "retrieve",
                          ["Which product in {category} has the highest rating?",
                           "Name the best-rated item in the {category} category."],
                          {"category": ctx.categories[cat_index]}, plan + [("send", best["name"])], start_url=start,
                          answer={"type": "text",
                                  "value": kit.scalar("products", "name", cond("category_id", cat_index + 1),
                                                      order=[("rating", "desc"), ("id", "asc")]),
                                  "candidates": kit.scalar("products", "name",
                                                           cond("category_id", cat_index + 1))["query"]})
        if rating_sort is not None or ctx.listing_shows_rating:
            out.append(draft)
        break

    # mutate: add a product to the cart in a size and quantity
    user = rng.choice(empty_users)
    product = ctx.unique_product(in_stock=3)
    qty, size = rng.randint(1, 3), rng.choice(SIZES)
    pid = kit.scalar("products", "id", cond("name", ref("slot.product")))
    phrasings, slots, plan, who = as_user(ctx, user, [
        "Add {qty} of the {product} in size {size} to your cart.", "Put {qty} x {product} (size {size}) in your cart.",
        "I need {qty} of the {product}, size {size}. Add them to the cart."],
        {"qty": qty, "product": product["name"], "size": size},
        ctx.search(product["name"]) + [("select", labels["size"], size), ("fill", "textbox", labels["quantity"], str(qty)),
                                        ("click", "button", labels["add_to_cart"])], chance=0.75)
    out.append(make_task(ctx, "add_to_cart", "single_write", "mutate", phrasings, slots, plan, **who,
                     goal=[kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", pid),
                                      cond("size", ref("slot.size")), cond("qty", ref("slot.qty")))],
                     progress=[{"description": "the product is in the cart",
                                "predicate": kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", pid))}],
                     footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id")), cond("product_id", pid)]}]))

    # mutate, several entities: two or three products at once
    user = rng.choice(empty_users)
    chosen: list[dict[str, Any]] = []
    while len(chosen) < rng.choice([2, 3]):
        product = ctx.unique_product(in_stock=2)
        if product not in chosen:
            chosen.append(product)
    while True:  # the certificate (widgets opened on the way included) must fit half the budget
        plan = []
        for product in chosen:
            plan += ctx.search(product["name"]) + [("click", "button", labels["add_to_cart"])]
        if ctx.cost(plan) <= MAX_CERTIFICATE or len(chosen) == 2:
            break
        chosen.pop()
    names = ["first", "second", "third"][:len(chosen)]
    ids = {n: kit.scalar("products", "id", cond("name", ref(f"slot.{n}"))) for n in names}
    listed = ", ".join("{" + n + "}" for n in names[:-1]) + " and {" + names[-1] + "}"
    out.append(make_task(ctx, "add_several", "multi_entity", "mutate",
                     [f"Add one each of {listed} to your cart.", f"Put {listed} in your cart, one of each."],
                     {n: p["name"] for n, p in zip(names, chosen)}, plan,
                     user=user["username"], start_logged_in=True, credentials="profile",
                     goal=[kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", ids[n])) for n in names],
                     progress=[{"description": f"the {n} product is in the cart",
                                "predicate": kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", ids[n]))}
                               for n in names],
                     footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id")), cond("product_id", ids[n])]}
                                for n in names]))

    # mutate under a constraint: buy one product, within a budget, standard shipping
    user = rng.choice(empty_users)
    product = ctx.unique_product(in_stock=2)
    budget = product["price"] + 500 + rng.choice([0, 100, 999])
    out.append(make_task(ctx, "buy_within_budget", "write_constraint", "mutate",
                     ["Buy one {product} in size {size} with standard shipping, spending at most {budget} in total.",
                      "Order a {product} (size {size}), standard delivery, and keep the total at or under {budget}."],
                     {"product": product["name"], "size": "M", "budget": f"${budget / 100:,.2f}"},
                     ctx.search(product["name"]) + [("select", labels["size"], "M"), ("click", "button", labels["add_to_cart"]),
                                                     ("click", "link", labels["cart"]), ("click", "link", labels["checkout"]),
                                                     ("click", "button", labels["place_order"])]
                     + ([("click", "button", labels["confirm"])] if ctx.confirm_checkout else []),
                     user=user["username"], start_logged_in=True, credentials="profile",
                     goal=[kit.sql("SELECT EXISTS (SELECT 1 FROM orders o JOIN order_items i ON i.order_id = o.id JOIN products p "
                                   "ON p.id = i.product_id WHERE o.user_id = :user_id AND o.created = :today AND "
                                   "o.status = 'placed' AND o.shipping = "
                                   "'standard' AND p.name = :product AND i.size = 'M' AND i.qty = 1)", product=ref("slot.product"))],
                     progress=[{"description": "the product is in the cart or ordered", "predicate": kit.any_of(
                         kit.exists("cart_items", cond("user_id", ref("user.id")),
                                    cond("product_id", kit.scalar("products", "id", cond("name", ref("slot.product"))))),
                         kit.exists("orders", cond("user_id", ref("user.id")), cond("created", ref("clock.today"))))},
                               {"description": "the order is placed",
                                "predicate": kit.exists("orders", cond("user_id", ref("user.id")), cond("created", ref("clock.today")))}],
                     constraints=[{"description": "an order costs more than the budget",
                                   "predicate": kit.exists("orders", cond("user_id", ref("user.id")), cond("created", ref("clock.today")),
                                                           cond("total", budget, ">"))}],
                     footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id"))]},
                                {"table": "orders", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]},
                                {"table": "order_items", "ops": ["insert"]},
                                {"table": "products", "columns": ["stock"], "ops": ["update"]}]))

    # mutate, login-gated with credentials in the instruction: put a product in the cart, or
    # remove one item from a cart
    login_added = False
    if rng.random() < 0.4:
        user = rng.choice(empty_users)
        product = ctx.unique_product(in_stock=2)
        size = rng.choice(SIZES)
        pid = kit.scalar("products", "id", cond("name", ref("slot.product")))
        plan = login_plan(labels, user["username"], user["password"], via_link=rng.random() < 0.5)
        plan += ctx.search(product["name"]) + [("select", labels["size"], size), ("click", "button", labels["add_to_cart"])]
        if ctx.cost(plan) <= MAX_CERTIFICATE:
            login_added = True
            added = kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", pid),
                               cond("size", ref("slot.size")))
            out.append(make_task(ctx, "login_add", "login_write", "mutate",
                                 ["Log in as {username} (password: {password}) and put the {product} in size {size} "
                                  "in the cart.", "Sign in with {username} / {password}, then add one {product} "
                                  "(size {size}) to your cart."],
                                 {"username": user["username"], "password": user["password"], "product": product["name"],
                                  "size": size}, plan, user=user["username"], credentials="instruction", goal=[added],
                                 progress=[{"description": "the product is in the cart", "predicate": added}],
                                 footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id")),
                                                                              cond("product_id", pid)]}]))
    holder_id = rng.choice(cart_users)
    holder = next(u for u in ctx.users if u["id"] == holder_id)
    lines = [c for c in ctx.cart if c["user_id"] == holder["id"]]
    line = rng.choice(lines)
    name = next(p["name"] for p in ctx.products if p["id"] == line["product_id"])
    if not login_added and sum(1 for c in lines if c["product_id"] == line["product_id"]) == 1:
        pid = kit.scalar("products", "id", cond("name", ref("slot.product")))
        out.append(make_task(ctx, "remove_item", "login_write", "mutate",
                         ["Log in as {username} (password: {password}) and remove the {product} from the cart.",
                          "Sign in with {username} / {password}, then take the {product} out of your cart."],
                         {"username": holder["username"], "password": holder["password"], "product": name},
                         login_plan(labels, holder["username"], holder["password"], via_link=rng.random() < 0.5)
                         + [rng.choice([("click", "link", labels["cart"]), ("goto", "/cart")]),
                            ("click_near", name, "button", labels["delete"])]
                         + ([("click", "button", labels["confirm"])] if ctx.confirm_remove else []),
                         user=holder["username"], credentials="instruction",
                         goal=[kit.exists("cart_items", cond("user_id", ref("user.id")), cond("product_id", pid), negate=True),
                               kit.count("cart_items", cond("user_id", ref("user.id")), value=len(lines) - 1)],
                         progress=[{"description": "the product is out of the cart", "predicate": kit.exists(
                             "cart_items", cond("user_id", ref("user.id")), cond("product_id", pid), negate=True)}],
                         footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id")), cond("product_id", pid)],
                                     "ops": ["delete"]}]))

    # mutate, multi-step: cancel the order that has not shipped
    placed = [o for o in ctx.orders if o["status"] == "placed"]
    candidates = [o for o in placed if sum(1 for p in placed if p["user_id"] == o["user_id"]) == 1]
    if candidates:
        order = rng.choice(candidates)
        owner = next(u for u in ctx.users if u["id"] == order["user_id"])
        count_orders = sum(1 for o in ctx.orders if o["user_id"] == owner["id"])
        position = sorted((o for o in ctx.orders if o["user_id"] == owner["id"]),
                          key=lambda o: (o["created"], o["id"]), reverse=True).index(order)
        phrasings, slots, plan, who = as_user(
            ctx, owner, ["Cancel your order that has not shipped yet.",
                         "One of your orders is still waiting to ship: cancel it.", "Please cancel my unshipped order."], {},
            [rng.choice([("click", "link", labels["orders"]), ("goto", "/orders")])] + next_pages(position, 10)
            + [("click", "link", f"Order #{order['id']}"), ("click", "button", "Cancel this order")]
            + ([("click", "button", labels["confirm"])] if ctx.confirm_cancel else []), chance=0.4)
        out.append(make_task(ctx, "cancel_order", "multi_step_write", "mutate", phrasings, slots, plan, **who,
                             goal=[kit.exists("orders", cond("user_id", ref("user.id")), cond("status", "placed"), negate=True),
                                   kit.exists("orders", cond("id", order["id"]), cond("status", "cancelled"))],
                             progress=[{"description": "no order of yours waits to ship", "predicate": kit.exists(
                                 "orders", cond("user_id", ref("user.id")), cond("status", "placed"), negate=True)}],
                             footprint=[{"table": "orders", "where": [cond("id", order["id"])], "columns": ["status"],
                                         "ops": ["update"]}]))

    # mutate: write a review
    user = rng.choice(ctx.users)
    product = ctx.unique_product()
    stars = rng.randint(1, 5)
    words = rng.choice(["Solid and comfortable.", "Not worth the price.", "Exactly as described.", "Lovely colour."])
    pid = kit.scalar("products", "id", cond("name", ref("slot.product")))
    mine = kit.exists("reviews", cond("user_id", ref("user.id")), cond("product_id", pid), cond("body", ref("slot.text")))
    phrasings, slots, plan, who = as_user(ctx, user, [
        "Review the {product}: {stars} stars, and the text \"{text}\"", "Leave a {stars}-star review on the {product} saying: {text}"],
        {"product": product["name"], "stars": stars, "text": words},
        ctx.search(product["name"]) + [("check", "radio", f"{stars} star{'s' if stars > 1 else ''}"),
                                        ("fill", "textbox", "Your review", words), ("click", "button", "Post review")], chance=0.75)
    out.append(make_task(ctx, "review", "form_write", "mutate", phrasings, slots, plan, **who,
                     goal=[kit.exists("reviews", cond("user_id", ref("user.id")), cond("product_id", pid),
                                      cond("rating", ref("slot.stars")), cond("body", ref("slot.text")))],
                     progress=[{"description": "the review is posted", "predicate": mine}],
                     constraints=[{"description": "more than one review posted",
                                   "predicate": kit.count("reviews", cond("user_id", ref("user.id")), cond("product_id", pid),
                                                          cond("body", ref("slot.text")), op=">", value=1)}],
                     footprint=[{"table": "reviews", "where": [cond("user_id", ref("user.id")), cond("product_id", pid)],
                                 "ops": ["insert"]}]))

    # mutate, multi-step with a form: check out the current cart to a new address, express
    holder_id = rng.choice(cart_users)
    holder = next(u for u in ctx.users if u["id"] == holder_id)
    street, city = street_address(rng), rng.choice(CITIES)
    checkout = [("click", "link", labels["cart"]), ("click", "link", labels["checkout"]),
                ("fill", "textbox", labels["address"], street), ("fill", "textbox", labels["city"], city),
                ("select" if ctx.shipping_ui == "select" else "check_radio", labels["shipping"], "express"),
                ("click", "button", labels["place_order"])] + ([("click", "button", labels["confirm"])] if ctx.confirm_checkout else [])
    checkout = [("check", "radio", "Express ($15.00)") if step[0] == "check_radio" else step for step in checkout]
    phrasings, slots, plan, who = as_user(ctx, holder, [
        "Check out everything in your cart with express shipping to {street}, {city}.",
        "Place an order for the items in your cart, express delivery, to {street} in {city}."],
        {"street": street, "city": city}, checkout, chance=0.5)
    out.append(make_task(ctx, "checkout_cart", "checkout_form", "mutate", phrasings, slots, plan, **who,
                     goal=[kit.exists("orders", cond("user_id", ref("user.id")), cond("created", ref("clock.today")),
                                      cond("shipping", "express"), cond("address", ref("slot.street")), cond("city", ref("slot.city")))],
                     progress=[{"description": "an order is placed today", "predicate": kit.exists(
                         "orders", cond("user_id", ref("user.id")), cond("created", ref("clock.today")))}],
                     constraints=[{"description": "the cart was changed before checking out", "predicate": kit.exists(
                         "order_items", cond("order_id", kit.scalar("orders", "id", cond("user_id", ref("user.id")),
                                                                    cond("created", ref("clock.today")))),
                         cond("qty", 0, "<"))}],
                     footprint=[{"table": "cart_items", "where": [cond("user_id", ref("user.id"))], "ops": ["delete"]},
                                {"table": "orders", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]},
                                {"table": "order_items", "ops": ["insert"]},
                                {"table": "products", "columns": ["stock"], "ops": ["update"]}]))

    # infeasible: a product the shop does not sell (looked for first, then reported)
    missing = rng.choice([m for m in MISSING if m not in ctx.by_name])
    user = rng.choice(empty_users)
    phrasings, slots, plan, who = as_user(
        ctx, user, ["Add the {product} to your cart.", "Buy me a {product}, please.", "Put a {product} in my cart."],
        {"product": missing}, _look_for_missing(ctx, missing) + [("infeasible", f"This shop does not sell a {missing}.")],
        chance=0.4, fits=lambda plan: ctx.cost(plan) <= MAX_CERTIFICATE)
    out.append(make_task(ctx, "missing_product", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                         goal=[kit.exists("cart_items", cond("user_id", ref("user.id")),
                                          cond("product_id", kit.scalar("products", "id", cond("name", ref("slot.product")))))]))
    return with_login(ctx, out, ctx.users, chance=0.35, fits=lambda plan: ctx.cost(plan) <= MAX_CERTIFICATE)


def _extreme(ctx: _Ctx) -> TaskDraft | None:
    """A retrieve task with an extreme for answer, found by a sort: the cheapest product a search
    finds, or (on sites with that sort) the most expensive product of a category."""
    rng, labels = ctx.rng, ctx.labels
    price_desc = next((s for s in ctx.sorts if s[0] == "price_desc"), None)
    if price_desc is not None and rng.random() < 0.5:
        index = rng.randrange(len(ctx.categories))
        in_cat = [p for p in ctx.products if p["category_id"] == index + 1]
        top = max(in_cat, key=lambda p: p["price"])
        if sum(1 for p in in_cat if p["price"] == top["price"]) > 1:
            return None
        start, plan = start_somewhere(ctx, ctx.elsewhere, home_label=labels["home"])
        plan += [("click", "link", ctx.categories[index]), ("click", "link", price_desc[1]), ("send", top["name"])]
        return make_task(ctx, "priciest", "retrieve_extreme", "retrieve",
                         ["What is the most expensive product in {category}?",
                          "Name the priciest item of the {category} category."], {"category": ctx.categories[index]},
                         plan, start_url=start,
                         answer={"type": "text", "value": kit.scalar("products", "name", cond("category_id", index + 1),
                                                                     order=[("price", "desc"), ("id", "asc")]),
                                 "candidates": kit.scalar("products", "name", cond("category_id", index + 1))["query"]})
    words = sorted({w for p in ctx.products for w in p["name"].split()[1:] if len(w) > 3})
    rng.shuffle(words)
    for word in words[:20]:
        found = [p for p in ctx.products if word.lower() in p["name"].lower()]
        if len(found) < 3:
            continue
        cheapest = min(found, key=lambda p: p["price"])
        if sum(1 for p in found if p["price"] == cheapest["price"]) > 1:
            continue
        submit = (("press", "textbox", labels["search_box"], "Enter") if rng.random() < 0.5
                  else ("click", "button", labels["search"]))
        plan = ([] if ctx.search_in_header else [("click", "link", labels["home"])]) + [
            ("fill", "textbox", labels["search_box"], word), submit, ("click", "link", labels["price_asc"]),
            ("send", cheapest["name"])]
        return make_task(ctx, "cheapest_match", "retrieve_extreme", "retrieve",
                         ["Search the shop for \"{term}\": which of the products it finds is the cheapest?",
                          "Of the products whose name contains \"{term}\", which costs the least?"], {"term": word}, plan,
                         answer={"type": "text", "value": kit.scalar("products", "name",
                                                                     cond("name", ref("slot.term"), "contains"),
                                                                     order=[("price", "asc"), ("id", "asc")]),
                                 "candidates": kit.scalar("products", "name",
                                                          cond("name", ref("slot.term"), "contains"))["query"]})
    return None


def _count(ctx: _Ctx, variant: str | None = None) -> TaskDraft | None:
    """A retrieve task with a number answer, in one of six variants: the user's orders with a
    status (every page of the order history), the lines of one order, the lines of the cart, a
    product's reviews (behind a tab or a collapsible on some sites), the results of a search, or
    the products of a category (every page)."""
    rng, labels = ctx.rng, ctx.labels
    variant = variant or rng.choice(["orders", "orders", "order_lines", "cart", "reviews", "search", "category"])
    number = {"type": "number"}
    if variant == "cart":
        holder_id = rng.choice(sorted({c["user_id"] for c in ctx.cart}))
        user = next(u for u in ctx.users if u["id"] == holder_id)
        n = sum(1 for c in ctx.cart if c["user_id"] == holder_id)
        phrasings, slots, plan, who = as_user(ctx, user, [
            "How many different items are in your cart?", "Count the lines in my cart.",
            "How many separate products sit in your cart right now?"], {},
            [rng.choice([("click", "link", labels["cart"]), ("goto", "/cart")]), ("send", str(n))], chance=0.5)
        return make_task(ctx, "count_cart", "retrieve_count", "retrieve", phrasings, slots, plan, **who,
                         answer=number | {"value": kit.scalar("cart_items", "*", cond("user_id", ref("user.id")), agg="count")})
    if variant == "order_lines":
        user = rng.choice([u for u in ctx.users if any(o["user_id"] == u["id"] for o in ctx.orders)])
        mine = sorted((o for o in ctx.orders if o["user_id"] == user["id"]), key=lambda o: (o["created"], o["id"]),
                      reverse=True)
        order = rng.choice(mine)
        position = mine.index(order)
        if position >= 30:
            return None
        n = sum(1 for i in ctx.orders_items if i["order_id"] == order["id"])
        phrasings, slots, plan, who = as_user(ctx, user, [
            "How many different products are in your order #{order}?", "Count the item lines of order #{order}.",
            "My order #{order}: how many separate items does it list?"], {"order": order["id"]},
            [rng.choice([("click", "link", labels["orders"]), ("goto", "/orders")]), *next_pages(position, 10),
             ("click", "link", f"Order #{order['id']}"), ("send", str(n))], chance=0.5,
            fits=lambda plan: ctx.cost(plan) <= MAX_CERTIFICATE)
        return make_task(ctx, "count_order_lines", "retrieve_count", "retrieve", phrasings, slots, plan, **who,
                         answer=number | {"value": kit.scalar("order_items", "*", cond("order_id", ref("slot.order")),
                                                              agg="count")})
    if variant == "reviews":
        per_product: dict[int, int] = {}
        for review in ctx.reviews:
            per_product[review["product_id"]] = per_product.get(review["product_id"], 0) + 1
        most = 5 if ctx.options_hidden else 10  # a page of a closed widget's list is read after opening it
        reviewed = [p for p in ctx.products if 1 <= per_product.get(p["id"], 0) <= most]
        if not reviewed:
            return None
        product = rng.choice(reviewed)
        n = per_product[product["id"]]
        opener = {"tabs": [("click", "tab", labels["reviews"])], "collapsible": [("click", "button", labels["reviews"])],
                  "plain": []}[ctx.options_ui]
        plan = ctx.search(product["name"]) + opener + all_pages(n, 5) + [("send", str(n))]
        return make_task(ctx, "count_reviews", "retrieve_count", "retrieve",
                         ["How many reviews does the {product} have?", "Count the customer reviews of the {product}.",
                          "How many people have reviewed the {product}?"], {"product": product["name"]}, plan,
                         answer=number | {"value": kit.scalar("reviews", "*", cond("product_id", kit.scalar(
                             "products", "id", cond("name", ref("slot.product")))), agg="count")})
    if variant == "search":
        words = sorted({w for p in ctx.products for w in p["name"].split()[1:] if len(w) > 3})
        rng.shuffle(words)
        for word in words[:20]:
            n = sum(1 for p in ctx.products if word.lower() in p["name"].lower())
            if 2 <= n <= 3 * ctx.page_size:
                break
        else:
            return None
        submit = (("press", "textbox", labels["search_box"], "Enter") if rng.random() < 0.5
                  else ("click", "button", labels["search"]))
        plan = ([] if ctx.search_in_header else [("click", "link", labels["home"])]) + [
            ("fill", "textbox", labels["search_box"], word), submit, *all_pages(n, ctx.page_size), ("send", str(n))]
        return make_task(ctx, "count_search", "retrieve_count", "retrieve",
                         ["How many products does a search for \"{term}\" find?",
                          "Search the shop for \"{term}\": how many products match?"], {"term": word}, plan,
                         answer=number | {"value": kit.scalar("products", "*", cond("name", ref("slot.term"), "contains"),
                                                              agg="count")})
    if variant == "category":
        sizes = {i: sum(1 for p in ctx.products if p["category_id"] == i + 1) for i in range(len(ctx.categories))}
        small = [i for i, size in sizes.items() if size <= 4 * ctx.page_size]
        if not small:
            return None
        index = rng.choice(small)
        start, plan = start_somewhere(ctx, ctx.elsewhere, home_label=labels["home"])
        plan += [("click", "link", ctx.categories[index]), *all_pages(sizes[index], ctx.page_size),
                 ("send", str(sizes[index]))]
        return make_task(ctx, "count_category", "retrieve_count", "retrieve",
                         ["How many products are there in the {category} category?",
                          "Count the items the shop lists under {category}."], {"category": ctx.categories[index]}, plan,
                         start_url=start, answer=number | {"value": kit.scalar("products", "*", cond("category_id", index + 1),
                                                                               agg="count")})
    user = rng.choice([u for u in ctx.users if any(o["user_id"] == u["id"] for o in ctx.orders)])
    status = rng.choice(STATUSES)
    n = sum(1 for o in ctx.orders if o["user_id"] == user["id"] and o["status"] == status)
    phrasings, slots, plan, who = as_user(ctx, user, [
        "How many of your orders are {status}?", "Count your orders with the status {status}.",
        "How many orders do you have that are {status}?"], {"status": status},
        [rng.choice([("click", "link", labels["orders"]), ("goto", "/orders")]),
         *all_pages(sum(1 for o in ctx.orders if o["user_id"] == user["id"]), 10), ("send", str(n))], chance=0.75)
    return make_task(ctx, "count_orders", "retrieve_count", "retrieve", phrasings, slots, plan, **who,
                     answer=number | {"value": kit.scalar("orders", "*", cond("user_id", ref("user.id")),
                                                          cond("status", ref("slot.status")), agg="count")})


def _look_for_missing(ctx: _Ctx, missing: str) -> list[tuple[Any, ...]]:
    """Plan steps that look for a product that is not there: a search that finds nothing, or its
    category sorted by name, paged to where the product would be."""
    category = MISSING_CATEGORY.get(missing)
    name_sort = next((s for s in ctx.sorts if s[0] == "name_asc"), None)
    if category in ctx.categories and ctx.rng.random() < 0.5:
        cat_id = ctx.categories.index(category) + 1
        names = sorted(p["name"] for p in ctx.products if p["category_id"] == cat_id)
        before = sum(1 for n in names if n < missing)
        home = [] if ctx.rng.random() < 0.5 else [ctx.rng.choice([("click", "link", ctx.labels["home"]), ("goto", "/")])]
        if name_sort is not None and before // ctx.page_size <= 8:
            return home + [("click", "link", category), ("click", "link", name_sort[1])] + next_pages(before, ctx.page_size)
        if len(names) <= 4 * ctx.page_size:
            return home + [("click", "link", category)] + all_pages(len(names), ctx.page_size)
    plan: list[tuple[Any, ...]] = [] if ctx.search_in_header else [("click", "link", ctx.labels["home"])]
    submit: tuple[Any, ...] = (("press", "textbox", ctx.labels["search_box"], "Enter") if ctx.rng.random() < 0.5
                               else ("click", "button", ctx.labels["search"]))
    return plan + [("fill", "textbox", ctx.labels["search_box"], missing), submit]


def _page_through(ctx: _Ctx, rows: list[dict[str, Any]], target: dict[str, Any], *, key: Any,
                  stop_before_click: bool = False) -> list[tuple[Any, ...]]:
    """Plan steps that page through a list sorted by ``key`` to ``target`` and click it."""
    ordered = sorted(rows, key=key)
    return next_pages(ordered.index(target), ctx.page_size) + (
        [] if stop_before_click else [("click", "link", target["name"])])


