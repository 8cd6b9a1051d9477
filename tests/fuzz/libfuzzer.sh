#!/bin/sh
# libfuzzer.sh - run libFuzzer targets for a set time each (`make fuzz`).
#
# Usage: libfuzzer.sh [NAME...]   (default: every tests/fuzz/libfuzzer_NAME
#                                  built in $MS_BUILDDIR)
# Environment: FUZZ_SECONDS (600) per target, FUZZ_JOBS (1) targets at a
# time, FUZZ_NICE (19), FUZZ_MAX_LEN (16384) bytes per input,
# FUZZ_RSS_MB (2048), FUZZ_TIMEOUT (10) seconds per input.
#
# Each target starts from the repository's corpus (tests/fuzz/corpus/NAME,
# only read) and a scratch corpus in the build tree
# (tests/fuzz/work/NAME/corpus, where libFuzzer writes the inputs that reach
# new coverage and which a later run goes on from). A crash, leak, timeout
# or sanitizer report leaves its input in tests/fuzz/work/NAME/findings;
# minimise it (libfuzzer_NAME -minimize_crash=1 -runs=10000 INPUT), fix the
# product code and keep the input in the repository's corpus as a
# regression case. The log of a run is tests/fuzz/work/NAME/fuzz.log.
#
# The summary has one line per target: seconds, executions, executions per
# second, edges covered (cov), features (ft), inputs added to the scratch
# corpus, and the findings. The exit status is 1 if any target found
# something.
set -u
builddir=${MS_BUILDDIR:-.}
srcdir=${MS_SRCDIR:-.}
seconds=${FUZZ_SECONDS:-600}
jobs=${FUZZ_JOBS:-1}
nice_level=${FUZZ_NICE:-19}
max_len=${FUZZ_MAX_LEN:-16384}
rss_mb=${FUZZ_RSS_MB:-2048}
per_input=${FUZZ_TIMEOUT:-10}
work=$builddir/tests/fuzz/work

# one target: run it, then write its summary line to $work/NAME/summary
run_one () {
    name=$1
    bin=$builddir/tests/fuzz/libfuzzer_$name
    dir=$work/$name
    mkdir -p "$dir/corpus" "$dir/findings"
    seeds=$srcdir/tests/fuzz/corpus/$name
    [ -d "$seeds" ] || seeds=
    start=$(date +%s)
    # -close_fd_mask=1: the parsers never print, but a target's stdout
    # would drown the log
    nice -n "$nice_level" "$bin" -max_total_time="$seconds" \
        -max_len="$max_len" -rss_limit_mb="$rss_mb" -timeout="$per_input" \
        -print_final_stats=1 -close_fd_mask=1 \
        -artifact_prefix="$dir/findings/" \
        "$dir/corpus" $seeds >"$dir/fuzz.log" 2>&1
    rc=$?
    end=$(date +%s)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/fuzz.log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/fuzz.log" | tail -1)
    added=$(sed -n 's/^stat::new_units_added: *//p' "$dir/fuzz.log" | tail -1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$dir/fuzz.log" | tail -1)
    cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    found=$(cd "$dir/findings" && ls 2>/dev/null | tr '\n' ' ')
    if [ "$rc" -ne 0 ] && [ -z "$found" ]; then
        found="exit status $rc, see $dir/fuzz.log"
    fi
    printf '%-12s %6s %12s %8s %6s %7s %6s  %s\n' "$name" "$((end - start))" \
        "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${added:-?}" \
        "${found:-none}" >"$dir/summary"
    cat "$dir/summary"
}

if [ "${1-}" = --one ]; then
    run_one "$2"
    exit 0
fi

if [ $# -gt 0 ]; then
    names=$*
else
    names=$(cd "$builddir/tests/fuzz" 2>/dev/null && ls libfuzzer_* 2>/dev/null \
            | grep -v '\.' | sed 's/^libfuzzer_//')
fi
if [ -z "$names" ]; then
    echo "libfuzzer.sh: no libFuzzer targets in $builddir/tests/fuzz" \
         "(configure with CC=clang --enable-fuzzing)" >&2
    exit 1
fi
for n in $names; do
    if [ ! -x "$builddir/tests/fuzz/libfuzzer_$n" ]; then
        echo "libfuzzer.sh: $builddir/tests/fuzz/libfuzzer_$n is not built" >&2
        exit 1
    fi
    rm -f "$work/$n/summary"
done
echo "fuzzing $(echo $names | wc -w) targets for $seconds s each, $jobs at a time (nice $nice_level)"
printf '%-12s %6s %12s %8s %6s %7s %6s  %s\n' target seconds executions exec/s \
    cov ft added findings
printf '%s\n' $names | xargs -P "$jobs" -n 1 "$SHELL" "$0" --one
status=0
echo "--- summary (logs: $work/NAME/fuzz.log)"
printf '%-12s %6s %12s %8s %6s %7s %6s  %s\n' target seconds executions exec/s \
    cov ft added findings
for n in $names; do
    if [ -f "$work/$n/summary" ]; then
        cat "$work/$n/summary"
        grep -q ' none$' "$work/$n/summary" || status=1
    else
        echo "$n: no summary (interrupted?)"
        status=1
    fi
done
exit $status
