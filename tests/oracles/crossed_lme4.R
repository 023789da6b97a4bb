# Oracle for ranger_eval.stats.crossed and ranger_eval.variance_components: REML variance
# components of crossed random effects from lme4::lmer(value ~ 1 + (1|item) + (1|prompt)
# [+ (1|item:prompt)], REML = TRUE), and lmerTest's Satterthwaite summary of the intercept of
# lmer(d ~ 1 + (1|item) + (1|prompt)) (estimate, SE, df, p, interval estimate ± qt · SE).
# lme4 is run with tight optimiser tolerances so that its own answer is precise.
# Run from the repository root:  Rscript tests/oracles/crossed_lme4.R
# Needs: r-cran-lme4, r-cran-lmertest, r-cran-jsonlite (Debian). Writes tests/oracles/crossed_lme4.json.
suppressPackageStartupMessages({library(lme4); library(lmerTest); library(jsonlite)})
set.seed(20261207)
ctrl <- lmerControl(optimizer = "nloptwrap",
                    optCtrl = list(ftol_abs = 1e-14, xtol_abs = 1e-14, ftol_rel = 1e-15,
                                   xtol_rel = 1e-14, maxeval = 100000),
                    check.conv.singular = "ignore")

make <- function(n_items, n_prompts, samples, drop, s_item, s_prompt, s_ip, s_e, binary = FALSE) {
  a <- rnorm(n_items, sd = s_item); b <- rnorm(n_prompts, sd = s_prompt)
  rows <- list()
  for (i in seq_len(n_items)) for (p in seq_len(n_prompts)) {
    if (runif(1) < drop) next
    k <- if (length(samples) == 1) samples else sample(samples, 1)
    c <- rnorm(1, sd = s_ip)
    v <- 0.5 + a[i] + b[p] + c + rnorm(k, sd = s_e)
    if (binary) v <- as.numeric(v > 0.5)
    rows[[length(rows) + 1]] <- data.frame(item = sprintf("q%03d", i), prompt = sprintf("p%02d", p),
                                           sample = seq_len(k), value = v)
  }
  do.call(rbind, rows)
}

fit_vc <- function(d, interaction) {
  f <- if (interaction) value ~ 1 + (1 | item) + (1 | prompt) + (1 | item:prompt)
       else value ~ 1 + (1 | item) + (1 | prompt)
  m <- lme4::lmer(f, data = d, REML = TRUE, control = ctrl)
  vc <- as.data.frame(VarCorr(m))
  get <- function(g) { x <- vc$vcov[vc$grp == g]; if (length(x)) x else NA }
  list(item = get("item"), prompt = get("prompt"), interaction = get("item:prompt"),
       residual = get("Residual"), mu = unname(fixef(m)[1]), reml_crit = unname(REMLcrit(m)),
       mu_se = sqrt(vcov(m)[1, 1]))
}

designs <- list(
  list(name = "missing_cells_no_replicates", args = list(30, 6, 1, 0.15, 1.0, 0.5, 0.0, 0.8), inter = c(FALSE)),
  list(name = "replicates_balanced", args = list(25, 5, 3, 0.0, 0.8, 0.4, 0.3, 0.6), inter = c(TRUE, FALSE)),
  list(name = "replicates_unbalanced", args = list(40, 8, 1:4, 0.2, 1.0, 0.3, 0.5, 1.0), inter = c(TRUE, FALSE)),
  list(name = "binary_replicates", args = list(35, 4, 2:5, 0.1, 0.3, 0.2, 0.2, 0.3, TRUE), inter = c(TRUE, FALSE)),
  list(name = "many_prompts", args = list(12, 30, 2, 0.25, 0.7, 0.9, 0.2, 0.5), inter = c(TRUE, FALSE)),
  # balanced, small item x prompt variance: an optimiser started at theta = 1 once stopped at
  # the item x prompt bound here
  list(name = "balanced_small_interaction", args = list(100, 12, 4, 0.0, 1.0, 0.5, 0.3, 1.0),
       inter = c(TRUE))
)
vc_out <- list()
for (ds in designs) {
  d <- do.call(make, ds$args)
  fits <- list()
  for (inter in ds$inter) fits[[if (inter) "with_interaction" else "without_interaction"]] <- fit_vc(d, inter)
  vc_out[[ds$name]] <- list(data = d, fits = fits)
}

level <- 0.95
test_one <- function(d) {
  m <- lmerTest::lmer(value ~ 1 + (1 | item) + (1 | prompt), data = d, REML = TRUE, control = ctrl)
  s <- summary(m)$coefficients
  est <- s[1, "Estimate"]; se <- s[1, "Std. Error"]; df <- s[1, "df"]
  q <- qt(1 - (1 - level) / 2, df)
  list(estimate = est, se = se, df = df, statistic = s[1, "t value"], pvalue = s[1, "Pr(>|t|)"],
       ci_low = est - q * se, ci_high = est + q * se)
}
tests <- list(
  list(name = "diff_balanced", args = list(40, 6, 1, 0.0, 0.8, 0.3, 0.0, 0.7)),
  list(name = "diff_missing", args = list(50, 8, 1, 0.2, 0.6, 0.4, 0.0, 0.9)),
  list(name = "diff_few_prompts", args = list(30, 3, 1, 0.1, 1.0, 0.6, 0.0, 0.5)),
  list(name = "diff_replicates", args = list(20, 5, 1:3, 0.1, 0.5, 0.5, 0.0, 0.8))
)
t_out <- list()
for (ts in tests) {
  d <- do.call(make, ts$args)
  d$value <- d$value - 0.4
  t_out[[ts$name]] <- list(data = d, result = test_one(d))
}
write_json(list(variance_components = vc_out, tests = t_out,
                versions = list(lme4 = as.character(packageVersion("lme4")),
                                lmerTest = as.character(packageVersion("lmerTest")))),
           "tests/oracles/crossed_lme4.json", digits = NA, auto_unbox = TRUE, pretty = FALSE)
