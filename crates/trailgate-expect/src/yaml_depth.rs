//! A linear pre-scan of a suite's flow nesting (`[`, `{`), run before the YAML parser sees
//! the text.
//!
//! The YAML reader refuses nesting past 128 levels, but only after its scanner has read the
//! whole document, and that scanner does work in proportion to the flow depth for every
//! token: a suite of 100,000 `[` took half an hour to be refused. This scan finds the first
//! bracket past the limit in one pass. It follows YAML closely enough never to count a
//! bracket inside a quoted scalar, a comment or a block scalar (`|`, `>`); in block context
//! a bracket counts only where a node can start, so `name: a[0` is a plain scalar.

/// The deepest flow nesting a suite may have: 128 levels, the YAML reader's own recursion
/// limit, which refuses anything deeper anyway.
pub const MAX_YAML_DEPTH: usize = 128;

/// The first character YAML does not allow in a file and its byte offset: a control
/// character other than tab, line feed and carriage return (NEL is allowed), a surrogate
/// or U+FFFE and U+FFFF (YAML 1.2, `c-printable`). The YAML reader refuses them too, but
/// names no position.
pub(crate) fn unprintable(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| {
        !matches!(
            c,
            '\t' | '\n' | '\r' | ' '..='~' | '\u{85}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}'
                | '\u{10000}'..
        )
    })
}

/// The byte offset of the first `[` or `{` that opens flow level `limit + 1`, if any.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0_usize;
    let mut i = 0;
    // The indentation under which lines belong to a block scalar, while in one.
    let mut block_scalar: Option<usize> = None;
    let mut line_start = true;
    while i < bytes.len() {
        if line_start {
            line_start = false;
            let indent = bytes[i..].iter().take_while(|&&b| b == b' ').count();
            let blank = matches!(bytes.get(i + indent), None | Some(b'\n' | b'\r'));
            if let Some(parent) = block_scalar {
                if blank || indent > parent {
                    i = next_line(bytes, i);
                    line_start = true;
                    continue;
                }
                block_scalar = None;
            }
        }
        let byte = bytes[i];
        match byte {
            b'\n' => {
                line_start = true;
                i += 1;
            }
            b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                i = next_line(bytes, i);
                line_start = true;
            }
            b'[' | b'{' if depth > 0 || node_start(bytes, i) => {
                depth += 1;
                if depth > limit {
                    return Some(i);
                }
                i += 1;
            }
            b']' | b'}' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            b'"' | b'\'' if node_start(bytes, i) || (depth > 0 && flow_start(bytes, i)) => {
                i = quoted_end(bytes, i);
            }
            b'|' | b'>' if depth == 0 && node_start(bytes, i) => {
                block_scalar = Some(key_column(bytes, i));
                i = next_line(bytes, i);
                line_start = true;
            }
            _ => i += 1,
        }
    }
    None
}

/// The start of the next line after position `i`.
fn next_line(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |n| i + n + 1)
}

/// The start of the line holding position `i`.
fn line_of(bytes: &[u8], i: usize) -> usize {
    bytes[..i]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |n| n + 1)
}

/// Whether a node can start at `i` in block context: first on its line, or after `- `,
/// `? `, `: `, or an anchor or tag.
fn node_start(bytes: &[u8], i: usize) -> bool {
    let start = line_of(bytes, i);
    let before = &bytes[start..i];
    let Some(last) = before.iter().rposition(|&b| b != b' ' && b != b'\t') else {
        return true;
    };
    if last + 1 == before.len() {
        return false; // no space between the previous token and this one
    }
    let token_start = before[..last]
        .iter()
        .rposition(|&b| b == b' ' || b == b'\t')
        .map_or(0, |n| n + 1);
    match before[last] {
        b'-' | b'?' if token_start == last => node_start(bytes, start + last),
        b':' => true,
        _ => matches!(before[token_start], b'&' | b'!') && node_start(bytes, start + token_start),
    }
}

/// Whether a quoted scalar can start at `i` in flow context.
fn flow_start(bytes: &[u8], i: usize) -> bool {
    i == 0
        || matches!(
            bytes[i - 1],
            b'[' | b'{' | b',' | b':' | b' ' | b'\t' | b'\n'
        )
}

/// The end (one past the closing quote) of the quoted scalar starting at `i`; it may span
/// lines.
fn quoted_end(bytes: &[u8], i: usize) -> usize {
    let quote = bytes[i];
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' if quote == b'"' => j += 2,
            b'\'' if quote == b'\'' && bytes.get(j + 1) == Some(&b'\'') => j += 2,
            b if b == quote => return j + 1,
            _ => j += 1,
        }
    }
    bytes.len()
}

/// The column of the node that owns a block scalar indicator at `i`: the line's indentation
/// with any `- ` sequence indicators counted in, so that `- help: |` takes the column of
/// `help`; for a sequence item that is itself the block scalar (`- |`), its dash's column.
fn key_column(bytes: &[u8], i: usize) -> usize {
    let start = line_of(bytes, i);
    let line = &bytes[start..i];
    let mut column = 0;
    let mut dash = None;
    loop {
        column += line[column..].iter().take_while(|&&b| b == b' ').count();
        if line.get(column) == Some(&b'-') && line.get(column + 1) == Some(&b' ') {
            dash = Some(column);
            column += 1;
        } else {
            break;
        }
    }
    match dash {
        Some(dash) if column == line.len() => dash,
        _ => column,
    }
}
