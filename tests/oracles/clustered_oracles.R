# Oracle for ranger_eval.stats.clustered: cluster-robust (CR1) t tests from R sandwich::vcovCL
# (type = "HC1"; cluster = the id vector, as ~c), clustered McNemar (Obuchowski 1998; Durkalski
# et al. 2003; Yang, Sun & Hardin 2010) from clust.bin.pair, and the CR2 /
# Bell-McCaffrey Satterthwaite t test from clubSandwich (compare's paired clustered t test).
# Run from the repository root:  Rscript tests/oracles/clustered_oracles.R
# Needs: r-cran-sandwich, r-cran-clubsandwich, r-cran-jsonlite (Debian), clust.bin.pair and
# clusrank (CRAN mirrors cran/clust.bin.pair, cran/clusrank, R CMD INSTALL). The clustered
# Wilcoxon signed-rank test of Rosner, Glynn & Lee: clusrank::clusWilcox.test(method = "rgl"). Writes tests/oracles/clustered_oracles.json.
suppressPackageStartupMessages({
  library(sandwich); library(clubSandwich); library(jsonlite); library(clust.bin.pair)
  library(clusrank)
})
set.seed(20261126)
level <- 0.95

cr1_mean <- function(d, cl) {
  m <- lm(d ~ 1)
  V <- vcovCL(m, cluster = cl, type = "HC1")
  est <- unname(coef(m)[1]); se <- sqrt(V[1, 1]); C <- length(unique(cl)); df <- C - 1
  t <- est / se; q <- qt(1 - (1 - level) / 2, df)
  cr2 <- coef_test(m, vcov = "CR2", cluster = cl, test = "Satterthwaite")
  list(estimate = est, se = se, df = df, statistic = t,
       p_two = 2 * pt(-abs(t), df), p_greater = pt(t, df, lower.tail = FALSE),
       p_less = pt(t, df), ci_low = est - q * se, ci_high = est + q * se,
       ci_low_greater = est - qt(level, df) * se, ci_high_less = est + qt(level, df) * se,
       cr2_se = cr2$SE, cr2_df = cr2$df_Satt, cr2_p = cr2$p_Satt)
}

cr1_unpaired <- function(x, y, cx, cy) {
  v <- c(x, y); s <- c(rep(1, length(x)), rep(0, length(y))); cl <- c(cx, cy)
  m <- lm(v ~ s)
  V <- vcovCL(m, cluster = cl, type = "HC1")
  est <- unname(coef(m)[2]); se <- sqrt(V[2, 2]); C <- length(unique(cl)); df <- C - 1
  t <- est / se; q <- qt(1 - (1 - level) / 2, df)
  list(estimate = est, se = se, df = df, statistic = t, p_two = 2 * pt(-abs(t), df),
       p_greater = pt(t, df, lower.tail = FALSE), p_less = pt(t, df),
       ci_low = est - q * se, ci_high = est + q * se)
}

sizes_to_clusters <- function(sizes) rep(seq_along(sizes), sizes)

cases <- list()
# paired continuous differences, unequal cluster sizes, a strong cluster effect
for (spec in list(list(C = 12, lo = 1, hi = 6), list(C = 30, lo = 2, hi = 20),
                  list(C = 2, lo = 3, hi = 5), list(C = 5, lo = 1, hi = 1))) {
  sz <- sample(spec$lo:spec$hi, spec$C, replace = TRUE)
  cl <- sizes_to_clusters(sz)
  u <- rnorm(spec$C, sd = 0.8)[cl]
  d <- round(0.1 + u + rnorm(length(cl)), 6)
  cl_id <- paste0("c", cl)
  perm <- sample(length(d))  # items of a cluster need not be adjacent
  cases[[length(cases) + 1]] <- list(kind = "paired", d = d[perm], cluster = cl_id[perm],
                                     r = cr1_mean(d[perm], cl_id[perm]))
}
# unpaired: two systems on different items, one cluster namespace (a cluster may hold both)
for (k in 1:2) {
  cx <- sample(1:10, 20, replace = TRUE); cy <- sample(1:10, 25, replace = TRUE)
  u <- rnorm(10)
  x <- round(0.3 + u[cx] + rnorm(20), 6); y <- round(u[cy] + rnorm(25), 6)
  cases[[length(cases) + 1]] <- list(kind = "unpaired", x = x, y = y,
                                     cluster_x = paste0("g", cx), cluster_y = paste0("g", cy),
                                     r = cr1_unpaired(x, y, paste0("g", cx), paste0("g", cy)))
}
# paired binary: clustered McNemar (Obuchowski) on generated and published data
mcn <- function(x, y, cl) {
  tab <- paired.to.contingency(group = list(cl), t1 = x, t2 = y)
  r <- clust.bin.pair(tab$ak, tab$bk, tab$ck, tab$dk, method = "obuchowski")
  du <- clust.bin.pair(tab$ak, tab$bk, tab$ck, tab$dk, method = "durkalski")
  ya <- clust.bin.pair(tab$ak, tab$bk, tab$ck, tab$dk, method = "yang")
  list(statistic = unname(r$statistic), p_two = unname(r$p.value),
       durkalski = unname(du$statistic), durkalski_p = unname(du$p.value),
       yang = unname(ya$statistic), yang_p = unname(ya$p.value))
}
for (C in c(15, 40)) {
  sz <- sample(1:8, C, replace = TRUE); cl <- sizes_to_clusters(sz)
  px <- plogis(rnorm(C, 0.3, 1))[cl]; py <- plogis(rnorm(C, 0, 1))[cl]
  x <- rbinom(length(cl), 1, px); y <- rbinom(length(cl), 1, py)
  cases[[length(cases) + 1]] <- list(kind = "mcnemar", x = x, y = y, cluster = paste0("k", cl),
                                     r = mcn(x, y, paste0("k", cl)))
}
data(thyroids)
tx <- unlist(thyroids$x.pet); ty <- unlist(thyroids$x.spect)
tcl <- rep(thyroids$patient, thyroids$n.glands)
cases[[length(cases) + 1]] <- list(kind = "mcnemar", source = "clust.bin.pair::thyroids",
                                   x = tx, y = ty, cluster = as.character(tcl),
                                   r = mcn(tx, ty, as.character(tcl)))
data(obfuscation)
ocl <- paste(obfuscation$subject, obfuscation$atom, sep = "/")
cases[[length(cases) + 1]] <- list(kind = "mcnemar", source = "clust.bin.pair::obfuscation",
                                   x = as.integer(obfuscation$treatment),
                                   y = as.integer(obfuscation$control), cluster = ocl,
                                   r = mcn(as.integer(obfuscation$treatment),
                                           as.integer(obfuscation$control), ocl))
# clustered signed-rank test (Rosner, Glynn & Lee 2006): balanced and unbalanced clusters,
# ties and zero differences (rounded values)
rgl <- function(d, cl) {
  two <- clusWilcox.test(d, cluster = cl, paired = TRUE, method = "rgl")
  gr <- clusWilcox.test(d, cluster = cl, paired = TRUE, method = "rgl", alternative = "greater")
  le <- clusWilcox.test(d, cluster = cl, paired = TRUE, method = "rgl", alternative = "less")
  list(statistic = unname(two$statistic), p_two = unname(two$p.value),
       p_greater = unname(gr$p.value), p_less = unname(le$p.value),
       n_clusters = unname(two$nclus))
}
for (spec in list(list(C = 10, lo = 4, hi = 4, digits = 6), list(C = 15, lo = 1, hi = 7, digits = 1),
                  list(C = 30, lo = 2, hi = 12, digits = 6), list(C = 8, lo = 3, hi = 3, digits = 0))) {
  sz <- sample(spec$lo:spec$hi, spec$C, replace = TRUE); cl <- sizes_to_clusters(sz)
  d <- round(0.2 + rnorm(spec$C, sd = 0.7)[cl] + rnorm(length(cl)), spec$digits)
  cases[[length(cases) + 1]] <- list(kind = "signed_rank", d = d, cluster = paste0("s", cl),
                                     r = rgl(d, paste0("s", cl)))
}
out <- list(generator = "tests/oracles/clustered_oracles.R", level = level,
            versions = list(R = R.version.string,
                            sandwich = as.character(packageVersion("sandwich")),
                            clubSandwich = as.character(packageVersion("clubSandwich")),
                            clust.bin.pair = as.character(packageVersion("clust.bin.pair")),
                            clusrank = as.character(packageVersion("clusrank"))),
            cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA, pretty = TRUE),
           "tests/oracles/clustered_oracles.json")
