-- The game master's Discord channel of a campaign (see ../0010_discord_gm_channel.sql).
CREATE TABLE discord_gm_channel (
    campaign_id BIGINT PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    channel_id  TEXT NOT NULL,
    invite_id   BIGINT NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL
);

CREATE INDEX discord_gm_channel_invite ON discord_gm_channel (invite_id);
