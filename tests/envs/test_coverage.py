"""Every certificate maps into DiscreteActions (generated sites of every domain), the argument strings, and notes."""

from __future__ import annotations

import datetime as dt
import importlib.util

import numpy as np
import pytest

from veriweb.envs import DiscreteActions, VeriwebEnv
from veriweb.envs.actions import GO_BACK, GOTO, NUMBER, PART, SEND
from veriweb.envs.arguments import (edited_address, first_number, notes_list, notes_total, other_forms, parts, rows_up_to,
                                    same_address, same_amount, same_rows, same_rows_total, task_strings, word_runs)
from veriweb.envs.coverage import certificate_coverage, check_task, main
from veriweb.envs.pool import generated_site as generate_site  # cached per process
from veriweb.errors import VeriwebError
from veriweb.generate.domains import MODULES
from veriweb.scaffold import Site

DOMAINS = [d for d in MODULES if importlib.util.find_spec(MODULES[d])]


@pytest.mark.parametrize("domain", DOMAINS)
def test_generated_certificates_map_into_discrete_actions(domain: str) -> None:
    site = generate_site(domain, 0)
    checked, misses = certificate_coverage(site)
    assert checked == len(site.tasks) > 0
    assert not misses, "\n".join(map(str, misses))


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_generated_certificates_map_over_many_seeds(domain: str) -> None:
    missed: list[str] = []
    for seed in range(1, 20):
        _, misses = certificate_coverage(generate_site(domain, seed))
        missed += [f"seed {seed}: {m}" for m in misses]
    assert not missed, "\n".join(missed)


def test_example_certificates_map_under_tight_truncation(shop: Site) -> None:
    from veriweb.envs.observation import ObservationConfig

    checked, misses = certificate_coverage(shop, config=ObservationConfig(max_elements=64))
    assert checked == len(shop.tasks) and not misses, [str(m) for m in misses]


def test_a_miss_names_the_step_and_why(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    task = shop.task("add_to_cart")
    assert task is not None
    broken = task.model_copy(update={"certificate": [*task.certificate[:-1], "fill('9999', 'nothing')"]})
    env.base.pool._given[0] = shop.model_copy(update={"tasks": [broken]})
    miss = check_task(env, broken)
    assert miss is not None and miss.step == len(task.certificate) - 1 and "9999" in miss.reason


def test_coverage_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--domains", DOMAINS[0], "--seeds", "0"])
    out = capsys.readouterr().out
    assert "certificates checked, 0 do not map" in out and code == 0


def test_goto_an_earlier_address_and_back(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    env.reset(options={"site": 0, "task": "add_to_cart"})
    start = env.base.page.url
    env.base.step("goto('/cart')")
    assert env.encode(f"goto('{start}')")[0] == GO_BACK  # the page just left: go back
    env.base.step("goto('/orders')")
    assert env.history()[:2] == ["/cart", start]
    kind, row, arg = env.encode(f"goto('{start}')")
    link_to_start = any(env.base.page.by_bid[b].href == start for b in env.base.element_bids)
    assert kind == GOTO and (link_to_start or arg == env.history_start + 1)
    obs, *_ = env.step(np.array([kind, row, arg]))
    assert obs["url"] == start


def test_rows_up_to_and_rows_sharing_a_value() -> None:
    from veriweb.engine.page import Node

    table = Node("table", "Posts")
    header = table.add(Node("row"))
    for label in ("Post", "Board", "Activity"):
        header.add(Node("columnheader", label))
    rows = [("Tent review", "c/hiking", "40 points · 6 comments"), ("Lamp", "c/home", "7 points"),
            ("Boots", "c/hiking", "25 points · 1 comment")]
    cells = []
    for title, board, activity in rows:
        row = table.add(Node("row"))
        cells.append([row.add(Node("cell")).add(Node("link" if i < 2 else "paragraph", text))
                      for i, text in enumerate((title, board, activity))])
    assert rows_up_to(cells[1][0]) == "Tent review, Lamp"
    assert same_rows(cells[0][1]) == "Tent review; Boots" and same_rows_total(cells[2][1]) == "65"
    assert same_rows(cells[0][0]) == "" and rows_up_to(table) == ""


def test_answers_point_at_parts_and_numbers() -> None:
    assert parts("Uma Nguyen · Archived · Mar 24, 2026 09:07") == ["Uma Nguyen", "Archived", "Mar 24, 2026 09:07"]
    assert first_number("80812 members · since May 17, 2018") == "80812"
    assert first_number("Price: $1,299.00") == "$1,299.00" and first_number("none") == ""
    assert same_amount("135.99", "$135.99") and not same_amount("135.99", "Price: $135.99")
    assert not same_amount("135.99", "$135.90")


def test_task_strings_hold_values_forms_and_word_runs(shop: Site) -> None:
    today = dt.date(2026, 6, 1)
    assert other_forms("June 28", today) == ["2026-06-28"]
    assert other_forms("$1,299.00", today) == ["1299.00", "1,299.00"]
    assert other_forms("80,812", today) == ["80812"]
    assert word_runs("Clean up date picker styles")[:2] == ["Clean up date picker", "up date picker styles"]
    assert "telescope" in word_runs("Just got my first telescope") and "my" not in word_runs("Just got my first")
    assert word_runs("single") == []
    task = shop.tasks[0]
    strings = task_strings(task, today, 64)
    values = [str(v) for v in task.slots.values() if f"{{{next(k for k in task.slots if task.slots[k] == v)}}}"
              in task.template]
    assert strings[:len(values)] == values or set(values) <= set(strings)
    assert len(task_strings(task, today, 3)) <= 3 and len(set(strings)) == len(strings)


def test_masks_are_memoised_and_observations_own_their_copies(shop: Site) -> None:
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})
    memo = env.masks()
    assert memo is env.masks() and (memo["argument"] == obs["action_mask"]["argument"]).all()
    with pytest.raises(ValueError):
        memo["element"][0, 0] = 0  # the memo is read-only; observations get copies
    obs["action_mask"]["element"][0, 0] = 0
    assert memo["element"][0, 0] == 1
    assert env.observation_space.contains(obs)
    # every argument a mask allows decodes to a string (no pointer outside its table)
    for kind in np.flatnonzero(memo["type"]):
        for arg in np.flatnonzero(memo["argument"][kind]):
            text = env.decode(np.array([kind, int(np.flatnonzero(memo["element"][kind])[0]), arg]))
            assert isinstance(text, str) and text
    assert SEND > GOTO and NUMBER < PART


@pytest.mark.parametrize("domain", ["shop", "admin", "forum", "code", "travel", "mail"])
def test_patched_observations_equal_full_ones(domain: str) -> None:
    """Pages typed into are encoded as patches (of a relative, or of their base before their nodes are
    made: OverlaidPage), and each patch equals the full encoding of the page's nodes."""
    from veriweb.engine.page import OverlaidPage, _attrs, overlay
    from veriweb.envs.observation import _encode

    env = DiscreteActions(VeriwebEnv(domain, num_sites=2))
    rng = np.random.default_rng(7)
    obs, _ = env.reset(seed=0)
    patched = lazy = 0
    for _ in range(150):
        mask = obs["action_mask"]
        kinds = [k for k in np.flatnonzero(mask["type"]) if k != SEND and k != 9] or [0]
        kind = int(rng.choice(kinds))
        rows, args = np.flatnonzero(mask["element"][kind]), np.flatnonzero(mask["argument"][kind])
        obs, _, terminated, truncated, _ = env.step(np.array([kind, rng.choice(rows), rng.choice(args)]))
        view = env.base.view
        page = env.base.page
        if isinstance(page, OverlaidPage) and not page.made:  # encoded without making its nodes
            lazy += 1
            made = overlay(page.base, page.fields, page.focus)
            for number, copy in page.changed().items():  # the changed nodes are what overlay() makes
                assert _attrs(copy) == _attrs(made.nodes[number])
            assert [_attrs(node) for node in page.nodes] == [_attrs(node) for node in made.nodes] and page.made
            assert page.by_bid.keys() == made.by_bid.keys() and page.parents == made.parents
        full = _encode(page, env.base.config)
        patched += view is not full and view.lines != () and id(env.base.page.forms) in env.base._relatives \
            and env.base._relatives[id(env.base.page.forms)][1] is not env.base.page
        assert view.axtree == full.axtree and view.bids == full.bids
        for name, array in full.arrays.items():
            assert (view.arrays[name] == array).all(), name
        assert (view.usable == full.usable).all() and (view.has_text == full.has_text).all()
        if terminated or truncated:
            obs, _ = env.reset()
    assert patched > 0 and lazy > 0  # both patch paths ran


# ---------------------------------------------------------------------- notes


def test_parts_split_a_route_and_notes_aggregate() -> None:
    assert parts("Brussels → Nice") == ["Brussels", "Nice"]
    assert notes_total(["Amount due: $44.81", "$56.99"]) == "$101.80"
    assert notes_total(["6 points", "25"]) == "31" and notes_total(["1.5", "1"]) == "2.5"
    assert notes_total(["none", "no figure"]) == "" and notes_total(["$1,000.00", "$299.50"]) == "$1,299.50"
    assert notes_list(["Bella Vista, Grand House", "Park Suites"]) == "Bella Vista, Grand House, Park Suites"



def test_goto_an_edited_address(shop: Site) -> None:
    assert edited_address("/mail/Inbox", "Bin") == "/mail/Bin" and edited_address("/", "Bin") == "/Bin"
    assert edited_address("/search?q=shoes", "red hat") == "/search?q=red+hat"
    assert same_address("/mail/Work%20Stuff", "/mail/Work Stuff") and not same_address("/a?q=1", "/a?q=2")
    env = DiscreteActions(VeriwebEnv(sites=[shop]))
    obs, _ = env.reset(options={"site": 0, "task": "add_to_cart"})  # its quantity, 2, is a task string
    assert not any(env.base.page.by_bid[b].href == "/product/2" for b in env.base.element_bids)
    kind, row, arg = env.encode("goto('/product/2')")
    assert kind == GOTO and env.task_strings()[arg - env.task_start] == "2"
    assert obs["action_mask"]["argument"][GOTO, arg] and obs["action_mask"]["element"][GOTO, row]
    obs, *_ = env.step(np.array([kind, row, arg]))
    assert obs["url"] == "/product/2"
    with pytest.raises(VeriwebError, match="no link's address with its last part edited"):
        env.encode("goto('/nowhere/at/all')")
