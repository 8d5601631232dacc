//! Who may read files, the environment and the process's streams: a check of the names a
//! crate's sources use, read as Rust tokens (comments, strings and tests left out), so that
//! a word in a message or a doc comment is never taken for a use.

/// What a crate may reach outside its own memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Nothing: the crate takes data and returns data. It may name the type `std::fs::File`
    /// of a handle opened elsewhere (the JSON report's anonymous temporary files), but opens
    /// nothing by path.
    Nothing,
    /// Files: the suite, the traces, the reports. Not the environment, the terminal, the
    /// standard streams or the exit code.
    Files,
    /// The whole process: the front end.
    Process,
}

/// What a source names beyond its reach: one line per use, `line: what`.
pub(crate) fn overreach(text: &str, reach: Reach) -> Vec<String> {
    let tokens = without_tests(&tokens(text));
    let mut found = Vec::new();
    let mut flag = |line: usize, what: &str, needs: Reach| {
        if reach_order(reach) < reach_order(needs) {
            found.push(format!("{line}: {what}"));
        }
    };
    for (at, token) in tokens.iter().enumerate() {
        let next = |k: usize| tokens.get(at + k).map_or("", |t| t.text.as_str());
        let previous = at
            .checked_sub(1)
            .and_then(|k| tokens.get(k))
            .map_or("", |t| t.text.as_str());
        match token.text.as_str() {
            // `std::fs::File` alone is a type; `std::fs::File::open`, `std::fs::read` and
            // `use std::fs::{...}` reach files.
            "std" if next(1) == "::" => match next(2) {
                "fs" if !(next(3) == "::" && next(4) == "File" && next(5) != "::") => {
                    flag(token.line, "`std::fs`", Reach::Files);
                }
                "env" => flag(token.line, "`std::env`", Reach::Process),
                "process" => flag(token.line, "`std::process`", Reach::Process),
                "io" if next(3) == "::" && next(4) == "{" => {
                    for name in group(&tokens[at + 4..]) {
                        if matches!(name, "stdout" | "stderr" | "stdin") {
                            flag(
                                token.line,
                                &format!("`std::io::{{{name}}}`"),
                                Reach::Process,
                            );
                        }
                    }
                }
                "{" => {
                    for name in group(&tokens[at + 2..]) {
                        match name {
                            "fs" => flag(token.line, "`std::{fs}`", Reach::Files),
                            "env" | "process" | "stdout" | "stderr" | "stdin" => {
                                flag(token.line, &format!("`std::{{{name}}}`"), Reach::Process);
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            },
            // `io::stdout()`, or `stdout()` imported from `std::io`; not a method or a
            // variable of that name.
            "stdout" | "stderr" | "stdin" => {
                let before = at
                    .checked_sub(2)
                    .and_then(|k| tokens.get(k))
                    .map_or("", |t| t.text.as_str());
                let path = previous == "::" && before == "io";
                let call = next(1) == "(" && !matches!(previous, "::" | "." | "fn");
                if path || call {
                    flag(token.line, &format!("`{}`", token.text), Reach::Process);
                }
            }
            "File"
                if next(1) == "::"
                    && matches!(next(2), "open" | "create" | "create_new" | "options") =>
            {
                flag(token.line, &format!("`File::{}`", next(2)), Reach::Files);
            }
            "OpenOptions" => flag(token.line, "`OpenOptions`", Reach::Files),
            "print" | "println" | "eprint" | "eprintln" | "dbg" if next(1) == "!" => {
                flag(token.line, &format!("`{}!`", token.text), Reach::Process);
            }
            _ => {}
        }
    }
    found
}

fn reach_order(reach: Reach) -> u8 {
    match reach {
        Reach::Nothing => 0,
        Reach::Files => 1,
        Reach::Process => 2,
    }
}

/// The names inside a `{ ... }` group of a `use` (its first token is the brace).
fn group(tokens: &[Token]) -> Vec<&str> {
    let mut depth = 0usize;
    let mut names = Vec::new();
    for token in tokens {
        match token.text.as_str() {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    break;
                }
            }
            name => names.push(name),
        }
    }
    names
}

#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) text: String,
    pub(super) line: usize,
}

/// The identifiers and punctuation of Rust source, `::` as one token; comments, string,
/// byte-string, raw-string and character literals and lifetimes are left out.
pub(super) fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        let at = |k: usize| chars.get(i + k).copied().unwrap_or('\0');
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(1) == '*' {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && at_index(&chars, i + 1) == '/') {
                line += usize::from(chars[i] == '\n');
                i += 1;
            }
            i += 2;
        } else if c == '"' || ((c == 'r' || c == 'b') && raw_or_byte_string(&chars, i).is_some()) {
            let (start, hashes) = if c == '"' {
                (i, None)
            } else {
                raw_or_byte_string(&chars, i).unwrap_or((i, None))
            };
            i = start + 1;
            while let Some(&d) = chars.get(i) {
                line += usize::from(d == '\n');
                if hashes.is_none() && d == '\\' {
                    i += 2;
                    continue;
                }
                i += 1;
                if d == '"' {
                    let n = hashes.unwrap_or(0);
                    if (0..n).all(|k| at_index(&chars, i + k) == '#') {
                        i += n;
                        break;
                    }
                }
            }
        } else if c == '\'' {
            // A character literal (`'a'`, `'\n'`, `'"'`), or a lifetime (`'a`).
            if at(1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(2) == '\'' {
                i += 3;
            } else {
                i += 1;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                text: chars[start..i].iter().collect(),
                line,
            });
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c == ':' && at(1) == ':' {
            out.push(Token {
                text: "::".to_owned(),
                line,
            });
            i += 2;
        } else {
            out.push(Token {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

fn at_index(chars: &[char], i: usize) -> char {
    chars.get(i).copied().unwrap_or('\0')
}

/// Where a literal that starts at `i` with `r`, `b`, `br` or `rb`... opens its quote, and
/// its number of `#`s when it is raw: `None` when the letters start an identifier.
fn raw_or_byte_string(chars: &[char], i: usize) -> Option<(usize, Option<usize>)> {
    if i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_') {
        return None;
    }
    let mut k = i;
    if at_index(chars, k) == 'b' {
        k += 1;
    }
    if at_index(chars, k) == '\'' {
        return None;
    }
    let raw = at_index(chars, k) == 'r';
    if raw {
        k += 1;
    }
    let mut hashes = 0;
    while raw && at_index(chars, k) == '#' {
        hashes += 1;
        k += 1;
    }
    (at_index(chars, k) == '"' && k > i).then_some((k, raw.then_some(hashes)))
}

/// `tokens` without the items marked `#[cfg(test)]`: tests may read fixtures.
pub(super) fn without_tests(tokens: &[Token]) -> Vec<Token> {
    let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if texts[i..].starts_with(&["#", "[", "cfg", "(", "test", ")", "]"]) {
            // Skip the item: to its `;`, or to the brace that closes its body.
            i += 7;
            let mut depth = 0usize;
            while i < tokens.len() {
                match texts[i] {
                    "{" => depth += 1,
                    "}" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    ";" if depth == 0 => {
                        i += 1;
                        break;
                    }
                    _ => {}
                }
                i += 1;
            }
            continue;
        }
        out.push(tokens[i].clone());
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Reach, overreach};

    #[track_caller]
    fn check(text: &str, reach: Reach, expected: &[&str]) {
        assert_eq!(overreach(text, reach), expected, "{text}");
    }

    #[test]
    fn paths_that_reach_files_or_the_process_are_found() {
        check(
            "let t = std::fs::read_to_string(p)?;",
            Reach::Nothing,
            &["1: `std::fs`"],
        );
        check(
            "use std::fs;\nfs::write(p, b)?;",
            Reach::Nothing,
            &["1: `std::fs`"],
        );
        check("use std::{fs, io};", Reach::Nothing, &["1: `std::{fs}`"]);
        check(
            "use std::fs::File;\nFile::open(p)",
            Reach::Nothing,
            &["2: `File::open`"],
        );
        check(
            "let v = std::env::var(\"X\");",
            Reach::Files,
            &["1: `std::env`"],
        );
        check(
            "std::process::exit(2)",
            Reach::Files,
            &["1: `std::process`"],
        );
        check(
            "use std::io;\nlet o = io::stdout();",
            Reach::Files,
            &["2: `stdout`"],
        );
        check(
            "use std::io::{self, stderr};",
            Reach::Files,
            &["1: `std::io::{stderr}`"],
        );
        check("println!(\"x\")", Reach::Files, &["1: `println!`"]);
    }

    #[test]
    fn what_a_crate_may_reach_is_not_flagged() {
        check("std::fs::read(p)", Reach::Files, &[]);
        check("std::env::args_os()", Reach::Process, &[]);
        // A type of a handle opened elsewhere, and the compile-time `env!`.
        check("File(io::BufWriter<std::fs::File>),", Reach::Nothing, &[]);
        check("env!(\"CARGO_PKG_VERSION\")", Reach::Nothing, &[]);
        // Names of the crate's own, or words in text.
        check(
            "let mut stdout = Vec::new(); Console::process(); console.stdout()",
            Reach::Nothing,
            &[],
        );
        check("SuiteFile::new(n, t)", Reach::Nothing, &[]);
    }

    #[test]
    fn comments_strings_and_tests_are_left_out() {
        check(
            "// std::fs::read\n/// println!(\"x\")\n/* std::env */",
            Reach::Nothing,
            &[],
        );
        check(
            r#"let s = "std::fs::read"; let r = r"std::env";"#,
            Reach::Nothing,
            &[],
        );
        check(
            r##"let r = r#"a "std::process" b"#; let q = b'"';"##,
            Reach::Nothing,
            &[],
        );
        check(
            "fn f<'a>(x: &'a str) -> char { '\\'' }",
            Reach::Nothing,
            &[],
        );
        check(
            "fn f() {}\n#[cfg(test)]\nmod tests {\n    fn g() { std::fs::read(\"x\"); }\n}\nfn h() { std::env::var(\"A\"); }",
            Reach::Nothing,
            &["6: `std::env`"],
        );
    }
}
