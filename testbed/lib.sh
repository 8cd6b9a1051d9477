# lib.sh - shared by the test bed scripts (sourced, not run).
#
# The test bed: one private PostgreSQL 15 instance and three local Slurm
# clusters (each with slurmctld, one slurmd per emulated node and
# slurmrestd), all on this machine, all state under testbed/run/. Each
# cluster runs Debian's Slurm 22.05 or a Slurm installed under a prefix
# (testbed/start --slurm-prefix; the choice is kept in run/slurm-prefix).

# Tests hold the test bed's lock files on descriptors 7-9 (tests/tap.sh);
# the daemons started from here must not inherit them, or a restarted
# slurmrestd or PostgreSQL would hold a test's lock for ever.
exec 7>&- 8>&- 9>&-

TB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TB_RUN=${MS_TESTBED_RUN:-$TB_SRC/testbed/run}
TB_PG_BINDIR=${MS_PG_BINDIR:-/usr/lib/postgresql/15/bin}
# MS_TESTBED_PORT_OFFSET moves every port, so that two test beds (say a CI
# run beside a developer's) can run on one machine.
TB_PORT_OFFSET=${MS_TESTBED_PORT_OFFSET:-0}
TB_PG_PORT=$((55432 + TB_PORT_OFFSET))
TB_SPARE_PORT=$((18899 + TB_PORT_OFFSET))   # free for tests that start their own slurmrestd
TB_API_PORT=$((18830 + TB_PORT_OFFSET))     # free for tests of metaschedd's TCP listener
TB_MUNGE_SOCKET=$TB_RUN/munge-sock/munge.socket.2
TB_TEST_USER=msuser
TB_TEST_USER2=msuser2    # a second ordinary user: isolation between users
TB_TEST_USER3=msnoacct   # an ordinary user with no association in slurmdbd
TB_REST_USER=msrest

# cluster  ctld-port  first-slurmd-port  rest-port  node-prefix  nodes  cpus  arch  partitions(name:maxtime:default)
TB_CLUSTERS="alpha beta gamma"
tb_cluster_alpha="16817 16901 16820 a 4 48 skx8168 batch:INFINITE:YES"
tb_cluster_beta="17817 17901 17820 b 3 36 clx6254 compute:INFINITE:YES"
tb_cluster_gamma="18817 18901 18820 g 2 40 skx6148 short:30:YES,long:INFINITE:NO"
# Each cluster's nodes: RealMemory (MB) and Features (slurm.conf).
tb_nodes_alpha="4000 skx8168,ib"
tb_nodes_beta="16000 clx6254,ib,bigmem"
tb_nodes_gamma="2000 skx6148,opa"
# Each cluster's GPUs per node ("" or 0: none): counted gres (GresTypes=gpu,
# Gres=gpu:N, gres.conf File= stand-in devices, no GPUs), which Slurm allocates and
# accounts like real ones; clusters.conf declares them with these powers.
tb_gpus_gamma=2
tb_gpu_power_gamma="30 250"   # idle and busy W of one GPU

# Accounting: this cluster runs slurmdbd (its own MariaDB instance) with
# AccountingStorageEnforce=associations,limits,qos, when its Slurm can
# (Debian's always; a prefix's when built with accounting_storage/mysql).
TB_ACCT_CLUSTER=beta
TB_MARIADB_PORT=$((19306 + TB_PORT_OFFSET))
TB_DBD_PORT=$((19819 + TB_PORT_OFFSET))
TB_MARIADB_BIN=${MS_MARIADB_BIN:-/usr/sbin/mariadbd}

# Where Debian's Slurm packages put the plugins.
# A glob, not ls: the scripts run with errexit and pipefail, and an ls
# that finds nothing (no Debian Slurm, a prefix only) would end them
# silently before they can say what is missing.
TB_DEBIAN_PLUGIN_DIR=
for tb_d in /usr/lib/*/slurm-wlm; do
    [ -d "$tb_d" ] && { TB_DEBIAN_PLUGIN_DIR=$tb_d; break; }
done
TB_DEBIAN_PLUGIN_DIR=${TB_DEBIAN_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}
# Which Slurm each cluster runs: lines CLUSTER=debian or CLUSTER=PREFIX.
TB_SLURM_CHOICE=$TB_RUN/slurm-prefix

tb_log () { printf 'testbed: %s\n' "$*" >&2; }
tb_die () { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

tb_desc () {
    local v="tb_cluster_$1"
    set -- ${!v}
    echo "$(($1 + TB_PORT_OFFSET)) $(($2 + TB_PORT_OFFSET)) $(($3 + TB_PORT_OFFSET)) $4 $5 $6 $7 $8"
}

# tb_nodes CLUSTER: "REALMEMORY_MB FEATURES" of its nodes
tb_nodes () {
    local v="tb_nodes_$1"
    echo "${!v}"
}

# tb_gpus CLUSTER: its GPUs per node (0: none)
tb_gpus () {
    local v="tb_gpus_$1"
    echo "${!v:-0}"
}

# tb_slurm_accounting PREFIX: true when the Slurm at PREFIX ("debian": the
# packages) can run accounting: its slurmdbd, its sacctmgr and its
# accounting_storage/mysql plugin (a release built under a prefix has it
# only when libmariadb-dev was there at its configure; doc/testbed.md).
tb_slurm_accounting () {
    local TB_BIN TB_SBIN TB_PLUGINS
    [ "$1" = debian ] && return 0
    tb_slurm_layout "$1"
    [ -x "$TB_SBIN/slurmdbd" ] && [ -x "$TB_BIN/sacctmgr" ] \
        && [ -e "$TB_PLUGINS/accounting_storage_mysql.so" ]
}

# tb_accounting CLUSTER: "slurmdbd" when the cluster runs accounting (it is
# TB_ACCT_CLUSTER and its Slurm can, tb_slurm_accounting), "none" otherwise.
tb_accounting () {
    if [ "$1" = "$TB_ACCT_CLUSTER" ] && tb_slurm_accounting "$(tb_slurm_prefix "$1")"; then
        echo slurmdbd
    else
        echo none
    fi
}

# tb_minjobage CLUSTER: its slurmctld's MinJobAge in seconds: 3600, or
# what MS_TESTBED_MINJOBAGE says for it ("CLUSTER:SECONDS[,CLUSTER:SECONDS]";
# Slurm takes 2 at the least). How long a cluster lists a job after its end
# (doc/testbed.md, doc/admin-guide.md "MinJobAge and unknown jobs").
tb_minjobage () {
    local e v=3600 IFS=,
    for e in ${MS_TESTBED_MINJOBAGE:-}; do
        case $e in
        "$1":*) v=${e#*:} ;;
        esac
    done
    case $v in
    '' | *[!0-9]*) tb_die "MS_TESTBED_MINJOBAGE: '$1:$v' is no number of seconds" ;;
    esac
    [ "$v" -ge 2 ] || tb_die "MS_TESTBED_MINJOBAGE: $1:$v: Slurm takes 2 s at the least"
    echo "$v"
}

# Is the process in PIDFILE alive?
tb_alive () {
    local pid
    [ -s "$1" ] || return 1
    pid=$(cat "$1" 2>/dev/null) || return 1
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# Wait up to $2 tenths of a second for command $1 to succeed.
tb_wait () {
    local i=0
    while [ $i -lt "$2" ]; do
        eval "$1" >/dev/null 2>&1 && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# tb_slurm_prefix CLUSTER: "debian" or the prefix the cluster's Slurm is
# installed under (run/slurm-prefix; debian when it names none).
tb_slurm_prefix () {
    local p=
    [ -r "$TB_SLURM_CHOICE" ] && p=$(sed -n "s/^$1=//p" "$TB_SLURM_CHOICE" | tail -1)
    echo "${p:-debian}"
}

# tb_slurm_layout PREFIX: set TB_BIN, TB_SBIN, TB_PLUGINS (directories) of
# the Slurm at PREFIX ("debian": the packages).
tb_slurm_layout () {
    if [ "$1" = debian ]; then
        TB_BIN=/usr/bin TB_SBIN=/usr/sbin TB_PLUGINS=$TB_DEBIAN_PLUGIN_DIR
    else
        TB_BIN=$1/bin TB_SBIN=$1/sbin TB_PLUGINS=$1/lib/slurm
        [ -d "$1/lib64/slurm" ] && [ ! -d "$1/lib/slurm" ] && TB_PLUGINS=$1/lib64/slurm
    fi
    return 0
}

# tb_stop_pidfile FILE NAME: TERM, wait, then KILL
tb_stop_pidfile () {
    local f=$1 name=$2 pid i
    tb_alive "$f" || { rm -f "$f"; return 0; }
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null
    for i in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null
        tb_log "$name did not stop on TERM; killed"
    fi
    rm -f "$f"
}

# tb_stop_accounting: slurmdbd, then MariaDB (run/slurmdbd, run/mariadb)
tb_stop_accounting () {
    tb_stop_pidfile "$TB_RUN/slurmdbd/slurmdbd.pid" "slurmdbd"
    tb_stop_pidfile "$TB_RUN/mariadb/mariadbd.pid" "MariaDB"
}

# ---- PostgreSQL streaming hot standby (testbed/start --pg-standby) ----------
# A second PostgreSQL 15 instance fed by streaming replication from the
# primary (run/pg/data): its data in run/pg/standby, the same socket
# directory, its own port (the primary's + 17: never another test bed's,
# whose offsets are multiples of 100). The primary waits for the standby's
# flush at each COMMIT (synchronous_standby_names), so that what a client
# was told is committed survives the primary's loss. testbed/pgctl
# promote and stop-primary make a failover; testbed/pgctl failback makes
# the promoted standby the primary again on the primary's port, with a
# fresh standby.
TB_PG_STANDBY_PORT=$((TB_PG_PORT + 17))
TB_PG_STANDBY_NAME=ms_standby
tb_pg_data () { echo "$TB_RUN/pg/data"; }
tb_pg_standby_data () { echo "$TB_RUN/pg/standby"; }
tb_pg_ctl () { # tb_pg_ctl DATADIR ARGS...: pg_ctl as postgres
    local d=$1
    shift
    runuser -u postgres -- "$TB_PG_BINDIR/pg_ctl" -D "$d" "$@"
}
tb_pg_psql () { # tb_pg_psql PORT SQL: as the superuser, on that instance
    PGPASSFILE=$TB_RUN/pg/pgpass "$TB_PG_BINDIR/psql" -X -q -A -t -v ON_ERROR_STOP=1 \
        "host=$TB_RUN/pg/sock port=$1 dbname=postgres user=postgres" -c "$2"
}
# tb_pg_standby_wanted: the standby is asked for (--pg-standby, or
# MS_TESTBED_PG_STANDBY=1, or a standby made by an earlier start)
tb_pg_standby_wanted () {
    [ "${MS_TESTBED_PG_STANDBY:-0}" = 1 ] || [ -s "$(tb_pg_standby_data)/PG_VERSION" ]
}

# tb_pg_standby_make: a fresh standby from the running primary (any old
# one removed), started and streaming; the primary then commits
# synchronously with it.
tb_pg_standby_make () {
    local sd
    sd=$(tb_pg_standby_data)
    tb_pg_standby_stop immediate
    rm -rf "$sd"
    # no synchronous standby while there is none: a COMMIT would wait for ever
    tb_pg_psql "$TB_PG_PORT" "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null \
        && tb_pg_psql "$TB_PG_PORT" "SELECT pg_reload_conf ()" >/dev/null \
        || tb_die "cannot configure the primary on port $TB_PG_PORT for a standby"
    # as root, who reads the passfile; -R writes standby.signal and a
    # primary_conninfo, which gets a passfile of postgres's own below
    install -d -m 0700 "$sd"
    PGPASSFILE="$TB_RUN/pg/pgpass" "$TB_PG_BINDIR/pg_basebackup" -D "$sd" -X stream -R -c fast \
        -d "host=$TB_RUN/pg/sock port=$TB_PG_PORT user=postgres application_name=$TB_PG_STANDBY_NAME" \
        >"$TB_RUN/pg/basebackup.log" 2>&1 \
        || tb_die "pg_basebackup from the primary failed; see $TB_RUN/pg/basebackup.log"
    chown -R postgres:postgres "$sd"
    # its own port; never a synchronous primary itself once promoted (no
    # standby of its own would ever answer)
    runuser -u postgres -- sed -i "s/^port = .*/port = $TB_PG_STANDBY_PORT/" "$sd/postgresql.conf"
    install -o postgres -g postgres -m 0600 /dev/null "$TB_RUN/pg/standby.pgpass"
    grep '^\*:\*:\*:postgres:' "$TB_RUN/pg/pgpass" > "$TB_RUN/pg/standby.pgpass"
    printf "%s\n" "primary_conninfo = 'host=$TB_RUN/pg/sock port=$TB_PG_PORT user=postgres passfile=$TB_RUN/pg/standby.pgpass application_name=$TB_PG_STANDBY_NAME'" \
        "synchronous_standby_names = ''" >> "$sd/postgresql.auto.conf"
    tb_pg_standby_start
    tb_pg_psql "$TB_PG_PORT" "ALTER SYSTEM SET synchronous_standby_names = '$TB_PG_STANDBY_NAME'" >/dev/null \
        && tb_pg_psql "$TB_PG_PORT" "SELECT pg_reload_conf ()" >/dev/null \
        || tb_die "cannot make the standby synchronous"
    tb_wait tb_pg_standby_synced 300 \
        || tb_die "the standby on port $TB_PG_STANDBY_PORT does not stream from the primary; see $TB_RUN/pg/standby.log"
    tb_log "PostgreSQL standby streaming on port $TB_PG_STANDBY_PORT (synchronous)"
}

# the primary sees the standby streaming, synchronously
tb_pg_standby_synced () {
    [ "$(tb_pg_psql "$TB_PG_PORT" "SELECT sync_state FROM pg_stat_replication WHERE application_name = '$TB_PG_STANDBY_NAME'" 2>/dev/null)" = sync ]
}

tb_pg_standby_start () {
    local sd
    sd=$(tb_pg_standby_data)
    [ -s "$sd/PG_VERSION" ] || return 0
    tb_pg_ctl "$sd" status >/dev/null 2>&1 && return 0
    runuser -u postgres -- sed -i "s/^port = .*/port = $TB_PG_STANDBY_PORT/" "$sd/postgresql.conf"
    tb_pg_ctl "$sd" -l "$TB_RUN/pg/standby.log" -w -t 60 start >/dev/null \
        || tb_die "the PostgreSQL standby did not start; see $TB_RUN/pg/standby.log"
}

# tb_pg_standby_stop [MODE]: stop the standby (fast unless MODE)
tb_pg_standby_stop () {
    local sd
    sd=$(tb_pg_standby_data)
    [ -s "$sd/postmaster.pid" ] || return 0
    tb_pg_ctl "$sd" -m "${1:-fast}" -w stop >/dev/null 2>&1 \
        || tb_log "PostgreSQL standby did not stop cleanly"
}

# the primary sees the standby streaming (synchronously or not yet)
tb_pg_standby_streams () {
    [ "$(tb_pg_psql "$TB_PG_PORT" "SELECT state FROM pg_stat_replication WHERE application_name = '$TB_PG_STANDBY_NAME'" 2>/dev/null)" = streaming ]
}

# tb_pg_standby_ensure: started and streaming synchronously; made afresh
# where there is none or it does not stream
tb_pg_standby_ensure () {
    if [ -e "$(tb_pg_standby_data)/standby.signal" ]; then
        tb_pg_standby_start
        if tb_wait tb_pg_standby_streams 100; then
            tb_pg_psql "$TB_PG_PORT" "ALTER SYSTEM SET synchronous_standby_names = '$TB_PG_STANDBY_NAME'" >/dev/null
            tb_pg_psql "$TB_PG_PORT" "SELECT pg_reload_conf ()" >/dev/null
            tb_wait tb_pg_standby_synced 300 && return 0
        fi
        tb_log "the standby does not stream from the primary: made afresh"
    fi
    tb_pg_standby_make
}

# tb_pg_standby_remove: no standby any more (a test that made one for
# itself); the primary commits on its own again
tb_pg_standby_remove () {
    tb_pg_standby_stop immediate
    tb_pg_psql "$TB_PG_PORT" "ALTER SYSTEM RESET synchronous_standby_names" >/dev/null \
        && tb_pg_psql "$TB_PG_PORT" "SELECT pg_reload_conf ()" >/dev/null \
        || tb_log "cannot reset synchronous_standby_names on port $TB_PG_PORT"
    rm -rf "$(tb_pg_standby_data)" "$TB_RUN/pg/standby.pgpass"
}

tb_pg_start_primary () {
    tb_pg_ctl "$(tb_pg_data)" -l "$TB_RUN/pg/server.log" -w -t 60 start >/dev/null 2>&1 && return 0
    sleep 0.9
    return 1
}

# tb_pg_failback: after a failover (the primary stopped, the standby
# promoted), the promoted standby's data becomes the primary's, on the
# primary's port, and a fresh standby streams from it: the test bed as it
# was, with everything written during and after the failover.
tb_pg_failback () {
    local pd sd
    pd=$(tb_pg_data) sd=$(tb_pg_standby_data)
    [ -s "$sd/PG_VERSION" ] || tb_die "no standby in $sd: nothing to fail back"
    [ -e "$sd/standby.signal" ] && tb_die "the standby in $sd was not promoted: nothing to fail back"
    [ -s "$pd/postmaster.pid" ] && tb_pg_ctl "$pd" -m immediate -w stop >/dev/null 2>&1
    tb_pg_standby_stop
    rm -rf "$pd.old"
    mv "$pd" "$pd.old"
    mv "$sd" "$pd"
    rm -rf "$pd.old"
    runuser -u postgres -- sed -i "s/^port = .*/port = $TB_PG_PORT/" "$pd/postgresql.conf"
    # the port lies in the ephemeral range: while the primary was down an
    # outgoing connection of this machine may hold it for a while
    tb_wait tb_pg_start_primary 600 \
        || tb_die "PostgreSQL did not start on port $TB_PG_PORT in a minute; see $TB_RUN/pg/server.log"
    tb_pg_standby_make
}
