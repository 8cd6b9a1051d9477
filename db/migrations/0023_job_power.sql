-- 0023_job_power.sql - the measured power of running jobs (doc/daemon.md
-- "Measured power", doc/collectors.md "Power of running jobs").
--
-- While a job runs, each of its nodes' RAPL sampler (metasched-collect's
-- prolog) reports the mean package and DRAM power of the node over its
-- last sample_s seconds. A row per (cluster, job, node) keeps the latest
-- report only: the table holds the running jobs, not their history.
-- metaschedd sums, per cluster, the latest row of each job its clusters
-- list as running, and removes rows not reported for a day.
CREATE TABLE job_power (
    cluster      ms_name NOT NULL REFERENCES clusters (name) ON DELETE CASCADE,
    slurm_job_id bigint NOT NULL CHECK (slurm_job_id > 0),
    node         text NOT NULL CHECK (length (node) BETWEEN 1 AND 64),
    watts        double precision NOT NULL
                 CHECK (watts >= 0 AND watts < 1e6),
    at           timestamptz NOT NULL,   -- the node's clock at the reading
    reported_at  timestamptz NOT NULL DEFAULT now (),
    PRIMARY KEY (cluster, slurm_job_id, node)
);
CREATE INDEX job_power_reported ON job_power (reported_at);

-- The collectors' one way in: their role may neither read nor change the
-- table, only report through this function, which runs with its owner's
-- rights. A report older than the one stored (a node's late send) is
-- ignored.
CREATE FUNCTION job_power_report (p_cluster text, p_job bigint, p_node text,
                                  p_watts double precision,
                                  p_at double precision)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM clusters WHERE name = p_cluster) THEN
        RAISE EXCEPTION 'power of job % on unknown cluster %',
            p_job, p_cluster USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF NOT (p_at >= 0 AND p_at < 1e11) THEN
        RAISE EXCEPTION 'power of job %/% on node %: % is not a time',
            p_cluster, p_job, p_node, p_at USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO job_power AS s (cluster, slurm_job_id, node, watts, at)
    VALUES (p_cluster, p_job, p_node, p_watts, to_timestamp (p_at))
    ON CONFLICT (cluster, slurm_job_id, node) DO UPDATE SET
        watts = EXCLUDED.watts, at = EXCLUDED.at, reported_at = now ()
        WHERE s.at < EXCLUDED.at;
END $$;
REVOKE EXECUTE ON FUNCTION job_power_report (text, bigint, text,
                                             double precision,
                                             double precision)
    FROM PUBLIC;

ALTER FUNCTION ms_apply_grants () RENAME TO ms_apply_grants_before_0023;
CREATE FUNCTION ms_apply_grants () RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    missing := ms_apply_grants_before_0023 ();
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_collector') THEN
        GRANT EXECUTE ON FUNCTION job_power_report (text, bigint, text,
            double precision, double precision) TO ms_collector;
    END IF;
    RETURN missing;
END $$;
REVOKE EXECUTE ON FUNCTION ms_apply_grants () FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION ms_apply_grants_before_0023 () FROM PUBLIC;
