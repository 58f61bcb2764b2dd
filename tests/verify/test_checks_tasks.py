"""S016, M016 and C012 (:mod:`veriweb.verify.checks_tasks`): each with a scaffold that has the
defect and one that does not, and silence on clean generated sites of every domain."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from veriweb.generate.site import generate_site
from veriweb.scaffold.io import from_data, to_data
from veriweb.verify.checks import CHECKS, static_issues
from veriweb.verify.checks_tasks import TASK_CHECKS, check_seed_invariants, check_slot_agreement, check_task_addresses

DOMAINS = ("shop", "admin", "forum", "code", "travel", "mail")


@pytest.fixture(scope="module")
def shop() -> dict[str, Any]:
    return to_data(generate_site("shop", 1))


def _site(data: dict[str, Any]) -> Any:
    return from_data(data, check_id=False)


@pytest.mark.parametrize("domain", DOMAINS)
def test_clean_sites_are_silent(domain: str) -> None:
    for seed in (0, 6):
        site = generate_site(domain, seed)
        assert [i for check in TASK_CHECKS for i in check(site)] == []


def test_codes_are_registered_and_run_with_the_static_checks(shop: dict[str, Any]) -> None:
    assert {"S016", "M016", "C012"} <= set(CHECKS)
    data = copy.deepcopy(shop)
    data["tasks"][0]["start_url"] = "/wlecome"
    assert any(i.code == "S016" for i in static_issues(_site(data)))


def test_start_address_no_page_serves(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    data["tasks"][2]["start_url"] = "/cart-page"
    found = check_task_addresses(_site(data))
    assert [(i.code, i.location) for i in found] == [("S016", "$.tasks[2].start_url")]
    ok = copy.deepcopy(shop)
    ok["tasks"][2]["start_url"] = "/cart?from=mail"  # a query string does not change the page
    assert check_task_addresses(_site(ok)) == []


def test_goal_waits_for_a_missing_page(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    number, index = next((n, i) for n, t in enumerate(data["tasks"]) for i, g in enumerate(t["goal"])
                         if g.get("kind") == "page")
    data["tasks"][number]["goal"][index]["page"] = "product_view"
    found = check_task_addresses(_site(data))
    assert [i.location for i in found] == [f"$.tasks[{number}].goal[{index}].page"]
    assert "product_view" in found[0].message


def test_task_user_with_no_account(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    number = next(n for n, t in enumerate(data["tasks"]) if t.get("user"))
    data["tasks"][number]["user"] += "_old"
    found = check_task_addresses(_site(data))
    assert [(i.code, i.location) for i in found] == [("S016", f"$.tasks[{number}].user")]


def _sized_task(data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return next((n, t) for n, t in enumerate(data["tasks"])
                if "size" in t["slots"] and any("size = '" in g.get("sql", "") for g in t["goal"]))


def test_instruction_and_goal_disagree(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    number, task = _sized_task(data)
    old = task["slots"]["size"]
    task["slots"]["size"] = "XS" if old != "XS" else "XL"
    task["instruction"] = task["template"].format(**task["slots"])
    found = check_slot_agreement(_site(data))
    assert [(i.code, i.location) for i in found] == [("M016", f"$.tasks[{number}].slots.size")]
    assert repr(old) in found[0].message
    # the same task with the goal following the instruction is fine
    fixed = copy.deepcopy(data)
    for goal in fixed["tasks"][number]["goal"]:
        if "sql" in goal:
            goal["sql"] = goal["sql"].replace(f"size = '{old}'", f"size = '{task['slots']['size']}'")
    assert check_slot_agreement(_site(fixed)) == []


def test_seed_row_breaks_a_marker_invariant(shop: dict[str, Any]) -> None:
    data = copy.deepcopy(shop)
    t_index = next(i for i, t in enumerate(data["database"]["tables"]) if t["name"] == "products")
    data["database"]["tables"][t_index]["rows"][7]["stock"] = -4
    found = check_seed_invariants(_site(data))
    assert found and {i.code for i in found} == {"C012"}
    assert f"$.database.tables[{t_index}].rows[7]" in {i.location for i in found}
    ok = copy.deepcopy(shop)
    ok["database"]["tables"][t_index]["rows"][7]["stock"] = 0  # empty, not impossible
    assert check_seed_invariants(_site(ok)) == []


def test_invariant_per_account_names_the_user() -> None:
    data = to_data(generate_site("shop", 1))
    cart = next(i for i, t in enumerate(data["database"]["tables"]) if t["name"] == "cart_items")
    rows = data["database"]["tables"][cart]["rows"]
    assert rows, "the shop's seed carts are not empty"
    rows[0]["qty"] = 11  # add_to_cart keeps every line at 10 or fewer for the user who adds
    found = check_seed_invariants(_site(data))
    assert any(i.code == "C012" and f"user {rows[0]['user_id']!r}" in i.message for i in found)


@pytest.mark.parametrize("written", ["iso", "words"])
def test_an_instruction_stating_another_day_than_its_goal_reads(written: str) -> None:
    """M016: the flight's day is stated as ``date`` and judged as ``day``; the two disagree. The repair
    states the goal's day, written as the instruction writes days. Twins: the same day stated, and a
    round trip that states both of its days."""
    from veriweb.verify.checks_tasks import check_stated_days
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("travel", 0))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if t["id"] == "open_flight")
    number = data["tasks"].index(task)
    assert check_stated_days(_site(data)) == []
    day = task["slots"]["day"]
    from veriweb.scaffold.site import render_instruction

    if written == "iso":
        task["slots"]["date"] = day
        task["instruction"] = render_instruction(task["template"], task["slots"])
        assert check_stated_days(_site(data)) == []  # the same day in the other form: clean
    year, month, date = day.split("-")
    other = f"{year}-{month}-{int(date) % 28 + 1:02d}"
    from veriweb.verify.checks_tasks import written_like

    task["slots"]["date"] = written_like(other, task["slots"]["date"])
    task["instruction"] = render_instruction(task["template"], task["slots"])
    issues = check_stated_days(_site(data))
    assert [(i.code, i.location) for i in issues] == [("M016", f"$.tasks[{number}].slots.date")]
    fixed, log, _, _, _ = repair_static(_site(data))
    task = next(t for t in to_data(fixed)["tasks"] if t["id"] == "open_flight")
    assert [r.operator for r in log if r.code == "M016"] == ["restate_slot"]
    assert task["slots"]["date"] == written_like(day, task["slots"]["date"]) and task["slots"]["day"] == day
    assert task["slots"]["date"] in task["instruction"]


def _order_a_day_off() -> tuple[dict[str, Any], int]:
    """Admin site 0 whose ``open_customer_order`` states the day after the order's ("November 7, 2025"
    for an order of 2025-11-06: set nine wrote it so)."""
    import datetime as dt

    from veriweb.scaffold.site import render_instruction

    data = to_data(generate_site("admin", 0))
    data.pop("id", None)
    number = next(n for n, t in enumerate(data["tasks"]) if t["id"] == "open_customer_order")
    task = data["tasks"][number]
    after = dt.date.fromisoformat(task["slots"]["date"]) + dt.timedelta(days=1)
    assert task["slots"]["day"].endswith(f", {after.year}")  # "November 6, 2025": a day with its year
    task["slots"]["day"] = f"{after:%B} {after.day}, {after.year}"
    task["instruction"] = render_instruction(task["template"], task["slots"])
    return data, number


def test_a_day_written_with_its_year_is_stated_again_with_its_year() -> None:
    """M016 (set nine): the repair writes the goal's day the way the slot writes days, year included
    (it knew only "June 16", "16 June" and ISO, gave up, and the whole site was dropped)."""
    from veriweb.verify.repair import repair_static

    data, number = _order_a_day_off()
    fixed, log, _, left, _ = repair_static(_site(data))
    task = to_data(fixed)["tasks"][number]
    assert [r.operator for r in log] == ["restate_slot"] and left == []
    assert task["slots"]["day"] == "November 6, 2025" and "November 6, 2025" in task["instruction"]


def test_a_task_issue_its_operator_cannot_fix_drops_the_task_not_the_site(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the operator of a task's issue gives up (here: no way known of writing the day), the task is
    dropped and the issue is gone: nothing is left to drop the site for."""
    import veriweb.verify.checks_tasks as checks_tasks
    from veriweb.verify.repair import repair_static

    def unknown(day: str, example: str, today: Any = None) -> str:
        raise ValueError(f"no known way of writing a day like {example!r}")

    monkeypatch.setattr(checks_tasks, "written_like", unknown)
    data, number = _order_a_day_off()
    fixed, log, _, left, _ = repair_static(_site(data))
    assert left == [] and [r.operator for r in log] == ["drop_task"]
    assert "open_customer_order" not in [t.id for t in fixed.tasks] and len(fixed.tasks) == len(data["tasks"]) - 1


@pytest.mark.parametrize("key", ["2026-04", "2025-12"])
def test_a_month_stated_in_words_and_read_as_another_iso_month(key: str) -> None:
    """M016 (set nine): "the gross revenue for March 2026" while the answer reads the month key
    "2026-04" (or a month of another year): the repair states the month the answer reads, as the slot
    writes months. Twin: the key of the month stated is clean."""
    from veriweb.scaffold.site import render_instruction
    from veriweb.verify.checks_tasks import check_stated_months
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("admin", 0))
    data.pop("id", None)
    number = next(n for n, t in enumerate(data["tasks"]) if t["id"] == "month_revenue")
    task = data["tasks"][number]
    assert (task["slots"]["key"], task["slots"]["month"]) == ("2026-03", "March 2026")
    assert check_stated_months(_site(data)) == []
    task["slots"]["key"] = key
    issues = check_stated_months(_site(data))
    assert [(i.code, i.location) for i in issues] == [("M016", f"$.tasks[{number}].slots.month")]
    fixed, log, _, left, _ = repair_static(_site(data))
    task = to_data(fixed)["tasks"][number]
    assert [r.operator for r in log] == ["restate_slot"] and left == []
    want = {"2026-04": "April 2026", "2025-12": "December 2025"}[key]
    assert task["slots"]["month"] == want and want in task["instruction"]
    assert task["instruction"] == render_instruction(task["template"], task["slots"])


ASKS = [  # (domain, seed, task, the answer's field, the wrong value, the right one)
    ("mail", 0, "bills_total", "agg", "max", "sum"),        # "What do the bills ... add up to?"
    ("forum", 0, "asking_price", "select", "score", "price"),  # "Tell me the price on the listing": a score read
    ("code", 27, "assignee_of", "select", "author", "assignee"),  # "which person is the assignee"
]


@pytest.mark.parametrize("domain, seed, task_id, field, wrong, right", ASKS, ids=[a[2] for a in ASKS])
def test_an_answer_reading_another_figure_than_asked(domain: str, seed: int, task_id: str, field: str,
                                                    wrong: str, right: str) -> None:
    """M017 (set nine): the answer takes the largest bill where the instruction asks what they add up
    to, reads a post's score for its price, the author for the assignee. The repair sets what the
    instruction asks for. Twin: the unedited task (and every clean site in the other tests) is silent."""
    from veriweb.verify.checks_tasks import check_answer_asks
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site(domain, seed))
    data.pop("id", None)
    number = next(n for n, t in enumerate(data["tasks"]) if t["id"] == task_id)
    query = data["tasks"][number]["answer"]["value"]["query"]
    assert query.get(field) == right and check_answer_asks(_site(data)) == []
    query[field] = wrong
    issues = check_answer_asks(_site(data))
    assert [(i.code, i.location) for i in issues] == [("M017", f"$.tasks[{number}].answer.value.query.{field}")]
    fixed, log, _, left, _ = repair_static(_site(data))
    assert [r.operator for r in log] == ["reread_answer"] and left == []
    assert to_data(fixed)["tasks"][number]["answer"]["value"]["query"][field] == right


def test_a_template_writing_out_another_records_name_gets_its_slot_back() -> None:
    """M016: the comment task's template names another issue where ``{title}`` belongs; the repair puts
    the slot back. A twin: a template that writes out its own record's name stays clean."""
    from veriweb.scaffold.site import render_instruction
    from veriweb.verify.checks_tasks import check_literal_names
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("code", 0))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if "{title}" in t["template"] and len(t["slots"]["title"].split()) >= 3)
    number = data["tasks"].index(task)
    issues_table = next(t for t in data["database"]["tables"] if t["name"] == "issues")
    other = next(r["title"] for r in issues_table["rows"] if r["title"] != task["slots"]["title"]
                 and len(r["title"].split()) >= 3)
    template = task["template"]
    task["template"] = template.replace("{title}", task["slots"]["title"])
    task["instruction"] = render_instruction(task["template"], task["slots"])
    assert check_literal_names(_site(data)) == []  # its own record's name, written out: clean
    task["template"] = template.replace("{title}", other)
    task["instruction"] = render_instruction(task["template"], task["slots"])
    issues = check_literal_names(_site(data))
    assert [(i.code, i.location) for i in issues] == [("M016", f"$.tasks[{number}].template")]
    fixed, _, _, _, _ = repair_static(_site(data))
    assert next(t for t in to_data(fixed)["tasks"] if t["id"] == task["id"])["template"] == template


def test_a_template_naming_a_near_miss_of_its_slot_gets_the_slot_back() -> None:
    from veriweb.scaffold.site import render_instruction
    from veriweb.verify.checks_tasks import check_literal_names
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("code", 0))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if "{title}" in t["template"] and len(t["slots"]["title"].split()) >= 3)
    template, words = task["template"], task["slots"]["title"].split()
    task["template"] = template.replace("{title}", " ".join([*words[:-1], "Zebra"]))
    task["instruction"] = render_instruction(task["template"], task["slots"])
    issues = check_literal_names(_site(data))
    assert len(issues) == 1 and "one word off it" in issues[0].message
    fixed, _, _, _, _ = repair_static(_site(data))
    assert next(t for t in to_data(fixed)["tasks"] if t["id"] == task["id"])["template"] == template


def test_an_instruction_stating_another_month_than_the_record_its_answer_reads() -> None:
    """M016 (set eight): "How much was your bill for March?" while the answer reads the bill whose
    subject says April: the agent is asked for one record and judged on another. The twin, the same
    month stated, stays clean; with nothing to tell which side is right, the repair drops the task."""
    from veriweb.scaffold.site import render_instruction
    from veriweb.verify.checks_tasks import check_stated_months
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("mail", 4))
    data.pop("id", None)
    task = next(t for t in data["tasks"] if t["id"] == "bill_amount")
    number = data["tasks"].index(task)
    assert task["slots"]["month"] in task["slots"]["subject"]
    assert check_stated_months(_site(data)) == []
    task["slots"]["month"] = "April"
    task["instruction"] = render_instruction(task["template"], task["slots"])
    issues = check_stated_months(_site(data))
    assert [(i.code, i.location) for i in issues] == [("M016", f"$.tasks[{number}].slots.month")]
    assert "names march and not april" in issues[0].message
    fixed, log, _, _, _ = repair_static(_site(data))
    assert "bill_amount" not in [t.id for t in fixed.tasks]


@pytest.mark.parametrize("function, alias", [("max", "revenue"), ("avg", "net")])
def test_a_figure_computed_with_another_function_than_its_name_says(function: str, alias: str) -> None:
    """C013 (set nine): the month's ``revenue`` (or ``net``) computed with max (avg) of the orders, not
    their sum. The repair puts sum back. Twin: the unedited view."""
    from veriweb.verify.checks_views import check_view_figures
    from veriweb.verify.repair import repair_static

    data = to_data(generate_site("admin", 0))
    data.pop("id", None)
    number, view = next((n, v) for n, v in enumerate(data["database"]["views"]) if v["name"] == "revenue_month")
    assert check_view_figures(_site(data)) == []
    unedited = view["sql"]
    item = next(i for i in re.findall(r"coalesce\(sum\([^)]*\), 0\) AS (\w+)", unedited) if i == alias)
    view["sql"] = re.sub(rf"coalesce\(sum\(([^)]*)\), 0\) AS {item}\b", rf"coalesce({function}(\1), 0) AS {item}", unedited)
    issues = check_view_figures(_site(data))
    assert [(i.code, i.location) for i in issues] == [("C013", f"$.database.views[{number}].sql")]
    fixed, _, _, left, _ = repair_static(_site(data))
    assert left == [] and to_data(fixed)["database"]["views"][number]["sql"] == unedited
