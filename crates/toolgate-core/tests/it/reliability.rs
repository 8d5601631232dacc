//! The reliability statistics against the independent reference of
//! `tests/reliability/reference.py` (its README says how it is computed), every figure of
//! every row.

use toolgate_core::reliability::{Confidence, difference_interval, reliability};

const REFERENCE: &str = include_str!("../reliability/reference.tsv");
const NEWCOMBE: &str = include_str!("../reliability/newcombe.tsv");

/// The rows of a table after its header, split into fields.
fn rows(table: &'static str, columns: usize) -> impl Iterator<Item = Vec<&'static str>> {
    let mut lines = table.lines();
    lines.next();
    lines.map(move |line| {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), columns, "{line}");
        fields
    })
}

/// A count of the tables; a field that is not one fails the test that reads it.
fn number(field: &str) -> u64 {
    let parsed = field.parse();
    assert!(parsed.is_ok(), "not a count: {field}");
    parsed.unwrap_or_default()
}

#[test]
fn every_single_sample_figure_matches_the_reference() {
    let mut checked = 0;
    for row in rows(REFERENCE, 11) {
        let confidence = Confidence::from_percent(number(row[0])).unwrap();
        let (n, c, k) = (number(row[1]), number(row[2]), number(row[3]));
        let r = reliability(n, c, k, confidence).unwrap();
        let decay: Vec<String> = r.decay.iter().map(ToString::to_string).collect();
        let actual = [
            r.pass_rate.to_string(),
            r.pass_at_k.to_string(),
            r.pass_hat_k.to_string(),
            r.interval.lower.to_string(),
            r.interval.upper.to_string(),
            r.runs_to_resolve.to_string(),
            decay.join(","),
        ];
        assert_eq!(actual.as_slice(), &row[4..], "row {row:?}");
        checked += 1;
    }
    // The grid of the script: no row may silently disappear.
    assert_eq!(checked, 438);
}

#[test]
fn every_difference_interval_matches_the_reference() {
    let mut checked = 0;
    for row in rows(NEWCOMBE, 7) {
        let confidence = Confidence::from_percent(number(row[0])).unwrap();
        let first = (number(row[1]), number(row[2]));
        let second = (number(row[3]), number(row[4]));
        let d = difference_interval(first, second, confidence).unwrap();
        assert_eq!(
            [d.lower.to_string(), d.upper.to_string()].as_slice(),
            &row[5..],
            "row {row:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 3 * 19 * 19);
}
