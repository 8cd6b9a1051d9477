#!/bin/sh
# The spool under a long database outage (doc/collectors.md, "Spool"): the
# collectors' conninfo names a local port where nothing listens, and the
# epilog runs for many job ends (MS_SPOOL_ENDS, 1,000 by default, 10,000 by
# hand), as slurmd runs it (Slurm's variables, the cluster's scontrol), in
# two loops at once as two nodes sharing a spool would. The spool's cap is
# lowered to 300 files so that the drop path is taken some 700 times.
# Asserted: the spool never holds more than its cap; every epilog ends
# within its bound (slurm_query_ms 3000 + epilog_send_ms 1000: 4 s stated;
# asserted under 8 s), also against a host that takes the TCP connection and never
# answers; bad/ is dropped first and aged; SPOOL/dropped, the log and the
# flush's report give the right counts; the rows kept are each node's
# newest; when the conninfo points back at the test bed's PostgreSQL one
# flush stores every row kept exactly once (rows counted), and a copy that
# reappears is not stored twice. A second spool is held by its byte cap.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (the test bed's PostgreSQL password file is root's)"
bin=$MS_BUILDDIR/collectors/metasched-collect
[ -x "$bin" ] || tap_skip_all "$bin not built"
command -v python3 >/dev/null || tap_skip_all "needs python3 (a listener that never answers, a free port)"

ends=${MS_SPOOL_ENDS:-1000}
# the cap: 300 files, lower for a short run so that drops still happen
cap=300
[ "$ends" -lt 600 ] && cap=$((ends / 2))
[ "$cap" -ge 10 ] || tap_skip_all "MS_SPOOL_ENDS=$ends: too few ends (20 at least)"
bound_ms=8000    # 4 s stated (doc/collectors.md), 4 s of margin
base=900000000   # job ids of this test: base..base+199999
tmp=$(mktemp -d /tmp/ms-spoolcap-XXXXXX)
silent_pid=
cleanup () {
    [ -n "$silent_pid" ] && kill "$silent_pid" 2>/dev/null
    psql "$MS_PG_SUPER_CONNINFO" -X -q -c "DELETE FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id BETWEEN $base AND $((base + 199999))" >/dev/null 2>&1
    # the drop totals its flushes reported (migration 0017)
    psql "$MS_PG_SUPER_CONNINFO" -X -q -c "DELETE FROM spool_drops WHERE cluster = 'alpha' AND node IN ('a1', 'a2', 'a3', 'a4')" >/dev/null 2>&1
    rm -rf "$tmp"
}
trap cleanup EXIT
q () { psql "$MS_PG_REPORT_CONNINFO" -X -A -t -q -c "$1" 2>&1; }
now_ms () { echo $(($(date +%s%N) / 1000000)); }
# files of a spool (rows and bad/) and their bytes
spool_files () { find "$1" -maxdepth 2 -type f \( -name '*.run' -o -path "$1/bad/*" \) ! -name '.*' | wc -l; }
spool_bytes () { find "$1" -maxdepth 2 -type f \( -name '*.run' -o -path "$1/bad/*" \) ! -name '.*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
drops () { sed -n "s/^$2=//p" "$1/dropped" 2>/dev/null; }

tap_plan 17

if "$MS_BUILDDIR/metasched/metasched" db --help >/dev/null 2>&1; then
    ms="$MS_BUILDDIR/metasched/metasched"
else
    ms="$bin --metasched"
fi
out=$(MS_DB_CONNINFO=$MS_PG_CONNINFO $ms db migrate 2>&1 && MS_DB_CONNINFO=$MS_PG_CONNINFO $ms db sync "$MS_CLUSTERS_CONF" 2>&1); rc=$?
tap_ok $rc "schema migrated and clusters synced ($(printf '%s' "$out" | tr '\n' ' ' | cut -c1-120))"
psql "$MS_PG_SUPER_CONNINFO" -X -q -c "DELETE FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id BETWEEN $base AND $((base + 199999))" >/dev/null 2>&1

# a free port (nothing listens once the probe closes it), and a listener
# that takes connections and never answers (a host that hangs)
refused=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(128)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(900)' "$tmp/silent.port" &
silent_pid=$!
n=0; while [ ! -s "$tmp/silent.port" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
silent=$(cat "$tmp/silent.port")

# epilog SPOOL NODE JOBID PORT [--set K=V...]: one job end, as slurmd runs
# it (the test bed's hook: testbed/hooks/epilog); prints its milliseconds
scontrol=$(slurm_cmd alpha scontrol)
epilog () {
    sp=$1 node=$2 id=$3 port=$4
    shift 4
    t0=$(now_ms)
    SLURM_JOB_ID=$id SLURMD_NODENAME=$node SLURM_CLUSTER_NAME=alpha \
    SLURM_JOB_USER=$MS_TEST_USER SLURM_JOB_PARTITION=batch \
    SLURM_CONF=$MS_ALPHA_CONF ASAN_OPTIONS=detect_leaks=0 \
        "$bin" --config /dev/null --set "spool_dir=$sp" \
        --set "job_dir=$tmp/jobs" --set "powercap_root=$tmp/pc/%n" \
        --set "conninfo=host=127.0.0.1 port=$port dbname=metasched user=ms_collector" \
        --set db_retry_ms=1000 --set "scontrol=$scontrol" "$@" epilog \
        </dev/null 2>>"$sp.log"
    echo $(($(now_ms) - t0))
}

# 1. a host that never answers: the epilog still ends within its bound
max=0
for i in 1 2 3; do
    ms_=$(epilog "$tmp/hang" a1 $((base + 190000 + i)) "$silent")
    [ "$ms_" -gt "$max" ] && max=$ms_
done
n=$(ls "$tmp/hang" | grep -c '\.run$')
[ "$max" -le "$bound_ms" ] && [ "$n" = 3 ]
tap_ok $? "against a host that never answers, 3 epilogs each end within ${bound_ms} ms (longest: $max ms) with their rows spooled ($n)"

# 2. the long outage: bad/ holds 3 recent files and 2 past bad_max_age_days
sp=$tmp/spool
mkdir -p "$sp/bad"
chmod 700 "$sp"
for i in 1 2 3 4 5; do
    printf 'metasched-spool 1 job_run\ncluster=alpha\nend\n' > "$sp/bad/alpha.$((base + 180000 + i)).a9.root.run"
done
touch -d '40 days ago' "$sp/bad/alpha.$((base + 180001)).a9.root.run" "$sp/bad/alpha.$((base + 180002)).a9.root.run"
touch -d '1 day ago' "$sp/bad/alpha.$((base + 180003)).a9.root.run"
half=$((ends / 2))
loop () { # loop NODE FIRST_ID: half the ends; times to $tmp/times.NODE
    i=0; over=0
    while [ $i -lt $half ]; do
        ms_=$(epilog "$sp" "$1" $(($2 + i)) "$refused" --set "spool_max_files=$cap")
        echo "$ms_" >> "$tmp/times.$1"
        if [ $((i % 50)) = 0 ]; then
            f=$(spool_files "$sp")
            [ "$f" -gt "$cap" ] && echo "$i $f" >> "$tmp/over.$1"
        fi
        i=$((i + 1))
    done
}
t0=$(now_ms)
loop a1 $base &
p1=$!
loop a2 $((base + 100000)) &
p2=$!
wait $p1 $p2
took=$(( ($(now_ms) - t0) / 1000 ))
f=$(spool_files "$sp")
[ "$f" -le "$cap" ] && [ ! -s "$tmp/over.a1" ] && [ ! -s "$tmp/over.a2" ]
tap_ok $? "$ends job ends with no database in $took s: the spool holds $f files, never over its cap of $cap (checked every 50 ends$(cat "$tmp"/over.* 2>/dev/null | tr '\n' ' '))"
max=$(sort -n "$tmp"/times.* | tail -1); cnt=$(cat "$tmp"/times.* | wc -l)
slow=$(awk -v b="$bound_ms" '$1 > b' "$tmp"/times.* | wc -l)
[ "$cnt" = "$ends" ] && [ "$slow" = 0 ]
tap_ok $? "each of the $cnt epilogs ended within ${bound_ms} ms (longest $max ms, median $(sort -n "$tmp"/times.* | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }') ms)"
rows=$(ls "$sp" | grep -c '\.run$'); bad=$(ls "$sp/bad" | wc -l)
want_rows=$((ends - cap))
[ "$(drops "$sp" rows)" = "$want_rows" ] && [ "$(drops "$sp" bad)" = 3 ] && [ "$(drops "$sp" aged)" = 2 ] && [ "$rows" = "$cap" ] && [ "$bad" = 0 ]
tap_ok $? "SPOOL/dropped counts $want_rows rows, 3 files of bad/ and 2 aged ($(grep -v '^metasched\|^end' "$sp/dropped" | tr '\n' ' ')); $rows rows kept, bad/ empty"
lr=$(grep -c 'dropped .*the oldest spooled row' "$sp.log"); lb=$(grep -c 'dropped .*the oldest file in bad/' "$sp.log"); la=$(grep -c 'in bad/ for more than bad_max_age_days' "$sp.log")
[ "$lr" = "$want_rows" ] && [ "$lb" = 3 ] && [ "$la" = 2 ]
tap_ok $? "the epilogs' log names each drop: $lr rows, $lb files of bad/, $la aged ($(grep -m1 'dropped' "$sp.log" | cut -c1-200))"
# oldest first: what each node kept is its newest ends, without a gap
suffix_ok=0
for node in a1 a2; do
    ids=$(ls "$sp" | sed -n "s/^alpha\.\([0-9]*\)\.$node\.root\.run$/\1/p" | sort -n)
    first=$(echo "$ids" | head -1); last=$(echo "$ids" | tail -1); k=$(echo "$ids" | grep -c .)
    [ -n "$first" ] && [ $((last - first + 1)) = "$k" ] && [ "$((last % 100000))" = $((half - 1)) ] || suffix_ok=1
done
tap_ok $suffix_ok "oldest first: each node kept its newest rows, without a gap"

# bad values are refused, naming the key
bad_out=
for kv in spool_max_files=0 spool_max_bytes=1000 spool_max_files=-3 bad_max_age_days=0 epilog_send_ms=-5 epilog_send_ms=1s db_connect_timeout_s=1; do
    o=$("$bin" --config /dev/null --set "$kv" flush 2>&1); rc=$?
    case $o in *"${kv%%=*}:"*) [ $rc = 2 ] || bad_out="$bad_out $kv(rc $rc)" ;; *) bad_out="$bad_out $kv($o)" ;; esac
done
# and good ones taken (a spool that does not exist has nothing to send)
o=$("$bin" --config /dev/null --set "spool_dir=$tmp/none" --set spool_max_files=1 \
    --set spool_max_bytes=65536 --set bad_max_age_days=3650 --set epilog_send_ms=0 \
    --set db_connect_timeout_s=60 flush 2>&1) || bad_out="$bad_out valid settings refused ($o)"
tap_ok "$([ -z "$bad_out" ] && echo 0 || echo 1)" "bad cap settings are refused with the key named, good ones taken${bad_out:+:$bad_out}"

# 3. the database is back: one flush sends every row kept, once
flush () {
    ASAN_OPTIONS=detect_leaks=0 "$bin" --config /dev/null --set "spool_dir=$1" \
        --set "conninfo=$MS_PG_COLLECTOR_CONNINFO" flush 2>&1
}
# a row sent whose file stays (a crash between commit and unlink) comes
# back after the flush: keep copies of 20
mkdir "$tmp/copies"
ls "$sp" | grep '\.run$' | head -20 | while read -r f; do cp -p "$sp/$f" "$tmp/copies/"; done
# with the database still away, the flush reports the drops all the same
out=$(ASAN_OPTIONS=detect_leaks=0 "$bin" --config /dev/null --set "spool_dir=$sp" \
    --set "conninfo=host=127.0.0.1 port=$refused dbname=metasched user=ms_collector" --set db_retry_ms=0 flush 2>&1); rc=$?
case $out in *"dropped for the spool's cap: $want_rows rows, 3 files of bad/; removed from bad/ for their age: 2 (since the last report: $want_rows, 3, 2)"*) r=$rc ;; *) r=0 ;; esac
tap_ok "$([ "$r" = 1 ] && echo 0 || echo 1)" "a flush with the database still down reports the drops and fails (rc $rc: $(printf '%s' "$out" | head -2 | tr '\n' ' ' | cut -c1-240))"
ls "$sp" | sed -n 's/^alpha\.\([0-9]*\)\.a[12]\.root\.run$/\1/p' | sort -n > "$tmp/kept.ids"
out=$(flush "$sp"); rc=$?
inrange="cluster = 'alpha' AND slurm_job_id BETWEEN $base AND $((base + 179999))"
n=$(q "SELECT count (*) FROM job_runs WHERE $inrange")
d=$(q "SELECT count (DISTINCT (slurm_job_id, node)) FROM job_runs WHERE $inrange")
left=$(ls "$sp" | grep -c '\.run$')
case $out in *"since the last report: 0, 0, 0"*"sent $cap, left 0"*) r=$rc ;; *) r=1 ;; esac
[ "$r" = 0 ] && [ "$n" = "$cap" ] && [ "$d" = "$cap" ] && [ "$left" = 0 ]
tap_ok $? "the database back: one flush stores the $cap rows kept, each once (rows $n, distinct $d, left in the spool $left; $(printf '%s' "$out" | tr '\n' ' ' | cut -c1-200))"
# exactly the rows that were kept, none of those dropped
q "SELECT slurm_job_id FROM job_runs WHERE $inrange ORDER BY 1" > "$tmp/db.ids"
cmp -s "$tmp/kept.ids" "$tmp/db.ids"
tap_ok $? "the database holds exactly the rows the spool kept, none it dropped ($(wc -l < "$tmp/db.ids") ids, $(wc -l < "$tmp/kept.ids") kept)"
cp -p "$tmp/copies/"* "$sp/"
out=$(flush "$sp"); rc=$?
n2=$(q "SELECT count (*) FROM job_runs WHERE $inrange")
[ $rc = 0 ] && [ "$n2" = "$cap" ] && [ "$(ls "$sp" | grep -c '\.run$')" = 0 ]
tap_ok $? "20 rows sent whose files came back are stored once (rows $n2; $(printf '%s' "$out" | tr '\n' ' '))"
out=$(flush "$tmp/hang"); rc=$?
n3=$(q "SELECT count (*) FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id BETWEEN $((base + 190000)) AND $((base + 199999))")
[ $rc = 0 ] && [ "$n3" = 3 ]
tap_ok $? "the rows spooled against the silent host are stored once too ($n3)"

# 4. a cap in bytes: a spool of 64 KiB holds what fits, and drops the rest
sb=$tmp/bytes
i=0; max=0
while [ $i -lt 250 ]; do
    ms_=$(epilog "$sb" a3 $((base + 170000 + i)) "$refused" --set spool_max_bytes=65536)
    [ "$ms_" -gt "$max" ] && max=$ms_
    i=$((i + 1))
done
b=$(spool_bytes "$sb"); f=$(spool_files "$sb")
[ "$b" -le 65536 ] && [ "$(drops "$sb" rows)" = $((250 - f)) ] && [ "$f" -lt 250 ] && [ "$(grep -c 'dropped .*the oldest spooled row' "$sb.log")" = $((250 - f)) ]
tap_ok $? "spool_max_bytes = 65536: 250 ends leave $f rows in $b bytes, $(drops "$sb" rows) dropped and logged (longest epilog $max ms)"
out=$(flush "$sb"); rc=$?
n4=$(q "SELECT count (*) FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id BETWEEN $((base + 170000)) AND $((base + 179999))")
[ $rc = 0 ] && [ "$n4" = "$f" ]
tap_ok $? "and a flush stores those $f once ($n4 rows)"

# 5. the epilog with the database up inserts its own row at once and
# leaves nothing in the spool
ms_=$(epilog "$tmp/up" a4 $((base + 160001)) 0 --set "conninfo=$MS_PG_COLLECTOR_CONNINFO")
n5=$(q "SELECT count (*) FROM job_runs WHERE cluster = 'alpha' AND slurm_job_id = $((base + 160001))")
[ "$n5" = 1 ] && [ "$(ls "$tmp/up" | grep -c '\.run$')" = 0 ] && [ "$ms_" -le "$bound_ms" ]
tap_ok $? "with PostgreSQL up the epilog stores its row itself ($n5 row, $ms_ ms) and leaves the spool empty"
out=$(flush "$tmp/up"); rc=$?
tap_ok "$([ $rc = 0 ] && [ "$out" = "sent 0, left 0" ] && echo 0 || echo 1)" "a flush after it has nothing to send ($out)"
exit $tap_failed
