//! The pieces of a grader's [`Section`](trailgate_expect::Section) as each format shows them:
//! user text escaped for a terminal, as Markdown code, or as it is for a workflow command
//! (whose own escaping comes after).

use anstyle::{AnsiColor, Style};
use trailgate_expect::{Piece, Tone, Verdict};

use crate::escape::markdown;
use crate::safe::visible;

/// How a format shows pieces.
#[derive(Clone, Copy)]
pub(crate) enum Look<'p> {
    /// The text report: terminal-safe, coloured by `Painter`.
    Text(&'p Painter),
    /// JUnit XML text: terminal-safe, no colour.
    Junit,
    /// GitHub-flavoured Markdown: user text as inline code.
    Markdown,
    /// A workflow command's message: as it is; the command's escaping comes after.
    Raw,
}

/// Values such as call arguments are cut after this many characters in Markdown: a comment
/// should stay short, and the JSON report carries the whole value.
const VALUE_LIMIT: usize = 60;

/// `line` as `look` shows it.
pub(crate) fn render(line: &[Piece], look: Look<'_>) -> String {
    let mut out = String::new();
    for piece in line {
        push(&mut out, piece, look);
    }
    out
}

fn push(out: &mut String, piece: &Piece, look: Look<'_>) {
    match piece {
        Piece::Text(words) => out.push_str(words),
        Piece::Name(text) | Piece::Tool(text) => user(out, text, look, Shape::Whole),
        Piece::QuotedTool(text) => user(out, text, look, Shape::Quoted),
        Piece::Value(value) => user(out, value, look, Shape::Cut),
        Piece::QuotedValue(value) => user(out, value, look, Shape::QuotedCut),
        // In Markdown, one code span for the call, cut as a value is.
        Piece::Call { tool, args } if matches!(look, Look::Markdown) => {
            out.push_str(&markdown(&cut(&format!("{tool} {args}"))));
        }
        Piece::Call { tool, args } => {
            user(out, tool, look, Shape::Whole);
            out.push(' ');
            user(out, args, look, Shape::Whole);
        }
        Piece::Mark(tone, word) => match look {
            Look::Text(painter) => out.push_str(&painter.tone(*tone, word)),
            _ => out.push_str(word),
        },
        Piece::Verdict(passed) => match look {
            Look::Text(painter) => out.push_str(&painter.verdict(*passed)),
            _ => out.push_str(if *passed { "PASS" } else { "FAIL" }),
        },
        Piece::Closest(inner) => {
            let inner = render(inner, look);
            match look {
                Look::Text(_) => {
                    out.push_str("; ");
                    out.push_str(&inner);
                }
                Look::Markdown => {
                    out.push_str(" (closest: ");
                    out.push_str(&inner);
                    out.push(')');
                }
                Look::Junit | Look::Raw => {
                    out.push_str(" (");
                    out.push_str(&inner);
                    out.push(')');
                }
            }
        }
        // A piece of a kind this crate does not know yet shows as nothing.
        _ => {}
    }
}

/// How a piece of user text is shown beside trailgate's words.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// As it is.
    Whole,
    /// In backticks (Markdown shows every piece of user text as code anyway).
    Quoted,
    /// Cut to an excerpt.
    Cut,
    /// Cut, and in backticks.
    QuotedCut,
}

/// User text as `look` shows it: terminal-safe (and cut to an excerpt where the shape says)
/// in text and JUnit, inline code (cut first) in Markdown, as it is for a workflow command.
fn user(out: &mut String, text: &str, look: Look<'_>, shape: Shape) {
    let cuts = matches!(shape, Shape::Cut | Shape::QuotedCut);
    match look {
        Look::Markdown if cuts => out.push_str(&markdown(&cut(text))),
        Look::Markdown => out.push_str(&markdown(text)),
        Look::Raw => out.push_str(text),
        Look::Text(_) | Look::Junit => {
            let quoted = matches!(shape, Shape::Quoted | Shape::QuotedCut);
            if quoted {
                out.push('`');
            }
            if cuts {
                out.push_str(&excerpt(text));
            } else {
                out.push_str(&visible(text));
            }
            if quoted {
                out.push('`');
            }
        }
    }
}

/// A long value cut after [`VALUE_LIMIT`] characters, with an ellipsis.
pub(crate) fn cut(value: &str) -> String {
    if value.chars().count() <= VALUE_LIMIT {
        value.to_owned()
    } else {
        let head: String = value.chars().take(VALUE_LIMIT).collect();
        format!("{head}…")
    }
}

impl Painter {
    /// A word in its tone.
    pub(crate) fn tone(&self, tone: Tone, word: &str) -> String {
        match tone {
            Tone::Fail => self.paint(FAIL, word),
            Tone::Dim => self.paint(DIM, word),
            Tone::Plain => word.to_owned(),
        }
    }
}

/// How to render the text report.
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct TextOptions {
    /// Whether to style the output with ANSI colours.
    pub color: bool,
}

impl TextOptions {
    /// Options with colour on or off.
    pub fn with_color(color: bool) -> Self {
        Self { color }
    }
}

pub(crate) const PASS: Style = AnsiColor::Green.on_default().bold();
pub(crate) const FAIL: Style = AnsiColor::Red.on_default().bold();
const DIM: Style = Style::new().dimmed();
pub(crate) const BOLD: Style = Style::new().bold();
/// A gate on the baseline with nothing to compare with: neither passed nor failed.
pub(crate) const SKIP: Style = AnsiColor::Yellow.on_default().bold();

pub(crate) struct Painter {
    color: bool,
}

impl Painter {
    pub(crate) fn new(options: TextOptions) -> Self {
        Self {
            color: options.color,
        }
    }

    pub(crate) fn paint(&self, style: Style, text: &str) -> String {
        if self.color {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_owned()
        }
    }

    /// A test's verdict word: `PASS`, `FAIL`, `XFAIL` (expected, no failure) or `XPASS`
    /// (a failure: the mark should go).
    pub(crate) fn test_verdict(&self, verdict: Verdict) -> String {
        let style = match verdict {
            Verdict::Passed => PASS,
            Verdict::Failed | Verdict::XPassed => FAIL,
            Verdict::XFailed => SKIP,
        };
        self.paint(style, verdict.word())
    }

    pub(crate) fn verdict(&self, passed: bool) -> String {
        if passed {
            self.paint(PASS, "PASS")
        } else {
            self.paint(FAIL, "FAIL")
        }
    }
}

/// A value as one short line: control characters escaped (a newline shows as `\n`), cut
/// after 60 characters. The JSON report carries the whole value.
pub(crate) fn excerpt(value: &str) -> String {
    const LIMIT: usize = 60;
    let escaped = visible(value);
    if escaped.chars().count() <= LIMIT {
        escaped.into_owned()
    } else {
        let cut: String = escaped.chars().take(LIMIT).collect();
        format!("{cut}…")
    }
}
