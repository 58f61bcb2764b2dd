"""Dynamic feasibility checks: certify each task by search, prove infeasible ones, and probe its start.

For every task, :func:`verify_task` runs the engine and returns a :class:`TaskVerdict`:

- ``certified``: the search found an action sequence, and that sequence (the search's own
  trace, never the generator's) replays to success in a freshly reset episode. It becomes
  the task's certificate.
- ``proven_infeasible``: an infeasible-kind task whose goal is false at the start and that
  :func:`veriweb.verify.proofs.prove_infeasible` shows no reachable marker can make true.
- ``infeasible``: a feasible-kind task whose goal the markers' writes alone show can never
  hold (:func:`veriweb.verify.proofs.unreachable_goal`: a proof, checked before any search), or
  that the search showed has no solution within its step budget (every state reachable with
  the search's actions tried, the depth bound being ``max_steps``; the search types only slot
  values, so this is a finding about the task as specified, not a proof about every possible
  input): issue F008. A
  solution longer than half the step budget is kept, with issue F005.
- ``refuted``: an infeasible-kind task whose goal a search *did* reach: issue F006.
- ``undecided``: the budget ran out, or the argument could not be closed. Nothing is proved;
  such a task is not shipped. A search that :func:`veriweb.verify.proofs.no_success` shows
  cannot succeed (a constraint that is the goal itself, a goal or answer no runnable marker can
  change) is not run at all and says undecided too, as running it out of budget would.

The start-state checks run alongside: the goal already true (F001), a no-op episode judged a
success (F003), an expected answer that does not exist or is not unique (F004), a certificate
longer than half the step budget (F005), a constraint broken before anything happens (F007),
and a stored certificate that does not replay (F002).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from veriweb.engine import Episode, Session
from veriweb.engine.answers import stateable
from veriweb.engine.judge import unstated
from veriweb.engine.query import Context, fetch_rows
from veriweb.errors import VeriwebError
from veriweb.scaffold import Site, Task
from veriweb.scaffold.values import AllOf, AnyOf, PageIs, QueryValue, ScalarQuery
from veriweb.verify.checks import (
    ANSWER_ASKS_OTHER, ANSWER_UNDEFINED, CERTIFICATE_FAILS, CERTIFICATE_LONG, CHECKS, CONSTRAINT_AT_START,
    CONSTRAINT_FORBIDS_GOAL, GOAL_AT_START, INFEASIBLE_UNPROVEN, NO_SOLUTION, NOOP_PASSES, SLOT_CONTRADICTS_GOAL, Issue,
)
from veriweb.verify.search import solve
from veriweb.verify.written import pressed_button, written_issues

STATUSES = ("certified", "proven_infeasible", "infeasible", "refuted", "undecided")
"""Every status a :class:`TaskVerdict` can have; the first two are the shippable ones."""


@dataclass(frozen=True)
class TaskVerdict:
    """What verification concluded about one task.

    Attributes:
        task: the task id.
        status: one of :data:`STATUSES`.
        certificate: the search's trace that replayed to success (``certified`` only).
        proof: a short human-readable argument (infeasible-kind tasks), or why nothing was proved.
        issues: the feasibility issues found for this task.
        expanded: how many states the search expanded.
    """

    task: str
    status: str
    certificate: tuple[str, ...] = ()
    proof: str = ""
    issues: tuple[Issue, ...] = ()
    expanded: int = 0

    @property
    def shipped(self) -> bool:
        """Certified or proven infeasible, with no feasibility issue; for a certified task, a stored
        certificate that no longer replays (F002: an edit renumbered the elements it clicks) is not
        one, since the new certificate replaces it (repair ``replace_certificate``)."""
        if self.status == "certified":
            return all(i.code == CERTIFICATE_FAILS for i in self.issues)
        return self.status == "proven_infeasible" and not self.issues


def _issue(code: str, location: str, message: str) -> Issue:
    return Issue(CHECKS[code][0], code, location, message)


def _location(site: Site, task: Task) -> str:
    for index, candidate in enumerate(site.tasks):
        if candidate is task:
            return f"$.tasks[{index}]"
    for index, candidate in enumerate(site.tasks):
        if candidate.id == task.id:
            return f"$.tasks[{index}]"
    return f"$.tasks[?(@.id=={task.id!r})]"


# ----------------------------------------------------------------------------- replay


def replay(site: Site, task: Task, actions: list[str] | tuple[str, ...], *, session: Session | None = None,
           end_on_success: bool = True, pressed: list[str] | None = None,
           errors: list[str] | None = None) -> tuple[bool, str]:
    """Replay ``actions`` in a freshly reset episode.

    Args:
        pressed: if given, the name of each button the replay clicks is appended to it.
        errors: if given, the error of each action that failed (an element that is not there) is appended.

    Returns:
        Whether the episode ended in success, and why it ended (or that it did not end).
    """
    episode = Episode(site, task, session=session, end_on_success=end_on_success)
    episode.reset()
    refused = ""
    for number, action in enumerate(actions):
        if episode.finished:
            return False, f"the episode ended before action {number} ({action}){refused}"
        if pressed is not None and (name := pressed_button(episode.session, action)):
            pressed.append(name)
        flash = episode.session.ui.flash
        outcome = episode.step(action)
        if errors is not None and outcome.error is not None:
            errors.append(f"action {number} ({action}): {outcome.error}")
        after = episode.session.ui.flash
        if after is not flash and after is not None and after[0] == "error" and not refused:
            refused = f"; the site refused action {number} ({action}): {after[1]!r}{_refuser(site, after[1])}"
        if outcome.terminated or outcome.truncated:
            done = number == len(actions) - 1
            if outcome.success and done:
                return True, str(outcome.info.get("reason"))
            reason = outcome.info.get("answer") or outcome.info.get("reason")
            return (outcome.success, f"{reason}{refused}") if done else (
                False, f"the episode ended at action {number} ({action}): {reason}{refused}")
    return False, f"the episode had not ended after the last action{refused}"


def _refuser(site: Site, message: str) -> str:
    """Where a refusal's message is written: `` (marker 'set_state', preconditions[1])``, or nothing."""
    places = [f"marker {marker.name!r}, {kind}[{index}]" for marker in site.markers
              for kind in ("preconditions", "invariants") for index, guard in enumerate(getattr(marker, kind))
              if guard.message == message]
    return f" ({'; '.join(places[:3])})" if places else ""


# ----------------------------------------------------------------------------- start state


def start_issues(site: Site, task: Task, session: Session, location: str) -> list[Issue]:
    """F001 (goal true at start), F007 (constraint broken at start) and F004 (answer undefined or not unique)."""
    episode = Episode(site, task, session=session)
    episode.reset()
    judge = episode.judge
    issues: list[Issue] = []
    for number, constraint in enumerate(task.constraints):
        if _safe(judge.holds, constraint.predicate):
            issues.append(_issue(CONSTRAINT_AT_START, f"{location}.constraints[{number}]",
                                 f"task {task.id!r}: the constraint {constraint.description!r} already holds before "
                                 "the agent does anything, so every episode fails"))
    if task.kind != "retrieve" and task.goal and all(_safe(judge.holds, p) for p in task.goal):
        issues.append(_issue(GOAL_AT_START, f"{location}.goal",
                             f"task {task.id!r}: the goal already holds at the start ({task.start_url}), so doing "
                             "nothing passes"))
    if task.kind == "retrieve" and task.answer is not None:
        try:
            expected = judge.expected_answer()
        except VeriwebError as exc:
            expected, problem = None, f"computing it fails: {exc}"
        else:
            problem = "it is empty in the starting state"
        if expected is not None and expected != [] and not unstated(expected) and not stateable(
                expected, task.answer.type, task.answer.order):
            expected, problem = None, f"its key gives {expected!r}, which is not a {task.answer.type}"
        if expected is None or expected == []:
            issues.append(_issue(ANSWER_UNDEFINED, f"{location}.answer",
                                 f"task {task.id!r}: the expected answer does not exist: {problem}"))
        elif isinstance(task.answer.value, QueryValue):
            tie = ambiguity(session, judge.context(), task.answer.value.query)
            if tie:
                issues.append(_issue(ANSWER_UNDEFINED, f"{location}.answer.value",
                                     f"task {task.id!r}: the expected answer is not unique: {tie}"))
    if task.kind == "navigate":
        for path, query in _page_queries(task.goal, f"{location}.goal"):
            tie = ambiguity(session, judge.context(), query)
            if tie:
                issues.append(_issue(ANSWER_UNDEFINED, path,
                                     f"task {task.id!r}: the page to reach is not unique: {tie}"))
    return issues


def _safe(call: Any, *args: Any) -> bool:
    try:
        return bool(call(*args))
    except VeriwebError:
        return False


def _page_queries(predicates: list[Any], path: str) -> list[tuple[str, ScalarQuery]]:
    out: list[tuple[str, ScalarQuery]] = []
    for number, predicate in enumerate(predicates):
        here = f"{path}[{number}]"
        if isinstance(predicate, PageIs):
            out += [(f"{here}.params.{name}", value.query) for name, value in predicate.params.items()
                    if isinstance(value, QueryValue)]
        elif isinstance(predicate, (AllOf, AnyOf)):
            out += _page_queries(predicate.items, f"{here}.items")
    return out


def ambiguity(session: Session, ctx: Context, query: ScalarQuery) -> str | None:
    """Why a one-value query's answer is not unique in the current state, or ``None``.

    Only the first row counts, so several matching rows are a problem when they differ in
    the selected column and nothing but the primary key (which no person ranks by) tells
    them apart: no ``order_by`` at all, or a tie on every ``order_by`` column but the key.
    """
    if query.agg is not None or query.select == "*":
        return None
    try:
        rows = fetch_rows(session.db.guard, query.model_copy(update={"limit": None}), ctx)
    except VeriwebError:
        return None
    if len(rows) < 2:
        return None
    pk = session.db.primary_keys.get(query.table, "id")
    keys = [o.column for o in query.order_by if o.column != pk]
    if query.order_by and not keys:
        return None
    first = rows[0]
    tied = [r for r in rows if all(r.get(k) == first.get(k) for k in keys)]
    values = sorted({str(r.get(query.select)) for r in tied})
    if len(values) < 2:
        return None
    by = f" tie on {', '.join(keys)} ({', '.join(str(first.get(k)) for k in keys)})" if keys else " no order"
    shown = ", ".join(repr(v) for v in values[:5]) + (", ..." if len(values) > 5 else "")
    return f"{len(tied)} rows of {query.table} match with{by}, giving {query.select} {shown}"


NOOPS_FEASIBLE = (("say done", "send_msg_to_user('Done.')"), ("give up", "report_infeasible('This cannot be done.')"),
                  ("wait", "noop()"))
NOOPS_INFEASIBLE = (("say done", "send_msg_to_user('Done.')"), ("wait", "noop()"))


def noop_issues(site: Site, task: Task, session: Session, location: str) -> list[Issue]:
    """F003: reset, do one no-op (say done, give up on a feasible task, or wait), and ask the judge."""
    issues: list[Issue] = []
    for name, action in NOOPS_INFEASIBLE if task.kind == "infeasible" else NOOPS_FEASIBLE:
        episode = Episode(site, task, session=session)
        episode.reset()
        outcome = episode.step(action)
        if outcome.success:
            issues.append(_issue(NOOP_PASSES, f"{location}.goal" if task.goal else location,
                                 f"task {task.id!r}: the judge passes an episode where the agent only does "
                                 f"{action} ({name})"))
            break
    return issues


# ----------------------------------------------------------------------------- verdicts


NOT_SEARCHED = ("not searched on this site: a repair changes what the task reads, so it is searched on the "
                "repaired site instead")
"""The reason of an ``undecided`` verdict made with ``search=False``."""


def verify_task(site: Site, task: Task, *, budget: int, session: Session | None = None,
                search: bool = True) -> TaskVerdict:
    """Check one task dynamically and certify it (or prove it infeasible) by search.

    Args:
        site: the site.
        task: one of its tasks.
        budget: how many states the search may expand.
        session: a session of the site to reuse (its state is reset).
        search: ``False`` runs every check but the search itself: a feasible-kind task that no
            start-state check or proof decides comes back ``undecided`` (:data:`NOT_SEARCHED`).
    """
    session = session or Session(site)
    location = _location(site, task)
    try:
        return _verify(site, task, budget, session, location, search)
    except VeriwebError as exc:  # the task cannot even be run: a missing user, a predicate that fails
        issue = _issue(NO_SOLUTION, location, f"task {task.id!r} cannot be run in the engine: {exc}")
        return TaskVerdict(task.id, "infeasible", (), f"the task cannot be run: {exc}", (issue,))


def _verify(site: Site, task: Task, budget: int, session: Session, location: str, search: bool = True) -> TaskVerdict:
    from veriweb.verify.proofs import prove_infeasible

    issues = start_issues(site, task, session, location) + noop_issues(site, task, session, location)
    stored: tuple[bool, str] | None = None
    stored_pressed: list[str] = []
    stored_errors: list[str] = []
    if task.certificate:
        stored = ok, why = replay(site, task, task.certificate, session=session, pressed=stored_pressed,
                                  errors=stored_errors)
        if not ok:
            issues.append(_issue(CERTIFICATE_FAILS, f"{location}.certificate",
                                 f"task {task.id!r}: the stored certificate does not replay to success: {why}"))
        # what the stored steps write is data too, whether or not they still reach the goal
        issues += written_issues(site, task, task.certificate, session, location)
    if task.kind != "infeasible" and any(i.code == GOAL_AT_START for i in issues):
        return TaskVerdict(task.id, "undecided", (), "the goal already holds before any action: the task asks for "
                           "nothing, and no search can tell a solution from doing nothing", tuple(issues), 0)
    if task.kind == "infeasible":
        proof = prove_infeasible(site, task, session=session, budget=budget)
        if proof.status == "refuted":
            issues.append(_issue(INFEASIBLE_UNPROVEN, f"{location}.goal",
                                 f"task {task.id!r} is meant to be infeasible, but these actions reach its goal: "
                                 f"{'; '.join(proof.witness)}"))
        return TaskVerdict(task.id, proof.status, (), proof.text, tuple(issues), proof.expanded)
    argument = _unreachable(site, task, session)
    if argument is not None:  # a proof, not a search: no sequence of actions at all reaches the goal
        issues.append(_issue(NO_SOLUTION, f"{location}.goal", f"task {task.id!r}: no action sequence reaches the "
                             f"goal: {argument.splitlines()[0]}"))
        return TaskVerdict(task.id, "infeasible", (), argument, tuple(issues), 0)
    if not search:
        return TaskVerdict(task.id, "undecided", (), NOT_SEARCHED, tuple(issues), 0)
    result = solve(site, task, budget=budget, session=session, max_depth=task.max_steps, grounded=True)
    if result.status != "solved":
        issues += _blocking(task, result.blocked, location)
    if result.status == "unsolved":
        issues.append(_issue(NO_SOLUTION, f"{location}.goal",
                             f"task {task.id!r}: no action sequence reaches the goal: {result.reason}"))
        return TaskVerdict(task.id, "infeasible", (), result.reason, tuple(issues), result.expanded)
    if result.status != "solved":
        return TaskVerdict(task.id, "undecided", (), result.reason, tuple(issues), result.expanded)
    # a replay is a function of the site, the task and the actions: the stored certificate's stands
    same = stored is not None and list(result.actions) == list(task.certificate)
    pressed: list[str] = stored_pressed if same else []
    ok, why = stored if same and stored is not None else replay(site, task, result.actions, session=session,
                                                                 pressed=pressed)
    if not ok:
        return TaskVerdict(task.id, "undecided", (), f"the search's trace does not replay: {why}", tuple(issues),
                           result.expanded)
    drift = (_drift(task, stored, result.actions, location) or _pressed_against_words(task, pressed, location)
             or _answer_drift(task, stored, stored_errors, result.actions, location))
    if drift is not None:
        issues.append(drift)
        return TaskVerdict(task.id, "undecided", (), drift.message, tuple(issues), result.expanded)
    # rows the solution's markers write that break a rule every seed row keeps: the end state is data
    # the site itself calls wrong, so the task is not shipped (see veriweb.verify.written)
    if not same:
        issues += [i for i in written_issues(site, task, result.actions, session, location) if i not in issues]
    return certified(task, result.actions, issues, location, result.expanded)


def _drift(task: Task, stored: tuple[bool, str] | None, found: list[str], location: str) -> Issue | None:
    """M016 when the stored certificate failed and the search's solution succeeds only by entering a value the
    instruction does not state in place of one it does (see :func:`veriweb.verify.stated.drifted_values`): the
    stored certificate is then evidence against the judge, and certifying the new solution would ship a judge
    that rewards what the instruction does not ask for."""
    from veriweb.verify.stated import drifted_values

    if stored is None or stored[0]:
        return None
    dropped, put = drifted_values(task, task.certificate, found)
    if not (dropped and put):
        return None
    return _issue(SLOT_CONTRADICTS_GOAL, f"{location}.goal",
                  f"task {task.id!r}: the instruction's {', '.join(repr(v) for v in dropped)} no longer reaches the "
                  f"goal, and the only solution found enters {', '.join(repr(v) for v in put)} instead, which the "
                  "instruction does not say: the goal checks another value than the instruction names")


def _answer_drift(task: Task, stored: tuple[bool, str] | None, errors: list[str], found: list[str],
                  location: str) -> Issue | None:
    """M017 when a retrieve task's stored certificate still runs step for step (no action fails) but its
    answer is judged wrong, and the only solution found answers something else: the pages lead where they
    led and the judge now wants another answer than the one read there, so the key reads another figure
    than the one the instruction asks for (a count of another post, a title for a name, merged requests for
    open ones). Certifying the new answer would ship that key."""
    from veriweb.engine.actions import SendMsgToUser, parse_action

    if task.kind != "retrieve" or stored is None or stored[0] or errors or not task.certificate or not found:
        return None
    try:
        before, after = parse_action(task.certificate[-1]), parse_action(found[-1])
    except VeriwebError:
        return None
    if not isinstance(before, SendMsgToUser) or not isinstance(after, SendMsgToUser):
        return None
    if before.text.strip().casefold() == after.text.strip().casefold():
        return None
    return _issue(ANSWER_ASKS_OTHER, f"{location}.answer",
                  f"task {task.id!r}: its stored certificate still runs step by step and answers {before.text!r}, "
                  f"which the judge now rejects; the only answer it accepts is {after.text!r}: the key reads "
                  "another figure than the pages the instruction leads to")


def _pressed_against_words(task: Task, pressed: list[str], location: str) -> Issue | None:
    """M016 when the only solution found presses a button whose verb undoes the instruction's ("Like" for
    "Downvote the post", "Reopen" for "Close the issue"): the goal holds after the opposite of what
    the instruction asks, so it checks another thing than the instruction names."""
    from veriweb.verify.checks_meaning import opposite_words

    text = task.instruction  # what it says, not the names it quotes ("your comment on 'Add dark mode'")
    for value in task.slots.values():
        if isinstance(value, str) and value.strip():
            text = re.sub(r"(?<!\w)" + re.escape(value) + r"(?!\w)", " ", text)
    for name in pressed:
        said = opposite_words(text, name)
        if said is not None:
            return _issue(SLOT_CONTRADICTS_GOAL, f"{location}.goal",
                          f"task {task.id!r}: the only solution found presses {name!r}, which undoes what the "
                          f"instruction says ({said!r}): the goal checks the opposite of what it asks")
    return None


def _blocking(task: Task, blocked: dict[str, int], location: str) -> list[Issue]:
    """C007 for each constraint that broke in every goal state the search reached (it found no
    solution): the engine's own witness that the constraint forbids what the goal requires, whatever
    form the two are written in (SQL, counts, pages)."""
    out = []
    for description, states in blocked.items():
        index = next((n for n, c in enumerate(task.constraints) if c.description == description), None)
        if index is not None:
            out.append(_issue(CONSTRAINT_FORBIDS_GOAL, f"{location}.constraints[{index}]",
                              f"task {task.id!r}: the goal held in {states} state(s) the search reached, and "
                              f"constraint {description!r} was broken in each; no solution keeps it"))
    return out


def certified(task: Task, actions: list[str] | tuple[str, ...], issues: list[Issue], location: str,
              expanded: int = 0) -> TaskVerdict:
    """The verdict of a task that ``actions`` solve (they replayed to success in a fresh episode), with
    the issues found before, and F005 when the solution is longer than half the step budget."""
    issues = list(issues)
    if len(actions) * 2 > task.max_steps:
        issues.append(_issue(CERTIFICATE_LONG, f"{location}.max_steps",
                             f"task {task.id!r}: the solution found takes {len(actions)} steps, more "
                             f"than half the step budget of {task.max_steps}"))
    return TaskVerdict(task.id, "certified", tuple(actions), "", tuple(issues), expanded)


def _unreachable(site: Site, task: Task, session: Session) -> str | None:
    """The proof that the task's goal (false at the start) can never hold, if the markers' writes
    alone show it (:func:`veriweb.verify.proofs.unreachable_goal`); ``None`` otherwise."""
    from veriweb.verify.proofs import unreachable_goal

    if not task.goal:
        return None
    episode = Episode(site, task, session=session)
    episode.reset()
    if any(not episode.judge.holds(p) for p in task.goal):
        return unreachable_goal(site, task, session, episode.judge.context())
    return None


def feasibility_issues(site: Site, *, budget: int) -> tuple[list[Issue], dict[str, TaskVerdict]]:
    """Verify every task of ``site`` (one shared session).

    Returns:
        Every feasibility issue, and each task's verdict by task id.
    """
    session = Session(site)
    try:
        verdicts = {task.id: verify_task(site, task, budget=budget, session=session) for task in site.tasks}
    finally:
        session.close()
    return [issue for verdict in verdicts.values() for issue in verdict.issues], verdicts


__all__ = ["NOT_SEARCHED", "STATUSES", "TaskVerdict", "ambiguity", "certified", "feasibility_issues", "replay",
           "verify_task"]

