-- 0027_job_runs_meta_app.sql - a measured run of a job that metasched
-- dispatched is stored under its meta job's app (doc/collectors.md "The
-- app", doc/database.md "job_runs").
--
-- The epilog names a run's app from the wrapper's counter file, else from
-- Slurm's record of the job (squeue or scontrol, which time out when
-- slurmctld is loaded: the run was then stored under the app 'unknown').
-- metasched's own tables know the app of every job it dispatched, whatever
-- slurmctld's load: the meta job whose Slurm job (jobs.cluster_job_id, a
-- sibling copy's job_submissions, an array task's job_tasks; a
-- heterogeneous job's component by het_job_id) the run is, within the
-- meta job's life (submitted before the run ended, not finished before it
-- started: Slurm uses a job id again once its counter wraps or its state
-- is cleared). Only facts of
-- root pick the meta job: the cluster, the Slurm job id and the job's uid
-- (slurmd's, in the epilog's environment), and the meta job must be that
-- uid's own; nothing the user can write (the counter file, the job's name
-- or comment) can point a run at another user's meta job. The app stays
-- the user's word (given at submission): 'app' stays in user_reported.
-- SECURITY DEFINER: the collector role may INSERT into job_runs and read
-- nothing; the function reads jobs for it and returns only the app.
CREATE FUNCTION job_runs_meta_app () RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    jid bigint := coalesce (NEW.het_job_id, NEW.slurm_job_id);
    a text;
BEGIN
    IF NEW.uid IS NULL OR jid IS NULL THEN
        RETURN NEW;
    END IF;
    SELECT j.app INTO a
      FROM (SELECT j.id FROM jobs j
             WHERE j.cluster = NEW.cluster AND j.cluster_job_id = jid
            UNION ALL
            SELECT s.job_id FROM job_submissions s
             WHERE s.cluster = NEW.cluster AND s.cluster_job_id = jid
            UNION ALL
            SELECT t.job_id FROM job_tasks t
             WHERE t.cluster = NEW.cluster AND t.cluster_job_id = jid) m
      JOIN jobs j ON j.id = m.id
     WHERE j.owner_uid = NEW.uid AND j.app IS NOT NULL
       -- the run within the meta job's life: a Slurm job id used again
       -- (a controller's state cleared, MaxJobId wrapped) names another
       -- job; ten minutes for the clocks of nodes and database
       AND j.submitted_at <= NEW.end_time + interval '10 minutes'
       AND (j.finished_at IS NULL
            OR j.finished_at >= NEW.start_time - interval '10 minutes')
     ORDER BY j.id DESC
     LIMIT 1;
    IF a IS NOT NULL THEN
        NEW.app := a;
        IF NOT ('app' = ANY (NEW.user_reported)) THEN
            NEW.user_reported := NEW.user_reported || 'app'::text;
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE EXECUTE ON FUNCTION job_runs_meta_app () FROM PUBLIC;

-- Named to fire before job_runs_check (BEFORE triggers run in name order),
-- which checks the row and enters its app in apps.
CREATE TRIGGER job_runs_app_meta BEFORE INSERT ON job_runs
    FOR EACH ROW EXECUTE FUNCTION job_runs_meta_app ();

-- The look-ups of each inserted run: by the Slurm job a meta job or an
-- array task ran as (job_submissions has its primary key).
CREATE INDEX jobs_cluster_job ON jobs (cluster, cluster_job_id)
    WHERE cluster_job_id IS NOT NULL;
CREATE INDEX job_tasks_cluster_job ON job_tasks (cluster, cluster_job_id);
