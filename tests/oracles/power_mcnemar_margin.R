# Oracle for rg.plan("mcnemar-exact", margin=...): the exact power of Wellek's asymptotic tests
# of paired binary scores against a margin on delta = p10 - p01 (Wellek 2010, Testing Statistical
# Hypotheses of Equivalence and Noninferiority, 2nd ed., section 5.2), from the book's programs:
#   EQUIVNONINF::mcnempow(alpha, n, del0, p10, p01)   exact power of the equivalence test
#   EQUIVNONINF::mcnasc_ni(alpha, n, del0, sw, tol, maxh)   SIZE_unc: the largest exact
#       rejection probability of the non-inferiority test on the boundary delta = -del0, over
#       eta = p10 + p01 on the grid del0 + sw, del0 + 2 sw, ... <= 1 - sw
# Both print their results with cat(); they are read back at 15 significant digits.
# Run from the repository root:  Rscript tests/oracles/power_mcnemar_margin.R
# Needs EQUIVNONINF 1.0.2 and BiasedUrn (CRAN mirrors cran/EQUIVNONINF, cran/BiasedUrn,
# R CMD INSTALL) and r-cran-jsonlite. Writes tests/oracles/power_mcnemar_margin.json.
suppressPackageStartupMessages({ library(EQUIVNONINF); library(jsonlite) })
options(digits = 15)

grab <- function(text, key) {
  m <- regmatches(text, regexpr(paste0(key, " *= *[-0-9.eE+]+"), text))
  as.numeric(sub(".*= *", "", m))
}

equivalence <- list()
for (alpha in c(0.05, 0.1)) for (n in c(30, 60, 150, 300)) for (del0 in c(0.1, 0.2))
  for (p in list(c(0.1, 0.1), c(0.2, 0.15), c(0.05, 0.12), c(0.3, 0.26))) {
    out <- paste(capture.output(mcnempow(alpha, n, del0, p[1], p[2])), collapse = " ")
    equivalence[[length(equivalence) + 1]] <- list(
      alpha = alpha, n = n, margin = del0, p10 = p[1], p01 = p[2],
      power = grab(out, "POW"), error = grepl("!!!!!", out))
  }

noninferiority <- list()
for (alpha in c(0.05, 0.025)) for (n in c(40, 75)) for (del0 in c(0.05, 0.1)) {
  sw <- 0.05
  out <- paste(capture.output(mcnasc_ni(alpha, n, del0, sw, 1e-4, 1)), collapse = " ")
  noninferiority[[length(noninferiority) + 1]] <- list(
    alpha = alpha, n = n, margin = del0, sw = sw, size_unc = grab(out, "SIZE_unc"))
}

writeLines(toJSON(list(source = paste("R", getRversion(), "EQUIVNONINF",
                                      packageVersion("EQUIVNONINF")),
                       equivalence = equivalence, noninferiority = noninferiority),
                  auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/power_mcnemar_margin.json")
