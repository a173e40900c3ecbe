//! Browser sessions: the web page trades an invite's token for a session whose id lives in an
//! HttpOnly cookie, so the token itself is used once and script on the page never holds a
//! credential.
//!
//! A session's id is 256 random bits, kept only as its SHA-256 (as an invite's token is). It lets
//! in whom its invite lets in, until it expires, its holder ends it ([`Store::end_session`]), or the
//! invite is revoked ([`Store::revoke_invite`] ends its sessions, and a session whose invite is
//! revoked is refused anyway).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::db::params;
use crate::error::StoreError;
use crate::members::{member_of, new_token, token_hash};
use crate::store::Store;
use crate::viewer::Member;

/// A session just opened: who it lets in, until when, and its id (given to the browser once).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebSession {
    pub member: Member,
    /// Its id: shown this once, kept only as a hash.
    pub id: String,
    /// When it expires, as a log time.
    pub expires: String,
}

fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Longer ids than any session's are refused without a look-up.
const MAX_ID: usize = 200;

impl Store {
    /// Opens a session for the holder of invite token `token`, lasting `lifetime`; `None` for a
    /// token that is unknown or revoked. Expired sessions are cleared on the way.
    ///
    /// # Errors
    /// SQLite's errors; [`StoreError::Database`] when the system gives no randomness.
    pub fn open_session(
        &mut self,
        token: &str,
        lifetime: Duration,
    ) -> Result<Option<WebSession>, StoreError> {
        if token.len() > MAX_ID {
            return Ok(None);
        }
        let id = new_token()?;
        let now = now_millis();
        let lifetime = i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX);
        let expires = now.saturating_add(lifetime);
        self.write(|conn| {
            conn.execute("DELETE FROM web_session WHERE expires <= ?1", params![now])?;
            let invite: Option<i64> = conn.query_opt(
                "SELECT id FROM invite WHERE token_hash = ?1 AND revoked IS NULL",
                params![token_hash(token.trim())],
                |row| row.get(0),
            )?;
            let Some(invite) = invite else {
                return Ok(None);
            };
            conn.execute(
                "INSERT INTO web_session (invite_id, id_hash, created, expires) VALUES (?1, ?2, ?3, ?4)",
                params![invite, token_hash(&id), crate::time::now(), expires],
            )?;
            Ok(Some(WebSession {
                member: member_of(conn, invite)?,
                id: id.clone(),
                expires: crate::time::format_millis(expires),
            }))
        })
    }

    /// The member session `id` lets in and when it expires, or `None` for a session that is
    /// unknown, expired, ended, or whose invite was revoked.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn session(&self, id: &str) -> Result<Option<(Member, String)>, StoreError> {
        if id.len() > MAX_ID {
            return Ok(None);
        }
        self.read(|conn| {
            let found: Option<(i64, i64)> = conn.query_opt(
                "SELECT s.invite_id, s.expires FROM web_session AS s
                 JOIN invite AS i ON i.id = s.invite_id
                 WHERE s.id_hash = ?1 AND s.ended IS NULL AND i.revoked IS NULL
                   AND s.expires > ?2",
                params![token_hash(id), now_millis()],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )?;
            found
                .map(|(invite, expires)| {
                    Ok((
                        member_of(conn, invite)?,
                        crate::time::format_millis(expires),
                    ))
                })
                .transpose()
        })
    }

    /// Ends session `id` (logging out); whether there was such a session still open.
    ///
    /// # Errors
    /// SQLite's errors.
    pub fn end_session(&mut self, id: &str) -> Result<bool, StoreError> {
        if id.len() > MAX_ID {
            return Ok(false);
        }
        self.write(|conn| {
            let ended = conn.execute(
                "UPDATE web_session SET ended = ?1 WHERE id_hash = ?2 AND ended IS NULL",
                params![crate::time::now(), token_hash(id)],
            )?;
            Ok(ended > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::viewer::Role;

    fn store_with_invite() -> (Store, String, i64) {
        let mut store = Store::open_in_memory().unwrap();
        store.create_campaign("night").unwrap();
        let (invite, token) = store.create_invite("night", Role::Observer, None).unwrap();
        (store, token, invite.id)
    }

    #[test]
    fn a_session_lets_in_its_invites_member_until_it_ends() {
        let (mut store, token, _) = store_with_invite();
        let session = store
            .open_session(&token, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        assert_ne!(session.id, token);
        assert_eq!(session.member.role, Role::Observer);
        let (member, expires) = store.session(&session.id).unwrap().unwrap();
        assert_eq!(member, session.member);
        assert_eq!(expires, session.expires);
        // The token is not a session id, nor the other way round.
        assert_eq!(store.session(&token).unwrap(), None);
        assert_eq!(store.authenticate(&session.id).unwrap(), None);
        assert!(store.end_session(&session.id).unwrap());
        assert_eq!(store.session(&session.id).unwrap(), None);
        assert!(!store.end_session(&session.id).unwrap());
    }

    #[test]
    fn revoking_the_invite_ends_its_sessions() {
        let (mut store, token, id) = store_with_invite();
        let session = store
            .open_session(&token, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        store.revoke_invite("night", id).unwrap();
        assert_eq!(store.session(&session.id).unwrap(), None);
        assert_eq!(
            store.open_session(&token, Duration::from_secs(60)).unwrap(),
            None
        );
    }

    #[test]
    fn an_expired_session_lets_no_one_in() {
        let (mut store, token, _) = store_with_invite();
        let session = store.open_session(&token, Duration::ZERO).unwrap().unwrap();
        assert_eq!(store.session(&session.id).unwrap(), None);
    }

    #[test]
    fn only_the_hash_of_a_session_id_is_kept() {
        let (mut store, token, _) = store_with_invite();
        let session = store
            .open_session(&token, Duration::from_secs(60))
            .unwrap()
            .unwrap();
        let kept: String = store
            .read(|conn| {
                conn.query_opt("SELECT id_hash FROM web_session", params![], |row| {
                    row.get(0)
                })
            })
            .unwrap()
            .unwrap();
        assert_eq!(kept, token_hash(&session.id));
        assert_ne!(kept, session.id);
    }
}
