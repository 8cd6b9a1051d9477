#!/bin/sh
# test_start_missing.sh - testbed/start names every piece a Slurm under a
# prefix lacks, with the build option that brings it, and exits non-zero
# before it starts anything; a prefix that is only partly there names what
# is still missing. Runs on a private run directory, so a test bed that
# runs meanwhile is not touched.
. "${MS_SRCDIR:-.}/tests/tap.sh"
src=${MS_SRCDIR:-.}
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (testbed/start checks it first)"
command -v bash >/dev/null || tap_skip_all "no bash"

tmp=$(mktemp -d /tmp/ms-tb-missing-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tap_plan 13

# start_in PREFIX: testbed/start on a run directory of its own; output in
# $tmp/out, status in $rc
start_in () {
    rm -rf "$tmp/run"
    MS_TESTBED_RUN=$tmp/run MS_TESTBED_PORT_OFFSET=900 \
        bash "$src/testbed/start" --slurm-prefix "$1" > "$tmp/out" 2>&1 </dev/null
    rc=$?
}
has () { grep -qF -- "$1" "$tmp/out"; }

# 1. an empty prefix: every command and slurmrestd's build options named
mkdir -p "$tmp/empty"
start_in "$tmp/empty"
tap_ok "$([ "$rc" != 0 ] && echo 0 || echo 1)" "an empty prefix: start fails (status $rc)"
tap_ok "$(has "the Slurm at $tmp/empty (clusters alpha,beta,gamma): no sbin/slurmctld" && echo 0 || echo 1)" "slurmctld named as missing"
tap_ok "$(has "no sbin/slurmrestd (its build needs" && has "--with-jwt" && echo 0 || echo 1)" "slurmrestd named with the build options that bring it"
tap_ok "$(has "no plugin directory $tmp/empty/lib/slurm" && echo 0 || echo 1)" "the plugin directory named"
tap_ok "$(has "cannot start the test bed" && echo 0 || echo 1)" "it says it cannot start, and where to look"
# 2. nothing started: no run directory state beyond what the check reads
tap_ok "$( [ ! -e "$tmp/run/pg" ] && [ ! -e "$tmp/run/slurm" ] && echo 0 || echo 1)" "nothing was started"

# 3. a prefix with its plugin directory but no plugins: each plugin named
# with the build option that brings it
mkdir -p "$tmp/partial/lib/slurm" "$tmp/partial/sbin" "$tmp/partial/bin"
start_in "$tmp/partial"
tap_ok "$(has "plugin auth/jwt missing ($tmp/partial/lib/slurm/auth_jwt.so): build Slurm with libjwt-dev and --with-jwt" && echo 0 || echo 1)" "auth/jwt named with libjwt-dev and --with-jwt"
tap_ok "$(has "plugin serializer/json missing" && has "--with-json" && echo 0 || echo 1)" "serializer/json named with --with-json"
tap_ok "$(has "slurmrestd has no OpenAPI plugin of v0.0.38 or later" && echo 0 || echo 1)" "no OpenAPI plugin named"

# 4. no Debian Slurm on the machine at all: its plugin folder hidden in a
# mount namespace of this test only (an overlay whose whiteout removes it),
# with and without a prefix. The start must say what is missing, not end
# silently at the folder's look-up.
mkdir -p "$tmp/ovl/w"
debdir=$(for d in /usr/lib/*/slurm-wlm; do [ -d "$d" ] && echo "$d" && break; done)
if [ -n "$debdir" ] && command -v unshare >/dev/null \
    && mkdir -p "$tmp/ovl/u/${debdir#/usr/lib/}" && rmdir "$tmp/ovl/u/${debdir#/usr/lib/}" \
    && mknod "$tmp/ovl/u/${debdir#/usr/lib/}" c 0 0 2>/dev/null \
    && unshare -m sh -c "mount -t overlay overlay -o lowerdir=/usr/lib,upperdir=$tmp/ovl/u,workdir=$tmp/ovl/w /usr/lib && [ ! -e $debdir ]" 2>/dev/null; then
    run_hidden () {
        rm -rf "$tmp/run"
        MS_TESTBED_RUN=$tmp/run MS_TESTBED_PORT_OFFSET=900 unshare -m sh -c \
            "mount -t overlay overlay -o lowerdir=/usr/lib,upperdir=$tmp/ovl/u,workdir=$tmp/ovl/w /usr/lib && exec bash '$src/testbed/start' $*" \
            > "$tmp/out" 2>&1 </dev/null
        rc=$?
    }
    run_hidden --slurm-prefix "$tmp/empty"
    tap_ok "$([ "$rc" = 1 ] && has "no sbin/slurmctld" && echo 0 || echo 1)" "no Debian Slurm, an empty prefix: the missing pieces named (status $rc)"
    run_hidden
    tap_ok "$([ "$rc" = 1 ] && echo 0 || echo 1)" "no Debian Slurm, no prefix: start fails with status 1, not silently (status $rc)"
    tap_ok "$(has "no plugin directory $debdir: install the Debian packages slurm-wlm-basic-plugins" && echo 0 || echo 1)" "its plugin folder named with the packages that bring it"
    tap_ok "$(has "plugin accounting_storage/mysql missing: install the Debian package slurm-wlm-mysql-plugin" && echo 0 || echo 1)" "accounting's plugin named with its package"
else
    tap_skip 4 "cannot hide Debian's Slurm here (no Debian Slurm, or no overlay mount in a namespace)"
fi
[ "$tap_failed" = 0 ] || { echo "# testbed/start said:"; sed 's/^/# /' "$tmp/out"; }
exit "$tap_failed"
