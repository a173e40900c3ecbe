-- Browser sessions: the web page trades an invite's token for a session, kept in an HttpOnly
-- cookie. Only the SHA-256 of the session's random id is kept, as for invites. A session ends when
-- it expires, when its holder logs out, or when its invite is revoked (the invite's row says so,
-- and revoking also ends the session rows). Sessions are not part of the log nor of an export.
CREATE TABLE web_session (
    id         INTEGER PRIMARY KEY,
    invite_id  INTEGER NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    id_hash    TEXT NOT NULL UNIQUE,
    created    TEXT NOT NULL,
    expires    INTEGER NOT NULL, -- milliseconds since 1970-01-01T00:00:00Z
    ended      TEXT
);

CREATE INDEX web_session_invite ON web_session (invite_id);
