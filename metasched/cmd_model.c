/* cmd_model.c - placeholder: replaced by the predictor's admin command. */
#include "config.h"
#include <stdio.h>
#include "metasched/commands.h"
int
cmd_model (int argc, char **argv)
{
    fprintf (stderr, "metasched model: not part of this build yet\n");
    return 1;
}
