# metasched/api.mk: see the comment at its top once written.
