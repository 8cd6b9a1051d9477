/* commands.h - the subcommands of the metasched program. Each takes the
 * arguments after its name (argv[0] is the subcommand) and returns the
 * program's exit status. */
#ifndef MS_COMMANDS_H
#define MS_COMMANDS_H

int cmd_clusters (int argc, char **argv);
int cmd_model (int argc, char **argv);
int cmd_simulate (int argc, char **argv);
int cmd_db (int argc, char **argv);
int cmd_collect (int argc, char **argv);
int cmd_config (int argc, char **argv);
int cmd_report (int argc, char **argv);
int cmd_job (int argc, char **argv);

/* The program's command line as given (main.c): what `metasched` runs
 * metasched-full with, for the commands only metasched-full has
 * (fullexec.c). */
extern char **ms_cmdline;

/* Default location of the cluster configuration. */
#define MS_DEFAULT_CLUSTERS_CONF MS_SYSCONFDIR "/metasched/clusters.conf"

#endif
