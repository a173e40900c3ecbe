-- Discord channel bindings and account links (see ../0009_discord.sql).
CREATE TABLE discord_channel (
    channel_id  TEXT PRIMARY KEY,
    guild_id    TEXT,
    campaign_id BIGINT NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    invite_id   BIGINT NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL
);

CREATE TABLE discord_link (
    user_id     TEXT NOT NULL,
    campaign_id BIGINT NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    invite_id   BIGINT NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL,
    PRIMARY KEY (user_id, campaign_id)
);

CREATE INDEX discord_channel_campaign ON discord_channel (campaign_id);
CREATE INDEX discord_link_invite ON discord_link (invite_id);
