//! The reports of trailgate: a text report for people, a versioned JSON report for
//! machines, JUnit XML for CI test reporters, GitHub Actions workflow commands, a Markdown
//! summary for pull requests and job summaries, and a self-contained HTML page with a run
//! explorer, all written into a caller's `io::Write`; the comparison of two JSON reports
//! (`diff`) and the trend over several (`trend`), in the same formats but HTML and JUnit; and
//! the comparison of 2 to 16 reports of one suite for different agents or models (`compare`),
//! as text, JSON, Markdown and HTML.
//!
//! All are functions of what they are given: no clock, no absolute path, no environment, so
//! the same outcome always gives the same bytes.

mod baseline;
mod compare;
mod diff;
mod direction;
mod escape;
mod github;
mod html;
mod json;
mod jsonl;
mod junit;
mod layout;
mod lines;
mod markdown;
mod merge;
mod safe;
mod seed_accuracy;
mod spill;
mod text;
mod transcode;
mod trend;

pub use crate::compare::{
    COMPARE_JSON_VERSION, Comparison, LabelledReport, MAX_COMPARED, MIN_COMPARED,
    cannot_read as cannot_read_compared, check_labels, compare_reports, render_compare_html,
    render_compare_json, render_compare_markdown, render_compare_text,
};
pub use crate::diff::{
    DIFF_JSON_VERSION, Diff, ReportFile, cannot_read as cannot_read_report, diff_reports,
    read_baseline, render_diff_github, render_diff_json, render_diff_markdown, render_diff_text,
};
pub use crate::escape::escape_terminal;
pub use crate::github::render_github;
pub use crate::html::{HtmlRun, HtmlRuns, render_html};
pub use crate::json::{
    JSON_VERSION, JsonRuns, ShardOrigin, render_json, render_json_runs, render_json_shard,
};
pub use crate::jsonl::{JsonLines, render_jsonl};
pub use crate::junit::render_junit;
pub use crate::markdown::render_markdown;
pub use crate::merge::{
    Merged, ShardFile, cannot_read as cannot_read_shard, merge_shards, render_merged_json,
    render_merged_text,
};
pub use crate::seed_accuracy::render_seed_accuracy;
pub use crate::spill::{SPILL_BUFFER, temporary_writer};
pub use crate::text::{TextOptions, render_text};
pub use crate::trend::{
    TREND_JSON_VERSION, Trend, TrendOptions, cannot_read as cannot_read_trend_report,
    render_trend_github, render_trend_json, render_trend_markdown, render_trend_text,
    trend_reports,
};

#[cfg(test)]
mod testing;
#[cfg(test)]
mod tests;
