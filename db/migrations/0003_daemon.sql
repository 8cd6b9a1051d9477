-- 0003_daemon.sql - what metaschedd and its API keep beyond 0001's queue:
-- the dispatched time limit, the start gate's claim, sibling submissions,
-- and the request ledger that makes a retried submission land once.

-- The time limit sent to the cluster (the user's, scaled by T(f)/T(nom)).
ALTER TABLE jobs ADD COLUMN time_limit_min integer CHECK (time_limit_min > 0);
ALTER TABLE jobs ADD COLUMN nodes integer NOT NULL DEFAULT 1
    CHECK (nodes BETWEEN 1 AND 100000);
-- How often the job was re-routed (cancelled on one cluster, resubmitted).
ALTER TABLE jobs ADD COLUMN reroutes integer NOT NULL DEFAULT 0
    CHECK (reroutes >= 0);
-- The start gate (sibling mode): the first sibling to claim the job runs it.
ALTER TABLE jobs ADD COLUMN claimed_cluster ms_name;
ALTER TABLE jobs ADD COLUMN claimed_job_id bigint CHECK (claimed_job_id > 0);
ALTER TABLE jobs ADD COLUMN claimed_at timestamptz;
ALTER TABLE jobs ADD CONSTRAINT jobs_claim_whole
    CHECK ((claimed_cluster IS NULL) = (claimed_job_id IS NULL));
ALTER TABLE jobs ADD COLUMN finished_at timestamptz;
ALTER TABLE jobs ADD COLUMN exit_code integer;

-- Every submission of a meta job to a cluster: one row in single mode, k in
-- sibling mode, one more per re-route. The comment tag metasched:<job_id>
-- on the cluster side finds them again after a crash.
CREATE TABLE job_submissions (
    job_id          bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    cluster         ms_name NOT NULL,
    partition       ms_name NOT NULL,
    freq_khz        integer CHECK (freq_khz > 0),
    cluster_job_id  bigint NOT NULL CHECK (cluster_job_id > 0),
    rank            integer NOT NULL DEFAULT 0 CHECK (rank >= 0),
    state           text NOT NULL DEFAULT 'submitted'
                    CHECK (state IN ('submitted', 'running', 'ended',
                                     'cancelled', 'lost')),
    submitted_at    timestamptz NOT NULL DEFAULT now(),
    ended_at        timestamptz,
    PRIMARY KEY (cluster, cluster_job_id),
    FOREIGN KEY (cluster, partition) REFERENCES partitions (cluster, name)
);
CREATE INDEX job_submissions_job ON job_submissions (job_id);
CREATE INDEX jobs_claim ON jobs (claimed_cluster, claimed_job_id);

-- Settings are validated by the program (doc/api.md); the database keeps
-- who changed them last.
ALTER TABLE settings ADD COLUMN updated_by text;
