#!/bin/sh
# eval_tables.sh - re-make the tables of doc/evaluation.md, in the page's
# order, and print where each one goes.
#
# Usage: bench/eval_tables.sh METASCHED OUTDIR [SHARED_DATA_DIR [PART...]]
#   METASCHED  the metasched program (a build without sanitizers is faster)
#   OUTDIR     scratch output (created); doc/eval/<scenario>/ is written
#              in place by part "eval", as the page's section 1 says
#   PART       any of: seeds eval chapter bound seeds20 unshipped boundall
#              gpu mold speed (default: all but speed)
# Environment: EVAL_SEEDS (default 1-5) for part "seeds"; EVAL_MOLD_SEEDS
# (default "1 2 3") for part "mold".
#
# Every run is deterministic for its seed; only the speed figures (part
# "speed", bench/bench_sim) depend on the machine.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 METASCHED OUTDIR [SHARED_DATA_DIR [PART...]]" >&2
    exit 2
fi
prog=$1
out=$2
data=${3:-../shared/data}
[ $# -ge 3 ] && shift 3 || shift $#
parts=${*:-seeds eval chapter bound seeds20 unshipped boundall gpu mold}
[ -x "$prog" ] || { echo "$0: $prog: not an executable" >&2; exit 2; }
[ -d "$data/traces" ] || { echo "$0: $data: no traces/ in it" >&2; exit 2; }
mkdir -p "$out"
seeds=${EVAL_SEEDS:-1-5}
mold_seeds=${EVAL_MOLD_SEEDS:-1 2 3}

say () { printf '\n== %s\n' "$*"; }

# scenario name -> simulate options
scen_opts () {
    case $1 in
    default) echo "" ;;
    eamc-13) echo "-s eamc --mix uniform" ;;
    eamc-33) echo "-s eamc --mix 33" ;;
    eamc-50) echo "-s eamc --mix 50" ;;
    kth) echo "-s kth" ;;
    curie) echo "-s curie" ;;
    esac
}

# The markdown table of section 4 from a summary.csv (seed 1).
md_table () {
    awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    {
        g = $c["group"]; p = $c["policy"]
        e = $c["job_energy_j"] / 1e9; r = $c["mean_response_s"] / 3600
        if (g == "policy") {
            np++; pn[np] = p; pe[np] = e; pr[np] = r
            printf "| %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.2f | %.1f | %d |\n", \
                p, $c["mean_wait_s"] / 3600, r, $c["mean_bsld"], \
                $c["makespan_s"] / 86400, e, $c["system_energy_j"] / 1e9, \
                $c["mean_ghz"], 100 * $c["opt_share"], $c["killed"]
            if (p == "min_runtime") { mre = e; mrr = r }
            if (p == "metasched-w0.5") { mse = e; msr = r }
        } else {
            ns++; sn[ns] = p; se[ns] = e; sr[ns] = r
            w = p; sub(/^metasched-w/, "", w)
            sw = sw (sw == "" ? "" : ", ") sprintf("w=%s %.1f / %.2f", w, e, r)
        }
    }
    END {
        print ""
        print "Sweep of the energy weight (job energy GJ / mean response h): " sw "."
        print ""
        printf "metasched (w=0.5) against min_runtime: job energy %+.1f%%, mean response %+.1f%%.\n", \
            100 * (mse / mre - 1), 100 * (msr / mrr - 1)
        for (i = 1; i <= np; i++) {
            if (pn[i] !~ /^eamc_priority_inc_v-/) continue
            line = ""; delete seen
            for (j = 1; j <= np; j++)
                if (pe[j] < pe[i] && pr[j] < pr[i]) { line = line (line == "" ? "" : ", ") pn[j]; seen[pn[j]] = 1 }
            for (j = 1; j <= ns; j++)
                if (se[j] < pe[i] && sr[j] < pr[i] && !(sn[j] in seen)) line = line (line == "" ? "" : ", ") sn[j]
            printf "%s (%.1f GJ, %.2f h) is beaten on both by: %s.\n", pn[i], pe[i], pr[i], \
                line == "" ? "none" : line
        }
    }' "$1"
}

# The markdown table of "Over seeds" from a --seeds run's CSV files.
seeds_md () {
    python3 - "$1" <<'PY'
import csv, sys, os
d = sys.argv[1]
summ = [r for r in csv.DictReader(open(os.path.join(d, "seeds-summary.csv"))) if r["group"] == "policy"]
kills = {}
seeds = []
for r in csv.DictReader(open(os.path.join(d, "seeds.csv"))):
    if r["group"] != "policy":
        continue
    kills.setdefault(r["policy"], []).append(r["killed"])
    if r["seed"] not in seeds:
        seeds.append(r["seed"])
sl = "seeds %s-%s" % (seeds[0], seeds[-1])
print("| policy | job energy GJ (mean ± sd) | mean response h (mean ± sd) | killed (mean; %s) |" % sl)
print("|---|---|---|---|")
m = {}
for r in summ:
    p = r["policy"]
    e, es = float(r["job_energy_j"]) / 1e9, float(r["job_energy_sd"]) / 1e9
    t, ts = float(r["mean_response_s"]) / 3600, float(r["mean_response_sd"]) / 3600
    m[p] = (e, t)
    print("| %s | %.2f ± %.2f | %.3f ± %.3f | %.1f (%s) |" % (p, e, es, t, ts, float(r["killed"]), ", ".join(kills[p])))
def d_(a, b): return "%+.2f%%" % (100 * (a / b - 1))
parts = []
for p in ("metasched-w0.5", "metasched_window-w0.5"):
    x = m[p]
    a, b = m["eamc_priority_inc_v-1"], m["eamc_priority_inc_v-1.5"]
    parts.append("%s: %s / %s against PriorityInc-V-1, %s / %s against PriorityInc-V-1.5" % (p, d_(x[0], a[0]), d_(x[1], a[1]), d_(x[0], b[0]), d_(x[1], b[1])))
print()
print("Energy / response: " + "; ".join(parts) + ".")
x, r = m["metasched-w0.5"], m["min_runtime"]
print("Against min_runtime: %+.1f%% job energy at %+.1f%% mean response." % (100 * (x[0] / r[0] - 1), 100 * (x[1] / r[1] - 1)))
PY
}

for part in $parts; do
    case $part in
    seeds)
        for s in default eamc-13 eamc-33 eamc-50 kth curie; do
            say "doc/evaluation.md, \"Over seeds $seeds\", ### $s (seeds $seeds)"
            # shellcheck disable=SC2046
            nice -n 10 "$prog" simulate $(scen_opts $s) -d "$data" \
                -p min_runtime,eamc_priority_inc_v,metasched,metasched_window \
                --t-weight 1,1.5 --sweep 0.5 --seeds "$seeds" \
                --versus eamc_priority_inc_v-1,eamc_priority_inc_v-1.5 \
                --no-plots -o "$out/seeds-$s" >"$out/seeds-$s.txt"
            cat "$out/seeds-$s.txt"
            echo
            seeds_md "$out/seeds-$s"
        done
        ;;
    seeds20)
        for s in default eamc-13 eamc-33 eamc-50 kth curie; do
            say "doc/evaluation.md, \"How much of a difference is chance\", row $s (seeds 1-20, the metasched-w0.5 rows)"
            # shellcheck disable=SC2046
            nice -n 10 "$prog" simulate $(scen_opts $s) -d "$data" \
                -p eamc_priority_inc_v,metasched --t-weight 1,1.5 --sweep 0.5 \
                --seeds 1-20 --versus eamc_priority_inc_v-1,eamc_priority_inc_v-1.5 \
                --no-plots -o "$out/seeds20-$s" |
                sed -n '/^against eamc_priority_inc_v-1/,/^energies/p'
        done
        ;;
    unshipped)
        # KTH and Curie with arrivals x0.85 and x1.2, the Lublin trace at
        # 48 (the home's) and 4 cores a node, and at 4 with arrivals x0.4
        scale () {
            zcat "$1" | awk -v k="$2" '/^;/ {print; next} {$2 = int($2 * k + 0.5); print}' >"$3"
        }
        t=$data/traces
        scale "$t/KTH-SP2-1996-2.1-cln.swf.gz" 0.85 "$out/kth-x0.85.swf"
        scale "$t/KTH-SP2-1996-2.1-cln.swf.gz" 1.2 "$out/kth-x1.2.swf"
        scale "$t/CEA-Curie-2011-sample30k.swf.gz" 0.85 "$out/curie-x0.85.swf"
        scale "$t/CEA-Curie-2011-sample30k.swf.gz" 1.2 "$out/curie-x1.2.swf"
        scale "$t/lublin_256.swf.gz" 0.4 "$out/lublin-x0.4.swf"
        for w in "curie-x0.85|-s curie -t $out/curie-x0.85.swf --cores-per-node 16" \
            "curie-x1.2|-s curie -t $out/curie-x1.2.swf --cores-per-node 16" \
            "kth-x0.85|-s kth -t $out/kth-x0.85.swf" \
            "kth-x1.2|-s kth -t $out/kth-x1.2.swf" \
            "lublin-48|-s kth -t $t/lublin_256.swf.gz" \
            "lublin-4|-s kth -t $t/lublin_256.swf.gz --cores-per-node 4" \
            "lublin-4-x0.4|-s kth -t $out/lublin-x0.4.swf --cores-per-node 4"; do
            name=${w%%|*}
            say "doc/evaluation.md, \"Workloads that are not shipped as scenarios\", $name (seeds 1-20)"
            # shellcheck disable=SC2086
            nice -n 10 "$prog" simulate ${w#*|} -d "$data" \
                -p eamc_priority_inc_v,metasched --t-weight 1,1.5 --seeds 1-20 \
                --versus eamc_priority_inc_v-1,eamc_priority_inc_v-1.5 \
                --no-plots -o "$out/unshipped-$name" |
                sed -n '/^against eamc_priority_inc_v-1/,/^energies/p'
        done
        ;;
    boundall)
        say "doc/evaluation.md, \"The same bound on every shipped scenario\" (seed 1, --bound)"
        t=$data/traces
        for w in "embedded default|" "eamc uniform|-s eamc --mix uniform" \
            "eamc 33%|-s eamc --mix 33" "eamc 50%|-s eamc --mix 50" \
            "kth|-s kth" "curie|-s curie" \
            "Lublin, 48 cores a node|-s kth -t $t/lublin_256.swf.gz" \
            "Lublin, 4 cores a node|-s kth -t $t/lublin_256.swf.gz --cores-per-node 4"; do
            name=${w%%|*}
            d=$out/bound-$(echo "$name" | tr -c 'a-z0-9\n' '-')
            # shellcheck disable=SC2086
            nice -n 10 "$prog" simulate ${w#*|} -d "$data" --seed 1 \
                -p eamc_priority_inc_v,metasched --t-weight 1,1.5 --sweep 0.5 \
                --bound --no-plots -q -o "$d" >/dev/null
            python3 - "$name" "$d/bound.csv" <<'PY'
import csv, sys
r = {x["policy"]: x for x in csv.DictReader(open(sys.argv[2]))}
a, b, m = r["eamc_priority_inc_v-1"], r["eamc_priority_inc_v-1.5"], r["metasched-w0.5"]
f = lambda x, k: float(x[k])
def p(x, y):
    d = 100 * (x / y - 1)
    return "0.0%" if abs(d) < 0.05 else "%+.1f%%" % d
print("| %s | %s | %s | %s / %s |" % (sys.argv[1],
    p(f(b, "least_energy_j"), f(a, "job_energy_j")),
    p(f(a, "least_mean_runtime_s"), f(b, "mean_runtime_s")),
    p(f(m, "least_energy_j"), f(m, "job_energy_j")),
    p(f(m, "least_mean_runtime_s"), f(m, "mean_runtime_s"))))
PY
        done
        ;;
    eval)
        for s in eamc-13 eamc-33 eamc-50 kth curie default; do
            say "doc/eval/$s/ (output.txt, table.txt, summary.csv, plots): sections 1-3; doc/evaluation.md, \"4. All tables\", ### $s"
            # shellcheck disable=SC2046
            nice -n 10 "$prog" simulate $(scen_opts $s) -d "$data" \
                -o "doc/eval/$s" >"doc/eval/$s/output.txt"
            cat "doc/eval/$s/output.txt"
            echo
            echo "| policy | wait h | response h | bsld | makespan d | job E GJ | system E GJ | mean GHz | optimal % | killed |"
            echo "|---|---|---|---|---|---|---|---|---|---|"
            md_table "doc/eval/$s/summary.csv"
        done
        ;;
    chapter)
        say "doc/evaluation.md, \"1. The EAMC reproduction\": \"Against the chapter's figures\" and the seed-1 rows of the targets table (from doc/eval/eamc-*/summary.csv; run part eval first)"
        python3 - doc/eval/eamc-13/summary.csv doc/eval/eamc-33/summary.csv \
            doc/eval/eamc-50/summary.csv <<'PY'
import csv, sys
def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        if r["group"] == "policy" or r["policy"] not in rows:
            rows[r["policy"]] = r
    return rows
def f(r, k): return float(r[k])
def pct(a, b): return "%+.1f%%" % (100 * (a / b - 1))
m = dict(zip(("13", "33", "50"), map(load, sys.argv[1:4])))
E, R, M, O = "job_energy_j", "mean_response_s", "makespan_s", "opt_share"
t = m["13"]
mr, me, b = t["min_runtime"], t["min_energy"], t["base"]
print("13%: min_runtime against base, makespan / response:", pct(f(mr, M), f(b, M)), "/", pct(f(mr, R), f(b, R)))
for p in ("eamc_priority_inc-1", "eamc_priority_inc_v-1"):
    print("13%%: %s against min_runtime, energy / response / makespan: %s / %s / %s" % (p, pct(f(t[p], E), f(mr, E)), pct(f(t[p], R), f(mr, R)), pct(f(t[p], M), f(mr, M))))
print("13%: min_runtime energy against min_energy:", pct(f(mr, E), f(me, E)))
print("13%%: min_energy response against min_runtime: x%.2f (%s)" % (f(me, R) / f(mr, R), pct(f(me, R), f(mr, R))))
p = "eamc_reorder-1"
print("13%%: %s against min_runtime, response / energy: %s / %s" % (p, pct(f(t[p], R), f(mr, R)), pct(f(t[p], E), f(mr, E))))
print("13%%: base mean response %.1f h" % (f(b, R) / 3600))
for k in ("33", "50"):
    t = m[k]; mr, me = t["min_runtime"], t["min_energy"]
    p = "eamc_priority_inc-1.5"
    print("%s%%: %s response against min_runtime: %s" % (k, p, pct(f(t[p], R), f(mr, R))))
    print("%s%%: min_energy response / makespan against min_runtime: %s / %s" % (k, pct(f(me, R), f(mr, R)), pct(f(me, M), f(mr, M))))
    print("%s%%: min_runtime energy against min_energy: %s" % (k, pct(f(mr, E), f(me, E))))
    best = min((q for q in t if q.startswith("eamc_")), key=lambda q: f(t[q], E))
    print("%s%%: best EAMC variant (%s) energy against min_energy / min_runtime: %s / %s" % (k, best, pct(f(t[best], E), f(me, E)), pct(f(t[best], E), f(mr, E))))
    print("%s%%: on their optimal partition: eamc_priority_inc-1 %.1f%%, min_runtime %.1f%%, min_energy %.1f%%" % (k, 100 * f(t["eamc_priority_inc-1"], O), 100 * f(mr, O), 100 * f(me, O)))
for k in ("13", "33", "50"):
    t = m[k]
    same = all(t["eamc_priority_inc-" + w][c] == t["eamc_priority_inc_v-" + w][c] for w in ("1", "1.5") for c in (E, R, M))
    print("%s%%: PriorityInc-V equals PriorityInc (energy, response, makespan): %s" % (k, "yes" if same else "no"))
    mr, ms = t["min_runtime"], t["metasched-w0.5"]
    print("%s%%: metasched-w0.5 against min_runtime, energy / response: %s / %s" % (k, pct(f(ms, E), f(mr, E)), pct(f(ms, R), f(mr, R))))
PY
        ;;
    bound)
        say "doc/eval/eamc-bound/bound.txt: \"Why the 13% case misses the energy target\""
        python3 doc/eval/eamc-bound/bound.py >"$out/bound.txt"
        cat "$out/bound.txt"
        ;;
    gpu)
        say "doc/evaluation.md, \"GPU jobs: a CPU cluster and a GPU cluster\""
        nice -n 10 "$prog" simulate -c doc/examples/sim-gpu.conf -d "$data" \
            --gpu-share 0.3 \
            -p base,min_runtime,min_energy,eamc_priority_inc_v,metasched \
            --sweep 0,0.5,0.8,1 --no-plots -o "$out/gpu"
        say "doc/evaluation.md, \"With the apps' GPU profiles\""
        nice -n 10 "$prog" simulate -c doc/examples/sim-gpu.conf -d "$data" \
            --gpu-profiles doc/examples/gpu-profiles.conf \
            -p min_runtime,metasched --sweep 0.5 --no-plots -o "$out/gpu-prof"
        ;;
    mold)
        say "doc/evaluation.md, \"Moldable jobs\" (the line 'moldable jobs under ...' of each run)"
        for s in $mold_seeds; do
            for w in 0.5 0.8; do
                echo "-- seed $s, w_E $w"
                nice -n 10 "$prog" simulate -d "$data" --moldable-share 0.3 \
                    --moldable-range 1-4 -p metasched,min_runtime \
                    --w-energy "$w" --seed "$s" --no-plots \
                    -o "$out/mold-$s-$w" | grep -i moldable || true
            done
        done
        ;;
    speed)
        say "doc/evaluation.md, \"5. Speed\" (machine-dependent; a build with CFLAGS='-O2 -g', no sanitizers)"
        bench=$(dirname "$prog")/../bench/bench_sim
        [ -x "$bench" ] || { echo "$0: $bench: build it with make bench" >&2; exit 2; }
        nice -n 10 "$bench" -d "$data" -m "$prog" -r 5
        ;;
    *)
        echo "$0: $part: not a part (seeds eval chapter bound seeds20 unshipped boundall gpu mold speed)" >&2
        exit 2
        ;;
    esac
done
