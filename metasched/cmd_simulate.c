/* cmd_simulate.c - placeholder: replaced by the simulator driver. */
#include "config.h"
#include <stdio.h>
#include "metasched/commands.h"
int
cmd_simulate (int argc, char **argv)
{
    fprintf (stderr, "metasched simulate: not part of this build yet\n");
    return 1;
}
