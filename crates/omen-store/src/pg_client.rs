//! A pooled PostgreSQL connection with the statements prepared on it, and a transaction on one:
//! what the engine-neutral connection ([`crate::db::Conn`]) wraps, so it sits below the pool that
//! hands connections out ([`crate::pg`]).

use std::collections::HashMap;

use crate::error::StoreError;

/// How many prepared statements one connection keeps: the store's statements are a few dozen
/// fixed texts, plus the log's filters, which vary; past this the cache starts again.
const MAX_STATEMENTS: usize = 256;

/// A connection and the statements prepared on it, by their text.
pub(crate) struct Client {
    pub(crate) client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

/// An open transaction on a pooled connection, with that connection's prepared statements.
pub(crate) struct Transaction<'a> {
    tx: postgres::Transaction<'a>,
    statements: &'a mut HashMap<String, postgres::Statement>,
}

impl<'a> Transaction<'a> {
    /// Starts a transaction (read-only and on one snapshot when `read_only`, for reads that run
    /// several queries) on `client`.
    pub(crate) fn begin(client: &'a mut Client, read_only: bool) -> Result<Self, StoreError> {
        let Client { client, statements } = client;
        let tx = if read_only {
            client
                .build_transaction()
                .isolation_level(postgres::IsolationLevel::RepeatableRead)
                .read_only(true)
                .start()?
        } else {
            client.transaction()?
        };
        Ok(Transaction { tx, statements })
    }

    /// The statement for `sql` (with PostgreSQL's placeholders), prepared once per connection.
    fn statement(&mut self, sql: &str) -> Result<postgres::Statement, postgres::Error> {
        if let Some(statement) = self.statements.get(sql) {
            return Ok(statement.clone());
        }
        let statement = self.tx.prepare(sql)?;
        if self.statements.len() >= MAX_STATEMENTS {
            self.statements.clear();
        }
        self.statements.insert(sql.to_string(), statement.clone());
        Ok(statement)
    }

    pub(crate) fn execute(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<u64, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.execute(&statement, params)
    }

    pub(crate) fn query(
        &mut self,
        sql: &str,
        params: &[&(dyn postgres::types::ToSql + Sync)],
    ) -> Result<Vec<postgres::Row>, postgres::Error> {
        let statement = self.statement(sql)?;
        self.tx.query(&statement, params)
    }

    /// Runs a script of statements without parameters (a migration), unprepared.
    pub(crate) fn batch_execute(&mut self, sql: &str) -> Result<(), postgres::Error> {
        // A migration may change what a prepared statement reads: prepare them again afterwards.
        self.statements.clear();
        self.tx.batch_execute(sql)
    }

    pub(crate) fn commit(self) -> Result<(), postgres::Error> {
        self.tx.commit()
    }
}

impl Client {
    /// A new connection, with no statement prepared yet.
    pub(crate) fn new(client: postgres::Client) -> Self {
        Client {
            client,
            statements: HashMap::new(),
        }
    }
}
