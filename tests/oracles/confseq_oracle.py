"""Oracle for rg.confidence_sequence and ranger_eval.stats.confseq: confseq's own functions.

Run: ``python tests/oracles/confseq_oracle.py`` (needs confseq 0.0.11; its PyPI sdist pins
pybind11 2.6, which does not build on Python 3.11: build it from github:gostevehoward/confseq with
``pybind11>=2.10`` in its pyproject.toml; only this generator imports it, the tests read the JSON).
Writes ``confseq_oracle.json`` beside this file: per fixture the observations, confseq's
``betting.betting_cs`` at its defaults (breaks=1000, no running intersection; with ``N`` for
sampling without replacement), the same with a mixture of constant bets
(``lambdas_fns_positive = lambdas_fns_negative`` = one constant function per bet of
``ranger_eval.stats.confseq.MIXTURE_BETS``, confseq's ``diversified_betting_mart`` with equal
weights: the ``mixture`` sequence), ``conjmix_bounded.conjmix_hoeffding_twosided_cs`` (t_opt) and
``conjmix_empbern_twosided_cs`` (v_opt) at the fixture's alpha.
"""
from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np

np.float_ = np.float64  # type: ignore[attr-defined]  # confseq 0.0.11 still names it (NumPy 2 removed it)

from confseq.betting import betting_cs  # noqa: E402
from confseq.conjmix_bounded import (  # noqa: E402
    conjmix_empbern_twosided_cs,
    conjmix_hoeffding_twosided_cs,
)

#: ranger_eval.stats.confseq.MIXTURE_BETS, written out so the generator does not import ours.
MIXTURE_BETS = tuple(2.0 ** (-k / 2) for k in range(1, 11))


def _constant(lam: float):  # type: ignore[no-untyped-def]
    return lambda x, m: np.repeat(lam, len(x))


def _fixtures() -> list[dict[str, object]]:
    rng = np.random.default_rng(20261207)
    out: list[dict[str, object]] = []
    shapes = [("bernoulli-0.7", lambda n: (rng.random(n) < 0.7).astype(float)),
              ("bernoulli-0.05", lambda n: (rng.random(n) < 0.05).astype(float)),
              ("beta-2-5", lambda n: rng.beta(2, 5, n)),
              ("uniform", lambda n: rng.random(n)),
              ("constant-0.3", lambda n: np.full(n, 0.3)),
              ("all-ones", lambda n: np.ones(n)),
              ("paired-diff", lambda n: (rng.integers(-1, 2, n) + 1) / 2)]
    for name, draw in shapes:
        for n, alpha in ((40, 0.05), (300, 0.05), (1000, 0.1)):
            out.append({"name": f"{name}-{n}", "x": np.round(draw(n), 6).tolist(),
                        "alpha": alpha, "N": None})
    for name, draw in shapes[:4]:
        n = 250
        out.append({"name": f"{name}-wor", "x": np.round(draw(n), 6).tolist(), "alpha": 0.05,
                    "N": 320})
        out.append({"name": f"{name}-wor-all", "x": np.round(draw(n), 6).tolist(),
                    "alpha": 0.05, "N": n})
    return out


def main() -> None:
    fixtures = _fixtures()
    for f in fixtures:
        x = np.asarray(f["x"], dtype=float)
        alpha = float(f["alpha"])  # type: ignore[arg-type]
        lo, hi = betting_cs(x, alpha=alpha, N=f["N"])
        f["betting"] = {"lower": lo.tolist(), "upper": hi.tolist()}
        bets = [_constant(lam) for lam in MIXTURE_BETS]
        lo, hi = betting_cs(x, alpha=alpha, N=f["N"], lambdas_fns_positive=bets,
                            lambdas_fns_negative=bets)
        f["mixture"] = {"bets": list(MIXTURE_BETS), "lower": lo.tolist(), "upper": hi.tolist()}
        if f["N"] is None:
            t_opt, v_opt = 200, 50.0
            lo, hi = conjmix_hoeffding_twosided_cs(x, t_opt=t_opt, alpha=alpha)
            f["hoeffding"] = {"t_opt": t_opt, "lower": lo.tolist(), "upper": hi.tolist()}
            try:
                lo, hi = conjmix_empbern_twosided_cs(x, v_opt=v_opt, alpha=alpha)
            except RuntimeError:  # confseq's root search fails when V_t stays tiny (constants)
                continue
            f["empirical_bernstein"] = {"v_opt": v_opt, "lower": lo.tolist(),
                                        "upper": hi.tolist()}
    path = Path(__file__).with_name("confseq_oracle.json")
    path.write_text(json.dumps({"confseq": version("confseq"), "fixtures": fixtures}))
    print(f"wrote {path} ({len(fixtures)} fixtures)")


if __name__ == "__main__":
    main()
