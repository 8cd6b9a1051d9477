-- 0024_job_runs_het.sql - the heterogeneous job a measured run belongs to
-- (doc/database.md "job_runs", doc/collectors.md).
--
-- Slurm runs each component of a heterogeneous job as a job of its own id
-- (the first component's id plus its offset); the epilog records, from
-- Slurm's record of the job, which job a component belongs to. A replay
-- (`metasched simulate --from-db`) then takes the components together as
-- the one job that the user submitted. NULL: not a component.
ALTER TABLE job_runs
    ADD COLUMN het_job_id bigint CHECK (het_job_id > 0),
    ADD COLUMN het_job_offset integer
        CHECK (het_job_offset BETWEEN 0 AND 127),
    ADD CHECK ((het_job_id IS NULL) = (het_job_offset IS NULL));

-- The totals of a cluster job, with its hetjob's id and offset last.
CREATE OR REPLACE VIEW job_run_totals AS
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
       min (source) AS source,
       max (het_job_id) AS het_job_id,
       max (het_job_offset) AS het_job_offset
  FROM job_runs
 GROUP BY cluster, slurm_job_id, partition, app, user_name;
