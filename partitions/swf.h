/* swf.h - reader for the Standard Workload Format (Parallel Workloads
 * Archive, version 2.2): one job per line, 18 whitespace-separated fields,
 * -1 for unknown, header comments starting with ';'.
 *
 * The reader accepts CRLF line endings, blank lines, -1 fields and lines
 * with fewer than 18 fields (the missing ones read as -1). A line that is
 * not numbers, has more than 18 fields or lacks the job number and submit
 * time is malformed: an error "file:line: ..." or, with SWF_SKIP_MALFORMED,
 * skipped and counted in swf_trace_t.skipped.
 */
#ifndef MS_SWF_H
#define MS_SWF_H

#include <stddef.h>
#include <stdint.h>

#include "metasched/common/error.h"

#define SWF_NFIELDS 18
#define SWF_SKIP_MALFORMED 0x1

/* One job; fields are the SWF fields in order, -1 where unknown. */
typedef struct {
    int64_t id;        /* 1 job number */
    double submit;     /* 2 submit time, s */
    double wait;       /* 3 wait time, s */
    double runtime;    /* 4 run time, s */
    int64_t procs;     /* 5 allocated processors */
    double cpu_avg;    /* 6 average CPU time used */
    double mem_used;   /* 7 used memory, KB */
    int64_t procs_req; /* 8 requested processors */
    double time_req;   /* 9 requested time, s */
    double mem_req;    /* 10 requested memory */
    int status;        /* 11 */
    int64_t user;      /* 12 */
    int64_t group;     /* 13 */
    int64_t exe;       /* 14 executable (application) number */
    int64_t queue;     /* 15 */
    int64_t partition; /* 16 */
    int64_t prev_job;  /* 17 preceding job */
    double think;      /* 18 think time from preceding job */
    int line;          /* line in the file */
} swf_job_t;

typedef struct {
    char name[256]; /* file name, for messages */
    swf_job_t *jobs;
    size_t njobs;
    size_t skipped;     /* malformed lines skipped (SWF_SKIP_MALFORMED) */
    int64_t max_procs;  /* header MaxProcs, -1 if absent */
    int64_t max_nodes;  /* header MaxNodes, -1 if absent */
    int64_t unix_start; /* header UnixStartTime, -1 if absent */
} swf_trace_t;

/* Parse SWF text (not necessarily NUL-terminated); name is used in
 * messages. */
int swf_parse (const char *text, size_t len, const char *name, int flags,
               swf_trace_t **tracep, ms_error_t *errp);
/* Read a trace file; a name ending in ".gz" is decompressed in-process
 * (zlib), by a thread of its own while the calling thread parses the
 * text, and refused if it is not gzip data. */
int swf_load (const char *path, int flags, swf_trace_t **tracep,
              ms_error_t *errp);
void swf_free (swf_trace_t *t);

#endif /* MS_SWF_H */
