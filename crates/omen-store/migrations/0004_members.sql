-- Members of a campaign. Each joins by an invite: a role (game master, player or observer) and a
-- random token given to the member once. Only the token's SHA-256 is kept, so the database cannot
-- give a token away; a revoked invite keeps its row (and its log entries) with the time it ended.
CREATE TABLE invite (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('gm', 'player', 'observer')),
    token_hash  TEXT NOT NULL UNIQUE,
    created     TEXT NOT NULL,
    revoked     TEXT
);

CREATE INDEX invite_campaign ON invite (campaign_id);

-- The characters a player's invite owns, by row: a rename keeps the ownership, a deleted character
-- leaves it.
CREATE TABLE invite_character (
    invite_id    INTEGER NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    character_id INTEGER NOT NULL REFERENCES character (id) ON DELETE CASCADE,
    PRIMARY KEY (invite_id, character_id)
) WITHOUT ROWID;
