-- Pitwatch store, schema version 4: one writer per table, and device error storms grouped.

-- Which process records each table. A monitor (the CLI's or the desktop's) takes the lease of every
-- table it records before writing anything for it, renews `heartbeat_ms` while it runs and gives
-- the lease up when it stops; `pitwatch import` refuses a table whose lease another live process
-- holds. `holder` names the process for people; `process` identifies it for the check whether it
-- is still alive (host, pid and the process's start time, so a reused pid is not mistaken for it).
-- Not part of the record, so not chained.
CREATE TABLE table_leases (
    table_name      TEXT PRIMARY KEY,
    holder          TEXT NOT NULL,
    process         TEXT NOT NULL,
    acquired_ms     INTEGER NOT NULL,
    heartbeat_ms    INTEGER NOT NULL
);

-- Derived: an incident that stands for a group of like irregularities (a device error code raised
-- again and again, a storm of error codes), with how many were folded into it and the last one.
-- The events themselves are in the chained `events` table; the count is rebuilt from them.
CREATE TABLE incident_groups (
    incident_id     INTEGER PRIMARY KEY REFERENCES incidents (id),
    table_id        INTEGER NOT NULL REFERENCES pit_tables (id),
    group_key       TEXT NOT NULL,
    count           INTEGER NOT NULL,
    last_seq        INTEGER NOT NULL,
    last_at         TEXT NOT NULL
);
CREATE INDEX incident_groups_by_key ON incident_groups (table_id, group_key, incident_id);
