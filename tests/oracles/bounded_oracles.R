# Oracle for ranger_eval.describe's Korn-Graubard interval: R survey's svyciprop(method = "beta")
# on svydesign(ids = ~cluster) (ids = ~1 without clusters), equal weights, for the "kg" cases of
# bounded_oracles.json (made by bounded_oracles.py). Values declared in [lo, hi] are rescaled to
# (y - lo) / (hi - lo) first and the interval mapped back. Where survey's n_eff is 0/0 (all
# scores 0, or all 1: NaN in survey) the same Clopper-Pearson formula is evaluated with
# n_eff = n * (qt(alpha/2, n - 1) / qt(alpha/2, degf))^2, ranger_eval's documented choice
# (field "fallback": true). Also records survey's se (SE(svymean)) and n_eff.
# Run from the repository root:  Rscript tests/oracles/bounded_oracles.R
# Needs: r-cran-survey, r-cran-jsonlite (Debian). Writes tests/oracles/bounded_oracles_R.json.
suppressPackageStartupMessages({ library(jsonlite); library(survey) })
src <- fromJSON("tests/oracles/bounded_oracles.json", simplifyVector = FALSE)
out <- list()
for (case in src$cases) {
  if (case$kind != "kg") next
  y <- (unlist(case$values) - case$lo) / (case$hi - case$lo)
  d <- data.frame(y = y)
  if (is.null(case$clusters)) {
    des <- suppressWarnings(svydesign(ids = ~1, data = d))
  } else {
    d$cl <- factor(unlist(case$clusters))
    des <- suppressWarnings(svydesign(ids = ~cl, data = d))
  }
  res <- list()
  for (level in unlist(src$levels)) {
    r <- svyciprop(~y, des, method = "beta", level = level)
    ci <- as.vector(attr(r, "ci"))
    m <- svymean(~y, des)
    alpha <- 1 - level
    ratio <- qt(alpha / 2, nrow(des) - 1) / qt(alpha / 2, degf(des))
    n.eff <- as.vector(coef(m) * (1 - coef(m)) / vcov(m)) * ratio^2
    fallback <- any(!is.finite(ci))
    if (fallback) {
      p <- as.vector(coef(r))
      n.eff <- nrow(des) * ratio^2
      ci <- c(if (p == 0) 0 else qbeta(alpha / 2, n.eff * p, n.eff * (1 - p) + 1),
              if (p == 1) 1 else qbeta(1 - alpha / 2, n.eff * p + 1, n.eff * (1 - p)))
    }
    res[[as.character(level)]] <- list(
      ci = case$lo + (case$hi - case$lo) * ci, fallback = fallback, n_eff = n.eff,
      mean = case$lo + (case$hi - case$lo) * as.vector(coef(m)),
      se = (case$hi - case$lo) * as.vector(SE(m)))
  }
  out[[case$name]] <- res
}
payload <- list(generator = "tests/oracles/bounded_oracles.R",
                versions = list(R = R.version.string,
                                survey = as.character(packageVersion("survey"))),
                cases = out)
writeLines(toJSON(payload, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/bounded_oracles_R.json")
