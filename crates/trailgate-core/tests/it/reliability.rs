//! The reliability statistics against the independent reference of
//! `tests/reliability/reference.py` (its README says how it is computed), every figure of
//! every row.

use trailgate_core::reliability::{Confidence, difference_interval, reliability, wilson_interval};

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
    assert_eq!(checked, 474);
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
    assert_eq!(checked, 3 * 24 * 24);
}

const PAGE: &str = include_str!("../../../../docs/reliability.md");

/// "a to b" as the two bounds.
fn bounds(cell: &str) -> (u64, u64) {
    let (lower, upper) = cell.split_once(" to ").unwrap_or(("", ""));
    (number(lower), number(upper))
}

#[test]
fn the_page_s_tables_of_runs_match_the_library() {
    let section = PAGE
        .split("## How many runs to record")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap_or_default();
    // The tables in order: 95 %, then 90 %; a row is one whose first cell is a number.
    let mut tables: Vec<Vec<Vec<&str>>> = Vec::new();
    let mut in_table = false;
    for line in section.lines() {
        let is_row = line.starts_with('|');
        if is_row && !in_table {
            tables.push(Vec::new());
        }
        in_table = is_row;
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if is_row && cells[0].parse::<u64>().is_ok() {
            tables.last_mut().unwrap().push(cells);
        }
    }
    assert_eq!(tables.len(), 2);
    for (table, confidence) in tables
        .iter()
        .zip([Confidence::NinetyFive, Confidence::Ninety])
    {
        assert!(table.len() >= 6);
        for row in table {
            let n = number(row[0]);
            let half = wilson_interval(n, n / 2, confidence).unwrap();
            let ninety = wilson_interval(n, n * 9 / 10, confidence).unwrap();
            let lu = |i: trailgate_core::reliability::Interval| {
                (u64::from(i.lower.value()), u64::from(i.upper.value()))
            };
            assert_eq!(bounds(row[1]), lu(half), "{row:?}");
            assert_eq!(number(row[2]), lu(half).1 - lu(half).0, "{row:?}");
            assert_eq!(bounds(row[3]), lu(ninety), "{row:?}");
            assert_eq!(number(row[4]), lu(ninety).1 - lu(ninety).0, "{row:?}");
            if let Some(all_pass) = row.get(5) {
                let lower = wilson_interval(n, n, confidence).unwrap().lower;
                assert_eq!(number(all_pass), u64::from(lower.value()), "{row:?}");
            }
        }
    }
}
