//! Discord's way in: a channel bound to a campaign by its game master, and Discord accounts linked
//! to the invites their holders act with (`omen serve`'s interactions endpoint reads them).
//!
//! Neither is a credential of its own: a binding and a link each name an invite, and are read only
//! through an invite that is not revoked, so a Discord user acts exactly as the invite's member
//! would through the API, and revoking the invite ends the Discord link with everything else.
//! Discord's ids are snowflakes (decimal digits), kept as text.

use serde_json::json;

use crate::db::{Conn, params};
use crate::error::StoreError;
use crate::log::LogEntry;
use crate::members::member_of;
use crate::store::{Store, campaign_id};
use crate::viewer::{Member, Role};

/// Where a Discord user stands in a channel: the campaign the channel is bound to, if any, and the
/// member their account is linked to in it, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscordSeat {
    pub campaign: Option<String>,
    pub member: Option<Member>,
}

/// Discord's ids are at most 20 digits; anything else is refused before a look-up.
fn check_snowflake(what: &str, id: &str) -> Result<(), StoreError> {
    if id.is_empty() || id.len() > 20 || !id.bytes().all(|b| b.is_ascii_digit()) {
        return Err(StoreError::Invalid(format!(
            "a Discord {what} id is 1 to 20 digits"
        )));
    }
    Ok(())
}

/// The campaign (id and name) channel `channel` is bound to, while the invite that bound it stands.
fn bound_campaign(conn: &Conn<'_>, channel: &str) -> Result<Option<(i64, String)>, StoreError> {
    conn.query_opt(
        "SELECT c.id, c.name FROM discord_channel AS d
         JOIN campaign AS c ON c.id = d.campaign_id
         JOIN invite AS i ON i.id = d.invite_id
         WHERE d.channel_id = ?1 AND i.revoked IS NULL",
        params![channel],
        |row| Ok((row.get(0)?, row.get(1)?)),
    )
}

fn link(conn: &Conn<'_>, member: &Member, user: &str) -> Result<(), StoreError> {
    let campaign = campaign_id(conn, &member.campaign)?;
    conn.execute(
        "INSERT INTO discord_link (user_id, campaign_id, invite_id, created) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (user_id, campaign_id) DO UPDATE SET invite_id = ?3, created = ?4",
        params![user, campaign, member.invite_id, crate::time::now()],
    )?;
    Ok(())
}

impl Store {
    /// Binds Discord channel `channel` (of server `guild`) to `member`'s campaign, and links the
    /// game master's Discord account `user` to their invite: a channel is bound by its game master.
    /// A channel another campaign's binding holds is refused: its game master unbinds it first.
    ///
    /// # Errors
    /// [`StoreError::Forbidden`] for a member who is not the game master, [`StoreError::Invalid`]
    /// for ids that are not Discord's, the database's errors.
    pub fn bind_discord_channel(
        &mut self,
        member: &Member,
        guild: Option<&str>,
        channel: &str,
        user: &str,
    ) -> Result<(), StoreError> {
        if member.role != Role::GameMaster {
            return Err(StoreError::Forbidden(
                "only the game master binds a channel to the campaign".to_string(),
            ));
        }
        check_snowflake("channel", channel)?;
        check_snowflake("user", user)?;
        if let Some(guild) = guild {
            check_snowflake("server", guild)?;
        }
        self.write(|conn| {
            let campaign = campaign_id(conn, &member.campaign)?;
            // A channel playing another campaign is not taken over by binding it: anyone may make
            // a campaign of their own on an open server and so be its game master.
            if bound_campaign(conn, channel)?.is_some_and(|(id, _)| id != campaign) {
                return Err(StoreError::Forbidden(
                    "this channel plays another campaign; its game master unbinds it first (`/omen unbind`)"
                        .to_string(),
                ));
            }
            conn.execute(
                "INSERT INTO discord_channel (channel_id, guild_id, campaign_id, invite_id, created)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (channel_id) DO UPDATE
                 SET guild_id = ?2, campaign_id = ?3, invite_id = ?4, created = ?5",
                params![
                    channel,
                    guild,
                    campaign,
                    member.invite_id,
                    crate::time::now()
                ],
            )?;
            link(conn, member, user)
        })
    }

    /// Unbinds channel `channel` from `member`'s campaign (its game master); whether it was bound
    /// to it.
    ///
    /// # Errors
    /// [`StoreError::Forbidden`] for a member who is not the game master, the database's errors.
    pub fn unbind_discord_channel(
        &mut self,
        member: &Member,
        channel: &str,
    ) -> Result<bool, StoreError> {
        if member.role != Role::GameMaster {
            return Err(StoreError::Forbidden(
                "only the game master unbinds the channel".to_string(),
            ));
        }
        self.write(|conn| {
            let campaign = campaign_id(conn, &member.campaign)?;
            let removed = conn.execute(
                "DELETE FROM discord_channel WHERE channel_id = ?1 AND campaign_id = ?2",
                params![channel, campaign],
            )?;
            Ok(removed > 0)
        })
    }

    /// Links Discord account `user` to `member`'s invite in their campaign (replacing an earlier
    /// link of that account in that campaign).
    ///
    /// # Errors
    /// [`StoreError::Invalid`] for an id that is not Discord's, the database's errors.
    pub fn link_discord_user(&mut self, member: &Member, user: &str) -> Result<(), StoreError> {
        check_snowflake("user", user)?;
        self.write(|conn| link(conn, member, user))
    }

    /// Who Discord user `user` is in channel `channel`: the channel's campaign (while the invite that
    /// bound it stands) and the member their account is linked to there (while that invite stands).
    ///
    /// # Errors
    /// The database's errors. Ids that are not Discord's find nothing.
    pub fn discord_seat(&self, channel: &str, user: &str) -> Result<DiscordSeat, StoreError> {
        let nobody = DiscordSeat {
            campaign: None,
            member: None,
        };
        if check_snowflake("channel", channel).is_err() {
            return Ok(nobody);
        }
        self.read(|conn| {
            let Some((campaign, name)) = bound_campaign(conn, channel)? else {
                return Ok(nobody);
            };
            let invite: Option<i64> = if check_snowflake("user", user).is_ok() {
                conn.query_opt(
                    "SELECT l.invite_id FROM discord_link AS l
                     JOIN invite AS i ON i.id = l.invite_id
                     WHERE l.user_id = ?1 AND l.campaign_id = ?2 AND i.revoked IS NULL",
                    params![user, campaign],
                    |row| row.get(0),
                )?
            } else {
                None
            };
            Ok(DiscordSeat {
                campaign: Some(name),
                member: invite.map(|id| member_of(conn, id)).transpose()?,
            })
        })
    }
}

/// The channel a campaign's game master named for the dice of private and blind rolls, and the
/// game master whose invite named it (as whom the dice are read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiscordGmChannel {
    pub channel: String,
    pub game_master: Member,
}

impl Store {
    /// Names Discord channel `channel` the game master's channel of `member`'s campaign (its game
    /// master), or with `None` names none; whether one was named before. A channel bound to a
    /// campaign is refused: its players read it.
    ///
    /// # Errors
    /// [`StoreError::Forbidden`] for a member who is not the game master or a channel players play
    /// in, [`StoreError::Invalid`] for an id that is not Discord's, the database's errors.
    pub fn set_discord_gm_channel(
        &mut self,
        member: &Member,
        channel: Option<&str>,
    ) -> Result<bool, StoreError> {
        if member.role != Role::GameMaster {
            return Err(StoreError::Forbidden(
                "only the game master names the game master's channel".to_string(),
            ));
        }
        if let Some(channel) = channel {
            check_snowflake("channel", channel)?;
        }
        self.write(|conn| {
            let campaign = campaign_id(conn, &member.campaign)?;
            let removed = conn.execute(
                "DELETE FROM discord_gm_channel WHERE campaign_id = ?1",
                params![campaign],
            )?;
            let Some(channel) = channel else {
                return Ok(removed > 0);
            };
            if let Some((_, played)) = bound_campaign(conn, channel)? {
                return Err(StoreError::Forbidden(format!(
                    "players play `{played}` in that channel; name a channel only the game master reads"
                )));
            }
            conn.execute(
                "INSERT INTO discord_gm_channel (campaign_id, channel_id, invite_id, created)
                 VALUES (?1, ?2, ?3, ?4)",
                params![campaign, channel, member.invite_id, crate::time::now()],
            )?;
            Ok(removed > 0)
        })
    }

    /// The game master's channel of campaign `campaign`: none when none is named, when the invite
    /// that named it is revoked, or when the channel has since been bound to a campaign (its
    /// players would read the dice there).
    ///
    /// # Errors
    /// The database's errors.
    pub fn discord_gm_channel(
        &self,
        campaign: &str,
    ) -> Result<Option<DiscordGmChannel>, StoreError> {
        self.read(|conn| {
            let named: Option<(String, i64)> = conn.query_opt(
                "SELECT g.channel_id, g.invite_id FROM discord_gm_channel AS g
                 JOIN campaign AS c ON c.id = g.campaign_id
                 JOIN invite AS i ON i.id = g.invite_id
                 WHERE c.name = ?1 AND i.revoked IS NULL
                 AND NOT EXISTS (SELECT 1 FROM discord_channel AS d WHERE d.channel_id = g.channel_id)",
                params![campaign],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            named
                .map(|(channel, invite)| {
                    Ok(DiscordGmChannel {
                        channel,
                        game_master: member_of(conn, invite)?,
                    })
                })
                .transpose()
        })
    }
}

impl LogEntry {
    /// The exact text a revealed hidden entry's commitment is the SHA-256 of, as this copy shows it:
    /// anyone holding it checks the commitment by hand (`printf %s TEXT | sha256sum`). `None` for an
    /// entry that is not hidden, not revealed to this copy, or shows less than it committed to.
    pub fn commitment_preimage(&self) -> Option<String> {
        let (salt, commitment) = (self.salt.as_ref()?, self.commitment.as_ref()?);
        let text = if self.version >= 4 {
            let shown = match (&self.gm_commitment, &self.player_view) {
                (Some(_), Some(view)) => view.clone(),
                _ => self.content(),
            };
            json!(["omen-commit-v2", salt, shown]).to_string()
        } else {
            json!(["omen-commit-v1", salt, self.content()]).to_string()
        };
        (&self.compute_commitment(salt) == commitment).then_some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{EntryOptions, RollRequest, Viewer, Visibility};
    use sha2::{Digest, Sha256};

    fn campaign_with_gm_and_player() -> (Store, Member, Member) {
        let mut store = Store::open_in_memory().unwrap();
        store.create_campaign("Tak").unwrap();
        store
            .create_character("Tak", "Cato", omen_store_plain(), &json!({}))
            .unwrap();
        let (_, gm) = store.create_invite("Tak", Role::GameMaster, None).unwrap();
        let (_, player) = store
            .create_invite("Tak", Role::Player, Some("Cato"))
            .unwrap();
        let gm = store.authenticate(&gm).unwrap().unwrap();
        let player = store.authenticate(&player).unwrap().unwrap();
        (store, gm, player)
    }

    fn omen_store_plain() -> &'static str {
        crate::PLAIN
    }

    #[test]
    fn a_bound_channel_seats_linked_accounts_as_their_invites_members() {
        let (mut store, gm, player) = campaign_with_gm_and_player();
        let nobody = store.discord_seat("10", "20").unwrap();
        assert_eq!(nobody.campaign, None);
        store
            .bind_discord_channel(&gm, Some("1"), "10", "30")
            .unwrap();
        store.link_discord_user(&player, "20").unwrap();
        let seat = store.discord_seat("10", "20").unwrap();
        assert_eq!(seat.campaign.as_deref(), Some("Tak"));
        assert_eq!(seat.member, Some(player.clone()));
        assert_eq!(store.discord_seat("10", "30").unwrap().member, Some(gm));
        // An account linked to nothing sits in a bound channel as no one.
        let stranger = store.discord_seat("10", "40").unwrap();
        assert_eq!(
            (stranger.campaign.as_deref(), stranger.member),
            (Some("Tak"), None)
        );
        // Revoking the player's invite ends the link.
        store.revoke_invite("Tak", player.invite_id).unwrap();
        assert_eq!(store.discord_seat("10", "20").unwrap().member, None);
    }

    #[test]
    fn only_the_game_master_binds_and_ids_are_discords() {
        let (mut store, gm, player) = campaign_with_gm_and_player();
        let refused = store.bind_discord_channel(&player, None, "10", "20");
        assert!(
            matches!(refused, Err(StoreError::Forbidden(_))),
            "{refused:?}"
        );
        let refused = store.bind_discord_channel(&gm, None, "10; DROP", "20");
        assert!(
            matches!(refused, Err(StoreError::Invalid(_))),
            "{refused:?}"
        );
        assert!(store.link_discord_user(&player, "").is_err());
        // Revoking the game master's invite unbinds the channel.
        store.bind_discord_channel(&gm, None, "10", "30").unwrap();
        store.revoke_invite("Tak", gm.invite_id).unwrap();
        assert_eq!(store.discord_seat("10", "30").unwrap().campaign, None);
    }

    #[test]
    fn a_channel_playing_another_campaign_is_not_taken_over() {
        let (mut store, gm, _) = campaign_with_gm_and_player();
        store.bind_discord_channel(&gm, None, "10", "30").unwrap();
        store.create_campaign("Mine").unwrap();
        let (_, other) = store.create_invite("Mine", Role::GameMaster, None).unwrap();
        let other = store.authenticate(&other).unwrap().unwrap();
        let refused = store.bind_discord_channel(&other, None, "10", "40");
        assert!(
            matches!(refused, Err(StoreError::Forbidden(_))),
            "{refused:?}"
        );
        assert_eq!(
            store.discord_seat("10", "40").unwrap().campaign.as_deref(),
            Some("Tak")
        );
        // Its own game master may bind it again (moving nothing), and unbind it.
        store.bind_discord_channel(&gm, None, "10", "30").unwrap();
        assert!(!store.unbind_discord_channel(&other, "10").unwrap());
        assert!(store.unbind_discord_channel(&gm, "10").unwrap());
        store
            .bind_discord_channel(&other, None, "10", "40")
            .unwrap();
        assert_eq!(
            store.discord_seat("10", "40").unwrap().campaign.as_deref(),
            Some("Mine")
        );
    }

    #[test]
    fn the_game_masters_channel_is_named_by_the_game_master_and_never_a_played_one() {
        let (mut store, gm, player) = campaign_with_gm_and_player();
        assert_eq!(store.discord_gm_channel("Tak").unwrap(), None);
        let refused = store.set_discord_gm_channel(&player, Some("50"));
        assert!(
            matches!(refused, Err(StoreError::Forbidden(_))),
            "{refused:?}"
        );
        assert!(!store.set_discord_gm_channel(&gm, Some("50")).unwrap());
        let named = store.discord_gm_channel("Tak").unwrap().unwrap();
        assert_eq!((named.channel.as_str(), &named.game_master), ("50", &gm));
        // The channel the campaign is played in is refused, and one bound later is no longer used.
        store.bind_discord_channel(&gm, None, "10", "30").unwrap();
        let refused = store.set_discord_gm_channel(&gm, Some("10"));
        assert!(
            matches!(refused, Err(StoreError::Forbidden(_))),
            "{refused:?}"
        );
        store.set_discord_gm_channel(&gm, Some("50")).unwrap();
        store.unbind_discord_channel(&gm, "10").unwrap();
        store.bind_discord_channel(&gm, None, "50", "30").unwrap();
        assert_eq!(store.discord_gm_channel("Tak").unwrap(), None);
        store.unbind_discord_channel(&gm, "50").unwrap();
        assert!(store.discord_gm_channel("Tak").unwrap().is_some());
        // Named none, and ended with the game master's invite.
        assert!(store.set_discord_gm_channel(&gm, None).unwrap());
        assert_eq!(store.discord_gm_channel("Tak").unwrap(), None);
        store.set_discord_gm_channel(&gm, Some("51")).unwrap();
        store.revoke_invite("Tak", gm.invite_id).unwrap();
        assert_eq!(store.discord_gm_channel("Tak").unwrap(), None);
    }

    /// A store with channel 10 bound, player account 20 and game master account 30 linked, and
    /// channel 50 the game master's.
    fn bound_store() -> (Store, Member, Member) {
        let (mut store, gm, player) = campaign_with_gm_and_player();
        store
            .bind_discord_channel(&gm, Some("1"), "10", "30")
            .unwrap();
        store.link_discord_user(&player, "20").unwrap();
        store.set_discord_gm_channel(&gm, Some("50")).unwrap();
        (store, gm, player)
    }

    /// Who sits where in `store`: the player's and the game master's seats in channel 10 (role and
    /// characters: invite ids are the target's own), and the game master's channel.
    fn seating(store: &Store) -> Vec<String> {
        let seat = |user: &str| {
            let seat = store.discord_seat("10", user).unwrap();
            let member = seat.member.map(|m| (m.role, m.characters));
            format!("{:?} {member:?}", seat.campaign)
        };
        let gm_channel = store
            .discord_gm_channel("Tak")
            .unwrap()
            .map(|g| (g.channel, g.game_master.role));
        vec![
            seat("20"),
            seat("30"),
            seat("40"),
            format!("{gm_channel:?}"),
        ]
    }

    fn expected_seating() -> Vec<String> {
        vec![
            r#"Some("Tak") Some((Player, ["Cato"]))"#.to_string(),
            r#"Some("Tak") Some((GameMaster, []))"#.to_string(),
            r#"Some("Tak") None"#.to_string(),
            r#"Some(("50", GameMaster))"#.to_string(),
        ]
    }

    /// `omen db migrate` carries a server's Discord bindings: the server moves, its Discord
    /// application and its channels stay, and players should not link again.
    #[test]
    fn a_moved_database_keeps_its_discord_bindings() {
        let (source, _, _) = bound_store();
        assert_eq!(seating(&source), expected_seating());
        let mut target = Store::open_in_memory().unwrap();
        let report = source.copy_into(&mut target).unwrap();
        assert_eq!(
            (
                report.discord_bindings,
                report.discord_links,
                report.discord_gm_channels
            ),
            (1, 2, 1)
        );
        assert_eq!(seating(&target), expected_seating());
    }

    /// A campaign's export carries none of it: a binding names a server's channel and a link a
    /// person's account, which belong to the server the campaign is played on, not to the campaign.
    #[test]
    fn a_campaigns_export_holds_no_discord_id() {
        let (source, _, _) = bound_store();
        let export = source.export_campaign("Tak").unwrap().to_string();
        for id in ["\"10\"", "\"20\"", "\"30\"", "\"50\"", "discord"] {
            assert!(!export.contains(id), "{id} in {export}");
        }
        let mut elsewhere = Store::open_in_memory().unwrap();
        elsewhere
            .import_campaign(&source.export_campaign("Tak").unwrap(), None)
            .unwrap();
        assert_eq!(elsewhere.discord_seat("10", "20").unwrap().campaign, None);
        assert_eq!(elsewhere.discord_gm_channel("Tak").unwrap(), None);
    }

    /// The same move from SQLite into PostgreSQL and back.
    #[test]
    #[cfg_attr(
        omen_no_postgres,
        ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
    )]
    fn discord_bindings_move_between_the_engines() {
        let url = std::env::var("OMEN_TEST_POSTGRES_URL").expect("OMEN_TEST_POSTGRES_URL");
        let schema = format!("discord_move_{}", std::process::id());
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .unwrap();
        let separator = if url.contains('?') { '&' } else { '?' };
        let scoped = format!("{url}{separator}options=-csearch_path%3D{schema}");
        let (source, _, _) = bound_store();
        let mut postgres = Store::open_postgres_with_new_key(&scoped).unwrap();
        let report = source.copy_into(&mut postgres).unwrap();
        assert_eq!(
            (
                report.discord_bindings,
                report.discord_links,
                report.discord_gm_channels
            ),
            (1, 2, 1)
        );
        assert_eq!(seating(&postgres), expected_seating());
        let mut back = Store::open_in_memory().unwrap();
        postgres.copy_into(&mut back).unwrap();
        assert_eq!(seating(&back), expected_seating());
        drop(postgres);
        client
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .unwrap();
    }

    /// The same bindings on PostgreSQL: its migration, its upsert and its joins.
    #[test]
    #[cfg_attr(
        omen_no_postgres,
        ignore = "needs PostgreSQL: set OMEN_TEST_POSTGRES_URL (.ci/run starts a throwaway cluster)"
    )]
    fn bindings_work_alike_on_postgres() {
        let url = std::env::var("OMEN_TEST_POSTGRES_URL").expect("OMEN_TEST_POSTGRES_URL");
        let schema = format!("discord_{}", std::process::id());
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .unwrap();
        let separator = if url.contains('?') { '&' } else { '?' };
        let scoped = format!("{url}{separator}options=-csearch_path%3D{schema}");
        let mut store = Store::open_postgres_with_new_key(&scoped).unwrap();
        store.create_campaign("Tak").unwrap();
        store
            .create_character("Tak", "Cato", crate::PLAIN, &json!({}))
            .unwrap();
        let (_, gm) = store.create_invite("Tak", Role::GameMaster, None).unwrap();
        let (_, player) = store
            .create_invite("Tak", Role::Player, Some("Cato"))
            .unwrap();
        let gm = store.authenticate(&gm).unwrap().unwrap();
        let player = store.authenticate(&player).unwrap().unwrap();
        store
            .bind_discord_channel(&gm, Some("1"), "10", "30")
            .unwrap();
        store.bind_discord_channel(&gm, None, "10", "30").unwrap();
        store.link_discord_user(&player, "20").unwrap();
        store.link_discord_user(&player, "20").unwrap();
        let seat = store.discord_seat("10", "20").unwrap();
        assert_eq!(
            (seat.campaign.as_deref(), seat.member),
            (Some("Tak"), Some(player.clone()))
        );
        store.revoke_invite("Tak", player.invite_id).unwrap();
        assert_eq!(store.discord_seat("10", "20").unwrap().member, None);
        assert!(store.unbind_discord_channel(&gm, "10").unwrap());
        assert_eq!(store.discord_seat("10", "30").unwrap().campaign, None);
        store.set_discord_gm_channel(&gm, Some("50")).unwrap();
        let named = store.discord_gm_channel("Tak").unwrap().unwrap();
        assert_eq!((named.channel.as_str(), named.game_master), ("50", gm));
        drop(store);
        client
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .unwrap();
    }

    #[test]
    fn a_revealed_rolls_preimage_hashes_to_its_commitment() {
        let (mut store, gm, player) = campaign_with_gm_and_player();
        let (entry, _) =
            store
                .submit_roll(RollRequest::expression("Tak", "1d20").with_options(
                    EntryOptions::new(Visibility::Blind, Some(crate::Actor::of(&player))),
                ))
                .unwrap();
        let hidden = store
            .entry_for(entry.clone(), &Viewer::Member(player.clone()))
            .unwrap();
        assert_eq!(hidden.commitment_preimage(), None);
        store
            .reveal_as("Tak", entry.sequence, &Viewer::Member(gm))
            .unwrap();
        let shown = store
            .entry_for(
                store.log(&crate::LogFilter::default()).unwrap()[entry.sequence as usize - 1]
                    .clone(),
                &Viewer::Member(player),
            )
            .unwrap();
        let text = shown.commitment_preimage().expect("revealed");
        let digest: String = Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(Some(digest), entry.commitment);
    }
}
