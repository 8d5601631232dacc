//! Running the built binary the way a CI pipeline does: no terminal, a cleared
//! environment, a given folder.

use std::path::Path;
use std::process::Command;

/// What one run of `trailgate` printed, and how it exited.
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
            "$ trailgate {}\nexit code: {}\n\n{stream}",
            self.args.join(" "),
            self.code
        )
    }
}

/// Runs `trailgate` with `args` in `dir`, with an empty environment.
pub(crate) fn trailgate(dir: &Path, args: &[&str]) -> Transcript {
    trailgate_with(dir, args, |_| {})
}

/// Runs `trailgate` as [`trailgate`] does, with `configure` applied to the command first
/// (another standard output, an environment variable).
pub(crate) fn trailgate_with(
    dir: &Path,
    args: &[&str],
    configure: impl FnOnce(&mut Command),
) -> Transcript {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trailgate"));
    command.args(args).current_dir(dir).env_clear();
    configure(&mut command);
    let output = command.output().expect("the trailgate binary runs");
    Transcript {
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        code: output.status.code().expect("trailgate exits with a code"),
        stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
        stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
    }
}
