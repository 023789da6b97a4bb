# Oracle of Tango's score test for paired proportions (Tango 1998, Stat. Med. 17:891-908) at a
# margin, for ranger_eval.stats.equivalence.paired_proportions_margin_tests and compare's
# non-inferiority / equivalence rows of paired 0/1 scores.
#
#   ratesci::pairbinci(x = c(a, b, c, d), contrast = "RD", method = "Score", skew = FALSE,
#                      bcf = FALSE, cc = FALSE, theta0 = theta0)   -> score, pval_left/right
#   ratesci::pairbinci(..., method = "Score_closed", skew = FALSE, bcf = FALSE)  -> interval
#     (the closed form of Tango's score interval, Yang, Sun & Hardin 2013)
#   PropCIs::scoreci.mp(b, c, n, conf.level)  -> Tango's interval by bisection (of p2 - p1)
#
# b: pairs where only the first system scores 1, c: only the second; theta = p1 - p2.
# Packages from their CRAN mirrors (fetch cran/ratesci, cran/PropCIs; R CMD INSTALL):
# ratesci 1.0.0, PropCIs 0.3-0. Run from the repository root:
#   R_LIBS=/path/to/lib Rscript tests/oracles/equivalence_oracles.R
suppressPackageStartupMessages({library(ratesci); library(PropCIs); library(jsonlite)})

cases <- list(
  # a, b, c, d, theta0, level
  list(3, 7, 1, 10, -0.1, 0.95),
  list(3, 7, 1, 10, 0.1, 0.95),
  list(3, 7, 1, 10, 0.3, 0.9),
  list(1, 1, 7, 12, -0.2, 0.95),
  list(40, 12, 9, 39, -0.05, 0.95),
  list(40, 12, 9, 39, 0.05, 0.95),
  list(200, 31, 44, 725, -0.02, 0.95),
  list(200, 31, 44, 725, 0.02, 0.99),
  list(50, 0, 0, 50, -0.1, 0.95),
  list(50, 0, 0, 50, 0.1, 0.95),
  list(0, 5, 0, 15, -0.1, 0.95),
  list(0, 0, 6, 14, 0.15, 0.9),
  list(880, 45, 61, 14, -0.03, 0.95),
  list(880, 45, 61, 14, 0.03, 0.95),
  list(10, 3, 2, 5, -0.5, 0.8),
  list(5, 3, 2, 10, -0.5, 0.8)   # same b, c, n as the previous case, other a/d split
)
out <- lapply(cases, function(k) {
  a <- k[[1]]; b <- k[[2]]; c <- k[[3]]; d <- k[[4]]; theta0 <- k[[5]]; level <- k[[6]]
  x <- c(a, b, c, d)
  n <- sum(x)
  r <- pairbinci(x, contrast = "RD", method = "Score", skew = FALSE, bcf = FALSE, cc = FALSE,
                 theta0 = theta0, level = level, warn = FALSE)
  # one-sided bounds at `level` = the two-sided interval at 1 - 2 (1 - level)
  two <- 1 - 2 * (1 - level)
  closed <- pairbinci(x, contrast = "RD", method = "Score_closed", skew = FALSE, bcf = FALSE,
                      cc = FALSE, level = two, warn = FALSE)
  pc <- scoreci.mp(b, c, n, two)$conf.int   # interval of p2 - p1
  list(a = a, b = b, c = c, d = d, n = n, theta0 = theta0, level = level,
       score = unname(r$pval[, "scorenull"]),
       pval_left = unname(r$pval[, "pval_left"]),
       pval_right = unname(r$pval[, "pval_right"]),
       p_low = pnorm(unname(r$pval[, "scorenull"]), lower.tail = FALSE),
       ci_low_closed = unname(closed$estimates[, "lower"]),
       ci_high_closed = unname(closed$estimates[, "upper"]),
       ci_low_propcis = -pc[2], ci_high_propcis = -pc[1])
})
meta <- list(ratesci = as.character(packageVersion("ratesci")),
             PropCIs = as.character(packageVersion("PropCIs")),
             R = paste(R.version$major, R.version$minor, sep = "."))
writeLines(toJSON(list(versions = meta, tango = out), auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/equivalence_oracles_R.json")
