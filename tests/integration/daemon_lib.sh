# daemon_lib.sh - helpers of the metaschedd tests (sourced after tap.sh and
# tap_need_testbed). Every test that runs a metaschedd holds
# $MS_TESTBED_RUN/metaschedd.lock exclusive (fd 8): instances on one
# database elect one leader, so two tests' daemons must not meet.
msd=$MS_BUILDDIR/metasched/metaschedd
msbatch=$MS_BUILDDIR/metasched/msbatch
metasched=$MS_BUILDDIR/metasched/metasched
collect=$MS_BUILDDIR/collectors/metasched-collect
[ -x "$msd" ] || tap_skip_all "$msd not built"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (runs jobs as the test users)"

dtmp=$(mktemp -d /tmp/ms-daemon-XXXXXX)
chmod 755 "$dtmp"
daemon_pids=

daemon_lock () {
    exec 8>>"$MS_TESTBED_RUN/metaschedd.lock"
    flock -x 8
}

q () { psql "$MS_PG_CONNINFO" -X -A -t -q -c "$1" 2>&1; }

cfg () { # cfg ARGS...: metasched config as root (an admin of this daemon)
    METASCHED_SERVER="unix:${DAEMON_SOCKET:-$dtmp/msd.sock}" METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" \
        "$metasched" config "$@"
}

# cfg_value KEY [DEFAULT]: the setting's value as `cfg set` takes it back
# (yes/no for a flag), or DEFAULT when the daemon does not say
cfg_value () {
    v=$(cfg show 2>/dev/null | sed -n "s/^$1 *= *//p")
    case $v in true) v=yes ;; false) v=no ;; esac
    printf '%s' "${v:-${2:-}}"
}
settings_now () { # settings_now KEY...: "KEY=VALUE ..." of the daemon's settings now, to set them back at the end
    sn_was=$(cfg show 2>/dev/null) sn_out=
    for sn_k in "$@"; do
        sn_v=$(printf '%s\n' "$sn_was" | sed -n "s/^$sn_k *= *//p")
        [ -n "$sn_v" ] && sn_out="$sn_out${sn_out:+ }$sn_k=$sn_v"
    done
    printf '%s' "$sn_out"
}

upper () { printf '%s' "$1" | tr 'a-z' 'A-Z'; }
getv () { eval "printf '%s' \"\${$1}\""; }
ok_if () { if "$@"; then echo 0; else echo 1; fi; }

wait_for () { # wait_for SECONDS TEST...: poll every 0.2 s until a deadline
    end=$(( $(date +%s) + $1 )); shift
    while :; do
        "$@" && return 0
        [ "$(date +%s)" -lt "$end" ] || return 1
        sleep 0.2
    done
}

# daemon_cycles N: wait until the daemon has run N more scheduling cycles
# (metaschedd_cycles_total on its socket's /metrics), so that its view holds
# what the clusters showed before the call; 1 if it does not within 120 s
daemon_cycles () {
    _dc_read () { curl -s --unix-socket "${DAEMON_SOCKET:-$dtmp/msd.sock}" http://localhost/metrics 2>/dev/null |
        sed -n 's/^metaschedd_cycles_total //p'; }
    _dc_from=$(_dc_read)
    [ -n "$_dc_from" ] || return 1
    _dc_past () { _dc_now=$(_dc_read); [ -n "$_dc_now" ] && [ "$_dc_now" -ge $((_dc_from + $1)) ]; }
    wait_for 120 _dc_past "$1"
}

# daemon_readings N: wait until the daemon's cycle has taken N more readings
# of every cluster (metaschedd_cluster_attempts_total), so that its view
# holds what the clusters showed before the call; 1 if not within 120 s.
# A cycle takes the refresher's latest reading, which may have begun
# before the call: the third one taken after it began after it (each
# reading starts when the one before it ended, and the one taken second
# ended after the first was taken). Fewer than 3 may miss what changed.
daemon_readings () {
    _dr_read () { curl -s --unix-socket "${DAEMON_SOCKET:-$dtmp/msd.sock}" http://localhost/metrics 2>/dev/null |
        sed -n 's/^metaschedd_cluster_attempts_total{cluster="\([^"]*\)"} \([0-9]*\)$/\1 \2/p'; }
    _dr_from=$(_dr_read)
    [ -n "$_dr_from" ] || return 1
    _dr_past () {
        _dr_now=$(_dr_read)
        [ -n "$_dr_now" ] || return 1
        printf '%s\n' "$_dr_from" | while read -r _dr_c _dr_n; do
            _dr_m=$(printf '%s\n' "$_dr_now" | awk -v c="$_dr_c" '$1 == c { print $2 }')
            [ -n "$_dr_m" ] && [ "$_dr_m" -ge $((_dr_n + $1)) ] || exit 1
        done
    }
    wait_for 120 _dr_past "$1"
}

# write_conf FILE [EXTRA KEY=VALUE LINES...]
write_conf () {
    f=$1; shift
    {
        echo "[daemon]"
        echo "clusters_conf = ${DAEMON_CLUSTERS_CONF:-$MS_CLUSTERS_CONF}"
        echo "database = $MS_PG_CONNINFO"
        echo "socket = ${DAEMON_SOCKET:-$dtmp/msd.sock}"
        echo "munge_socket = $MS_MUNGE_SOCKET"
        echo "admins = root"
        echo "metrics_public = yes"
        echo "cycle_s = ${DAEMON_CYCLE_S:-1}"
        echo "leader_takeover_s = 5"
        echo "refit_s = ${DAEMON_REFIT_S:-0}"
        echo "collect_wrapper = $collect"
        # the key of the cluster jobs' tags: the first daemon makes it,
        # the others of the test (standbys) share it
        echo "tag_key_file = ${DAEMON_TAG_KEY:-$dtmp/tag.key}"
        # the test bed's collector settings: the wrapper writes the job's
        # counters and app where the Prolog and Epilog look for them
        echo "collect_config = ${MS_COLLECT_CONF_FILE:-$MS_TESTBED_RUN/collect.conf}"
        for l in "$@"; do echo "$l"; done
    } > "$f"
}

# start_daemon CONF LOG: the pid in $daemon_pid
# DAEMON_ASAN: more ASAN_OPTIONS for a sanitizer build's daemon (a test
# that measures the daemon's memory turns ASan's quarantine of freed
# blocks down: it holds up to 256 MiB that the daemon has freed)
start_daemon () {
    ASAN_OPTIONS=detect_leaks=0${DAEMON_ASAN:+:$DAEMON_ASAN} "$msd" -f "$1" -D >>"$2" 2>&1 &
    daemon_pid=$!
    daemon_pids="$daemon_pids $daemon_pid"
}

# daemon_up LOG: the socket appears and the daemon lives, or bail out
daemon_up () {
    if ! wait_for 40 test -S "${DAEMON_SOCKET:-$dtmp/msd.sock}" || ! kill -0 "$daemon_pid" 2>/dev/null; then
        echo "Bail out! metaschedd did not start: $(tail -3 "$1" | tr '\n' ' ')"
        exit 1
    fi
}

# daemon_lead [KEY = VALUE LINES...]: metaschedd on $dtmp/msd.conf
# (write_conf with these lines) logging to $log, serving, and leading (10 s)
daemon_lead () {
    write_conf "$dtmp/msd.conf" "$@"
    start_daemon "$dtmp/msd.conf" "$log"
    daemon_up "$log"
    wait_for 10 grep -q 'leading: this instance now schedules' "$log"
}

# prepare the database: schema and this build's clusters
daemon_db_ready () {
    MS_DB_CONNINFO=$MS_PG_CONNINFO "$MS_BUILDDIR/metasched/metasched" db migrate >/dev/null 2>&1 &&
    MS_DB_CONNINFO=$MS_PG_CONNINFO "$MS_BUILDDIR/metasched/metasched" db sync "$MS_CLUSTERS_CONF" >/dev/null 2>&1
}

# the user's job directory and a tiny job script
# measured_jobs NAME SECONDS DIR...: DIR/NAME.sh in each DIR, a job that
# says where it runs (DIR/m.ID.started), waits until the test has added its
# energy to the node's counters (DIR/m.ID.go; at most a minute), then works
# SECONDS. No two of them share a node, or a job's energy window would hold
# its neighbour's too: each asks for the CPUs of the smallest node, more
# than half of the largest (skips the test where no size does that).
# (--exclusive would say so directly, but slurmrestd 0.0.38 refuses
# metasched's submission of it: "Invalid exclusive specification".)
measured_jobs () {
    mj_name=$1 mj_s=$2
    shift 2
    mj_cmin=0 mj_cmax=0
    for mj_c in $MS_CLUSTERS; do
        mj_n=$(getv "MS_$(upper "$mj_c")_CPUS_PER_NODE")
        { [ "$mj_cmin" = 0 ] || [ "$mj_n" -lt "$mj_cmin" ]; } && mj_cmin=$mj_n
        [ "$mj_n" -gt "$mj_cmax" ] && mj_cmax=$mj_n
    done
    [ $((2 * mj_cmin)) -gt "$mj_cmax" ] || tap_skip_all "nodes of $mj_cmin to $mj_cmax CPUs: no job size keeps every node to one job"
    for mj_d in "$@"; do
        cat > "$mj_d/$mj_name.sh" <<EOS
#!/bin/sh
#SBATCH -t 3
#SBATCH -J msd-$mj_name
#SBATCH -c $mj_cmin
m=$mj_d/m.\$METASCHED_JOB_ID
echo "\$SLURM_CLUSTER_NAME \$SLURMD_NODENAME \$SLURM_JOB_ID" > "\$m.started"
n=0
while [ ! -e "\$m.go" ] && [ \$n -lt 300 ]; do sleep 0.2; n=\$((n + 1)); done
sleep $mj_s
EOS
        chmod 755 "$mj_d/$mj_name.sh"
    done
}

job_dir () {
    d=$dtmp/$1
    mkdir -p "$d" && chown "$1" "$d"
    printf '%s' "$d"
}

# msb USER DIR ARGS...: msbatch as USER in DIR, against the daemon
# (METASCHED_RETRY_S, where set: how long it sends a submission again on
# a 503 with Retry-After)
msb () {
    u=$1 dir=$2; shift 2
    (cd "$dir" && runuser -u "$u" -- env METASCHED_SERVER="unix:${DAEMON_SOCKET:-$dtmp/msd.sock}" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" ${METASCHED_RETRY_S:+METASCHED_RETRY_S=$METASCHED_RETRY_S} \
        "$msbatch" "$@")
}

# msb_sleep USER DIR NAME MINUTES [DIRECTIVE]: writes DIR/NAME.sh, a job
# of a second named msd-NAME with a time limit of MINUTES (and #SBATCH
# DIRECTIVE), and submits it as USER; job_out gets msbatch's answer,
# job_id the meta job's id (empty when refused)
msb_sleep () {
    {
        printf '#!/bin/sh\n#SBATCH -t %s\n' "$4"
        [ -z "${5:-}" ] || printf '#SBATCH %s\n' "$5"
        printf '#SBATCH -J msd-%s\nsleep 1\n' "$3"
    } > "$2/$3.sh"
    chmod 755 "$2/$3.sh"
    job_out=$(msb "$1" "$2" "$3.sh" 2>&1)
    job_id=$(printf '%s' "$job_out" | grep -o '[0-9][0-9]*$')
}

# daemon_answers USER DIR SCRIPT: until its first cycle a new leader has
# no predictions and answers a what-if with 503; wait (60 s) for an answer
daemon_answers () {
    for _i in $(seq 1 120); do
        case $(msb "$1" "$2" --test-only "$3" 2>&1) in
        *"[HTTP 503]"*) sleep 0.5 ;;
        *) return 0 ;;
        esac
    done
    return 1
}

# cluster_jobs_tagged: "COMMENT|STATE|JOBID|CLUSTER" of every job on all
# clusters (a copy's comment starts metasched:ID:)
cluster_jobs_tagged () {
    for c in $MS_CLUSTERS; do
        on_cluster "$c" squeue -h -a -t all -o "%k|%T|%i|$c" 2>/dev/null
    done
}

# block_partition CLUSTER PARTITION NAME: every node of the partition busy
# for 20 minutes with one exclusive root job NAME (scancel -n NAME ends it)
block_partition () {
    _n=$(on_cluster "$1" sinfo -h -p "$2" -o %D 2>/dev/null | awk '{ s += $1 } END { print s + 0 }')
    [ "$_n" -gt 0 ] &&
        on_cluster "$1" sbatch -Q -p "$2" -N "$_n" --exclusive -t 30 -J "$3" \
            -o /dev/null --wrap "sleep 1200" >/dev/null 2>&1
}

# block_all NAME: every partition of every cluster busy (block_partition);
# prints how many blocker jobs went out. all_full: no idle node anywhere.
block_all () {
    _nb=0
    for _c in $MS_CLUSTERS; do
        for _p in $(on_cluster "$_c" sinfo -h -o %R 2>/dev/null | sort -u); do
            block_partition "$_c" "$_p" "$1" && _nb=$((_nb + 1))
        done
    done
    echo "$_nb"
}
all_full () {
    for _c in $MS_CLUSTERS; do
        [ -z "$(on_cluster "$_c" sinfo -h -t idle -o %D 2>/dev/null)" ] || return 1
    done
}

# jtimes CLUSTER JOBID: Slurm's SubmitTime and EligibleTime of the job;
# held CLUSTER JOBID: its EligibleTime is after its SubmitTime (a begin
# time, as a held sibling gets)
jtimes () { on_cluster "$1" scontrol show job "$2" 2>/dev/null | tr ' ' '\n' | grep -E '^(SubmitTime|EligibleTime)=' | tr '\n' ' '; }
held () {
    _t=$(jtimes "$1" "$2")
    _s=$(printf '%s' "$_t" | sed -n 's/.*SubmitTime=\([^ ]*\).*/\1/p')
    _e=$(printf '%s' "$_t" | sed -n 's/.*EligibleTime=\([^ ]*\).*/\1/p')
    [ -n "$_s" ] && [ -n "$_e" ] && [ "$_e" \> "$_s" ]
}

# sibling mode: copy_of ID RANK prints "cluster cluster_job_id nice" of
# meta job ID's copy of RANK, copy_at ID RANK "cluster partition
# cluster_job_id nice"; two_copies ID holds once it has two; copies_where
# ID lists its copies' cluster/partition in rank order
copy_of () { q "SELECT cluster || ' ' || cluster_job_id || ' ' || nice FROM job_submissions WHERE job_id = $1 AND rank = $2"; }
copy_at () { q "SELECT cluster || ' ' || partition || ' ' || cluster_job_id || ' ' || nice FROM job_submissions WHERE job_id = $1 AND rank = $2"; }
two_copies () { [ "$(q "SELECT count(*) FROM job_submissions WHERE job_id = $1")" = 2 ]; }
copies_where () { q "SELECT cluster || '/' || partition FROM job_submissions WHERE job_id = ${1:-0} ORDER BY rank" | tr '\n' ' '; }
# copies_on ID C0 P0 C1 P1: meta job ID went out as two copies, first to
# C0/P0, then to C1/P1
copies_on () {
    wait_for 30 two_copies "${1:-0}" &&
        [ "$(copy_at "$1" 0 | cut -d' ' -f1-2)" = "$2 $3" ] &&
        [ "$(copy_at "$1" 1 | cut -d' ' -f1-2)" = "$4 $5" ]
}
# cancel_meta USER DIR ID: the meta job, as its user from DIR (mscancel
# cancels every copy)
cancel_meta () {
    (cd "$2" && runuser -u "$1" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
        METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$MS_BUILDDIR/metasched/mscancel" "$3") >/dev/null 2>&1
}
# part_idle CLUSTER PARTITION: the partition has an idle node
part_idle () { [ -n "$(on_cluster "$1" sinfo -h -p "$2" -t idle -o %D 2>/dev/null)" ]; }

# Tests that stop clusters (after tap_services_exclusive): need_cluster
# NAME skips the test where the test bed has no cluster NAME; stop_clusters
# NAME... stops their slurmctld and slurmrestd (testbed/stop --cluster);
# restore_clusters starts again what is missing (testbed/start, with the
# test bed's own build dir in its env), its status the start's; the EXIT
# trap cluster_cleanup restores them where still stopped, then
# daemon_cleanup.
clusters_stopped=
need_cluster () {
    case " $MS_CLUSTERS " in *" $1 "*) ;; *) tap_skip_all "no cluster $1 in the test bed" ;; esac
}
stop_clusters () {
    for _sc in "$@"; do
        clusters_stopped=1
        "$MS_SRCDIR/testbed/stop" --cluster "$_sc" 2>>"$dtmp/testbed-start.log"
    done
}
restore_clusters () {
    _tb=$(sed -n "s/^MS_BUILDDIR='\(.*\)'$/\1/p" "$MS_TESTBED_RUN/env")
    MS_BUILDDIR=${_tb:-$MS_BUILDDIR} "$MS_SRCDIR/testbed/start" >>"$dtmp/testbed-start.log" 2>&1
    _rc=$?
    clusters_stopped=
    return $_rc
}
cluster_cleanup () {
    [ -n "$clusters_stopped" ] && restore_clusters
    daemon_cleanup
}

daemon_cleanup () {
    for p in $daemon_pids; do kill -9 "$p" 2>/dev/null; done
    for c in $MS_CLUSTERS; do
        for u in "$MS_TEST_USER" "$MS_TEST_USER2"; do
            on_cluster "$c" scancel -u "$u" 2>/dev/null
        done
    done
    # the next test starts on a quiet test bed: hundreds of cancelled jobs
    # ending (their epilogs store runs) load the two cores for a while,
    # and timings of the next test (a standby's takeover) would pay for it
    end=$(( $(date +%s) + 120 ))
    while [ "$(date +%s)" -lt "$end" ]; do
        live=0
        for c in $MS_CLUSTERS; do
            n=$(on_cluster "$c" squeue -h -u "$MS_TEST_USER,$MS_TEST_USER2" 2>/dev/null | wc -l)
            live=$((live + n))
        done
        [ "$live" = 0 ] && break
        sleep 1
    done
    rm -rf "$dtmp"
}

# mold_history APP MIN_NODES NPLAN: for the moldable tests, on the largest
# cluster ($big, its first partition $part; the test is skipped when it has
# fewer than MIN_NODES nodes) seed three runs of APP at each of 1, 2 and 4
# nodes (T(n) = 30 + 600 / n s: worth more nodes at the default energy
# weight), removed on exit; take the daemon lock, plan NPLAN checks, and
# start a leading daemon. Checks 1 (the runs) and 2 (the daemon fitted
# APP's speedup model).
mold_cleanup () {
    q "DELETE FROM job_runs WHERE app = '$app'" >/dev/null
    daemon_cleanup
}
mold_history () {
    app=$1
    big= bign=0
    for c in $MS_CLUSTERS; do
        n=$(getv "MS_$(upper "$c")_NODES" | wc -w)
        [ "$n" -gt "$bign" ] && { big=$c; bign=$n; }
    done
    [ "$bign" -ge "$2" ] || tap_skip_all "no test bed cluster has $2 nodes"
    part=$(sed -n "s/^\[partition $big\/\(.*\)\]$/\1/p" "$MS_CLUSTERS_CONF" | head -1)

    trap mold_cleanup EXIT
    daemon_db_ready || tap_skip_all "cannot migrate the test bed's database"
    daemon_lock
    tap_plan "$3"

    # 1: the history: three jobs at each of 1, 2 and 4 nodes (one row per node)
    vals= jid=$(( 900000000 + $$ * 16 ))
    for n in 1 2 4; do
        for r in 1 2 3; do
            jid=$((jid + 1))
            t=$(( 30 + 600 / n + r ))
            i=1
            while [ $i -le $n ]; do
                vals="$vals${vals:+,}('$big', '$part', $jid, 'n$i', '$app', 'alice', $n, NULL, now () - interval '1 day', now () - interval '1 day' + interval '$t seconds', $t, $((t * 200)), $((t * 20)), 1.2, 0.01, true, 'root-measured', 't')"
                i=$((i + 1))
            done
        done
    done
    out=$(q "INSERT INTO job_runs (cluster, partition, slurm_job_id, node, app, user_name, nodes, freq_req_khz, start_time, end_time, runtime_s, pkg_energy_j, dram_energy_j, cpi, tpi, exclusive, source, collector_version) VALUES $vals")
    rows=$(q "SELECT count(*) FROM job_runs WHERE app = '$app'")
    tap_ok "$(ok_if [ "$rows" = 21 ])" "seeded runs of $app on $big/$part at 1, 2 and 4 nodes: $rows rows $out"

    log=$dtmp/msd.log
    daemon_lead
    # the leader loads the models at the start of its first cycle, after it
    # has said it leads
    wait_for 20 grep -q "speedup of $app" "$log"
    sm=$(grep -m1 "speedup of $app" "$log" | sed 's/.*speedup of/speedup of/')
    [ -n "$sm" ]
    tap_ok $? "the daemon fitted the app's speedup model: ${sm:-$(grep -i speedup "$log" | tail -2 | tr '\n' ' ')}"
}
