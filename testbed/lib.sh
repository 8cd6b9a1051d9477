# lib.sh - shared by the test bed scripts (sourced, not run).
#
# The test bed: one private PostgreSQL 15 instance and three local Slurm
# 22.05 clusters (each with slurmctld, one slurmd per emulated node and
# slurmrestd), all on this machine, all state under testbed/run/.

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
TB_REST_USER=msrest

# cluster  ctld-port  first-slurmd-port  rest-port  node-prefix  nodes  cpus  arch  partitions(name:maxtime:default)
TB_CLUSTERS="alpha beta gamma"
tb_cluster_alpha="16817 16901 16820 a 4 48 skx8168 batch:INFINITE:YES"
tb_cluster_beta="17817 17901 17820 b 3 36 clx6254 compute:INFINITE:YES"
tb_cluster_gamma="18817 18901 18820 g 2 40 skx6148 short:30:YES,long:INFINITE:NO"

tb_log () { printf 'testbed: %s\n' "$*" >&2; }
tb_die () { printf 'testbed: error: %s\n' "$*" >&2; exit 1; }

tb_desc () {
    local v="tb_cluster_$1"
    set -- ${!v}
    echo "$(($1 + TB_PORT_OFFSET)) $(($2 + TB_PORT_OFFSET)) $(($3 + TB_PORT_OFFSET)) $4 $5 $6 $7 $8"
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
