/* slurmrest_int.h - private to the slurmrestd backend's protocol files
 * (slurmrest_proto.c, slurmrest_parse.c, slurmrest_build.c): the flags of
 * what differs between OpenAPI versions and the version table's entry.
 * The public interface is slurmrest.h. */
#ifndef MS_SLURMREST_INT_H
#define MS_SLURMREST_INT_H

/* The components of a heterogeneous job slurmrestd takes
 * (MAX_HET_JOB_COMPONENTS) */
#define SLURMREST_MAX_HET 128

/* What differs between versions. Readers accept every shape anyway; the
 * flags choose what requests are written in and where fields are read. */
enum {
    V_NOVAL = 1 << 0,      /* numbers written {set, infinite, number} */
    V_ENV_LIST = 1 << 1,   /* environment ["K=V", ...], not {"K": "V"} */
    V_JOB_SCRIPT = 1 << 2, /* the script in job.script, not beside job */
    V_BEGIN_EPOCH = 1 << 3, /* begin_time a Unix time, not sbatch's text */
    V_BEGIN_NOVAL = 1 << 4, /* ... and as {set, number} */
    V_SHARED = 1 << 5,     /* --exclusive as shared ["none"] */
    V_PART_NESTED = 1 << 6, /* nodes/total, maximums/time, partition/state */
    V_NODE_NUMBERS = 1 << 7, /* minimum_nodes/maximum_nodes, not nodes */
    V_JOBS_STATE = 1 << 8, /* GET /jobs/state exists */
    V_UPDATE_UTS = 1 << 9, /* ?update_time=uts<seconds> (the query's
                            * timestamp is parsed as sbatch's time text) */
    V_NO_UPDATE_TIME = 1 << 10, /* no ?update_time (v0.0.39 dumps a list
                                 * it does not have when nothing changed) */
    V_DRAFT = 1 << 11, /* 23.02's v0.0.39: its slurmrestd exits (a fatal
                        * error: its parser has no reader for a nice) on a
                        * job description with a nice, and refuses a job
                        * update without an environment, which it then
                        * ignores. Negotiation takes an older version the
                        * server serves too; a nice is refused. */
};

struct slurmrest_api {
    const char *name;   /* "v0.0.42" */
    const char *slurm;  /* the Slurm releases that serve it */
    unsigned flags;
};

#endif
