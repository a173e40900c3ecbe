//! The PostgreSQL channel that announces new log entries: the log writes to it inside its
//! transaction, the listener ([`crate::notify`]) reads it. Below both.

use crate::db::{Conn, params};
use crate::error::StoreError;

/// The channel every PostgreSQL log entry is announced on.
pub const LOG_CHANNEL: &str = "omen_log";

/// Announces a new entry of the campaign with row id `campaign_id` on
/// [`LOG_CHANNEL`], inside the caller's transaction, so listeners hear of it when it
/// commits and never when it rolls back. The payload is the campaign's name and the sequence number,
/// nothing of the entry. SQLite has no listeners: its one process announces its own writes.
pub(crate) fn announce(conn: &Conn<'_>, campaign_id: i64, sequence: u64) -> Result<(), StoreError> {
    if let Conn::Postgres(_) = conn {
        conn.execute(
            &format!(
                "SELECT pg_notify('{}', json_build_object('campaign', name, 'sequence', ?2::bigint)::text)
                 FROM campaign WHERE id = ?1",
                LOG_CHANNEL
            ),
            params![campaign_id, sequence as i64],
        )?;
    }
    Ok(())
}
