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

/// What a t13 test's bought dice cost: each die is paid in the currency bought with (004-A6), so
/// the prices add up per currency and every one listed is owed; `nothing` without bought dice.
pub fn t13_cost(sway: u64, chi: u64, yarn: u64) -> String {
    let owed: Vec<String> = [(sway, "Sway"), (chi, "Chi"), (yarn, "Yarn")]
        .iter()
        .filter(|(amount, _)| *amount > 0)
        .map(|(amount, currency)| format!("{amount} {currency}"))
        .collect();
    if owed.is_empty() {
        "nothing (no bought dice)".to_string()
    } else {
        owed.join(" and ")
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

    #[test]
    fn a_cost_lists_only_what_is_owed() {
        assert_eq!(t13_cost(4, 0, 0), "4 Sway");
        assert_eq!(t13_cost(4, 1, 0), "4 Sway and 1 Chi");
        assert_eq!(t13_cost(0, 0, 0), "nothing (no bought dice)");
    }
}
