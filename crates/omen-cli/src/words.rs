//! Counts in sentences: "1 roll", "2 rolls".

/// `n` and the noun in its number: `one` for exactly 1, `many` otherwise (0 included).
pub fn count(n: impl std::fmt::Display, one: &str, many: &str) -> String {
    let n = n.to_string();
    if n == "1" {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_zero_plural() {
        assert_eq!(count(1, "roll", "rolls"), "1 roll");
        assert_eq!(count(0u64, "roll", "rolls"), "0 rolls");
        assert_eq!(count(12usize, "entry", "entries"), "12 entries");
    }
}
