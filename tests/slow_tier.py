"""The measured slow tier: which tests the default ``pytest`` leaves to CI.

The default run (``-m 'not slow and not hypothesis'``) must stay under two minutes on two cores.
Besides the tests marked ``slow`` in their module (statistical coverage checks, the end-to-end
tier), every test that took at least :data:`THRESHOLD_S` seconds (call + setup + teardown) in a
measured run is listed in ``tests/slow_tier.txt`` and marked ``slow`` at collection
(tests/conftest.py); CI runs them all (``pytest -m "slow or hypothesis"``, .ci/run).

Re-measure after adding tests (the list only grows; ids that no longer exist are dropped)::

    python tests/slow_tier.py            # runs the whole suite but the property tests once
    python tests/slow_tier.py --from FILE  # or reads a saved ``pytest --durations=0`` report
"""
from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

THRESHOLD_S = 0.25
LIST = Path(__file__).with_name("slow_tier.txt")
_DURATION = re.compile(r"^([\d.]+)s (?:call|setup|teardown)\s+(\S+)")


def read_tier(path: Path = LIST) -> frozenset[str]:
    """The node ids listed in ``path`` (one per line, text after ``#`` ignored)."""
    if not path.is_file():
        return frozenset()
    ids = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return frozenset(i for i in ids if i)


def durations(report: str) -> dict[str, float]:
    """Seconds per node id (setup + call + teardown) from a ``--durations=0`` report; the
    ``@group`` suffix pytest-xdist adds under ``--dist loadgroup`` is removed."""
    out: dict[str, float] = collections.defaultdict(float)
    for line in report.splitlines():
        m = _DURATION.match(line)
        if m:
            out[m[2].split("@", 1)[0]] += float(m[1])
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="report", type=Path, help="a saved --durations=0 report")
    args = parser.parse_args(argv)
    root = Path(__file__).resolve().parents[1]
    if args.report is not None:
        text = args.report.read_text(encoding="utf-8")
    else:
        env = dict(os.environ, RANGER_TEST_TIER="all")  # measure the listed tests too
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0",
             "-m", "not slow and not hypothesis"], cwd=root, env=env, text=True,
            capture_output=True, check=False)
        text = proc.stdout
        if proc.returncode not in (0, 1):
            print(text[-3000:], proc.stderr[-3000:], file=sys.stderr)
            return proc.returncode
    measured = durations(text)
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
         "-n", "0", "-m", ""], cwd=root, text=True, capture_output=True, check=False).stdout
    existing = {line.strip() for line in collected.splitlines() if "::" in line}
    keep = {i for i in read_tier() if i in existing}
    keep |= {i for i, s in measured.items() if s >= THRESHOLD_S and i in existing}
    lines = [f"{i}  # {measured[i]:.2f} s" if i in measured else i for i in sorted(keep)]
    header = (f"# Tests the default `pytest` leaves to CI: each took ≥ {THRESHOLD_S} s in a measured"
              " run.\n# Written by tests/slow_tier.py; read by tests/conftest.py.\n")
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=LIST.parent, delete=False) as fh:
        fh.write(header + "\n".join(lines) + "\n")
    os.replace(fh.name, LIST)
    total = sum(measured.values())
    slow = sum(s for i, s in measured.items() if i in keep)
    print(f"{len(keep)} tests in the slow tier ({slow:.1f} of {total:.1f} measured seconds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
