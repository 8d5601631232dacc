//! Unit tests of the HTML report's pieces: the escaping of the embedded data and the cuts.

use rstest::rstest;

use super::{base64, cut, write_escaped};

#[track_caller]
fn check_escaped(json: &str, expected: &str) {
    let mut out = Vec::new();
    write_escaped(&mut out, json.as_bytes()).expect("writes into memory");
    assert_eq!(String::from_utf8(out).expect("UTF-8"), expected);
}

#[rstest]
#[case::plain(r#"{"a":"b"}"#, r#"{"a":"b"}"#)]
#[case::script_end(
    r#"["</script><script>alert(1)</script>"]"#,
    r#"["\u003c/script\u003e\u003cscript\u003ealert(1)\u003c/script\u003e"]"#
)]
#[case::comment(r#"["<!--"]"#, r#"["\u003c!--"]"#)]
#[case::ampersand(r#"["a&amp;b"]"#, r#"["a\u0026amp;b"]"#)]
#[case::line_separators("[\"a\u{2028}b\u{2029}c\"]", r#"["a\u2028b\u2029c"]"#)]
#[case::other_three_byte_characters("[\"\u{2027}\u{20ac}…\"]", "[\"\u{2027}\u{20ac}…\"]")]
fn the_embedded_data_cannot_end_its_script(#[case] json: &str, #[case] expected: &str) {
    check_escaped(json, expected);
}

#[test]
fn escaped_data_is_still_the_same_json() {
    let value = serde_json::json!({"s": "<script>&\u{2028}</script>", "n": [1, 2]});
    let mut out = Vec::new();
    write_escaped(&mut out, value.to_string().as_bytes()).expect("writes into memory");
    let read: serde_json::Value = serde_json::from_slice(&out).expect("still JSON");
    assert_eq!(read, value);
}

#[rstest]
#[case::short("abc", 5, "abc")]
#[case::exact("abcde", 5, "abcde")]
#[case::cut("abcdefg", 5, "abcde… [2 more bytes not shown]")]
#[case::on_a_character_boundary("aé", 2, "a… [2 more bytes not shown]")]
fn long_values_are_cut_with_a_marker(
    #[case] text: &str,
    #[case] cap: usize,
    #[case] expected: &str,
) {
    assert_eq!(cut(text, cap), expected);
}

#[test]
fn the_page_assets_cannot_end_the_script_or_style_early() {
    assert!(!super::SCRIPT.to_ascii_lowercase().contains("</script"));
    assert!(!super::CSS.to_ascii_lowercase().contains("</style"));
    assert!(
        !super::SCRIPT.contains("innerHTML"),
        "the script builds the page with DOM calls only"
    );
    assert!(
        super::PAGE.contains("/*DATA*/")
            && super::PAGE.contains("/*CSS*/")
            && super::PAGE.contains("/*SCRIPT*/")
    );
}

#[rstest]
#[case::empty(b"", "")]
#[case::one(b"f", "Zg==")]
#[case::two(b"fo", "Zm8=")]
#[case::three(b"foo", "Zm9v")]
#[case::six(b"foobar", "Zm9vYmFy")]
fn base64_is_the_standard_one(#[case] bytes: &[u8], #[case] expected: &str) {
    assert_eq!(base64(bytes), expected);
}
