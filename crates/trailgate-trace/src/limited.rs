//! Reading within a size limit, never holding more than the limit and one byte: a line of a
//! JSON Lines trace, a whole document, or a whole input as text. The workspace's one
//! bounded reader: `trailgate-run` reads the suite and the `accuracy` input with
//! [`read_text_limited`].

use std::io::{self, BufRead, Read};

/// What a limited read found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Limited {
    /// A line or a document, now in the buffer.
    Read,
    /// Nothing more: the end of the input.
    End,
    /// More than the limit; the buffer holds at most the limit.
    TooLong,
}

/// Reads one line, with its line break, onto the end of `buffer`, refusing a line whose text (without
/// the line break) is longer than `limit` bytes. At most `limit` bytes and the line break
/// are read (the break searched for by `memchr`, many bytes at a time); on refusal the
/// buffer holds at most the limit. The buffer doubles while the line is short, and once the
/// line outgrows a [`DOUBLING_SHARE`]th of the limit it is given room for the whole limit at
/// once ([`grow_line`]), so that a refused line holds the limit and, while it is moved, the
/// buffer it outgrew: never the chain of doublings up to the limit.
pub(crate) fn read_line_limited(
    reader: &mut impl BufRead,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Limited> {
    let start = buffer.len();
    let cap = limit.saturating_add(1);
    loop {
        let room = cap - (buffer.len() - start);
        if room == 0 {
            break;
        }
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let window = available.get(..room).unwrap_or(available);
        if window.is_empty() {
            break;
        }
        let (used, ended) = match memchr::memchr(b'\n', window) {
            Some(at) => (at + 1, true),
            None => (window.len(), false),
        };
        grow_line(buffer, buffer.len() + used, start, start + cap);
        buffer.extend_from_slice(window.get(..used).unwrap_or_default());
        reader.consume(used);
        if ended {
            break;
        }
    }
    if buffer.len() == start {
        return Ok(Limited::End);
    }
    if buffer.ends_with(b"\n") || buffer.len() - start <= limit {
        return Ok(Limited::Read);
    }
    buffer.truncate(start + limit);
    Ok(Limited::TooLong)
}

/// How far a line's buffer grows by doubling: until the line is longer than this share of
/// its limit (1 MiB of `MAX_LINE_BYTES`' 64 MiB).
const DOUBLING_SHARE: usize = 64;

/// Makes room in `buffer` for `needed` bytes in all, for a line that starts at `start` and
/// may end at `ceiling` (the limit and one byte past it): doubling while the line is at most
/// a [`DOUBLING_SHARE`]th of its limit, as [`grow_within`] does; past that, room for the
/// whole limit at once. Each growth copies the line into a new buffer while the old one is
/// still held: doubling up to the limit went from 32 MiB to 64 MiB, and then, for the one
/// byte past the limit that tells a refused line, copied the whole 64 MiB into a buffer of
/// 64 MiB and one byte, twice the limit at once (refusing a 150 MB line held 157 MB). Room
/// the line does not fill is never written, so the system gives it no memory.
fn grow_line(buffer: &mut Vec<u8>, needed: usize, start: usize, ceiling: usize) {
    if needed <= buffer.capacity() {
        return;
    }
    if needed - start <= (ceiling - start) / DOUBLING_SHARE {
        grow_within(buffer, needed, ceiling);
        return;
    }
    let target = ceiling.max(needed);
    held(buffer.capacity(), target);
    buffer.reserve_exact(target - buffer.len());
}

/// Makes room in `buffer` for `needed` bytes in all, doubling its capacity as a `Vec`
/// does but never past `ceiling` (the limit and one byte): a refused input then ends with
/// a buffer of at most the limit, where doubling past it would hold twice as much, and
/// copying the last half into a buffer of double size three times as much at its peak.
fn grow_within(buffer: &mut Vec<u8>, needed: usize, ceiling: usize) {
    if needed <= buffer.capacity() {
        return;
    }
    let target = buffer
        .capacity()
        .saturating_mul(2)
        .max(8 << 10)
        .min(ceiling)
        .max(needed);
    held(buffer.capacity(), target);
    buffer.reserve_exact(target - buffer.len());
}

#[cfg(test)]
thread_local! {
    /// The most bytes a growth of a buffer held on this thread since [`most_held`] began:
    /// its old room and its new, which coexist while the bytes are copied.
    static MOST_HELD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Notes a growth from `old` bytes of room to `new`, for the tests that bound what a
/// refusal holds; nothing outside them.
#[inline]
fn held(old: usize, new: usize) {
    #[cfg(test)]
    MOST_HELD.with(|most| most.set(most.get().max(old.saturating_add(new))));
    #[cfg(not(test))]
    let _ = (old, new);
}

/// What `f` returns, and the most bytes a buffer's growth held at once while it ran (its
/// old room and its new).
#[cfg(test)]
pub(crate) fn most_held<T>(f: impl FnOnce() -> T) -> (T, usize) {
    MOST_HELD.with(|most| most.set(0));
    let value = f();
    (value, MOST_HELD.with(std::cell::Cell::get))
}

/// Reads the whole input into `buffer`, refusing more than `limit` bytes: at most one byte
/// past the limit is read, into a buffer that grows no larger than that.
pub(crate) fn read_document_limited(
    reader: &mut impl Read,
    buffer: &mut Vec<u8>,
    limit: usize,
) -> io::Result<Limited> {
    let start = buffer.len();
    let ceiling = start.saturating_add(limit).saturating_add(1);
    while buffer.len() < ceiling {
        grow_within(buffer, buffer.len() + 1, ceiling);
        // Exactly the spare room is read, so `read_to_end` never grows the buffer itself.
        let room = (buffer.capacity().min(ceiling) - buffer.len()) as u64;
        let before = buffer.len();
        reader.take(room).read_to_end(buffer)?;
        if buffer.len() == before {
            break;
        }
    }
    let buffer = &buffer[start..];
    Ok(if buffer.len() > limit {
        Limited::TooLong
    } else if buffer.is_empty() {
        Limited::End
    } else {
        Limited::Read
    })
}

/// Reads all of `reader` as UTF-8 text, refusing more than `limit` bytes as
/// [`read_document_limited`] does (one byte past the limit is read, into a buffer that grows
/// no larger): `None` when the input holds more. Bytes that are not UTF-8 are an
/// [`io::ErrorKind::InvalidData`] error, `not UTF-8 text (...)`.
pub fn read_text_limited(mut reader: impl Read, limit: usize) -> io::Result<Option<String>> {
    let mut bytes = Vec::new();
    if read_document_limited(&mut reader, &mut bytes, limit)? == Limited::TooLong {
        return Ok(None);
    }
    String::from_utf8(bytes).map(Some).map_err(|error| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 text ({error})"),
        )
    })
}
