"""Webmail blueprint: folders, reading, search, filters and sort, compose, reply, forward, trash, stars, contacts.

Description:
    A webmail service holding a few hundred to a couple of thousand messages. Every account has
    an Inbox, a Sent, an Archive and a Trash folder (named differently from site to site) and a
    few custom folders. A message has a sender, recipients, a subject, a body, a date and time,
    read and starred flags, and (for bills) an amount due. People read their folders, filter
    them (unread, starred), sort them, and search by subject, name or address; they reply,
    forward and compose; star, mark read or unread, archive, move and delete messages (to the
    Trash, and from there forever); and keep an address book. What varies between sites:
    message actions in a toolbar, a "More" menu or a collapsible; row actions in the folder
    lists; confirmation before deleting or sending; new contacts added inline, in a dialog or on
    their own page; the compose form's fields; list or table layouts, page sizes and sort
    options; unread counts; and the optional folder management, settings (signature, auto-reply)
    and starred pages.

Action Space:
    BrowserGym high-level actions on the rendered pages (see ``veriweb.engine.actions``).

Observation Space:
    The engine's page model: accessibility-tree text, element list, HTML.

Rewards:
    From the task's goal and progress predicates over the database (see ``veriweb.engine.judge``).

Starting State:
    The seeded mailboxes; the task's start URL, logged in when the task says so.

Episode End:
    As ``veriweb.engine.episode`` rules: an answer, an infeasibility report, the goal reached, a
    broken constraint or footprint, or the step budget.

Arguments:
    ``Streams`` of the site's seed: ``structure`` (pages, labels, widgets, layout), ``content``
    (accounts, folders, messages, contacts), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode

from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import all_pages, as_user, make_task, start_elsewhere
from veriweb.generate.vocab import CITIES, Labels, password, person

Step = tuple[Any, ...]
TODAY = dt.date(2026, 6, 15)
MAX_STEPS = 20
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

MAIL_NAMES = ["Postbox", "Swiftmail", "Kestrel Mail", "Lettera", "Inkwell", "Pigeon Post", "Harbor Mail",
              "Bramble Mail", "Outpost", "Quillbox", "Larkspur Mail", "Beacon Mail"]
MAIL_WORDS: dict[str, list[str]] = {
    "compose": ["Compose", "New message", "Write", "New email"],
    "reply": ["Reply", "Respond", "Reply to sender"],
    "forward": ["Forward", "Forward message", "Pass on"],
    "send": ["Send", "Send now", "Send message"],
    "contacts": ["Contacts", "Address book", "People"],
    "folders": ["Folders", "Manage folders", "My folders"],
    "mailboxes": ["Your folders", "Mailboxes", "Mail folders"],
    "to": ["To", "Recipient", "Recipients"],
    "cc": ["Cc", "Copy to"],
    "subject": ["Subject", "Subject line", "Topic"],
    "body": ["Message", "Body", "Your message", "Text"],
    "move_to": ["Move to", "Destination folder", "Move to folder"],
    "move": ["Move", "Move message", "File it"],
    "archive_btn": ["Archive", "Move to archive", "Archive it"],
    "more": ["More actions", "Other actions", "Actions"],
    "new_contact": ["Add contact", "New contact", "Create contact"],
    "save_contact": ["Save contact", "Add to contacts", "Create"],
    "email_contact": ["Send email", "Write to this contact", "Email this person"],
    "new_folder": ["Create folder", "Add folder", "Make folder"],
    "folder_name": ["Folder name", "Name of the folder", "New folder name"],
    "purge": ["Delete forever", "Delete permanently", "Erase"],
    "contact_name": ["Name", "Full name", "Contact name"],
    "contact_email": ["Email", "Email address", "E-mail"],
    "phone": ["Phone", "Phone number", "Telephone", "Mobile"],
    "company": ["Company", "Organisation", "Works at"],
    "signature": ["Signature", "Email signature", "Sign-off"],
    "vacation": ["Vacation reply", "Out-of-office reply", "Auto-reply"],
    "vacation_text": ["Auto-reply message", "Reply text", "Away message"],
    "display_name": ["Display name", "Your name", "Name shown to others"],
    "newest": ["Newest first", "Most recent", "Latest"],
    "oldest": ["Oldest first", "Earliest", "Oldest"],
    "by_sender": ["By sender", "Sender A-Z", "From A-Z"],
    "by_subject": ["By subject", "Subject A-Z"],
    "all_mail": ["All messages", "Everything", "All mail"],
    "unread_opt": ["Unread", "Unread only", "Not yet read"],
    "pick_contact": ["Choose a contact", "Pick a recipient", "From your contacts"],
    "use_contact": ["Use", "Add recipient", "Insert"],
}
STAR_WORDS = [("Star", "Unstar", "Starred"), ("Flag", "Unflag", "Flagged"),
              ("Mark important", "Not important", "Important")]
READ_WORDS = [("Mark as read", "Mark as unread"), ("Mark read", "Mark unread")]
FILTER_WORDS = [("Show", "Apply"), ("Filter", "Apply filter"), ("View", "Update list")]
FOLDER_WORDS = {"inbox": ["Inbox"], "sent": ["Sent", "Sent mail", "Sent items"],
                "archive": ["Archive", "Archived", "Old mail"], "trash": ["Trash", "Bin", "Deleted items"]}
SYSTEM_KINDS = ("inbox", "sent", "archive", "trash")

PERSONAL_DOMAINS = ["inbox.example", "fastpost.example", "mailcity.example", "northmail.example", "letterbox.example"]
COMPANIES = [("Brightline", "brightline.example"), ("Cobalt Labs", "cobaltlabs.example"),
             ("Harbor Finch", "harborfinch.example"), ("Nimbus Health", "nimbushealth.example"),
             ("Orchard Studio", "orchard.example"), ("Pioneer Freight", "pioneerfreight.example"),
             ("Redwood Legal", "redwoodlegal.example"), ("Sable Design", "sable.example")]
BILLERS = [("Northwind Power", "billing@northwindpower.example", "electricity", 4000, 16000),
           ("Cedar Telecom", "invoices@cedartel.example", "phone", 2500, 9000),
           ("Bluewater Utilities", "accounts@bluewater.example", "water", 1800, 7000),
           ("Summit Broadband", "billing@summitnet.example", "internet", 3500, 8000),
           ("Evergreen Insurance", "statements@evergreen.example", "insurance", 6000, 21000),
           ("Metro Gym", "members@metrogym.example", "gym membership", 2900, 5900)]
NEWSLETTERS = [("Daily Brief", "news@dailybrief.example"), ("Trail Notes", "hello@trailnotes.example"),
               ("Cookbook Club", "club@cookbook.example"), ("Skyline Air", "deals@skylineair.example"),
               ("Garden Monthly", "letters@gardenmonthly.example"), ("Tech Roundup", "digest@techroundup.example"),
               ("City Library", "events@citylibrary.example")]
CUSTOM_FOLDERS = ["Work", "Family", "Receipts", "Travel", "Projects", "Friends", "Bills", "School", "Garden club",
                  "Recipes"]
NEW_FOLDERS = ["Taxes 2026", "Holiday plans", "House move", "Side project", "Volunteering", "Warranties",
               "Tickets", "Kids"]
PERSONAL_SUBJECTS = ["Dinner on {day}?", "Photos from {place}", "Weekend plans", "Quick question about {topic}",
                     "Happy birthday!", "Catching up soon?", "Book club this {day}", "The recipe you asked for",
                     "Road trip to {place}", "Thanks for {thing}", "Help with moving on {day}", "Tickets for {day}",
                     "Visiting {place} next month", "Game night on {day}", "News about {topic}"]
WORK_SUBJECTS = ["{project} status update", "Notes from the {project} meeting", "Draft {doc} for review",
                 "Q3 planning for {project}", "{project} kickoff on {day}", "Action items after the {project} call",
                 "Budget question about {project}", "Feedback on the {doc}", "Hiring update for {project}",
                 "Deadline moved for {project}", "Can you review the {doc}?", "Welcome to the {project} team",
                 "{project} retro on {day}", "{project} {doc} is ready"]
TOPICS = ["the lease", "the garden", "the recital", "your bike", "the carpool", "the workshop", "the fundraiser",
          "the school trip", "the new flat", "the wedding"]
THINGS = ["the flowers", "dinner", "the ride", "your help", "the book", "the gift"]
PROJECTS = ["Atlas", "Beacon", "Cobalt", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Iris", "Juniper",
            "Keystone", "Lumen", "Mosaic", "Nimbus", "Orchid", "Pioneer"]
DOCS = ["budget sheet", "launch plan", "design brief", "quarterly report", "press release", "hiring plan",
        "roadmap", "contract draft"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
WORK_LINES = ["I have attached my notes from today.", "Could you take a look before Friday?",
              "We are still on track for the launch.", "Let me know if anything is unclear.",
              "The numbers look better than last month.", "I moved our sync to the afternoon.",
              "Please add your comments directly in the document."]
PERSONAL_LINES = ["It was so good to see you last week.", "Let me know what works for you.", "I will bring dessert.",
                  "The kids are already excited.", "Call me if plans change.", "No rush, whenever you have time.",
                  "I found the pictures from last summer."]
NEWS_LINES = ["Five stories worth your time this week.", "New routes, new recipes and a reader survey.",
              "Our editors picked the best of the month.", "Members save 20% until Sunday."]
REPLY_TEXTS = ["Sounds good, see you then.", "Thanks, I will take a look today.", "Yes, count me in.",
               "Could we move this to next week?", "Got it, thank you!", "I am on it and will report back by Friday.",
               "Perfect, that works for me."]
NEW_SUBJECTS = ["Lunch next week?", "Carpool schedule", "Notes for Thursday", "Quick favour", "Plans for the summer",
                "Room booking for the workshop", "Question about the invoice", "Birthday surprise"]
COMPOSE_TEXTS = ["Are you free on Tuesday at noon?", "Here is the schedule we talked about.",
                 "Could you send me the details when you have a minute?", "I would love your opinion on this.",
                 "Let us meet at the usual place at six."]
VACATION_TEXTS = ["I am away until July 1 with no access to email.", "Out of office until Monday. I will reply then.",
                  "On holiday this week. For urgent matters please call the office."]
NEW_SURNAMES = ["Okafor-Lindqvist", "Delacroix", "Haverford", "Nakamura-Bell", "Quintero", "Ashworth"]
SIGNATURES = ["Warm regards from the garden", "Sent between meetings", "Thanks for reading", "Talk soon"]
MISSING_SUBJECTS = ["Your lottery winnings", "Yacht club membership renewal", "Wedding in Santorini",
                    "Penguin adoption certificate", "Space camp registration", "Submarine tour booking",
                    "Castle rental agreement", "Hot air balloon voucher"]


def _lit(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _money(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def _nice(day: str) -> str:
    date = dt.date.fromisoformat(day)
    return f"{MONTHS[date.month - 1][:3]} {date.day}, {date.year}"


# ============================================================================ structure


@dataclass
class _UI:
    """What the structure stream decided about this site."""

    site_name: str
    domain: str
    folder_names: dict[str, str]
    words: dict[str, str]
    star: tuple[str, str, str]
    read: tuple[str, str]
    show: tuple[str, str]
    listing_kind: str
    page_size: int
    sorts: list[tuple[str, str, str, str]]
    show_counts: bool
    filter_ui: str
    row_action: str
    actions_ui: str
    search_in_header: bool
    confirm_delete: bool
    confirm_send: bool
    has_cc: bool
    compose_order: list[str]
    contact_add_ui: str
    contacts_kind: str
    contacts_page_size: int
    contact_order: list[str]
    contacts_show_email: bool
    has_folders: bool
    has_settings: bool
    has_starred: bool
    has_picker: bool
    nav_style: str = "topbar"
    nav_labels: list[str] = field(default_factory=list)


def _pick_index(labels: Labels, concept: str, options: list[Any]) -> int:
    """A site-wide choice among paired wordings (through ``labels``, so vocabulary holdouts apply)."""
    return int(labels.pick(concept, [str(n) for n in range(len(options))]))


def _structure(srng: random.Random, labels: Labels) -> _UI:
    site_name = srng.choice(MAIL_NAMES)
    words = {concept: labels.pick(concept, options) for concept, options in MAIL_WORDS.items()}
    folder_names = {kind: labels.pick(f"folder_{kind}", FOLDER_WORDS[kind]) for kind in SYSTEM_KINDS}
    sort_keys = ["newest"] + sorted(srng.sample(["oldest", "sender", "subject"], srng.randint(0, 3)),
                                    key=["oldest", "sender", "subject"].index)
    columns = {"newest": ("sent_at", "desc"), "oldest": ("sent_at", "asc"), "sender": ("sender_name", "asc"),
               "subject": ("subject", "asc")}
    sort_words = {"newest": words["newest"], "oldest": words["oldest"], "sender": words["by_sender"],
                  "subject": words["by_subject"]}
    extra = ["to", "subject"] + (["cc"] if srng.random() < 0.5 else [])
    compose_order = ["to"] + [f for f in srng.sample(["subject", "cc"], 2) if f in extra]
    return _UI(
        site_name=site_name, domain=site_name.lower().replace(" ", "") + ".example", folder_names=folder_names,
        words=words, star=STAR_WORDS[_pick_index(labels, "star_words", STAR_WORDS)],
        read=READ_WORDS[_pick_index(labels, "read_words", READ_WORDS)],
        show=FILTER_WORDS[_pick_index(labels, "filter_words", FILTER_WORDS)],
        listing_kind=srng.choice(["list", "table"]), page_size=srng.choice([8, 10, 12]),
        sorts=[(key, sort_words[key], *columns[key]) for key in sort_keys],
        show_counts=srng.random() < 0.5, filter_ui=srng.choice(["plain", "collapsible"]),
        row_action=srng.choice(["none", "star", "delete"]), actions_ui=srng.choice(["plain", "menu", "collapsible"]),
        search_in_header=srng.random() < 0.6, confirm_delete=srng.random() < 0.5, confirm_send=srng.random() < 0.35,
        has_cc="cc" in compose_order, compose_order=compose_order,
        contact_add_ui=srng.choice(["inline", "dialog", "page"]), contacts_kind=srng.choice(["list", "table"]),
        contacts_page_size=srng.choice([8, 10, 12]),
        contact_order=["name"] + srng.sample(["email", "phone", "company"], 3),
        contacts_show_email=srng.random() < 0.6, has_folders=srng.random() < 0.6,
        has_settings=srng.random() < 0.5, has_starred=srng.random() < 0.4, has_picker=srng.random() < 0.5)


# ============================================================================ content


@dataclass
class _Data:
    """The seeded records (rows as they go into the tables) and what task families need besides."""

    users: list[dict[str, Any]]
    folders: list[dict[str, Any]]
    contacts: list[dict[str, Any]]
    emails: list[dict[str, Any]]
    meta: dict[int, dict[str, Any]]
    people: list[dict[str, Any]]


SUBJECT_SLOTS = {"day": DAYS, "place": CITIES, "topic": TOPICS, "thing": THINGS, "project": PROJECTS, "doc": DOCS}
_TEMPLATE_SLOTS = {t: [k for k in SUBJECT_SLOTS if "{" + k + "}" in t] for t in WORK_SUBJECTS + PERSONAL_SUBJECTS}


def _subject(rng: random.Random, work: bool) -> str:
    template = rng.choice(WORK_SUBJECTS if work else PERSONAL_SUBJECTS)
    return template.format(**{k: rng.choice(SUBJECT_SLOTS[k]) for k in _TEMPLATE_SLOTS[template]})


def _body(rng: random.Random, work: bool, to_first: str, from_first: str) -> str:
    lines = rng.sample(WORK_LINES if work else PERSONAL_LINES, rng.randint(1, 3))
    opener = rng.choice(["Hi {n},", "Hello {n},", "Hey {n},", "Dear {n},"]).format(n=to_first)
    closer = rng.choice(["Best, {n}", "Cheers, {n}", "Thanks, {n}", "Talk soon, {n}"]).format(n=from_first)
    return " ".join([opener, *lines, closer])


def _content(rng: random.Random, ui: _UI) -> _Data:
    taken: set[str] = set()
    users: list[dict[str, Any]] = []
    for number in range(1, rng.randint(5, 7) + 1):
        first, last = person(rng)
        while f"{first} {last}" in taken:
            first, last = person(rng)
        taken.add(f"{first} {last}")
        username = f"{first.lower()}{number}"
        users.append({"id": number, "username": username, "password": password(rng, username),
                      "name": f"{first} {last}", "email": f"{first}.{last}@{ui.domain}".lower(),
                      "signature": f"{first}", "vacation": False, "vacation_message": ""})
    people: list[dict[str, Any]] = []
    addresses: set[str] = set()
    while len(people) < 64:
        first, last = person(rng)
        if f"{first} {last}" in taken:
            continue
        company, domain = rng.choice(COMPANIES) if rng.random() < 0.45 else ("", rng.choice(PERSONAL_DOMAINS))
        joiner = "." if company else rng.choice(["", ".", "_"])
        address = f"{first}{joiner}{last}@{domain}".lower()
        if address in addresses:
            continue
        taken.add(f"{first} {last}")
        addresses.add(address)
        people.append({"name": f"{first} {last}", "first": first, "email": address, "company": company,
                       "phone": f"+1 {rng.randint(201, 989)} 555 {rng.randint(1000, 9999)}"})

    folders: list[dict[str, Any]] = []
    contacts: list[dict[str, Any]] = []
    emails: list[dict[str, Any]] = []
    meta: dict[int, dict[str, Any]] = {}
    for user in users:
        uid, first = user["id"], user["name"].split()[0]
        fids: dict[str, int] = {}
        for position, kind in enumerate(SYSTEM_KINDS, 1):
            folders.append({"id": len(folders) + 1, "user_id": uid, "name": ui.folder_names[kind], "kind": kind,
                            "position": position})
            fids[kind] = len(folders)
        chosen = rng.sample(CUSTOM_FOLDERS, rng.randint(1, 4))
        customs = [c for c in CUSTOM_FOLDERS if c in chosen]
        for position, name in enumerate(customs, len(SYSTEM_KINDS) + 1):
            folders.append({"id": len(folders) + 1, "user_id": uid, "name": name, "kind": "custom",
                            "position": position})
            fids[name] = len(folders)
        mine = rng.sample(people, rng.randint(10, 28))
        for p in rng.sample(mine, len(mine)):
            contacts.append({"id": len(contacts) + 1, "user_id": uid, "name": p["name"], "email": p["email"],
                             "phone": p["phone"] if rng.random() < 0.8 else "", "company": p["company"]})
        picked = {p["email"] for p in mine}
        senders = mine[:max(6, len(mine) * 3 // 4)] + rng.sample([p for p in people if p["email"] not in picked], 4)
        raw: list[dict[str, Any]] = []
        for _ in range(rng.randint(20, 50)):
            p = rng.choice(senders)
            work = bool(p["company"]) and rng.random() < 0.8
            raw.append({"kind": "work" if work else "personal", "person": p, "offset": min(int(rng.expovariate(1 / 45)), 360),
                        "subject": _subject(rng, work), "body": _body(rng, work, first, p["first"])})
        for name, address, what, low, high in rng.sample(BILLERS, rng.randint(1, 3)):
            for back in range(rng.randint(2, 5)):
                month = TODAY.month - back
                day = dt.date(TODAY.year, month, rng.randint(2, 9))
                amount = rng.randrange(low, high)
                raw.append({"kind": "invoice", "person": {"name": name, "email": address, "first": name},
                            "offset": (TODAY - day).days, "amount": amount,
                            "subject": f"Your {what} bill for {MONTHS[month - 1]} {TODAY.year}",
                            "body": f"Hello {first}, your {what} bill for {MONTHS[month - 1]} is ready. Amount due: "
                                    f"{_money(amount)}. It will be collected on {MONTHS[month - 1]} 20. "
                                    f"Thank you for choosing {name}."})
        for name, address in rng.sample(NEWSLETTERS, rng.randint(1, 3)):
            issues, start, shift = rng.randint(3, 8), rng.randint(20, 180), rng.randint(0, 6)
            for back in range(issues):
                raw.append({"kind": "newsletter", "person": {"name": name, "email": address, "first": name},
                            "offset": shift + 7 * back, "subject": f"{name} issue {start + issues - back}",
                            "body": f"Hello {first}! " + " ".join(rng.sample(NEWS_LINES, 2)) + " Unsubscribe any time."})
        received = list(raw)
        for item in received:
            if item["kind"] in ("work", "personal") and item["offset"] >= 2 and rng.random() < 0.2:
                raw.append({"kind": "sent", "person": item["person"], "offset": item["offset"] - 1, "reply_to": item,
                            "subject": "Re: " + item["subject"],
                            "body": f"{rng.choice(REPLY_TEXTS)} {first}"})
        for _ in range(rng.randint(4, 12)):
            p = rng.choice(mine)
            work = bool(p["company"]) and rng.random() < 0.7
            raw.append({"kind": "sent", "person": p, "offset": min(1 + int(rng.expovariate(1 / 60)), 360),
                        "subject": _subject(rng, work), "body": _body(rng, work, p["first"], first)})
        for item in raw:
            offset = item["offset"]
            hour = rng.randint(6, 8) if offset == 0 else rng.randint(7, 22)
            item["date"] = (TODAY - dt.timedelta(days=offset)).isoformat()
            item["sent_at"] = f"{item['date']}T{hour:02d}:{rng.randint(0, 59):02d}:00"
            item["folder"], item["read"], item["starred"] = _placement(rng, item, fids)
        for item in sorted(raw, key=lambda i: i["sent_at"]):
            p, sent = item["person"], item["kind"] == "sent"
            row = {"id": len(emails) + 1, "user_id": uid, "folder_id": item["folder"],
                   "sender_name": user["name"] if sent else p["name"], "sender": user["email"] if sent else p["email"],
                   "recipients": p["email"] if sent else user["email"], "cc": "", "subject": item["subject"],
                   "body": item["body"], "date": item["date"], "sent_at": item["sent_at"], "read": item["read"],
                   "starred": item["starred"], "amount": item.get("amount"),
                   "in_reply_to": item["reply_to"]["id"] if "reply_to" in item else None}
            item["id"] = row["id"]
            emails.append(row)
            meta[row["id"]] = {"kind": item["kind"], "person": p}
    return _Data(users, folders, contacts, emails, meta, people)


def _placement(rng: random.Random, item: dict[str, Any], fids: dict[str, int]) -> tuple[int, bool, bool]:
    """Folder id, read flag and starred flag of a message, from its kind and age."""
    kind, offset = item["kind"], item["offset"]
    customs = [name for name in fids if name not in SYSTEM_KINDS]
    unread_chance = 0.6 if offset < 3 else 0.35 if offset < 10 else 0.12 if offset < 30 else 0.02
    if kind == "sent":
        return fids["sent"], True, rng.random() < 0.03
    if kind == "invoice":
        home = next((fids[n] for n in ("Bills", "Receipts") if n in fids), fids["archive"])
        return (fids["inbox"] if offset < 35 else home), rng.random() < 1 - unread_chance, rng.random() < 0.07
    if kind == "newsletter":
        r = rng.random()
        place = "inbox" if (offset < 14 and r < 0.8) or (offset >= 14 and r < 0.35) else (
            "trash" if r < 0.75 else "archive")
        return fids[place], place == "trash" or rng.random() < 1 - unread_chance, rng.random() < 0.02
    r = rng.random()
    if offset < 30:
        place = "inbox" if r < 0.9 else "archive" if r < 0.98 else "trash"
    else:
        place = "inbox" if r < 0.4 else "archive" if r < 0.7 else "custom" if r < 0.94 else "trash"
    if place == "custom":
        preferred = [n for n in customs if n in (("Work", "Projects") if kind == "work" else ("Family", "Friends", "Travel"))]
        folder = fids[rng.choice(preferred or customs)] if customs else fids["archive"]
    else:
        folder = fids[place]
    return folder, place == "trash" or rng.random() < 1 - unread_chance, place != "trash" and rng.random() < 0.07


# ============================================================================ site


def build(streams: Streams) -> Draft:
    """Build one webmail site (see the module docstring)."""
    srng, crng, trng = streams.structure, streams.content, streams.tasks
    labels = Labels(srng)
    ui = _structure(srng, labels)
    w, fn = ui.words, ui.folder_names
    nav_items = [(fn["inbox"], "/mail/" + quote(fn["inbox"])), (w["compose"], "/compose"),
                 (fn["sent"], "/mail/" + quote(fn["sent"])), (w["contacts"], "/contacts")]
    if not ui.search_in_header:
        nav_items.append((labels["search"], "/search"))
    if ui.has_starred:
        nav_items.append((ui.star[2], "/starred"))
    if ui.has_folders:
        nav_items.append((w["folders"], "/folders"))
    if ui.has_settings:
        nav_items.append((labels["settings"], "/settings"))
    nav = [(labels["home"], "/")] + srng.sample(nav_items, len(nav_items))
    chrome = build_chrome(srng, labels, ui.site_name, nav)
    ui.nav_style, ui.nav_labels = chrome.nav_style, [label for label, _ in nav]
    data = _content(crng, ui)
    site = _site(labels, ui, chrome, data)
    ctx = _Ctx(trng, labels, ui, data)
    ctx.urls = {label: url for label, url in nav}
    ctx.start_pages = [p["route"] for p in chrome.pages]
    return Draft(site=site, tasks=_tasks(ctx))


def _tables(data: _Data) -> list[dict[str, Any]]:
    tables = [
        kit.table_def("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("email", "text"), ("signature", "text"), ("vacation", "boolean"),
                                ("vacation_message", "text")], data.users, indexes=[["username"]]),
        kit.table_def("folders", [("id", "integer"), ("user_id", "integer"), ("name", "text"), ("kind", "text"),
                                  ("position", "integer")], data.folders, foreign_keys=[("user_id", "users")],
                      indexes=[["user_id", "name"]]),
        kit.table_def("emails", [("id", "integer"), ("user_id", "integer"), ("folder_id", "integer"),
                                 ("sender_name", "text"), ("sender", "text"), ("recipients", "text"), ("cc", "text"),
                                 ("subject", "text"), ("body", "text"), ("date", "date"), ("sent_at", "datetime"),
                                 ("read", "boolean"), ("starred", "boolean"), ("amount", "money"),
                                 ("in_reply_to", "integer")], data.emails,
                      foreign_keys=[("user_id", "users"), ("folder_id", "folders")],
                      indexes=[["folder_id", "sent_at"], ["user_id", "subject"], ["user_id", "sender_name"]]),
        kit.table_def("contacts", [("id", "integer"), ("user_id", "integer"), ("name", "text"), ("email", "text"),
                                   ("phone", "text"), ("company", "text")], data.contacts,
                      foreign_keys=[("user_id", "users")], indexes=[["user_id", "name"]]),
    ]
    for column in tables[2]["columns"]:  # only bills have an amount, only replies a message they answer
        if column["name"] in ("amount", "in_reply_to"):
            column["nullable"] = True
    return tables


def _views(ui: _UI) -> list[dict[str, Any]]:
    star, unstar, starred = ui.star
    mark_read, mark_unread = ui.read
    return [
        {"name": "mail_view", "money_columns": ["amount"], "sql":
            "SELECT e.id AS id, e.user_id AS user_id, e.folder_id AS folder_id, f.name AS folder, f.kind AS kind, "
            "e.sender_name AS sender_name, e.sender AS sender, e.recipients AS recipients, e.cc AS cc, "
            "e.subject AS subject, e.body AS body, e.date AS date, e.sent_at AS sent_at, "
            "substr(e.sent_at, 12, 5) AS time, e.read AS read, e.starred AS starred, e.amount AS amount, "
            "CASE WHEN f.kind = 'sent' THEN 'To: ' || e.recipients ELSE e.sender_name END AS party, "
            "(CASE WHEN e.read = 0 THEN 'unread ' ELSE '' END) || (CASE WHEN e.starred = 1 THEN 'starred' "
            "ELSE '' END) AS tags, "
            f"(CASE WHEN e.read = 0 THEN 'Unread' ELSE 'Read' END) || (CASE WHEN e.starred = 1 THEN {_lit(', ' + starred.lower())} "
            "ELSE '' END) AS status, "
            f"CASE WHEN e.starred = 1 THEN {_lit(unstar)} ELSE {_lit(star)} END AS star_action, "
            f"CASE WHEN e.read = 1 THEN {_lit(mark_unread)} ELSE {_lit(mark_read)} END AS read_action, "
            "e.subject || ' ' || e.sender_name || ' ' || e.sender || ' ' || e.recipients AS haystack, "
            "CASE WHEN e.subject LIKE 'Re:%' THEN e.subject ELSE 'Re: ' || e.subject END AS reply_subject, "
            "'Fwd: ' || e.subject AS forward_subject, "
            "'---------- Forwarded message ---------- From: ' || e.sender_name || ' <' || e.sender || '> Date: ' || "
            "e.date || ' Subject: ' || e.subject || ' ---------- ' || e.body AS forward_body "
            "FROM emails e JOIN folders f ON f.id = e.folder_id"},
        {"name": "folder_view", "sql":
            "SELECT f.id AS id, f.user_id AS user_id, f.name AS name, f.kind AS kind, f.position AS position, "
            "(SELECT count(*) FROM emails e WHERE e.folder_id = f.id) AS total, "
            "(SELECT count(*) FROM emails e WHERE e.folder_id = f.id AND e.read = 0) AS unread FROM folders f"},
        {"name": "guest_view", "sql": "SELECT 1 AS id, NULL AS nobody"},
    ]


def _markers(labels: Labels, ui: _UI) -> list[dict[str, Any]]:
    w, fn = ui.words, ui.folder_names
    email_id = kit.param("email_id", "integer")
    own = kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM emails WHERE id = :e AND user_id = :user_id)",
                            e=ref("param.email_id")), "That message is not in your mailbox.")

    def folder_sql(kind: str) -> str:
        return f"(SELECT id FROM folders WHERE user_id = :user_id AND kind = '{kind}')"

    def not_in(kind: str) -> dict[str, Any]:
        return kit.check(kit.sql(f"SELECT NOT EXISTS (SELECT 1 FROM emails WHERE id = :e AND folder_id = {folder_sql(kind)})",
                                 e=ref("param.email_id")), f"This message is already in {fn[kind]}.")

    addresses = ("(length({f}) - length(replace({f}, '@', ''))) = (length({f}) - length(replace({f}, ',', ''))) + 1 "
                 "AND {f} NOT LIKE '%@' AND {f} NOT LIKE '@%'")
    valid_email = kit.check(kit.sql("SELECT :m LIKE '%_@_%._%' AND instr(:m, ' ') = 0 AND instr(:m, ',') = 0",
                                    m=ref("param.email")), "Please enter a valid email address.")
    no_duplicate = kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM contacts WHERE user_id = :user_id "
                                     "GROUP BY lower(email) HAVING count(*) > 1)"),
                             "You already have a contact with that email address.")
    contact_params = [kit.param("name", "text", w["contact_name"], min_length=2, max_length=80),
                      kit.param("email", "text", w["contact_email"], min_length=3, max_length=120),
                      kit.param("phone", "text", w["phone"], required=False, max_length=40),
                      kit.param("company", "text", w["company"], required=False, max_length=80)]
    return [
        kit.marker("send_email", [kit.param("to", "text", w["to"], min_length=3, max_length=500),
                                  kit.param("cc", "text", w["cc"], required=False, max_length=500),
                                  kit.param("subject", "text", w["subject"], min_length=1, max_length=200),
                                  kit.param("body", "text", w["body"], required=False, max_length=5000),
                                  kit.param("reply_to", "integer", required=False)],
                   [kit.effect("insert", "emails",
                               "INSERT INTO emails (user_id, folder_id, sender_name, sender, recipients, cc, subject, body, "
                               "date, sent_at, read, starred, amount, in_reply_to) SELECT :user_id, "
                               f"{folder_sql('sent')}, u.name, u.email, :to, coalesce(:cc, ''), :subject, "
                               "coalesce(:body, ''), :today, :now, 1, 0, NULL, :reply_to FROM users u WHERE u.id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT " + addresses.format(f=":t"), t=ref("param.to")),
                                  f"Please enter valid email addresses in {w['to']}, separated by commas."),
                        kit.check(kit.sql("SELECT :c IS NULL OR " + addresses.format(f=":c"), c=ref("param.cc")),
                                  f"Please enter valid email addresses in {w['cc']}, separated by commas."),
                        kit.check(kit.sql("SELECT :r IS NULL OR EXISTS (SELECT 1 FROM emails WHERE id = :r AND "
                                          "user_id = :user_id)", r=ref("param.reply_to")),
                                  "The message you are replying to is not in your mailbox.")],
                   inv=[kit.check(kit.sql("SELECT (SELECT count(*) FROM emails WHERE user_id = :user_id AND date = :today "
                                          f"AND folder_id = {folder_sql('sent')}) <= 25"),
                                  "You can send at most 25 messages a day.")],
                   irreversible=True, message="Your message could not be sent."),
        kit.marker("toggle_star", [email_id], [kit.effect("update", "emails", "UPDATE emails SET starred = 1 - starred "
                                                                             "WHERE id = :email_id AND user_id = :user_id")],
                   pre=[own]),
        kit.marker("toggle_read", [email_id], [kit.effect("update", "emails", "UPDATE emails SET read = 1 - read "
                                                                             "WHERE id = :email_id AND user_id = :user_id")],
                   pre=[own]),
        kit.marker("archive_email", [email_id],
                   [kit.effect("update", "emails", f"UPDATE emails SET folder_id = {folder_sql('archive')} "
                                                   "WHERE id = :email_id AND user_id = :user_id")],
                   pre=[own, not_in("archive")]),
        kit.marker("trash_email", [email_id],
                   [kit.effect("update", "emails", f"UPDATE emails SET folder_id = {folder_sql('trash')} "
                                                   "WHERE id = :email_id AND user_id = :user_id")],
                   pre=[own, not_in("trash")]),
        kit.marker("move_email", [email_id, kit.param("folder_id", "integer", w["move_to"])],
                   [kit.effect("update", "emails", "UPDATE emails SET folder_id = :folder_id "
                                                   "WHERE id = :email_id AND user_id = :user_id")],
                   pre=[own, kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM folders WHERE id = :f AND user_id = :user_id)",
                                               f=ref("param.folder_id")), "Please choose one of your folders."),
                        kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM emails WHERE id = :e AND folder_id = :f)",
                                          e=ref("param.email_id"), f=ref("param.folder_id")),
                                  "The message is already in that folder.")]),
        kit.marker("purge_email", [email_id],
                   [kit.effect("delete", "emails", f"DELETE FROM emails WHERE id = :email_id AND user_id = :user_id "
                                                   f"AND folder_id = {folder_sql('trash')}")],
                   pre=[own, kit.check(kit.sql(f"SELECT EXISTS (SELECT 1 FROM emails WHERE id = :e AND folder_id = "
                                               f"{folder_sql('trash')})", e=ref("param.email_id")),
                                       f"Only messages in {fn['trash']} can be deleted forever.")],
                   irreversible=True),
        kit.marker("empty_trash", [], [kit.effect("delete", "emails", "DELETE FROM emails WHERE user_id = :user_id AND "
                                                                     f"folder_id = {folder_sql('trash')}")],
                   pre=[kit.check(kit.sql(f"SELECT EXISTS (SELECT 1 FROM emails WHERE folder_id = {folder_sql('trash')})"),
                                  f"{fn['trash']} is already empty.")], irreversible=True),
        kit.marker("add_contact", contact_params,
                   [kit.effect("insert", "contacts", "INSERT INTO contacts (user_id, name, email, phone, company) VALUES "
                               "(:user_id, :name, :email, coalesce(:phone, ''), coalesce(:company, ''))")],
                   pre=[valid_email],
                   inv=[no_duplicate, kit.check(kit.sql("SELECT (SELECT count(*) FROM contacts WHERE user_id = :user_id) "
                                                        "<= 500"), "Your address book is full (500 contacts).")],
                   message="The contact could not be saved."),
        kit.marker("update_contact", [kit.param("contact_id", "integer"), *contact_params],
                   [kit.effect("update", "contacts", "UPDATE contacts SET name = :name, email = :email, phone = "
                               "coalesce(:phone, ''), company = coalesce(:company, '') WHERE id = :contact_id AND "
                               "user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM contacts WHERE id = :c AND user_id = :user_id)",
                                          c=ref("param.contact_id")), "That contact is not in your address book."),
                        valid_email], inv=[no_duplicate], message="The contact could not be saved."),
        kit.marker("delete_contact", [kit.param("contact_id", "integer")],
                   [kit.effect("delete", "contacts", "DELETE FROM contacts WHERE id = :contact_id AND user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT EXISTS (SELECT 1 FROM contacts WHERE id = :c AND user_id = :user_id)",
                                          c=ref("param.contact_id")), "That contact is not in your address book.")],
                   irreversible=True),
        kit.marker("create_folder", [kit.param("name", "text", w["folder_name"], min_length=1, max_length=30)],
                   [kit.effect("insert", "folders", "INSERT INTO folders (user_id, name, kind, position) SELECT :user_id, "
                               ":name, 'custom', coalesce(max(position), 0) + 1 FROM folders WHERE user_id = :user_id")],
                   pre=[kit.check(kit.sql("SELECT instr(:n, '/') = 0", n=ref("param.name")),
                                  "Folder names cannot contain a slash.")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM folders WHERE user_id = :user_id GROUP BY "
                                          "lower(name) HAVING count(*) > 1)"), "You already have a folder with that name."),
                        kit.check(kit.sql("SELECT (SELECT count(*) FROM folders WHERE user_id = :user_id) <= 20"),
                                  "You can have at most 20 folders.")],
                   message="The folder could not be created."),
        kit.marker("save_settings", [kit.param("name", "text", w["display_name"], min_length=2, max_length=80),
                                     kit.param("signature", "text", w["signature"], required=False, max_length=300),
                                     kit.param("vacation", "boolean", w["vacation"]),
                                     kit.param("vacation_message", "text", w["vacation_text"], required=False,
                                               max_length=500)],
                   [kit.effect("update", "users", "UPDATE users SET name = :name, signature = coalesce(:signature, ''), "
                               "vacation = :vacation, vacation_message = coalesce(:vacation_message, '') "
                               "WHERE id = :user_id")],
                   inv=[kit.check(kit.sql("SELECT NOT EXISTS (SELECT 1 FROM users WHERE id = :user_id AND vacation = 1 "
                                          "AND trim(vacation_message) = '')"),
                                  f"Please write the {w['vacation_text'].lower()} before turning it on.")],
                   message="Your settings could not be saved."),
    ]


def _site(labels: Labels, ui: _UI, chrome: Any, data: _Data) -> dict[str, Any]:
    w, fn = ui.words, ui.folder_names
    star, _, starred_word = ui.star
    show_label, apply_label = ui.show
    search_form = kit.form(labels["search"], kit.navigate_action("/search"),
                           [kit.textbox("q", labels["search_box"], value=ref("query.q"))], label=labels["search"])
    header = list(chrome.layout["header"])
    if ui.search_in_header:
        header.append(kit.section([search_form], role="search"))
    confirm_delete = kit.confirm(f"Move this message to {fn['trash']}?", labels["confirm"], labels["cancel"])

    def row_form() -> list[dict[str, Any]]:
        if ui.row_action == "star":
            return [kit.form("{row.star_action}", kit.marker_action("toggle_star", {"email_id": ref("row.id")},
                                                                    message="Updated."))]
        if ui.row_action == "delete":
            return [kit.form(labels["delete"], kit.marker_action("trash_email", {"email_id": ref("row.id")},
                                                                 message=f"Moved to {fn['trash']}."),
                             confirm=confirm_delete if ui.confirm_delete else None)]
        return []

    def mail_list(name: str, q: dict[str, Any], empty: str, where: bool = False) -> dict[str, Any]:
        subject = kit.link("{row.subject}", "/message/{row.id}")
        when = "{row.date|date} {row.time}"
        if ui.listing_kind == "list":
            line = "{row.party} · " + ("{row.folder} · " if where else "") + when + " · {row.status}"
            return kit.listing(name, q, [subject, kit.text(line), *row_form()],
                               page_size=ui.page_size, sorts=ui.sorts, empty=empty)
        columns = [("From", [kit.text("{row.party}")]), (w["subject"], [subject]),
                   ("Folder, date" if where else "Date", [kit.text(("{row.folder} · " if where else "") + when
                                                                   + " · {row.status}")])]
        if ui.row_action != "none":
            columns.append(("", row_form()))
        return kit.table(name, q, columns, label="Messages", page_size=ui.page_size, sorts=ui.sorts, empty=empty)

    count_text = "{row.unread} unread" if ui.show_counts else "{row.total} messages"
    folder_list = kit.listing("folders", kit.query("folder_view", cond("user_id", ref("user.id")),
                                                   order=[("position", "asc"), ("id", "asc")]),
                              [kit.link("{row.name}", "/mail/{row.name}"), kit.text(count_text)])
    home = [kit.heading(f"Welcome to {ui.site_name}", 1), kit.text("Simple, private email. Today is {clock.today|date}."),
            kit.record(kit.query("guest_view", cond("nobody", ref("user.id"))),
                       [kit.text("Log in to read your mail."), kit.link(labels["login"], "/login")], "Welcome back!"),
            kit.listing("me", kit.query("users", cond("id", ref("user.id"))),
                        [kit.text("Signed in as {row.name} ({row.email})."), kit.heading(w["mailboxes"]), folder_list,
                         kit.link(w["compose"], "/compose")], empty="Your folders appear here once you log in.")]
    if not ui.search_in_header:
        home.append(kit.link(labels["search"], "/search"))

    show_form = kit.form(apply_label, kit.navigate_action("/mail/{param.name}"),
                         [kit.select("show", show_label, [("", w["all_mail"]), ("unread", w["unread_opt"]),
                                                          ("starred", starred_word)], value=ref("query.show"))],
                         label=show_label)
    filters = [kit.collapsible("filters", show_label, [show_form])] if ui.filter_ui == "collapsible" else [show_form]
    folder_q = kit.query("mail_view", cond("folder_id", ref("row.id")),
                         cond("tags", ref("query.show"), "contains", skip_if_empty=True),
                         order=[("sent_at", "desc"), ("id", "desc")])
    empty_trash = kit.record(kit.query("folder_view", cond("id", ref("row.id")), cond("kind", "trash"), cond("total", 0, ">")), [
        kit.form(f"Empty {fn['trash']}", kit.marker_action("empty_trash", {}, message=f"{fn['trash']} is empty now."),
                 confirm=kit.confirm(f"Delete everything in {fn['trash']} forever?", labels["confirm"], labels["cancel"]))],
        "Newest messages first.")
    folder_page = kit.page("folder", "/mail/{name:str}", "Mail", [kit.record(
        kit.query("folder_view", cond("user_id", ref("user.id")), cond("name", ref("param.name"))),
        chrome.crumbs([(labels["home"], "/")]) + [
            kit.heading("{row.name}", 1), kit.text("{row.total} messages, {row.unread} unread." if ui.show_counts
                                                   else "{row.total} messages."),
            *filters, mail_list("mail", folder_q, "No messages here."), empty_trash],
        "There is no folder with that name.")], login=True)

    redirect = "/mail/{row.folder}"
    star_form = kit.form("{row.star_action}", kit.marker_action("toggle_star", {"email_id": ref("row.id")},
                                                                message="Updated."))
    read_form = kit.form("{row.read_action}", kit.marker_action("toggle_read", {"email_id": ref("row.id")},
                                                                message="Updated."))
    archive_form = kit.form(w["archive_btn"], kit.marker_action("archive_email", {"email_id": ref("row.id")},
                                                                redirect=redirect, message=f"Moved to {fn['archive']}."))
    delete_form = kit.form(labels["delete"], kit.marker_action("trash_email", {"email_id": ref("row.id")},
                                                               redirect=redirect, message=f"Moved to {fn['trash']}."),
                           confirm=confirm_delete if ui.confirm_delete else None)
    move_form = kit.form(w["move"], kit.marker_action("move_email", {"email_id": ref("row.id"),
                                                                     "folder_id": ref("field.folder_id")},
                                                      redirect=redirect, message="Message moved."),
                         [kit.select("folder_id", w["move_to"], options_query={
                             "query": kit.query("folders", cond("user_id", ref("user.id")),
                                                cond("id", ref("row.folder_id"), "!="), order=[("position", "asc")]),
                             "value": "id", "label": "name"})], label=w["move_to"])
    purge = kit.record(kit.query("mail_view", cond("id", ref("row.id")), cond("kind", "trash")), [
        kit.form(w["purge"], kit.marker_action("purge_email", {"email_id": ref("row.id")}, redirect=redirect,
                                               message="Deleted forever."),
                 confirm=kit.confirm("Delete this message forever?", labels["confirm"], labels["cancel"],
                                     "This cannot be undone."))],
        f"Deleted messages stay in {fn['trash']} until it is emptied.")
    main_actions = [kit.link(w["reply"], "/message/{row.id}/reply"), kit.link(w["forward"], "/message/{row.id}/forward"),
                    delete_form]
    more = [star_form, read_form, archive_form, move_form]
    if ui.actions_ui == "menu":
        actions = [kit.section(main_actions, label="Toolbar"), kit.menu("more", w["more"], more)]
    elif ui.actions_ui == "collapsible":
        actions = [kit.section(main_actions, label="Toolbar"), kit.collapsible("more", w["more"], more)]
    else:
        actions = [kit.section(main_actions + more, label="Toolbar")]
    message_page = kit.page("message", "/message/{id:int}", "Message", [kit.record(
        kit.query("mail_view", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
        chrome.crumbs([(labels["home"], "/"), ("{row.folder}", redirect)]) + [
            kit.heading("{row.subject}", 1), kit.text("From: {row.sender_name} <{row.sender}>"),
            kit.text("To: {row.recipients}"), kit.text("Date: {row.date|date} {row.time}"),
            kit.text("Folder: {row.folder} · {row.status}"), *actions, kit.text("{row.body}"), purge],
        "This message does not exist.")], login=True)

    def compose_form(values: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        fields = {"to": kit.textbox("to", w["to"], required=True, value=values.get("to")),
                  "cc": kit.textbox("cc", w["cc"], value=values.get("cc")),
                  "subject": kit.textbox("subject", w["subject"], required=True, value=values.get("subject"))}
        args = {**{n: ref(f"field.{n}") for n in ui.compose_order}, "body": ref("field.body"), **args}
        return kit.form(w["send"], kit.marker_action("send_email", args, redirect="/message/{result.id}",
                                                     message="Your message has been sent."),
                        [fields[n] for n in ui.compose_order] + [kit.textbox("body", w["body"], kind="textarea",
                                                                              value=values.get("body"))],
                        label=w["compose"],
                        confirm=kit.confirm("Send this message?", labels["confirm"], labels["cancel"])
                        if ui.confirm_send else None)

    def picker(route: str) -> list[dict[str, Any]]:
        """An address-book picker: reloads the page with the chosen contact in the To field."""
        if not ui.has_picker:
            return []
        return [kit.form(w["use_contact"], kit.navigate_action(route), [kit.select(
            "to", w["pick_contact"], [("", "-")], options_query={
                "query": kit.query("contacts", cond("user_id", ref("user.id")), order=[("name", "asc"), ("id", "asc")]),
                "value": "email", "label": "name"})], label=w["pick_contact"])]

    def reply_like(page_id: str, title: str, route: str, values: dict[str, Any], args: dict[str, Any],
                   after: list[dict[str, Any]], pick: str = "") -> dict[str, Any]:
        return kit.page(page_id, route, title, [kit.record(
            kit.query("mail_view", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
            [kit.heading(f"{title}: {{row.subject}}", 1), *(picker(pick) if pick else []), compose_form(values, args),
             *after],
            "This message does not exist.")], login=True)

    contact_fields = {"name": kit.textbox("name", w["contact_name"], required=True, value=ref("row.name")),
                      "email": kit.textbox("email", w["contact_email"], required=True, value=ref("row.email")),
                      "phone": kit.textbox("phone", w["phone"], value=ref("row.phone")),
                      "company": kit.textbox("company", w["company"], value=ref("row.company"))}
    blank_fields = {n: {k: v for k, v in f.items() if k != "value"} for n, f in contact_fields.items()}
    add_form = kit.form(w["save_contact"], kit.marker_action("add_contact", {n: ref(f"field.{n}") for n in contact_fields},
                                                             redirect="/contacts", message="Contact added."),
                        [blank_fields[n] for n in ui.contact_order], label=w["new_contact"])
    if ui.contact_add_ui == "inline":
        add_ui = [kit.heading(w["new_contact"]), add_form]
    elif ui.contact_add_ui == "dialog":
        add_ui = [kit.button(w["new_contact"], "add_contact", "open"),
                  kit.dialog("add_contact", w["new_contact"], [add_form, kit.button(labels["cancel"], "add_contact", "close")])]
    else:
        add_ui = [kit.link(w["new_contact"], "/contacts/new")]
    contact_q = kit.query("contacts", cond("user_id", ref("user.id")), order=[("name", "asc"), ("id", "asc")])
    name_link = kit.link("{row.name}", "/contacts/{row.id}")
    if ui.contacts_kind == "table":
        columns = [(w["contact_name"], [name_link])]
        if ui.contacts_show_email:
            columns.append((w["contact_email"], [kit.text("{row.email}")]))
        columns += [(w["phone"], [kit.text("{row.phone}")]), (w["company"], [kit.text("{row.company}")])]
        contact_list = kit.table("contacts", contact_q, columns, label=w["contacts"], page_size=ui.contacts_page_size,
                                 empty="No contacts yet.")
    else:
        contact_list = kit.listing("contacts", contact_q, [name_link, kit.text(
            "{row.email}" if ui.contacts_show_email else "{row.company}")], page_size=ui.contacts_page_size,
            empty="No contacts yet.")
    contact_page = kit.page("contact_card", "/contacts/{id:int}", "Contact", [kit.record(
        kit.query("contacts", cond("id", ref("param.id")), cond("user_id", ref("user.id"))),
        chrome.crumbs([(labels["home"], "/"), (w["contacts"], "/contacts")]) + [
            kit.heading("{row.name}", 1), kit.text("{row.email}"), kit.link(w["email_contact"], "/compose?to={row.email}"),
            kit.form(labels["save"], kit.marker_action("update_contact", {"contact_id": ref("row.id"),
                                                                          **{n: ref(f"field.{n}") for n in contact_fields}},
                                                       message="Contact saved."),
                     [contact_fields[n] for n in ui.contact_order], label="Edit contact"),
            kit.form(labels["delete"], kit.marker_action("delete_contact", {"contact_id": ref("row.id")},
                                                         redirect="/contacts", message="Contact deleted."),
                     confirm=kit.confirm("Delete this contact?", labels["confirm"], labels["cancel"]))],
        "This contact does not exist.")], login=True)

    pages = [
        kit.page("home", "/", ui.site_name, home),
        folder_page, message_page,
        reply_like("reply", w["reply"], "/message/{id:int}/reply",
                   {"to": ref("row.sender"), "subject": ref("row.reply_subject")}, {"reply_to": ref("row.id")},
                   [kit.text("On {row.date|date}, {row.sender_name} wrote:"), kit.text("{row.body}")]),
        reply_like("forward", w["forward"], "/message/{id:int}/forward",
                   {"to": ref("query.to"), "subject": ref("row.forward_subject"), "body": ref("row.forward_body")}, {},
                   [], pick="/message/{param.id}/forward"),
        kit.page("compose", "/compose", w["compose"], [kit.heading(w["compose"], 1), *picker("/compose"),
                                                       compose_form({"to": ref("query.to")}, {})], login=True),
        kit.page("search", "/search", labels["search"], [
            kit.heading(labels["search"], 1), kit.text("Search by subject, name or address."),
            *([] if ui.search_in_header else [search_form]),
            mail_list("results", kit.query("mail_view", cond("user_id", ref("user.id")),
                                           cond("haystack", ref("query.q"), "contains", skip_if_empty=True),
                                           order=[("sent_at", "desc"), ("id", "desc")]),
                      "No messages match your search.", where=True)], login=True),
        kit.page("contacts", "/contacts", w["contacts"], [kit.heading(w["contacts"], 1), *add_ui, contact_list],
                 login=True),
        contact_page,
        login_page(labels, "Log in to read your mail."),
        *chrome.pages,
    ]
    if ui.contact_add_ui == "page":
        pages.append(kit.page("new_contact", "/contacts/new", w["new_contact"],
                              [kit.heading(w["new_contact"], 1), add_form], login=True))
    if ui.has_starred:
        pages.append(kit.page("starred", "/starred", starred_word, [kit.heading(starred_word, 1), mail_list(
            "starred", kit.query("mail_view", cond("user_id", ref("user.id")), cond("starred", True),
                                 order=[("sent_at", "desc"), ("id", "desc")]), "Nothing here yet.", where=True)],
            login=True))
    if ui.has_folders:
        pages.append(kit.page("folders", "/folders", w["folders"], [
            kit.heading(w["folders"], 1),
            kit.listing("all_folders", kit.query("folder_view", cond("user_id", ref("user.id")),
                                                 order=[("position", "asc"), ("id", "asc")]),
                        [kit.link("{row.name}", "/mail/{row.name}"), kit.text("{row.total} messages, {row.unread} unread")]),
            kit.form(w["new_folder"], kit.marker_action("create_folder", {"name": ref("field.name")},
                                                        message="Folder created."),
                     [kit.textbox("name", w["folder_name"], required=True)], label=w["new_folder"])], login=True))
    if ui.has_settings:
        pages.append(kit.page("settings", "/settings", labels["settings"], [
            kit.heading(labels["settings"], 1),
            kit.record(kit.query("users", cond("id", ref("user.id"))), [kit.form(labels["save"], kit.marker_action(
                "save_settings", {n: ref(f"field.{n}") for n in ("name", "signature", "vacation", "vacation_message")},
                message="Settings saved."), [
                kit.textbox("name", w["display_name"], required=True, value=ref("row.name")),
                kit.textbox("signature", w["signature"], kind="textarea", value=ref("row.signature")),
                kit.select("vacation", w["vacation"], [("0", "Off"), ("1", "On")], value=ref("row.vacation")),
                kit.textbox("vacation_message", w["vacation_text"], kind="textarea", value=ref("row.vacation_message"))],
                label=labels["settings"])], "")], login=True))
    return {"name": ui.site_name, "clock": {"today": TODAY.isoformat()},
            "auth": {"table": "users", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": {"tables": _tables(data), "views": _views(ui)}, "markers": _markers(labels, ui),
            "layout": {"header": header, "footer": chrome.layout["footer"]}, "pages": pages}


# ============================================================================ tasks


def _folder_q(kind: str) -> dict[str, Any]:
    return kit.scalar("folders", "id", cond("user_id", ref("user.id")), cond("kind", kind))


def _named_folder_q(slot: str = "folder") -> dict[str, Any]:
    return kit.scalar("folders", "id", cond("user_id", ref("user.id")), cond("name", ref(f"slot.{slot}")))


def _email_q(slot: str = "subject") -> dict[str, Any]:
    return kit.scalar("emails", "id", cond("user_id", ref("user.id")), cond("subject", ref(f"slot.{slot}")))


SENT_FOOTPRINT = {"table": "emails", "where": [cond("user_id", ref("user.id")), cond("folder_id", _folder_q("sent"))],
                  "ops": ["insert"]}
"""A task that sends mail may add messages to the user's Sent folder, and nothing else."""


def _newest(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda e: (e["sent_at"], e["id"]), reverse=True)


class _Ctx:
    """What the task families need to know about the site they write tasks for."""

    def __init__(self, rng: random.Random, labels: Labels, ui: _UI, data: _Data) -> None:
        self.rng, self.labels, self.ui, self.data = rng, labels, ui, data
        self.users = rng.sample(data.users, 3)  # the site's protagonists: their pages are shared between tasks
        self.mail: dict[int, list[dict[str, Any]]] = {u["id"]: [] for u in data.users}
        for email in data.emails:
            self.mail[email["user_id"]].append(email)
        self.folders: dict[int, dict[str, Any]] = {f["id"]: f for f in data.folders}
        self.folders_of: dict[int, list[dict[str, Any]]] = {u["id"]: [] for u in data.users}
        for folder in data.folders:
            self.folders_of[folder["user_id"]].append(folder)
        self.contacts_of: dict[int, list[dict[str, Any]]] = {u["id"]: [] for u in data.users}
        for contact in data.contacts:
            self.contacts_of[contact["user_id"]].append(contact)
        self.subject_count: dict[tuple[int, str], int] = {}
        for email in data.emails:
            key = (email["user_id"], email["subject"])
            self.subject_count[key] = self.subject_count.get(key, 0) + 1
        w = ui.words
        menu_nav = ui.nav_style == "menu"
        folder_labels = set(ui.folder_names.values())
        self.menu_links = {label for label in ui.nav_labels if menu_nav and label not in folder_labels}
        self.hidden: set[str] = set()
        if ui.actions_ui != "plain":
            self.hidden |= {*ui.star[:2], *ui.read, w["archive_btn"], w["move_to"]}
        if ui.filter_ui == "collapsible":
            self.hidden.add(ui.show[0])
        self.urls: dict[str, str] = {}
        """The main navigation's addresses by label (a plan may type one instead of clicking)."""
        self.folder_names = {f["name"] for f in data.folders}
        self.start_pages: list[str] = []

    # ------------------------------------------------------------------ facts

    def fid(self, user: dict[str, Any], kind: str) -> int:
        return next(f["id"] for f in self.folders_of[user["id"]] if f["kind"] == kind)

    def kind_of(self, email: dict[str, Any]) -> str:
        return self.data.meta[email["id"]]["kind"]

    def folder_kind(self, email: dict[str, Any]) -> str:
        return self.folders[email["folder_id"]]["kind"]

    def unique(self, email: dict[str, Any]) -> bool:
        """The subject names one message of its mailbox, and reads well in a quoted instruction."""
        return self.subject_count[(email["user_id"], email["subject"])] == 1 and '"' not in email["subject"]

    def received(self, user: dict[str, Any], kinds: tuple[str, ...] = ("work", "personal")) -> list[dict[str, Any]]:
        return [e for e in self.mail[user["id"]] if self.kind_of(e) in kinds]

    # ------------------------------------------------------------------ plans

    def cost(self, plan: list[Step]) -> int:
        """An upper bound on the certificate's length (closed widgets on the way cost a click)."""
        extra = 0
        for step in plan:
            if step[0] == "click" and step[1] == "link" and step[2] in self.menu_links:
                extra += 1
            elif (step[0] == "click" and step[1] == "button" and step[2] in self.hidden) or (
                    step[0] == "select" and step[1] in self.hidden):
                extra += 1
        return len(plan) + extra

    def nav(self, label: str) -> list[Step]:
        """Go to a page of the main navigation or a folder: by its link or, now and then, its address."""
        url = self.urls.get(label)  # only an address a link on every page shows: never one the agent can't know
        if url is not None and url != "/" and self.rng.random() < 0.25:
            return [("goto", url)]
        return [("click", "link", label)]

    def search_url(self, q: str) -> str:
        return "/search?" + urlencode({"q": q})

    def search_rows(self, user: dict[str, Any], q: str) -> list[dict[str, Any]]:
        needle = q.lower()
        return _newest([e for e in self.mail[user["id"]] if needle in " ".join(
            (e["subject"], e["sender_name"], e["sender"], e["recipients"])).lower()])

    def search(self, user: dict[str, Any], q: str, target: dict[str, Any] | None = None) -> list[Step]:
        """Search for ``q`` (submitted by the button or the Enter key) and (with a target) page to it
        and open it; or, now and then, open the target from its folder instead."""
        if target is not None and self.rng.random() < 0.35:
            folder = self.folders[target["folder_id"]]["name"]
            listed = _newest([e for e in self.mail[user["id"]] if e["folder_id"] == target["folder_id"]])
            position = listed.index(target)
            if position < 2 * self.ui.page_size:
                # A folder with no navigation link is reached from the folder list on the home page:
                # its address alone is knowledge the agent has not been shown.
                to_folder = (self.nav(folder) if folder in self.urls
                             else [("click", "link", self.labels["home"]), ("click", "link", folder)])
                return to_folder + [("click", "link", "Next")] * (position // self.ui.page_size) + [
                    ("click", "link", target["subject"])]
        plan: list[Step] = [] if self.ui.search_in_header else self.nav(self.labels["search"])
        submit: Step = (("press", "textbox", self.labels["search_box"], "Enter") if self.rng.random() < 0.4
                        else ("click", "button", self.labels["search"]))
        plan += [("fill", "textbox", self.labels["search_box"], q), submit]
        if target is not None:
            position = self.search_rows(user, q).index(target)
            plan += [("click", "link", "Next")] * (position // self.ui.page_size)
            plan.append(("click", "link", target["subject"]))
        return plan

    def all_pages(self, total: int, size: int | None = None) -> list[Step]:
        return all_pages(total, size or self.ui.page_size)

    def confirm(self, needed: bool) -> list[Step]:
        return [("click", "button", self.labels["confirm"])] if needed else []

    def star_click(self, email: dict[str, Any]) -> Step:
        return ("click", "button", self.ui.star[1] if email["starred"] else self.ui.star[0])

    def filter(self, value: str) -> list[Step]:
        label = self.ui.words["unread_opt"] if value == "unread" else self.ui.star[2]
        return [("select", self.ui.show[0], label), ("click", "button", self.ui.show[1])]

    def contact_steps(self, user: dict[str, Any], contact: dict[str, Any], *, open_it: bool) -> list[Step]:
        ordered = sorted(self.contacts_of[user["id"]], key=lambda c: (c["name"], c["id"]))
        plan = self.nav(self.ui.words["contacts"])
        plan += [("click", "link", "Next")] * (ordered.index(contact) // self.ui.contacts_page_size)
        return plan + ([("click", "link", contact["name"])] if open_it else [])

    def pick(self, contact: dict[str, Any]) -> list[Step]:
        """Choose a recipient with the address-book picker of the compose and forward pages."""
        return [("select", self.ui.words["pick_contact"], contact["name"]),
                ("click", "button", self.ui.words["use_contact"])]

    def unique_contact(self, user: dict[str, Any]) -> dict[str, Any] | None:
        contacts = self.contacts_of[user["id"]]
        names = [c["name"] for c in contacts]
        usable = [c for c in contacts if names.count(c["name"]) == 1 and c["name"] not in self.ui.nav_labels]
        return self.rng.choice(usable) if usable else None


LOGIN_CHANCE = {"reply": 0.6, "forward_lookup": 0.6, "compose_lookup": 0.6, "multi_entity_form": 0.6,
                "folder_multi_step": 0.6}
"""How often a family's instruction carries the credentials (the rest start logged in from the profile)."""

MAIL_PREFIXES = [("Log in as {username} (password: {password}). ", False), ("Sign in with {username} / {password}. ", False),
                 ("Use the account {username} with the password {password}. ", False)]


def _as_user(ctx: _Ctx, user: dict[str, Any], phrasings: list[str], slots: dict[str, Any], plan: list[Step],
             *, chance: float = 0.5) -> tuple[list[str], dict[str, Any], list[Step], dict[str, Any]] | None:
    """Who does the task (see :func:`veriweb.generate.tasks.as_user`), when the longer plan with a
    log-in still fits the budget. ``None`` when even the shorter plan does not fit."""
    if ctx.cost(plan) > MAX_STEPS:
        return None
    return as_user(ctx, user, phrasings, slots, plan, chance=chance, prefixes=MAIL_PREFIXES,
                   fits=lambda p: ctx.cost(p) <= MAX_STEPS)


def _task(ctx: _Ctx, task_id: str, family: str, kind: str, phrasings: list[str], slots: dict[str, Any],
          plan: list[Step], **fields: Any) -> TaskDraft:
    return make_task(ctx, task_id, family, kind, phrasings, slots, plan, **fields)


def _make(ctx: _Ctx, task_id: str, family: str, kind: str, user: dict[str, Any], phrasings: list[str],
          slots: dict[str, Any], plan: list[Step], *, chance: float = 0.4, **fields: Any) -> TaskDraft | None:
    who = _as_user(ctx, user, phrasings, slots, plan, chance=LOGIN_CHANCE.get(family, chance))
    if who is None:
        return None
    phrased, slots, plan, login = who
    return _task(ctx, task_id, family, kind, phrased, slots, plan, **login, **fields)


def _tasks(ctx: _Ctx) -> list[TaskDraft]:
    """About fourteen tasks: every kind of task on every site, some families drawn from a pool."""
    rng = ctx.rng
    retrieve = rng.sample([_count, _starred_list], 2)
    families = [[_nav_latest], [_nav_oldest_unread], retrieve, retrieve[::-1], [_lookup], [_invoice],
                rng.sample([_single_write, _edit_contact], 2), rng.sample([_trash_several, _add_contacts], 2),
                [_reply], [_forward_or_compose], [_move_from_sender], [_folder_or_settings], [_irreversible]]
    out: list[TaskDraft] = []
    for choices in families:
        draft = None
        for family in choices:  # a family that finds nothing that fits (too long, ambiguous) gives way
            for _ in range(3):
                draft = family(ctx)
                if draft is not None:
                    break
            if draft is not None and all(d.fields["id"] != draft.fields["id"] for d in out):
                out.append(draft)
                break
    out.append(_infeasible(ctx))
    home = [("click", "link", ctx.labels["home"]), ("click", "link", ctx.ui.site_name), ("goto", "/")]
    return start_elsewhere(ctx, out, ctx.start_pages, home, chance=0.4, fits=lambda plan: ctx.cost(plan) <= MAX_STEPS)


# ---------------------------------------------------------------------------- navigate


def _nav_latest(ctx: _Ctx) -> TaskDraft | None:
    """Open the newest message from a sender in the Inbox: found through search."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    inbox = ctx.fid(user, "inbox")
    mine = [e for e in ctx.received(user, ("work", "personal", "invoice")) if e["folder_id"] == inbox]
    senders = sorted({e["sender_name"] for e in mine})
    if not senders:
        return None
    sender = rng.choice(senders)
    theirs = _newest([e for e in mine if e["sender_name"] == sender])
    target = theirs[0]
    if len(theirs) > 1 and theirs[1]["sent_at"] == target["sent_at"] or not ctx.unique(target):
        return None
    goal = kit.on_page("message", id=kit.scalar("emails", "id", cond("user_id", ref("user.id")),
                                                cond("sender_name", ref("slot.sender")), cond("folder_id", _folder_q("inbox")),
                                                order=[("sent_at", "desc"), ("id", "desc")]))
    return _make(ctx, "latest_from", "navigate_search", "navigate", user,
                 ["Open the most recent email from {sender} in your Inbox.",
                  "Find the newest message {sender} sent you that is still in the Inbox, and open it.",
                  "Show me the latest email in my Inbox from {sender}."],
                 {"sender": sender}, ctx.search(user, sender, target), goal=[goal],
                 progress=[{"description": "the newest message from the sender is open", "predicate": goal}])


def _nav_oldest_unread(ctx: _Ctx) -> TaskDraft | None:
    """Open the oldest unread message of a folder: filter unread, sort oldest first (or page to the end)."""
    rng = ctx.rng
    options = []
    for user in ctx.users:
        for folder in ctx.folders_of[user["id"]]:
            unread = sorted((e for e in ctx.mail[user["id"]] if e["folder_id"] == folder["id"] and not e["read"]),
                            key=lambda e: (e["sent_at"], -e["id"]))
            if folder["kind"] not in ("sent", "trash") and unread and ctx.unique(unread[0]) and (
                    len(unread) == 1 or unread[1]["sent_at"] != unread[0]["sent_at"]):
                options.append((user, folder, unread))
    if not options:
        return None
    user, folder, unread = rng.choice(options)
    oldest = next((s for s in ctx.ui.sorts if s[0] == "oldest"), None)
    plan = ctx.nav(folder["name"]) + ctx.filter("unread")
    if oldest is not None:
        plan.append(("click", "link", oldest[1]))
    else:
        shown = _newest(unread)
        plan += [("click", "link", "Next")] * (shown.index(unread[0]) // ctx.ui.page_size)
    plan.append(("click", "link", unread[0]["subject"]))
    goal = kit.on_page("message", id=kit.scalar("emails", "id", cond("user_id", ref("user.id")),
                                                cond("folder_id", _named_folder_q()), cond("read", False),
                                                order=[("sent_at", "asc"), ("id", "desc")]))
    return _make(ctx, "oldest_unread", "navigate_filter_sort", "navigate", user,
                 ["Open the oldest unread message in your {folder} folder.",
                  "Which unread email in {folder} has been waiting longest? Open it.",
                  "Go to the earliest unread message in {folder}."],
                 {"folder": folder["name"]}, plan, goal=[goal],
                 progress=[{"description": "the oldest unread message is open", "predicate": goal}])


# ---------------------------------------------------------------------------- retrieve


def _count(ctx: _Ctx) -> TaskDraft | None:
    """How many unread messages a folder holds, or how many messages a sender has in the Inbox."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    if rng.random() < 0.5:
        folders = [f for f in ctx.folders_of[user["id"]] if f["kind"] != "sent"]
        folder = rng.choice(folders)
        n = sum(1 for e in ctx.mail[user["id"]] if e["folder_id"] == folder["id"] and not e["read"])
        plan = [] if ctx.ui.show_counts else ctx.nav(folder["name"]) + ctx.filter("unread") + ctx.all_pages(n)
        return _make(ctx, "count_unread", "retrieve_count", "retrieve", user,
                     ["How many unread messages are in your {folder} folder?",
                      "Count the unread emails in {folder}.", "How many messages in {folder} have I not read yet?"],
                     {"folder": folder["name"]}, plan + [("send", str(n))],
                     answer={"type": "number", "value": kit.scalar("emails", "*", cond("user_id", ref("user.id")),
                                                                   cond("folder_id", _named_folder_q()),
                                                                   cond("read", False), agg="count")})
    inbox = ctx.fid(user, "inbox")
    sender = rng.choice(sorted({e["sender_name"] for e in ctx.received(user) if e["folder_id"] == inbox}))
    n = sum(1 for e in ctx.mail[user["id"]] if e["sender_name"] == sender and e["folder_id"] == inbox)
    hits = len(ctx.search_rows(user, sender))
    return _make(ctx, "count_from", "retrieve_count", "retrieve", user,
                 ["How many messages from {sender} are in your Inbox?",
                  "Count the emails {sender} sent you that are still in the Inbox."],
                 {"sender": sender}, ctx.search(user, sender) + ctx.all_pages(hits) + [("send", str(n))],
                 answer={"type": "number", "value": kit.scalar("emails", "*", cond("user_id", ref("user.id")),
                                                               cond("sender_name", ref("slot.sender")),
                                                               cond("folder_id", _folder_q("inbox")), agg="count")})


def _invoice(ctx: _Ctx) -> TaskDraft | None:
    """Bills: the total of a company's bills (open each one), or one month's amount."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    bills = ctx.received(user, ("invoice",))
    company = rng.choice(sorted({e["sender_name"] for e in bills}))
    theirs = [e for e in bills if e["sender_name"] == company]
    results = ctx.search_rows(user, company)
    if len(results) > ctx.ui.page_size or any(not ctx.unique(e) for e in theirs):
        return None
    if rng.random() < 0.6:
        plan = ctx.search(user, company)
        for number, bill in enumerate(results):
            plan += ([("goto", ctx.search_url(company))] if number else []) + [("click", "link", bill["subject"])]
        total = sum(e["amount"] for e in theirs)
        return _make(ctx, "bills_total", "retrieve_sum", "retrieve", user,
                     ["What do all the {company} bills in your mailbox add up to?",
                      "Add up the amounts due on every bill from {company} in your mail. What is the total?",
                      "How much have the {company} bills in my mailbox come to in total?"],
                     {"company": company}, plan + [("send", f"The total is {_money(total)}.")],
                     answer={"type": "currency", "value": kit.scalar("emails", "amount", cond("user_id", ref("user.id")),
                                                                     cond("sender_name", ref("slot.company")), agg="sum")})
    bill = rng.choice(theirs)
    month = bill["subject"].rsplit(" ", 2)[1]
    return _make(ctx, "bill_amount", "retrieve_lookup", "retrieve", user,
                 ["How much was your {company} bill for {month}?", "What amount was due on the {month} bill from {company}?"],
                 {"company": company, "month": month, "subject": bill["subject"]},
                 ctx.search(user, company, bill) + [("send", _money(bill["amount"]))],
                 answer={"type": "currency", "value": kit.scalar("emails", "amount", cond("user_id", ref("user.id")),
                                                                 cond("subject", ref("slot.subject")))})


def _lookup(ctx: _Ctx) -> TaskDraft | None:
    """One fact: when a message arrived (date), who sent it (text), or a contact's address (text)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    variant = rng.choice(["date", "sender", "contact"])
    if variant == "contact":
        contact = ctx.unique_contact(user)
        if contact is None:
            return None
        table = ctx.ui.contacts_kind == "table"
        listed = ["phone", "company"] if table else [] if ctx.ui.contacts_show_email else ["company"]
        field = rng.choice(["email", *listed])  # asked only where the list shows it: a contact's page has it in a form
        if field != "email" and contact[field]:
            plan = ctx.contact_steps(user, contact, open_it=False)
            word = {"phone": "phone number", "company": "company"}[field]
            return _make(ctx, f"contact_{field}", "retrieve_contact", "retrieve", user,
                         [f"What is {{contact}}'s {word}?", f"Look up the {word} of {{contact}} in your contacts."],
                         {"contact": contact["name"]}, plan + [("send", contact[field])],
                         answer={"type": "text", "value": kit.scalar("contacts", field, cond("user_id", ref("user.id")),
                                                                     cond("name", ref("slot.contact")))})
        plan = ctx.contact_steps(user, contact, open_it=not ctx.ui.contacts_show_email)
        return _make(ctx, "contact_address", "retrieve_contact", "retrieve", user,
                     ["What is {contact}'s email address?", "Look up the email address of {contact} in your contacts.",
                      "Which address do I have on file for {contact}?"],
                     {"contact": contact["name"]}, plan + [("send", contact["email"])],
                     answer={"type": "text", "value": kit.scalar("contacts", "email", cond("user_id", ref("user.id")),
                                                                 cond("name", ref("slot.contact")))})
    sent = variant == "date" and rng.random() < 0.4
    pool = [e for e in (ctx.received(user, ("sent",)) if sent else ctx.received(user))
            if ctx.unique(e) and ctx.folder_kind(e) != "trash"]
    if not pool:
        return None
    target = rng.choice(pool)
    if ctx.search_rows(user, target["subject"]).index(target) >= ctx.ui.page_size:
        return None
    plan = ctx.search(user, target["subject"], target if rng.random() < 0.5 else None)  # read it in the list or open it
    if sent:
        return _make(ctx, "sent_on", "retrieve_date", "retrieve", user,
                     ["On what date did you send the email \"{subject}\"?",
                      "When did I send \"{subject}\"? Give the date."],
                     {"subject": target["subject"]}, plan + [("send", _nice(target["date"]))],
                     answer={"type": "date", "value": kit.scalar("emails", "date", cond("user_id", ref("user.id")),
                                                                 cond("subject", ref("slot.subject")))})
    if variant == "date":
        return _make(ctx, "received_on", "retrieve_date", "retrieve", user,
                     ["On what date did you receive the email \"{subject}\"?",
                      "When did \"{subject}\" arrive in my mailbox? Give the date.",
                      "What day was the message \"{subject}\" sent to you?"],
                     {"subject": target["subject"]}, plan + [("send", _nice(target["date"]))],
                     answer={"type": "date", "value": kit.scalar("emails", "date", cond("user_id", ref("user.id")),
                                                                 cond("subject", ref("slot.subject")))})
    return _make(ctx, "sender_of", "retrieve_sender", "retrieve", user,
                 ["Who sent you the email \"{subject}\"? Give their name.", "Whose message is \"{subject}\"?",
                  "Find the email \"{subject}\" and tell me the sender's name."],
                 {"subject": target["subject"]}, plan + [("send", target["sender_name"])],
                 answer={"type": "text", "value": kit.scalar("emails", "sender_name", cond("user_id", ref("user.id")),
                                                             cond("subject", ref("slot.subject"))),
                         "candidates": kit.scalar("emails", "sender_name", cond("user_id", ref("user.id")))["query"]})


def _starred_list(ctx: _Ctx) -> TaskDraft | None:
    """The subjects of the starred messages of a folder (filter starred), of every starred message
    (the starred page, on sites with one), or of a sender's messages (a search): a list answer."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    options = []
    for folder in ctx.folders_of[user["id"]]:
        rows = [e for e in ctx.mail[user["id"]] if e["folder_id"] == folder["id"] and e["starred"]]
        if 2 <= len(rows) <= 6 and folder["kind"] != "trash" and all("," not in e["subject"] and ";" not in e["subject"]
                                                                      for e in rows):
            options.append((folder, rows))
    way = rng.choice(["folder", "folder", "sender"] + (["starred_page"] if ctx.ui.has_starred else []))
    if way == "starred_page":
        rows = [e for e in ctx.mail[user["id"]] if e["starred"]]
        if 2 <= len(rows) <= ctx.ui.page_size and all("," not in e["subject"] and ";" not in e["subject"] for e in rows):
            word = ctx.ui.star[2].lower()
            return _make(ctx, "all_starred", "retrieve_list", "retrieve", user,
                         ["List the subjects of all your " + word + " emails.",
                          "Which of my messages are " + word + "? Give their subjects."],
                         {}, ctx.nav(ctx.ui.star[2]) + [("send", "; ".join(e["subject"] for e in _newest(rows)))],
                         answer={"type": "list", "list_query": kit.scalar(
                             "emails", "subject", cond("user_id", ref("user.id")), cond("starred", True))["query"]})
    if way == "sender":
        senders = sorted({e["sender_name"] for e in ctx.received(user)})
        rng.shuffle(senders)
        for sender in senders[:15]:
            rows = ctx.search_rows(user, sender)
            if 2 <= len(rows) <= ctx.ui.page_size and all(e["sender_name"] == sender for e in rows) and all(
                    "," not in e["subject"] and ";" not in e["subject"] for e in rows):
                return _make(ctx, "subjects_from", "retrieve_list", "retrieve", user,
                             ["List the subjects of every email {sender} sent you.",
                              "What are the subject lines of the messages from {sender}?"],
                             {"sender": sender}, ctx.search(user, sender) + [("send", "; ".join(e["subject"] for e in rows))],
                             answer={"type": "list", "list_query": kit.scalar(
                                 "emails", "subject", cond("user_id", ref("user.id")),
                                 cond("sender_name", ref("slot.sender")))["query"]})
    if not options:
        return None
    folder, rows = rng.choice(options)
    word = ctx.ui.star[2].lower()
    plan = ctx.nav(folder["name"]) + ctx.filter("starred") + ctx.all_pages(len(rows))
    return _make(ctx, "starred_subjects", "retrieve_list", "retrieve", user,
                 ["List the subjects of the " + word + " messages in your {folder} folder.",
                  "Which emails in {folder} are marked " + word + "? Give their subjects.",
                  "What are the subject lines of my " + word + " emails in {folder}?"],
                 {"folder": folder["name"]}, plan + [("send", "; ".join(e["subject"] for e in _newest(rows)))],
                 answer={"type": "list", "list_query": kit.scalar(
                     "emails", "subject", cond("user_id", ref("user.id")), cond("folder_id", _named_folder_q()),
                     cond("starred", True))["query"]})


# ---------------------------------------------------------------------------- mutate


def _single_write(ctx: _Ctx) -> TaskDraft | None:
    """Star, mark unread or archive one message: found by search or in its folder, or from the list row."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    variant = rng.choice(["star", "unread", "archive"])
    inbox = ctx.fid(user, "inbox")
    pool = [e for e in ctx.received(user, ("work", "personal", "invoice")) if ctx.unique(e)
            and ctx.folder_kind(e) != "trash" and (variant != "star" or not e["starred"])
            and (variant != "unread" or e["read"]) and (variant != "archive" or e["folder_id"] == inbox)]
    target = rng.choice(pool)
    folder = ctx.folders[target["folder_id"]]
    listed = _newest([e for e in ctx.mail[user["id"]] if e["folder_id"] == target["folder_id"]])
    row_star = variant == "star" and ctx.ui.row_action == "star"
    if listed.index(target) < 2 * ctx.ui.page_size and rng.random() < 0.5:
        find = ctx.nav(folder["name"]) + [("click", "link", "Next")] * (listed.index(target) // ctx.ui.page_size)
    else:
        rows = ctx.search_rows(user, target["subject"])
        find = ctx.search(user, target["subject"]) + [("click", "link", "Next")] * (rows.index(target) // ctx.ui.page_size)
    subject_q = _email_q()
    if variant == "star":
        word = ctx.ui.star[2].lower()
        plan = find + ([("click_near", target["subject"], "button", ctx.ui.star[0])] if row_star
                       else [("click", "link", target["subject"]), ctx.star_click(target)])
        return _make(ctx, "star_one", "single_write", "mutate", user,
                     ["Mark the email \"{subject}\" as " + word + ".", "Please make \"{subject}\" " + word + ".",
                      "I want to find \"{subject}\" again later: mark it " + word + "."],
                     {"subject": target["subject"]}, plan,
                     goal=[kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                                      cond("starred", True))],
                     progress=[{"description": "the message is " + word, "predicate": kit.exists(
                         "emails", cond("id", subject_q), cond("starred", True))}],
                     footprint=[{"table": "emails", "where": [cond("id", subject_q)], "columns": ["starred"],
                                 "ops": ["update"]}])
    if variant == "unread":
        plan = find + [("click", "link", target["subject"]), ("click", "button", ctx.ui.read[1])]
        return _make(ctx, "mark_unread", "single_write", "mutate", user,
                     ["Mark the email \"{subject}\" as unread.", "Set \"{subject}\" back to unread so I remember it."],
                     {"subject": target["subject"]}, plan,
                     goal=[kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                                      cond("read", False))],
                     progress=[{"description": "the message is unread", "predicate": kit.exists(
                         "emails", cond("id", subject_q), cond("read", False))}],
                     footprint=[{"table": "emails", "where": [cond("id", subject_q)], "columns": ["read"],
                                 "ops": ["update"]}])
    archive = ctx.ui.folder_names["archive"]
    plan = find + [("click", "link", target["subject"]), ("click", "button", ctx.ui.words["archive_btn"])]
    return _make(ctx, "archive_one", "single_write", "mutate", user,
                 ["Archive the email \"{subject}\".", "Move \"{subject}\" out of the Inbox into " + archive + "."],
                 {"subject": target["subject"]}, plan,
                 goal=[kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                                  cond("folder_id", _folder_q("archive")))],
                 progress=[{"description": "the message is archived", "predicate": kit.exists(
                     "emails", cond("id", subject_q), cond("folder_id", _folder_q("archive")))}],
                 footprint=[{"table": "emails", "where": [cond("id", subject_q)], "columns": ["folder_id"],
                             "ops": ["update"]}])


def _trash_several(ctx: _Ctx) -> TaskDraft | None:
    """Delete every message of a newsletter in the Inbox (two or three): several entities at once."""
    rng = ctx.rng
    options = []
    for user in ctx.users:
        inbox = ctx.fid(user, "inbox")
        for name in sorted({e["sender_name"] for e in ctx.received(user, ("newsletter",))}):
            results = ctx.search_rows(user, name)
            targets = [e for e in results if e["folder_id"] == inbox]
            if 2 <= len(targets) <= 3 and all(results.index(t) < ctx.ui.page_size for t in targets):
                options.append((user, name, targets))
    if not options:
        return None
    user, name, targets = rng.choice(options)
    trash = ctx.fid(user, "trash")
    letters = ctx.received(user, ("newsletter",))
    plan = ctx.search(user, name)
    for number, target in enumerate(targets):
        if ctx.ui.row_action == "delete":
            plan += [("click_near", target["subject"], "button", ctx.labels["delete"])] + ctx.confirm(ctx.ui.confirm_delete)
        else:
            plan += ([("goto", ctx.search_url(name))] if number else []) + [
                ("click", "link", target["subject"]), ("click", "button", ctx.labels["delete"])] + ctx.confirm(
                ctx.ui.confirm_delete)
    before = sum(1 for e in letters if e["sender_name"] == name and e["folder_id"] == trash)
    in_trash = [cond("user_id", ref("user.id")), cond("sender_name", ref("slot.sender")), cond("folder_id", _folder_q("trash"))]
    trash_word = ctx.ui.folder_names["trash"]
    return _make(ctx, "trash_newsletter", "multi_entity", "mutate", user,
                 ["Delete all the {sender} emails that are in your Inbox.",
                  "Clean up: move every message from {sender} in the Inbox to " + trash_word + ".",
                  "I am done with {sender}. Delete each of their emails from my Inbox."],
                 {"sender": name}, plan,
                 goal=[kit.exists("emails", cond("user_id", ref("user.id")), cond("sender_name", ref("slot.sender")),
                                  cond("folder_id", _folder_q("inbox")), negate=True),
                       kit.count("emails", *in_trash, value=before + len(targets))],
                 progress=[{"description": f"{n} of the messages are in the trash",
                            "predicate": kit.count("emails", *in_trash, op=">=", value=before + n)}
                           for n in range(1, len(targets) + 1)],
                 footprint=[{"table": "emails", "where": [cond("user_id", ref("user.id")),
                                                          cond("sender_name", ref("slot.sender"))],
                             "columns": ["folder_id"], "ops": ["update"]}])


def _add_contacts(ctx: _Ctx) -> TaskDraft | None:
    """Add two people to the address book: several entities, through the site's add-contact UI."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    known = {c["email"] for c in ctx.contacts_of[user["id"]]} | {c["name"] for c in ctx.contacts_of[user["id"]]}
    new = rng.sample([p for p in ctx.data.people if p["email"] not in known and p["name"] not in known], 2)
    w = ctx.ui.words
    opener: list[Step] = {"inline": [], "dialog": [("click", "button", w["new_contact"])],
                          "page": [("click", "link", w["new_contact"])]}[ctx.ui.contact_add_ui]
    plan = ctx.nav(w["contacts"])
    for p in new:
        plan += opener + [("fill", "textbox", w["contact_name"], p["name"]),
                          ("fill", "textbox", w["contact_email"], p["email"]), ("click", "button", w["save_contact"])]
    slots = {"name1": new[0]["name"], "email1": new[0]["email"], "name2": new[1]["name"], "email2": new[1]["email"]}
    saved = [kit.exists("contacts", cond("user_id", ref("user.id")), cond("name", ref(f"slot.name{n}")),
                        cond("email", ref(f"slot.email{n}"))) for n in (1, 2)]
    return _make(ctx, "add_contacts", "multi_entity_form", "mutate", user,
                 ["Add {name1} ({email1}) and {name2} ({email2}) to your contacts.",
                  "Save two new contacts: {name1}, email {email1}; and {name2}, email {email2}.",
                  "Put {name1} <{email1}> and {name2} <{email2}> in my address book."],
                 slots, plan, goal=saved,
                 progress=[{"description": "the first contact is saved", "predicate": saved[0]},
                           {"description": "both contacts are saved", "predicate": kit.all_of(*saved)}],
                 constraints=[{"description": "a contact was saved twice", "predicate": kit.count(
                     "contacts", cond("user_id", ref("user.id")), cond("name", ref("slot.name1")), op=">", value=1)}],
                 footprint=[{"table": "contacts", "where": [cond("user_id", ref("user.id")),
                                                            cond("name", [p["name"] for p in new], "in")],
                             "ops": ["insert"]}])


def _reply(ctx: _Ctx) -> TaskDraft | None:
    """Reply to a message with a given text: find it, Reply, write, Send (and confirm)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    pool = [e for e in ctx.received(user) if ctx.unique(e) and ctx.folder_kind(e) != "trash"]
    target = rng.choice(pool)
    if ctx.search_rows(user, target["subject"]).index(target) >= ctx.ui.page_size:
        return None
    text = rng.choice(REPLY_TEXTS)
    plan = ctx.search(user, target["subject"], target) + [
        ("click", "link", ctx.ui.words["reply"]), ("fill", "textbox", ctx.ui.words["body"], text),
        ("click", "button", ctx.ui.words["send"])] + ctx.confirm(ctx.ui.confirm_send)
    replied = ("SELECT {what} FROM emails r JOIN emails o ON o.user_id = r.user_id WHERE r.user_id = :user_id "
               "AND o.subject = :subject AND o.sender_name = :sender AND r.date = :today AND "
               "(r.in_reply_to = o.id OR r.subject = 'Re: ' || o.subject) AND instr(lower(r.recipients), lower(o.sender)) > 0 "
               "AND r.folder_id = (SELECT id FROM folders WHERE user_id = :user_id AND kind = 'sent')")
    params = {"subject": ref("slot.subject"), "sender": ref("slot.sender")}
    done = kit.sql("SELECT EXISTS (" + replied.format(what="1") + " AND instr(lower(r.body), lower(:msg)) > 0)",
                   msg=ref("slot.text"), **params)
    return _make(ctx, "reply", "reply", "mutate", user,
                 ["Reply to {sender}'s email \"{subject}\" with: {text}",
                  "Answer the message \"{subject}\" from {sender}. Write: {text}",
                  "Send {sender} a reply to \"{subject}\" saying \"{text}\""],
                 {"sender": target["sender_name"], "subject": target["subject"], "text": text}, plan, goal=[done],
                 progress=[{"description": "the reply is sent", "predicate": done}],
                 constraints=[{"description": "more than one reply was sent", "predicate": kit.sql(
                     "SELECT (" + replied.format(what="count(*)") + ") > 1", **params)}],
                 footprint=[SENT_FOOTPRINT])


def _forward_or_compose(ctx: _Ctx) -> TaskDraft | None:
    """Write to a contact whose address must be looked up (in the contacts, or with the address-book
    picker where the site has one): forward a message, or send a new one."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    contact = ctx.unique_contact(user)
    if contact is None:
        return None
    w = ctx.ui.words
    sent_to = ("SELECT {what} FROM emails r WHERE r.user_id = :user_id AND r.date = :today AND r.folder_id = "
               "(SELECT id FROM folders WHERE user_id = :user_id AND kind = 'sent') AND {subject} AND "
               "lower(trim(r.recipients)) {op} (SELECT lower(email) FROM contacts WHERE user_id = :user_id AND "
               "name = :contact)")
    if rng.random() < 0.5:
        pool = [e for e in ctx.received(user) if ctx.unique(e) and ctx.folder_kind(e) != "trash"]
        target = rng.choice(pool)
        if ctx.search_rows(user, target["subject"]).index(target) >= ctx.ui.page_size:
            return None
        if ctx.ui.has_picker:  # the forward page offers the address book
            plan = ctx.search(user, target["subject"], target) + [("click", "link", w["forward"])] + ctx.pick(contact)
        else:  # look the address up first, then type it
            plan = ctx.contact_steps(user, contact, open_it=not ctx.ui.contacts_show_email)
            plan += ctx.search(user, target["subject"], target) + [
                ("click", "link", w["forward"]), ("fill", "textbox", w["to"], contact["email"])]
        plan += [("click", "button", w["send"])] + ctx.confirm(ctx.ui.confirm_send)
        about = "instr(r.subject, :subject) > 0"
        done = kit.sql("SELECT EXISTS (" + sent_to.format(what="1", subject=about, op="=") + ")",
                       subject=ref("slot.subject"), contact=ref("slot.contact"))
        return _make(ctx, "forward", "forward_lookup", "mutate", user,
                     ["Forward the email \"{subject}\" to {contact}.", "Send {contact} a copy of \"{subject}\" (forward it).",
                      "{contact} needs the message \"{subject}\": forward it to them."],
                     {"subject": target["subject"], "contact": contact["name"]}, plan, goal=[done],
                     progress=[{"description": "the message is forwarded to the contact", "predicate": done}],
                     constraints=[{"description": "the message was forwarded to someone else", "predicate": kit.sql(
                         "SELECT EXISTS (" + sent_to.format(what="1", subject=about, op="!=") + ")",
                         subject=ref("slot.subject"), contact=ref("slot.contact"))}],
                     footprint=[SENT_FOOTPRINT])
    used = {e["subject"] for e in ctx.mail[user["id"]]}
    subject = rng.choice([s for s in NEW_SUBJECTS if s not in used])
    text = rng.choice(COMPOSE_TEXTS)
    if ctx.ui.has_picker and rng.random() < 0.5:
        plan = ctx.nav(w["compose"]) + ctx.pick(contact)
    else:
        plan = ctx.contact_steps(user, contact, open_it=True) + [("click", "link", w["email_contact"])]
    plan += [("fill", "textbox", w["subject"], subject), ("fill", "textbox", w["body"], text),
             ("click", "button", w["send"])] + ctx.confirm(ctx.ui.confirm_send)
    about = "r.subject = :subject AND instr(lower(r.body), lower(:msg)) > 0"
    done = kit.sql("SELECT EXISTS (" + sent_to.format(what="1", subject=about, op="=") + ")",
                   subject=ref("slot.subject"), msg=ref("slot.text"), contact=ref("slot.contact"))
    return _make(ctx, "compose", "compose_lookup", "mutate", user,
                 ["Email {contact} with the subject \"{subject}\" and the message: {text}",
                  "Write to {contact}. Subject: {subject}. Message: {text}",
                  "Send a new email to {contact} titled \"{subject}\" that says \"{text}\""],
                 {"contact": contact["name"], "subject": subject, "text": text}, plan, goal=[done],
                 progress=[{"description": "the email is sent to the contact", "predicate": done}],
                 constraints=[{"description": "the email went to someone else", "predicate": kit.sql(
                     "SELECT EXISTS (" + sent_to.format(what="1", subject="r.subject = :subject", op="!=") + ")",
                     subject=ref("slot.subject"), contact=ref("slot.contact"))}],
                 footprint=[SENT_FOOTPRINT])


def _move_from_sender(ctx: _Ctx) -> TaskDraft | None:
    """Move a sender's Inbox messages to a custom folder, leaving every other message where it is."""
    rng = ctx.rng
    options = []
    for user in ctx.users:
        inbox = ctx.fid(user, "inbox")
        if not any(f["kind"] == "custom" for f in ctx.folders_of[user["id"]]):
            continue
        for sender in sorted({e["sender_name"] for e in ctx.received(user) if e["folder_id"] == inbox}):
            results = ctx.search_rows(user, sender)
            targets = [e for e in results if e["folder_id"] == inbox]
            if 2 <= len(targets) <= 3 and all(results.index(t) < ctx.ui.page_size and ctx.unique(t) for t in targets):
                options.append((user, sender, targets))
    if not options:
        return None
    user, sender, targets = rng.choice(options)
    inbox = ctx.fid(user, "inbox")
    inbox_mail = [e for e in ctx.mail[user["id"]] if e["folder_id"] == inbox]
    customs = [f for f in ctx.folders_of[user["id"]] if f["kind"] == "custom"]
    work = any(ctx.kind_of(e) == "work" for e in targets)
    fitting = [f for f in customs if f["name"] in (("Work", "Projects") if work else ("Family", "Friends", "Travel"))]
    folder = rng.choice(fitting or customs)
    w = ctx.ui.words
    plan = ctx.search(user, sender)
    for number, target in enumerate(targets):
        plan += ([("goto", ctx.search_url(sender))] if number else []) + [
            ("click", "link", target["subject"]), ("select", w["move_to"], folder["name"]), ("click", "button", w["move"])]
    before = sum(1 for e in ctx.mail[user["id"]] if e["folder_id"] == folder["id"] and e["sender_name"] == sender)
    others = len(inbox_mail) - len(targets)
    moved = [cond("user_id", ref("user.id")), cond("sender_name", ref("slot.sender")), cond("folder_id", _named_folder_q())]
    return _make(ctx, "move_sender", "write_constraint", "mutate", user,
                 ["Move every email from {sender} in your Inbox to the {folder} folder. Leave all other messages where they are.",
                  "File all of {sender}'s Inbox messages under {folder}, and do not move anything else.",
                  "Only the emails from {sender} should leave the Inbox: put them in {folder}."],
                 {"sender": sender, "folder": folder["name"]}, plan,
                 goal=[kit.exists("emails", cond("user_id", ref("user.id")), cond("sender_name", ref("slot.sender")),
                                  cond("folder_id", _folder_q("inbox")), negate=True),
                       kit.count("emails", *moved, value=before + len(targets))],
                 progress=[{"description": f"{n} of the messages are in the folder",
                            "predicate": kit.count("emails", *moved, op=">=", value=before + n)}
                           for n in range(1, len(targets) + 1)],
                 constraints=[{"description": "another message left the Inbox", "predicate": kit.count(
                     "emails", cond("user_id", ref("user.id")), cond("folder_id", _folder_q("inbox")),
                     cond("sender_name", ref("slot.sender"), "!="), op="<", value=others)}],
                 footprint=[{"table": "emails", "where": [cond("user_id", ref("user.id")),
                                                          cond("sender_name", ref("slot.sender"))],
                             "columns": ["folder_id"], "ops": ["update"]}])


def _edit_contact(ctx: _Ctx) -> TaskDraft | None:
    """Change one field of a contact, keeping the others."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    contact = ctx.unique_contact(user)
    if contact is None:
        return None
    w = ctx.ui.words
    contact_q = kit.scalar("contacts", "id", cond("user_id", ref("user.id")), cond("name", ref("slot.contact")))
    if rng.random() < 0.6:
        column, value = "phone", f"+1 {rng.randint(201, 989)} 555 {rng.randint(1000, 9999)}"
        phrasings = ["Change {contact}'s phone number to {value}.", "{contact} has a new number: {value}. Update the contact.",
                     "Update the phone number of {contact} to {value}, and keep the rest of the contact as it is."]
        label = w["phone"]
    else:
        column, value = "company", rng.choice([c for c, _ in COMPANIES if c != contact["company"]])
        phrasings = ["{contact} now works at {value}: update their contact.", "Set {contact}'s company to {value}."]
        label = w["company"]
    plan = ctx.contact_steps(user, contact, open_it=True) + [("fill", "textbox", label, value),
                                                             ("click", "button", ctx.labels["save"])]
    done = kit.exists("contacts", cond("id", contact_q), cond(column, ref("slot.value")))
    return _make(ctx, f"edit_{column}", "contact_edit", "mutate", user, phrasings,
                 {"contact": contact["name"], "value": value}, plan, goal=[done],
                 progress=[{"description": f"the contact's {column} is updated", "predicate": done}],
                 constraints=[{"description": "the contact's email address changed", "predicate": kit.exists(
                     "contacts", cond("id", contact_q), cond("email", contact["email"], "!="))}],
                 footprint=[{"table": "contacts", "where": [cond("id", contact_q)], "columns": [column], "ops": ["update"]}])


def _folder_or_settings(ctx: _Ctx) -> TaskDraft | None:
    """A write on an optional page: create a folder (and file a message in it, or make two
    folders), or change the settings (signature, display name, auto-reply); ``None`` on a site
    with neither page."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    w = ctx.ui.words
    choices = (["folder"] if ctx.ui.has_folders else []) + (["settings"] * 2 if ctx.ui.has_settings else [])
    if not choices:
        return None
    variant = rng.choice(choices)
    if variant == "folder" and rng.random() < 0.3:
        names = {f["name"] for f in ctx.folders_of[user["id"]]}
        first, second = rng.sample([n for n in NEW_FOLDERS if n not in names], 2)
        plan = ctx.nav(w["folders"])
        for name in (first, second):
            plan += [("fill", "textbox", w["folder_name"], name), ("click", "button", w["new_folder"])]
        made = {n: kit.exists("folders", cond("user_id", ref("user.id")), cond("name", ref(f"slot.{n}")))
                for n in ("first", "second")}
        return _make(ctx, "two_folders", "folder_multi_step", "mutate", user,
                     ["Create two folders: \"{first}\" and \"{second}\".",
                      "Make new folders named {first} and {second}."],
                     {"first": first, "second": second}, plan, goal=list(made.values()),
                     progress=[{"description": f"the {n} folder exists", "predicate": made[n]} for n in made],
                     footprint=[{"table": "folders", "where": [cond("user_id", ref("user.id")),
                                                               cond("name", ref(f"slot.{n}"))], "ops": ["insert"]}
                                for n in made])
    if variant == "settings" and rng.random() < 0.35:
        first = user["name"].split()[0]
        name = f"{first} {rng.choice(NEW_SURNAMES)}"
        plan = ctx.nav(ctx.labels["settings"]) + [("fill", "textbox", w["display_name"], name)]
        done = kit.compare(kit.scalar("users", "name", cond("id", ref("user.id"))), "=", ref("slot.name"))
        if rng.random() < 0.4:  # and the signature with it
            signature = rng.choice(SIGNATURES)
            signed = kit.compare(kit.scalar("users", "signature", cond("id", ref("user.id"))), "=", ref("slot.signature"))
            return _make(ctx, "name_and_signature", "settings_form", "mutate", user,
                         ["Change your display name to \"{name}\" and your signature to \"{signature}\".",
                          "Update my settings: display name {name}, signature \"{signature}\"."],
                         {"name": name, "signature": signature},
                         plan + [("fill", "textbox", w["signature"], signature), ("click", "button", ctx.labels["save"])],
                         goal=[done, signed],
                         progress=[{"description": "the settings are saved", "predicate": kit.all_of(done, signed)}],
                         footprint=[{"table": "users", "where": [cond("id", ref("user.id"))],
                                     "columns": ["name", "signature"], "ops": ["update"]}])
        plan.append(("click", "button", ctx.labels["save"]))
        return _make(ctx, "display_name", "settings_form", "mutate", user,
                     ["Change your display name to \"{name}\". Keep your signature as it is.",
                      "I got married: set my display name to {name}, and leave the signature alone."],
                     {"name": name}, plan, goal=[done],
                     progress=[{"description": "the display name is saved", "predicate": done}],
                     constraints=[{"description": "the signature changed", "predicate": kit.exists(
                         "users", cond("id", ref("user.id")), cond("signature", user["signature"], "!="))}],
                     footprint=[{"table": "users", "where": [cond("id", ref("user.id"))], "columns": ["name"],
                                 "ops": ["update"]}])
    if variant == "folder":
        names = {f["name"] for f in ctx.folders_of[user["id"]]}
        name = rng.choice([n for n in NEW_FOLDERS if n not in names])
        pool = [e for e in ctx.received(user) if ctx.unique(e) and ctx.folder_kind(e) != "trash"]
        target = rng.choice(pool)
        if ctx.search_rows(user, target["subject"]).index(target) >= ctx.ui.page_size:
            return None
        plan = ctx.nav(w["folders"]) + [("fill", "textbox", w["folder_name"], name), ("click", "button", w["new_folder"])]
        plan += ctx.search(user, target["subject"], target) + [("select", w["move_to"], name),
                                                                ("click", "button", w["move"])]
        folder_made = kit.exists("folders", cond("user_id", ref("user.id")), cond("name", ref("slot.folder")))
        filed = kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                           cond("folder_id", _named_folder_q()))
        return _make(ctx, "new_folder", "folder_multi_step", "mutate", user,
                     ["Create a folder called \"{folder}\" and move the email \"{subject}\" into it.",
                      "Make a new folder named {folder}, then file \"{subject}\" there.",
                      "I need a {folder} folder. Create it and put the message \"{subject}\" in it."],
                     {"folder": name, "subject": target["subject"]}, plan, goal=[filed],
                     progress=[{"description": "the folder exists", "predicate": folder_made},
                               {"description": "the message is in the new folder", "predicate": filed}],
                     footprint=[{"table": "folders", "where": [cond("user_id", ref("user.id")),
                                                               cond("name", ref("slot.folder"))], "ops": ["insert"]},
                                {"table": "emails", "where": [cond("id", _email_q())], "columns": ["folder_id"],
                                 "ops": ["update"]}])
    if variant == "settings" and rng.random() < 0.4:
        signature = rng.choice(SIGNATURES)
        plan = ctx.nav(ctx.labels["settings"]) + [("fill", "textbox", w["signature"], signature),
                                                  ("click", "button", ctx.labels["save"])]
        done = kit.compare(kit.scalar("users", "signature", cond("id", ref("user.id"))), "=", ref("slot.signature"))
        return _make(ctx, "signature", "settings_form", "mutate", user,
                     ["Change your email signature to \"{signature}\".", "Set my signature to: {signature}"],
                     {"signature": signature}, plan, goal=[done],
                     progress=[{"description": "the signature is saved", "predicate": done}],
                     footprint=[{"table": "users", "where": [cond("id", ref("user.id"))], "columns": ["signature"],
                                 "ops": ["update"]}])
    if variant == "settings":
        text = rng.choice(VACATION_TEXTS)
        plan = ctx.nav(ctx.labels["settings"]) + [("select", w["vacation"], "On"),
                                                  ("fill", "textbox", w["vacation_text"], text),
                                                  ("click", "button", ctx.labels["save"])]
        mine = [cond("id", ref("user.id"))]
        done = kit.all_of(kit.compare(kit.scalar("users", "vacation", *mine), "=", True),
                          kit.compare(kit.scalar("users", "vacation_message", *mine), "=", ref("slot.text")))
        return _make(ctx, "auto_reply", "settings_form", "mutate", user,
                     ["Turn on the {feature} with the message: {text}",
                      "I am going away. Switch on your {feature} and set its text to \"{text}\""],
                     {"feature": w["vacation"].lower(), "text": text}, plan, goal=[done],
                     progress=[{"description": "the auto-reply is on with the text", "predicate": done}],
                     constraints=[{"description": "the display name changed", "predicate": kit.exists(
                         "users", cond("id", ref("user.id")), cond("name", user["name"], "!="))}],
                     footprint=[{"table": "users", "where": [cond("id", ref("user.id"))],
                                 "columns": ["vacation", "vacation_message"], "ops": ["update"]}])
    return None


def _to_trash(ctx: _Ctx) -> list[Step]:
    """From the home page to the Trash: its link in the home page's folder list, or the folders page."""
    name = ctx.ui.folder_names["trash"]
    if ctx.ui.has_folders and ctx.rng.random() < 0.4:
        return ctx.nav(ctx.ui.words["folders"]) + [("click", "link", name)]
    return ctx.nav(name)


def _irreversible(ctx: _Ctx) -> TaskDraft | None:
    """An irreversible write behind a confirmation: empty the Trash, delete one message in the
    Trash forever, or delete a message for good (to the Trash, then out of it)."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    w = ctx.ui.words
    name = ctx.ui.folder_names["trash"]
    trash = ctx.fid(user, "trash")
    in_trash = _newest([e for e in ctx.mail[user["id"]] if e["folder_id"] == trash])
    variant = rng.choice(["empty", "purge", "for_good"])
    if variant == "empty" or (variant == "purge" and not in_trash):
        if not in_trash:
            return None
        plan = _to_trash(ctx) + [("click", "button", f"Empty {name}"), ("click", "button", ctx.labels["confirm"])]
        empty = kit.exists("emails", cond("user_id", ref("user.id")), cond("folder_id", _folder_q("trash")), negate=True)
        return _make(ctx, "empty_trash", "irreversible_write", "mutate", user,
                     ["Empty your {trash} folder.", "Permanently delete everything in {trash}."],
                     {"trash": name}, plan, goal=[empty],
                     progress=[{"description": "the trash is empty", "predicate": empty}],
                     footprint=[{"table": "emails", "where": [cond("user_id", ref("user.id")),
                                                              cond("folder_id", _folder_q("trash"))], "ops": ["delete"]}])
    purge = [("click", "button", w["purge"]), ("click", "button", ctx.labels["confirm"])]
    if variant == "purge":
        target = rng.choice(in_trash)
        if not ctx.unique(target):
            return None
        position = in_trash.index(target)
        if rng.random() < 0.5 and position < 2 * ctx.ui.page_size:
            plan = _to_trash(ctx) + [("click", "link", "Next")] * (position // ctx.ui.page_size) + [
                ("click", "link", target["subject"])]
        elif ctx.search_rows(user, target["subject"]).index(target) < ctx.ui.page_size:
            plan = ctx.search(user, target["subject"]) + [("click", "link", target["subject"])]
        else:
            return None
        phrasings = ["Delete the email \"{subject}\" in your {trash} forever.",
                     "The message \"{subject}\" is in {trash}: erase it permanently."]
        task_id = "purge_trashed"
    else:
        pool = [e for e in ctx.received(user) if ctx.unique(e) and ctx.folder_kind(e) != "trash"]
        target = rng.choice(pool)
        if ctx.search_rows(user, target["subject"]).index(target) >= ctx.ui.page_size:
            return None
        plan = ctx.search(user, target["subject"], target) + [("click", "button", ctx.labels["delete"])] + ctx.confirm(
            ctx.ui.confirm_delete)
        if rng.random() < 0.5:  # open it again from the Trash, or find it again by a search
            position = _newest(in_trash + [target]).index(target)
            if position >= 2 * ctx.ui.page_size:
                return None
            plan += [("click", "link", ctx.labels["home"])] + _to_trash(ctx) + [("click", "link", "Next")] * (
                position // ctx.ui.page_size) + [("click", "link", target["subject"])]
        else:
            plan += ctx.search(user, target["subject"]) + [("click", "link", target["subject"])]
        phrasings = ["Delete the email \"{subject}\" for good: not just to {trash}, permanently.",
                     "Get rid of the message \"{subject}\" permanently (it must not stay in {trash})."]
        task_id = "delete_for_good"
    gone = kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")), negate=True)
    return _make(ctx, task_id, "irreversible_write", "mutate", user, phrasings,
                 {"subject": target["subject"], "trash": name}, plan + purge, goal=[gone],
                 progress=([] if variant == "purge" else [{"description": "the message is in the trash",
                                                            "predicate": kit.any_of(gone, kit.exists(
                                                                "emails", cond("id", _email_q()),
                                                                cond("folder_id", _folder_q("trash"))))}])
                 + [{"description": "the message is gone", "predicate": gone}],
                 footprint=[{"table": "emails", "where": [cond("user_id", ref("user.id")), cond("id", target["id"])],
                             "ops": ["delete"]}] + ([] if variant == "purge" else [
                     {"table": "emails", "where": [cond("user_id", ref("user.id")), cond("id", target["id"])],
                      "columns": ["folder_id"], "ops": ["update"]}]))


# ---------------------------------------------------------------------------- infeasible


def _infeasible(ctx: _Ctx) -> TaskDraft:
    """Act on a message that is not in the mailbox: no action can bring another person's email into it."""
    rng = ctx.rng
    user = rng.choice(ctx.users)
    used = {e["subject"] for e in ctx.mail[user["id"]]}
    subject = rng.choice([s for s in MISSING_SUBJECTS if s not in used])
    sender = rng.choice(ctx.contacts_of[user["id"]])["name"]
    original = kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                          cond("sender_name", ref("slot.sender")), cond("sender", ref("user.email"), "!="))
    variant = rng.choice(["forward", "reply", "restore"])
    phrasings = {
        "forward": ["Forward the email \"{subject}\" from {sender} to your own address.",
                    "Send a copy of {sender}'s message \"{subject}\" to yourself."],
        "reply": ["Reply to {sender}'s email \"{subject}\" and say thank you.",
                  "Answer the message \"{subject}\" that {sender} sent you: just say thanks."],
        "restore": ["Move the email \"{subject}\" from {sender} back to your Inbox.",
                    "Restore {sender}'s message \"{subject}\" to the Inbox."],
    }[variant]
    goal = [original, kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject")),
                                 cond("folder_id", _folder_q("inbox")))] if variant == "restore" else [
        original, kit.exists("emails", cond("user_id", ref("user.id")), cond("subject", ref("slot.subject"), "contains"),
                             cond("folder_id", _folder_q("sent")))]
    report = ("infeasible", f"There is no email \"{subject}\" from {sender} in this mailbox.")
    slots = {"subject": subject, "sender": sender}
    way = rng.choice(["subject", "word", "sender", "folder"])
    if way == "sender":  # everything from the sender, every page of it
        look = ctx.search(user, sender) + ctx.all_pages(min(len(ctx.search_rows(user, sender)), 3 * ctx.ui.page_size))
    elif way == "folder":
        look = ctx.nav(ctx.ui.folder_names["trash" if variant == "restore" else "inbox"])
    else:
        look = ctx.search(user, subject.split()[-1] if way == "word" else subject)
    plan = look + [report]
    draft = _make(ctx, f"missing_{variant}", "infeasible_missing", "infeasible", user, phrasings, slots, plan,
                  goal=goal)
    return draft or _task(ctx, f"missing_{variant}", "infeasible_missing", "infeasible", phrasings, slots, [report],
                          user=user["username"], start_logged_in=True, credentials="profile", goal=goal)
