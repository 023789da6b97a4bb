"""The README and docs/ use no removed or renamed name, except where they say so, and cite no
issue a reader cannot open.

Version 0.1.0 renamed keywords, options, YAML keys and modules outright (no shims), so the README
and docs/architecture.md carry a line for every name that changed. This test reads
README.md and every Markdown file under docs/ and fails when an old name appears as current API
(``rank_test(alpha=…)``, ``--lower-is-better``, ``result.signature()``, …) outside the sections
that list the renames (README "Changes on main …", architecture "Renamed keywords, options and keys" and
the Glossary, whose "not" column names the old words). It also checks that each old name is
listed in both rename sections, so a user of main finds every change.

A reader of the repository cannot open the project's own issue tracker, so no file under src/ or
docs/, nor README.md or DEVELOPING.md, cites "issue N": a comment states the reason itself. Another
project's issue is cited with its name and number (``deepsig issue #16``), which GitHub can open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Headings (text after the #'s, prefix match) of the sections where old names are allowed.
RENAME_SECTIONS = ("Changes on main", "Renamed keywords, options and keys", "Glossary")


@dataclass(frozen=True)
class Old:
    """An old name: ``pattern`` finds it used as current API; ``listed`` finds it in a rename list."""

    name: str
    pattern: str
    listed: str


#: Every name removed or renamed at 0.1.0 that a document could still use as current API.
OLD_NAMES = (
    Old("alpha= of rank_test/rank_systems/condition_and_compare/adjust_pvalues",
        r"\b(rank_test|rank_systems|condition_and_compare|adjust_pvalues)\([^()]*\balpha\s*=",
        r"\balpha="),
    Old("adjust_pvalues(method=)", r"\badjust_pvalues\([^()]*\bmethod\s*=",
        r"adjust_pvalues\([^)]*method"),
    Old("--alpha", r"--alpha\b", r"--alpha"),
    Old("YAML aggregate.alpha", r"aggregate\.alpha\b|^\s*alpha\s*:", r"aggregate\.alpha"),
    Old("lower_is_better=", r"\blower_is_better\s*=", r"lower_is_better="),
    Old("--lower-is-better", r"--lower-is-better\b", r"--lower-is-better"),
    Old("ties_corr", r"\bties_corr\b", r"ties_corr"),
    Old("wilcoxon/mcnemar(correction=)", r"\b(wilcoxon|mcnemar)\([^()]*\bcorrection\s*=",
        r"wilcoxon\(correction="),
    Old("adjust= of the resampling tests", r"\b(paired_permutation_test_many|test)\([^()]*\badjust\s*=",
        r"adjust="),
    Old("forest_plot's moved keywords",
        r"\b(forest_plot|multi_forest_plot|funnel_plot)\([^()]*\b(labels|label_header|precision|"
        r"left_columns|right_columns|show_means|show_weights|show_values|figsize|stripes|"
        r"fontsize|fontfamily|plot_width|plot_size|colors|markers)\s*=",
        r"left_columns"),
    Old("left_columns/right_columns/show_means/show_weights/show_values",
        r"\b(left_columns|right_columns|show_means|show_weights|show_values)\b", r"show_means"),
    Old("result methods .to_markdown()/.to_latex()/.to_html()", r"\.to_(markdown|latex|html)\(\)",
        r"to_markdown"),
    Old("result.signature()", r"\.signature\(\)", r"signature\(\)"),
    Old("a setting passed positionally after the one data argument",
        r"\b(compare|comparison_graph|nonsignificance_graph|pvalue_plot|condition_boxplots|"
        r"rank_intervals|read_scores|regtest|effect_sizes)\(\s*[^(),=\s]+\s*,\s*[^(),=]+[,)]",
        r"keyword-only"),
    Old("ranger_eval.experiment", r"\branger_eval\.experiment\b", r"ranger_eval\.experiment"),
    Old("errors.check_alpha", r"\bcheck_alpha\b", r"check_alpha"),
    Old("pipeline.COMPARE_DEFAULTS/RANK_DEFAULTS", r"\b(COMPARE|RANK)_DEFAULTS\b", r"COMPARE_DEFAULTS"),
    Old("io.config.CompareSettings/AggregateSettings",
        r"\bio(\.config)?\.CompareSettings\b|\bAggregateSettings\b", r"AggregateSettings"),
    Old("Experiment.require_for", r"\brequire_for\b", r"require_for"),
    Old("pipeline.check_n_resamples", r"\bcheck_n_resamples\b", r"check_n_resamples"),
    Old(".ranger-eval.lock", r"\.ranger-eval\.lock\b", r"\.ranger-eval\.lock"),
    Old("module files meta.py, comparison.py, plots/forest.py, plots/multiforest.py, plots/cd.py",
        r"\branger_eval/(meta|comparison)\.py\b|\bplots/(forest|multiforest|cd)\.py\b",
        r"plots/forest\.py"),
)

_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _lines(text: str) -> list[tuple[int, str, bool]]:
    """(line number, line, inside a rename section) for each line of a Markdown text; lines in
    fenced code blocks belong to the section around them (a ``# comment`` is no heading)."""
    out = []
    in_fence = False
    allowed = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (m := _HEADING.match(line)):
            allowed = m.group(2).strip().startswith(RENAME_SECTIONS)
        out.append((number, line, allowed))
    return out


def stale_uses(text: str) -> list[tuple[int, str]]:
    """(line, old name) for every old name used outside a rename section of ``text``."""
    found = []
    for number, line, allowed in _lines(text):
        if allowed:
            continue
        for old in OLD_NAMES:
            if re.search(old.pattern, line):
                found.append((number, old.name))
    return found


def rename_sections(text: str) -> str:
    """The lines of ``text`` inside its rename sections, joined."""
    return "\n".join(line for _, line, allowed in _lines(text) if allowed)


def test_scanner_flags_old_names_outside_the_rename_sections() -> None:
    text = (
        "# Guide\n"
        "rg.rank_test(table, alpha=0.05)\n"
        "```bash\n# a shell comment, not a heading\nranger-eval rank x --lower-is-better\n```\n"
        "rg.forest_plot(res, columns=rg.ForestColumns(labels=names))\n"
        "## Changes on main since the last notes\n"
        "- `rank_test(alpha=0.05)` → `level=0.95`; `--lower-is-better`\n"
        "## Next\n"
        "res.signature()\n"
    )
    assert stale_uses(text) == [
        (2, "alpha= of rank_test/rank_systems/condition_and_compare/adjust_pvalues"),
        (5, "--lower-is-better"),
        (11, "result.signature()"),
    ]
    assert "--lower-is-better" in rename_sections(text)


@pytest.mark.parametrize("path", _documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_removed_name_used_as_current_api(path: Path) -> None:
    stale = stale_uses(path.read_text(encoding="utf-8"))
    assert not stale, "\n".join(f"{path.relative_to(ROOT)}:{line}: {name} (renamed; see the rename sections)"
                                for line, name in stale)


@pytest.mark.parametrize("doc", ["README.md", "docs/architecture.md"])
def test_every_old_name_is_listed_in_the_rename_section(doc: str) -> None:
    section = rename_sections((ROOT / doc).read_text(encoding="utf-8"))
    assert section, f"{doc} has no rename section ({', '.join(RENAME_SECTIONS)})"
    missing = [old.name for old in OLD_NAMES if not re.search(old.listed, section)]
    assert not missing, f"{doc} does not list: {missing}"


#: "issue 19", "Issue 27 §4", "issues 18 and 19", "issue #28", "issue-27": a citation of an issue.
_ISSUE = re.compile(r"\b(?:[Ii]ssues?)\s*[-#]?\s*\d+")
#: Other projects whose issues are cited by name and number (``deepsig issue #16``): those open.
EXTERNAL_TRACKERS = ("deepsig",)
_EXTERNAL = re.compile(r"\b(?:" + "|".join(EXTERNAL_TRACKERS) + r")(?:'s)?\s+$", re.IGNORECASE)


def issue_citations(text: str) -> list[tuple[int, str]]:
    """(line, citation) for every "issue N" of ``text`` that does not name another project's
    tracker (a URL such as ``…/issues/16`` opens and is not a citation here)."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in _ISSUE.finditer(line):
            if not _EXTERNAL.search(line[:m.start()]):
                found.append((number, m.group(0)))
    return found


def _cited_files() -> list[Path]:
    src = sorted(p for p in (ROOT / "src").rglob("*") if p.is_file() and "__pycache__" not in p.parts
                 and p.suffix not in {".pyc", ".png", ".pdf"})
    return [ROOT / "README.md", ROOT / "DEVELOPING.md", *sorted((ROOT / "docs").rglob("*.md")), *src]


def test_issue_scanner_flags_project_issues_and_keeps_other_projects() -> None:
    text = ("# see issue 19\n"
            "(Issue 27 §4: why)\n"
            "issues 18 and 19; issue #28; issue-27\n"
            "deepsig issue #16 and deepsig's issue #16\n"
            "https://github.com/Kaleidophon/deep-significance/issues/16\n"
            "an issue with 2 systems\n")
    assert issue_citations(text) == [(1, "issue 19"), (2, "Issue 27"), (3, "issues 18"),
                                     (3, "issue #28"), (3, "issue-27")]


def test_no_file_cites_an_issue_a_reader_cannot_open() -> None:
    cited = [f"{path.relative_to(ROOT)}:{line}: {citation}"
             for path in _cited_files()
             for line, citation in issue_citations(path.read_text(encoding="utf-8"))]
    assert not cited, ("state the reason instead of citing the issue:\n" + "\n".join(cited))
