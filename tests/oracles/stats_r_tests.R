# Oracle for ranger_eval.stats: R's wilcox.test (signed-rank test with the Hodges-Lehmann
# estimate and interval) around its exact/normal-approximation switch, and R's mcnemar.test.
#
# Regenerate (from the repository root):  Rscript tests/oracles/stats_r_tests.R
# Writes tests/oracles/stats_r_tests.json (17 significant digits). Base R only (no packages).
#
# wilcox_branch: one-sample wilcox.test(d, conf.int = TRUE, conf.level, alternative, correct) with
#   the default exact = NULL, so that R picks its branch: the exact signed-rank distribution when
#   n < 50 (n = number of non-zero differences) and there are neither ties nor zeros, otherwise
#   the normal approximation (continuity-corrected if correct = TRUE), whose estimate and interval
#   are roots (uniroot, tol.root = 1e-4) of the standardised statistic as a function of the shift.
#   n = 49, 50, 51 with distinct values, with ties (no zeros) and with ties and zeros; plus small
#   and large n. Stored: V (R's statistic, the sum of positive ranks), p.value, the estimate, the
#   interval (infinite bounds as null), the achieved conf.level attribute and R's method string.
# mcnemar: mcnemar.test(matrix(c(a, c, b, d), 2), correct) on 2x2 tables [[a, b], [c, d]]
#   (b = #(x=1, y=0), c = #(x=0, y=1)): statistic and p.value (NaN as null when b + c = 0).
#   R applies the continuity correction only when b != c:
#   YATES <- if (correct && (r == 2) && any(x - t(x) != 0)) 1 else 0.

json <- function(x) {
  if (is.list(x)) {
    if (!is.null(names(x))) {
      inner <- vapply(names(x), function(k) paste0('"', k, '":', json(x[[k]])), "")
      return(paste0("{", paste(inner, collapse = ","), "}"))
    }
    return(paste0("[", paste(vapply(x, json, ""), collapse = ","), "]"))
  }
  one <- function(v) {
    if (is.character(v)) return(paste0('"', gsub('"', '\\\\"', v), '"'))
    if (is.logical(v)) return(if (is.na(v)) "null" else if (v) "true" else "false")
    if (!is.finite(v)) return("null")
    sprintf("%.17g", v)
  }
  parts <- vapply(x, one, "")
  if (length(x) == 1 && !isTRUE(attr(x, "array"))) parts else
    paste0("[", paste(parts, collapse = ","), "]")
}
arr <- function(x) structure(x, array = TRUE)

alts <- c("two.sided", "greater", "less")

make_d <- function(n, kind) {
  repeat {
    d <- switch(kind,
      distinct = round(rnorm(n, mean = 0.25, sd = 1), 6),
      ties = round(rnorm(n, mean = 0.25, sd = 1) * 4) / 4,
      zeros = round(rnorm(n, mean = 0.25, sd = 1) * 4) / 4)
    if (kind == "ties") d[d == 0] <- 0.25
    nz <- d[d != 0]
    ok <- switch(kind,
      distinct = !any(duplicated(abs(d))) && all(d != 0),
      ties = any(duplicated(abs(nz))) && all(d != 0),
      zeros = any(d == 0) && any(duplicated(abs(nz))))
    if (ok && length(unique(nz)) > 1) return(d)
  }
}

case <- function(d, kind, alt, lev, correct) {
  w <- suppressWarnings(wilcox.test(d, conf.int = TRUE, conf.level = lev, alternative = alt,
                                    correct = correct))
  ci <- as.numeric(w$conf.int)
  list(kind = kind, n = length(d), alternative = alt, level = lev, correct = correct,
       d = arr(d), V = unname(w$statistic), p_value = w$p.value,
       estimate = unname(w$estimate), ci_low = ci[1], ci_high = ci[2],
       conf_level = attr(w$conf.int, "conf.level"), method = w$method)
}

set.seed(20251123)
wilcox_branch <- list()
for (n in c(49, 50, 51)) for (kind in c("distinct", "ties", "zeros")) {
  d <- make_d(n, kind)
  for (alt in alts) for (correct in c(TRUE, FALSE)) {
    lev <- if (alt == "two.sided") 0.95 else 0.9
    wilcox_branch[[length(wilcox_branch) + 1]] <- case(d, kind, alt, lev, correct)
  }
}
# further sizes: small tied samples, a level R cannot reach, large n
for (spec in list(list(8, "ties"), list(20, "zeros"), list(35, "ties"), list(120, "distinct"),
                  list(300, "zeros"))) {
  d <- make_d(spec[[1]], spec[[2]])
  for (alt in alts) {
    wilcox_branch[[length(wilcox_branch) + 1]] <- case(d, spec[[2]], alt, 0.95, TRUE)
  }
}
d <- c(1, 1, 2, -1, 0.5)  # ties, n = 5: 95% is not achievable, R lowers conf.level
for (alt in alts) wilcox_branch[[length(wilcox_branch) + 1]] <- case(d, "ties", alt, 0.95, TRUE)
d <- c(0.4, -0.1, 0.7, 1.3)  # exact branch, n = 4: 95% is not achievable
for (alt in alts) wilcox_branch[[length(wilcox_branch) + 1]] <- case(d, "distinct", alt, 0.95, TRUE)

tables <- list(c(10, 7, 7, 20), c(3, 12, 12, 9), c(10, 8, 7, 20), c(10, 7, 8, 20),
               c(5, 0, 6, 9), c(5, 4, 0, 9), c(5, 1, 0, 9), c(5, 0, 0, 9), c(40, 25, 11, 30),
               c(0, 1, 1, 0), c(2, 30, 29, 4))
mcnemar <- list()
for (tab in tables) for (correct in c(TRUE, FALSE)) {
  m <- matrix(c(tab[1], tab[3], tab[2], tab[4]), 2)  # m[1, 2] = b, m[2, 1] = c
  r <- suppressWarnings(mcnemar.test(m, correct = correct))
  mcnemar[[length(mcnemar) + 1]] <- list(a = tab[1], b = tab[2], c = tab[3], d = tab[4],
                                         correct = correct, statistic = unname(r$statistic),
                                         p_value = r$p.value)
}

out <- list(generator = "tests/oracles/stats_r_tests.R", R = R.version.string,
            wilcox_branch = wilcox_branch, mcnemar = mcnemar)
writeLines(json(out), "tests/oracles/stats_r_tests.json")
