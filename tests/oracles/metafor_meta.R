# Oracle for ranger_eval.meta: metafor::rma.uni fits, predict(), confint() (Q-profile), leave1out()
# and weights() for several datasets x all nine estimators x tests {z, knha} (+ t on a subset).
#
# Run from the repository root:   Rscript tests/oracles/metafor_meta.R
# Writes tests/oracles/metafor_meta.json (inputs are stored in the JSON, so the tests need no R).
#
# Tight convergence (threshold 1e-14 on tau^2 for the Fisher-scoring estimators ML/REML/EB; uniroot
# tol 1e-15 for PM and for the Q-profile CI) so that the numbers are the exact fixed points.
suppressPackageStartupMessages({
  library(metafor)
  library(jsonlite)
})

out_path <- file.path("tests", "oracles", "metafor_meta.json")
if (!dir.exists(dirname(out_path))) out_path <- "metafor_meta.json"

methods <- c("FE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
ctrl_for <- function(method) {
  if (method == "PM") list(threshold = 1e-14, maxiter = 10000, tol = 1e-15)
  else list(threshold = 1e-14, maxiter = 10000)
}
ci_ctrl <- list(tol = 1e-15, maxiter = 10000)

# ---- datasets -------------------------------------------------------------------------------
datasets <- list()
add_ds <- function(name, yi, vi, measure = "GEN", slab = NULL, t_tests = FALSE, levels = 0.95) {
  if (is.null(slab)) slab <- as.character(seq_along(yi))
  datasets[[length(datasets) + 1]] <<- list(name = name, yi = as.numeric(yi), vi = as.numeric(vi),
                                            measure = measure, slab = as.character(slab),
                                            t_tests = t_tests, levels = levels)
}

add_ds("k1", 0.5, 0.04)
add_ds("k2", c(0.2, 0.6), c(0.02, 0.05), t_tests = TRUE)
# homogeneous: Q < df
add_ds("homogeneous", c(0.31, 0.29, 0.35, 0.27, 0.33, 0.30),
       c(0.05, 0.04, 0.08, 0.06, 0.05, 0.07))
# tiny sampling variances (~1e-6)
add_ds("tiny_vi", c(0.1010, 0.1032, 0.0995, 0.1021, 0.1008, 0.1040),
       c(1.2e-6, 0.8e-6, 1.5e-6, 1.0e-6, 2.0e-6, 0.9e-6))
# 20 studies, moderate heterogeneity (deterministic draw)
set.seed(20240601)
k20 <- 20
vi20 <- round(runif(k20, 0.01, 0.12), 4)
yi20 <- round(rnorm(k20, 0.25, sqrt(vi20 + 0.03)), 4)
add_ds("k20", yi20, vi20, slab = paste0("S", seq_len(k20)), t_tests = TRUE)
# metafor's BCG vaccine data, log risk ratios
bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
add_ds("bcg_logRR", bcg$yi, bcg$vi, measure = "RR",
       slab = paste(dat.bcg$author, dat.bcg$year), t_tests = TRUE, levels = c(0.95, 0.90))
# big heterogeneity (I^2 ~ 99%)
add_ds("big_heterogeneity", c(-1.2, 0.4, 2.1, 0.9, -0.3, 1.7, 3.0, -2.2),
       c(0.010, 0.020, 0.015, 0.030, 0.012, 0.025, 0.018, 0.022))
# correlations on Fisher's z scale (metafor's dat.molloy2014)
mol <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014)
add_ds("molloy_zcor", mol$yi, mol$vi, measure = "ZCOR", slab = dat.molloy2014$authors)

# ---- fitting ---------------------------------------------------------------------------------
num <- function(x) if (is.null(x) || length(x) == 0 || is.na(x)) NULL else unname(as.numeric(x))

qp_ci <- function(fit, control) {
  ci <- tryCatch(suppressWarnings(confint(fit, control = control)), error = function(e) NULL)
  if (is.null(ci)) return(list(tau2_ci = NULL, I2_ci = NULL))
  r <- ci$random
  list(tau2_ci = unname(as.numeric(r["tau^2", c("ci.lb", "ci.ub")])),
       I2_ci = unname(as.numeric(r["I^2(%)", c("ci.lb", "ci.ub")])))
}

fit_one <- function(ds, method, test, level, with_l1o) {
  res <- suppressWarnings(rma(yi = ds$yi, vi = ds$vi, method = method, test = test, level = level,
                              slab = ds$slab, control = ctrl_for(method)))
  pr <- predict(res)
  out <- list(method = method, test = test, level = level, test_used = res$test,
              estimate = num(res$beta), se = num(res$se), ci_low = num(res$ci.lb),
              ci_high = num(res$ci.ub), statistic = num(res$zval), pvalue = num(res$pval),
              tau2 = num(res$tau2), tau = sqrt(num(res$tau2)), I2 = num(res$I2), H2 = num(res$H2),
              Q = num(res$QE), Q_df = res$k - res$p, Q_pvalue = num(res$QEp),
              # predict() of an FE model has no PI element: its prediction interval is the CI
              pi_low = if (is.null(pr$pi.lb)) num(pr$ci.lb) else num(pr$pi.lb),
              pi_high = if (is.null(pr$pi.ub)) num(pr$ci.ub) else num(pr$pi.ub),
              weights = unname(as.numeric(weights(res))) / 100)
  if (ds$measure == "ZCOR") {
    pt <- predict(res, transf = transf.ztor)
    if (is.null(pt$pi.lb)) { pt$pi.lb <- pt$ci.lb; pt$pi.ub <- pt$ci.ub }
    out$transformed <- list(estimate = num(pt$pred), ci_low = num(pt$ci.lb), ci_high = num(pt$ci.ub),
                            pi_low = num(pt$pi.lb), pi_high = num(pt$pi.ub))
  }
  if (method == "FE") {
    # metafor's confint() refuses FE models; ranger_eval reports the Q-profile interval of the data
    # (what confint() gives for any random-effects fit, search capped at tau2.max = 100).
    if (ds$name != "k1") {
      ref <- suppressWarnings(rma(yi = ds$yi, vi = ds$vi, method = "REML",
                                  control = ctrl_for("REML")))
      ci <- qp_ci(ref, c(ci_ctrl, list(tau2.max = 100)))
    } else {
      ci <- list(tau2_ci = NULL, I2_ci = NULL)
    }
    out$ci_source <- "confint(REML fit, tau2.max=100)"
  } else {
    ci <- qp_ci(res, ci_ctrl)
    out$ci_source <- "confint(fit)"
  }
  out["tau2_ci"] <- list(ci$tau2_ci)
  out["I2_ci"] <- list(ci$I2_ci)
  if (with_l1o && length(ds$yi) > 1) {
    l <- suppressWarnings(leave1out(res))
    l1o <- list(estimate = as.numeric(l$estimate), se = as.numeric(l$se),
                ci_low = as.numeric(l$ci.lb), ci_high = as.numeric(l$ci.ub),
                pvalue = as.numeric(l$pval), Q = as.numeric(l$Q), Q_pvalue = as.numeric(l$Qp),
                I2 = as.numeric(l$I2), H2 = as.numeric(l$H2))
    l1o$tau2 <- if (is.null(l$tau2)) rep(0, length(ds$yi)) else as.numeric(l$tau2)
    out$l1o <- l1o
  }
  out
}

records <- list()
n_fits <- 0
for (ds in datasets) {
  fits <- list()
  tests <- if (ds$t_tests) c("z", "knha", "t") else c("z", "knha")
  for (level in ds$levels) {
    for (method in methods) {
      for (test in tests) {
        if (level != 0.95 && !(method %in% c("REML", "DL"))) next
        with_l1o <- level == 0.95 && (test == "z" || (test == "knha" && method %in% c("REML", "DL")))
        fits[[length(fits) + 1]] <- fit_one(ds, method, test, level, with_l1o)
        n_fits <- n_fits + 1
      }
    }
  }
  # per-study normal-theory CIs at 95% (summary.escalc)
  es <- summary(escalc(measure = "GEN", yi = ds$yi, vi = ds$vi))
  records[[length(records) + 1]] <- list(name = ds$name, measure = ds$measure, slab = ds$slab,
                                         slab_rma = as.character(rma(yi = ds$yi, vi = ds$vi,
                                           method = "FE", slab = ds$slab)$slab),
                                         yi = ds$yi, vi = ds$vi,
                                         study_ci_low = as.numeric(es$ci.lb),
                                         study_ci_high = as.numeric(es$ci.ub), fits = fits)
}

doc <- list(
  generator = "tests/oracles/metafor_meta.R",
  R_version = R.version.string,
  metafor_version = as.character(packageVersion("metafor")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  control = list(rma = "threshold=1e-14, maxiter=10000 (PM also tol=1e-15)",
                 confint = "tol=1e-15, maxiter=10000"),
  n_fits = n_fits,
  datasets = records
)
writeLines(toJSON(doc, auto_unbox = TRUE, digits = I(17), null = "null", na = "null"), out_path)
cat("wrote", out_path, "with", n_fits, "fits\n")
