# Oracle for ranger_eval.meta's meta-regression, subgroup analysis, Egger's regression test and
# the convergence fallbacks of the ML/REML/EB estimators:
#   * rma(yi, vi, mods = ~ ..., method, test) for several datasets and moderator sets x all nine
#     estimators x tests {z, t, knha} (+ level 0.90 on a subset), with confint() (Q-profile);
#   * subgroup analyses: a model per subgroup, the fixed-effect Q between the subgroup summaries
#     (rma(estimate, sei = se, method = "FE")$QE) and the QM of rma(yi, vi, mods = ~ group);
#   * regtest(res) (default model = "rma", predictor = "sei"), plus model = "lm" and other
#     predictors on a subset;
#   * datasets on which Fisher scoring does not converge with metafor's default control but does
#     with control = list(stepadj = 0.5).
#
# Run from the repository root:   Rscript tests/oracles/metafor_modreg.R
# Writes tests/oracles/metafor_modreg.json (inputs are stored in the JSON, so the tests need no R).
# Categorical moderators are character columns, so R names their dummies column + level
# ("allocrandom"), as ranger_eval does; `~ alloc` is the same model as `~ factor(alloc)`.
suppressPackageStartupMessages({
  library(metafor)
  library(jsonlite)
})

out_path <- file.path("tests", "oracles", "metafor_modreg.json")
if (!dir.exists(dirname(out_path))) out_path <- "metafor_modreg.json"

methods <- c("FE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
tests <- c("z", "t", "knha")
ctrl_for <- function(method, extra = list()) {
  base <- if (method == "PM") list(threshold = 1e-14, maxiter = 10000, tol = 1e-15)
          else list(threshold = 1e-14, maxiter = 10000)
  modifyList(base, extra)
}
ci_ctrl <- list(tol = 1e-15, maxiter = 10000)
num <- function(x) if (is.null(x) || length(x) == 0) NULL else unname(as.numeric(x))

# ---- datasets -------------------------------------------------------------------------------
datasets <- list()
add_ds <- function(name, yi, vi, columns, models, subgroups = character(0), slab = NULL,
                   ni = NULL, levels = 0.95, regtest_extra = FALSE) {
  if (is.null(slab)) slab <- as.character(seq_along(yi))
  datasets[[length(datasets) + 1]] <<- list(
    name = name, yi = as.numeric(yi), vi = as.numeric(vi), slab = as.character(slab),
    ni = ni, columns = columns, models = models, subgroups = subgroups, levels = levels,
    regtest_extra = regtest_extra)
}

bcg <- escalc(measure = "RR", ai = tpos, bi = tneg, ci = cpos, di = cneg, data = dat.bcg)
add_ds("bcg_logRR", bcg$yi, bcg$vi,
       columns = list(ablat = dat.bcg$ablat, year = dat.bcg$year, alloc = dat.bcg$alloc),
       models = list(c("ablat"), c("alloc"), c("ablat", "year"), c("ablat", "alloc")),
       subgroups = c("alloc"), slab = paste(dat.bcg$author, dat.bcg$year),
       ni = with(dat.bcg, tpos + tneg + cpos + cneg), levels = c(0.95, 0.90),
       regtest_extra = TRUE)

mol <- escalc(measure = "ZCOR", ri = ri, ni = ni, data = dat.molloy2014)
add_ds("molloy_zcor", mol$yi, mol$vi,
       columns = list(meanage = dat.molloy2014$meanage, controls = dat.molloy2014$controls,
                      design = dat.molloy2014$design, quality = dat.molloy2014$quality),
       models = list(c("meanage"), c("controls"), c("quality", "design")),
       subgroups = c("design"), slab = dat.molloy2014$authors, ni = dat.molloy2014$ni)

bd <- dat.bangertdrowns2004
bd <- bd[!is.na(bd$length) & !is.na(bd$grade) & !is.na(bd$meta) & !is.na(bd$imag), ]
add_ds("bangertdrowns", bd$yi, bd$vi,
       columns = list(length = bd$length, grade = as.character(bd$grade), meta = bd$meta,
                      imag = bd$imag == 1),
       models = list(c("length"), c("grade"), c("length", "meta", "imag")),
       subgroups = c("grade"), slab = bd$author, ni = bd$ni)

# 20 studies, a numeric and a 3-level moderator (deterministic draw)
set.seed(20240602)
k20 <- 20
x20 <- round(runif(k20, 0, 10), 1)
g20 <- sample(c("a", "b", "c"), k20, replace = TRUE)
vi20 <- round(runif(k20, 0.01, 0.12), 4)
yi20 <- round(0.1 + 0.04 * x20 + ifelse(g20 == "c", 0.2, 0) + rnorm(k20, 0, sqrt(vi20 + 0.02)), 4)
add_ds("k20", yi20, vi20, columns = list(x = x20, g = g20),
       models = list(c("x"), c("g"), c("x", "g")), subgroups = c("g"),
       slab = paste0("S", seq_len(k20)))

# homogeneous effects: tau^2 = 0 for most estimators (R^2 = 0 then)
add_ds("homogeneous", c(0.31, 0.29, 0.35, 0.27, 0.33, 0.30, 0.28, 0.34),
       c(0.05, 0.04, 0.08, 0.06, 0.05, 0.07, 0.05, 0.06),
       columns = list(x = c(1, 2, 3, 4, 5, 6, 7, 8)), models = list(c("x")))

# ---- fitting ---------------------------------------------------------------------------------
mods_formula <- function(cols) as.formula(paste("~", paste(cols, collapse = " + ")))

qp_ci <- function(fit, control) {
  ci <- tryCatch(suppressWarnings(confint(fit, control = control)), error = function(e) NULL)
  if (is.null(ci)) return(list(tau2_ci = NULL, I2_ci = NULL))
  r <- ci$random
  list(tau2_ci = unname(as.numeric(r["tau^2", c("ci.lb", "ci.ub")])),
       I2_ci = unname(as.numeric(r["I^2(%)", c("ci.lb", "ci.ub")])))
}

reg_record <- function(res, with_arrays = TRUE) {
  out <- list(coef_names = rownames(res$beta), estimate = num(res$beta), se = num(res$se),
       statistic = num(res$zval), pvalue = num(res$pval), ci_low = num(res$ci.lb),
       ci_high = num(res$ci.ub), vcov = unname(as.numeric(res$vb)),  # column-major p x p
       tau2 = num(res$tau2), I2 = num(res$I2), H2 = num(res$H2), R2 = num(res$R2),
       QE = num(res$QE), QE_df = res$k - res$p, QE_pvalue = num(res$QEp), QM = num(res$QM),
       QM_df = res$QMdf[1], QM_ddf = if (is.na(res$QMdf[2])) NULL else res$QMdf[2],
       QM_pvalue = num(res$QMp))
  if (with_arrays) {  # weights and fitted values do not depend on the test: stored for z only
    out$weights <- unname(as.numeric(weights(res))) / 100
    out$fitted <- unname(as.numeric(fitted(res)))
  }
  out
}

fit_mods <- function(ds, cols, method, test, level) {
  dat <- as.data.frame(ds$columns, stringsAsFactors = FALSE)
  dat$yi <- ds$yi
  dat$vi <- ds$vi
  res <- suppressWarnings(rma(yi, vi, mods = mods_formula(cols), data = dat, method = method,
                              test = test, level = level, control = ctrl_for(method)))
  out <- c(list(method = method, test = test, level = level),
           reg_record(res, with_arrays = test == "z" && level == 0.95))
  if (method == "FE") {
    ref <- suppressWarnings(rma(yi, vi, mods = mods_formula(cols), data = dat, method = "REML",
                                level = level, control = ctrl_for("REML")))
    ci <- qp_ci(ref, c(ci_ctrl, list(tau2.max = 100)))
    out$ci_source <- "confint(REML fit, tau2.max=100)"
  } else {
    ci <- qp_ci(res, ci_ctrl)
    out$ci_source <- "confint(fit)"
  }
  out["tau2_ci"] <- list(ci$tau2_ci)
  out["I2_ci"] <- list(ci$I2_ci)
  out
}

fit_subgroups <- function(ds, col, method, test) {
  grp <- ds$columns[[col]]
  lv <- sort(unique(as.character(grp)))
  per <- lapply(lv, function(g) {
    sel <- as.character(grp) == g
    r <- suppressWarnings(rma(ds$yi[sel], ds$vi[sel], method = method, test = test,
                              control = ctrl_for(method)))
    list(group = g, k = sum(sel), estimate = num(r$beta), se = num(r$se), tau2 = num(r$tau2),
         I2 = num(r$I2), Q = num(r$QE), ci_low = num(r$ci.lb), ci_high = num(r$ci.ub),
         pvalue = num(r$pval))
  })
  est <- sapply(per, function(p) p$estimate)
  se <- sapply(per, function(p) p$se)
  between <- rma(est, sei = se, method = "FE")
  dat <- data.frame(yi = ds$yi, vi = ds$vi, grp = as.character(grp), stringsAsFactors = FALSE)
  reg <- suppressWarnings(rma(yi, vi, mods = ~ grp, data = dat, method = method, test = test,
                              control = ctrl_for(method)))
  within <- sum(sapply(lv, function(g) {
    sel <- as.character(grp) == g
    if (sum(sel) < 2) 0 else rma(ds$yi[sel], ds$vi[sel], method = "FE")$QE
  }))
  list(method = method, test = test, groups = lv, per_group = per,
       Q_between = num(between$QE), Q_between_df = between$k - 1,
       Q_between_pvalue = num(between$QEp), Q_within = within,
       QM = num(reg$QM), QM_df = reg$QMdf[1],
       QM_ddf = if (is.na(reg$QMdf[2])) NULL else reg$QMdf[2], QM_pvalue = num(reg$QMp),
       regression_tau2 = num(reg$tau2))
}

regtest_record <- function(rt) {
  list(statistic = num(rt$zval), pvalue = num(rt$pval),
       df = if (is.null(rt$ddf) || is.na(rt$ddf)) NULL else rt$ddf,
       est = num(rt$est), ci_low = num(rt$ci.lb), ci_high = num(rt$ci.ub))
}

fit_regtests <- function(ds, method, test, extra) {
  res <- suppressWarnings(rma(ds$yi, ds$vi, method = method, test = test,
                              control = ctrl_for(method)))
  out <- list(c(list(method = method, test = test, model = "rma", predictor = "sei", mods = NULL),
                regtest_record(suppressWarnings(regtest(res)))))
  if (extra) {
    for (pr in c("vi", "ninv", "sqrtninv", "ni")) {
      rt <- suppressWarnings(regtest(res, predictor = pr, ni = ds$ni))
      out[[length(out) + 1]] <- c(list(method = method, test = test, model = "rma",
                                       predictor = pr, mods = NULL), regtest_record(rt))
    }
    rt <- suppressWarnings(regtest(res, model = "lm"))
    out[[length(out) + 1]] <- c(list(method = method, test = test, model = "lm",
                                     predictor = "sei", mods = NULL), regtest_record(rt))
    # regtest of a meta-regression: the predictor is added to its moderators
    dat <- as.data.frame(ds$columns, stringsAsFactors = FALSE)
    resm <- suppressWarnings(rma(ds$yi, ds$vi, mods = ~ ablat, data = dat, method = method,
                                 test = test, control = ctrl_for(method)))
    out[[length(out) + 1]] <- c(list(method = method, test = test, model = "rma",
                                     predictor = "sei", mods = list("ablat")),
                                regtest_record(suppressWarnings(regtest(resm))))
  }
  out
}

records <- list()
n_fits <- 0
for (ds in datasets) {
  models <- list()
  for (cols in ds$models) {
    fits <- list()
    for (level in ds$levels) {
      for (method in methods) {
        for (test in tests) {
          if (level != 0.95 && !(method %in% c("REML", "DL", "FE"))) next
          fits[[length(fits) + 1]] <- fit_mods(ds, cols, method, test, level)
          n_fits <- n_fits + 1
        }
      }
    }
    models[[length(models) + 1]] <- list(mods = as.list(cols), formula = deparse(mods_formula(cols)),
                                         fits = fits)
  }
  subgroups <- list()
  for (col in ds$subgroups) {
    fits <- list()
    for (method in methods) for (test in tests) {
      fits[[length(fits) + 1]] <- fit_subgroups(ds, col, method, test)
    }
    subgroups[[length(subgroups) + 1]] <- list(variable = col, fits = fits)
  }
  regtests <- list()
  for (method in methods) for (test in tests) {
    regtests <- c(regtests, fit_regtests(ds, method, test, ds$regtest_extra && test != "t"))
  }
  records[[length(records) + 1]] <- list(name = ds$name, yi = ds$yi, vi = ds$vi, slab = ds$slab,
                                         ni = ds$ni, columns = ds$columns, models = models,
                                         subgroups = subgroups, regtests = regtests)
}

# ---- convergence: default Fisher scoring fails, stepadj = 0.5 converges ------------------------
conv_cases <- list(
  list(name = "reml_oscillates", yi = c(0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0),
       vi = c(1, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2), x = NULL),
  list(name = "all_oscillate", yi = c(-0.3, -0.3, -0.2, 0, -0.3, -0.2, -0.3, 0.2, 0.2, 0.3, -3),
       vi = c(2, 1, 4, 4, 2, 1, 1, 2, 4, 2, 0.5), x = NULL),
  list(name = "ml_oscillates", yi = c(0, 3, -0.4, 0.4, -0.1, -0.5, 0.6, 0.3, -0.1, 0.1, 0.1),
       vi = c(2, 0.5, 4, 2, 2, 2, 4, 1, 1, 4, 4), x = NULL),
  list(name = "eb_oscillates", yi = c(0.3, 0.3, -0.1, -0.1, 3, 0, -0.3, 0.1, 0, -0.8, 0.1, 3,
                                      -0.1, 0.4, 0),
       vi = c(4, 4, 4, 2, 2, 2, 0.5, 2, 4, 0.5, 4, 0.5, 2, 4, 2), x = NULL),
  list(name = "reml_mods_oscillates",
       yi = c(0.2, 0.3, -0.2, 0, -0.3, 0.4, 0, 0.1, 0.6, -0.6, -3, -0.1, 0),
       vi = c(0.5, 4, 2, 0.5, 4, 4, 2, 2, 2, 2, 0.5, 2, 2),
       x = c(10, 0, 9, 3, 1, 7, 6, 8, 4, 7, 1, 1, 9)),
  list(name = "eb_mods_oscillates", yi = c(-0.1, -0.1, -0.1, -0.2, -0.1, 0, 0.1, -3, -0.2, -0.2),
       vi = c(4, 4, 1, 4, 2, 0.5, 1, 0.5, 4, 4), x = c(9, 1, 2, 8, 6, 9, 1, 5, 3, 7))
)
convergence <- list()
for (cc in conv_cases) {
  fits <- list()
  for (method in c("ML", "REML", "EB")) {
    fit <- function(extra) {
      if (is.null(cc$x)) {
        try(suppressWarnings(rma(cc$yi, cc$vi, method = method,
                                 control = ctrl_for(method, extra))), silent = TRUE)
      } else {
        try(suppressWarnings(rma(cc$yi, cc$vi, mods = ~ cc$x, method = method,
                                 control = ctrl_for(method, extra))), silent = TRUE)
      }
    }
    default <- fit(list())
    halved <- fit(list(stepadj = 0.5))
    rec <- list(method = method, default_converged = !inherits(default, "try-error"),
                stepadj_converged = !inherits(halved, "try-error"))
    if (!inherits(halved, "try-error")) {
      rec$tau2 <- num(halved$tau2)
      rec$estimate <- num(halved$beta)
      rec$se <- num(halved$se)
      rec$I2 <- num(halved$I2)
      if (!is.null(cc$x)) rec$QM <- num(halved$QM)
    }
    fits[[length(fits) + 1]] <- rec
  }
  convergence[[length(convergence) + 1]] <- list(name = cc$name, yi = cc$yi, vi = cc$vi,
                                                 x = cc$x, fits = fits)
}

doc <- list(
  generator = "tests/oracles/metafor_modreg.R",
  R_version = R.version.string,
  metafor_version = as.character(packageVersion("metafor")),
  jsonlite_version = as.character(packageVersion("jsonlite")),
  control = list(rma = "threshold=1e-14, maxiter=10000 (PM also tol=1e-15)",
                 confint = "tol=1e-15, maxiter=10000",
                 convergence = "as rma, plus stepadj=0.5 where stated"),
  n_fits = n_fits,
  datasets = records,
  convergence = convergence
)
writeLines(toJSON(doc, auto_unbox = TRUE, digits = I(17), null = "null", na = "null"), out_path)
cat("wrote", out_path, "with", n_fits, "meta-regression fits\n")
