"""Run every peer benchmark at a quick size and write ONE table to ``benchmarks/RESULTS.md``.

    python benchmarks/run.py [--only NAME,NAME] [--out benchmarks/RESULTS.md] [--timeout 300]
                             [--list]

Each row is one workload: ranger_eval ("ours") and the peer a user would pick instead, measured
by the same script in the same run (every script times both sides back to back), so the
**ratio** (peer seconds / our seconds; > 1 means we are faster) is what to compare between
machines and commits, not the seconds. The scale rows add the peak RSS of our process.

The previous figures are those of the committed table (``git show HEAD:benchmarks/RESULTS.md``,
or the file on disk outside git): they are printed beside the new ones, and a ratio that fell by
more than 20 % is marked **▼**. Running the script twice keeps one table: the previous column is
always what was committed, so commit RESULTS.md with a change to a hot path.

How a script's result is read (so the scripts stay usable by hand):

1. if the last line of its standard output is a JSON object with a ``"rows"`` list, those rows
   (keys: ``workload``, ``ours_s``, ``peer``, ``peer_s``, optional ``peak_mb``, ``note``; the
   peer's name should include its version) are taken as they are — a new benchmark should print
   such a line;
2. else, for scripts with a ``--json PATH`` output (``ir_bench.py``, ``large_scores_bench.py``),
   that file;
3. else a regular expression of the script's printed timings, given in ``PARSERS`` below beside
   each script (e.g. ``compare_bench.py``: lines ``  <tool>  <seconds> s   x<ratio> ours``).

A peer that is not installed gives a row reading "peer not installed"; a script that fails or
runs out of time gives a row saying so; neither stops the run.

Not timing rows (studies of statistical properties, or no peer): ``interval_coverage.py``,
``cluster_validity.py``, ``bootstrap_coverage.py``, ``paired_binary_intervals.py``,
``ppi_rank_null.py`` (coverage and
rejection-rate simulations: their output is a rate, not a time), ``predictive_bench.py`` and
``cli_bench.py`` (ours only, no peer), ``subset_eval.py`` (coverage and error of estimates from a
subset), ``winrate_bench.py`` (its baseline is our own earlier
code, kept in the script, not a tool a user would pick).
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "RESULTS.md"
DROP = 0.20  # a ratio more than 20 % below the committed one is marked
MARK_BEGIN, MARK_END = "<!-- results-json", "-->"


@dataclasses.dataclass
class Row:
    """One line of the table: a workload timed for ours and one peer in the same run."""

    bench: str
    workload: str
    peer: str
    ours_s: float | None = None
    peer_s: float | None = None
    peak_mb: float | None = None
    note: str = ""

    @property
    def key(self) -> str:
        return f"{self.bench} | {self.workload} | {_peer_key(self.peer)}"

    @property
    def ratio(self) -> float | None:
        if self.ours_s and self.peer_s:
            return self.peer_s / self.ours_s
        return None


def _peer_key(peer: str) -> str:
    """The peer's name without its version, so a peer upgrade keeps the previous figure."""
    return re.sub(r"\s+\d[\w.+-]*", "", peer).strip()


def _v(pkg: str) -> str:
    try:
        return f"{pkg} {md.version(pkg)}"
    except md.PackageNotFoundError:
        return f"{pkg} (not installed)"


def _installed(pkg: str) -> bool:
    try:
        md.version(pkg)
    except md.PackageNotFoundError:
        return False
    return True


def _f(pattern: str, text: str, group: int | str = 1, flags: int = re.M) -> float | None:
    m = re.search(pattern, text, flags)
    return float(m.group(group)) if m else None


# --------------------------------------------------------------------------------------------
# PARSERS: one per script, of its printed output (rule 3 of the module docstring)
# --------------------------------------------------------------------------------------------

def p_compare(out: str, _: dict | None) -> list[Row]:
    """compare_bench.py: ``  <tool>  <s> s   x<r> ours`` under 'paired t-tests' and 'permutation'."""
    t_part, _sep, p_part = out.partition("paired permutation tests")
    sections = ((t_part, "all-pairs paired t, 20 sys x 5 ds x 3 metrics x 1,000 items (2,850 tests)",
                 {"scipy ttest_rel loop": "scipy", "autorank": "autorank", "ranx student": "ranx"}),
                (p_part, "all-pairs permutation, 2,850 tests x 10,000 resamples",
                 {"scipy permutation_test (extrap.)": "scipy", "ranx fisher (extrap.)": "ranx"}))
    rows = []
    for part, label, peers in sections:
        found = {m.group(1).strip(): float(m.group(2)) for m in
                 re.finditer(r"^  (\S.*?)\s+([\d.]+) s\s+x[\d.]+ ours", part, re.M)}
        ours = found.get("ranger compare")
        for name, pkg in peers.items():
            note = "" if name in found else ("peer not installed" if not _installed(pkg)
                                             else "failed")
            rows.append(Row("compare_bench.py", label, name.replace(pkg, _v(pkg), 1), ours,
                            found.get(name), note=note))
    return rows


def compare_children(timeout: float) -> list[Row]:
    """compare_bench.py through its ``--child KIND`` workers (one JSON line each), interleaved.

    The whole script also runs autorank (15 ``autorank`` calls: minutes on a busy 2-core
    machine, beyond the 10-minute budget), so the quick run drives the workers itself: ours and
    the scipy loop alternate three times (one process each) and the median of each is used;
    ranx and the permutation peers once (extrapolated by the script as usual). If the workers'
    interface changes, the row says so and ``python benchmarks/compare_bench.py --quick`` still
    measures everything.
    """
    script = str(HERE / "compare_bench.py")

    def child(kind: str) -> dict | str:
        cmd = [sys.executable, script, "--child", kind, "--items", "1000", "--resamples",
               "10000", "--repeat", "1"]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return f"timed out after {timeout:.0f} s"
        try:
            return dict(json.loads(p.stdout.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return (p.stderr.strip().splitlines() or ["no output"])[-1][:150]

    def med(runs: list[dict | str]) -> tuple[float | None, str]:
        ok = sorted(r["seconds"] for r in runs if isinstance(r, dict))
        errs = [r for r in runs if isinstance(r, str)]
        return (ok[len(ok) // 2] if ok else None), (errs[0] if errs else "")

    def note(err: str, pkg: str) -> str:
        if "No module named" in err and not _installed(pkg):
            return "peer not installed"
        return err

    ours_runs, scipy_runs = [], []
    for _ in range(3):
        ours_runs.append(child("ours-t"))
        scipy_runs.append(child("scipy-t"))
    ours, e0 = med(ours_runs)
    sc, e1 = med(scipy_runs)
    rx, e2 = med([child("ranx-t")])
    w = "all-pairs paired t, 20 sys x 5 ds x 3 metrics x 1,000 items (2,850 tests)"
    rows = [Row("compare_bench.py", w, f"{_v('scipy')} ttest_rel loop (median of 3 interleaved)",
                ours, sc, note=e0 or e1),
            Row("compare_bench.py", w, f"{_v('ranx')} student", ours, rx, note=note(e2, "ranx")),
            Row("compare_bench.py", w, f"{_v('autorank')}", None, None,
                note="not in the quick run (minutes); python benchmarks/compare_bench.py --quick")]
    op, e3 = med([child("ours-perm")])
    sp, e4 = med([child("scipy-perm")])
    rf, e5 = med([child("ranx-fisher")])
    w = "all-pairs permutation, 2,850 tests x 10,000 resamples, 1,000 items"
    rows += [Row("compare_bench.py", w, f"{_v('scipy')} permutation_test (extrapolated)", op, sp,
                 note=e3 or e4),
             Row("compare_bench.py", w, f"{_v('ranx')} fisher (extrapolated)", op, rf,
                 note=e3 or note(e5, "ranx"))]
    return rows


def p_sig(out: str, _: dict | None) -> list[Row]:
    """sig_bench.py: ``ranger_eval (best of 3) <s>``, ``scipy permutation_test <s>``, deepsig."""
    ours = _f(r"^ranger_eval \(best of 3\)\s+([\d.]+)", out)
    w = "one paired permutation test, n = 10,000, 10,000 resamples"
    return [Row("sig_bench.py", w, f"{_v('scipy')} permutation_test", ours,
                _f(r"^scipy permutation_test\s+([\d.]+)", out)),
            Row("sig_bench.py", w, f"{_v('deepsig')} permutation_test (extrapolated)", ours,
                _f(r"^deepsig permutation_test \(extrap\.\)\s+([\d.]+)", out),
                note="" if _installed("deepsig") else "peer not installed")]


def p_aggregate(out: str, _: dict | None) -> list[Row]:
    """aggregate_bench.py: the final table ``<tool (80 wide)> <seconds> <peer/ours>``."""
    ours = _f(r"^ranger_eval\.aggregate\.rank_test\s+([\d.]+)", out)
    w = "Friedman + Nemenyi, 100 systems x 1,000 datasets"
    rows = []
    for pkg, pat in (("scikit-posthocs", r"^scikit-posthocs \S+ posthoc_nemenyi_friedman.*?\s([\d.]+)\s+[\d.]+$"),
                     ("autorank", r"^autorank \S+ \(force_mode.*?\s([\d.]+)\s+[\d.]+$")):
        peer_s = _f(pat, out)
        rows.append(Row("aggregate_bench.py", w, _v(pkg), ours, peer_s,
                        note="" if peer_s else ("peer not installed" if not _installed(pkg)
                                                else "failed")))
    return rows


def p_agg_metrics(out: str, _: dict | None) -> list[Row]:
    """aggregate_metrics_bench.py: ``ranger_eval <best s> <cpu s> <rows/s>``, ``naive pandas ...``."""
    return [Row("aggregate_metrics_bench.py", "aggregate_metrics, 3 metrics x 20 systems x "
                "20,000 items", f"{_v('pandas')} (groupby implementation)",
                _f(r"^ranger_eval\s+([\d.]+)", out), _f(r"^naive pandas\s+([\d.]+)", out))]


def p_equivalence(out: str, _: dict | None) -> list[Row]:
    """equivalence_bench.py: ``compare (equivalence, TOST) <s> s``, ``statsmodels ttost_paired ...``."""
    return [Row("equivalence_bench.py", "TOST all pairs, 20 systems x 5 datasets x 500 items "
                "(950 pairs)", f"{_v('statsmodels')} ttost_paired loop",
                _f(r"compare \(equivalence, TOST\)\s+([\d.]+) s", out),
                _f(r"statsmodels ttost_paired / pair\s+([\d.]+) s", out))]


def p_aso(out: str, _: dict | None) -> list[Row]:
    """aso_bench.py: ``... resamples: <s> s`` and deepsig's ``extrapolated to N rounds: <s> s``."""
    return [Row("aso_bench.py", "multi_aso, 5 systems x 1,000 scores, 1,000 resamples",
                f"{_v('deepsig')} multi_aso (extrapolated from 2 / 6 rounds)",
                _f(r"resamples: ([\d.]+) s$", out),
                _f(r"extrapolated to \d+ rounds: ([\d.]+) s", out),
                note="" if _installed("deepsig") else "peer not installed")]


def p_ppi(out: str, _: dict | None) -> list[Row]:
    """ppi_bench.py: ``  rg.ppi_mean ... <ms> ms`` and ``  ppi_py ... <ms> ms``."""
    ours = _f(r"^  rg\.ppi_mean.*?\s([\d.]+) ms", out)
    peer = _f(r"^  ppi_py .*?\s([\d.]+) ms", out)
    return [Row("ppi_bench.py", "prediction-powered mean, 1,000,000 items (5 % human)",
                f"{_v('ppi-python')} ppi_mean_ci + pointestimate",
                ours / 1e3 if ours else None, peer / 1e3 if peer else None,
                note="" if _installed("ppi-python") else "peer not installed")]


def p_cluster(out: str, _: dict | None) -> list[Row]:
    """cluster_bench.py: ``one mean   Inspect <v> stderr(cluster) <ms> ms   ranger_eval <ms> ms``."""
    m = re.search(r"Inspect \S+ stderr\(cluster\)\s+([\d.]+) ms\s+ranger_eval\s+([\d.]+) ms", out)
    return [Row("cluster_bench.py", "cluster-robust SE of one mean, 10,000 items in 1,000 clusters",
                f"{_v('inspect_ai')} stderr(cluster=...)",
                float(m.group(2)) / 1e3 if m else None, float(m.group(1)) / 1e3 if m else None,
                note="" if m or _installed("inspect_ai") else "peer not installed")]


def p_arena(out: str, _: dict | None) -> list[Row]:
    """arena_bench.py: ``... bootstrap rounds: <s> s`` and FastChat's ``= <s> s (from N rounds)``."""
    return [Row("arena_bench.py", "Bradley-Terry, 100,000 battles, 100 models, 100 bootstrap "
                "rounds", f"FastChat compute_elo_mle_with_tie (copy; {_v('scikit-learn')}), "
                "extrapolated from 2 rounds",
                _f(r"bootstrap rounds: ([\d.]+) s", out), _f(r"= ([\d.]+) s \(from \d+ rounds\)", out))]


def p_arena_style(out: str, _: dict | None) -> list[Row]:
    """arena_style_bench.py: ``bootstrap rounds: <s> s`` and the peers' ``= <s> s (from N rounds)``."""
    work = "style-controlled Bradley-Terry, 100,000 battles, 100 models, 4 covariates, 100 rounds"
    return [Row("arena_style_bench.py", work,
                f"LMArena-style L-BFGS-B per round ({_v('scipy')}), extrapolated from 2 rounds",
                _f(r"bootstrap rounds: ([\d.]+) s", out),
                _f(r"L-BFGS-B per resampled round .*?= ([\d.]+) s", out))]


def p_meta(out: str, _: dict | None) -> list[Row]:
    """meta_scale_bench.py: ``metafor <v> rma(M): <s>s, ratio metafor/ranger <r>x`` and statsmodels."""
    rows = []
    for m in re.finditer(r"metafor (\S+) rma\((\w+)\): ([\d.]+)s, ratio metafor/ranger ([\d.]+)x",
                         out):
        peer_s, r = float(m.group(3)), float(m.group(4))
        rows.append(Row("meta_scale_bench.py", f"meta-analysis {m.group(2)}, k = 2,000 datasets",
                        f"metafor {m.group(1)} rma()", peer_s / r if r else None, peer_s))
    for m in re.finditer(r"statsmodels (\S+) combine_effects\((\w+)\): ([\d.]+)s vs ranger_eval "
                         r"([\d.]+)s", out):
        rows.append(Row("meta_scale_bench.py", f"meta-analysis {m.group(2)}, k = 2,000 datasets",
                        f"statsmodels {m.group(1)} combine_effects", float(m.group(4)),
                        float(m.group(3)), note="best of 5 warm calls each"))
    if not any("metafor" in r.peer for r in rows):
        rows.append(Row("meta_scale_bench.py", "meta-analysis REML, k = 2,000 datasets",
                        "metafor rma()", note=_f_text(r"metafor: (.*)", out) or "failed"))
    return rows


def _f_text(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text, re.M)
    return m.group(1).strip() if m else None


def p_groups(cmd: str) -> Callable[[str, dict | None], list[Row]]:
    """groups_scale_bench.py: ``  <cmd>  <s> s  <µs> µs/group  peak <MB> MB  ok`` (scale row)."""
    def parse(out: str, _: dict | None) -> list[Row]:
        m = re.search(rf"^  {cmd}\s+([\d.]+) s .*?peak (?:<= )?([\d.]+) MB\s+(.*)$", out, re.M)
        ok = bool(m) and m.group(3).strip() == "ok"
        return [Row("groups_scale_bench.py", f"ranger-eval {cmd} (CLI, Parquet in, --figures none),"
                    " 1,000,000 datasets x 2 systems x 2 items", "(scale row: no peer)",
                    float(m.group(1)) if ok and m else None, None,
                    float(m.group(2)) if ok and m else None,
                    note="" if ok else (m.group(3)[:120] if m else "failed"))]
    return parse


def p_large(mode: str) -> Callable[[str, dict | None], list[Row]]:
    """large_scores_bench.py: its ``--json`` file, ``results[name]`` with seconds and peak_mb."""
    def parse(out: str, js: dict | None) -> list[Row]:
        res = (js or {}).get("results", {})
        vers = (js or {}).get("versions", {})
        ours = res.get("ours", {})
        w = "lazy compare + effect sizes + meta, 10 sys x 10 ds x 100,000 items (10M rows)"
        names = {"naive-sql": f"DuckDB {vers.get('duckdb', '')} self-join (statistics only)",
                 "pandas-slice": f"pandas {vers.get('pandas', '')} read_parquet + in-memory "
                                 "compare (extrapolated from 10,000 items)",
                 "ours-dask": f"our Dask engine (dask {vers.get('dask', '')}, 2 workers)"}
        peers = ["naive-sql", "pandas-slice"] if mode == "pipeline" else ["ours-dask"]
        rows = []
        for p in peers:
            r = res.get(p, {})
            rows.append(Row("large_scores_bench.py", w + (" [DuckDB vs Dask]" if mode == "dask"
                                                          else ""),
                            names[p], ours.get("seconds"), r.get("seconds"), ours.get("peak_mb"),
                            note=(f"peer peak {r['peak_mb']:.0f} MB" if "peak_mb" in r else
                                  str(r.get("error", ""))[:120])))
        return rows
    return parse


def p_ir(out: str, js: dict | None) -> list[Row]:
    """ir_bench.py: its ``--json`` file, results per tool with cold_s / warm_s."""
    res = {r["tool"]: r for r in (js or {}).get("results", []) if r.get("status") == "ok"}

    def best(r: dict) -> float:
        return min([r["cold_s"], *r.get("warm_s", [])]) if r["tool"] != "ranx" or not \
            r.get("warm_s") else min(r["warm_s"])

    ours = best(res["ranger_eval"]) if "ranger_eval" in res else None
    rows = []
    for tool, pkg in (("pytrec_eval", "pytrec-eval-terrier"), ("ir_measures", "ir-measures"),
                      ("ranx", "ranx")):
        r = res.get(tool)
        rows.append(Row("ir_bench.py", "one run, 500 topics x 1,000 docs, nDCG@10 + AP + RR",
                        _v(pkg) + (" (warm)" if tool == "ranx" else ""), ours,
                        best(r) if r else None,
                        note="" if r else ("peer not installed" if not _installed(pkg)
                                           else "failed")))
    return rows


def p_ir_batch(out: str, _: dict | None) -> list[Row]:
    """ir_batch_bench.py: its table rows ``<tool> <version> <cold s> <warm s> <ratio>x``."""
    found = {m.group(1): (float(m.group(2)), m.group(3)) for m in re.finditer(
        r"^\s*(ranger_eval|pytrec_eval|ranx)\s+\S+\s+([\d.]+)\s+([\d.]+|-)\s+[\d.]+x", out, re.M)}

    def best(tool: str) -> float | None:
        if tool not in found:
            return None
        cold, warm = found[tool]
        return float(warm) if tool == "ranx" and warm != "-" else \
            min(cold, float(warm) if warm != "-" else cold)

    rows = []
    for tool, pkg in (("pytrec_eval", "pytrec-eval-terrier"), ("ranx", "ranx")):
        rows.append(Row("ir_batch_bench.py", "IR batch, 10 runs x 200,000 lines, nDCG@10 + AP + RR",
                        _v(pkg), best("ranger_eval"), best(tool),
                        note="" if tool in found else ("peer not installed" if not
                                                       _installed(pkg) else "failed")))
    return rows


def p_wilcoxon(out: str, _: dict | None) -> list[Row]:
    """wilcoxon_bench.py: any ``... <s> s ... scipy`` ratio line, if no JSON line."""
    ratio = _f(r"([\d.]+)\s*[x×]\s*(?:the\s+)?scipy", out) or _f(r"scipy[^\n]*?([\d.]+)\s*[x×]", out)
    return [Row("wilcoxon_bench.py", "all-pairs Wilcoxon", f"{_v('scipy')} wilcoxon loop",
                1.0 if ratio else None, ratio, note="" if ratio else "no ratio found in output")]


def p_mannwhitney(out: str, _: dict | None) -> list[Row]:
    """mannwhitney_bench.py: ``median ours <s> s, scipy loop <s> s``."""
    ours = _f(r"median ours ([\d.]+) s", out)
    peer = _f(r"scipy loop ([\d.]+) s", out)
    return [Row("mannwhitney_bench.py", "all-pairs Mann-Whitney (unpaired)",
                f"{_v('scipy')} mannwhitneyu loop", ours, peer,
                note="" if ours and peer else "no times found in output")]
def p_json_only(out: str, _: dict | None) -> list[Row]:
    """Scripts whose last line is the JSON row (read before this parser); nothing else."""
    return []


# --------------------------------------------------------------------------------------------
# the benchmarks, at their quick sizes (total under 10 minutes on 2 cores)
# --------------------------------------------------------------------------------------------

@dataclasses.dataclass
class Bench:
    name: str
    script: str
    args: list[str]
    parse: Callable[[str, dict | None], list[Row]]
    json_arg: str | None = None  # the script's own --json PATH option, if any
    runner: Callable[[float], list[Row]] | None = None  # drives the script's workers itself


def benches(tmp: Path) -> list[Bench]:
    return [
        Bench("compare", "compare_bench.py", ["--quick", "--repeat", "3"], p_compare,
              runner=compare_children),
        Bench("wilcoxon", "wilcoxon_bench.py", ["--quick"], p_wilcoxon),
        Bench("mannwhitney", "mannwhitney_bench.py", ["--quick"], p_mannwhitney),
        Bench("sig", "sig_bench.py", ["--systems", "3", "--deepsig-resamples", "50"], p_sig),
        Bench("aggregate", "aggregate_bench.py", [], p_aggregate),
        Bench("aggregate_metrics", "aggregate_metrics_bench.py", ["--items", "20000"], p_agg_metrics),
        Bench("equivalence", "equivalence_bench.py", ["--datasets", "5"], p_equivalence),
        Bench("aso", "aso_bench.py", [], p_aso),
        Bench("agreement", "agreement_bench.py", ["--repeat", "3"], lambda out, js: []),
        Bench("varcomp", "varcomp_bench.py", ["--repeat", "3"], p_json_only),
        Bench("ppi", "ppi_bench.py", ["--repeat", "3"], p_ppi),
        Bench("passk", "passk_bench.py", ["--items", "200000", "--repeat", "3"],
              lambda out, js: []),  # prints its JSON row (read before any parser)
        Bench("confseq", "confseq_bench.py", ["--quick"], p_json_only),
        Bench("monitor", "monitor_bench.py", ["--quick"], p_json_only),
        Bench("irt", "irt_bench.py", ["--repeat", "1", "--peer-items", "60"],
              lambda out, js: []),  # its last line is the JSON row list
        Bench("subset", "subset_bench.py", ["--repeat", "1"],
              lambda out, js: []),  # its last line is the JSON row list
        Bench("cluster", "cluster_bench.py", ["--items", "1000", "--resamples", "100", "--repeat",
                                              "1"], p_cluster),
        Bench("clustered_rank", "clustered_rank_bench.py", ["--quick", "--repeat", "3"],
              lambda out, js: []),  # its last line is the JSON row list
        Bench("arena", "arena_bench.py", ["--battles", "100000", "--rounds", "100",
                                          "--fastchat-rounds", "2"], p_arena),
        Bench("arena_style", "arena_style_bench.py", ["--battles", "100000", "--rounds", "100",
                                                      "--peer-rounds", "2"], p_arena_style),
        Bench("meta", "meta_scale_bench.py", ["--k", "2000", "--peer-max-k", "2000"], p_meta),
        Bench("ir", "ir_bench.py", ["--queries", "500", "--repeats", "2", "--data",
                                    str(Path(tempfile.gettempdir()) / "ranger_bench_ir"),
                                    "--tools", "ranger_eval,pytrec_eval,ir_measures,ranx"],
              p_ir, json_arg="--json"),
        Bench("ir_batch", "ir_batch_bench.py",
              ["--runs", "10", "--queries", "200", "--docs", "1000", "--repeats", "1",
               "--tools", "ranger_eval,pytrec_eval,ranx",
               "--data", str(Path(tempfile.gettempdir()) / "ranger_bench_irbatch")], p_ir_batch),
        Bench("groups_compare", "groups_scale_bench.py", ["--groups", "1000000", "--commands",
                                                          "compare"], p_groups("compare")),
        Bench("groups_rank", "groups_scale_bench.py", ["--groups", "1000000", "--commands", "rank"],
              p_groups("rank")),
        Bench("large", "large_scores_bench.py",
              ["--mode", "pipeline", "--items", "100000", "--slice", "10000", "--data",
               str(Path(tempfile.gettempdir()) / "ranger_bench_large")], p_large("pipeline"),
              json_arg="--json"),
        Bench("large_dask", "large_scores_bench.py",
              ["--mode", "dask", "--items", "100000", "--data",
               str(Path(tempfile.gettempdir()) / "ranger_bench_large")], p_large("dask"),
              json_arg="--json"),
    ]


def run_one(b: Bench, tmp: Path, timeout: float) -> tuple[list[Row], float]:
    path = HERE / b.script
    if not path.exists():
        return [], 0.0
    if b.runner is not None:
        t0 = time.perf_counter()
        return b.runner(timeout), time.perf_counter() - t0
    cmd = [sys.executable, str(path), *b.args]
    js_path = tmp / f"{b.name}.json"
    if b.json_arg:
        cmd += [b.json_arg, str(js_path)]
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return [Row(b.script, f"(quick size: {' '.join(b.args)})", "-",
                    note=f"timed out after {timeout:.0f} s")], time.perf_counter() - t0
    wall = time.perf_counter() - t0
    out = p.stdout
    lines = out.strip().splitlines()
    if lines:
        try:
            last = json.loads(lines[-1])
        except ValueError:
            last = None
        if isinstance(last, dict) and isinstance(last.get("rows"), list):
            return [Row(b.script, r["workload"], r["peer"], r.get("ours_s"), r.get("peer_s"),
                        r.get("peak_mb"), r.get("note", "")) for r in last["rows"]], wall
    js = json.loads(js_path.read_text()) if js_path.exists() else None
    try:
        rows = b.parse(out, js)
    except Exception as exc:  # a changed output format must not stop the other rows
        rows = [Row(b.script, "(unparsed)", "-", note=f"parse error: {exc!r}"[:150])]
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or [""])[-1][:150]
        for r in rows:
            if r.ratio is None and r.ours_s is None:
                r.note = r.note or f"exit {p.returncode}: {tail}"
        if not rows:
            rows = [Row(b.script, "(failed)", "-", note=f"exit {p.returncode}: {tail}")]
    return rows, wall


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

def previous(path: Path) -> dict[str, dict]:
    """The committed table's rows by key (git HEAD's version; the file on disk outside git)."""
    text = None
    try:
        rel = path.resolve().relative_to(HERE.parent)
        p = subprocess.run(["git", "-C", str(HERE.parent), "show", f"HEAD:{rel.as_posix()}"],
                           capture_output=True, text=True, check=False)
        if p.returncode == 0:
            text = p.stdout
    except ValueError:
        pass
    if text is None and path.exists():
        text = path.read_text()
    if not text or MARK_BEGIN not in text:
        return {}
    blob = text.split(MARK_BEGIN, 1)[1].split(MARK_END, 1)[0]
    return {r["key"]: r for r in json.loads(blob)["rows"]}


def _s(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    return f"{x:.{digits}g}" if x < 1000 else f"{x:,.0f}"


def render(rows: list[Row], prev: dict[str, dict], meta: dict) -> tuple[str, list[str]]:
    marked = []
    head = ["workload", "ours s", "peer", "peer s", "ratio (peer/ours)", "previous ratio",
            "peak MB (ours)", "previous peak MB", "note"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        old = prev.get(r.key, {})
        pr, pm = old.get("ratio"), old.get("peak_mb")
        ratio = f"{r.ratio:.2f}×" if r.ratio is not None else ("—" if r.peer_s is None else "")
        if r.ratio is not None and pr and r.ratio < (1 - DROP) * pr:
            ratio = f"**{ratio} ▼ {100 * (r.ratio / pr - 1):.0f} %**"
            marked.append(f"{r.workload} vs {r.peer}: {pr:.2f}× → {r.ratio:.2f}×")
        if r.ours_s is None and r.peer_s is None and "(scale row" not in r.peer:
            ratio = "—"
        lines.append("| " + " | ".join([
            f"{r.workload} (`{r.bench}`)", _s(r.ours_s), r.peer, _s(r.peer_s), ratio,
            f"{pr:.2f}×" if pr else "—", _s(r.peak_mb, 4) if r.peak_mb else "",
            _s(pm, 4) if pm else "", r.note.replace("|", "/")]) + " |")
    blob = {"meta": meta, "rows": [{"key": r.key, **dataclasses.asdict(r), "ratio": r.ratio}
                                   for r in rows]}
    text = "\n".join([
        "# Benchmark results",
        "",
        "Written by `python benchmarks/run.py` (do not edit by hand; see its docstring and",
        "`benchmarks/README.md`). Every row times ranger_eval (**ours**) and a **peer** in the same",
        "run of the same script; the **ratio** is peer seconds / our seconds (> 1: we are faster).",
        "Absolute seconds depend on the machine and its load; compare ratios. **Previous** is the",
        "committed table before this run; a ratio more than 20 % below it is marked **▼**.",
        "Peak MB is the peak RSS of our process (scale rows).",
        "",
        f"Run {meta['date']} on {meta['cores']} cores, load average {meta['load_before']} before / "
        f"{meta['load_after']} after, {meta['total_s']:.0f} s in all; {meta['versions']}; "
        f"commit {meta['commit']}.",
        "",
        *lines,
        "",
        ("Ratios that fell by more than 20 %: " + "; ".join(marked) + ".") if marked else
        "No ratio fell by more than 20 % against the committed table.",
        "",
        f"{MARK_BEGIN}\n{json.dumps(blob, indent=1)}\n{MARK_END}",
        "",
    ])
    return text, marked


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default=None, help="comma-separated names (see --list)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per script")
    ap.add_argument("--list", action="store_true", help="list the benchmarks and their quick sizes")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="ranger_bench_run_") as d:
        tmp = Path(d)
        todo = benches(tmp)
        if a.list:
            for b in todo:
                print(f"{b.name:<18} {b.script:<28} {' '.join(b.args)}")
            return
        if a.only:
            names = set(a.only.split(","))
            todo = [b for b in todo if b.name in names]
        prev = previous(a.out)
        load0 = f"{os.getloadavg()[0]:.1f}"
        t_all = time.perf_counter()
        rows: list[Row] = []
        for b in todo:
            print(f"{b.name:<18} ...", end=" ", flush=True)
            got, wall = run_one(b, tmp, a.timeout)
            if not got and not (HERE / b.script).exists():
                print("not present, skipped")
                continue
            rows += got
            print(f"{wall:6.1f} s  " + "; ".join(
                f"{r.ratio:.2f}×" if r.ratio else (r.note or "-") for r in got), flush=True)
        if a.only:  # keep the committed rows of the benchmarks not run this time
            done = {r.key for r in rows}
            rows += [Row(**{k: v for k, v in old.items() if k in
                            {f.name for f in dataclasses.fields(Row)}})
                     for key, old in prev.items() if key not in done]
        commit = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=False).stdout.strip()
        meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "cores": os.cpu_count(),
                "load_before": load0, "load_after": f"{os.getloadavg()[0]:.1f}",
                "total_s": time.perf_counter() - t_all, "commit": commit or "?",
                "versions": ", ".join(_v(p) for p in ("ranger-eval", "numpy", "scipy", "pandas"))}
        text, marked = render(rows, prev, meta)
        _write_atomic(a.out, text)
        print(f"wrote {a.out} ({len(rows)} rows, {meta['total_s']:.0f} s)")
        for m in marked:
            print(f"  ▼ {m}")


if __name__ == "__main__":
    main()
