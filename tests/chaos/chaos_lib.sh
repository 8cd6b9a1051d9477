# chaos_lib.sh - the parts of the seeded chaos run (test_chaos.sh; sourced
# after tap.sh, tap_need_testbed and daemon_lib.sh): the plan drawn from
# the seed, the users, the faults, the services' state, the ledger.
# Files in $dtmp: plan, t0, faults.log, daemon.pid(s), acked (ID USER N
# KIND), refused, unanswered, cancels, USER's job dir with ran.log.

# chaos_plan SEED DURATION CLUSTERS USERS: the run, drawn from the seed by
# a generator of its own (Park and Miller's minimal standard, 48271: the
# same plan from any awk). Lines:
#   fault KIND AT DOWN TARGET   KIND stopped AT s after the start, DOWN s
#   user USER N PAUSE ACTION SLEEP SIZE PICK
# ACTION: job, array (SIZE tasks), dep (afterok on one of the user's
# accepted jobs, PICK modulo their count), cancel (the same pick); SLEEP:
# the job's seconds of work.
chaos_plan () {
    awk -v seed="$1" -v dur="$2" -v clusters="$3" -v users="$4" '
    function rnd() { x = (x * 48271) % 2147483647; return x / 2147483647 }
    function uni(a, b) { return a + int (rnd() * (b - a + 1)) }
    # one kind of fault: the first within the first quarter of the run,
    # then a gap and a stop of drawn lengths, until the end
    function faults(kind, glo, ghi, dlo, dhi, target,   t, d) {
        t = uni(3, int (dur / 4))
        while (t < dur - 1) {
            d = uni(dlo, dhi)
            if (t + d > dur) d = dur - t
            print "fault", kind, t, d, target
            t += d + uni(glo, ghi)
        }
    }
    BEGIN {
        x = seed % 2147483646 + 1
        for (i = 0; i < 8; i++) rnd()
        nc = split (clusters, cl, " ")
        rest = cl[uni(1, nc)]
        ctld = cl[uni(1, nc)]
        faults("daemon", 10, 40, 0, 8, "-")
        faults("rest", 15, 50, 3, 25, rest)
        faults("ctld", 20, 60, 3, 25, ctld)
        faults("pg", 20, 60, 3, 20, "-")
        nu = split (users, us, " ")
        for (i = 1; i <= nu; i++) {
            t = 0
            for (n = 1; t < dur; n++) {
                p = uni(10, 60) / 10
                t += p
                r = rnd()
                a = r < 0.55 ? "job" : r < 0.7 ? "array" : r < 0.85 ? "dep" : "cancel"
                print "user", us[i], n, p, a, uni(1, 6), uni(2, 4), uni(0, 9999)
            }
        }
    }'
}

# chaos_scripts USER: USER's job dir with job1.sh .. job6.sh, a job of so
# many seconds that marks, before it works, that it ran: a line
# "META_ID CLUSTER CLUSTER_JOB TASK" in ran.log
chaos_scripts () {
    cs_d=$(job_dir "$1")
    for cs_s in 1 2 3 4 5 6; do
        cat > "$cs_d/job$cs_s.sh" <<EOS
#!/bin/sh
#SBATCH -t 2
#SBATCH -o /dev/null
echo "\$METASCHED_JOB_ID \$SLURM_CLUSTER_NAME \${SLURM_ARRAY_JOB_ID:-\$SLURM_JOB_ID} \${SLURM_ARRAY_TASK_ID:--}" >> $cs_d/ran.log
sleep $cs_s
EOS
        chmod 755 "$cs_d/job$cs_s.sh"
    done
    : > "$cs_d/ran.log"
    chown "$1" "$cs_d/ran.log"
}

elapsed () { awk -v a="$(cat "$dtmp/t0")" -v b="$(date +%s.%N)" 'BEGIN { printf "%7.1f", b - a }'; }
# flog KIND ACTION WORDS... RESULT: one line of the faults' log
flog () { echo "$(elapsed) $*" >> "$dtmp/faults.log"; }
# alive PID: the process lives (a zombie does not)
alive () {
    kill -0 "$1" 2>/dev/null || return 1
    [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]
}
gone () { ! alive "$1"; }

# the daemon, started from a subshell so that it is no child of a worker
# (whoever kills it need not reap it); its pid in daemon.pid
chaos_daemon_start () {
    (
        start_daemon "$dtmp/msd.conf" "$log"
        echo "$daemon_pid" > "$dtmp/daemon.pid"
        echo "$daemon_pid" >> "$dtmp/daemon.pids"
    )
}
# daemon_metrics_ok: the daemon lives and answers /metrics
daemon_metrics_ok () {
    alive "$(cat "$dtmp/daemon.pid")" &&
        [ "$(curl -s -m 5 -o /dev/null -w '%{http_code}' --unix-socket "$dtmp/msd.sock" http://localhost/metrics)" = 200 ]
}
# chaos_daemon_up SECONDS: started as its systemd unit would be
# (metaschedd.service: Restart=on-failure, RestartSec=5): a start refused
# (the database down: doc/metaschedd.8) is tried again 5 s later, until
# the daemon answers; the tries in $daemon_tries
daemon_dead () { ! alive "$(cat "$dtmp/daemon.pid")"; }
chaos_daemon_up () {
    cd_end=$(( $(date +%s) + $1 ))
    daemon_tries=0
    while [ "$(date +%s)" -lt "$cd_end" ]; do
        chaos_daemon_start
        daemon_tries=$((daemon_tries + 1))
        while alive "$(cat "$dtmp/daemon.pid")" && [ "$(date +%s)" -lt "$cd_end" ]; do
            daemon_metrics_ok && return 0
            sleep 0.2
        done
        daemon_dead && sleep 5
    done
    return 1
}

cdir () { printf '%s' "$MS_TESTBED_RUN/slurm/$1"; }
rest_port () { getv "MS_$(upper "$1")_URL" | sed 's/.*:\([0-9][0-9]*\).*/\1/'; }
rest_ok () {
    _code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' -H "@$(cdir "$1")/root.token.headers" \
        "$(getv "MS_$(upper "$1")_URL")/slurm/$(getv "MS_$(upper "$1")_REST_VERSIONS" | awk '{ print $NF }')/ping")
    [ "$_code" = 200 ]
}
ctld_ok () { on_cluster "$1" scontrol ping 2>/dev/null | grep -q 'is UP'; }
pg_ok () { "$pgctl" status 2>/dev/null && q "SELECT 1" | grep -qx 1; }

# the services started again here close the test's lock files (fds 7-9):
# a service that outlives the test must not hold its locks
rest_start () {
    (
        cd / && nohup setsid "$(getv "MS_$(upper "$1")_SLURMRESTD")" "127.0.0.1:$(rest_port "$1")" \
            >>"$(cdir "$1")/slurmrestd.log" 2>&1 </dev/null 7>&- 8>&- 9>&- &
        echo $! > "$(cdir "$1")/slurmrestd.pid"
    )
}
ctld_start () {
    SLURM_CONF=$(getv "MS_$(upper "$1")_CONF") "$(getv "MS_$(upper "$1")_SLURM_SBIN")/slurmctld" \
        -f "$(getv "MS_$(upper "$1")_CONF")" -i >/dev/null 2>&1 7>&- 8>&- 9>&-
}
pg_start () { "$pgctl" start 7>&- 8>&- 9>&-; }

# chaos_stop KIND TARGET, chaos_start KIND TARGET: one fault's two ends,
# each logged with its result (ok, or what went wrong)
chaos_stop () {
    case $1 in
    daemon) cs_pid=$(cat "$dtmp/daemon.pid"); cs_sig=KILL ;;
    rest) cs_pid=$(cat "$(cdir "$2")/slurmrestd.pid" 2>/dev/null); cs_sig=KILL ;;
    ctld) cs_pid=$(cat "$(cdir "$2")/slurmctld.pid" 2>/dev/null); cs_sig=$ctld_sig ;;
    pg)
        "$pgctl" stop -m immediate; cs_rc=$?
        if [ $cs_rc = 0 ] && ! "$pgctl" status; then flog pg stop immediate ok
        else flog pg stop immediate: rc $cs_rc failed; fi
        return ;;
    esac
    if [ -z "$cs_pid" ] || ! alive "$cs_pid"; then
        flog "$1" stop "$2" pid "${cs_pid:-none}" was not running failed
        return
    fi
    kill -"$cs_sig" "$cs_pid"
    if wait_for 60 gone "$cs_pid"; then
        flog "$1" stop "$2" pid "$cs_pid" SIG$cs_sig ok
    else
        kill -KILL "$cs_pid" 2>/dev/null
        flog "$1" stop "$2" pid "$cs_pid" SIG$cs_sig: still alive after 60 s failed
    fi
}
chaos_start () {
    cs_t=$(date +%s)
    case $1 in
    daemon)
        chaos_daemon_up 180
        cs_what="pid $(cat "$dtmp/daemon.pid") ($daemon_tries starts)"; cs_ok=daemon_metrics_ok ;;
    rest) rest_start "$2"; cs_what="pid $(cat "$(cdir "$2")/slurmrestd.pid")"; cs_ok="rest_ok $2" ;;
    ctld) ctld_start "$2"; cs_what=slurmctld; cs_ok="ctld_ok $2" ;;
    pg) pg_start; cs_what="rc $?"; cs_ok=pg_ok ;;
    esac
    # shellcheck disable=SC2086
    if wait_for 180 $cs_ok; then
        flog "$1" start "$2" "$cs_what" answers after $(( $(date +%s) - cs_t )) s ok
    else
        flog "$1" start "$2" "$cs_what": no answer within 180 s failed
    fi
}

wait_until () { while [ "$(date +%s)" -lt "$1" ]; do sleep 0.5; done; }

# chaos_faults KIND: this kind's faults of the plan, in order
chaos_faults () {
    cf_t0=$(cat "$dtmp/t0")
    awk -v k="$1" '$1 == "fault" && $2 == k { print $3, $4, $5 }' "$dtmp/plan" |
    while read -r cf_at cf_down cf_target; do
        wait_until $((cf_t0 + cf_at))
        chaos_stop "$1" "$cf_target"
        cf_s=$(date +%s)
        wait_until $((cf_s + cf_down))
        chaos_start "$1" "$cf_target"
    done
}

# chaos_user USER: the user's actions of the plan until the run's end.
# A submission is acknowledged (acked: ID USER N KIND), refused with a
# clear error (refused), or unanswered (the answer lost: the daemon may
# have stored it; its name chaos-SEED-PID-USER-N finds it)
chaos_user () {
    cu_u=$1
    cu_d=$(job_dir "$cu_u")
    cu_end=$(( $(cat "$dtmp/t0") + duration ))
    awk -v u="$cu_u" '$1 == "user" && $2 == u { print $3, $4, $5, $6, $7, $8 }' "$dtmp/plan" |
    while read -r n pause act s size pick; do
        sleep "$pause"
        [ "$(date +%s)" -lt "$cu_end" ] || break
        # a cancel or a dependency names one of the user's last four
        # accepted jobs (most of the older ones have ended)
        mine=$(awk -v u="$cu_u" '$2 == u { print $1 }' "$dtmp/acked" 2>/dev/null | tail -4)
        nm=$(printf '%s\n' "$mine" | grep -c .)
        pickid=
        [ "$nm" -gt 0 ] && pickid=$(printf '%s\n' "$mine" | sed -n "$((pick % nm + 1))p")
        name=chaos-$seed-$$-$cu_u-$n
        case $act in
        cancel)
            if [ -n "$pickid" ]; then
                out=$( (cd "$cu_d" && runuser -u "$cu_u" -- env METASCHED_SERVER="unix:$dtmp/msd.sock" \
                    METASCHED_MUNGE_SOCKET="$MS_MUNGE_SOCKET" "$mscancel" "$pickid") 2>&1); rc=$?
                echo "$pickid $cu_u rc=$rc $(printf '%s' "$out" | tr '\n' ' ')" >> "$dtmp/cancels"
            fi
            continue ;;
        array) set -- --array=1-"$size" ;;
        dep) if [ -n "$pickid" ]; then set -- --dependency=afterok:"$pickid"; else act=job; set --; fi ;;
        *) set -- ;;
        esac
        out=$(msb "$cu_u" "$cu_d" -J "$name" "$@" "job$s.sh" 2>&1); rc=$?
        out=$(printf '%s' "$out" | tr '\n' ' ')
        case $out in
        "Submitted meta job "*)
            [ $rc = 0 ] && { echo "$(printf '%s' "$out" | grep -o '[0-9][0-9]*' | tail -1) $cu_u $n $act" >> "$dtmp/acked"; continue; } ;;
        *"HTTP 503"*|*"not reachable"*|*"onnection refused"*|*"No such file"*)
            [ $rc != 0 ] && { echo "$cu_u $n $act $out" >> "$dtmp/refused"; continue; } ;;
        esac
        echo "$cu_u $n $act rc=$rc $out" >> "$dtmp/unanswered"
    done
}

# chaos_services_up SECONDS: the daemon, PostgreSQL, and every cluster's
# slurmctld and slurmrestd answer (whatever is down is started again)
all_up () {
    daemon_metrics_ok && pg_ok || return 1
    for c in $MS_CLUSTERS; do ctld_ok "$c" && rest_ok "$c" || return 1; done
}
chaos_services_up () { wait_for "$1" all_up; }
chaos_services_state () {
    printf 'daemon %s, PostgreSQL %s' "$(ok_if daemon_metrics_ok)" "$(ok_if pg_ok)"
    for c in $MS_CLUSTERS; do printf ', %s ctld %s rest %s' "$c" "$(ok_if ctld_ok "$c")" "$(ok_if rest_ok "$c")"; done
    printf ' (0: answers)'
}

# the run's meta jobs in the database: ID|STATE|EXIT|LAST_ERROR
chaos_rows () {
    q "SELECT id || '|' || state || '|' || coalesce (exit_code::text, '-') || '|' || coalesce (replace (last_error, '|', '/'), '')
       FROM jobs WHERE name LIKE 'chaos-$seed-$$-%' ORDER BY id"
}
chaos_live () {
    q "SELECT count(*) FROM jobs WHERE name LIKE 'chaos-$seed-$$-%'
       AND state NOT IN ('completed', 'failed', 'cancelled', 'lost')"
}

# chaos_ledger: the ledger, "# NAME COUNT [details]" lines
chaos_ledger () {
    chaos_rows > "$dtmp/rows"
    sort -u "$dtmp/acked" 2>/dev/null | awk '{ print $1 }' | sort -n > "$dtmp/ackids"
    # every cluster's own list: COMMENT|ARRAY_JOB|STATE|BATCH_HOST|CLUSTER
    for c in $MS_CLUSTERS; do
        on_cluster "$c" squeue -h -a -r -t all -o "%k|%F|%T|%B|$c" 2>/dev/null
    done | grep '^metasched:' > "$dtmp/tagged"
    cat "$dtmp"/*/ran.log 2>/dev/null > "$dtmp/ran"
    awk -F'|' -v ackf="$dtmp/ackids" -v tagf="$dtmp/tagged" -v ranf="$dtmp/ran" '
    BEGIN {
        while ((getline l < ackf) > 0) ack[l] = 1
        # cluster jobs of each meta job, and those that ran (a batch
        # host: a job cancelled while pending never had one)
        while ((getline l < tagf) > 0) {
            split (l, f, "|"); split (f[1], t, ":"); id = t[2]
            k = f[5] "/" f[2]
            if (!((id, k) in cp)) { cp[id, k] = 1; copies[id]++; cj[id] = cj[id] " " k }
            if (f[4] != "n/a" && f[4] != "" && !((id, k) in rn)) { rn[id, k] = 1; ran[id]++; rj[id] = rj[id] " " k }
        }
        # the marks of the scripts themselves: META CLUSTER JOB TASK
        while ((getline l < ranf) > 0) {
            split (l, f, " "); k = f[2] "/" f[3]
            if (!((f[1], k) in mk)) { mk[f[1], k] = 1; marks[f[1]]++; mj[f[1]] = mj[f[1]] " " k }
        }
    }
    {
        id = $1; st = $2; stored[id] = 1; n++
        if (!(id in ack)) unans++
        if (st == "completed" && ran[id] + 0 == 0) { lost++; lw = lw " " id "(completed, no cluster job ran)"; next }
        if (st == "lost") { lost++; lw = lw " " id "(lost: " $4 ")"; next }
        if (st == "completed" || st == "cancelled") { c[st]++; }
        else if (st == "failed") { c[st]++; fw = fw "\n#   " id ": exit " $3 ": " $4 }
        else { stuck++; sw = sw " " id "(" st ")" }
        if (ran[id] + 0 > 1) { dup++; dw = dw " " id "(" rj[id] " )" }
        if (marks[id] + 0 > 1) { twice++; tw = tw " " id "(" mj[id] " )" }
        if (copies[id] + 0 > 1) { multi++ }
    }
    END {
        for (id in ack) if (!(id in stored)) { notst++; lost++; lw = lw " " id "(acknowledged, not in the database)" }
        printf "# accepted %d (%d acknowledged, %d stored without an answer)\n", n + notst, n + notst - unans, unans
        printf "# completed %d\n", c["completed"]
        printf "# cancelled %d\n", c["cancelled"]
        printf "# failed %d%s\n", c["failed"], fw
        printf "# lost %d%s\n", lost, lw
        printf "# duplicated %d%s\n", dup, dw
        printf "# ran twice %d%s (the scripts marks)\n", twice, tw
        printf "# stuck %d%s\n", stuck, sw
        printf "# not stored %d\n", notst
        printf "# unanswered stored %d\n", unans
        printf "# more than one copy %d (cancelled before running included)\n", multi
    }' "$dtmp/rows"
    printf '# unanswered %d\n' "$(cat "$dtmp/unanswered" 2>/dev/null | wc -l)"
    printf '# refused %d (a clear error: the daemon or the database down)\n' "$(cat "$dtmp/refused" 2>/dev/null | wc -l)"
    for k in job array dep; do
        printf '# acknowledged %s %d\n' "$k" "$(awk -v k="$k" '$4 == k' "$dtmp/acked" 2>/dev/null | wc -l)"
    done
    printf '# cancels %d (%d answered rc 0)\n' "$(cat "$dtmp/cancels" 2>/dev/null | wc -l)" "$(grep -c ' rc=0 ' "$dtmp/cancels" 2>/dev/null)"
    [ -s "$dtmp/unanswered" ] && sed -n '1,5s/^/#   unanswered: /p' "$dtmp/unanswered"
}

# on exit: workers and daemons stopped, every service started again
chaos_cleanup () {
    for p in $(cat "$dtmp/workers" 2>/dev/null); do kill "$p" 2>/dev/null; done
    "$pgctl" status 2>/dev/null || pg_start
    for c in $MS_CLUSTERS; do
        alive "$(cat "$(cdir "$c")/slurmctld.pid" 2>/dev/null)" 2>/dev/null || ctld_start "$c"
        alive "$(cat "$(cdir "$c")/slurmrestd.pid" 2>/dev/null)" 2>/dev/null || rest_start "$c"
    done
    for p in $(cat "$dtmp/daemon.pids" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    if [ -n "${mode_was:-}" ]; then
        q "UPDATE settings SET value = '$mode_was' WHERE key = 'dispatch_mode'" >/dev/null
    elif [ -n "${mode_set:-}" ]; then
        q "DELETE FROM settings WHERE key = 'dispatch_mode'" >/dev/null
    fi
    for c in $MS_CLUSTERS; do
        on_cluster "$c" squeue -h -u root -o '%i %j' 2>/dev/null | awk '$2 ~ /^chaos-/ { print $1 }' |
            xargs -r env SLURM_CONF="$(getv "MS_$(upper "$c")_CONF")" "$(slurm_cmd "$c" scancel)" 2>/dev/null
    done
    daemon_cleanup
}
