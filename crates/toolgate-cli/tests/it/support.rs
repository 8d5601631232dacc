//! Running the built binary the way a CI pipeline does: no terminal, a cleared
//! environment, a given folder.

use std::path::Path;
use std::process::Command;

/// What one run of `toolgate` printed, and how it exited.
pub(crate) struct Transcript {
    pub(crate) args: Vec<String>,
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Transcript {
    /// The command, its exit code and one of its streams, as a snapshot shows them.
    pub(crate) fn show(&self, stream: &str) -> String {
        format!(
            "$ toolgate {}\nexit code: {}\n\n{stream}",
            self.args.join(" "),
            self.code
        )
    }
}

/// Runs `toolgate` with `args` in `dir`, with an empty environment.
pub(crate) fn toolgate(dir: &Path, args: &[&str]) -> Transcript {
    toolgate_with(dir, args, |_| {})
}

/// Runs `toolgate` as [`toolgate`] does, with `configure` applied to the command first
/// (another standard output, an environment variable).
pub(crate) fn toolgate_with(
    dir: &Path,
    args: &[&str],
    configure: impl FnOnce(&mut Command),
) -> Transcript {
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    command.args(args).current_dir(dir).env_clear();
    configure(&mut command);
    let output = command.output().expect("the toolgate binary runs");
    Transcript {
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        code: output.status.code().expect("toolgate exits with a code"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}
