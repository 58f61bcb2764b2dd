"""What the search reads off pages (sums over records, ranked prefixes) and what SQL goals tell it."""

from __future__ import annotations

from veriweb.engine import Session
from veriweb.generate.site import generate_site
from veriweb.scaffold.values import Ref, SqlPredicate
from veriweb.verify.reading import carry, collect_moves, list_answers, run_answers
from veriweb.verify.targets import sql_conditions


def test_sql_goals_say_which_slot_each_column_wants() -> None:
    pred = SqlPredicate(kind="sql", sql="SELECT EXISTS (SELECT 1 FROM stay_view WHERE user_id = :user_id AND "
                        "city = :city AND stars >= :stars AND check_in = :ci AND status = 'confirmed' AND guests = 2)",
                        params={"city": {"ref": "slot.city"}, "stars": {"ref": "slot.stars"},
                                "ci": {"ref": "slot.in_day"}})
    found = {cond.column: cond.value for _, cond in sql_conditions(pred)}
    assert found == {"city": Ref(ref="slot.city"), "check_in": Ref(ref="slot.in_day"), "status": "confirmed",
                     "guests": 2}
    assert all(table == "stay_view" for table, _ in sql_conditions(pred))
    # An equality under OR or NOT is no wish.
    assert sql_conditions(pred.model_copy(update={"sql": pred.sql.replace(" AND city", " OR city")})) == []


def test_a_run_of_pages_of_one_kind_adds_up_place_by_place() -> None:
    site = next(s for s in (generate_site("mail", seed) for seed in range(6)) if s.task("bills_total"))
    task = site.task("bills_total")
    assert task is not None
    session = Session(site)
    session.reset("/", user=task.user)
    session.step(f"goto('/search?q={str(task.slots['company']).replace(' ', '+')}')")
    listing = session.page()
    moves = collect_moves(listing, task)
    assert moves and all(move.startswith("goto('/message/") for move in moves[0])
    memory = carry(None, listing)
    amounts = []
    for move in moves[0]:
        session.step(move)
        page = session.page()
        memory = carry(memory, page)
        body = " ".join(n.name or n.text for n in page.nodes if "Amount due" in (n.name or n.text))
        amounts.append(float(body.split("Amount due: $")[1].split()[0].rstrip(".").replace(",", "")))
    assert len(memory.run) == len(moves[0]) >= 2 and memory.run_key() is not None
    assert f"{sum(amounts):.2f}" in run_answers(memory)
    # Leaving for another kind of page forgets the run.
    session.step("goto('/')")
    assert run_answers(carry(memory, session.page())) == []


def test_list_answers_offer_ranked_prefixes_and_filtered_column_sums() -> None:
    rows = (("Alpha", "alpha, upcoming, $10.00", ("Alpha", "Upcoming", "$10.00"), "/t/1"),
            ("Beta", "beta, completed, $20.50", ("Beta", "Completed", "$20.50"), "/t/2"),
            ("Gamma", "gamma, upcoming, $5.25", ("Gamma", "Upcoming", "$5.25"), "/t/3"),
            ("Delta", "delta, completed, $1.00", ("Delta", "Completed", "$1.00"), "/t/4"))
    site = generate_site("shop", 0)
    task = site.tasks[0].model_copy(update={"slots": {}})
    answers = list_answers([rows], task)
    assert "Alpha; Beta" in answers and "Alpha; Beta; Gamma" in answers  # the top 2 and top 3
    assert "36.75" in answers  # everything
    assert "15.25" in answers and "21.50" in answers  # the upcoming ones, the completed ones


def test_a_reached_subgoals_slot_is_done_with_only_when_the_next_wants_another_in_its_column() -> None:
    from veriweb.engine import Episode
    from veriweb.verify.relevance import Hints

    def hints(domain: str, task_id: str) -> tuple[Hints, Session]:
        site = next(s for s in (generate_site(domain, seed) for seed in range(12)) if s.task(task_id))
        task = site.task(task_id)
        assert task is not None
        session = Session(site)
        episode = Episode(site, task, session=session, end_on_success=False)
        episode.reset()
        return Hints.build(site, task, session, episode.judge.context()), session

    labels, session = hints("code", "label_several")  # label the first issue, then the second
    labels.follow(session, 1, (True, False))
    assert labels.spent == {"first"} and labels.level == 1
    assert not any(labels.task.slots["first"].casefold() in entity for entity in labels.entities)
    labels.follow(session, 1, (False, True))  # the second one first: the first is still to do
    assert labels.spent == {"second"} and labels.level == 0
    rebook, session = hints("travel", "rebook")  # cancel the old booking, then book the new flight
    rebook.follow(session, 1, (True, False))
    assert "city" not in rebook.spent  # the new flight goes to the same city
    assert str(rebook.task.slots["city"]).casefold() in rebook.entities


def test_a_pick_is_read_off_every_candidate_page_seen_in_any_order() -> None:
    """For "the cheapest of these", the pages seen are remembered whatever lies between them: after
    three product pages (the home page visited in between), the cheapest and the dearest product's
    names are answers; before the second, no title is, and without ``picks`` nothing is remembered."""
    from veriweb.verify.reading import pick_answers

    site = generate_site("shop", 2)
    products = next(t for t in site.database.tables if t.name == "products").rows[:3]
    session = Session(site)
    session.reset("/")
    memory = carry(None, session.page(), picks=True)
    plain = carry(None, session.page())
    for number, product in enumerate(products):
        session.step(f"goto('/product/{product['id']}')")
        memory, plain = carry(memory, session.page()), carry(plain, session.page())
        if number == 0:
            assert pick_answers(memory) == []
        session.step("goto('/')")
        memory, plain = carry(memory, session.page()), carry(plain, session.page())
    prices = [p["price"] for p in products]
    assert len(set(prices)) == 3
    answers = pick_answers(memory)
    assert products[prices.index(min(prices))]["name"] in answers
    assert products[prices.index(max(prices))]["name"] in answers
    assert not plain.pages and pick_answers(plain) == []
    assert len([seen for seen in memory.pages if seen[1].startswith("/product/")]) == 3  # (and the home page)
    assert {f"seen /product/{p['id']}" for p in products} <= (memory.run_key() or frozenset())
