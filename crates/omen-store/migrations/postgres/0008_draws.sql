-- Pending draws and the columns of version 4 entries (see ../0008_draws.sql).
CREATE TABLE draw_pending (
    campaign_id BIGINT PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    sequence    BIGINT NOT NULL,
    nonce       TEXT NOT NULL,
    commitment  TEXT NOT NULL
);
ALTER TABLE roll_log ADD COLUMN draw_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN next_draw_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN draw TEXT;
ALTER TABLE roll_log ADD COLUMN gm_commitment TEXT;
ALTER TABLE roll_log ADD COLUMN gm_salt TEXT;
ALTER TABLE roll_log ADD COLUMN player_view TEXT;
