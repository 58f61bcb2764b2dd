"""Forum blueprint: communities, posts, comments, votes, memberships, profiles with karma, hot/new/top.

Description:
    A Reddit-like discussion site. Communities (one of them a buy-and-sell marketplace whose posts
    carry an asking price) hold hundreds of posts; each post has a score, comments and, on some
    sites, a flair. Users vote once per post (up, down, or take the vote back), comment, join and
    leave communities, create, edit and delete their own posts, and have a profile with karma, a
    join date and their post and comment history. Lists sort by hot, new and top (and, on some
    sites, by comment count); a search finds posts, communities and people. Posts older than six
    months are archived: no new votes or comments.

    What varies with the structure stream: the community prefix (``f/``, ``c/``, ``r/``) and
    routes, which communities exist, a community directory, a "my communities" page, saved
    posts, flairs, where the search sits and whether its results are tabbed, creating a post from
    the community page or from a global form with a community picker, lists or tables, page
    sizes, the sort options, where a post's owner tools sit (menu, collapsible, plain), how the
    comment box opens (plain, collapsible, dialog), tabbed or plain profiles, confirmation
    dialogs, field order, and every label (see ``TERMS``), besides the chrome of
    ``veriweb.generate.layout``.

    Tasks: open a community's top or newest post, or a post's author; count comments or
    members, find a join or post date, the author of the top post, a listing's asking price,
    the cheapest of three listings, the titles or total score of one's own or another user's
    posts in a community, the members of two communities together;
    vote, comment, create a post (with a flair), edit a post's text without touching its title,
    join and leave several communities, delete a post (and leave its community) after logging
    in; and one infeasible task about a community or user that does not exist.

Action Space:
    BrowserGym high-level actions on the rendered pages (see ``veriweb.engine.actions``).

Observation Space:
    The engine's page model: accessibility-tree text, element list, HTML.

Rewards:
    From the task's goal and progress predicates over the database (see ``veriweb.engine.judge``).

Starting State:
    The seeded database; the task's start URL, logged in when the task says so.

Episode End:
    As ``veriweb.engine.episode`` rules: an answer, an infeasibility report, the goal reached, a
    broken constraint or footprint, or the step budget.

Arguments:
    ``Streams`` of the site's seed: ``structure`` (communities, pages, labels, widgets, layout),
    ``content`` (records), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page, login_plan
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import as_user, make_task, next_pages, start_elsewhere, with_login
from veriweb.generate.vocab import WORDS, Labels, password, person

Data = dict[str, Any]
Step = tuple[Any, ...]

SITE_NAMES = ["Threadbare", "Campfire", "Hivemind", "Commonroom", "Soapbox", "Roundtable", "Town Square",
              "Backporch", "Chatterbox", "Lanternly", "Driftwood", "Kettle Club"]
FORUMS: dict[str, tuple[str, str, list[str]]] = {
    "woodworking": ("Woodworking", "Projects, tools and techniques for people who make things from wood.",
                    ["walnut side table", "dovetail box", "cutting board", "workbench", "hand plane", "oak bookshelf",
                     "router table", "carved spoon", "live-edge desk", "jewelry box", "bandsaw", "rocking chair"]),
    "homecooking": ("Home Cooking", "Recipes, techniques and kitchen wins from home cooks.",
                    ["sourdough starter", "cast iron skillet", "Dutch oven", "rice cooker", "pasta machine", "wok",
                     "stand mixer", "chef knife", "knife block", "smoker", "pizza oven", "spice rack"]),
    "gardening": ("Gardening", "Vegetables, flowers and everything that grows.",
                  ["raised bed", "compost bin", "potting bench", "fig tree", "rose bush", "trellis", "seed tray",
                   "rain barrel", "pepper plant", "lawn mower", "greenhouse", "apple tree"]),
    "cycling": ("Cycling", "Road, gravel and commuting: rides, gear and routes.",
                ["gravel bike", "saddle", "road bike", "turbo trainer", "wheelset", "bike light", "cargo bike",
                 "bike lock", "helmet", "bike computer", "bike rack", "derailleur"]),
    "photography": ("Photography", "Share your shots and talk cameras, lenses and light.",
                    ["prime lens", "film camera", "tripod", "mirrorless camera", "zoom lens", "lens filter",
                     "camera bag", "light meter", "macro lens", "photo printer", "flash", "camera strap"]),
    "boardgames": ("Board Games", "Tabletop games, strategy and game-night stories.",
                   ["deck-builder", "game shelf", "co-op game", "chess set", "dice tower", "card insert",
                    "worker placement game", "party game", "miniature", "game table", "expansion", "dice set"]),
    "homelab": ("Homelab", "Servers, networks and tinkering at home.",
                ["server rack", "NAS", "mesh router", "mini PC", "backup drive", "firewall", "rack shelf",
                 "media server", "switch", "Raspberry Pi cluster", "patch panel", "GPU server"]),
    "running": ("Running", "Training, races and shoes for runners of every pace.",
                ["running watch", "trail shoe", "foam roller", "hydration vest", "treadmill", "headlamp",
                 "running belt", "heart rate strap", "massage gun", "race jacket", "running stroller", "insole"]),
    "books": ("Books", "What are you reading? Reviews, lists and recommendations.",
              ["e-reader", "bookshelf", "reading lamp", "first edition", "book light", "signed copy",
               "box set", "reading chair", "book stand", "audiobook player", "library tote", "poetry collection"]),
    "astronomy": ("Astronomy", "Observing, astrophotography and the night sky.",
                  ["telescope", "star chart", "eyepiece", "Dobsonian", "mount", "moon filter", "star tracker",
                   "finder scope", "planisphere", "binocular mount", "dew heater", "solar filter"]),
    "aquariums": ("Aquariums", "Fish, plants and tanks of every size.",
                  ["planted tank", "canister filter", "nano tank", "CO2 regulator", "heater", "water test kit",
                   "driftwood piece", "air pump", "LED light", "shrimp tank", "sponge filter", "reef tank"]),
    "coffee": ("Coffee", "Beans, brewing and espresso at home.",
               ["espresso machine", "hand grinder", "pour-over kettle", "moka pot", "French press", "coffee scale",
                "milk frother", "AeroPress", "burr grinder", "cold brew maker", "tamper", "dripper"]),
    "hiking": ("Hiking", "Trails, trip reports and gear for walking in the hills.",
               ["day pack", "hiking boot", "trekking pole", "water filter", "rain shell", "trail map",
                "sleeping bag", "camp stove", "tent", "GPS watch", "bivy bag", "trail runner"]),
    "keyboards": ("Mechanical Keyboards", "Switches, keycaps and custom builds.",
                  ["keycap set", "split keyboard", "switch tester", "custom build", "wrist rest", "macro pad",
                   "keyboard case", "stabilizer", "artisan keycap", "desk mat", "65% board", "PCB"]),
}
MARKET_NAMES = ["gearswap", "marketplace", "swapmeet", "forsale"]
MARKET_ITEMS = [("road bike", 250, 900), ("camera lens", 80, 300), ("mechanical keyboard", 40, 200),
                ("camping tent", 60, 250), ("espresso machine", 100, 600), ("standing desk", 80, 350),
                ("board game bundle", 20, 90), ("telescope", 150, 800), ("trail running shoes", 30, 90),
                ("sewing machine", 60, 300), ("3D printer", 120, 500), ("aquarium kit", 40, 150),
                ("e-reader", 40, 120), ("climbing rope", 50, 150), ("guitar amp", 80, 400)]
MARKET_ADJ = ["Lightly used", "Like-new", "Vintage", "Barely used", "Well-loved", "Refurbished", "Boxed", "Spare"]
MARKET_FORMS = ["[Selling] {adj} {item}", "[FS] {adj} {item}", "{adj} {item} for sale", "WTS: {adj} {item}"]
TITLE_FORMS = ["Just got my first {n}", "Is {a} {n} worth it?", "First {n} - feedback welcome",
               "What am I doing wrong with my {n}?", "Show and tell: my {n}", "Best budget {n} right now?",
               "Need advice on my {n}", "Rate my {n}", "My {n} after six months", "Thoughts on this {n}?",
               "Brought an old {n} back to life", "How do you maintain your {n}?", "{N} recommendations?",
               "Anyone else having trouble with their {n}?", "Spent the weekend on my {n}", "Picked up {a} {n} secondhand"]
NEW_TITLE_FORMS = ["Looking for tips on my new {n}", "Help me choose {a} {n}", "Proud of this {n}",
                   "Question about my {n}", "Is my {n} normal?"]
BODY_LINES = ["Took me a few weekends but I am happy with how the {n} turned out.",
              "Any advice is welcome. I am still learning.", "Photos in the comments. Be gentle!",
              "I read the wiki but could not find an answer about the {n}.", "Curious what everyone here thinks.",
              "Budget is tight so I want to get the {n} right the first time.",
              "Update: thanks for all the suggestions so far.", "Mods, feel free to remove if this is off topic.",
              "Long time lurker, first post.", "Happy to answer questions about the {n}."]
NEW_BODIES = ["What would you do differently?", "Any recommendations are welcome.",
              "Sharing in case it helps someone else.", "Open to all suggestions, thanks in advance."]
EDIT_BODIES = ["Edit: solved, thanks everyone!", "Update: the problem turned out to be a loose part.",
               "Edit: thanks for all the advice, marking this as answered.", "Update: added photos and a parts list."]
COMMENTS = ["This looks great!", "Did you use a guide for that?", "Saving this for later.",
            "Same thing happened to me last year.", "Welcome to the hobby.", "Have you checked the FAQ?",
            "That is a clean result.", "I would try a different approach.", "Following for updates.",
            "Great question, I have wondered the same.", "Looks solid to me.", "Underrated post.",
            "Mine took twice as long, do not worry.", "Which brand is that?", "Thanks for sharing."]
NEW_COMMENTS = ["Thanks for sharing this, really helpful.", "Great write-up. Bookmarking it.",
                "I had the same problem and an update fixed it.", "Could you post a photo of the back?",
                "This is the kind of post I come here for."]
BIOS = ["Weekend tinkerer.", "Here for the discussions.", "Mostly lurking.", "Ask me about my projects.",
        "Learning something new every day.", "Coffee first."]
RULES = ["Be kind and stay on topic.", "No spam or self-promotion.", "Search before you post.",
         "Use a clear title.", "No low-effort posts."]
FLAIRS = ["Discussion", "Question", "Showcase", "News", "Help"]

TODAY = dt.date(2026, 6, 15)
CUTOFF = "2025-12-17"
"""Posts created before this day (six months before the clock's day) are archived."""
TODAY_ORD = TODAY.year * 372 + TODAY.month * 31 + TODAY.day
AGE_SQL = (f"({TODAY_ORD} + 2 - (CAST(substr(p.created, 1, 4) AS INTEGER) * 372 + CAST(substr(p.created, 6, 2) "
           "AS INTEGER) * 31 + CAST(substr(p.created, 9, 2) AS INTEGER)))")
"""A post's age in (31-day-month) days plus two, in SQL: the hot rank is ``(score + 1) / age²``."""

TERMS: dict[str, list[str]] = {
    "communities": ["Communities", "Forums", "Boards", "Groups", "All communities"],
    "new_post": ["New post", "Create post", "Start a thread", "Submit a post", "Write a post"],
    "post_title": ["Title", "Post title", "Subject", "Headline"],
    "post_body": ["Text", "Body", "Message", "Post text", "Content"],
    "publish": ["Post", "Publish", "Submit post", "Create"],
    "comment_box": ["Comment", "Your comment", "Add a comment", "What are your thoughts?"],
    "comment_submit": ["Reply", "Send", "Post comment", "Add comment"],
    "comment_open": ["Write a comment", "Join the discussion", "Leave a comment", "Add your reply"],
    "votes": ["Upvote|Downvote", "Vote up|Vote down", "Like|Dislike", "+1|-1"],
    "unvote": ["Remove vote", "Undo vote", "Clear vote", "Take back vote"],
    "membership": ["Join|Leave", "Subscribe|Unsubscribe", "Follow|Unfollow", "Join community|Leave community"],
    "edit": ["Edit", "Edit post", "Modify"],
    "delete_post": ["Delete", "Delete post", "Remove post"],
    "my_profile": ["My profile", "Your profile", "My page", "My activity"],
    "my_communities": ["My communities", "Joined", "Subscriptions", "Your communities"],
    "post_actions": ["Post options", "Manage post", "Actions", "Owner tools"],
    "hot": ["Hot", "Trending", "Popular", "Rising"],
    "new": ["New", "Newest", "Latest", "Recent"],
    "top": ["Top", "Top scoring", "Most upvoted", "Best"],
    "most_comments": ["Most comments", "Most discussed", "Busiest", "Comments"],
    "feed": ["Popular posts", "Front page", "Trending today", "All posts", "What's new"],
    "people": ["People", "Users", "Members", "Accounts"],
    "posts": ["Posts", "Threads", "Topics", "Submissions"],
    "comments": ["Comments", "Discussion", "Replies", "Responses"],
    "flair": ["Flair", "Tag", "Post type", "Label"],
    "community_field": ["Community", "Forum", "Post to", "Board"],
    "saved": ["Saved", "Bookmarks", "Saved posts", "Reading list"],
    "save_post": ["Save|Unsave", "Bookmark|Remove bookmark", "Save for later|Unsave"],
    "rules": ["Community rules", "Rules", "Posting guidelines", "About this community"],
}
"""Labels this domain adds to the shared bank (drawn with ``Labels.pick``); pairs are split on "|".
Synonyms of different concepts never coincide where a plan clicks them by name."""
SORT_COLUMNS = {"hot": "hot", "new": "created", "top": "score", "most_comments": "comments"}

# ----------------------------------------------------------------------------- structure


@dataclass
class _Shape:
    """The site's structure, drawn from the structure stream: what exists, its labels, its widgets."""

    labels: Labels
    words: dict[str, str]
    name: str
    prefix: str
    forums: list[str]
    market: str
    post_path: str
    has_flair: bool
    has_directory: bool
    has_subs_page: bool
    has_saved: bool
    search_in_header: bool
    search_tabs: bool
    submit_mode: str
    listing_kind: str
    page_size: int
    feed_size: int
    actions_ui: str
    comment_ui: str
    profile_ui: str
    confirm_delete: bool
    confirm_leave: bool
    post_fields: list[str]
    sorts: list[tuple[str, str, str, str]]
    votes: tuple[str, str]
    membership: tuple[str, str]
    save: tuple[str, str]


def _shape(rng: random.Random) -> _Shape:
    labels = Labels(rng)

    def pair(concept: str) -> tuple[str, str]:
        first, second = labels.pick(concept, TERMS[concept]).split("|")
        return first, second

    pairs = {c: pair(c) for c in ("votes", "membership", "save_post")}
    words = {c: labels.pick(c, TERMS[c]) for c in TERMS if c not in pairs}
    has_flair = rng.random() < 0.5
    keys = ["new", "top"] + (["most_comments"] if rng.random() < 0.5 else [])
    keys = ["hot"] + rng.sample(keys, len(keys))
    return _Shape(
        labels=labels, words=words, name=rng.choice(SITE_NAMES), prefix=rng.choice(["f", "c", "r"]),
        forums=sorted(rng.sample(sorted(FORUMS), rng.randint(7, 10))), market=rng.choice(MARKET_NAMES),
        post_path=rng.choice(["post", "comments", "thread", "p"]), has_flair=has_flair,
        has_directory=rng.random() < 0.6, has_subs_page=rng.random() < 0.5, has_saved=rng.random() < 0.4,
        search_in_header=rng.random() < 0.6, search_tabs=rng.random() < 0.5,
        submit_mode=rng.choice(["forum", "global"]), listing_kind=rng.choice(["list", "table"]),
        page_size=rng.choice([10, 12, 15]), feed_size=rng.choice([6, 8]),
        actions_ui=rng.choice(["menu", "collapsible", "plain"]), comment_ui=rng.choice(["plain", "collapsible", "dialog"]),
        profile_ui=rng.choice(["tabs", "plain"]), confirm_delete=rng.random() < 0.7, confirm_leave=rng.random() < 0.4,
        post_fields=rng.sample(["title", "body", "flair"] if has_flair else ["title", "body"], 3 if has_flair else 2),
        sorts=[(k, words[k], SORT_COLUMNS[k], "desc") for k in keys],
        votes=pairs["votes"], membership=pairs["membership"], save=pairs["save_post"])


# ----------------------------------------------------------------------------- content


def _title(form: str, noun: str) -> str:
    """A post title from a form such as ``"Is {a} {n} worth it?"`` and a noun."""
    text = form.format(n=noun, N=noun[0].upper() + noun[1:], a="an" if noun[0] in "aeioAEIO" else "a")
    return text[0].upper() + text[1:]


def _hot(score: int, created: str) -> float:
    """The hot rank, exactly as ``post_view`` computes it (the same float operations)."""
    age = TODAY_ORD + 2 - (int(created[:4]) * 372 + int(created[5:7]) * 31 + int(created[8:10]))
    return (score + 1.0) / (age * age)


def _stamp(rng: random.Random, first: int, last: int) -> str:
    """A datetime on a day between ``first`` and ``last`` days before the clock's day."""
    day = dt.date.fromordinal(TODAY.toordinal() - rng.randint(first, last))
    return f"{day.isoformat()}T{rng.randint(6, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _later(rng: random.Random, created: str) -> str:
    """A datetime a little after ``created`` (a comment on a post), at the latest yesterday."""
    day = min(dt.date.fromisoformat(created[:10]).toordinal() + int(rng.expovariate(0.5)), TODAY.toordinal() - 1)
    return max(f"{dt.date.fromordinal(day).isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00",
               created[:17] + "59")


def _forums(rng: random.Random, shape: _Shape) -> list[Data]:
    forums = [{"id": i + 1, "name": name, "title": FORUMS[name][0], "description": FORUMS[name][1],
               "nouns": FORUMS[name][2], "rules": " ".join(rng.sample(RULES, 2)),
               "created": f"20{rng.randint(12, 23)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"}
              for i, name in enumerate(shape.forums)]
    forums.append({"id": len(forums) + 1, "name": shape.market, "title": "Buy, Sell and Trade",
                   "description": "Buy, sell and trade used gear. No scams, no shipping-only sellers.", "nouns": [],
                   "rules": "Every listing needs a price. Be honest about condition.", "created": "2019-03-02"})
    return forums


def _users(rng: random.Random, count: int) -> list[Data]:
    users: list[Data] = []
    seen: set[str] = set()
    while len(users) < count:
        first, last = person(rng)
        username = [f"{first.lower()}_{last[:3].lower()}", f"{first.lower()}{rng.randint(2, 99)}",
                    f"{rng.choice(WORDS)}_{first.lower()}", f"{last.lower()}{rng.randint(70, 99)}"][rng.randrange(4)]
        if username not in seen:
            seen.add(username)
            users.append({"id": len(users) + 1, "username": username, "password": password(rng, username),
                          "name": f"{first} {last}", "joined": _stamp(rng, 40, 2500)[:10], "bio": rng.choice(BIOS)})
    return users


def _content(rng: random.Random, forums: list[Data], has_flair: bool) -> Data:
    """Users, posts (with their comment count and hot rank), comments, votes and memberships."""
    users = _users(rng, rng.randint(30, 55))
    market_id = forums[-1]["id"]
    posts: list[Data] = []
    titles: set[str] = set()
    for _ in range(rng.randint(220, 380)):
        forum, author = rng.choice(forums), rng.choice(users)
        price = None
        if forum["id"] == market_id:
            noun, low, high = rng.choice(MARKET_ITEMS)
            title = rng.choice(MARKET_FORMS).format(adj=rng.choice(MARKET_ADJ), item=noun)
            price = rng.randint(low, high) * 100
            body = f"Asking ${price // 100}. Local pickup preferred, can ship at the buyer's cost."
        else:
            noun = rng.choice(forum["nouns"])
            title = _title(rng.choice(TITLE_FORMS), noun)
            body = " ".join(line.format(n=noun) for line in rng.sample(BODY_LINES, 2))
        if title in titles:
            continue
        titles.add(title)
        created = max(_stamp(rng, 1, 330), author["joined"] + "T12:00:00")
        posts.append({"id": len(posts) + 1, "forum_id": forum["id"], "user_id": author["id"], "title": title,
                      "body": body, "created": created, "score": int(rng.expovariate(1 / 35)) - rng.randint(0, 6),
                      "flair": rng.choice(FLAIRS) if has_flair else None, "price": price,
                      "edited": rng.random() < 0.1, "noun": noun})
    comments = []
    for _ in range(rng.randint(420, 760)):
        post, commenter = rng.choice(posts), rng.choice(users)
        body, created = rng.choice(COMMENTS), _later(rng, post["created"])
        comments.append({"id": len(comments) + 1, "post_id": post["id"], "user_id": commenter["id"], "body": body,
                         "created": max(created, commenter["joined"] + "T12:00:00"),  # nobody comments before joining
                         "score": rng.randint(-2, 40)})
    votes: list[Data] = []
    voted: set[tuple[int, int]] = set()
    for _ in range(rng.randint(250, 420)):
        user, post = rng.choice(users), rng.choice(posts)
        if (user["id"], post["id"]) not in voted:
            voted.add((user["id"], post["id"]))
            votes.append({"id": len(votes) + 1, "user_id": user["id"], "post_id": post["id"],
                          "value": 1 if rng.random() < 0.8 else -1})
    subs: list[Data] = []
    for user in users:
        for forum in sorted(rng.sample(forums, rng.randint(1, min(5, len(forums) - 2))), key=lambda f: f["id"]):
            subs.append({"id": len(subs) + 1, "user_id": user["id"], "forum_id": forum["id"]})
    for forum in forums:
        forum["members"] = rng.randint(800, 90_000) + sum(1 for s in subs if s["forum_id"] == forum["id"])
    counts: dict[int, int] = {}
    for comment in comments:
        counts[comment["post_id"]] = counts.get(comment["post_id"], 0) + 1
    for post in posts:
        post["comments"], post["hot"] = counts.get(post["id"], 0), _hot(post["score"], post["created"])
    return {"users": users, "posts": posts, "comments": comments, "votes": votes, "subs": subs}


# ----------------------------------------------------------------------------- database and markers


def _table(name: str, columns: list[tuple[str, str]], rows: list[Data], *, nullable: tuple[str, ...] = (),
           **extra: Any) -> Data:
    table = kit.table_def(name, columns, rows, **extra)
    for column in table["columns"]:
        if column["name"] in nullable:
            column["nullable"] = True
    return table


def _database(shape: _Shape, forums: list[Data], data: Data) -> Data:
    tables = [
        _table("forums", [("id", "integer"), ("name", "text"), ("title", "text"), ("description", "text"),
                          ("rules", "text"), ("created", "date"), ("members", "integer")],
               [{k: f[k] for k in ("id", "name", "title", "description", "rules", "created", "members")} for f in forums],
               indexes=[["name"]]),
        _table("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                         ("joined", "date"), ("bio", "text")], data["users"], indexes=[["username"]]),
        _table("posts", [("id", "integer"), ("forum_id", "integer"), ("user_id", "integer"), ("title", "text"),
                         ("body", "text"), ("created", "datetime"), ("score", "integer"), ("flair", "text"),
                         ("price", "money"), ("edited", "boolean")],
               [{k: v for k, v in p.items() if k not in ("noun", "comments", "hot")} for p in data["posts"]],
               nullable=("flair", "price"), foreign_keys=[("forum_id", "forums"), ("user_id", "users")],
               indexes=[["title"]]),
        _table("comments", [("id", "integer"), ("post_id", "integer"), ("user_id", "integer"), ("body", "text"),
                            ("created", "datetime"), ("score", "integer")], data["comments"],
               foreign_keys=[("post_id", "posts"), ("user_id", "users")]),
        _table("votes", [("id", "integer"), ("user_id", "integer"), ("post_id", "integer"), ("value", "integer")],
               data["votes"], foreign_keys=[("user_id", "users"), ("post_id", "posts")]),
        _table("subscriptions", [("id", "integer"), ("user_id", "integer"), ("forum_id", "integer")], data["subs"],
               foreign_keys=[("user_id", "users"), ("forum_id", "forums")]),
    ]
    views = [
        {"name": "post_view", "money_columns": ["price"],
         "sql": "SELECT p.id AS id, p.forum_id AS forum_id, f.name AS forum, p.user_id AS user_id, u.username AS author, "
                "p.title AS title, p.body AS body, p.created AS created, substr(p.created, 1, 10) AS posted_on, "
                "p.score AS score, p.flair AS flair, p.price AS price, p.edited AS edited, "
                "(SELECT count(*) FROM comments c WHERE c.post_id = p.id) AS comments, "
                f"(p.score + 1.0) / ({AGE_SQL} * {AGE_SQL}) AS hot, "
                f"CASE WHEN p.created < '{CUTOFF}' THEN ' · archived' WHEN p.edited THEN ' · edited' ELSE '' END AS state "
                "FROM posts p JOIN forums f ON f.id = p.forum_id JOIN users u ON u.id = p.user_id"},
        {"name": "comment_view",
         "sql": "SELECT c.id AS id, c.post_id AS post_id, c.user_id AS user_id, u.username AS author, c.body AS body, "
                "c.created AS created, c.score AS score, p.title AS post_title FROM comments c "
                "JOIN users u ON u.id = c.user_id JOIN posts p ON p.id = c.post_id"},
        {"name": "user_stats",
         "sql": "SELECT u.id AS id, u.username AS username, u.name AS name, u.joined AS joined, u.bio AS bio, "
                "coalesce((SELECT sum(score) FROM posts WHERE user_id = u.id), 0) + "
                "coalesce((SELECT sum(score) FROM comments WHERE user_id = u.id), 0) AS karma FROM users u"},
        {"name": "sub_view",
         "sql": "SELECT s.id AS id, s.user_id AS user_id, s.forum_id AS forum_id, f.name AS name, f.title AS title "
                "FROM subscriptions s JOIN forums f ON f.id = s.forum_id"},
        {"name": "membership",  # one row per community and user, and one for nobody logged in
         "sql": "SELECT f.id AS id, f.id AS forum_id, u.id AS user_id, EXISTS (SELECT 1 FROM subscriptions s WHERE "
                "s.user_id = u.id AND s.forum_id = f.id) AS joined FROM forums f CROSS JOIN users u "
                "UNION ALL SELECT f.id, f.id, NULL, 0 FROM forums f"},
        {"name": "vote_view",
         "sql": "SELECT v.id AS id, v.user_id AS user_id, v.post_id AS post_id, CASE v.value WHEN 1 THEN "
                "'You upvoted this post.' ELSE 'You downvoted this post.' END AS note FROM votes v"},
    ]
    if shape.has_saved:
        tables.append(_table("saved", [("id", "integer"), ("user_id", "integer"), ("post_id", "integer")], [],
                             foreign_keys=[("user_id", "users"), ("post_id", "posts")]))
        views.append({"name": "saved_view", "sql": "SELECT s.id AS id, s.user_id AS user_id, s.post_id AS post_id, "
                                                   "p.title AS title FROM saved s JOIN posts p ON p.id = s.post_id"})
    return {"tables": tables, "views": views}


def _check(text: str, message: str, **params: Any) -> Data:
    return kit.check(kit.sql(text, **params), message)


def _markers(shape: _Shape) -> list[Data]:
    words = shape.words
    post = ref("param.post_id")
    own = _check("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p AND user_id = :user_id)",
                 "You can only change your own posts.", p=post)
    exists = _check("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p)", "That post does not exist any more.", p=post)
    still_open = _check("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p AND created >= :cutoff)",
                        "This post is archived: new votes and comments are closed.", p=post, cutoff=CUTOFF)
    unique_title = _check("SELECT NOT EXISTS (SELECT 1 FROM posts GROUP BY forum_id, title HAVING count(*) > 1)",
                          "A post with this title already exists in this community.")
    forum_exists = _check("SELECT EXISTS (SELECT 1 FROM forums WHERE id = :f)", "Please choose a community.",
                          f=ref("param.forum_id"))
    text = [kit.param("title", "text", words["post_title"], min_length=5, max_length=120),
            kit.param("body", "text", words["post_body"], min_length=2, max_length=5000)]
    flair = [kit.param("flair", "text", words["flair"], choices=FLAIRS)] if shape.has_flair else []
    saved = [kit.effect("delete", "saved", "DELETE FROM saved WHERE post_id = :post_id")] if shape.has_saved else []
    markers = [
        kit.marker("vote", [kit.param("post_id", "integer"), kit.param("value", "integer", "Vote", min=-1, max=1)], [
            kit.effect("update", "posts", "UPDATE posts SET score = score + :value - coalesce((SELECT value FROM votes "
                                          "WHERE user_id = :user_id AND post_id = :post_id), 0) WHERE id = :post_id"),
            kit.effect("delete", "votes", "DELETE FROM votes WHERE user_id = :user_id AND post_id = :post_id AND :value = 0"),
            kit.effect("update", "votes", "UPDATE votes SET value = :value WHERE user_id = :user_id AND post_id = "
                                          ":post_id AND :value != 0 AND value != :value"),
            kit.effect("insert", "votes", "INSERT INTO votes (user_id, post_id, value) SELECT :user_id, :post_id, :value "
                                          "WHERE :value != 0 AND NOT EXISTS (SELECT 1 FROM votes WHERE user_id = "
                                          ":user_id AND post_id = :post_id)")],
            pre=[exists, still_open],
            inv=[_check("SELECT NOT EXISTS (SELECT 1 FROM votes WHERE user_id = :user_id GROUP BY post_id "
                        "HAVING count(*) > 1)", "You have already voted on this post."),
                 _check("SELECT NOT EXISTS (SELECT 1 FROM votes WHERE value NOT IN (1, -1))", "A vote is up or down.")],
            message="Your vote could not be recorded."),
        kit.marker("add_comment", [kit.param("post_id", "integer"),
                                   kit.param("body", "text", words["comment_box"], min_length=2, max_length=2000)],
                   [kit.effect("insert", "comments", "INSERT INTO comments (post_id, user_id, body, created, score) "
                                                     "VALUES (:post_id, :user_id, :body, :now, 1)")],
                   pre=[exists, still_open], message="Your comment could not be posted."),
        kit.marker("create_post", [kit.param("forum_id", "integer", words["community_field"])] + text + flair,
                   [kit.effect("insert", "posts", "INSERT INTO posts (forum_id, user_id, title, body, created, score, "
                                                  "flair, price, edited) VALUES (:forum_id, :user_id, :title, :body, "
                               f":now, 1, {':flair' if shape.has_flair else 'NULL'}, NULL, 0)"),
                    kit.effect("insert", "votes", "INSERT INTO votes (user_id, post_id, value) SELECT :user_id, "
                                                  "max(id), 1 FROM posts WHERE user_id = :user_id")],
                   pre=[forum_exists],
                   inv=[unique_title, _check("SELECT (SELECT count(*) FROM posts WHERE user_id = :user_id AND "
                                             "created >= :today) <= 5", "You are posting too often: try again tomorrow.")],
                   message="Your post could not be created."),
        kit.marker("edit_post", [kit.param("post_id", "integer")] + text,
                   [kit.effect("update", "posts", "UPDATE posts SET title = :title, body = :body, edited = 1 "
                                                  "WHERE id = :post_id AND user_id = :user_id")],
                   pre=[own], inv=[unique_title], message="Your changes could not be saved."),
        kit.marker("delete_post", [kit.param("post_id", "integer")],
                   [kit.effect("delete", "votes", "DELETE FROM votes WHERE post_id = :post_id"),
                    kit.effect("delete", "comments", "DELETE FROM comments WHERE post_id = :post_id"), *saved,
                    kit.effect("delete", "posts", "DELETE FROM posts WHERE id = :post_id AND user_id = :user_id")],
                   pre=[own], irreversible=True, message="The post could not be deleted."),
        kit.marker("join", [kit.param("forum_id", "integer")],
                   [kit.effect("insert", "subscriptions", "INSERT INTO subscriptions (user_id, forum_id) VALUES "
                                                          "(:user_id, :forum_id)"),
                    kit.effect("update", "forums", "UPDATE forums SET members = members + 1 WHERE id = :forum_id")],
                   pre=[forum_exists],
                   inv=[_check("SELECT NOT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = :user_id GROUP BY "
                               "forum_id HAVING count(*) > 1)", "You are already a member of this community.")],
                   message="You could not join this community."),
        kit.marker("leave", [kit.param("forum_id", "integer")],
                   [kit.effect("delete", "subscriptions", "DELETE FROM subscriptions WHERE user_id = :user_id AND "
                                                          "forum_id = :forum_id"),
                    kit.effect("update", "forums", "UPDATE forums SET members = members - 1 WHERE id = :forum_id")],
                   pre=[_check("SELECT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = :user_id AND forum_id = :f)",
                               "You are not a member of this community.", f=ref("param.forum_id"))],
                   inv=[_check("SELECT NOT EXISTS (SELECT 1 FROM forums WHERE members < 0)",
                               "A community cannot have fewer than zero members.")]),
    ]
    if shape.has_saved:
        markers += [
            kit.marker("save_post", [kit.param("post_id", "integer")],
                       [kit.effect("insert", "saved", "INSERT INTO saved (user_id, post_id) SELECT :user_id, :post_id "
                                                      "WHERE NOT EXISTS (SELECT 1 FROM saved WHERE user_id = :user_id "
                                                      "AND post_id = :post_id)")], pre=[exists]),
            kit.marker("unsave_post", [kit.param("post_id", "integer")],
                       [kit.effect("delete", "saved", "DELETE FROM saved WHERE user_id = :user_id AND post_id = :post_id")]),
        ]
    return markers


# ----------------------------------------------------------------------------- pages


class _Pages:
    """The site's pages, built from its shape."""

    def __init__(self, shape: _Shape, rng: random.Random) -> None:
        self.s, self.labels, self.words = shape, shape.labels, shape.words
        self.forum_link = kit.link(f"{shape.prefix}/{{row.forum}}", f"/{shape.prefix}/{{row.forum}}")
        self.community_link = kit.link(f"{shape.prefix}/{{row.name}}", f"/{shape.prefix}/{{row.name}}")
        nav = [(self.labels["home"], "/")]
        nav += [(self.words["communities"], "/communities")] if shape.has_directory else []
        nav += [] if shape.search_in_header else [(self.labels["search"], "/search")]
        nav += [(self.words["new_post"], "/submit")] if shape.submit_mode == "global" else []
        nav.append((self.words["my_profile"], "/me"))
        nav += [(self.words["my_communities"], "/subscriptions")] if shape.has_subs_page else []
        nav += [(self.words["saved"], "/saved")] if shape.has_saved else []
        self.chrome = build_chrome(rng, self.labels, shape.name, nav)
        self.search_form = kit.form(self.labels["search"], kit.navigate_action("/search"),
                                    [kit.textbox("q", self.labels["search_box"], value=ref("query.q"))],
                                    label=self.labels["search"])

    def layout(self) -> Data:
        header = list(self.chrome.layout["header"])
        if self.s.search_in_header:
            header.append(kit.section([self.search_form], role="search"))
        return {"header": header, "footer": self.chrome.layout["footer"]}

    def all(self) -> list[Data]:
        s = self.s
        pages = [self.home(), self.search(), self.forum(), self.submit(), self.edit(), self.post(),
                 kit.page("profile", "/u/{username:slug}", "{param.username}",
                          self.profile(kit.query("user_stats", cond("username", ref("param.username"))), [])),
                 kit.page("me", "/me", self.words["my_profile"], self.profile(
                     kit.query("user_stats", cond("id", ref("user.id"))),
                     [] if s.has_subs_page else [kit.heading(self.words["my_communities"]), self.my_communities()]),
                          login=True),
                 login_page(self.labels), *self.chrome.pages]
        if s.has_directory:
            pages.append(self.directory())
        if s.has_subs_page:
            pages.append(kit.page("subscriptions", "/subscriptions", self.words["my_communities"],
                                  [kit.heading(self.words["my_communities"], 1), self.my_communities()], login=True))
        if s.has_saved:
            unsave = kit.form(s.save[1], kit.marker_action("unsave_post", {"post_id": ref("row.post_id")},
                                                           message="Removed from your saved posts."))
            pages.append(kit.page("saved", "/saved", self.words["saved"], [
                kit.heading(self.words["saved"], 1),
                kit.listing("saved", kit.query("saved_view", cond("user_id", ref("user.id")), order=[("id", "desc")]),
                            [kit.link("{row.title}", f"/{s.post_path}/{{row.post_id}}"), unsave],
                            empty="Nothing saved yet.")], login=True))
        return pages

    def posts(self, name: str, q: Data, *, forum: bool = True, author: bool = True, sorts: bool = True,
              size: int | None = None, empty: str = "No posts yet.") -> Data:
        """A list or table of posts (rows of ``post_view``)."""
        s = self.s
        title = kit.link("{row.title}", f"/{s.post_path}/{{row.id}}")
        by = kit.link("{row.author}", "/u/{row.author}")
        stats = kit.text("{row.score} points · {row.comments} comment{row.comments|plural} · {row.created|date}")
        size = size or s.page_size
        options = s.sorts if sorts else None
        if s.listing_kind == "list":
            item = [title] + ([self.forum_link] if forum else []) + ([by] if author else []) + [stats]
            return kit.listing(name, q, item, page_size=size, sorts=options, empty=empty)
        columns = [(self.words["posts"], [title])] + ([(self.words["community_field"], [self.forum_link])] if forum
                                                      else []) + ([("Author", [by])] if author else []) + [("Activity", [stats])]
        return kit.table(name, q, columns, label=self.words["posts"], page_size=size, sorts=options, empty=empty)

    def home(self) -> Data:
        s, words = self.s, self.words
        body = [kit.heading(words["feed"], 1), kit.text("Today is {clock.today|date}."),
                self.posts("feed", kit.query("post_view", order=[("hot", "desc"), ("id", "desc")]), size=s.feed_size)]
        if s.has_directory:
            body += [kit.heading(f"Top {words['communities'].lower()}"),
                     kit.listing("top_communities", kit.query("forums", order=[("members", "desc"), ("id", "asc")],
                                                              limit=5), [self.community_link])]
        else:
            body += [kit.heading(words["communities"]),
                     kit.listing("communities", kit.query("forums", order=[("name", "asc")]),
                                 [self.community_link, kit.text("{row.title} · {row.members} members")])]
        return kit.page("home", "/", s.name, body)

    def directory(self) -> Data:
        q = kit.query("forums", order=[("members", "desc"), ("id", "asc")])
        if self.s.listing_kind == "list":
            listing = kit.listing("directory", q, [self.community_link, kit.text("{row.title} · {row.members} members"),
                                                   kit.text("{row.description}")])
        else:
            listing = kit.table("directory", q, [("Name", [self.community_link]), ("About", [kit.text("{row.title}")]),
                                                 ("Members", [kit.text("{row.members}")])], label=self.words["communities"])
        return kit.page("communities", "/communities", self.words["communities"],
                        [kit.heading(self.words["communities"], 1), listing])

    def search(self) -> Data:
        words = self.words
        parts = [
            (words["posts"], [self.posts("results", kit.query(
                "post_view", cond("title", ref("query.q"), "contains", skip_if_empty=True),
                order=[("created", "desc"), ("id", "desc")]), sorts=False, empty="No posts match your search.")]),
            (words["communities"], [kit.listing("found_communities", kit.query(
                "forums", cond("name", ref("query.q"), "contains", skip_if_empty=True), order=[("name", "asc")]),
                [self.community_link, kit.text("{row.title}")], empty="No communities match.")]),
            (words["people"], [kit.listing("people", kit.query(
                "users", cond("username", ref("query.q"), "contains", skip_if_empty=True), order=[("username", "asc")],
                limit=8), [kit.link("{row.username}", "/u/{row.username}"), kit.text("{row.name}")],
                empty="Nobody matches.")]),
        ]
        if self.s.search_tabs:
            results = [kit.tabs("search_tabs", parts)]
        else:
            results = [element for label, elements in parts for element in [kit.heading(label), *elements]]
        return kit.page("search", "/search", f"{self.labels['search']}: {{query.q}}", [
            kit.heading(self.labels["search"], 1), *([] if self.s.search_in_header else [self.search_form]), *results])

    def forum(self) -> Data:
        s, labels, words = self.s, self.labels, self.words
        join = kit.form(s.membership[0], kit.marker_action("join", {"forum_id": ref("row.forum_id")},
                                                           message="Welcome! You joined the community."))
        leave = kit.form(s.membership[1], kit.marker_action("leave", {"forum_id": ref("row.forum_id")},
                                                            message="You left the community."),
                         confirm=kit.confirm("Leave this community?", labels["confirm"], labels["cancel"])
                         if s.confirm_leave else None)
        mine = [cond("forum_id", ref("row.id")), cond("user_id", ref("user.id"))]
        body = [kit.heading(f"{s.prefix}/{{row.name}}", 1), kit.text("{row.title}"), kit.text("{row.description}"),
                kit.text("{row.members} members · since {row.created|date}"),
                kit.record(kit.query("membership", *mine, cond("joined", 0)), [join], ""),
                kit.record(kit.query("membership", *mine, cond("joined", 1)), [kit.text("You are a member."), leave], ""),
                kit.collapsible("rules", words["rules"], [kit.text("{row.rules}")])]
        if s.submit_mode == "forum":
            body.append(kit.link(words["new_post"], f"/{s.prefix}/{{row.name}}/submit"))
        body.append(self.posts("posts", kit.query("post_view", cond("forum_id", ref("row.id")),
                                                  order=[("hot", "desc"), ("id", "desc")]), forum=False))
        return kit.page("forum", f"/{s.prefix}/{{name:slug}}", f"{s.prefix}/{{param.name}}", [kit.record(
            kit.query("forums", cond("name", ref("param.name"))), self.chrome.crumbs([(labels["home"], "/")]) + body,
            "This community does not exist.")])

    def post(self) -> Data:
        s, labels, words = self.s, self.labels, self.words

        def vote(label: str, value: int, done: str) -> Data:  # 0 takes the vote back (inside the vote's record)
            post = ref("row.post_id" if value == 0 else "row.id")
            return kit.form(label, kit.marker_action("vote", {"post_id": post, "value": value}, message=done))

        owner = [kit.link(words["edit"], f"/{s.post_path}/{{row.id}}/edit"),
                 kit.form(words["delete_post"], kit.marker_action("delete_post", {"post_id": ref("row.id")},
                                                                   redirect="/me", message="Your post was deleted."),
                          confirm=kit.confirm("Delete this post?", labels["confirm"], labels["cancel"],
                                              "This cannot be undone.") if s.confirm_delete else None)]
        if s.actions_ui == "menu":
            owner = [kit.menu("post_actions", words["post_actions"], owner)]
        elif s.actions_ui == "collapsible":
            owner = [kit.collapsible("post_actions", words["post_actions"], owner)]
        form = kit.form(words["comment_submit"], kit.marker_action(
            "add_comment", {"post_id": ref("row.id"), "body": ref("field.body")}, message="Your comment was posted."),
            [kit.textbox("body", words["comment_box"], kind="textarea", required=True)], label=words["comment_box"])
        if s.comment_ui == "collapsible":
            comment = [kit.collapsible("comment_box", words["comment_open"], [form])]
        elif s.comment_ui == "dialog":
            comment = [kit.button(words["comment_open"], "comment_dialog", "open"),
                       kit.dialog("comment_dialog", words["comment_open"],
                                  [form, kit.button(labels["cancel"], "comment_dialog", "close")])]
        else:
            comment = [form]
        this = cond("id", ref("row.id"))
        body = self.chrome.crumbs([(labels["home"], "/"), (f"{s.prefix}/{{row.forum}}", f"/{s.prefix}/{{row.forum}}")])
        body += [kit.heading("{row.title}", 1), self.forum_link, kit.link("{row.author}", "/u/{row.author}"),
                 kit.text("Posted {row.created|date}{row.state}")]
        body += [kit.text(f"{words['flair']}: {{row.flair}}")] if s.has_flair else []
        body += [kit.text("{row.body}"),
                 kit.record(kit.query("posts", this, cond("price", None, "not_null")),
                            [kit.text("Asking price: {row.price|money}")], ""),
                 kit.text("{row.score} points"), vote(s.votes[0], 1, "Thanks for voting."),
                 vote(s.votes[1], -1, "Thanks for voting."),
                 kit.record(kit.query("vote_view", cond("post_id", ref("row.id")), cond("user_id", ref("user.id"))),
                            [kit.text("{row.note}"), vote(words["unvote"], 0, "Your vote was removed.")], "")]
        if s.has_saved:
            body.append(kit.form(s.save[0], kit.marker_action("save_post", {"post_id": ref("row.id")}, message="Saved.")))
        body += [kit.record(kit.query("posts", this, cond("user_id", ref("user.id"))), owner, ""),
                 kit.heading(f"{words['comments']} ({{row.comments}})"), *comment,
                 kit.listing("comments", kit.query("comment_view", cond("post_id", ref("row.id")),
                                                   order=[("score", "desc"), ("id", "asc")]),
                             [kit.link("{row.author}", "/u/{row.author}"),
                              kit.text("{row.score} points · {row.created|date}"), kit.text("{row.body}")],
                             page_size=10, empty="No comments yet. Be the first!")]
        return kit.page("post", f"/{s.post_path}/{{id:int}}", "Post", [kit.record(
            kit.query("post_view", cond("id", ref("param.id"))), body, "This post does not exist.")])

    def submit(self) -> Data:
        s, words = self.s, self.words
        fields = {"title": kit.textbox("title", words["post_title"], required=True),
                  "body": kit.textbox("body", words["post_body"], kind="textarea", required=True),
                  "flair": kit.select("flair", words["flair"], [(f, f) for f in FLAIRS])}
        args = {n: ref(f"field.{n}") for n in s.post_fields}

        def form(forum: Any, extra: list[Data]) -> Data:
            return kit.form(words["publish"], kit.marker_action(
                "create_post", {"forum_id": forum, **args}, redirect=f"/{s.post_path}/{{result.id}}",
                message="Your post is live."), extra + [fields[n] for n in s.post_fields], label=words["new_post"])

        if s.submit_mode == "forum":
            return kit.page("submit", f"/{s.prefix}/{{name:slug}}/submit", words["new_post"], [kit.record(
                kit.query("forums", cond("name", ref("param.name"))),
                [kit.heading(f"{words['new_post']} in {s.prefix}/{{row.name}}", 1), form(ref("row.id"), [])],
                "This community does not exist.")], login=True)
        picker = kit.select("forum", words["community_field"], [("", "Choose a community")], required=True,
                            options_query={"query": kit.query("forums", order=[("name", "asc")]), "value": "id",
                                           "label": "name"})
        return kit.page("submit", "/submit", words["new_post"],
                        [kit.heading(words["new_post"], 1), form(ref("field.forum"), [picker])], login=True)

    def edit(self) -> Data:
        s, words = self.s, self.words
        fields = {"title": kit.textbox("title", words["post_title"], required=True, value=ref("row.title")),
                  "body": kit.textbox("body", words["post_body"], kind="textarea", required=True, value=ref("row.body"))}
        action = kit.marker_action("edit_post", {"post_id": ref("row.id"), "title": ref("field.title"),
                                                 "body": ref("field.body")},
                                   redirect=f"/{s.post_path}/{{row.id}}", message="Your post was updated.")
        return kit.page("edit", f"/{s.post_path}/{{id:int}}/edit", words["edit"], [kit.record(
            kit.query("posts", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
            [kit.heading(words["edit"], 1),
             kit.form(self.labels["save"], action, [fields[n] for n in s.post_fields if n != "flair"], label=words["edit"])],
            "You can only edit your own posts.")], login=True)

    def profile(self, q: Data, extra: list[Data]) -> list[Data]:
        words = self.words
        posts = self.posts("user_posts", kit.query("post_view", cond("user_id", ref("row.id")),
                                                   order=[("created", "desc"), ("id", "desc")]), author=False, sorts=False)
        comments = kit.listing("user_comments", kit.query("comment_view", cond("user_id", ref("row.id")),
                                                          order=[("created", "desc"), ("id", "desc")], limit=8),
                               [kit.text("{row.body}"), kit.text("on “{row.post_title}” · {row.score} points")],
                               empty="No comments yet.")
        if self.s.profile_ui == "tabs":
            parts = [kit.tabs("profile_tabs", [(words["posts"], [posts]), (words["comments"], [comments])])]
        else:
            parts = [kit.heading(words["posts"]), posts, kit.heading(words["comments"]), comments]
        return [kit.record(q, [kit.heading("{row.username}", 1), kit.text("{row.name} · {row.bio}"),
                               kit.text("Joined {row.joined|date} · {row.karma} karma")] + parts + extra,
                           "This user does not exist.")]

    def my_communities(self) -> Data:
        s = self.s
        leave = kit.form(s.membership[1], kit.marker_action("leave", {"forum_id": ref("row.forum_id")},
                                                            message="You left the community."),
                         confirm=kit.confirm("Leave this community?", self.labels["confirm"], self.labels["cancel"])
                         if s.confirm_leave else None)
        return kit.listing("my_communities", kit.query("sub_view", cond("user_id", ref("user.id")), order=[("name", "asc")]),
                           [kit.link(f"{s.prefix}/{{row.name}}", f"/{s.prefix}/{{row.name}}"), kit.text("{row.title}"),
                            leave], empty="You have not joined any community yet.")


def build(streams: Streams) -> Draft:
    """Build one forum site (see the module docstring)."""
    shape = _shape(streams.structure)
    forums = _forums(streams.structure, shape)
    pages = _Pages(shape, streams.structure)
    data = _content(streams.content, forums, shape.has_flair)
    site = {"name": shape.name, "clock": {"today": TODAY.isoformat()},
            "auth": {"table": "users", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": _database(shape, forums, data), "markers": _markers(shape), "layout": pages.layout(),
            "pages": pages.all()}
    ctx = _Ctx(streams.tasks, shape, forums, data)
    ctx.start_pages = [p["route"] for p in pages.chrome.pages]
    return Draft(site=site, tasks=_tasks(ctx))


# ----------------------------------------------------------------------------- tasks: context and plans


class _Ctx:
    """What the task families need to know about the site they write tasks for, and plan helpers."""

    def __init__(self, rng: random.Random, shape: _Shape, forums: list[Data], data: Data) -> None:
        self.rng, self.s, self.labels, self.words, self.forums = rng, shape, shape.labels, shape.words, forums
        self.users, self.posts, self.votes, self.subs = data["users"], data["posts"], data["votes"], data["subs"]
        self.forum_by_id = {f["id"]: f for f in forums}
        self.user_by_id = {u["id"]: u for u in self.users}
        self.by_user: dict[int, list[Data]] = {u["id"]: [] for u in self.users}
        for post in sorted(self.posts, key=lambda p: (p["created"], p["id"]), reverse=True):
            self.by_user[post["user_id"]].append(post)  # in profile order: newest first
        self.place = f"{shape.prefix}/{{forum}}"
        self.start_pages: list[str] = []

    def to_forum(self, forum: Data, *, at_home: bool = False, search_ok: bool = True) -> list[Step]:
        """To a community's page: through the directory, or from the home page's list (with no
        first step when the plan is known to be on the home page), or, now and then, by searching
        for its name (when the task names it: ``search_ok``)."""
        link = ("click", "link", f"{self.s.prefix}/{forum['name']}")
        if search_ok and self.rng.random() < 0.25:
            return self.search(forum["name"]) + [link]
        if self.s.has_directory:
            return [("click", "link", self.words["communities"]), link]
        return [link] if at_home else [("click", "link", self.labels["home"]), link]

    def search(self, query: str) -> list[Step]:
        steps: list[Step] = [] if self.s.search_in_header else [("click", "link", self.labels["search"])]
        submit: Step = (("press", "textbox", self.labels["search_box"], "Enter") if self.rng.random() < 0.4
                        else ("click", "button", self.labels["search"]))
        return steps + [("fill", "textbox", self.labels["search_box"], query), submit]

    def find_post(self, post: Data) -> list[Step]:
        """Search for a post (by a part of its title or all of it), page to it and open it; or,
        now and then, browse its community's newest posts to it."""
        if self.rng.random() < 0.35:
            _, label, column, _ = next(s for s in self.s.sorts if s[0] == "new")
            ordered = self.forum_sorted(post["forum_id"], column)
            position = [p["id"] for p in ordered].index(post["id"])
            if position // self.s.page_size <= 1:
                return self.to_forum(self.forum_by_id[post["forum_id"]], search_ok=False) + [("click", "link", label)] + next_pages(
                    position, self.s.page_size) + [("click", "link", post["title"])]
        for query in ([post["noun"]] if self.rng.random() < 0.5 else []) + [post["title"]]:
            matches = sorted((p for p in self.posts if query.lower() in p["title"].lower()),
                             key=lambda p: (p["created"], p["id"]), reverse=True)
            position = [p["id"] for p in matches].index(post["id"])
            if position // self.s.page_size <= 2 or query == post["title"]:
                return self.search(query) + next_pages(position, self.s.page_size) + [("click", "link", post["title"])]
        raise AssertionError("unreachable")

    def to_user(self, user: Data) -> list[Step] | None:
        """Search people for a user and open the profile (``None`` if the results cannot show them)."""
        found = sorted(u["username"] for u in self.users if user["username"] in u["username"])
        if found.index(user["username"]) >= 8:
            return None
        return self.search(user["username"]) + [("click", "link", user["username"])]

    def open_own_post(self, user: Data, post: Data) -> list[Step]:
        return [("click", "link", self.words["my_profile"]),
                *next_pages(self.by_user[user["id"]].index(post), self.s.page_size), ("click", "link", post["title"])]

    def forum_sorted(self, forum_id: int, column: str) -> list[Data]:
        """A community's posts as its list shows them sorted by ``column`` (then hot, then id)."""
        return sorted((p for p in self.posts if p["forum_id"] == forum_id), key=lambda p: (p[column], p["hot"], p["id"]),
                      reverse=True)

    def pick_post(self, usable: Callable[[Data], bool]) -> tuple[Data, str, Data, list[Step], Data]:
        """A post to act on, named by its title or as the top or newest post of a community.

        Returns the post, the instruction's name for it (holding ``{title}`` or ``{forum}``), its
        slots, the plan steps that open it from the home page, and the query of its id over the slots.
        """
        if self.rng.random() < 0.5:
            for _ in range(10):
                forum = self.rng.choice(self.forums)
                key, label, column, _ = self.rng.choice([s for s in self.s.sorts if s[0] in ("new", "top")])
                ordered = self.forum_sorted(forum["id"], column)
                if len(ordered) < 3 or not usable(ordered[0]):
                    continue
                # a post named by its rank must keep it whatever the task does: one user's vote
                # moves a score by at most two
                first, second = ordered[0][column], ordered[1][column]
                if (first >= second + 3) if column == "score" else (first > second):
                    pid = kit.scalar("post_view", "id", cond("forum", ref("slot.forum")),
                                     order=[(column, "desc"), ("hot", "desc"), ("id", "desc")])
                    return (ordered[0], f"the {'newest' if key == 'new' else 'top-scoring'} post in {self.place}",
                            {"forum": forum["name"]}, self.to_forum(forum, at_home=True)
                            + [("click", "link", label), ("click", "link", ordered[0]["title"])], pid)
        post = self.rng.choice([p for p in self.posts if usable(p)])
        return post, "the post \"{title}\"", {"title": post["title"]}, self.find_post(post), _post_id()


def _post_id(slot: str = "title") -> Data:
    return kit.scalar("posts", "id", cond("title", ref(f"slot.{slot}")))


def _forum_id(slot: str = "forum") -> Data:
    return kit.scalar("forums", "id", cond("name", ref(f"slot.{slot}")))


def _tasks(ctx: _Ctx) -> list[TaskDraft]:
    """Thirteen tasks (fewer when a family finds no unambiguous instance): one navigation, five
    retrievals, six writes and one infeasible task."""
    rng = ctx.rng
    families = [(_navigate_sorted, _navigate_author)[rng.randrange(2)], (_retrieve_count, _retrieve_date)[rng.randrange(2)],
                _retrieve_extreme, _retrieve_price, _retrieve_compare, _retrieve_own_posts, _vote, _comment, _create_post,
                _edit_post, _memberships, _delete_post, _infeasible]
    drafts = with_login(ctx, [task for family in families for task in family(ctx)], ctx.users, chance=0.35,
                        fits=lambda plan: len(plan) + 3 <= 20)
    home = [("click", "link", ctx.labels["home"]), ("click", "link", ctx.s.name), ("goto", "/")]
    return start_elsewhere(ctx, drafts, ctx.start_pages, home, chance=0.4, fits=lambda plan: len(plan) + 3 <= 20)


# ----------------------------------------------------------------------------- navigate


def _navigate_sorted(ctx: _Ctx) -> list[TaskDraft]:
    """Open the top, newest or most-commented post of a community (sort-dependent)."""
    for _ in range(10):
        forum = ctx.rng.choice(ctx.forums)
        key, label, column, _ = ctx.rng.choice(ctx.s.sorts[1:])
        ordered = ctx.forum_sorted(forum["id"], column)
        if len(ordered) < 4 or ordered[0][column] == ordered[1][column]:
            continue
        what = {"new": "newest", "top": "highest-scoring", "most_comments": "most commented"}[key]
        target = kit.on_page("post", id=kit.scalar("post_view", "id", cond("forum", ref("slot.forum")),
                                                   order=[(column, "desc"), ("hot", "desc"), ("id", "desc")]))
        return [make_task(ctx, "open_sorted", "navigate_sorted", "navigate",
                      [f"Open the {{what}} post in {ctx.place}.", f"Go to the {{what}} post of {ctx.place}.",
                       f"Find the {{what}} post in the {ctx.place} community and open it."],
                      {"what": what, "forum": forum["name"]},
                      ctx.to_forum(forum, at_home=True) + [("click", "link", label), ("click", "link", ordered[0]["title"])],
                      goal=[target], progress=[{"description": "on the post", "predicate": target}])]
    return []


def _navigate_author(ctx: _Ctx) -> list[TaskDraft]:
    """Open the profile of the person who wrote a post (search-dependent)."""
    post = ctx.rng.choice(ctx.posts)
    target = kit.on_page("profile", username=kit.scalar("post_view", "author", cond("title", ref("slot.title"))))
    return [make_task(ctx, "author_profile", "navigate_search", "navigate",
                  ["Open the profile of whoever wrote the post \"{title}\".",
                   "Who posted \"{title}\"? Go to their profile page.",
                   "Find the author of \"{title}\" and open their profile."], {"title": post["title"]},
                  ctx.find_post(post) + [("click", "link", ctx.user_by_id[post["user_id"]]["username"])],
                  goal=[target], progress=[{"description": "on the author's profile", "predicate": target}])]


# ----------------------------------------------------------------------------- retrieve


def _retrieve_count(ctx: _Ctx) -> list[TaskDraft]:
    """How many comments a post has, or how many members a community has (number answers)."""
    if ctx.rng.random() < 0.6:
        post = ctx.rng.choice([p for p in ctx.posts if p["comments"] > 0])
        return [make_task(ctx, "count_comments", "retrieve_count", "retrieve",
                      ["How many comments does the post \"{title}\" have?", "Count the comments on \"{title}\".",
                       "How many comments are there under \"{title}\"?"],
                      {"title": post["title"]}, ctx.find_post(post) + [("send", str(post["comments"]))],
                      answer={"type": "number", "value": kit.scalar("comments", "*", cond("post_id", _post_id()),
                                                                    agg="count")})]
    forum = ctx.rng.choice(ctx.forums)
    return [make_task(ctx, "count_members", "retrieve_count", "retrieve",
                  [f"How many members does {ctx.place} have?", f"What is the member count of {ctx.place}?"],
                  {"forum": forum["name"]}, ctx.to_forum(forum, at_home=True) + [("send", f"{forum['members']:,}")],
                  answer={"type": "number", "value": kit.scalar("forums", "members", cond("name", ref("slot.forum")))})]


def _retrieve_extreme(ctx: _Ctx) -> list[TaskDraft]:
    """Who wrote the highest-scoring post of a community (text answer, sort-dependent)."""
    top = next(label for key, label, _, _ in ctx.s.sorts if key == "top")
    for _ in range(10):
        forum = ctx.rng.choice(ctx.forums)
        ordered = ctx.forum_sorted(forum["id"], "score")
        if len(ordered) < 4 or ordered[0]["score"] == ordered[1]["score"]:
            continue
        author = ctx.user_by_id[ordered[0]["user_id"]]["username"]
        return [make_task(ctx, "top_author", "retrieve_extreme", "retrieve",
                      [f"Which user wrote the highest-scoring post in {ctx.place}? Give the username.",
                       f"Who posted the top post of all time in {ctx.place}? Answer with the username.",
                       f"Give the username behind the post with the most points in {ctx.place}."],
                      {"forum": forum["name"]},
                      ctx.to_forum(forum, at_home=True) + [("click", "link", top), ("send", author)],
                      answer={"type": "text", "value": kit.scalar("post_view", "author", cond("forum", ref("slot.forum")),
                                                                  order=[("score", "desc"), ("hot", "desc"), ("id", "desc")]),
                              "candidates": kit.scalar("users", "username")["query"]})]
    return []


def _retrieve_date(ctx: _Ctx) -> list[TaskDraft]:
    """When a user joined, or when a post was made (date answers)."""
    if ctx.rng.random() < 0.5:
        user = ctx.rng.choice(ctx.users)
        plan = ctx.to_user(user)
        if plan is not None:
            return [make_task(ctx, "join_date", "retrieve_date", "retrieve",
                          ["When did {user} join the site?", "On what date did {user} create their account?",
                           "What is {user}'s join date?"], {"user": user["username"]}, plan + [("send", user["joined"])],
                          answer={"type": "date", "value": kit.scalar("users", "joined", cond("username", ref("slot.user")))})]
    post = ctx.rng.choice(ctx.posts)
    return [make_task(ctx, "post_date", "retrieve_date", "retrieve",
                  ["On what date was \"{title}\" posted?", "When was the post \"{title}\" submitted? Give the date."],
                  {"title": post["title"]}, ctx.find_post(post) + [("send", post["created"][:10])],
                  answer={"type": "date", "value": kit.scalar("post_view", "posted_on", cond("title", ref("slot.title")))})]


def _retrieve_price(ctx: _Ctx) -> list[TaskDraft]:
    """The asking price of a marketplace listing (currency answer)."""
    post = ctx.rng.choice([p for p in ctx.posts if p["price"] is not None])
    return [make_task(ctx, "asking_price", "retrieve_lookup", "retrieve",
                  ["How much is the seller asking for \"{title}\"?", "What is the asking price of the listing \"{title}\"?",
                   "Tell me the price on the \"{title}\" listing."],
                  {"title": post["title"]}, ctx.find_post(post) + [("send", f"${post['price'] / 100:,.2f}")],
                  answer={"type": "currency", "value": kit.scalar("posts", "price", cond("title", ref("slot.title")))})]


def _retrieve_compare(ctx: _Ctx) -> list[TaskDraft]:
    """Which of three marketplace listings is the cheapest (text answer; three searches)."""
    listings = [p for p in ctx.posts if p["price"] is not None]
    for _ in range(20):
        chosen = ctx.rng.sample(listings, 3)
        prices = sorted(p["price"] for p in chosen)
        titles = [p["title"] for p in chosen]
        if prices[0] != prices[1] and not any(a != b and a in b for a in titles for b in titles):
            cheapest = min(chosen, key=lambda p: p["price"])
            return [make_task(ctx, "cheapest_listing", "retrieve_compare", "retrieve",
                          ["Which listing is the cheapest: \"{first}\", \"{second}\" or \"{third}\"? Answer with its title.",
                           "I am choosing between \"{first}\", \"{second}\" and \"{third}\". Which one costs the least? "
                           "Give the title."],
                          dict(zip(["first", "second", "third"], titles)),
                          [step for post in chosen for step in ctx.find_post(post)] + [("send", cheapest["title"])],
                          answer={"type": "text", "value": kit.scalar("posts", "title", cond("title", titles, "in"),
                                                                      order=[("price", "asc")]),
                                  "candidates": kit.scalar("posts", "title", cond("title", titles, "in"))["query"]})]
    return []


def _retrieve_own_posts(ctx: _Ctx) -> list[TaskDraft]:
    """The titles, or the total score, of the posts of one user in one community: the user's own
    (login-gated, through their profile) or someone else's (through a search for their profile);
    or, for a sum, the members of two communities together."""
    pairs = [(user, forum, inside) for user in ctx.users for forum in ctx.forums
             if 2 <= len(inside := [p for p in ctx.by_user[user["id"]] if p["forum_id"] == forum["id"]]) <= 4]
    if not pairs:
        return []
    user, forum, inside = ctx.rng.choice(pairs)
    last = max(ctx.by_user[user["id"]].index(p) for p in inside)
    listing = ctx.rng.random() < 0.5
    way = ctx.rng.choice(["own", "own", "other"] + ([] if listing else ["members"]))
    if way == "members":
        first, second = ctx.rng.sample(ctx.forums, 2)
        total = first["members"] + second["members"]
        return [make_task(ctx, "members_together", "retrieve_sum", "retrieve",
                          [f"How many members do {ctx.s.prefix}/{{first}} and {ctx.s.prefix}/{{second}} have together?",
                           f"Add up the member counts of {ctx.s.prefix}/{{first}} and {ctx.s.prefix}/{{second}}."],
                          {"first": first["name"], "second": second["name"]},
                          ctx.to_forum(first, at_home=True) + ctx.to_forum(second) + [("send", f"{total:,}")],
                          answer={"type": "number", "value": kit.scalar(
                              "forums", "members", cond("name", [first["name"], second["name"]], "in"), agg="sum")})]
    if way == "other":
        found = ctx.to_user(user)
        if found is not None:
            browse = found + next_pages(last, ctx.s.page_size)
            where = [cond("user_id", kit.scalar("users", "id", cond("username", ref("slot.user")))),
                     cond("forum_id", _forum_id())]
            slots = {"user": user["username"], "forum": forum["name"]}
            if listing:
                return [make_task(ctx, "user_titles", "retrieve_list", "retrieve",
                                  [f"List the titles of the posts {{user}} wrote in {ctx.place}.",
                                   f"What has {{user}} posted in {ctx.place}? Give the titles."], slots,
                                  browse + [("send", "; ".join(p["title"] for p in inside))],
                                  answer={"type": "list", "list_query": kit.scalar("posts", "title", *where)["query"]})]
            return [make_task(ctx, "user_score", "retrieve_sum", "retrieve",
                              [f"What is the combined score of {{user}}'s posts in {ctx.place}?",
                               f"Add up the points of the posts {{user}} wrote in {ctx.place}."], slots,
                              browse + [("send", str(sum(p["score"] for p in inside)))],
                              answer={"type": "number", "value": kit.scalar("posts", "score", *where, agg="sum")})]
    to_profile = ("goto", "/me") if ctx.rng.random() < 0.3 else ("click", "link", ctx.words["my_profile"])
    browse = [to_profile, *next_pages(last, ctx.s.page_size)]
    where = [cond("user_id", ref("user.id")), cond("forum_id", _forum_id())]
    if listing:
        phrasings, slots, plan, who = as_user(ctx, user, [
            f"List the titles of your posts in {ctx.place}.", f"What are the titles of the posts you wrote in {ctx.place}?"],
            {"forum": forum["name"]}, browse + [("send", "; ".join(p["title"] for p in inside))], chance=0.6)
        return [make_task(ctx, "own_titles", "retrieve_list", "retrieve", phrasings, slots, plan, **who,
                      answer={"type": "list", "list_query": kit.scalar("posts", "title", *where)["query"]})]
    phrasings, slots, plan, who = as_user(ctx, user, [
        f"What is the combined score of all your posts in {ctx.place}?",
        f"Add up the points of your posts in {ctx.place}: what is the total?"],
        {"forum": forum["name"]}, browse + [("send", str(sum(p["score"] for p in inside)))], chance=0.6)
    return [make_task(ctx, "own_score", "retrieve_sum", "retrieve", phrasings, slots, plan, **who,
                  answer={"type": "number", "value": kit.scalar("posts", "score", *where, agg="sum")})]


# ----------------------------------------------------------------------------- mutate


def _vote(ctx: _Ctx) -> list[TaskDraft]:
    """Upvote or downvote one post, named by title or as a community's top or newest post (single write)."""
    user = ctx.rng.choice(ctx.users)
    voted = {v["post_id"] for v in ctx.votes if v["user_id"] == user["id"]}
    post, named, slots, steps, pid = ctx.pick_post(
        lambda p: p["created"] >= CUTOFF and p["id"] not in voted and p["user_id"] != user["id"])
    up = ctx.rng.random() < 0.7
    value, label = (1, ctx.s.votes[0]) if up else (-1, ctx.s.votes[1])
    phrasings, slots, plan, who = as_user(ctx, user, [
        f"{'Upvote' if up else 'Downvote'} {named}.", f"Give {named} {'an upvote' if up else 'a downvote'}.",
        f"Vote {'up' if up else 'down'} {named}."], slots, steps + [("click", "button", label)], chance=0.6)
    mine = kit.exists("votes", cond("user_id", ref("user.id")), cond("post_id", pid), cond("value", value))
    return [make_task(ctx, "vote", "single_write", "mutate", phrasings, slots, plan, **who, goal=[mine],
                  progress=[{"description": "the vote is recorded", "predicate": mine}],
                  footprint=[{"table": "votes", "where": [cond("user_id", ref("user.id")), cond("post_id", pid)]},
                             {"table": "posts", "where": [cond("id", pid)], "columns": ["score"], "ops": ["update"]}])]


def _comment(ctx: _Ctx) -> list[TaskDraft]:
    """Comment on a post, named by title or as a community's top or newest post (form write)."""
    user = ctx.rng.choice(ctx.users)
    post, named, slots, steps, pid = ctx.pick_post(lambda p: p["created"] >= CUTOFF)
    text = ctx.rng.choice(NEW_COMMENTS)
    if ctx.s.comment_ui == "dialog":
        steps.append(("click", "button", ctx.words["comment_open"]))
    steps += [("fill", "textbox", ctx.words["comment_box"], text), ("click", "button", ctx.words["comment_submit"])]
    phrasings, slots, plan, who = as_user(ctx, user, [
        f"Reply to {named} with the comment: {{text}}", f"Comment \"{{text}}\" on {named}.",
        f"Leave this comment on {named}: {{text}}"], {**slots, "text": text}, steps, chance=0.6)
    mine = kit.exists("comments", cond("user_id", ref("user.id")), cond("post_id", pid), cond("body", ref("slot.text")))
    return [make_task(ctx, "comment", "form_write", "mutate", phrasings, slots, plan, **who, goal=[mine],
                  progress=[{"description": "the comment is posted", "predicate": mine}],
                  constraints=[{"description": "the comment was posted more than once", "predicate": kit.count(
                      "comments", cond("user_id", ref("user.id")), cond("body", ref("slot.text")), op=">", value=1)}],
                  footprint=[{"table": "comments", "where": [cond("user_id", ref("user.id")), cond("post_id", pid)],
                              "ops": ["insert"]}])]


def _create_post(ctx: _Ctx) -> list[TaskDraft]:
    """Create a post in a community with a title, a text and (on some sites) a flair (multi-step write)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    forum = rng.choice([f for f in ctx.forums if f["nouns"]])
    titles = {p["title"] for p in ctx.posts}
    title = next(t for t in (_title(rng.choice(NEW_TITLE_FORMS), rng.choice(forum["nouns"])) for _ in iter(int, 1))
                 if t not in titles)
    slots: Data = {"forum": forum["name"], "title": title, "body": rng.choice(NEW_BODIES)}
    if ctx.s.submit_mode == "forum":
        steps = ctx.to_forum(forum, at_home=True) + [("click", "link", ctx.words["new_post"])]
    else:
        steps = [("click", "link", ctx.words["new_post"]), ("select", ctx.words["community_field"], forum["name"])]
    steps += [("fill", "textbox", ctx.words["post_title"], title), ("fill", "textbox", ctx.words["post_body"], slots["body"])]
    where = [cond("user_id", ref("user.id")), cond("forum_id", _forum_id()), cond("title", ref("slot.title"))]
    goal = where + [cond("body", ref("slot.body"))]
    phrasings = [f"Create a post in {ctx.place} titled \"{{title}}\" with the text \"{{body}}\"",
                 f"Start a new thread in {ctx.place}: title \"{{title}}\", body \"{{body}}\"",
                 f"Post \"{{title}}\" to {ctx.place}, with \"{{body}}\" as the text"]
    if ctx.s.has_flair:
        slots["flair"] = rng.choice(FLAIRS)
        steps.append(("select", ctx.words["flair"], slots["flair"]))
        goal.append(cond("flair", ref("slot.flair")))
    phrasings = [p + (", flaired {flair}." if ctx.s.has_flair else ".") for p in phrasings]
    steps.append(("click", "button", ctx.words["publish"]))
    phrasings, slots, plan, who = as_user(ctx, user, phrasings, slots, steps, chance=0.75)
    return [make_task(ctx, "create_post", "multi_step_write", "mutate", phrasings, slots, plan, **who,
                  goal=[kit.exists("posts", *goal)],
                  progress=[{"description": "the post exists", "predicate": kit.exists("posts", *where)}],
                  constraints=[{"description": "more than one post was created",
                                "predicate": kit.count("posts", cond("user_id", ref("user.id")),
                                                       cond("created", ref("clock.today"), ">="), op=">", value=1)}],
                  footprint=[{"table": "posts", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]},
                             {"table": "votes", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]}])]


def _edit_post(ctx: _Ctx) -> list[TaskDraft]:
    """Change the text of one of the user's posts without touching its title (write under a constraint)."""
    user = ctx.rng.choice([u for u in ctx.users if 1 <= len(ctx.by_user[u["id"]]) <= 3 * ctx.s.page_size])
    post = ctx.rng.choice(ctx.by_user[user["id"]])
    body = ctx.rng.choice(EDIT_BODIES)
    to_post = ctx.open_own_post(user, post) if ctx.rng.random() < 0.6 else ctx.find_post(post)
    steps = to_post + [("click", "link", ctx.words["edit"]),
                                             ("fill", "textbox", ctx.words["post_body"], body),
                                             ("click", "button", ctx.labels["save"])]
    phrasings, slots, plan, who = as_user(ctx, user, [
        "Change the text of your post \"{title}\" to \"{body}\" but keep its title as it is.",
        "Edit your post \"{title}\": replace its text with \"{body}\". Do not change the title.",
        "Update the body of your post \"{title}\" so it reads \"{body}\", leaving the title alone."],
        {"title": post["title"], "body": body}, steps, chance=0.65)
    done = kit.exists("posts", cond("user_id", ref("user.id")), cond("title", ref("slot.title")),
                      cond("body", ref("slot.body")))
    return [make_task(ctx, "edit_post", "write_constraint", "mutate", phrasings, slots, plan, **who, goal=[done],
                  progress=[{"description": "the post has the new text", "predicate": done}],
                  # the post's id, not its title: a post whose title changed has to be found all the same
                  constraints=[{"description": "the post's title was changed", "predicate": kit.exists(
                      "posts", cond("id", post["id"]), cond("title", ref("slot.title"), "!="))}],
                  footprint=[{"table": "posts", "where": [cond("id", post["id"]), cond("user_id", ref("user.id"))],
                              "columns": ["body", "edited"], "ops": ["update"]}])]


def _memberships(ctx: _Ctx) -> list[TaskDraft]:
    """Join three communities, or join two and leave one (several entities at once)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    member = sorted(s["forum_id"] for s in ctx.subs if s["user_id"] == user["id"])
    others = [f for f in ctx.forums if f["id"] not in member]
    join, leave = ctx.s.membership
    p = ctx.s.prefix + "/"
    if rng.random() < 0.6:
        chosen, changes = rng.sample(others, 3), [("first", True), ("second", True), ("third", True)]
        phrasings = [f"Join {p}{{first}}, {p}{{second}} and {p}{{third}}.",
                     f"Subscribe to {p}{{first}}, {p}{{second}} and {p}{{third}}.",
                     f"Become a member of {p}{{first}}, {p}{{second}} and {p}{{third}}."]
    else:
        chosen = rng.sample(others, 2) + [ctx.forum_by_id[rng.choice(member)]]
        changes = [("first", True), ("second", True), ("third", False)]
        phrasings = [f"Join {p}{{first}} and {p}{{second}}, and leave {p}{{third}}.",
                     f"Swap communities: subscribe to {p}{{first}} and {p}{{second}}, unsubscribe from {p}{{third}}."]
    steps: list[Step] = []
    for forum, (_, joining) in zip(chosen, changes):
        # searching for three communities would not fit the budget: browse to them
        steps += ctx.to_forum(forum, at_home=not steps, search_ok=False) + [("click", "button", join if joining else leave)]
        steps += [("click", "button", ctx.labels["confirm"])] if ctx.s.confirm_leave and not joining else []
    phrasings, slots, plan, who = as_user(ctx, user, phrasings, {n: f["name"] for (n, _), f in zip(changes, chosen)},
                                           steps, chance=0.5)

    def member_of(name: str, joined: bool) -> Data:
        return kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id(name)),
                          negate=not joined)

    return [make_task(ctx, "memberships", "multi_entity", "mutate", phrasings, slots, plan, **who,
                  goal=[member_of(n, j) for n, j in changes],
                  progress=[{"description": f"{'joined' if j else 'left'} the {n} community", "predicate": member_of(n, j)}
                            for n, j in changes],
                  footprint=[entry for n, j in changes for entry in (
                      {"table": "subscriptions", "where": [cond("user_id", ref("user.id")), cond("forum_id", _forum_id(n))],
                       "ops": ["insert" if j else "delete"]},
                      {"table": "forums", "where": [cond("id", _forum_id(n))], "columns": ["members"], "ops": ["update"]})])]


def _delete_post(ctx: _Ctx) -> list[TaskDraft]:
    """Log in with the credentials given, delete one of the user's posts (irreversible) and, on
    most sites, leave the post's community too (the user is a member of it)."""
    rng = ctx.rng
    users = [u for u in ctx.users if 2 <= len(ctx.by_user[u["id"]]) <= 2 * ctx.s.page_size]
    member = {(s["user_id"], s["forum_id"]) for s in ctx.subs}
    both = [(u, p) for u in users for p in ctx.by_user[u["id"]] if (u["id"], p["forum_id"]) in member]
    leaving = bool(both) and rng.random() < 0.7
    if leaving:
        user, post = rng.choice(both)
    else:
        user = rng.choice(users)
        post = rng.choice(ctx.by_user[user["id"]])
    steps = login_plan(ctx.labels, user["username"], user["password"], via_link=rng.random() < 0.5)
    steps += ctx.open_own_post(user, post) + [("click", "button", ctx.words["delete_post"])]
    steps += [("click", "button", ctx.labels["confirm"])] if ctx.s.confirm_delete else []
    gone = kit.exists("posts", cond("title", ref("slot.title")), negate=True)
    slots = {"username": user["username"], "password": user["password"], "title": post["title"]}
    phrasings = ["Log in as {username} (password: {password}) and delete your post \"{title}\".",
                 "Sign in with {username} / {password}, then remove the post \"{title}\" for good.",
                 "Using the account {username} (password {password}), delete the post \"{title}\"."]
    goal = [gone, kit.count("posts", cond("user_id", ref("user.id")), value=len(ctx.by_user[user["id"]]) - 1)]
    progress = [{"description": "the post is gone", "predicate": gone}]
    # the post's id, not its title: once it is deleted, no query over the slots finds it
    footprint = [{"table": t, "where": [cond(c, post["id"])], "ops": ["delete"]}
                 for t, c in [("posts", "id"), ("comments", "post_id"), ("votes", "post_id")]
                 + ([("saved", "post_id")] if ctx.s.has_saved else [])]
    if leaving:
        forum = ctx.forum_by_id[post["forum_id"]]
        steps += ctx.to_forum(forum) + [("click", "button", ctx.s.membership[1])]
        steps += [("click", "button", ctx.labels["confirm"])] if ctx.s.confirm_leave else []
        slots["forum"] = forum["name"]
        phrasings = [
            f"Log in as {{username}} (password: {{password}}), delete your post \"{{title}}\" and leave {ctx.place}.",
            f"Sign in with {{username}} / {{password}}. Remove your post \"{{title}}\" for good, then leave {ctx.place}.",
            f"I am done with {ctx.place}. Log in as {{username}} (password: {{password}}), delete my post \"{{title}}\" "
            "there and leave the community."]
        out = kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id()), negate=True)
        goal.append(out)
        progress.append({"description": "no longer a member of the community", "predicate": out})
        footprint += [{"table": "subscriptions", "where": [cond("user_id", ref("user.id")), cond("forum_id", _forum_id())],
                       "ops": ["delete"]},
                      {"table": "forums", "where": [cond("id", _forum_id())], "columns": ["members"], "ops": ["update"]}]
    return [make_task(ctx, "delete_post", "login_write", "mutate", phrasings, slots, steps, user=user["username"],
                  credentials="instruction", goal=goal, progress=progress, footprint=footprint)]


# ----------------------------------------------------------------------------- infeasible


def _infeasible(ctx: _Ctx) -> list[TaskDraft]:
    """Something that does not exist on this site and that no action creates: a community or a
    user. The plan establishes the absence first (a search, the community list, the new-post form)
    and then reports it."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    names = {f["name"] for f in ctx.forums}
    missing = rng.choice([n for n in sorted(FORUMS) + MARKET_NAMES if n not in names])
    kind = rng.randrange(3)
    if kind < 2:
        looks = [ctx.search(missing) + ([("click", "tab", ctx.words["communities"])] if ctx.s.search_tabs else []),
                 [("click", "link", ctx.words["communities"])] if ctx.s.has_directory
                 else [("click", "link", ctx.labels["home"])]]
        if kind == 1 and ctx.s.submit_mode == "global":
            looks.append([("click", "link", ctx.words["new_post"])])
        look = rng.choice(looks)
    if kind == 0:
        phrasings, slots, plan, who = as_user(
            ctx, user, [f"Join {ctx.place}.", f"Subscribe me to {ctx.place}, please.", f"Become a member of {ctx.place}."],
            {"forum": missing}, look + [("infeasible", f"There is no community called {missing} on this site.")],
            chance=0.4)
        return [make_task(ctx, "missing_community", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                          goal=[kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id()))])]
    if kind == 1:
        phrasings, slots, plan, who = as_user(
            ctx, user, [f"Post \"{{title}}\" in {ctx.place}.", f"Create a thread titled \"{{title}}\" in {ctx.place}."],
            {"forum": missing, "title": _title(rng.choice(NEW_TITLE_FORMS), "setup")},
            look + [("infeasible", f"There is no community called {missing} to post in.")], chance=0.4)
        return [make_task(ctx, "missing_community_post", "infeasible_missing", "infeasible", phrasings, slots, plan,
                          **who, goal=[kit.exists("posts", cond("forum_id", _forum_id()), cond("title", ref("slot.title")))])]
    usernames = {u["username"] for u in ctx.users}
    ghost = next(g for g in (f"{a.lower()}_{b.lower()}" for a, b in (person(rng) for _ in iter(int, 1)))
                 if g not in usernames)
    look = ctx.search(ghost) + ([("click", "tab", ctx.words["people"])] if ctx.s.search_tabs else [])
    phrasings, slots, plan, who = as_user(
        ctx, user, ["Upvote the latest post by {ghost}.", "Find {ghost}'s newest post and upvote it."],
        {"ghost": ghost}, look + [("infeasible", f"There is no user called {ghost} here.")], chance=0.4)
    return [make_task(ctx, "missing_user", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                      goal=[kit.sql("SELECT EXISTS (SELECT 1 FROM votes v JOIN posts p ON p.id = v.post_id JOIN users u "
                                    "ON u.id = p.user_id WHERE v.user_id = :user_id AND u.username = :ghost)",
                                    ghost=ref("slot.ghost"))])]
