//! Reading a spilled list back: a buffer of whole lines at a time, any line length.

use std::cell::RefCell;
use std::io::{self, BufRead};

use rstest::rstest;

use super::Listed;
use crate::layout::{RawJson, write_report};

/// The entries of a spill, as the report lists them, read back with a buffer of
/// `capacity` bytes: the same bytes as the entries written one by one, whether the buffer
/// holds many lines, cuts them, or is shorter than one; entries past `count` stay unread.
#[rstest]
#[case::many_lines_a_buffer(64 * 1024)]
#[case::lines_cut_by_the_buffer(16)]
#[case::lines_longer_than_the_buffer(3)]
fn a_spilled_list_reads_back_as_its_entries(#[case] capacity: usize) {
    let entries: Vec<String> = (0..40)
        .map(|n| format!("{{\"run\":{n},\"s\":\"{}\"}}", "x".repeat(n % 7)))
        .collect();
    let mut spill = entries.join("\n").into_bytes();
    spill.extend_from_slice(b"\nnext list\n");
    let reader: Box<dyn BufRead> = Box::new(io::BufReader::with_capacity(
        capacity,
        io::Cursor::new(spill),
    ));
    let reader = RefCell::new(reader);

    let mut read = Vec::new();
    write_report(
        &mut read,
        &[[Listed {
            reader: &reader,
            count: entries.len(),
        }]],
    )
    .expect("a spill reads back");
    let mut written = Vec::new();
    let each: Vec<RawJson<'_>> = entries.iter().map(|entry| RawJson(entry)).collect();
    write_report(&mut written, &[[each]]).expect("writing to a Vec");
    assert_eq!(
        String::from_utf8(read).expect("UTF-8"),
        String::from_utf8(written).expect("UTF-8")
    );

    let mut rest = String::new();
    reader
        .borrow_mut()
        .read_line(&mut rest)
        .expect("the rest of the spill");
    assert_eq!(rest, "next list\n");
}

/// A spill with fewer entries than its count is an error, not a short list.
#[test]
fn a_spill_that_ends_early_is_an_error() {
    let reader: Box<dyn BufRead> = Box::new(io::Cursor::new(b"1\n2\n".to_vec()));
    let reader = RefCell::new(reader);
    let mut out = Vec::new();
    let error = write_report(
        &mut out,
        &[[Listed {
            reader: &reader,
            count: 3,
        }]],
    )
    .expect_err("a short spill");
    assert!(error.to_string().contains("ends early"), "{error}");
}
