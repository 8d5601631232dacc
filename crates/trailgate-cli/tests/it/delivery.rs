//! A report is delivered or the run fails: failed writes, devices and FIFOs, file modes,
//! signals, the set of `--output` files and their formats.

use std::fs;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rstest::rstest;

use crate::support::{trailgate, trailgate_with};

/// A suite whose gates pass.
fn passing() -> PathBuf {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/several-runs"
    ))
    .to_path_buf()
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[rstest]
#[case::text("text")]
#[case::json("json")]
fn a_report_that_cannot_be_written_to_standard_output_fails_the_run(#[case] format: &str) {
    let full = fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let run = trailgate_with(&passing(), &["check", "--format", format], |command| {
        command.stdout(full);
    });
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("cannot write the report to standard output"),
        "{}",
        run.stderr
    );
}

/// The reports that list every run are rendered straight into their target when only one
/// target asks for them, and into a temporary file that each target copies when several
/// do: the same bytes either way, on standard output and in files.
#[rstest]
#[case::json("json")]
#[case::jsonl("jsonl")]
#[case::html("html")]
fn a_report_has_the_same_bytes_for_one_target_or_several(#[case] format: &str) {
    let temp = tempfile::tempdir().unwrap();
    let file = |name: &str| temp.path().join(name).to_str().unwrap().to_owned();
    let (a, b, c) = (file("a"), file("b"), file("c"));
    let alone = trailgate(&passing(), &["check", "--format", format]);
    assert_eq!(alone.code, 0, "{}", alone.stderr);
    let in_a_file = trailgate(
        &passing(),
        &["check", "--quiet", "--format", format, "--output", &a],
    );
    assert_eq!((in_a_file.code, in_a_file.stdout.as_str()), (0, ""));
    let beside_stdout = trailgate(
        &passing(),
        &[
            "check", "--format", format, "--output", &b, "--format", format,
        ],
    );
    assert_eq!(beside_stdout.code, 0, "{}", beside_stdout.stderr);
    let two_files = trailgate(
        &passing(),
        &[
            "check", "--format", format, "--output", &c, "--format", format, "--output", &a,
        ],
    );
    assert_eq!(two_files.code, 0, "{}", two_files.stderr);
    assert!(alone.stdout.len() > 1000, "{}", alone.stdout);
    assert_eq!(beside_stdout.stdout, alone.stdout);
    for path in [&a, &b, &c] {
        assert_eq!(fs::read_to_string(path).unwrap(), alone.stdout, "{path}");
    }
}

#[test]
fn a_reader_that_closes_the_pipe_early_never_makes_a_pass() {
    // The JSON report of 4,000 runs (about 1 MB) is far larger than a pipe holds (64 KiB),
    // so the check cannot finish writing it before the pipe closes, however the two
    // processes are scheduled: a report that fits the pipe would pass on a loaded machine.
    let temp = tempfile::tempdir().unwrap();
    fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: many runs\n    traces: runs.jsonl\n    equal_function_sets:\n      classes: [{name: search, members: [search]}]\n",
    )
    .unwrap();
    let run = r#"{"tool_calls": [{"name": "search", "args": {"q": "weather"}}]}"#;
    fs::write(
        temp.path().join("runs.jsonl"),
        format!("{run}\n").repeat(4000),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .args(["check", "--format", "json"])
        .current_dir(temp.path())
        .env_clear()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe before reading anything.
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stderr, "", "a closed pipe ends quietly");
}

#[test]
fn an_output_that_cannot_be_written_fails_and_a_device_is_never_replaced() {
    let run = trailgate(
        &passing(),
        &["check", "--format", "json", "--output", "/dev/full"],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot write `/dev/full`"),
        "{}",
        run.stderr
    );
    assert!(
        fs::metadata("/dev/full")
            .unwrap()
            .file_type()
            .is_char_device()
    );
    let run = trailgate(
        &passing(),
        &["check", "--format", "json", "--output", "/dev/null"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn a_fifo_is_written_in_place() {
    let temp = tempfile::tempdir().unwrap();
    let fifo = temp.path().join("report.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let run = trailgate(
        &passing(),
        &[
            "check",
            "--format",
            "json",
            "--output",
            fifo.to_str().unwrap(),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    assert_eq!(report["passed"], true);
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(names(temp.path()), ["report.fifo"]);
}

#[test]
fn a_new_report_gets_the_umask_mode_and_a_replaced_one_keeps_its_mode() {
    let temp = tempfile::tempdir().unwrap();
    // A file created as any program creates one: 0666 less the umask, which trailgate
    // inherits from this process.
    let reference = temp.path().join("reference");
    fs::File::create(&reference).unwrap();
    let usual = fs::metadata(&reference).unwrap().permissions().mode() & 0o777;
    let out = temp.path().join("report.json");
    let run = trailgate(&passing(), &["check", "--output", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        usual
    );
    fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
    let run = trailgate(&passing(), &["check", "--output", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        fs::metadata(&out).unwrap().permissions().mode() & 0o7777,
        0o640
    );
}

#[test]
fn a_symbolic_link_stays_a_link_to_the_replaced_report() {
    let temp = tempfile::tempdir().unwrap();
    let real = temp.path().join("real.json");
    fs::write(&real, "old").unwrap();
    let link = temp.path().join("link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = trailgate(&passing(), &["check", "--output", link.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(fs::read_to_string(&real).unwrap().starts_with('{'));
}

#[rstest]
#[case::sigterm("TERM")]
#[case::sigint("INT")]
fn a_signal_removes_the_staged_reports(#[case] signal: &str) {
    let temp = tempfile::tempdir().unwrap();
    // The FIFO, written in place after the regular file is staged, holds the run there
    // until it is read, which it never is.
    let fifo = temp.path().join("held.fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let json = temp.path().join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_trailgate"))
        .args([
            "check",
            "--format",
            "json",
            "--output",
            json.to_str().unwrap(),
            "--format",
            "text",
            "--output",
            fifo.to_str().unwrap(),
        ])
        .current_dir(passing())
        .env_clear()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait for the staged file (no timing: it appears, or the run ended without it).
    while names(temp.path()).len() < 2 {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        std::thread::yield_now();
    }
    let killed = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert!(!status.success());
    assert_eq!(
        names(temp.path()),
        ["held.fifo"],
        "no temporary file is left"
    );
}

#[rstest]
#[case::same_path_twice(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "{t}/a.json"], "names the same file")]
#[case::same_file_by_another_path(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "{t}/./a.json"], "names the same file")]
#[case::a_folder(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "{t}"], "it is a folder")]
#[case::a_folder_with_a_slash(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "{t}/"], "it names a folder")]
#[case::a_missing_folder(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "{t}/no/a.xml"], "the folder")]
#[case::the_suite(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "trailgate.yaml"], "files trailgate reads")]
#[case::a_trace(&["--format", "json", "--output", "{t}/a.json", "--format", "junit", "--output", "traces/research-agent-across-three-runs/run-2.json"], "files trailgate reads")]
fn every_output_is_checked_before_any_is_written(#[case] args: &[&str], #[case] message: &str) {
    let temp = tempfile::tempdir().unwrap();
    let work = temp.path().join("work");
    copy_dir(&passing(), &work);
    let t = temp.path().to_str().unwrap();
    let args: Vec<String> = std::iter::once("check".to_owned())
        .chain(args.iter().map(|arg| arg.replace("{t}", t)))
        .collect();
    let before = snapshot(&work);
    let run = trailgate(&work, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(message), "{}", run.stderr);
    assert_eq!(names(temp.path()), ["work"], "nothing is written");
    assert_eq!(snapshot(&work), before, "no input is touched");
}

#[rstest]
#[case::json("report.json", "json")]
#[case::jsonl("report.jsonl", "jsonl")]
#[case::xml("report.xml", "junit")]
#[case::markdown("report.md", "markdown")]
#[case::text("report.txt", "text")]
#[case::html("report.html", "html")]
fn without_format_the_extension_names_it(#[case] file: &str, #[case] format: &str) {
    let temp = tempfile::tempdir().unwrap();
    let out = temp.path().join(file);
    let run = trailgate(&passing(), &["check", "--output", out.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = trailgate(
        &passing(),
        &["check", "--format", format, "--color", "never"],
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), expected.stdout);
}

#[rstest]
#[case::check_csv(&["check", "--output", "{t}/report.csv"])]
#[case::check_no_extension(&["check", "--output", "{t}/report"])]
#[case::merge_xml(&["merge", "x.json", "--output", "{t}/report.xml"])]
fn an_output_whose_extension_names_no_format_needs_one(#[case] args: &[&str]) {
    let temp = tempfile::tempdir().unwrap();
    let t = temp.path().to_str().unwrap();
    let args: Vec<String> = args.iter().map(|arg| arg.replace("{t}", t)).collect();
    let run = trailgate(
        &passing(),
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("cannot tell the format"),
        "{}",
        run.stderr
    );
    assert!(names(temp.path()).is_empty());
}

#[rstest]
#[case::most(256, 0)]
#[case::past_the_bound(257, 2)]
#[case::far_past_it(16384, 2)]
fn threads_are_bounded(#[case] threads: u32, #[case] code: i32) {
    let run = trailgate(&passing(), &["check", "--threads", &threads.to_string()]);
    assert_eq!(run.code, code, "{}", run.stderr);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under `dir` and its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else {
            files.push((path.clone(), fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}
