//! One escaping function per output kind, for every string that comes from a trace, a
//! suite or a file name: terminal text (the text report and diagnostics), GitHub workflow
//! commands, JUnit XML, Markdown and HTML text. Each report calls these at the sites where
//! such a string is written.

use std::borrow::Cow;

use crate::safe::visible;

/// Terminal text: control characters (C0, DEL, C1) and bidirectional formatting characters
/// escaped as Rust writes them (`\n`, `\u{1b}`), so that the value prints as one inert
/// line and cannot start a line of its own (a workflow command in a CI log).
pub fn escape_terminal(value: &str) -> Cow<'_, str> {
    visible(value)
}

/// A GitHub workflow command's message: escaped for a terminal, then `%`, carriage return
/// and line feed as the runner reads them back, so that it stays on its line.
pub(crate) fn github_data(value: &str) -> String {
    let value = visible(value);
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A GitHub workflow command's property value: escaped as [`github_data`], and `:` and `,`
/// too, since they end a property or the property list.
pub(crate) fn github_property(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in github_data(value).chars() {
        match c {
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

/// JUnit XML text on one line: escaped for a terminal (a test reporter shows it), which
/// also escapes U+FFFE and U+FFFF, the two characters XML 1.0 forbids that are neither
/// controls nor surrogates. The XML writer escapes `<`, `&` and quotes itself.
pub(crate) fn xml(value: &str) -> Cow<'_, str> {
    visible(value)
}

/// JUnit XML text of several lines: each line escaped as [`xml`], the line breaks kept.
pub(crate) fn xml_lines(value: &str) -> String {
    value.split('\n').map(xml).collect::<Vec<_>>().join("\n")
}

/// Markdown: the value as an inline code span, escaped for a terminal, that a Markdown
/// parser shows as it is (no emphasis, mention, link or HTML).
pub(crate) fn markdown(value: &str) -> String {
    let text = visible(value);
    if text.is_empty() {
        // An empty pair of backticks is not a code span; a span of one space shows nothing.
        return "` `".to_owned();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let stripped_edges =
        text.starts_with(' ') && text.ends_with(' ') && text.chars().any(|c| c != ' ');
    if text.starts_with('`') || text.ends_with('`') || stripped_edges {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// HTML text or an attribute's value: escaped for a terminal (a page shows it as one inert
/// line, and no control or bidi character reorders it), then `&`, `<`, `>`, `"` and `'` as
/// entities, so that a value can never close an element or an attribute.
pub(crate) fn html(value: &str) -> String {
    let value = visible(value);
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
