//! `cargo xtask fuzz-corpus`: the seed corpus of every fuzz target, built from the fixtures.
//!
//! The targets are the `[[bin]]`s of `fuzz/Cargo.toml`; each gets `fuzz/seeds/<target>/`,
//! rewritten from scratch, one file per distinct input, named by a hash of its content so
//! that a rerun writes the same files. What goes where:
//!
//! - `suite`: every fixture's `trailgate.yaml`;
//! - `accuracy`: the `.json` inputs of the `accuracy-command` fixtures;
//! - `detect`: every other `.json` and `.jsonl` file of a fixture (the trace files);
//! - `merge`: for each fixture whose name holds `merge`, its `.json` files (the shard
//!   reports) in path order, joined by a NUL byte, which the target splits on;
//! - `diff`: for each fixture whose name holds `diff`, the reports its `args` names, the
//!   first and second joined by a NUL byte, which the target splits on;
//! - `matcher`: [`MATCHER_SEEDS`], each a value matcher in YAML and a JSON value joined by
//!   a NUL byte, which the target splits on;
//! - `parquet`: every `.parquet` file of a fixture (the Parquet exports, good and bad);
//! - `format_<name>`: the trace files of the fixtures named `format-<name>-*` (or
//!   `bad-format-<name>-*`), and for `format_trailgate` those of the fixtures that name no
//!   format, which are in trailgate's own format.
//!
//! Files over [`MAX_SEED`] bytes are skipped: they slow every execution down for little
//! coverage.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::{read_dir, say};

/// The largest seed kept, in bytes.
const MAX_SEED: u64 = 64 * 1024;

/// The `matcher` target's seeds: a value matcher as a suite writes one under `args`, and a
/// value it is matched against (some match, some do not): every operator, literals at
/// depth, a key written twice in the value, numbers beyond 64 bits.
const MATCHER_SEEDS: &[(&str, &str)] = &[
    ("hello", r#""hello""#),
    (
        "{q: {$regex: \"^rust \\\\d+\"}, page: 1}",
        r#"{"q": "rust 2024", "page": 1.0}"#,
    ),
    ("{$eq: {$gt: 1}}", r#"{"$gt": 1}"#),
    ("{$contains: urgent}", r#"["x", "very urgent"]"#),
    ("{$icontains: ÉTÉ}", r#""un été chaud""#),
    ("{$any_of: [fast, {$type: integer}]}", "1e2"),
    ("{$all_of: [{$gte: 1}, {$lt: 10}]}", "10"),
    ("{$not: {$present: true}}", "null"),
    (
        "{a: {$present: false}, b: [1, {c: x}]}",
        r#"{"b": [1, {"c": "x"}], "b": 2}"#,
    ),
    ("{$near: {value: 0.3, within: 0.05}}", "0.3500001"),
    (
        "{$lte: 123456789012345678901234567890}",
        "123456789012345678901234567890.5",
    ),
    (
        "{$schema: {type: object, required: [id], properties: {id: {type: integer}}}}",
        r#"{"id": 7, "tags": ["\u00e9"]}"#,
    ),
    ("[1, {$regex: \"\\\\.env$\"}]", r#"[1, "prod.env"]"#),
];

/// Rewrites `fuzz/seeds/` under `root` from `fixtures/`, and the `matcher` target's from
/// [`MATCHER_SEEDS`].
pub(crate) fn build(root: &Path) -> Result<(), String> {
    let targets = targets(&root.join("fuzz/Cargo.toml"))?;
    let formats: Vec<String> = targets
        .iter()
        .filter_map(|target| target.strip_prefix("format_"))
        .map(|format| format.replace('_', "-"))
        .collect();
    let mut seeds: BTreeMap<String, BTreeMap<String, Vec<u8>>> = targets
        .iter()
        .map(|target| (target.clone(), BTreeMap::new()))
        .collect();
    let mut skipped = 0;
    for fixture in read_dir(&root.join("fixtures"))? {
        if !fixture.is_dir() {
            continue;
        }
        let name = file_name(&fixture);
        let mut files = Vec::new();
        collect(&fixture, &mut files)?;
        if name.contains("merge") {
            let mut shards = files
                .iter()
                .filter(|file| file.extension().is_some_and(|e| e == "json"))
                .collect::<Vec<_>>();
            shards.sort();
            let mut joined = Vec::new();
            for (index, shard) in shards.iter().enumerate() {
                if index > 0 {
                    joined.push(0);
                }
                joined.extend(
                    fs::read(shard).map_err(|e| format!("cannot read {}: {e}", shard.display()))?,
                );
            }
            if !joined.is_empty()
                && (joined.len() as u64) <= MAX_SEED
                && let Some(target_seeds) = seeds.get_mut("merge")
            {
                target_seeds.insert(hash_name(&joined), joined);
            }
        }
        if name.contains("diff")
            && let Some(seed) = diff_seed(&fixture)
            && (seed.len() as u64) <= MAX_SEED
            && let Some(target_seeds) = seeds.get_mut("diff")
        {
            target_seeds.insert(hash_name(&seed), seed);
        }
        for file in files {
            let size = fs::metadata(&file)
                .map_err(|e| format!("cannot read {}: {e}", file.display()))?
                .len();
            if size > MAX_SEED {
                skipped += 1;
                continue;
            }
            let file_name = file_name(&file);
            let extension = file.extension().and_then(|e| e.to_str()).unwrap_or("");
            let parquet = (extension == "parquet").then(|| "parquet".to_owned());
            let mut into: Vec<String> = parquet.into_iter().collect();
            if file_name == "trailgate.yaml" {
                into.push("suite".to_owned());
            } else if extension == "json" || extension == "jsonl" {
                if name.contains("accuracy-command") {
                    into.push("accuracy".to_owned());
                } else {
                    into.push("detect".to_owned());
                    into.extend(
                        format_of(&name, &formats)
                            .map(|f| format!("format_{}", f.replace('-', "_"))),
                    );
                }
            }
            if into.is_empty() {
                continue;
            }
            let content =
                fs::read(&file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
            for target in into {
                if let Some(target_seeds) = seeds.get_mut(&target) {
                    target_seeds.insert(hash_name(&content), content.clone());
                }
            }
        }
    }
    if let Some(target_seeds) = seeds.get_mut("matcher") {
        for (yaml, json) in MATCHER_SEEDS {
            let seed = [yaml.as_bytes(), &[0], json.as_bytes()].concat();
            target_seeds.insert(hash_name(&seed), seed);
        }
    }
    for (target, files) in &seeds {
        write_seeds(&root.join("fuzz/seeds").join(target), files)?;
        say(&format!("fuzz-corpus: {target}: {} seeds", files.len()));
    }
    if skipped > 0 {
        say(&format!(
            "fuzz-corpus: skipped {skipped} files over {MAX_SEED} bytes"
        ));
    }
    Ok(())
}

/// The two reports a `diff` fixture's `args` names (`diff BASE HEAD`), joined by a NUL
/// byte; `None` when either cannot be read (a fixture of a missing file).
fn diff_seed(fixture: &Path) -> Option<Vec<u8>> {
    let args = fs::read_to_string(fixture.join("args")).ok()?;
    let reports: Vec<&str> = args.lines().skip(1).take(2).collect();
    let [base, head] = reports.as_slice() else {
        return None;
    };
    let mut seed = fs::read(fixture.join(base)).ok()?;
    seed.push(0);
    seed.extend(fs::read(fixture.join(head)).ok()?);
    Some(seed)
}

/// The `[[bin]]` names of the fuzz crate's manifest.
fn targets(manifest: &Path) -> Result<Vec<String>, String> {
    let text = fs::read_to_string(manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut targets = Vec::new();
    let mut in_bin = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin && let Some(value) = line.strip_prefix("name = ") {
            targets.push(value.trim_matches('"').to_owned());
        }
    }
    if targets.is_empty() {
        return Err(format!("{} declares no fuzz target", manifest.display()));
    }
    Ok(targets)
}

/// The format a fixture's trace files are in: the longest format named after `format-`
/// (`format-openai-chat-graded` is `openai-chat`), `trailgate` for a fixture that names none,
/// and none for a `bad-*` fixture, whose traces are broken on purpose.
fn format_of(fixture: &str, formats: &[String]) -> Option<String> {
    let named = fixture
        .strip_prefix("format-")
        .or_else(|| fixture.strip_prefix("bad-format-"));
    match named {
        Some(rest) => formats
            .iter()
            .filter(|format| {
                rest.strip_prefix(format.as_str())
                    .is_some_and(|after| after.starts_with('-'))
            })
            .max_by_key(|format| format.len())
            .cloned(),
        None if fixture.starts_with("bad-") => None,
        None => Some("trailgate".to_owned()),
    }
}

/// Every file under `dir`, but for the golden snapshots.
fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for path in read_dir(dir)? {
        if path.is_dir() {
            if file_name(&path) != "snapshots" {
                collect(&path, out)?;
            }
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// Replaces the files of `dir` with `files`, and says nothing when they are the same.
fn write_seeds(dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let keep: BTreeSet<&str> = files.keys().map(String::as_str).collect();
    for existing in read_dir(dir)? {
        if !keep.contains(file_name(&existing).as_str()) {
            fs::remove_file(&existing)
                .map_err(|e| format!("cannot remove {}: {e}", existing.display()))?;
        }
    }
    for (name, content) in files {
        let path = dir.join(name);
        if fs::read(&path).ok().as_deref() != Some(content.as_slice()) {
            fs::write(&path, content)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A stable name for `content`: its 64-bit FNV-1a hash in hex. Not cryptographic; it only
/// has to tell a few hundred seeds apart.
fn hash_name(content: &[u8]) -> String {
    let hash = content
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::{format_of, hash_name};

    #[test]
    fn fixtures_map_to_their_format() {
        let formats = vec![
            "openai-chat".to_owned(),
            "openai-responses".to_owned(),
            "mcp".to_owned(),
        ];
        let of = |name| format_of(name, &formats);
        assert_eq!(
            of("format-openai-chat-graded").as_deref(),
            Some("openai-chat")
        );
        assert_eq!(of("format-mcp-graded").as_deref(), Some("mcp"));
        assert_eq!(of("bad-format-mcp-x").as_deref(), Some("mcp"));
        assert_eq!(of("format-codex-rollout").as_deref(), None);
        assert_eq!(of("repeats").as_deref(), Some("trailgate"));
        assert_eq!(of("bad-jsonl-line").as_deref(), None);
    }

    #[test]
    fn names_are_stable_fnv1a() {
        assert_eq!(hash_name(b""), "cbf29ce484222325");
        assert_eq!(hash_name(b"a"), "af63dc4c8601ec8c");
    }
}
