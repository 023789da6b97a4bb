# Oracle of Tango's (1998) score interval of p1 - p2 for paired 0/1 scores, the interval of
# compare's McNemar rows (ranger_eval.stats.tango_interval).
#
#   ratesci::pairbinci(x = c(a, b, c, d), contrast = "RD", method = "Score_closed",
#                      skew = FALSE, bcf = FALSE, cc = FALSE, precis = 15)
#     -> the closed form of Tango's interval (Yang, Sun & Hardin 2013), to 15 decimals
#   PropCIs::scoreci.mp(b, c, n, conf.level)  -> Tango's interval by bisection (of p2 - p1;
#     PropCIs stops at 1e-7, a second check only)
#
# b: pairs where only the first system scores 1, c: only the second; a: both, d: neither.
# One-sided bounds at `level` are the two-sided interval at 1 - 2 (1 - level).
# Packages from their CRAN mirrors (fetch cran/ratesci, cran/PropCIs; git archive; R CMD
# INSTALL): ratesci 1.0.0, PropCIs 0.3-0. Run from the repository root:
#   R_LIBS=/path/to/lib Rscript tests/oracles/tango_interval.R
suppressPackageStartupMessages({library(ratesci); library(PropCIs); library(jsonlite)})

cases <- list(
  # a, b, c, d, level
  list(10, 2, 1, 2, 0.95),     # n = 15, the coverage simulation's size
  list(10, 0, 0, 5, 0.95),     # no discordant pair: the paired t interval is the point 0
  list(0, 15, 0, 0, 0.95),     # every pair "only the first": estimate 1
  list(0, 0, 15, 0, 0.95),     # estimate -1
  list(9, 3, 0, 3, 0.95),
  list(3, 7, 1, 10, 0.95),
  list(3, 7, 1, 10, 0.9),
  list(20, 5, 5, 0, 0.99),
  list(40, 12, 9, 39, 0.95),
  list(19, 6, 2, 3, 0.95),     # n = 30
  list(39, 9, 3, 9, 0.95),     # n = 60
  list(65, 15, 5, 15, 0.95),   # n = 100
  list(200, 31, 44, 725, 0.95),
  list(880, 45, 61, 14, 0.95),
  list(1, 1, 0, 0, 0.95),      # n = 2
  list(0, 1, 0, 0, 0.8)        # n = 1
)
out <- lapply(cases, function(k) {
  a <- k[[1]]; b <- k[[2]]; c <- k[[3]]; d <- k[[4]]; level <- k[[5]]
  x <- c(a, b, c, d)
  n <- sum(x)
  two <- pairbinci(x, contrast = "RD", method = "Score_closed", skew = FALSE, bcf = FALSE,
                   cc = FALSE, level = level, precis = 15, warn = FALSE)$estimates
  one <- pairbinci(x, contrast = "RD", method = "Score_closed", skew = FALSE, bcf = FALSE,
                   cc = FALSE, level = 1 - 2 * (1 - level), precis = 15, warn = FALSE)$estimates
  pc <- scoreci.mp(b, c, n, level)$conf.int   # interval of p2 - p1
  list(a = a, b = b, c = c, d = d, n = n, level = level,
       ci_low = unname(two[, "lower"]), ci_high = unname(two[, "upper"]),
       one_sided_low = unname(one[, "lower"]), one_sided_high = unname(one[, "upper"]),
       ci_low_propcis = -pc[2], ci_high_propcis = -pc[1])
})
meta <- list(ratesci = as.character(packageVersion("ratesci")),
             PropCIs = as.character(packageVersion("PropCIs")),
             R = paste(R.version$major, R.version$minor, sep = "."))
writeLines(toJSON(list(versions = meta, tango = out), auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/tango_interval_R.json")
