//! Delivering reports: every `--output` checked before any is written, regular files
//! replaced atomically with their mode kept, devices and FIFOs written in place, staged
//! files listed for a front end's signal handler to remove ([`remove_staged_then`]), and
//! every failed write an error.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use trailgate_expect::{Problem, SuiteError};

use crate::discover::display;
use crate::error::Error;
use crate::output::{Output, Rendered};

/// How a checked `--output` is written.
#[derive(Debug)]
enum Target {
    /// A regular file, new or replaced: staged beside `real` and renamed over it. `real`
    /// is the file a symbolic link points to, so the link stays a link.
    Replace {
        real: PathBuf,
        existing: Option<Metadata>,
    },
    /// A device, a FIFO or a socket: written in place, never replaced.
    InPlace,
}

/// A usage error about an `--output`, before anything is written.
fn refused(path: &Path, message: &str, help: &str) -> Error {
    Error::Suite(SuiteError::detached(
        Problem::new(
            "trailgate::output::refused",
            format!("cannot write `--output {}`: {message}", display(path)),
            "",
        )
        .with_help(help.to_owned()),
    ))
}

/// A failed write of a report: the report was not delivered.
fn failed(what: &str, error: &io::Error) -> Error {
    Error::Suite(SuiteError::detached(
        Problem::new(
            "trailgate::output::write",
            format!("cannot write {what}: {error}"),
            "",
        )
        .with_help("the report was not delivered; nothing else was replaced"),
    ))
}

/// What the file at `path` is, as far as writing a report there goes, and the path that
/// names it for comparisons (the real file, or its folder's real path and its name).
fn inspect(path: &Path) -> Result<(Target, PathBuf), Error> {
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(refused(
            path,
            "it names a folder",
            "give `--output` a file name, `--output folder/report.json`",
        ));
    }
    match fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => Err(refused(
            path,
            "it is a folder",
            "give `--output` a file name, `--output folder/report.json`",
        )),
        Ok(metadata) => {
            let real = fs::canonicalize(path).map_err(|error| {
                refused(path, &error.to_string(), "check the path and its folders")
            })?;
            if metadata.is_file() {
                Ok((
                    Target::Replace {
                        real: real.clone(),
                        existing: Some(metadata),
                    },
                    real,
                ))
            } else {
                Ok((Target::InPlace, real))
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            let folder = match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            let real_folder = match fs::metadata(folder) {
                Ok(metadata) if metadata.is_dir() => fs::canonicalize(folder),
                Ok(_) => Err(io::Error::other(format!(
                    "`{}` is not a folder",
                    display(folder)
                ))),
                Err(error) if error.kind() == io::ErrorKind::NotFound => Err(io::Error::other(
                    format!("the folder `{}` does not exist", display(folder)),
                )),
                Err(error) => Err(error),
            }
            .map_err(|error| {
                refused(
                    path,
                    &error.to_string(),
                    "create the folder first; trailgate writes the file, not its folders",
                )
            })?;
            let real = path
                .file_name()
                .map_or_else(|| real_folder.clone(), |name| real_folder.join(name));
            Ok((
                Target::Replace {
                    real: real.clone(),
                    existing: None,
                },
                real,
            ))
        }
        Err(error) => Err(refused(
            path,
            &error.to_string(),
            "check the path and its folders",
        )),
    }
}

/// Checks every `--output` of `paths` before anything is written: each names a file or a
/// device (not a folder) in an existing folder, no two name the same file, and none names
/// one of `inputs` (the suite, a trace file, a shard report).
pub fn check_targets<'a>(
    paths: impl IntoIterator<Item = &'a Path>,
    inputs: &[PathBuf],
) -> Result<(), Error> {
    let inputs: Vec<(PathBuf, Option<(u64, u64)>)> = inputs
        .iter()
        .filter_map(|input| {
            let identity = fs::metadata(input).ok().map(|m| (m.dev(), m.ino()));
            fs::canonicalize(input).ok().map(|real| (real, identity))
        })
        .collect();
    let mut seen: Vec<(&Path, PathBuf)> = Vec::new();
    for path in paths {
        let (_, real) = inspect(path)?;
        let identity = fs::metadata(path).ok().map(|m| (m.dev(), m.ino()));
        if let Some((earlier, _)) = seen.iter().find(|(_, other)| *other == real) {
            return Err(refused(
                path,
                &format!("it names the same file as `--output {}`", display(earlier)),
                "give each report a file of its own",
            ));
        }
        if inputs
            .iter()
            .any(|(input, id)| *input == real || (identity.is_some() && *id == identity))
        {
            return Err(refused(
                path,
                "it is one of the files trailgate reads",
                "a report never replaces the suite, a trace file or a shard report; write it \
                 to a file of its own",
            ));
        }
        seen.push((path, real));
    }
    Ok(())
}

/// Writes every report of `output` to its file, or none: the targets are checked, the
/// regular files staged beside their targets, the devices and FIFOs written, and only then
/// is each staged file renamed into place.
pub fn write_files(output: &Output) -> Result<(), Error> {
    check_targets(
        output.files.iter().map(|(path, _)| path.as_path()),
        &output.inputs,
    )?;
    let mut staged = Vec::new();
    let mut in_place = Vec::new();
    for (path, report) in &output.files {
        match inspect(path)?.0 {
            Target::Replace { real, existing } => {
                staged.push((stage(path, &real, existing.as_ref(), report)?, real, path));
            }
            Target::InPlace => in_place.push((path, report)),
        }
    }
    for (path, report) in in_place {
        write_in_place(path, report)?;
    }
    for (file, real, path) in staged {
        let temporary = file.path().to_path_buf();
        let persisted = file.persist(&real);
        forget_staged(&temporary);
        persisted.map_err(|error| failed(&format!("`{}`", display(path)), &error.error))?;
    }
    for (path, bytes) in &output.appends {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_data()))
            .map_err(|error| failed(&format!("the summary `{}`", display(path)), &error))?;
    }
    Ok(())
}

/// Writes the report to a new temporary file beside `real`, to be renamed into place, so
/// that a reader never sees half a report. A new file gets the mode any program's would
/// (0666 less the umask); a replaced file keeps its mode, and its owner where this process
/// may give it. Dropped unpersisted, or on SIGINT or SIGTERM, the file is removed.
fn stage(
    path: &Path,
    real: &Path,
    existing: Option<&Metadata>,
    report: &Rendered,
) -> Result<tempfile::NamedTempFile, Error> {
    let folder = match real.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let fail = |error: &io::Error| failed(&format!("`{}`", display(path)), error);
    let mode = existing.map_or(0o666, |metadata| metadata.permissions().mode() & 0o7777);
    // The file is created and listed under one lock: a signal handled between the two
    // would otherwise find it unlisted and leave it behind.
    let file = {
        let mut staged = STAGED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let file = tempfile::Builder::new()
            .prefix(".trailgate-")
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(folder)
            .map_err(|error| fail(&error))?;
        staged.push(file.path().to_path_buf());
        file
    };
    if let Some(metadata) = existing {
        // The umask applied at creation; a replaced file keeps exactly its own mode. Only
        // root may give a file away, so a failed change of owner is not an error.
        fs::set_permissions(file.path(), fs::Permissions::from_mode(mode))
            .map_err(|error| fail(&error))?;
        let _ =
            std::os::unix::fs::fchown(file.as_file(), Some(metadata.uid()), Some(metadata.gid()));
    }
    report
        .write_to(&mut file.as_file())
        .map_err(|error| fail(&error))?;
    file.as_file().sync_data().map_err(|error| fail(&error))?;
    Ok(file)
}

/// Writes the report into an existing device, FIFO or socket, which a rename would replace.
fn write_in_place(path: &Path, report: &Rendered) -> Result<(), Error> {
    let fail = |error: &io::Error| failed(&format!("`{}`", display(path)), error);
    let file: File = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|error| fail(&error))?;
    report.write_to(&mut &file).map_err(|error| fail(&error))
}

/// How writing standard output ended, when it did not deliver the report.
pub enum StdoutError {
    /// The reader closed the pipe (`| head`): not worth a message, but not a success.
    Closed,
    /// Any other failure (a full disk, a closed descriptor): an error.
    Failed(Error),
}

/// Writes the whole report to standard output and flushes it. Given a `File` (the command
/// line passes a duplicate of its standard output's descriptor), a spooled report is
/// copied by the kernel where it can be ([`Rendered::write_to`]).
pub fn write_stdout<W: Write + ?Sized>(
    report: &Rendered,
    stdout: &mut W,
) -> Result<(), StdoutError> {
    match report.write_to(stdout).and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Err(StdoutError::Closed),
        Err(error) => Err(StdoutError::Failed(failed(
            "the report to standard output",
            &error,
        ))),
    }
}

/// The staged files not yet renamed into place, for the signal handler to remove.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn forget_staged(path: &Path) {
    let mut staged = STAGED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    staged.retain(|other| other != path);
}

/// Removes the staged files, then runs `then` with the list still locked, so that no file
/// is staged after the removal. For a front end's handler of SIGINT, SIGTERM and SIGHUP:
/// a staged file is dropped (and removed) on every other way out, but a signal ends the
/// process without running destructors. It takes a lock: call it from an ordinary thread,
/// never from the signal handler itself.
pub fn remove_staged_then(then: impl FnOnce()) {
    let staged = STAGED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for path in staged.iter() {
        let _ = fs::remove_file(path);
    }
    then();
    drop(staged);
}
