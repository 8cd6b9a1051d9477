/* clifmt.h - what the user commands (msbatch, msqueue, mscancel) share:
 * how they show durations, energies and frequencies, and their --server
 * option. */
#ifndef MS_CLIFMT_H
#define MS_CLIFMT_H

#include <stddef.h>

#include <jansson.h>

/* Seconds as Slurm shows a time: [D-]HH:MM:SS ("-" for a NULL/negative). */
void clifmt_duration (const json_t *secs, char *out, size_t outlen);

/* Joules as J, kJ, MJ or GJ with three significant digits ("-" for NULL). */
void clifmt_energy (const json_t *joules, char *out, size_t outlen);

/* kHz as GHz with two decimals ("-" for NULL or 0). */
void clifmt_freq (const json_t *khz, char *out, size_t outlen);

/* A JSON string, an integer or "-" (null or absent). */
void clifmt_text (const json_t *v, char *out, size_t outlen);

/* If argv[*ip] is --server=ADDR or --server ADDR, store ADDR in *serverp,
 * advance *ip past it and return 1; -1 (message on stderr) if the value is
 * missing; 0 if it is not --server. */
int clifmt_server_opt (const char *prog, int argc, char **argv, int *ip,
                       const char **serverp);

#endif /* MS_CLIFMT_H */
