"""Many runs against one qrels: ranger_eval's batch call vs a loop of calls vs peer tools.

    python benchmarks/ir_batch_bench.py [--runs 20] [--queries 500] [--docs 1000] [--max-judged 20]
                                        [--repeats 1] [--data DIR] [--seed 0]
                                        [--tools ranger_eval,ranger_eval[loop],...]
                                        [--trec-eval PATH] [--interleave N]

    # the issue-29 row: 10 runs x 200,000 lines, ratios from 7 interleaved repeats in one process
    python benchmarks/ir_batch_bench.py --runs 10 --queries 200 --docs 1000 --interleave 7

Workload: one qrels file and --runs TREC runs of --queries × --docs lines each
(20 runs × 500 × 1,000 = 20 × 500,000 lines by default), read from files and evaluated with
nDCG@10, AP and RR per query. The qrels have 1 to --max-judged judged documents per query (labels
0-3). Every run ranks --docs documents per query drawn from a per-query pool of 4 × --docs
candidates that contains the judged documents; about 60% of the judged documents are retrieved,
near the top for "good" systems. Scores follow ir_bench.py (BM25-like with 4 decimals and ~1%
ties, or dense-like with 9 significant digits, alternating by run); lines are in rank order. The
files are written to a temporary folder (deleted afterwards) or to --data DIR, where they are
kept and reused when the parameters match.

Each tool runs in its own subprocess and times the whole job on the files, "cold" (first call in
a fresh process, after the import) and "warm" (best of --repeats more calls):
  ranger_eval          ranger_eval.ir.evaluate_many(qrels, {name: path, ...}, MEASURES)
                       (one call: qrels read and indexed once, runs parsed concurrently)
  ranger_eval[loop]    for each run: ranger_eval.ir.evaluate(qrels, path, MEASURES) (the qrels
                       path each time, as a naive user writes it)
  pytrec_eval          parse_qrel once, then for each run parse_run + RelevanceEvaluator.evaluate
                       (the evaluator built once, as its README recommends)
  ranx                 Qrels.from_file once, then Run.from_file + evaluate per run
                       (numba compiles on the first call in a process)
  trec_eval            the trec_eval binary (--trec-eval PATH, or `trec_eval` on PATH) run once per
                       run as a process, ``trec_eval -c -m ndcg_cut.10 -m map -m recip_rank -q``,
                       its output read back (2 processes at a time, like the 2-core pool elsewhere)
With ``--interleave N`` the tools run instead in this one process, one call of each in turn,
N times after a warm-up call each: the ratio of each round (peer / ranger_eval batch) is taken
from calls made seconds apart, so load from other processes on a shared machine hits both sides
alike; the median ratio over the rounds is reported, in wall time and in CPU time (all threads),
with the peak RSS of the process after ranger_eval's calls (before any peer ran).
Agreement: the per-query values of every tool on the first run are compared with ranger_eval's
(pytrec_eval ranks float32 scores, so small differences are expected only where float32 rounding
ties scores; ranx breaks ties differently).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ir_bench import _agreement_row, _dist_version, _table  # noqa: E402  (the single-run benchmark's helpers)

MEASURES = ("nDCG@10", "AP", "RR")
TOOLS = ("ranger_eval", "ranger_eval[loop]", "pytrec_eval", "ranx", "trec_eval")
GEN_VERSION = 1


# --------------------------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------------------------

def generate(folder: Path, runs: int, queries: int, docs: int, max_judged: int,
             seed: int) -> tuple[Path, list[Path], dict]:
    """Write ``qrels.txt`` and ``run00.txt``... into ``folder`` (reused if parameters match)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pcsv

    params = {"runs": runs, "queries": queries, "docs": docs, "max_judged": max_judged,
              "seed": seed, "generator": GEN_VERSION}
    qrels_path = folder / "qrels.txt"
    run_paths = [folder / f"run{i:02d}.txt" for i in range(runs)]
    meta_path = folder / "meta.json"
    if meta_path.exists() and all(p.exists() for p in [qrels_path, *run_paths]):
        meta = json.loads(meta_path.read_text())
        if meta.get("params") == params:
            return qrels_path, run_paths, meta
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    qnum = np.sort(rng.choice(1_000_000, queries, replace=False))
    pool = docs * 4
    # candidate pool per query: random docids (unique within the query)
    cand = np.stack([rng.choice(8_000_000, pool, replace=False) for _ in range(queries)])
    nj = rng.integers(1, max_judged + 1, queries)
    q_lines: list[str] = []
    for i in range(queries):
        labels = rng.choice(4, nj[i], p=[0.35, 0.30, 0.20, 0.15])
        q_lines.extend(f"{qnum[i]} 0 doc{cand[i, j]} {labels[j]}\n" for j in range(nj[i]))
    qrels_path.write_text("".join(q_lines))
    qid = pc.cast(pa.array(np.repeat(qnum, docs)), pa.string())
    ranks = pa.array(np.tile(np.arange(1, docs + 1, dtype=np.int64), queries))
    n = queries * docs
    for r, path in enumerate(run_paths):
        quality = rng.uniform(0.2, 0.8)
        # judged candidates (the first nj of the pool) get a head start that depends on quality
        prio = rng.random((queries, pool))
        judged = np.arange(pool)[None, :] < nj[:, None]
        prio[judged] -= quality
        pick = np.argsort(prio, axis=1)[:, :docs]  # retrieved docs, best first
        # shuffle within the retrieved set a little so judged docs are not always on top
        noise = rng.normal(0, 0.3 * docs, (queries, docs))
        order = np.argsort(np.arange(docs)[None, :] + noise * (1 - quality), axis=1)
        chosen = np.take_along_axis(pick, order, axis=1)
        doc_num = np.take_along_axis(cand, chosen, axis=1)
        if r % 2:
            s = 0.92 - np.cumsum(rng.exponential(0.55 / docs, (queries, docs)), axis=1)
            s = np.round(s, 9)
        else:
            s = rng.uniform(18.0, 32.0, (queries, 1)) - np.cumsum(
                rng.exponential(0.015, (queries, docs)), axis=1)
            s = np.round(s, 4)
            tie = rng.random((queries, docs)) < 0.01
            tie[:, 0] = False
            s = np.where(tie, np.roll(s, 1, axis=1), s)
            s = np.minimum.accumulate(s, axis=1)  # ties copy the neighbour; keep it descending
        table = pa.table({
            "qid": qid,
            "q0": pa.array(np.full(n, "Q0", dtype=object), pa.string()),
            "docid": pc.binary_join_element_wise(
                "doc", pc.cast(pa.array(doc_num.reshape(-1)), pa.string()), ""),
            "rank": ranks,
            "score": pa.array(s.reshape(-1)),
            "tag": pa.array(np.full(n, f"sys{r:02d}", dtype=object), pa.string()),
        })
        pcsv.write_csv(table, str(path), pcsv.WriteOptions(include_header=False, delimiter=" ",
                                                           quoting_style="none"))
    meta = {"params": params, "run_lines": n, "qrels_lines": int(nj.sum()),
            "run_mb": round(sum(p.stat().st_size for p in run_paths) / 2**20, 1)}
    meta_path.write_text(json.dumps(meta, indent=1))
    return qrels_path, run_paths, meta


# --------------------------------------------------------------------------------------------
# workers
# --------------------------------------------------------------------------------------------

def _find_trec_eval(path: str | None) -> str | None:
    if path:
        return path if os.access(path, os.X_OK) else None
    return shutil.which("trec_eval")


def _tool(name: str, qrels: str, runs: list[str], trec_eval: str | None):
    """(version, job, first-run per-query values from the job's result, note)."""
    if name.startswith("ranger_eval"):
        import ranger_eval
        import ranger_eval.ir as rir

        named = {f"run{i:02d}": r for i, r in enumerate(runs)}
        if name == "ranger_eval":
            def job():
                return rir.evaluate_many(qrels, named, list(MEASURES), progress=False)

            def first(df):
                return _wide(df[df["system"] == "run00"])
        else:
            def job():
                return [rir.evaluate(qrels, r, list(MEASURES)) for r in runs]

            def first(res):
                return _wide(res[0])

        return ranger_eval.__version__, job, first, ""
    if name == "pytrec_eval":
        import pytrec_eval

        keys = ("ndcg_cut_10", "map", "recip_rank")

        def job():
            with open(qrels) as f:
                qr = pytrec_eval.parse_qrel(f)
            ev = pytrec_eval.RelevanceEvaluator(qr, {"ndcg_cut.10", "map", "recip_rank"})
            out = []
            for r in runs:
                with open(r) as f:
                    out.append(ev.evaluate(pytrec_eval.parse_run(f)))
            return out

        def first(res):
            return {q: [float(v[k]) for k in keys] for q, v in res[0].items()}

        return _dist_version("pytrec-eval-terrier", "pytrec_eval"), job, first, ""
    if name == "ranx":
        from ranx import Qrels, Run, evaluate

        keys = ("ndcg@10", "map", "mrr")

        def job():
            qr = Qrels.from_file(qrels)
            out = []
            for r in runs:
                rn = Run.from_file(r)
                out.append((rn.get_query_ids(), evaluate(qr, rn, list(keys), return_mean=False)))
            return out

        def first(res):
            ids, values = res[0]
            return {str(q): [float(values[k][i]) for k in keys] for i, q in enumerate(ids)}

        return _dist_version("ranx"), job, first, ""
    if name == "trec_eval":
        if trec_eval is None:
            raise ImportError("no trec_eval binary (pass --trec-eval PATH)")
        version = subprocess.run([trec_eval, "-v"], capture_output=True, text=True)
        keys = ("ndcg_cut_10", "map", "recip_rank")

        def one(r: str) -> str:
            return subprocess.run([trec_eval, "-c", "-q", "-m", "ndcg_cut.10", "-m", "map",
                                   "-m", "recip_rank", qrels, r], capture_output=True,
                                  text=True, check=True).stdout

        def job():
            with ThreadPoolExecutor(max_workers=2) as pool:
                return list(pool.map(one, runs))

        def first(res):
            out: dict[str, list[float]] = {}
            for line in res[0].splitlines():
                m, q, v = line.split()
                if q != "all" and m in keys:
                    out.setdefault(q, [float("nan")] * 3)[keys.index(m)] = float(v)
            return out

        text = (version.stdout + version.stderr).strip().splitlines()
        return (text[0] if text else "?"), job, first, "2 processes at a time"
    raise ValueError(f"unknown tool {name!r}")


def _wide(df) -> dict[str, list[float]]:
    wide = df.pivot(index="query_id", columns="measure", values="value")
    return {str(q): [float(x) for x in row]
            for q, row in zip(wide.index, wide[list(MEASURES)].to_numpy(), strict=True)}


def worker(name: str, qrels: str, runs: list[str], repeats: int, trec_eval: str | None) -> dict:
    import gc

    try:
        version, job, first, note = _tool(name, qrels, runs, trec_eval)
    except ImportError as exc:
        return {"tool": name, "status": "not installed", "error": str(exc)}
    t = time.perf_counter()
    res = job()
    cold = time.perf_counter() - t
    pq = first(res)
    del res
    warm = []
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        res = job()
        warm.append(time.perf_counter() - t)
        del res
    return {"tool": name, "status": "ok", "version": version, "note": note, "cold_s": cold,
            "warm_s": warm, "per_query": pq}


# --------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------

def _spawn(tool: str, qrels: Path, runs: list[Path], repeats: int, trec_eval: str | None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", tool, "--qrels", str(qrels),
           "--run-list", json.dumps([str(r) for r in runs]), "--repeats", str(repeats)]
    if trec_eval:
        cmd += ["--trec-eval", trec_eval]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " | ".join(proc.stderr.strip().splitlines()[-3:])
        return {"tool": tool, "status": "failed", "error": f"exit {proc.returncode}: {tail}"}
    return json.loads(lines[-1])




def report(results: list[dict], meta: dict) -> None:

    ok = {r["tool"]: r for r in results if r["status"] == "ok"}

    def best(r: dict) -> float:
        return min([r["cold_s"], *r["warm_s"]]) if r["tool"] != "ranx" or not r["warm_s"] \
            else min(r["warm_s"])

    base = ok.get("ranger_eval")
    p = meta["params"]
    print(f"\nworkload: {p['runs']} runs x {meta['run_lines']:,} lines ({meta['run_mb']} MB in "
          f"all), {meta['qrels_lines']:,} qrels lines; measures {', '.join(MEASURES)}; "
          f"best = fastest call (ranx: warm calls only, numba compiles on the first)")
    rows = []
    for r in results:
        if r["status"] != "ok":
            rows.append([r["tool"], r["status"], "", "", "", r["error"][:70]])
            continue
        b = best(r)
        ratio = f"{b / best(base):.2f}x" if base else "-"
        warm = f"{min(r['warm_s']):.2f}" if r["warm_s"] else "-"
        rows.append([r["tool"], r["version"], f"{r['cold_s']:.2f}", warm, ratio, r["note"]])
    print(_table(rows, ["tool", "version", "cold s", "warm s", "time / ranger_eval batch",
                        "note"]))
    if base:
        print("\ntargets:")
        if "pytrec_eval" in ok:
            s = best(ok["pytrec_eval"]) / best(base)
            print(f"  batch vs pytrec_eval  {s:6.2f}x faster (target >= 8x)  "
                  f"{'MET' if s >= 8 else 'NOT MET'}")
        if "ranger_eval[loop]" in ok:
            s = best(ok["ranger_eval[loop]"]) / best(base)
            print(f"  batch vs loop         {s:6.2f}x (target >= 1, never slower)  "
                  f"{'MET' if s >= 1 else 'NOT MET'}")
        ref = base["per_query"]
        print("\nagreement on run00: per-query max |diff| from ranger_eval (queries > 1e-9)")
        rows = []
        for name, r in ok.items():
            if name == "ranger_eval":
                continue
            rows.append(_agreement_row(name, r["per_query"], ref))
        print(_table(rows, ["tool", "common q", *MEASURES]))


def interleaved(tools: list[str], qrels: Path, runs: list[Path], rounds: int,
                trec_eval: str | None) -> None:
    """Run ``tools`` in this process, one call each in turn, ``rounds`` times after a warm-up
    call each; print the median per-round ratios (wall and CPU) to ranger_eval's batch call."""
    import gc
    import resource
    import statistics

    order = ["ranger_eval", *[t for t in tools if t != "ranger_eval"]]
    jobs, rss = {}, 0.0
    for name in order:
        try:
            version, job, _, note = _tool(name, str(qrels), [str(r) for r in runs], trec_eval)
        except ImportError as exc:
            print(f"  {name}: not installed ({exc})")
            continue
        job()  # warm-up (imports, numba compilation, page cache)
        if name == "ranger_eval":  # ru_maxrss: KiB on Linux; before any peer ran
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        jobs[name] = (version, job, note)
    wall: dict[str, list[float]] = {n: [] for n in jobs}
    cpu: dict[str, list[float]] = {n: [] for n in jobs}
    for _ in range(rounds):
        for name, (_, job, _) in jobs.items():
            gc.collect()
            t, c = time.perf_counter(), time.process_time()
            res = job()
            wall[name].append(time.perf_counter() - t)
            cpu[name].append(time.process_time() - c)
            del res
    base = "ranger_eval"
    rows = []
    for name, (version, _, note) in jobs.items():
        ratio_w = [p / b for p, b in zip(wall[name], wall[base], strict=True)]
        ratio_c = [p / b for p, b in zip(cpu[name], cpu[base], strict=True)]
        rows.append([name, version, f"{statistics.median(wall[name]):.3f}",
                     f"{statistics.median(cpu[name]):.3f}",
                     f"{statistics.median(ratio_w):.2f}x", f"{statistics.median(ratio_c):.2f}x",
                     f"{min(ratio_w):.2f}-{max(ratio_w):.2f}", note])
    print(f"\ninterleaved: {rounds} rounds in one process (median per-round ratio to "
          f"ranger_eval's batch call; cpu = all threads of the process)")
    print(_table(rows, ["tool", "version", "wall s", "cpu s", "wall ratio", "cpu ratio",
                        "wall ratio range", "note"]))
    print(f"peak RSS after ranger_eval's calls: {rss:.0f} MiB")
    if "pytrec_eval" in jobs:
        s = statistics.median([p / b for p, b in zip(wall["pytrec_eval"], wall[base],
                                                     strict=True)])
        print(f"  batch vs pytrec_eval  {s:6.2f}x faster (target >= 8x)  "
              f"{'MET' if s >= 8 else 'NOT MET'}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--max-judged", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=1, help="warm calls after the cold one")
    ap.add_argument("--data", type=Path, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tools", default=",".join(TOOLS))
    ap.add_argument("--trec-eval", default=None, help="path of a trec_eval binary")
    ap.add_argument("--interleave", type=int, default=0, metavar="N",
                    help="run the tools in this process, in turn, N rounds; report median ratios")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--qrels", help=argparse.SUPPRESS)
    ap.add_argument("--run-list", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        print(json.dumps(worker(a.worker, a.qrels, json.loads(a.run_list), a.repeats,
                                a.trec_eval)))
        return
    tools = [t.strip() for t in a.tools.split(",") if t.strip()]
    unknown = [t for t in tools if t not in TOOLS]
    if unknown:
        ap.error(f"unknown tool(s) {unknown}; choose from {', '.join(TOOLS)}")
    if min(a.runs, a.queries, a.docs, a.max_judged) < 1 or a.repeats < 0:
        ap.error("--runs, --queries, --docs and --max-judged must be positive")
    trec_eval = _find_trec_eval(a.trec_eval)
    folder = a.data if a.data is not None else Path(tempfile.mkdtemp(prefix="ir_batch_"))
    try:
        t = time.perf_counter()
        qrels, runs, meta = generate(folder, a.runs, a.queries, a.docs, a.max_judged, a.seed)
        print(f"data in {folder} ({time.perf_counter() - t:.1f} s)", flush=True)
        if a.interleave > 0:
            interleaved(tools, qrels, runs, a.interleave, trec_eval)
            return
        results = []
        for tool in tools:
            print(f"running {tool} ...", flush=True)
            results.append(_spawn(tool, qrels, runs, a.repeats, trec_eval))
        report(results, meta)
    finally:
        if a.data is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
