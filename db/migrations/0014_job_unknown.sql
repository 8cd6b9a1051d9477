-- 0014: the state `unknown`. A job whose cluster job is gone from its
-- controller's list (it ended more than the cluster's MinJobAge ago, while
-- the daemon or the database was down) on a cluster that keeps no
-- accounting: how it ended cannot be known. It is neither failed nor lost:
-- its dependents wait, and an administrator resolves it (`metasched job
-- resolve`, POST /v1/admin/jobs/ID/resolve) to completed, failed or
-- cancelled. A submission of such a job is `unknown` too.
ALTER TYPE job_state ADD VALUE IF NOT EXISTS 'unknown' AFTER 'lost';

ALTER TABLE job_submissions DROP CONSTRAINT job_submissions_state_check;
ALTER TABLE job_submissions ADD CONSTRAINT job_submissions_state_check
    CHECK (state IN ('submitted', 'running', 'ended', 'cancelled', 'lost',
                     'unknown'));

-- Who resolved an unknown job (metasched job resolve). A job whose dispatch
-- was interrupted can be unknown without a cluster job id (nothing listed
-- it): once resolved it may be completed without one.
ALTER TABLE jobs ADD COLUMN resolved_by text
    CHECK (length (resolved_by) BETWEEN 1 AND 64);
ALTER TABLE jobs DROP CONSTRAINT jobs_check1;
ALTER TABLE jobs ADD CONSTRAINT jobs_has_cluster_job
    CHECK (state NOT IN ('submitted', 'running', 'completed')
           OR cluster_job_id IS NOT NULL OR resolved_by IS NOT NULL);

-- 0005's transitions, and: dispatching, submitted or running -> unknown;
-- unknown -> completed or failed (resolved; cancelled as from any live
-- state). The new value is compared as text: it cannot be used as a
-- job_state in the transaction that adds it.
CREATE OR REPLACE FUNCTION jobs_transition () RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.state IS DISTINCT FROM OLD.state THEN
        IF NOT ((OLD.state::text, NEW.state::text) IN (
                ('queued', 'deciding'), ('queued', 'dispatching'),
                ('deciding', 'queued'),
                ('deciding', 'dispatching'), ('dispatching', 'submitted'),
                ('dispatching', 'queued'), ('dispatching', 'lost'),
                ('submitted', 'running'), ('submitted', 'completed'),
                ('submitted', 'failed'), ('submitted', 'queued'),
                ('submitted', 'lost'), ('running', 'completed'),
                ('running', 'failed'), ('lost', 'queued'),
                ('dispatching', 'unknown'), ('submitted', 'unknown'),
                ('running', 'unknown'), ('unknown', 'completed'),
                ('unknown', 'failed'))
                OR (NEW.state::text = 'cancelled'
                    AND OLD.state::text NOT IN ('completed', 'failed',
                                                'cancelled'))) THEN
            RAISE EXCEPTION 'job %: no transition from % to %',
                OLD.id, OLD.state, NEW.state USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    IF (TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state)
       AND NEW.state::text IN ('queued', 'cancelled') THEN
        PERFORM pg_notify ('metasched_jobs', NEW.id::text || ' ' || NEW.state::text);
    END IF;
    RETURN NEW;
END $$;

-- Each resolution of an unknown job by an administrator, for audit: who,
-- when, to what, why, and what the job's row said before.
CREATE TABLE job_resolutions (
    job_id      bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    state       text NOT NULL
                CHECK (state IN ('completed', 'failed', 'cancelled')),
    exit_code   integer CHECK (exit_code BETWEEN 0 AND 255),
    admin       text NOT NULL CHECK (length (admin) BETWEEN 1 AND 64),
    reason      text CHECK (length (reason) <= 1024),
    was         text,
    resolved_at timestamptz NOT NULL DEFAULT now ()
);
CREATE INDEX job_resolutions_job ON job_resolutions (job_id);
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_report') THEN
        GRANT SELECT ON job_resolutions TO ms_report;
    END IF;
END
$$;
