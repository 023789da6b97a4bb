# metafor oracle for extreme values. Run from the repository root:
#   Rscript tests/oracles/metafor_extreme.R      -> tests/oracles/metafor_extreme.json
#
# Each case is a well-conditioned base data set (yb, vb) moved to an extreme scale:
#   yi = c + s * yb,  vi = s^2 * vb   (s a power of two, or 1e50 with a shift c = 1e60).
# The random-effects model is equivariant under this map, so metafor's fit of the BASE data,
# mapped (estimate, CI, PI -> c + s * x; se -> s * se; tau2 -> s^2 * tau2; I2, H2, Q, p-values,
# weights unchanged), is metafor's answer for the extreme data: "mapped". metafor cannot be run
# on the extreme data directly for the iterative estimators: at these scales its Fisher scoring
# (ML, REML, EB) stops at the starting value and its uniroot (PM) at an absolute tolerance of
# 1.2e-4. Subnormal variances keep few significant digits, so the base data are computed from
# the stored extreme inputs ((yi - c)/s, vi/s^2), not from the nominal base values. The closed-form estimators (FE, DL, HE, HS, SJ) are also fitted directly on the
# extreme data: "direct". Base fits use threshold 1e-13 and uniroot tol 1e-14.
suppressMessages({library(metafor); library(jsonlite)})
base_y <- c(0.12, -0.35, 0.48, 0.05, 0.91, -0.2, 0.33)
base_v <- c(0.04, 0.09, 0.02, 0.12, 0.05, 0.07, 0.03)
cases <- list(
  big = list(s = 2^200),                  # y ~ 1e60,  v ~ 1e119 (beyond the 1e100 safe range)
  huge = list(s = 2^250),                 # y ~ 1e75,  v ~ 1e149
  small = list(s = 2^-200),               # y ~ 1e-61, v ~ 1e-122
  tiny = list(s = 2^-240),                # y ~ 1e-73, v ~ 1e-146
  subnormal = list(s = 2^-530),           # v ~ 1e-321 (subnormal), y ~ 1e-161
  shifted = list(s = 1e50, c = 1e60),     # |y| ~ 1e60 > 1e50: fitted around the median
  mixed = list(s = 1, vmul = c(1e-30, 1, 1e30, 1, 1e-20, 1e20, 1))  # vi over 60 orders
)
methods <- c("FE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
closed <- c("FE", "DL", "HE", "HS", "SJ")
summ <- function(r, s, cc) {
  p <- predict(r)
  est <- cc + s * as.numeric(r$beta)
  zval <- est / (s * r$se)
  pval <- if (r$test == "z") 2 * pnorm(-abs(zval)) else 2 * pt(-abs(zval), df = r$k - 1)
  pl <- if (is.null(p$pi.lb)) p$ci.lb else p$pi.lb
  pu <- if (is.null(p$pi.ub)) p$ci.ub else p$pi.ub
  list(estimate = est, se = s * r$se, pval = pval,
       ci_lb = cc + s * r$ci.lb, ci_ub = cc + s * r$ci.ub, tau2 = s^2 * r$tau2, I2 = r$I2,
       H2 = r$H2, QE = r$QE, pi_lb = cc + s * pl, pi_ub = cc + s * pu,
       weights = as.numeric(weights(r)) / 100)
}
out <- list(metafor = as.character(packageVersion("metafor")), cases = list())
for (nm in names(cases)) {
  cs <- cases[[nm]]
  s <- cs$s
  cc <- if (is.null(cs$c)) 0 else cs$c
  vb <- base_v * (if (is.null(cs$vmul)) 1 else cs$vmul)
  yi <- cc + base_y * s
  vi <- vb * s^2
  # the base data are the extreme inputs as stored, mapped back (exact for powers of two; the
  # shifted case keeps the rounding of 1e60 + y), so rounding of the inputs is not an error
  yb <- (yi - cc) / s
  vb <- vi / s^2
  fits <- list()
  for (m in methods) {
    for (tst in c("z", "knha")) {
      key <- paste(m, tst, sep = "_")
      rb <- suppressWarnings(rma(yb, vb, method = m, test = tst,
                                 control = list(threshold = 1e-13, tol = 1e-14, maxiter = 1000)))
      entry <- list(method = m, test = tst, mapped = summ(rb, s, cc))
      if (m %in% closed) {
        rd <- tryCatch(suppressWarnings(rma(yi, vi, method = m, test = tst)),
                       error = function(e) NULL)
        if (!is.null(rd)) entry$direct <- summ(rd, 1, 0)
      }
      fits[[key]] <- entry
    }
  }
  # inputs as 17-digit strings: they must round-trip exactly (jsonlite prints 15 digits)
  out$cases[[nm]] <- list(yi = sprintf("%.17g", yi), vi = sprintf("%.17g", vi), fits = fits)
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE),
           "tests/oracles/metafor_extreme.json")
