# Oracle for the cluster-robust prediction-powered mean (ranger_eval.stats.ppi,
# prediction_powered_rows(..., clusters=)): for a fixed weight lambda the PPI estimate
#   theta = mean(y - lambda * yhat over labelled) + lambda * mean(yhat over unlabelled)
# is the combination (1, lambda) of the two coefficients of the stacked regression of
#   z = (y - lambda * yhat on the labelled items, yhat on the unlabelled items)
# on two indicators (labelled, unlabelled) without intercept, and its cluster-robust variance is
#   a' V a,  V = sandwich::vcovCL(fit, cluster = ~cl, type = "HC0", cadjust = TRUE)
# (the G/(G - 1) factor, G the clusters of all items), with t on G - 1 df. lambda is PPI++'s
# weight (ppi_py _calc_lam_glm for a mean, clipped to [0, 1]), computed here from its formula
# independently of ranger-eval; method "ppi" is lambda = 1.
# The CR2 (bias-reduced linearisation, Bell & McCaffrey 2002) variance and its Satterthwaite df
# (Pustejovsky & Tipton 2018) come from clubSandwich on the same stacked regression,
# reparametrised so that theta is one coefficient: z ~ 0 + lab + I(unl - lambda * lab) (the
# coefficient of lab is then b_lab + lambda * b_unl = theta), vcovCR(type = "CR2") and
# coef_test(test = "Satterthwaite"); linear_contrast on the original parametrisation is
# checked to agree.
# Run from the repository root:  Rscript tests/oracles/ppi_clustered_oracle.R
# Needs: r-cran-sandwich, r-cran-clubsandwich, r-cran-jsonlite.
# Writes tests/oracles/ppi_clustered_oracle.json.
suppressPackageStartupMessages({ library(sandwich); library(clubSandwich); library(jsonlite) })
set.seed(20261126)
level <- 0.95

ppi_lambda <- function(y, yhat, yu) {
  n <- length(y); N <- length(yu); all <- c(yhat, yu)
  cv <- sum((y - mean(y)) * (yhat - mean(yhat))) / n
  v <- var(all)
  if (!(v > 0)) return(0)
  min(max(cv / ((1 + n / N) * v), 0), 1)
}

clustered_ppi <- function(y, yhat, yu, cl_l, cl_u, lambda) {
  z <- c(y - lambda * yhat, yu)
  lab <- c(rep(1, length(y)), rep(0, length(yu)))
  unl <- 1 - lab
  cl <- c(cl_l, cl_u)
  fit <- lm(z ~ 0 + lab + unl)
  V <- vcovCL(fit, cluster = cl, type = "HC0", cadjust = TRUE)
  a <- c(1, lambda)
  est <- sum(a * coef(fit)); se <- sqrt(drop(t(a) %*% V %*% a))
  G <- length(unique(cl)); df <- G - 1; t <- est / se
  q <- qt(1 - (1 - level) / 2, df)
  list(lambda = lambda, estimate = est, se = se, df = df, n_clusters = G, statistic = t,
       p_two = 2 * pt(-abs(t), df), p_greater = pt(t, df, lower.tail = FALSE),
       ci_low = est - q * se, ci_high = est + q * se, CR2 = clustered_ppi_cr2(z, lab, cl, lambda))
}

clustered_ppi_cr2 <- function(z, lab, cl, lambda) {
  unl <- 1 - lab
  x2 <- unl - lambda * lab
  fit <- lm(z ~ 0 + lab + x2)
  V <- vcovCR(fit, cluster = cl, type = "CR2")
  ct <- coef_test(fit, vcov = V, test = "Satterthwaite", coefs = 1)
  est <- unname(coef(fit)[1]); se <- ct$SE; df <- ct$df_Satt
  # the same contrast (1, lambda) of the original parametrisation
  fit0 <- lm(z ~ 0 + lab + unl)
  lc <- linear_contrast(fit0, vcov = vcovCR(fit0, cluster = cl, type = "CR2"),
                        contrasts = matrix(c(1, lambda), nrow = 1), test = "Satterthwaite",
                        level = level)
  stopifnot(abs(lc$Est - est) <= 1e-12 * max(1, abs(est)),
            abs(lc$df - df) <= 1e-8 * df)
  t <- est / se; q <- qt(1 - (1 - level) / 2, df)
  list(estimate = est, se = se, df = df, statistic = t, p_two = 2 * pt(-abs(t), df),
       p_greater = pt(t, df, lower.tail = FALSE), ci_low = est - q * se,
       ci_high = est + q * se)
}

make_case <- function(name, sizes, p_label, judge_slope, judge_noise, shift = 0,
                      scale = 1, icc_sd = 1, force = NULL) {
  C <- length(sizes); cl <- rep(seq_len(C) - 1, sizes); n_all <- length(cl)
  truth <- shift + scale * (rnorm(C, sd = icc_sd)[cl + 1] + rnorm(n_all))
  judge <- judge_slope * truth + scale * rnorm(n_all, sd = judge_noise)
  lab <- runif(n_all) < p_label
  if (!is.null(force)) lab <- force(cl, lab)
  lab[1:2] <- TRUE; lab[n_all - 0:1] <- FALSE
  y <- truth[lab]; yhat <- judge[lab]; yu <- judge[!lab]
  lam <- ppi_lambda(y, yhat, yu)
  list(name = name, y = y, yhat = yhat, yhat_unlabelled = yu, clusters = cl[lab],
       clusters_unlabelled = cl[!lab],
       expected = list(`ppi++` = clustered_ppi(y, yhat, yu, cl[lab], cl[!lab], lam),
                       ppi = clustered_ppi(y, yhat, yu, cl[lab], cl[!lab], 1)))
}

cases <- list(
  make_case("unequal-sizes", sample(1:8, 30, replace = TRUE), 0.3, 0.9, 0.5),
  make_case("whole-clusters-labelled", rep(c(3, 6, 2, 5), 3), 0.5, 1.0, 0.3,
            force = function(cl, lab) ifelse(cl %% 3 == 0, TRUE, ifelse(cl %% 3 == 1, FALSE, lab))),
  make_case("offset-and-scale", sample(2:6, 25, replace = TRUE), 0.25, 0.8, 0.6, shift = 1e3,
            scale = 0.01),
  make_case("lambda-clipped-at-1", sample(2:5, 20, replace = TRUE), 0.4, 0.3, 0.05),
  make_case("lambda-clipped-at-0", sample(2:5, 20, replace = TRUE), 0.4, -0.7, 0.5),
  make_case("three-clusters", c(7, 9, 8), 0.4, 0.9, 0.4),
  make_case("strong-icc", sample(1:10, 40, replace = TRUE), 0.2, 1.0, 0.8, icc_sd = 2),
  # every human score in cluster 0: its CR2 adjustment (I - H_cc)^(-1/2) is singular there
  # (clubSandwich's Moore-Penrose root), and the labelled part has no cluster-robust spread
  make_case("labelled-in-one-cluster", c(6, 4, 5, 3, 7), 0, 0.9, 0.4,
            force = function(cl, lab) cl == 0)
)
out <- list(source = paste("R", getRversion(), "sandwich", packageVersion("sandwich"),
                           "clubSandwich", packageVersion("clubSandwich")),
            level = level, cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/ppi_clustered_oracle.json")
