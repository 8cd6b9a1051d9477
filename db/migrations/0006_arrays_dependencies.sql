-- 0006_arrays_dependencies.sql - job arrays and dependencies between meta
-- jobs (doc/daemon.md "Dependencies" and "Arrays").
--
-- A job submitted with --dependency waits in state queued with held set
-- ('Dependency'): the dispatch takes only queued jobs that are not held,
-- and the cycle's dependency step releases a job (held NULL) once its
-- condition holds, or cancels it with the reason when the condition can
-- never hold. With --kill-on-invalid-dep=no such a job stays queued, held
-- 'DependencyNeverSatisfied', until the user cancels it (as Slurm keeps
-- it).
ALTER TABLE jobs ADD COLUMN held text
    CHECK (held IN ('Dependency', 'DependencyNeverSatisfied'));
-- When metasched first saw the job running (after:ID+MINUTES counts from
-- there).
ALTER TABLE jobs ADD COLUMN started_at timestamptz;
CREATE INDEX jobs_held ON jobs (id) WHERE held IS NOT NULL;
-- singleton: the user's other live jobs of the same name
CREATE INDEX jobs_owner_name ON jobs (owner_uid, name) WHERE state NOT IN
    ('completed', 'failed', 'cancelled');

-- The tasks of an array (one meta job, one Slurm array): one row per task
-- as the cluster's listing showed it last, written when it changes, so
-- that a task that ended is known after slurmctld forgets it. Tasks still
-- pending in the array's own record have no row yet.
CREATE TABLE job_tasks (
    job_id          bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    task_id         integer NOT NULL CHECK (task_id >= 0),
    cluster         ms_name NOT NULL,
    cluster_job_id  bigint NOT NULL CHECK (cluster_job_id > 0),
    state           text NOT NULL CHECK (state IN ('pending', 'running',
                        'completed', 'failed', 'cancelled', 'timeout',
                        'node_fail', 'other')),
    exit_code       integer,
    reason          text,
    started_at      timestamptz,
    ended_at        timestamptz,
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, task_id)
);
