//! Members of a campaign and the invites they join by.
//!
//! An invite gives its holder a role in one campaign: the game master does everything, a player acts
//! for the characters the invite names, an observer only reads. Its token (256 random bits, shown
//! once) is kept only as its SHA-256, so neither the database nor an export can give it away. Making
//! and revoking an invite are logged (role and characters, never the token or its hash): who could
//! act at the table is part of the record.

use crate::db::{Conn, params};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::error::{Missing, StoreError};
use crate::log::{Chain, Draft};
use crate::store::{Store, campaign_id};
use crate::viewer::{Invite, Member, Role};

/// A token's stored form: SHA-256 in hex.
pub(crate) fn token_hash(token: &str) -> String {
    crate::key::hex(&Sha256::digest(token.as_bytes()))
}

/// The prefix of every token: recognisable in a leaked file or a secret scanner.
const TOKEN_PREFIX: &str = "omen_";

/// A new token: 256 bits from the operating system, in hex (URL-safe, no padding).
pub(crate) fn new_token() -> Result<String, StoreError> {
    Ok(format!(
        "{TOKEN_PREFIX}{}",
        crate::key::hex(&crate::key::random::<32>()?)
    ))
}

fn invite_characters(conn: &Conn<'_>, invite_id: i64) -> Result<Vec<String>, StoreError> {
    conn.query_map(
        "SELECT h.name FROM invite_character AS i JOIN character AS h ON h.id = i.character_id
         WHERE i.invite_id = ?1 ORDER BY h.name",
        params![invite_id],
        |row| row.get::<String>(0),
    )
}

/// The member invite `invite_id` lets in (revoked or not: the caller checks).
pub(crate) fn member_of(conn: &Conn<'_>, invite_id: i64) -> Result<Member, StoreError> {
    let (role, campaign): (String, String) = conn
        .query_opt(
            "SELECT i.role, c.name FROM invite AS i JOIN campaign AS c ON c.id = i.campaign_id
             WHERE i.id = ?1",
            params![invite_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?
        .ok_or_else(|| StoreError::Corrupt(format!("invite {invite_id} has gone")))?;
    Ok(Member {
        campaign,
        role: role_of(&role)?,
        characters: invite_characters(conn, invite_id)?,
        invite_id,
    })
}

fn role_of(text: &str) -> Result<Role, StoreError> {
    text.parse()
        .map_err(|_| StoreError::Corrupt(format!("an invite has the unknown role `{text}`")))
}

impl Store {
    /// Makes an invite to `campaign` with `role`; a player's invite owns `character`. Returns the
    /// invite and its token: the token is shown this once and kept only as a hash. Logged (without
    /// the token) as `invite`. See [`Store::create_invite_for`] for a player with several characters.
    ///
    /// # Errors
    /// As [`Store::create_invite_for`].
    pub fn create_invite(
        &mut self,
        campaign: &str,
        role: Role,
        character: Option<&str>,
    ) -> Result<(Invite, String), StoreError> {
        let characters: Vec<&str> = character.into_iter().collect();
        self.create_invite_for(campaign, role, &characters)
    }

    /// Makes an invite to `campaign` with `role`, owning `characters` (a player needs at least one; a
    /// game master and an observer own none). Returns the invite and its token, shown this once.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign or character, [`StoreError::Invalid`] for a
    /// player without characters or characters given to another role.
    pub fn create_invite_for(
        &mut self,
        campaign: &str,
        role: Role,
        characters: &[&str],
    ) -> Result<(Invite, String), StoreError> {
        match (role, characters.is_empty()) {
            (Role::Player, true) => {
                return Err(StoreError::Invalid(
                    "a player's invite names the characters the player owns; give at least one with --char".to_string(),
                ));
            }
            (Role::GameMaster | Role::Observer, false) => {
                return Err(StoreError::Invalid(format!(
                    "only a player owns characters; leave --char out of a{} {role} invite",
                    if role == Role::Observer { "n" } else { "" }
                )));
            }
            _ => {}
        }
        let token = new_token()?;
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let mut owned = Vec::new();
            for name in characters {
                let row: Option<(i64, Option<String>, String)> = conn
                    .query_opt(
                        "SELECT id, uid, name FROM character WHERE campaign_id = ?1 AND name = ?2",
                        params![chain.campaign_id, name],
                        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                    )
                    ?;
                let row = row.ok_or_else(|| StoreError::character(campaign, name))?;
                if !owned.iter().any(|(id, _, _)| *id == row.0) {
                    owned.push(row);
                }
            }
            let created = crate::time::now();
            let id = conn.insert(
                "INSERT INTO invite (campaign_id, role, token_hash, created) VALUES (?1, ?2, ?3, ?4)",
                params![chain.campaign_id, role.as_str(), token_hash(&token), created],
            )?;
            for (character_id, _, _) in &owned {
                conn.execute(
                    "INSERT INTO invite_character (invite_id, character_id) VALUES (?1, ?2)",
                    params![id, character_id],
                )?;
            }
            let names: Vec<String> = owned.iter().map(|(_, _, name)| name.clone()).collect();
            let listed = if names.is_empty() {
                String::new()
            } else {
                format!(" for {}", names.join(", "))
            };
            chain.append(
                conn,
                Draft::plain(
                    None,
                    None,
                    None,
                    "invite",
                    json!({
                        "kind": "invite",
                        "invite": id,
                        "role": role,
                        "characters": owned
                            .iter()
                            .map(|(_, uid, name)| json!({ "uid": uid, "name": name }))
                            .collect::<Vec<_>>(),
                    }),
                    format!("invited a {role}{listed} (invite {id})"),
                ),
            )?;
            let mut sorted = names;
            sorted.sort();
            Ok((
                Invite {
                    id,
                    campaign: campaign.to_string(),
                    role,
                    characters: sorted,
                    created,
                    revoked: None,
                },
                token.clone(),
            ))
        })
    }

    /// A campaign's invites, oldest first, revoked ones included: never their tokens.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign.
    pub fn invites(&self, campaign: &str) -> Result<Vec<Invite>, StoreError> {
        self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            let rows = conn.query_map(
                "SELECT id, role, created, revoked FROM invite WHERE campaign_id = ?1 ORDER BY id",
                params![id],
                |row| {
                    Ok((
                        row.get::<i64>(0)?,
                        row.get::<String>(1)?,
                        row.get::<String>(2)?,
                        row.get::<Option<String>>(3)?,
                    ))
                },
            )?;
            rows.into_iter()
                .map(|(id, role, created, revoked)| {
                    Ok(Invite {
                        id,
                        campaign: campaign.to_string(),
                        role: role_of(&role)?,
                        characters: invite_characters(conn, id)?,
                        created,
                        revoked,
                    })
                })
                .collect()
        })
    }

    /// Revokes invite `id` of `campaign`: its token lets no one in from now on. Logged as
    /// `revoke-invite`.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign or invite, [`StoreError::Conflict`] for an
    /// invite already revoked.
    pub fn revoke_invite(&mut self, campaign: &str, id: i64) -> Result<Invite, StoreError> {
        let key = self.signing_key()?;
        self.write(|conn| {
            let chain = Chain::open(conn, campaign, &key)?;
            let found: Option<(String, String, Option<String>)> = conn.query_opt(
                "SELECT role, created, revoked FROM invite WHERE id = ?1 AND campaign_id = ?2",
                params![id, chain.campaign_id],
                |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
            )?;
            let (role, created, revoked) = found.ok_or_else(|| {
                StoreError::NotFound(Missing::Invite {
                    campaign: campaign.to_string(),
                    id,
                })
            })?;
            if let Some(when) = revoked {
                return Err(StoreError::Conflict(format!(
                    "invite {id} of `{campaign}` was already revoked at {when}"
                )));
            }
            let role = role_of(&role)?;
            let now = crate::time::now();
            conn.execute(
                "UPDATE invite SET revoked = ?1 WHERE id = ?2",
                params![now, id],
            )?;
            // The browser sessions it opened end with it (a session also checks its invite).
            conn.execute(
                "UPDATE web_session SET ended = ?1 WHERE invite_id = ?2 AND ended IS NULL",
                params![now, id],
            )?;
            chain.append(
                conn,
                Draft::plain(
                    None,
                    None,
                    None,
                    "revoke-invite",
                    json!({ "kind": "revoke-invite", "invite": id, "role": role }),
                    format!("revoked invite {id} ({role})"),
                ),
            )?;
            Ok(Invite {
                id,
                campaign: campaign.to_string(),
                role,
                characters: invite_characters(conn, id)?,
                created,
                revoked: Some(now),
            })
        })
    }

    /// The member a token lets in, or `None` for a token that is unknown or revoked.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn authenticate(&self, token: &str) -> Result<Option<Member>, StoreError> {
        // The token is looked up by its SHA-256, never compared: a lookup's timing depends on the hash,
        // which an attacker cannot steer towards a stored one, so no constant-time comparison is
        // needed (and the stored hashes of 256-bit tokens cannot be reversed).
        if token.len() > 200 {
            return Ok(None);
        }
        self.read(|conn| {
            let found: Option<i64> = conn.query_opt(
                "SELECT id FROM invite WHERE token_hash = ?1 AND revoked IS NULL",
                params![token_hash(token.trim())],
                |row| row.get(0),
            )?;
            found.map(|id| member_of(conn, id)).transpose()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_read_and_write_the_same_names() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>().unwrap(), role);
            assert_eq!(
                serde_json::to_value(role).unwrap(),
                serde_json::json!(role.as_str())
            );
        }
        assert!("master".parse::<Role>().is_err());
    }

    #[test]
    fn tokens_are_long_random_and_url_safe() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 64);
        assert!(a.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        assert_eq!(token_hash(&a).len(), 64);
        assert_ne!(token_hash(&a), a);
    }
}
