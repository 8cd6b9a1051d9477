/* superdb.h - statements as the test bed's PostgreSQL superuser
 * ($MS_PG_SUPER_CONNINFO): the scratch databases of the C tests. */
#ifndef MS_TESTS_SUPERDB_H
#define MS_TESTS_SUPERDB_H

#include <stddef.h>

/* Run sql as the superuser, its notices dropped. 0, or -1 with the
 * statement and PostgreSQL's message in why. */
int superdb_exec (const char *sql, char *why, size_t whylen);

#endif
