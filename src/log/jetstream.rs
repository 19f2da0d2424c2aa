//! The shared log on NATS JetStream: one RAFT-replicated stream per graph, holding every
//! commit's record in order.
//!
//! - Graph `g` is stream `STRATA_g` with subject `strata.log.g`. A message holds one or
//!   more consecutive commits' records, exactly as the local log file holds them, one
//!   after another (`batch.rs`: commits sent while the graph's previous message is
//!   unanswered go together in the next; header `Strata-Commits: <first> <count>`).
//!   A message without that header holds the commit numbered like its sequence.
//! - An append publishes with `Nats-Expected-Last-Sequence` naming the message that holds
//!   the commit it builds on (the server refuses it when another writer appended first:
//!   `Appended::Conflict`) and `Nats-Msg-Id` = its commits' numbers and last hash, so a
//!   retry after a lost acknowledgement is answered as a duplicate instead of appended
//!   twice. JetStream acknowledges only once the stream's replicas have it.
//! - A record larger than the server's message limit goes to the object store bucket
//!   `STRATA_BODIES_g` first; the stream message then names the object (header
//!   `Strata-Body: object`).
//!
//! The engine is synchronous, so this runs its own small tokio runtime and every call
//! waits (bounded by `OP_TIMEOUT`) for its answer.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use async_nats::header::{HeaderMap, NATS_EXPECTED_LAST_SUBJECT_SEQUENCE};
use async_nats::jetstream::{self, context::PublishErrorKind, stream};
use parking_lot::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;

mod batch;

use super::EncodedRecord;
use super::LogError;
use super::shared::{
    Abandon, AppendWatcher, Cluster, ForwardAnswer, ForwardedCommit, ForwardedHandler, LeaseHolder,
    PendingAppend, SharedLog, SharedRecord,
};
use crate::model::{CommitHash, CommitSeq};

/// No call to the cluster waits longer than this.
const OP_TIMEOUT: Duration = Duration::from_secs(12);
/// How long a commit is sent again while its acknowledgement does not come (the message
/// id makes that safe).
const PUBLISH_BUDGET: Duration = Duration::from_secs(10);
/// How long one send of a commit waits for JetStream's acknowledgement before sending it
/// again (with the same message id: stored once whatever happens).
const ACK_WAIT: Duration = Duration::from_secs(2);
/// The pause between two sends of a commit (while a stream elects a new leader, a send
/// fails at once).
const PUBLISH_PAUSE: Duration = Duration::from_millis(100);
/// How long JetStream remembers message ids (retries within it are duplicates).
const DUPLICATE_WINDOW: Duration = Duration::from_secs(300);
const BODY_HEADER: &str = "Strata-Body";
/// Store files can be large: their uploads and downloads get longer than other calls.
const FILES_TIMEOUT: Duration = Duration::from_secs(600);
/// The object naming the node whose published store files are newest.
const LATEST_OBJECT: &str = "latest";
/// The stream of cluster-wide settings (the cursor key), one subject each.
const META_STREAM: &str = "STRATA_META";
/// Ranges shorter than this are read with one direct get per record.
const RANGE_BY_GETS: u64 = 4;
/// One `read_range` pass stops after this many records or bytes (the caller goes on).
const RANGE_MAX_RECORDS: usize = 10_000;
const RANGE_MAX_BYTES: usize = 64 << 20;
/// How long a range read waits for its next message once some came.
const RANGE_STALL: Duration = Duration::from_secs(2);
/// How long one read of a stream message waits for its answer before it is asked again.
/// A request sent while the stream elects a leader (its NATS server died) is never
/// answered; asked again, it is answered as soon as the new leader serves, not when a
/// long timeout ends.
const READ_ATTEMPT: Duration = Duration::from_secs(1);
/// How long a read of a stream message is asked again (within `OP_TIMEOUT`).
const READ_BUDGET: Duration = Duration::from_secs(10);
/// How many commits answering forwarded writes range reads remember until the follower
/// takes them (it does after each read; they pile up only while nobody takes them).
const FORWARDED_READ_KEPT: usize = 4096;
/// How long a node holds back new appends after another node said it lost a race, unless
/// that node says sooner that it appended: long enough for it to read the commits it
/// missed, build again and publish.
const TURN_HOLD: Duration = Duration::from_millis(20);
/// The stream of write leases: one subject per graph, its last record names the holder
/// and expires when not renewed.
const LEASE_STREAM: &str = "STRATA_LEASES";

/// A connection to a JetStream cluster, shared by every graph of the process.
pub struct JetStream {
    runtime: tokio::runtime::Runtime,
    client: async_nats::Client,
    context: jetstream::Context,
    replicas: usize,
    urls: String,
    logs: Mutex<BTreeMap<String, Arc<GraphStream>>>,
}

impl JetStream {
    /// Connects to `urls` (`nats://host:4222[,nats://…]`); graphs' streams are created
    /// with `replicas` replicas.
    pub fn connect(urls: &str, replicas: usize) -> Result<Arc<Self>, LogError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("strata-nats")
            .enable_all()
            .build()
            .map_err(|e| unavailable(format!("cannot start the NATS client runtime: {e}")))?;
        let addresses: Vec<String> = urls
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(str::to_owned)
            .collect();
        if addresses.is_empty() {
            return Err(unavailable("no NATS server address given".into()));
        }
        let parsed: Vec<async_nats::ServerAddr> = addresses
            .iter()
            .map(|a| {
                a.parse()
                    .map_err(|e| unavailable(format!("bad NATS address {a:?}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        let client = runtime
            .block_on(async {
                tokio::time::timeout(
                    OP_TIMEOUT,
                    async_nats::ConnectOptions::new()
                        .connection_timeout(Duration::from_secs(5))
                        .max_reconnects(None)
                        .connect(parsed),
                )
                .await
            })
            .map_err(|_| unavailable(format!("no answer from {urls} within {OP_TIMEOUT:?}")))?
            .map_err(|e| unavailable(format!("cannot connect to {urls}: {e}")))?;
        // The context starts a task of its own: it needs the runtime entered.
        let entered = runtime.enter();
        let mut context = jetstream::new(client.clone());
        drop(entered);
        context.set_timeout(Duration::from_secs(5));
        Ok(Arc::new(Self {
            runtime,
            client,
            context,
            replicas: replicas.max(1),
            urls: urls.to_owned(),
            logs: Mutex::new(BTreeMap::new()),
        }))
    }

    /// Runs `future` on the client's runtime and waits for it, at most `OP_TIMEOUT`.
    fn run<T: Send + 'static>(
        &self,
        future: impl Future<Output = Result<T, LogError>> + Send + 'static,
    ) -> Result<T, LogError> {
        wait_on(self.runtime.handle(), OP_TIMEOUT, future)
    }

    fn stream_name(graph: &str) -> String {
        format!("STRATA_{graph}")
    }
}

impl Cluster for JetStream {
    fn graph_names(&self) -> Result<Vec<String>, LogError> {
        let context = self.context.clone();
        let mut names = self.run(async move {
            let mut names = Vec::new();
            let mut listing = context.stream_names();
            while let Some(name) = listing.next().await {
                let name = name.map_err(|e| unavailable(format!("listing streams: {e}")))?;
                if let Some(graph) = name.strip_prefix("STRATA_")
                    && !graph.starts_with("BODIES_")
                    && name != META_STREAM
                {
                    names.push(graph.to_owned());
                }
            }
            Ok(names)
        })?;
        names.sort();
        Ok(names)
    }

    fn graph_log(&self, graph: &str, create: bool) -> Result<Option<Arc<dyn SharedLog>>, LogError> {
        if let Some(log) = self.logs.lock().get(graph) {
            return Ok(Some(log.clone()));
        }
        let context = self.context.clone();
        let name = Self::stream_name(graph);
        let subject = format!("strata.log.{graph}");
        let replicas = self.replicas;
        let found = self.run({
            let context = context.clone();
            let name = name.clone();
            let subject = subject.clone();
            async move {
                match context.get_stream(&name).await {
                    Ok(stream) => Ok(Some(stream)),
                    Err(e) if is_not_found(&e) && !create => Ok(None),
                    Err(e) if is_not_found(&e) => context
                        .get_or_create_stream(stream::Config {
                            name: name.clone(),
                            subjects: vec![subject],
                            storage: stream::StorageType::File,
                            num_replicas: replicas,
                            duplicate_window: DUPLICATE_WINDOW,
                            allow_direct: true,
                            deny_delete: true,
                            deny_purge: true,
                            ..Default::default()
                        })
                        .await
                        .map(Some)
                        .map_err(|e| unavailable(format!("creating stream {name}: {e}"))),
                    Err(e) => Err(unavailable(format!("reading stream {name}: {e}"))),
                }
            }
        })?;
        let Some(stream) = found else {
            return Ok(None);
        };
        let max_inline = self.client.server_info().max_payload.saturating_sub(4096);
        let placements = Arc::new(batch::Placements::default());
        let appender = batch::Appender::new(
            self.runtime.handle().clone(),
            context.clone(),
            stream.clone(),
            subject.clone(),
            max_inline,
            placements.clone(),
        );
        let log = Arc::new(GraphStream {
            runtime: self.runtime.handle().clone(),
            client: self.client.clone(),
            context,
            stream,
            subject,
            bucket: format!("STRATA_BODIES_{graph}"),
            files_bucket: format!("STRATA_FILES_{graph}"),
            replicas,
            max_inline,
            turns: format!("strata.turn.{graph}"),
            token: self.client.new_inbox(),
            held_back_until: Arc::new(Mutex::new(None)),
            graph: graph.to_owned(),
            placements,
            appender,
            watching: Arc::new(AtomicBool::new(false)),
            forwarded_read: Arc::new(Mutex::new(BTreeMap::new())),
            watch_paused: Arc::new(tokio::sync::watch::Sender::new(false)),
        });
        log.listen_for_turns();
        self.logs.lock().insert(graph.to_owned(), log.clone());
        Ok(Some(log))
    }

    fn shared_key(&self, name: &str) -> Result<[u8; 32], LogError> {
        let (context, replicas, name) = (self.context.clone(), self.replicas, name.to_owned());
        let mut fresh = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut fresh))
            .map_err(|e| unavailable(format!("no randomness for a shared key: {e}")))?;
        self.run(async move {
            // A plain stream, one subject per setting (NATS 2.9's key-value API answers
            // differ from what the client parses).
            let stream = context
                .get_or_create_stream(stream::Config {
                    name: META_STREAM.to_owned(),
                    subjects: vec!["strata.meta.>".to_owned()],
                    storage: stream::StorageType::File,
                    num_replicas: replicas,
                    deny_delete: true,
                    deny_purge: true,
                    ..Default::default()
                })
                .await
                .map_err(|e| unavailable(format!("creating stream {META_STREAM}: {e}")))?;
            let subject = format!("strata.meta.{name}");
            // The first node to publish the key wins (expected last subject sequence 0);
            // everyone else reads the winner's.
            let mut headers = HeaderMap::new();
            headers.insert(NATS_EXPECTED_LAST_SUBJECT_SEQUENCE, "0");
            if let Ok(ack) = context
                .publish_with_headers(subject.clone(), headers, fresh.to_vec().into())
                .await
            {
                let _ = ack.await;
            }
            let message = stream
                .get_last_raw_message_by_subject(&subject)
                .await
                .map_err(|e| unavailable(format!("reading shared key {name}: {e}")))?;
            <[u8; 32]>::try_from(message.payload.as_ref())
                .map_err(|_| unavailable(format!("shared key {name} is not 32 bytes")))
        })
    }

    fn is_connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    fn describe(&self) -> String {
        format!("JetStream at {} (replicas {})", self.urls, self.replicas)
    }
}

/// One graph's stream.
struct GraphStream {
    runtime: tokio::runtime::Handle,
    context: jetstream::Context,
    stream: stream::Stream,
    subject: String,
    bucket: String,
    /// Object store of published store files (`<node>/<file>`, `<node>/MANIFEST`, and
    /// `latest` naming the node whose files are newest).
    files_bucket: String,
    replicas: usize,
    max_inline: usize,
    client: async_nats::Client,
    /// Core NATS subject (not stored) on which nodes that lost a race ask for a turn.
    turns: String,
    /// This process's name on `turns`, so it does not hold back for itself.
    token: String,
    held_back_until: Arc<Mutex<Option<Instant>>>,
    /// The graph's name (lease and forwarding subjects).
    graph: String,
    /// Where the stream's messages sit (which commits each holds).
    placements: Arc<batch::Placements>,
    /// Commits on their way to the stream (group commit).
    appender: Arc<batch::Appender>,
    /// The append watcher's consumer is up (`watch_appends`).
    watching: Arc<AtomicBool>,
    /// Commits answering forwarded writes that range reads met (`take_forwarded_read`).
    forwarded_read: Arc<Mutex<BTreeMap<CommitSeq, ForwardedCommit>>>,
    /// The append watcher is to drop its consumer (`pause_watching`).
    watch_paused: Arc<tokio::sync::watch::Sender<bool>>,
}

impl GraphStream {
    /// Says `what` ("wait" or "done") on the turn subject. Fire and forget: a lost
    /// announcement only means no turn (or a hold `TURN_HOLD` long) this time.
    fn announce(&self, what: &str) {
        let (client, subject) = (self.client.clone(), self.turns.clone());
        let payload = format!("{what} {}", self.token);
        self.runtime.spawn(async move {
            let _ = client.publish(subject, payload.into()).await;
        });
    }

    /// Listens on the turn subject for as long as the process runs (the client
    /// subscribes again after a reconnect).
    fn listen_for_turns(&self) {
        let (client, subject, token, until) = (
            self.client.clone(),
            self.turns.clone(),
            self.token.clone(),
            self.held_back_until.clone(),
        );
        self.runtime.spawn(async move {
            let Ok(mut waiting) = client.subscribe(subject).await else {
                return;
            };
            while let Some(message) = waiting.next().await {
                let Some((what, from)) = std::str::from_utf8(&message.payload)
                    .ok()
                    .and_then(|p| p.split_once(' '))
                else {
                    continue;
                };
                if from == token {
                    continue;
                }
                *until.lock() = (what == "wait").then(|| Instant::now() + TURN_HOLD);
            }
        });
    }

    fn run<T: Send + 'static>(
        &self,
        future: impl Future<Output = Result<T, LogError>> + Send + 'static,
    ) -> Result<T, LogError> {
        self.run_for(OP_TIMEOUT, future)
    }

    fn run_for<T: Send + 'static>(
        &self,
        limit: Duration,
        future: impl Future<Output = Result<T, LogError>> + Send + 'static,
    ) -> Result<T, LogError> {
        wait_on(&self.runtime, limit, future)
    }

    /// The records a stream message carries: those in its payload, one after another,
    /// or the one in the object it names (a body too large for one message, in
    /// `bucket`, downloaded into an unlinked file in `spill`).
    async fn records_of(
        (context, bucket, replicas): (&jetstream::Context, &str, usize),
        headers: Option<&HeaderMap>,
        payload: &[u8],
        spill: &std::path::Path,
    ) -> Result<Vec<SharedRecord>, LogError> {
        if headers.and_then(|h| h.get(BODY_HEADER)).map(|v| v.as_str()) != Some("object") {
            let records = super::codec::split_records(payload).ok_or_else(|| {
                unavailable("a stream message does not hold whole commit records".into())
            })?;
            return Ok(records
                .into_iter()
                .map(|r| SharedRecord::Memory(r.to_vec()))
                .collect());
        }
        let name = String::from_utf8_lossy(payload).into_owned();
        let store = Self::bucket(context, bucket, replicas).await?;
        Ok(vec![read_object_spilling(&store, name, spill).await?])
    }

    async fn bucket(
        context: &jetstream::Context,
        bucket: &str,
        replicas: usize,
    ) -> Result<jetstream::object_store::ObjectStore, LogError> {
        if let Ok(store) = context.get_object_store(bucket).await {
            return Ok(store);
        }
        context
            .create_object_store(jetstream::object_store::Config {
                bucket: bucket.to_owned(),
                num_replicas: replicas,
                storage: stream::StorageType::File,
                ..Default::default()
            })
            .await
            .map_err(|e| unavailable(format!("creating object store {bucket}: {e}")))
    }
}

impl SharedLog for GraphStream {
    fn last_seq(&self) -> Result<CommitSeq, LogError> {
        let (stream, subject, placements) = (
            self.stream.clone(),
            self.subject.clone(),
            self.placements.clone(),
        );
        self.run(async move {
            // The stream's leader answers: the last message says which commits it holds.
            match read_message(|| stream.get_last_raw_message_by_subject(&subject)).await {
                Ok(Some(message)) => {
                    let placement = batch::Placement::of(Some(&message.headers), message.sequence);
                    placements.note(message.sequence, placement);
                    Ok(placement.last())
                }
                Ok(None) => Ok(0),
                Err(e) => Err(unavailable(format!("reading the stream's state: {e}"))),
            }
        })
    }

    fn send(
        &self,
        seq: CommitSeq,
        record: &EncodedRecord,
        after: Option<CommitHash>,
        forwarded: Option<ForwardedCommit>,
    ) -> Result<Box<dyn PendingAppend>, LogError> {
        let hash = record.hash();
        let unreadable =
            |e: std::io::Error| unavailable(format!("reading commit {seq}'s record: {e}"));
        let body = if record.len() > self.max_inline as u64 {
            // Too large for one message: the body goes to the object store first, so a
            // reader never meets a message whose body is missing. A spilled record is
            // sent from its file, a chunk at a time.
            let mut body: Box<dyn tokio::io::AsyncRead + Send + Unpin> = match record.spill_file() {
                None => Box::new(std::io::Cursor::new(record.to_vec().map_err(unreadable)?)),
                Some((file, len)) => {
                    // A handle of its own (the record is read by position elsewhere).
                    let mut own = file.try_clone().map_err(unreadable)?;
                    std::io::Seek::seek(&mut own, std::io::SeekFrom::Start(0))
                        .map_err(unreadable)?;
                    Box::new(
                        std::io::Cursor::new(record.head().to_vec())
                            .chain(tokio::fs::File::from_std(own).take(len)),
                    )
                }
            };
            let (context, bucket, replicas) =
                (self.context.clone(), self.bucket.clone(), self.replicas);
            // The commit's hash covers its number, parent and quads: the same record
            // always gets the same name, another record another.
            let object = format!("commit-{}", message_id(seq, &hash));
            let meta = jetstream::object_store::ObjectMetadata {
                name: object.clone(),
                chunk_size: Some(self.max_inline.max(128 << 10)),
                ..Default::default()
            };
            self.run_for(transfer_limit(record.len()), async move {
                let store = Self::bucket(&context, &bucket, replicas).await?;
                store
                    .put(meta, &mut body)
                    .await
                    .map_err(|e| unavailable(format!("storing a commit body: {e}")))?;
                Ok(())
            })?;
            batch::Body::Object(object)
        } else {
            batch::Body::Inline(record.to_vec().map_err(unreadable)?)
        };
        // Queued in the caller's order; the message goes when the one before is answered.
        Ok(self.appender.send(batch::Queued {
            seq,
            hash,
            after,
            body,
            forwarded,
        }))
    }

    fn publish_files(
        &self,
        node: &str,
        manifest: &[u8],
        files: &[(String, std::path::PathBuf)],
    ) -> Result<(), LogError> {
        let (context, bucket, replicas) = (
            self.context.clone(),
            self.files_bucket.clone(),
            self.replicas,
        );
        let (node, manifest, files) = (node.to_owned(), manifest.to_vec(), files.to_vec());
        self.run_for(FILES_TIMEOUT, async move {
            let store = Self::bucket(&context, &bucket, replicas).await?;
            let manifest_object = format!("{node}/MANIFEST");
            // What this node published before: its files stay one more round, for a new
            // node that read that manifest and is still downloading them.
            let previous = match store.info(&manifest_object).await {
                Ok(_) => read_object(&store, manifest_object.clone()).await?,
                Err(_) => Vec::new(),
            };
            for (name, path) in &files {
                let object = format!("{node}/{name}");
                // Store files are immutable: one already there is this very file.
                if store.info(&object).await.is_ok() {
                    continue;
                }
                let mut file = tokio::fs::File::open(path)
                    .await
                    .map_err(|e| unavailable(format!("reading {}: {e}", path.display())))?;
                store
                    .put(object.as_str(), &mut file)
                    .await
                    .map_err(|e| unavailable(format!("uploading {object}: {e}")))?;
            }
            store
                .put(manifest_object.as_str(), &mut manifest.as_slice())
                .await
                .map_err(|e| unavailable(format!("uploading {manifest_object}: {e}")))?;
            store
                .put(LATEST_OBJECT, &mut node.as_bytes())
                .await
                .map_err(|e| unavailable(format!("uploading {LATEST_OBJECT}: {e}")))?;
            // Files neither this manifest nor the one before names were replaced by
            // compaction: nothing will ask for them again.
            let mut keep: std::collections::BTreeSet<String> =
                manifest_files(&String::from_utf8_lossy(&manifest))
                    .into_iter()
                    .chain(manifest_files(&String::from_utf8_lossy(&previous)))
                    .map(|name| format!("{node}/{name}"))
                    .collect();
            keep.insert(manifest_object);
            let prefix = format!("{node}/");
            let mut stale = Vec::new();
            let mut listing = store
                .list()
                .await
                .map_err(|e| unavailable(format!("listing {bucket}: {e}")))?;
            while let Some(info) = listing.next().await {
                let info = info.map_err(|e| unavailable(format!("listing {bucket}: {e}")))?;
                if !info.deleted && info.name.starts_with(&prefix) && !keep.contains(&info.name) {
                    stale.push(info.name);
                }
            }
            for name in stale {
                store
                    .delete(&name)
                    .await
                    .map_err(|e| unavailable(format!("removing {name}: {e}")))?;
            }
            Ok(())
        })
    }

    fn fetch_files(&self, dir: &std::path::Path) -> Result<Option<Vec<u8>>, LogError> {
        let (context, bucket, replicas) = (
            self.context.clone(),
            self.files_bucket.clone(),
            self.replicas,
        );
        let dir = dir.to_owned();
        self.run_for(FILES_TIMEOUT, async move {
            let store = Self::bucket(&context, &bucket, replicas).await?;
            let read = |name: String| read_object(&store, name);
            if store.info(LATEST_OBJECT).await.is_err() {
                return Ok(None);
            }
            let node = String::from_utf8_lossy(&read(LATEST_OBJECT.to_owned()).await?).into_owned();
            let manifest = read(format!("{node}/MANIFEST")).await?;
            let text = String::from_utf8_lossy(&manifest).into_owned();
            tokio::fs::create_dir_all(&dir)
                .await
                .map_err(|e| unavailable(format!("creating {}: {e}", dir.display())))?;
            for name in manifest_files(&text) {
                // Streamed to disk (a segment file of a big import is gigabytes) and
                // synced before the caller writes the manifest that names it.
                let object_name = format!("{node}/{name}");
                let failed = |e: &dyn std::fmt::Display| {
                    unavailable(format!("downloading {object_name}: {e}"))
                };
                let mut object = store.get(&object_name).await.map_err(|e| failed(&e))?;
                let size = object.info().size as u64;
                let file = tokio::fs::File::create(dir.join(&name))
                    .await
                    .map_err(|e| failed(&e))?;
                let mut out = tokio::io::BufWriter::with_capacity(1 << 20, file);
                let copied = tokio::io::copy(&mut object, &mut out)
                    .await
                    .map_err(|e| failed(&e))?;
                out.flush().await.map_err(|e| failed(&e))?;
                if copied != size {
                    return Err(failed(&format!("{copied} bytes came of {size}")));
                }
                out.into_inner().sync_all().await.map_err(|e| failed(&e))?;
            }
            Ok(Some(manifest))
        })
    }

    fn announce_waiting(&self) {
        self.announce("wait");
    }

    fn announce_done(&self) {
        self.announce("done");
    }

    fn stored_counts(&self) -> (u64, u64) {
        self.appender.stored()
    }

    fn is_connected(&self) -> bool {
        self.client.connection_state() == async_nats::connection::State::Connected
    }

    fn pause_watching(&self, paused: bool) {
        self.watch_paused
            .send_if_modified(|now| std::mem::replace(now, paused) != paused);
    }

    fn is_watching(&self) -> bool {
        self.watching.load(Ordering::Acquire) && self.is_connected()
    }

    fn hold_lease(&self, node: &str, ttl: Duration) -> Result<LeaseHolder, LogError> {
        let (context, replicas) = (self.context.clone(), self.replicas);
        let subject = format!("strata.lease.{}", self.graph);
        let node = node.to_owned();
        self.run(async move {
            let stream = context
                .get_or_create_stream(stream::Config {
                    name: LEASE_STREAM.to_owned(),
                    subjects: vec!["strata.lease.>".to_owned()],
                    storage: stream::StorageType::File,
                    num_replicas: replicas,
                    max_messages_per_subject: 1,
                    max_age: ttl,
                    ..Default::default()
                })
                .await
                .map_err(|e| unavailable(format!("creating stream {LEASE_STREAM}: {e}")))?;
            let last = match stream.get_last_raw_message_by_subject(&subject).await {
                Ok(message) => Some((
                    message.sequence,
                    String::from_utf8_lossy(&message.payload).into_owned(),
                )),
                Err(e) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => None,
                Err(e) => return Err(unavailable(format!("reading the write lease: {e}"))),
            };
            let expected = match &last {
                Some((_, holder)) if *holder != node => {
                    return Ok(LeaseHolder::Other(holder.clone()));
                }
                Some((sequence, _)) => *sequence,
                None => 0,
            };
            let mut headers = HeaderMap::new();
            headers.insert(
                NATS_EXPECTED_LAST_SUBJECT_SEQUENCE,
                expected.to_string().as_str(),
            );
            let ack = match context
                .publish_with_headers(subject.clone(), headers, node.clone().into_bytes().into())
                .await
            {
                Ok(future) => future.await,
                Err(e) => Err(e),
            };
            match ack {
                Ok(_) => Ok(LeaseHolder::Me),
                // Someone else took or renewed it in between: whoever holds it now.
                Err(e) if e.kind() == PublishErrorKind::WrongLastSequence => {
                    match stream.get_last_raw_message_by_subject(&subject).await {
                        Ok(message) => {
                            let holder = String::from_utf8_lossy(&message.payload).into_owned();
                            Ok(if holder == node {
                                LeaseHolder::Me
                            } else {
                                LeaseHolder::Other(holder)
                            })
                        }
                        Err(_) => Ok(LeaseHolder::Nobody),
                    }
                }
                Err(e) => Err(unavailable(format!("taking the write lease: {e}"))),
            }
        })
    }

    fn serve_forwarded(&self, node: &str, handle: ForwardedHandler) {
        let client = self.client.clone();
        let subject = format!("strata.write.{}.{node}", self.graph);
        let runtime = self.runtime.clone();
        self.runtime.spawn(async move {
            let Ok(mut requests) = client.subscribe(subject).await else {
                return;
            };
            while let Some(message) = requests.next().await {
                let Some(reply) = message.reply else {
                    continue;
                };
                let (client, handle, runtime) = (client.clone(), handle.clone(), runtime.clone());
                let payload = message.payload.to_vec();
                // The write runs on a blocking thread (the engine is synchronous), which
                // also sends the answer: no task to wake in between. Many forwarded
                // writes run at once, so the leader pipelines them.
                tokio::task::spawn_blocking(move || {
                    let answer = handle(payload);
                    // Empty: the stream told the asking node (`ForwardedHandler`).
                    if !answer.is_empty() {
                        let _ = runtime.block_on(client.publish(reply, answer.into()));
                    }
                });
            }
        });
    }

    fn forward(
        &self,
        holder: &str,
        request: Vec<u8>,
        limit: Duration,
        abandon: Abandon,
        settled: Arc<tokio::sync::Notify>,
    ) -> Result<ForwardAnswer, LogError> {
        let client = self.client.clone();
        let subject = format!("strata.write.{}.{holder}", self.graph);
        let holder = holder.to_owned();
        // Bounded by the request's own timeout; the outer bound only backs it up.
        self.run_for(limit + Duration::from_secs(1), async move {
            let asked = async_nats::Request::new()
                .payload(request.into())
                .timeout(Some(limit));
            let answer = client.send_request(subject, asked);
            tokio::pin!(answer);
            let mut check = tokio::time::interval(Duration::from_millis(50));
            loop {
                tokio::select! {
                    answer = &mut answer => return match answer {
                        Ok(answer) => Ok(ForwardAnswer::Answer(answer.payload.to_vec())),
                        Err(e) if e.kind() == async_nats::RequestErrorKind::NoResponders => {
                            Ok(ForwardAnswer::NoResponders)
                        }
                        Err(e) => Err(unavailable(format!("forwarding a write to {holder}: {e}"))),
                    },
                    () = settled.notified() => return Ok(ForwardAnswer::Settled),
                    _ = check.tick() => if abandon() {
                        return Err(unavailable(format!(
                            "{holder} stopped leading the graph's writes before it answered"
                        )));
                    },
                }
            }
        })
    }

    fn held_back_until(&self) -> Option<Instant> {
        let mut until = self.held_back_until.lock();
        if until.is_some_and(|t| t <= Instant::now()) {
            *until = None;
        }
        *until
    }

    fn watch_appends(&self, wake: AppendWatcher) {
        let (stream, client, placements, watching, paused) = (
            self.stream.clone(),
            self.client.clone(),
            self.placements.clone(),
            self.watching.clone(),
            self.watch_paused.clone(),
        );
        self.runtime.spawn(async move {
            // Holding the sender too, `changed` never fails.
            let mut pause = paused.subscribe();
            // An ordered consumer delivers a message only once the stream stored it (a
            // plain subscription to the subject would hear of it before the replicas
            // have it), with its records: a follower applies them without asking.
            while wake(0, None, None) {
                if *pause.borrow_and_update() {
                    // Asking `wake` again at least every second ends the task with the graph.
                    let _ = tokio::time::timeout(Duration::from_secs(1), pause.changed()).await;
                    continue;
                }
                let consumer = stream
                    .create_consumer(jetstream::consumer::push::OrderedConfig {
                        deliver_subject: client.new_inbox(),
                        deliver_policy: jetstream::consumer::DeliverPolicy::New,
                        ..Default::default()
                    })
                    .await;
                if let Ok(consumer) = consumer
                    && let Ok(mut appended) = consumer.messages().await
                {
                    watching.store(true, Ordering::Release);
                    loop {
                        let message = tokio::select! {
                            message = appended.next() => message,
                            _ = pause.changed() => {
                                if *pause.borrow_and_update() {
                                    break;
                                }
                                continue;
                            }
                        };
                        let Some(Ok(message)) = message else { break };
                        let Ok(info) = message.info() else {
                            continue;
                        };
                        let headers = message.headers.as_ref();
                        let placement = batch::Placement::of(headers, info.stream_sequence);
                        placements.note(info.stream_sequence, placement);
                        let records = match inline_records(headers, &message.payload) {
                            Some(records) if records.len() as u64 == placement.count => {
                                records.into_iter().map(|r| Some(r.to_vec())).collect()
                            }
                            // A body in the object store (or a message this node cannot
                            // split): the follower reads it itself.
                            _ => vec![None; placement.count as usize],
                        };
                        let mut forwarded = batch::forwarded_commits(headers);
                        for (commit, record) in (placement.first..).zip(records) {
                            if !wake(commit, record, forwarded.remove(&commit)) {
                                return;
                            }
                        }
                    }
                }
                watching.store(false, Ordering::Release);
                if *pause.borrow() {
                    continue;
                }
                // The cluster is away (or the consumer was lost): try again shortly;
                // the follower's own polls cover the gap.
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    fn take_forwarded_read(&self) -> Vec<(CommitSeq, ForwardedCommit)> {
        std::mem::take(&mut *self.forwarded_read.lock())
            .into_iter()
            .collect()
    }

    fn read_range(
        &self,
        from: CommitSeq,
        to: CommitSeq,
        spill: &std::path::Path,
    ) -> Result<Vec<SharedRecord>, LogError> {
        if to < from {
            return Ok(Vec::new());
        }
        let spill = spill.to_owned();
        let (stream, client, context, bucket, replicas, placements) = (
            self.stream.clone(),
            self.client.clone(),
            self.context.clone(),
            self.bucket.clone(),
            self.replicas,
            self.placements.clone(),
        );
        let forwarded_read = self.forwarded_read.clone();
        let note_forwarded = move |headers: Option<&HeaderMap>| {
            let named = batch::forwarded_commits(headers);
            if named.is_empty() {
                return;
            }
            let mut read = forwarded_read.lock();
            read.extend(named.into_iter().filter(|(c, _)| (from..=to).contains(c)));
            while read.len() > FORWARDED_READ_KEPT {
                read.pop_first();
            }
        };
        // Bodies in the object store may take long: each step is bounded instead.
        self.run_for(FILES_TIMEOUT, async move {
            let failed = |e: &dyn std::fmt::Display| {
                unavailable(format!("reading commits from {from}: {e}"))
            };
            let start = batch::locate(&stream, &placements, from).await?;
            let mut range = RangeRead {
                from,
                to,
                next_message: start,
                records: Vec::new(),
                bytes: 0,
            };
            // A few messages: one direct get each costs less than setting up a consumer.
            let few = placements
                .find(to)
                .is_some_and(|(last, _)| last - start < RANGE_BY_GETS);
            if few {
                while !range.done() {
                    let seq = range.next_message;
                    let message = read_message(|| stream.get_raw_message(seq))
                        .await
                        .map_err(|e| failed(&e))?
                        .ok_or_else(|| failed(&format!("message {seq} is not in the stream")))?;
                    let records = Self::records_of(
                        (&context, &bucket, replicas),
                        Some(&message.headers),
                        &message.payload,
                        &spill,
                    )
                    .await?;
                    let placement = batch::Placement::of(Some(&message.headers), seq);
                    note_forwarded(Some(&message.headers));
                    range.take(seq, placement, records)?;
                }
                return Ok(range.records);
            }
            // A request lost with a NATS server (or sent while the stream elects a
            // leader) is not waited for long: it is asked again, until the first
            // message comes or `READ_BUDGET` ends.
            let started = Instant::now();
            let (first, messages) = loop {
                let attempt = async {
                    let consumer =
                        stream.create_consumer(jetstream::consumer::push::OrderedConfig {
                            deliver_subject: client.new_inbox(),
                            deliver_policy: jetstream::consumer::DeliverPolicy::ByStartSequence {
                                start_sequence: start,
                            },
                            ..Default::default()
                        });
                    let consumer = tokio::time::timeout(RANGE_STALL, consumer)
                        .await
                        .map_err(|e| failed(&e))?
                        .map_err(|e| failed(&e))?;
                    let mut messages = tokio::time::timeout(RANGE_STALL, consumer.messages())
                        .await
                        .map_err(|e| failed(&e))?
                        .map_err(|e| failed(&e))?;
                    match tokio::time::timeout(RANGE_STALL, messages.next()).await {
                        Ok(Some(first)) => Ok((first, messages)),
                        Ok(None) => Err(failed(&"the consumer ended")),
                        Err(e) => Err(failed(&e)),
                    }
                };
                match attempt.await {
                    Ok(got) => break got,
                    Err(error) if started.elapsed() + RANGE_STALL > READ_BUDGET => {
                        return Err(error);
                    }
                    Err(_) => tokio::time::sleep(PUBLISH_PAUSE).await,
                }
            };
            // Nor is a consumer that stops delivering: what came is returned, the rest is
            // asked for again.
            let mut messages = tokio_stream::iter([first]).chain(messages);
            while let Ok(Some(message)) = tokio::time::timeout(RANGE_STALL, messages.next()).await {
                let message = message.map_err(|e| failed(&e))?;
                let seq = message.info().map(|i| i.stream_sequence).unwrap_or(0);
                if seq < range.next_message {
                    // The ordered consumer was reset (a missed heartbeat, a slow reader,
                    // a NATS server lost) and delivers again from an earlier point:
                    // already read, or before the range.
                    continue;
                }
                let headers = message.headers.as_ref();
                let placement = batch::Placement::of(headers, seq);
                placements.note(seq, placement);
                note_forwarded(headers);
                let records = Self::records_of(
                    (&context, &bucket, replicas),
                    headers,
                    &message.payload,
                    &spill,
                )
                .await?;
                range.take(seq, placement, records)?;
                if range.done() {
                    break;
                }
            }
            if range.records.is_empty() {
                return Err(failed(&"none came"));
            }
            Ok(range.records)
        })
    }
}

/// The records of a range read so far (`SharedLog::read_range`).
struct RangeRead {
    from: CommitSeq,
    to: CommitSeq,
    /// The stream message due next.
    next_message: u64,
    records: Vec<SharedRecord>,
    bytes: usize,
}

impl RangeRead {
    /// Takes the records of message `seq` that fall in the range.
    fn take(
        &mut self,
        seq: u64,
        placement: batch::Placement,
        records: Vec<SharedRecord>,
    ) -> Result<(), LogError> {
        let due = self.from + self.records.len() as u64;
        if seq != self.next_message || !placement.holds(due) {
            return Err(unavailable(format!(
                "reading commits: the stream sent message {seq} (commits {}..={}) where \
                 message {} with commit {due} was due",
                placement.first,
                placement.last(),
                self.next_message
            )));
        }
        if records.len() as u64 != placement.count {
            return Err(unavailable(format!(
                "reading commits: message {seq} holds {} records, not {}",
                records.len(),
                placement.count
            )));
        }
        self.next_message = seq + 1;
        for (commit, record) in (placement.first..).zip(records) {
            if (due..=self.to).contains(&commit) {
                self.bytes += usize::try_from(record.len()).unwrap_or(usize::MAX);
                self.records.push(record);
            }
        }
        Ok(())
    }

    /// Whether the range is whole, or as much as one read returns.
    fn done(&self) -> bool {
        self.from + self.records.len() as u64 > self.to
            || self.records.len() >= RANGE_MAX_RECORDS
            || self.bytes >= RANGE_MAX_BYTES
    }
}

/// The records a message carries inline (`None` for a body in the object store, or
/// bytes that do not split into records).
fn inline_records<'a>(headers: Option<&HeaderMap>, payload: &'a [u8]) -> Option<Vec<&'a [u8]>> {
    if headers.and_then(|h| h.get(BODY_HEADER)).map(|v| v.as_str()) == Some("object") {
        return None;
    }
    super::codec::split_records(payload)
}

/// The file names a manifest's text lists (its `dict` and `segment` lines).
fn manifest_files(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            match words.next() {
                Some("dict" | "segment") => words.next().map(str::to_owned),
                _ => None,
            }
        })
        .filter(|name| !name.contains('/') && !name.starts_with('.'))
        .collect()
}

/// The whole content of one object of an object store.
async fn read_object(
    store: &jetstream::object_store::ObjectStore,
    name: String,
) -> Result<Vec<u8>, LogError> {
    let mut object = store
        .get(&name)
        .await
        .map_err(|e| unavailable(format!("reading object {name}: {e}")))?;
    let mut bytes = Vec::new();
    object
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| unavailable(format!("reading object {name}: {e}")))?;
    Ok(bytes)
}

/// An object's content downloaded into an unlinked file in `spill` (a body in the
/// object store is larger than a message, and a big import's is gigabytes: never whole
/// in memory), within a time that grows with its size.
async fn read_object_spilling(
    store: &jetstream::object_store::ObjectStore,
    name: String,
    spill: &std::path::Path,
) -> Result<SharedRecord, LogError> {
    let failed = |e: &dyn std::fmt::Display| unavailable(format!("reading object {name}: {e}"));
    let mut object = tokio::time::timeout(OP_TIMEOUT, store.get(&name))
        .await
        .map_err(|e| failed(&e))?
        .map_err(|e| failed(&e))?;
    let size = object.info().size as u64;
    let file = crate::scratch::unlinked_file(spill).map_err(|e| failed(&e))?;
    let mut out = tokio::io::BufWriter::with_capacity(1 << 20, tokio::fs::File::from_std(file));
    let copied = tokio::time::timeout(transfer_limit(size), tokio::io::copy(&mut object, &mut out))
        .await
        .map_err(|e| failed(&e))?
        .map_err(|e| failed(&e))?;
    out.flush().await.map_err(|e| failed(&e))?;
    if copied != size {
        return Err(failed(&format!("{copied} bytes came of {size}")));
    }
    Ok(SharedRecord::Spilled {
        file: out.into_inner().into_std().await,
        len: size,
    })
}

/// How long moving `bytes` through the cluster may take: the usual bound plus a second
/// per 8 MiB (a slow but working link finishes; a dead one is found).
fn transfer_limit(bytes: u64) -> Duration {
    OP_TIMEOUT + Duration::from_secs(bytes / (8 << 20))
}

/// A commit's message id: its number and the start of its hash (the same record always
/// gets the same id, another record another).
fn message_id(seq: CommitSeq, hash: &CommitHash) -> String {
    format!("{seq}-{}", &hash.to_hex()[..32])
}

/// A stream message by `ask` (a get of one message), asked again while no answer comes
/// or the answer is an error other than "no such message" (a stream electing a leader
/// answers nothing, or that it has none), for at most `READ_BUDGET`. `Ok(None)`: the
/// stream holds no such message.
async fn read_message<Fut>(
    mut ask: impl FnMut() -> Fut,
) -> Result<Option<jetstream::message::StreamMessage>, String>
where
    Fut: Future<Output = Result<jetstream::message::StreamMessage, stream::RawMessageError>>,
{
    let started = Instant::now();
    loop {
        let error = match tokio::time::timeout(READ_ATTEMPT, ask()).await {
            Ok(Ok(message)) => return Ok(Some(message)),
            Ok(Err(e)) if e.kind() == stream::LastRawMessageErrorKind::NoMessageFound => {
                return Ok(None);
            }
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer within {READ_ATTEMPT:?}"),
        };
        if started.elapsed() + READ_ATTEMPT + PUBLISH_PAUSE > READ_BUDGET {
            return Err(error);
        }
        tokio::time::sleep(PUBLISH_PAUSE).await;
    }
}

/// Runs `future` on `runtime` and waits for it from this (synchronous) thread, at most
/// `limit`; any thread may call it, inside a tokio runtime or not. (Polling it here with
/// `Handle::block_on` instead, where allowed, measured no faster in the cluster bench.)
fn wait_on<T: Send + 'static>(
    runtime: &tokio::runtime::Handle,
    limit: Duration,
    future: impl Future<Output = Result<T, LogError>> + Send + 'static,
) -> Result<T, LogError> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let outcome = match tokio::time::timeout(limit, future).await {
            Ok(outcome) => outcome,
            Err(_) => Err(unavailable(format!(
                "no answer from the cluster within {limit:?}"
            ))),
        };
        let _ = sender.send(outcome);
    });
    receiver
        .recv()
        .unwrap_or_else(|_| Err(unavailable("the NATS client runtime stopped".into())))
}

fn is_not_found(error: &jetstream::context::GetStreamError) -> bool {
    matches!(
        error.kind(),
        jetstream::context::GetStreamErrorKind::JetStream(e)
            if e.error_code() == jetstream::ErrorCode::STREAM_NOT_FOUND
    )
}

fn unavailable(message: String) -> LogError {
    LogError::Unavailable { message }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    /// A real single `nats-server` with JetStream, stopped when dropped (`.ci/run`
    /// installs it; without it the test fails).
    struct Nats {
        process: std::process::Child,
        url: String,
        _dir: tempfile::TempDir,
    }

    impl Drop for Nats {
        fn drop(&mut self) {
            let _ = self.process.kill();
            let _ = self.process.wait();
        }
    }

    fn nats() -> Nats {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let process = std::process::Command::new("nats-server")
            .args(["-js", "-a", "127.0.0.1", "-p", &port.to_string(), "-sd"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nats-server is not installed: `apt-get install nats-server` (.ci/run does)");
        let url = format!("nats://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "nats-server did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Nats {
            process,
            url,
            _dir: dir,
        }
    }

    /// Commit `seq` on `parent`, one triple.
    fn record(seq: CommitSeq, parent: CommitHash) -> EncodedRecord {
        let quads = format!("<http://e/s{seq}> <http://e/p> \"{seq}\" .\n");
        let header = crate::log::CommitHeader {
            commit_seq: seq,
            parent_hash: parent,
            committed_at: crate::log::parse_time("2026-12-07T10:00:00Z").expect("time"),
            observed_at: None,
            author: None,
            message: None,
            idempotency_key: None,
            request_digest: None,
            n_inserted: 1,
            n_deleted: 0,
            quads_digest: crate::log::quads_digest(quads.as_bytes()),
        };
        EncodedRecord::new(
            &header,
            header.hash(),
            crate::log::encode_quads(quads.as_bytes()),
        )
    }

    /// A node whose append watcher missed a message reads it in a range instead: the
    /// read must name the forwarded write its commit answers, as the watcher would, or
    /// that write waits for its resend (seconds).
    #[test]
    fn range_reads_name_the_forwarded_writes_their_commits_answer() {
        let nats = nats();
        let cluster = JetStream::connect(&nats.url, 1).expect("connects");
        let log = cluster.graph_log("g", true).expect("stream").expect("made");
        let forwarded = |seq: CommitSeq, hash: CommitHash| ForwardedCommit {
            forward_id: format!("node2-00ff-{seq}"),
            hash,
            inserted: 1,
            deleted: 0,
        };
        let mut parent = CommitHash::ZERO;
        let mut expected = Vec::new();
        // One message each (each waits for its answer): six messages.
        for seq in 1..=6 {
            let record = record(seq, parent);
            let named = matches!(seq, 2 | 6).then(|| forwarded(seq, record.hash()));
            if let Some(named) = &named {
                expected.push((seq, named.clone()));
            }
            let pending = log.send(seq, &record, None, named).expect("queued");
            assert!(matches!(
                pending.wait(),
                Ok(crate::log::Appended::Acknowledged)
            ));
            parent = record.hash();
        }
        let spill = tempfile::tempdir().expect("spill dir");
        assert!(log.take_forwarded_read().is_empty(), "nothing read yet");
        // Through a consumer (six messages) ...
        assert_eq!(log.read_range(1, 6, spill.path()).expect("read").len(), 6);
        assert_eq!(log.take_forwarded_read(), expected);
        assert!(log.take_forwarded_read().is_empty(), "taken once");
        // ... and by direct gets (two): only those in the range.
        assert_eq!(log.read_range(5, 6, spill.path()).expect("read").len(), 2);
        assert_eq!(log.take_forwarded_read(), expected[1..].to_vec());
        assert_eq!(log.read_range(3, 5, spill.path()).expect("read").len(), 3);
        assert!(
            log.take_forwarded_read().is_empty(),
            "none answers a forwarded write"
        );
    }

    fn no_message() -> stream::RawMessageError {
        stream::RawMessageError::new(stream::LastRawMessageErrorKind::NoMessageFound)
    }

    #[tokio::test]
    async fn an_unanswered_read_is_asked_again_and_the_next_answer_counts() {
        let asked = AtomicUsize::new(0);
        let started = Instant::now();
        let read = read_message(|| {
            let first = asked.fetch_add(1, Ordering::Relaxed) == 0;
            async move {
                if first {
                    // Sent while the stream elects a leader: never answered.
                    std::future::pending::<()>().await;
                }
                Err(no_message())
            }
        })
        .await;
        assert_eq!(read.map(|m| m.is_none()), Ok(true));
        assert_eq!(asked.load(Ordering::Relaxed), 2);
        let waited = started.elapsed();
        assert!(
            waited >= READ_ATTEMPT && waited < READ_ATTEMPT * 3,
            "{waited:?}"
        );
    }

    #[tokio::test]
    async fn no_such_message_is_an_answer_and_not_asked_again() {
        let asked = AtomicUsize::new(0);
        let read = read_message(|| {
            asked.fetch_add(1, Ordering::Relaxed);
            async { Err(no_message()) }
        })
        .await;
        assert_eq!(read.map(|m| m.is_none()), Ok(true));
        assert_eq!(asked.load(Ordering::Relaxed), 1);
    }

    #[tokio::test]
    async fn other_errors_are_asked_again_until_an_answer_comes() {
        let asked = AtomicUsize::new(0);
        let read = read_message(|| {
            // Twice "no responders" (no leader yet), then the answer.
            let n = asked.fetch_add(1, Ordering::Relaxed);
            async move {
                Err(stream::RawMessageError::new(if n < 2 {
                    stream::LastRawMessageErrorKind::Other
                } else {
                    stream::LastRawMessageErrorKind::NoMessageFound
                }))
            }
        })
        .await;
        assert_eq!(read.map(|m| m.is_none()), Ok(true));
        assert_eq!(asked.load(Ordering::Relaxed), 3);
    }
}
