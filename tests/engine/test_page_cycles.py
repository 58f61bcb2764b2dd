"""A page's tree holds no reference cycles: a dropped page is freed at once, not by the cycle collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from veriweb.cli import load_site
from veriweb.engine import Session
from veriweb.engine.page import Node, overlay


@pytest.fixture()
def saved_garbage() -> Iterator[list[object]]:
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        yield gc.garbage
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_parent_is_the_node_it_was_added_to_and_none_at_the_root() -> None:
    root = Node("RootWebArea")
    child = root.add(Node("list"))
    leaf = child.add(Node("listitem"))
    assert leaf.parent is child and child.parent is root and root.parent is None
    leaf.parent = root
    assert leaf.parent is root
    leaf.parent = None
    assert leaf.parent is None


def test_built_and_overlaid_pages_leave_no_cyclic_garbage(saved_garbage: list[object]) -> None:
    session = Session(load_site(None), cache=False)  # nothing kept: every page is dropped after use
    session.reset("/", user="alice")
    for _ in range(3):
        for node in list(session.page().nodes):
            if node.interactable and node.role == "link":
                session.step(f"click('{node.bid}')")
                session.step("go_back()")
        page = session.page()
        field = next(n for n in page.nodes if n.editable)
        key = f"{field.behaviour[1]}:{field.behaviour[2]}"
        typed = overlay(page, {key: "red"}, key)
        assert all(n.parent is not None for n in typed.nodes)
        del page, typed, field
    session.close()
    del session
    gc.collect()
    pages = [o for o in saved_garbage if isinstance(o, Node) or type(o).__name__ in ("PageModel", "function")]
    assert pages == []
