//! The diff of two reports: reading, comparing, and each output.
