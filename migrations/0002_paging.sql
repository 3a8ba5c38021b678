-- Pitwatch store, schema version 2: what the incident list and shoe replay need to stay fast on a
-- record of weeks (a page, a count or one shoe costs the same whatever the history's length).

-- An incident's status is its latest incident_changes row; find it without scanning the chain.
CREATE INDEX incident_changes_by_incident ON incident_changes (incident_id, id);

-- Derived: each incident's current status (the status of its latest incident_changes row), kept
-- by the trigger below in the same transaction as the change, so lists and counts can filter on
-- status with an index. Rebuildable from incident_changes, so not chained.
CREATE TABLE incident_status (
    incident_id INTEGER PRIMARY KEY REFERENCES incidents (id),
    status      TEXT NOT NULL CHECK (status IN ('open', 'acknowledged', 'resolved'))
);
CREATE INDEX incident_status_by_status ON incident_status (status, incident_id);

INSERT INTO incident_status (incident_id, status)
SELECT c.incident_id, c.status FROM incident_changes c
WHERE c.id = (SELECT MAX(d.id) FROM incident_changes d WHERE d.incident_id = c.incident_id);

CREATE TRIGGER incident_status_follows_changes AFTER INSERT ON incident_changes
BEGIN
    INSERT INTO incident_status (incident_id, status) VALUES (NEW.incident_id, NEW.status)
    ON CONFLICT (incident_id) DO UPDATE SET status = excluded.status;
END;

-- The incident list's filters, each newest first by id (the keyset cursor).
CREATE INDEX incidents_by_table ON incidents (table_id, id);
CREATE INDEX incidents_by_code ON incidents (code, id);
CREATE INDEX incidents_by_severity ON incidents (severity, id);
CREATE INDEX incidents_by_opened_at ON incidents (opened_at);
-- Incidents per shoe, for the replay picker.
CREATE INDEX incidents_by_shoe ON incidents (table_id, shoe);

-- Derived: where each shoe of each table starts, with what the engine carries into it from the
-- shoes before (its shoe count, open device errors, the last round; see
-- pitwatch_rules::Carry), so one shoe can be replayed without running the table's whole history.
-- Written by the recorder when the engine starts a shoe; rebuildable by replay, so not chained.
CREATE TABLE shoes (
    table_id    INTEGER NOT NULL REFERENCES pit_tables (id),
    shoe        INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    carry       TEXT NOT NULL,
    PRIMARY KEY (table_id, shoe)
);
