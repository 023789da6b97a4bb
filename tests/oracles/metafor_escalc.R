# Oracle for ranger_eval.effects: paired effect sizes from metafor::escalc (R).
#
# Regenerate (from the repository root):  Rscript tests/oracles/metafor_escalc.R
# Writes tests/oracles/metafor_escalc.json (numbers printed with 17 significant digits).
#
# For each of several deterministic paired datasets (treatment vector t, control vector c, same
# items in the same order) it records the raw vectors, R's summary statistics (mean, sd() with
# ddof = 1, cor(), n) and:
#   MC    escalc(measure = "MC",   m1i = mean(t), m2i = mean(c), sd1i = sd(t), sd2i = sd(c), ri, ni)
#   SMCC  escalc(measure = "SMCC", same arguments; default vtype = "LS")
#   SMCR  escalc(measure = "SMCR", m1i = mean(t), m2i = mean(c), sd1i = sd(c), ri, ni)
#         i.e. the CONTROL's SD is the standardiser and the effect is treatment - control.
#         escalc's SMCR uses only sd1i ("the SD of the first measurement occasion"), so sd1i is fed
#         the control's SD. SMCR_swapped is the conventional reading (m1i = mean(c), m2i = mean(t),
#         sd1i = sd(c)), whose yi must be the negative of SMCR and whose vi must be equal.
#   ZCOR  escalc(measure = "ZCOR", ri = cor(t, c), ni = n)
#   SMD   NOT metafor: the paired standardised mean difference of Borenstein et al. (2009),
#         "Introduction to Meta-Analysis", eqs. 4.27-4.28 (used by the Ranger paper), computed in R
#         directly from the formula:
#           S_diff = sd(t - c), r = cor(t, c), S_within = S_diff / sqrt(2 (1 - r)),
#           d = mean(t - c) / S_within, V_d = (1/n + d^2 / (2n)) * 2 (1 - r),
#           J = 1 - 3 / (4 df - 1) with df = n - 1, g = J d, V_g = J^2 V_d.
suppressPackageStartupMessages(library(metafor))

set.seed(20240611)

clip01 <- function(x) pmin(pmax(x, 0), 1)
r4 <- function(x) round(x, 4)  # 4 decimals: the JSON carries exactly the values R computed on

datasets <- list()

# 1. GLUE-like 0/1 correctness, strongly but not perfectly agreeing systems
c1 <- rbinom(300, 1, 0.82)
flip <- rbinom(300, 1, 0.12) == 1
t1 <- ifelse(flip, 1 - c1, c1)
datasets[["binary_glue"]] <- list(t = t1, c = c1)

# 2. small, nearly independent 0/1 vectors
datasets[["binary_small"]] <- list(t = rbinom(40, 1, 0.6), c = rbinom(40, 1, 0.5))

# 3. continuous, moderately correlated (r ~ 0.5)
z <- rnorm(50)
datasets[["continuous"]] <- list(t = r4(0.3 + 0.5 * z + rnorm(50, sd = 0.5)),
                                 c = r4(0.5 * z + rnorm(50, sd = 0.5)))

# 4. strongly positively correlated (r ~ 0.99), small effect
z <- rnorm(30, 0.5, 0.2)
datasets[["strong_positive"]] <- list(t = r4(z + 0.01 + rnorm(30, sd = 0.02)), c = r4(z))

# 5. negatively correlated (r ~ -0.6)
z <- rnorm(25)
datasets[["negative"]] <- list(t = r4(1 - 0.8 * z + rnorm(25, sd = 0.6)), c = r4(z))

# 6. nDCG-like bounded scores, treatment better, unequal SDs
z <- rbeta(100, 2, 3)
datasets[["ndcg_like"]] <- list(t = r4(clip01(z + 0.1 + rnorm(100, sd = 0.15))), c = r4(z))

# 7. treatment worse, treatment much more variable than control
z <- rnorm(12, 10, 1)
datasets[["worse_unequal_sd"]] <- list(t = r4(z - 0.7 + rnorm(12, sd = 3)), c = r4(z))

# 8. the smallest n every measure accepts (ZCOR needs n >= 4)
datasets[["tiny_n4"]] <- list(t = c(0.61, 0.35, 0.9, 0.42), c = c(0.5, 0.4, 0.7, 0.45))

# 9. n = 3: the smallest n for SMD/SMCC/SMCR (no ZCOR: 1/(n - 3) undefined)
datasets[["tiny_n3"]] <- list(t = c(3.1, 2.2, 4.0), c = c(2.5, 2.4, 3.1))

borenstein_smd <- function(t, c) {
  n <- length(t)
  s_diff <- sd(t - c)
  r <- cor(t, c)
  s_within <- s_diff / sqrt(2 * (1 - r))
  d <- mean(t - c) / s_within
  v_d <- (1 / n + d^2 / (2 * n)) * 2 * (1 - r)
  J <- 1 - 3 / (4 * (n - 1) - 1)
  list(yi = J * d, vi = J^2 * v_d)
}

yv <- function(es) list(yi = as.numeric(es$yi), vi = as.numeric(es$vi))

out <- list()
for (name in names(datasets)) {
  t <- datasets[[name]]$t
  c <- datasets[[name]]$c
  stopifnot(length(t) == length(c), sd(t) > 0, sd(c) > 0)
  n <- length(t)
  mt <- mean(t); mc <- mean(c); st <- sd(t); sc <- sd(c); r <- cor(t, c)
  rec <- list(
    name = name, n = n, treatment = t, control = c,
    mean_treatment = mt, mean_control = mc, sd_treatment = st, sd_control = sc, r = r,
    MD = yv(escalc(measure = "MC", m1i = mt, m2i = mc, sd1i = st, sd2i = sc, ri = r, ni = n)),
    SMCC = yv(escalc(measure = "SMCC", m1i = mt, m2i = mc, sd1i = st, sd2i = sc, ri = r, ni = n)),
    SMCR = yv(escalc(measure = "SMCR", m1i = mt, m2i = mc, sd1i = sc, ri = r, ni = n)),
    SMCR_swapped = yv(escalc(measure = "SMCR", m1i = mc, m2i = mt, sd1i = sc, ri = r, ni = n)),
    SMD = borenstein_smd(t, c)
  )
  if (n >= 4) rec$ZCOR <- yv(escalc(measure = "ZCOR", ri = r, ni = n))
  out[[length(out) + 1]] <- rec
}

# Minimal JSON writer: every number with 17 significant digits (round-trips a double exactly).
to_json <- function(x) {
  if (is.list(x)) {
    if (!is.null(names(x))) {
      keys <- vapply(names(x), function(k) jsonlite::toJSON(k, auto_unbox = TRUE), "")
      vals <- vapply(x, to_json, "")
      return(paste0("{", paste0(keys, ":", vals, collapse = ","), "}"))
    }
    return(paste0("[", paste0(vapply(x, to_json, ""), collapse = ","), "]"))
  }
  if (is.character(x)) return(as.character(jsonlite::toJSON(x, auto_unbox = length(x) == 1)))
  num <- function(v) if (v == round(v) && abs(v) < 1e15) sprintf("%.0f", v) else sprintf("%.17g", v)
  s <- vapply(as.numeric(x), num, "")
  if (length(x) == 1 && is.null(attr(x, "vector"))) s else paste0("[", paste0(s, collapse = ","), "]")
}
for (i in seq_along(out)) {
  out[[i]]$treatment <- structure(out[[i]]$treatment, vector = TRUE)
  out[[i]]$control <- structure(out[[i]]$control, vector = TRUE)
}

doc <- list(
  generator = "tests/oracles/metafor_escalc.R",
  R_version = R.version.string,
  metafor_version = as.character(packageVersion("metafor")),
  note = paste("MD = escalc MC; SMCC/SMCR/ZCOR = escalc (vtype LS); SMCR: m1i = mean(t),",
               "m2i = mean(c), sd1i = sd(c); SMD = Borenstein et al. 2009 eqs. 4.27-4.28 formula",
               "computed in R, not metafor"),
  datasets = out
)
args <- commandArgs(trailingOnly = FALSE)
script <- sub("^--file=", "", args[grep("^--file=", args)])
target <- file.path(dirname(normalizePath(script)), "metafor_escalc.json")
writeLines(to_json(doc), target)
cat("wrote", target, "\n")
