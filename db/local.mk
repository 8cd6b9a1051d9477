# db/: PostgreSQL schema and access layer (see db/README).
EXTRA_DIST += db/README
