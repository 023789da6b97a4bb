# Oracle of ranger_eval.irt(model="rasch"): eRm::RM (conditional ML, sum-zero easiness betapar =
# -difficulty) and eRm::person.parameter (ML abilities of non-extreme raw scores) on simulated
# 0/1 responses, including tied item totals and systems with every item right or wrong; item
# and person fit (eRm::itemfit / personfit: infit and outfit mean squares and their
# Wilson-Hilferty t, over the systems that are not extreme, eRm's pers.ex).
# Run: Rscript tests/oracles/irt_erm.R  (writes tests/oracles/irt_erm.json; Debian r-cran-erm)
suppressMessages({library(eRm); library(jsonlite)})
set.seed(20250131)
cases <- list()
sim <- function(n, k, sd_theta = 1) {
  theta <- rnorm(n, 0, sd_theta); b <- seq(-1.5, 1.5, length.out = k)
  p <- plogis(outer(theta, b, "-"))
  matrix(as.integer(runif(n * k) < p), n, k)
}
for (spec in list(c(300, 12, 1), c(150, 25, 1.5), c(60, 6, 2))) {
  X <- sim(spec[1], spec[2], spec[3])
  X <- X[, colSums(X) > 0 & colSums(X) < nrow(X)]
  m <- RM(X)
  pp <- person.parameter(m)
  r <- rowSums(X); mid <- r > 0 & r < ncol(X)
  ifit <- itemfit(pp); pfit <- personfit(pp)
  cases[[length(cases) + 1]] <- list(
    responses = X, beta = unname(m$betapar), se_beta = unname(m$se.beta),
    loglik = m$loglik, theta_mid = unname(pp$theta.table[mid, "Person Parameter"]),
    se_theta_mid = unname(pp$se.theta$NAgroup1[paste0("P", which(mid))]), mid = which(mid) - 1,
    item_infit = unname(ifit$i.infitMSQ), item_outfit = unname(ifit$i.outfitMSQ),
    item_infit_t = unname(ifit$i.infitZ), item_outfit_t = unname(ifit$i.outfitZ),
    person_infit = unname(pfit$p.infitMSQ), person_outfit = unname(pfit$p.outfitMSQ),
    person_infit_t = unname(pfit$p.infitZ), person_outfit_t = unname(pfit$p.outfitZ),
    erm_version = as.character(packageVersion("eRm")))
}
writeLines(toJSON(cases, digits = NA, auto_unbox = TRUE), "tests/oracles/irt_erm.json")
