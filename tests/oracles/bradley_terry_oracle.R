# R oracle of ranger_eval.bradley_terry's standard errors (writes bradley_terry_oracle_R.json).
#
# Battles come from bradley_terry_oracle.json (written by bradley_terry_oracle.py). For each
# fixture, with the first model (alphabetically) as the reference (ability 0):
# - BradleyTerry2::BTm on the aggregated wins of every pair (fixtures without ties): abilities
#   and their model-based standard errors (the inverse Fisher information, vcov of the glm);
# - the same Bradley-Terry model as a binomial glm without intercept on one row per battle
#   (design e_a - e_b without the reference column, response 1 / 0.5 / 0 for a win, a tie,
#   a loss, prior weights = battle weights): coefficients, model-based SEs and the sandwich
#   (HC0) SEs of sandwich::sandwich (bread H^-1, meat the per-battle score outer products).
# Debian packages r-cran-bradleyterry2, r-cran-sandwich, r-cran-jsonlite. Run from the
# repository root:  Rscript tests/oracles/bradley_terry_oracle.R
suppressPackageStartupMessages({library(BradleyTerry2); library(sandwich); library(jsonlite)})

fix <- fromJSON("tests/oracles/bradley_terry_oracle.json", simplifyVector = TRUE)$fixtures
out <- list(versions = list(R = R.version.string,
                            BradleyTerry2 = as.character(packageVersion("BradleyTerry2")),
                            sandwich = as.character(packageVersion("sandwich"))),
            fixtures = list())
for (name in names(fix)) {
  b <- fix[[name]]$battles
  models <- sort(unique(c(b$model_a, b$model_b)))
  p <- length(models)
  y <- ifelse(b$winner == "model_a", 1, ifelse(b$winner == "model_b", 0, 0.5))
  w <- if (is.null(b$weight)) rep(1, length(y)) else b$weight
  X <- matrix(0, length(y), p, dimnames = list(NULL, models))
  X[cbind(seq_along(y), match(b$model_a, models))] <- 1
  X[cbind(seq_along(y), match(b$model_b, models))] <- -1
  X <- X[, -1, drop = FALSE]
  fit <- suppressWarnings(glm(y ~ X - 1, family = binomial, weights = w,
                              control = glm.control(epsilon = 1e-14, maxit = 100)))
  entry <- list(models = models, reference = models[1],
                glm_coef = unname(coef(fit)),
                glm_se_model = unname(sqrt(diag(vcov(fit)))),
                glm_se_sandwich = unname(sqrt(diag(sandwich(fit)))))
  if (all(y != 0.5) && is.null(b$weight)) {
    pa <- factor(b$model_a, levels = models)
    pb <- factor(b$model_b, levels = models)
    key <- paste(pa, pb)
    agg <- data.frame(player1 = factor(b$model_a, levels = models),
                      player2 = factor(b$model_b, levels = models),
                      win1 = as.integer(y == 1), win2 = as.integer(y == 0))
    agg <- aggregate(cbind(win1, win2) ~ player1 + player2, data = agg, FUN = sum)
    agg$player1 <- factor(agg$player1, levels = models)
    agg$player2 <- factor(agg$player2, levels = models)
    bt <- BTm(cbind(win1, win2), player1, player2, data = agg, refcat = models[1],
              control = glm.control(epsilon = 1e-14, maxit = 100))
    entry$btm_coef <- unname(coef(bt))
    entry$btm_se <- unname(sqrt(diag(vcov(bt))))
    entry$btm_names <- names(coef(bt))
  }
  out$fixtures[[name]] <- entry
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE, pretty = TRUE),
           "tests/oracles/bradley_terry_oracle_R.json")
cat("wrote tests/oracles/bradley_terry_oracle_R.json\n")
