#!/bin/sh
# Power budgets live in metaschedd on the test bed: with a job running,
# `metasched config set power_budget` lowers the site budget below what
# runs; a new job is then held (queued, submitted to no cluster) with the
# budget and when it is expected under it as its reason (msqueue, the
# what-if), and
# /metrics shows the budget and the predicted draw; the running job is
# left alone; raising the budget lets the held job start. A bad budget is
# refused with HTTP 400 naming the setting and the entry, a non-admin
# gets 403, and metaschedd.conf's power_budget naming no cluster of the
# site stops the daemon at file:line. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
command -v curl >/dev/null || tap_skip_all "curl not installed"
id "$MS_TEST_USER" >/dev/null 2>&1 || tap_skip_all "no user $MS_TEST_USER"
trap 'cfg set power_budget=none >/dev/null 2>&1; daemon_cleanup' EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 11

log=$dtmp/msd.log
daemon_lead
u=$MS_TEST_USER
d=$(job_dir "$u")
metric () { # metric NAME SCOPE
    curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics |
        sed -n "s/^$1{cluster=\"$2\"} //p"
}
state () { q "SELECT state FROM jobs WHERE id = ${1:-0}"; }
st_in () { case " $2 " in *" $(state "$1") "*) return 0 ;; esac; return 1; }
as_user () { # as_user ARGS...: metasched as the test user (no admin)
    runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$metasched" "$@"
}
# no budget to begin with (another test may have left one)
cfg set power_budget=none >/dev/null 2>&1

# 1: a job that runs a while
printf '#!/bin/sh\n#SBATCH -t 10\n#SBATCH -J msd-pw-run\nsleep 300\n' > "$d/run.sh"
chmod 755 "$d/run.sh"
out=$(msb "$u" "$d" run.sh 2>&1); run=$(printf '%s' "$out" | grep -o '[0-9][0-9]*$')
wait_for 90 st_in "$run" running
tap_ok $? "a job runs before any budget (job $run: $(state "$run"))"

# 2: the site's budget below what runs for the next hour: taken, shown
# back (an absolute end, in UTC)
t_end=$(( $(date +%s) / 60 * 60 + 3600 ))
spec="site 1 W until $(date -u -d "@$t_end" +%Y-%m-%dT%H:%M)"
out=$(cfg set "power_budget=$spec" 2>&1); rc=$?
shown=$(cfg show 2>/dev/null | sed -n 's/^power_budget *= *//p')
[ $rc = 0 ] && [ "$shown" = "$spec" ]
tap_ok $? "config set power_budget='$spec' is taken (rc $rc, shown '$shown')"

# 3: a new job is held: queued, no copy on any cluster, the reason says
# which budget and when it is expected under it
daemon_cycles 2
msb_sleep "$u" "$d" pw-held 3
held=$job_id
daemon_cycles 3
why=$(q "SELECT last_error FROM jobs WHERE id = ${held:-0}")
ncopies=$(q "SELECT count(*) FROM job_submissions WHERE job_id = ${held:-0}")
# (the time of day, with its date when that is another day than the
# decision's: near midnight UTC the budget ends tomorrow)
at_hm=$(date -u -d "@$t_end" +%H:%M)
at_day=$(date -u -d "@$t_end" "+%Y-%m-%d %H:%M")
[ "$(state "$held")" = queued ] && [ "$ncopies" = 0 ] &&
    case $why in
    "power budget: site 1 W"*"expected under it at $at_hm UTC"*) true ;;
    "power budget: site 1 W"*"expected under it at $at_day UTC"*) true ;;
    *) false ;;
    esac
tap_ok $? "a new job is held, submitted nowhere ($(state "$held"), $ncopies copies): $why"

# 4: msqueue shows the reason to its user
mq=$(cd "$d" && runuser -u "$u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/msqueue" 2>&1)
printf '%s\n' "$mq" | grep "^ *$held " | grep -q 'power budget: site'
tap_ok $? "msqueue shows why: $(printf '%s\n' "$mq" | grep "^ *$held " | tr -s ' ')"

# 4b: the what-if says the same
wi=$(msb "$u" "$d" --test-only pw-held.sh 2>&1)
printf '%s\n' "$wi" | grep -q '^held: power budget: site 1 W'
tap_ok $? "msbatch --test-only says the job would wait: $(printf '%s\n' "$wi" | grep '^held:')"

# 5: /metrics: the site's budget and the predicted draw over it
b=$(metric metaschedd_power_budget_watts site)
p=$(metric metaschedd_power_predicted_watts site)
awk -v b="${b:-x}" -v p="${p:-0}" 'BEGIN { exit !(b == 1 && p > b) }'
tap_ok $? "/metrics: budget ${b:-none} W, predicted ${p:-none} W on the site"

# 6: the running job is left alone
tap_ok "$(ok_if st_in "$run" running)" "the running job runs on ($(state "$run"))"

# 7: the budget raised again: the held job starts
cfg set "power_budget=site 100 MW" >/dev/null 2>&1
wait_for 90 st_in "$held" "submitted running completed"
tap_ok $? "raised to 100 MW, the held job goes out ($(state "$held"), $(copies_where "$held"))"

# 8: a bad budget is refused with 400, naming the setting and the entry
out=$(cfg set "power_budget=site 600 kW; nosuch 5 kW from 14:00" 2>&1); rc=$?
shown=$(cfg show 2>/dev/null | sed -n 's/^power_budget *= *//p')
[ $rc != 0 ] && [ "$shown" = "site 100 MW" ] &&
    case $out in *power_budget*nosuch*"HTTP 400"*) true ;; *) false ;; esac
tap_ok $? "a bad budget is refused, nothing changed (rc $rc): $(printf '%s' "$out" | tr '\n' ' ')"

# 9: a user who is no admin gets 403
out=$(as_user config set "power_budget=site 1 W" 2>&1); rc=$?
[ $rc != 0 ] && case $out in *403*) true ;; *) false ;; esac
tap_ok $? "a non-admin is refused (rc $rc): $(printf '%s' "$out" | tr '\n' ' ')"

# 10: metaschedd.conf's power_budget is checked against the site at start
write_conf "$dtmp/bad.conf" "power_budget = site 600 kW from 14:00; nosuch 5 kW"
sed -i "s|^socket = .*|socket = $dtmp/bad.sock|" "$dtmp/bad.conf"
line=$(grep -n '^power_budget' "$dtmp/bad.conf" | cut -d: -f1)
out=$(ASAN_OPTIONS=detect_leaks=0 timeout 30 "$msd" -f "$dtmp/bad.conf" -D 2>&1); rc=$?
[ $rc != 0 ] && case $out in *"bad.conf:$line: power_budget"*nosuch*) true ;; *) false ;; esac
tap_ok $? "metaschedd.conf power_budget naming no cluster: refused at file:line (rc $rc): $(printf '%s' "$out" | tail -1)"

cfg set power_budget=none >/dev/null 2>&1
cancel_meta "$u" "$d" "$run"
exit $tap_failed
