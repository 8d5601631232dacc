//! Reading a whole input file within a size limit, without ever holding more than the
//! limit.

use std::io::{self, Read};

/// What a limited read found.
pub enum Limited {
    /// The whole text.
    Text(String),
    /// More than the limit.
    TooLarge,
}

/// Reads all of `reader` as UTF-8 text, or stops one byte past `limit`.
pub fn read_limited(reader: impl Read, limit: usize) -> io::Result<Limited> {
    let bytes = read_bytes(reader, limit)?;
    if bytes.len() > limit {
        return Ok(Limited::TooLarge);
    }
    String::from_utf8(bytes)
        .map(Limited::Text)
        .map_err(|error| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("not UTF-8 text ({error})"),
            )
        })
}

/// Reads at most `limit + 1` bytes of `reader`. The buffer doubles as it fills, but never
/// past `limit + 1` bytes, so a refused input holds no more than the limit in memory
/// (`read_to_end` would double it past the limit, and more while it copies).
fn read_bytes(reader: impl Read, limit: usize) -> io::Result<Vec<u8>> {
    let cap = limit.saturating_add(1);
    let mut reader = reader.take(u64::try_from(cap).unwrap_or(u64::MAX));
    let mut bytes = Vec::new();
    let mut chunk = vec![0; cap.min(64 << 10)];
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => return Ok(bytes),
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let needed = bytes.len() + read;
        if needed > bytes.capacity() {
            let grown = needed.max(bytes.capacity().saturating_mul(2)).min(cap);
            bytes.reserve_exact(grown - bytes.len());
        }
        bytes.extend_from_slice(&chunk[..read]);
    }
}

#[cfg(test)]
mod tests {
    use super::{Limited, read_bytes, read_limited};

    #[test]
    fn a_refused_input_holds_no_more_than_the_limit() {
        for limit in [1, 1000, (1 << 20) + 7] {
            let bytes = read_bytes(std::io::repeat(b'x'), limit).unwrap();
            assert_eq!(bytes.len(), limit + 1);
            assert!(
                bytes.capacity() <= limit + 1,
                "{} for {limit}",
                bytes.capacity()
            );
        }
    }

    #[test]
    fn text_up_to_the_limit_is_read_whole() {
        let read = read_limited("abcd".as_bytes(), 4).unwrap();
        assert!(matches!(read, Limited::Text(text) if text == "abcd"));
    }

    #[test]
    fn one_byte_past_the_limit_is_too_large() {
        assert!(matches!(
            read_limited("abcde".as_bytes(), 4).unwrap(),
            Limited::TooLarge
        ));
    }

    #[test]
    fn a_huge_input_is_not_read_past_the_limit() {
        // An endless reader: the read must stop on its own.
        let endless = std::io::repeat(b'x');
        assert!(matches!(
            read_limited(endless, 1 << 20).unwrap(),
            Limited::TooLarge
        ));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_error() {
        let error = read_limited(&b"ok \xff"[..], 10).err().unwrap();
        assert!(error.to_string().contains("not UTF-8 text"), "{error}");
    }
}
