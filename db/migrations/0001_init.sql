-- 0001_init.sql - metasched's first schema (DESIGN.md 8).
--
-- Applied by `metasched db migrate` as the daemon's role (ms_daemon), which
-- owns the database and therefore every object created here. Each migration
-- runs inside the migrator's transaction; never edit one that has shipped:
-- add the next number instead.

-- Names of clusters, partitions and apps appear in file names, Slurm
-- options and messages: keep them to a safe alphabet.
CREATE DOMAIN ms_name AS text
    CHECK (VALUE ~ '^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$');

CREATE TABLE clusters (
    name        ms_name PRIMARY KEY,
    backend     text NOT NULL DEFAULT 'slurmrest'
                CHECK (backend IN ('slurmrest', 'simulated')),
    url         text,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE partitions (
    cluster        ms_name NOT NULL REFERENCES clusters (name)
                   ON UPDATE CASCADE ON DELETE RESTRICT,
    name           ms_name NOT NULL,
    architecture   ms_name NOT NULL,
    nodes          integer NOT NULL CHECK (nodes > 0),
    cores_per_node integer NOT NULL CHECK (cores_per_node > 0),
    -- DVFS frequencies the partition offers, kHz, ascending
    freqs_khz      integer[] NOT NULL
                   CHECK (cardinality (freqs_khz) BETWEEN 1 AND 64
                          AND array_position (freqs_khz, NULL) IS NULL
                          AND 0 < ALL (freqs_khz)),
    nominal_khz    integer NOT NULL CHECK (nominal_khz = ANY (freqs_khz)),
    idle_power_w   double precision NOT NULL
                   CHECK (idle_power_w >= 0 AND idle_power_w < 1e6),
    power_cap_w    double precision CHECK (power_cap_w > 0),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster, name)
);

CREATE TABLE apps (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE
                CHECK (length (name) BETWEEN 1 AND 128
                       AND name !~ '[[:cntrl:]]'),
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- One measured run of a job on one node. A job on n nodes has up to n rows
-- (one per node's epilog, each with that node's RAPL energy); the wrapper's
-- counters ride on the row of the node that ran the batch step.
CREATE TABLE job_runs (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    cluster            ms_name NOT NULL,
    partition          ms_name NOT NULL,
    slurm_job_id       bigint NOT NULL CHECK (slurm_job_id > 0),
    node               ms_name NOT NULL,
    app                text NOT NULL REFERENCES apps (name) ON UPDATE CASCADE,
    user_name          text NOT NULL CHECK (length (user_name) BETWEEN 1 AND 64),
    uid                integer CHECK (uid >= 0),
    nodes              integer NOT NULL CHECK (nodes BETWEEN 1 AND 100000),
    freq_req_khz       integer CHECK (freq_req_khz > 0),  -- NULL: default
    freq_obs_khz       integer CHECK (freq_obs_khz > 0),  -- NULL: unreadable
    start_time         timestamptz NOT NULL,
    end_time           timestamptz NOT NULL,
    runtime_s          double precision NOT NULL
                       CHECK (runtime_s >= 0 AND runtime_s < 1e9),
    pkg_energy_j       double precision CHECK (pkg_energy_j >= 0),
    dram_energy_j      double precision CHECK (dram_energy_j >= 0),
    avg_power_w        double precision CHECK (avg_power_w >= 0),
    cycles             bigint CHECK (cycles >= 0),
    instructions       bigint CHECK (instructions >= 0),
    mem_transactions   bigint CHECK (mem_transactions >= 0),
    cpi                double precision CHECK (cpi > 0),
    tpi                double precision CHECK (tpi >= 0),
    counters           jsonb NOT NULL DEFAULT '{}'
                       CHECK (jsonb_typeof (counters) = 'object'),
    events_used        text[] NOT NULL DEFAULT '{}',
    events_unavailable text[] NOT NULL DEFAULT '{}',
    exit_code          integer,
    exclusive          boolean,        -- the job had the node to itself
    source             text NOT NULL
                       CHECK (source IN ('root-measured', 'user-reported')),
    collector_version  text NOT NULL CHECK (length (collector_version) <= 64),
    inserted_at        timestamptz NOT NULL DEFAULT now(),
    CHECK (end_time >= start_time),
    FOREIGN KEY (cluster, partition) REFERENCES partitions (cluster, name)
        ON UPDATE CASCADE,
    -- a spooled row sent twice is the same row: exactly once
    UNIQUE (cluster, slurm_job_id, node, source)
);
CREATE INDEX job_runs_app ON job_runs (app, cluster, partition, freq_req_khz);
CREATE INDEX job_runs_end ON job_runs (end_time);

-- job_runs rows come from collectors that may not read anything: this
-- trigger (run with its owner's rights) checks what a CHECK cannot see and
-- registers the app.
CREATE FUNCTION job_runs_check () RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
    offered integer[];
BEGIN
    SELECT freqs_khz INTO offered FROM partitions
     WHERE cluster = NEW.cluster AND name = NEW.partition;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown partition %/%', NEW.cluster, NEW.partition
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF NEW.freq_req_khz IS NOT NULL AND NOT (NEW.freq_req_khz = ANY (offered)) THEN
        RAISE EXCEPTION 'frequency % kHz is not offered by partition %/%',
            NEW.freq_req_khz, NEW.cluster, NEW.partition
            USING ERRCODE = 'check_violation';
    END IF;
    INSERT INTO apps (name) VALUES (NEW.app) ON CONFLICT DO NOTHING;
    RETURN NEW;
END $$;
CREATE TRIGGER job_runs_check BEFORE INSERT OR UPDATE ON job_runs
    FOR EACH ROW EXECUTE FUNCTION job_runs_check ();

-- The meta queue. A job's life (DESIGN.md 3, 9):
--   queued -> deciding -> dispatching -> submitted -> running -> completed
-- with failed/cancelled from any live state, `lost` for a submission the
-- clusters do not know after a restart, and back to queued for a re-route.
CREATE TYPE job_state AS ENUM (
    'queued', 'deciding', 'dispatching', 'submitted', 'running',
    'completed', 'failed', 'cancelled', 'lost');

CREATE TABLE jobs (
    id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_uid          integer NOT NULL CHECK (owner_uid >= 0),
    owner_gid          integer NOT NULL CHECK (owner_gid >= 0),
    owner_name         text NOT NULL CHECK (length (owner_name) BETWEEN 1 AND 64),
    name               text CHECK (length (name) <= 128),
    app                text CHECK (length (app) BETWEEN 1 AND 128),
    script             text NOT NULL
                       CHECK (octet_length (script) BETWEEN 1 AND 1048576),
    options            jsonb NOT NULL DEFAULT '{}'
                       CHECK (jsonb_typeof (options) = 'object'),
    state              job_state NOT NULL DEFAULT 'queued',
    cluster            ms_name,
    partition          ms_name,
    freq_khz           integer CHECK (freq_khz > 0),
    predicted_time_s   double precision CHECK (predicted_time_s >= 0),
    predicted_energy_j double precision CHECK (predicted_energy_j >= 0),
    predicted_power_w  double precision CHECK (predicted_power_w >= 0),
    predicted_wait_s   double precision CHECK (predicted_wait_s >= 0),
    cluster_job_id     bigint CHECK (cluster_job_id > 0),
    attempts           integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    last_error         text,
    submitted_at       timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (cluster, partition) REFERENCES partitions (cluster, name),
    CHECK ((cluster IS NULL) = (partition IS NULL)),
    CHECK (state NOT IN ('submitted', 'running', 'completed')
           OR cluster_job_id IS NOT NULL)
);
CREATE INDEX jobs_state ON jobs (state) WHERE state NOT IN
    ('completed', 'failed', 'cancelled', 'lost');
CREATE INDEX jobs_owner ON jobs (owner_uid);

CREATE FUNCTION jobs_transition () RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.state IS DISTINCT FROM OLD.state THEN
        IF NOT ((OLD.state, NEW.state) IN (
                ('queued', 'deciding'), ('deciding', 'queued'),
                ('deciding', 'dispatching'), ('dispatching', 'submitted'),
                ('dispatching', 'queued'), ('dispatching', 'lost'),
                ('submitted', 'running'), ('submitted', 'completed'),
                ('submitted', 'failed'), ('submitted', 'queued'),
                ('submitted', 'lost'), ('running', 'completed'),
                ('running', 'failed'), ('lost', 'queued'))
                OR (NEW.state = 'cancelled'
                    AND OLD.state NOT IN ('completed', 'failed', 'cancelled'))) THEN
            RAISE EXCEPTION 'job %: no transition from % to %',
                OLD.id, OLD.state, NEW.state USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    NEW.updated_at := now();
    IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state THEN
        PERFORM pg_notify ('metasched_jobs', NEW.id::text || ' ' || NEW.state::text);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER jobs_transition BEFORE INSERT OR UPDATE ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_transition ();

-- Every decision with all its candidates and scores, for audit.
CREATE TABLE decisions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id      bigint NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    decided_at  timestamptz NOT NULL DEFAULT now(),
    policy      text NOT NULL CHECK (length (policy) BETWEEN 1 AND 64),
    cluster     ms_name NOT NULL,
    partition   ms_name NOT NULL,
    freq_khz    integer NOT NULL CHECK (freq_khz > 0),
    score       double precision,
    candidates  jsonb NOT NULL CHECK (jsonb_typeof (candidates) = 'array'),
    FOREIGN KEY (cluster, partition) REFERENCES partitions (cluster, name)
);
CREATE INDEX decisions_job ON decisions (job_id);

-- Fitted models: coefficients, fit statistics and a version per
-- (kind, scope); the newest version of a scope is the one in use.
CREATE TABLE models (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind          text NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]{0,63}$'),
    scope         text NOT NULL CHECK (length (scope) BETWEEN 1 AND 256),
    version       integer NOT NULL CHECK (version > 0),
    coefficients  double precision[] NOT NULL
                  CHECK (cardinality (coefficients) BETWEEN 1 AND 4096),
    r2            double precision CHECK (r2 <= 1),
    residual_sd   double precision CHECK (residual_sd >= 0),
    n             integer NOT NULL CHECK (n >= 0),
    detail        jsonb NOT NULL DEFAULT '{}',
    fitted_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (kind, scope, version)
);

-- Admin settings (weights, slowdown cap, ...), one JSON value per key.
CREATE TABLE settings (
    key         text PRIMARY KEY CHECK (key ~ '^[a-z][a-z0-9_.]{0,63}$'),
    value       jsonb NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO settings (key, value) VALUES
    ('weight_energy', '0.5'),
    ('weight_time', '0.5'),
    ('max_slowdown', '0.1');
