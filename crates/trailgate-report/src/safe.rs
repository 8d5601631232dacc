//! Untrusted text made safe to print. Tool names, arguments, results and file names come
//! from traces that agents wrote, and agents echo whatever a model or a web page said: a
//! terminal escape sequence in them must not reach a terminal, a line break must not start
//! a line of its own (where a CI runner could read it as a workflow command), and a bidi
//! control must not reorder what a reviewer sees.

use std::borrow::Cow;
use std::fmt;

/// `value` with every control character (C0, DEL, C1), every bidirectional formatting
/// character and U+FFFE and U+FFFF escaped as Rust writes them (`\n`, `\u{1b}`, `\u{202e}`), so that it prints as
/// one inert line. Text with none of them is returned as it is.
pub(crate) fn visible(value: &str) -> Cow<'_, str> {
    if !value.chars().any(unsafe_char) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 8);
    for c in value.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `c` changes how a terminal, a log viewer or an editor shows what follows it.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // Arabic letter mark, left-to-right and right-to-left marks, the embeddings and
            // overrides, and the isolates (Unicode Bidirectional Algorithm, "Trojan Source").
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            // The two characters XML 1.0 forbids that are neither controls nor surrogates:
            // JUnit would not parse with them, and no text needs them.
            | '\u{fffe}' | '\u{ffff}'
        )
}

/// A value displayed through [`visible`]: `format!("{}", Shown(&call.tool))`.
pub(crate) struct Shown<T>(pub(crate) T);

impl<T: fmt::Display> fmt::Display for Shown<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&visible(&self.0.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::{Shown, visible};

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        let text = "brave.web_search — naïve 東京 `code` %";
        assert!(matches!(visible(text), std::borrow::Cow::Borrowed(t) if t == text));
    }

    #[test]
    fn controls_and_bidi_overrides_are_escaped() {
        let hostile = "a\u{1b}[2J\u{9b}31m\n::error::x\r\t\u{7f}\u{0}\u{202e}b\u{2066}";
        let shown = visible(hostile);
        assert_eq!(
            shown,
            r"a\u{1b}[2J\u{9b}31m\n::error::x\r\t\u{7f}\u{0}\u{202e}b\u{2066}"
        );
        assert!(shown.chars().all(|c| c.is_ascii_graphic() || c == ' '));
    }

    #[test]
    fn shown_escapes_what_display_writes() {
        assert_eq!(Shown("x\ny").to_string(), r"x\ny");
    }
}
