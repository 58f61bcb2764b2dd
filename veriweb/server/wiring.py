"""Which widget state each region of a page follows, learnt from the engine's own page builder.

A dialog, a collapsible's content, a menu and a tab panel show or hide with one entry of the
session's widget state (``UIState.widgets``). The page model keeps only the result (a node is
visible or not); the browser's widget script needs the entry itself, so that opening a region
in the browser follows exactly the engine's rule. :class:`WiringBuilder` is the engine's
:class:`~veriweb.engine.page.PageBuilder` that also writes down, for every region node, the
entry it follows, its default and whether it is open now.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from veriweb.engine.page import Node, PageBuilder, PageModel
from veriweb.engine.query import Context
from veriweb.engine.session import Session


@dataclass(frozen=True)
class Region:
    """A node that shows or hides with one widget-state entry.

    Attributes:
        wkey: the widget-state key (``UIState.widgets``) the region follows.
        kind: ``dialog``, ``collapsible``, ``menu`` or ``tabpanel``.
        default: the state when the key is unset (a bool, or the selected tab's index).
        open: whether the region itself is open now (its ancestors may still hide it).
        modal: a modal dialog (while open, only it responds).
        index: a tab panel's index; ``count`` the number of tabs.
    """

    wkey: str
    kind: str
    default: Any
    open: bool
    modal: bool = False
    index: int = 0
    count: int = 0


class WiringBuilder(PageBuilder):
    """The engine's page builder, recording a :class:`Region` for each region node by node key."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.regions: dict[str, Region] = {}

    def element(self, parent: Node, item: Any, ctx: Context, key: str) -> None:
        """Add the node(s) for one element, as the engine does, and note the regions among them."""
        before = len(parent.children)
        super().element(parent, item, ctx, key)
        added = parent.children[before:]
        kind = item.type
        if kind == "dialog":
            self.regions[key] = Region(self._wkey(item.id, ctx), "dialog", False, added[0].visible,
                                       modal=item.modal)
        elif kind in ("collapsible", "menu"):
            default = bool(item.open) if kind == "collapsible" else False
            self.regions[key] = Region(self._wkey(item.id, ctx), kind, default, added[-1].visible)
        elif kind == "tabs":
            wkey = self._wkey(item.id, ctx)
            for number in range(len(item.tabs)):
                panel = added[1 + number]
                self.regions[panel.key] = Region(wkey, "tabpanel", item.selected, panel.visible, index=number,
                                                 count=len(item.tabs))

    def build(self, **kwargs: Any) -> PageModel:
        """Build the page and keep the regions in ``renderings["regions"]``."""
        model = super().build(**kwargs)
        model.renderings["regions"] = self.regions
        return model


def regions(session: Session) -> dict[str, Region]:
    """The regions of the session's current page, by node key."""
    page = session.page()
    found = page.renderings.get("regions")
    if found is None:
        found = page.renderings["regions"] = session.build_with(WiringBuilder).renderings["regions"]
    return found
