/* simopts.h - the options of `metasched simulate` (doc/metasched-simulate.1):
 * the program's own and the policy settings of core/settings_table.c. */
#ifndef MS_SIMOPTS_H
#define MS_SIMOPTS_H

#include <stdbool.h>

#include "metasched/admin/siminput.h"
#include "metasched/core/policy.h"

/* Parse argv into o. -1: run; else the exit status (0 after --help, 2 on
 * a bad option, told on stderr with the flag, setting and value). */
int simopts_parse (int argc, char **argv, opts_t *o);

/* The policy settings given as options onto pol, where each applies to
 * pol's kind; a sweep's row keeps its own w_energy. */
void simopts_policy (const opts_t *o, ms_policy_t *pol, bool sweep);

/* A finite number, all of s; -1 otherwise. */
int simopts_double (const char *s, double *out);

#endif /* MS_SIMOPTS_H */
