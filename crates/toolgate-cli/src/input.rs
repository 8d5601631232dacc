//! Reading a whole input file within a size limit, without ever holding more than the
//! limit.

use std::io::{self, Read};

/// What a limited read found.
pub(crate) enum Limited {
    /// The whole text.
    Text(String),
    /// More than the limit.
    TooLarge,
}

/// Reads all of `reader` as UTF-8 text, or stops one byte past `limit`.
pub(crate) fn read_limited(reader: impl Read, limit: usize) -> io::Result<Limited> {
    let mut bytes = Vec::new();
    let cap = u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1);
    reader.take(cap).read_to_end(&mut bytes)?;
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

#[cfg(test)]
mod tests {
    use super::{Limited, read_limited};

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
