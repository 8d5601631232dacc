//! Opening a JSON report given to `merge` or `diff`, so that it can be read as a stream and
//! then again at each test's place.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use trailgate_trace::MAX_DOCUMENT_BYTES;

/// A report's file, to be read as a stream and then again at each test's place. A file
/// that cannot seek (a pipe, `<(...)`, a device) is copied to a temporary file first, up to
/// [`MAX_DOCUMENT_BYTES`]: past that it is refused, so that an endless input (`/dev/zero`)
/// cannot fill the disk (docs/robustness.md#limits).
pub(crate) fn open(path: &Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_file() {
        return Ok(file);
    }
    let mut copy = tempfile::tempfile()?;
    let limit = MAX_DOCUMENT_BYTES as u64;
    let copied = io::copy(&mut file.take(limit + 1), &mut copy)?;
    if copied > limit {
        return Err(io::Error::other(format!(
            "it is not a file and gives more than {} MiB; pass a report written to a file",
            MAX_DOCUMENT_BYTES >> 20
        )));
    }
    copy.seek(SeekFrom::Start(0))?;
    Ok(copy)
}
