-- 0002_roles_accounting.sql - least privilege for the collector and report
-- roles, and the accounting that `metasched collect ingest` pulls from each
-- cluster's slurmrestd to reconcile with what the collectors measured.

-- What Slurm's accounting says about a finished job (one row per job).
CREATE TABLE job_accounting (
    cluster           ms_name NOT NULL REFERENCES clusters (name)
                      ON UPDATE CASCADE,
    slurm_job_id      bigint NOT NULL CHECK (slurm_job_id > 0),
    partition         text,
    user_name         text,
    state             text NOT NULL CHECK (length (state) BETWEEN 1 AND 32),
    start_time        timestamptz,
    end_time          timestamptz,
    exit_code         integer,
    nodes             integer CHECK (nodes >= 0),
    node_list         text,
    freq_req_khz      integer CHECK (freq_req_khz > 0),
    consumed_energy_j double precision CHECK (consumed_energy_j >= 0),
    comment           text,
    ingested_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster, slurm_job_id),
    CHECK (end_time IS NULL OR start_time IS NULL OR end_time >= start_time)
);

-- A job as the collectors saw it: node rows summed (DESIGN.md 8). Energy
-- is exact only where the job had its nodes to itself (doc/collectors.md).
CREATE VIEW job_run_totals AS
SELECT cluster, slurm_job_id, partition, app, user_name,
       max (nodes) AS nodes, max (freq_req_khz) AS freq_req_khz,
       min (start_time) AS start_time, max (end_time) AS end_time,
       max (runtime_s) AS runtime_s,
       sum (pkg_energy_j) AS pkg_energy_j,
       sum (dram_energy_j) AS dram_energy_j,
       sum (coalesce (pkg_energy_j, 0) + coalesce (dram_energy_j, 0))
           / nullif (max (runtime_s), 0) AS avg_power_w,
       max (cpi) AS cpi, max (tpi) AS tpi,
       count (*) AS node_rows,
       bool_and (coalesce (exclusive, false)) AS exclusive,
       min (source) AS source
  FROM job_runs
 GROUP BY cluster, slurm_job_id, partition, app, user_name;

-- Reconciliation: every accounted job with what was measured of it.
CREATE VIEW job_reconciliation AS
SELECT a.cluster, a.slurm_job_id, a.state, a.exit_code,
       a.start_time AS acct_start, a.end_time AS acct_end,
       extract (epoch FROM a.end_time - a.start_time) AS acct_runtime_s,
       a.consumed_energy_j,
       t.runtime_s AS measured_runtime_s,
       coalesce (t.pkg_energy_j, 0) + coalesce (t.dram_energy_j, 0)
           AS measured_energy_j,
       t.node_rows, a.nodes AS acct_nodes,
       CASE WHEN t.slurm_job_id IS NULL THEN 'missing'
            WHEN t.node_rows < a.nodes THEN 'partial'
            ELSE 'complete' END AS measured
  FROM job_accounting a
  LEFT JOIN job_run_totals t
    ON t.cluster = a.cluster AND t.slurm_job_id = a.slurm_job_id;

-- Grants, re-applied by every `metasched db migrate` (roles may be created
-- after the schema). The daemon's role owns everything and needs no grant.
-- ms_collector: INSERT on job_runs, nothing else (not even SELECT: it cannot
-- read jobs, settings or other users' runs). ms_report: SELECT only.
CREATE FUNCTION ms_apply_grants () RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    missing text := '';
BEGIN
    EXECUTE format ('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database ());
    REVOKE ALL ON SCHEMA public FROM PUBLIC;
    REVOKE ALL ON ALL TABLES IN SCHEMA public FROM PUBLIC;
    REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM PUBLIC;
    REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_collector') THEN
        EXECUTE format ('GRANT CONNECT ON DATABASE %I TO ms_collector',
                        current_database ());
        GRANT USAGE ON SCHEMA public TO ms_collector;
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ms_collector;
        GRANT INSERT ON job_runs TO ms_collector;
    ELSE
        missing := missing || ' ms_collector';
    END IF;
    IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ms_report') THEN
        EXECUTE format ('GRANT CONNECT ON DATABASE %I TO ms_report',
                        current_database ());
        GRANT USAGE ON SCHEMA public TO ms_report;
        REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ms_report;
        GRANT SELECT ON ALL TABLES IN SCHEMA public TO ms_report;
    ELSE
        missing := missing || ' ms_report';
    END IF;
    RETURN nullif (ltrim (missing), '');
END $$;
REVOKE EXECUTE ON FUNCTION ms_apply_grants () FROM PUBLIC;
