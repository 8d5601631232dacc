//! `check --xfail FILE`: the tests a file names are marked as expected to fail
//! (docs/reliability.md#expected-failures). One test name a line, trimmed; blank lines and
//! lines starting with `#` are ignored. A name that is no test of the suite, whatever
//! `--shard`, `--test` or `-k` select, is refused with its line.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use miette::SourceSpan;
use trailgate_expect::{MAX_SUITE_BYTES, Problem, Suite, SuiteError, SuiteFile};
use trailgate_trace::read_text_limited;

use crate::discover::display;
use crate::error::Error;

/// How many unknown names one refusal lists, as a suite's problems are capped.
const MOST_LISTED: usize = 50;

/// The suite `file` holds, its tests marked by the list at `list` when there is one.
pub(super) fn parsed(file: &SuiteFile, list: Option<&Path>) -> Result<Suite, Error> {
    let mut suite = file.parse()?;
    if let Some(path) = list {
        mark(&mut suite, path)?;
    }
    Ok(suite)
}

/// Marks the tests of `suite` that the file at `path` names, each with the reason `listed
/// in FILE:LINE` (its first line naming it). A test the suite marks itself keeps its own
/// reason.
fn mark(suite: &mut Suite, path: &Path) -> Result<(), Error> {
    let name = display(path);
    let text = read_list(path, &name)?;
    let mut listed: BTreeMap<&str, usize> = BTreeMap::new();
    let mut unknown = Vec::new();
    let mut offset = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if suite.tests.iter().any(|test| test.name == trimmed) {
            listed.entry(trimmed).or_insert(index + 1);
        } else {
            let at = start + (line.len() - line.trim_start().len());
            unknown.push((trimmed, at));
        }
    }
    if !unknown.is_empty() {
        let names: Vec<&str> = suite.tests.iter().map(|test| test.name.as_str()).collect();
        let problems = unknown
            .iter()
            .take(MOST_LISTED)
            .map(|(test, at)| {
                unknown_test(test, &names).at(Some(SourceSpan::new((*at).into(), test.len())))
            })
            .collect();
        return Err(Error::Suite(
            SuiteFile::new(&name, text.clone()).error(problems),
        ));
    }
    for test in &mut suite.tests {
        if test.xfail.is_none()
            && let Some(line) = listed.get(test.name.as_str())
        {
            test.xfail = Some(format!("listed in {name}:{line}"));
        }
    }
    Ok(())
}

/// The refusal of a line naming no test of the suite; its help lists the suite's first
/// test names.
fn unknown_test(test: &str, names: &[&str]) -> Problem {
    const SHOWN: usize = 10;
    let mut shown: Vec<String> = names
        .iter()
        .take(SHOWN)
        .map(|name| format!("`{name}`"))
        .collect();
    if names.len() > SHOWN {
        shown.push(format!("and {} more", names.len() - SHOWN));
    }
    Problem::new(
        "trailgate::xfail::unknown_test",
        format!("`{test}` is no test of the suite"),
        "no such test",
    )
    .with_help(format!(
        "each line names one test of the whole suite, as its `name:` says, whatever \
         `--shard`, `--test` or `-k` select; lines starting with `#` are comments. The suite's \
         tests: {}",
        shown.join(", ")
    ))
}

/// The file's text, within the size of a suite.
fn read_list(path: &Path, name: &str) -> Result<String, Error> {
    let refuse = |message: String| {
        Error::Suite(SuiteError::detached(
            Problem::new("trailgate::xfail::io", message, "").with_help(
                "pass `--xfail` a text file naming one test of the suite a line, e.g. \
                 `quarantine.txt`",
            ),
        ))
    };
    match File::open(path).and_then(|file| read_text_limited(file, MAX_SUITE_BYTES)) {
        Ok(Some(text)) => Ok(text),
        Ok(None) => Err(refuse(format!(
            "`{name}` is larger than {} MiB",
            MAX_SUITE_BYTES >> 20
        ))),
        Err(error) => Err(refuse(format!("cannot read `{name}`: {error}"))),
    }
}
