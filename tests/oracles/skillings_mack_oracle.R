# Oracle for ranger_eval.rank_test on tables with missing cells: the Skillings–Mack
# test (Skillings & Mack 1981, Technometrics 23(2):171–177) as R Skillings.Mack::Ski.Mack and
# PMCMRplus::skillingsMackTest compute it, and Conover's all-pairs test for complete blocks as
# PMCMRplus::frdAllPairsConoverTest.
#
#   Rscript tests/oracles/skillings_mack_oracle.R > tests/oracles/skillings_mack_oracle.json
#
# Packages: Skillings.Mack 1.10 and PMCMRplus 1.9.10 (+ BWStest 0.2.3) from their CRAN mirrors
# (github cran/NAME, R CMD INSTALL), MASS, matrixcalc, jsonlite.
#
# Every table is datasets (rows) x systems (columns), NA for a missing cell, written to the JSON
# as the table itself (null for NA) so the Python test ranks exactly the same numbers.
#  * Ski.Mack(y) takes the transposed matrix (treatments as rows, blocks as columns), prints the
#    statistic with 6 decimals only and returns (invisibly) its rank data, covariance matrix and
#    adjusted sums A; the statistic at full precision is t(A) ginv(Cov) A of those returned
#    objects (Ski.Mack's own last step), checked against the printed 6 decimals and against
#    PMCMRplus::skillingsMackTest's statistic (same formula, computed separately). Ski.Mack's
#    asymptotic p is pchisq(T, df = rank of ginv(Cov)) (matrixcalc::matrix.rank); PMCMRplus
#    always uses k - 1 df (the same for a connected design, every case here).
#  * Neither package corrects for ties (average ranks, untied covariance): on a complete table
#    the statistic is Demsar's untied Friedman statistic, recorded here as friedman_untied
#    (friedman.test's tie-corrected statistic times its correction factor) for complete tables.
#  * frdAllPairsConoverTest(y) (rows = blocks) for complete tables: its default p-values
#    ("single-step": ptukey(sqrt(2)|t|, k, Inf)), the t statistics and the unadjusted
#    two-sided t p-values (p.adjust.method = "none", df = (n-1)(k-1)).
suppressPackageStartupMessages({
  library(jsonlite); library(MASS); library(matrixcalc)
  library(Skillings.Mack); library(PMCMRplus)
})

make_cases <- function() {
  set.seed(20261126)
  cases <- list()
  add <- function(name, y) cases[[name]] <<- y
  # the example of Ski.Mack's help page (Chatfield & Mander 2009): 8 blocks x 4 treatments
  add("ski_mack_help", t(matrix(c(3.2, 3.1, 4.3, 3.5, 3.6, 4.5, NA, 4.2, 4.7, 5.6,
    4.1, 3.7, 3.9, 3.6, 4.1, 4.3, 4.1, 4.2, 4.7, 3.5, 3.1, 3.6, 5.3, 3.7, 3.2, 3.4, 2.9,
    NA, NA, 4.0, 4.1, 3.3), nrow = 4, byrow = TRUE)))
  sizes <- list(c(6, 3), c(10, 4), c(15, 5), c(30, 6), c(8, 8), c(40, 3), c(25, 10), c(12, 2))
  for (s in seq_along(sizes)) {
    n <- sizes[[s]][1]; k <- sizes[[s]][2]
    for (holes in c(0, 1, 3, 8)) {
      for (tied in c(FALSE, TRUE)) {
        y <- matrix(rnorm(n * k) + rep(seq(0, 1, length.out = k), each = n), n, k)
        if (tied) y <- round(y * 2) / 2
        if (holes > 0) {
          # holes anywhere, but every dataset keeps at least two results and every system one
          for (h in seq_len(holes)) {
            for (try in 1:50) {
              i <- sample.int(n, 1); j <- sample.int(k, 1)
              z <- y; z[i, j] <- NA
              if (sum(!is.na(z[i, ])) >= 2 && all(colSums(!is.na(z)) >= 1)) { y <- z; break }
            }
          }
        }
        add(sprintf("n%d_k%d_holes%d_%s", n, k, holes, if (tied) "ties" else "noties"), y)
      }
    }
  }
  # a column missing on half of the datasets, and a dataset with two results only
  y <- matrix(rnorm(60), 12, 5); y[1:6, 5] <- NA; y[7, 1:3] <- NA
  add("half_column_missing", y)
  y <- matrix(round(rnorm(40)), 10, 4); y[2, 2] <- NA; y[5, c(1, 3)] <- NA
  add("integer_scores_holes", y)
  # every dataset ranks the systems identically, with and without a hole
  y <- matrix(rep(1:4, each = 7) + 0, 7, 4); add("identical_orders", y)
  y2 <- y; y2[3, 2] <- NA; add("identical_orders_hole", y2)
  cases
}

out <- list()
cases <- make_cases()
for (name in names(cases)) {
  y <- round(cases[[name]], 6)  # exactly the numbers the JSON holds
  k <- ncol(y)
  entry <- list(table = lapply(seq_len(nrow(y)), function(i) as.list(ifelse(is.na(y[i, ]), NA, y[i, ]))))
  printed <- capture.output(sm <- Ski.Mack(t(y)))
  line <- grep("Skillings-Mack Statistic", printed, value = TRUE)
  stat_printed <- as.numeric(sub(".*Statistic = *([-0-9.e]+) *,.*", "\\1", line))
  A <- sm$adjustedSum
  cov <- sm$varCovarMatrix
  ginv_cov <- ginv(cov)
  T <- as.numeric(A %*% ginv_cov %*% t(A))
  df <- matrix.rank(ginv_cov)
  pm <- skillingsMackTest(y)
  stopifnot(abs(T - stat_printed) < 1e-6 * max(1, abs(T)))
  stopifnot(abs(T - unname(pm$statistic)) <= 1e-9 * max(1, abs(T)))
  entry$statistic <- T
  entry$df <- df
  entry$pvalue <- pchisq(T, df = df, lower.tail = FALSE)
  entry$pmcmrplus_statistic <- as.numeric(pm$statistic)
  entry$pmcmrplus_pvalue <- as.numeric(pm$p.value)
  entry$adjusted_sums <- as.numeric(A)
  entry$n_missing <- sum(is.na(y))
  if (!any(is.na(y))) {
    ft <- friedman.test(y)
    # friedman.test divides by C = 1 - sum(t^3 - t) / (n k (k^2 - 1)); undo it
    ties <- sum(apply(y, 1, function(r) { tt <- table(r); sum(tt^3 - tt) }))
    cfac <- 1 - ties / (nrow(y) * k * (k^2 - 1))
    entry$friedman <- unname(ft$statistic)
    entry$friedman_pvalue <- ft$p.value
    entry$friedman_untied <- unname(ft$statistic) * cfac
    colnames(y) <- sprintf("s%d", seq_len(k) - 1)
    rownames(y) <- sprintf("d%d", seq_len(nrow(y)) - 1)
    cv <- frdAllPairsConoverTest(y)
    cv_none <- frdAllPairsConoverTest(y, p.adjust.method = "none")
    pairs <- list()
    for (b in rownames(cv$p.value)) for (a in colnames(cv$p.value)) {
      if (!is.na(cv$p.value[b, a])) {
        pairs[[length(pairs) + 1]] <- list(
          a = a, b = b, q = cv$statistic[b, a], pvalue_single_step = cv$p.value[b, a],
          t = cv_none$statistic[b, a], pvalue_t = cv_none$p.value[b, a])
      }
    }
    entry$conover <- pairs
    entry$conover_p_adjust_default <- cv$p.adjust.method
    entry$conover_df <- unname(cv_none$parameter)
  }
  out[[name]] <- entry
}
meta <- list(R = R.version.string,
             Skillings.Mack = as.character(packageVersion("Skillings.Mack")),
             PMCMRplus = as.character(packageVersion("PMCMRplus")))
cat(toJSON(list(versions = meta, cases = out), auto_unbox = TRUE, digits = NA, na = "null",
           pretty = FALSE), "\n")
