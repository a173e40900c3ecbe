-- Discord: a channel bound to a campaign by its game master, and Discord accounts linked to the
-- invites they act with. A binding names the invite that made it, and a link the invite it acts
-- with: both are read only through an invite that is not revoked, so revoking it ends them and
-- Discord never lets in whom the campaign no longer does. Discord's ids (snowflakes) are kept as text. Neither table is part of the
-- log nor of an export: like sessions, they say how members reach the campaign, not what happened.
CREATE TABLE discord_channel (
    channel_id  TEXT PRIMARY KEY,
    guild_id    TEXT,
    campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    invite_id   INTEGER NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL
);

CREATE TABLE discord_link (
    user_id     TEXT NOT NULL,
    campaign_id INTEGER NOT NULL REFERENCES campaign (id) ON DELETE CASCADE,
    invite_id   INTEGER NOT NULL REFERENCES invite (id) ON DELETE CASCADE,
    created     TEXT NOT NULL,
    PRIMARY KEY (user_id, campaign_id)
);

CREATE INDEX discord_channel_campaign ON discord_channel (campaign_id);
CREATE INDEX discord_link_invite ON discord_link (invite_id);
