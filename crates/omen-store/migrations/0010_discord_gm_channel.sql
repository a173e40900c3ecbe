-- Discord: the channel a campaign's game master names for the dice of private and blind rolls (the
-- game master's eyes only; Discord's channel permissions decide who reads it). One per campaign.
-- Like a binding it names the invite that made it and is read only while that invite stands. Not
-- part of the log nor of an export (see 0009_discord.sql); `omen db migrate` carries it.
CREATE TABLE discord_gm_channel (
    campaign_id INTEGER PRIMARY KEY REFERENCES campaign (id) ON DELETE CASCADE,
    channel_id  TEXT NOT NULL,
    invite_id   INTEGER NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL
);

CREATE INDEX discord_gm_channel_invite ON discord_gm_channel (invite_id);
