//! Slugs for URLs.

/// Turns a title into a URL slug.
///
/// ```
/// assert_eq!(slugs::slug("Hello World"), "hello-world");
/// assert_eq!(slugs::slug("  Rust & Go  "), "rust-go");
/// ```
pub fn slug(title: &str) -> String {
    title
        .split_whitespace()
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("-")
}

/// Shortens a slug to at most `max` bytes, never in the middle of a word.
///
/// ```
/// assert_eq!(slugs::shorten("one-two-three", 8), "one-two");
/// ```
pub fn shorten(slug: &str, max: usize) -> &str {
    if slug.len() <= max {
        return slug;
    }
    match slug[..max].rfind('-') {
        Some(cut) => &slug[..cut],
        None => &slug[..max],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowercases() {
        assert_eq!(slug("ABC"), "abc");
    }

    #[test]
    fn shortens_at_a_dash() {
        assert_eq!(shorten("alpha-beta", 7), "alpha");
    }

    #[test]
    #[allow(deprecated)]
    fn keeps_short_slugs() {
        assert_eq!(shorten("a-b", 10), "a-b");
    }
}
