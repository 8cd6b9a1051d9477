#!/bin/sh
# metasched simulate --seeds and --versus on the embedded default: each
# seed's run is the run --seed N makes; the means, spreads and paired
# differences printed and written are those of the seeds' own summaries
# (recomputed here with awk from each seed's summary.csv); bad lists are
# refused naming the option and the token. Runs are deterministic per
# seed, so this holds on any machine. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 12

pols="-p min_runtime,eamc_priority_inc_v,metasched --t-weight 1 --sweep 0.4,0.5"
# shellcheck disable=SC2086
"$ms" simulate --seeds 1-3 $pols --no-plots \
    --versus eamc_priority_inc_v-1,min_runtime -o "$tmp/s" >"$tmp/out" 2>&1
tap_ok $? "--seeds 1-3 --versus runs"

ok=0
for s in 1 2 3; do [ -f "$tmp/s/seed-$s/summary.csv" ] || ok=1; done
[ -f "$tmp/s/seeds.csv" ] && [ -f "$tmp/s/seeds-summary.csv" ] \
    && [ -f "$tmp/s/seeds-versus.csv" ] || ok=1
tap_ok $ok "each seed's run in OUT/seed-N, the CSVs beside them"

# Seed 2 of the list is the run --seed 2 makes (its deterministic columns:
# killed, mean response, job energy).
# shellcheck disable=SC2086
"$ms" simulate --seed 2 $pols --no-plots -q -o "$tmp/one" >/dev/null 2>&1
cut -d, -f1,2,5,9,12 "$tmp/s/seed-2/summary.csv" >"$tmp/a"
cut -d, -f1,2,5,9,12 "$tmp/one/summary.csv" >"$tmp/b"
cmp -s "$tmp/a" "$tmp/b"
tap_ok $? "seed 2 of --seeds is the run of --seed 2"

# seeds.csv: one row per seed and row of a run (3 policy rows, 2 sweep).
n=$(tail -n +2 "$tmp/s/seeds.csv" | wc -l)
[ "$n" -eq 15 ]
tap_ok $? "seeds.csv has 3 seeds x 5 rows ($n)"

# The mean and sample sd of metasched-w0.5's job energy, from the seeds'
# summary.csv files, against seeds-summary.csv.
want=$(awk -F, '$1 == "policy" && $2 == "metasched-w0.5" { x[++n] = $12 }
    END { for (i = 1; i <= n; i++) m += x[i]; m /= n
          for (i = 1; i <= n; i++) q += (x[i] - m) ^ 2
          printf "%.6e %.6e\n", m, sqrt (q / (n - 1)) }' \
    "$tmp/s"/seed-*/summary.csv)
got=$(awk -F, '$1 == "policy" && $2 == "metasched-w0.5" { print $4, $5 }' \
    "$tmp/s/seeds-summary.csv")
awk -v w="$want" -v g="$got" 'BEGIN { split (w, a, " "); split (g, b, " ")
    exit !(a[1] > 0 && (a[1] - b[1]) ^ 2 < (1e-6 * a[1]) ^ 2 \
           && (a[2] - b[2]) ^ 2 < (1e-4 * a[1]) ^ 2) }'
tap_ok $? "job energy mean and sd over the seeds (want $want, got $got)"

# The paired difference of mean response, metasched-w0.5 against
# eamc_priority_inc_v-1, seed by seed, its mean and the seeds both lower.
want=$(awk -F, '$1 == "policy" && $2 == "eamc_priority_inc_v-1" { re[FILENAME] = $9; ee[FILENAME] = $12 }
    $1 == "policy" && $2 == "metasched-w0.5" { rm[FILENAME] = $9; em[FILENAME] = $12 }
    END { for (f in rm) { d = 100 * (rm[f] / re[f] - 1); e = 100 * (em[f] / ee[f] - 1)
              s += d; n++; if (d < 0 && e < 0) both++ }
          printf "%.4f %d\n", s / n, both }' "$tmp/s"/seed-*/summary.csv)
got=$(awk -F, '$1 == "eamc_priority_inc_v-1" && $2 == "policy" && $3 == "metasched-w0.5" { print $7, $9 }' \
    "$tmp/s/seeds-versus.csv")
awk -v w="$want" -v g="$got" 'BEGIN { split (w, a, " "); split (g, b, " ")
    exit !(b[1] != "" && (a[1] - b[1]) ^ 2 < 1e-6 && a[2] == b[2]) }'
tap_ok $? "paired response difference and seeds both lower (want $want, got $got)"

# Both references were compared; the reference itself is not a row.
n1=$(grep -c '^eamc_priority_inc_v-1,' "$tmp/s/seeds-versus.csv")
n2=$(grep -c '^min_runtime,' "$tmp/s/seeds-versus.csv")
self=$(grep -c '^min_runtime,policy,min_runtime,' "$tmp/s/seeds-versus.csv")
[ "$n1" -eq 4 ] && [ "$n2" -eq 4 ] && [ "$self" -eq 0 ]
tap_ok $? "a block per reference, without the reference ($n1, $n2, $self)"

grep -q "^against eamc_priority_inc_v-1, paired seed by seed" "$tmp/out" \
    && grep -q "^metasched energy-weight sweep:" "$tmp/out"
tap_ok $? "the printed tables"

# Bad input: the option and the token named, exit 2, nothing run.
"$ms" simulate --seeds 5-1 -o "$tmp/bad" >"$tmp/e1" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--seeds: '5-1'" "$tmp/e1" && [ ! -d "$tmp/bad" ]
tap_ok $? "--seeds 5-1 refused: $(head -1 "$tmp/e1")"

"$ms" simulate --seeds 1,2,1 -o "$tmp/bad" >"$tmp/e2" 2>&1
[ $? -eq 2 ] && grep -q "seed 1 given twice" "$tmp/e2"
tap_ok $? "a seed given twice refused: $(head -1 "$tmp/e2")"

"$ms" simulate --seeds 1 --seed 2 -o "$tmp/bad" >"$tmp/e3" 2>&1
[ $? -eq 2 ] && grep -q -- "--seed and --seeds" "$tmp/e3"
tap_ok $? "--seed with --seeds refused: $(head -1 "$tmp/e3")"

"$ms" simulate --seeds 1 -p min_runtime --no-plots --versus nosuch \
    -o "$tmp/v" >"$tmp/e4" 2>&1
[ $? -eq 2 ] && grep -q "no row 'nosuch' (the rows: min_runtime)" "$tmp/e4"
tap_ok $? "--versus of a row there is not: $(head -1 "$tmp/e4")"

[ $tap_failed = 0 ]
