//! The HTML report in a real browser: headless Chromium opens the reports of three fixtures
//! (a passing suite, a failing one of 25 runs, markup in every string) and of a suite
//! written here (tests without classes), and the tests read what the page's script drew
//! from the DOM it dumps: the verdicts in words, why a failed test failed and the links to
//! the runs behind it, the charts' bars, the run list a URL fragment filters, a run opened,
//! and the hostile strings shown as text with no element made of them. Each also saves a
//! screenshot under `target/html-screenshots/` for review (docs/reports.md describes them).
//!
//! Without a Chromium on the `PATH` the tests print that they were skipped and pass, so the
//! README's test command needs only a Rust toolchain; with `CI` set they fail instead, as CI
//! installs Chromium (`.ci/run`) and must run them.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::golden::HTML_FIXTURES;
use crate::support::trailgate;

/// The browser's executable, or `None` (after saying so) when the tests are skipped.
fn browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but no Chromium is installed: `.ci/run` installs it \
             (apt-get install chromium), and CI must run the browser test"
        );
        #[expect(
            clippy::print_stderr,
            reason = "a skipped test says so where the test runner shows it"
        )]
        {
            eprintln!("the browser test was skipped: no `chromium` on the PATH");
        }
    }
    found
}

/// Where the reports and screenshots are kept for review: `target/html-screenshots/`.
fn review_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target folder")
        .join("html-screenshots");
    std::fs::create_dir_all(&dir).expect("the review folder can be made");
    dir
}

fn fixture(name: &str) -> PathBuf {
    assert!(
        HTML_FIXTURES.contains(&name),
        "a fixture of the golden HTML list"
    );
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

/// Writes the HTML report of fixture `name` to `target/html-screenshots/<name>.html`.
fn report(name: &str, passed: bool) -> PathBuf {
    report_with(name, passed, &[])
}

/// [`report`], with `args` after the suite.
fn report_with(name: &str, passed: bool, args: &[&str]) -> PathBuf {
    report_in(&fixture(name), name, passed, args)
}

/// Writes the HTML report of the suite `trailgate.yaml` in `dir`, checked with `args`, to
/// `target/html-screenshots/<name>.html`.
fn report_in(dir: &Path, name: &str, passed: bool, args: &[&str]) -> PathBuf {
    let page = review_dir().join(format!("{name}.html"));
    let out = page.to_str().expect("a UTF-8 path");
    let mut command = vec!["check", "trailgate.yaml"];
    command.extend(args);
    command.extend(["--format", "html", "--output", out]);
    let run = trailgate(dir, &command);
    assert_eq!(run.code, i32::from(!passed), "{}", run.stderr);
    page
}

/// How long one browser run may take: a page that never finishes (a dialog that injected
/// script opened waits for a click forever) fails the test instead of hanging it.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(90);

/// Runs the browser on the page at `fragment` with `args`, in a profile of its own, and
/// returns what it printed.
fn open(browser: &Path, page: &Path, fragment: &str, args: &[&str]) -> String {
    let profile = tempfile::tempdir().expect("a temporary folder");
    let url = format!("file://{}#{fragment}", page.display());
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the browser starts");
    // Read while it runs, so that a large DOM never fills the pipe.
    let mut stdout = child.stdout.take().expect("a piped stdout");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        stdout.read_to_string(&mut text).map(|_| text)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the browser can be waited for") {
            break status;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(
            started.elapsed() <= BROWSER_TIMEOUT,
            "the browser did not finish {url} in {BROWSER_TIMEOUT:?}: did a script of the data run?"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "the browser failed on {url}");
    reader
        .join()
        .expect("the reading thread ends")
        .expect("the DOM is UTF-8")
}

/// The page's DOM after its script ran, with the filters of `fragment`.
fn dom(browser: &Path, page: &Path, fragment: &str) -> String {
    let dom = open(browser, page, fragment, &["--dump-dom"]);
    assert!(
        dom.contains(r#"<main id="app""#),
        "the page was dumped: {dom}"
    );
    dom
}

/// Saves a screenshot of the page at `fragment` as `target/html-screenshots/<name>.png`.
fn screenshot(browser: &Path, page: &Path, fragment: &str, name: &str, height: u32) {
    let png = review_dir().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    open(
        browser,
        page,
        fragment,
        &[
            &format!("--screenshot={}", png.display()),
            &format!("--window-size=1100,{height}"),
            // Smaller files for docs/images, still readable.
            "--force-device-scale-factor=0.65",
        ],
    );
    assert!(png.is_file(), "the screenshot {} was saved", png.display());
}

/// The runs the list shows, as `test.run`, in order.
fn listed_runs(dom: &str) -> Vec<String> {
    dom.split(r#"<tr class=""#)
        .skip(1)
        .filter(|row| row.starts_with("run") || row.starts_with("open run"))
        .map(|row| attribute(row, "data-run"))
        .collect()
}

/// The value of the first attribute `name` in `html`.
fn attribute(html: &str, name: &str) -> String {
    let found = html.find(&format!("{name}=\""));
    assert!(found.is_some(), "an attribute `{name}` in {html}");
    let start = found.unwrap_or_default() + name.len() + 2;
    html[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The bars' counts of the histogram of `metric`, from 0–9 to 100.
fn histogram(dom: &str, metric: &str) -> Vec<u64> {
    let open = format!(r#"<figure data-metric="{metric}">"#);
    assert!(dom.contains(&open), "a chart of {metric}");
    let figure = dom.split(&open).nth(1).unwrap_or_default();
    let figure = figure.split("</figure>").next().unwrap_or_default();
    figure
        .split(r#"<rect class="bar""#)
        .skip(1)
        .map(|bar| attribute(bar, "data-count").parse().expect("a count"))
        .collect()
}

/// The section of test `number` (from 1), as drawn: its heading to its end.
fn test_section(dom: &str, number: usize) -> &str {
    let open = format!(r#"<section class="test" id="test-{number}""#);
    let section = dom.split(&open).nth(1);
    assert!(section.is_some(), "a section of test {number}");
    section
        .unwrap_or_default()
        .split("</section>")
        .next()
        .unwrap_or_default()
}

/// The fragment a link's `href` leads to, as the address bar holds it, without its `#`.
fn fragment_of(href: &str) -> String {
    href.strip_prefix('#')
        .expect("a link within the page")
        .replace("&amp;", "&")
}

/// How many elements `<tag` the DOM holds.
fn elements(dom: &str, tag: &str) -> usize {
    dom.matches(&format!("<{tag} "))
        .chain(dom.matches(&format!("<{tag}>")))
        .count()
}

#[test]
fn a_passing_suite_of_one_run_shows_its_verdicts_and_no_chart() {
    let Some(browser) = browser() else { return };
    let page = report("seed-000-first-run", true);
    let dom = dom(&browser, &page, "");
    assert!(
        dom.contains(r#"<h1>trailgate report <span class="verdict pass">PASS</span></h1>"#),
        "the suite's verdict in words"
    );
    assert!(dom.contains(
        r#"<h2><span class="verdict pass">PASS</span> research-agent picks search then fetch"#
    ));
    assert!(
        dom.contains("<code>tool_selection.f1 &gt;= 80</code>"),
        "the gate"
    );
    assert!(
        dom.contains(r#"<td><code>tool_selection.f1</code></td><td class="num">100</td>"#),
        "the metrics table gives the one run's value"
    );
    // One run spreads over nothing: a histogram of it would be one bar.
    let section = test_section(&dom, 1);
    assert!(!section.contains("<figure"), "no chart: {section}");
    assert!(!section.contains("Each metric per run"), "{section}");
    assert!(
        !section.contains("Why it failed"),
        "a passing test has nothing to explain"
    );
    assert_eq!(listed_runs(&dom), ["1.1"]);
    screenshot(&browser, &page, "run=1.1", "passing", 1500);
}

/// Expected failures in words: XFAIL and XPASS beside PASS and FAIL, in the summary table
/// and each test's heading, with the reason and, for XPASS, that the mark should go.
#[test]
fn marked_tests_show_xfail_and_xpass_with_their_reasons() {
    let Some(browser) = browser() else { return };
    let page = report_with("xfail-verdicts", false, &["--xfail", "quarantine.txt"]);
    let dom = dom(&browser, &page, "");
    assert!(
        dom.contains("5 tests, 1 passed, 1 failed, 2 xfailed, 1 xpassed."),
        "the summary's four counts"
    );
    let xfail = test_section(&dom, 3);
    assert!(
        xfail.contains(r#"<span class="verdict xfail" title="xfail: search ranking regressed, fix in review (#41)">XFAIL</span> searches first"#),
        "{xfail}"
    );
    assert!(xfail.contains("Expected to fail: search ranking regressed, fix in review (#41)"));
    let xpass = test_section(&dom, 4);
    assert!(xpass.contains(">XPASS</span> cancels politely"), "{xpass}");
    assert!(xpass.contains(
        "XPASS: it passes now; remove its xfail mark (xfail: the cancel tool timed out upstream)"
    ));
    assert!(test_section(&dom, 5).contains("Expected to fail: listed in quarantine.txt:3"));
    screenshot(&browser, &page, "", "xfail", 1500);
}

/// A failed test says why in its own section, as the page opens: each failed gate with the
/// counts behind it and the findings of the runs behind it, in the text report's words,
/// and links that show those runs in the run explorer.
#[test]
fn a_failing_test_says_why_without_a_click_and_links_to_the_runs_behind() {
    let Some(browser) = browser() else { return };
    let page = report("many-runs-listing", false);
    let shown = dom(&browser, &page, "");
    assert!(
        shown.contains(r#"<div id="run-detail"></div>"#),
        "no run is open: nothing was clicked"
    );
    let section = test_section(&shown, 1);
    let why = section.split(r#"<div class="why""#).nth(1);
    assert!(why.is_some(), "a block that says why: {section}");
    let why = why.unwrap_or_default();
    assert!(
        why.starts_with(r#" data-why="1"><h3>Why it failed</h3>"#),
        "{why}"
    );
    assert!(
        !section.contains("<details") && !why.contains("hidden"),
        "shown, not folded away: {why}"
    );
    // The four failed gates, each as the text report words it, with the counts behind it.
    for gate in [
        "<code>tool_selection.f1 &gt;= 99</code> (actual 96)",
        "<code>tool_calls.pass_rate &gt;= 90</code> (actual 84)",
        "<code>tool_correctness.score &gt;= 99</code> (actual 96)",
        "<code>call_accuracy.f1 &gt;= 99</code> (actual 94)",
        "Equal-function sets: 2 missed classes (fetch), 2 unexpected calls",
        "Tool calls: 4 of 25 runs failed (2 unmet required entries, 2 disallowed calls)",
    ] {
        assert!(why.contains(gate), "{gate} in {why}");
    }
    // The findings of the runs behind `tool_calls.pass_rate`, each run a link.
    let tool_calls = why
        .split(r#"<div class="failure" data-grader="tool-calls">"#)
        .nth(1)
        .unwrap_or_default()
        .split(r#"<div class="failure""#)
        .next()
        .unwrap_or_default();
    for finding in [
        r##"<a href="#test=1&amp;finding=tool-calls&amp;run=1.2">run 2</a> <code>traces/agent-runs.jsonl:2</code>: broken disallowed `^exec$`: call 3 `shell.exec`"##,
        r##"<a href="#test=1&amp;finding=tool-calls&amp;run=1.21">run 21</a> <code>traces/agent-runs.jsonl:21</code>: unmet required `^get$`: no matching call"##,
    ] {
        assert!(tool_calls.contains(finding), "{finding} in {tool_calls}");
    }
    // Following the links shows those runs: every run behind the gate, or one opened.
    let all = attribute(
        tool_calls
            .split(r#"<a class="runs-behind""#)
            .nth(1)
            .unwrap_or_default(),
        "href",
    );
    let followed = dom(&browser, &page, &fragment_of(&all));
    assert_eq!(listed_runs(&followed), ["1.2", "1.5", "1.21", "1.24"]);
    let one = attribute(tool_calls.split("<li>").nth(3).unwrap_or_default(), "href");
    let opened = dom(&browser, &page, &fragment_of(&one));
    let detail = opened
        .split(r#"<div id="run-detail""#)
        .nth(1)
        .expect("the run is open");
    assert!(detail.contains("Run 21 of agent over 25 runs"), "{detail}");
    assert!(
        detail.contains("tool_calls › runs"),
        "its findings: {detail}"
    );
}

/// A test without equal-function sets has no classes: no class table, and its tools
/// without the class columns. A metric on which every run agrees is said in words.
#[test]
fn a_test_without_classes_has_no_class_columns() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("trailgate.yaml"),
        r#"tests:
  - name: lists files
    runs: 2
    graders:
      - type: tool-calls
        config:
          required:
            - name: "^ls$"
  - name: searches
    equal_function_sets:
      classes:
        - name: search
          members: [web.search]
"#,
    )
    .expect("the suite is written");
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(traces.join("lists-files")).expect("the traces folder");
    for run in ["run-1", "run-2"] {
        std::fs::write(
            traces.join("lists-files").join(format!("{run}.json")),
            r#"{"tool_calls": [{"name": "ls"}, {"name": "cat", "status": "error"}]}"#,
        )
        .expect("a trace is written");
    }
    std::fs::write(
        traces.join("searches.json"),
        r#"{"tool_calls": [{"name": "search", "server": "web"}]}"#,
    )
    .expect("a trace is written");
    let page = report_in(dir.path(), "without-classes", true, &[]);
    let dom = dom(&browser, &page, "");

    let without = test_section(&dom, 1);
    assert!(without.contains("lists files"), "{without}");
    for absent in ["<h3>Classes</h3>", "Satisfied a class", "Unexpected"] {
        assert!(!without.contains(absent), "no {absent}: {without}");
    }
    assert!(
        without.contains(
            r#"<th scope="col">Tool</th><th class="num" scope="col">Called</th><th class="num" scope="col">Errors</th>"#
        ),
        "its tools, called and failed: {without}"
    );
    assert!(
        without
            .contains("<td><code>cat</code></td><td class=\"num\">2</td><td class=\"num\">2</td>"),
        "{without}"
    );
    assert!(!without.contains("<figure"), "both runs agree: {without}");
    assert!(
        without.contains("The same in every run: tool_calls.pass_rate 100."),
        "{without}"
    );
    // Beside it, a test with classes keeps them.
    let with = test_section(&dom, 2);
    assert!(with.contains("<h3>Classes</h3>") && with.contains("Satisfied a class"));
}

#[test]
fn a_failing_suite_filters_its_runs_by_the_fragment() {
    let Some(browser) = browser() else { return };
    let page = report("many-runs-listing", false);
    let all = dom(&browser, &page, "");
    assert!(all.contains(r#"<h1>trailgate report <span class="verdict fail">FAIL</span></h1>"#));
    assert!(all.contains(r#"<h2><span class="verdict fail">FAIL</span> agent over 25 runs"#));
    assert_eq!(
        all.matches(r#"<tr class="run""#).count(),
        25,
        "one page of runs"
    );
    // Runs 2 and 5 score f1 80, runs 21 and 24 f1 66, run 23 f1 100 (an incorrect call
    // only) like the 20 others.
    assert_eq!(
        histogram(&all, "tool_selection.f1"),
        [0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 21]
    );
    assert_eq!(
        histogram(&all, "tool_calls.pass_rate"),
        [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 21]
    );

    let failed = dom(&browser, &page, "verdict=failed");
    assert_eq!(listed_runs(&failed), ["1.2", "1.5", "1.21", "1.23", "1.24"]);
    assert!(failed.contains("runs 1–5 of 5 matching"));
    for row in failed.split(r#"<tr class="run""#).skip(1) {
        assert!(row.contains(r#"data-passed="false""#) && row.contains(">FAIL<"));
    }
    let passed = dom(&browser, &page, "verdict=passed");
    assert_eq!(listed_runs(&passed).len(), 20);
    assert_eq!(
        listed_runs(&dom(&browser, &page, "tool=shell")),
        ["1.2", "1.5"]
    );
    assert_eq!(
        listed_runs(&dom(
            &browser,
            &page,
            "finding=call-accuracy&verdict=failed"
        )),
        ["1.2", "1.5", "1.21", "1.23", "1.24"]
    );

    let opened = dom(&browser, &page, "verdict=failed&run=1.2");
    let detail = opened
        .split(r#"<div id="run-detail""#)
        .nth(1)
        .expect("the run is open");
    assert!(detail.contains("Run 2 of agent over 25 runs"));
    assert!(
        detail.contains("<code>shell.exec</code>"),
        "its calls in order"
    );
    assert!(detail.contains(r#"<pre>{"command":"rm -rf /tmp/x"}</pre>"#));
    assert!(
        detail.contains("equal_function_sets › runs"),
        "its findings"
    );
    assert!(
        detail.contains(r#"unexpected_calls: ["3 shell.exec"]"#),
        "a call named by number, with its tool: {detail}"
    );
    screenshot(&browser, &page, "verdict=failed&run=1.2", "failing", 3600);
}

#[test]
fn hostile_strings_are_shown_as_text() {
    let Some(browser) = browser() else { return };
    let page = report("hostile-html-content", false);
    let dom = dom(&browser, &page, "run=1.1");
    // Every string is there, as text: the DOM's serialization escapes text's `<` and `&`.
    for text in [
        "&lt;script&gt;alert('test name')&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;",
        "&lt;img src=x onerror=alert('agent')&gt;",
        "&lt;i&gt;search&lt;/i&gt;&lt;script&gt;alert('class')&lt;/script&gt;",
        "&lt;script&gt;alert('server')&lt;/script&gt;.&lt;img src=x onerror=alert('tool')&gt;",
        r#"{"&lt;b&gt;key&lt;/b&gt;":"&lt;/script&gt;&lt;script&gt;alert('argument')&lt;/script&gt;","amp":"&amp;lt;&amp;amp;&amp;gt; "#,
        "&lt;!-- --&gt;&lt;svg onload=alert('result')&gt;&lt;/svg&gt;",
        r#"&lt;iframe src=\"javascript:alert('q')\"&gt;&lt;/iframe&gt;"#,
        r#"{"&lt;a&gt;":"&lt;a href=\"javascript:alert('href')\"&gt;link&lt;/a&gt;"}"#,
        "\u{2028}\u{2029}",
    ] {
        assert!(dom.contains(text), "shown as text: {text}");
    }
    // And no element was made of them: the page's own two scripts, its charts, no image,
    // frame, link to `javascript:` or `<b>`/`<i>`.
    assert_eq!(
        elements(&dom, "script"),
        2,
        "the data and the page's script"
    );
    for tag in ["img", "iframe", "b", "i", "a href=\"javascript"] {
        assert_eq!(elements(&dom, tag), 0, "no `<{tag}>` element");
    }
    assert_eq!(
        dom.matches("<svg ").count(),
        dom.matches(r#"<svg class="chart""#).count(),
        "every SVG is a chart of the page's"
    );
    assert!(dom.contains(r#"<h2><span class="verdict fail">FAIL</span> &lt;script&gt;"#));
    assert!(
        dom.contains("pass^k for k = 1 to 2"),
        "the reliability decay"
    );
    assert_eq!(listed_runs(&dom), ["1.1", "1.2"]);
    screenshot(&browser, &page, "run=1.1", "hostile", 2600);
}

/// With `--baseline`, each test shows its metrics beside the baseline's, each change in
/// words; a test the baseline lacks says so.
#[test]
fn the_baseline_comparison_is_shown_beside_the_metrics() {
    let Some(browser) = browser() else { return };
    let page = report_with("baseline-gates", false, &["--baseline", "base.json"]);
    let shown = dom(&browser, &page, "");
    for row in [
        "<td>tool_selection.f1</td><td class=\"num\">100</td><td class=\"num\">90</td><td>down 10</td>",
        "<td>tool_selection.recall</td><td class=\"num\">100</td><td class=\"num\">83</td><td>down 17</td>",
    ] {
        assert!(shown.contains(row), "{row} in the comparison");
    }
    assert!(
        shown.contains("metrics worsened against the baseline."),
        "the comparison in words"
    );
    assert!(
        shown.contains("The baseline has no test of this name"),
        "`fetch only` has no baseline"
    );
    let without = report("baseline-gates", true);
    assert!(shown.contains("Baseline comparison"));
    assert!(
        dom(&browser, &without, "").contains("No baseline was given"),
        "without --baseline"
    );
}
