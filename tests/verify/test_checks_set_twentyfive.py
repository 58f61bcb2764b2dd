"""Checks asked for by what the twenty-fourth hand-made set left missed or shipped, and by the twenty-fifth
set (held out: its cases were written by someone who read neither the checks nor these tests). Each defect
is planted in a generated site (seed 0 of its domain), the clean site is its twin (the check says nothing
there), and the repair is run.
"""

from __future__ import annotations

import json

from jsonwalk import dicts, edited as _edited, said as _said  # tests/verify/jsonwalk.py

from veriweb.engine import Episode
from veriweb.verify.repair import repair_static


def _view(data: dict, name: str) -> dict:
    return next(v for v in data["database"]["views"] if v["name"] == name)


def _marker(data: dict, name: str) -> dict:
    return next(m for m in data["markers"] if m["name"] == name)


# ----------------------------------------------------------------------------- views


def test_a_stored_state_overridden_by_another_column_in_a_view_is_found_and_passed_through() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "catalog")
        view["sql"] = view["sql"].replace("p.status AS status",
                                          "CASE WHEN p.stock = 0 THEN 'disabled' ELSE p.status END AS status")
    clean, site = _edited("admin", edit)
    assert not _said(clean, "C013", "one of products.status's own values")
    assert _said(site, "C013", "status writes 'disabled', one of products.status's own values, whenever p.stock = 0")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C013", "one of products.status's own values")
    assert "p.status AS status" in next(v.sql for v in fixed.database.views if v.name == "catalog")


def test_a_view_wording_its_own_column_is_not_an_override() -> None:
    def edit(data: dict) -> None:  # the test reads the column itself: a wording, not another state
        view = _view(data, "catalog")
        view["sql"] = view["sql"].replace("p.status AS status",
                                          "CASE WHEN p.status = 'enabled' THEN 'enabled' ELSE p.status END AS status")
    _, site = _edited("admin", edit)
    assert not _said(site, "C013", "one of products.status's own values")


# ----------------------------------------------------------------------------- markers


def test_a_checkout_that_never_empties_the_cart_is_found_and_made_to() -> None:
    def edit(data: dict) -> None:
        marker = _marker(data, "place_order")
        marker["effects"] = [e for e in marker["effects"] if e["op"] != "delete"]
    clean, site = _edited("shop", edit)
    assert not _said(clean, "C013", "never empties")
    assert _said(site, "C013", "marker 'place_order' copies the user's cart_items rows into a new record but never "
                               "empties cart_items")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C013", "never empties")
    effects = fixed.marker("place_order").effects
    assert (effects[-1].op, effects[-1].table) == ("delete", "cart_items")
    task = fixed.task("checkout_cart")  # the repaired checkout still does what its task asks, and empties the cart
    episode = Episode(fixed, task.id)
    episode.reset()
    for action in task.certificate:
        outcome = episode.step(action)
    assert outcome.success
    user = episode.session.user_row()["id"]
    assert episode.session.db.conn.execute("SELECT count(*) FROM cart_items WHERE user_id = ?", (user,)).fetchone()[0] == 0


def test_an_unread_count_that_also_tests_the_star_is_found_and_the_extra_test_dropped() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "folder_view")
        view["sql"] = view["sql"].replace("e.folder_id = f.id AND e.read = 0", "e.folder_id = f.id AND e.read = 0 AND e.starred = 0")
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C013", "which its name does not say")
    assert _said(site, "C013", "unread counts only the emails rows where e.starred = 0 too, which its name does not say")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C013", "which its name does not say")
    assert "starred" not in next(v.sql for v in fixed.database.views if v.name == "folder_view")


def test_a_count_named_for_both_of_its_flags_is_not_narrowed() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "folder_view")
        view["sql"] = view["sql"].replace(
            "e.folder_id = f.id AND e.read = 0) AS unread",
            "e.folder_id = f.id AND e.read = 0 AND e.starred = 1) AS unread_starred")
    _, site = _edited("mail", edit)
    assert not _said(site, "C013", "which its name does not say")


def test_a_send_that_stores_only_the_first_recipient_is_found_and_stores_them_all() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "send_email")["effects"][0]
        effect["sql"] = effect["sql"].replace("u.email, :to,", "u.email, trim(substr(:to, 1, instr(:to || ',', ',') - 1)),")
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C013", "stores only a piece of")
    assert _said(site, "C013", "marker 'send_email' stores only a piece of :to in recipients")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C013", "stores only a piece of")
    assert "u.email, :to," in fixed.marker("send_email").effects[0].sql


def test_a_preview_cut_from_a_text_stored_whole_is_not_a_clipped_write() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "send_email")["effects"][0]
        effect["sql"] = effect["sql"].replace("coalesce(:cc, '')", "substr(:subject, 1, 20)")
    _, site = _edited("mail", edit)  # the subject is stored whole too: a piece beside it is a choice
    assert not _said(site, "C013", "stores only a piece of")


# ----------------------------------------------------------------------------- pages


def test_a_list_offering_rows_its_booking_refuses_is_found_and_made_as_strict() -> None:
    def edit(data: dict) -> None:
        page = next(p for p in data["pages"] if p["id"] == "flights")
        for cond in page["elements"][3]["query"]["where"]:
            if cond["column"] == "date" and cond.get("op") == ">":
                cond["op"] = ">="
    clean, site = _edited("travel", edit)
    assert not _said(clean, "C008", "every attempt on one is refused")
    assert _said(site, "C008", "the list keeps rows with date >= today, but marker 'book_flight', which its rows' page "
                               "runs, refuses any row unless date > today")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C008", "every attempt on one is refused")
    flights = next(p for p in fixed.pages if p.id == "flights")
    assert [c.op for c in flights.elements[3].query.where if c.column == "date"][0] == ">"


# ----------------------------------------------------------------------------- tasks


def _task(data: dict, task_id: str) -> dict:
    return next(t for t in data["tasks"] if t["id"] == task_id)


def _without_flair(data: dict) -> None:
    """The forum as a site without flairs: its post form stores none, and create_post's instruction asks none."""
    from veriweb.scaffold.site import render_instruction

    marker = _marker(data, "create_post")
    marker["effects"][0]["sql"] = marker["effects"][0]["sql"].replace(":body, :now, 1, :flair,", ":body, :now, 1, NULL,")
    marker["params"] = [p for p in marker["params"] if p["name"] != "flair"]
    for page in data["pages"]:
        for form in (e for e in dicts(page) if e.get("type") == "form" and e.get("action", {}).get("marker") == "create_post"):
            form["fields"] = [f for f in form["fields"] if f.get("name") != "flair"]
            form["action"].get("args", {}).pop("flair", None)
    task = _task(data, "create_post")
    task["template"] = task["template"].replace(", flaired {flair}.", ".")
    task["slots"].pop("flair")
    task["instruction"] = render_instruction(task["template"], task["slots"])
    task["goal"][0]["query"]["where"] = [c for c in task["goal"][0]["query"]["where"] if c["column"] != "flair"]


def test_a_goal_value_nothing_can_write_is_found_and_dropped_from_the_goal_when_unasked() -> None:
    def edit(data: dict) -> None:
        _without_flair(data)
        _task(data, "create_post")["goal"][0]["query"]["where"].append(
            {"column": "flair", "op": "=", "value": "Meta"})  # a flair no post has
    clean, site = _edited("forum", edit)
    assert not _said(clean, "M007", "the goal can never hold")
    assert _said(site, "M007", "task 'create_post' needs a posts row with flair = 'Meta', but no form writes a "
                               "value into posts.flair and no row holds 'Meta'")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M007", "the goal can never hold")
    assert fixed.task("create_post") is not None
    assert all(c.column != "flair" for c in fixed.task("create_post").goal[0].query.where)


def test_a_goal_value_nothing_can_write_that_the_instruction_asks_drops_the_task() -> None:
    def edit(data: dict) -> None:
        task = _task(data, "create_post")
        kept = {key: json.loads(json.dumps(task[key])) for key in ("template", "instruction", "slots", "goal")}
        _without_flair(data)  # a site without flairs, and a task that still asks for one
        task.update(kept)
        for row in next(t for t in data["database"]["tables"] if t["name"] == "posts")["rows"]:
            row["flair"] = None
    _, site = _edited("forum", edit)  # "flaired Showcase", which nothing can write and no post holds
    assert _said(site, "M007", "task 'create_post' needs a posts row with flair = 'Showcase'")
    fixed, report = repair_static(site)[:2]
    assert fixed.task("create_post") is None


def test_a_goal_wanting_rows_gone_that_nothing_removes_drops_the_task() -> None:
    def edit(data: dict) -> None:
        _task(data, "purge_trashed")["goal"].append({"kind": "exists", "negate": True, "query": {
            "table": "folders", "where": [{"column": "user_id", "op": "=", "value": {"ref": "user.id"}},
                                          {"column": "kind", "op": "=", "value": "trash"}]}})
    clean, site = _edited("mail", edit)
    assert not _said(clean, "M007", "the goal holds from the start or never")
    assert _said(site, "M007", "task 'purge_trashed' needs no folders row to match, but no form deletes from folders "
                               "or changes kind, user_id")
    fixed = repair_static(site)[0]
    assert fixed.task("purge_trashed") is None


def test_a_footprint_entry_for_the_goals_rows_that_forbids_the_write_the_goal_needs_is_found_and_widened() -> None:
    def edit(data: dict) -> None:
        task = _task(data, "memberships")
        entry = next(e for e in task["footprint"] if e["table"] == "subscriptions")
        entry["ops"] = ["delete"]  # joining a community, allowed only to leave it
    clean, site = _edited("forum", edit)
    assert not _said(clean, "F011", "for those very rows")
    assert _said(site, "F011", "task 'memberships''s goal needs its rows made, but the footprint entry for those very "
                               "rows allows only delete")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "F011", "for those very rows")
    task = fixed.task("memberships")
    episode = Episode(fixed, task.id)
    episode.reset()
    for action in task.certificate:
        outcome = episode.step(action)
    assert outcome.success


def test_a_goal_wanting_other_users_rows_gone_is_found_and_kept_to_the_users_own() -> None:
    def edit(data: dict) -> None:
        task = _task(data, "delete_comment")
        for predicate in task["goal"] + [step["predicate"] for step in task["progress"]]:
            predicate["query"]["where"] = [c for c in predicate["query"]["where"] if c["column"] != "author_id"]
        notes = next(t for t in data["database"]["tables"] if t["name"] == "notes")["rows"]
        users = next(t for t in data["database"]["tables"] if t["name"] == "users")["rows"]
        mine = next(u["id"] for u in users if u["username"] == task["user"])
        note = next(n for n in notes if n["author_id"] == mine and n["body"] == task["slots"]["text"])
        other = next(u["id"] for u in users if u["id"] != mine)
        notes.append({**note, "id": max(n["id"] for n in notes) + 1, "author_id": other})  # someone said the same
    clean, site = _edited("code", edit)
    assert not _said(clean, "M007", "removes only the signed-in user's own")
    assert _said(site, "M007", "task 'delete_comment' needs no notes row to match, but the site removes only the "
                               "signed-in user's own (author_id = :user_id) and 1 of other users match")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M007", "removes only the signed-in user's own")
    task = fixed.task("delete_comment")
    assert [c.column for c in task.goal[0].query.where][0] == "author_id"
    episode = Episode(fixed, task.id)
    episode.reset()
    for action in task.certificate:
        outcome = episode.step(action)
    assert outcome.success


def test_a_bound_the_words_exclude_judged_inclusively_is_found_and_made_strict() -> None:
    from veriweb.scaffold.site import render_instruction

    def edit(data: dict) -> None:
        task = _task(data, "hotel_list")
        task["template"] = "Log in as {username} (password: {password}), then: name all the hotels in {city} with more than {stars} stars."
        task["instruction"] = render_instruction(task["template"], task["slots"])
    clean, site = _edited("travel", edit)
    assert not _said(clean, "M016", "a bound it excludes")
    assert _said(site, "M016", "a bound it excludes, but its judge compares with >= (not >)")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M016", "a bound it excludes")
    where = fixed.task("hotel_list").answer.list_query.where
    assert [c.op for c in where if c.column == "stars"] == [">"]


def test_a_place_named_after_under_is_not_a_bound() -> None:
    _, site = _edited("mail", lambda data: None)  # "File all of {sender}'s Inbox messages under {folder}"
    assert not _said(site, "M016", "a bound it excludes")


def test_a_checkout_that_ships_to_the_saved_address_instead_of_the_typed_one_is_found_and_writes_it() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "place_order")["effects"][0]
        effect["sql"] = effect["sql"].replace(":name, :address, :city FROM cart_items c",
                                              ":name, (SELECT address FROM users WHERE id = :user_id), :city FROM cart_items c")
    clean, site = _edited("shop", edit)
    assert not _said(clean, "C013", "is read nowhere")
    assert _said(site, "C013", "marker 'place_order' fills address from (SELECT address FROM users WHERE id = :user_id) "
                               "while its parameter :address, the field the visitor fills, is read nowhere")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C013", "is read nowhere")
    assert ":name, :address, :city FROM cart_items c" in fixed.marker("place_order").effects[0].sql


def test_a_certificate_a_check_refuses_is_reported_with_the_check_that_refused_it() -> None:
    from veriweb.verify.feasibility import verify_task

    def edit(data: dict) -> None:
        guard = _marker(data, "set_state")["preconditions"][1]
        guard["predicate"]["sql"] = guard["predicate"]["sql"].replace("state != :s", "state = :s")  # inverted
    clean, site = _edited("code", edit)
    assert not [i for i in verify_task(clean, clean.task("close_issue"), budget=0, search=False).issues
                if i.code == "F002"]
    failed = [i.message for i in verify_task(site, site.task("close_issue"), budget=0, search=False).issues
              if i.code == "F002"]
    assert failed and failed[0].endswith(": 'This issue is already in that state.' (marker 'set_state', preconditions[1])")


# ----------------------------------------------------------------------------- guards


def test_a_role_check_that_asks_for_another_persons_membership_is_found_and_asks_for_the_users() -> None:
    def edit(data: dict) -> None:
        guard = _marker(data, "merge_mr")["preconditions"][0]
        guard["predicate"]["sql"] = guard["predicate"]["sql"].replace("m.user_id = :user_id", "m.user_id = r.author_id")
    clean, site = _edited("code", edit)
    assert not _said(clean, "C009", "not of the signed-in user")
    assert _said(site, "C009", "a check of marker 'merge_mr' says 'Only maintainers of this project can merge.', but it "
                               "asks for the membership of r.author_id, not of the signed-in user")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C009", "not of the signed-in user")
    assert "m.user_id = :user_id" in fixed.marker("merge_mr").preconditions[0].predicate.sql


def test_a_history_that_hides_one_state_from_every_list_is_found_and_shows_it() -> None:
    def edit(data: dict) -> None:
        page = next(p for p in data["pages"] if p["id"] == "orders")
        page["elements"][1]["query"]["where"].append({"column": "status", "op": "!=", "value": "cancelled"})
    clean, site = _edited("shop", edit)
    assert not _said(clean, "M015", "listed nowhere")
    assert _said(site, "M015", "the list leaves out every orders row with status = 'cancelled', and so does every other "
                               "list that opens page 'order'")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M015", "listed nowhere")
    assert [c.column for c in next(p for p in fixed.pages if p.id == "orders").elements[1].query.where] == ["user_id"]


def test_a_state_left_out_of_one_list_but_shown_by_another_is_not_hidden() -> None:
    def edit(data: dict) -> None:
        page = next(p for p in data["pages"] if p["id"] == "orders")
        shown = json.loads(json.dumps(page["elements"][1]))
        page["elements"][1]["query"]["where"].append({"column": "status", "op": "!=", "value": "cancelled"})
        page["elements"].append(shown)  # all orders, cancelled ones too, further down
    _, site = _edited("shop", edit)
    assert not _said(site, "M015", "listed nowhere")


# ----------------------------------------------------------------------------- accounts (set 25)


def _rows(data: dict, table: str) -> list[dict]:
    return next(t for t in data["database"]["tables"] if t["name"] == table)["rows"]


def test_an_account_whose_password_is_a_default_is_found_and_given_its_own() -> None:
    def edit(data: dict) -> None:
        _rows(data, "staff").append({**_rows(data, "staff")[0], "id": 99, "username": "admin", "password": "admin",
                                     "name": "Administrator"})
    clean, site = _edited("admin", edit)
    assert not _said(clean, "S010", "the first anyone would guess")
    assert _said(site, "S010", "account 'admin' has the password 'admin', the first anyone would guess")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "S010", "the first anyone would guess")
    assert next(r for r in fixed.database.table("staff").rows if r["username"] == "admin")["password"] != "admin"


def test_a_sign_in_form_showing_a_real_account_is_found_and_emptied() -> None:
    def edit(data: dict) -> None:
        user = _rows(data, "users")[2]["username"]
        form = next(e for e in dicts(data["pages"]) if e.get("type") == "form" and e.get("action", {}).get("kind") == "login")
        field = next(f for f in form["fields"] if f["name"] == form["action"].get("username_field", "username"))
        field["value"] = user
    clean, site = _edited("mail", edit)
    assert not _said(clean, "S010", "filled in for every visitor")
    assert _said(site, "S010", "the sign-in form starts with the account name")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "S010", "filled in for every visitor")


# ----------------------------------------------------------------------------- answers (set 25)


def test_a_list_asked_in_rank_order_but_judged_in_any_is_found_and_judged_in_order() -> None:
    from veriweb.scaffold.site import render_instruction

    def edit(data: dict) -> None:
        task = _task(data, "hotel_list")
        task["template"] = task["template"].replace("name all the 5-star hotels in {city}.",
                                                    "name all the 5-star hotels in {city}, ranked by name.")
        task["instruction"] = render_instruction(task["template"], task["slots"])
    clean, site = _edited("travel", edit)
    assert not _said(clean, "M017", "the answer is judged with order")
    assert _said(site, "M017", "task 'hotel_list' asks for its answer 'ranked', but the answer is judged with order 'any'")
    fixed = repair_static(site)[0]
    assert fixed.task("hotel_list").answer.order == "exact"


def test_an_amount_asked_rounded_but_judged_to_the_cent_is_found_and_given_a_tolerance() -> None:
    from veriweb.engine.answers import judge_answer
    from veriweb.scaffold.site import render_instruction

    def edit(data: dict) -> None:
        task = _task(data, "bills_total")
        task["template"] = task["template"].replace("add up to?", "add up to, rounded to the nearest dollar?")
        task["instruction"] = render_instruction(task["template"], task["slots"])
    clean, site = _edited("mail", edit)
    assert not _said(clean, "M017", "judged with tolerance")
    assert _said(site, "M017", "asks for its answer 'rounded to the nearest dollar', but the answer is judged with "
                               "tolerance 0.0")
    fixed = repair_static(site)[0]
    assert fixed.task("bills_total").answer.tolerance == 0.5
    assert judge_answer("$10", 10.42, "currency", tolerance=0.5).correct  # a rounded answer passes now
    assert not judge_answer("$11", 10.42, "currency", tolerance=0.5).correct


def test_a_text_to_type_with_a_typographic_apostrophe_is_found_and_written_plainly() -> None:
    from veriweb.scaffold.site import render_instruction

    def edit(data: dict) -> None:
        task = _task(data, "order_note")
        old, new = task["slots"]["text"], "Customer\u2019s neighbour can sign for it."
        task["slots"]["text"] = new
        task["instruction"] = render_instruction(task["template"], task["slots"])
        task["certificate"] = [step.replace(old, new) for step in task["certificate"]]
    clean, site = _edited("admin", edit)
    assert not _said(clean, "M016", "no keyboard types")
    assert _said(site, "M016", "task 'order_note' asks to type 'Customer\u2019s neighbour can sign for it.', which holds "
                               "characters no keyboard types")
    fixed = repair_static(site)[0]
    task = fixed.task("order_note")
    assert task.slots["text"] == "Customer's neighbour can sign for it." and "\u2019" not in task.instruction
    episode = Episode(fixed, task.id)
    episode.reset()
    for action in task.certificate:
        outcome = episode.step(action)
    assert outcome.success


# ----------------------------------------------------------------------------- markers (set 25)


def test_a_delete_by_a_range_of_keys_is_found_and_picks_the_one_row() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "delete_comment")["effects"][0]
        effect["sql"] = effect["sql"].replace("id = :note_id", "id >= :note_id")
    clean, site = _edited("code", edit)
    assert not _said(clean, "C013", "a range of keys")
    assert _said(site, "C013", "marker 'delete_comment' picks the notes rows with id >= :note_id, a range of keys")
    fixed = repair_static(site)[0]
    assert "id = :note_id" in fixed.marker("delete_comment").effects[0].sql


def test_an_update_of_every_row_sharing_the_named_rows_value_is_found_and_picks_that_row() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "toggle_read")["effects"][0]
        effect["sql"] = ("UPDATE emails SET read = 1 - read WHERE user_id = :user_id AND sender = "
                         "(SELECT sender FROM emails WHERE id = :email_id AND user_id = :user_id)")
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C013", "all rows sharing it change")
    assert _said(site, "C013", "marker 'toggle_read' picks every emails row whose sender is that of the row :email_id names")
    fixed = repair_static(site)[0]
    assert fixed.marker("toggle_read").effects[0].sql == "UPDATE emails SET read = 1 - read WHERE user_id = :user_id AND id = :email_id"


def test_a_stock_update_taking_the_first_of_several_cart_lines_is_found_and_takes_them_all() -> None:
    def edit(data: dict) -> None:
        effect = next(e for e in _marker(data, "place_order")["effects"] if e["table"] == "products")
        effect["sql"] = effect["sql"].replace("WHERE id IN (SELECT product_id", "WHERE id = (SELECT product_id")
    clean, site = _edited("shop", edit)  # a shopper of the seed data holds three cart lines
    assert not _said(clean, "C013", "takes the first only")
    assert _said(site, "C013", "marker 'place_order' picks id = (SELECT product_id FROM cart_items ...), a subquery of "
                               "several rows")
    fixed = repair_static(site)[0]
    assert "WHERE id IN (SELECT product_id" in next(e.sql for e in fixed.marker("place_order").effects if e.table == "products")


def test_an_invariant_that_skips_the_row_it_guards_is_found_and_checks_it() -> None:
    def edit(data: dict) -> None:
        guard = _marker(data, "book_flight")["invariants"][0]
        guard["predicate"]["sql"] = "SELECT NOT EXISTS (SELECT 1 FROM flights WHERE seats < 0 AND id != :f)"
        guard["predicate"]["params"] = {"f": {"ref": "param.flight_id"}}
    clean, site = _edited("travel", edit)
    assert not _said(clean, "C013", "is never checked")
    assert _said(site, "C013", "looks at every flights row but the one it writes (AND id != :f)")
    fixed = repair_static(site)[0]
    assert fixed.marker("book_flight").invariants[0].predicate.sql == "SELECT NOT EXISTS (SELECT 1 FROM flights WHERE seats < 0)"


# ----------------------------------------------------------------------------- views (set 25)


def _reviewed(domain: str, view: str, old: str, new: str, also=None):
    def edit(data: dict) -> None:
        _view(data, view)["sql"] = _view(data, view)["sql"].replace(old, new)
        assert new in _view(data, view)["sql"]
        if also is not None:
            also(data)
    return _edited(domain, edit)


def test_a_count_of_distinct_customers_named_orders_is_found_and_counts_the_orders() -> None:
    clean, site = _reviewed("admin", "revenue_month", "count(o.id) AS orders", "count(DISTINCT o.customer_id) AS orders")
    assert not _said(clean, "C013", "not the orders rows its name says")
    assert _said(site, "C013", "orders counts the distinct customer_id of orders (one per customer), not the orders rows")
    fixed = repair_static(site)[0]
    assert "count(DISTINCT o.id) AS orders" in next(v.sql for v in fixed.database.views if v.name == "revenue_month")


def test_a_view_grouping_people_by_a_shared_name_is_found_and_groups_by_the_key() -> None:
    grouped = ("SELECT u.id AS id, u.name AS name, count(p.id) AS posts FROM users u LEFT JOIN posts p "
               "ON p.user_id = u.id GROUP BY {}")

    def edit(by: str):
        def apply(data: dict) -> None:
            users = next(t for t in data["database"]["tables"] if t["name"] == "users")["rows"]
            users[1]["name"] = users[0]["name"]  # two accounts of one name
            _view(data, "user_stats")["sql"] = grouped.format(by)
        return apply
    _, clean = _edited("forum", edit("u.id"))
    _, site = _edited("forum", edit("u.name"))
    assert not _said(clean, "C013", "those rows merge into one")
    assert _said(site, "C013", "it groups users rows by u.name, which several rows share")
    fixed = repair_static(site)[0]
    assert next(v.sql for v in fixed.database.views if v.name == "user_stats") == grouped.format("u.id")


def test_a_price_shown_marked_up_by_a_fixed_factor_is_found_and_shows_the_stored_one() -> None:
    clean, site = _reviewed("travel", "hotel_view", "h.price AS price", "CAST(h.price * 1.2 AS INTEGER) AS price")
    assert not _said(clean, "C013", "worked on with a fixed")
    assert _said(site, "C013", "price is CAST(h.price * 1.2 AS INTEGER), the stored hotels.price worked on with a fixed 1.2")
    fixed = repair_static(site)[0]
    assert "h.price AS price" in next(v.sql for v in fixed.database.views if v.name == "hotel_view")


def test_days_counted_with_the_earlier_day_first_are_found_and_swapped() -> None:
    clean, site = _reviewed("travel", "stay_view", "s.nights AS nights", "vw_days(s.check_in, s.check_out) AS nights")
    assert not _said(clean, "C013", "takes the earlier day first")
    assert _said(site, "C013", "vw_days(s.check_in, s.check_out) takes the earlier day first")
    fixed = repair_static(site)[0]
    assert "vw_days(s.check_out, s.check_in) AS nights" in next(v.sql for v in fixed.database.views if v.name == "stay_view")


# ----------------------------------------------------------------------------- links (set 25)


def test_a_link_fixed_to_one_record_on_every_records_page_is_found_and_reads_the_pages_key() -> None:
    def edit(data: dict) -> None:
        link = next(e for e in dicts(next(p for p in data["pages"] if p["id"] == "issues"))
                    if e.get("type") == "link" and str(e.get("href", "")).endswith("/issues/new"))
        link["href"] = "/projects/1/issues/new"
    clean, site = _edited("code", edit)
    assert not _said(clean, "S011", "whatever record the page shows")
    assert _said(site, "S011", "the link '/projects/1/issues/new' on page 'issues' (/projects/{id:int}/issues) opens record "
                               "1's page whatever record the page shows")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "S011", "whatever record the page shows")
    page = next(p for p in fixed.model_dump(mode="json")["pages"] if p["id"] == "issues")
    hrefs = [e["href"] for e in dicts(page) if e.get("type") == "link" and str(e.get("href", "")).endswith("/issues/new")]
    assert hrefs == ["/projects/{param.id}/issues/new"]


def test_a_redirect_to_a_new_rows_key_after_a_marker_that_inserts_none_is_found_and_dropped() -> None:
    def edit(data: dict) -> None:
        form = next(e for e in dicts(data["pages"]) if e.get("type") == "form"
                    and e.get("action", {}).get("marker") == "close_mr")
        form["action"]["redirect"] = "/merge_requests/{result.id}"
    clean, site = _edited("code", edit)
    assert not _said(clean, "S011", "which inserts no row")
    assert _said(site, "S011", "the form goes to '/merge_requests/{result.id}' after 'close_mr', which inserts no row")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "S011", "which inserts no row")


# ----------------------------------------------------------------------------- data (set 25)


def test_someone_elses_mail_in_an_inbox_is_found_and_moved_to_its_addressee() -> None:
    def edit(data: dict) -> None:
        users = _rows(data, "users")
        folders = _rows(data, "folders")
        owner, other = users[0], users[1]
        inbox = next(f["id"] for f in folders if f["user_id"] == owner["id"] and f["kind"] == "inbox")
        mail = next(e for e in _rows(data, "emails") if e["folder_id"] == inbox)
        mail.update(recipients=other["email"], cc="")
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C012", "whose owner it is not addressed to")
    assert _said(site, "C012", "sits in an Inbox whose owner it is not addressed to")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "C012", "whose owner it is not addressed to")
    users = fixed.database.table("users").rows
    moved = next(e for e in fixed.database.table("emails").rows if e["recipients"] == users[1]["email"] and e["cc"] == "")
    folder = next(f for f in fixed.database.table("folders").rows if f["id"] == moved["folder_id"])
    assert (moved["user_id"], folder["user_id"], folder["kind"]) == (users[1]["id"], users[1]["id"], "inbox")


def test_an_insert_selecting_from_a_table_it_never_reads_is_found_and_selects_once() -> None:
    def edit(data: dict) -> None:
        effect = next(e for e in _marker(data, "create_issue")["effects"] if e["table"] == "issue_labels")
        effect["sql"] = effect["sql"].replace(":label_id WHERE", ":label_id FROM labels WHERE")
    clean, site = _edited("code", edit)
    assert not _said(clean, "C013", "reads nothing of its rows")
    assert _said(site, "C013", "marker 'create_issue' inserts into issue_labels with a SELECT from labels that reads "
                               "nothing of its rows")
    fixed = repair_static(site)[0]
    assert next(e.sql for e in fixed.marker("create_issue").effects if e.table == "issue_labels") == \
        "INSERT INTO issue_labels (issue_id, label_id) SELECT (SELECT max(id) FROM issues), :label_id WHERE :label_id IS NOT NULL"


def test_a_number_taken_from_the_highest_of_some_rows_only_is_found_and_taken_from_all() -> None:
    def edit(data: dict) -> None:
        effect = next(e for e in _marker(data, "create_issue")["effects"] if e["table"] == "issues")
        effect["sql"] += " AND state = 'open'"
    clean, site = _edited("code", edit)
    assert not _said(clean, "C013", "a number already taken")
    assert _said(site, "C013", "marker 'create_issue' numbers a new issues row from max(number) over only the rows where "
                               "state = 'open'")
    fixed = repair_static(site)[0]
    assert next(e.sql for e in fixed.marker("create_issue").effects if e.table == "issues").endswith(
        "FROM issues WHERE project_id = :project_id")
