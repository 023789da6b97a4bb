"""One run, end to end: ranger_eval vs pytrec_eval-terrier, ir_measures and ranx.

    python benchmarks/ir_bench.py [--queries 1500] [--docs 1000] [--max-judged 20] [--repeats 3]
                                  [--rounds 1] [--data DIR] [--seed 0] [--shuffle]
                                  [--tools ranger_eval,ranx,...] [--baseline-src DIR]

The single-run counterpart of ir_batch_bench.py (many runs, one qrels). Workload: a synthetic TREC
run (6 columns ``qid Q0 docid rank score tag``; --queries × --docs lines, 1,500 × 1,000 by
default) and qrels (``qid 0 docid label``; 1 to --max-judged judged
documents per query, labels 0-3, about 70% of them retrieved by the run, ranked mostly near the
top, the rest unretrieved). Docids are "doc" + a random integer below 8,000,000 (lengths vary, so
byte order differs from numeric order); query ids are random integers written in numeric order.
Half the queries have BM25-like scores (4 decimals, ~1% tied with a neighbour), half dense-like
cosine scores with 9 significant digits (a few collapse into ties in float32). Tied documents are
written in random order. --shuffle permutes all run lines. Files go to a temporary folder that
is deleted afterwards, or to --data DIR, where they are kept and reused when the parameters match.

Each tool runs in its own subprocess, one after the other, and times the whole job on the files:
read qrels + read run + per-query nDCG@10, AP and RR.
  ranger_eval      ranger_eval.ir.evaluate(qrels_path, run_path, ["nDCG@10", "AP", "RR"],
                   missing="zero", score_precision="float64")
  ranger_eval[f32] the same with score_precision="float32" (trec_eval 9 / pytrec_eval ranking)
  ranger_eval[1 thread]  the same call inside ranger_eval.ir.readers.one_thread(), as each run of
                   a batch (evaluate_many) is evaluated: pyarrow single-threaded, no helper
                   threads. Its time over ranger_eval's is what one run gains from the other cores
  ranger_eval[baseline]  ranger_eval imported from --baseline-src DIR (the ``src`` folder of another
                   version, e.g. ``git archive 7e6e593~1 src | tar -x -C /tmp/old`` then
                   ``--baseline-src /tmp/old/src``), to time two versions side by side in one run
  pytrec_eval      pytrec_eval.parse_qrel / parse_run on open files, then
                   RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"}).evaluate(run)
  ir_measures      read_trec_qrels / read_trec_run, iter_calc([nDCG@10, AP, RR], ...) consumed
                   into a list (the provider it picks is printed)
  ranx             Qrels.from_file, Run.from_file, evaluate(qrels, run, ["ndcg@10", "map", "mrr"],
                   return_mean=False); numba compiles on the first call in a process
"cold s" is the first call in a fresh process (after the import, which is timed separately),
"warm s" the best of --repeats further calls in the same process. With --rounds N every tool's
subprocess is started N times, the tools taking turns (round-robin), so that a busy machine
slows them alike; the best warm time over all rounds is reported, and the speed ratio to
pytrec_eval of each round. "peak MB" is the subprocess's
whole peak RSS after all calls (interpreter, libraries, data; nothing subtracted), "1st-call MB"
the peak right after the cold call (allocators such as Arrow's mimalloc keep freed memory, so
repeats can raise the peak) and "import MB" the peak right after importing the tool, before any
file is touched. Peak RSS is VmHWM (see _peak_mb: ru_maxrss is inherited across fork + exec). A tool that cannot be imported is reported
as "not installed" and skipped. Agreement: mean of every measure per tool, and the largest
per-query |difference| from pytrec_eval (which ranks float32 scores, so ranger_eval[f32] should
match it exactly; float64 ranking may differ where float32 rounding creates ties).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURES = ("nDCG@10", "AP", "RR")
TOOLS = ("ranger_eval", "ranger_eval[f32]", "ranger_eval[1 thread]", "ranger_eval[baseline]",
         "pytrec_eval", "ir_measures", "ranx")
DEFAULT_TOOLS = tuple(t for t in TOOLS if t != "ranger_eval[baseline]")  # needs --baseline-src
CORPUS = 8_000_000
GEN_VERSION = 1  # bump when the generator changes, so cached --data files are regenerated


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------

def _run_scores(rng, n: int, dense: bool):
    """Descending scores for one query: BM25-like (4 decimals) or dense-like (9 significant)."""
    import numpy as np

    if dense:
        s = 0.92 - np.cumsum(rng.exponential(0.55 / n, n))
        s = np.round(s, 9)
    else:
        s = rng.uniform(18.0, 32.0) - np.cumsum(rng.exponential(0.015, n))
        s = np.round(s, 4)
        tie = np.flatnonzero(rng.random(n - 1) < 0.01) + 1  # extra exact ties with the neighbour
        for i in tie:  # in increasing order, so runs of ties stay monotone
            s[i] = s[i - 1]
    return s


def generate(folder: Path, queries: int, docs: int, max_judged: int, seed: int,
             shuffle: bool) -> tuple[Path, Path, dict]:
    """Write ``run.txt`` and ``qrels.txt`` into ``folder``; reuse them if the parameters match."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    params = {"queries": queries, "docs": docs, "max_judged": max_judged, "seed": seed,
              "shuffle": shuffle, "generator": GEN_VERSION}
    run_path, qrels_path, meta_path = folder / "run.txt", folder / "qrels.txt", folder / "meta.json"
    if meta_path.exists() and run_path.exists() and qrels_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == params:
            return qrels_path, run_path, meta
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qnum = np.sort(rng.choice(1_000_000, queries, replace=False))
    doc_num = np.empty((queries, docs), dtype=np.int64)
    score = np.empty((queries, docs), dtype=np.float64)
    q_lines: list[str] = []
    rank_w = 1.0 / (np.arange(docs) + 5.0)
    rank_w /= rank_w.sum()
    n_ties = n_judged = n_judged_in = 0
    for i in range(queries):
        d = rng.choice(CORPUS, docs, replace=False)
        s = _run_scores(rng, docs, dense=bool(i % 2))
        doc_num[i], score[i] = d, s
        n_ties += int(np.sum(s[1:] == s[:-1]))
        nj = int(rng.integers(1, max_judged + 1))
        n_in = int(rng.binomial(nj, 0.7))
        ranks = rng.choice(docs, n_in, replace=False, p=rank_w)
        judged = list(d[ranks])
        lab = list(rng.choice(4, n_in, p=[0.35, 0.30, 0.20, 0.15]))
        in_run = set(d.tolist())
        while len(judged) < nj:
            x = int(rng.integers(CORPUS))
            if x not in in_run and x not in judged:
                judged.append(x)
                lab.append(int(rng.choice(4, p=[0.6, 0.25, 0.1, 0.05])))
        perm = rng.permutation(nj)
        q_lines.extend(f"{qnum[i]} 0 doc{judged[j]} {lab[j]}\n" for j in perm)
        n_judged += nj
        n_judged_in += n_in
    qrels_path.write_text("".join(q_lines))

    n = queries * docs
    ranks = np.tile(np.arange(1, docs + 1, dtype=np.int64), queries)
    table = pa.table({
        "qid": pc.cast(pa.array(np.repeat(qnum, docs)), pa.string()),
        "q0": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
        "docid": pc.binary_join_element_wise("doc", pc.cast(pa.array(doc_num.reshape(-1)),
                                                             pa.string()), ""),
        "rank": pa.array(ranks),
        "score": pa.array(score.reshape(-1)),
        "tag": pa.array(np.full(n, "bench", dtype=object), pa.string()),
    })
    if shuffle:
        table = table.take(pa.array(rng.permutation(n)))
    pcsv.write_csv(table, str(run_path),
                   pcsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none"))
    f32 = score.astype(np.float32)
    meta = {"params": params, "run_lines": n, "qrels_lines": n_judged,
            "judged_in_run": n_judged_in, "adjacent_ties_f64": n_ties,
            "adjacent_ties_f32": int(np.sum(f32[:, 1:] == f32[:, :-1])),
            "run_mb": round(run_path.stat().st_size / 2**20, 1)}
    meta_path.write_text(json.dumps(meta, indent=1))
    return qrels_path, run_path, meta


# --------------------------------------------------------------------------------------------
# workers (one tool per subprocess)
# --------------------------------------------------------------------------------------------

def _peak_mb() -> float:
    """Peak RSS of this process in MiB: VmHWM of /proc/self/status (Linux), else ru_maxrss.

    ru_maxrss is not used on Linux because it survives fork + exec: a worker started by a parent
    holding 1 GB would report at least 1 GB. VmHWM belongs to the exec'd address space only.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    scale = 1.0 if sys.platform == "darwin" else 1024.0  # macOS: bytes, Linux/BSD: KiB
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0 / scale


def _dist_version(*names: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    for n in names:
        try:
            return version(n)
        except PackageNotFoundError:
            continue
    return "?"


def _tool(name: str, qrels: str, run: str):
    """Import ``name`` and return (version, job, to_per_query, note); job() does the timed work."""
    if name.startswith("ranger_eval"):
        import ranger_eval
        import ranger_eval.ir as rir

        precision = "float32" if name.endswith("[f32]") else "float64"
        alone = name.endswith("[1 thread]")
        if alone:  # (not imported otherwise: a --baseline-src version may predate it)
            from ranger_eval.ir.readers import one_thread

        def job():
            with one_thread() if alone else contextlib.nullcontext():
                return rir.evaluate(qrels, run, list(MEASURES), missing="zero",
                                    score_precision=precision)

        def per_query(df):
            wide = df.pivot(index="query_id", columns="measure", values="value")
            return {str(q): [float(x) for x in row]
                    for q, row in zip(wide.index, wide[list(MEASURES)].to_numpy(), strict=True)}

        note = f"score_precision={precision}" + (", one thread" if alone else "")
        if name.endswith("[baseline]"):
            note += f", from {Path(ranger_eval.__file__).parents[1]}"
        return ranger_eval.__version__, job, per_query, note
    if name == "pytrec_eval":
        import pytrec_eval

        keys = ("ndcg_cut_10", "map", "recip_rank")

        def job():
            with open(qrels) as f:
                qr = pytrec_eval.parse_qrel(f)
            with open(run) as f:
                rn = pytrec_eval.parse_run(f)
            ev = pytrec_eval.RelevanceEvaluator(qr, {"ndcg_cut.10", "map", "recip_rank"})
            return ev.evaluate(rn)

        def per_query(res):
            return {q: [float(v[k]) for k in keys] for q, v in res.items()}

        return _dist_version("pytrec-eval-terrier", "pytrec_eval"), job, per_query, ""
    if name == "ir_measures":
        import ir_measures

        ms = [ir_measures.parse_measure(m) for m in MEASURES]
        providers = ir_measures.DefaultPipeline.providers
        used = sorted({next((p.NAME for p in providers if p.is_available() and p.supports(m)), "?")
                       for m in ms})

        def job():
            return list(ir_measures.iter_calc(ms, ir_measures.read_trec_qrels(qrels),
                                              ir_measures.read_trec_run(run)))

        def per_query(res):
            out: dict[str, list[float]] = {}
            for r in res:
                out.setdefault(r.query_id, [float("nan")] * len(MEASURES))[ms.index(r.measure)] = \
                    float(r.value)
            return out

        return ir_measures.__version__, job, per_query, "provider " + "+".join(used)
    if name == "ranx":
        from ranx import Qrels, Run, evaluate

        keys = ("ndcg@10", "map", "mrr")

        def job():
            qr = Qrels.from_file(qrels)
            rn = Run.from_file(run)
            values = evaluate(qr, rn, list(keys), return_mean=False)
            return rn.get_query_ids(), values

        def per_query(res):
            ids, values = res
            return {str(q): [float(values[k][i]) for k in keys] for i, q in enumerate(ids)}

        threads = os.environ.get("NUMBA_NUM_THREADS", str(os.cpu_count()))
        return _dist_version("ranx"), job, per_query, f"numba threads={threads}"
    raise ValueError(f"unknown tool {name!r}; choose from {', '.join(TOOLS)}")


def worker(name: str, qrels: str, run: str, repeats: int) -> dict:
    import gc

    t0 = time.perf_counter()
    try:
        version, job, per_query, note = _tool(name, qrels, run)
    except ImportError as exc:
        return {"tool": name, "status": "not installed", "error": str(exc)}
    import_s = time.perf_counter() - t0
    import_mb = _peak_mb()
    t = time.perf_counter()
    res = job()
    cold = time.perf_counter() - t
    cold_mb = _peak_mb()
    pq = per_query(res)
    del res
    warm: list[float] = []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        res = job()
        warm.append(time.perf_counter() - t)
        del res
    return {"tool": name, "status": "ok", "version": version, "note": note, "import_s": import_s,
            "import_mb": import_mb, "cold_s": cold, "cold_mb": cold_mb, "warm_s": warm, "peak_mb": _peak_mb(),
            "per_query": pq}


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

def _spawn(tool: str, qrels: Path, run: Path, repeats: int, baseline: Path | None = None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", tool, "--qrels", str(qrels),
           "--run", str(run), "--repeats", str(repeats)]
    env = None
    if tool == "ranger_eval[baseline]":  # that version's package first on the path
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [str(baseline), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        return {"tool": tool, "status": "failed", "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def _merge(rounds: list[dict]) -> dict:
    """One tool's results over the rounds: every warm time (and each round's best, for the
    per-round ratios), the fastest import and cold call, the largest peaks."""
    ok = [r for r in rounds if r["status"] == "ok"]
    if not ok:
        return rounds[0]
    out = dict(ok[0])
    out["warm_s"] = [w for r in ok for w in r["warm_s"]]
    out["round_best"] = [min(r["warm_s"]) for r in ok]
    for key in ("import_s", "cold_s"):
        out[key] = min(r[key] for r in ok)
    for key in ("import_mb", "cold_mb", "peak_mb"):
        out[key] = max(r[key] for r in ok)
    return out


def _table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    lines += [fmt.format(*r) for r in rows]
    return "\n".join(lines)


def report(results: list[dict], meta: dict, repeats: int, rounds: int = 1) -> None:
    import numpy as np

    ok = {r["tool"]: r for r in results if r["status"] == "ok"}
    base = ok.get("ranger_eval")
    base_warm = min(base["warm_s"]) if base and base["warm_s"] else None
    rows = []
    for r in results:
        if r["status"] != "ok":
            rows.append([r["tool"], r["status"], "", "", "", "", "", "", "", r["error"][:70]])
            continue
        w = min(r["warm_s"]) if r["warm_s"] else float("nan")
        ratio = f"{w / base_warm:.2f}x" if base_warm else "-"
        rows.append([r["tool"], r["version"], f"{r['import_s']:.2f}", f"{r['import_mb']:.0f}",
                     f"{r['cold_s']:.2f}", f"{w:.2f}", f"{r['cold_mb']:.0f}", f"{r['peak_mb']:.0f}",
                     ratio, r["note"]])
    p = meta["params"]
    print(f"\nworkload: {p['queries']} queries x {p['docs']} docs = {meta['run_lines']:,} run lines "
          f"({meta['run_mb']} MB), {meta['qrels_lines']:,} qrels lines "
          f"({meta['judged_in_run']:,} judged docs retrieved), adjacent score ties: "
          f"{meta['adjacent_ties_f64']:,} (float64) / {meta['adjacent_ties_f32']:,} (float32); "
          f"shuffle={p['shuffle']}, seed={p['seed']}; warm = best of {repeats} x {rounds} "
          f"round(s)")
    print(_table(rows, ["tool", "version", "import s", "import MB", "cold s", "warm s (best)",
                        "1st-call MB", "peak MB", "vs ranger_eval (warm)", "note"]))
    if base_warm:
        print("\ntargets (warm):")
        for peer, target in (("pytrec_eval", 3.0), ("ranx", 6.0), ("ir_measures", 6.0)):
            if peer in ok and ok[peer]["warm_s"]:
                speedup = min(ok[peer]["warm_s"]) / base_warm
                print(f"  ranger_eval vs {peer:<12} {speedup:6.2f}x faster  (target >= {target:.0f}x)"
                      f"  {'MET' if speedup >= target else 'NOT MET'}")
                pairs = zip(ok[peer].get("round_best", []), base.get("round_best", []),
                            strict=False)
                each = [f"{a / b:.2f}x" for a, b in pairs]
                if len(each) > 1:
                    print(f"    per round: {' '.join(each)}")
        for name, what in (("ranger_eval[1 thread]", "one run on every core vs in one thread "
                                                      "(as each run of a batch)"),
                           ("ranger_eval[baseline]", "ranger_eval vs ranger_eval[baseline]")):
            if name in ok and ok[name]["warm_s"]:
                print(f"  {what}: {min(ok[name]['warm_s']) / base_warm:.2f}x "
                      f"(its time / ranger_eval's)")
        if "pytrec_eval" in ok:
            for key, what in (("peak_mb", "peak RSS"), ("cold_mb", "peak RSS after 1st call")):
                a, b = base[key], ok["pytrec_eval"][key]
                print(f"  {what}: ranger_eval {a:.0f} MB vs pytrec_eval {b:.0f} MB"
                      f"  {'MET' if a <= b else 'NOT MET'}")
    if not ok:
        return
    print("\nagreement: mean over queries (n = number of queries evaluated)")
    names = list(ok)
    means = []
    for j, m in enumerate(MEASURES):
        means.append([m] + [f"{np.mean([v[j] for v in ok[t]['per_query'].values()]):.6f}"
                            for t in names])
    means.append(["n"] + [str(len(ok[t]["per_query"])) for t in names])
    print(_table(means, ["measure", *names]))
    ref = ok.get("pytrec_eval")
    if ref is None:
        print("(pytrec_eval not available: no per-query comparison)")
        return
    rq = ref["per_query"]
    rows = []
    for t in names:
        if t == "pytrec_eval":
            continue
        rows.append(_agreement_row(t, ok[t]["per_query"], rq))
    print("\nper-query max |diff| vs pytrec_eval (queries differing by > 1e-9)")
    print(_table(rows, ["tool", "common q", *MEASURES]))


def _agreement_row(name: str, pq: dict, ref: dict) -> list[str]:
    """[tool, common/reference queries, then per measure "max |diff| (queries > 1e-9)"]."""
    import numpy as np

    common = sorted(set(pq) & set(ref))
    row = [name, f"{len(common)}/{len(ref)}"]
    for j in range(len(MEASURES)):
        d = np.abs(np.array([pq[q][j] for q in common]) - np.array([ref[q][j] for q in common]))
        row.append(f"{d.max():.2e} ({int(np.sum(d > 1e-9))})" if len(d) else "-")
    return row


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=1500)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--max-judged", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3, help="warm calls after the cold one")
    ap.add_argument("--rounds", type=int, default=1,
                    help="start every tool's subprocess this many times, the tools taking turns")
    ap.add_argument("--baseline-src", type=Path, default=None,
                    help="src folder of another ranger_eval version: adds ranger_eval[baseline]")
    ap.add_argument("--data", type=Path, default=None, help="folder for (reused) run/qrels files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shuffle", action="store_true", help="write run lines in random order")
    ap.add_argument("--tools", default=None, help="comma-separated subset of " +
                    ", ".join(TOOLS) + " (default: all; ranger_eval[baseline] with --baseline-src)")
    ap.add_argument("--json", type=Path, default=None, help="also write raw results (no per-query)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--qrels", help=argparse.SUPPRESS)
    ap.add_argument("--run", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.qrels, a.run, a.repeats)))
        return
    default = TOOLS if a.baseline_src is not None else DEFAULT_TOOLS
    tools = [t.strip() for t in (a.tools or ",".join(default)).split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        ap.error(f"unknown tool(s) {unknown}; choose from {', '.join(TOOLS)}")
    if "ranger_eval[baseline]" in tools and (a.baseline_src is None
                                             or not (a.baseline_src / "ranger_eval").is_dir()):
        ap.error("ranger_eval[baseline] needs --baseline-src DIR, a folder holding ranger_eval/")
    if min(a.repeats, a.rounds, a.queries, a.docs, a.max_judged) < 1:
        ap.error("--repeats, --rounds, --queries, --docs and --max-judged must be positive")
    folder = a.data if a.data is not None else Path(tempfile.mkdtemp(prefix="ir_bench_"))
    try:
        t = time.perf_counter()
        qrels, run, meta = generate(folder, a.queries, a.docs, a.max_judged, a.seed, a.shuffle)
        print(f"data in {folder} ({time.perf_counter() - t:.1f} s)", flush=True)
        by_tool: dict[str, list[dict]] = {t: [] for t in tools}
        for i in range(a.rounds):
            for tool in tools:
                print(f"running {tool}" + (f" (round {i + 1}/{a.rounds})" if a.rounds > 1 else "")
                      + " ...", flush=True)
                by_tool[tool].append(_spawn(tool, qrels, run, a.repeats, a.baseline_src))
        results = [_merge(by_tool[t]) for t in tools]
        report(results, meta, a.repeats, a.rounds)
        if a.json is not None:
            slim = [{k: v for k, v in r.items() if k != "per_query"} for r in results]
            a.json.write_text(json.dumps({"meta": meta, "results": slim}, indent=1))
    finally:
        if a.data is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
