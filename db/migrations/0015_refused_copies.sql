-- 0015_refused_copies.sql - refused dispatches in a row, and which
-- dispatch a copy belongs to (doc/daemon.md, "Refused copies").
--
-- jobs.refusals: the job's dispatches refused in a row (every copy refused
-- at submission, held pending for good, or refused by the start gate).
-- A copy that starts, or a re-route, sets it back to 0; at MAX_REFUSED
-- (5) the job is cancelled with the last refusal as its reason. Until now
-- the limit was taken from jobs.attempts, every dispatch the job ever had.
ALTER TABLE jobs ADD COLUMN refusals integer NOT NULL DEFAULT 0
    CHECK (refusals >= 0);

-- job_submissions.attempt: the job's dispatch (jobs.attempts when the copy
-- was sent), so that the copies of the dispatch under way are told from
-- those of an earlier one; 0 for rows recorded before this migration.
ALTER TABLE job_submissions ADD COLUMN attempt integer NOT NULL DEFAULT 0
    CHECK (attempt >= 0);

-- job_submissions.gated: the copy went out through the start gate (sibling
-- mode: only the copy that claims the job runs its script), so that a copy
-- that ended without a claim is known never to have run it, whatever the
-- dispatch mode is now.
ALTER TABLE job_submissions ADD COLUMN gated boolean NOT NULL DEFAULT false;

-- 'refused': the copy started on its cluster and its start gate refused to
-- run the script (exit 75, no claim): that copy's end, not the job's.
-- The states of 0014 stay ('unknown': its cluster forgot it).
ALTER TABLE job_submissions DROP CONSTRAINT IF EXISTS
    job_submissions_state_check;
ALTER TABLE job_submissions ADD CONSTRAINT job_submissions_state_check
    CHECK (state IN ('submitted', 'running', 'ended', 'cancelled', 'lost',
                     'unknown', 'refused'));
