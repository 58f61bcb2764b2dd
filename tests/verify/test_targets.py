"""What the search reads from a task's own spec: the rows its footprint lets it write, the values its goal sets."""

from __future__ import annotations

from veriweb.engine import Episode, Session
from veriweb.generate.site import generate_site
from veriweb.scaffold import Site
from veriweb.verify import solve
from veriweb.verify.relevance import Hints
from veriweb.verify.targets import frozen_columns, goal_computed, goal_values, rival_names, target_names


def _site_with(domain: str, task_id: str, *, seeds: int = 12) -> Site:
    """The first generated site (seeds 0, 1, ...) with a task of this id."""
    site = next((s for s in (generate_site(domain, seed) for seed in range(seeds)) if s.task(task_id)), None)
    assert site is not None, f"no {domain} site among seeds 0-{seeds - 1} has a task {task_id!r}"
    return site


def _hints(domain: str, task_id: str) -> tuple[Hints, Episode]:
    site = _site_with(domain, task_id)
    task = site.task(task_id)
    episode = Episode(site, task, session=Session(site))
    episode.reset()
    return Hints.build(site, task, episode.session, episode.judge.context()), episode


def test_targets_are_the_rows_a_filter_footprint_allows_and_follow_the_database() -> None:
    hints, episode = _hints("admin", "restock_low")  # Bedding, enabled, fewer than 3 in stock
    site, task, session = episode.site, episode.task, episode.session
    rows = session.db.guard.engine(
        "SELECT p.name, p.sku, p.id FROM products p JOIN categories c ON c.id = p.category_id "
        "WHERE c.name = ? AND p.status = 'enabled' AND p.stock < ?", (task.slots["category"], task.slots["limit"])
    ).fetchall()
    assert rows and len(rows) < 10
    expected = {str(v).casefold() for name, sku, _ in rows for v in (name, sku)}
    assert set(hints.targets) == expected
    assert "bedding" not in hints.targets  # shared by every product of the category: names none
    # Restock one of them: it is no longer a target once the database says it holds what the goal wants.
    name, _, row_id = rows[0]
    session.db.conn.execute("UPDATE products SET stock = ? WHERE id = ?", (task.slots["amount"], row_id))
    session.version = "restocked-one"
    hints.follow(session)
    assert name.casefold() not in hints.targets and len(hints.targets) == len(expected) - 2
    assert target_names(site, task, session, episode.judge.context()) == hints.targets


def test_goal_values_say_which_slot_or_literal_a_column_must_hold() -> None:
    site = _site_with("admin", "restock_low")
    slots, literals = goal_values(site.task("restock_low"))
    assert slots == {"stock": {"amount"}} and literals == {"status": {"enabled"}}
    assert frozen_columns(site, site.task("restock_low"))["products"] >= {"price", "status"}
    assert "stock" not in frozen_columns(site, site.task("restock_low"))["products"]
    site = _site_with("admin", "disable_products")
    slots, literals = goal_values(site.task("disable_products"))
    assert literals == {"status": {"disabled"}}



def test_a_compared_column_and_a_flag_are_goal_values_and_the_on_option_is_found() -> None:
    """auto_reply's goal compares the user's row: ``vacation = true`` and ``vacation_message = :text``.
    Both are values the goal wants, a flag in the forms a form writes it ("On" whose value is 1), so
    the search chooses "On" without trying every field of the settings form first."""
    site = _site_with("mail", "auto_reply")
    task = site.task("auto_reply")
    slots, literals = goal_values(task)
    assert slots == {"vacation_message": {"text"}}
    assert literals == {"vacation": {"true", "1", "on", "yes"}}
    result = solve(site, task, budget=300)
    assert result.status == "solved"
    assert any(a.startswith("select_option(") and "'On'" in a for a in result.actions)

def test_a_computed_goal_value_is_typed_where_the_page_shows_it() -> None:
    hints, episode = _hints("admin", "refund_line")
    computed = goal_computed(episode.site, episode.task, episode.session, episode.judge.context())
    assert list(computed) == ["amount"] and len(computed["amount"]) == 1  # money: cents shown as dollars
    amount = next(iter(computed["amount"]))
    assert hints.computed == computed and amount.count(".") == 1 and len(amount.split(".")[1]) == 2
    result = solve(episode.site, episode.task.model_copy(update={"certificate": []}), budget=2_000)
    assert result.status == "solved" and any(amount in action for action in result.actions), result


def test_rivals_are_the_other_values_of_the_columns_the_task_names_things_in() -> None:
    site = _site_with("code", "create_issue")
    task = site.task("create_issue")  # names a project by its path, and a new issue's title
    session = Session(site)
    paths = {row[0].casefold() for row in session.db.guard.engine("SELECT path FROM projects").fetchall()}
    project = str(task.slots["project"]).casefold()
    rivals = rival_names(site, session, [project, str(task.slots["title"]).casefold()])
    assert project in paths and project not in rivals
    assert paths - {project} <= rivals  # the other projects
    assert rival_names(site, session, []) == frozenset()


def test_a_goal_that_keeps_a_value_under_the_task_s_bound_is_capped_from_above() -> None:
    from veriweb.verify.targets import caps_from_above

    travel = generate_site("travel", 1)
    assert caps_from_above(travel.task("hotel_budget"))  # total <= :budget
    assert not caps_from_above(travel.task("cancel_flight_login"))
    # No row left under a bound (a negated query) is no wish for cheap things.
    restock = _site_with("admin", "restock_low").task("restock_low")
    assert restock is not None and not caps_from_above(restock)
    hints, _ = _hints("travel", "hotel_budget")
    assert hints.capped


def test_an_option_that_starts_with_the_number_its_field_s_slot_holds_is_the_one() -> None:
    """'3 stars or more' for a slot stars = 3, even when another slot (guests) holds 3 too."""
    hints, episode = _hints("travel", "hotel_budget")
    slots = {k: v for k, v in episode.task.slots.items() if k not in ("guests", "stars")}
    hints.task = episode.task.model_copy(update={"slots": {**slots, "guests": 3, "stars": 3}})
    hints.values = [str(v) for v in dict.fromkeys(hints.task.slots.values())]
    hints.slot_names = [next(n for n, v in hints.task.slots.items() if str(v) == text) for text in hints.values]
    assert "stars" not in hints.slot_names  # its value is guests' too: one name per value
    from veriweb.engine.page import Node

    field = Node(role="combobox", name="Minimum stars", behaviour=("field", "filters", "stars"))
    costs = {label: hints._option_cost_of(Node(role="option", name=label, value=label[:1]), field, False)
             for label in ("3 stars or more", "4 stars or more", "5 stars")}
    assert costs["3 stars or more"] == 0 and min(costs["4 stars or more"], costs["5 stars"]) > 0, costs


def test_a_list_page_that_shows_none_of_the_rows_still_to_write_is_read_on() -> None:
    """restock_low: the catalog's next page is cheap while this page shows none of the targets, and
    the same link costs what it did before once it does."""
    hints, episode = _hints("admin", "restock_low")
    session = episode.session
    assert hints.targets
    costs = {}
    for number in range(1, 30):
        result = session.step(f"goto('/products?products_page={number}')")
        assert result.error is None
        page = session.page()
        nexts = [n for n in page.nodes if n.role == "link" and n.href and "products_page=" in n.href
                 and f"products_page={number + 1}" in n.href]
        if not nexts:
            break
        shows = any(name in hints._shown(page) for name in hints.targets)
        cost = next(c for c, a, _ in hints.actions(page, session) if a == f"click('{nexts[0].bid}')")
        costs[number] = (shows, cost)
    assert any(not shows for shows, _ in costs.values()) and any(shows for shows, _ in costs.values()), costs
    assert all(cost == 1 for shows, cost in costs.values() if not shows), costs
    assert all(cost > 1 for shows, cost in costs.values() if shows), costs
