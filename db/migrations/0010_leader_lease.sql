-- 0010_leader_lease.sql - leadership that only the daemon's role can hold
-- (doc/daemon.md "Leadership").
--
-- Until now the leader held a PostgreSQL advisory lock. Any role that may
-- connect can take an advisory lock of any key (pg_try_advisory_lock needs
-- no privilege), so ms_collector, whose password is on every node, or
-- ms_report could take it first and hold it, and then no daemon led.
--
-- Leadership is now this one row: a lease that names its holder and ends
-- at expires_at unless the holder renews it. Only the table's owner,
-- ms_daemon, may UPDATE it; no other role is granted UPDATE, DELETE,
-- TRUNCATE or INSERT, and a row lock (SELECT ... FOR UPDATE / FOR SHARE)
-- or a LOCK TABLE that could make the daemon's UPDATE wait needs one of
-- those. ms_report keeps SELECT (who leads is no secret); the share lock
-- that SELECT allows conflicts with no UPDATE.
--
-- metaschedd renews the lease from a thread of its own every
-- leader_takeover_s / 8 and takes it when it has expired; expires_at is
-- set from the server's clock only, so the hosts' clocks never meet.
CREATE TABLE leader_lease (
    id          smallint PRIMARY KEY CHECK (id = 1),
    -- host:pid:nonce of the instance that holds (or held) the lease
    holder      text NOT NULL CHECK (length (holder) <= 200),
    acquired_at timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
INSERT INTO leader_lease VALUES (1, '', now (), now (), '-infinity');
