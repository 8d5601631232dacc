//! Scanning JSON text byte by byte: where a string ends, and whether its escapes parse. The
//! lazy values and the value references both walk JSON text with these.

/// Skips a string from just after its opening quote; returns the position just after its
/// closing quote. Sets `unsure` on a `\u` escape that a [`Value`] parse refuses
/// ([`unicode_escape`]).
pub(crate) fn skip_string(bytes: &[u8], mut at: usize, unsure: &mut bool) -> usize {
    loop {
        at = string_stop(bytes, at, false);
        match bytes.get(at) {
            None => return at,
            Some(b'"') => return at + 1,
            Some(_) if bytes.get(at + 1) == Some(&b'u') => {
                let (end, parses) = unicode_escape(bytes, at).unwrap_or((at + 6, false));
                at = end;
                *unsure |= !parses;
            }
            Some(_) => at += 2,
        }
    }
}

/// The `\u` escape whose backslash is at `at`: where it ends, and whether a [`Value`]
/// parse takes it, which it does unless it is a UTF-16 surrogate that is not a leading one
/// followed at once by a trailing one (the pair ends after both). `None` when its four hex
/// digits are not there.
pub(crate) fn unicode_escape(bytes: &[u8], at: usize) -> Option<(usize, bool)> {
    let end = at + 6;
    Some(match hex4(bytes, at + 2)? {
        0xD800..=0xDBFF => {
            let paired = bytes.get(end..end + 2) == Some(b"\\u")
                && matches!(hex4(bytes, end + 2), Some(0xDC00..=0xDFFF));
            if paired {
                (end + 6, true)
            } else {
                (end, false)
            }
        }
        0xDC00..=0xDFFF => (end, false),
        _ => (end, true),
    })
}

/// The position of the first `"`, `\\` or (when `controls` says the text may hold one)
/// control character at or after `at`, or the length of `bytes`: where a plain stretch of
/// a string ends.
///
/// Strings are most of a call's text, so they are searched a word at a time: a byte of a
/// word equals `b` when the word XOR `b` repeated has a zero byte there; the lowest byte
/// below `n` (at most 128) in `x` is the lowest byte set in `(x - n..n) & !x & 0x80..80`,
/// since a borrow only reaches bytes above such a byte.
#[inline]
pub(crate) fn string_stop(bytes: &[u8], mut at: usize, controls: bool) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    const QUOTES: u64 = ONES * b'"' as u64;
    const BACKSLASHES: u64 = ONES * b'\\' as u64;
    const SPACES: u64 = ONES * 0x20;
    // Where in a word the string may stop: a high bit set in each such byte.
    let stops = |word: &[u8]| {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        let word = u64::from_le_bytes(eight);
        let quote = word ^ QUOTES;
        let backslash = word ^ BACKSLASHES;
        let mut found =
            (quote.wrapping_sub(ONES) & !quote) | (backslash.wrapping_sub(ONES) & !backslash);
        if controls {
            found |= word.wrapping_sub(SPACES) & !word;
        }
        found & HIGH
    };
    // Where in a pair of words the string stops, if it does.
    let in_pair = |pair: &[u8]| {
        let (low, high) = pair.split_at(8);
        let (low, high) = (stops(low), stops(high));
        (low | high != 0).then(|| {
            let found = if low == 0 {
                64 + high.trailing_zeros()
            } else {
                low.trailing_zeros()
            };
            (found / 8) as usize
        })
    };
    let rest = bytes.get(at..).unwrap_or_default();
    // Two words a step, tested at once: most strings end within the first sixteen bytes,
    // so the branch that leaves the loop mostly goes one way, and is rarely mispredicted
    // (measured: a sixth less time over the benchmark than a word a step, for more
    // instructions).
    let mut pairs = rest.chunks_exact(16);
    if !controls && let Some(pair) = pairs.next() {
        // Without control characters to look for, a string longer than one pair is
        // searched past it by `memchr`, whose vector search takes 32 bytes a step where
        // the processor has them.
        if let Some(found) = in_pair(pair) {
            return at + found;
        }
        let past = rest.get(16..).unwrap_or_default();
        return at + 16 + memchr::memchr2(b'"', b'\\', past).unwrap_or(past.len());
    }
    for pair in &mut pairs {
        if let Some(found) = in_pair(pair) {
            return at + found;
        }
        at += 16;
    }
    let mut words = pairs.remainder().chunks_exact(8);
    for word in &mut words {
        let found = stops(word);
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    for &byte in words.remainder() {
        if byte == b'"' || byte == b'\\' || (controls && byte < 0x20) {
            return at;
        }
        at += 1;
    }
    at
}

/// The four hex digits at `at`, as a UTF-16 code unit; `None` unless all four are hex
/// digits.
fn hex4(bytes: &[u8], at: usize) -> Option<u16> {
    bytes
        .get(at..at + 4)?
        .iter()
        .try_fold(0_u16, |unit, &byte| {
            let digit = char::from(byte).to_digit(16)?;
            Some(unit << 4 | u16::try_from(digit).ok()?)
        })
}
