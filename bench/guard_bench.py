"""How fast the SQL guard refuses hostile SQL: per query, the best of a few runs, against the 100 ms aim.

The tests check that every hostile query of ``tests/engine/test_sqlguard.py`` is refused and
changes nothing; how long a refusal takes is measured here, since a timing never decides a
test. Run: ``python bench/guard_bench.py`` (needs pytest, for the test module's table).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.engine.test_sqlguard import HOSTILE  # noqa: E402
from veriweb.cli import load_site  # noqa: E402
from veriweb.engine import Session  # noqa: E402

AIM_MS = 100.0


def refusal_ms(session: Session, sql: str, repeats: int = 3) -> tuple[float, str]:
    """The fastest of ``repeats`` attempts, in milliseconds, and how the last one ended."""
    best, outcome = float("inf"), "answered"
    for _ in range(repeats):
        start = time.perf_counter()
        try:
            session.db.guard.read(sql)
            outcome = "ANSWERED (not refused)"
        except Exception as error:  # noqa: BLE001 - any refusal or failure is an outcome to print
            outcome = type(error).__name__
        best = min(best, time.perf_counter() - start)
    return best * 1000, outcome


def main() -> None:
    session = Session(load_site(None))
    rows = []
    for param in HOSTILE:
        sql = param.values[0]
        ms, outcome = refusal_ms(session, sql)
        rows.append((ms, param.id, outcome))
    rows.sort(reverse=True)
    print(f"{'query':40s} {'ms':>9s} {'x aim':>7s}  outcome")
    for ms, name, outcome in rows:
        print(f"{name:40s} {ms:9.2f} {ms / AIM_MS:7.3f}  {outcome}")
    times = [ms for ms, _, _ in rows]
    print(f"\n{len(rows)} queries: median {statistics.median(times):.2f} ms, max {max(times):.2f} ms "
          f"({max(times) / AIM_MS:.2f}x the {AIM_MS:.0f} ms aim); over the aim: "
          f"{sum(ms > AIM_MS for ms in times)}")


if __name__ == "__main__":
    main()
