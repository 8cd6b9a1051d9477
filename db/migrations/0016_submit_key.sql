-- 0016: a submission's idempotency key. A client sends a random key with
-- each submission and sends it again when it retries (an answer lost, a
-- 503 while the database fails over); the API itself keys the ones that
-- come without. One user's key names one job: the unique index makes a
-- second INSERT of the same submission a no-op that finds the first
-- (db/jobs.c db_jobs_insert), so a retry whose first COMMIT's outcome
-- was unknown never makes two jobs.
ALTER TABLE jobs ADD COLUMN submit_key text
    CHECK (submit_key ~ '^[A-Za-z0-9_-]{16,64}$');
CREATE UNIQUE INDEX jobs_owner_submit_key ON jobs (owner_uid, submit_key)
    WHERE submit_key IS NOT NULL;
