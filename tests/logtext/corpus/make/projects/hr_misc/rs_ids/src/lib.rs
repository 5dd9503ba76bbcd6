//! Order ids: "ORD-" followed by digits.

/// Parses "ORD-123" into 123; panics on anything else.
pub fn parse_id(raw: &str) -> u32 {
    let digits = raw.strip_prefix("ORD-").unwrap_or(raw);
    digits.parse().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_prefixed() {
        assert_eq!(parse_id("ORD-42"), 42);
    }

    #[test]
    fn parses_bare_digits() {
        assert_eq!(parse_id("7"), 7);
    }

    #[test]
    #[should_panic(expected = "invalid digit")]
    fn rejects_letters() {
        parse_id("ORD-4x2");
    }
}
