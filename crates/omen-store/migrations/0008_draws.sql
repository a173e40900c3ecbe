-- Dice no one can foresee or choose (entries of version 4). Before each entry the campaign holds a
-- pending draw: a random nonce, from which the key derives the draw's secret, and the commitment
-- (the SHA-256 of the secret), published before any request for that entry arrives. The entry that
-- takes the draw records the commitment it took (`draw_commitment`), the next one
-- (`next_draw_commitment`), and in its content the secret and the caller's entropy (`draw`), from
-- which anyone recomputes its seed once they may see it.
--
-- What a rule set keeps for the game master is committed with a random salt of its own: the hash
-- covers the player's view (`player_view`) and `gm_commitment`, the SHA-256 of the full content and
-- `gm_salt`, so a player checks the hash of what they see and cannot try guesses against it.
CREATE TABLE draw_pending (
    campaign_id INTEGER PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    sequence    INTEGER NOT NULL,
    nonce       TEXT NOT NULL,
    commitment  TEXT NOT NULL
);
ALTER TABLE roll_log ADD COLUMN draw_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN next_draw_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN draw TEXT;
ALTER TABLE roll_log ADD COLUMN gm_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN gm_salt TEXT;
ALTER TABLE roll_log ADD COLUMN player_view TEXT;
