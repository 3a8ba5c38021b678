-- index audit_log_by_subject
CREATE INDEX audit_log_by_subject ON audit_log (subject, action, id);

-- index frames_by_session
CREATE INDEX frames_by_session ON frames (session_id, id);

-- index incident_changes_by_incident
CREATE INDEX incident_changes_by_incident ON incident_changes (incident_id, id);

-- index incident_groups_by_key
CREATE INDEX incident_groups_by_key ON incident_groups (table_id, group_key, incident_id);

-- index incident_status_by_status
CREATE INDEX incident_status_by_status ON incident_status (status, incident_id);

-- index incidents_by_code
CREATE INDEX incidents_by_code ON incidents (code, id);

-- index incidents_by_opened_at
CREATE INDEX incidents_by_opened_at ON incidents (opened_at);

-- index incidents_by_severity
CREATE INDEX incidents_by_severity ON incidents (severity, id);

-- index incidents_by_shoe
CREATE INDEX incidents_by_shoe ON incidents (table_id, shoe);

-- index incidents_by_table
CREATE INDEX incidents_by_table ON incidents (table_id, id);

-- index raw_chunks_by_session
CREATE INDEX raw_chunks_by_session ON raw_chunks (session_id, id);

-- table audit_log
CREATE TABLE audit_log (
    id          INTEGER PRIMARY KEY,
    user_name   TEXT NOT NULL,
    action      TEXT NOT NULL,
    subject     TEXT NOT NULL,
    detail      TEXT NOT NULL,
    at          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- table checkpoints
CREATE TABLE checkpoints (
    id          INTEGER PRIMARY KEY,
    at          TEXT NOT NULL,
    counts      TEXT NOT NULL,
    public_key  BLOB NOT NULL,
    signature   BLOB NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- table device_sessions
CREATE TABLE device_sessions (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    device_id   INTEGER NOT NULL REFERENCES devices (id),
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    end_reason  TEXT
);

-- table devices
CREATE TABLE devices (
    id          INTEGER PRIMARY KEY,
    protocol    TEXT NOT NULL,
    make        TEXT NOT NULL DEFAULT '',
    model       TEXT NOT NULL DEFAULT '',
    serial      TEXT NOT NULL DEFAULT '',
    firmware    TEXT NOT NULL DEFAULT '',
    -- The codec settings in force (JSON), so replay decodes exactly as live did.
    settings    TEXT NOT NULL DEFAULT '{}',
    port        TEXT NOT NULL,
    first_seen_at TEXT NOT NULL,
    UNIQUE (protocol, make, model, serial, firmware, settings, port)
);

-- table events
CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    session_id  INTEGER REFERENCES device_sessions (id),
    frame_id    INTEGER REFERENCES frames (id),
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    at_ms       INTEGER,
    body        TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL,
    UNIQUE (table_id, seq)
);

-- table facts
CREATE TABLE facts (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    at          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- table frames
CREATE TABLE frames (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES device_sessions (id),
    chunk_id        INTEGER NOT NULL REFERENCES raw_chunks (id),
    received_at_ms  INTEGER NOT NULL,
    bytes           BLOB NOT NULL,
    accepted        INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    reason          TEXT,
    prev_hash       BLOB NOT NULL,
    hash            BLOB NOT NULL
);

-- table incident_changes
CREATE TABLE incident_changes (
    id          INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents (id),
    status      TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved')),
    user_name   TEXT,
    resolution  TEXT,
    at          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- table incident_groups
CREATE TABLE incident_groups (
    incident_id     INTEGER PRIMARY KEY REFERENCES incidents (id),
    table_id        INTEGER NOT NULL REFERENCES pit_tables (id),
    group_key       TEXT NOT NULL,
    count           INTEGER NOT NULL,
    last_seq        INTEGER NOT NULL,
    last_at         TEXT NOT NULL
);

-- table incident_notes
CREATE TABLE incident_notes (
    id          INTEGER PRIMARY KEY,
    incident_id INTEGER NOT NULL REFERENCES incidents (id),
    user_name   TEXT NOT NULL,
    text        TEXT NOT NULL,
    at          TEXT NOT NULL,
    prev_hash   BLOB NOT NULL,
    hash        BLOB NOT NULL
);

-- table incident_status
CREATE TABLE incident_status (
    incident_id INTEGER PRIMARY KEY REFERENCES incidents (id),
    status      TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved'))
);

-- table incidents
CREATE TABLE incidents (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    code        TEXT NOT NULL,
    severity    TEXT NOT NULL,
    rule        TEXT NOT NULL,
    shoe        INTEGER,
    round       INTEGER,
    seq         INTEGER NOT NULL,
    evidence    TEXT NOT NULL,
    message     TEXT NOT NULL,
    opened_at   TEXT NOT NULL
, prev_hash BLOB, hash BLOB);

-- table meta
CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
);

-- table pit_tables
CREATE TABLE pit_tables (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    game        TEXT NOT NULL,
    rule_book   TEXT NOT NULL,
    created_at  TEXT NOT NULL
, book TEXT);

-- table raw_chunks
CREATE TABLE raw_chunks (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES device_sessions (id),
    received_at_ms  INTEGER NOT NULL,
    bytes           BLOB NOT NULL,
    prev_hash       BLOB NOT NULL,
    hash            BLOB NOT NULL
);

-- table rounds
CREATE TABLE rounds (
    id          INTEGER PRIMARY KEY,
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    shoe        INTEGER NOT NULL,
    round       INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    body        TEXT NOT NULL,
    UNIQUE (table_id, shoe, round)
);

-- table shoes
CREATE TABLE shoes (
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    shoe        INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    carry       TEXT NOT NULL,
    PRIMARY KEY (table_id, shoe)
);

-- table table_leases
CREATE TABLE table_leases (
    table_name      TEXT PRIMARY KEY,
    holder          TEXT NOT NULL,
    process         TEXT NOT NULL,
    acquired_ms     INTEGER NOT NULL,
    heartbeat_ms    INTEGER NOT NULL
);

-- table users
CREATE TABLE "users" (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'admin', 'inspector')),
    password_hash   TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);

-- trigger audit_log_append_only_d
CREATE TRIGGER audit_log_append_only_d BEFORE DELETE ON audit_log
BEGIN SELECT RAISE (ABORT, 'audit_log is append-only'); END;

-- trigger audit_log_append_only_u
CREATE TRIGGER audit_log_append_only_u BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE (ABORT, 'audit_log is append-only'); END;

-- trigger checkpoints_append_only_d
CREATE TRIGGER checkpoints_append_only_d BEFORE DELETE ON checkpoints
BEGIN SELECT RAISE (ABORT, 'checkpoints is append-only'); END;

-- trigger checkpoints_append_only_u
CREATE TRIGGER checkpoints_append_only_u BEFORE UPDATE ON checkpoints
BEGIN SELECT RAISE (ABORT, 'checkpoints is append-only'); END;

-- trigger events_append_only_d
CREATE TRIGGER events_append_only_d BEFORE DELETE ON events
BEGIN SELECT RAISE (ABORT, 'events is append-only'); END;

-- trigger events_append_only_u
CREATE TRIGGER events_append_only_u BEFORE UPDATE ON events
BEGIN SELECT RAISE (ABORT, 'events is append-only'); END;

-- trigger facts_append_only_d
CREATE TRIGGER facts_append_only_d BEFORE DELETE ON facts
BEGIN SELECT RAISE (ABORT, 'facts is append-only'); END;

-- trigger facts_append_only_u
CREATE TRIGGER facts_append_only_u BEFORE UPDATE ON facts
BEGIN SELECT RAISE (ABORT, 'facts is append-only'); END;

-- trigger frames_append_only_d
CREATE TRIGGER frames_append_only_d BEFORE DELETE ON frames
BEGIN SELECT RAISE (ABORT, 'frames is append-only'); END;

-- trigger frames_append_only_u
CREATE TRIGGER frames_append_only_u BEFORE UPDATE ON frames
BEGIN SELECT RAISE (ABORT, 'frames is append-only'); END;

-- trigger incident_changes_append_only_d
CREATE TRIGGER incident_changes_append_only_d BEFORE DELETE ON incident_changes
BEGIN SELECT RAISE (ABORT, 'incident_changes is append-only'); END;

-- trigger incident_changes_append_only_u
CREATE TRIGGER incident_changes_append_only_u BEFORE UPDATE ON incident_changes
BEGIN SELECT RAISE (ABORT, 'incident_changes is append-only'); END;

-- trigger incident_notes_append_only_d
CREATE TRIGGER incident_notes_append_only_d BEFORE DELETE ON incident_notes
BEGIN SELECT RAISE (ABORT, 'incident_notes is append-only'); END;

-- trigger incident_notes_append_only_u
CREATE TRIGGER incident_notes_append_only_u BEFORE UPDATE ON incident_notes
BEGIN SELECT RAISE (ABORT, 'incident_notes is append-only'); END;

-- trigger incident_status_follows_changes
CREATE TRIGGER incident_status_follows_changes AFTER INSERT ON incident_changes
BEGIN
    INSERT INTO incident_status (incident_id, status) VALUES (NEW.incident_id, NEW.status)
    ON CONFLICT (incident_id) DO UPDATE SET status = excluded.status;
END;

-- trigger incidents_append_only_d
CREATE TRIGGER incidents_append_only_d BEFORE DELETE ON incidents
BEGIN SELECT RAISE (ABORT, 'incidents is append-only'); END;

-- trigger incidents_append_only_u
CREATE TRIGGER incidents_append_only_u BEFORE UPDATE ON incidents
BEGIN SELECT RAISE (ABORT, 'incidents is append-only'); END;

-- trigger raw_chunks_append_only_d
CREATE TRIGGER raw_chunks_append_only_d BEFORE DELETE ON raw_chunks
BEGIN SELECT RAISE (ABORT, 'raw_chunks is append-only'); END;

-- trigger raw_chunks_append_only_u
CREATE TRIGGER raw_chunks_append_only_u BEFORE UPDATE ON raw_chunks
BEGIN SELECT RAISE (ABORT, 'raw_chunks is append-only'); END;
