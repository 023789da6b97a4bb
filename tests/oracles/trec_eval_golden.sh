#!/bin/sh
# Golden outputs of trec_eval 10 for `-c` combined with `-l` (relevance level), which trec_eval's
# own test suite (corpus/trec_eval/out.test.*) does not cover.
#
# trec_eval: https://github.com/usnistgov/trec_eval at commit f4253652c8ef ("Updating CHANGELOG
# for version 10.0"; the binary prints "trec_eval version 10.0-rc3"), built with `make`.
# Inputs: trec_eval's own test files in the reference corpus (../shared/corpus/trec_eval):
# qrels.rel_level (labels -1..4) and results.trunc (topic 302 has no ranking, so -c matters).
#
# Regenerate (from the repository root):
#   TREC_EVAL=/path/to/trec_eval sh tests/oracles/trec_eval_golden.sh
set -eu
TE=${TREC_EVAL:-trec_eval}
C=${RANGER_CORPUS:-../shared/corpus}/trec_eval
OUT=tests/oracles/trec_eval
mkdir -p "$OUT"
for l in 0 2 3; do
  "$TE" -c -q -l"$l" -m all_trec "$C/qrels.rel_level" "$C/results.trunc" > "$OUT/out.rel_level.trunc.aqcl$l"
done
# (without -c this trec_eval stops at topic 302: "result qid '302' not found in qrels", exit 4;
#  the -l2 run without -c is trec_eval's own out.test.aql on results.test)
