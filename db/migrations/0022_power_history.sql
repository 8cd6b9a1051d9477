-- 0022_power_history.sql - power over time (doc/daemon.md "Power over
-- time", doc/admin-guide.md "Power over time and measured power").
--
-- At each refresh (at most once per power_history_s) the leading
-- metaschedd writes one row per cluster and one for the whole site
-- (scope 'site'): the budget in force (NULL: none), the predicted draw of
-- what runs, is queued on the clusters and idles (what the power budgets
-- hold jobs by), and the measured power of the running jobs that have a
-- sample (NULL: none has). Rows older than power_history_days are removed
-- by the daemon.
CREATE TABLE power_history (
    at          timestamptz NOT NULL,
    scope       text NOT NULL CHECK (length (scope) BETWEEN 1 AND 64),
    budget_w    double precision CHECK (budget_w >= 0),
    predicted_w double precision NOT NULL CHECK (predicted_w >= 0),
    measured_w  double precision CHECK (measured_w >= 0),
    PRIMARY KEY (scope, at)
);
CREATE INDEX power_history_at ON power_history (at);
-- `metasched report --power` reads it as the report role (the admins'
-- reading role, as for --ab: ms_apply_grants gives it every table); the
-- collectors' role has no right on it.
