//! Names as the seed writes them (003-A21): any case and punctuation, the seed's other spellings, and
//! the nearest valid name when a player misspells one.

use thiserror::Error;

/// Why a name was not recognised.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NameError {
    #[error("unknown {kind} `{name}`; did you mean {suggestion}?")]
    Nearest {
        kind: &'static str,
        name: String,
        suggestion: String,
    },
    #[error("unknown {kind} `{name}`; use one of: {valid}")]
    Unknown {
        kind: &'static str,
        name: String,
        valid: String,
    },
}

/// Upper case, every run of other characters than letters and digits one space: "house_elf",
/// "House-Elf" and "HOUSE ELF" are one name, as are "asterias eyes" and "ASTERIA'S EYES".
pub(crate) fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut gap = false;
    for c in text.chars() {
        if c == '\'' {
            continue;
        }
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.extend(c.to_uppercase());
        } else {
            gap = true;
        }
    }
    out
}

pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let substitute = previous[j] + usize::from(ca != cb);
            current.push(substitute.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// The value of `all` whose name or alias is `text` (ignoring case and punctuation).
///
/// # Errors
/// [`NameError::Nearest`] when one name is within two edits, else [`NameError::Unknown`] listing
/// every valid name.
pub fn lookup<T: Copy>(
    text: &str,
    kind: &'static str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
    aliases: impl Fn(T) -> &'static [&'static str],
) -> Result<T, NameError> {
    let key = normalize(text);
    if let Some(&found) = all.iter().find(|&&value| {
        normalize(name(value)) == key || aliases(value).iter().any(|a| normalize(a) == key)
    }) {
        return Ok(found);
    }
    // A misspelt alias ("FIRMNES") points to the canonical name it stands for.
    let spellings: Vec<(&'static str, &'static str)> = all
        .iter()
        .flat_map(|&value| {
            let canonical = name(value);
            std::iter::once(canonical)
                .chain(aliases(value).iter().copied())
                .map(move |spelling| (spelling, canonical))
        })
        .collect();
    nearest_of(
        text,
        kind,
        spellings.into_iter(),
        all.iter().map(|&value| name(value)),
    )
}

pub(super) fn nearest<T>(
    text: &str,
    kind: &'static str,
    names: impl Iterator<Item = &'static str> + Clone,
) -> Result<T, NameError> {
    nearest_of(text, kind, names.clone().map(|n| (n, n)), names)
}

/// The error for `text`: the canonical name of the nearest spelling within two edits, else every
/// valid name.
fn nearest_of<T>(
    text: &str,
    kind: &'static str,
    spellings: impl Iterator<Item = (&'static str, &'static str)>,
    names: impl Iterator<Item = &'static str>,
) -> Result<T, NameError> {
    let key = normalize(text);
    let best = spellings
        .map(|(spelling, canonical)| (edit_distance(&normalize(spelling), &key), canonical))
        .min_by_key(|(distance, _)| *distance);
    match best {
        Some((distance, suggestion)) if distance <= 2 && !key.is_empty() => {
            Err(NameError::Nearest {
                kind,
                name: text.to_string(),
                suggestion: suggestion.to_string(),
            })
        }
        _ => Err(NameError::Unknown {
            kind,
            name: text.to_string(),
            valid: names.collect::<Vec<_>>().join(", "),
        }),
    }
}
