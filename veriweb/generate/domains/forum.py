"""Forum blueprint: communities, posts, comments, votes, memberships, profiles with karma, hot/new/top.

Description:
    A Reddit-like discussion site. Communities (one of them a buy-and-sell marketplace whose posts
    carry an asking price) hold hundreds of posts; each post has a score, comments and, on some
    sites, a flair. Users vote once per post (up, down, or take the vote back), comment, join and
    leave communities, create, edit and delete their own posts, and have a profile with karma,
    a join date and their post and comment history. Lists sort by hot, new and top (and, on some
    sites, by comment count); a search finds posts, communities and people. Posts older than six
    months are archived: no new votes or comments.

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
from typing import Any

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page, login_plan
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.vocab import WORDS, Labels, password, person

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
               "Restored an old {n}", "How do you store your {n}?", "Why does my {n} keep failing?",
               "{N} recommendations?", "Upgraded my {n} today", "Found {a} {n} at a yard sale"]
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
               "Edit: sold out locally, please stop messaging me.", "Update: added photos and a parts list."]
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
FLAIRS = ["Discussion", "Question", "Showcase", "News", "Help"]
TODAY = dt.date(2026, 6, 15)
CUTOFF = "2025-12-17"  # posts created before this are archived (six months before the clock's day)
TODAY_ORD = 2026 * 372 + 6 * 31 + 15
AGE_SQL = ("({today} + 2 - (CAST(substr(p.created, 1, 4) AS INTEGER) * 372 + CAST(substr(p.created, 6, 2) AS INTEGER) "
           "* 31 + CAST(substr(p.created, 9, 2) AS INTEGER)))").format(today=TODAY_ORD)

# Labels this domain adds to the shared bank (``labels.pick``); pairs are split on "|".
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
RULES = ["Be kind and stay on topic.", "No spam or self-promotion.", "Search before you post.",
         "Use a clear title.", "No low-effort posts."]


def _term(labels: Labels, concept: str) -> str:
    return labels.pick(concept, TERMS[concept])


def _pair(labels: Labels, concept: str) -> tuple[str, str]:
    first, second = labels.pick(concept, TERMS[concept]).split("|")
    return first, second


def _title(form: str, noun: str) -> str:
    """A post title from a form such as ``"Is {a} {n} worth it?"`` and a noun."""
    article = "an" if noun[0] in "aeioAEIO" else "a"
    text = form.format(n=noun, N=noun[0].upper() + noun[1:], a=article)
    return text[0].upper() + text[1:]


def _ord(created: str) -> int:
    return int(created[:4]) * 372 + int(created[5:7]) * 31 + int(created[8:10])


def _hot(score: int, created: str) -> float:
    """The hot rank, exactly as the ``post_view`` computes it."""
    age = TODAY_ORD + 2 - _ord(created)
    return (score + 1.0) / (age * age)


def _stamp(rng: random.Random, first: int, last: int) -> str:
    """A datetime on a day between ``first`` and ``last`` days before the clock's day."""
    day = dt.date.fromordinal(TODAY.toordinal() - rng.randint(first, last))
    return f"{day.isoformat()}T{rng.randint(6, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}"


def _people(rng: random.Random, count: int) -> list[dict[str, Any]]:
    users, seen = [], set()
    while len(users) < count:
        first, last = person(rng)
        style = rng.randrange(4)
        username = [f"{first.lower()}_{last[:3].lower()}", f"{first.lower()}{rng.randint(2, 99)}",
                    f"{rng.choice(WORDS)}_{first.lower()}", f"{last.lower()}{rng.randint(70, 99)}"][style]
        if username in seen:
            continue
        seen.add(username)
        joined = _stamp(rng, 40, 2500)[:10]
        users.append({"id": len(users) + 1, "username": username, "password": password(rng, username),
                      "name": f"{first} {last}", "joined": joined, "bio": rng.choice(BIOS)})
    return users


def _content(rng: random.Random, forums: list[dict[str, Any]], market_id: int, has_flair: bool) -> dict[str, Any]:
    users = _people(rng, rng.randint(30, 55))
    posts: list[dict[str, Any]] = []
    titles: set[str] = set()
    for _ in range(rng.randint(220, 380)):
        forum = rng.choice(forums)
        author = rng.choice(users)
        price = None
        if forum["id"] == market_id:
            item, low, high = rng.choice(MARKET_ITEMS)
            noun = item
            title = rng.choice(MARKET_FORMS).format(adj=rng.choice(MARKET_ADJ), item=item)
            price = rng.randint(low, high) * 100
            body = f"Asking ${price // 100}. Local pickup preferred, can ship at the buyer's cost."
        else:
            noun = rng.choice(forum["nouns"])
            title = _title(rng.choice(TITLE_FORMS), noun)
            body = " ".join(line.format(n=noun) for line in rng.sample(BODY_LINES, 2))
        if title in titles:
            continue
        titles.add(title)
        created = _stamp(rng, 1, 330)
        if created[:10] < author["joined"]:
            created = author["joined"] + created[10:]
        score = int(rng.expovariate(1 / 35)) - rng.randint(0, 6)
        posts.append({"id": len(posts) + 1, "forum_id": forum["id"], "user_id": author["id"], "title": title,
                      "body": body, "created": created, "score": score,
                      "flair": rng.choice(FLAIRS) if has_flair else None, "price": price,
                      "edited": rng.random() < 0.1, "noun": noun})
    comments = []
    for _ in range(rng.randint(420, 760)):
        post = rng.choice(posts)
        comments.append({"id": len(comments) + 1, "post_id": post["id"], "user_id": rng.choice(users)["id"],
                         "body": rng.choice(COMMENTS), "created": _later(rng, post["created"]),
                         "score": rng.randint(-2, 40)})
    votes, voted = [], set()
    for _ in range(rng.randint(250, 420)):
        user, post = rng.choice(users), rng.choice(posts)
        if (user["id"], post["id"]) in voted:
            continue
        voted.add((user["id"], post["id"]))
        votes.append({"id": len(votes) + 1, "user_id": user["id"], "post_id": post["id"],
                      "value": 1 if rng.random() < 0.8 else -1})
    subs = []
    for user in users:
        for forum in sorted(rng.sample(forums, rng.randint(1, min(5, len(forums) - 2))), key=lambda f: f["id"]):
            subs.append({"id": len(subs) + 1, "user_id": user["id"], "forum_id": forum["id"]})
    for forum in forums:
        forum["members"] = rng.randint(800, 90_000) + sum(1 for s in subs if s["forum_id"] == forum["id"])
    ncomments: dict[int, int] = {}
    for comment in comments:
        ncomments[comment["post_id"]] = ncomments.get(comment["post_id"], 0) + 1
    for post in posts:
        post["comments"] = ncomments.get(post["id"], 0)
        post["hot"] = _hot(post["score"], post["created"])
    return {"users": users, "posts": posts, "comments": comments, "votes": votes, "subs": subs}


def _later(rng: random.Random, created: str) -> str:
    """A datetime a little after ``created`` (a comment on a post), at the latest yesterday."""
    day = min(dt.date.fromisoformat(created[:10]).toordinal() + int(rng.expovariate(0.5)), TODAY.toordinal() - 1)
    stamp = f"{dt.date.fromordinal(day).isoformat()}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"
    return max(stamp, created[:17] + "59")


def _table(name: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]], *, nullable: tuple[str, ...] = (),
           **extra: Any) -> dict[str, Any]:
    table = kit.table_def(name, columns, rows, **extra)
    for column in table["columns"]:
        if column["name"] in nullable:
            column["nullable"] = True
    return table


def build(streams: Streams) -> Draft:
    """Build one forum site (see the module docstring)."""
    srng, crng = streams.structure, streams.content
    labels = Labels(srng)
    site_name = srng.choice(SITE_NAMES)
    prefix = srng.choice(["f", "c", "r"])
    chosen = sorted(srng.sample(sorted(FORUMS), srng.randint(7, 10)))
    market = srng.choice(MARKET_NAMES)
    has_flair = srng.random() < 0.5
    has_directory = srng.random() < 0.6
    has_subs_page = srng.random() < 0.5
    has_saved = srng.random() < 0.4
    search_in_header = srng.random() < 0.6
    search_tabs = srng.random() < 0.5
    submit_mode = srng.choice(["forum", "global"])
    listing_kind = srng.choice(["list", "table"])
    page_size = srng.choice([10, 12, 15])
    actions_ui = srng.choice(["menu", "collapsible", "plain"])
    comment_ui = srng.choice(["plain", "collapsible", "dialog"])
    profile_ui = srng.choice(["tabs", "plain"])
    confirm_delete = srng.random() < 0.7
    confirm_leave = srng.random() < 0.4
    post_path = srng.choice(["post", "comments", "thread", "p"])
    post_fields = srng.sample(["title", "body", "flair"] if has_flair else ["title", "body"], 3 if has_flair else 2)
    sort_keys = ["hot", "new", "top"] + (["most_comments"] if srng.random() < 0.5 else [])
    sort_keys = sort_keys[:1] + srng.sample(sort_keys[1:], len(sort_keys) - 1)
    sorts = [(k, _term(labels, k), {"hot": "hot", "new": "created", "top": "score", "most_comments": "comments"}[k],
              "desc") for k in sort_keys]
    upvote, downvote = _pair(labels, "votes")
    join, leave = _pair(labels, "membership")
    save, unsave = _pair(labels, "save_post")
    words = {c: _term(labels, c) for c in TERMS if c not in ("votes", "membership", "save_post")}

    forums = [{"id": i + 1, "name": name, "title": FORUMS[name][0], "description": FORUMS[name][1],
               "nouns": FORUMS[name][2], "rules": " ".join(srng.sample(RULES, 2)),
               "created": f"20{srng.randint(12, 23)}-0{srng.randint(1, 9)}-1{srng.randint(0, 9)}"}
              for i, name in enumerate(chosen)]
    forums.append({"id": len(forums) + 1, "name": market, "title": "Buy, Sell and Trade",
                   "description": "Buy, sell and trade used gear. No scams, no shipping-only sellers.",
                   "nouns": [], "rules": "Every listing needs a price. Be honest about condition.",
                   "created": "2019-03-02"})
    market_id = forums[-1]["id"]

    # ------------------------------------------------------------------ content
    data = _content(crng, forums, market_id, has_flair)
    users, posts, comments, votes, subs = data["users"], data["posts"], data["comments"], data["votes"], data["subs"]
    tables = [
        kit.table_def("forums", [("id", "integer"), ("name", "text"), ("title", "text"), ("description", "text"),
                                 ("rules", "text"), ("created", "date"), ("members", "integer")],
                      [{k: f[k] for k in ("id", "name", "title", "description", "rules", "created", "members")}
                       for f in forums], indexes=[["name"]]),
        kit.table_def("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("joined", "date"), ("bio", "text")], users, indexes=[["username"]]),
        _table("posts", [("id", "integer"), ("forum_id", "integer"), ("user_id", "integer"), ("title", "text"),
                         ("body", "text"), ("created", "datetime"), ("score", "integer"), ("flair", "text"),
                         ("price", "money"), ("edited", "boolean")],
               [{k: v for k, v in p.items() if k not in ("noun", "comments", "hot")} for p in posts],
               nullable=("flair", "price"), foreign_keys=[("forum_id", "forums"), ("user_id", "users")],
               indexes=[["title"]]),
        kit.table_def("comments", [("id", "integer"), ("post_id", "integer"), ("user_id", "integer"), ("body", "text"),
                                   ("created", "datetime"), ("score", "integer")], comments,
                      foreign_keys=[("post_id", "posts"), ("user_id", "users")]),
        kit.table_def("votes", [("id", "integer"), ("user_id", "integer"), ("post_id", "integer"), ("value", "integer")],
                      votes, foreign_keys=[("user_id", "users"), ("post_id", "posts")]),
        kit.table_def("subscriptions", [("id", "integer"), ("user_id", "integer"), ("forum_id", "integer")], subs,
                      foreign_keys=[("user_id", "users"), ("forum_id", "forums")]),
    ]
    if has_saved:
        tables.append(kit.table_def("saved", [("id", "integer"), ("user_id", "integer"), ("post_id", "integer")], [],
                                    foreign_keys=[("user_id", "users"), ("post_id", "posts")]))
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
                "coalesce((SELECT sum(score) FROM comments WHERE user_id = u.id), 0) AS karma, "
                "(SELECT count(*) FROM posts WHERE user_id = u.id) AS posts FROM users u"},
        {"name": "sub_view",
         "sql": "SELECT s.id AS id, s.user_id AS user_id, s.forum_id AS forum_id, f.name AS name, f.title AS title, "
                "f.members AS members FROM subscriptions s JOIN forums f ON f.id = s.forum_id"},
        {"name": "membership",
         "sql": "SELECT f.id AS id, f.id AS forum_id, u.id AS user_id, EXISTS (SELECT 1 FROM subscriptions s WHERE "
                "s.user_id = u.id AND s.forum_id = f.id) AS joined FROM forums f CROSS JOIN users u "
                "UNION ALL SELECT f.id, f.id, NULL, 0 FROM forums f"},
        {"name": "vote_view",
         "sql": "SELECT v.id AS id, v.user_id AS user_id, v.post_id AS post_id, v.value AS value, CASE v.value WHEN 1 "
                "THEN 'You upvoted this post.' ELSE 'You downvoted this post.' END AS note FROM votes v"},
    ]
    if has_saved:
        views.append({"name": "saved_view", "sql": "SELECT s.id AS id, s.user_id AS user_id, s.post_id AS post_id, "
                                                   "p.title AS title FROM saved s JOIN posts p ON p.id = s.post_id"})

    # ------------------------------------------------------------------ markers
    own = kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p AND user_id = :user_id)",
                            p=ref("param.post_id")), "You can only change your own posts.")
    exists_post = kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p)", p=ref("param.post_id")),
                            "That post does not exist any more.")
    open_post = kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM posts WHERE id = :p AND created >= :cutoff)",
                                  p=ref("param.post_id"), cutoff=CUTOFF),
                          "This post is archived: new votes and comments are closed.")
    unique_title = kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM posts GROUP BY forum_id, title HAVING count(*) > 1)"),
                             "A post with this title already exists in this community.")
    membership = kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = :user_id GROUP BY "
                                   "forum_id HAVING count(*) > 1)"), "You are already a member of this community.")
    post_params = [kit.param("title", "text", words["post_title"], min_length=5, max_length=120),
                   kit.param("body", "text", words["post_body"], min_length=2, max_length=5000)]
    markers = [
        kit.marker("vote", [kit.param("post_id", "integer"), kit.param("value", "integer", "Vote", min=-1, max=1)], [
            kit.effect("update", "posts", "UPDATE posts SET score = score + :value - coalesce((SELECT value FROM votes "
                                          "WHERE user_id = :user_id AND post_id = :post_id), 0) WHERE id = :post_id"),
            kit.effect("delete", "votes", "DELETE FROM votes WHERE user_id = :user_id AND post_id = :post_id AND :value = 0"),
            kit.effect("update", "votes", "UPDATE votes SET value = :value WHERE user_id = :user_id AND post_id = :post_id "
                                          "AND :value != 0 AND value != :value"),
            kit.effect("insert", "votes", "INSERT INTO votes (user_id, post_id, value) SELECT :user_id, :post_id, :value "
                                          "WHERE :value != 0 AND NOT EXISTS (SELECT 1 FROM votes WHERE user_id = :user_id "
                                          "AND post_id = :post_id)")],
                   pre=[exists_post, open_post],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM votes WHERE user_id = :user_id GROUP BY post_id "
                                          "HAVING count(*) > 1)"), "You have already voted on this post."),
                        kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM votes WHERE value NOT IN (1, -1))"),
                                  "A vote is either up or down.")],
                   message="Your vote could not be recorded."),
        kit.marker("add_comment", [kit.param("post_id", "integer"),
                                   kit.param("body", "text", words["comment_box"], min_length=2, max_length=2000)],
                   [kit.effect("insert", "comments", "INSERT INTO comments (post_id, user_id, body, created, score) "
                                                     "VALUES (:post_id, :user_id, :body, :now, 1)")],
                   pre=[exists_post, open_post], message="Your comment could not be posted."),
        kit.marker("create_post", [kit.param("forum_id", "integer", words["community_field"])] + post_params
                   + ([kit.param("flair", "text", words["flair"], choices=FLAIRS)] if has_flair else []),
                   [kit.effect("insert", "posts", "INSERT INTO posts (forum_id, user_id, title, body, created, score, "
                                                  "flair, price, edited) VALUES (:forum_id, :user_id, :title, :body, :now, "
                               f"1, {':flair' if has_flair else 'NULL'}, NULL, 0)"),
                    kit.effect("insert", "votes", "INSERT INTO votes (user_id, post_id, value) SELECT :user_id, max(id), 1 "
                                                  "FROM posts WHERE user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM forums WHERE id = :f)", f=ref("param.forum_id")),
                                  "Please choose a community.")],
                   inv=[unique_title,
                        kit.check(kit.sql("SELECT (SELECT count(*) FROM posts WHERE user_id = :user_id AND created >= "
                                          ":today) <= 5"), "You are posting too often: try again tomorrow.")],
                   message="Your post could not be created."),
        kit.marker("edit_post", [kit.param("post_id", "integer")] + post_params,
                   [kit.effect("update", "posts", "UPDATE posts SET title = :title, body = :body, edited = 1 "
                                                  "WHERE id = :post_id AND user_id = :user_id")],
                   pre=[own], inv=[unique_title], message="Your changes could not be saved."),
        kit.marker("delete_post", [kit.param("post_id", "integer")],
                   [kit.effect("delete", "votes", "DELETE FROM votes WHERE post_id = :post_id"),
                    kit.effect("delete", "comments", "DELETE FROM comments WHERE post_id = :post_id")]
                   + ([kit.effect("delete", "saved", "DELETE FROM saved WHERE post_id = :post_id")] if has_saved else [])
                   + [kit.effect("delete", "posts", "DELETE FROM posts WHERE id = :post_id AND user_id = :user_id")],
                   pre=[own], irreversible=True, message="The post could not be deleted."),
        kit.marker("join", [kit.param("forum_id", "integer")],
                   [kit.effect("insert", "subscriptions", "INSERT INTO subscriptions (user_id, forum_id) VALUES "
                                                          "(:user_id, :forum_id)"),
                    kit.effect("update", "forums", "UPDATE forums SET members = members + 1 WHERE id = :forum_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM forums WHERE id = :f)", f=ref("param.forum_id")),
                                  "That community does not exist.")],
                   inv=[membership], message="You could not join this community."),
        kit.marker("leave", [kit.param("forum_id", "integer")],
                   [kit.effect("delete", "subscriptions", "DELETE FROM subscriptions WHERE user_id = :user_id AND "
                                                          "forum_id = :forum_id"),
                    kit.effect("update", "forums", "UPDATE forums SET members = members - 1 WHERE id = :forum_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM subscriptions WHERE user_id = :user_id AND "
                                          "forum_id = :f)", f=ref("param.forum_id")), "You are not a member of this community.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM forums WHERE members < 0)"),
                                  "A community cannot have fewer than zero members.")]),
    ]
    if has_saved:
        markers += [
            kit.marker("save_post", [kit.param("post_id", "integer")],
                       [kit.effect("insert", "saved", "INSERT INTO saved (user_id, post_id) SELECT :user_id, :post_id "
                                                      "WHERE NOT EXISTS (SELECT 1 FROM saved WHERE user_id = :user_id "
                                                      "AND post_id = :post_id)")], pre=[exists_post]),
            kit.marker("unsave_post", [kit.param("post_id", "integer")],
                       [kit.effect("delete", "saved", "DELETE FROM saved WHERE user_id = :user_id AND post_id = :post_id")]),
        ]

    # ------------------------------------------------------------------ pages
    forum_href = f"/{prefix}/{{row.forum}}"
    post_href = f"/{post_path}/{{row.id}}"
    nav = [(labels["home"], "/")]
    if has_directory:
        nav.append((words["communities"], "/communities"))
    if not search_in_header:
        nav.append((labels["search"], "/search"))
    if submit_mode == "global":
        nav.append((words["new_post"], "/submit"))
    nav.append((words["my_profile"], "/me"))
    if has_subs_page:
        nav.append((words["my_communities"], "/subscriptions"))
    if has_saved:
        nav.append((words["saved"], "/saved"))
    chrome = build_chrome(srng, labels, site_name, nav)
    search_form = kit.form(labels["search"], kit.navigate_action("/search"),
                           [kit.textbox("q", labels["search_box"], value=ref("query.q"))], label=labels["search"])
    header = list(chrome.layout["header"])
    if search_in_header:
        header.append(kit.section([search_form], role="search"))

    def post_list(name: str, q: dict[str, Any], *, show_forum: bool = True, show_author: bool = True,
                  with_sorts: bool = True, size: int | None = page_size, empty: str = "No posts yet.") -> dict[str, Any]:
        title = kit.link("{row.title}", post_href)
        forum = kit.link(f"{prefix}/{{row.forum}}", forum_href)
        author = kit.link("{row.author}", "/u/{row.author}")
        stats = kit.text("{row.score} points · {row.comments} comment{row.comments|plural} · {row.created|date}")
        chosen_sorts = sorts if with_sorts else None
        if listing_kind == "list":
            item = [title] + ([forum] if show_forum else []) + ([author] if show_author else []) + [stats]
            return kit.listing(name, q, item, page_size=size, sorts=chosen_sorts, empty=empty)
        columns = [(words["posts"], [title])] + ([(words["community_field"], [forum])] if show_forum else []) + (
            [("Author", [author])] if show_author else []) + [
            ("Activity",
             [kit.text("{row.score} · {row.comments} comment{row.comments|plural} · {row.created|date}")])]
        return kit.table(name, q, columns, label=words["posts"], page_size=size, sorts=chosen_sorts, empty=empty)

    forum_links = kit.listing("communities", kit.query("forums", order=[("name", "asc")]),
                              [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}"),
                               kit.text("{row.title} · {row.members} members")])
    home = [kit.heading(words["feed"], 1), kit.text("Today is {clock.today|date}.")]
    home.append(post_list("feed", kit.query("post_view", order=[("hot", "desc"), ("id", "desc")]),
                          size=srng.choice([6, 8])))
    if has_directory:
        home += [kit.heading(f"Top {words['communities'].lower()}"),
                 kit.listing("top_communities", kit.query("forums", order=[("members", "desc"), ("id", "asc")], limit=5),
                             [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}")])]
    else:
        home += [kit.heading(words["communities"]), forum_links]

    join_form = kit.form(join, kit.marker_action("join", {"forum_id": ref("row.forum_id")},
                                                 message="Welcome! You joined the community."))
    leave_form = kit.form(leave, kit.marker_action("leave", {"forum_id": ref("row.forum_id")}, message="You left the community."),
                          confirm=kit.confirm("Leave this community?", labels["confirm"], labels["cancel"])
                          if confirm_leave else None)
    forum_body = [
        kit.heading(f"{prefix}/{{row.name}}", 1), kit.text("{row.title}"), kit.text("{row.description}"),
        kit.text("{row.members} members · since {row.created|date}"),
        kit.record(kit.query("membership", cond("forum_id", ref("row.id")), cond("user_id", ref("user.id")),
                             cond("joined", 0)), [join_form], ""),
        kit.record(kit.query("membership", cond("forum_id", ref("row.id")), cond("user_id", ref("user.id")),
                             cond("joined", 1)), [kit.text("You are a member."), leave_form], ""),
        kit.collapsible("rules", words["rules"], [kit.text("{row.rules}")]),
    ]
    if submit_mode == "forum":
        forum_body.append(kit.link(words["new_post"], f"/{prefix}/{{row.name}}/submit"))
    forum_body.append(post_list("posts", kit.query("post_view", cond("forum_id", ref("row.id")),
                                                   order=[("hot", "desc"), ("id", "desc")]), show_forum=False))

    unvote = kit.form(_term(labels, "unvote"), kit.marker_action("vote", {"post_id": ref("row.post_id"), "value": 0},
                                                                 message="Your vote was removed."))
    owner_items = [kit.link(words["edit"], f"/{post_path}/{{row.id}}/edit"),
                   kit.form(words["delete_post"], kit.marker_action("delete_post", {"post_id": ref("row.id")},
                                                                     redirect="/me", message="Your post was deleted."),
                            confirm=kit.confirm("Delete this post?", labels["confirm"], labels["cancel"],
                                                "This cannot be undone.") if confirm_delete else None)]
    if actions_ui == "menu":
        owner: list[dict[str, Any]] = [kit.menu("post_actions", words["post_actions"], owner_items)]
    elif actions_ui == "collapsible":
        owner = [kit.collapsible("post_actions", words["post_actions"], owner_items)]
    else:
        owner = owner_items
    comment_form = kit.form(words["comment_submit"], kit.marker_action(
        "add_comment", {"post_id": ref("row.id"), "body": ref("field.body")}, message="Your comment was posted."),
        [kit.textbox("body", words["comment_box"], kind="textarea", required=True)], label=words["comment_box"])
    if comment_ui == "collapsible":
        comment_block = [kit.collapsible("comment_box", words["comment_open"], [comment_form])]
    elif comment_ui == "dialog":
        comment_block = [kit.button(words["comment_open"], "comment_dialog", "open"),
                         kit.dialog("comment_dialog", words["comment_open"],
                                    [comment_form, kit.button(labels["cancel"], "comment_dialog", "close")])]
    else:
        comment_block = [comment_form]
    post_body = chrome.crumbs([(labels["home"], "/"), (f"{prefix}/{{row.forum}}", forum_href)]) + [
        kit.heading("{row.title}", 1),
        kit.link(f"{prefix}/{{row.forum}}", forum_href), kit.link("{row.author}", "/u/{row.author}"),
        kit.text("Posted {row.created|date}{row.state}"),
    ]
    if has_flair:
        post_body.append(kit.text(f"{words['flair']}: {{row.flair}}"))
    post_body += [
        kit.text("{row.body}"),
        kit.record(kit.query("posts", cond("id", ref("row.id")), cond("price", None, "not_null")),
                   [kit.text("Asking price: {row.price|money}")], ""),
        kit.text("{row.score} points"),
        kit.form(upvote, kit.marker_action("vote", {"post_id": ref("row.id"), "value": 1}, message="Thanks for voting.")),
        kit.form(downvote, kit.marker_action("vote", {"post_id": ref("row.id"), "value": -1}, message="Thanks for voting.")),
        kit.record(kit.query("vote_view", cond("post_id", ref("row.id")), cond("user_id", ref("user.id"))),
                   [kit.text("{row.note}"), unvote], ""),
    ]
    if has_saved:
        post_body.append(kit.form(save, kit.marker_action("save_post", {"post_id": ref("row.id")}, message="Saved.")))
    post_body += [
        kit.record(kit.query("posts", cond("id", ref("row.id")), cond("user_id", ref("user.id"))), owner, ""),
        kit.heading(f"{words['comments']} ({{row.comments}})"), *comment_block,
        kit.listing("comments", kit.query("comment_view", cond("post_id", ref("row.id")),
                                          order=[("score", "desc"), ("id", "asc")]),
                    [kit.link("{row.author}", "/u/{row.author}"), kit.text("{row.score} points · {row.created|date}"),
                     kit.text("{row.body}")], page_size=10, empty="No comments yet. Be the first!"),
    ]

    fields = {"title": kit.textbox("title", words["post_title"], required=True),
              "body": kit.textbox("body", words["post_body"], kind="textarea", required=True),
              "flair": kit.select("flair", words["flair"], [(f, f) for f in FLAIRS])}
    post_args = {"title": ref("field.title"), "body": ref("field.body")}
    if has_flair:
        post_args["flair"] = ref("field.flair")
    redirect = f"/{post_path}/{{result.id}}"
    if submit_mode == "forum":
        submit_page = kit.page("submit", f"/{prefix}/{{name:slug}}/submit", words["new_post"], [kit.record(
            kit.query("forums", cond("name", ref("param.name"))),
            [kit.heading(f"{words['new_post']} in {prefix}/{{row.name}}", 1),
             kit.form(words["publish"], kit.marker_action("create_post", {"forum_id": ref("row.id"), **post_args},
                                                          redirect=redirect, message="Your post is live."),
                      [fields[n] for n in post_fields], label=words["new_post"])],
            "This community does not exist.")], login=True)
    else:
        picker = kit.select("forum", words["community_field"], [("", "Choose a community")], required=True,
                            options_query={"query": kit.query("forums", order=[("name", "asc")]), "value": "id",
                                           "label": "name"})
        submit_page = kit.page("submit", "/submit", words["new_post"], [
            kit.heading(words["new_post"], 1),
            kit.form(words["publish"], kit.marker_action("create_post", {"forum_id": ref("field.forum"), **post_args},
                                                         redirect=redirect, message="Your post is live."),
                     [picker] + [fields[n] for n in post_fields], label=words["new_post"])], login=True)
    edit_fields = {"title": kit.textbox("title", words["post_title"], required=True, value=ref("row.title")),
                   "body": kit.textbox("body", words["post_body"], kind="textarea", required=True, value=ref("row.body"))}
    edit_page = kit.page("edit", f"/{post_path}/{{id:int}}/edit", words["edit"], [kit.record(
        kit.query("posts", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
        [kit.heading(words["edit"], 1),
         kit.form(labels["save"], kit.marker_action("edit_post", {"post_id": ref("row.id"), "title": ref("field.title"),
                                                                  "body": ref("field.body")},
                                                    redirect=f"/{post_path}/{{row.id}}", message="Your post was updated."),
                  [edit_fields[n] for n in post_fields if n != "flair"], label=words["edit"])],
        "You can only edit your own posts.")], login=True)

    profile_posts = post_list("user_posts", kit.query("post_view", cond("user_id", ref("row.id")),
                                                      order=[("created", "desc"), ("id", "desc")]),
                              show_author=False, with_sorts=False, empty="No posts yet.")
    profile_comments = kit.listing("user_comments", kit.query("comment_view", cond("user_id", ref("row.id")),
                                                              order=[("created", "desc"), ("id", "desc")], limit=8),
                                   [kit.text("{row.body}"), kit.text("on “{row.post_title}” · {row.score} points")],
                                   empty="No comments yet.")

    def profile(q: dict[str, Any], extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
        top = [kit.heading("{row.username}", 1), kit.text("{row.name} · {row.bio}"),
               kit.text("Joined {row.joined|date} · {row.karma} karma")]
        if profile_ui == "tabs":
            parts = [kit.tabs("profile_tabs", [(words["posts"], [profile_posts]), (words["comments"], [profile_comments])])]
        else:
            parts = [kit.heading(words["posts"]), profile_posts, kit.heading(words["comments"]), profile_comments]
        return [kit.record(q, top + parts + extra, "This user does not exist.")]

    my_forums = kit.listing("my_communities", kit.query("sub_view", cond("user_id", ref("user.id")), order=[("name", "asc")]),
                            [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}"), kit.text("{row.title}"),
                             kit.form(leave, kit.marker_action("leave", {"forum_id": ref("row.forum_id")},
                                                               message="You left the community."),
                                      confirm=kit.confirm("Leave this community?", labels["confirm"], labels["cancel"])
                                      if confirm_leave else None)],
                            empty="You have not joined any community yet.")
    search_parts = [
        (words["posts"], [post_list("results", kit.query("post_view", cond("title", ref("query.q"), "contains",
                                                                           skip_if_empty=True),
                                                         order=[("created", "desc"), ("id", "desc")]),
                                    with_sorts=False, empty="No posts match your search.")]),
        (words["communities"], [kit.listing("found_communities", kit.query(
            "forums", cond("name", ref("query.q"), "contains", skip_if_empty=True), order=[("name", "asc")]),
            [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}"), kit.text("{row.title}")],
            empty="No communities match.")]),
        (words["people"], [kit.listing("people", kit.query(
            "users", cond("username", ref("query.q"), "contains", skip_if_empty=True), order=[("username", "asc")],
            limit=8), [kit.link("{row.username}", "/u/{row.username}"), kit.text("{row.name}")],
            empty="Nobody matches.")]),
    ]
    if search_tabs:
        search_body: list[dict[str, Any]] = [kit.tabs("search_tabs", search_parts)]
    else:
        search_body = [el for label, els in search_parts for el in [kit.heading(label)] + els]
    pages = [
        kit.page("home", "/", site_name, chrome.crumbs([]) + home),
        kit.page("search", "/search", f"{labels['search']}: {{query.q}}", [
            kit.heading(labels["search"], 1), *([] if search_in_header else [search_form]), *search_body]),
        kit.page("forum", f"/{prefix}/{{name:slug}}", f"{prefix}/{{param.name}}", [kit.record(
            kit.query("forums", cond("name", ref("param.name"))), chrome.crumbs([(labels["home"], "/")]) + forum_body,
            "This community does not exist.")]),
        submit_page,
        edit_page,
        kit.page("post", f"/{post_path}/{{id:int}}", "Post", [kit.record(
            kit.query("post_view", cond("id", ref("param.id"))), post_body, "This post does not exist.")]),
        kit.page("profile", "/u/{username:slug}", "{param.username}", profile(
            kit.query("user_stats", cond("username", ref("param.username"))), [])),
        kit.page("me", "/me", words["my_profile"], profile(
            kit.query("user_stats", cond("id", ref("user.id"))),
            [] if has_subs_page else [kit.heading(words["my_communities"]), my_forums]), login=True),
        login_page(labels),
        *chrome.pages,
    ]
    if has_directory:
        if listing_kind == "list":
            directory = kit.listing("directory", kit.query("forums", order=[("members", "desc"), ("id", "asc")]),
                                    [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}"),
                                     kit.text("{row.title} · {row.members} members"), kit.text("{row.description}")])
        else:
            directory = kit.table("directory", kit.query("forums", order=[("members", "desc"), ("id", "asc")]),
                                  [("Name", [kit.link(f"{prefix}/{{row.name}}", f"/{prefix}/{{row.name}}")]),
                                   ("About", [kit.text("{row.title}")]), ("Members", [kit.text("{row.members}")])],
                                  label=words["communities"])
        pages.append(kit.page("communities", "/communities", words["communities"],
                              [kit.heading(words["communities"], 1), directory]))
    if has_subs_page:
        pages.append(kit.page("subscriptions", "/subscriptions", words["my_communities"],
                              [kit.heading(words["my_communities"], 1), my_forums], login=True))
    if has_saved:
        pages.append(kit.page("saved", "/saved", words["saved"], [
            kit.heading(words["saved"], 1),
            kit.listing("saved", kit.query("saved_view", cond("user_id", ref("user.id")), order=[("id", "desc")]),
                        [kit.link("{row.title}", f"/{post_path}/{{row.post_id}}"),
                         kit.form(unsave, kit.marker_action("unsave_post", {"post_id": ref("row.post_id")},
                                                            message="Removed from your saved posts."))],
                        empty="Nothing saved yet.")], login=True))
    site = {"name": site_name, "clock": {"today": "2026-06-15"},
            "auth": {"table": "users", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": {"tables": tables, "views": views}, "markers": markers,
            "layout": {"header": header, "footer": chrome.layout["footer"]}, "pages": pages}
    ctx = _Ctx(streams.tasks, labels, words, forums, data, market_id)
    ctx.prefix, ctx.page_size, ctx.sorts = prefix, page_size, sorts
    ctx.search_in_header, ctx.has_directory, ctx.has_subs_page = search_in_header, has_directory, has_subs_page
    ctx.submit_mode, ctx.has_flair, ctx.comment_ui, ctx.has_saved = submit_mode, has_flair, comment_ui, has_saved
    ctx.confirm_delete, ctx.confirm_leave = confirm_delete, confirm_leave
    ctx.votes_labels, ctx.membership_labels = (upvote, downvote), (join, leave)
    return Draft(site=site, tasks=_tasks(ctx))


class _Ctx:
    """What the task families need to know about the site they write tasks for."""

    def __init__(self, rng: random.Random, labels: Labels, words: dict[str, str], forums: list[dict[str, Any]],
                 data: dict[str, Any], market_id: int) -> None:
        self.rng, self.labels, self.words, self.forums = rng, labels, words, forums
        self.users, self.posts, self.comments = data["users"], data["posts"], data["comments"]
        self.votes, self.subs = data["votes"], data["subs"]
        self.market_id = market_id
        self.forum_by_id = {f["id"]: f for f in forums}
        self.user_by_id = {u["id"]: u for u in self.users}
        self.prefix, self.page_size, self.sorts = "f", 10, []
        self.search_in_header = self.has_directory = self.has_subs_page = self.has_flair = self.has_saved = False
        self.confirm_delete = self.confirm_leave = False
        self.submit_mode, self.comment_ui = "forum", "plain"
        self.votes_labels, self.membership_labels = ("Upvote", "Downvote"), ("Join", "Leave")

    # ------------------------------------------------------------------ plan helpers

    def to_forum(self, forum: dict[str, Any], *, at_home: bool = False) -> list[tuple[Any, ...]]:
        """To a community's page: through the directory, or from the home page's list (which
        needs no first step when the plan is known to be on the home page)."""
        link = ("click", "link", f"{self.prefix}/{forum['name']}")
        if self.has_directory:
            return [("click", "link", self.words["communities"]), link]
        return [link] if at_home else [("click", "link", self.labels["home"]), link]

    def search(self, query: str) -> list[tuple[Any, ...]]:
        steps: list[tuple[Any, ...]] = [] if self.search_in_header else [("click", "link", self.labels["search"])]
        return steps + [("fill", "textbox", self.labels["search_box"], query), ("click", "button", self.labels["search"])]

    def find_post(self, post: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Search for a post (by its whole title or a part of it), page to it and open it."""
        title = post["title"]
        query = post["noun"] if self.rng.random() < 0.5 else title
        matches = sorted((p for p in self.posts if query.lower() in p["title"].lower()),
                         key=lambda p: (p["created"], p["id"]), reverse=True)
        position = [p["id"] for p in matches].index(post["id"])
        if position // self.page_size > 2:
            return self.find_post_exact(post)
        return self.search(query) + _next_pages(position, self.page_size) + [("click", "link", title)]

    def find_post_exact(self, post: dict[str, Any]) -> list[tuple[Any, ...]]:
        matches = sorted((p for p in self.posts if post["title"].lower() in p["title"].lower()),
                         key=lambda p: (p["created"], p["id"]), reverse=True)
        position = [p["id"] for p in matches].index(post["id"])
        return self.search(post["title"]) + _next_pages(position, self.page_size) + [("click", "link", post["title"])]

    def to_user(self, user: dict[str, Any]) -> list[tuple[Any, ...]] | None:
        """Search people for a user and open the profile (``None`` if the search cannot show them)."""
        found = sorted(u["username"] for u in self.users if user["username"] in u["username"])
        if found.index(user["username"]) >= 8:
            return None
        return self.search(user["username"]) + [("click", "link", user["username"])]

    def user_posts(self, user: dict[str, Any]) -> list[dict[str, Any]]:
        """A user's posts in profile order (newest first)."""
        return sorted((p for p in self.posts if p["user_id"] == user["id"]), key=lambda p: (p["created"], p["id"]),
                      reverse=True)

    def open_own_post(self, user: dict[str, Any], post: dict[str, Any]) -> list[tuple[Any, ...]]:
        ordered = self.user_posts(user)
        return [("click", "link", self.words["my_profile"]), *_next_pages(ordered.index(post), self.page_size),
                ("click", "link", post["title"])]

    def forum_sorted(self, forum_id: int, column: str) -> list[dict[str, Any]]:
        """A community's posts as the list shows them sorted by ``column`` (then hot, then id)."""
        rows = [p for p in self.posts if p["forum_id"] == forum_id]
        return sorted(rows, key=lambda p: (p[column], p["hot"], p["id"]), reverse=True)

    def is_open(self, post: dict[str, Any]) -> bool:
        return post["created"] >= CUTOFF

    def forum_slot(self) -> str:
        return self.prefix + "/{forum}"


LOGIN_PREFIXES = ["Log in as {username} (password: {password}), then: ", "Sign in with {username} / {password}. ",
                  "Use the account {username}, password {password}. "]


def _as_user(ctx: _Ctx, user: dict[str, Any], phrasings: list[str], slots: dict[str, Any], plan: list[tuple[Any, ...]],
             *, instruction_chance: float = 0.5) -> tuple[list[str], dict[str, Any], list[tuple[Any, ...]], dict[str, Any]]:
    """Who does the task: logged in from the profile, or with credentials in the instruction."""
    if ctx.rng.random() < instruction_chance:
        prefix = ctx.rng.choice(LOGIN_PREFIXES)
        phrased = [prefix + (p[0].lower() + p[1:] if prefix.endswith(": ") else p) for p in phrasings]
        return (phrased, {**slots, "username": user["username"], "password": user["password"]},
                login_plan(ctx.labels, user["username"], user["password"], via_link=ctx.rng.random() < 0.5) + plan,
                {"user": user["username"], "credentials": "instruction"})
    return phrasings, slots, plan, {"user": user["username"], "start_logged_in": True, "credentials": "profile"}


def _task(ctx: _Ctx, task_id: str, family: str, kind: str, phrasings: list[str], slots: dict[str, Any],
          plan: list[tuple[Any, ...]], **fields: Any) -> TaskDraft:
    return TaskDraft(dict(id=task_id, family=family, kind=kind, template=ctx.rng.choice(phrasings), slots=slots,
                          **fields), plan)


def _next_pages(position: int, size: int) -> list[tuple[Any, ...]]:
    return [("click", "link", "Next")] * (position // size)


def _post_id(slot: str = "title") -> dict[str, Any]:
    return kit.scalar("posts", "id", cond("title", ref(f"slot.{slot}")))


def _forum_id(slot: str = "forum") -> dict[str, Any]:
    return kit.scalar("forums", "id", cond("name", ref(f"slot.{slot}")))


def _tasks(ctx: _Ctx) -> list[TaskDraft]:
    rng = ctx.rng
    out: list[TaskDraft] = []
    navigate = [_navigate_sorted, _navigate_author]
    lookup = [_retrieve_count, _retrieve_date]
    for family in (navigate[rng.randrange(2)], lookup[rng.randrange(2)], _retrieve_extreme, _retrieve_price,
                   _retrieve_compare, _retrieve_own_posts, _vote, _comment, _create_post, _edit_post, _memberships,
                   _delete_post, _infeasible):
        out += family(ctx)
    return out


# ----------------------------------------------------------------------------- navigate


def _navigate_sorted(ctx: _Ctx) -> list[TaskDraft]:
    """Open the top, newest or most-commented post of a community (sort-dependent)."""
    rng = ctx.rng
    options = [(key, label, column) for key, label, column, _ in ctx.sorts if key != "hot"]
    for _ in range(10):
        forum = rng.choice(ctx.forums)
        key, label, column = rng.choice(options)
        ordered = ctx.forum_sorted(forum["id"], column)
        if len(ordered) < 4 or ordered[0][column] == ordered[1][column]:
            continue
        what = {"new": "newest", "top": "highest-scoring", "most_comments": "most commented"}[key]
        target = kit.scalar("post_view", "id", cond("forum", ref("slot.forum")),
                            order=[(column, "desc"), ("hot", "desc"), ("id", "desc")])
        place = ctx.forum_slot()
        return [_task(ctx, "open_sorted", "navigate_sorted", "navigate",
                      [f"Open the {{what}} post in {place}.", f"Go to the {{what}} post of {place}.",
                       f"Find the {{what}} post in the {place} community and open it."],
                      {"what": what, "forum": forum["name"]},
                      ctx.to_forum(forum, at_home=True) + [("click", "link", label), ("click", "link", ordered[0]["title"])],
                      goal=[kit.on_page("post", id=target)],
                      progress=[{"description": "on the post", "predicate": kit.on_page("post", id=target)}])]
    return []


def _navigate_author(ctx: _Ctx) -> list[TaskDraft]:
    """Open the profile of the person who wrote a post (search-dependent)."""
    post = ctx.rng.choice(ctx.posts)
    author = ctx.user_by_id[post["user_id"]]
    target = kit.scalar("post_view", "author", cond("title", ref("slot.title")))
    return [_task(ctx, "author_profile", "navigate_search", "navigate",
                  ["Open the profile of whoever wrote the post \"{title}\".",
                   "Who posted \"{title}\"? Go to their profile page.",
                   "Find the author of \"{title}\" and open their profile."],
                  {"title": post["title"]}, ctx.find_post(post) + [("click", "link", author["username"])],
                  goal=[kit.on_page("profile", username=target)],
                  progress=[{"description": "on the author's profile", "predicate": kit.on_page("profile", username=target)}])]


# ----------------------------------------------------------------------------- retrieve


def _retrieve_count(ctx: _Ctx) -> list[TaskDraft]:
    """How many comments a post has, or how many members a community has (number answers)."""
    rng = ctx.rng
    if rng.random() < 0.6:
        post = rng.choice([p for p in ctx.posts if p["comments"] > 0])
        return [_task(ctx, "count_comments", "retrieve_count", "retrieve",
                      ["How many comments does the post \"{title}\" have?", "Count the comments on \"{title}\".",
                       "How many people commented on \"{title}\"? Give the number of comments."],
                      {"title": post["title"]}, ctx.find_post(post) + [("send", str(post["comments"]))],
                      answer={"type": "number", "value": kit.scalar("comments", "*", cond("post_id", _post_id()),
                                                                    agg="count")})]
    forum = rng.choice(ctx.forums)
    place = ctx.forum_slot()
    return [_task(ctx, "count_members", "retrieve_count", "retrieve",
                  [f"How many members does {place} have?", f"What is the member count of {place}?"],
                  {"forum": forum["name"]}, ctx.to_forum(forum, at_home=True) + [("send", f"{forum['members']:,}")],
                  answer={"type": "number", "value": kit.scalar("forums", "members", cond("name", ref("slot.forum")))})]


def _retrieve_extreme(ctx: _Ctx) -> list[TaskDraft]:
    """Who wrote the highest-scoring post of a community (text answer, sort-dependent)."""
    rng = ctx.rng
    top_label = next(label for key, label, _, _ in ctx.sorts if key == "top")
    for _ in range(10):
        forum = rng.choice(ctx.forums)
        ordered = ctx.forum_sorted(forum["id"], "score")
        if len(ordered) < 4 or ordered[0]["score"] == ordered[1]["score"]:
            continue
        author = ctx.user_by_id[ordered[0]["user_id"]]["username"]
        place = ctx.forum_slot()
        return [_task(ctx, "top_author", "retrieve_extreme", "retrieve",
                      [f"Which user wrote the highest-scoring post in {place}? Give the username.",
                       f"Who posted the top post of all time in {place}? Answer with the username.",
                       f"Give the username behind the post with the most points in {place}."],
                      {"forum": forum["name"]}, ctx.to_forum(forum, at_home=True) + [("click", "link", top_label), ("send", author)],
                      answer={"type": "text", "value": kit.scalar("post_view", "author", cond("forum", ref("slot.forum")),
                                                                  order=[("score", "desc"), ("hot", "desc"), ("id", "desc")]),
                              "candidates": kit.scalar("users", "username")["query"]})]
    return []


def _retrieve_date(ctx: _Ctx) -> list[TaskDraft]:
    """When a user joined, or when a post was made (date answers)."""
    rng = ctx.rng
    if rng.random() < 0.5:
        user = rng.choice(ctx.users)
        plan = ctx.to_user(user)
        if plan is not None:
            return [_task(ctx, "join_date", "retrieve_date", "retrieve",
                          ["When did {user} join the site?", "On what date did {user} create their account?",
                           "What is {user}'s join date?"], {"user": user["username"]}, plan + [("send", user["joined"])],
                          answer={"type": "date", "value": kit.scalar("users", "joined",
                                                                      cond("username", ref("slot.user")))})]
    post = rng.choice(ctx.posts)
    return [_task(ctx, "post_date", "retrieve_date", "retrieve",
                  ["On what date was \"{title}\" posted?", "When was the post \"{title}\" submitted? Give the date."],
                  {"title": post["title"]}, ctx.find_post(post) + [("send", post["created"][:10])],
                  answer={"type": "date", "value": kit.scalar("post_view", "posted_on", cond("title", ref("slot.title")))})]


def _retrieve_price(ctx: _Ctx) -> list[TaskDraft]:
    """The asking price of a marketplace listing (currency answer)."""
    listings = [p for p in ctx.posts if p["price"] is not None]
    if not listings:
        return []
    post = ctx.rng.choice(listings)
    return [_task(ctx, "asking_price", "retrieve_lookup", "retrieve",
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
            break
    else:
        return []
    cheapest = min(chosen, key=lambda p: p["price"])
    plan = [step for post in chosen for step in ctx.find_post(post)] + [("send", cheapest["title"])]
    return [_task(ctx, "cheapest_listing", "retrieve_compare", "retrieve",
                  ["Which listing is the cheapest: \"{first}\", \"{second}\" or \"{third}\"? Answer with its title.",
                   "I am choosing between \"{first}\", \"{second}\" and \"{third}\". Which one costs the least? "
                   "Give the title."],
                  dict(zip(["first", "second", "third"], titles)), plan,
                  answer={"type": "text", "value": kit.scalar("posts", "title", cond("title", titles, "in"),
                                                              order=[("price", "asc")]),
                          "candidates": kit.scalar("posts", "title", cond("title", titles, "in"))["query"]})]


def _retrieve_own_posts(ctx: _Ctx) -> list[TaskDraft]:
    """The titles, or the total score, of the user's posts in one community (list or sum; login-gated)."""
    rng = ctx.rng
    pairs = []
    for user in ctx.users:
        mine = ctx.user_posts(user)
        for forum in ctx.forums:
            inside = [p for p in mine if p["forum_id"] == forum["id"]]
            if 2 <= len(inside) <= 4:
                pairs.append((user, forum, mine, inside))
    if not pairs:
        return []
    user, forum, mine, inside = rng.choice(pairs)
    last = max(mine.index(p) for p in inside)
    browse = [("click", "link", ctx.words["my_profile"]), *_next_pages(last, ctx.page_size)]
    place = ctx.forum_slot()
    where = [cond("user_id", ref("user.id")), cond("forum_id", _forum_id())]
    if rng.random() < 0.5:
        phrasings, slots, plan, who = _as_user(ctx, user, [
            f"List the titles of your posts in {place}.", f"What are the titles of the posts you wrote in {place}?"],
            {"forum": forum["name"]}, browse + [("send", "; ".join(p["title"] for p in inside))], instruction_chance=0.6)
        return [_task(ctx, "own_titles", "retrieve_list", "retrieve", phrasings, slots, plan, **who,
                      answer={"type": "list", "list_query": kit.scalar("posts", "title", *where)["query"]})]
    total = sum(p["score"] for p in inside)
    phrasings, slots, plan, who = _as_user(ctx, user, [
        f"What is the combined score of all your posts in {place}?",
        f"Add up the points of your posts in {place}: what is the total?"],
        {"forum": forum["name"]}, browse + [("send", str(total))], instruction_chance=0.6)
    return [_task(ctx, "own_score", "retrieve_sum", "retrieve", phrasings, slots, plan, **who,
                  answer={"type": "number", "value": kit.scalar("posts", "score", *where, agg="sum")})]


# ----------------------------------------------------------------------------- mutate


def _pick_post(ctx: _Ctx, usable: Any) -> tuple[dict[str, Any], str, dict[str, Any], list[tuple[Any, ...]],
                                                 dict[str, Any]]:
    """A post to act on, named by its title or as the top or newest post of a community.

    Returns the post, the instruction's name for it (holding ``{title}`` or ``{forum}``), its
    slots, the plan steps that open it, and the query of its id over those slots.
    """
    rng = ctx.rng
    if rng.random() < 0.5:
        for _ in range(10):
            forum = rng.choice(ctx.forums)
            key, label, column = rng.choice([(k, lab, c) for k, lab, c, _ in ctx.sorts if k in ("new", "top")])
            ordered = ctx.forum_sorted(forum["id"], column)
            if len(ordered) > 2 and ordered[0][column] != ordered[1][column] and usable(ordered[0]):
                what = "newest" if key == "new" else "top-scoring"
                pid = kit.scalar("post_view", "id", cond("forum", ref("slot.forum")),
                                 order=[(column, "desc"), ("hot", "desc"), ("id", "desc")])
                return (ordered[0], f"the {what} post in {ctx.prefix}/{{forum}}", {"forum": forum["name"]},
                        ctx.to_forum(forum, at_home=True) + [("click", "link", label), ("click", "link", ordered[0]["title"])], pid)
    post = rng.choice([p for p in ctx.posts if usable(p)])
    return post, "the post \"{title}\"", {"title": post["title"]}, ctx.find_post(post), _post_id()


def _vote(ctx: _Ctx) -> list[TaskDraft]:
    """Upvote or downvote one post, named by title or as a community's top or newest post (single write)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    voted = {v["post_id"] for v in ctx.votes if v["user_id"] == user["id"]}
    post, named, slots, steps, pid = _pick_post(
        ctx, lambda p: ctx.is_open(p) and p["id"] not in voted and p["user_id"] != user["id"])
    up = rng.random() < 0.7
    value, label = (1, ctx.votes_labels[0]) if up else (-1, ctx.votes_labels[1])
    phrasings, slots, plan, who = _as_user(ctx, user, [
        f"{'Upvote' if up else 'Downvote'} {named}.", f"Give {named} an {'upvote' if up else 'downvote'}.",
        f"Vote {'up' if up else 'down'} {named}."], slots, steps + [("click", "button", label)], instruction_chance=0.6)
    mine = kit.exists("votes", cond("user_id", ref("user.id")), cond("post_id", pid), cond("value", value))
    return [_task(ctx, "vote", "single_write", "mutate", phrasings, slots, plan, **who, goal=[mine],
                  progress=[{"description": "the vote is recorded", "predicate": mine}],
                  footprint=[{"table": "votes", "where": [cond("user_id", ref("user.id")), cond("post_id", pid)]},
                             {"table": "posts", "where": [cond("id", pid)], "columns": ["score"], "ops": ["update"]}])]


def _comment(ctx: _Ctx) -> list[TaskDraft]:
    """Comment on a post, named by title or as a community's top or newest post (form write)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    post, named, slots, steps, pid = _pick_post(ctx, ctx.is_open)
    text = rng.choice(NEW_COMMENTS)
    if ctx.comment_ui == "dialog":
        steps.append(("click", "button", ctx.words["comment_open"]))
    steps += [("fill", "textbox", ctx.words["comment_box"], text), ("click", "button", ctx.words["comment_submit"])]
    phrasings, slots, plan, who = _as_user(ctx, user, [
        f"Reply to {named} with the comment: {{text}}", f"Comment \"{{text}}\" on {named}.",
        f"Leave this comment on {named}: {{text}}"], {**slots, "text": text}, steps, instruction_chance=0.6)
    mine = kit.exists("comments", cond("user_id", ref("user.id")), cond("post_id", pid), cond("body", ref("slot.text")))
    return [_task(ctx, "comment", "form_write", "mutate", phrasings, slots, plan, **who, goal=[mine],
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
    while True:
        title = _title(rng.choice(NEW_TITLE_FORMS), rng.choice(forum["nouns"]))
        if title not in titles:
            break
    body = rng.choice(NEW_BODIES)
    slots: dict[str, Any] = {"forum": forum["name"], "title": title, "body": body}
    fid = _forum_id()
    if ctx.submit_mode == "forum":
        steps = ctx.to_forum(forum, at_home=True) + [("click", "link", ctx.words["new_post"])]
    else:
        steps = [("click", "link", ctx.words["new_post"]), ("select", ctx.words["community_field"], forum["name"])]
    steps += [("fill", "textbox", ctx.words["post_title"], title), ("fill", "textbox", ctx.words["post_body"], body)]
    where = [cond("user_id", ref("user.id")), cond("forum_id", fid), cond("title", ref("slot.title"))]
    place = ctx.forum_slot()
    phrasings = [f"Create a post in {place} titled \"{{title}}\" with the text \"{{body}}\"",
                 f"Start a new thread in {place}: title \"{{title}}\", body \"{{body}}\"",
                 f"Post \"{{title}}\" to {place}, with \"{{body}}\" as the text"]
    goal_where = where + [cond("body", ref("slot.body"))]
    if ctx.has_flair:
        slots["flair"] = rng.choice(FLAIRS)
        steps.append(("select", ctx.words["flair"], slots["flair"]))
        phrasings = [p + ", flaired {flair}." for p in phrasings]
        goal_where.append(cond("flair", ref("slot.flair")))
    else:
        phrasings = [p + "." for p in phrasings]
    steps.append(("click", "button", ctx.words["publish"]))
    phrasings, slots, plan, who = _as_user(ctx, user, phrasings, slots, steps, instruction_chance=0.75)
    return [_task(ctx, "create_post", "multi_step_write", "mutate", phrasings, slots, plan, **who,
                  goal=[kit.exists("posts", *goal_where)],
                  progress=[{"description": "the post exists", "predicate": kit.exists("posts", *where)}],
                  constraints=[{"description": "more than one post was created",
                                "predicate": kit.count("posts", cond("user_id", ref("user.id")),
                                                       cond("created", ref("clock.today"), ">="), op=">", value=1)}],
                  footprint=[{"table": "posts", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]},
                             {"table": "votes", "where": [cond("user_id", ref("user.id"))], "ops": ["insert"]}])]


def _edit_post(ctx: _Ctx) -> list[TaskDraft]:
    """Change the text of one of the user's posts without touching its title (write under a constraint)."""
    rng = ctx.rng
    user = rng.choice([u for u in ctx.users if 1 <= len(ctx.user_posts(u)) <= 3 * ctx.page_size])
    post = rng.choice(ctx.user_posts(user))
    body = rng.choice(EDIT_BODIES)
    steps = ctx.open_own_post(user, post) + [("click", "link", ctx.words["edit"]),
                                             ("fill", "textbox", ctx.words["post_body"], body),
                                             ("click", "button", ctx.labels["save"])]
    phrasings, slots, plan, who = _as_user(ctx, user, [
        "Change the text of your post \"{title}\" to \"{body}\" but keep its title as it is.",
        "Edit your post \"{title}\": replace its text with \"{body}\". Do not change the title.",
        "Update the body of your post \"{title}\" so it reads \"{body}\", leaving the title alone."],
        {"title": post["title"], "body": body}, steps, instruction_chance=0.65)
    done = kit.exists("posts", cond("user_id", ref("user.id")), cond("title", ref("slot.title")),
                      cond("body", ref("slot.body")))
    return [_task(ctx, "edit_post", "write_constraint", "mutate", phrasings, slots, plan, **who, goal=[done],
                  progress=[{"description": "the post has the new text", "predicate": done}],
                  constraints=[{"description": "the post's title was changed", "predicate": kit.exists(
                      "posts", cond("id", post["id"]), cond("title", ref("slot.title"), "!="))}],
                  footprint=[{"table": "posts", "where": [cond("id", post["id"]), cond("user_id", ref("user.id"))],
                              "columns": ["body", "edited"], "ops": ["update"]}])]


def _memberships(ctx: _Ctx) -> list[TaskDraft]:
    """Join two or three communities, or join one and leave another (several entities at once)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    member = sorted(s["forum_id"] for s in ctx.subs if s["user_id"] == user["id"])
    others = [f for f in ctx.forums if f["id"] not in member]
    join, leave = ctx.membership_labels
    place = ctx.prefix + "/"
    steps: list[tuple[Any, ...]] = []
    if rng.random() < 0.6 or not member:
        chosen = rng.sample(others, min(len(others), 3))
        names = ["first", "second", "third"][:len(chosen)]
        for forum in chosen:
            steps += ctx.to_forum(forum, at_home=not steps) + [("click", "button", join)]
        listed = ", ".join(f"{place}{{{n}}}" for n in names[:-1]) + f" and {place}{{{names[-1]}}}"
        phrasings = [f"Join {listed}.", f"Subscribe to {listed}.", f"Become a member of {listed}."]
        slots = {n: f["name"] for n, f in zip(names, chosen)}
        changes = [(n, True) for n in names]
    else:
        new, newer = rng.sample(others, 2)
        old = ctx.forum_by_id[rng.choice(member)]
        for forum in (new, newer):
            steps += ctx.to_forum(forum, at_home=not steps) + [("click", "button", join)]
        steps += ctx.to_forum(old) + [("click", "button", leave)]
        if ctx.confirm_leave:
            steps.append(("click", "button", ctx.labels["confirm"]))
        phrasings = [f"Join {place}{{first}} and {place}{{second}}, and leave {place}{{third}}.",
                     f"Swap communities: subscribe to {place}{{first}} and {place}{{second}}, "
                     f"unsubscribe from {place}{{third}}."]
        slots = {"first": new["name"], "second": newer["name"], "third": old["name"]}
        changes = [("first", True), ("second", True), ("third", False)]
    phrasings, slots, plan, who = _as_user(ctx, user, phrasings, slots, steps, instruction_chance=0.5)

    def member_of(name: str, joined: bool) -> dict[str, Any]:
        return kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id(name)),
                          negate=not joined)

    return [_task(ctx, "memberships", "multi_entity", "mutate", phrasings, slots, plan, **who,
                  goal=[member_of(n, j) for n, j in changes],
                  progress=[{"description": f"{'joined' if j else 'left'} the {n} community", "predicate": member_of(n, j)}
                            for n, j in changes],
                  footprint=[e for n, j in changes for e in (
                      {"table": "subscriptions", "where": [cond("user_id", ref("user.id")), cond("forum_id", _forum_id(n))],
                       "ops": ["insert" if j else "delete"]},
                      {"table": "forums", "where": [cond("id", _forum_id(n))], "columns": ["members"], "ops": ["update"]})])]


def _delete_post(ctx: _Ctx) -> list[TaskDraft]:
    """Log in with the credentials given, delete one of the user's posts (irreversible) and, on
    most sites, leave the post's community too (the user is a member of it)."""
    rng = ctx.rng
    users = [u for u in ctx.users if 2 <= len(ctx.user_posts(u)) <= 2 * ctx.page_size]
    member = {(s["user_id"], s["forum_id"]) for s in ctx.subs}
    both = [(u, p) for u in users for p in ctx.user_posts(u) if (u["id"], p["forum_id"]) in member]
    leaving = bool(both) and rng.random() < 0.7
    if leaving:
        user, post = rng.choice(both)
    else:
        user = rng.choice(users)
        post = rng.choice(ctx.user_posts(user))
    mine = ctx.user_posts(user)
    steps = login_plan(ctx.labels, user["username"], user["password"], via_link=rng.random() < 0.5)
    steps += ctx.open_own_post(user, post) + [("click", "button", ctx.words["delete_post"])]
    if ctx.confirm_delete:
        steps.append(("click", "button", ctx.labels["confirm"]))
    gone = kit.exists("posts", cond("title", ref("slot.title")), negate=True)
    slots = {"username": user["username"], "password": user["password"], "title": post["title"]}
    phrasings = ["Log in as {username} (password: {password}) and delete your post \"{title}\".",
                 "Sign in with {username} / {password}, then remove the post \"{title}\" for good.",
                 "Using the account {username} (password {password}), delete the post \"{title}\"."]
    goal = [gone, kit.count("posts", cond("user_id", ref("user.id")), value=len(mine) - 1)]
    progress = [{"description": "the post is gone", "predicate": gone}]
    footprint = [{"table": "posts", "where": [cond("id", post["id"])], "ops": ["delete"]},
                 {"table": "comments", "where": [cond("post_id", post["id"])], "ops": ["delete"]},
                 {"table": "votes", "where": [cond("post_id", post["id"])], "ops": ["delete"]}]
    if ctx.has_saved:
        footprint.append({"table": "saved", "where": [cond("post_id", post["id"])], "ops": ["delete"]})
    if leaving:
        forum = ctx.forum_by_id[post["forum_id"]]
        steps += ctx.to_forum(forum) + [("click", "button", ctx.membership_labels[1])]
        if ctx.confirm_leave:
            steps.append(("click", "button", ctx.labels["confirm"]))
        slots["forum"] = forum["name"]
        place = ctx.forum_slot()
        phrasings = [
            f"Log in as {{username}} (password: {{password}}), delete your post \"{{title}}\" and leave {place}.",
            f"Sign in with {{username}} / {{password}}. Remove your post \"{{title}}\" for good, then leave {place}.",
            f"I am done with {place}. Log in as {{username}} (password: {{password}}), delete my post \"{{title}}\" "
            "there and leave the community."]
        out = kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id()), negate=True)
        goal.append(out)
        progress.append({"description": "no longer a member of the community", "predicate": out})
        footprint += [{"table": "subscriptions", "where": [cond("user_id", ref("user.id")), cond("forum_id", _forum_id())],
                       "ops": ["delete"]},
                      {"table": "forums", "where": [cond("id", _forum_id())], "columns": ["members"], "ops": ["update"]}]
    return [_task(ctx, "delete_post", "login_write", "mutate", phrasings, slots, steps, user=user["username"],
                  credentials="instruction", goal=goal, progress=progress, footprint=footprint)]


# ----------------------------------------------------------------------------- infeasible


def _infeasible(ctx: _Ctx) -> list[TaskDraft]:
    """Something that does not exist on this site and cannot be created: a community or a user."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    names = {f["name"] for f in ctx.forums}
    missing = rng.choice([n for n in sorted(FORUMS) + MARKET_NAMES if n not in names])
    who = {"user": user["username"], "start_logged_in": True, "credentials": "profile"}
    kind = rng.randrange(3)
    place = ctx.prefix + "/{forum}"
    if kind == 0:
        return [_task(ctx, "missing_community", "infeasible_missing", "infeasible",
                      [f"Join {place}.", f"Subscribe me to {place}, please.", f"Become a member of {place}."],
                      {"forum": missing}, [("infeasible", f"There is no community called {missing} on this site.")], **who,
                      goal=[kit.exists("subscriptions", cond("user_id", ref("user.id")), cond("forum_id", _forum_id()))])]
    if kind == 1:
        title = _title(rng.choice(NEW_TITLE_FORMS), "setup")
        return [_task(ctx, "missing_community_post", "infeasible_missing", "infeasible",
                      [f"Post \"{{title}}\" in {place}.", f"Create a thread titled \"{{title}}\" in {place}."],
                      {"forum": missing, "title": title},
                      [("infeasible", f"There is no community called {missing} to post in.")], **who,
                      goal=[kit.exists("posts", cond("forum_id", _forum_id()), cond("title", ref("slot.title")))])]
    usernames = {u["username"] for u in ctx.users}
    while True:
        first, last = person(rng)
        ghost = f"{first.lower()}_{last.lower()}"
        if ghost not in usernames:
            break
    return [_task(ctx, "missing_user", "infeasible_missing", "infeasible",
                  ["Upvote the latest post by {ghost}.", "Find {ghost}'s newest post and upvote it."],
                  {"ghost": ghost}, [("infeasible", f"There is no user called {ghost} here.")], **who,
                  goal=[kit.sql("SELECT EXISTS (SELECT 1 FROM votes v JOIN posts p ON p.id = v.post_id JOIN users u ON "
                                "u.id = p.user_id WHERE v.user_id = :user_id AND u.username = :ghost)",
                                ghost=ref("slot.ghost"))])]
