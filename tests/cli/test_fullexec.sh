#!/bin/sh
# `metasched` runs the simulator itself and hands every other command to
# metasched-full (metasched/admin/fullexec.c, doc/metasched.1 FILES): the
# build tree's program, or a link to it, hands off to the build tree's
# metasched-full, with the same output and exit status; a copy of the
# program elsewhere hands off only to the installed path fixed at build
# time (never one beside it, never one a user names), and where nothing is
# installed there it names that path and exits 127. TAP.
. "${MS_SRCDIR:-.}/tests/tap.sh"
ms=$MS_BUILDDIR/metasched/metasched
full=$MS_BUILDDIR/metasched/metasched-full
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tap_plan 7

# the build tree's program: the same as metasched-full, output and status
"$ms" config --help >"$tmp/a" 2>&1; rca=$?
"$full" config --help >"$tmp/b" 2>&1; rcb=$?
cmp -s "$tmp/a" "$tmp/b"
tap_ok "$([ $? = 0 ] && [ $rca = $rcb ] && [ $rca = 0 ] && echo 0 || echo 1)" \
    "config --help through the hand-off is metasched-full's (rc $rca, $rcb)"
"$ms" report --no-such-option >"$tmp/a" 2>&1; rca=$?
"$full" report --no-such-option >"$tmp/b" 2>&1; rcb=$?
cmp -s "$tmp/a" "$tmp/b"
tap_ok "$([ $? = 0 ] && [ $rca = $rcb ] && [ $rca != 0 ] && [ $rca != 127 ] && echo 0 || echo 1)" \
    "a bad option's message and status are metasched-full's (rc $rca, $rcb)"

# a link to the build tree's program is that program
ln -s "$ms" "$tmp/link"
"$tmp/link" config --help >"$tmp/a" 2>&1; rca=$?
"$full" config --help >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"
tap_ok "$([ $? = 0 ] && [ $rca = 0 ] && echo 0 || echo 1)" \
    "a link to the build tree's metasched hands off too (rc $rca)"

# a copy elsewhere, with a hostile metasched-full beside it and on PATH
mkdir "$tmp/bin"
cp "$ms" "$tmp/bin/metasched"
printf '#!/bin/sh\necho hijacked\nexit 3\n' > "$tmp/bin/metasched-full"
chmod +x "$tmp/bin/metasched-full"
"$tmp/bin/metasched" --version >"$tmp/a" 2>&1; rc=$?
grep -q '^metasched ' "$tmp/a"
tap_ok "$([ $? = 0 ] && [ $rc = 0 ] && echo 0 || echo 1)" \
    "a copy of the program answers --version itself (rc $rc)"
"$tmp/bin/metasched" simulate -s default -p base --no-plots -q -o "$tmp/sim" \
    >"$tmp/a" 2>&1; rc=$?
tap_ok "$([ $rc = 0 ] && [ -s "$tmp/sim/summary.csv" ] && echo 0 || echo 1)" \
    "a copy runs the simulator itself, without metasched-full (rc $rc)"

# the installed path the program was built with (not the build tree's)
inst=$(grep -a -o '/[[:print:]]*/metasched-full' "$ms" | grep -v "^$MS_BUILDDIR/" | head -1)
if [ -z "$inst" ]; then
    tap_ok 1 "the installed metasched-full's path is in the program"
    tap_skip 1 "no installed path found"
elif [ -e "$inst" ]; then
    tap_ok 0 "the installed metasched-full's path is in the program ($inst)"
    tap_skip 1 "$inst is installed on this machine: the missing case cannot be run"
else
    tap_ok 0 "the installed metasched-full's path is in the program ($inst)"
    PATH=$tmp/bin:$PATH "$tmp/bin/metasched" config --help >"$tmp/a" 2>&1; rc=$?
    msg=$(cat "$tmp/a")
    grep -q hijacked "$tmp/a"; hij=$?
    tap_ok "$([ $rc = 127 ] && [ $hij != 0 ] \
        && [ "$msg" = "metasched: $inst: No such file or directory" ] && echo 0 || echo 1)" \
        "with none installed, a copy names $inst and exits 127, running no metasched-full beside it or on PATH (rc $rc: $msg)"
fi
exit $tap_failed
