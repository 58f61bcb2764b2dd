"""Wording: a synonym bank per concept (labels vary between sites), and shared realistic content."""

from __future__ import annotations

import random

SYNONYMS: dict[str, list[str]] = {
    # navigation and account
    "home": ["Home", "Start", "Main page", "Front page", "Overview"],
    "login": ["Log in", "Sign in", "Login", "Sign on", "Account login"],
    "logout": ["Log out", "Sign out", "Logout", "Sign off"],
    "account": ["Account", "My account", "Profile", "Your account", "Me"],
    "username": ["Username", "User name", "Login name", "User ID"],
    "password": ["Password", "Passphrase", "Your password", "Secret"],
    "search": ["Search", "Find", "Look up", "Go", "Search now"],
    "search_box": ["Search", "Search terms", "Keywords", "What are you looking for?", "Query"],
    "about": ["About us", "About", "Our story", "Who we are", "Company"],
    "help": ["Help", "Support", "FAQ", "Help center", "Customer care"],
    "contact": ["Contact", "Contact us", "Get in touch", "Write to us"],
    "menu": ["Menu", "Navigation", "Browse", "More", "Sections"],
    "next": ["Next", "Next page", "Older", "More"],
    "save": ["Save", "Save changes", "Update", "Apply", "Store"],
    "cancel": ["Cancel", "Go back", "Never mind", "Keep it", "No"],
    "submit": ["Submit", "Send", "Post", "Publish", "Done"],
    "delete": ["Delete", "Remove", "Trash", "Discard"],
    "confirm": ["Yes, continue", "Confirm", "Yes, I'm sure", "Proceed", "OK"],
    "settings": ["Settings", "Preferences", "Options", "Configuration"],
    # shop
    "cart": ["Cart", "Basket", "Bag", "Shopping cart", "Shopping bag", "Trolley"],
    "add_to_cart": ["Add to cart", "Add to basket", "Add to bag", "Buy now", "Add"],
    "checkout": ["Checkout", "Proceed to checkout", "Check out", "Continue to payment", "Buy"],
    "orders": ["Orders", "My orders", "Order history", "Purchases", "Your orders"],
    "place_order": ["Place order", "Complete purchase", "Pay now", "Confirm order", "Buy now"],
    "reviews": ["Reviews", "Customer reviews", "Ratings", "What people say"],
    "description": ["Description", "Details", "About this item", "Overview", "Product info"],
    "options": ["Options", "Choose options", "Configure", "Size & quantity", "Buy"],
    "quantity": ["Quantity", "Qty", "How many", "Amount"],
    "size": ["Size", "Choose size", "Fit"],
    "shipping": ["Shipping", "Delivery", "Shipping method", "Delivery option"],
    "address": ["Address", "Street address", "Delivery address", "Street"],
    "city": ["City", "Town", "City / town"],
    "full_name": ["Full name", "Name", "Recipient", "Your name"],
    "categories": ["Categories", "Departments", "Shop by category", "Collections", "Browse"],
    "deals": ["Deals", "Offers", "Sale", "Bargains", "Specials"],
    "wishlist": ["Wishlist", "Saved items", "Favourites", "Wish list"],
    "price_asc": ["Price: low to high", "Cheapest first", "Lowest price", "Price ascending"],
    "price_desc": ["Price: high to low", "Most expensive first", "Highest price", "Price descending"],
    "rating_desc": ["Top rated", "Best rated", "Highest rated", "Customer favourites"],
    "newest": ["Newest", "Most recent", "Latest", "Newest first"],
    "oldest": ["Oldest", "Oldest first", "Earliest"],
    "name_asc": ["Name A-Z", "Alphabetical", "By name", "A to Z"],
}

FIRST_NAMES = """Alice Bob Carol Dave Emma Farid Grace Hiro Ines Jonas Keiko Liam Maya Noah Olga Pablo Quinn Rosa
Samir Tara Umar Vera Wen Ximena Yusuf Zoe Amara Bruno Chloe Diego Elif Felix Greta Hugo Ivy Jamal Kira Leo Mila Nico
Oskar Priya Rafael Sofia Theo Uma Viktor Willa Yara Zain Anouk Bilal Clara Dmitri Esme Finn Gael Hana Igor Jade"""\
    .split()
LAST_NAMES = """Moreau Okafor Nguyen Lindqvist Schmidt Rossi Tanaka Kowalski Haddad Silva Novak Jensen Costa Murphy
Dubois Fischer Ivanova Kim Larsen Mendes Nakamura Obi Petrov Quispe Reyes Sato Torres Usman Varga Weber Yilmaz Zhang
Andersen Bauer Castillo Duarte Eriksen Fontaine Garcia Hansen Ito Jovanovic Keller Lopez Meyer Nilsson Ortiz Park"""\
    .split()
CITIES = """Lyon Cork Toronto Uppsala Porto Kyoto Gdansk Tartu Ghent Bergen Malaga Leeds Bologna Graz Aarhus Basel
Seville Utrecht Tampere Brno Split Nantes Bilbao Halifax Dunedin Cusco Oaxaca Fukuoka Busan Perth""".split()
STREETS = """Maple Avenue|Harbour Road|Rue des Fleurs|Birch Lane|Station Street|Mill Road|Church Street|Park Avenue|
Queen Street|Canal Walk|Hill Road|Market Square|Lake Drive|Orchard Way|River Lane|Bridge Street|Elm Grove|
Garden Row|Castle Hill|Beach Road""".replace("\n", "").split("|")
WORDS = """quiet bright rapid gentle steady curious honest vivid simple clever patient brave calm eager fresh
golden humble lively modern noble proud silent smooth solid swift tender warm wild wise young""".split()


class Labels:
    """The labels one site uses: one synonym per concept, drawn once from the site's stream."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._chosen: dict[str, str] = {}
        self._part: int | None = getattr(rng, "vocab_part", None)

    def _choose(self, options: list[str]) -> str:
        if self._part is not None and len(options) > 1:
            options = options[self._part::2]  # a vocabulary holdout: train and test never share a label
        return self._rng.choice(options)

    def __getitem__(self, concept: str) -> str:
        if concept not in self._chosen:
            self._chosen[concept] = self._choose(SYNONYMS[concept])
        return self._chosen[concept]

    def pick(self, concept: str, options: list[str]) -> str:
        """A site-wide choice among ``options`` for a concept not in the bank."""
        if concept not in self._chosen:
            self._chosen[concept] = self._choose(options)
        return self._chosen[concept]


def person(rng: random.Random) -> tuple[str, str]:
    """A first and last name."""
    return rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)


def street_address(rng: random.Random) -> str:
    """A street address such as ``12 Maple Avenue``."""
    return f"{rng.randint(1, 199)} {rng.choice(STREETS)}"


def password(rng: random.Random, username: str) -> str:
    """A plausible password that differs per user and site."""
    return f"{username[:4]}-{rng.choice(WORDS)}-{rng.randint(10, 99)}"
