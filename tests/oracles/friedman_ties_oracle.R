# Oracle for ranger_eval.rank_test's tie-corrected Friedman statistic: R stats::friedman.test.
#
# Run by tests/oracles/friedman_ties_oracle.py, which writes the tables to a JSON file, calls
#   Rscript tests/oracles/friedman_ties_oracle.R INPUT.json
# and embeds this script's standard output (a JSON object: one entry per table with
# friedman.test's statistic and p-value, 17 significant digits) in friedman_ties_oracle.json.
# friedman.test(y) takes a matrix with blocks (datasets) as rows and groups (systems) as columns
# and always applies the tie correction (Hollander & Wolfe 1973, §7.1).
suppressPackageStartupMessages(library(jsonlite))
args <- commandArgs(trailingOnly = TRUE)
tables <- fromJSON(args[1], simplifyVector = FALSE)
out <- list()
for (name in names(tables)) {
  rows <- tables[[name]]
  y <- do.call(rbind, lapply(rows, function(r) as.numeric(unlist(r))))
  ft <- friedman.test(y)
  out[[name]] <- list(statistic = unname(ft$statistic), pvalue = ft$p.value,
                      df = unname(ft$parameter))
}
cat(toJSON(out, auto_unbox = TRUE, digits = NA), "\n")
cat(sprintf("%s\n", R.version.string), file = stderr())
