//! Patterns (docs/matchers.md): the regular expressions a suite writes for tool names,
//! servers and `$regex`, compiled once for the suite. Shared by the tool matchers and the
//! value matchers, which otherwise know nothing of each other's modules.

use std::fmt;
use std::sync::Arc;

use regex_automata::meta;

use crate::reading::RegexRefusal;

/// A regular expression with the text it was written as. It is searched, unanchored.
#[derive(Debug, Clone)]
pub struct Pattern {
    text: String,
    /// Shared by every pattern of a suite written the same (`reading.rs`).
    regex: Arc<meta::Regex>,
    /// The only texts it matches, when it is written `^name$` or `^(name|other|...)$` with
    /// names of ASCII letters, digits, `_` and `-`: the anchored tool names that suites are
    /// advised to write, compared as strings rather than searched.
    exact: Option<Vec<String>>,
}

impl Pattern {
    /// Compiles `text` with the `regex` crate (linear time; `(?i)` and friends work),
    /// within [`MAX_REGEX_BYTES`](trailgate_trace::MAX_REGEX_BYTES) of compiled program.
    pub fn new(text: &str) -> Result<Self, regex::Error> {
        Ok(Self::of(
            text,
            Arc::new(trailgate_trace::compile_meta_regex(text)?),
        ))
    }

    /// A pattern of the suite being read: compiled once for the suite, and counted in its
    /// total ([`crate::reading::regex`]).
    pub(crate) fn read(text: &str) -> Result<Self, RegexRefusal> {
        Ok(Self::of(text, crate::reading::regex(text)?))
    }

    fn of(text: &str, regex: Arc<meta::Regex>) -> Self {
        Self {
            text: text.to_owned(),
            regex,
            exact: exact_texts(text),
        }
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the pattern is found anywhere in `haystack`.
    pub fn is_match(&self, haystack: &str) -> bool {
        match &self.exact {
            Some(texts) => texts.iter().any(|text| text == haystack),
            None => self.regex.is_match(haystack),
        }
    }
}

/// The texts a pattern written `^name$` or `^(name|other|...)$` matches, when every
/// alternative is a non-empty run of ASCII letters, digits, `_` and `-` (none of them special
/// in a regex outside a class, and `^` and `$` match only at the ends of the text without
/// the `m` flag, which such a pattern cannot set). `None` for any other pattern.
pub(crate) fn exact_texts(pattern: &str) -> Option<Vec<String>> {
    let inner = pattern.strip_prefix('^')?.strip_suffix('$')?;
    let alternatives: Vec<&str> = match inner.strip_prefix('(') {
        Some(group) => group.strip_suffix(')')?.split('|').collect(),
        None => vec![inner],
    };
    let plain = |text: &str| {
        !text.is_empty()
            && text
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
    };
    alternatives
        .iter()
        .all(|text| plain(text))
        .then(|| alternatives.into_iter().map(str::to_owned).collect())
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.text)
    }
}
