//! Turning the YAML reader's errors into problems: the code, label and help that errors
//! raised while deserializing carry in their message, libyaml's and serde's wording, and the
//! span of the token at a position.

use miette::SourceSpan;

use crate::error::{CUSTOM, FIELD, Problem};

use super::PathSeg;

/// The problem an error raised while deserializing carries in its message: its code, label
/// and help ride between the separators of [`custom`](crate::error::custom), so that the
/// parser's own error type carries them to `SuiteFile::yaml_problem`
/// with the position it attaches.
pub(super) fn decode_custom(text: &str) -> Problem {
    let mut parts = text.trim_start_matches(CUSTOM).splitn(4, FIELD);
    let code = parts.next().unwrap_or_default();
    let label = parts.next().unwrap_or("here");
    let help = parts.next().unwrap_or_default();
    let message = parts.next().unwrap_or_default();
    let code = KNOWN_CODES
        .iter()
        .find(|known| **known == code)
        .copied()
        .unwrap_or("trailgate::suite::invalid_value");
    let problem = Problem::new(code, message, label);
    if help.is_empty() {
        problem
    } else {
        problem.with_help(help)
    }
}

/// The codes an error raised while deserializing may carry; any other is read as
/// `invalid_value`.
const KNOWN_CODES: &[&str] = &[
    "trailgate::suite::invalid_regex",
    "trailgate::suite::regex_too_big",
    "trailgate::suite::regexes_too_big",
    "trailgate::suite::matchers_too_large",
    "trailgate::suite::empty",
    "trailgate::suite::invalid_value",
    "trailgate::suite::invalid_member",
    "trailgate::suite::invalid_agent",
    "trailgate::suite::out_of_range",
    "trailgate::suite::missing_key",
    "trailgate::suite::unknown_operator",
    "trailgate::suite::invalid_matcher",
    "trailgate::suite::invalid_schema",
];

/// For libyaml's `problem, while <context> at line L column C`: the problem, the context,
/// and where the context starts.
pub(super) fn libyaml_context(text: &str) -> Option<(&str, &str, usize, usize)> {
    let (message, rest) = text.split_once(", while ")?;
    let (context, position) = rest.rsplit_once(" at line ")?;
    let (line, column) = position.split_once(" column ")?;
    let context = context.strip_prefix("parsing ").unwrap_or(context);
    let context = context.strip_prefix("scanning ").unwrap_or(context);
    Some((
        message,
        context,
        line.trim().parse().ok()?,
        column.trim().parse().ok()?,
    ))
}

/// The parser's path of a node (`tests[0].equal_function_sets`) as path segments.
pub(super) fn yaml_path(path: &str) -> Vec<PathSeg<'_>> {
    let mut segments = Vec::new();
    for part in path.split('.').filter(|part| !part.is_empty()) {
        let mut pieces = part.split('[');
        if let Some(key) = pieces.next().filter(|key| !key.is_empty()) {
            segments.push(PathSeg::Key(key));
        }
        for index in pieces {
            if let Ok(index) = index.trim_end_matches(']').parse() {
                segments.push(PathSeg::Index(index));
            }
        }
    }
    segments
}

/// Splits the parser's `path: message` into its parts.
pub(super) fn split_path(text: &str) -> (Option<&str>, &str) {
    match text.split_once(": ") {
        Some((path, message)) if !path.contains([' ', '`']) => (Some(path), message),
        _ => (None, text),
    }
}

/// The token in backticks right after `prefix`, when `message` starts with it.
pub(super) fn backticked(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(token, _)| token.to_owned())
}

/// For serde's ``unknown field `x`, expected one of `a`, `b` ``: `x` and the valid names.
pub(super) fn parse_expected(message: &str, prefix: &str) -> Option<(String, Vec<String>)> {
    let rest = message.strip_prefix(prefix)?;
    let (token, rest) = rest.split_once('`')?;
    let valid = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect();
    Some((token.to_owned(), valid))
}

/// A span over the token that starts at `offset`: a quoted string, a plain scalar up to
/// the end of its line (or a flow separator), or one character.
pub(super) fn token_span(text: &str, offset: usize) -> SourceSpan {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let rest = &text[offset..];
    let len = match rest.chars().next() {
        None => 0,
        Some(quote @ ('"' | '\'')) => rest[1..]
            .find(quote)
            .map_or_else(|| rest.find('\n').unwrap_or(rest.len()), |end| end + 2),
        Some(c @ ('[' | '{' | '\n')) => c.len_utf8(),
        Some(_) => {
            let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
            let mut end = line.len();
            for (i, c) in line.char_indices() {
                let next = line[i + c.len_utf8()..].chars().next();
                let stop = matches!(c, ',' | ']' | '}')
                    || (c == ':' && matches!(next, None | Some(' ')))
                    || (c == '#' && i > 0 && line[..i].ends_with(' '));
                if stop {
                    end = i;
                    break;
                }
            }
            line[..end].trim_end().len().max(1)
        }
    };
    SourceSpan::new(offset.into(), len)
}

/// The span of the first alias (`*name`) in a YAML text: a `*` that starts a token.
pub(super) fn first_alias(text: &str) -> Option<SourceSpan> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find(|&i| {
            bytes[i] == b'*'
                && (i == 0
                    || matches!(
                        bytes[i - 1],
                        b' ' | b'\t' | b'\n' | b'[' | b'{' | b',' | b'-' | b':'
                    ))
                && bytes
                    .get(i + 1)
                    .is_some_and(|next| !next.is_ascii_whitespace())
        })
        .map(|start| {
            let end = text[start..]
                .find(|c: char| c.is_whitespace() || matches!(c, ',' | ']' | '}'))
                .map_or(text.len(), |len| start + len);
            SourceSpan::new(start.into(), end - start)
        })
}
