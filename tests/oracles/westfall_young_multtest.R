# Oracle for Westfall & Young step-down max-T adjusted p-values of paired permutation tests:
# multtest::mt.maxT(test = "pairt", side = "abs", B = 0) enumerates all 2^n sign flips, so the
# adjusted p-values are exact and independent of any random stream.
# Run: Rscript tests/oracles/westfall_young_multtest.R > tests/oracles/westfall_young_multtest.json
suppressMessages({library(multtest); library(jsonlite)})
make_case <- function(name, seed, k, n, shifts) {
  set.seed(seed)
  base <- rnorm(n)
  values <- t(sapply(seq_len(k), function(j) base + shifts[j] + rnorm(n, sd = 0.6)))
  pairs <- t(combn(k, 2))  # (a, b) in itertools.combinations order
  X <- t(apply(pairs, 1, function(p) as.vector(rbind(values[p[1], ], values[p[2], ]))))
  cl <- rep(c(0, 1), n)
  res <- capture.output(out <- mt.maxT(X, cl, test = "pairt", side = "abs", B = 0))
  out <- out[order(out$index), ]
  list(name = name, values = values, pairs = pairs - 1, rawp = out$rawp, adjp = out$adjp,
       teststat = out$teststat)
}
cases <- list(
  make_case("k5_n10", 11, 5, 10, c(0, 0.1, 0.5, 0.9, 0.95)),
  make_case("k4_n12", 12, 4, 12, c(0, 0, 0.3, 1.2)),
  make_case("k6_n9", 13, 6, 9, c(0, 0.2, 0.2, 0.6, 1.0, 1.5))
)
cat(toJSON(list(source = paste("multtest", packageVersion("multtest"), "mt.maxT pairt abs B=0"),
                cases = cases), digits = NA, auto_unbox = TRUE))
