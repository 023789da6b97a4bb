# Oracle for ranger_eval.plan: power, sample size and effect of the planned tests.
#
#   R_LIBS=LIB Rscript tests/oracles/power_oracles.R SRC > tests/oracles/power_oracles_r.json
#
# Packages (R 4.2.2, Debian bookworm):
#   pwr 1.3.0 (Debian r-cran-pwr): pwr.t.test, pwr.2p.test, ES.h;
#   exact2x2 1.7.0 (+ exactci, ssanv) from github.com/cran/* installed with R CMD INSTALL -l LIB:
#     powerPaired2x2 (exact McNemar power; errbound = 1e-12, the trinomial sum over all but
#     1e-12 of the probability: its errbound = 0 branch starts the C cell at 1, skipping C = 0);
#   MESS 0.5.12, PowerTOST 1.5-6 and retrodesign 0.2.2 from github.com/cran/*, their R files
#     *sourced* from SRC/MESS/R/power.mcnemar.test.R, SRC/PowerTOST/R/*.R and
#     SRC/retrodesign/R/simple_hypothesis_tests.R (MESS has many compiled dependencies and the
#     cubature snapshot PowerTOST imports was incomplete; the functions used here never call it).
#
# Each case holds the keyword arguments of ranger_eval.plan ("args"), which field the test
# compares ("field": power, n_exact, effect or n) and the oracle's value ("value", 17 digits).
# Where a package solves by uniroot at its default tolerance (~1e-4), the solve is redone here
# with uniroot(tol = 1e-13) on that package's own power function, so it is 1e-10 exact.
suppressPackageStartupMessages({library(pwr); library(exact2x2); library(mvtnorm); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
src <- if (length(args)) args[1] else "/tmp/rsrc_w"
sys.source(file.path(src, "MESS/R/power.mcnemar.test.R"), envir = globalenv())
for (f in list.files(file.path(src, "PowerTOST/R"), full.names = TRUE)) sys.source(f, envir = globalenv())
sys.source(file.path(src, "retrodesign/R/simple_hypothesis_tests.R"), envir = globalenv())

cases <- list()
add <- function(source, args, field, value) {
  cases[[length(cases) + 1]] <<- list(source = source, args = args, field = field,
                                      value = unname(value))
}
root <- function(f, lo, hi) uniroot(f, c(lo, hi), tol = 1e-13, maxiter = 10000)$root
ralt <- c("two-sided" = "two.sided", greater = "greater", less = "less")

# ---- pwr: paired and two-sample t ------------------------------------------------------------
for (type in c("paired", "two.sample")) {
  test <- if (type == "paired") "paired-t" else "welch"
  for (alt in names(ralt)) {
    for (d in c(0.2, 0.5, 1.1)) {
      ds <- if (alt == "less") -d else d
      for (n in c(8, 30, 200.5)) {
        add("pwr.t.test", list(test = test, effect = ds, n = n, alternative = alt), "power",
            pwr.t.test(n = n, d = ds, type = type, alternative = ralt[[alt]])$power)
      }
      pw <- function(n) pwr.t.test(n = n, d = ds, type = type, alternative = ralt[[alt]])$power - 0.8
      add("pwr.t.test", list(test = test, effect = ds, power = 0.8, alternative = alt), "n_exact",
          root(pw, 2.5, 1e6))
    }
    for (n in c(12, 60)) {
      f <- function(d) pwr.t.test(n = n, d = if (alt == "less") -d else d, type = type,
                                  alternative = ralt[[alt]])$power - 0.9
      d <- root(f, 1e-6, 20)
      add("pwr.t.test", list(test = test, n = n, power = 0.9, alternative = alt), "effect",
          if (alt == "less") -d else d)
    }
  }
}
# alpha other than 0.05
add("pwr.t.test", list(test = "paired-t", effect = 0.4, n = 40, alpha = 0.01), "power",
    pwr.t.test(n = 40, d = 0.4, sig.level = 0.01, type = "paired")$power)

# ---- pwr: two proportions (Cohen's h) --------------------------------------------------------
for (alt in names(ralt)) {
  for (pp in list(c(0.6, 0.7), c(0.3, 0.35), c(0.9, 0.95))) {
    pc <- pp[1]; pt <- if (alt == "less") pp[1] - (pp[2] - pp[1]) else pp[2]
    h <- ES.h(pt, pc)
    for (n in c(50, 400)) {
      add("pwr.2p.test", list(test = "proportions-z", p_control = pc, p_treatment = pt, n = n,
                              alternative = alt), "power",
          pwr.2p.test(h = h, n = n, alternative = ralt[[alt]])$power)
    }
    f <- function(n) pwr.2p.test(h = h, n = n, alternative = ralt[[alt]])$power - 0.8
    add("pwr.2p.test", list(test = "proportions-z", p_control = pc, p_treatment = pt,
                            power = 0.8, alternative = alt), "n_exact", root(f, 2, 1e8))
  }
}

# ---- McNemar: MESS (asymptotic, Connor 1987) and exact2x2 (exact) ----------------------------
discordant <- function(pc, pt, rho) {
  p11 <- pt * pc + rho * sqrt(pt * (1 - pt) * pc * (1 - pc))
  c(p10 = pt - p11, p01 = pc - p11)
}
for (cfg in list(c(0.6, 0.65, 0.5), c(0.7, 0.8, 0.2), c(0.5, 0.6, 0), c(0.3, 0.45, 0.4))) {
  pc <- cfg[1]; pt <- cfg[2]; rho <- cfg[3]
  dd <- discordant(pc, pt, rho)
  paid <- min(dd); psi <- max(dd) / min(dd)
  for (alt in c("two-sided", "greater")) {
    malt <- if (alt == "two-sided") "two.sided" else "one.sided"
    for (n in c(60, 250, 1000)) {
      add("MESS::power_mcnemar_test", list(test = "mcnemar", p_control = pc, p_treatment = pt,
                                           correlation = rho, n = n, alternative = alt), "power",
          power_mcnemar_test(n = n, paid = paid, psi = psi, alternative = malt,
                             method = "normal")$power)
    }
    f <- function(n) power_mcnemar_test(n = n, paid = paid, psi = psi, alternative = malt,
                                        method = "normal")$power - 0.8
    add("MESS::power_mcnemar_test", list(test = "mcnemar", p_control = pc, p_treatment = pt,
                                         correlation = rho, power = 0.8, alternative = alt),
        "n_exact", root(f, 1, 1e7))
    for (n in c(15L, 40L, 90L)) {
      xalt <- if (alt == "two-sided") "two.sided" else "one.sided"
      add("exact2x2::powerPaired2x2", list(test = "mcnemar-exact", p_control = pc,
                                           p_treatment = pt, correlation = rho, n = n,
                                           alternative = alt), "power",
          powerPaired2x2(pb = dd[["p10"]], pc = dd[["p01"]], npairs = n, alternative = xalt,
                         errbound = 1e-12)$power)
    }
  }
}

# ---- PowerTOST: equivalence (TOST, exact Owen's Q) and non-inferiority ----------------------
# paired: CV = SD of one measurement, the difference's SD is CV * sqrt(2), so sd = CV * sqrt(2);
# parallel: n is the total of two equal groups, sd = CV.
for (des in c("paired", "parallel")) {
  test <- if (des == "paired") "paired-t" else "welch"
  for (cfg in list(c(0.2, 0.05, 0), c(0.2, 0.05, 0.01), c(1, 0.5, -0.2), c(0.1, 0.08, 0.03))) {
    sd <- cfg[1]; margin <- cfg[2]; theta0 <- cfg[3]
    cv <- if (des == "paired") sd / sqrt(2) else sd
    for (n in c(20, 64, 150)) {
      ntot <- if (des == "paired") n else 2 * n
      add("PowerTOST::power.TOST", list(test = test, sd = sd, margin = margin, effect = theta0,
                                        n = n), "power",
          power.TOST(alpha = 0.05, logscale = FALSE, theta1 = -margin, theta2 = margin,
                     theta0 = theta0, CV = cv, n = ntot, design = des, method = "exact"))
      add("PowerTOST::power.noninf", list(test = test, sd = sd, margin = margin, effect = theta0,
                                          n = n, alternative = "greater"), "power",
          power.noninf(alpha = 0.05, logscale = FALSE, margin = -margin, theta0 = theta0,
                       CV = cv, n = ntot, design = des))
    }
    ss <- sampleN.TOST(alpha = 0.05, logscale = FALSE, theta1 = -margin, theta2 = margin,
                       theta0 = theta0, CV = cv, targetpower = 0.8, design = des,
                       method = "exact", print = FALSE)
    nn <- ss[["Sample size"]]
    add("PowerTOST::sampleN.TOST", list(test = test, sd = sd, margin = margin, effect = theta0,
                                        power = 0.8), "n",
        if (des == "paired") nn else nn / 2)
  }
}

# ---- clusters and repeated samples: the noncentral t of the design (re-implemented here) -----
for (cfg in list(c(10, 0.5), c(5, 0.1), c(20, 0.9))) {
  m <- cfg[1]; icc <- cfg[2]
  deff <- 1 + (m - 1) * icc
  for (n in c(200, 500)) {
    for (test in c("paired-t", "welch")) {
      C <- n / m
      df <- if (test == "paired-t") C - 1 else 2 * (C - 1)
      ncp <- if (test == "paired-t") 0.3 * sqrt(n / deff) else 0.3 * sqrt(n / deff / 2)
      q <- qt(0.975, df)
      add("R pt (design effect)", list(test = test, effect = 0.3, n = n, icc = icc,
                                       cluster_size = m), "power",
          pt(q, df, ncp, lower.tail = FALSE) + pt(-q, df, ncp))
    }
  }
}
for (cfg in list(c(0.2, 0.3, 4), c(0.1, 0.5, 10))) {
  sd <- cfg[1]; w <- cfg[2]; K <- cfg[3]
  s_eff <- sqrt(sd^2 + 2 * w^2 / K)
  add("pwr.t.test (Miller)", list(test = "paired-t", effect = 0.05, n = 120, sd = sd,
                                  within_sd = w, k_samples = K), "power",
      pwr.t.test(n = 120, d = 0.05 / s_eff, type = "paired")$power)
  s_eff <- sqrt(sd^2 + w^2 / K)
  add("pwr.t.test (Miller)", list(test = "welch", effect = 0.05, n = 120, sd = sd,
                                  within_sd = w, k_samples = K), "power",
      pwr.t.test(n = 120, d = 0.05 / s_eff, type = "two.sample")$power)
}

# ---- retrodesign closed form (Gelman & Carlin 2014) ------------------------------------------
retro <- list()
for (A in c(0.1, 0.5, 1, 2.8, -0.7)) {
  for (s in c(0.25, 1)) {
    r <- retro_design_closed_form(A, s)
    retro[[length(retro) + 1]] <- list(effect = A, se = s, power = r$power, type_s = r$type_s,
                                       type_m = r$type_m)
  }
}

cat(toJSON(list(generator = "tests/oracles/power_oracles.R",
                versions = list(R = R.version.string, pwr = as.character(packageVersion("pwr")),
                                exact2x2 = as.character(packageVersion("exact2x2")),
                                MESS = "0.5.12 (sourced)", PowerTOST = "1.5-6 (sourced)",
                                retrodesign = "0.2.2 (sourced)"),
                cases = cases, retrodesign = retro),
           auto_unbox = TRUE, digits = NA, pretty = TRUE))
