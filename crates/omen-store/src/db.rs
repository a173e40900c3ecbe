//! The two database engines behind one small interface: a transaction that runs SQL with
//! parameters and gives rows of plain values. Everything the store knows (the hash chain, the
//! signatures, replay, redaction, fairness) is written once above it; only a handful of statements
//! differ between SQLite and PostgreSQL (a row lock, [`Conn::for_update`]), and the migrations.
//!
//! Statements are written with SQLite's placeholders (`?1`, `?2`, or bare `?` numbered in order)
//! and turned into PostgreSQL's (`$1`, `$2`) when they run there. Values are integers, text or
//! null, nothing else: no database type (a timestamp, a JSON column) ever enters hashed content,
//! so a log reads back byte for byte the same from either engine.

use std::cell::RefCell;

use crate::error::StoreError;

/// A value bound to a statement or read from a row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Param {
    Null,
    Integer(i64),
    Text(String),
}

/// A Rust value bound as a statement parameter (by reference, as rusqlite's `params!` does).
pub(crate) trait ToParam {
    fn to_param(&self) -> Param;
}

impl ToParam for i64 {
    fn to_param(&self) -> Param {
        Param::Integer(*self)
    }
}

impl ToParam for u32 {
    fn to_param(&self) -> Param {
        Param::Integer(i64::from(*self))
    }
}

impl ToParam for bool {
    fn to_param(&self) -> Param {
        Param::Integer(i64::from(*self))
    }
}

impl ToParam for str {
    fn to_param(&self) -> Param {
        Param::Text(self.to_string())
    }
}

impl ToParam for String {
    fn to_param(&self) -> Param {
        Param::Text(self.clone())
    }
}

impl<T: ToParam> ToParam for Option<T> {
    fn to_param(&self) -> Param {
        self.as_ref().map_or(Param::Null, ToParam::to_param)
    }
}

impl<T: ToParam + ?Sized> ToParam for &T {
    fn to_param(&self) -> Param {
        (**self).to_param()
    }
}

/// The parameters of one statement, each turned into a [`Param`].
macro_rules! params {
    () => { &[] as &[$crate::db::Param] };
    ($($value:expr),+ $(,)?) => {
        &[$($crate::db::ToParam::to_param(&$value)),+] as &[$crate::db::Param]
    };
}
pub(crate) use params;

/// A row read back: its columns in the order the statement selected them.
#[derive(Debug)]
pub(crate) struct Row(Vec<Param>);

/// A column's value as a Rust type.
pub(crate) trait FromParam: Sized {
    fn from_param(value: &Param) -> Option<Self>;
}

impl FromParam for i64 {
    fn from_param(value: &Param) -> Option<Self> {
        match value {
            Param::Integer(value) => Some(*value),
            _ => None,
        }
    }
}

impl FromParam for u32 {
    fn from_param(value: &Param) -> Option<Self> {
        i64::from_param(value).and_then(|value| u32::try_from(value).ok())
    }
}

impl FromParam for bool {
    fn from_param(value: &Param) -> Option<Self> {
        i64::from_param(value).map(|value| value != 0)
    }
}

impl FromParam for String {
    fn from_param(value: &Param) -> Option<Self> {
        match value {
            Param::Text(text) => Some(text.clone()),
            _ => None,
        }
    }
}

impl<T: FromParam> FromParam for Option<T> {
    fn from_param(value: &Param) -> Option<Self> {
        match value {
            Param::Null => Some(None),
            other => T::from_param(other).map(Some),
        }
    }
}

impl Row {
    /// Column `index` as it was read.
    pub(crate) fn value(&self, index: usize) -> Param {
        self.0.get(index).cloned().unwrap_or(Param::Null)
    }

    /// Column `index` as a `T`; a column of another type is a damaged database.
    pub(crate) fn get<T: FromParam>(&self, index: usize) -> Result<T, StoreError> {
        let value = self.0.get(index).unwrap_or(&Param::Null);
        T::from_param(value).ok_or_else(|| {
            StoreError::Corrupt(format!(
                "column {} holds {value:?}, not the {} expected",
                index + 1,
                std::any::type_name::<T>()
            ))
        })
    }
}

/// One open transaction on either engine.
pub(crate) enum Conn<'a> {
    Sqlite(&'a rusqlite::Connection),
    Postgres(RefCell<crate::pg_client::Transaction<'a>>),
}

impl Conn<'_> {
    /// What a `SELECT` that reads a row it is about to change ends with: PostgreSQL locks the row
    /// until the transaction ends; SQLite's write transactions already hold the whole database.
    pub(crate) fn for_update(&self) -> &'static str {
        match self {
            Conn::Sqlite(_) => "",
            Conn::Postgres(_) => " FOR UPDATE",
        }
    }

    /// Runs a statement; the number of rows it changed.
    pub(crate) fn execute(&self, sql: &str, params: &[Param]) -> Result<u64, StoreError> {
        match self {
            Conn::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                Ok(statement.execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Conn::Postgres(tx) => {
                let sql = postgres_placeholders(sql);
                let refs = postgres_params(params);
                Ok(tx.borrow_mut().execute(sql.as_str(), &refs)?)
            }
        }
    }

    /// Runs an `INSERT` into a table with an `id` column; the new row's id.
    pub(crate) fn insert(&self, sql: &str, params: &[Param]) -> Result<i64, StoreError> {
        let sql = format!("{sql} RETURNING id");
        self.query_opt(&sql, params, |row| row.get(0))?
            .ok_or_else(|| StoreError::Database("an insert returned no row".to_string()))
    }

    /// The first row a query gives, read by `read`, or none.
    pub(crate) fn query_opt<T>(
        &self,
        sql: &str,
        params: &[Param],
        read: impl FnOnce(&Row) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let rows = self.rows(sql, params)?;
        rows.first().map(read).transpose()
    }

    /// Every row a query gives, each read by `read`.
    pub(crate) fn query_map<T>(
        &self,
        sql: &str,
        params: &[Param],
        read: impl FnMut(&Row) -> Result<T, StoreError>,
    ) -> Result<Vec<T>, StoreError> {
        self.rows(sql, params)?.iter().map(read).collect()
    }

    fn rows(&self, sql: &str, params: &[Param]) -> Result<Vec<Row>, StoreError> {
        match self {
            Conn::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let width = statement.column_count();
                let mut rows = statement.query(rusqlite::params_from_iter(params.iter()))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    let mut values = Vec::with_capacity(width);
                    for index in 0..width {
                        use rusqlite::types::ValueRef;
                        values.push(match row.get_ref(index)? {
                            ValueRef::Null => Param::Null,
                            ValueRef::Integer(value) => Param::Integer(value),
                            ValueRef::Text(text) => {
                                Param::Text(String::from_utf8_lossy(text).into_owned())
                            }
                            ValueRef::Real(value) => Param::Text(value.to_string()),
                            ValueRef::Blob(_) => {
                                return Err(StoreError::Corrupt(format!(
                                    "column {} holds bytes where text or a number belongs",
                                    index + 1
                                )));
                            }
                        });
                    }
                    out.push(Row(values));
                }
                Ok(out)
            }
            Conn::Postgres(tx) => {
                let sql = postgres_placeholders(sql);
                let refs = postgres_params(params);
                let rows = tx.borrow_mut().query(sql.as_str(), &refs)?;
                rows.iter().map(postgres_row).collect()
            }
        }
    }

    /// Runs a script of several statements without parameters (a migration).
    pub(crate) fn batch(&self, sql: &str) -> Result<(), StoreError> {
        match self {
            Conn::Sqlite(conn) => Ok(conn.execute_batch(sql)?),
            Conn::Postgres(tx) => Ok(tx.borrow_mut().batch_execute(sql)?),
        }
    }
}

impl rusqlite::ToSql for Param {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(match self {
            Param::Null => ToSqlOutput::Borrowed(ValueRef::Null),
            Param::Integer(value) => ToSqlOutput::Borrowed(ValueRef::Integer(*value)),
            Param::Text(text) => ToSqlOutput::Borrowed(ValueRef::Text(text.as_bytes())),
        })
    }
}

impl postgres::types::ToSql for Param {
    fn to_sql(
        &self,
        ty: &postgres::types::Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>> {
        use postgres::types::Type;
        match self {
            Param::Null => Ok(postgres::types::IsNull::Yes),
            Param::Integer(value) => match *ty {
                Type::INT8 => value.to_sql(ty, out),
                Type::INT4 => i32::try_from(*value)?.to_sql(ty, out),
                Type::INT2 => i16::try_from(*value)?.to_sql(ty, out),
                Type::BOOL => (*value != 0).to_sql(ty, out),
                _ => value.to_string().to_sql(ty, out),
            },
            Param::Text(text) => text.as_str().to_sql(ty, out),
        }
    }

    fn accepts(ty: &postgres::types::Type) -> bool {
        use postgres::types::Type;
        matches!(
            *ty,
            Type::INT8 | Type::INT4 | Type::INT2 | Type::BOOL | Type::TEXT | Type::VARCHAR
        ) || ty.name() == "unknown"
    }

    postgres::types::to_sql_checked!();
}

fn postgres_params(params: &[Param]) -> Vec<&(dyn postgres::types::ToSql + Sync)> {
    params
        .iter()
        .map(|param| param as &(dyn postgres::types::ToSql + Sync))
        .collect()
}

fn postgres_row(row: &postgres::Row) -> Result<Row, StoreError> {
    use postgres::types::Type;
    let mut values = Vec::with_capacity(row.len());
    for (index, column) in row.columns().iter().enumerate() {
        let value = match *column.type_() {
            Type::INT8 => row.try_get::<_, Option<i64>>(index)?.map(Param::Integer),
            Type::INT4 => row
                .try_get::<_, Option<i32>>(index)?
                .map(|value| Param::Integer(value.into())),
            Type::INT2 => row
                .try_get::<_, Option<i16>>(index)?
                .map(|value| Param::Integer(value.into())),
            Type::BOOL => row
                .try_get::<_, Option<bool>>(index)?
                .map(|value| Param::Integer(value.into())),
            _ => row.try_get::<_, Option<String>>(index)?.map(Param::Text),
        };
        values.push(value.unwrap_or(Param::Null));
    }
    Ok(Row(values))
}

/// SQLite's placeholders (`?1`, `?`) as PostgreSQL's (`$1`): a numbered one keeps its number, a
/// bare one takes the next. Statements here hold no `?` inside quoted text.
pub(crate) fn postgres_placeholders(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut next = 0;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '?' {
            out.push(c);
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        if digits.is_empty() {
            next += 1;
            out.push_str(&format!("${next}"));
        } else {
            out.push('$');
            out.push_str(&digits);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_keep_their_numbers_and_bare_ones_count_up() {
        assert_eq!(
            postgres_placeholders("SELECT a FROM t WHERE b = ?1 AND c = ?2 OR d = ?1"),
            "SELECT a FROM t WHERE b = $1 AND c = $2 OR d = $1"
        );
        assert_eq!(
            postgres_placeholders("INSERT INTO t (a, b) VALUES (?, ?)"),
            "INSERT INTO t (a, b) VALUES ($1, $2)"
        );
        assert_eq!(postgres_placeholders("?12"), "$12");
    }

    #[test]
    fn a_column_of_another_type_is_an_error_not_a_panic() {
        let row = Row(vec![Param::Text("x".to_string()), Param::Null]);
        assert!(row.get::<i64>(0).is_err());
        assert_eq!(row.get::<Option<i64>>(1).unwrap(), None);
        assert!(row.get::<String>(1).is_err());
        assert!(row.get::<String>(5).is_err());
    }
}
