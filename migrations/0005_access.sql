-- Pitwatch store, schema version 5: the inspector role, and the audit log found by subject.
--
-- A CHECK cannot be altered in SQLite, so `users` is rebuilt with the same columns in the same
-- order and the inspector (read-only: reads and exports everything, changes nothing) allowed.
-- The rows are copied as they are, so their facts (crates/pitwatch-store/src/facts.rs) still
-- match them; nothing references `users`.
CREATE TABLE users_v5 (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    role            TEXT NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'admin', 'inspector')),
    password_hash   TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    active          INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1))
);
INSERT INTO users_v5 (id, name, role, password_hash, created_at, active)
    SELECT id, name, role, password_hash, created_at, active FROM users;
DROP TABLE users;
ALTER TABLE users_v5 RENAME TO users;

-- Whose session is live is the newest login, logout or ended session about them, asked at every
-- command of a desk (crates/pitwatch-app/src/sessions.rs); throttling asks the same of logins.
CREATE INDEX audit_log_by_subject ON audit_log (subject, action, id);
