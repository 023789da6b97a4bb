# Oracle for ranger_eval.aggregate.harmonic_mean_p: R harmonicmeanp 3.0.1 (Wilson 2019).
#
# Run by tests/oracles/aggregate_oracles.py, which embeds this script's standard output (a JSON
# object) in tests/oracles/aggregate_oracles.json under "harmonicmeanp". By hand:
#   Rscript tests/oracles/aggregate_oracles.R > /tmp/hmp.json
#
# Packages: Debian/bookworm r-base-core 4.2.2 has no r-cran-harmonicmeanp and CRAN was not
# reachable, so both packages were installed from the CRAN mirror repositories on GitHub
# (github.com/cran/FMStable @ 0.1-4, github.com/cran/harmonicmeanp @ 3.0.1):
#   git clone https://github.com/cran/FMStable; git clone https://github.com/cran/harmonicmeanp
#   mkdir -p LIB; R CMD INSTALL -l LIB FMStable; R CMD INSTALL -l LIB harmonicmeanp
# and the library directory is passed as R_LIBS=LIB (the Python driver's --r-lib).
#
# Every case records the inputs (p, w or NULL, L) and p.hmp(p, w, L) (multilevel = TRUE, the
# default; in 3.0.1 it is w.sum * pEstable(w.sum / HMP, Landau(log L + 0.874, pi/2), upper tail)),
# hmp.stat(p, w) and, for equal weights, pharmonicmeanp(HMP, L) as a cross-check. 17 significant
# digits. No jsonlite: the JSON is written by hand.
suppressPackageStartupMessages(library(harmonicmeanp))

num <- function(x) {
  if (length(x) == 0) return("[]")
  s <- ifelse(is.finite(x), sprintf("%.17g", x), "null")
  if (length(x) == 1) return(s)
  paste0("[", paste(s, collapse = ", "), "]")
}
vec <- function(x) paste0("[", paste(sprintf("%.17g", x), collapse = ", "), "]")

cases <- list()
add <- function(name, p, w = NULL, L = NULL) {
  Lv <- if (is.null(L)) length(p) else L
  ph <- unname(suppressWarnings(p.hmp(p, w = w, L = Lv)))
  hs <- unname(hmp.stat(p, w))
  ph_std <- if (is.null(w)) unname(pharmonicmeanp(hs, Lv)) else NA
  wsum <- if (is.null(w)) length(p) / Lv else sum(w)
  cases[[length(cases) + 1]] <<- paste0(
    "{\"name\": \"", name, "\", \"p\": ", vec(p),
    ", \"w\": ", if (is.null(w)) "null" else vec(w),
    ", \"L\": ", format(Lv, scientific = FALSE),
    ", \"p_hmp\": ", num(ph),
    ", \"hmp_stat\": ", num(hs),
    ", \"w_sum\": ", num(wsum),
    ", \"pharmonicmeanp\": ", num(ph_std), "}")
}

add("three", c(0.01, 0.2, 0.5))
add("three_of_10", c(0.01, 0.2, 0.5), L = 10)
add("weighted_subset", c(0.01, 0.2, 0.5), w = c(0.5, 0.2, 0.1), L = 10)
add("weighted_full", c(0.003, 0.04, 0.3, 0.8), w = c(0.1, 0.2, 0.3, 0.4))
add("weights_within_tolerance", c(0.02, 0.3), w = c(0.5, 0.5000005))
add("zero_weight", c(0.001, 0.2, 0.6), w = c(0, 0.5, 0.5))
add("single", 0.03)
add("single_of_100", 0.03, L = 100)
add("single_weight1_of_10", 0.05, w = 1, L = 10)
add("identical_10", rep(0.05, 10))
add("identical_3", rep(0.2, 3))
add("all_ones", rep(1, 4))
add("tiny", c(1e-10, 0.3, 0.9))
add("tail_1e-200", c(1e-200, 0.5))
add("large_L", c(1e-6, 2e-6, 0.01), L = 1e6)
set.seed(20250101)
p50 <- signif(runif(50), 12)
add("uniform_50", p50)
add("uniform_50_of_1000", p50, L = 1000)
# The help page's example: p-values mildly enriched for small values, L = 1000, and the
# multilevel moving windows of 100 of them.
set.seed(1)
L <- 1000
pb <- signif(rbeta(L, 1 / 1.8, 1), 12)
add("help_beta_1000", pb, L = L)
for (beg in c(1, 301, 601)) add(paste0("help_window_", beg), pb[beg + 0:99], L = L)
w7 <- c(3, 1, 1, 2, 5, 1, 7) / 40
add("weighted_7", c(0.04, 0.5, 0.11, 0.9, 0.002, 0.3, 0.07), w = w7, L = 12)

cat("{\n  \"R\": \"", R.version.string, "\",\n  \"harmonicmeanp\": \"",
    as.character(packageVersion("harmonicmeanp")), "\",\n  \"FMStable\": \"",
    as.character(packageVersion("FMStable")), "\",\n  \"cases\": [\n    ",
    paste(cases, collapse = ",\n    "), "\n  ]\n}\n", sep = "")
