//! The library entry point on captured streams, as the Python package runs it.

use crate::{Console, run};

/// Runs `args` (after the program's name) captured: the exit code, stdout and stderr.
fn captured(args: &[&str]) -> (u8, String, String) {
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let code = run(
        std::iter::once("trailgate").chain(args.iter().copied()),
        &mut Console::captured(&mut stdout, &mut stderr),
    );
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap_or_default();
    (code, text(stdout), text(stderr))
}

#[test]
fn help_and_version_go_to_the_captured_stdout() {
    let (code, stdout, stderr) = captured(&["--version"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert!(stdout.starts_with("trailgate "), "{stdout}");
}

#[test]
fn a_usage_error_goes_to_the_captured_stderr_without_styles() {
    let (code, stdout, stderr) = captured(&["check", "--no-such-option"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("--no-such-option"), "{stderr}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
}

#[test]
fn a_diagnostic_goes_to_the_captured_stderr_and_a_report_to_its_stdout() {
    let suite = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/seed-000-second-run/trailgate.yaml"
    );
    let (code, stdout, stderr) = captured(&["--color", "never", "check", suite]);
    assert_eq!((code, stderr.as_str()), (1, ""));
    assert!(
        stdout.contains("FAIL tool_selection.f1 >= 80  (actual 50)"),
        "{stdout}"
    );

    let (code, stdout, stderr) = captured(&["--color", "never", "check", "no/such/suite.yaml"]);
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert!(stderr.contains("no/such/suite.yaml"), "{stderr}");
}
