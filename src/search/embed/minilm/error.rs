//! Errors from loading the model files. Embedding itself cannot fail.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A model file is missing or unreadable.
    #[error("cannot read {path}: {source} (run scripts/fetch-model.sh to fetch the model)")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model file was read but its content is malformed or not what this embedder expects.
    #[error("bad model file {path}: {reason}")]
    BadFile { path: PathBuf, reason: String },
}
