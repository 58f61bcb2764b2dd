"""Site chrome shared by every domain: navigation layout, account controls, info pages and noise.

What varies with the structure stream: where the main navigation sits (a top bar, a sidebar,
a menu button, or split between the header and the footer), whether pages carry breadcrumbs,
which information pages exist (about, help with a collapsible FAQ, contact with a dialog,
careers, press, privacy, terms, blog), promotion banners, and how many links the footer holds.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from veriweb.generate import kit
from veriweb.generate.vocab import Labels

NAV_STYLES = ("topbar", "sidebar", "menu", "split")

INFO_PAGES: dict[str, tuple[str, list[str]]] = {
    "about": ("about", ["{site} started in a small workshop and still answers every message itself.",
                        "We care about doing a few things well."]),
    "help": ("help", ["Most questions are answered below.", "Still stuck? Write to us any time."]),
    "contact": ("contact", ["We usually answer within one working day."]),
    "careers": ("careers", ["We are hiring people who like careful work.", "No open positions right now."]),
    "press": ("press", ["For press enquiries, write to our press office."]),
    "privacy": ("privacy", ["We keep only the data we need to serve you.", "We never sell your data."]),
    "terms": ("terms", ["By using this site you agree to be kind to other people."]),
    "blog": ("blog", ["Notes from the team, now and then."]),
}
INFO_TITLES = {"about": "about", "help": "help", "contact": "contact"}
PROMOS = [  # no promise the site's markers do not keep (free delivery, a discount no marker gives)
    "Thanks for stopping by.", "New here? Have a look around.",
    "Our spring collection has arrived.", "Members get early access to new features.",
    "Scheduled maintenance on Sunday night: the site may be slow.", "Rated excellent by our users.",
]


@dataclass
class Chrome:
    """The layout (header and footer), extra pages, and whether pages show breadcrumbs."""

    layout: dict[str, Any]
    pages: list[dict[str, Any]] = field(default_factory=list)
    breadcrumbs: bool = False
    nav_style: str = "topbar"

    def crumbs(self, trail: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """A breadcrumb trail element for a page (nothing when this site shows none)."""
        if not self.breadcrumbs or not trail:
            return []
        return [kit.section([kit.link(label, href) for label, href in trail], role="navigation", label="Breadcrumb")]


def build_chrome(rng: random.Random, labels: Labels, site_name: str, nav: list[tuple[str, str]],
                 *, accounts: bool = True) -> Chrome:
    """Build the chrome of a site.

    Args:
        rng: the structure stream.
        labels: the site's labels.
        site_name: shown as the home link and in texts.
        nav: the main navigation, ``(label, href)``, home first.
        accounts: add a log-in link and a log-out button.
    """
    style = rng.choice(NAV_STYLES)
    links = [kit.link(label, href) for label, href in nav]
    account_items: list[dict[str, Any]] = []
    if accounts:
        account_items = [kit.link(labels["login"], "/login"),
                         kit.form(labels["logout"], {"kind": "logout", "redirect": "/"})]
    info_names = sorted(rng.sample(sorted(INFO_PAGES), rng.randint(1, 5)))
    pages = [_info_page(rng, labels, site_name, name) for name in info_names]
    info_links = [kit.link(_info_label(labels, name), f"/{name}") for name in info_names]

    header: list[dict[str, Any]] = []
    banner = [kit.link(site_name, "/")]
    if rng.random() < 0.4:
        header.append(kit.section([kit.text(rng.choice(PROMOS))], role="region", label="Announcement"))
    if style == "topbar":
        banner.append(kit.section(links, role="navigation", label="Main"))
        header.append(kit.section(banner, role="banner"))
        if account_items:
            header.append(kit.menu("account_menu", labels["account"], account_items))
    elif style == "sidebar":
        header.append(kit.section(banner + account_items, role="banner"))
        header.append(kit.section([kit.section(links, role="navigation", label=labels["menu"])],
                                  role="complementary"))
    elif style == "menu":
        banner.append(kit.menu("main_menu", labels["menu"], links))
        header.append(kit.section(banner + account_items, role="banner"))
    else:  # split: the first half of the links in the header, the rest in the footer
        half = max(2, len(links) // 2)
        banner.append(kit.section(links[:half], role="navigation", label="Main"))
        header.append(kit.section(banner, role="banner"))
        if account_items:
            header.append(kit.menu("account_menu", labels["account"], account_items))
        info_links = links[half:] + info_links

    footer_items: list[dict[str, Any]] = [kit.text(f"{site_name}, since {rng.randint(1998, 2022)}.")]
    footer_items.append(kit.section(info_links, role="navigation", label="Footer"))
    if rng.random() < 0.5:  # a footer full of links, as real sites have
        extra = [kit.link(label, href) for label, href in rng.sample(nav, k=min(len(nav), rng.randint(2, 4)))]
        footer_items.append(kit.section(extra, role="navigation", label="Quick links"))
    return Chrome(layout={"header": header, "footer": [kit.section(footer_items, role="contentinfo")]},
                  pages=pages, breadcrumbs=rng.random() < 0.5, nav_style=style)


def _info_label(labels: Labels, name: str) -> str:
    concept = INFO_TITLES.get(name)
    return labels[concept] if concept else name.capitalize()


def _info_page(rng: random.Random, labels: Labels, site_name: str, name: str) -> dict[str, Any]:
    title = _info_label(labels, name)
    paragraphs = [kit.text(line.format(site=site_name)) for line in INFO_PAGES[name][1]]
    elements: list[dict[str, Any]] = [kit.heading(title, 1), *paragraphs]
    if name == "help":
        for number, question in enumerate(["How do I reset my password?", "Can I change my mind?"]):
            elements.append(kit.collapsible(f"faq{number}", question, [kit.text("Write to us and we will help.")]))
    if name == "contact":
        elements.append(kit.button(labels["contact"], "contact_dialog", "open"))
        elements.append(kit.dialog("contact_dialog", labels["contact"], [
            kit.text(f"Write to hello@{site_name.lower().replace(' ', '')}.example."),
            kit.button("Close", "contact_dialog", "close")]))
    return kit.page(name, f"/{name}", title, elements)


def login_page(labels: Labels, intro: str = "") -> dict[str, Any]:
    """The ``/login`` page every site with accounts has."""
    elements: list[dict[str, Any]] = [kit.heading(labels["login"], 1)]
    if intro:
        elements.append(kit.text(intro))
    elements.append(kit.form(labels["login"], {"kind": "login", "username_field": "username",
                                                "password_field": "password", "redirect": "/"},
                             [kit.textbox("username", labels["username"], required=True),
                              kit.textbox("password", labels["password"], kind="password", required=True)],
                             label=labels["login"]))
    return kit.page("login", "/login", labels["login"], elements)


def login_plan(labels: Labels, username: str, secret: str, *, via_link: bool) -> list[tuple[Any, ...]]:
    """Plan steps that log in from wherever the agent is (through the log-in link, or by URL)."""
    first: tuple[Any, ...] = ("click", "link", labels["login"]) if via_link else ("goto", "/login")
    return [first, ("fill", "textbox", labels["username"], username),
            ("fill", "textbox", labels["password"], secret), ("click", "button", labels["login"])]
