//! The `omen log` filters (character, action, since, until, last), declared once for every route
//! that takes them: the log's listing and the fairness report.
//!
//! A struct of the filters shared with serde's `flatten` would lose `deny_unknown_fields` (serde
//! does not support the two together), and with it the 400 that a misspelt filter gets instead of
//! being ignored. So [`log_filter_query!`] declares each route's query struct: the filters, then
//! the route's own fields, with one `deny_unknown_fields` over all of them, and the document's
//! parameters from the same fields.

/// Declares a query struct holding the `omen log` filters and the fields given, with
/// `filter(&self, campaign)` (the store's filter) and `filter_pairs(&self)` (the filters that are
/// set, by name, as a query string holds them).
macro_rules! log_filter_query {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$field_meta:meta])* pub $field:ident: $ty:ty, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, serde::Deserialize, utoipa::IntoParams)]
        #[serde(deny_unknown_fields)]
        #[into_params(parameter_in = Query)]
        pub struct $name {
            /// A character, by its name now or in an entry.
            pub character: Option<String>,
            /// An action's name (`roll`, `create`, `expression`, …).
            pub action: Option<String>,
            /// Entries at or after this time (RFC 3339, or a date for midnight UTC).
            #[param(schema_with = crate::schema::time)]
            pub since: Option<String>,
            /// Entries before this time.
            #[param(schema_with = crate::schema::time)]
            pub until: Option<String>,
            /// Only the last this many entries (after the other filters).
            #[param(maximum = 9007199254740991_u64)]
            #[serde(default, deserialize_with = "crate::filters::count")]
            pub last: Option<usize>,
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        impl $name {
            /// The store's filter of `campaign`'s log.
            pub(crate) fn filter(&self, campaign: &str) -> omen_store::LogFilter {
                omen_store::LogFilter {
                    campaign: Some(campaign.to_string()),
                    character: self.character.clone(),
                    action: self.action.clone(),
                    since: self.since.clone(),
                    until: self.until.clone(),
                    last: self.last,
                }
            }

            /// The filters that are set, by their names in the query string, with their values
            /// as text (not yet percent-encoded).
            #[allow(dead_code)]
            pub(crate) fn filter_pairs(&self) -> Vec<(&'static str, String)> {
                let texts = [
                    ("character", &self.character),
                    ("action", &self.action),
                    ("since", &self.since),
                    ("until", &self.until),
                ];
                let mut pairs: Vec<(&'static str, String)> = texts
                    .into_iter()
                    .filter_map(|(name, value)| Some((name, value.clone()?)))
                    .collect();
                pairs.extend(self.last.map(|last| ("last", last.to_string())));
                pairs
            }
        }
    };
}

pub(crate) use log_filter_query;

/// The largest `last` the document allows: JavaScript's largest exact whole number, so a client
/// that reads the document as JSON numbers can send every value it allows.
pub(crate) const MAX_LAST: u64 = (1 << 53) - 1;

/// `last`, refused past [`MAX_LAST`] as the document says (a 400, like any malformed filter),
/// rather than read as the `usize` it fits in.
pub(crate) fn count<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<usize>, D::Error> {
    use serde::Deserialize;
    match Option::<u64>::deserialize(deserializer)? {
        Some(last) if last > MAX_LAST => Err(serde::de::Error::custom(format!(
            "last must be at most {MAX_LAST}, not {last}"
        ))),
        last => Ok(last.map(|last| usize::try_from(last).unwrap_or(usize::MAX))),
    }
}

/// An entry number, refused past `i64::MAX` as the document's `int64` says (a 400): the log
/// numbers its entries as PostgreSQL's `BIGINT` does.
pub(crate) fn sequence<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    use serde::Deserialize;
    match Option::<u64>::deserialize(deserializer)? {
        Some(after) if after > i64::MAX as u64 => Err(serde::de::Error::custom(format!(
            "an entry number is at most {}, not {after}",
            i64::MAX
        ))),
        after => Ok(after),
    }
}

#[cfg(test)]
mod tests {
    log_filter_query! {
        /// A query with a field of its own.
        pub struct Probe {
            /// Where a page starts.
            #[serde(default, deserialize_with = "crate::filters::sequence")]
            pub after: Option<u64>,
        }
    }

    fn parse(query: &str) -> Result<Probe, String> {
        axum::extract::Query::<Probe>::try_from_uri(&format!("/x?{query}").parse().expect("a URI"))
            .map(|q| q.0)
            .map_err(|rejection| rejection.body_text())
    }

    #[test]
    fn the_filters_and_the_routes_own_fields_are_read_and_nothing_else() {
        let probe = parse("character=Ayla&last=3&after=7&since=2026-01-01").unwrap();
        assert_eq!(probe.after, Some(7));
        assert_eq!(
            probe.filter_pairs(),
            vec![
                ("character", "Ayla".to_string()),
                ("since", "2026-01-01".to_string()),
                ("last", "3".to_string()),
            ]
        );
        let filter = probe.filter("Tak");
        assert_eq!(filter.campaign.as_deref(), Some("Tak"));
        assert_eq!(filter.character.as_deref(), Some("Ayla"));
        assert_eq!(filter.last, Some(3));
        // A misspelt filter is refused, not ignored: what `flatten` would have lost.
        let refused = parse("charcter=Ayla").unwrap_err();
        assert!(refused.contains("unknown field `charcter`"), "{refused}");
        // Regression: `last` past the document's maximum was read, since it fits a `usize`.
        assert_eq!(
            parse("last=9007199254740991").unwrap().last,
            Some(9007199254740991)
        );
        let refused = parse("last=9007199254740992").unwrap_err();
        assert!(
            refused.contains("last must be at most 9007199254740991"),
            "{refused}"
        );
        assert_eq!(parse("").unwrap().last, None);
        assert_eq!(
            parse("after=9223372036854775807").unwrap().after,
            Some(i64::MAX as u64)
        );
        assert!(parse("after=9223372036854775808").is_err());
    }
}
