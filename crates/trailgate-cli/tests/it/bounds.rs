//! Inputs at the scale that once took gigabytes or minutes to grade or to refuse, each run
//! through the binary as a user would: the answer is the same as on a small input, and the
//! memory stays within a bound set with the shell's `ulimit -d` (`RLIMIT_DATA`: the heap and
//! every private mapping), so that an allocation past it fails and `trailgate` aborts. The
//! limits are bounds, not measurements; the work itself is bounded by counting it, in the
//! unit tests of each grader (docs/robustness.md#limits).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::support::trailgate;

/// `trailgate args` in `dir`, with an empty environment and its data limited to
/// `limit_kib` KiB: the exit code, standard output and standard error.
fn trailgate_within(dir: &Path, limit_kib: u64, args: &[&str]) -> (Option<i32>, String, String) {
    let output = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -d {limit_kib} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_trailgate"),
        ])
        .args(args)
        .current_dir(dir)
        .env_clear()
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The most memory a check of a few hundred kilobytes of trace may take here: the traces
/// below are read whole, parsed and graded in a few megabytes; a debug build, its threads'
/// stacks and the allocator's reserves take the rest.
const CHECK_DATA_LIMIT_KIB: u64 = 128 * 1024;

/// A flow edge over a result that holds its strings at every byte: `search`'s one real
/// result is 200,000 `a`s, and 600 `book` calls each pass a run of 4 to 603 `a`s (a
/// 400 KB trace). Each string is found in that result, so every edge holds. Listing every
/// overlapping hit of every string took a hit for each of 600 strings at each of 200,000
/// bytes, 120 million, a gigabyte; the search notes each string once.
#[test]
fn a_flow_edge_over_a_result_full_of_its_strings_holds_within_memory() {
    let temp = tempfile::tempdir().unwrap();
    let strings = 600;
    let mut calls = Vec::new();
    // Five results without the strings first, so that the run reads past the few results
    // searched one string at a time.
    for n in 0..5 {
        calls.push(format!(r#"{{"name":"search","result":"nothing {n}"}}"#));
    }
    calls.push(format!(
        r#"{{"name":"search","result":"{}"}}"#,
        "a".repeat(200_000)
    ));
    for n in 0..strings {
        calls.push(format!(
            r#"{{"name":"book","args":{{"id":"{}"}}}}"#,
            "a".repeat(4 + n)
        ));
    }
    let trace = format!(r#"{{"tool_calls":[{}]}}"#, calls.join(","));
    assert!(trace.len() > 350_000, "{} bytes", trace.len());
    fs::write(temp.path().join("t.json"), trace).unwrap();
    fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: ids flow\n    traces: t.json\n    graders:\n      - type: dependencies\n        \
         config:\n          edges:\n            - { feeds: search, into: book, arg: id }\n",
    )
    .unwrap();
    let (code, stdout, stderr) = trailgate_within(
        temp.path(),
        CHECK_DATA_LIMIT_KIB,
        &["check", "--threads", "1", "--color", "never"],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("dependencies: 1 of 1 run held every edge  pass rate 100"),
        "{stdout}{stderr}"
    );
}

/// Ten parallel groups over 30,000 calls, each call a turn of its own (a 900 KB trace): no
/// group fits a turn. Each group went over every call for every turn, and the explanation
/// did again for the first group missed: 29 seconds with the release binary. The calls of
/// each turn are now found once per run; the verdict and the closest turn are those of
/// the small run.
#[test]
fn parallel_groups_that_fit_no_turn_of_a_long_run_are_explained() {
    let temp = tempfile::tempdir().unwrap();
    let groups = 10;
    let mut expected = String::new();
    for g in 0..groups {
        writeln!(expected, "            - parallel: [a{g}, b{g}]").unwrap();
    }
    let calls: Vec<String> = (0..30_000)
        .map(|c| {
            let g = c / 2 % groups;
            let tool = if c % 2 == 0 { "a" } else { "b" };
            format!(r#"{{"name":"{tool}{g}","step":{c}}}"#)
        })
        .collect();
    let trace = format!(r#"{{"tool_calls":[{}]}}"#, calls.join(","));
    fs::write(temp.path().join("t.json"), trace).unwrap();
    for mode in ["any_order", "subset"] {
        fs::write(
            temp.path().join("trailgate.yaml"),
            format!(
                "tests:\n  - name: groups\n    traces: t.json\n    graders:\n      - type: \
                 trajectory\n        config:\n          mode: {mode}\n          expected:\n{expected}"
            ),
        )
        .unwrap();
        let run = trailgate(temp.path(), &["check", "--color", "never"]);
        assert_eq!(run.code, 1, "{mode}: {}{}", run.stdout, run.stderr);
        let shown = if mode == "subset" {
            "extra call a0 (call 1)"
        } else {
            "missed parallel [a0, b0]; turn 0 has 1 of its 2 steps"
        };
        assert!(run.stdout.contains(shown), "{mode}: {}", run.stdout);
    }
}

/// The largest line a JSON Lines trace may hold is `MAX_LINE_BYTES`, 64 MiB; a line of
/// 150 MB after a first good line (a sparse file: it takes no disk) is refused with its
/// line number, holding no more than the limit: under a data limit of 100 MiB, where
/// growing the line's buffer by doubling took twice the limit.
#[test]
fn an_over_long_line_is_refused_within_its_limit() {
    let temp = tempfile::tempdir().unwrap();
    let path = temp.path().join("t.jsonl");
    let mut first = br#"{"tool_calls":[{"name":"x"}]}"#.to_vec();
    first.push(b'\n');
    fs::write(&path, &first).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(150_000_000)
        .unwrap();
    fs::write(
        temp.path().join("trailgate.yaml"),
        "tests:\n  - name: t\n    traces: t.jsonl\n    graders:\n      - type: tool-correctness\n        \
         config:\n          expected_tools: [x]\n",
    )
    .unwrap();
    for threads in ["1", "2"] {
        let (code, stdout, stderr) = trailgate_within(
            temp.path(),
            100 * 1024,
            &["check", "--threads", threads, "--color", "never"],
        );
        assert_eq!(code, Some(2), "{threads} threads: {stdout}{stderr}");
        assert!(
            stderr.contains("line 2 of `t.jsonl` is longer than 64 MiB"),
            "{threads} threads: {stderr}"
        );
    }
}
