//! Rendering errors for people: miette's graphical report at a fixed width, so that the
//! same error gives the same bytes on every machine, with every piece of untrusted text
//! escaped for the terminal and the CI log.

use std::fmt;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, Severity, SourceCode, SourceSpan, SpanContents,
};
use trailgate_report::escape_terminal;

/// Wide enough for a suite line and its label, narrow enough for a CI log.
const WIDTH: usize = 100;

/// The rendered diagnostic, ending with a newline.
pub(crate) fn render(diagnostic: &dyn Diagnostic, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(WIDTH)
        .with_links(false);
    let shown = Shown::new(diagnostic);
    let mut out = String::new();
    if handler.render_report(&mut out, &shown).is_err() {
        // Rendering only fails when the source cannot be read; the message still stands.
        out = format!("error: {shown}\n");
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// A diagnostic as it is shown: its message, code, labels and the name of its source
/// escaped on one line each (file names, tool names and values come from traces and
/// suites), its help escaped line by line (several lines are trailgate's own). The
/// source text itself is made inert where it is read (`trailgate_trace::inert_source`),
/// where its byte offsets are kept.
struct Shown<'a> {
    inner: &'a dyn Diagnostic,
    message: String,
    labels: Option<Vec<LabeledSpan>>,
    source: Option<ShownSource<'a>>,
    related: Vec<Shown<'a>>,
    cause: Option<Box<Shown<'a>>>,
}

impl<'a> Shown<'a> {
    fn new(inner: &'a dyn Diagnostic) -> Self {
        Self {
            inner,
            message: line(&inner.to_string()),
            labels: inner.labels().map(|labels| {
                labels
                    .map(|label| shown_label(&label, inner.source_code()))
                    .collect()
            }),
            source: inner.source_code().map(ShownSource),
            related: inner
                .related()
                .map(|related| related.map(Shown::new).collect())
                .unwrap_or_default(),
            cause: inner
                .diagnostic_source()
                .map(|cause| Box::new(Shown::new(cause))),
        }
    }
}

/// The most characters of one message, label or help line shown: a suite or trace value
/// quoted in a message can be megabytes long, and a diagnostic must stay a few lines.
const SHOWN_CHARS: usize = 1000;

/// `text` escaped for the terminal on one line, cut after [`SHOWN_CHARS`] characters.
fn line(text: &str) -> String {
    let escaped = escape_terminal(text);
    let mut chars = escaped.char_indices();
    match chars.nth(SHOWN_CHARS) {
        None => escaped.into_owned(),
        Some((cut, _)) => {
            let rest = escaped[cut..].chars().count();
            format!("{}… ({rest} more characters)", &escaped[..cut])
        }
    }
}

/// `text` escaped and cut line by line, its line breaks kept.
fn lines(text: &str) -> String {
    text.split('\n').map(line).collect::<Vec<_>>().join("\n")
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shown")
            .field("message", &self.message)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown<'_> {}

impl Diagnostic for Shown<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let code = self.inner.code()?.to_string();
        Some(Box::new(line(&code)))
    }

    fn severity(&self) -> Option<Severity> {
        self.inner.severity()
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let help = self.inner.help()?.to_string();
        Some(Box::new(lines(&help)))
    }

    fn url<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        let url = self.inner.url()?.to_string();
        Some(Box::new(line(&url)))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|source| source as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let labels = self.labels.as_ref()?;
        Some(Box::new(labels.iter().cloned()))
    }

    fn related<'b>(&'b self) -> Option<Box<dyn Iterator<Item = &'b dyn Diagnostic> + 'b>> {
        if self.related.is_empty() {
            return None;
        }
        Some(Box::new(
            self.related
                .iter()
                .map(|related| related as &dyn Diagnostic),
        ))
    }

    fn diagnostic_source(&self) -> Option<&dyn Diagnostic> {
        self.cause.as_deref().map(|cause| cause as &dyn Diagnostic)
    }
}

/// The most bytes of source a label underlines: a span over a value of megabytes is
/// underlined by its start.
const LABEL_BYTES: usize = 120;

/// `label` with its text escaped and its span cut to [`LABEL_BYTES`], at a character
/// boundary of `source`.
fn shown_label(label: &LabeledSpan, source: Option<&dyn SourceCode>) -> LabeledSpan {
    let text = label.label().map(line);
    let span = *label.inner();
    let mut len = span.len();
    if len > LABEL_BYTES {
        len = LABEL_BYTES;
        let cut = SourceSpan::new(span.offset().into(), LABEL_BYTES);
        if let Some(contents) = source.and_then(|source| source.read_span(&cut, 0, 0).ok()) {
            let data = contents.data();
            let mut end = (span.offset() + len).saturating_sub(contents.span().offset());
            // A UTF-8 continuation byte is `10xxxxxx`.
            while data.get(end).is_some_and(|byte| byte & 0xc0 == 0x80) && len < span.len() {
                end += 1;
                len += 1;
            }
        }
    }
    let span = SourceSpan::new(span.offset().into(), len);
    if label.primary() {
        LabeledSpan::new_primary_with_span(text, span)
    } else {
        LabeledSpan::new_with_span(text, span)
    }
}

/// A diagnostic's source with its name escaped: a file name may hold a line break.
struct ShownSource<'a>(&'a dyn SourceCode);

impl SourceCode for ShownSource<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        let inner = self
            .0
            .read_span(span, context_lines_before, context_lines_after)?;
        let contents = match inner.name() {
            Some(name) => MietteSpanContents::new_named(
                line(name),
                inner.data(),
                *inner.span(),
                inner.line(),
                inner.column(),
                inner.line_count(),
            ),
            None => MietteSpanContents::new(
                inner.data(),
                *inner.span(),
                inner.line(),
                inner.column(),
                inner.line_count(),
            ),
        };
        Ok(Box::new(match inner.language() {
            Some(language) => contents.with_language(language),
            None => contents,
        }))
    }
}
