//! The cookbook runs as written: every recipe of `docs/cookbook.md` is a folder of
//! `fixtures/cookbook/`, and the suites and reports the page shows are that folder's suite
//! and what trailgate prints on it.
//!
//! The page ties a block to its folder with an HTML comment naming the folder, alone on the
//! line right before the block's opening fence:
//!
//! ````text
//! **Run.** `trailgate check` prints this report, with exit code 1:
//!
//! <!-- fixtures/cookbook/claude-code -->
//! ```console
//! $ trailgate check trailgate.yaml
//! FAIL claude code updates hello.py (1 run, agent claude-code)
//! ...
//! ```
//! ````
//!
//! - A tied ```` ```yaml ```` block is the folder's `trailgate.yaml`, byte for byte.
//! - A tied ```` ```console ```` block starts with `$ trailgate ARGS`: the test runs the built
//!   binary with `ARGS` in the folder, and the rest of the block is its standard output,
//!   exactly. The last line of prose before the comment states the exit code, as
//!   `exit code N`, and the run must exit with it.
//! - Every ```` ```yaml ```` block and every ```` ```console ```` block that runs trailgate is
//!   tied, and every folder of `fixtures/cookbook/` has a suite and a run on the page.

use std::fs;
use std::path::Path;

use crate::support::trailgate;

const PAGE: &str = include_str!("../../../../docs/cookbook.md");

/// The marker that ties a block to a recipe, around the recipe's folder name.
const MARKER_START: &str = "<!-- fixtures/cookbook/";
const MARKER_END: &str = " -->";

fn cookbook() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/cookbook"
    ))
}

/// A fenced block of the page and what ties it to a recipe.
struct Block {
    /// The line of its opening fence, from 1, for the messages.
    line: usize,
    /// The word after the opening fence: `yaml`, `console`, `sh`, ...
    language: &'static str,
    /// The folder its marker names, under `fixtures/cookbook/`.
    recipe: Option<&'static str>,
    /// The lines between the fences, each ending with a newline.
    body: String,
    /// The exit code that the last line of prose before the marker states.
    exit_code: Option<i32>,
}

impl Block {
    /// Where the block is, as a message starts.
    fn at(&self) -> String {
        match self.recipe {
            Some(recipe) => format!(
                "docs/cookbook.md:{} (fixtures/cookbook/{recipe})",
                self.line
            ),
            None => format!("docs/cookbook.md:{}", self.line),
        }
    }

    /// A console block whose command is trailgate's: the page claims what trailgate prints.
    fn runs_trailgate(&self) -> bool {
        self.language == "console" && self.body.starts_with("$ trailgate ")
    }
}

/// Every fenced block of the page, in page order.
fn blocks() -> Vec<Block> {
    let lines: Vec<&'static str> = PAGE.lines().collect();
    let mut blocks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let Some(language) = lines[index].strip_prefix("```") else {
            index += 1;
            continue;
        };
        let recipe = index
            .checked_sub(1)
            .and_then(|before| lines[before].strip_prefix(MARKER_START))
            .and_then(|rest| rest.strip_suffix(MARKER_END));
        // The statement of the exit code is the prose right above the marker, so a reader
        // sees it next to the output; blank lines between them do not count.
        let exit_code = recipe.and_then(|_| {
            lines[..index - 1]
                .iter()
                .rev()
                .find(|line| !line.trim().is_empty())
                .and_then(|line| stated_exit_code(line))
        });
        let line = index + 1;
        let mut body = String::new();
        index += 1;
        while index < lines.len() && lines[index] != "```" {
            body.push_str(lines[index]);
            body.push('\n');
            index += 1;
        }
        assert!(
            index < lines.len(),
            "docs/cookbook.md:{line}: the block is never closed"
        );
        index += 1;
        blocks.push(Block {
            line,
            language,
            recipe,
            body,
            exit_code,
        });
    }
    blocks
}

/// The `N` of the first `exit code N` in a line of prose.
fn stated_exit_code(line: &str) -> Option<i32> {
    let (_, after) = line.split_once("exit code ")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[test]
fn every_command_shown_prints_what_the_page_shows() {
    let mut runs = 0;
    for block in blocks().iter().filter(|block| block.runs_trailgate()) {
        let at = block.at();
        let recipe = block.recipe.unwrap_or_else(|| {
            panic!("{at}: a trailgate command with no `<!-- fixtures/cookbook/... -->` before it")
        });
        let expected_code = block.exit_code.unwrap_or_else(|| {
            panic!("{at}: the line of prose before the marker states no `exit code N`")
        });
        let (command, shown) = block.body.split_once('\n').expect("a command line");
        let args: Vec<&str> = command
            .strip_prefix("$ trailgate ")
            .expect("a trailgate command")
            .split_whitespace()
            .collect();
        let run = trailgate(&cookbook().join(recipe), &args);
        assert_eq!(
            run.code, expected_code,
            "{at}: `{command}` exits with {}, the page says {expected_code}\n{}",
            run.code, run.stderr
        );
        // The page shows standard output only: a warning on standard error would be a part
        // of the run that a reader never sees.
        assert_eq!(run.stderr, "", "{at}: `{command}` writes to standard error");
        assert_eq!(
            run.stdout, shown,
            "{at}: `{command}` prints something else than the page shows"
        );
        runs += 1;
    }
    assert!(runs > 0, "the page shows trailgate's output");
}

#[test]
fn every_suite_shown_is_its_recipe_s_trailgate_yaml() {
    let mut suites = 0;
    for block in blocks().iter().filter(|block| block.language == "yaml") {
        let at = block.at();
        // A suite with no folder would be one that no test reads.
        let recipe = block.recipe.unwrap_or_else(|| {
            panic!("{at}: a yaml block with no `<!-- fixtures/cookbook/... -->` before it")
        });
        let path = cookbook().join(recipe).join("trailgate.yaml");
        let suite = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{at}: cannot read {}: {e}", path.display()));
        assert_eq!(
            block.body, suite,
            "{at}: the suite shown is not the folder's trailgate.yaml"
        );
        suites += 1;
    }
    assert!(suites > 0, "the page shows suites");
}

#[test]
fn every_recipe_folder_is_on_the_page() {
    let blocks = blocks();
    let mut folders = Vec::new();
    for entry in fs::read_dir(cookbook()).expect("the cookbook folder") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap()
            .to_owned();
        // The golden test takes every `fixtures/*/README.md` for a fixture of its own, and
        // this folder is not one.
        assert!(
            path.is_dir(),
            "fixtures/cookbook/{name}: only recipe folders belong here"
        );
        folders.push(name);
    }
    folders.sort();
    let mut on_page: Vec<&str> = blocks.iter().filter_map(|block| block.recipe).collect();
    on_page.sort_unstable();
    on_page.dedup();
    assert_eq!(
        folders, on_page,
        "the folders of fixtures/cookbook/ and the recipes of docs/cookbook.md differ"
    );
    for folder in &folders {
        let tied = |language: &str| {
            blocks
                .iter()
                .filter(|block| block.recipe == Some(folder.as_str()))
                .filter(|block| block.language == language)
                .count()
        };
        assert_eq!(
            tied("yaml"),
            1,
            "fixtures/cookbook/{folder}: the page shows its suite once"
        );
        assert!(
            tied("console") > 0,
            "fixtures/cookbook/{folder}: the page shows no run of it"
        );
    }
}

#[test]
fn every_marked_block_is_a_suite_or_a_run() {
    for block in blocks().iter().filter(|block| block.recipe.is_some()) {
        assert!(
            block.language == "yaml" || block.runs_trailgate(),
            "{}: a marked `{}` block is neither a suite nor a trailgate run, so nothing checks it",
            block.at(),
            block.language
        );
    }
}

/// Readers learn what a failed gate looks like from the page, so one recipe keeps failing.
#[test]
fn the_page_shows_a_failing_gate() {
    let blocks = blocks();
    assert!(
        blocks
            .iter()
            .any(|block| block.runs_trailgate() && block.exit_code == Some(1)),
        "no run on the page exits with 1"
    );
}
