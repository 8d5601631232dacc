//! Unit tests of the search for a string's end, which reads a word or two at a time.

use proptest::prelude::*;

use super::string_stop;

/// The search a byte at a time.
fn naive(bytes: &[u8], at: usize) -> usize {
    bytes
        .iter()
        .skip(at)
        .position(|&byte| byte == b'"' || byte == b'\\' || byte < 0x20)
        .map_or(bytes.len(), |found| at + found)
}

proptest! {
    /// Wherever the first quote, backslash or control character is, in or across the words
    /// and pairs of words read, or past the end, the search finds it.
    #[test]
    fn a_string_ends_where_a_byte_at_a_time_search_says(
        bytes in prop::collection::vec(
            prop::sample::select(vec![b'a', b'"', b'\\', 0x01, 0x1f, b' ', 0x7f, 0xc3, 0xa9]),
            0..80,
        ),
        start in 0_usize..80,
    ) {
        let at = start.min(bytes.len());
        let controls = bytes.iter().any(|&byte| byte < 0x20);
        prop_assert_eq!(string_stop(&bytes, at, controls), naive(&bytes, at));
        if !controls {
            // Without control characters, the search that skips them agrees as well.
            prop_assert_eq!(string_stop(&bytes, at, true), naive(&bytes, at));
        }
    }
}
