# Oracle of ranger_eval.estimate_from_subset with a fixed predictor f (the same in every fold, so
# the cross-fitted estimate reduces to the difference estimator mean_U f + mean_S (y - f), per
# stratum): R survey's design-based mean of the residuals e = y - f under simple random or
# stratified random sampling without replacement (fpc = population / stratum sizes), its
# linearisation SE and its t interval on degf(design) degrees of freedom; and the plain subset
# mean's SE under the same design. Run: Rscript tests/oracles/subset_survey.R
# (writes tests/oracles/subset_survey.json; Debian r-cran-survey)
suppressMessages({library(survey); library(jsonlite)})
set.seed(20251207)
cases <- list()
make <- function(N, n_h, sizes, binary) {
  strata <- rep(seq_along(sizes), sizes)
  f <- plogis(rnorm(N, 0, 1.5))
  y <- if (binary) as.integer(runif(N) < f) else pmin(pmax(f + rnorm(N, 0, 0.2), 0), 1)
  idx <- unlist(lapply(seq_along(sizes), function(h) sample(which(strata == h), n_h[h])))
  d <- data.frame(y = y[idx], e = y[idx] - f[idx], h = strata[idx], Nh = sizes[strata[idx]])
  des <- svydesign(ids = ~1, strata = ~h, fpc = ~Nh, data = d)
  m <- svymean(~e, des); p <- svymean(~y, des)
  ci <- confint(m, level = 0.95, df = degf(des))
  list(N = N, y = y, f = f, strata = strata - 1, sample = idx - 1,
       estimate = mean(f) + unname(coef(m)), se = unname(SE(m)[1]),
       low = mean(f) + ci[1, 1], high = mean(f) + ci[1, 2], subset_se = unname(SE(p)[1]),
       degf = degf(des), survey_version = as.character(packageVersion("survey")))
}
cases[[1]] <- make(500, 100, 500, TRUE)
cases[[2]] <- make(600, c(10, 20, 15, 25), c(90, 200, 160, 150), TRUE)
cases[[3]] <- make(400, 50, 400, FALSE)
writeLines(toJSON(cases, digits = NA, auto_unbox = TRUE), "tests/oracles/subset_survey.json")
