"""Checks asked for by the twenty-fourth hand-made set (held out: its cases were written by someone who
read neither the checks nor these tests), and by what the twenty-third left missed. Each defect is
planted in a generated site (seed 0 of its domain), the clean site is its twin (the check says nothing
there), and the repair is run.
"""

from __future__ import annotations

from jsonwalk import edited as _edited, said as _said  # tests/verify/jsonwalk.py

from veriweb.verify.repair import repair_static


def _table(data: dict, name: str) -> dict:
    return next(t for t in data["database"]["tables"] if t["name"] == name)


# ----------------------------------------------------------------------------- accounts


def test_an_account_with_a_blank_password_is_found_and_given_one() -> None:
    def edit(data: dict) -> None:
        _table(data, "users")["rows"][1]["password"] = " "
    clean, site = _edited("shop", edit)
    assert not _said(clean, "S010", "blank password")
    assert _said(site, "S010", "has a blank password")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "S010", "blank password")
    password = fixed.database.table("users").rows[1]["password"]
    assert password.strip()
    assert password == repair_static(site)[0].database.table("users").rows[1]["password"]  # the same every time


# ----------------------------------------------------------------------------- tasks


def _retemplate(data: dict, task_id: str, template: str) -> None:
    from veriweb.scaffold.site import render_instruction

    task = next(t for t in data["tasks"] if t["id"] == task_id)
    task["template"] = template
    task["instruction"] = render_instruction(template, task["slots"])


def test_a_question_about_refunded_orders_answered_over_every_order_is_found_and_tested() -> None:
    clean, site = _edited("admin", lambda data: _retemplate(
        data, "customer_largest", "Sign in with {username} / {password}. Find the highest refunded order total of {customer}."))
    assert not _said(clean, "M017", "never tests")
    assert _said(site, "M017", "never tests refunded, so it reads rows in any state: it should test refunded > 0")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M017", "never tests")
    where = fixed.task("customer_largest").answer.value.query.where
    assert [(c.column, c.op, c.value) for c in where if c.column == "refunded"] == [("refunded", ">", 0)]


def test_a_question_about_one_state_answered_over_every_state_is_found() -> None:
    clean, site = _edited("admin", lambda data: _retemplate(
        data, "customer_largest", "Sign in with {username} / {password}. Find the highest pending order total of {customer}."))
    assert _said(site, "M017", "never tests status, so it reads rows in any state: it should test status = 'pending'")
    clean2, every = _edited("admin", lambda data: _retemplate(
        data, "customer_largest",
        "Sign in with {username} / {password}. Find the highest order total of {customer} over all orders, pending or not."))
    assert not _said(every, "M017", "never tests")  # "all": the words ask for every state


# ----------------------------------------------------------------------------- pages


def test_a_form_shut_in_a_section_labelled_optional_is_found_and_the_section_named_for_it() -> None:
    def edit(data: dict) -> None:
        page = next(p for p in data["pages"] if p["id"] == "checkout")
        index = next(i for i, e in enumerate(page["elements"]) if e.get("type") == "form")
        page["elements"][index] = {"type": "collapsible", "id": "gift_options", "label": "Gift wrapping (optional)",
                                   "elements": [page["elements"][index]], "open": False}
    clean, site = _edited("shop", edit)
    assert not _said(clean, "M003", "says it is optional")
    found = _said(site, "M003", "the closed section 'Gift wrapping (optional)' says it is optional but holds the form")
    assert found
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M003", "says it is optional")
    section = next(e for e in fixed.page("checkout").elements if e.type == "collapsible")
    form = section.elements[0]
    assert section.label == form.submit


def test_an_optional_section_named_for_its_form_is_not_reported() -> None:
    def edit(data: dict) -> None:
        page = next(p for p in data["pages"] if p["id"] == "checkout")
        index = next(i for i, e in enumerate(page["elements"]) if e.get("type") == "form")
        form = page["elements"][index]
        page["elements"][index] = {"type": "collapsible", "id": "order_options", "label": f"{form['submit']} (optional)",
                                   "elements": [form], "open": False}
    _, site = _edited("shop", edit)
    assert not _said(site, "M003", "says it is optional")


def test_a_goal_bounding_the_nightly_rate_by_a_budget_for_the_whole_stay_is_found_and_bounds_the_total() -> None:
    def edit(data: dict) -> None:
        goal = next(t for t in data["tasks"] if t["id"] == "hotel_budget")["goal"][0]
        goal["sql"] = goal["sql"].replace("total <= :budget", "total / nights <= :budget")
    clean, site = _edited("travel", edit)
    assert not _said(clean, "M016", "a figure per")
    assert _said(site, "M016", "but its goal bounds total / nights, a figure per nights; it should bound total")
    fixed = repair_static(site)[0]
    assert fixed.task("hotel_budget").goal[0].sql == clean.task("hotel_budget").goal[0].sql


def test_a_nightly_bound_for_a_nightly_budget_is_not_reported() -> None:
    def edit(data: dict) -> None:
        task = next(t for t in data["tasks"] if t["id"] == "hotel_budget")
        task["goal"][0]["sql"] = task["goal"][0]["sql"].replace("total <= :budget", "total / nights <= :budget")
        task["instruction"] = task["instruction"].replace("keeping the total at or under", "paying at most, per night,")
        task["template"] = task["template"].replace("keeping the total at or under", "paying at most, per night,")
    _, site = _edited("travel", edit)
    assert not _said(site, "M016", "a figure per")


# ----------------------------------------------------------------------------- data


def _boxes(data: dict) -> tuple[dict, dict]:
    folders = _table(data, "folders")["rows"]
    return ({(f["user_id"], f["kind"]): f["id"] for f in folders}, {f["id"]: (f["user_id"], f["kind"]) for f in folders})


def test_a_received_message_filed_in_sent_is_found_and_filed_in_the_inbox() -> None:
    moved = {}

    def edit(data: dict) -> None:
        box, of = _boxes(data)
        email = next(e for e in _table(data, "emails")["rows"] if of[e["folder_id"]][1] == "inbox")
        moved.update(id=email["id"], inbox=email["folder_id"])
        email["folder_id"] = box[(of[email["folder_id"]][0], "sent")]
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C012", "is in its owner's")
    assert _said(site, "C012", f"message {moved['id']!r} is in its owner's sent folder")
    fixed = repair_static(site)[0]
    assert next(r for r in fixed.database.table("emails").rows if r["id"] == moved["id"])["folder_id"] == moved["inbox"]


# ----------------------------------------------------------------------------- views


def _view(data: dict, name: str) -> dict:
    return next(v for v in data["database"]["views"] if v["name"] == name)


def test_a_yes_no_column_compared_with_the_word_true_is_found_and_compared_with_one() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "booking_view")
        assert "CASE WHEN b.bag THEN" in view["sql"]
        view["sql"] = view["sql"].replace("CASE WHEN b.bag THEN", "CASE WHEN b.bag = 'true' THEN")
    clean, site = _edited("travel", edit)
    assert not _said(clean, "C013", "compares a yes/no column")
    assert _said(site, "C013", "b.bag = 'true' compares a yes/no column, stored as 1 or 0, with a word")
    fixed = repair_static(site)[0]
    assert "CASE WHEN b.bag = 1 THEN" in next(v.sql for v in fixed.database.views if v.name == "booking_view")


def test_days_subtracted_as_text_are_found_and_counted_with_vw_days() -> None:
    from veriweb.engine import Session

    def edit(data: dict) -> None:
        view = _view(data, "stay_view")
        view["sql"] = view["sql"].replace("s.nights AS nights", "s.check_out - s.check_in AS nights")
    clean, site = _edited("travel", edit)
    assert not _said(clean, "C013", "subtracts one day written as text")
    assert _said(site, "C013", "s.check_out - s.check_in subtracts one day written as text from another")
    fixed = repair_static(site)[0]
    assert "vw_days(s.check_out, s.check_in) AS nights" in next(v.sql for v in fixed.database.views if v.name == "stay_view")
    session = Session(fixed)
    rows = session.db.conn.execute("SELECT v.nights, s.nights FROM stay_view v JOIN stays s ON s.id = v.id").fetchall()
    assert rows and all(a == b for a, b in rows)


def test_vw_days_counts_days_and_refuses_what_is_not_a_day() -> None:
    from veriweb.engine.database import days_between

    assert days_between("2026-06-27", "2026-06-24") == 3
    assert days_between("2026-06-01T10:00:00", "2026-06-03") == -2
    assert days_between("soon", "2026-06-03") is None


# ----------------------------------------------------------------------------- markers


def _marker(data: dict, name: str) -> dict:
    return next(m for m in data["markers"] if m["name"] == name)


def test_an_upsert_that_inserts_before_it_adds_is_found_and_runs_its_update_first() -> None:
    def edit(data: dict) -> None:
        marker = _marker(data, "add_to_cart")
        assert [e["op"] for e in marker["effects"]] == ["update", "insert"]
        marker["effects"].reverse()
    clean, site = _edited("shop", edit)
    assert not _said(clean, "C013", "has just made")
    assert _said(site, "C013", "marker 'add_to_cart': its effect on cart_items adds to the cart_items row that its own insert has just made")
    fixed = repair_static(site)[0]
    assert [e.op for e in fixed.marker("add_to_cart").effects] == ["update", "insert"]


def test_a_precondition_testing_unequal_on_a_column_rows_leave_empty_is_found_and_tests_is_not() -> None:
    def edit(data: dict) -> None:
        _marker(data, "assign_issue")["preconditions"].append({
            "predicate": {"kind": "sql", "sql": "SELECT EXISTS (SELECT 1 FROM issues WHERE id = :i AND assignee_id != :a)",
                          "params": {"i": {"ref": "param.issue_id"}, "a": {"ref": "param.assignee_id"}}},
            "message": "This ticket is already assigned to that person."})
    clean, site = _edited("code", edit)
    assert any(r.get("assignee_id") is None for r in clean.database.table("issues").rows)
    assert not _said(clean, "C013", "NULL is neither equal")
    assert _said(site, "C013", "assignee_id != :a never holds where issues.assignee_id is empty")
    fixed = repair_static(site)[0]
    assert fixed.marker("assign_issue").preconditions[-1].predicate.sql.endswith("assignee_id IS NOT :a)")


def test_unequal_inside_not_exists_is_not_reported() -> None:
    def edit(data: dict) -> None:
        _marker(data, "assign_issue")["preconditions"].append({
            "predicate": {"kind": "sql", "sql": "SELECT NOT EXISTS (SELECT 1 FROM issues WHERE id = :i AND assignee_id != :a)",
                          "params": {"i": {"ref": "param.issue_id"}, "a": {"ref": "param.assignee_id"}}},
            "message": "This ticket is assigned to someone else."})
    _, site = _edited("code", edit)
    assert not _said(site, "C013", "NULL is neither equal")


def test_an_address_stored_as_a_mailto_link_is_found_and_kept_bare() -> None:
    bare = {}

    def edit(data: dict) -> None:
        row = _table(data, "contacts")["rows"][3]
        bare["email"] = row["email"]
        row["email"] = "mailto:" + row["email"]
    clean, site = _edited("mail", edit)
    assert not _said(clean, "M004", "written as a link")
    assert _said(site, "M004", f"contacts.email 'mailto:{bare['email']}' is written as a link, unlike every other row")
    fixed = repair_static(site)[0]
    assert fixed.database.table("contacts").rows[3]["email"] == bare["email"]


def test_a_sign_off_button_that_only_opens_the_login_page_is_found_and_signs_out() -> None:
    from jsonwalk import dicts

    def edit(data: dict) -> None:
        form = next(d for d in dicts(data["layout"]) if d.get("type") == "form" and d["action"]["kind"] == "logout")
        form["submit"] = "Sign off"
        form["action"] = {"kind": "navigate", "route": "/login"}
    clean, site = _edited("shop", edit)
    assert not _said(clean, "M003", "stays signed in")
    assert _said(site, "M003", "button 'Sign off' says it signs the user out, but its form only opens a page")
    fixed = repair_static(site)[0]
    assert not _said(fixed, "M003", "stays signed in")
    from jsonwalk import site_data
    assert any(d.get("type") == "form" and d.get("submit") == "Sign off" and d["action"]["kind"] == "logout"
               for d in dicts(site_data(fixed)["layout"]))


# ----------------------------------------------------------------------------- forms


def test_a_search_field_showing_a_parameter_its_form_never_sends_is_found_and_shows_its_own() -> None:
    from jsonwalk import dicts

    def stars(data: dict) -> dict:
        page = next(p for p in data["pages"] if p["id"] == "hotels")
        form = next(d for d in dicts(page) if d.get("type") == "form" and d["action"]["kind"] == "navigate")
        return next(f for f in form["fields"] if f["name"] == "stars")

    def edit(data: dict) -> None:
        assert stars(data)["value"] == {"ref": "query.stars"}
        stars(data)["value"] = {"ref": "query.star"}
    clean, site = _edited("travel", edit)
    assert not _said(clean, "S012", "which its form never sends")
    assert _said(site, "S012", "sends 'stars' but shows query.star, which its form never sends")
    from jsonwalk import site_data
    assert stars(site_data(repair_static(site)[0]))["value"] == {"ref": "query.stars"}


def test_an_edit_form_field_left_blank_beside_prefilled_ones_is_found_and_prefilled() -> None:
    from jsonwalk import dicts, site_data

    def title(data: dict) -> dict:
        form = next(d for d in dicts(data["pages"]) if d.get("type") == "form" and d["action"].get("marker") == "edit_post")
        return next(f for f in form["fields"] if f["name"] == "title")

    def edit(data: dict) -> None:
        assert title(data)["value"] == {"ref": "row.title"}
        title(data)["value"] = None
    clean, site = _edited("forum", edit)
    assert not _said(clean, "S004", "starts blank")
    assert _said(site, "S004", "starts blank while body start with the row's values")
    assert title(site_data(repair_static(site)[0]))["value"] == {"ref": "row.title"}


# ----------------------------------------------------------------------------- progress


def test_a_progress_step_that_lost_its_negate_makes_progress_fall_along_the_certificate() -> None:
    from veriweb.verify.probes import probe_issues, probe_task

    def edit(data: dict) -> None:
        next(t for t in data["tasks"] if t["id"] == "delete_post")["progress"][0]["predicate"]["negate"] = False
    clean, site = _edited("forum", edit)
    task = clean.task("delete_post")
    probes = [p for p in probe_task(clean, task, task.certificate) if p.kind == "progress"]
    assert len(probes) == 1 and probes[0].ok
    task = site.task("delete_post")
    probes = [p for p in probe_task(site, task, task.certificate) if p.kind == "progress"]
    assert len(probes) == 1 and not probes[0].ok
    assert "progress step 'the post is gone' holds at the start and no longer" in probes[0].description
    issues = probe_issues(site, task, probes)
    assert [i.location.rsplit(".", 1)[1] for i in issues] == ["progress"]


def test_a_message_from_someone_else_with_its_owners_address_is_found_and_given_the_senders_address() -> None:
    moved = {}

    def edit(data: dict) -> None:
        users = {u["id"]: u for u in _table(data, "users")["rows"]}
        rows = _table(data, "emails")["rows"]
        index, email = next((n, e) for n, e in enumerate(rows) if e["sender"] != users[e["user_id"]]["email"]
                            and sum(1 for r in rows if r["sender_name"] == e["sender_name"]) >= 2)
        moved.update(index=index, sender=email["sender"])
        email["sender"] = users[email["user_id"]]["email"]
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C012", "carries its owner's own address")
    assert _said(site, "C012", "carries its owner's own address as its sender")
    assert not _said(site, "C012", "is in its owner's inbox folder")  # the address is wrong, not the folder
    fixed = repair_static(site)[0]
    assert fixed.database.table("emails").rows[moved["index"]]["sender"] == moved["sender"]


def test_a_slot_written_with_doubled_braces_is_written_as_a_slot_again() -> None:
    from veriweb.scaffold.site import render_instruction

    def edit(data: dict) -> None:
        task = next(t for t in data["tasks"] if t["id"] == "book_flight")
        task["template"] = task["template"].replace("{time}", "{{time}}")
        task["instruction"] = render_instruction(task["template"], task["slots"])
    clean, site = _edited("travel", edit)
    assert "{time}" in site.task("book_flight").instruction
    fixed = repair_static(site)[0]
    assert fixed.task("book_flight").instruction == clean.task("book_flight").instruction


def test_a_search_option_sending_a_state_no_row_holds_is_found_and_sends_the_one_its_words_name() -> None:
    from jsonwalk import dicts, site_data

    def state(data: dict) -> dict:
        form = next(d for d in dicts(data["pages"]) if d.get("type") == "form" and d["action"]["kind"] == "navigate"
                    and d["action"]["route"].endswith("/merge_requests"))
        return next(f for f in form["fields"] if f["name"] == "state")

    def edit(data: dict) -> None:
        next(o for o in state(data)["options"] if o["value"] == "open")["value"] = "opened"
    clean, site = _edited("code", edit)
    assert not _said(clean, "M003", "holds or gets")
    assert _said(site, "M003", "option 'Open' sends 'opened', which no mr_view.state holds or gets")
    assert [o["value"] for o in state(site_data(repair_static(site)[0]))["options"]] == \
        [o["value"] for o in state(site_data(clean))["options"]]


def test_a_goal_requiring_a_flag_the_instruction_never_asks_for_is_found_and_stops_testing_it() -> None:
    def edit(data: dict) -> None:
        goal = next(t for t in data["tasks"] if t["id"] == "book_flight")["goal"][0]
        goal["query"]["where"].append({"column": "bag", "op": "=", "value": True})
    clean, site = _edited("travel", edit)
    assert "bag" not in site.task("book_flight").instruction.lower()
    assert not _said(clean, "M016", "never asks for")
    assert _said(site, "M016", "task 'book_flight': its goal also requires bag = True, which the instruction never asks for")
    fixed = repair_static(site)[0]
    assert fixed.task("book_flight").goal == clean.task("book_flight").goal


def test_a_subquery_over_the_users_own_rows_that_tests_no_user_is_found_and_scoped() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "save_post")["effects"][0]
        assert "user_id = :user_id AND post_id = :post_id" in effect["sql"]
        effect["sql"] = effect["sql"].replace("user_id = :user_id AND post_id = :post_id", "post_id = :post_id")
    clean, site = _edited("forum", edit)
    assert not _said(clean, "C013", "tests no user")
    assert _said(site, "C013", "a subquery over saved tests no user")
    fixed = repair_static(site)[0]
    assert "NOT EXISTS (SELECT 1 FROM saved WHERE user_id = :user_id AND post_id = :post_id)" in \
        fixed.marker("save_post").effects[0].sql


def test_a_view_keeping_only_rows_past_a_fixed_bar_is_found_and_keeps_them_all() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "review_view")
        assert " WHERE " not in view["sql"]
        view["sql"] += " WHERE r.rating >= 3"
    clean, site = _edited("shop", edit)
    assert not _said(clean, "C013", "keeps only the rows where")
    assert _said(site, "C013", "the view keeps only the rows where r.rating >= 3")
    fixed = repair_static(site)[0]
    assert next(v.sql for v in fixed.database.views if v.name == "review_view") == \
        next(v.sql for v in clean.database.views if v.name == "review_view")


def test_a_view_keeping_only_rows_of_one_amount_is_found() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "sales_month")
        assert "WHERE o.status != 'canceled'" in view["sql"]
        view["sql"] = view["sql"].replace("WHERE o.status != 'canceled'", "WHERE o.status != 'canceled' AND o.refunded = 0")
    clean, site = _edited("admin", edit)
    assert _said(site, "C013", "the view keeps only the rows where o.refunded = 0")
    fixed = repair_static(site)[0]
    assert next(v.sql for v in fixed.database.views if v.name == "sales_month") == \
        next(v.sql for v in clean.database.views if v.name == "sales_month")


def test_a_second_row_of_a_value_a_view_joins_on_is_found_and_removed() -> None:
    def edit(data: dict) -> None:
        months = _table(data, "months")["rows"]
        months.append({"id": max(r["id"] for r in months) + 1, "month": months[-1]["month"], "label": "This month so far"})
    clean, site = _edited("admin", edit)
    assert not _said(clean, "C002", "a view joins on")
    assert _said(site, "C002", "repeats month")
    fixed = repair_static(site)[0]
    assert fixed.database.table("months").rows == clean.database.table("months").rows


def test_a_view_column_read_off_the_parent_row_is_found_and_read_off_the_row() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "note_view")
        view["sql"] = view["sql"].replace("n.created AS created FROM notes n JOIN users u ON u.id = n.author_id",
                                          "i.created AS created FROM notes n JOIN users u ON u.id = n.author_id "
                                          "JOIN issues i ON i.id = n.issue_id")
        assert "i.created" in view["sql"]
    clean, site = _edited("code", edit)
    assert not _said(clean, "C013", "every row shows its parent's")
    assert _said(site, "C013", "created reads i.created, the issues row's, though each notes row has its own created")
    fixed = repair_static(site)[0]
    assert "n.created AS created" in next(v.sql for v in fixed.database.views if v.name == "note_view")


def test_a_person_joined_through_the_parent_rows_key_is_found_and_joined_through_the_rows_own() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "comment_view")
        old = "FROM comments c JOIN users u ON u.id = c.user_id JOIN posts p ON p.id = c.post_id"
        assert old in view["sql"]
        view["sql"] = view["sql"].replace(old, "FROM comments c JOIN posts p ON p.id = c.post_id JOIN users u ON u.id = p.user_id")
    clean, site = _edited("forum", edit)
    assert not _said(clean, "C013", "is joined through")
    assert _said(site, "C013", "users is joined through p.user_id, the posts row's, though each comments row has its own")
    fixed = repair_static(site)[0]
    assert "JOIN users u ON u.id = c.user_id" in next(v.sql for v in fixed.database.views if v.name == "comment_view")


def test_an_update_finding_its_row_by_the_value_it_writes_is_found_and_finds_it_by_its_key() -> None:
    def edit(data: dict) -> None:
        effect = _marker(data, "update_contact")["effects"][0]
        assert "WHERE id = :contact_id" in effect["sql"]
        effect["sql"] = effect["sql"].replace("WHERE id = :contact_id", "WHERE name = :name")
    clean, site = _edited("mail", edit)
    assert not _said(clean, "C013", "by the name it writes")
    assert _said(site, "C013", "the update finds its contacts row by the name it writes (:name), not by its key :contact_id")
    fixed = repair_static(site)[0]
    assert fixed.marker("update_contact").effects[0].sql == clean.marker("update_contact").effects[0].sql


def test_revenue_that_takes_off_refunds_beside_a_net_column_is_found_and_stops() -> None:
    def edit(data: dict) -> None:
        view = _view(data, "revenue_month")
        assert "coalesce(sum(o.total), 0) AS revenue" in view["sql"] and " AS net" in view["sql"]
        view["sql"] = view["sql"].replace("coalesce(sum(o.total), 0) AS revenue", "coalesce(sum(o.total - o.refunded), 0) AS revenue")
    clean, site = _edited("admin", edit)
    assert not _said(clean, "C013", "named for everything taken in")
    assert _said(site, "C013", "revenue takes off refunded")
    fixed = repair_static(site)[0]
    assert next(v.sql for v in fixed.database.views if v.name == "revenue_month") == \
        next(v.sql for v in clean.database.views if v.name == "revenue_month")


def test_an_existence_check_that_also_tests_a_state_is_found_and_tests_existence_only() -> None:
    def edit(data: dict) -> None:
        guard = next(g for g in _marker(data, "save_product")["preconditions"] if "no longer exists" in g["message"])
        guard["predicate"]["sql"] = "SELECT EXISTS (SELECT 1 FROM products WHERE id = :p AND status = 'enabled')"
    clean, site = _edited("admin", edit)
    assert not _said(clean, "C013", "is told it is gone")
    assert _said(site, "C013", "but also tests status = 'enabled': a record in another state is told it is gone")
    fixed = repair_static(site)[0]
    assert fixed.marker("save_product").preconditions == clean.marker("save_product").preconditions


def test_a_check_repeating_another_checks_message_is_found_and_removed() -> None:
    def edit(data: dict) -> None:
        marker = _marker(data, "add_comment")
        archived = next(g for g in marker["preconditions"] if "archived" in g["message"])
        marker["preconditions"].append({
            "predicate": {"kind": "sql", "sql": "SELECT EXISTS (SELECT 1 FROM subscriptions s JOIN posts p ON p.forum_id = "
                                                "s.forum_id WHERE p.id = :p AND s.user_id = :user_id)",
                          "params": {"p": {"ref": "param.post_id"}}},
            "message": archived["message"]})
    clean, site = _edited("forum", edit)
    assert not _said(clean, "C009", "the message of an earlier check")
    assert _said(site, "C009", "the message of an earlier check, while testing something else")
    fixed = repair_static(site)[0]
    assert fixed.marker("add_comment").preconditions == clean.marker("add_comment").preconditions


def test_a_sent_folder_none_of_whose_mail_is_from_the_accounts_address_is_not_refiled() -> None:
    def edit(data: dict) -> None:  # the account's address is what is wrong: its sent mail stays where it is
        box, of = _boxes(data)
        owner = next(of[e["folder_id"]][0] for e in _table(data, "emails")["rows"] if of[e["folder_id"]][1] == "sent")
        user = next(u for u in _table(data, "users")["rows"] if u["id"] == owner)
        user["email"] = "x." + user["email"]
    _, site = _edited("mail", edit)
    assert not _said(site, "C012", "is in its owner's sent folder")
