//! The comparison as one self-contained HTML page, in the report page's style (its style
//! sheet, `html/page.css`, is embedded as it is). Unlike the report page, it has no script:
//! the tables are written as markup, every string from a report (labels, file, test and
//! metric names) escaped as HTML text, and the page's security policy allows nothing but
//! its own inline style.

use std::io::{self, Write};

use super::render::{GAP, interval_words, of, pairs_legend, rate_rows, significance, verdict_word};
use super::{Cell, Comparison};
use crate::escape::html;

/// The report page's style sheet.
const CSS: &str = include_str!("../html/page.css");

/// Writes the comparison as one HTML page.
pub fn render_compare_html(comparison: &Comparison, out: &mut dyn Write) -> io::Result<()> {
    let labels: Vec<String> = comparison.reports.iter().map(|r| html(&r.label)).collect();
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, "<html lang=\"en\">")?;
    writeln!(out, "<head>")?;
    writeln!(out, "<meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src \
         'unsafe-inline'\">"
    )?;
    writeln!(
        out,
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    )?;
    writeln!(out, "<meta name=\"generator\" content=\"trailgate\">")?;
    writeln!(out, "<title>trailgate compare</title>")?;
    writeln!(out, "<style>\n{CSS}</style>")?;
    writeln!(out, "</head>")?;
    writeln!(out, "<body>")?;
    writeln!(out, "<main>")?;
    writeln!(out, "<h1>trailgate compare</h1>")?;
    writeln!(
        out,
        "<p class=\"muted\">{} reports, {} tests. A comparison judges nothing: it says where \
         the reports differ, and how likely that is to be chance.</p>",
        comparison.reports.len(),
        comparison.rows.len()
    )?;
    reports(comparison, &labels, out)?;
    matrix(comparison, &labels, out)?;
    pairs(comparison, &labels, out)?;
    rates(comparison, &labels, out)?;
    writeln!(out, "</main>")?;
    writeln!(out, "</body>")?;
    writeln!(out, "</html>")
}

fn reports(comparison: &Comparison, labels: &[String], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h2>Reports</h2>")?;
    writeln!(out, "<table>")?;
    writeln!(
        out,
        "<thead><tr><th>Label</th><th>File</th><th class=\"num\">Tests passed</th></tr></thead>"
    )?;
    writeln!(out, "<tbody>")?;
    for (label, report) in labels.iter().zip(&comparison.reports) {
        writeln!(
            out,
            "<tr><td><code>{label}</code></td><td><code>{}</code></td><td class=\"num\">{}</td></tr>",
            html(&report.file),
            of(report.passed, report.tests)
        )?;
    }
    writeln!(out, "</tbody>")?;
    writeln!(out, "</table>")?;
    if let Some(metric) = &comparison.metric {
        writeln!(
            out,
            "<p>Each cell gives the verdict and <code>{}</code> ({} is better; the best of a row \
             in bold). A test a report lacks shows {GAP}.</p>",
            html(&metric.name),
            metric.better()
        )?;
    }
    Ok(())
}

fn cell_html(cell: Option<&Cell>, metric: bool, best: bool) -> String {
    let Some(cell) = cell else {
        return format!("<span class=\"muted\">{GAP}</span>");
    };
    let class = if cell.passed { "pass" } else { "fail" };
    let verdict = format!(
        "<span class=\"verdict {class}\">{}</span>",
        verdict_word(cell.passed)
    );
    if !metric {
        return verdict;
    }
    match cell.metric {
        None => format!("{verdict} <span class=\"muted\">{GAP}</span>"),
        Some(value) if best => format!("{verdict} <strong>{value}</strong>"),
        Some(value) => format!("{verdict} {value}"),
    }
}

fn matrix(comparison: &Comparison, labels: &[String], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h2>Tests</h2>")?;
    writeln!(out, "<table>")?;
    write!(out, "<thead><tr><th>Test</th>")?;
    for label in labels {
        write!(out, "<th><code>{label}</code></th>")?;
    }
    writeln!(out, "</tr></thead>")?;
    writeln!(out, "<tbody>")?;
    let metric = comparison.metric.as_ref();
    for row in &comparison.rows {
        let best = metric.map(|m| row.best(m));
        write!(out, "<tr><td class=\"mono\">{}</td>", html(&row.name))?;
        for (index, cell) in row.cells.iter().enumerate() {
            let best = best.as_ref().is_some_and(|b| b[index]);
            write!(
                out,
                "<td>{}</td>",
                cell_html(cell.as_ref(), metric.is_some(), best)
            )?;
        }
        writeln!(out, "</tr>")?;
    }
    write!(out, "<tr><th>passed</th>")?;
    for report in &comparison.reports {
        write!(out, "<td>{}</td>", of(report.passed, report.tests))?;
    }
    writeln!(out, "</tr>")?;
    writeln!(out, "</tbody>")?;
    writeln!(out, "</table>")
}

fn pairs(comparison: &Comparison, labels: &[String], out: &mut dyn Write) -> io::Result<()> {
    writeln!(out, "<h2>Against the first report</h2>")?;
    let first = format!("<code>{}</code>", labels[0]);
    let mut legend = pairs_legend(&first);
    if let Some(head) = legend.get_mut(0..1) {
        head.make_ascii_uppercase();
    }
    writeln!(out, "<p>{legend}.</p>")?;
    writeln!(out, "<table>")?;
    writeln!(
        out,
        "<thead><tr><th>Report</th><th class=\"num\">Tests in both</th><th class=\"num\">b</th>\
         <th class=\"num\">c</th><th class=\"num\">p</th><th></th></tr></thead>"
    )?;
    writeln!(out, "<tbody>")?;
    for (label, pair) in labels[1..].iter().zip(&comparison.against_first) {
        let word = significance(pair.p.significant());
        let word = if pair.p.significant() {
            format!("<strong>{word}</strong>")
        } else {
            word.to_owned()
        };
        writeln!(
            out,
            "<tr><td><code>{label}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{word}</td></tr>",
            pair.in_both, pair.b, pair.c, pair.p
        )?;
    }
    writeln!(out, "</tbody>")?;
    writeln!(out, "</table>")
}

fn rates(comparison: &Comparison, labels: &[String], out: &mut dyn Write) -> io::Result<()> {
    let rows = rate_rows(comparison);
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(out, "<h2>Runs passed</h2>")?;
    writeln!(
        out,
        "<p>For the tests with several runs in both, <code>{}</code> and the other, with the \
         95% interval of the change in points (Newcombe's).</p>",
        labels[0]
    )?;
    writeln!(out, "<table>")?;
    writeln!(
        out,
        "<thead><tr><th>Test</th><th>Report</th><th class=\"num\">Runs passed</th>\
         <th class=\"num\">95% interval</th><th></th></tr></thead>"
    )?;
    writeln!(out, "<tbody>")?;
    for (row, changes) in rows {
        for (index, rate) in changes {
            let (interval, word) = interval_words(rate);
            writeln!(
                out,
                "<tr><td class=\"mono\">{}</td><td><code>{}</code></td><td class=\"num\">{} \
                 -&gt; {}</td><td class=\"num\">{interval}</td><td>{word}</td></tr>",
                html(&row.name),
                labels[index],
                of(rate.first.passed, rate.first.runs),
                of(rate.other.passed, rate.other.runs),
            )?;
        }
    }
    writeln!(out, "</tbody>")?;
    writeln!(out, "</table>")
}
