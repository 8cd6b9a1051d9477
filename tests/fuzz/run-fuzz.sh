#!/bin/sh
# Run every fuzz target built for `make check` over its corpus
# (tests/fuzz/corpus/NAME/) plus seeded mutations. TAP output: the plan
# counts one test per target.
set -u
builddir=${MS_BUILDDIR:-.}
srcdir=${MS_SRCDIR:-.}
iters=${MS_FUZZ_ITERATIONS:-20000}
targets=$(cd "$builddir/tests/fuzz" && ls fuzz_* 2>/dev/null | grep -v '\.' )
n=$(printf '%s\n' $targets | grep -c .)
echo "1..$n"
i=0
for t in $targets; do
    i=$((i + 1))
    name=${t#fuzz_}
    corpus="$srcdir/tests/fuzz/corpus/$name"
    if out=$("$builddir/tests/fuzz/$t" "$corpus" "$iters" 2>&1); then
        echo "ok $i - fuzz target $name: corpus and $iters mutations"
    else
        echo "not ok $i - fuzz target $name crashed or a sanitizer reported"
        printf '%s\n' "$out" | tail -40 | sed 's/^/# /'
    fi
done
