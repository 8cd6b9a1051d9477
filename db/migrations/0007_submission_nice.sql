-- 0007_submission_nice.sql - the nice metasched gave each copy of a job
-- (doc/daemon.md "Siblings and the start gate").
--
-- In sibling mode each copy goes out with the nice of the policy's
-- decision (added to the user's own --nice): a first choice nearly tied
-- with the job's next partition waits behind the jobs that prefer that
-- partition more. The daemon takes metasched's part back off a first
-- choice still pending after its aging time, and sets the row's nice to 0
-- then, so that it does so once, whichever daemon leads. Copies found on a
-- cluster by their tag (reconciliation) have no recorded part: 0.
ALTER TABLE job_submissions ADD COLUMN nice integer NOT NULL DEFAULT 0
    CHECK (nice >= 0);
