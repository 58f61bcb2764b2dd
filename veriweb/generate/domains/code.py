"""Code-host blueprint: projects, issues with labels, assignees and milestones, merge requests, comments, search.

Description:
    A GitLab-like code host. A dozen or so projects in a few groups, each with members (owner,
    maintainers, developers, reporters), milestones, hundreds of issues across the site (labels,
    assignee, milestone, bounty, comments, open or closed) and merge requests (open, merged or
    closed, with a pipeline status and a diff size). Project lists with sorts and pagination,
    issue and merge-request lists filtered by state (links or a drop-down), label, assignee or
    author, a site-wide search, issue pages whose edit controls (assignee, milestone, labels) sit
    in tabs, a collapsible, a dialog or plainly on the page, comments, close and reopen, merging
    (maintainers only, passing pipelines only), stars; on some sites milestone, member, label and
    "assigned to me" pages, and confirmation dialogs before irreversible actions.

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
    ``Streams`` of the site's seed: ``structure`` (pages, labels, widgets, layout), ``content``
    (records), ``tasks`` (task choice, slots, phrasings).
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from veriweb.engine.templates import nice_date
from veriweb.generate import kit
from veriweb.generate.kit import cond, ref
from veriweb.generate.layout import build_chrome, login_page, login_plan
from veriweb.generate.plan import TaskDraft
from veriweb.generate.site import Draft
from veriweb.generate.streams import Streams
from veriweb.generate.tasks import all_pages, as_user, make_task, next_pages, start_elsewhere, with_login
from veriweb.generate.vocab import Labels, password, person

Row = dict[str, Any]
Step = tuple[Any, ...]
TODAY = dt.date(2026, 6, 15)
MAX_STEPS = 20
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

SITE_NAMES = ["Forgewell", "CodeHarbor", "Branchline", "Gitwise", "Mergeway", "SourceNest", "Patchbay", "Repodock",
              "Kilnworks", "Commitment", "Treeline Code", "Lanternforge"]
GROUPS = ["platform", "mobile", "infra", "data", "web", "tools", "security", "design", "payments", "growth"]
PROJECT_NAMES = ["atlas", "beacon", "compass", "harbor", "lumen", "meridian", "nimbus", "orbit", "pulse", "quartz",
                 "relay", "sierra", "tundra", "vertex", "willow", "zephyr", "ember", "falcon", "granite", "helix",
                 "juniper", "kestrel", "lattice", "mosaic", "onyx", "prism", "quill", "raven", "sable", "wren"]
LANGUAGES = ["Python", "Go", "TypeScript", "Rust", "Java", "Ruby", "Kotlin", "C++", "Elixir", "Swift"]
PURPOSES = ["command-line tool", "web dashboard", "REST API", "mobile app", "data pipeline", "design system",
            "deployment scripts", "payment service", "search service", "documentation site", "SDK", "sync agent"]
LABEL_POOL = ["bug", "feature", "documentation", "security", "performance", "frontend", "backend",
              "good first issue", "regression", "accessibility", "dependencies", "needs design", "tech debt",
              "question"]
MISSING_LABELS = ["wontfix-legacy", "blocked upstream", "p0 outage", "customer escalation", "release blocker"]
ROLES = ["Owner", "Maintainer", "Developer", "Reporter"]
COMPONENTS = ["login page", "settings panel", "search bar", "dashboard", "export dialog", "user profile",
              "billing page", "API client", "CLI", "webhook handler", "file uploader", "notification service",
              "sidebar", "markdown renderer", "date picker", "audit log", "sync worker", "cache layer",
              "onboarding flow", "admin console", "importer", "rate limiter"]
WHEN = ["on Safari", "on Android", "on iOS", "in dark mode", "after login", "with large files", "on slow networks",
        "for new users", "after the last release", "with emoji in names", "on Windows", "when offline"]
THINGS = ["date", "time zone", "user count", "total", "avatar", "error message", "sort order", "icon"]
FEATURES = ["dark mode", "CSV export", "keyboard shortcuts", "bulk editing", "two-factor login", "search filters",
            "drag and drop", "pagination", "webhooks", "audit logging", "single sign-on", "rate limits"]
DEPENDENCIES = ["React", "Django", "OpenSSL", "the Postgres driver", "the logging library", "Node", "protobuf"]
ISSUE_TEMPLATES = ["{C} crashes {when}", "{C} shows the wrong {thing} {when}", "{C} is slow {when}",
                   "{C} fails to load {when}", "Broken layout in the {c} {when}", "Error 500 from the {c} {when}",
                   "Add {feature} to the {c}", "Support {feature} in the {c}", "Document the {c} {when}",
                   "Flaky test for the {c} {when}", "Upgrade {dep} in the {c}", "{C} loses the {thing} {when}"]
MR_TEMPLATES = ["Fix {c} crash {when}", "Add {feature} to {c}", "Refactor {c} internals", "Bump {dep} in {c}",
                "Speed up {c} {when}", "Handle missing {thing} in {c}", "Clean up {c} styles",
                "Draft: rework {c} for {feature}"]
DESCRIPTIONS = ["Steps to reproduce are in the first comment.", "Seen by several users this week.",
                "This blocks the next release.", "Low priority, but annoying.", "Reported by a customer.",
                "We should decide on an approach first.", "A screenshot is attached in the discussion."]
NOTE_BODIES = ["I can reproduce this on the latest version.", "Could you share the logs?", "Working on a fix.",
               "This should be fixed in the next release.", "+1, we see this too.", "Is this still relevant?",
               "Added to the current milestone.", "Needs a test before we merge.", "Looks good to me.",
               "Can we split this into smaller issues?"]
NEW_COMMENTS = ["I will take a look this week.", "Confirmed on staging.", "Please add steps to reproduce.",
                "Duplicate of an older report, keeping this one open.", "Fixed on main, please verify.",
                "Moving this to the next sprint.", "Still happening after the update."]
MISSING_PEOPLE = ["Ingrid Halvorsen", "Marcus Delacroix", "Pavel Sokolov", "Lucia Benedetti", "Tomasz Wrobel"]

# Domain wording (the shared vocabulary stays untouched): concept -> synonyms.
WORDS: dict[str, list[str]] = {
    "projects_nav": ["Projects", "Explore", "Repositories", "All projects"],
    "issues": ["Issues", "Tickets", "Issue tracker"],
    "mrs": ["Merge requests", "Pull requests", "Change requests"],
    "milestones": ["Milestones", "Roadmap", "Release plan"],
    "members": ["Members", "Team", "People"],
    "dashboard": ["Your issues", "Assigned to me", "My issues", "Your work"],
    "labels": ["Labels", "Tags"],
    "new_issue": ["New {issue}", "Report {a} {issue}", "Open {a} {issue}", "New report"],
    "create": ["Create {issue}", "Submit {issue}", "Create", "Submit report"],
    "title": ["Title", "{Issue} title", "Subject"],
    "description": ["Description", "Details", "What happened?"],
    "assignee": ["Assignee", "Assigned to", "Responsible"],
    "milestone": ["Milestone", "Target milestone", "Planned for"],
    "author": ["Author", "Opened by", "Created by"],
    "state": ["State", "Status"],
    "filter": ["Filter", "Apply filters", "Update list", "Show results"],
    "all": ["All", "Any", "Everything"],
    "assign": ["Assign", "Save assignee", "Update assignee", "Set assignee"],
    "set_milestone": ["Set milestone", "Save milestone", "Update milestone"],
    "remove_label": ["Remove", "Remove label", "Drop"],
    "comment_box": ["Comment", "Write a comment", "Your comment", "Add to the discussion"],
    "comment": ["Comment", "Add comment", "Post comment", "Reply"],
    "close_issue": ["Close issue", "Close", "Mark as closed", "Resolve"],
    "reopen_issue": ["Reopen issue", "Reopen", "Mark as open"],
    "merge": ["Merge", "Merge now", "Accept and merge", "Merge changes"],
    "star": ["Star", "Add star", "Favourite"],
    "unstar": ["Unstar", "Remove star", "Unfavourite"],
    "edit": ["Edit", "Edit issue", "Manage", "Edit details"],
    "tab_discussion": ["Discussion", "Activity", "Comments", "Overview"],
    "tab_manage": ["Manage", "Properties", "Settings", "Sidebar"],
    "largest": ["Most lines added", "Largest first", "Biggest changes"],
    "discussed": ["Most discussed", "Most comments"],
    "stars_sort": ["Most stars", "Popular", "Most starred"],
    "updated_sort": ["Recently updated", "Last updated", "Latest activity"],
}
SINGULAR = {"Issues": "issue", "Tickets": "ticket", "Issue tracker": "issue", "Merge requests": "merge request",
            "Pull requests": "pull request", "Change requests": "change request", "Labels": "Label", "Tags": "Tag"}


# ============================================================================ content


@dataclass
class _Data:
    """The seeded records, with lookups the task families need."""

    users: list[Row]
    projects: list[Row]
    members: list[Row]
    labels: list[Row]
    milestones: list[Row]
    issues: list[Row]
    issue_labels: list[Row]
    notes: list[Row]
    mrs: list[Row]
    stars: list[Row]

    def __post_init__(self) -> None:
        self.user = {u["id"]: u for u in self.users}
        self.label_name = {lab["id"]: lab["name"] for lab in self.labels}
        self.ilabels: dict[int, list[str]] = {i["id"]: [] for i in self.issues}
        for link in self.issue_labels:
            self.ilabels[link["issue_id"]].append(self.label_name[link["label_id"]])
        for names in self.ilabels.values():
            names.sort()
        self.newest = sorted(self.issues, key=lambda i: (i["created"], i["id"]), reverse=True)
        self.mrs_newest = sorted(self.mrs, key=lambda r: (r["created"], r["id"]), reverse=True)
        self.titles = {i["title"] for i in self.issues} | {r["title"] for r in self.mrs}

    def issues_of(self, project: Row) -> list[Row]:
        """The project's issues, newest first (the lists' default order)."""
        return [i for i in self.newest if i["project_id"] == project["id"]]

    def mrs_of(self, project: Row) -> list[Row]:
        """The project's merge requests, newest first."""
        return [r for r in self.mrs_newest if r["project_id"] == project["id"]]

    def members_of(self, project: Row, roles: tuple[str, ...] = tuple(ROLES)) -> list[Row]:
        """Members of a project with one of ``roles``, as user rows, by name."""
        return sorted((self.user[m["user_id"]] for m in self.members
                       if m["project_id"] == project["id"] and m["role"] in roles), key=lambda u: u["name"])


def _day(days_ago: int) -> str:
    return (TODAY - dt.timedelta(days=days_ago)).isoformat()


def _title(rng: random.Random, templates: list[str], seen: set[str]) -> str:
    while True:
        component = rng.choice(COMPONENTS)
        text = rng.choice(templates).format(C=component[0].upper() + component[1:], c=component, when=rng.choice(WHEN),
                                            thing=rng.choice(THINGS), feature=rng.choice(FEATURES),
                                            dep=rng.choice(DEPENDENCIES))
        if text not in seen:
            seen.add(text)
            return text


def _content(rng: random.Random) -> _Data:
    users: list[Row] = []
    names: set[str] = set()
    usernames: set[str] = set()
    wanted = rng.randint(32, 44)
    while len(users) < wanted:
        first, last = person(rng)
        if f"{first} {last}" in names:
            continue
        names.add(f"{first} {last}")
        username = (first[0] + last).lower()
        while username in usernames:
            username += str(rng.randint(1, 9))
        usernames.add(username)
        users.append({"id": len(users) + 1, "username": username, "password": password(rng, username),
                      "name": f"{first} {last}", "email": f"{username}@example.dev"})
    groups = rng.sample(GROUPS, rng.randint(3, 5))
    paths = sorted(f"{rng.choice(groups)}/{name}" for name in rng.sample(PROJECT_NAMES, rng.randint(10, 15)))
    projects = [{"id": n + 1, "path": path, "namespace": path.split("/")[0], "name": path.split("/")[1],
                 "description": f"The {rng.choice(PURPOSES)} of the {path.split('/')[0]} team.",
                 "language": rng.choice(LANGUAGES), "visibility": rng.choice(["public", "public", "internal"]),
                 "created": _day(rng.randint(400, 1500)), "updated": ""} for n, path in enumerate(paths)]
    labels = [{"id": n + 1, "name": name, "color": f"#{rng.randrange(0x1000000):06x}"}
              for n, name in enumerate(sorted(rng.sample(LABEL_POOL, rng.randint(6, 9))))]
    members: list[Row] = []
    milestones: list[Row] = []
    issues: list[Row] = []
    issue_labels: list[Row] = []
    notes: list[Row] = []
    mrs: list[Row] = []
    stars: list[Row] = []
    seen: set[str] = set()
    for project in projects:
        team = rng.sample(users, rng.randint(4, 8))
        for number, user in enumerate(team):
            role = "Owner" if number == 0 else "Maintainer" if number <= rng.randint(1, 2) else \
                rng.choice(["Developer", "Developer", "Reporter"])
            members.append({"id": len(members) + 1, "project_id": project["id"], "user_id": user["id"], "role": role})
        scheme = rng.choice(["version", "sprint", "quarter"])
        major, start = rng.randint(1, 4), rng.randint(0, 7)
        own: list[Row] = []
        for k in range(rng.randint(2, 4)):
            title = {"version": f"v{major}.{start + k}", "sprint": f"Sprint {start * 3 + 10 + k}",
                     "quarter": f"2026 Q{k + 1}"}[scheme]
            due = TODAY + dt.timedelta(days=-60 + 32 * k + rng.randint(-5, 5))
            state = "closed" if due < TODAY - dt.timedelta(days=7) and rng.random() < 0.8 else "active"
            own.append({"id": len(milestones) + len(own) + 1, "project_id": project["id"], "title": title,
                        "due": due.isoformat(), "state": state})
        milestones += own
        active = [m for m in own if m["state"] == "active"]
        batch = []
        for _ in range(rng.randint(16, 36)):
            created = rng.randint(1, 330)
            state = "open" if rng.random() < 0.55 else "closed"
            milestone = None
            if rng.random() < 0.5:
                milestone = rng.choice(active if state == "open" and active else own)["id"]
            batch.append({"project_id": project["id"], "title": _title(rng, ISSUE_TEMPLATES, seen),
                          "description": rng.choice(DESCRIPTIONS), "state": state,
                          "author_id": rng.choice(users)["id"],
                          "assignee_id": rng.choice(team)["id"] if rng.random() < 0.75 else None,
                          "milestone_id": milestone, "created": _day(created),
                          "closed_on": _day(rng.randint(1, created)) if state == "closed" else None,
                          "bounty": rng.choice([50, 100, 150, 200, 250, 500]) * 100 if rng.random() < 0.15 else 0})
        batch.sort(key=lambda i: i["created"])
        for number, issue in enumerate(batch, 1):
            issue.update(id=len(issues) + 1, number=number)
            issues.append(issue)
            for label in sorted(rng.sample(labels, rng.choice([0, 1, 1, 1, 2, 2, 3])), key=lambda lab: lab["id"]):
                issue_labels.append({"id": len(issue_labels) + 1, "issue_id": issue["id"], "label_id": label["id"]})
            age = (TODAY - dt.date.fromisoformat(issue["created"])).days
            for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
                notes.append({"id": len(notes) + 1, "issue_id": issue["id"], "author_id": rng.choice(team + users[:5])["id"],
                              "body": rng.choice(NOTE_BODIES), "created": _day(rng.randint(1, age))})
        batch = []
        branches: set[str] = set()
        for _ in range(rng.randint(5, 12)):
            title = _title(rng, MR_TEMPLATES, seen)
            words = re.sub(r"[^a-z0-9]+", " ", title.lower().replace("draft: ", "")).split()
            branch = "-".join(words[:6])
            while branch in branches:
                branch += "-2"
            branches.add(branch)
            created = rng.randint(2, 200)
            roll = rng.random()
            state = "open" if roll < 0.4 else "merged" if roll < 0.85 else "closed"
            author, reviewer = rng.sample(team, 2)
            batch.append({"project_id": project["id"], "title": title, "source_branch": branch,
                          "target_branch": rng.choice(["main", "main", "develop"]), "state": state,
                          "pipeline": "passed" if state == "merged" else rng.choice(["passed", "failed", "running"]),
                          "author_id": author["id"], "reviewer_id": reviewer["id"],
                          "additions": rng.randint(3, 900), "deletions": rng.randint(0, 400), "created": _day(created),
                          "merged_on": _day(rng.randint(1, created - 1)) if state == "merged" else None,
                          "closed_on": _day(rng.randint(1, created - 1)) if state == "closed" else None})
        batch.sort(key=lambda r: r["created"])
        for number, mr in enumerate(batch, 1):
            mr.update(id=len(mrs) + 1, number=number)
            mrs.append(mr)
        for user in rng.sample(users, min(len(users) // 2, int(rng.paretovariate(1.3) * 4))):
            stars.append({"id": len(stars) + 1, "user_id": user["id"], "project_id": project["id"],
                          "created": _day(rng.randint(1, 300))})
        activity = [i["created"] for i in issues if i["project_id"] == project["id"]]
        project["updated"] = max(activity + [r["created"] for r in batch])
    return _Data(users, projects, members, labels, milestones, issues, issue_labels, notes, mrs, stars)


def _schema(data: _Data, w: dict[str, str]) -> dict[str, Any]:
    tables = [
        kit.table_def("users", [("id", "integer"), ("username", "text"), ("password", "text"), ("name", "text"),
                                ("email", "text")], data.users, indexes=[["username"]]),
        kit.table_def("projects", [("id", "integer"), ("path", "text"), ("namespace", "text"), ("name", "text"),
                                   ("description", "text"), ("language", "text"), ("visibility", "text"),
                                   ("created", "date"), ("updated", "date")], data.projects, indexes=[["path"]]),
        kit.table_def("members", [("id", "integer"), ("project_id", "integer"), ("user_id", "integer"),
                                  ("role", "text")], data.members,
                      foreign_keys=[("project_id", "projects"), ("user_id", "users")]),
        kit.table_def("labels", [("id", "integer"), ("name", "text"), ("color", "text")], data.labels),
        kit.table_def("milestones", [("id", "integer"), ("project_id", "integer"), ("title", "text"), ("due", "date"),
                                     ("state", "text")], data.milestones, foreign_keys=[("project_id", "projects")]),
        kit.table_def("issues", [("id", "integer"), ("project_id", "integer"), ("number", "integer"), ("title", "text"),
                                 ("description", "text"), ("state", "text"), ("author_id", "integer"),
                                 ("assignee_id", "integer"), ("milestone_id", "integer"), ("created", "date"),
                                 ("closed_on", "date"), ("bounty", "money")], data.issues,
                      foreign_keys=[("project_id", "projects"), ("author_id", "users"), ("assignee_id", "users"),
                                    ("milestone_id", "milestones")], indexes=[["title"]]),
        kit.table_def("issue_labels", [("id", "integer"), ("issue_id", "integer"), ("label_id", "integer")],
                      data.issue_labels, foreign_keys=[("issue_id", "issues"), ("label_id", "labels")]),
        kit.table_def("notes", [("id", "integer"), ("issue_id", "integer"), ("author_id", "integer"), ("body", "text"),
                                ("created", "date")], data.notes,
                      foreign_keys=[("issue_id", "issues"), ("author_id", "users")]),
        kit.table_def("merge_requests", [("id", "integer"), ("project_id", "integer"), ("number", "integer"),
                                         ("title", "text"), ("source_branch", "text"), ("target_branch", "text"),
                                         ("state", "text"), ("pipeline", "text"), ("author_id", "integer"),
                                         ("reviewer_id", "integer"), ("additions", "integer"),
                                         ("deletions", "integer"), ("created", "date"), ("merged_on", "date"),
                                         ("closed_on", "date")], data.mrs,
                      foreign_keys=[("project_id", "projects"), ("author_id", "users"), ("reviewer_id", "users")]),
        kit.table_def("stars", [("id", "integer"), ("user_id", "integer"), ("project_id", "integer"),
                                ("created", "date")], data.stars,
                      foreign_keys=[("user_id", "users"), ("project_id", "projects")]),
    ]
    for table in tables:  # optional references and dates may be empty
        for column in table["columns"]:
            if column["name"] in ("assignee_id", "milestone_id", "closed_on", "merged_on", "reviewer_id"):
                column["nullable"] = True
    views = [
        {"name": "project_view", "sql": (
            "SELECT p.id AS id, p.path AS path, p.namespace AS namespace, p.name AS name, p.description AS description, "
            "p.language AS language, p.visibility AS visibility, p.updated AS updated, "
            "(SELECT count(*) FROM stars s WHERE s.project_id = p.id) AS stars, "
            "(SELECT count(*) FROM issues i WHERE i.project_id = p.id AND i.state = 'open') AS open_issues, "
            "(SELECT count(*) FROM merge_requests r WHERE r.project_id = p.id AND r.state = 'open') AS open_mrs "
            "FROM projects p")},
        {"name": "issue_view", "money_columns": ["bounty"], "sql": (
            "SELECT i.id AS id, i.project_id AS project_id, p.path AS project, i.number AS number, i.title AS title, "
            "i.description AS description, i.state AS state, i.created AS created, i.closed_on AS closed_on, "
            "i.author_id AS author_id, a.name AS author, i.assignee_id AS assignee_id, "
            "coalesce(u.name, 'Unassigned') AS assignee, i.milestone_id AS milestone_id, "
            "coalesce(m.title, 'None') AS milestone, m.due AS milestone_due, "
            "coalesce((SELECT group_concat(name, ', ') FROM (SELECT l.name AS name FROM issue_labels il "
            "JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id ORDER BY l.name)), 'none') AS labels, "
            "(SELECT count(*) FROM notes n WHERE n.issue_id = i.id) AS comments, i.bounty AS bounty, "
            "CASE WHEN i.bounty > 0 THEN '$' || (i.bounty / 100) || '.00' ELSE 'none' END AS bounty_shown, "
            "CASE i.state WHEN 'open' THEN 'closed' ELSE 'open' END AS next_state, "
            f"CASE i.state WHEN 'open' THEN '{w['close_issue']}' ELSE '{w['reopen_issue']}' END AS toggle "
            "FROM issues i JOIN projects p ON p.id = i.project_id JOIN users a ON a.id = i.author_id "
            "LEFT JOIN users u ON u.id = i.assignee_id LEFT JOIN milestones m ON m.id = i.milestone_id")},
        {"name": "issue_search", "sql": (
            "SELECT i.id AS id, i.title AS title, i.number AS number, i.state AS state, i.created AS created, "
            "p.path AS project FROM issues i JOIN projects p ON p.id = i.project_id")},
        {"name": "mr_search", "sql": (
            "SELECT r.id AS id, r.title AS title, r.number AS number, r.state AS state, r.created AS created, "
            "p.path AS project FROM merge_requests r JOIN projects p ON p.id = r.project_id")},
        {"name": "mr_view", "sql": (
            "SELECT r.id AS id, r.project_id AS project_id, p.path AS project, r.number AS number, r.title AS title, "
            "r.source_branch AS source_branch, r.target_branch AS target_branch, r.state AS state, "
            "r.pipeline AS pipeline, r.additions AS additions, r.deletions AS deletions, r.created AS created, "
            "r.merged_on AS merged_on, r.closed_on AS closed_on, r.author_id AS author_id, a.name AS author, "
            "coalesce(v.name, 'None') AS reviewer FROM merge_requests r JOIN projects p ON p.id = r.project_id "
            "JOIN users a ON a.id = r.author_id LEFT JOIN users v ON v.id = r.reviewer_id")},
        {"name": "note_view", "sql": (
            "SELECT n.id AS id, n.issue_id AS issue_id, n.author_id AS author_id, u.name AS author, n.body AS body, "
            "n.created AS created FROM notes n JOIN users u ON u.id = n.author_id")},
        {"name": "issue_label_view", "sql": (
            "SELECT il.id AS id, il.issue_id AS issue_id, il.label_id AS label_id, l.name AS name "
            "FROM issue_labels il JOIN labels l ON l.id = il.label_id")},
        {"name": "member_view", "sql": (
            "SELECT m.id AS id, m.project_id AS project_id, m.user_id AS user_id, u.name AS name, "
            "u.username AS username, m.role AS role FROM members m JOIN users u ON u.id = m.user_id")},
        {"name": "milestone_view", "sql": (
            "SELECT m.id AS id, m.project_id AS project_id, p.path AS project, m.title AS title, m.due AS due, "
            "m.state AS state, (SELECT count(*) FROM issues i WHERE i.milestone_id = m.id AND i.state = 'open') "
            "AS open_issues, (SELECT count(*) FROM issues i WHERE i.milestone_id = m.id AND i.state = 'closed') "
            "AS closed_issues FROM milestones m JOIN projects p ON p.id = m.project_id")},
        {"name": "label_view", "sql": (
            "SELECT l.id AS id, l.name AS name, l.color AS color, (SELECT count(*) FROM issue_labels il JOIN issues i "
            "ON i.id = il.issue_id WHERE il.label_id = l.id AND i.state = 'open') AS open_issues FROM labels l")},
    ]
    return {"tables": tables, "views": views}


# ============================================================================ markers


def _markers(w: dict[str, str]) -> list[Row]:
    def sql(text: str, **params: Any) -> Row:
        return kit.sql(text, **params)

    member = ("SELECT EXISTS (SELECT 1 FROM members m JOIN issues i ON i.project_id = m.project_id "
              "WHERE i.id = :i AND m.user_id = :user_id)")
    not_member = f"Only members of this project can change its {w['issue']}s."
    is_member = kit.check(sql(member, i=ref("param.issue_id")), not_member)
    assignee_ok = kit.check(sql(
        "SELECT :a IS NULL OR EXISTS (SELECT 1 FROM members m JOIN issues i ON i.project_id = m.project_id "
        "WHERE i.id = :i AND m.user_id = :a)", a=ref("param.assignee_id"), i=ref("param.issue_id")),
        "Only members of this project can be assigned.")
    return [
        kit.marker("create_issue", [kit.param("project_id", "integer"),
                                    kit.param("title", "text", w["title"], min_length=3, max_length=120),
                                    kit.param("description", "text", w["description"], required=False, max_length=2000),
                                    kit.param("label_id", "integer", w["label"], required=False),
                                    kit.param("assignee_id", "integer", w["assignee"], required=False),
                                    kit.param("milestone_id", "integer", w["milestone"], required=False)],
                   [kit.effect("insert", "issues", "INSERT INTO issues (project_id, number, title, description, state, "
                               "author_id, assignee_id, milestone_id, created, closed_on, bounty) SELECT :project_id, "
                               "coalesce(max(number), 0) + 1, :title, coalesce(:description, ''), 'open', :user_id, "
                               ":assignee_id, :milestone_id, :today, NULL, 0 FROM issues WHERE project_id = :project_id"),
                    kit.effect("insert", "issue_labels", "INSERT INTO issue_labels (issue_id, label_id) SELECT "
                               "(SELECT max(id) FROM issues), :label_id WHERE :label_id IS NOT NULL")],
                   pre=[kit.check(sql("SELECT :a IS NULL OR EXISTS (SELECT 1 FROM members WHERE project_id = :p AND "
                                      "user_id = :a)", a=ref("param.assignee_id"), p=ref("param.project_id")),
                                  "Only members of this project can be assigned."),
                        kit.check(sql("SELECT :m IS NULL OR EXISTS (SELECT 1 FROM milestones WHERE id = :m AND "
                                      "project_id = :p AND state = 'active')", m=ref("param.milestone_id"),
                                      p=ref("param.project_id")), "That milestone is closed or belongs elsewhere.")],
                   inv=[kit.check(sql("SELECT NOT EXISTS (SELECT 1 FROM issues WHERE project_id = :p AND state = 'open' "
                                      "GROUP BY lower(title) HAVING count(*) > 1)", p=ref("param.project_id")),
                                  f"An open {w['issue']} with this title already exists in this project.")],
                   message=f"The {w['issue']} could not be created."),
        kit.marker("comment", [kit.param("issue_id", "integer"),
                               kit.param("body", "text", w["comment_box"], min_length=2, max_length=2000)],
                   [kit.effect("insert", "notes", "INSERT INTO notes (issue_id, author_id, body, created) "
                                                  "VALUES (:issue_id, :user_id, :body, :today)")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM issues WHERE id = :i)", i=ref("param.issue_id")),
                                  f"That {w['issue']} does not exist.")]),
        kit.marker("delete_comment", [kit.param("note_id", "integer")],
                   [kit.effect("delete", "notes", "DELETE FROM notes WHERE id = :note_id AND author_id = :user_id")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM notes WHERE id = :n AND author_id = :user_id)",
                                      n=ref("param.note_id")), "You can only delete your own comments.")],
                   irreversible=True),
        kit.marker("set_state", [kit.param("issue_id", "integer"), kit.param("state", "text", choices=["open", "closed"])],
                   [kit.effect("update", "issues", "UPDATE issues SET state = :state, closed_on = CASE :state WHEN "
                                                   "'closed' THEN :today END WHERE id = :issue_id AND state != :state")],
                   pre=[is_member, kit.check(sql("SELECT EXISTS (SELECT 1 FROM issues WHERE id = :i AND state != :s)",
                                                 i=ref("param.issue_id"), s=ref("param.state")),
                                             f"This {w['issue']} is already in that state.")]),
        kit.marker("assign_issue", [kit.param("issue_id", "integer"),
                                    kit.param("assignee_id", "integer", w["assignee"], required=False)],
                   [kit.effect("update", "issues", "UPDATE issues SET assignee_id = :assignee_id WHERE id = :issue_id")],
                   pre=[is_member, assignee_ok]),
        kit.marker("set_milestone", [kit.param("issue_id", "integer"),
                                     kit.param("milestone_id", "integer", w["milestone"], required=False)],
                   [kit.effect("update", "issues", "UPDATE issues SET milestone_id = :milestone_id WHERE id = :issue_id")],
                   pre=[is_member, kit.check(sql(
                       "SELECT :m IS NULL OR EXISTS (SELECT 1 FROM milestones m JOIN issues i ON i.project_id = "
                       "m.project_id WHERE i.id = :i AND m.id = :m AND m.state = 'active')",
                       m=ref("param.milestone_id"), i=ref("param.issue_id")),
                       "Only active milestones of this project can be set.")]),
        kit.marker("add_label", [kit.param("issue_id", "integer"), kit.param("label_id", "integer", w["label"])],
                   [kit.effect("insert", "issue_labels", "INSERT INTO issue_labels (issue_id, label_id) "
                                                         "VALUES (:issue_id, :label_id)")],
                   pre=[is_member, kit.check(sql("SELECT EXISTS (SELECT 1 FROM labels WHERE id = :l)",
                                                 l=ref("param.label_id")), f"That {w['label'].lower()} does not exist.")],
                   inv=[kit.check(sql("SELECT NOT EXISTS (SELECT 1 FROM issue_labels WHERE issue_id = :i "
                                      "GROUP BY label_id HAVING count(*) > 1)", i=ref("param.issue_id")),
                                  f"This {w['issue']} already has that {w['label'].lower()}.")]),
        kit.marker("remove_label", [kit.param("link_id", "integer")],
                   [kit.effect("delete", "issue_labels", "DELETE FROM issue_labels WHERE id = :link_id")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM issue_labels il JOIN issues i ON i.id = il.issue_id "
                                      "JOIN members m ON m.project_id = i.project_id WHERE il.id = :l AND "
                                      "m.user_id = :user_id)", l=ref("param.link_id")), not_member)]),
        kit.marker("merge_mr", [kit.param("mr_id", "integer")],
                   [kit.effect("update", "merge_requests", "UPDATE merge_requests SET state = 'merged', merged_on = :today "
                                                           "WHERE id = :mr_id AND state = 'open'")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM merge_requests r JOIN members m ON m.project_id = "
                                      "r.project_id WHERE r.id = :r AND m.user_id = :user_id AND m.role IN "
                                      "('Owner', 'Maintainer'))", r=ref("param.mr_id")),
                                  "Only maintainers of this project can merge."),
                        kit.check(sql("SELECT EXISTS (SELECT 1 FROM merge_requests WHERE id = :r AND state = 'open')",
                                      r=ref("param.mr_id")), f"Only open {w['mr']}s can be merged."),
                        kit.check(sql("SELECT EXISTS (SELECT 1 FROM merge_requests WHERE id = :r AND pipeline = 'passed')",
                                      r=ref("param.mr_id")), "The pipeline must pass before this can be merged.")],
                   irreversible=True),
        kit.marker("close_mr", [kit.param("mr_id", "integer")],
                   [kit.effect("update", "merge_requests", "UPDATE merge_requests SET state = 'closed', closed_on = :today "
                                                           "WHERE id = :mr_id AND state = 'open'")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM merge_requests r JOIN members m ON m.project_id = "
                                      "r.project_id WHERE r.id = :r AND m.user_id = :user_id AND r.state = 'open')",
                                      r=ref("param.mr_id")), f"Only members can close open {w['mr']}s.")],
                   irreversible=True),
        kit.marker("star", [kit.param("project_id", "integer")],
                   [kit.effect("insert", "stars", "INSERT INTO stars (user_id, project_id, created) "
                                                  "VALUES (:user_id, :project_id, :today)")],
                   inv=[kit.check(sql("SELECT NOT EXISTS (SELECT 1 FROM stars WHERE user_id = :user_id "
                                      "GROUP BY project_id HAVING count(*) > 1)"),
                                  "You have already starred this project.")]),
        kit.marker("unstar", [kit.param("project_id", "integer")],
                   [kit.effect("delete", "stars", "DELETE FROM stars WHERE user_id = :user_id AND project_id = :project_id")],
                   pre=[kit.check(sql("SELECT EXISTS (SELECT 1 FROM stars WHERE user_id = :user_id AND project_id = :p)",
                                      p=ref("param.project_id")), "You have not starred this project.")]),
    ]


# ============================================================================ pages


@dataclass
class _Ui:
    """The structural choices of one site (all drawn from the structure stream)."""

    site_name: str
    words: dict[str, str]
    listing: str
    mr_listing: str
    page_size: int
    project_page_size: int
    state_ui: str
    issue_ui: str
    project_nav: str
    search_in_header: bool
    projects_page: bool
    milestones_page: bool
    members_page: bool
    labels_page: bool
    dashboard: bool
    confirm_close: bool
    confirm_merge: bool
    confirm_delete: bool
    issue_sorts: list[tuple[str, str, str, str]]
    mr_sorts: list[tuple[str, str, str, str]]
    project_sorts: list[tuple[str, str, str, str]]
    filter_order: list[str]
    form_order: list[str]
    nav_style: str = "topbar"


def _ui(rng: random.Random, labels: Labels) -> _Ui:
    w = {concept: labels.pick(f"code_{concept}", options) for concept, options in WORDS.items()}
    w["issue"] = SINGULAR[w["issues"]]
    w["mr"] = SINGULAR[w["mrs"]]
    for concept in ("new_issue", "create", "title"):
        w[concept] = w[concept].format(issue=w["issue"], Issue=w["issue"].capitalize(),
                                       a="an" if w["issue"][0] in "aeiou" else "a")
    w["label"] = SINGULAR[w["labels"]]
    w["add_label"] = labels.pick("code_add_label", [f"Add {w['label'].lower()}", f"Apply {w['label'].lower()}"])
    w["close_mr"] = labels.pick("code_close_mr", [f"Close {w['mr']}", "Decline", "Close without merging"])
    w["prefix"] = "!" if w["mr"] == "merge request" else "#"
    w["open"], w["closed"], w["merged"] = "Open", "Closed", "Merged"
    issue_sorts = [("oldest", labels["oldest"], "created", "asc")] if rng.random() < 0.7 else []
    issue_sorts += rng.sample([("newest", labels["newest"], "created", "desc"), ("title", labels["name_asc"], "title", "asc"),
                               ("discussed", w["discussed"], "comments", "desc")], rng.randint(0, 2))
    mr_sorts = [("largest", w["largest"], "additions", "desc")] if rng.random() < 0.6 else []
    mr_sorts += [("oldest", labels["oldest"], "created", "asc")] if rng.random() < 0.5 else []
    project_sorts = rng.sample([("stars", w["stars_sort"], "stars", "desc"), ("updated", w["updated_sort"], "updated", "desc"),
                                ("name", labels["name_asc"], "path", "asc")], rng.randint(1, 3))
    listing = rng.choice(["list", "table"])
    return _Ui(site_name=rng.choice(SITE_NAMES), words=w, listing=listing,
               mr_listing=rng.choice(["list", "table"]),
               page_size=rng.choice([6, 8, 10] if listing == "table" else [8, 10, 12, 15]),
               project_page_size=rng.choice([5, 6, 8]), state_ui=rng.choice(["links", "select"]),
               issue_ui=rng.choice(["tabs", "collapsible", "dialog", "plain"]),
               project_nav=rng.choice(["plain", "menu", "sidebar"]), search_in_header=rng.random() < 0.6,
               projects_page=rng.random() < 0.5, milestones_page=rng.random() < 0.6, members_page=rng.random() < 0.5,
               labels_page=rng.random() < 0.4, dashboard=rng.random() < 0.6, confirm_close=rng.random() < 0.4,
               confirm_merge=rng.random() < 0.6, confirm_delete=rng.random() < 0.7, issue_sorts=issue_sorts,
               mr_sorts=mr_sorts, project_sorts=project_sorts,
               filter_order=rng.sample(["label", "assignee"], 2),
               form_order=["title"] + rng.sample(["description", "label", "assignee", "milestone"], 4))


def _bound(kind: str, name: str, q: Row, item: list[Row], columns: list[tuple[str, list[Row]]], *,
           page_size: int | None, sorts: list[tuple[str, str, str, str]] | None, empty: str) -> Row:
    if kind == "list":
        return kit.listing(name, q, item, page_size=page_size, sorts=sorts or None, empty=empty)
    return kit.table(name, q, columns, page_size=page_size, sorts=sorts or None, empty=empty)


def _pages(ui: _Ui, labels: Labels, chrome: Any, search_form: Row) -> list[Row]:
    w = ui.words
    crumbs = chrome.crumbs
    home_crumb = (labels["home"], "/")
    link = kit.link
    text = kit.text

    # ---------------------------------------------------------------- shared pieces
    issue_link = link("{row.title}", "/issues/{row.id}")
    issue_item = [issue_link, text(f"#{{row.number}} · {{row.state|title}} · opened {{row.created|date}} by {{row.author}} · "
                                   f"{w['assignee']}: {{row.assignee}} · {w['labels']}: {{row.labels}} · "
                                   "Bounty: {row.bounty_shown}")]
    issue_cols = [(w["issue"].capitalize(), [issue_link, text("#{row.number} · {row.state|title} · opened {row.created|date}")]),
                  (w["assignee"], [text("{row.assignee}")]), (w["labels"], [text("{row.labels}")]),
                  ("Bounty", [text("{row.bounty_shown}")])]

    def issues_list(name: str, q: Row, *, sorts: bool = True) -> Row:
        return _bound(ui.listing, name, q, issue_item, issue_cols, page_size=ui.page_size,
                      sorts=ui.issue_sorts if sorts else None, empty=f"No {w['issue']}s match.")

    mr_link = link("{row.title}", "/merge_requests/{row.id}")
    mr_item = [mr_link, text(f"{w['prefix']}{{row.number}} · {{row.source_branch}} → {{row.target_branch}} · "
                             "{row.state|title} · pipeline {row.pipeline} · +{row.additions} −{row.deletions} · "
                             "by {row.author}")]
    mr_cols = [(w["mr"].capitalize(), [mr_link, text(f"{w['prefix']}{{row.number}} · {{row.source_branch}} · "
                                                     "by {row.author}")]),
               (w["state"], [text("{row.state|title}")]), ("Pipeline", [text("{row.pipeline}")]),
               ("Changes", [text("+{row.additions} −{row.deletions}")])]

    def state_filter(route: str, states: list[str]) -> tuple[list[Row], list[Row], str]:
        """The state filter (links above the form, or a field of it) and the form's route."""
        if ui.state_ui == "links":
            links = [link(w["all"], route)] + [link(w[s], f"{route}?state={s}") for s in states]
            return [kit.section(links, role="navigation", label=w["state"])], [], route + "?state={query.state}"
        field = kit.select("state", w["state"], [("", w["all"])] + [(s, w[s]) for s in states], value=ref("query.state"))
        return [], [field], route

    def members_select(name: str, label: str, first: str, value: Any) -> Row:
        return kit.select(name, label, [("", first)], value=value, options_query={
            "query": kit.query("member_view", cond("project_id", ref("row.project_id")), order=[("name", "asc")]),
            "value": "user_id", "label": "name"})

    label_select = {"query": kit.query("labels", order=[("name", "asc")]), "value": "name", "label": "name"}

    # ---------------------------------------------------------------- home and projects
    project_link = link("{row.path}", "/projects/{row.id}")
    project_list = _bound(ui.listing, "projects", kit.query("project_view", order=[("path", "asc")]),
                          [project_link, text("{row.description} ★ {row.stars} · {row.language} · "
                                              "updated {row.updated|date}")],
                          [("Project", [project_link]), ("Stars", [text("{row.stars}")]),
                           ("Updated", [text("{row.updated|date}")])],
                          page_size=ui.project_page_size, sorts=ui.project_sorts, empty="No projects yet.")
    home = [kit.heading(f"Welcome to {ui.site_name}", 1), text("Today is {clock.today|date}.")]
    if not ui.search_in_header:
        home.append(search_form)
    pages: list[Row] = []
    if ui.projects_page:
        home += [kit.heading("Popular projects"), kit.listing(
            "popular", kit.query("project_view", order=[("stars", "desc"), ("path", "asc")], limit=4),
            [project_link, text("★ {row.stars}")])]
        pages.append(kit.page("projects", "/projects", w["projects_nav"], crumbs([home_crumb]) + [
            kit.heading(w["projects_nav"], 1), project_list]))
    else:
        home += [kit.heading("Projects"), project_list]
    pages.insert(0, kit.page("home", "/", ui.site_name, crumbs([]) + home))

    nav_links = [link(w["issues"], "/projects/{row.id}/issues"), link(w["mrs"], "/projects/{row.id}/merge_requests")]
    if ui.milestones_page:
        nav_links.append(link(w["milestones"], "/projects/{row.id}/milestones"))
    if ui.members_page:
        nav_links.append(link(w["members"], "/projects/{row.id}/members"))
    if ui.project_nav == "menu":
        project_nav = kit.menu("project_menu", "Project menu", nav_links)
    else:
        project_nav = kit.section(nav_links, role="navigation" if ui.project_nav == "plain" else "complementary",
                                  label="Project")
    star = kit.form(w["star"], kit.marker_action("star", {"project_id": ref("row.id")}, message="You starred this project."))
    unstar = kit.record(kit.query("stars", cond("project_id", ref("row.id")), cond("user_id", ref("user.id"))), [
        text("You have starred this project."), kit.form(w["unstar"], kit.marker_action("unstar", {"project_id": ref("row.project_id")},
                                                message="Star removed."))], "")
    project_record = kit.query("project_view", cond("id", ref("param.id")))
    pages.append(kit.page("project", "/projects/{id:int}", "Project", [kit.record(project_record, crumbs([home_crumb]) + [
        kit.heading("{row.path}", 1), text("{row.description}"),
        text("{row.language} · {row.visibility|title} · last activity {row.updated|date}"),
        text(f"★ {{row.stars}} stars · {{row.open_issues}} open {w['issue']}s · {{row.open_mrs}} open {w['mr']}s"),
        project_nav, star, unstar], "This project does not exist.")]))

    # ---------------------------------------------------------------- issue lists
    links, fields, route = state_filter("/projects/{row.id}/issues", ["open", "closed"])
    extra = {"label": kit.select("label", w["label"], [("", w["all"])], value=ref("query.label"), options_query=label_select),
             "assignee": kit.select("assignee", w["assignee"], [("", w["all"])], value=ref("query.assignee"), options_query={
                 "query": kit.query("member_view", cond("project_id", ref("row.id")), order=[("name", "asc")]),
                 "value": "user_id", "label": "name"})}
    issue_filter = kit.form(w["filter"], kit.navigate_action(route), fields + [extra[n] for n in ui.filter_order],
                            label=w["filter"])
    issue_query = kit.query("issue_view", cond("project_id", ref("param.id")),
                            cond("state", ref("query.state"), skip_if_empty=True),
                            cond("labels", ref("query.label"), "contains", skip_if_empty=True),
                            cond("assignee_id", ref("query.assignee"), skip_if_empty=True),
                            order=[("created", "desc"), ("id", "desc")])
    pages.append(kit.page("issues", "/projects/{id:int}/issues", w["issues"], [kit.record(project_record, crumbs(
        [home_crumb, ("{row.path}", "/projects/{row.id}")]) + [
        kit.heading(f"{{row.path}}: {w['issues']}", 1), link(w["new_issue"], "/projects/{row.id}/issues/new"),
        *links, issue_filter, issues_list("issues", issue_query)], "This project does not exist.")]))

    new_fields = {
        "title": kit.textbox("title", w["title"], required=True),
        "description": kit.textbox("description", w["description"], kind="textarea"),
        "label": kit.select("label", w["label"], [("", "None")], options_query={
            "query": kit.query("labels", order=[("name", "asc")]), "value": "id", "label": "name"}),
        "assignee": kit.select("assignee", w["assignee"], [("", "Unassigned")], options_query={
            "query": kit.query("member_view", cond("project_id", ref("row.id")), order=[("name", "asc")]),
            "value": "user_id", "label": "name"}),
        "milestone": kit.select("milestone", w["milestone"], [("", "No milestone")], options_query={
            "query": kit.query("milestones", cond("project_id", ref("row.id")), cond("state", "active"),
                               order=[("due", "asc")]), "value": "id", "label": "title"}),
    }
    create = kit.form(w["create"], kit.marker_action("create_issue", {
        "project_id": ref("row.id"), "title": ref("field.title"), "description": ref("field.description"),
        "label_id": ref("field.label"), "assignee_id": ref("field.assignee"), "milestone_id": ref("field.milestone")},
        redirect="/issues/{result.id}", message=f"The {w['issue']} was created."),
        [new_fields[n] for n in ui.form_order], label=w["new_issue"])
    pages.append(kit.page("new_issue", "/projects/{id:int}/issues/new", w["new_issue"], [kit.record(
        project_record, crumbs([home_crumb, ("{row.path}", "/projects/{row.id}")]) + [
            kit.heading(f"{w['new_issue']} in {{row.path}}", 1), create], "This project does not exist.")], login=True))

    # ---------------------------------------------------------------- one issue
    # one form whose button reads "close" or "reopen" (the view words it), so the page needs no extra query
    state_forms = [kit.form("{row.toggle}", kit.marker_action("set_state", {"issue_id": ref("row.id"),
                                                                            "state": ref("row.next_state")},
                                                              message=f"The {w['issue']} is now {{row.next_state}}."),
                            confirm=kit.confirm("{row.toggle}?", labels["confirm"], labels["cancel"])
                            if ui.confirm_close else None)]
    chips = kit.listing("chips", kit.query("issue_label_view", cond("issue_id", ref("row.id")), order=[("name", "asc")]),
                        [text("{row.name}"), kit.form(w["remove_label"], kit.marker_action(
                            "remove_label", {"link_id": ref("row.id")}, message=f"{w['label']} removed."))],
                        empty=f"No {w['labels'].lower()} yet.")
    edit_forms = [
        kit.form(w["assign"], kit.marker_action("assign_issue", {"issue_id": ref("row.id"),
                                                                 "assignee_id": ref("field.assignee")},
                                                message=f"{w['assignee']} updated."),
                 [members_select("assignee", w["assignee"], "Unassigned", ref("row.assignee_id"))], label=w["assignee"]),
        kit.form(w["set_milestone"], kit.marker_action("set_milestone", {"issue_id": ref("row.id"),
                                                                         "milestone_id": ref("field.milestone")},
                                                       message=f"{w['milestone']} updated."),
                 [kit.select("milestone", w["milestone"], [("", "No milestone")], value=ref("row.milestone_id"),
                             options_query={"query": kit.query("milestones", cond("project_id", ref("row.project_id")),
                                                               cond("state", "active"), order=[("due", "asc")]),
                                            "value": "id", "label": "title"})], label=w["milestone"]),
        kit.heading(w["labels"], 3), chips,
        kit.form(w["add_label"], kit.marker_action("add_label", {"issue_id": ref("row.id"), "label_id": ref("field.label")},
                                                   message=f"{w['label']} added."),
                 [kit.select("label", w["label"], [], options_query={
                     "query": kit.query("labels", order=[("name", "asc")]), "value": "id", "label": "name"})],
                 label=w["add_label"]),
    ]
    delete = kit.form(labels["delete"], kit.marker_action("delete_comment", {"note_id": ref("row.id")},
                                                          message="Comment deleted."),
                      confirm=kit.confirm("Delete this comment?", labels["confirm"], labels["cancel"])
                      if ui.confirm_delete else None)
    discussion = [
        kit.heading("Comments"),
        kit.listing("notes", kit.query("note_view", cond("issue_id", ref("row.id")), order=[("created", "asc"), ("id", "asc")]),
                    [text("{row.author} ({row.created|date}): {row.body}"),
                     kit.record(kit.query("notes", cond("id", ref("row.id")), cond("author_id", ref("user.id"))), [delete], "")],
                    empty="No comments yet."),
        kit.form(w["comment"], kit.marker_action("comment", {"issue_id": ref("row.id"), "body": ref("field.body")},
                                                 message="Your comment was added."),
                 [kit.textbox("body", w["comment_box"], kind="textarea", required=True)], label=w["comment"]),
    ]
    head = [kit.heading("{row.title}", 1),
            text(f"#{{row.number}} · {{row.state|title}} · opened {{row.created|date}} by {{row.author}}"),
            *([] if chrome.breadcrumbs else [link("{row.project}", "/projects/{row.project_id}")]),
            text(f"{w['assignee']}: {{row.assignee}}"), text(f"{w['milestone']}: {{row.milestone}}"),
            text(f"{w['labels']}: {{row.labels}}"), text("Bounty: {row.bounty_shown}"), text("{row.description}"),
            *state_forms]
    if ui.issue_ui == "tabs":
        body = head + [kit.tabs("issue_tabs", [(w["tab_discussion"], discussion), (w["tab_manage"], edit_forms)])]
    elif ui.issue_ui == "collapsible":
        body = head + [kit.collapsible("issue_edit", w["edit"], edit_forms)] + discussion
    elif ui.issue_ui == "dialog":
        body = head + [kit.button(w["edit"], "issue_edit", "open"), kit.dialog(
            "issue_edit", w["edit"], edit_forms + [kit.button("Done", "issue_edit", "close")])] + discussion
    else:
        body = head + [kit.section(edit_forms, role="complementary", label=w["tab_manage"])] + discussion
    pages.append(kit.page("issue", "/issues/{id:int}", w["issue"].capitalize(), [kit.record(
        kit.query("issue_view", cond("id", ref("param.id"))),
        crumbs([home_crumb, ("{row.project}", "/projects/{row.project_id}"),
                (w["issues"], "/projects/{row.project_id}/issues")]) + body, f"This {w['issue']} does not exist.")]))

    # ---------------------------------------------------------------- merge requests
    links, fields, route = state_filter("/projects/{row.id}/merge_requests", ["open", "merged", "closed"])
    author = kit.select("author", w["author"], [("", w["all"])], value=ref("query.author"), options_query={
        "query": kit.query("member_view", cond("project_id", ref("row.id")), order=[("name", "asc")]),
        "value": "user_id", "label": "name"})
    mr_query = kit.query("mr_view", cond("project_id", ref("param.id")), cond("state", ref("query.state"), skip_if_empty=True),
                         cond("author_id", ref("query.author"), skip_if_empty=True), order=[("created", "desc"), ("id", "desc")])
    pages.append(kit.page("merge_requests", "/projects/{id:int}/merge_requests", w["mrs"], [kit.record(project_record, crumbs(
        [home_crumb, ("{row.path}", "/projects/{row.id}")]) + [
        kit.heading(f"{{row.path}}: {w['mrs']}", 1), *links,
        kit.form(w["filter"], kit.navigate_action(route), fields + [author], label=w["filter"]),
        _bound(ui.mr_listing, "mrs", mr_query, mr_item, mr_cols, page_size=ui.page_size, sorts=ui.mr_sorts,
               empty=f"No {w['mr']}s match.")], "This project does not exist.")]))
    confirm_merge = kit.confirm(f"Merge this {w['mr']}?", labels["confirm"], labels["cancel"],
                                body="Merging cannot be undone.") if ui.confirm_merge else None
    pages.append(kit.page("merge_request", "/merge_requests/{id:int}", w["mr"].capitalize(), [kit.record(
        kit.query("mr_view", cond("id", ref("param.id"))),
        crumbs([home_crumb, ("{row.project}", "/projects/{row.project_id}"),
                (w["mrs"], "/projects/{row.project_id}/merge_requests")]) + [
            kit.heading("{row.title}", 1),
            text(f"{w['prefix']}{{row.number}} · {{row.state|title}} · {{row.source_branch}} → {{row.target_branch}}"),
            *([] if chrome.breadcrumbs else [link("{row.project}", "/projects/{row.project_id}")]),
            text("Opened by {row.author} on {row.created|date} · Reviewer: {row.reviewer}"),
            text("Pipeline: {row.pipeline}"), text("Changes: +{row.additions} −{row.deletions}"),
            kit.record(kit.query("merge_requests", cond("id", ref("row.id")), cond("state", "merged")),
                       [text("Merged on {row.merged_on|date}")], ""),
            kit.record(kit.query("merge_requests", cond("id", ref("row.id")), cond("state", "closed")),
                       [text("Closed on {row.closed_on|date}")], ""),
            kit.record(kit.query("merge_requests", cond("id", ref("row.id")), cond("state", "open")), [
                kit.form(w["merge"], kit.marker_action("merge_mr", {"mr_id": ref("row.id")}, message="Merged."),
                         confirm=confirm_merge),
                kit.form(w["close_mr"], kit.marker_action("close_mr", {"mr_id": ref("row.id")},
                                                          message=f"The {w['mr']} was closed."),
                         confirm=kit.confirm(f"Close this {w['mr']} without merging?", labels["confirm"],
                                             labels["cancel"]) if ui.confirm_merge else None)], "")],
        f"This {w['mr']} does not exist.")]))

    # ---------------------------------------------------------------- search and optional pages
    pages.append(kit.page("search", "/search", f"{labels['search']}: {{query.q}}", [
        kit.heading(labels["search"], 1), *([] if ui.search_in_header else [search_form]),
        kit.heading(w["issues"]),
        kit.listing("issues", kit.query("issue_search", cond("title", ref("query.q"), "contains"),
                                        order=[("created", "desc"), ("id", "desc")]),
                    [issue_link, text("{row.project} #{row.number} · {row.state|title} · opened {row.created|date}")],
                    page_size=ui.page_size, empty=f"No {w['issue']}s match."),
        kit.heading(w["mrs"]),
        kit.listing("mrs", kit.query("mr_search", cond("title", ref("query.q"), "contains"),
                                     order=[("created", "desc"), ("id", "desc")], limit=10),
                    [mr_link, text(f"{{row.project}} {w['prefix']}{{row.number}} · {{row.state|title}}")],
                    empty=f"No {w['mr']}s match."),
        text(f"Showing at most 10 {w['mr']}s: search for more words to narrow them down.")]))
    if ui.milestones_page:
        ms_link = link("{row.title}", "/milestones/{row.id}")
        pages.append(kit.page("milestones", "/projects/{id:int}/milestones", w["milestones"], [kit.record(
            project_record, crumbs([home_crumb, ("{row.path}", "/projects/{row.id}")]) + [
                kit.heading(f"{{row.path}}: {w['milestones']}", 1),
                kit.table("milestones", kit.query("milestone_view", cond("project_id", ref("param.id")),
                                                  order=[("due", "asc"), ("id", "asc")]),
                          [(w["milestone"], [ms_link]), ("Due", [text("{row.due|date}")]),
                           (w["state"], [text("{row.state|title}")]), ("Open", [text("{row.open_issues}")]),
                           ("Closed", [text("{row.closed_issues}")])], empty="No milestones.")],
            "This project does not exist.")]))
        pages.append(kit.page("milestone", "/milestones/{id:int}", w["milestone"], [kit.record(
            kit.query("milestone_view", cond("id", ref("param.id"))),
            crumbs([home_crumb, ("{row.project}", "/projects/{row.project_id}")]) + [
                kit.heading("{row.title}", 1), text("{row.project} · due {row.due|date} · {row.state|title}"),
                text(f"{{row.open_issues}} open and {{row.closed_issues}} closed {w['issue']}s"),
                issues_list("issues", kit.query("issue_view", cond("milestone_id", ref("row.id")),
                                                order=[("created", "desc"), ("id", "desc")]), sorts=False)],
            "This milestone does not exist.")]))
    if ui.members_page:
        pages.append(kit.page("members", "/projects/{id:int}/members", w["members"], [kit.record(
            project_record, crumbs([home_crumb, ("{row.path}", "/projects/{row.id}")]) + [
                kit.heading(f"{{row.path}}: {w['members']}", 1),
                kit.table("members", kit.query("member_view", cond("project_id", ref("param.id")), order=[("name", "asc")]),
                          [("Name", [text("{row.name}")]), (labels["username"], [text("@{row.username}")]),
                           ("Role", [text("{row.role}")])])], "This project does not exist.")]))
    if ui.labels_page:
        pages.append(kit.page("labels", "/labels", w["labels"], [
            kit.heading(w["labels"], 1),
            kit.table("labels", kit.query("label_view", order=[("name", "asc")]),
                      [(w["label"], [text("{row.name}")]), ("Colour", [text("{row.color}")]),
                       (f"Open {w['issue']}s", [text("{row.open_issues}")])])]))
    if ui.dashboard:
        pages.append(kit.page("dashboard", "/dashboard", w["dashboard"], [
            kit.heading(w["dashboard"], 1), text(f"Open {w['issue']}s assigned to {{user.name}}."),
            issues_list("issues", kit.query("issue_view", cond("assignee_id", ref("user.id")), cond("state", "open"),
                                            order=[("created", "desc"), ("id", "desc")]), sorts=False)], login=True))
    pages.append(login_page(labels, f"Sign in to {ui.site_name} to report {w['issue']}s, comment and merge."))
    pages += chrome.pages
    return pages


def build(streams: Streams) -> Draft:
    """Build one code host (see the module docstring)."""
    srng, crng, trng = streams.structure, streams.content, streams.tasks
    labels = Labels(srng)
    ui = _ui(srng, labels)
    w = ui.words
    nav = [(labels["home"], "/")]
    if ui.projects_page:
        nav.append((w["projects_nav"], "/projects"))
    if ui.dashboard:
        nav.append((w["dashboard"], "/dashboard"))
    if ui.labels_page:
        nav.append((w["labels"], "/labels"))
    chrome = build_chrome(srng, labels, ui.site_name, nav)
    ui.nav_style = chrome.nav_style
    search_form = kit.form(labels["search"], kit.navigate_action("/search"),
                           [kit.textbox("q", labels["search_box"], value=ref("query.q"))], label=labels["search"])
    header = list(chrome.layout["header"])
    if ui.search_in_header:
        header.append(kit.section([search_form], role="search"))
    data = _content(crng)
    site = {"name": ui.site_name, "description": f"{ui.site_name}, a code host with {len(data.projects)} projects.",
            "clock": {"today": TODAY.isoformat()},
            "auth": {"table": "users", "username_column": "username", "password_column": "password",
                     "name_column": "name", "login_page": "/login"},
            "database": _schema(data, w), "markers": _markers(w),
            "layout": {"header": header, "footer": chrome.layout["footer"]},
            "pages": _pages(ui, labels, chrome, search_form)}
    ctx = _Ctx(trng, labels, ui, data)
    ctx.start_pages = [p["route"] for p in chrome.pages] + ["/search"] + (["/projects"] if ui.projects_page else []) + (
        ["/labels"] if ui.labels_page else [])
    return Draft(site=site, tasks=_tasks(ctx))


# ============================================================================ plans


class _Ctx:
    """What the task families know about the site: its records, its wording and its structure."""

    def __init__(self, rng: random.Random, labels: Labels, ui: _Ui, data: _Data) -> None:
        self.rng, self.labels, self.ui, self.data = rng, labels, ui, data
        self.w = ui.words
        self.projects_sorted = sorted(data.projects, key=lambda p: (p["path"], p["id"]))
        self.start_pages: list[str] = []
        stars = {p["id"]: 0 for p in data.projects}
        for star in data.stars:
            stars[star["project_id"]] += 1
        self.popular = sorted(data.projects, key=lambda p: (-stars[p["id"]], p["path"]))[:4]
        """The home page's popular projects (on sites with a projects page)."""

    # ---------------------------------------------------------------- cost
    def cost(self, plan: list[Step]) -> int:
        """Plan steps plus the widget openers the certificate will need."""
        hidden = {self.w["issues"], self.w["mrs"], self.w["milestones"], self.w["members"]} \
            if self.ui.project_nav == "menu" else set()
        if self.ui.nav_style == "menu":
            hidden |= {self.w["projects_nav"], self.w["dashboard"]}
        if self.ui.nav_style in ("topbar", "split"):
            hidden.add(self.labels["login"])
        return len(plan) + sum(1 for s in plan if s[0] == "click" and s[1] == "link" and s[2] in hidden)

    def fits(self, plan: list[Step]) -> bool:
        return self.cost(plan) <= MAX_STEPS

    # ---------------------------------------------------------------- navigation
    def to_project(self, project: Row) -> list[Step]:
        """From the home page to a project's page."""
        if self.ui.projects_page and project in self.popular and self.rng.random() < 0.5:
            return [("click", "link", project["path"])]  # from the home page's popular projects
        plan: list[Step] = [("click", "link", self.w["projects_nav"])] if self.ui.projects_page else []
        name_sort = next((s for s in self.ui.project_sorts if s[0] == "name"), None)
        if name_sort is not None and self.rng.random() < 0.3:  # sorted by name: the default order, made sure of
            plan.append(("click", "link", name_sort[1]))
        position = self.projects_sorted.index(project)
        return plan + next_pages(position, self.ui.project_page_size) + [("click", "link", project["path"])]

    def to_issues(self, project: Row) -> list[Step]:
        return self.to_project(project) + [("click", "link", self.w["issues"])]

    def to_mrs(self, project: Row) -> list[Step]:
        return self.to_project(project) + [("click", "link", self.w["mrs"])]

    def filter(self, state: str | None = None, **selects: str) -> list[Step]:
        """Steps that filter an issue or merge-request list."""
        plan: list[Step] = []
        if state and self.ui.state_ui == "links":
            plan.append(("click", "link", self.w[state]))
        elif state:
            plan.append(("select", self.w["state"], self.w[state]))
        plan += [("select", self.w[name], value) for name, value in selects.items()]
        if selects or (state and self.ui.state_ui == "select"):
            plan.append(("click", "button", self.w["filter"]))
        return plan

    def search(self, title: str, *, at_home: bool, mrs: bool = False) -> list[Step] | None:
        """Steps that find an issue (or merge request) and open it: by searching for its title or,
        now and then, by browsing its project's list (filtered by its state or not)."""
        if self.rng.random() < 0.4:
            browse = self.browse(title, at_home=at_home, mrs=mrs)
            if browse is not None:
                return browse
        plan: list[Step] = [] if self.ui.search_in_header or at_home else [("click", "link", self.ui.site_name)]
        words = title.split()
        query = " ".join(words[1:]) if len(words) > 4 and self.rng.random() < 0.4 else title
        issues = [i["title"] for i in self.data.newest if query.lower() in i["title"].lower()]
        if mrs:
            found = [r["title"] for r in self.data.mrs_newest if query.lower() in r["title"].lower()]
            if found.index(title) >= 10:
                return None
            pages: list[Step] = []
        else:
            if issues.index(title) >= 2 * self.ui.page_size:
                return None
            pages = next_pages(issues.index(title), self.ui.page_size)
        return plan + [("fill", "textbox", self.labels["search_box"], query), ("click", "button", self.labels["search"]),
                       *pages, ("click", "link", title)]

    def browse(self, title: str, *, at_home: bool, mrs: bool = False) -> list[Step] | None:
        """Steps that open an issue (or merge request) from its project's list, newest first,
        filtered by its state or not; ``None`` when it sits more than three pages in."""
        rows = self.data.mrs if mrs else self.data.issues
        row = next(r for r in rows if r["title"] == title)
        project = next(p for p in self.data.projects if p["id"] == row["project_id"])
        state = self.rng.choice([None, row["state"]])
        listed = self.data.mrs_of(project) if mrs else self.data.issues_of(project)
        shown = [r for r in listed if state is None or r["state"] == state]
        position = shown.index(row)
        if position // self.ui.page_size > 2:
            return None
        home: list[Step] = [] if at_home else [("click", "link", self.ui.site_name)]
        to_list = self.to_mrs(project) if mrs else self.to_issues(project)
        return home + to_list + self.filter(state) + next_pages(position, self.ui.page_size) + [("click", "link", title)]

    def open_edit(self) -> list[Step]:
        """Steps that reveal an issue's edit controls."""
        return {"tabs": [("click", "tab", self.w["tab_manage"])], "collapsible": [("click", "button", self.w["edit"])],
                "dialog": [("click", "button", self.w["edit"])], "plain": []}[self.ui.issue_ui]

    def confirm(self, needed: bool) -> list[Step]:
        return [("click", "button", self.labels["confirm"])] if needed else []

    def project_q(self) -> Row:
        return kit.scalar("projects", "id", cond("path", ref("slot.project")))

    def issue_q(self, slot: str = "title") -> Row:
        return kit.scalar("issues", "id", cond("title", ref(f"slot.{slot}")))

    def label_q(self, slot: str = "label") -> Row:
        return kit.scalar("labels", "id", cond("name", ref(f"slot.{slot}")))

    def user_q(self, slot: str) -> Row:
        return kit.scalar("users", "id", cond("name", ref(f"slot.{slot}")))

    def member(self, project: Row, roles: tuple[str, ...] = ("Owner", "Maintainer", "Developer")) -> Row | None:
        people = self.data.members_of(project, roles)
        return self.rng.choice(people) if people else None


def _day_text(iso: str) -> str:
    day = dt.date.fromisoformat(iso)
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def _as_user(ctx: _Ctx, user: Row, phrasings: list[str], slots: Row, plan: list[Step], *,
             chance: float = 0.6) -> tuple[list[str], Row, list[Step], Row]:
    """Who does the task (see :func:`veriweb.generate.tasks.as_user`); a log-in must fit the budget."""
    return as_user(ctx, user, phrasings, slots, plan, chance=chance, fits=ctx.fits)


def _seen(what: str, predicate: Row) -> Row:
    """A progress subgoal of a retrieve task: the page that holds the answer is open."""
    return {"description": f"on {what}", "predicate": predicate}


def _task(ctx: _Ctx, task_id: str, family: str, kind: str, phrasings: list[str], slots: Row, plan: list[Step],
          **fields: Any) -> TaskDraft | None:
    if not ctx.fits(plan):
        return None
    return make_task(ctx, task_id, family, kind, phrasings, slots, plan, **fields)


# ============================================================================ task families


def _nav_filtered(ctx: _Ctx) -> TaskDraft | None:
    """Navigate: the oldest open issue with a label in a project (filter- and sort-dependent)."""
    d, w = ctx.data, ctx.w
    for _ in range(30):
        project, label = ctx.rng.choice(d.projects), ctx.rng.choice(d.labels)["name"]
        found = [i for i in d.issues_of(project) if i["state"] == "open" and label in d.ilabels[i["id"]]]
        if len(found) < 2:
            continue
        oldest = min(found, key=lambda i: (i["created"], i["id"]))
        if sum(1 for i in found if i["created"] == oldest["created"]) > 1:
            continue
        plan = ctx.to_issues(project) + ctx.filter("open", label=label)
        sort = next((s for s in ctx.ui.issue_sorts if s[0] == "oldest"), None)
        plan += [("click", "link", sort[1])] if sort else next_pages(found.index(oldest), ctx.ui.page_size)
        target = kit.scalar("issue_view", "id", cond("project_id", ctx.project_q()), cond("state", "open"),
                            cond("labels", ref("slot.label"), "contains"), order=[("created", "asc"), ("id", "asc")])
        return _task(ctx, "oldest_labelled", "navigate_filtered", "navigate",
                     [f"Open the oldest open {w['issue']} labelled {{label}} in {{project}}.",
                      f"In {{project}}, go to the open {{label}} {w['issue']} that was reported first.",
                      f"Find the longest-waiting open {w['issue']} with the label \"{{label}}\" in the {{project}} project."],
                     {"label": label, "project": project["path"]}, plan + [("click", "link", oldest["title"])],
                     goal=[kit.on_page("issue", id=target)],
                     progress=[{"description": "on the oldest matching issue", "predicate": kit.on_page("issue", id=target)}])
    return None


def _nav_second(ctx: _Ctx) -> TaskDraft | None:
    """Navigate: a merge request by its branch, or a milestone's page."""
    d, w = ctx.data, ctx.w
    if ctx.ui.milestones_page and ctx.rng.random() < 0.65:
        milestone = ctx.rng.choice(d.milestones)
        project = next(p for p in d.projects if p["id"] == milestone["project_id"])
        target = kit.scalar("milestones", "id", cond("project_id", ctx.project_q()), cond("title", ref("slot.milestone")))
        return _task(ctx, "milestone_page", "navigate_milestone", "navigate",
                     ["Show me the milestone {milestone} of {project}.",
                      f"Open the page of milestone {{milestone}} in {{project}} to see its {w['issue']}s."],
                     {"milestone": milestone["title"], "project": project["path"]},
                     ctx.to_project(project) + [("click", "link", w["milestones"]), ("click", "link", milestone["title"])],
                     goal=[kit.on_page("milestone", id=target)],
                     progress=[{"description": "on the milestone's page", "predicate": kit.on_page("milestone", id=target)}])
    mr = ctx.rng.choice(d.mrs)
    project = next(p for p in d.projects if p["id"] == mr["project_id"])
    same = [r for r in d.mrs_of(project) if r["state"] == mr["state"]]
    target = kit.scalar("merge_requests", "id", cond("project_id", ctx.project_q()), cond("source_branch", ref("slot.branch")))
    return _task(ctx, "mr_by_branch", "navigate_branch", "navigate",
                 [f"Open the {w['mr']} for the branch {{branch}} in {{project}}.",
                  f"Go to the {w['mr']} of {{project}} whose source branch is {{branch}}."],
                 {"branch": mr["source_branch"], "project": project["path"]},
                 ctx.to_mrs(project) + ctx.filter(mr["state"]) + next_pages(same.index(mr), ctx.ui.page_size)
                 + [("click", "link", mr["title"])],
                 goal=[kit.on_page("merge_request", id=target)],
                 progress=[{"description": "on the merge request", "predicate": kit.on_page("merge_request", id=target)}])


def _count_labelled(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, number: how many issues of a project with a label and state (filter, every page)."""
    d, w = ctx.data, ctx.w
    for _ in range(30):
        project, label = ctx.rng.choice(d.projects), ctx.rng.choice(d.labels)["name"]
        state = ctx.rng.choice(["open", "open", "closed"])
        found = [i for i in d.issues_of(project) if i["state"] == state and label in d.ilabels[i["id"]]]
        if not 2 <= len(found) <= 3 * ctx.ui.page_size:
            continue
        plan = ctx.to_issues(project) + ctx.filter(state, label=label) + all_pages(len(found), ctx.ui.page_size)
        return _task(ctx, "count_labelled", "retrieve_count", "retrieve",
                     [f"How many {{state}} {w['issue']}s in {{project}} are labelled {{label}}?",
                      f"Count the {{state}} {w['issue']}s with the label \"{{label}}\" in {{project}}.",
                      f"What is the number of {{state}} {{label}} {w['issue']}s in the {{project}} project?"],
                     {"state": state, "label": label, "project": project["path"]}, plan + [("send", str(len(found)))],
                     progress=[_seen("the project's issue list", kit.on_page("issues", id=ctx.project_q()))],
                     answer={"type": "number", "value": kit.scalar(
                         "issue_view", "*", cond("project_id", ctx.project_q()), cond("state", ref("slot.state")),
                         cond("labels", ref("slot.label"), "contains"), agg="count")})
    return None


def _lookup(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, text or date: an issue's assignee, a merge date, or a milestone's due date."""
    d, w = ctx.data, ctx.w
    choice = ctx.rng.choice(["assignee", "author", "reviewer", "milestone_of", "merged", "merged"]
                            + (["due", "due"] if ctx.ui.milestones_page else []))
    if choice in ("author", "reviewer"):
        mr = ctx.rng.choice(d.mrs)
        # the author is read in the project's list ("by ..."): the page gives the name in a sentence with a date
        plan = ctx.browse(mr["title"], at_home=True, mrs=True) if choice == "author" else ctx.search(
            mr["title"], at_home=True, mrs=True)
        if plan is None:
            return None
        if choice == "author":
            plan = plan[:-1]
        person = d.user[mr["author_id" if choice == "author" else "reviewer_id"]]["name"]
        phrasings = ([f"Who opened the {w['mr']} \"{{title}}\"?", f"Who is the author of \"{{title}}\"?"]
                     if choice == "author" else
                     [f"Who is the reviewer of the {w['mr']} \"{{title}}\"?", f"Tell me who reviews \"{{title}}\"."])
        seen = (_seen("the project's merge requests", kit.on_page("merge_requests", id=kit.scalar(
            "merge_requests", "project_id", cond("title", ref("slot.title"))))) if choice == "author" else
            _seen("the merge request", kit.on_page(
                "merge_request", id=kit.scalar("merge_requests", "id", cond("title", ref("slot.title"))))))
        return _task(ctx, f"mr_{choice}", "retrieve_lookup", "retrieve", phrasings, {"title": mr["title"]},
                     plan + [("send", person)], progress=[seen],
                     answer={"type": "text", "value": kit.scalar("mr_view", choice, cond("title", ref("slot.title"))),
                             "candidates": kit.scalar("users", "name")["query"]})
    if choice == "milestone_of":
        issue = ctx.rng.choice([i for i in d.issues if i["milestone_id"] is not None])
        plan = ctx.search(issue["title"], at_home=True)
        if plan is None:
            return None
        title = next(m["title"] for m in d.milestones if m["id"] == issue["milestone_id"])
        return _task(ctx, "milestone_of", "retrieve_lookup", "retrieve",
                     [f"Which milestone is the {w['issue']} \"{{title}}\" planned for?",
                      f"Tell me the milestone of \"{{title}}\"."], {"title": issue["title"]}, plan + [("send", title)],
                     progress=[_seen("the issue", kit.on_page("issue", id=ctx.issue_q()))],
                     answer={"type": "text", "value": kit.scalar("issue_view", "milestone", cond("title", ref("slot.title"))),
                             "candidates": kit.scalar("milestones", "title")["query"]})
    if choice == "assignee":
        issue = ctx.rng.choice([i for i in d.issues if i["assignee_id"] is not None])
        plan = ctx.search(issue["title"], at_home=True)
        if plan is None:
            return None
        name = d.user[issue["assignee_id"]]["name"]
        return _task(ctx, "assignee_of", "retrieve_lookup", "retrieve",
                     [f"Who is assigned to the {w['issue']} \"{{title}}\"?",
                      f"Tell me who is responsible for the {w['issue']} \"{{title}}\".",
                      f"Which person is the assignee of \"{{title}}\"?"],
                     {"title": issue["title"]}, plan + [("send", name)],
                     progress=[_seen("the issue", kit.on_page("issue", id=ctx.issue_q()))],
                     answer={"type": "text", "value": kit.scalar("issue_view", "assignee", cond("title", ref("slot.title"))),
                             "candidates": kit.scalar("users", "name")["query"]})
    if choice == "merged":
        mr = ctx.rng.choice([r for r in d.mrs if r["state"] == "merged"])
        plan = ctx.search(mr["title"], at_home=True, mrs=True)
        if plan is None:
            return None
        return _task(ctx, "merged_on", "retrieve_date", "retrieve",
                     [f"On what date was the {w['mr']} \"{{title}}\" merged?",
                      f"When did \"{{title}}\" get merged?"],
                     {"title": mr["title"]}, plan + [("send", _day_text(mr["merged_on"]))],
                     progress=[_seen("the merge request", kit.on_page(
                         "merge_request", id=kit.scalar("merge_requests", "id", cond("title", ref("slot.title")))))],
                     answer={"type": "date", "value": kit.scalar("merge_requests", "merged_on",
                                                                 cond("title", ref("slot.title")))})
    milestone = ctx.rng.choice(d.milestones)
    project = next(p for p in d.projects if p["id"] == milestone["project_id"])
    return _task(ctx, "milestone_due", "retrieve_date", "retrieve",
                 ["When is the milestone {milestone} of {project} due?",
                  "What is the due date of {project}'s milestone {milestone}?"],
                 {"milestone": milestone["title"], "project": project["path"]},
                 ctx.to_project(project) + [("click", "link", w["milestones"]), ("send", _day_text(milestone["due"]))],
                 progress=[_seen("the project's milestones", kit.on_page("milestones", id=ctx.project_q()))],
                 answer={"type": "date", "value": kit.scalar("milestones", "due", cond("project_id", ctx.project_q()),
                                                             cond("title", ref("slot.milestone")))})


def _largest_mr(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, text: the open merge request of a project that adds the most lines (sort or scan)."""
    d, w = ctx.data, ctx.w
    for _ in range(20):
        project = ctx.rng.choice(d.projects)
        found = [r for r in d.mrs_of(project) if r["state"] == "open"]
        if len(found) < 3:
            continue
        best = max(found, key=lambda r: r["additions"])
        if sum(1 for r in found if r["additions"] == best["additions"]) > 1:
            continue
        plan = ctx.to_mrs(project) + ctx.filter("open")
        sort = next((s for s in ctx.ui.mr_sorts if s[0] == "largest"), None)
        plan += [("click", "link", sort[1])] if sort else all_pages(len(found), ctx.ui.page_size)
        return _task(ctx, "largest_mr", "retrieve_extreme", "retrieve",
                     [f"Which open {w['mr']} in {{project}} adds the most lines?",
                      f"Name the open {w['mr']} of {{project}} with the largest number of added lines."],
                     {"project": project["path"]}, plan + [("send", best["title"])],
                     progress=[_seen("the project's merge requests", kit.on_page("merge_requests", id=ctx.project_q()))],
                     answer={"type": "text", "value": kit.scalar("merge_requests", "title", cond("project_id", ctx.project_q()),
                                                                 cond("state", "open"), order=[("additions", "desc")]),
                             "candidates": kit.scalar("merge_requests", "title", cond("project_id", ctx.project_q()))["query"]})
    return None


def _labels_of(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, list: the labels of an issue, the open merge requests of a project, the members
    of a project with a role (on sites with member pages), or a project's active milestones."""
    d, w = ctx.data, ctx.w
    ways = ["labels", "labels", "open_mrs"] + (["members"] if ctx.ui.members_page else []) + (
        ["milestones"] if ctx.ui.milestones_page else [])
    way = ctx.rng.choice(ways)
    if way == "open_mrs":
        for _ in range(20):
            project = ctx.rng.choice(d.projects)
            found = [r for r in d.mrs_of(project) if r["state"] == "open"]
            if not 2 <= len(found) <= min(4, ctx.ui.page_size):
                continue
            return _task(ctx, "open_mrs_of", "retrieve_list", "retrieve",
                         [f"List the open {w['mr']}s of {{project}}.",
                          f"Which {w['mr']}s are still open in {{project}}? Give me their titles."],
                         {"project": project["path"]},
                         ctx.to_mrs(project) + ctx.filter("open") + [("send", "; ".join(r["title"] for r in found))],
                         progress=[_seen("the project's merge requests", kit.on_page("merge_requests", id=ctx.project_q()))],
                         answer={"type": "list", "list_query": kit.scalar(
                             "merge_requests", "title", cond("project_id", ctx.project_q()), cond("state", "open"))["query"]})
        return None
    if way == "members":
        for _ in range(20):
            project = ctx.rng.choice(d.projects)
            role = ctx.rng.choice(["Developer", "Reporter"])
            people = d.members_of(project, (role,))
            if len(people) < 2:
                continue
            return _task(ctx, "members_with_role", "retrieve_list", "retrieve",
                         [f"Who are the {role.lower()}s of {{project}}?", f"List the people with the role {role} in {{project}}."],
                         {"project": project["path"]},
                         ctx.to_project(project) + [("click", "link", w["members"]),
                                                    ("send", ", ".join(u["name"] for u in people))],
                         progress=[_seen("the project's members", kit.on_page("members", id=ctx.project_q()))],
                         answer={"type": "list", "list_query": kit.scalar(
                             "member_view", "name", cond("project_id", ctx.project_q()), cond("role", role))["query"]})
        return None
    if way == "milestones":
        for _ in range(20):
            project = ctx.rng.choice(d.projects)
            active = [m for m in d.milestones if m["project_id"] == project["id"] and m["state"] == "active"]
            if len(active) < 2:
                continue
            return _task(ctx, "active_milestones", "retrieve_list", "retrieve",
                         ["Which milestones of {project} are still active?", "List the active milestones of {project}."],
                         {"project": project["path"]},
                         ctx.to_project(project) + [("click", "link", w["milestones"]),
                                                    ("send", ", ".join(m["title"] for m in active))],
                         progress=[_seen("the project's milestones", kit.on_page("milestones", id=ctx.project_q()))],
                         answer={"type": "list", "list_query": kit.scalar(
                             "milestones", "title", cond("project_id", ctx.project_q()), cond("state", "active"))["query"]})
        return None
    issue = ctx.rng.choice([i for i in d.issues if len(d.ilabels[i["id"]]) >= 2])
    plan = ctx.search(issue["title"], at_home=True)
    if plan is None:
        return None
    return _task(ctx, "labels_of", "retrieve_list", "retrieve",
                 [f"Which {w['labels'].lower()} does the {w['issue']} \"{{title}}\" have?",
                  f"List every {w['label'].lower()} on \"{{title}}\"."],
                 {"title": issue["title"]}, plan + [("send", ", ".join(d.ilabels[issue["id"]]))],
                 progress=[_seen("the issue", kit.on_page("issue", id=ctx.issue_q()))],
                 answer={"type": "list", "list_query": kit.scalar("issue_label_view", "name",
                                                                  cond("issue_id", ctx.issue_q()))["query"]})


def _bounty_total(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, currency: the total bounty on a project's open issues with a label."""
    d, w = ctx.data, ctx.w
    for _ in range(40):
        project, label = ctx.rng.choice(d.projects), ctx.rng.choice(d.labels)["name"]
        found = [i for i in d.issues_of(project) if i["state"] == "open" and label in d.ilabels[i["id"]]]
        if sum(1 for i in found if i["bounty"]) < 1 or len(found) > 2 * ctx.ui.page_size:
            continue
        total = sum(i["bounty"] for i in found)
        plan = ctx.to_issues(project) + ctx.filter("open", label=label) + all_pages(len(found), ctx.ui.page_size)
        return _task(ctx, "bounty_total", "retrieve_sum", "retrieve",
                     [f"What is the total bounty on open {w['issue']}s labelled {{label}} in {{project}}?",
                      f"Add up the bounties of the open {{label}} {w['issue']}s in {{project}}: how much is it?"],
                     {"label": label, "project": project["path"]}, plan + [("send", f"${total / 100:,.2f}")],
                     progress=[_seen("the project's issue list", kit.on_page("issues", id=ctx.project_q()))],
                     answer={"type": "currency", "value": kit.scalar(
                         "issue_view", "bounty", cond("project_id", ctx.project_q()), cond("state", "open"),
                         cond("labels", ref("slot.label"), "contains"), agg="sum")})
    return None


def _dashboard_count(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, number, about the user doing the task (logged in from the profile or the
    instruction): how many open issues are assigned to me (on the dashboard, or in a project's
    list filtered by assignee), or how many merge requests I opened in a project (filtered by
    author, and by state or not)."""
    ways = ["project_issues", "project_mrs"] + (["dashboard"] * 2 if ctx.ui.dashboard else [])
    way = ctx.rng.choice(ways)
    if way == "dashboard":
        return _dashboard_open(ctx)
    d, w = ctx.data, ctx.w
    for _ in range(30):
        project = ctx.rng.choice(d.projects)
        user = ctx.rng.choice(d.members_of(project))
        if way == "project_issues":
            state: str | None = "open"
            found = [i for i in d.issues_of(project) if i["state"] == "open" and i["assignee_id"] == user["id"]]
            table, who_col, selects = "issues", "assignee_id", {"assignee": user["name"]}
            to_list = ctx.to_issues(project)
            phrasings = [f"How many open {w['issue']}s in {{project}} are assigned to you ({{me}})?",
                         f"You are {{me}}. Count the open {w['issue']}s of {{project}} that are assigned to you.",
                         f"I am {{me}}: how many open {w['issue']}s do I have to deal with in {{project}}?"]
            seen = _seen("the project's issue list", kit.on_page("issues", id=ctx.project_q()))
        else:
            state = ctx.rng.choice([None, "open", "merged"])
            found = [r for r in d.mrs_of(project) if r["author_id"] == user["id"] and state in (None, r["state"])]
            table, who_col, selects = "merge_requests", "author_id", {"author": user["name"]}
            to_list = ctx.to_mrs(project)
            which = f"{{state}} {w['mr']}s" if state else f"{w['mr']}s"
            phrasings = [f"How many {which} have you ({{me}}) opened in {{project}}?",
                         f"You are {{me}}. Count the {which} you opened in {{project}}.",
                         f"I am {{me}}: how many {which} of mine does {{project}} have?"]
            seen = _seen("the project's merge requests", kit.on_page("merge_requests", id=ctx.project_q()))
        if not 1 <= len(found) <= 2 * ctx.ui.page_size:
            continue
        slots: Row = {"project": project["path"], "me": user["name"]} | ({"state": state} if state else {})
        plan = to_list + ctx.filter(state, **selects) + all_pages(len(found), ctx.ui.page_size)
        phrasings, slots, plan, who = _as_user(ctx, user, phrasings, slots, plan + [("send", str(len(found)))],
                                               chance=0.4)
        where = [cond("project_id", ctx.project_q()), cond(who_col, ref("user.id"))]
        if state:
            where.append(cond("state", ref("slot.state")))
        return _task(ctx, f"my_{table}_in_project", "retrieve_count_profile", "retrieve", phrasings, slots, plan,
                     **who, progress=[seen], answer={"type": "number", "value": kit.scalar(table, "*", *where, agg="count")})
    return None


def _dashboard_open(ctx: _Ctx) -> TaskDraft | None:
    """Retrieve, number, on the dashboard: how many open issues are assigned to me."""
    d, w = ctx.data, ctx.w
    counts = {u["id"]: 0 for u in d.users}
    for issue in d.issues:
        if issue["state"] == "open" and issue["assignee_id"] is not None:
            counts[issue["assignee_id"]] += 1
    people = [u for u in d.users if 1 <= counts[u["id"]] <= 2 * ctx.ui.page_size]
    if not people:
        return None
    user = ctx.rng.choice(people)
    n = counts[user["id"]]
    phrasings = [f"How many open {w['issue']}s are assigned to me?", f"Count the open {w['issue']}s assigned to you.",
                 f"I need to know how many open {w['issue']}s I am responsible for."]
    count = all_pages(n, ctx.ui.page_size) + [("send", str(n))]
    if ctx.rng.random() < 0.25:  # the task starts on the dashboard itself
        return _task(ctx, "my_open_issues", "retrieve_count_profile", "retrieve", phrasings, {}, count,
                     user=user["username"], start_logged_in=True, credentials="profile", start_url="/dashboard",
                     progress=[_seen("the list of your issues", kit.on_page("dashboard"))],
                     answer={"type": "number", "value": kit.scalar("issues", "*", cond("assignee_id", ref("user.id")),
                                                                   cond("state", "open"), agg="count")})
    phrasings, slots, plan, who = _as_user(
        ctx, user, phrasings, {},
        [ctx.rng.choice([("click", "link", w["dashboard"]), ("goto", "/dashboard")])] + count, chance=0.4)
    return _task(ctx, "my_open_issues", "retrieve_count_profile", "retrieve", phrasings, slots, plan, **who,
                 progress=[_seen("the list of your issues", kit.on_page("dashboard"))],
                 answer={"type": "number", "value": kit.scalar("issues", "*", cond("assignee_id", ref("user.id")),
                                                               cond("state", "open"), agg="count")})


def _comment(ctx: _Ctx) -> TaskDraft | None:
    """Single write with a form: comment on an issue."""
    d, w = ctx.data, ctx.w
    issue = ctx.rng.choice(d.issues)
    user = ctx.rng.choice(d.users)
    body = ctx.rng.choice(NEW_COMMENTS)
    plan = ctx.search(issue["title"], at_home=True)
    if plan is None:
        return None
    plan += [("fill", "textbox", w["comment_box"], body), ("click", "button", w["comment"])]
    phrasings, slots, plan, who = _as_user(ctx, user, [
        f"Comment \"{{text}}\" on the {w['issue']} \"{{title}}\".",
        f"Reply to the {w['issue']} \"{{title}}\" with: {{text}}",
        f"Add a comment saying \"{{text}}\" to \"{{title}}\"."], {"title": issue["title"], "text": body}, plan)
    mine = [cond("issue_id", ctx.issue_q()), cond("author_id", ref("user.id")), cond("body", ref("slot.text"))]
    return _task(ctx, "comment", "form_write", "mutate", phrasings, slots, plan, **who,
                 goal=[kit.exists("notes", *mine)],
                 progress=[{"description": "the comment is posted", "predicate": kit.exists("notes", *mine)}],
                 constraints=[{"description": "the comment was posted more than once",
                               "predicate": kit.count("notes", *mine, op=">", value=1)}],
                 footprint=[{"table": "notes", "where": [cond("issue_id", ctx.issue_q()), cond("author_id", ref("user.id"))],
                             "ops": ["insert"]}])


def _close_or_reopen(ctx: _Ctx) -> TaskDraft | None:
    """Single write (close an issue) or multi-step write (reopen it and say why)."""
    d, w = ctx.data, ctx.w
    issue = ctx.rng.choice(d.issues)
    project = next(p for p in d.projects if p["id"] == issue["project_id"])
    user = ctx.member(project)
    plan = ctx.search(issue["title"], at_home=True)
    if user is None or plan is None:
        return None
    state_cols = {"table": "issues", "where": [cond("title", ref("slot.title"))], "columns": ["state", "closed_on"],
                  "ops": ["update"]}
    if issue["state"] == "open":
        phrasings, slots, plan, who = _as_user(ctx, user, [
            f"Close the {w['issue']} \"{{title}}\" in {{project}}.", f"Mark \"{{title}}\" ({{project}}) as closed.",
            f"The {w['issue']} \"{{title}}\" is done: close it."], {"title": issue["title"], "project": project["path"]},
            plan + [("click", "button", w["close_issue"])] + ctx.confirm(ctx.ui.confirm_close), chance=0.8)
        closed = kit.exists("issues", cond("title", ref("slot.title")), cond("state", "closed"),
                            cond("project_id", kit.scalar("projects", "id", cond("path", ref("slot.project")))))
        return _task(ctx, "close_issue", "single_write", "mutate", phrasings, slots, plan, **who, goal=[closed],
                     progress=[{"description": "the issue is closed", "predicate": closed}], footprint=[state_cols])
    body = ctx.rng.choice(NEW_COMMENTS)
    phrasings, slots, plan, who = _as_user(ctx, user, [
        f"Reopen the {w['issue']} \"{{title}}\" and comment \"{{text}}\".",
        f"\"{{title}}\" was closed too early: reopen it and leave the comment \"{{text}}\"."],
        {"title": issue["title"], "text": body},
        plan + [("click", "button", w["reopen_issue"]), *ctx.confirm(ctx.ui.confirm_close),
                ("fill", "textbox", w["comment_box"], body),
                ("click", "button", w["comment"])], chance=0.7)
    reopened = kit.exists("issues", cond("title", ref("slot.title")), cond("state", "open"))
    said = kit.exists("notes", cond("issue_id", ctx.issue_q()), cond("author_id", ref("user.id")), cond("body", ref("slot.text")))
    return _task(ctx, "reopen_issue", "multi_step_write", "mutate", phrasings, slots, plan, **who,
                 goal=[reopened, said],
                 progress=[{"description": "the issue is open again", "predicate": reopened},
                           {"description": "the comment is posted", "predicate": kit.all_of(reopened, said)}],
                 footprint=[state_cols, {"table": "notes", "where": [cond("issue_id", ctx.issue_q()),
                                                                     cond("author_id", ref("user.id"))], "ops": ["insert"]}])


def _create_issue(ctx: _Ctx) -> TaskDraft | None:
    """Multi-step write with a form: report a new issue with a label, an assignee and a milestone."""
    d, w = ctx.data, ctx.w
    project = ctx.rng.choice(d.projects)
    active = [m for m in d.milestones if m["project_id"] == project["id"] and m["state"] == "active"]
    user, assignee = ctx.rng.choice(d.users), ctx.member(project, tuple(ROLES))
    label = ctx.rng.choice(d.labels)["name"]
    title = _title(ctx.rng, ISSUE_TEMPLATES, set(d.titles))
    if assignee is None:
        return None
    slots: Row = {"project": project["path"], "title": title, "label": label, "assignee": assignee["name"]}
    steps = {"title": [("fill", "textbox", w["title"], title)], "label": [("select", w["label"], label)],
             "assignee": [("select", w["assignee"], assignee["name"])], "description": [], "milestone": []}
    where = [cond("project_id", ctx.project_q()), cond("title", ref("slot.title"))]
    wanted = where + [cond("assignee_id", ctx.user_q("assignee")), cond("state", "open")]
    if active:
        milestone = ctx.rng.choice(active)
        slots["milestone"] = milestone["title"]
        steps["milestone"] = [("select", w["milestone"], milestone["title"])]
        wanted.append(cond("milestone_id", kit.scalar("milestones", "id", cond("project_id", ctx.project_q()),
                                                      cond("title", ref("slot.milestone")))))
        phrasings = [f"In {{project}}, report a new {w['issue']} titled \"{{title}}\" with the {w['label'].lower()} "
                     f"{{label}}, assigned to {{assignee}} and planned for milestone {{milestone}}.",
                     f"Create a new {w['issue']} \"{{title}}\" in {{project}}: {w['label'].lower()} {{label}}, "
                     f"assignee {{assignee}}, milestone {{milestone}}."]
    else:
        phrasings = [f"In {{project}}, report a new {w['issue']} titled \"{{title}}\" with the {w['label'].lower()} "
                     f"{{label}}, assigned to {{assignee}}.",
                     f"Create a new {w['issue']} \"{{title}}\" in {{project}}: {w['label'].lower()} {{label}}, "
                     f"assignee {{assignee}}."]
    plan = ctx.to_issues(project) + [("click", "link", w["new_issue"])]
    plan += [s for name in ctx.ui.form_order for s in steps[name]] + [("click", "button", w["create"])]
    phrasings, slots, plan, who = _as_user(ctx, user, phrasings, slots, plan, chance=0.5)
    new_id = kit.scalar("issues", "id", *where)
    labelled = kit.exists("issue_labels", cond("issue_id", new_id), cond("label_id", ctx.label_q()))
    return _task(ctx, "create_issue", "multi_step_form", "mutate", phrasings, slots, plan, **who,
                 goal=[kit.exists("issues", *wanted), labelled],
                 progress=[{"description": "the issue exists", "predicate": kit.exists("issues", *where)},
                           {"description": "the issue has every requested detail",
                            "predicate": kit.all_of(kit.exists("issues", *wanted), labelled)}],
                 footprint=[{"table": "issues", "where": where, "ops": ["insert"]},
                            {"table": "issue_labels", "where": [cond("issue_id", new_id)], "ops": ["insert"]}])


def _merge_only(ctx: _Ctx) -> TaskDraft | None:
    """Write under a constraint: merge one merge request (maintainers only) and leave the others alone."""
    d, w = ctx.data, ctx.w
    for _ in range(20):
        project = ctx.rng.choice(d.projects)
        found = [r for r in d.mrs_of(project) if r["state"] == "open"]
        ready = [r for r in found if r["pipeline"] == "passed"]
        user = ctx.member(project, ("Owner", "Maintainer"))
        if len(found) < 2 or not ready or user is None:
            continue
        mr = ctx.rng.choice(ready)
        plan = ctx.to_mrs(project) + ctx.filter("open") + next_pages(found.index(mr), ctx.ui.page_size)
        plan += [("click", "link", mr["title"]), ("click", "button", w["merge"])] + ctx.confirm(ctx.ui.confirm_merge)
        phrasings, slots, plan, who = _as_user(ctx, user, [
            f"Merge the open {w['mr']} from the branch {{branch}} in {{project}}. Leave every other {w['mr']} as it is.",
            f"In {{project}}, merge the {w['mr']} of branch {{branch}}, and nothing else.",
            f"Only the {w['mr']} for {{branch}} in {{project}} is ready: merge it, and do not merge or close any other."],
            {"branch": mr["source_branch"], "project": project["path"]}, plan, chance=0.7)
        mine = [cond("project_id", ctx.project_q()), cond("source_branch", ref("slot.branch"))]
        others = [cond("project_id", ctx.project_q()), cond("source_branch", ref("slot.branch"), "!=")]
        merged = kit.exists("merge_requests", *mine, cond("state", "merged"))
        return _task(ctx, "merge_only", "write_constraint", "mutate", phrasings, slots, plan, **who,
                     goal=[merged], progress=[{"description": "the merge request is merged", "predicate": merged}],
                     constraints=[{"description": "another merge request was merged or closed", "predicate": kit.any_of(
                         kit.exists("merge_requests", *others, cond("merged_on", ref("clock.today"))),
                         kit.exists("merge_requests", *others, cond("closed_on", ref("clock.today"))))}],
                     footprint=[{"table": "merge_requests", "where": mine, "columns": ["state", "merged_on"],
                                 "ops": ["update"]}])
    return None


def _label_several(ctx: _Ctx) -> TaskDraft | None:
    """Several entities: add one label to two issues of a project."""
    d, w = ctx.data, ctx.w
    for _ in range(20):
        project, label = ctx.rng.choice(d.projects), ctx.rng.choice(d.labels)["name"]
        found = [i for i in d.issues_of(project) if i["state"] == "open" and label not in d.ilabels[i["id"]]]
        user = ctx.member(project)
        if len(found) < 2 or user is None:
            continue
        chosen = ctx.rng.sample(found, 2)
        plan: list[Step] = []
        for number, issue in enumerate(chosen):
            steps = ctx.search(issue["title"], at_home=number == 0)
            if steps is None:
                break
            plan += steps + ctx.open_edit() + [("select", w["label"], label), ("click", "button", w["add_label"])]
        else:
            phrasings, slots, plan, who = _as_user(ctx, user, [
                f"Add the {w['label'].lower()} {{label}} to both \"{{first}}\" and \"{{second}}\".",
                f"Label the {w['issue']}s \"{{first}}\" and \"{{second}}\" as {{label}}.",
                f"Tag \"{{first}}\" and \"{{second}}\" with {{label}}."],
                {"label": label, "first": chosen[0]["title"], "second": chosen[1]["title"]}, plan, chance=0.4)
            has = {n: kit.exists("issue_labels", cond("issue_id", ctx.issue_q(n)), cond("label_id", ctx.label_q()))
                   for n in ("first", "second")}
            return _task(ctx, "label_several", "multi_entity", "mutate", phrasings, slots, plan, **who,
                         goal=[has["first"], has["second"]],
                         progress=[{"description": f"the {n} issue has the label", "predicate": has[n]} for n in has],
                         footprint=[{"table": "issue_labels", "where": [cond("issue_id", ctx.issue_q(n)),
                                                                        cond("label_id", ctx.label_q())],
                                     "ops": ["insert"]} for n in ("first", "second")])
    return None


def _reassign(ctx: _Ctx) -> TaskDraft | None:
    """Several entities under a constraint: hand someone's open issues in a project to a colleague."""
    d, w = ctx.data, ctx.w
    for _ in range(30):
        project = ctx.rng.choice(d.projects)
        issues = d.issues_of(project)
        people = d.members_of(project)
        old = ctx.rng.choice(people)
        theirs = [i for i in issues if i["state"] == "open" and i["assignee_id"] == old["id"]]
        new = ctx.rng.choice(people)
        actor = ctx.member(project, ("Owner", "Maintainer"))
        if len(theirs) != 2 or new is old or actor is None or any(
                i["assignee_id"] == new["id"] and i["state"] == "closed" for i in issues):
            continue
        before = sum(1 for i in issues if i["state"] == "open" and i["assignee_id"] == new["id"])
        listing = f"/projects/{project['id']}/issues?" + urlencode({"assignee": old["id"], "state": "open"})
        plan = ctx.to_issues(project) + ctx.filter("open", assignee=old["name"])
        edit = ctx.open_edit() + [("select", w["assignee"], new["name"]), ("click", "button", w["assign"])]
        plan += [("click", "link", theirs[0]["title"])] + edit + [("goto", listing), ("click", "link", theirs[1]["title"])] + edit
        mine = [cond("project_id", ctx.project_q()), cond("state", "open")]
        gone = kit.exists("issues", *mine, cond("assignee_id", ctx.user_q("old")), negate=True)
        moved = kit.count("issues", *mine, cond("assignee_id", ctx.user_q("new")), value=before + 2)
        return _task(ctx, "reassign_open", "write_constraint_multi", "mutate",
                     [f"{{old}} is leaving {{project}}: reassign all of their open {w['issue']}s there to {{new}}. "
                      f"Leave their closed {w['issue']}s alone.",
                      f"Move every open {w['issue']} assigned to {{old}} in {{project}} over to {{new}}; "
                      f"do not touch closed ones."],
                     {"old": old["name"], "new": new["name"], "project": project["path"]}, plan,
                     user=actor["username"], start_logged_in=True, credentials="profile",
                     goal=[gone, moved],
                     progress=[{"description": "one issue was handed over", "predicate": kit.count(
                         "issues", *mine, cond("assignee_id", ctx.user_q("new")), op=">=", value=before + 1)},
                               {"description": "every open issue was handed over", "predicate": kit.all_of(gone, moved)}],
                     constraints=[{"description": "a closed issue was reassigned", "predicate": kit.exists(
                         "issues", cond("project_id", ctx.project_q()), cond("state", "closed"),
                         cond("assignee_id", ctx.user_q("new")))}],
                     footprint=[{"table": "issues", "where": mine, "columns": ["assignee_id"], "ops": ["update"]}])
    return None


def _relabel(ctx: _Ctx) -> TaskDraft | None:
    """Multi-step write: swap one label of an issue for another."""
    d, w = ctx.data, ctx.w
    names = [lab["name"] for lab in d.labels]
    for _ in range(20):
        issue = ctx.rng.choice([i for i in d.issues if d.ilabels[i["id"]]])
        project = next(p for p in d.projects if p["id"] == issue["project_id"])
        old = ctx.rng.choice(d.ilabels[issue["id"]])
        new = ctx.rng.choice([n for n in names if n not in d.ilabels[issue["id"]]])
        user, plan = ctx.member(project), ctx.search(issue["title"], at_home=True)
        if user is None or plan is None:
            continue
        plan += ctx.open_edit() + [("click_near", old, "button", w["remove_label"])]
        plan += ctx.open_edit() + [("select", w["label"], new), ("click", "button", w["add_label"])]
        phrasings, slots, plan, who = _as_user(ctx, user, [
            f"On the {w['issue']} \"{{title}}\", replace the {w['label'].lower()} {{old}} with {{new}}.",
            f"\"{{title}}\" is labelled {{old}} by mistake: remove that {w['label'].lower()} and add {{new}} instead."],
            {"title": issue["title"], "old": old, "new": new}, plan, chance=0.6)
        removed = kit.exists("issue_labels", cond("issue_id", ctx.issue_q()), cond("label_id", ctx.label_q("old")), negate=True)
        added = kit.exists("issue_labels", cond("issue_id", ctx.issue_q()), cond("label_id", ctx.label_q("new")))
        return _task(ctx, "relabel", "multi_step_relabel", "mutate", phrasings, slots, plan, **who,
                     goal=[removed, added],
                     progress=[{"description": "the wrong label is gone", "predicate": removed},
                               {"description": "the right label is on", "predicate": kit.all_of(removed, added)}],
                     footprint=[{"table": "issue_labels", "where": [cond("issue_id", ctx.issue_q()),
                                                                    cond("label_id", ctx.label_q("old"))], "ops": ["delete"]},
                                {"table": "issue_labels", "where": [cond("issue_id", ctx.issue_q()),
                                                                    cond("label_id", ctx.label_q("new"))], "ops": ["insert"]}])
    return None


def _delete_comment(ctx: _Ctx) -> TaskDraft | None:
    """Irreversible single write behind a confirmation on some sites: delete one's own comment."""
    d, w = ctx.data, ctx.w
    for _ in range(20):
        note = ctx.rng.choice(d.notes)
        issue = next(i for i in d.issues if i["id"] == note["issue_id"])
        same = [n for n in d.notes if n["issue_id"] == issue["id"] and n["body"] == note["body"]]
        user = d.user[note["author_id"]]
        shown = f"{user['name']} ({nice_date(note['created'])}): {note['body']}"
        plan = ctx.search(issue["title"], at_home=True)
        if len(same) > 1 or plan is None:
            continue
        plan += [("click_near", shown, "button", ctx.labels["delete"])] + ctx.confirm(ctx.ui.confirm_delete)
        phrasings, slots, plan, who = _as_user(ctx, user, [
            f"Delete your comment \"{{text}}\" on the {w['issue']} \"{{title}}\".",
            f"Remove the comment I left on \"{{title}}\" (it says \"{{text}}\")."],
            {"title": issue["title"], "text": note["body"]}, plan, chance=0.6)
        mine = [cond("issue_id", ctx.issue_q()), cond("author_id", ref("user.id")), cond("body", ref("slot.text"))]
        gone = kit.exists("notes", *mine, negate=True)
        return _task(ctx, "delete_comment", "irreversible_write", "mutate", phrasings, slots, plan, **who,
                     goal=[gone], progress=[{"description": "the comment is gone", "predicate": gone}],
                     footprint=[{"table": "notes", "where": mine, "ops": ["delete"]}])
    return None


def _star(ctx: _Ctx) -> TaskDraft | None:
    """Login-gated write with the credentials in the instruction: star a project (reached through
    the project list or through one of its issues), unstar one, or close an issue."""
    d, w = ctx.data, ctx.w
    starred = {(s["user_id"], s["project_id"]) for s in d.stars}
    project = ctx.rng.choice(d.projects)
    way = ctx.rng.choice(["star", "star_via_issue", "unstar", "close"])
    prefix = ctx.rng.choice(["Log in as {username} (password: {password}) and ", "Sign in with {username} / {password}, then ",
                             "Use the account {username} (password {password}) to "])
    if way == "unstar":
        fans = [s for s in d.stars if s["project_id"] == project["id"]]
        if not fans:
            way = "star"
        else:
            user = d.user[ctx.rng.choice(fans)["user_id"]]
            plan = login_plan(ctx.labels, user["username"], user["password"], via_link=ctx.rng.random() < 0.5)
            plan += ctx.to_project(project) + [("click", "button", w["unstar"])]
            mine = [cond("user_id", ref("user.id")), cond("project_id", ctx.project_q())]
            gone = kit.exists("stars", *mine, negate=True)
            return _task(ctx, "unstar_project", "login_write", "mutate",
                         [prefix + "unstar the project {project}.", prefix + "remove {project} from your starred projects."],
                         {"username": user["username"], "password": user["password"], "project": project["path"]}, plan,
                         user=user["username"], credentials="instruction", goal=[gone],
                         progress=[{"description": "the project is no longer starred", "predicate": gone}],
                         footprint=[{"table": "stars", "where": mine, "ops": ["delete"]}])
    if way == "close":
        issue = ctx.rng.choice([i for i in d.issues if i["state"] == "open"])
        owner = next(p for p in d.projects if p["id"] == issue["project_id"])
        member = ctx.member(owner)
        found = ctx.search(issue["title"], at_home=True)
        if member is None or found is None:
            return None
        plan = login_plan(ctx.labels, member["username"], member["password"], via_link=ctx.rng.random() < 0.5)
        plan += found + [("click", "button", w["close_issue"])] + ctx.confirm(ctx.ui.confirm_close)
        closed = kit.exists("issues", cond("title", ref("slot.title")), cond("state", "closed"))
        return _task(ctx, "close_issue_login", "login_write", "mutate",
                     [prefix + f"close the {w['issue']} \"{{title}}\".",
                      prefix + f"mark the {w['issue']} \"{{title}}\" as closed."],
                     {"username": member["username"], "password": member["password"], "title": issue["title"]}, plan,
                     user=member["username"], credentials="instruction", goal=[closed],
                     progress=[{"description": "the issue is closed", "predicate": closed}],
                     footprint=[{"table": "issues", "where": [cond("title", ref("slot.title"))],
                                 "columns": ["state", "closed_on"], "ops": ["update"]}])
    user = ctx.rng.choice([u for u in d.users if (u["id"], project["id"]) not in starred])
    plan = login_plan(ctx.labels, user["username"], user["password"], via_link=ctx.rng.random() < 0.5)
    to_project = ctx.to_project(project)
    if way == "star_via_issue":
        issue = ctx.rng.choice([i for i in d.issues if i["project_id"] == project["id"]])
        found = ctx.search(issue["title"], at_home=True)
        if found is not None:
            to_project = found + [("click", "link", project["path"])]
    plan += to_project + [("click", "button", w["star"])]
    mine = [cond("user_id", ref("user.id")), cond("project_id", ctx.project_q())]
    return _task(ctx, "star_project", "login_write", "mutate",
                 [prefix + "star the project {project}.", prefix + "add {project} to your starred projects."],
                 {"username": user["username"], "password": user["password"], "project": project["path"]}, plan,
                 user=user["username"], credentials="instruction", goal=[kit.exists("stars", *mine)],
                 progress=[{"description": "the project is starred", "predicate": kit.exists("stars", *mine)}],
                 footprint=[{"table": "stars", "where": mine, "ops": ["insert"]}])


def _infeasible(ctx: _Ctx) -> TaskDraft | None:
    """Infeasible: a label, a person, a merge request or a project that does not exist. The plan
    looks first (the issue's edit controls, the project's merge requests, the project list)."""
    d, w = ctx.data, ctx.w
    names = {lab["name"] for lab in d.labels}
    people = {u["name"] for u in d.users}
    issue = ctx.rng.choice(d.issues)
    project = ctx.rng.choice(d.projects)
    user = ctx.rng.choice(d.users)
    kind = ctx.rng.choice(["label", "person", "mr", "project"])
    if kind in ("label", "person"):
        found = ctx.search(issue["title"], at_home=True) if ctx.rng.random() < 0.7 else None
        owner = next(p for p in d.projects if p["id"] == issue["project_id"])
        look = found + ctx.open_edit() if found is not None else ctx.to_issues(owner)
    if kind == "label":
        label = ctx.rng.choice([n for n in MISSING_LABELS + LABEL_POOL if n not in names])
        phrasings, slots, plan, who = _as_user(
            ctx, user, [f"Add the {w['label'].lower()} \"{{label}}\" to the {w['issue']} \"{{title}}\".",
                        f"Label \"{{title}}\" as \"{{label}}\"."], {"label": label, "title": issue["title"]},
            look + [("infeasible", f"There is no {w['label'].lower()} called {label} on this site.")], chance=0.4)
        return _task(ctx, "missing_label", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                     goal=[kit.exists("issue_labels", cond("issue_id", ctx.issue_q()), cond("label_id", ctx.label_q()))])
    if kind == "person":
        person_name = ctx.rng.choice([n for n in MISSING_PEOPLE if n not in people])
        phrasings, slots, plan, who = _as_user(
            ctx, user, [f"Assign the {w['issue']} \"{{title}}\" to {{person}}.",
                        f"Make {{person}} the assignee of \"{{title}}\"."], {"person": person_name, "title": issue["title"]},
            look + [("infeasible", f"{person_name} has no account here, so cannot be assigned.")], chance=0.4)
        return _task(ctx, "missing_person", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                     goal=[kit.exists("issues", cond("title", ref("slot.title")), cond("assignee_id", ctx.user_q("person")))])
    if kind == "mr":
        title = _title(ctx.rng, MR_TEMPLATES, set(d.titles))
        phrasings, slots, plan, who = _as_user(
            ctx, user, [f"Merge the {w['mr']} \"{{title}}\" in {{project}}.", f"Please merge \"{{title}}\" into {{project}}."],
            {"title": title, "project": project["path"]},
            ctx.to_mrs(project) + [("infeasible", f"{project['path']} has no {w['mr']} called \"{title}\".")], chance=0.4)
        return _task(ctx, "missing_mr", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                     goal=[kit.exists("merge_requests", cond("title", ref("slot.title")), cond("state", "merged"))])
    taken = {p["name"] for p in d.projects}
    name = ctx.rng.choice([n for n in PROJECT_NAMES if n not in taken])
    path = f"{project['namespace']}/{name}"
    before = sum(1 for p in ctx.projects_sorted if p["path"] < path)
    look = ([("click", "link", w["projects_nav"])] if ctx.ui.projects_page else []) + next_pages(
        before, ctx.ui.project_page_size)
    phrasings, slots, plan, who = _as_user(
        ctx, user, ["Star the project {project}.", "Add {project} to my starred projects."], {"project": path},
        look + [("infeasible", f"There is no project {path}.")], chance=0.4)
    return _task(ctx, "missing_project", "infeasible_missing", "infeasible", phrasings, slots, plan, **who,
                 goal=[kit.exists("stars", cond("user_id", ref("user.id")), cond("project_id", ctx.project_q()))])


CORE = [_nav_filtered, _nav_second, _count_labelled, _lookup, _comment, _close_or_reopen, _create_issue, _merge_only,
        _label_several]
OPTIONAL = [_largest_mr, _labels_of, _bounty_total, _dashboard_count, _reassign, _relabel, _delete_comment,
            _star]


def _tasks(ctx: _Ctx, optional: int = 3) -> list[TaskDraft]:
    drafts = [draft for family in CORE if (draft := family(ctx)) is not None]
    extra: list[TaskDraft] = []
    for family in ctx.rng.sample(OPTIONAL, len(OPTIONAL)):  # the first few that apply to this site
        if len(extra) < optional and (draft := family(ctx)) is not None:
            extra.append(draft)
    drafts += extra
    infeasible = _infeasible(ctx)
    drafts = with_login(ctx, drafts, ctx.data.users, chance=0.35, fits=ctx.fits) + (
        [infeasible] if infeasible is not None else [])
    home = [("click", "link", ctx.ui.site_name), ("click", "link", ctx.labels["home"]), ("goto", "/")]
    return start_elsewhere(ctx, drafts, ctx.start_pages, home, chance=0.4, fits=ctx.fits)
