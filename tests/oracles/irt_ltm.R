# Oracle of ranger_eval.irt(model="2pl"): R ltm::ltm(X ~ z1, IRT.param = TRUE), marginal ML of
# the two-parameter logistic model with theta ~ N(0, 1) on 21 Gauss-Hermite points (ltm's
# default GHk; its grid is the probabilists' Gauss-Hermite rule, the one of irt(n_quadrature=21)),
# EM then BFGS. Difficulty = ltm's Dffclt, discrimination = Dscrmn, log-likelihood = logLik.
# ltm is not in Debian: R CMD INSTALL of the CRAN sources (github:cran/ltm) after
# apt-get install r-cran-msm r-cran-polycor.
# Run: Rscript tests/oracles/irt_ltm.R  (writes tests/oracles/irt_ltm.json)
suppressMessages({library(ltm); library(jsonlite)})
set.seed(20250207)
cases <- list()
for (spec in list(c(500, 10), c(1000, 15), c(300, 8))) {
  n <- spec[1]; k <- spec[2]
  theta <- rnorm(n); a <- runif(k, 0.6, 2.2); b <- rnorm(k)
  X <- matrix(as.integer(runif(n * k) < plogis(sweep(outer(theta, b, "-"), 2, a, "*"))), n, k)
  X <- X[, colSums(X) > 0 & colSums(X) < n]
  m <- ltm(X ~ z1, IRT.param = TRUE, control = list(GHk = 21, iter.qN = 1000))
  cf <- coef(m)
  cases[[length(cases) + 1]] <- list(
    responses = X, difficulty = unname(cf[, "Dffclt"]), discrimination = unname(cf[, "Dscrmn"]),
    loglik = as.numeric(logLik(m)), convergence = m$convergence,
    ltm_version = as.character(packageVersion("ltm")))
}
writeLines(toJSON(cases, digits = NA, auto_unbox = TRUE), "tests/oracles/irt_ltm.json")
