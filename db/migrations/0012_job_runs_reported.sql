-- 0012_job_runs_reported.sql - what the job's own side reported, kept apart
-- from what root measured (doc/collectors.md "Who says what").
--
-- A job_runs row is built by the root epilog. Its runtime, start and end
-- are root's own measurement (the prolog's and the epilog's clocks, else
-- Slurm's record), its nodes, frequency request and exclusivity Slurm's
-- record. The counter file that the job's wrapper writes is the user's: it
-- can say anything. What the row takes from it is named here, and the
-- wrapper's own figure of the runtime is kept beside root's, never in its
-- place.
ALTER TABLE job_runs ADD COLUMN reported_runtime_s double precision
    CHECK (reported_runtime_s >= 0 AND reported_runtime_s < 1e9);
-- The columns of the row whose value came from the user's counter file:
--   app          the application's name (the wrapper's --app)
--   counters     cycles, instructions, mem_transactions, cpi, tpi,
--                counters, events_used, events_unavailable
--   exit_code    the command's exit status
--   freq_req_khz the frequency request (only where Slurm could not be asked)
--   energy       package and DRAM energy (also source = 'user-reported')
ALTER TABLE job_runs ADD COLUMN user_reported text[] NOT NULL DEFAULT '{}'
    CHECK (user_reported <@ ARRAY['app', 'counters', 'exit_code',
                                  'freq_req_khz', 'energy']::text[]);
