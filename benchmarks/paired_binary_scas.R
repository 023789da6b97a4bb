# ratesci's default interval of a paired difference of proportions (the skewness-corrected
# asymptotic score interval with bias correction, Laud 2017, Stat. Med. 36:3327) for every
# (b, c) at n = 15, 30, 60, 100, for benchmarks/paired_binary_intervals.py --scas FILE.
# Score intervals depend on b, c and n only. ratesci 1.0.0 (fetch cran/ratesci, R CMD INSTALL).
#   R_LIBS=/path/to/lib Rscript benchmarks/paired_binary_scas.R scas.csv   (about 40 s)
suppressPackageStartupMessages(library(ratesci))
out <- list()
for (n in c(15, 30, 60, 100)) for (b in 0:n) for (c in 0:(n - b)) {
  e <- pairbinci(c(n - b - c, b, c, 0), contrast = "RD", method = "Score", precis = 8,
                 warn = FALSE)$estimates
  out[[length(out) + 1]] <- c(n = n, b = b, c = c, lower = unname(e[1, "lower"]),
                              upper = unname(e[1, "upper"]))
}
write.csv(do.call(rbind, out), commandArgs(TRUE)[1], row.names = FALSE)
