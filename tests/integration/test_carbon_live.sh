#!/bin/sh
# The grid's carbon signals live in metaschedd on the test bed: each
# cluster draws from a zone of its own (clusters.conf zone), whose signal
# comes from a CSV file, a JSON file and a JSON answer of an HTTP server
# on 127.0.0.1 (python3 -m http.server), in steps of a minute: dirty now,
# clean from two minutes on. With w_carbon set, a job with --deadline
# now+15 min and a 1-minute limit is sent with a begin time at the clean
# step and still ends before its deadline; a job without a deadline is
# not delayed; the HTTP source is polled; w_carbon sends a job to the
# cleaner zone's cluster (the files re-read when they change); the
# what-if shows each candidate's carbon and cost; a stale signal gives
# the fallback note (what-if, /metrics, the log once); a bad line in a
# signal file stops the daemon at file:line, and read later is logged at
# file:line with the last good signal kept. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
command -v python3 >/dev/null || tap_skip_all "python3 not installed"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
http_pid=
trap 'cfg set w_carbon=0 >/dev/null 2>&1; [ -z "$http_pid" ] || kill "$http_pid" 2>/dev/null; daemon_cleanup' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 12

log=$dtmp/msd.log
u=$MS_TEST_USER
d=$(job_dir "$u")
set -- $(sed -n 's/^\[cluster \(.*\)\]$/\1/p' "$MS_CLUSTERS_CONF")
[ $# -ge 3 ] || tap_skip_all "the test bed has fewer than three clusters"
c1=$1 c2=$2 c3=$3

# each cluster in a zone of its own: Z1, Z2, Z3
awk '{ print } /^\[cluster / { z++; print "zone = Z" z }' "$MS_CLUSTERS_CONF" >"$dtmp/clusters.conf"
DAEMON_CLUSTERS_CONF=$dtmp/clusters.conf

# signals in steps of a minute from 10 minutes ago, for an hour: dirty
# (G_NOW) before CLEAN, the first step two minutes from now or later, then
# G_LATER. sig_csv FILE G_NOW G_LATER; sig_json FILE ZONE G_NOW G_LATER
now0=$(date +%s)
t0=$(( now0 / 60 * 60 - 600 ))
clean=$(( now0 / 60 * 60 + 180 ))
iso () { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
sig_csv () {
    { echo "time_utc,gco2eq_per_kwh,price_per_mwh"
      k=0; while [ $k -lt 70 ]; do
          t=$((t0 + 60 * k)); g=$2; [ $t -ge $clean ] && g=$3
          echo "$(iso $t),$g,90"; k=$((k + 1))
      done; } >"$1.new" && mv "$1.new" "$1"
}
sig_json () {
    { printf '{"zone": "%s", "unit": "gCO2eq/kWh", "points": [' "$2"
      k=0; while [ $k -lt 70 ]; do
          t=$((t0 + 60 * k)); g=$3; [ $t -ge $clean ] && g=$4
          printf '%s{"start": "%s", "carbon": %s, "price": 90}' \
              "$([ $k = 0 ] || echo ,)" "$(iso $t | sed 's/:00Z$/Z/')" "$g"
          k=$((k + 1))
      done; echo ']}'; } >"$1.new" && mv "$1.new" "$1"
}
mkdir -p "$dtmp/www"
sig_csv "$dtmp/z1.csv" 900 50
sig_json "$dtmp/z2.json" Z2 900 50
sig_json "$dtmp/www/z3.json" Z3 900 50

# the HTTP source: a local server on a free port
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dtmp/www" \
    >"$dtmp/http.log" 2>&1 &
http_pid=$!
wait_for 20 curl -sf "http://127.0.0.1:$port/z3.json" -o /dev/null ||
    tap_skip_all "python3 -m http.server did not answer on 127.0.0.1:$port"

metric () { # metric NAME ZONE
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{zone=\"$2\"} //p"
}
state () { q "SELECT state FROM jobs WHERE id = ${1:-0}"; }
st_in () { case " $2 " in *" $(state "$1") "*) return 0 ;; esac; return 1; }
gets () { n=$(grep -c 'GET /z3.json' "$dtmp/http.log"); [ "$n" -ge "$1" ]; }
chosen () { # chosen SCRIPT: the what-if's chosen cluster
    msb "$u" "$d" --test-only "$1" 2>&1 | sed -n 's/^\* \([^ ]*\) .*/\1/p'
}
epoch () { q "SELECT floor(extract(epoch FROM $1))::bigint FROM jobs WHERE id = ${2:-0}"; }

# 1: metaschedd takes the three sources (CSV, JSON, HTTP) and polls the
# HTTP one every carbon_poll_s
daemon_lead "carbon_signal = Z1=$dtmp/z1.csv, Z2=$dtmp/z2.json, Z3=http://127.0.0.1:$port/z3.json" \
    "carbon_poll_s = 5"
cfg set w_carbon=1 >/dev/null 2>&1
wait_for 60 gets 3
n3=$(grep -c 'GET /z3.json' "$dtmp/http.log")
i1=$(metric metaschedd_carbon_intensity Z1)
i3=$(metric metaschedd_carbon_intensity Z3)
[ "$n3" -ge 3 ] && [ "${i1%.*}" = 900 ] && [ "${i3%.*}" = 900 ]
tap_ok $? "the HTTP source is polled ($n3 GETs) and /metrics shows the zones' intensity now (Z1 $i1, Z3 $i3)"

# 2: the what-if shows each candidate's carbon and cost
msb_sleep "$u" "$d" cb-wi 1
daemon_answers "$u" "$d" cb-wi.sh
wi=$(msb "$u" "$d" --test-only cb-wi.sh 2>&1)
row=$(printf '%s\n' "$wi" | grep '^\* ')
printf '%s\n' "$wi" | grep -q 'CARBON_G *COST *SHIFT' &&
    printf '%s\n' "$row" | awk '{ exit !($(NF - 2) + 0 > 0 && $(NF - 1) + 0 > 0) }'
tap_ok $? "the what-if shows the chosen candidate's carbon and cost: $row"

# 3, 4: a job with --deadline now+15 min and a 1-minute limit is held for
# the clean step (a begin time at it) and ends before its deadline; a job
# without a deadline is not held
daemon_cycles 2
msb_sleep "$u" "$d" cb-dl 1 "--deadline=now+15minutes"
dl=$job_id
sub_dl=$(date +%s)
msb_sleep "$u" "$d" cb-now 1
now_job=$job_id
wait_for 300 st_in "$dl" "completed failed cancelled lost"
dl_start=$(epoch started_at "$dl")
dl_end=$(epoch finished_at "$dl")
shift_s=$(q "SELECT candidates FROM decisions WHERE job_id = ${dl:-0} ORDER BY id DESC LIMIT 1" |
    python3 -c 'import json, sys; c = [x for x in json.load(sys.stdin) if x.get("chosen")]; print(int(c[0]["shift_s"]) if c else -1)' 2>/dev/null)
[ "$(state "$dl")" = completed ] && [ -n "$dl_start" ] &&
    [ "$dl_start" -ge $((clean - 1)) ] && [ "$dl_end" -le $((sub_dl + 900)) ] &&
    [ "${shift_s:--1}" -gt 0 ]
tap_ok $? "a deadline job is shifted to the clean step and ends before its deadline (job $dl $(state "$dl"): started $((dl_start - clean)) s after the clean step, ended $((sub_dl + 900 - dl_end)) s before the deadline, decision's shift $shift_s s)"
wait_for 120 st_in "$now_job" "running completed failed"
now_start=$(epoch started_at "$now_job")
[ -n "$now_start" ] && [ "$now_start" -lt "$clean" ]
tap_ok $? "a job without a deadline is not delayed (job $now_job started $((clean - ${now_start:-0})) s before the clean step)"

# 5, 6: w_carbon sends a job to the cleaner zone's cluster: the one clean
# zone's cluster is chosen, in the what-if and by the dispatch; the files
# re-read when they change and the HTTP source at its next poll
clean=0
sig_csv "$dtmp/z1.csv" 900 900
sig_json "$dtmp/z2.json" Z2 20 20
sig_json "$dtmp/www/z3.json" Z3 900 900
z2now () { [ "$(metric metaschedd_carbon_intensity Z2)" = 20.000 ]; }
wait_for 60 z2now
n=$(grep -c 'GET /z3.json' "$dtmp/http.log")
wait_for 60 gets $((n + 2))
daemon_cycles 2
w2=$(chosen cb-wi.sh)
sig_json "$dtmp/z2.json" Z2 900 900
sig_json "$dtmp/www/z3.json" Z3 20 20
z3now () { [ "$(metric metaschedd_carbon_intensity Z3)" = 20.000 ]; }
z2dirty () { [ "$(metric metaschedd_carbon_intensity Z2)" = 900.000 ]; }
wait_for 60 z3now && wait_for 60 z2dirty
daemon_cycles 2
w3=$(chosen cb-wi.sh)
[ "$w2" = "$c2" ] && [ "$w3" = "$c3" ]
tap_ok $? "the what-if chooses the clean zone's cluster: Z2 clean -> $w2 ($c2), Z3 clean -> $w3 ($c3)"
msb_sleep "$u" "$d" cb-move 1
mv_job=$job_id
wait_for 90 st_in "$mv_job" "submitted running completed"
where=$(copies_where "$mv_job")
case $where in "$c3/"*) true ;; *) false ;; esac
tap_ok $? "the dispatch sends the job to the clean zone's cluster $c3 (job $mv_job: $where)"

# 7, 8, 9: a stale signal (Z1's steps ended three hours ago, over
# carbon_max_age_s): /metrics says so, the log says it once, the
# what-if's note says energy alone
t0=$(( now0 / 60 * 60 - 4 * 3600 ))
{ echo "time_utc,gco2eq_per_kwh"
  k=0; while [ $k -lt 30 ]; do echo "$(iso $((t0 + 60 * k))),100"; k=$((k + 1)); done
} >"$dtmp/z1.csv.new" && mv "$dtmp/z1.csv.new" "$dtmp/z1.csv"
z1stale () { [ "$(metric metaschedd_carbon_stale Z1)" = 1.000 ]; }
wait_for 60 z1stale
tap_ok $? "/metrics: metaschedd_carbon_stale{zone=\"Z1\"} $(metric metaschedd_carbon_stale Z1), no intensity ('$(metric metaschedd_carbon_intensity Z1)')"
daemon_cycles 3
wi=$(msb "$u" "$d" --test-only cb-wi.sh 2>&1)
note=$(printf '%s\n' "$wi" | grep '^note:')
case $note in *"zone Z1"*"energy alone"*) true ;; *) false ;; esac
tap_ok $? "the what-if notes the fallback: $note"
nlog=$(grep -c 'carbon: zone Z1: .*energy alone' "$log")
[ "$nlog" = 1 ]
tap_ok $? "the log says it once ($nlog): $(grep 'carbon: zone Z1: ' "$log" | tail -1)"

# 10: a bad line read later: logged at file:line, the last good signal
# kept (Z2 still has its intensity)
{ echo "time_utc,gco2eq_per_kwh"; echo "$(iso $now0),100"; echo "$(iso $((now0 + 60))),lots"; } \
    >"$dtmp/z2.csv.bad"
cp "$dtmp/z2.csv.bad" "$dtmp/z2.json.new" && mv "$dtmp/z2.json.new" "$dtmp/z2.json"
badlog () { grep -q "carbon: zone Z2: $dtmp/z2.json:3: gco2eq_per_kwh: bad value 'lots'" "$log"; }
wait_for 60 badlog
r=$?
[ $r = 0 ] && [ "$(metric metaschedd_carbon_intensity Z2)" = 900.000 ]
tap_ok $? "a bad line read later is logged at file:line, the last good signal kept: $(grep 'carbon: zone Z2: ' "$log" | tail -1)"

# 11, 12: a bad line at start stops the daemon at metaschedd.conf's line
# and the signal file's; a cluster's zone without a signal likewise
write_conf "$dtmp/bad.conf" "carbon_signal = Z1=$dtmp/z2.csv.bad, Z2=$dtmp/z1.csv, Z3=$dtmp/z1.csv"
sed -i "s|^socket = .*|socket = $dtmp/bad.sock|" "$dtmp/bad.conf"
line=$(grep -n '^carbon_signal' "$dtmp/bad.conf" | cut -d: -f1)
out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$msd" -f "$dtmp/bad.conf" -D 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"bad.conf:$line: carbon_signal: Z1: $dtmp/z2.csv.bad:3: gco2eq_per_kwh: bad value 'lots'"*) true ;; *) false ;; esac
tap_ok $? "a bad signal line stops metaschedd at file:line (rc $rc): $(printf '%s' "$out" | tail -1)"
write_conf "$dtmp/bad.conf" "carbon_signal = Z1=$dtmp/z1.csv, Z2=$dtmp/z1.csv"
sed -i "s|^socket = .*|socket = $dtmp/bad.sock|" "$dtmp/bad.conf"
zline=$(grep -n '^zone = Z3' "$dtmp/clusters.conf" | cut -d: -f1)
out=$(ASAN_OPTIONS=detect_leaks=0 timeout 60 "$msd" -f "$dtmp/bad.conf" -D 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"clusters.conf:$zline: [cluster $c3]: zone 'Z3' has no carbon_signal"*) true ;; *) false ;; esac
tap_ok $? "a cluster's zone without a signal stops metaschedd at clusters.conf:line (rc $rc): $(printf '%s' "$out" | tail -1)"

cfg set w_carbon=0 >/dev/null 2>&1
exit $tap_failed
