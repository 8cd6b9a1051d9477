#!/bin/sh
# snakemake --cluster-status for metasched: the state of meta job $1 (what
# msbatch --parsable printed) as Snakemake wants it: running, success or
# failed (doc/workflows.md).
out=$(msqueue --noheader --jobs="$1" --format=%T 2>&1)
case $? in
0) ;;
*)
    case $out in
    *"no such job"*) echo failed ;;
    *) echo running ;; # metaschedd not reachable now: ask again later
    esac
    exit 0
    ;;
esac
case $out in
COMPLETED) echo success ;;
PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED) echo running ;;
*) echo failed ;;
esac
