# Oracle for ranger_eval.describe's intra-cluster correlation: ICC::ICCest (one-way ANOVA
# estimator for unbalanced clusters, Lessells & Boag 1987 k0) on the cases of
# describe_oracles.json (made by describe_oracles.py). Values of the huge/tiny cases are scaled by
# 2^-scale_exp first (the ICC does not depend on the scale; aov would overflow near 1e300).
# Run from the repository root:  Rscript tests/oracles/describe_oracles.R
# Needs: r-cran-jsonlite (Debian) and ICC (CRAN mirror cran/ICC, R CMD INSTALL).
# Writes tests/oracles/describe_oracles_icc.json.
suppressPackageStartupMessages({ library(jsonlite); library(ICC) })
cases <- fromJSON("tests/oracles/describe_oracles.json", simplifyVector = FALSE)$cases
out <- list()
for (case in cases) {
  y <- unlist(case$values) * 2^(-case$scale_exp)
  cl <- factor(unlist(case$clusters))
  if (length(levels(cl)) == length(y)) next  # singletons: no within-cluster variance, no ICC
  d <- data.frame(x = cl, y = y)
  est <- ICCest(x, y, data = d)
  out[[case$name]] <- list(icc = est$ICC, k0 = est$k, varw = est$varw, vara = est$vara)
}
payload <- list(generator = "tests/oracles/describe_oracles.R",
                versions = list(R = R.version.string,
                                ICC = as.character(packageVersion("ICC"))),
                cases = out)
writeLines(toJSON(payload, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/describe_oracles_icc.json")
