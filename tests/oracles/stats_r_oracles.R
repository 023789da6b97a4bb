# Oracle for ranger_eval.stats: R's wilcox.test Hodges-Lehmann interval and metafor::escalc effect sizes.
#
# Regenerate (from the repository root):  Rscript tests/oracles/stats_r_oracles.R
# Writes tests/oracles/stats_r_oracles.json (17 significant digits).
#
# wilcox: deterministic samples of differences without ties or zeros, n = 5..49, so that R uses its
#   exact branch: wilcox.test(d, conf.int = TRUE, conf.level, alternative) -> estimate (median of
#   the Walsh averages) and conf.int ([w_(q), w_(N-q+1)], q = qsignrank(alpha/2, n)). Only the
#   finite bounds of one-sided intervals are stored (the infinite one is null).
# escalc: Cohen's d from metafor 3.8 without its bias correction. metafor multiplies by the exact
#   correction .cmicalc(df) = gamma(df/2) / (sqrt(df/2) gamma((df-1)/2)), which is divided out:
#   d_z = SMCC yi / .cmicalc(n - 1) with m1i, m2i, sd1i, sd2i, ri = cor(x, y), ni  (paired);
#   d   = SMD  yi / .cmicalc(n1 + n2 - 2) with m1i, m2i, sd1i, sd2i, n1i, n2i    (unpaired, pooled SD).
suppressPackageStartupMessages({library(metafor); library(jsonlite)})

set.seed(20251122)
sig <- function(x) signif(x, 17)

wilcox <- list()
alts <- c("two.sided", "greater", "less")
for (k in 1:24) {
  n <- sample(5:49, 1)
  d <- round(rnorm(n, mean = runif(1, -0.5, 0.5), sd = runif(1, 0.2, 2)), 6)
  while (any(duplicated(abs(d))) || any(d == 0)) d <- round(rnorm(n), 6)
  alt <- alts[(k %% 3) + 1]
  lev <- c(0.95, 0.9, 0.99)[((k %/% 3) %% 3) + 1]
  w <- suppressWarnings(wilcox.test(d, conf.int = TRUE, conf.level = lev, alternative = alt,
                                    exact = TRUE))
  ci <- as.numeric(w$conf.int)
  wilcox[[k]] <- list(d = d, alternative = alt, level = lev,
                      estimate = sig(unname(w$estimate)),
                      ci_low = if (is.finite(ci[1])) sig(ci[1]) else NA,
                      ci_high = if (is.finite(ci[2])) sig(ci[2]) else NA)
}

paired <- list()
for (k in 1:20) {
  n <- sample(3:60, 1)
  x <- round(runif(1, 0, 1) + rnorm(n, sd = runif(1, 0.05, 0.5)), 4)
  y <- round(0.6 * x + rnorm(n, mean = runif(1, -0.2, 0.2), sd = runif(1, 0.05, 0.5)), 4)
  e <- escalc(measure = "SMCC", m1i = mean(x), m2i = mean(y), sd1i = sd(x), sd2i = sd(y),
              ri = cor(x, y), ni = n)
  paired[[k]] <- list(x = x, y = y, d_z = sig(e$yi[1] / metafor:::.cmicalc(n - 1)))
}

unpaired <- list()
for (k in 1:20) {
  n1 <- sample(2:50, 1); n2 <- sample(2:50, 1)
  x <- round(rnorm(n1, mean = runif(1, -1, 1), sd = runif(1, 0.2, 2)), 4)
  y <- round(rnorm(n2, mean = runif(1, -1, 1), sd = runif(1, 0.2, 2)), 4)
  e <- escalc(measure = "SMD", m1i = mean(x), m2i = mean(y), sd1i = sd(x), sd2i = sd(y),
              n1i = n1, n2i = n2)
  unpaired[[k]] <- list(x = x, y = y, d = sig(e$yi[1] / metafor:::.cmicalc(n1 + n2 - 2)))
}

out <- list(generator = "tests/oracles/stats_r_oracles.R", R = R.version.string,
            metafor = as.character(packageVersion("metafor")),
            wilcox = wilcox, paired = paired, unpaired = unpaired)
write(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = FALSE, na = "null"),
      "tests/oracles/stats_r_oracles.json")
