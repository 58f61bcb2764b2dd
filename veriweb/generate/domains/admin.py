"""Store back-office blueprint: products, orders and refunds, customers, sales reports, coupons; staff log in.

Description:
    The admin panel of an online store, as Magento or Shopify admin (WebArena's shopping_admin).
    Every page asks a member of staff to log in. A product grid (filters by name or SKU, status
    and category; sort links; pagination) leads to product pages where price, stock and status
    are edited in one form, in tabs, in collapsible sections or in a dialog. An order grid
    (filters by number, status and customer) leads to order pages with the items, a status
    form, cancellation and refunds (never more than what was paid; both behind a confirmation
    dialog on some sites) and, on some sites, internal comments. Customers have a group
    (General, Wholesale, VIP, Retailer) and an order history. Reports give a month's orders,
    revenue, refunds and net revenue, and its bestsellers; some sites add a low-stock report
    and coupons. Hundreds of products and customers, and a year of orders before 2026-06-15.

Action Space:
    BrowserGym high-level actions on the rendered pages (see ``veriweb.engine.actions``).

Observation Space:
    The engine's page model: accessibility-tree text, element list, HTML.

Rewards:
    From the task's goal and progress predicates over the database (see ``veriweb.engine.judge``).

Starting State:
    The seeded database; the dashboard, logged in as a member of staff, or the log-in page
    when the instruction gives the credentials.

Episode End:
    As ``veriweb.engine.episode`` rules: an answer, an infeasibility report, the goal reached, a
    broken constraint or footprint, or the step budget.

Arguments:
    ``Streams`` of the site's seed: ``structure`` (pages, labels, widgets, layout), ``content``
    (records), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import Chrome, build_chrome, login_page, login_plan
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import as_user, make_task, next_pages, phrase_with_login, start_elsewhere
from veriweb.generate.vocab import CITIES, WORDS, Labels, password, person

Row = dict[str, Any]
Step = tuple[Any, ...]

TODAY = dt.date(2026, 6, 15)
FIRST_DAY = dt.date(2025, 7, 1)
MAX_PLAN = 20
"""Certificates stay within half of the 40-step budget."""
NAV_URLS = {"products": "/products", "orders": "/orders", "customers": "/customers", "reports": "/reports",
            "coupons": "/coupons"}
"""The main navigation's addresses, by the key of their label."""

ADMIN_NAMES = ["Northwind", "Harbor & Pine", "Copperleaf", "Bluebird Supply", "Granite Goods", "Maple Row",
               "Tidewater", "Little Lantern", "Olive & Oak", "Fernhill", "Saltmarsh", "Kestrel"]
ADMIN_SUFFIXES = ["Admin", "Back Office", "Store Admin", "Control Panel", "Merchant Center"]
STORES: dict[str, dict[str, list[str]]] = {
    "outdoor": {"Tents": ["Dome Tent", "Tunnel Tent", "Bivy Shelter", "Tarp Shelter"],
                "Backpacks": ["Daypack", "Trekking Pack", "Hydration Pack", "Summit Pack"],
                "Footwear": ["Hiking Boot", "Trail Shoe", "Camp Sandal", "Approach Shoe"],
                "Cookware": ["Camp Stove", "Titanium Pot", "Spork Set", "Kettle"],
                "Lighting": ["Headlamp", "Camp Lantern", "Flashlight", "String Light"],
                "Sleeping": ["Sleeping Bag", "Sleeping Pad", "Camp Pillow", "Liner"]},
    "homeware": {"Kitchen": ["Chef Knife", "Cast Iron Pan", "Mixing Bowl", "Cutting Board", "Teapot"],
                 "Bedding": ["Duvet Cover", "Pillowcase Set", "Wool Blanket", "Fitted Sheet"],
                 "Lighting": ["Table Lamp", "Floor Lamp", "Pendant Light", "Desk Lamp"],
                 "Bath": ["Bath Towel", "Bath Mat", "Soap Dish", "Shower Curtain"],
                 "Decor": ["Vase", "Picture Frame", "Wall Mirror", "Candle Holder"],
                 "Storage": ["Storage Basket", "Shelf Unit", "Jar Set", "Shoe Rack"]},
    "apparel": {"Shirts": ["Oxford Shirt", "Flannel Shirt", "Polo Shirt", "Linen Shirt"],
                "Trousers": ["Chino", "Cargo Trouser", "Jogger", "Straight Jean"],
                "Shoes": ["Canvas Sneaker", "Chelsea Boot", "Loafer", "Runner"],
                "Outerwear": ["Rain Jacket", "Puffer Jacket", "Field Coat", "Fleece"],
                "Bags": ["Tote Bag", "Backpack", "Duffel Bag", "Messenger Bag"],
                "Accessories": ["Wool Beanie", "Leather Belt", "Scarf", "Baseball Cap"]},
    "electronics": {"Audio": ["Wireless Earbuds", "Headphones", "Bluetooth Speaker", "Soundbar"],
                    "Cables": ["USB-C Cable", "HDMI Cable", "Lightning Cable", "Audio Cable"],
                    "Chargers": ["Wall Charger", "Power Bank", "Charging Dock", "Car Charger"],
                    "Cases": ["Phone Case", "Tablet Sleeve", "Laptop Bag", "Camera Pouch"],
                    "Keyboards": ["Mechanical Keyboard", "Compact Keyboard", "Wireless Mouse", "Mouse Pad"],
                    "Storage": ["SSD Drive", "Memory Card", "USB Stick", "Hard Drive"]},
}
COLOURS = ["Red", "Blue", "Green", "Black", "White", "Grey", "Navy", "Olive", "Sand", "Rust", "Teal", "Plum"]
STYLES = ["Classic", "Summit", "Urban", "Coastal", "Nordic", "Studio", "Everyday", "Pro", "Lite", "Heritage",
          "Voyager", "Essential", "Premium", "Alpine"]
ORDER_STATUSES = ["pending", "processing", "shipped", "complete"]
GROUPS = ["General", "Wholesale", "VIP", "Retailer"]
PAYMENTS = ["Credit card", "PayPal", "Bank transfer", "Gift card"]
REASONS = ["Damaged item", "Wrong item sent", "Arrived late", "Changed mind", "Price adjustment"]
ROLES = ["Administrator", "Store manager", "Support agent", "Warehouse lead", "Sales associate"]
EMAIL_DOMAINS = ["mail.example", "inbox.example", "post.example", "webmail.example"]
NOTES = ["Customer called about delivery.", "Gift wrap requested.", "Address confirmed by phone.",
         "Left at reception.", "Priority handling.", "Customer asked for an invoice copy."]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]

WORDING: dict[str, list[str]] = {
    # site-wide synonyms not in the shared vocabulary bank
    "dashboard": ["Dashboard", "Admin home", "Overview", "Control center"],
    "products": ["Products", "Catalog", "Catalogue", "Product catalog"],
    "orders": ["Orders", "Sales", "Order management", "All orders"],
    "customers": ["Customers", "Clients", "Customer accounts", "Shoppers"],
    "reports": ["Reports", "Analytics", "Statistics", "Insights"],
    "coupons": ["Coupons", "Discounts", "Promotions", "Discount codes"],
    "filters": ["Filters", "Filter list", "Refine", "Show filters"],
    "filter": ["Filter", "Apply filters", "Search", "Show results"],
    "keyword": ["Name or SKU", "Keyword", "Search by name or SKU", "Product name or SKU"],
    "status": ["Status", "Product status", "Visibility", "Availability"],
    "category": ["Category", "Product category", "Department", "Product type"],
    "price": ["Price", "Price ($)", "Unit price", "Selling price"],
    "stock": ["Quantity", "Stock", "Qty in stock", "Stock level"],
    "edit": ["Edit product", "Edit", "Quick edit", "Edit details"],
    "tab_general": ["General", "Details", "Summary", "Product info"],
    "tab_price": ["Pricing", "Prices", "Price settings", "Cost & price"],
    "tab_stock": ["Inventory", "Stock control", "Quantities", "Warehouse"],
    "tab_status": ["Visibility settings", "Product state", "Publishing", "Online status"],
    "save_price": ["Save price", "Update price", "Set price", "Apply price"],
    "save_stock": ["Update stock", "Save quantity", "Save stock", "Set quantity"],
    "save_status": ["Save status", "Apply status", "Set visibility", "Update visibility"],
    "order_number": ["Order #", "Order number", "Order ID", "Order no."],
    "customer_filter": ["Customer", "Customer name", "Bill-to name", "Ordered by"],
    "order_status": ["Order status", "New status", "Change status to", "Set status"],
    "update_status": ["Update status", "Save status change", "Change status", "Submit status"],
    "refund_amount": ["Amount", "Refund amount", "Amount to refund", "Refund ($)"],
    "reason": ["Reason", "Refund reason", "Why?", "Reason for refund"],
    "refund": ["Refund", "Issue refund", "Create credit memo", "Refund offline"],
    "cancel_order": ["Cancel order", "Cancel this order", "Void order", "Cancel the order"],
    "tab_info": ["Information", "Order view", "Summary", "Order details"],
    "tab_manage": ["Status & actions", "Manage", "Actions", "Status"],
    "tab_refunds": ["Refunds", "Credit memos", "Returns", "Money back"],
    "tab_notes": ["Comments", "Notes", "History", "Internal notes"],
    "comment": ["Comment", "Note", "Internal comment", "Add a note"],
    "add_note": ["Add comment", "Submit comment", "Save note", "Post note"],
    "customer_search": ["Name", "Customer name", "Search customers", "Name contains"],
    "group": ["Customer group", "Group", "Segment", "Tier"],
    "tab_customer": ["Customer view", "Profile", "Personal info", "Contact details"],
    "tab_customer_orders": ["Order history", "Orders placed", "Purchases", "Past orders"],
    "tab_account": ["Account information", "Account settings", "Membership", "Group settings"],
    "month": ["Month", "Period", "Reporting month", "Choose month"],
    "show": ["Show", "Show report", "Refresh", "Run report"],
    "sales_report": ["Sales report", "Monthly sales", "Revenue report", "Sales overview"],
    "bestsellers": ["Bestsellers", "Top sellers", "Best-selling products", "Top products"],
    "low_stock": ["Low stock", "Low stock report", "Running low", "Restock list"],
    "new_coupon": ["New coupon", "Add a coupon", "Create a coupon", "Add new rule"],
    "create_coupon": ["Create coupon", "Add coupon", "Save coupon", "Save rule"],
    "deactivate": ["Deactivate", "Turn off", "Disable", "Switch off"],
    "coupon_code": ["Code", "Coupon code", "Discount code", "Promo code"],
    "discount": ["Discount (%)", "Percent off", "Discount percent", "% off"],
    "expires": ["Expires on", "Valid until", "Expiry date", "End date"],
    "total_desc": ["Highest total", "Total: high to low", "Largest first", "Biggest orders"],
    "stock_asc": ["Lowest stock", "Stock: low to high", "Fewest in stock", "Least stock"],
    "stock_desc": ["Most stock", "Stock: high to low", "Largest stock", "Most in stock"],
    "name_desc": ["Name Z-A", "Reverse alphabetical", "Z to A", "By name, descending"],
}


# ============================================================================ content


def _day(offset: int) -> str:
    return (FIRST_DAY + dt.timedelta(days=offset)).isoformat()


def _nice_date(iso: str) -> str:
    day = dt.date.fromisoformat(iso)
    return f"{MONTH_NAMES[day.month - 1]} {day.day}, {day.year}"


def _month_label(month: str) -> str:
    year, number = month.split("-")
    return f"{MONTH_NAMES[int(number) - 1]} {year}"


def _dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


@dataclass
class Content:
    """The records of one back office (the rows of its tables)."""

    categories: list[str]
    products: list[Row]
    customers: list[Row]
    orders: list[Row]
    items: list[Row]
    refunds: list[Row]
    staff: list[Row]
    coupons: list[Row]
    notes: list[Row]
    months: list[Row]

    def __post_init__(self) -> None:
        self.lines_of: dict[int, list[Row]] = {}
        for item in self.items:
            self.lines_of.setdefault(item["order_id"], []).append(item)
        self.orders_of: dict[int, list[Row]] = {}
        for order in self.orders:
            self.orders_of.setdefault(order["customer_id"], []).append(order)
        self.product = {p["id"]: p for p in self.products}
        self.customer = {c["id"]: c for c in self.customers}
        self.order = {o["id"]: o for o in self.orders}


def _content(rng: random.Random, store: str, categories: list[str]) -> Content:
    """A year of trading: a catalogue, customers, orders (status by age), refunds, staff, coupons, comments."""
    nouns = STORES[store]
    products: list[Row] = []
    seen: set[str] = set()
    count = rng.randint(120, 260)
    while len(products) < count:
        index = rng.randrange(len(categories))
        name = f"{rng.choice(COLOURS)} {rng.choice(STYLES)} {rng.choice(nouns[categories[index]])}"
        if name in seen:
            continue
        seen.add(name)
        number = len(products) + 1
        roll = rng.random()
        stock = 0 if roll < 0.07 else rng.randint(1, 4) if roll < 0.2 else rng.randint(5, 180)
        products.append({"id": number, "sku": f"{categories[index][:3].upper()}-{10000 + number * 37 % 90000}",
                         "name": name, "category_id": index + 1, "price": rng.randrange(900, 24000, 100) - 1,
                         "stock": stock, "status": "disabled" if rng.random() < 0.12 else "enabled"})
    customers: list[Row] = []
    names: set[str] = set()
    target = rng.randint(70, 150)
    while len(customers) < target:
        first, last = person(rng)
        name = f"{first} {last}"
        if name in names:
            continue
        names.add(name)
        roll = rng.random()
        customers.append({"id": len(customers) + 1, "name": name,
                          "email": f"{first}.{last}@{rng.choice(EMAIL_DOMAINS)}".lower(),
                          "city": rng.choice(CITIES),
                          "customer_group": "General" if roll < 0.65 else GROUPS[1 + int((roll - 0.65) / 0.35 * 3)],
                          "joined": (dt.date(2022, 1, 1) + dt.timedelta(days=rng.randrange(1600))).isoformat()})
    regulars = rng.sample(customers, len(customers) // 5)
    span = (TODAY - FIRST_DAY).days
    days = sorted(rng.randrange(span) for _ in range(rng.randint(200, 360)))
    orders: list[Row] = []
    items: list[Row] = []
    for offset in days:
        number = 1001 + len(orders)
        customer = rng.choice(regulars) if rng.random() < 0.35 else rng.choice(customers)
        subtotal = 0
        for product in rng.sample(products, rng.choice([1, 1, 2, 2, 3])):
            qty = rng.choice([1, 1, 1, 2, 3])
            items.append({"id": len(items) + 1, "order_id": number, "product_id": product["id"], "qty": qty,
                          "price": product["price"]})
            subtotal += qty * product["price"]
        age = span - offset
        if age <= 6:
            status = rng.choice(["pending", "pending", "processing"])
        elif age <= 14:
            status = rng.choice(["processing", "shipped", "shipped"])
        else:
            status = "canceled" if rng.random() < 0.05 else "complete"
        orders.append({"id": number, "customer_id": customer["id"], "created": _day(offset), "status": status,
                       "total": subtotal + (0 if subtotal >= 7500 else 599), "refunded": 0,
                       "payment": rng.choice(PAYMENTS)})
    first_order = {}
    for order in orders:  # in date order: a customer's first order is the first seen
        first_order.setdefault(order["customer_id"], order["created"])
    for customer in customers:  # nobody orders before becoming a customer
        customer["joined"] = min(customer["joined"], first_order.get(customer["id"], customer["joined"]))
    staff: list[Row] = []
    for number in range(1, rng.randint(4, 8) + 1):
        first, last = person(rng)
        username = f"{first.lower()}.{last.lower()}"
        if any(s["username"] == username for s in staff):
            continue
        staff.append({"id": len(staff) + 1, "username": username, "password": password(rng, username),
                      "name": f"{first} {last}", "role": ROLES[0] if not staff else rng.choice(ROLES[1:])})
    lines_of: dict[int, list[Row]] = {}
    for item in items:
        lines_of.setdefault(item["order_id"], []).append(item)
    refunds: list[Row] = []
    for order in orders:
        lines = lines_of[order["id"]]
        if order["status"] == "complete" and len(lines) > 1 and rng.random() < 0.08:
            line = rng.choice(lines)
            amount = line["qty"] * line["price"]
            when = min(dt.date.fromisoformat(order["created"]) + dt.timedelta(days=rng.randint(3, 20)),
                       TODAY - dt.timedelta(days=1))
            refunds.append({"id": len(refunds) + 1, "order_id": order["id"], "amount": amount,
                            "reason": rng.choice(REASONS), "created": when.isoformat(),
                            "staff_id": rng.choice(staff)["id"]})
            order["refunded"] = amount
    coupons: list[Row] = []
    codes: set[str] = set()
    count = rng.randint(6, 14)
    while len(coupons) < count:
        percent = rng.choice([5, 10, 15, 20, 25, 30, 40])
        code = f"{rng.choice(WORDS).upper()}{percent}"
        if code in codes:
            continue
        codes.add(code)
        expires = (dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(450))).isoformat()
        coupons.append({"id": len(coupons) + 1, "code": code, "discount": percent, "expires": expires,
                        "status": "inactive" if expires < TODAY.isoformat() or rng.random() < 0.2 else "active"})
    notes = []
    for order in rng.sample(orders, min(len(orders), rng.randint(20, 50))):
        when = min(dt.date.fromisoformat(order["created"]) + dt.timedelta(days=rng.randint(0, 3)), TODAY)
        notes.append({"order_id": order["id"], "staff_id": rng.choice(staff)["id"], "created": when.isoformat(),
                      "body": rng.choice(NOTES)})
    notes.sort(key=lambda n: (n["order_id"], n["created"]))
    for number, note in enumerate(notes, 1):
        note["id"] = number
    months = []
    month = FIRST_DAY
    while month <= TODAY:
        key = month.isoformat()[:7]
        months.append({"id": len(months) + 1, "month": key, "label": _month_label(key)})
        month = (month + dt.timedelta(days=32)).replace(day=1)
    return Content(categories, products, customers, orders, items, refunds, staff, coupons, notes, months)


def _tables(data: Content, *, coupons: bool, notes: bool) -> list[dict[str, Any]]:
    """The database tables (coupons and order comments only on sites with those features)."""
    tables = [
        kit.table_def("staff", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("role", "text")], data.staff, indexes=[["username"]]),
        kit.table_def("categories", [("id", "integer"), ("name", "text")],
                      [{"id": i + 1, "name": c} for i, c in enumerate(data.categories)]),
        kit.table_def("products", [("id", "integer"), ("sku", "text"), ("name", "text"), ("category_id", "integer"),
                                   ("price", "money"), ("stock", "integer"), ("status", "text")], data.products,
                      foreign_keys=[("category_id", "categories")], indexes=[["name"], ["sku"]]),
        kit.table_def("customers", [("id", "integer"), ("name", "text"), ("email", "text"), ("city", "text"),
                                    ("customer_group", "text"), ("joined", "date")], data.customers,
                      indexes=[["name"], ["email"]]),
        kit.table_def("orders", [("id", "integer"), ("customer_id", "integer"), ("created", "date"), ("status", "text"),
                                 ("total", "money"), ("refunded", "money"), ("payment", "text")], data.orders,
                      foreign_keys=[("customer_id", "customers")], indexes=[["created"]]),
        kit.table_def("order_items", [("id", "integer"), ("order_id", "integer"), ("product_id", "integer"),
                                      ("qty", "integer"), ("price", "money")], data.items,
                      foreign_keys=[("order_id", "orders"), ("product_id", "products")]),
        kit.table_def("refunds", [("id", "integer"), ("order_id", "integer"), ("amount", "money"), ("reason", "text"),
                                  ("created", "date"), ("staff_id", "integer")], data.refunds,
                      foreign_keys=[("order_id", "orders"), ("staff_id", "staff")]),
        kit.table_def("months", [("id", "integer"), ("month", "text"), ("label", "text")], data.months),
    ]
    if coupons:
        tables.append(kit.table_def("coupons", [("id", "integer"), ("code", "text"), ("discount", "integer"),
                                                ("expires", "date"), ("status", "text")], data.coupons,
                                    indexes=[["code"]]))
    if notes:
        tables.append(kit.table_def("order_notes", [("id", "integer"), ("order_id", "integer"), ("staff_id", "integer"),
                                                    ("created", "date"), ("body", "text")], data.notes,
                                    foreign_keys=[("order_id", "orders"), ("staff_id", "staff")]))
    return tables


VIEWS = [
    {"name": "catalog", "money_columns": ["price"],
     "sql": "SELECT p.id AS id, p.sku AS sku, p.name AS name, p.name || ' ' || p.sku AS keywords, "
            "p.category_id AS category_id, c.name AS category, p.price AS price, "
            "(p.price / 100) || '.' || substr('0' || (p.price % 100), -2) AS price_input, p.stock AS stock, "
            "p.status AS status FROM products p JOIN categories c ON c.id = p.category_id"},
    {"name": "order_view", "money_columns": ["total", "refunded"],
     "sql": "SELECT o.id AS id, o.customer_id AS customer_id, c.name AS customer, c.email AS email, "
            "o.created AS created, o.status AS status, o.total AS total, o.refunded AS refunded, "
            "o.payment AS payment FROM orders o JOIN customers c ON c.id = o.customer_id"},
    {"name": "order_lines", "money_columns": ["price", "line_total"],
     "sql": "SELECT i.id AS id, i.order_id AS order_id, i.product_id AS product_id, p.name AS name, p.sku AS sku, "
            "i.qty AS qty, i.price AS price, i.qty * i.price AS line_total FROM order_items i "
            "JOIN products p ON p.id = i.product_id"},
    {"name": "sales_month", "money_columns": ["revenue"],
     "sql": "SELECT substr(o.created, 1, 7) || '-' || i.product_id AS id, substr(o.created, 1, 7) AS month, "
            "i.product_id AS product_id, p.name AS name, p.sku AS sku, sum(i.qty) AS units, "
            "sum(i.qty * i.price) AS revenue FROM order_items i JOIN orders o ON o.id = i.order_id "
            "JOIN products p ON p.id = i.product_id WHERE o.status != 'canceled' "
            "GROUP BY substr(o.created, 1, 7), i.product_id"},
    {"name": "revenue_month", "money_columns": ["revenue", "refunded", "net"],
     "sql": "SELECT m.month AS id, m.month AS month, m.label AS label, count(o.id) AS orders, "
            "coalesce(sum(o.total), 0) AS revenue, coalesce(sum(o.refunded), 0) AS refunded, "
            "coalesce(sum(o.total - o.refunded), 0) AS net FROM months m LEFT JOIN orders o "
            "ON substr(o.created, 1, 7) = m.month AND o.status != 'canceled' GROUP BY m.month"},
    {"name": "refund_view", "money_columns": ["amount"],
     "sql": "SELECT r.id AS id, r.order_id AS order_id, r.amount AS amount, r.reason AS reason, "
            "r.created AS created, s.name AS staff FROM refunds r JOIN staff s ON s.id = r.staff_id"},
]
NOTE_VIEW = {"name": "note_view", "sql": "SELECT n.id AS id, n.order_id AS order_id, n.created AS created, "
                                         "n.body AS body, s.name AS staff FROM order_notes n "
                                         "JOIN staff s ON s.id = n.staff_id"}


# ============================================================================ markers


def _markers(w: dict[str, str], *, coupons: bool, notes: bool) -> list[dict[str, Any]]:
    """Every state change of the back office, with its checks, invariants and messages."""
    order_is = "SELECT EXISTS (SELECT 1 FROM orders WHERE id = :o AND status IN ({}))"
    markers = [
        kit.marker("save_product", [kit.param("product_id", "integer"),
                                    kit.param("price", "money", w["price"], min=0.01, max=100000),
                                    kit.param("stock", "integer", w["stock"], min=0, max=100000),
                                    kit.param("status", "text", w["status"], choices=["enabled", "disabled"])],
                   [kit.effect("update", "products", "UPDATE products SET price = :price, stock = :stock, "
                                                     "status = :status WHERE id = :product_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM products WHERE id = :p)",
                                          p=ref("param.product_id")), "This product no longer exists.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM products WHERE stock < 0 OR price <= 0)"),
                                  "Stock cannot be negative and the price must be above zero.")],
                   message="The product could not be saved."),
        kit.marker("set_order_status", [kit.param("order_id", "integer"),
                                        kit.param("status", "text", w["order_status"], choices=ORDER_STATUSES)],
                   [kit.effect("update", "orders", "UPDATE orders SET status = :status WHERE id = :order_id")],
                   pre=[kit.check(kit.sql(order_is.format("'pending', 'processing', 'shipped', 'complete'"),
                                          o=ref("param.order_id")), "A canceled order cannot change its status.")],
                   message="The status could not be changed."),
        kit.marker("refund_order", [kit.param("order_id", "integer"),
                                    kit.param("amount", "money", w["refund_amount"], min=0.01),
                                    kit.param("reason", "text", w["reason"], min_length=2, max_length=200)],
                   [kit.effect("insert", "refunds", "INSERT INTO refunds (order_id, amount, reason, created, staff_id) "
                                                    "VALUES (:order_id, :amount, :reason, :today, :user_id)"),
                    kit.effect("update", "orders", "UPDATE orders SET refunded = refunded + :amount "
                                                   "WHERE id = :order_id")],
                   pre=[kit.check(kit.sql(order_is.format("'processing', 'shipped', 'complete'"),
                                          o=ref("param.order_id")),
                                  "Only paid orders that are not canceled can be refunded.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM orders WHERE refunded > total)"),
                                  "A refund cannot exceed what is left of the amount paid.")],
                   irreversible=True, message="The refund could not be issued."),
        kit.marker("cancel_order", [kit.param("order_id", "integer")],
                   [kit.effect("update", "orders", "UPDATE orders SET status = 'canceled' WHERE id = :order_id")],
                   pre=[kit.check(kit.sql(order_is.format("'pending', 'processing'"), o=ref("param.order_id")),
                                  "Only pending or processing orders can be canceled.")],
                   irreversible=True, message="The order could not be canceled."),
        kit.marker("set_customer_group", [kit.param("customer_id", "integer"),
                                          kit.param("customer_group", "text", w["group"], choices=GROUPS)],
                   [kit.effect("update", "customers", "UPDATE customers SET customer_group = :customer_group "
                                                      "WHERE id = :customer_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM customers WHERE id = :c)",
                                          c=ref("param.customer_id")), "This customer does not exist.")]),
    ]
    if notes:
        markers.append(kit.marker(
            "add_order_note", [kit.param("order_id", "integer"),
                               kit.param("body", "text", w["comment"], min_length=2, max_length=500)],
            [kit.effect("insert", "order_notes", "INSERT INTO order_notes (order_id, staff_id, created, body) "
                                                 "VALUES (:order_id, :user_id, :today, :body)")],
            pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM orders WHERE id = :o)", o=ref("param.order_id")),
                           "This order does not exist.")],
            inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM order_notes GROUP BY order_id, body "
                                   "HAVING count(*) > 1)"), "This comment is already on the order.")]))
    if coupons:
        markers += [
            kit.marker("create_coupon", [kit.param("code", "text", w["coupon_code"], min_length=3, max_length=20),
                                         kit.param("discount", "integer", w["discount"], min=1, max=90),
                                         kit.param("expires", "date", w["expires"])],
                       [kit.effect("insert", "coupons", "INSERT INTO coupons (code, discount, expires, status) "
                                                        "VALUES (upper(trim(:code)), :discount, :expires, 'active')")],
                       pre=[kit.check(kit.sql("SELECT :e >= :today", e=ref("param.expires")),
                                      "The expiry date must be today or later.")],
                       inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM coupons GROUP BY code "
                                              "HAVING count(*) > 1)"), "A coupon with this code already exists.")],
                       message="The coupon could not be created."),
            kit.marker("deactivate_coupon", [kit.param("coupon_id", "integer")],
                       [kit.effect("update", "coupons",
                                   "UPDATE coupons SET status = 'inactive' WHERE id = :coupon_id")],
                       pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM coupons WHERE id = :c AND "
                                              "status = 'active')", c=ref("param.coupon_id")),
                                      "This coupon is not active.")]),
        ]
    return markers


# ============================================================================ structure


@dataclass
class Structure:
    """What the structure stream decided about one back office."""

    labels: Labels
    w: dict[str, str]
    site_name: str
    store: str
    categories: list[str]
    product_ui: str  # single, tabs, collapsible, dialog
    status_ui: str  # select, radio
    order_ui: str  # tabs, collapsible, plain
    customer_ui: str  # tabs, plain
    reports_ui: str  # tabs, pages, plain
    filters_ui: str  # plain, collapsible
    reason_ui: str  # select, textbox
    coupon_ui: str  # plain, collapsible
    grids: dict[str, str]  # table or list per grid
    sizes: dict[str, int]
    product_sorts: list[tuple[str, str, str, str]]
    order_sorts: list[tuple[str, str, str, str]]
    customer_sorts: list[tuple[str, str, str, str]]
    product_fields: list[str]
    filter_order: list[int]
    confirm_refund: bool
    confirm_cancel: bool
    has_coupons: bool
    has_notes: bool
    has_low_stock: bool
    chrome: Chrome | None = None


def _structure(rng: random.Random) -> Structure:
    """Draw labels, widgets, grid kinds, page sizes, sort options and optional features."""
    labels = Labels(rng)
    w = {concept: labels.pick(concept, options) for concept, options in WORDING.items()}
    for concept in ("save", "confirm", "cancel", "menu", "newest", "oldest", "name_asc", "price_asc", "price_desc"):
        w[concept] = labels[concept]
    store = rng.choice(sorted(STORES))
    categories = sorted(rng.sample(sorted(STORES[store]), rng.randint(4, 6)))
    product_sorts = [s for s in [("name_asc", w["name_asc"], "name", "asc"),
                                 ("price_asc", w["price_asc"], "price", "asc"),
                                 ("price_desc", w["price_desc"], "price", "desc"),
                                 ("stock_asc", w["stock_asc"], "stock", "asc"),
                                 ("stock_desc", w["stock_desc"], "stock", "desc")] if rng.random() < 0.6]
    order_sorts = [s for s in [("oldest", w["oldest"], "created", "asc"),
                               ("total_desc", w["total_desc"], "total", "desc")] if rng.random() < 0.6]
    customer_sorts = [s for s in [("name_desc", w["name_desc"], "name", "desc"),
                                  ("newest", w["newest"], "joined", "desc")] if rng.random() < 0.5]
    return Structure(
        labels=labels, w=w, site_name=f"{rng.choice(ADMIN_NAMES)} {rng.choice(ADMIN_SUFFIXES)}", store=store,
        categories=categories, product_ui=rng.choice(["single", "tabs", "collapsible", "dialog"]),
        status_ui=rng.choice(["select", "radio"]), order_ui=rng.choice(["tabs", "collapsible", "plain"]),
        customer_ui=rng.choice(["tabs", "plain"]), reports_ui=rng.choice(["tabs", "pages", "plain"]),
        filters_ui=rng.choice(["plain", "collapsible"]), reason_ui=rng.choice(["select", "textbox"]),
        coupon_ui=rng.choice(["plain", "collapsible"]),
        grids={g: rng.choice(["table", "list", "list"]) for g in ("products", "orders", "customers")},
        sizes={g: rng.choice([8, 10, 12]) for g in ("products", "orders", "customers")},
        product_sorts=product_sorts, order_sorts=order_sorts, customer_sorts=customer_sorts,
        product_fields=rng.sample(["price", "stock", "status"], 3), filter_order=rng.sample([0, 1, 2], 3),
        confirm_refund=rng.random() < 0.6, confirm_cancel=rng.random() < 0.7,
        has_coupons=rng.random() < 0.6, has_notes=rng.random() < 0.5, has_low_stock=rng.random() < 0.5)


# ============================================================================ pages


def _grid(kind: str, name: str, q: dict[str, Any], columns: list[tuple[str, list[dict[str, Any]]]], *,
          label: str, size: int | None, sorts: list[tuple[str, str, str, str]] | None, empty: str) -> dict[str, Any]:
    """A table, or a list whose items show the same cells one after another."""
    if kind == "table":
        return kit.table(name, q, columns, label=label, page_size=size, sorts=sorts or None, empty=empty)
    item = [columns[0][1][0], kit.text(" · ".join(c[1][0]["text"] for c in columns[1:] if c[1][0]["type"] == "text"))]
    return kit.listing(name, q, item, page_size=size, sorts=sorts or None, empty=empty)


def _filters(st: Structure, route: str, fields: list[dict[str, Any]]) -> dict[str, Any]:
    form = kit.form(st.w["filter"], kit.navigate_action(route), fields, label=st.w["filters"])
    if st.filters_ui == "collapsible":
        return kit.collapsible(f"filters_{route.strip('/')}", st.w["filters"], [form])
    return form


def _status_field(st: Structure, value: Any) -> dict[str, Any]:
    options = [("enabled", "Enabled"), ("disabled", "Disabled")]
    if st.status_ui == "select":
        return kit.select("status", st.w["status"], options, value=value)
    return kit.radio("status", st.w["status"], options, value=value)


def _product_page(st: Structure) -> dict[str, Any]:
    w, labels = st.w, st.labels
    fields = {"price": kit.textbox("price", w["price"], required=True, value=ref("row.price_input")),
              "stock": kit.textbox("stock", w["stock"], required=True, value=ref("row.stock")),
              "status": _status_field(st, ref("row.status"))}
    keep = {"price": ref("row.price"), "stock": ref("row.stock"), "status": ref("row.status")}
    done = "The product has been saved."

    def form(names: list[str], submit: str) -> dict[str, Any]:
        args = {"product_id": ref("row.id"), **{n: (ref(f"field.{n}") if n in names else keep[n]) for n in keep}}
        return kit.form(submit, kit.marker_action("save_product", args, message=done), [fields[n] for n in names],
                        label=w["edit"])

    details = [kit.text("SKU: {row.sku}"), kit.text("Category: {row.category}"), kit.text("Price: {row.price|money}"),
               kit.text("In stock: {row.stock}"), kit.text("Status: {row.status|title}")]
    if st.product_ui == "single":
        body = details + [kit.heading(w["edit"]), form(st.product_fields, labels["save"])]
    elif st.product_ui == "dialog":
        body = details + [kit.button(w["edit"], "edit_product", "open"),
                          kit.dialog("edit_product", "Edit {row.name}", [
                              form(st.product_fields, labels["save"]), kit.button("Close", "edit_product", "close")])]
    elif st.product_ui == "tabs":
        body = [kit.tabs("product_tabs", [(w["tab_general"], details),
                                          (w["tab_price"], [form(["price"], w["save_price"])]),
                                          (w["tab_stock"], [form(["stock"], w["save_stock"])]),
                                          (w["tab_status"], [form(["status"], w["save_status"])])])]
    else:
        body = details + [kit.collapsible("edit_price", w["tab_price"], [form(["price"], w["save_price"])]),
                          kit.collapsible("edit_stock", w["tab_stock"], [form(["stock"], w["save_stock"])]),
                          kit.collapsible("edit_status", w["tab_status"], [form(["status"], w["save_status"])])]
    chrome = st.chrome
    assert chrome is not None
    return kit.page("product", "/products/{id:int}", "Product details", [kit.record(
        kit.query("catalog", cond("id", ref("param.id"))),
        chrome.crumbs([(w["dashboard"], "/"), (w["products"], "/products")]) + [kit.heading("{row.name}", 1), *body],
        "This product does not exist.")], login=True)


def _order_page(st: Structure) -> dict[str, Any]:
    w, labels = st.w, st.labels
    info = [kit.text("Placed on {row.created|date}"), kit.link("{row.customer}", "/customers/{row.customer_id}"),
            kit.text("Status: {row.status|title}"), kit.text("Payment: {row.payment}"),
            kit.text("Grand total: {row.total|money}"), kit.text("Refunded: {row.refunded|money}")]
    lines = kit.table("lines", kit.query("order_lines", cond("order_id", ref("row.id")), order=[("id", "asc")]),
                      [("Product", [kit.text("{row.name}")]), ("Qty", [kit.text("{row.qty}")]),
                       ("Price", [kit.text("{row.price|money}")]), ("Row total", [kit.text("{row.line_total|money}")])],
                      label="Items ordered")
    status_form = kit.form(w["update_status"], kit.marker_action(
        "set_order_status", {"order_id": ref("row.id"), "status": ref("field.status")},
        message="The status was updated."),
        [kit.select("status", w["order_status"], [(s, s.title()) for s in ORDER_STATUSES], value=ref("row.status"))],
        label=w["order_status"])
    cancel_form = kit.form(w["cancel_order"], kit.marker_action("cancel_order", {"order_id": ref("row.id")},
                                                                message="The order has been canceled."),
                           confirm=kit.confirm("Cancel order #{row.id}?", labels["confirm"], labels["cancel"],
                                               "The customer will be told. This cannot be undone.")
                           if st.confirm_cancel else None)
    reason = (kit.select("reason", w["reason"], [(r, r) for r in REASONS]) if st.reason_ui == "select"
              else kit.textbox("reason", w["reason"], required=True))
    refund_form = kit.form(w["refund"], kit.marker_action(
        "refund_order", {"order_id": ref("row.id"), "amount": ref("field.amount"), "reason": ref("field.reason")},
        message="The refund has been issued."),
        [kit.textbox("amount", w["refund_amount"], required=True, placeholder="0.00"), reason], label=w["refund"],
        confirm=kit.confirm("Refund this order?", labels["confirm"], labels["cancel"],
                            "The money goes back to the customer. This cannot be undone.")
        if st.confirm_refund else None)
    history = kit.listing("refunds", kit.query("refund_view", cond("order_id", ref("row.id")), order=[("id", "asc")]),
                          [kit.text("{row.created|date}: {row.amount|money} ({row.reason}), by {row.staff}")],
                          empty="No refunds yet.")
    parts: list[tuple[str, list[dict[str, Any]]]] = [
        (w["tab_manage"], [status_form, cancel_form]), (w["tab_refunds"], [history, refund_form])]
    if st.has_notes:
        parts.append((w["tab_notes"], [
            kit.listing("notes", kit.query("note_view", cond("order_id", ref("row.id")), order=[("id", "asc")]),
                        [kit.text("{row.created|date}, {row.staff}: {row.body}")], empty="No comments yet."),
            kit.form(w["add_note"], kit.marker_action("add_order_note", {"order_id": ref("row.id"),
                                                                         "body": ref("field.body")},
                                                      message="Comment added."),
                     [kit.textbox("body", w["comment"], kind="textarea", required=True)], label=w["comment"])]))
    if st.order_ui == "tabs":
        body = [kit.tabs("order_tabs", [(w["tab_info"], info + [lines]), *parts])]
    elif st.order_ui == "collapsible":
        body = info + [lines] + [kit.collapsible(f"order_part{n}", title, els) for n, (title, els) in enumerate(parts)]
    else:
        body = info + [lines]
        for title, els in parts:
            body += [kit.heading(title), *els]
    chrome = st.chrome
    assert chrome is not None
    return kit.page("order", "/orders/{id:int}", "Order", [kit.record(
        kit.query("order_view", cond("id", ref("param.id"))),
        chrome.crumbs([(w["dashboard"], "/"), (w["orders"], "/orders")]) + [kit.heading("Order #{row.id}", 1), *body],
        "This order does not exist.")], login=True)


def _customer_page(st: Structure) -> dict[str, Any]:
    w, labels = st.w, st.labels
    details = [kit.text("Email: {row.email}"), kit.text("City: {row.city}"),
               kit.text("Customer since {row.joined|date}"), kit.text("Group: {row.customer_group}")]
    orders = kit.table("customer_orders", kit.query("orders", cond("customer_id", ref("row.id")),
                                                    order=[("created", "desc"), ("id", "desc")]),
                       [("Order", [kit.link("#{row.id}", "/orders/{row.id}")]),
                        ("Date", [kit.text("{row.created|date}")]), ("Status", [kit.text("{row.status|title}")]),
                        ("Total", [kit.text("{row.total|money}")])],
                       label=w["tab_customer_orders"], page_size=10, empty="No orders yet.")
    group_form = kit.form(labels["save"], kit.marker_action(
        "set_customer_group", {"customer_id": ref("row.id"), "customer_group": ref("field.customer_group")},
        message="The customer was saved."),
        [kit.select("customer_group", w["group"], [(g, g) for g in GROUPS], value=ref("row.customer_group"))],
        label=w["tab_account"])
    if st.customer_ui == "tabs":
        body = [kit.tabs("customer_tabs", [(w["tab_customer"], details), (w["tab_customer_orders"], [orders]),
                                           (w["tab_account"], [group_form])])]
    else:
        body = details + [kit.heading(w["tab_account"]), group_form, kit.heading(w["tab_customer_orders"]), orders]
    chrome = st.chrome
    assert chrome is not None
    return kit.page("customer", "/customers/{id:int}", w["tab_customer"], [kit.record(
        kit.query("customers", cond("id", ref("param.id"))),
        chrome.crumbs([(w["dashboard"], "/"), (w["customers"], "/customers")]) + [kit.heading("{row.name}", 1), *body],
        "This customer does not exist.")], login=True)


def _report_parts(st: Structure) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    w = st.w
    month = cond("month", ref("query.month"))
    sales = [kit.record(kit.query("revenue_month", month), [
        kit.heading("{row.label}"), kit.text("Orders: {row.orders}"), kit.text("Revenue: {row.revenue|money}"),
        kit.text("Refunded: {row.refunded|money}"), kit.text("Net revenue: {row.net|money}")],
        "Choose a month to see its sales.")]
    top = kit.query("sales_month", month, order=[("units", "desc"), ("name", "asc")], limit=10)
    best = [kit.table("bestsellers", top,
                      [("Product", [kit.text("{row.name}")]), ("SKU", [kit.text("{row.sku}")]),
                       ("Units sold", [kit.text("{row.units}")]), ("Revenue", [kit.text("{row.revenue|money}")])],
                      label=w["bestsellers"], empty="Choose a month to see its bestsellers.")]
    return sales, best


def _month_form(st: Structure, route: str) -> dict[str, Any]:
    return kit.form(st.w["show"], kit.navigate_action(route), [kit.select(
        "month", st.w["month"], [("", "Choose a month")], value=ref("query.month"),
        options_query={"query": kit.query("months", order=[("month", "desc")]), "value": "month", "label": "label"})],
        label=st.w["month"])


def _report_pages(st: Structure) -> list[dict[str, Any]]:
    w = st.w
    sales, best = _report_parts(st)
    low = kit.link(w["low_stock"], "/low-stock") if st.has_low_stock else None
    if st.reports_ui == "pages":
        pages = [kit.page("reports", "/reports", w["reports"], [
            kit.heading(w["reports"], 1), kit.link(w["sales_report"], "/reports/sales"),
            kit.link(w["bestsellers"], "/reports/bestsellers"), *([low] if low else [])], login=True),
            kit.page("sales_report", "/reports/sales", w["sales_report"], [
                kit.heading(w["sales_report"], 1), _month_form(st, "/reports/sales"), *sales], login=True),
            kit.page("bestsellers", "/reports/bestsellers", w["bestsellers"], [
                kit.heading(w["bestsellers"], 1), _month_form(st, "/reports/bestsellers"), *best], login=True)]
    else:
        if st.reports_ui == "tabs":
            body = [kit.tabs("report_tabs", [(w["sales_report"], sales), (w["bestsellers"], best)])]
        else:
            body = [kit.heading(w["sales_report"]), *sales, kit.heading(w["bestsellers"]), *best]
        pages = [kit.page("reports", "/reports", w["reports"], [
            kit.heading(w["reports"], 1), *([low] if low else []), _month_form(st, "/reports"), *body], login=True)]
    if st.has_low_stock:
        pages.append(kit.page("low_stock", "/low-stock", w["low_stock"], [
            kit.heading(w["low_stock"], 1), kit.text("Enabled products with fewer than 5 units in stock."),
            kit.table("low", kit.query("catalog", cond("status", "enabled"), cond("stock", 5, "<"),
                                       order=[("stock", "asc"), ("name", "asc")]),
                      [("Product", [kit.link("{row.name}", "/products/{row.id}")]), ("SKU", [kit.text("{row.sku}")]),
                       ("In stock", [kit.text("{row.stock}")])], label=w["low_stock"], page_size=10,
                      empty="Nothing is running low.")], login=True))
    return pages


def _coupon_page(st: Structure) -> dict[str, Any]:
    w = st.w
    columns = [("Code", [kit.text("{row.code}")]), ("Discount", [kit.text("{row.discount}%")]),
               ("Expires", [kit.text("{row.expires|date}")])]
    live = kit.query("coupons", cond("status", "active"), order=[("code", "asc")])
    active = kit.table("active_coupons", live, columns + [
        ("", [kit.form(w["deactivate"], kit.marker_action("deactivate_coupon", {"coupon_id": ref("row.id")},
                                                          message="The coupon was deactivated."))])],
        label="Active", empty="No active coupons.")
    inactive = kit.table("inactive_coupons", kit.query("coupons", cond("status", "inactive"), order=[("code", "asc")]),
                         columns, label="Inactive", empty="No inactive coupons.")
    form = kit.form(w["create_coupon"], kit.marker_action(
        "create_coupon", {n: ref(f"field.{n}") for n in ("code", "discount", "expires")}, message="Coupon created."),
        [kit.textbox("code", w["coupon_code"], required=True), kit.textbox("discount", w["discount"], required=True),
         kit.textbox("expires", w["expires"], kind="date", required=True)], label=w["new_coupon"])
    create = [kit.collapsible("new_coupon", w["new_coupon"], [form])] if st.coupon_ui == "collapsible" else [
        kit.heading(w["new_coupon"]), form]
    return kit.page("coupons", "/coupons", w["coupons"], [
        kit.heading(w["coupons"], 1), kit.heading("Active"), active, *create, kit.heading("Inactive"), inactive],
        login=True)


def _pages(st: Structure) -> list[dict[str, Any]]:
    """Every page: dashboard, grids with filters, record pages, reports, log-in, info pages, coupons."""
    w = st.w
    chrome = st.chrome
    assert chrome is not None
    latest = kit.listing("latest", kit.query("order_view", order=[("created", "desc"), ("id", "desc")], limit=5),
                         [kit.link("#{row.id}", "/orders/{row.id}"),
                          kit.text("{row.customer}, {row.created|date}: {row.total|money} ({row.status|title})")])
    dashboard = [kit.heading(w["dashboard"], 1), kit.text("Signed in as {user.name}. Today is {clock.today|date}."),
                 kit.record(kit.query("revenue_month", cond("month", TODAY.isoformat()[:7])),
                            [kit.text("This month so far: {row.orders} orders, {row.revenue|money} in revenue.")], ""),
                 kit.heading("Latest orders"), latest]
    product_grid = _grid(st.grids["products"], "products", kit.query(
        "catalog", cond("keywords", ref("query.q"), "contains", skip_if_empty=True),
        cond("status", ref("query.status"), skip_if_empty=True),
        cond("category_id", ref("query.category"), skip_if_empty=True), order=[("id", "asc")]),
        [("Name", [kit.link("{row.name}", "/products/{row.id}")]), ("SKU", [kit.text("{row.sku}")]),
         ("Price", [kit.text("{row.price|money}")]), (w["stock"], [kit.text("{row.stock} in stock")]),
         ("Status", [kit.text("{row.status|title}")])],
        label=w["products"], size=st.sizes["products"], sorts=st.product_sorts, empty="No products match.")
    product_filters = {
        "q": kit.textbox("q", w["keyword"], value=ref("query.q")),
        "status": kit.select("status", w["status"], [("", "Any"), ("enabled", "Enabled"), ("disabled", "Disabled")],
                             value=ref("query.status")),
        "category": kit.select("category", w["category"], [("", "All")], value=ref("query.category"), options_query={
            "query": kit.query("categories", order=[("name", "asc")]), "value": "id", "label": "name"})}
    order_grid = _grid(st.grids["orders"], "orders", kit.query(
        "order_view", cond("id", ref("query.number"), skip_if_empty=True),
        cond("status", ref("query.status"), skip_if_empty=True),
        cond("customer", ref("query.customer"), "contains", skip_if_empty=True),
        order=[("created", "desc"), ("id", "desc")]),
        [("Order", [kit.link("#{row.id}", "/orders/{row.id}")]), ("Date", [kit.text("{row.created|date}")]),
         ("Customer", [kit.text("{row.customer}")]), ("Status", [kit.text("{row.status|title}")]),
         ("Total", [kit.text("{row.total|money}")])],
        label=w["orders"], size=st.sizes["orders"], sorts=st.order_sorts, empty="No orders match.")
    order_filters = [kit.textbox("number", w["order_number"], value=ref("query.number")),
                     kit.select("status", "Status",
                                [("", "Any")] + [(s, s.title()) for s in [*ORDER_STATUSES, "canceled"]],
                                value=ref("query.status")),
                     kit.textbox("customer", w["customer_filter"], value=ref("query.customer"))]
    customer_grid = _grid(st.grids["customers"], "customers", kit.query(
        "customers", cond("name", ref("query.q"), "contains", skip_if_empty=True),
        cond("customer_group", ref("query.group"), skip_if_empty=True), order=[("name", "asc")]),
        [("Name", [kit.link("{row.name}", "/customers/{row.id}")]), ("Email", [kit.text("{row.email}")]),
         ("Group", [kit.text("{row.customer_group}")])],
        label=w["customers"], size=st.sizes["customers"], sorts=st.customer_sorts, empty="No customers match.")
    customer_filters = [kit.textbox("q", w["customer_search"], value=ref("query.q")),
                        kit.select("group", w["group"], [("", "All groups")] + [(g, g) for g in GROUPS],
                                   value=ref("query.group"))]
    pages = [
        kit.page("dashboard", "/", w["dashboard"], dashboard, login=True),
        kit.page("products", "/products", w["products"], [
            kit.heading(w["products"], 1),
            _filters(st, "/products", [list(product_filters.values())[n] for n in st.filter_order]),
            product_grid], login=True),
        _product_page(st),
        kit.page("orders", "/orders", w["orders"], [
            kit.heading(w["orders"], 1), _filters(st, "/orders", [order_filters[n] for n in st.filter_order]),
            order_grid],
            login=True),
        _order_page(st),
        kit.page("customers", "/customers", w["customers"], [
            kit.heading(w["customers"], 1), _filters(st, "/customers", customer_filters), customer_grid], login=True),
        _customer_page(st),
        *_report_pages(st),
        login_page(st.labels, "Staff only: sign in with your back-office account."),
        *chrome.pages,
    ]
    if st.has_coupons:
        pages.append(_coupon_page(st))
    return pages


def build(streams: Streams) -> Draft:
    """Build one store back office (see the module docstring)."""
    st = _structure(streams.structure)
    w = st.w
    nav = [(w["dashboard"], "/"), (w["products"], "/products"), (w["orders"], "/orders"),
           (w["customers"], "/customers"), (w["reports"], "/reports")]
    if st.has_coupons:
        nav.append((w["coupons"], "/coupons"))
    st.chrome = build_chrome(streams.structure, st.labels, st.site_name, nav)
    data = _content(streams.content, st.store, st.categories)
    views = VIEWS + ([NOTE_VIEW] if st.has_notes else [])
    site = {"name": st.site_name, "clock": {"today": TODAY.isoformat()},
            "auth": {"table": "staff", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": {"tables": _tables(data, coupons=st.has_coupons, notes=st.has_notes), "views": views},
            "markers": _markers(w, coupons=st.has_coupons, notes=st.has_notes),
            "layout": {"header": st.chrome.layout["header"], "footer": st.chrome.layout["footer"]},
            "pages": _pages(st)}
    ctx = _Ctx(streams.tasks, st, data)
    return Draft(site=site, tasks=_tasks(ctx))


# ============================================================================ plans


@dataclass
class _Ctx:
    """What the task families know about the site they write tasks for, and plan helpers."""

    rng: random.Random
    st: Structure
    data: Content
    used_orders: set[int] = field(default_factory=set)
    used_products: set[int] = field(default_factory=set)
    used_customers: set[int] = field(default_factory=set)

    @property
    def w(self) -> dict[str, str]:
        return self.st.w

    @property
    def labels(self) -> Labels:
        return self.st.labels

    def nav(self, key: str) -> list[Step]:
        """Click a main navigation link (opening the menu first on sites that hide it in one), or,
        now and then, type its address."""
        chrome = self.st.chrome
        assert chrome is not None
        if key in NAV_URLS and self.rng.random() < 0.25:
            return [("goto", NAV_URLS[key])]
        opener = [("click", "button", self.w["menu"])] if chrome.nav_style == "menu" else []
        return opener + [("click", "link", self.w[key])]

    def open_filters(self) -> list[Step]:
        return [("click", "button", self.w["filters"])] if self.st.filters_ui == "collapsible" else []

    # ------------------------------------------------------------------ products

    def product_rows(self, *, q: str = "", status: str = "", category: int = 0) -> list[Row]:
        return [p for p in self.data.products if (not q or q.lower() in f"{p['name']} {p['sku']}".lower())
                and (not status or p["status"] == status) and (not category or p["category_id"] == category)]

    def product_sort(self, key: str) -> tuple[str, str, str, str] | None:
        return next((s for s in self.st.product_sorts if s[0] == key), None)

    def filter_products(self, *, q: str = "", status: str = "", category: int = 0) -> list[Step]:
        plan = self.nav("products") + self.open_filters()
        if q:
            plan.append(("fill", "textbox", self.w["keyword"], q))
        if status:
            plan.append(("select", self.w["status"], status.title()))
        if category:
            plan.append(("select", self.w["category"], self.data.categories[category - 1]))
        return plan + [("click", "button", self.w["filter"])]

    def open_product(self, product: Row, *, by_sku: bool = False) -> list[Step]:
        """Search the grid for a product (by its name or SKU) and open it."""
        text = product["sku"] if by_sku else product["name"]
        rows = self.product_rows(q=text)
        return self.filter_products(q=text) + next_pages(rows.index(product), self.st.sizes["products"]) + [
            ("click", "link", product["name"])]

    def status_step(self, value: str) -> Step:
        if self.st.status_ui == "select":
            return ("select", self.w["status"], value.title())
        return ("check", "radio", value.title())

    def edit_product(self, name: str, value: Any) -> list[Step]:
        """On a product page: change one field and save."""
        w = self.w
        if name == "price":
            change: Step = ("fill", "textbox", w["price"], f"{value / 100:.2f}")
        elif name == "stock":
            change = ("fill", "textbox", w["stock"], str(value))
        else:
            change = self.status_step(value)
        ui = self.st.product_ui
        if ui == "single":
            return [change, ("click", "button", w["save"])]
        if ui == "dialog":
            return [("click", "button", w["edit"]), change, ("click", "button", w["save"])]
        opener = {"price": w["tab_price"], "stock": w["tab_stock"], "status": w["tab_status"]}[name]
        submit = {"price": w["save_price"], "stock": w["save_stock"], "status": w["save_status"]}[name]
        return [("click", "tab" if ui == "tabs" else "button", opener), change, ("click", "button", submit)]

    # ------------------------------------------------------------------ customers and orders

    def open_customer(self, customer: Row) -> list[Step]:
        """Search the customer grid for a customer by name (and, now and then, their group) and open them."""
        group = customer["customer_group"] if self.rng.random() < 0.35 else ""
        rows = sorted((c for c in self.data.customers if customer["name"].lower() in c["name"].lower()
                       and (not group or c["customer_group"] == group)), key=lambda c: c["name"])
        narrow: list[Step] = [("select", self.w["group"], group)] if group else []
        return (self.nav("customers") + self.open_filters()
                + [("fill", "textbox", self.w["customer_search"], customer["name"]), *narrow,
                   ("click", "button", self.w["filter"])]
                + next_pages(rows.index(customer), self.st.sizes["customers"]) + [("click", "link", customer["name"])])

    def customer_orders(self, customer: Row) -> list[Row]:
        """A customer's orders, newest first (as the customer page lists them)."""
        return sorted(self.data.orders_of.get(customer["id"], []), key=lambda o: (o["created"], o["id"]), reverse=True)

    def customer_tab(self, part: str) -> list[Step]:
        if self.st.customer_ui != "tabs":
            return []
        return [("click", "tab", self.w["tab_customer_orders" if part == "orders" else "tab_account"])]

    def order_from_customer(self, customer: Row, order: Row) -> list[Step]:
        """On a customer page: open one of their orders."""
        return self.customer_tab("orders") + next_pages(self.customer_orders(customer).index(order), 10) + [
            ("click", "link", f"#{order['id']}")]

    def open_order(self, order: Row) -> list[Step]:
        """Find an order by its number in the order grid and open it."""
        return (self.nav("orders") + self.open_filters()
                + [("fill", "textbox", self.w["order_number"], str(order["id"])), ("click", "button", self.w["filter"]),
                   ("click", "link", f"#{order['id']}")])

    def order_part(self, part: str) -> list[Step]:
        """Open the tab or section of the order page holding ``part`` (manage, refunds, notes)."""
        title = self.w[{"manage": "tab_manage", "refunds": "tab_refunds", "notes": "tab_notes"}[part]]
        if self.st.order_ui == "tabs":
            return [("click", "tab", title)]
        if self.st.order_ui == "collapsible":
            return [("click", "button", title)]
        return []

    def reports(self, part: str) -> list[Step]:
        """Go to the sales or bestsellers report (before choosing a month)."""
        plan = self.nav("reports")
        if self.st.reports_ui == "pages":
            plan.append(("click", "link", self.w["sales_report" if part == "sales" else "bestsellers"]))
        return plan

    def show_month(self, part: str, month: str) -> list[Step]:
        plan = [("select", self.w["month"], _month_label(month)), ("click", "button", self.w["show"])]
        if self.st.reports_ui == "tabs" and part == "bestsellers":
            plan.append(("click", "tab", self.w["bestsellers"]))
        return plan

    def staff(self, *, anyone: bool = False) -> Row:
        """The member of staff who does a task: one of the two main accounts, or anyone with ``anyone``."""
        return self.rng.choice(self.data.staff if anyone else self.data.staff[:2])


def _url(path: str, params: dict[str, str]) -> str:
    """A URL as the site writes it (query parameters sorted by name)."""
    return f"{path}?{urlencode(sorted(params.items()))}"


ADMIN_PREFIXES = [("Log in as {username} (password: {password}), then: ", True),
                  ("Sign in with {username} / {password}. ", False),
                  ("Use the staff account {username}, password {password}. ", False)]


def _as_user(ctx: _Ctx, phrasings: list[str], slots: dict[str, Any], plan: list[Step], *,
             chance: float = 0.5) -> tuple[list[str], dict[str, Any], list[Step], dict[str, Any]]:
    """Who does the task: a member of staff logged in from the profile, or credentials in the instruction."""
    if ctx.rng.random() < chance:
        user = ctx.staff(anyone=True)
        # every page asks for a log-in, so the episode starts on the log-in form
        login = login_plan(ctx.st.labels, user["username"], user["password"], via_link=False)[1:]
        return as_user(ctx, user, phrasings, slots, plan, chance=1.0, prefixes=ADMIN_PREFIXES, login=login)
    return as_user(ctx, ctx.staff(), phrasings, slots, plan, chance=0.0)


def _task(ctx: _Ctx, task_id: str, family: str, kind: str, phrasings: list[str], slots: dict[str, Any],
          plan: list[Step], **fields: Any) -> TaskDraft | None:
    """A task draft, or ``None`` when its plan would exceed the certificate budget."""
    if len(plan) > MAX_PLAN:
        return None
    return make_task(ctx, task_id, family, kind, phrasings, slots, plan, **fields)


def _product_id(slot: str = "product", column: str = "name") -> dict[str, Any]:
    return kit.scalar("products", "id", cond(column, ref(f"slot.{slot}")))


def _customer_id(slot: str = "customer") -> dict[str, Any]:
    return kit.scalar("customers", "id", cond("name", ref(f"slot.{slot}")))


def _category_id(slot: str = "category") -> dict[str, Any]:
    return kit.scalar("categories", "id", cond("name", ref(f"slot.{slot}")))


# ============================================================================ task families


def _navigate_sorted(ctx: _Ctx) -> TaskDraft | None:
    """Open the product that is extreme by price or stock among a category's enabled products."""
    rng = ctx.rng
    metric = rng.choice(["price_desc", "price_asc", "stock_asc"])
    column, direction = metric.split("_")
    for _ in range(10):
        cat = rng.randrange(len(ctx.data.categories)) + 1
        rows = ctx.product_rows(status="enabled", category=cat)
        values = sorted(p[column] for p in rows)
        best = values[-1] if direction == "desc" else values[0]
        if values.count(best) == 1:
            break
    else:
        return None
    sign = -1 if direction == "desc" else 1
    target = min(rows, key=lambda p: (sign * p[column], p["id"]))
    plan = ctx.filter_products(status="enabled", category=cat)
    sort = ctx.product_sort(metric)
    if sort is not None:
        plan.append(("click", "link", sort[1]))
        ordered = sorted(rows, key=lambda p: (sign * p[column], p["id"]))
    else:
        ordered = rows
    plan += next_pages(ordered.index(target), ctx.st.sizes["products"]) + [("click", "link", target["name"])]
    ctx.used_products.add(target["id"])
    what = {"price_desc": ["most expensive", "priciest"], "price_asc": ["cheapest", "least expensive"],
            "stock_asc": ["lowest-stock", "scarcest"]}[metric]
    goal = kit.on_page("product", id=kit.scalar("products", "id", cond("category_id", _category_id()),
                                                cond("status", "enabled"), order=[(column, direction), ("id", "asc")]))
    phrasings, slots, plan, user = _as_user(
        ctx, ["Open the edit page of the {what} enabled product in {category}.",
              "Among the enabled products of the {category} category, go to the {what} one.",
              "Find the {what} product in the {category} category (enabled only) and open it."],
        {"what": rng.choice(what), "category": ctx.data.categories[cat - 1]}, plan, chance=0.4)
    return _task(ctx, "open_extreme_product", "navigate_sorted", "navigate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "on the product's page", "predicate": goal}])


def _navigate_order(ctx: _Ctx) -> TaskDraft | None:
    """Open the order a customer placed on a given day, through the customer's page."""
    rng = ctx.rng
    for _ in range(20):
        customer = rng.choice(ctx.data.customers)
        orders = ctx.customer_orders(customer)
        days = [o["created"] for o in orders]
        single = [o for o in orders if days.count(o["created"]) == 1]
        if len(orders) >= 2 and single:
            break
    else:
        return None
    order = rng.choice(single)
    ctx.used_customers.add(customer["id"])
    plan = ctx.open_customer(customer) + ctx.order_from_customer(customer, order)
    goal = kit.on_page("order", id=kit.scalar("orders", "id", cond("customer_id", _customer_id()),
                                              cond("created", ref("slot.date"))))
    phrasings, slots, plan, user = _as_user(
        ctx, ["Open the order {customer} placed on {day}.", "Show me {customer}'s order from {day}.",
              "Go to the page of the order that {customer} made on {day}."],
        {"customer": customer["name"], "day": _nice_date(order["created"]), "date": order["created"]}, plan,
        chance=0.4)
    return _task(ctx, "open_customer_order", "navigate_order", "navigate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "on the order's page", "predicate": goal}])


def _retrieve_lookup(ctx: _Ctx) -> TaskDraft | None:
    """A product's price (currency) or stock (number), read from the grid."""
    rng = ctx.rng
    product = rng.choice(ctx.data.products)
    by_sku = rng.random() < 0.4
    ask = rng.choice(["price", "stock"])
    text = product["sku"] if by_sku else product["name"]
    # the name or SKU alone, or with the product's category and status chosen too (the grid shows both)
    narrowed = {"category": product["category_id"], "status": product["status"]} if rng.random() < 0.4 else {}
    rows = ctx.product_rows(q=text, **narrowed)
    plan = ctx.filter_products(q=text, **narrowed) + next_pages(rows.index(product), ctx.st.sizes["products"]) + [
        ("send", _dollars(product["price"]) if ask == "price" else f"{product['stock']} units")]
    who = "the product with SKU {product}" if by_sku else "the {product}"
    phrasings = ([f"What is the current price of {who}?", f"How much does {who} sell for?",
                  f"Look up the price of {who}."] if ask == "price" else
                 [f"How many units of {who} are in stock?", f"What is the stock level of {who}?",
                  f"Check how many of {who} we have left."])
    phrasings, slots, plan, user = _as_user(ctx, phrasings, {"product": text}, plan, chance=0.5)
    column = "sku" if by_sku else "name"
    return _task(ctx, f"{ask}_lookup", "retrieve_lookup", "retrieve", phrasings, slots, plan, **user,
                 answer={"type": "currency" if ask == "price" else "number",
                         "value": kit.scalar("products", ask, cond(column, ref("slot.product")))})


def _sales(ctx: _Ctx) -> dict[str, dict[int, list[int]]]:
    """Units and revenue per product per month, as the ``sales_month`` view computes them."""
    out: dict[str, dict[int, list[int]]] = {}
    for order in ctx.data.orders:
        if order["status"] == "canceled":
            continue
        month = out.setdefault(order["created"][:7], {})
        for line in ctx.data.lines_of[order["id"]]:
            entry = month.setdefault(line["product_id"], [0, 0])
            entry[0] += line["qty"]
            entry[1] += line["qty"] * line["price"]
    return out


def _retrieve_revenue(ctx: _Ctx) -> TaskDraft | None:
    """A month's gross or net revenue from the sales report (currency)."""
    rng = ctx.rng
    month = rng.choice([m["month"] for m in ctx.data.months[:-1]])
    orders = [o for o in ctx.data.orders if o["created"][:7] == month and o["status"] != "canceled"]
    net = rng.random() < 0.4
    value = sum(o["total"] - (o["refunded"] if net else 0) for o in orders)
    plan = ctx.reports("sales") + ctx.show_month("sales", month) + [("send", _dollars(value))]
    phrasings = (["What was the net revenue (after refunds) in {month}?",
                  "How much did the store make in {month} once refunds are taken off?"] if net else
                 ["What was the revenue in {month}, before refunds?", "Report the gross revenue for {month}.",
                  "How much revenue did orders placed in {month} bring in (before refunds)?"])
    phrasings, slots, plan, user = _as_user(ctx, phrasings, {"month": _month_label(month), "key": month}, plan,
                                            chance=0.5)
    return _task(ctx, "month_revenue", "retrieve_report", "retrieve", phrasings, slots, plan, **user,
                 answer={"type": "currency", "value": kit.scalar("revenue_month", "net" if net else "revenue",
                                                                 cond("month", ref("slot.key")))})


def _retrieve_top(ctx: _Ctx) -> TaskDraft | None:
    """A month's bestseller (text) or its three bestsellers (list), when there is no tie."""
    rng = ctx.rng
    sales = _sales(ctx)
    many = rng.random() < 0.5
    count = 3 if many else 1
    months = [m["month"] for m in ctx.data.months if m["month"] in sales]
    rng.shuffle(months)
    for month in months:
        units = sorted((u for u, _ in sales[month].values()), reverse=True)
        if len(units) > count and units[count - 1] > units[count]:
            break
    else:
        return None
    ranked = sorted(sales[month].items(), key=lambda kv: (-kv[1][0], ctx.data.product[kv[0]]["name"]))
    names = [ctx.data.product[pid]["name"] for pid, _ in ranked[:count]]
    plan = ctx.reports("bestsellers") + ctx.show_month("bestsellers", month) + [("send", ", ".join(names))]
    where = [cond("month", ref("slot.key"))]
    if many:
        phrasings = ["List the three best-selling products of {month} by units sold.",
                     "Which three products sold the most units in {month}?",
                     "Name the top 3 sellers (by units) for {month}."]
        top = kit.scalar("sales_month", "name", *where, order=[("units", "desc")])["query"]
        top["limit"] = 3
        answer = {"type": "list", "list_query": top}
    else:
        phrasings = ["Which product sold the most units in {month}?", "What was the bestseller of {month}?",
                     "Name the top-selling product (by units) in {month}."]
        answer = {"type": "text", "value": kit.scalar("sales_month", "name", *where, order=[("units", "desc")]),
                  "candidates": kit.scalar("sales_month", "name", *where)["query"]}
    phrasings, slots, plan, user = _as_user(ctx, phrasings, {"month": _month_label(month), "key": month}, plan,
                                            chance=0.5)
    return _task(ctx, "top_sellers" if many else "bestseller", "retrieve_top", "retrieve", phrasings, slots, plan,
                 **user, answer=answer)


def _retrieve_customer(ctx: _Ctx) -> TaskDraft | None:
    """About one customer's orders: the latest order's date, a count by status, or the largest total."""
    rng = ctx.rng
    ask = rng.choice(["latest", "complete", "largest"])
    for _ in range(30):
        customer = rng.choice(ctx.data.customers)
        orders = ctx.customer_orders(customer)
        if len(orders) >= 2 and customer["id"] not in ctx.used_customers:
            break
    else:
        return None
    ctx.used_customers.add(customer["id"])
    cid = cond("customer_id", _customer_id())
    if ask == "latest":
        send = _nice_date(orders[0]["created"])
        phrasings = ["When did {customer} place their most recent order?", "On what date did {customer} last order?",
                     "What is the date of {customer}'s latest order?"]
        answer = {"type": "date", "value": kit.scalar("orders", "created", cid, order=[("created", "desc")])}
        plan = ctx.open_customer(customer) + ctx.customer_tab("orders")
    elif ask == "complete":
        send = str(sum(1 for o in orders if o["status"] == "complete"))
        phrasings = ["How many of {customer}'s orders are complete?", "Count the completed orders of {customer}.",
                     "How many orders from {customer} have the status Complete?"]
        answer = {"type": "number", "value": kit.scalar("orders", "*", cid, cond("status", "complete"), agg="count")}
        plan = (ctx.open_customer(customer) + ctx.customer_tab("orders")
                + [("click", "link", "Next")] * ((len(orders) - 1) // 10))
    else:
        send = _dollars(max(o["total"] for o in orders))
        phrasings = ["What is the largest order total {customer} has ever placed?",
                     "How much was {customer}'s biggest order?", "Find the highest order total of {customer}."]
        answer = {"type": "currency", "value": kit.scalar("orders", "total", cid, agg="max")}
        plan = (ctx.open_customer(customer) + ctx.customer_tab("orders")
                + [("click", "link", "Next")] * ((len(orders) - 1) // 10))
    phrasings, slots, plan, user = _as_user(ctx, phrasings, {"customer": customer["name"]}, plan + [("send", send)],
                                            chance=0.3)
    return _task(ctx, f"customer_{ask}", "retrieve_customer", "retrieve", phrasings, slots, plan, **user, answer=answer)


def _set_price(ctx: _Ctx) -> TaskDraft | None:
    """Change one product's price (a single write)."""
    rng = ctx.rng
    product = rng.choice([p for p in ctx.data.products if p["id"] not in ctx.used_products])
    ctx.used_products.add(product["id"])
    change = rng.choice([-0.2, -0.1, 0.1, 0.15, 0.25])
    price = max(199, int(product["price"] * (1 + change)) // 100 * 100 + 99)
    if price == product["price"]:
        price += 100
    plan = ctx.open_product(product) + ctx.edit_product("price", price)
    phrasings, slots, plan, user = _as_user(ctx, [
        "Change the price of the {product} to {price}.", "Set the {product}'s price to {price}.",
        "The {product} should now cost {price}. Update it."], {"product": product["name"], "price": _dollars(price)},
        plan)
    goal = kit.exists("products", cond("name", ref("slot.product")), cond("price", price))
    return _task(ctx, "set_price", "single_write", "mutate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "the product's page is open", "predicate": kit.any_of(
                     kit.on_page("product", id=_product_id()), goal)},
                           {"description": "the new price is saved", "predicate": goal}],
                 footprint=[{"table": "products", "where": [cond("name", ref("slot.product"))], "columns": ["price"],
                             "ops": ["update"]}])


def _disable_products(ctx: _Ctx) -> TaskDraft | None:
    """Disable two or three products given by SKU or name (several entities)."""
    rng = ctx.rng
    by_sku = rng.random() < 0.5
    pool = [p for p in ctx.data.products if p["status"] == "enabled" and p["id"] not in ctx.used_products]
    chosen = rng.sample(pool, 3)
    names = ["first", "second", "third"]
    while True:
        plan: list[Step] = []
        for product in chosen:
            plan += ctx.open_product(product, by_sku=by_sku) + ctx.edit_product("status", "disabled")
        if len(plan) <= 15 or len(chosen) == 2:
            break
        chosen = chosen[:2]
    ctx.used_products.update(p["id"] for p in chosen)
    names = names[:len(chosen)]
    column = "sku" if by_sku else "name"
    listed = ", ".join("{" + n + "}" for n in names[:-1]) + " and {" + names[-1] + "}"
    subject = "the products with SKU " if by_sku else ""
    goals = [kit.exists("products", cond(column, ref(f"slot.{n}")), cond("status", "disabled")) for n in names]
    return _task(ctx, "disable_products", "multi_entity", "mutate",
                 [f"Disable {subject}{listed}.", f"Take {subject}{listed} off the store: set them to disabled.",
                  f"Please switch {subject}{listed} to Disabled."],
                 {n: p[column] for n, p in zip(names, chosen)}, plan,
                 user=ctx.staff()["username"], start_logged_in=True, credentials="profile", goal=goals,
                 progress=[{"description": f"the {n} product is disabled", "predicate": g}
                           for n, g in zip(names, goals)],
                 footprint=[{"table": "products", "where": [cond(column, ref(f"slot.{n}"))], "columns": ["status"],
                             "ops": ["update"]} for n in names])


def _restock_low(ctx: _Ctx) -> TaskDraft | None:
    """Set the stock of every enabled product of a category below a threshold (filter, sort, several writes)."""
    rng = ctx.rng
    cats = list(range(1, len(ctx.data.categories) + 1))
    rng.shuffle(cats)
    size = ctx.st.sizes["products"]
    sort = ctx.product_sort("stock_asc")
    for cat in cats:
        rows = ctx.product_rows(status="enabled", category=cat)
        ranked = sorted(p["stock"] for p in rows)
        limits = [ranked[n] + 1 for n in (1,) if n < len(ranked) and ranked[n] < 10
                  and (n + 1 == len(ranked) or ranked[n + 1] > ranked[n])]
        if not limits:
            continue
        limit = limits[0]
        targets = [p for p in rows if p["stock"] < limit]
        if any(p["id"] in ctx.used_products for p in targets):
            continue
        amount = next((n for n in (25, 30, 40, 50, 60, 75, 100) if all(p["stock"] != n for p in rows)), 0)
        if not amount:
            continue
        params = {"category": str(cat), "status": "enabled"}
        plan = ctx.filter_products(status="enabled", category=cat)
        if sort is not None:
            plan.append(("click", "link", sort[1]))
            ordered = sorted(rows, key=lambda p: (p["stock"], p["id"]))
            params["products_sort"] = "stock_asc"
        else:
            ordered = rows
        last = 0
        for number, product in enumerate(sorted(targets, key=ordered.index)):
            page = ordered.index(product) // size
            if number:  # back to the list page last seen (an address of this episode), then onwards
                paged = {**params, "products_page": str(last + 1)} if last else params
                plan.append(("goto", _url("/products", paged)))
            plan += [("click", "link", "Next")] * (page - last)
            last = page
            plan += [("click", "link", product["name"])] + ctx.edit_product("stock", amount)
        if len(plan) <= MAX_PLAN:
            break
    else:
        return None
    ctx.used_products.update(p["id"] for p in targets)
    where = [cond("category_id", _category_id()), cond("status", "enabled")]
    done = kit.count("products", *where, cond("stock", ref("slot.amount")), value=len(targets))
    return _task(ctx, "restock_low", "filter_write", "mutate",
                 ["Set the stock of every enabled {category} product with fewer than {limit} units to {amount}.",
                  "Restock: each enabled product in {category} that has less than {limit} in stock should have "
                  "{amount}. Leave every other product alone.",
                  "In the {category} category, bring all enabled products with under {limit} units up to a stock "
                  "of {amount}."],
                 {"category": ctx.data.categories[cat - 1], "limit": limit, "amount": amount}, plan,
                 user=ctx.staff()["username"], start_logged_in=True, credentials="profile",
                 goal=[kit.exists("products", *where, cond("stock", ref("slot.limit"), "<"), negate=True), done],
                 progress=[{"description": f"{n} of the products restocked", "predicate": kit.count(
                     "products", *where, cond("stock", ref("slot.amount")), op=">=", value=n)}
                           for n in range(1, len(targets) + 1)],
                 footprint=[{"table": "products", "where": [*where, cond("stock", ref("slot.limit"), "<")],
                             "columns": ["stock"], "ops": ["update"]}])


def _order_status(ctx: _Ctx) -> TaskDraft | None:
    """Mark a customer's processing order from a given day as shipped (multi-step, through the customer)."""
    rng = ctx.rng
    candidates = []
    for order in ctx.data.orders:
        if order["status"] != "processing" or order["customer_id"] in ctx.used_customers:
            continue
        same_day = [o for o in ctx.data.orders_of[order["customer_id"]] if o["created"] == order["created"]]
        if len(same_day) == 1:
            candidates.append(order)
    if not candidates:
        return None
    order = rng.choice(candidates)
    customer = ctx.data.customer[order["customer_id"]]
    ctx.used_customers.add(customer["id"])
    ctx.used_orders.add(order["id"])
    plan = (ctx.open_customer(customer) + ctx.order_from_customer(customer, order) + ctx.order_part("manage")
            + [("select", ctx.w["order_status"], "Shipped"), ("click", "button", ctx.w["update_status"])])
    phrasings, slots, plan, user = _as_user(ctx, [
        "{customer}'s order from {day} has left the warehouse: mark it as shipped.",
        "Update the status of the order {customer} placed on {day} to Shipped.",
        "The order {customer} made on {day} was shipped today. Record that."],
        {"customer": customer["name"], "day": _nice_date(order["created"]), "date": order["created"]}, plan)
    oid = kit.scalar("orders", "id", cond("customer_id", _customer_id()), cond("created", ref("slot.date")))
    goal = kit.exists("orders", cond("id", oid), cond("status", "shipped"))
    return _task(ctx, "ship_order", "multi_step_write", "mutate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "the order's page is open", "predicate": kit.any_of(
                     kit.on_page("order", id=oid), goal)}, {"description": "the order is shipped", "predicate": goal}],
                 footprint=[{"table": "orders", "where": [cond("id", oid)], "columns": ["status"], "ops": ["update"]}])


def _refund_line(ctx: _Ctx) -> TaskDraft | None:
    """Refund one line of an order, and not a cent more (a write under a limit)."""
    rng = ctx.rng
    candidates = [o for o in ctx.data.orders if o["status"] in ("shipped", "complete") and o["refunded"] == 0
                  and len({i["product_id"] for i in ctx.data.lines_of[o["id"]]}) >= 2
                  and o["id"] not in ctx.used_orders]
    if not candidates:
        return None
    order = rng.choice(candidates)
    ctx.used_orders.add(order["id"])
    line = rng.choice(ctx.data.lines_of[order["id"]])
    product = ctx.data.product[line["product_id"]]
    amount = line["qty"] * line["price"]
    reason = ("select", ctx.w["reason"], "Damaged item") if ctx.st.reason_ui == "select" else (
        "fill", "textbox", ctx.w["reason"], "Damaged item")
    plan = (ctx.open_order(order) + ctx.order_part("refunds")
            + [("fill", "textbox", ctx.w["refund_amount"], f"{amount / 100:.2f}"), reason,
               ("click", "button", ctx.w["refund"])]
            + ([("click", "button", ctx.w["confirm"])] if ctx.st.confirm_refund else []))
    phrasings, slots, plan, user = _as_user(ctx, [
        "Order #{order} arrived with a damaged {product}. Refund that item's row total (reason: {reason}) and "
        "nothing more.",
        "Refund the {product} line of order #{order} as a {reason}. Refund exactly that line, no more.",
        "A customer got a broken {product} in order #{order}: issue a refund for that row only, reason {reason}."],
        {"order": order["id"], "product": product["name"], "reason": "damaged item"}, plan)
    line_total = kit.scalar("order_lines", "line_total", cond("order_id", ref("slot.order")),
                            cond("name", ref("slot.product")))
    # the reason the instruction states is checked (case-insensitively: the select's "Damaged item" or typed text)
    goal = kit.exists("refunds", cond("order_id", ref("slot.order")), cond("amount", line_total),
                      cond("reason", ref("slot.reason"), "contains"))
    return _task(ctx, "refund_line", "write_constraint", "mutate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "the order's page is open", "predicate": kit.any_of(
                     kit.on_page("order", id=ref("slot.order")), goal)},
                           {"description": "the line is refunded", "predicate": goal}],
                 constraints=[{"description": "more than the line was refunded", "predicate": kit.exists(
                     "orders", cond("id", ref("slot.order")), cond("refunded", line_total, ">"))}],
                 footprint=[{"table": "refunds", "where": [cond("order_id", ref("slot.order"))], "ops": ["insert"]},
                            {"table": "orders", "where": [cond("id", ref("slot.order"))], "columns": ["refunded"],
                             "ops": ["update"]}])


def _cancel_pending(ctx: _Ctx) -> TaskDraft | None:
    """Cancel every pending order of one customer (irreversible, one or two orders)."""
    rng = ctx.rng
    pending: dict[int, list[Row]] = {}
    for order in ctx.data.orders:
        if order["status"] == "pending" and order["customer_id"] not in ctx.used_customers:
            pending.setdefault(order["customer_id"], []).append(order)
    owners = [c for c, orders in sorted(pending.items()) if len(orders) <= 2]
    if not owners:
        return None
    customer = ctx.data.customer[rng.choice(owners)]
    targets = pending[customer["id"]]
    plan = ctx.open_customer(customer)
    for number, order in enumerate(targets):
        if number:
            plan.append(("click", "link", customer["name"]))
        plan += (ctx.order_from_customer(customer, order) + ctx.order_part("manage")
                 + [("click", "button", ctx.w["cancel_order"])]
                 + ([("click", "button", ctx.w["confirm"])] if ctx.st.confirm_cancel else []))
    if len(plan) > MAX_PLAN:
        return None
    ctx.used_customers.add(customer["id"])
    ctx.used_orders.update(o["id"] for o in targets)
    before = sum(1 for o in ctx.data.orders_of[customer["id"]] if o["status"] == "canceled")
    mine = cond("customer_id", _customer_id())
    return _task(ctx, "cancel_pending", "irreversible_multi", "mutate",
                 ["Cancel all of {customer}'s pending orders.", "{customer} asked us to cancel every order of theirs "
                  "that is still pending. Do it.", "Void each pending order placed by {customer}."],
                 {"customer": customer["name"]}, plan,
                 user=ctx.staff()["username"], start_logged_in=True, credentials="profile",
                 goal=[kit.exists("orders", mine, cond("status", "pending"), negate=True),
                       kit.count("orders", mine, cond("status", "canceled"), value=before + len(targets))],
                 progress=[{"description": f"{n} pending order(s) canceled", "predicate": kit.count(
                     "orders", mine, cond("status", "canceled"), op=">=", value=before + n)}
                           for n in range(1, len(targets) + 1)],
                 footprint=[{"table": "orders", "where": [mine, cond("status", "pending")], "columns": ["status"],
                             "ops": ["update"]}])


def _customer_group(ctx: _Ctx) -> TaskDraft | None:
    """Move a customer to another group, logging in with credentials from the instruction."""
    rng = ctx.rng
    customer = rng.choice([c for c in ctx.data.customers if c["id"] not in ctx.used_customers])
    ctx.used_customers.add(customer["id"])
    group = rng.choice([g for g in GROUPS if g != customer["customer_group"]])
    user = ctx.staff(anyone=True)
    plan = (login_plan(ctx.st.labels, user["username"], user["password"], via_link=False)[1:]
            + ctx.open_customer(customer) + ctx.customer_tab("account")
            + [("select", ctx.w["group"], group), ("click", "button", ctx.w["save"])])
    goal = kit.exists("customers", cond("name", ref("slot.customer")), cond("customer_group", ref("slot.group")))
    return _task(ctx, "customer_group", "login_write", "mutate",
                 [phrase_with_login(prefix, lower, ["Move {customer} to the {group} customer group."])[0]
                  for prefix, lower in ADMIN_PREFIXES[:2]]
                 + ["Use the staff account {username} (password {password}) to put {customer} in the {group} group."],
                 {"username": user["username"], "password": user["password"], "customer": customer["name"],
                  "group": group}, plan, user=user["username"], credentials="instruction", goal=[goal],
                 progress=[{"description": "logged in and on the customer's page", "predicate": kit.any_of(
                     kit.on_page("customer", id=_customer_id()), goal)},
                           {"description": "the customer's group is changed", "predicate": goal}],
                 footprint=[{"table": "customers", "where": [cond("name", ref("slot.customer"))],
                             "columns": ["customer_group"], "ops": ["update"]}])


def _create_coupon(ctx: _Ctx) -> TaskDraft | None:
    """Create a coupon with a code, a discount and an expiry date (a form with a date field)."""
    rng = ctx.rng
    codes = {c["code"] for c in ctx.data.coupons}
    percent = rng.choice([10, 12, 15, 20, 35])
    code = next(c for c in (f"{rng.choice(WORDS).upper()}{percent}" for _ in range(50)) if c not in codes)
    expires = (TODAY + dt.timedelta(days=rng.randint(10, 120))).isoformat()
    plan = ctx.nav("coupons")
    if ctx.st.coupon_ui == "collapsible":
        plan.append(("click", "button", ctx.w["new_coupon"]))
    plan += [("fill", "textbox", ctx.w["coupon_code"], code), ("fill", "textbox", ctx.w["discount"], str(percent)),
             ("fill", "date", ctx.w["expires"], expires), ("click", "button", ctx.w["create_coupon"])]
    phrasings, slots, plan, user = _as_user(ctx, [
        "Create a coupon {code} for {percent}% off that expires on {day}.",
        "Set up a new discount code {code}: {percent} percent off, valid until {day}.",
        "Add the coupon code {code} giving {percent}% off, ending {day}."],
        {"code": code, "percent": percent, "day": _nice_date(expires), "date": expires}, plan)
    goal = kit.exists("coupons", cond("code", ref("slot.code")), cond("discount", ref("slot.percent")),
                      cond("expires", ref("slot.date")), cond("status", "active"))
    return _task(ctx, "create_coupon", "form_write", "mutate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "the coupon exists", "predicate": goal}],
                 constraints=[{"description": "a coupon with another code was created", "predicate": kit.count(
                     "coupons", op=">", value=len(ctx.data.coupons) + 1)}],
                 footprint=[{"table": "coupons", "where": [cond("code", ref("slot.code"))], "ops": ["insert"]}])


def _order_note(ctx: _Ctx) -> TaskDraft | None:
    """Add an internal comment to an order (a form with a text area)."""
    rng = ctx.rng
    order = rng.choice([o for o in ctx.data.orders if o["id"] not in ctx.used_orders])
    ctx.used_orders.add(order["id"])
    text = rng.choice(["Customer asked to deliver after 5 pm.", "Fragile: pack with extra padding.",
                       "Invoice sent by email.", "Gift: do not include the receipt."])
    plan = ctx.open_order(order) + ctx.order_part("notes") + [("fill", "textbox", ctx.w["comment"], text),
                                                              ("click", "button", ctx.w["add_note"])]
    phrasings, slots, plan, user = _as_user(ctx, [
        "Add the comment \"{text}\" to order #{order}.", "Leave an internal note on order #{order} saying: {text}",
        "On order #{order}, record the note \"{text}\""], {"order": order["id"], "text": text}, plan)
    goal = kit.exists("order_notes", cond("order_id", ref("slot.order")), cond("body", ref("slot.text")))
    return _task(ctx, "order_note", "form_write", "mutate", phrasings, slots, plan, **user, goal=[goal],
                 progress=[{"description": "the comment is on the order", "predicate": goal}],
                 footprint=[{"table": "order_notes", "where": [cond("order_id", ref("slot.order"))],
                             "ops": ["insert"]}])


def _infeasible(ctx: _Ctx) -> TaskDraft | None:
    """Something that does not exist in this back office, and that no form can create. The plan
    looks for it first (a filtered grid that comes back empty, or the list where it would be)."""
    rng = ctx.rng
    kind = rng.choice(["product", "customer", "order"])
    if kind == "product":
        names = {p["name"] for p in ctx.data.products}
        nouns = [n for c in ctx.data.categories for n in STORES[ctx.st.store][c]]
        drawn = (f"{rng.choice(COLOURS)} {rng.choice(STYLES)} {rng.choice(nouns)}" for _ in range(200))
        missing = next(n for n in drawn if n not in names)
        price = rng.randrange(1900, 9900, 100) - 1
        look = ctx.filter_products(q=missing) if rng.random() < 0.7 else ctx.nav("products")
        phrasings, slots, plan, user = _as_user(
            ctx, ["Change the price of the {product} to {price}.", "Set the {product}'s price to {price}."],
            {"product": missing, "price": _dollars(price)},
            look + [("infeasible", f"There is no product called {missing} in the catalog.")], chance=0.4)
        return _task(ctx, "missing_product", "infeasible_missing", "infeasible", phrasings, slots, plan, **user,
                     goal=[kit.exists("products", cond("name", ref("slot.product")), cond("price", price))])
    if kind == "customer":
        emails = {c["email"] for c in ctx.data.customers}
        first, last = person(rng)
        email = f"{first}.{last}@{rng.choice(EMAIL_DOMAINS)}".lower()
        if email in emails:
            email = f"{first}.{last}.{rng.randint(10, 99)}@{rng.choice(EMAIL_DOMAINS)}".lower()
        phrasings, slots, plan, user = _as_user(
            ctx, ["Move the customer with the email {email} to the VIP group.",
                  "Put the customer {email} in the VIP group."], {"email": email},
            ctx.nav("customers") + [("infeasible", f"No customer has the email address {email}.")], chance=0.4)
        return _task(ctx, "missing_customer", "infeasible_missing", "infeasible", phrasings, slots, plan, **user,
                     goal=[kit.exists("customers", cond("email", ref("slot.email")), cond("customer_group", "VIP"))])
    number = max(o["id"] for o in ctx.data.orders) + rng.randint(40, 900)
    look = (ctx.nav("orders") + ctx.open_filters()
            + [("fill", "textbox", ctx.w["order_number"], str(number)), ("click", "button", ctx.w["filter"])])
    phrasings, slots, plan, user = _as_user(
        ctx, ["Cancel order #{order}.", "Please void order #{order}.", "Mark order #{order} as shipped."],
        {"order": number}, look + [("infeasible", f"There is no order #{number}.")], chance=0.4)
    return _task(ctx, "missing_order", "infeasible_missing", "infeasible", phrasings, slots, plan, **user,
                 goal=[kit.exists("orders", cond("id", ref("slot.order")))])


FAMILIES = [_navigate_sorted, _navigate_order, _retrieve_lookup, _retrieve_revenue, _retrieve_top, _retrieve_customer,
            _refund_line, _order_status, _cancel_pending, _restock_low, _disable_products, _set_price, _customer_group]
SKIPPABLE = [_navigate_order, _retrieve_lookup, _retrieve_revenue, _retrieve_top, _retrieve_customer, _set_price,
             _order_status]
"""Two of these sit out on each site, so a site has 11 to 13 tasks."""


def _tasks(ctx: _Ctx) -> list[TaskDraft]:
    skipped = ctx.rng.sample(SKIPPABLE, 2)
    out = [task for family in FAMILIES if family not in skipped and (task := family(ctx)) is not None]
    if ctx.st.has_coupons:
        extra = _create_coupon(ctx)
    elif ctx.st.has_notes:
        extra = _order_note(ctx)
    else:
        extra = None
    if extra is not None:
        out.append(extra)
    infeasible = _infeasible(ctx)
    assert infeasible is not None
    out.append(infeasible)
    chrome = ctx.st.chrome
    assert chrome is not None
    home = [("click", "link", ctx.st.site_name), ("goto", "/")]
    return start_elsewhere(ctx, out, [p["route"] for p in chrome.pages], home, chance=0.4,
                           fits=lambda plan: len(plan) + 2 <= MAX_PLAN)
