//! The comparison for people: the text output and the Markdown one. Both show the matrix
//! (a row per test, a column per report), each report against the first (b, c, McNemar's
//! p), and the changes in pass rate of the tests with several runs in both.

use std::fmt::Write as _;
use std::io::{self, Write};

use unicode_width::UnicodeWidthStr;

use super::{Cell, Comparison, Pair, RateChange, Row};
use crate::escape::{escape_terminal, markdown};
use crate::lines::{BOLD, FAIL, PASS, Painter, TextOptions};

/// What a missing test or metric shows.
pub(super) const GAP: &str = "-";

pub(super) fn verdict_word(passed: bool) -> &'static str {
    if passed { "PASS" } else { "FAIL" }
}

/// A change in pass rate's interval, `-3 to 12`, and its word; a gap and no word when it
/// has none. The Markdown and HTML tables both show it.
pub(super) fn interval_words(rate: &RateChange) -> (String, &'static str) {
    rate.interval.map_or((GAP.to_owned(), ""), |i| {
        (
            format!("{} to {}", i.lower, i.upper),
            significance(i.significant),
        )
    })
}

pub(super) fn significance(significant: bool) -> &'static str {
    if significant {
        "significant"
    } else {
        "not significant"
    }
}

/// `3 of 4`.
pub(super) fn of(part: usize, whole: usize) -> String {
    format!("{part} of {whole}")
}

/// The change in pass rate in words: `9 of 10 -> 3 of 10; 95% interval of the change -81
/// to -17 points, significant`.
pub(super) fn rate_text(rate: &RateChange) -> String {
    let mut text = format!(
        "{} -> {}",
        of(rate.first.passed, rate.first.runs),
        of(rate.other.passed, rate.other.runs)
    );
    if let Some(interval) = rate.interval {
        let _ = write!(
            text,
            "; 95% interval of the change {} to {} points, {}",
            interval.lower,
            interval.upper,
            significance(interval.significant)
        );
    }
    text
}

/// The legend of the pairs: what b, c and p are.
pub(super) fn pairs_legend(first: &str) -> String {
    format!(
        "against {first}, the first report: b, the tests {first} passes and the other fails; \
         c, the reverse; p, McNemar's exact test on b and c, rounded up (significant below 0.05)"
    )
}

/// The rows with a change in pass rate, each with its changes by report.
pub(super) fn rate_rows(comparison: &Comparison) -> Vec<(&Row, Vec<(usize, &RateChange)>)> {
    comparison
        .rows
        .iter()
        .map(|row| {
            let rates: Vec<(usize, &RateChange)> = row
                .rates
                .iter()
                .enumerate()
                .filter_map(|(index, rate)| rate.as_ref().map(|r| (index + 1, r)))
                .collect();
            (row, rates)
        })
        .filter(|(_, rates)| !rates.is_empty())
        .collect()
}

/// A cell's words without colour: `PASS`, `PASS 96`, `PASS 96*` (the best of the row),
/// `FAIL -` (no such metric), `-` (no such test).
fn cell_plain(cell: Option<&Cell>, metric: bool, best: bool) -> String {
    let Some(cell) = cell else {
        return GAP.to_owned();
    };
    let verdict = verdict_word(cell.passed);
    if !metric {
        return verdict.to_owned();
    }
    let value = cell
        .metric
        .map_or_else(|| GAP.to_owned(), |v| v.to_string());
    format!("{verdict} {value:>3}{}", if best { "*" } else { "" })
}

fn pad(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    let used = UnicodeWidthStr::width(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
}

/// Writes the comparison as text: the reports, the matrix, each report against the first,
/// and the changes in pass rate.
pub fn render_compare_text(
    comparison: &Comparison,
    options: TextOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let painter = Painter::new(options);
    let labels: Vec<String> = comparison
        .reports
        .iter()
        .map(|r| escape_terminal(&r.label).into_owned())
        .collect();
    writeln!(
        out,
        "trailgate compare: {} reports, {} tests",
        comparison.reports.len(),
        comparison.rows.len()
    )?;
    let label_width = labels.iter().map(|l| l.width()).max().unwrap_or(0);
    for (index, (label, report)) in labels.iter().zip(&comparison.reports).enumerate() {
        let mut line = String::from("  ");
        pad(&mut line, label, label_width);
        let _ = write!(line, "  {}", escape_terminal(&report.file));
        if index == 0 {
            line.push_str(" (the first: the others are compared with it)");
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    if let Some(metric) = &comparison.metric {
        writeln!(
            out,
            "  metric: {} ({} is better; * marks the best of a row)",
            escape_terminal(&metric.name),
            metric.better()
        )?;
    }
    writeln!(out)?;
    text_matrix(comparison, &labels, &painter, out)?;
    if comparison.against_first.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let first = &labels[0];
    writeln!(
        out,
        "Against {first} (b: {first} passes, the other fails; c: the reverse; p: McNemar's \
         exact test, rounded up, significant below 0.05):"
    )?;
    let others = &labels[1..];
    let other_width = others.iter().map(|l| l.width()).max().unwrap_or(0);
    for (label, pair) in others.iter().zip(&comparison.against_first) {
        let mut line = String::from("  ");
        pad(&mut line, label, other_width);
        let word = significance(pair.p.significant());
        let word = if pair.p.significant() {
            painter.paint(BOLD, word)
        } else {
            word.to_owned()
        };
        writeln!(out, "{line}  {}", pair_text(pair, &word))?;
    }
    let rates = rate_rows(comparison);
    if !rates.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Runs passed, for the tests with several runs in both, {first} -> the other:"
        )?;
        for (row, changes) in rates {
            writeln!(
                out,
                "  {}",
                painter.paint(BOLD, &escape_terminal(&row.name))
            )?;
            for (index, rate) in changes {
                let mut line = String::from("    ");
                pad(&mut line, &labels[index], other_width);
                writeln!(out, "{line}  {}", rate_text(rate))?;
            }
        }
    }
    Ok(())
}

/// `4 tests in both, b = 2, c = 0, p = 0.5000, not significant`, with `word` the last.
fn pair_text(pair: &Pair, word: &str) -> String {
    format!(
        "{} in both, b = {}, c = {}, p = {}, {word}",
        if pair.in_both == 1 {
            "1 test".to_owned()
        } else {
            format!("{} tests", pair.in_both)
        },
        pair.b,
        pair.c,
        pair.p
    )
}

fn text_matrix(
    comparison: &Comparison,
    labels: &[String],
    painter: &Painter,
    out: &mut dyn Write,
) -> io::Result<()> {
    let metric = comparison.metric.as_ref();
    let names: Vec<String> = comparison
        .rows
        .iter()
        .map(|row| escape_terminal(&row.name).into_owned())
        .collect();
    let cells: Vec<Vec<String>> = comparison
        .rows
        .iter()
        .map(|row| {
            let best = metric.map(|m| row.best(m));
            row.cells
                .iter()
                .enumerate()
                .map(|(index, cell)| {
                    let best = best.as_ref().is_some_and(|b| b[index]);
                    cell_plain(cell.as_ref(), metric.is_some(), best)
                })
                .collect()
        })
        .collect();
    let totals: Vec<String> = comparison
        .reports
        .iter()
        .map(|r| of(r.passed, r.tests))
        .collect();
    let name_width = names
        .iter()
        .map(|n| n.width())
        .chain(["Test".len(), "passed".len()])
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = (0..labels.len())
        .map(|index| {
            cells
                .iter()
                .map(|row| row[index].width())
                .chain([labels[index].width(), totals[index].width()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut line = String::new();
    pad(&mut line, "Test", name_width);
    for (label, width) in labels.iter().zip(&widths) {
        line.push_str("  ");
        pad(&mut line, label, *width);
    }
    writeln!(out, "{}", painter.paint(BOLD, line.trim_end()))?;
    for (name, row) in names.iter().zip(&cells) {
        let mut line = String::new();
        pad(&mut line, name, name_width);
        for (cell, width) in row.iter().zip(&widths) {
            line.push_str("  ");
            // Colour the verdict only, after the padding is counted on the plain words.
            let shown = match cell.get(..4) {
                Some("PASS") => format!("{}{}", painter.paint(PASS, "PASS"), &cell[4..]),
                Some("FAIL") => format!("{}{}", painter.paint(FAIL, "FAIL"), &cell[4..]),
                _ => cell.clone(),
            };
            line.push_str(&shown);
            line.extend(std::iter::repeat_n(' ', width.saturating_sub(cell.width())));
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    let mut line = String::new();
    pad(&mut line, "passed", name_width);
    for (total, width) in totals.iter().zip(&widths) {
        line.push_str("  ");
        pad(&mut line, total, *width);
    }
    writeln!(out, "{}", line.trim_end())
}

/// A table cell's content with its pipes escaped (see `markdown.rs`).
fn cell(content: &str) -> String {
    content.replace('|', "\\|")
}

/// Writes the comparison as Markdown: a heading, the matrix as a table, a table of the
/// reports against the first, and the changes in pass rate.
///
/// User text (labels, test and metric names) is written as inline code, so that it cannot
/// reshape the table or mention anyone.
pub fn render_compare_markdown(comparison: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let labels: Vec<String> = comparison
        .reports
        .iter()
        .map(|r| cell(&markdown(&r.label)))
        .collect();
    writeln!(
        out,
        "## trailgate compare: {} reports, {} tests",
        comparison.reports.len(),
        comparison.rows.len()
    )?;
    writeln!(out)?;
    let files: Vec<String> = labels
        .iter()
        .zip(&comparison.reports)
        .map(|(label, r)| format!("{label} ({})", markdown(&r.file)))
        .collect();
    write!(out, "Reports: {}", files.join(", "))?;
    if let Some(metric) = &comparison.metric {
        write!(
            out,
            "; each cell gives the verdict and {} ({} is better, the best of a row in bold)",
            markdown(&metric.name),
            metric.better()
        )?;
    }
    writeln!(out, ".")?;
    writeln!(out)?;
    writeln!(out, "| Test | {} |", labels.join(" | "))?;
    writeln!(out, "| --- |{}", " --- |".repeat(labels.len()))?;
    let metric = comparison.metric.as_ref();
    for row in &comparison.rows {
        let best = metric.map(|m| row.best(m));
        let cells: Vec<String> = row
            .cells
            .iter()
            .enumerate()
            .map(|(index, c)| {
                let Some(c) = c else {
                    return GAP.to_owned();
                };
                let verdict = verdict_word(c.passed);
                match (metric, c.metric) {
                    (None, _) => verdict.to_owned(),
                    (Some(_), None) => format!("{verdict}, {GAP}"),
                    (Some(_), Some(value)) if best.as_ref().is_some_and(|b| b[index]) => {
                        format!("{verdict}, **{value}**")
                    }
                    (Some(_), Some(value)) => format!("{verdict}, {value}"),
                }
            })
            .collect();
        writeln!(
            out,
            "| {} | {} |",
            cell(&markdown(&row.name)),
            cells.join(" | ")
        )?;
    }
    let totals: Vec<String> = comparison
        .reports
        .iter()
        .map(|r| of(r.passed, r.tests))
        .collect();
    writeln!(out, "| **passed** | {} |", totals.join(" | "))?;
    if comparison.against_first.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    let mut legend = pairs_legend(&labels[0]);
    if let Some(head) = legend.get_mut(0..1) {
        head.make_ascii_uppercase();
    }
    writeln!(out, "{legend}.")?;
    writeln!(out)?;
    writeln!(out, "| Report | Tests in both | b | c | p | |")?;
    writeln!(out, "| --- | ---: | ---: | ---: | ---: | --- |")?;
    for (label, pair) in labels[1..].iter().zip(&comparison.against_first) {
        writeln!(
            out,
            "| {label} | {} | {} | {} | {} | {} |",
            pair.in_both,
            pair.b,
            pair.c,
            pair.p,
            significance(pair.p.significant())
        )?;
    }
    markdown_rates(comparison, &labels, out)
}

/// The Markdown table of the changes in pass rate, when a test has several runs in the
/// first report and another.
fn markdown_rates(
    comparison: &Comparison,
    labels: &[String],
    out: &mut dyn Write,
) -> io::Result<()> {
    let rates = rate_rows(comparison);
    if rates.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "Runs passed, for the tests with several runs in both, {} -> the other:",
        labels[0]
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "| Test | Report | Runs passed | 95% interval of the change (points) | |"
    )?;
    writeln!(out, "| --- | --- | --- | --- | --- |")?;
    for (row, changes) in rates {
        for (index, rate) in changes {
            let (interval, word) = interval_words(rate);
            writeln!(
                out,
                "| {} | {} | {} -> {} | {interval} | {word} |",
                cell(&markdown(&row.name)),
                labels[index],
                of(rate.first.passed, rate.first.runs),
                of(rate.other.passed, rate.other.runs),
            )?;
        }
    }
    Ok(())
}
