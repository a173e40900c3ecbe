//! Log times: RFC 3339 in UTC with milliseconds, `2026-11-23T15:41:03.123Z`. Every time is written in
//! this one shape, so comparing the text compares the times.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::StoreError;

/// Now, as a log time.
pub(crate) fn now() -> String {
    let millis = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    format_millis(millis)
}

/// Milliseconds since 1970-01-01T00:00:00Z as a log time.
pub(crate) fn format_millis(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000
    )
}

/// A time given by a user, as a log time: `2026-11-23` (midnight UTC), `2026-11-23T15:41:03Z`, with
/// fractional seconds, or with an offset such as `+02:00`.
///
/// # Errors
/// [`StoreError::Invalid`] for anything else.
pub fn normalize_time(text: &str) -> Result<String, StoreError> {
    parse_millis(text.trim()).map(format_millis).ok_or_else(|| {
        StoreError::Invalid(format!(
            "`{text}` is not a time; give a date such as 2026-11-23 or an RFC 3339 time such as 2026-11-23T18:30:00Z"
        ))
    })
}

/// The times a session (a UTC calendar day, `2026-11-23`) starts and ends, for a [`crate::LogFilter`]'s
/// `since` and `until`.
///
/// # Errors
/// [`StoreError::Invalid`] for anything but a date.
pub fn session_bounds(date: &str) -> Result<(String, String), StoreError> {
    let date = date.trim();
    let start = (date.len() == 10)
        .then(|| parse_millis(date))
        .flatten()
        .ok_or_else(|| {
            StoreError::Invalid(format!(
                "`{date}` is not a session; give its UTC date, such as 2026-11-23"
            ))
        })?;
    Ok((format_millis(start), format_millis(start + 86_400_000)))
}

fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_millis(text: &str) -> Option<i64> {
    let date = text.get(..10)?;
    let (year, month, day) = (
        number(date.get(..4)?)?,
        number(date.get(5..7)?)?,
        number(date.get(8..10)?)?,
    );
    if &date[4..5] != "-" || &date[7..8] != "-" || !(1..=12).contains(&month) {
        return None;
    }
    if day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let rest = &text[10..];
    if rest.is_empty() {
        return Some(days * 86_400_000);
    }
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (hour, minute) = (number(rest.get(..2)?)?, number(rest.get(3..5)?)?);
    if &rest[2..3] != ":" || hour > 23 || minute > 59 {
        return None;
    }
    let mut rest = &rest[5..];
    let mut second = 0;
    let mut millis = 0;
    if let Some(after) = rest.strip_prefix(':') {
        second = number(after.get(..2)?)?;
        if second > 59 {
            return None;
        }
        rest = &after[2..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            let mut scaled = fraction[..digits.min(3)].to_string();
            while scaled.len() < 3 {
                scaled.push('0');
            }
            millis = number(&scaled)?;
            rest = &fraction[digits..];
        }
    }
    let offset_minutes = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.get(..1)? {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let (h, m) = (number(rest.get(1..3)?)?, number(rest.get(4..6)?)?);
            if &rest[3..4] != ":" || rest.len() != 6 || h > 23 || m > 59 {
                return None;
            }
            sign * (h * 60 + m)
        }
    };
    Some(
        days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + millis
            - offset_minutes * 60_000,
    )
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's algorithms for the proleptic Gregorian calendar.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_millis(1_795_448_463_007), "2026-11-23T15:41:03.007Z");
    }

    #[test]
    fn normalizes_dates_times_and_offsets() {
        assert_eq!(
            normalize_time("2026-11-23").unwrap(),
            "2026-11-23T00:00:00.000Z"
        );
        assert_eq!(
            normalize_time("2026-11-23T15:41:03.007Z").unwrap(),
            "2026-11-23T15:41:03.007Z"
        );
        assert_eq!(
            normalize_time("2026-11-23T17:41+02:00").unwrap(),
            "2026-11-23T15:41:00.000Z"
        );
        assert_eq!(
            normalize_time("2026-11-23T15:41:03.5Z").unwrap(),
            "2026-11-23T15:41:03.500Z"
        );
        for bad in [
            "",
            "yesterday",
            "2026-02-30",
            "2026-11-23T25:00Z",
            "2026-11-23T10:00",
        ] {
            assert!(normalize_time(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn round_trips_every_day_of_four_centuries() {
        let start = days_from_civil(1900, 1, 1);
        for days in start..start + 146_097 {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
            assert!(d <= days_in_month(y, m));
        }
    }
}
