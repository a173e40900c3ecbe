//! Reading the store's log: filtered, paged, as a viewer may see it, verified, and its head.

use super::{LogFilter, Store, campaign_id, check_campaign};
use crate::db::{Conn, params};
use crate::error::StoreError;
use crate::log::{self, LogEntry, VerifyReport};

impl Store {
    // -----------------------------------------------------------------------------------------------
    // The log.

    /// Log entries matching `filter`, by campaign and then in log order.
    ///
    /// # Errors
    /// [`StoreError::NotFound`] for an unknown campaign, [`StoreError::Invalid`] for a time that does not
    /// parse, [`StoreError::Corrupt`] for a row that cannot be read.
    pub fn log(&self, filter: &LogFilter) -> Result<Vec<LogEntry>, StoreError> {
        self.log_after(filter, None)
    }

    /// [`Store::log`], only entries numbered after `after` when given (read through the log's key,
    /// not filtered afterwards).
    pub(crate) fn log_after(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
    ) -> Result<Vec<LogEntry>, StoreError> {
        self.log_page(filter, after, None)
    }

    /// One page of [`Store::log`]: the first `limit` entries (all when `None`) numbered after
    /// `after`, in log order. `filter.last` keeps the last entries the other filters select, and the
    /// page is taken from those. Every bound is read through the log's key (the first of the last
    /// entries is found by a query of its own), so a page costs its own entries, never the log's.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_page(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
        limit: Option<usize>,
    ) -> Result<Vec<LogEntry>, StoreError> {
        use crate::db::Param as Sql;
        self.read(|conn| {
            let (mut conditions, mut values) = log_conditions(conn, filter)?;
            if let Some(last) = filter.last {
                if last == 0 {
                    return Ok(Vec::new());
                }
                let sql = format!(
                    "SELECT l.campaign_id, l.sequence FROM roll_log AS l{} \
                     ORDER BY l.campaign_id DESC, l.sequence DESC LIMIT 1 OFFSET ?",
                    where_clause(&conditions)
                );
                let mut bound = values.clone();
                bound.push(Sql::Integer(i64::try_from(last - 1).unwrap_or(i64::MAX)));
                let first = conn.query_opt(&sql, &bound, |row| {
                    Ok((row.get::<i64>(0)?, row.get::<i64>(1)?))
                })?;
                // Fewer entries than `last`: every one of them.
                if let Some((campaign, sequence)) = first {
                    conditions
                        .push("(l.campaign_id > ? OR (l.campaign_id = ? AND l.sequence >= ?))");
                    values.extend([
                        Sql::Integer(campaign),
                        Sql::Integer(campaign),
                        Sql::Integer(sequence),
                    ]);
                }
            }
            if let Some(after) = after {
                values.push(Sql::Integer(i64::try_from(after).unwrap_or(i64::MAX)));
                conditions.push("l.sequence > ?");
            }
            let mut sql = format!(
                "SELECT {} FROM roll_log AS l{} ORDER BY l.campaign_id, l.sequence",
                log::ENTRY_COLUMNS,
                where_clause(&conditions)
            );
            if let Some(limit) = limit {
                sql.push_str(" LIMIT ?");
                values.push(Sql::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
            }
            let rows = conn.query_map(&sql, &values, log::RawEntry::from_row)?;
            rows.into_iter()
                .map(|raw| {
                    let sequence = raw.sequence();
                    raw.parse().map_err(|problem| {
                        StoreError::Corrupt(format!("log entry {sequence}: {problem}"))
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        })
    }

    /// [`Store::log_page`] as `viewer` may see it (see [`Store::log_for`]): what a server lists and
    /// streams a page at a time.
    ///
    /// # Errors
    /// As [`Store::log`].
    pub fn log_page_for(
        &self,
        filter: &LogFilter,
        after: Option<u64>,
        limit: usize,
        viewer: &crate::viewer::Viewer,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let mut filter = filter.clone();
        if let crate::viewer::Viewer::Member(member) = viewer {
            filter.campaign = Some(member.campaign.clone());
        }
        let sight = self.sight(viewer, filter.campaign.as_deref())?;
        Ok(self
            .log_page(&filter, after, Some(limit))?
            .into_iter()
            .map(|entry| sight.see(entry))
            .collect())
    }

    /// Checks a campaign's log: every entry's hash, link, signature and key, the derivation of every
    /// seed, the signed chain head, and that every character's stored state is the state after its last
    /// entry. Finds every altered, removed, reordered, re-linked or cut-off entry and every character
    /// changed without an entry, as long as whoever changed them did not hold the key (against the key
    /// holder, see [`Store::verify_since`]). When the local key file is there, the campaign's key must
    /// be it.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems with the log are in the report, not errors.
    pub fn verify(&self, campaign: &str) -> Result<VerifyReport, StoreError> {
        let local = self.local_public_key();
        self.read(|conn| {
            let check = check_campaign(conn, campaign, local.as_deref())?;
            Ok(check.report)
        })
    }

    /// [`Store::verify`], and that the log still holds the entry a receipt from `omen log head`
    /// names, with the same hash: so a log cut back or rewritten from that entry on is caught even
    /// when it was done with the key.
    ///
    /// # Errors
    /// [`StoreError::NotFound`]; problems are in the report.
    pub fn verify_since(
        &self,
        campaign: &str,
        receipt: &log::Receipt,
    ) -> Result<VerifyReport, StoreError> {
        let mut report = self.verify(campaign)?;
        let entry = self.read(|conn| {
            let id = campaign_id(conn, campaign)?;
            conn.query_opt(
                "SELECT hash FROM roll_log WHERE campaign_id = ?1 AND sequence = ?2",
                params![id, receipt.sequence as i64],
                |row| row.get::<String>(0),
            )
        })?;
        let problem = match entry {
            None => Some(format!(
                "the log no longer holds entry {} that your receipt names (it ends at entry {}): it was cut back",
                receipt.sequence,
                report.head.as_ref().map_or(0, |h| h.sequence)
            )),
            Some(hash) if !hash.starts_with(&receipt.hash_prefix) => Some(format!(
                "entry {} is not the one your receipt names (its hash now starts {}, not {}): the log was rewritten from entry {} or before",
                receipt.sequence,
                &hash[..hash.len().min(16)],
                &receipt.hash_prefix[..16],
                receipt.sequence
            )),
            Some(_) => None,
        };
        if let Some(problem) = problem {
            report.problems.insert(
                0,
                log::LogProblem {
                    sequence: Some(receipt.sequence),
                    problem,
                },
            );
        }
        Ok(report)
    }

    /// The head of a campaign's log: the receipt to keep.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn head(&self, campaign: &str) -> Result<Option<log::ChainHead>, StoreError> {
        self.read(|conn| log::head(conn, campaign_id(conn, campaign)?))
    }

    /// A campaign's public key (hex), from which its log is verified.
    ///
    /// # Errors
    /// [`StoreError::NotFound`].
    pub fn public_key(&self, campaign: &str) -> Result<Option<String>, StoreError> {
        self.read(|conn| {
            conn.query_opt(
                "SELECT public_key FROM campaign WHERE name = ?1",
                params![campaign],
                |row| row.get::<Option<String>>(0),
            )?
            .ok_or_else(|| StoreError::campaign(campaign))
        })
    }
}

fn log_conditions(
    conn: &Conn,
    filter: &LogFilter,
) -> Result<(Vec<&'static str>, Vec<crate::db::Param>), StoreError> {
    use crate::db::Param as Sql;
    let mut conditions: Vec<&str> = Vec::new();
    let mut values: Vec<Sql> = Vec::new();
    if let Some(campaign) = &filter.campaign {
        values.push(Sql::Integer(campaign_id(conn, campaign)?));
        conditions.push("l.campaign_id = ?");
    }
    if let Some(character) = &filter.character {
        values.push(Sql::Text(character.clone()));
        values.push(Sql::Text(character.clone()));
        conditions.push(
            "(l.character = ? OR l.character_id IN
                (SELECT h.id FROM character AS h WHERE h.campaign_id = l.campaign_id AND h.name = ?))",
        );
    }
    if let Some(action) = &filter.action {
        values.push(Sql::Text(action.clone()));
        conditions.push("l.action = ?");
    }
    if let Some(since) = &filter.since {
        values.push(Sql::Text(crate::time::normalize_time(since)?));
        conditions.push("l.time >= ?");
    }
    if let Some(until) = &filter.until {
        values.push(Sql::Text(crate::time::normalize_time(until)?));
        conditions.push("l.time < ?");
    }
    Ok((conditions, values))
}

fn where_clause(conditions: &[&str]) -> String {
    if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    }
}
