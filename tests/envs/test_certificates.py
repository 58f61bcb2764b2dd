"""Notes in DiscreteActions, and the plan of notes that makes a certificate map (on the example shop)."""

from __future__ import annotations

import numpy as np
import pytest

from veriweb.envs import DiscreteActions, VeriwebEnv
from veriweb.envs.actions import ELEMENT, FILL, NOTE, NOTE_TOKENS, NUMBER, SEND
from veriweb.envs.certificates import certificate_actions, note_action, plan_notes
from veriweb.envs.coverage import check_task
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.site import AnswerSpec


def _on(shop: Site, task: Task) -> DiscreteActions:
    """An env whose only site is ``shop`` with ``task`` as its only task."""
    return DiscreteActions(VeriwebEnv(sites=[shop.model_copy(update={"tasks": [task]})]))


def _variant(shop: Site, base: str, certificate: list[str], answer: AnswerSpec | None = None) -> Task:
    task = shop.task(base)
    assert task is not None
    update: dict[str, object] = {"certificate": certificate}
    if answer is not None:
        update["answer"] = answer
    return task.model_copy(update=update)


def test_notes_are_remembered_bounded_shown_and_forgotten_on_reset(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]), max_notes=2)
    obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})
    assert not obs["action_mask"]["argument"][FILL, env.note_start:env.number_start].any()
    assert obs["notes"].shape == (2, NOTE_TOKENS) and not obs["notes"].any()
    rows = [int(r) for r in np.flatnonzero(env.masks()["element"][NOTE])[:3]]
    texts = [env.note_text(np.array([NOTE, row, ELEMENT])) for row in rows]
    assert all(texts)
    steps = env.base.episode.steps  # type: ignore[union-attr]
    for row, text in zip(rows, texts):
        obs, _, _, _, info = env.step(np.array([NOTE, row, ELEMENT]))
        assert info["note"] == text and info["action_text"] == "noop()"
    assert env.base.episode.steps == steps + 3  # type: ignore[union-attr]  # a note costs a step
    assert env.notes() == texts[1:]  # the oldest was dropped
    assert env.argument_text(env.note_start) == texts[2] and env.argument_text(env.note_start + 1) == texts[1]
    assert env.argument_text(env.notes_list_arg) == f"{texts[1]}, {texts[2]}"
    assert obs["notes"][0].any() and obs["notes"][1].any() and env.observation_space.contains(obs)
    assert obs["action_mask"]["argument"][FILL, env.note_start:env.note_start + 2].all()
    assert obs["action_mask"]["argument"][SEND, env.notes_list_arg]
    assert env.decode(np.array([FILL, 0, env.note_start])).endswith(f"'{texts[2]}')")
    obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})
    assert env.notes() == [] and not obs["notes"].any()


def test_without_notes_the_note_type_is_masked_out(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]), max_notes=0)
    obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})
    assert obs["action_mask"]["type"][NOTE] == 0 and env.note_start == env.number_start
    obs, _, _, _, info = env.step(np.array([NOTE, 0, ELEMENT]))
    assert info["note"] == "" and env.notes() == []


def test_a_total_over_two_pages_maps_with_notes(shop: Site) -> None:
    # the boots' price is on their page, the latest order's total on the orders page: no page shows both
    task = _variant(shop, "count_orders", ["click('31')", "click('6')", "send_msg_to_user('$214.98')"],
                    AnswerSpec(type="currency", value="214.98"))
    env = _on(shop, task)
    notes = plan_notes(env, task)
    assert [len(notes.get(step, [])) for step in range(3)] == [0, 1, 1]  # one figure on each page, before leaving it
    assert check_task(env, task) is None
    assert sorted(env.notes()) == ["$129.99", "$84.99"] or "Price: $129.99" in env.notes()
    actions = certificate_actions(env, task)  # the same, as a list to replay (behaviour cloning)
    assert [int(a[0]) for a in actions].count(NOTE) == 2 and len(actions) == 5
    env.reset(options={"site": 0, "task": task.id})
    for action in actions:
        *_, info = env.step(action)
    assert info["success"]
    # with no memory the certificate does not map, and the miss says why
    miss = check_task(DiscreteActions(VeriwebEnv(sites=[shop.model_copy(update={"tasks": [task]})]), max_notes=0),
                      task)
    assert miss is not None and miss.step == 2 and "notes are off (max_notes=0)" in miss.reason
    # a wrong total is no plan: the judge has the last word
    wrong = task.model_copy(update={"answer": AnswerSpec(type="currency", value="214.99"),
                                    "certificate": [*task.certificate[:2], "send_msg_to_user('$214.99')"]})
    with pytest.raises(VeriwebError, match="step 2 .*no notes taken on the pages before it give it"):
        plan_notes(_on(shop, wrong), wrong)


def test_a_value_read_on_an_earlier_page_is_typed_from_a_note(shop: Site) -> None:
    # the home page lists the trousers; the boots' page does not, and its review box is typed into
    task = _variant(shop, "count_orders", ["click('31')", "fill('44', 'Wool Dress Trousers')"])
    env = _on(shop, task)
    assert plan_notes(env, task) == {0: [("37", ELEMENT)]}
    env.reset(options={"site": 0, "task": task.id})
    env.step(note_action(env, "37", ELEMENT))
    env.step(env.encode("click('31')"))
    kind, row, arg = env.encode("fill('44', 'Wool Dress Trousers')")
    assert (kind, arg) == (FILL, env.note_start)
    assert env.decode(np.array([kind, row, arg])) == "fill('44', 'Wool Dress Trousers')"


def test_a_note_can_take_a_rows_number(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    env.reset(options={"site": 0, "task": "count_orders"})
    env.step(env.encode("click('31')"))
    price = next(bid for bid in env.base.element_bids if env.base.page.by_bid[bid].text == "Price: $129.99")
    _, _, _, _, info = env.step(note_action(env, price, NUMBER))
    assert info["note"] == "$129.99" and env.notes() == ["$129.99"]
    assert env.argument_text(env.notes_total_arg) == "$129.99"


def test_a_value_no_page_shows_is_a_clear_error(shop: Site) -> None:
    task = _variant(shop, "count_orders", ["click('31')", "fill('44', 'zebra-quartz-17')"])
    env = _on(shop, task)
    with pytest.raises(VeriwebError, match="step 1 .*zebra-quartz-17.*no notes taken on the pages before it"):
        plan_notes(env, task)
    with pytest.raises(VeriwebError, match="not in the observation's element table"):
        note_action(env, "no-such-bid", ELEMENT)


def test_an_address_built_from_a_text_read_earlier_is_visited_from_a_note(shop: Site) -> None:
    # the home page's link "Hats"; the boots' page links to "/cart" but to nothing under "/Hats"
    # (the address is made up: only the mapping is checked, not the visit)
    task = _variant(shop, "count_orders", ["click('31')", "goto('/Hats')"])
    env = _on(shop, task)
    ((step, [(bid, pointer)]),) = plan_notes(env, task).items()
    env.reset(options={"site": 0, "task": task.id})
    assert step == 0 and env.note_text(note_action(env, bid, pointer)) == "Hats"
    env.step(note_action(env, bid, pointer))
    env.step(env.encode("click('31')"))
    kind, row, arg = env.encode("goto('/Hats')")
    assert arg == env.note_start and env.decode(np.array([kind, row, arg])) == "goto('/Hats')"


def test_an_address_no_page_shows_is_named_as_knowledge_the_agent_lacks(shop: Site) -> None:
    task = _variant(shop, "count_orders", ["goto('/category/Velvet')"])
    with pytest.raises(VeriwebError, match="names 'Velvet', which no page visited so far shows"):
        plan_notes(_on(shop, task), task)
