/* collect_main.c - main() of the metasched-collect program
 * (doc/metasched-collect.1). `metasched-collect --metasched db|collect ...`
 * runs the admin subcommands of those names (cmd_db.c, cmd_collect.c), so
 * a node that has only the collector can still migrate and flush; every
 * other command line is the collector's own (collect_program, in
 * collectors/). The entry point stands here, above both, so the collectors
 * never call up into the admin commands. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "collectors/collect.h"
#include "metasched/admin/commands.h"

int
main (int argc, char **argv)
{
    if (argc > 2 && !strcmp (argv[1], "--metasched")) {
        if (!strcmp (argv[2], "db"))
            return cmd_db (argc - 2, argv + 2);
        if (!strcmp (argv[2], "collect"))
            return cmd_collect (argc - 2, argv + 2);
        fprintf (stderr, "metasched-collect: --metasched db|collect\n");
        return 2;
    }
    return collect_program (argc, argv);
}
