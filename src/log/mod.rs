//! The append-only commit log of one graph: the only source of truth.
//!
//! The log knows commits as framed, hashed records. It knows nothing about stores,
//! indexes or SPARQL: the engine decides what goes in a commit and applies it elsewhere.

mod codec;
pub mod jetstream;
mod reader;
mod shared;
mod writer;

pub use codec::{
    CommitHeader, CommitRecord, EncodedRecord, FORMAT_VERSION, QuadsEncoder, QuadsSection,
    decode_record, encode_quads, encode_record, format_time, parse_time, quads_digest,
};
pub(crate) use codec::{DigestReader, check_record_file, peek_header, quads_reader_at};
pub use reader::{LogEntry, OpenReport, TailCut, VerifyReport, verify_log, verify_log_with};
pub(crate) use reader::{highest_intact_commit, intact_record_at};
pub use shared::{
    Abandon, AppendWatcher, Appended, Cluster, ClusterHandle, ForwardAnswer, ForwardedCommit,
    ForwardedHandler, LeaseHolder, PendingAppend, SharedLog, SharedRecord,
};
pub use writer::CommitLog;

use crate::model::CommitSeq;

/// Errors of the log layer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LogError {
    /// An operating-system error while reading or writing the log file.
    #[error("log i/o error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A bad record with intact records after it, or an intact record that is not the
    /// next commit (a duplicated or foreign one): not a torn tail but damage to history
    /// that was acknowledged. Nothing is cut; an operator decides (`strata repair`).
    #[error(
        "commit log {path} is corrupt at commit {commit_seq} (byte offset {offset}): {reason}; \
         {intact_after} intact record(s) after it; not a torn tail, so nothing was cut"
    )]
    Corrupt {
        path: String,
        commit_seq: CommitSeq,
        offset: u64,
        reason: String,
        intact_after: u64,
    },
    /// The replicated log (a cluster's) cannot be reached or refused a request.
    #[error("the shared commit log is unavailable: {message}")]
    Unavailable { message: String },
    /// A record that passed its checksum when the log was opened no longer decodes.
    #[error("log corruption at commit {commit_seq} (byte offset {offset}): {reason}")]
    Corruption {
        commit_seq: CommitSeq,
        offset: u64,
        reason: String,
    },
}
