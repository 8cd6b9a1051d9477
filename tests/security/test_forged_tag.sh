#!/bin/sh
# A forged tag: another user (MS_TEST_USER2) submits straight to a cluster
# jobs whose comment claims MS_TEST_USER's meta job: the bare
# metasched:<id>, a well-formed tag with a wrong MAC, and the comment of
# the owner's real copy copied verbatim. None of them may become the meta
# job's: (a) in sibling mode, where an unknown tagged job of a submitted
# job used to be recorded as a sibling, run it, cancel the owner's copies,
# end it with the forger's exit code and release its afterok dependents;
# (b) for a dispatch left pending by a crash (the row left dispatching),
# where reconciliation adopts the tagged cluster job. metaschedd logs each
# forgery (cluster, job, claimed meta job, user) and counts it in /metrics.
# TAP output.
. "${MS_SRCDIR:-.}/tests/tap.sh"
tap_need_testbed
. "$MS_SRCDIR/tests/integration/daemon_lib.sh"
[ -x "$msbatch" ] || tap_skip_all "$msbatch not built"
[ -n "${MS_TEST_USER2:-}" ] || tap_skip_all "the test bed has no second user"

ft_cleanup () {
    [ -n "${restore:-}" ] && cfg set dispatch_mode=single "siblings=$restore" "max_slowdown=$restore_sd" >/dev/null 2>&1
    daemon_cleanup
}
trap ft_cleanup EXIT
daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
daemon_lock
tap_plan 16

log=$dtmp/msd.log
daemon_lead

u=$MS_TEST_USER
f=$MS_TEST_USER2
d=$(job_dir "$u")
fd=$(job_dir "$f")
badmac=0123456789abcdef0123456789abcdef

# forge CLUSTER COMMENT SECONDS RC: as the other user, straight to
# CLUSTER, a job with COMMENT that sleeps SECONDS and exits RC; its id
forge () {
    _conf=$(getv "MS_$(upper "$1")_CONF")
    (cd "$fd" && runuser -u "$f" -- env SLURM_CONF="$_conf" \
        "$(slurm_cmd "$1" sbatch)" --parsable -J forged -t 5 -o /dev/null \
        --comment="$2" --wrap "sleep $3; exit $4" 2>/dev/null) | cut -d';' -f1
}
cstate () { on_cluster "$1" squeue -h -j "$2" -t all -o %T 2>/dev/null; }
ccomment () { on_cluster "$1" squeue -h -j "$2" -t all -o %k 2>/dev/null; }
jstate () { q "SELECT state FROM jobs WHERE id = $1"; }
forged_ended () {
    for _p in $forged; do
        case $(cstate "${_p%%:*}" "${_p#*:}") in PENDING | RUNNING | COMPLETING | CONFIGURING) return 1 ;; esac
    done
}
forged_running () {
    for _p in $forged; do
        [ "$(cstate "${_p%%:*}" "${_p#*:}")" = RUNNING ] || return 1
    done
}
# forgeries_logged ID: a forged-tag line for each of $forged claiming ID
forgeries_logged () {
    for _p in $forged; do
        grep -q "forged tag: ${_p%%:*} job ${_p#*:} of user $f (uid [0-9]*) claims meta job $1 " "$log" || return 1
    done
}
# subs_of_forged ID: submissions of meta job ID on a forged cluster job
subs_of_forged () {
    _w=
    for _p in $forged; do
        _w="$_w${_w:+ OR }(cluster = '${_p%%:*}' AND cluster_job_id = ${_p#*:})"
    done
    q "SELECT count(*) FROM job_submissions WHERE job_id = $1 AND ($_w)"
}
# other_cluster C: a cluster of the test bed other than C (C if none)
other_cluster () {
    for _c in $MS_CLUSTERS; do [ "$_c" != "$1" ] && { echo "$_c"; return; }; done
    echo "$1"
}
metric () { curl -s --unix-socket "$dtmp/msd.sock" http://localhost/metrics | sed -n "s/^$1 //p"; }

# ---- (a) sibling mode ----
restore_sd=$(cfg_value max_slowdown 1.3)
restore=$(cfg_value siblings 2)
out=$(cfg set dispatch_mode=siblings siblings=2 max_slowdown=100 2>&1)
tap_ok $? "an admin sets dispatch_mode=siblings, siblings=2 ($(printf '%s' "$out" | grep -c .) lines)"

# the owner's job: held by its --begin for a minute on both copies, then
# it fails with exit code 7; its dependent waits for afterok
cat > "$d/own.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-own
#SBATCH --begin=now+60
exit 7
EOS
printf '#!/bin/sh\n#SBATCH -t 5\n#SBATCH -J msd-dep\nsleep 1\n' > "$d/dep.sh"
chmod 755 "$d/own.sh" "$d/dep.sh"
ja=$(msb "$u" "$d" own.sh 2>&1 | grep -o '[0-9][0-9]*$')
jd=$(msb "$u" "$d" "--dependency=afterok:$ja" dep.sh 2>&1 | grep -o '[0-9][0-9]*$')
wait_for 60 two_copies "${ja:-0}"
set -- $(copy_of "${ja:-0}" 0) ""
xa=$1 ba=$2
set -- $(copy_of "${ja:-0}" 1) ""
xa1=$1 ba1=$2
ka=$(ccomment "$xa" "$ba")
ya=$(other_cluster "$xa")
tap_ok "$([ -n "$ja" ] && [ -n "$jd" ] && [ -n "$ka" ] && [ -n "$ba1" ]; echo $?)" \
    "$u's job $ja went out as two held copies ($xa $ba, $xa1 $ba1: '$ka'), its dependent is $jd"

forged="$xa:$(forge "$xa" "metasched:$ja" 3 0) $ya:$(forge "$ya" "metasched:$ja:1.0:$badmac" 3 0) $xa:$(forge "$xa" "$ka" 3 0)"
echo "# forged by $f: $forged"
wait_for 90 forged_ended
daemon_cycles 3 # whole cycles since: the daemon sees them ended
tap_ok "$(ok_if [ "$(jstate "$ja")" = submitted ])" \
    "the forged jobs ran and ended, $ja is still submitted ($(q "SELECT state, cluster, cluster_job_id, exit_code, last_error FROM jobs WHERE id = $ja" | tr '\n' ' '))"
n=$(subs_of_forged "$ja")
tap_ok "$(ok_if [ "$n" = 0 ])" "no forged job is recorded as a copy of $ja ($n; $(q "SELECT cluster, cluster_job_id, rank, state FROM job_submissions WHERE job_id = $ja" | tr '\n' ' '))"
s0=$(cstate "$xa" "$ba") s1=$(cstate "$xa1" "$ba1")
tap_ok "$([ "$s0" = PENDING ] && [ "$s1" = PENDING ]; echo $?)" "$u's copies survive, still held ($s0, $s1)"
tap_ok "$([ "$(jstate "$jd")" = queued ] && [ "$(q "SELECT count(*) FROM job_submissions WHERE job_id = $jd")" = 0 ]; echo $?)" \
    "the afterok dependent $jd is not released ($(q "SELECT state, last_error FROM jobs WHERE id = $jd" | tr '\n' ' '))"
wait_for 20 forgeries_logged "$ja"
tap_ok $? "the daemon logs each forgery ($(grep -c 'forged tag' "$log") lines: $(grep 'forged tag' "$log" | head -3 | tr '\n' ' '))"
m=$(metric metaschedd_forged_tags_total)
tap_ok "$(ok_if [ "${m:-0}" -ge 3 ])" "/metrics counts them (metaschedd_forged_tags_total $m)"

final () { case $(jstate "$1") in completed | failed | cancelled | lost) return 0 ;; esac; return 1; }
wait_for 200 final "$ja"
set -- $(q "SELECT state || ' ' || coalesce (exit_code, -1) || ' ' || cluster || ' ' || cluster_job_id FROM jobs WHERE id = $ja") ""
own=no
{ [ "$3 $4" = "$xa $ba" ] || [ "$3 $4" = "$xa1 $ba1" ]; } && own=yes
tap_ok "$(ok_if [ "$1 $2 $own" = "failed 7 yes" ])" "$ja ends with its own exit code 7, on its own copy ($*)"
wait_for 30 final "$jd"
tap_ok "$([ "$(jstate "$jd")" != completed ] && [ "$(q "SELECT count(*) FROM job_submissions WHERE job_id = $jd")" = 0 ]; echo $?)" \
    "the afterok dependent $jd never went out ($(q "SELECT state, last_error FROM jobs WHERE id = $jd" | tr '\n' ' '))"

# ---- (b) a dispatch left pending by a crash ----
out=$(cfg set dispatch_mode=single 2>&1)
tap_ok $? "back to dispatch_mode=single ($(printf '%s' "$out" | grep -c .) lines)"
cat > "$d/held.sh" <<'EOS'
#!/bin/sh
#SBATCH -t 5
#SBATCH -J msd-held
#SBATCH --begin=now+600
sleep 1
EOS
chmod 755 "$d/held.sh"
jb=$(msb "$u" "$d" held.sh 2>&1 | grep -o '[0-9][0-9]*$')
wait_for 60 [ "$(jstate "${jb:-0}")" = submitted ]
set -- $(q "SELECT cluster || ' ' || cluster_job_id FROM jobs WHERE id = ${jb:-0}") ""
xb=$1 bb=$2
kb=$(ccomment "$xb" "$bb")
yb=$(other_cluster "$xb")
# the daemon dies after the submit, before the commit of its record
kill -9 "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null
# (a row reaches dispatching from queued)
q "UPDATE jobs SET state = 'queued' WHERE id = ${jb:-0}; UPDATE jobs SET state = 'dispatching', cluster_job_id = NULL WHERE id = ${jb:-0}" >/dev/null
q "DELETE FROM job_submissions WHERE job_id = ${jb:-0}" >/dev/null
forged="$xb:$(forge "$xb" "metasched:$jb" 300 0) $yb:$(forge "$yb" "metasched:$jb:1.0:$badmac" 300 0) $xb:$(forge "$xb" "$kb" 300 0)"
echo "# forged by $f: $forged"
wait_for 60 forged_running
tap_ok "$([ "$(jstate "${jb:-0}")" = dispatching ] && forged_running; echo $?)" \
    "$u's job $jb is left dispatching with its copy $xb $bb held ('$kb'); $f's forged jobs run"
start_daemon "$dtmp/msd.conf" "$log"
daemon_up "$log"
wait_for 120 [ "$(jstate "$jb")" != dispatching ]
set -- $(q "SELECT state || ' ' || cluster || ' ' || coalesce (cluster_job_id, 0) FROM jobs WHERE id = $jb") ""
tap_ok "$(ok_if [ "$1 $2 $3" = "submitted $xb $bb" ])" \
    "reconciliation adopts $u's own copy $xb $bb, no forged one ($*; $(grep "job $jb: " "$log" | tail -2 | tr '\n' ' '))"
daemon_cycles 3 # whole cycles since
n=$(subs_of_forged "$jb")
tap_ok "$([ "$n" = 0 ] && [ "$(cstate "$xb" "$bb")" = PENDING ]; echo $?)" \
    "no forged job is recorded as its copy ($n), the owner's copy survives ($(cstate "$xb" "$bb"))"
tap_ok "$(ok_if forged_running)" "the forged jobs are not cancelled on the job's account either"
wait_for 20 forgeries_logged "$jb"
tap_ok $? "the daemon logs each forgery ($(grep "claims meta job $jb " "$log" | head -3 | tr '\n' ' '))"
cancel_meta "$u" "$d" "$jb"
exit $tap_failed
