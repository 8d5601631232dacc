//! The files a patch names, when a call's arguments are a patch recorded as text rather
//! than JSON: Codex's `apply_patch` envelope (`*** Begin Patch`, then `*** Add File: `,
//! `*** Update File: `, `*** Delete File: ` and `*** Move to: ` lines) or a unified diff
//! (`--- a/…` and `+++ b/…` lines). Matchers read them as the call's `path`
//! (docs/graders/tool-calls.md#patches-recorded-as-text).

/// The files `text` names as a patch, in the order it names them, each once; empty when
/// `text` is not a patch.
pub fn patch_files(text: &str) -> Vec<&str> {
    let envelope = text.trim_start().starts_with("*** Begin Patch");
    let mut files: Vec<&str> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let file = if envelope {
            [
                "*** Add File: ",
                "*** Update File: ",
                "*** Delete File: ",
                "*** Move to: ",
            ]
            .iter()
            .find_map(|prefix| line.strip_prefix(prefix))
        } else {
            unified_diff_file(line)
        };
        if let Some(file) = file.map(str::trim).filter(|file| !file.is_empty())
            && !files.contains(&file)
        {
            files.push(file);
        }
    }
    files
}

/// The file a unified diff's `--- ` or `+++ ` line names, without its `a/` or `b/` prefix
/// and a tab-separated time stamp; not `/dev/null`, which stands for no file.
fn unified_diff_file(line: &str) -> Option<&str> {
    let named = line
        .strip_prefix("--- ")
        .or_else(|| line.strip_prefix("+++ "))?;
    let named = named.split('\t').next().unwrap_or(named).trim();
    if named == "/dev/null" {
        return None;
    }
    Some(
        named
            .strip_prefix("a/")
            .or_else(|| named.strip_prefix("b/"))
            .unwrap_or(named),
    )
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::patch_files;

    #[rstest]
    #[case::codex_update(
        "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch\n",
        &["src/app.ts"]
    )]
    #[case::codex_several(
        "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@\n-x\n+y\n*** Delete File: .env\n*** End Patch",
        &["docs/new.md", "src/a.rs", "src/b.rs", ".env"]
    )]
    #[case::codex_crlf_and_repeats(
        "*** Begin Patch\r\n*** Update File: a.py\r\n@@\r\n*** Update File: a.py\r\n*** End Patch\r\n",
        &["a.py"]
    )]
    #[case::unified_diff(
        "diff --git a/src/x.rs b/src/x.rs\n--- a/src/x.rs\n+++ b/src/x.rs\n@@ -1 +1 @@\n-a\n+b\n",
        &["src/x.rs"]
    )]
    #[case::unified_diff_new_file(
        "--- /dev/null\n+++ b/new.txt\t2026-11-28 10:00:00\n@@ -0,0 +1 @@\n+hi\n",
        &["new.txt"]
    )]
    #[case::a_body_line_is_not_a_header_in_an_envelope(
        "*** Begin Patch\n*** Update File: a.md\n@@\n---- a rule\n+++ more\n*** End Patch\n",
        &["a.md"]
    )]
    #[case::plain_text("npm test", &[])]
    #[case::empty("", &[])]
    fn the_files_a_patch_names(#[case] text: &str, #[case] files: &[&str]) {
        assert_eq!(patch_files(text), files);
    }
}
