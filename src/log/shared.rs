//! The seam between a graph and where its commits are agreed.
//!
//! Embedded (the default), a graph's local log file is the log: the writer lock orders
//! commits and an fsync makes them durable. In a cluster, a replicated log (`SharedLog`;
//! NATS JetStream in `jetstream.rs`) orders them across nodes: a commit is appended there
//! only if the shared log's last commit is the one the writer built on (so two nodes can
//! never both append commit N), and is acknowledged only once the shared log has it
//! replicated. Every node also keeps the same records, byte for byte, in its local log
//! file, so the hash chain, `strata verify` and restarts work the same on both.

use std::fmt;
use std::sync::Arc;

use super::{EncodedRecord, LogError};
use crate::model::{CommitHash, CommitSeq};

/// What an append with an expected predecessor did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Appended {
    /// The record is commit `seq` of the shared log, replicated as configured.
    Acknowledged,
    /// Another writer appended first: the shared log's last commit is not `seq - 1`.
    Conflict,
}

/// What `SharedLog::watch_appends` calls for each stored commit: its number, its record
/// when the message carries it whole, and the forwarded write it answers, if any.
pub type AppendWatcher =
    Box<dyn Fn(CommitSeq, Option<Vec<u8>>, Option<ForwardedCommit>) -> bool + Send + Sync>;

/// A commit a leader made for a write another node forwarded to it, as the commit's
/// message names it (`SharedLog::send`): the forwarding node learns its outcome from the
/// stream, as soon as it applies the commit, rather than from the leader's reply a hop
/// later.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForwardedCommit {
    /// The forward id the forwarding node gave the write.
    pub forward_id: String,
    pub hash: CommitHash,
    pub inserted: u64,
    pub deleted: u64,
}

impl ForwardedCommit {
    /// Whether a forward id can be named in a stream message (visible ASCII without
    /// separators, at most 200 bytes): a write whose id cannot is answered by reply only.
    pub fn id_travels(id: &str) -> bool {
        !id.is_empty()
            && id.len() <= 200
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
    }
}

/// How a forwarded write ended for the node that forwarded it (`SharedLog::forward`).
#[derive(Debug)]
pub enum ForwardAnswer {
    /// The leader's answer.
    Answer(Vec<u8>),
    /// No node serves the name asked (the request reached nobody).
    NoResponders,
    /// `settled` was notified first: the forwarding node learned the outcome otherwise
    /// (from the commit stream).
    Settled,
}

/// A record read from the shared log: in memory, or, when large (a big import's commit),
/// in an unlinked scratch file, so that applying it never holds it whole.
pub enum SharedRecord {
    Memory(Vec<u8>),
    Spilled { file: std::fs::File, len: u64 },
}

impl SharedRecord {
    /// The record's length in bytes.
    pub fn len(&self) -> u64 {
        match self {
            Self::Memory(bytes) => bytes.len() as u64,
            Self::Spilled { len, .. } => *len,
        }
    }

    /// Always false: a record has a frame.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole record in memory (read back from its file when spilled).
    pub fn into_bytes(self) -> std::io::Result<Vec<u8>> {
        match self {
            Self::Memory(bytes) => Ok(bytes),
            Self::Spilled { file, len } => {
                let mut bytes = vec![0; usize::try_from(len).map_err(std::io::Error::other)?];
                std::os::unix::fs::FileExt::read_exact_at(&file, &mut bytes, 0)?;
                Ok(bytes)
            }
        }
    }
}

/// An append on its way to the shared log (`SharedLog::send`), not yet answered.
pub trait PendingAppend: Send {
    /// Waits (bounded) for the shared log's answer, as `append` gives it.
    fn wait(self: Box<Self>) -> Result<Appended, LogError>;
}

/// One graph's replicated log.
pub trait SharedLog: Send + Sync {
    /// The last commit the shared log holds (0: none).
    fn last_seq(&self) -> Result<CommitSeq, LogError>;
    /// Appends `record` (commit `seq`, whose hash is `hash`) only if the last commit is
    /// `seq - 1`. Retrying an append that was acknowledged but whose answer was lost is
    /// acknowledged again, not appended twice. A record whose quads are in a spill file
    /// is sent from it, never whole in memory.
    fn append(&self, seq: CommitSeq, record: &EncodedRecord) -> Result<Appended, LogError> {
        self.send(seq, record, None, None)?.wait()
    }
    /// Like `append`, but returns as soon as the record is on its way, so the writer can
    /// build and send the next commit before this one is answered (pipelining). Records
    /// sent one after the other reach the shared log in that order. `after` is the hash of
    /// commit `seq - 1` when that commit is itself still unanswered: the shared log then
    /// stores this record only right after that very record, so a commit built on one
    /// that was refused is refused too (never stored on top of another node's commit
    /// `seq - 1`). `forwarded`: the commit answers a write another node forwarded; the
    /// message says so, for that node (`watch_appends`).
    fn send(
        &self,
        seq: CommitSeq,
        record: &EncodedRecord,
        after: Option<CommitHash>,
        forwarded: Option<ForwardedCommit>,
    ) -> Result<Box<dyn PendingAppend>, LogError>;
    /// The records of commits `from..=to` (`to` ≤ `last_seq`) in order, in one pass: all
    /// of them, or a prefix of at least one when they are many or large (the caller asks
    /// again from where it got to). A large record comes in an unlinked file in `spill`.
    fn read_range(
        &self,
        from: CommitSeq,
        to: CommitSeq,
        spill: &std::path::Path,
    ) -> Result<Vec<SharedRecord>, LogError>;
    /// Publishes a node's store files (immutable, named by `manifest`) so a new node can
    /// start from them: uploads the files the shared store lacks under `node`, then the
    /// manifest, then marks it the newest, then removes `node`'s files that neither this
    /// manifest nor the one it replaces names. `files` are (name, path) pairs.
    fn publish_files(
        &self,
        node: &str,
        manifest: &[u8],
        files: &[(String, std::path::PathBuf)],
    ) -> Result<(), LogError>;
    /// Downloads the newest published store files into `dir` (the manifest last, so an
    /// interrupted download leaves no manifest). Returns the manifest's bytes, or `None`
    /// when no node has published any.
    fn fetch_files(&self, dir: &std::path::Path) -> Result<Option<Vec<u8>>, LogError>;
    /// Tells the other nodes that this node just lost the race to append. Each of them
    /// holds back its next new append for a moment (`held_back_until`), so the node that
    /// lost catches up and gets its turn: without it, a busy node that has just appended
    /// is always first to build on its own commit and can win every race.
    fn announce_waiting(&self);
    /// Tells the other nodes that this node, having asked for a turn, appended: they
    /// stop holding back.
    fn announce_done(&self);
    /// Until when this node should hold back a new append because another node is
    /// waiting for its turn (`None`: nobody is).
    fn held_back_until(&self) -> Option<std::time::Instant>;
    /// Calls `wake` with the number of each commit the shared log stores from now on, as
    /// soon as it is stored, and its record when the message carries it whole (`None`
    /// for a body in the object store; `0, None` when the watch starts again), until
    /// `wake` returns false. Best effort (a follower still asks on its own): it lets
    /// followers apply a commit within milliseconds instead of at their next poll, and
    /// without asking for it.
    fn watch_appends(&self, wake: AppendWatcher);
    /// While `paused`, `watch_appends` delivers nothing (its consumer is dropped): a
    /// leader hears of its own commits from their answers, and of another node's rare
    /// append (a document too big to forward) at its follower's next poll or its next
    /// refused append. Each stored message then costs one delivery less.
    fn pause_watching(&self, paused: bool) {
        let _ = paused;
    }
    /// The commits answering forwarded writes (`ForwardedCommit`) that `read_range` met
    /// since the last call, by number: a node whose append watcher missed their messages
    /// (its consumer lost and made again) still answers those writes as soon as it has
    /// applied them, rather than at their resend.
    fn take_forwarded_read(&self) -> Vec<(CommitSeq, ForwardedCommit)> {
        Vec::new()
    }
    /// Whether the connection to the shared log is up now (no round trip).
    fn is_connected(&self) -> bool;
    /// Whether `watch_appends` is delivering now (its consumer is up and connected).
    fn is_watching(&self) -> bool {
        false
    }
    /// How many messages this node's appends were stored in, and how many commits those
    /// held (a shared log may carry several commits in one message).
    fn stored_counts(&self) -> (u64, u64) {
        (0, 0)
    }
    /// Takes the graph's write lease for `node` when nobody holds it, renews it when
    /// `node` does (each renewal holds it `ttl` longer), or says who holds it. Taking and
    /// renewing are compare-and-set on the lease's last record, so two nodes never both
    /// take it; a holder that stops renewing loses it after `ttl`.
    fn hold_lease(&self, node: &str, ttl: std::time::Duration) -> Result<LeaseHolder, LogError>;
    /// Serves the writes other nodes forward to `node` (for as long as the process runs):
    /// `handle` runs on a blocking thread for each and its bytes are the answer.
    fn serve_forwarded(&self, node: &str, handle: ForwardedHandler);
    /// Forwards a write to node `holder` and waits at most `limit` for its answer, until
    /// `abandon` (asked every few tens of milliseconds) says the holder stopped leading,
    /// or until `settled` is notified.
    fn forward(
        &self,
        holder: &str,
        request: Vec<u8>,
        limit: std::time::Duration,
        abandon: Abandon,
        settled: Arc<tokio::sync::Notify>,
    ) -> Result<ForwardAnswer, LogError>;
}

/// Whether to stop waiting for a forwarded write's answer (`SharedLog::forward`).
pub type Abandon = Arc<dyn Fn() -> bool + Send + Sync>;

/// Who holds a graph's write lease (`SharedLog::hold_lease`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseHolder {
    /// This node: it appends the graph's commits; other nodes forward writes to it.
    Me,
    /// Another node, by its name.
    Other(String),
    /// Nobody (the last holder let it lapse, or the shared log did not say).
    Nobody,
}

/// A handler of writes forwarded to this node: the request's bytes in, the answer's out
/// (empty: no reply is sent, the asking node learns the outcome from the stream).
pub type ForwardedHandler = Arc<dyn Fn(Vec<u8>) -> Vec<u8> + Send + Sync>;

/// Where every graph's replicated log lives (one connection per process).
pub trait Cluster: Send + Sync {
    /// The graphs the cluster holds, sorted.
    fn graph_names(&self) -> Result<Vec<String>, LogError>;
    /// The log of a graph: `None` when it does not exist and `create` is false.
    fn graph_log(&self, graph: &str, create: bool) -> Result<Option<Arc<dyn SharedLog>>, LogError>;
    /// A 32-byte secret every node of the cluster shares (made by the first node that
    /// asks for `name`), e.g. the key that seals cursors, so a cursor made on one node
    /// pages on another.
    fn shared_key(&self, name: &str) -> Result<[u8; 32], LogError>;
    /// Whether the cluster answers now (for health checks).
    fn is_connected(&self) -> bool;
    /// A short description for logs and health checks (`nats://…, replicas 3`).
    fn describe(&self) -> String;
}

/// A cluster handle an engine is configured with.
#[derive(Clone)]
pub struct ClusterHandle(pub Arc<dyn Cluster>);

impl fmt::Debug for ClusterHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.describe())
    }
}
