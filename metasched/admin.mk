# metasched/admin.mk: see the comment at its top once written.
