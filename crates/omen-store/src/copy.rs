//! Moving a whole database to another (`omen db migrate`): every campaign with its characters,
//! saved rolls, log, chain head and invites, row for row, and how Discord reaches them (channels
//! bound, accounts linked, the game master's channel: the server moves, its Discord application
//! stays). Unlike an import, nothing is re-signed:
//! the log goes on under the same key, with the same hashes, signatures and head, so a receipt taken
//! before the move still verifies after it.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::db::{Conn, Param, Row, params};
use crate::error::StoreError;
use crate::store::Store;

/// What a move copied.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopyReport {
    pub campaigns: u64,
    pub characters: u64,
    pub saved_rolls: u64,
    pub log_entries: u64,
    pub invites: u64,
    /// Discord channels bound to a campaign.
    #[serde(default)]
    pub discord_bindings: u64,
    /// Discord accounts linked to an invite.
    #[serde(default)]
    pub discord_links: u64,
    /// Channels game masters named for the dice of private and blind rolls.
    #[serde(default)]
    pub discord_gm_channels: u64,
}

/// The columns copied from each table, the row id (when it has one) first. Ids are the database's
/// own: the target gives new ones and the links are mapped.
const CAMPAIGN: &str = "id, name, created, uid, public_key, dialect";
const CHARACTER: &str =
    "id, campaign_id, name, rule_set, sheet, state, state_version, created, updated, uid";
const SAVED_ROLL: &str = "campaign_id, name, expression, params, description";
const LOG: &str = "campaign_id, sequence, time, campaign, character_id, character, action, inputs, \
     seed, dice, result, state_before, state_after, summary, previous_hash, hash, version, \
     campaign_uid, character_uid, dice_given, seed_proof, public_key, signature, visibility, actor, \
     commitment, salt, draw_commitment, next_draw_commitment, draw, gm_commitment, gm_salt, player_view";
const DRAW: &str = "campaign_id, sequence, nonce, commitment";
const HEAD: &str = "campaign_id, sequence, hash, signature";
const INVITE: &str = "id, campaign_id, role, token_hash, created, revoked";
const INVITE_CHARACTER: &str = "invite_id, character_id";
const DISCORD_CHANNEL: &str = "channel_id, guild_id, campaign_id, invite_id, created";
const DISCORD_LINK: &str = "user_id, campaign_id, invite_id, created";
const DISCORD_GM_CHANNEL: &str = "campaign_id, channel_id, invite_id, created";

struct Table {
    name: &'static str,
    columns: &'static str,
    /// Whether the first column is the row id, given anew by the target.
    has_id: bool,
    /// The columns (by position) that hold another table's id, and which.
    links: &'static [(usize, &'static str)],
}

/// In the order their links need.
const TABLES: &[Table] = &[
    Table {
        name: "campaign",
        columns: CAMPAIGN,
        has_id: true,
        links: &[],
    },
    Table {
        name: "character",
        columns: CHARACTER,
        has_id: true,
        links: &[(1, "campaign")],
    },
    Table {
        name: "saved_roll",
        columns: SAVED_ROLL,
        has_id: false,
        links: &[(0, "campaign")],
    },
    Table {
        name: "roll_log",
        columns: LOG,
        has_id: false,
        links: &[(0, "campaign"), (4, "character")],
    },
    Table {
        name: "chain_head",
        columns: HEAD,
        has_id: false,
        links: &[(0, "campaign")],
    },
    Table {
        name: "draw_pending",
        columns: DRAW,
        has_id: false,
        links: &[(0, "campaign")],
    },
    Table {
        name: "invite",
        columns: INVITE,
        has_id: true,
        links: &[(1, "campaign")],
    },
    Table {
        name: "invite_character",
        columns: INVITE_CHARACTER,
        has_id: false,
        links: &[(0, "invite"), (1, "character")],
    },
    Table {
        name: "discord_channel",
        columns: DISCORD_CHANNEL,
        has_id: false,
        links: &[(2, "campaign"), (3, "invite")],
    },
    Table {
        name: "discord_link",
        columns: DISCORD_LINK,
        has_id: false,
        links: &[(1, "campaign"), (2, "invite")],
    },
    Table {
        name: "discord_gm_channel",
        columns: DISCORD_GM_CHANNEL,
        has_id: false,
        links: &[(0, "campaign"), (2, "invite")],
    },
];

fn read_table(conn: &Conn<'_>, table: &Table) -> Result<Vec<Vec<Param>>, StoreError> {
    let width = table.columns.split(',').count();
    conn.query_map(
        &format!(
            "SELECT {} FROM {} ORDER BY {}",
            table.columns,
            table.name,
            // Row ids in order keep the targets' ids in the same order (invites are listed by id).
            table.columns.split(',').next().unwrap_or("1")
        ),
        params![],
        |row: &Row| Ok((0..width).map(|index| row.value(index)).collect()),
    )
}

impl Store {
    /// Copies every campaign of this database into `target`, which must hold none, in one write
    /// transaction on the target (a failure leaves it empty). The signing key is not in the database:
    /// the target needs the same key file to add to the logs (`omen db migrate` copies it).
    ///
    /// # Errors
    /// [`StoreError::Invalid`] when the target holds campaigns; the engines' errors.
    pub fn copy_into(&self, target: &mut Store) -> Result<CopyReport, StoreError> {
        let rows = self.read(|conn| {
            TABLES
                .iter()
                .map(|table| read_table(conn, table))
                .collect::<Result<Vec<_>, _>>()
        })?;
        target.write(|conn| {
            let taken = conn
                .query_opt("SELECT name FROM campaign LIMIT 1", params![], |row| {
                    row.get::<String>(0)
                })?;
            if let Some(name) = taken {
                return Err(StoreError::Invalid(format!(
                    "the target database already holds campaign `{name}`; move into an empty database"
                )));
            }
            let mut ids: HashMap<&str, HashMap<i64, i64>> = HashMap::new();
            let mut report = CopyReport::default();
            for (table, rows) in TABLES.iter().zip(rows) {
                let all: Vec<&str> = table.columns.split(',').map(str::trim).collect();
                let columns = if table.has_id { &all[1..] } else { &all[..] };
                let placeholders = vec!["?"; columns.len()].join(", ");
                let sql = format!(
                    "INSERT INTO {} ({}) VALUES ({placeholders})",
                    table.name,
                    columns.join(", ")
                );
                for mut row in rows {
                    for (position, linked) in table.links {
                        if let Param::Integer(old) = row[*position] {
                            let new = ids
                                .get(linked)
                                .and_then(|map| map.get(&old))
                                .ok_or_else(|| {
                                    StoreError::Corrupt(format!(
                                        "a {} row links to {linked} {old}, which is not there",
                                        table.name
                                    ))
                                })?;
                            row[*position] = Param::Integer(*new);
                        }
                    }
                    if table.has_id {
                        let Param::Integer(old) = row[0] else {
                            return Err(StoreError::Corrupt(format!(
                                "a {} row has no id",
                                table.name
                            )));
                        };
                        let new = conn.insert(&sql, &row[1..])?;
                        ids.entry(table.name).or_default().insert(old, new);
                    } else {
                        conn.execute(&sql, &row)?;
                    }
                    match table.name {
                        "campaign" => report.campaigns += 1,
                        "character" => report.characters += 1,
                        "saved_roll" => report.saved_rolls += 1,
                        "roll_log" => report.log_entries += 1,
                        "invite" => report.invites += 1,
                        "discord_channel" => report.discord_bindings += 1,
                        "discord_link" => report.discord_links += 1,
                        "discord_gm_channel" => report.discord_gm_channels += 1,
                        _ => {}
                    }
                }
            }
            Ok(report)
        })
    }
}
