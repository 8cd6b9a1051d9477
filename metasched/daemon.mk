# metasched/daemon.mk: metaschedd, its API and the user commands (see doc/daemon.md).
