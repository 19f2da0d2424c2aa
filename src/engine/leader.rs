//! A write leader per graph in a cluster: one node appends the graph's commits (and
//! pipelines them, `pipeline.rs`); the others forward writes to it, so the
//! commits of many nodes stop racing for each number.
//!
//! - The lease: every node's lease thread calls `SharedLog::hold_lease` every third of
//!   the lease's time (`LEASE_TTL`, or `STRATA_CLUSTER_LEASE_MS`; every sixth when another
//!   node holds it): it takes the lease when nobody holds it, renews it when this node
//!   does, or learns who does. A holder that stops (killed, cut off) loses it `LEASE_TTL` after
//!   its last renewal and the next node to ask takes it.
//! - Forwarding: a write arriving at a node that knows another holder (learned within
//!   `LEASE_TTL`) is sent to it (`SharedLog::forward`): a SPARQL update, an approved
//!   update, a Graph Store write, an import's quads, the `commit` tool's records,
//!   `configure`'s ontology changes and shapes, embedding declarations (`forwarded.rs`
//!   says how each travels), with its request (author, message, times,
//!   idempotency key, admin). The leader runs it like a local write and answers with the
//!   outcome and its SHACL validation; the forwarding node waits until it has applied
//!   that commit (read-your-writes on the node the client asked) and answers the same.
//!   An update's or an import's commit that needs no validation report also names its
//!   forward id in its stream message (`ForwardedCommit`): the forwarding node, which
//!   receives and applies every commit anyway, answers once it applied it
//!   (`early_answers`), and the leader sends no reply for it (`named_in_stream`; a
//!   resend still gets one).
//!   The leader refuses a forwarded write when it no longer holds the lease; a refusal,
//!   an error other than an unanswered append, or nobody serving the name makes the
//!   forwarding node run the write itself, optimistically, as before leases (so an error
//!   is answered with everything it says, e.g. a SHACL rejection's report). A forwarded
//!   write that got no answer is answered `log_unavailable` (it may have landed: a retry
//!   with an idempotency key finds it) unless it has an idempotency key, which makes
//!   running it here safe. "No answer" comes at `FORWARD_LIMIT`, or as soon as the lease
//!   thread learns the holder no longer leads (a dead leader: about the lease's time
//!   after its last renewal).
//! - Safety never rests on the lease: every append still names the commit it follows
//!   (expected last sequence and message id), so two nodes that both believe they lead
//!   can never both append commit N. The lease only keeps them from trying.
//! - Not forwarded (run where they arrive, optimistically): documents past one NATS
//!   message (`FORWARD_MAX_QUADS`, `FORWARD_MAX_BYTES`) or past an import's run size.
//!   A cancellation does not travel: a forwarded write runs to its end.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use serde_json::{Value, json};

use super::error::EngineError;
use super::graph::Graph;
use super::write::{CommitOutcome, CommitRequest};
use crate::log::{ForwardAnswer, ForwardedCommit, LeaseHolder};
use crate::model::{CommitHash, CommitSeq};

/// How long a lease holds after its last renewal, unless `STRATA_CLUSTER_LEASE_MS` says
/// otherwise (the same on every node: the first node creates the lease stream with it;
/// `0` turns leases off, every node then appends optimistically). A holder renews every
/// third of it.
const LEASE_TTL: Duration = Duration::from_secs(3);

/// The lease's time in force (`None`: leases off).
fn lease_ttl() -> Option<Duration> {
    static TTL: std::sync::OnceLock<Option<Duration>> = std::sync::OnceLock::new();
    *TTL.get_or_init(|| match std::env::var("STRATA_CLUSTER_LEASE_MS") {
        Ok(ms) => match ms.trim().parse::<u64>() {
            Ok(0) => None,
            Ok(ms) => Some(Duration::from_millis(ms.max(300))),
            Err(_) => {
                tracing::warn!(value = %ms, "STRATA_CLUSTER_LEASE_MS is not a number of milliseconds; using 3000");
                Some(LEASE_TTL)
            }
        },
        Err(_) => Some(LEASE_TTL),
    })
}

/// Whether a lease learned at `at` still holds.
fn fresh(at: &Instant) -> bool {
    lease_ttl().is_some_and(|ttl| at.elapsed() < ttl)
}
/// How long a forwarding node waits for the leader's answer.
const FORWARD_LIMIT: Duration = Duration::from_secs(15);
/// How long a forwarding node waits to apply the commit the leader made.
const APPLY_LIMIT: Duration = Duration::from_secs(10);
/// How long one send of a forwarded write waits for the leader's answer before it is
/// sent again: a request or answer lost with a NATS server that died goes again through
/// the server the client moved to. The forward id makes the leader run it once.
const FORWARD_ATTEMPT: Duration = Duration::from_secs(2);
/// How long a leader keeps the answer to a forwarded write, for its resends (which stop
/// at `FORWARD_LIMIT`).
const SERVED_MEMORY: Duration = Duration::from_secs(20);

/// A forwarded write the leader runs or ran, by its forward id.
enum Served {
    /// Running: resends wait for the answer here.
    Running(Arc<(Mutex<Option<Vec<u8>>>, Condvar)>),
    /// Answered.
    Answered(Vec<u8>),
}

/// A forward id no other forwarded write of any node has: the node's name, a number
/// this process draws at random, and a count.
fn next_forward_id(node: &str) -> String {
    static PROCESS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let process = PROCESS.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish()
    });
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    format!("{node}-{process:016x}-{n}")
}

/// What this node knows of the graph's write lease, and what forwarding did.
#[derive(Default)]
pub(crate) struct LeaseState {
    /// The holder as last learned, and when (shared with forwards waiting for an answer).
    view: Arc<Mutex<Option<(LeaseHolder, Instant)>>>,
    /// Updates this node forwarded and the leader committed (or found unchanged).
    forwarded: AtomicU64,
    /// Updates other nodes forwarded that this node ran as the leader.
    served: AtomicU64,
    /// Of `forwarded`, those answered once the commit came through the stream, before the
    /// leader's reply.
    answered_from_stream: AtomicU64,
    /// This node's forwarded writes that may be answered from the stream, by forward id.
    early_answers: Mutex<std::collections::HashMap<String, EarlyAnswer>>,
    /// As the leader: forwarded writes whose commit a stored stream message named (their
    /// nodes need no reply), by forward id, until `serve_forwarded_once` takes them.
    pub(super) named_in_stream: Mutex<rustc_hash::FxHashSet<String>>,
    /// The forwarded writes this node runs or ran lately as the leader.
    served_forwards: Mutex<ServedForwards>,
    /// When the lease thread started (`None`: leases off, or not clustered).
    started: Mutex<Option<Instant>>,
}

/// The forwarded writes a leader runs, or answered within `SERVED_MEMORY`, by forward
/// id, and the order they were answered in (so forgetting the old ones costs nothing per
/// write).
#[derive(Default)]
struct ServedForwards {
    by_id: std::collections::HashMap<String, Served>,
    answered: std::collections::VecDeque<(Instant, String)>,
}

impl ServedForwards {
    /// Forgets the answers older than `SERVED_MEMORY`.
    fn forget_old(&mut self) {
        while let Some((at, _)) = self.answered.front()
            && at.elapsed() > SERVED_MEMORY
        {
            let (_, id) = self.answered.pop_front().expect("front");
            self.by_id.remove(&id);
        }
    }
}

/// A forwarded write waiting for its answer that the stream may bring first.
struct EarlyAnswer {
    /// Wakes the wait for the leader's reply (`SharedLog::forward`).
    settled: Arc<tokio::sync::Notify>,
    /// The commit that answers it, once a stream message named it.
    commit: Option<(CommitSeq, ForwardedCommit)>,
}

/// Takes a forwarded write's entry out of `early_answers` when its wait ends.
struct EarlyAnswerGuard<'a> {
    lease: &'a LeaseState,
    forward_id: &'a str,
}

impl Drop for EarlyAnswerGuard<'_> {
    fn drop(&mut self) {
        self.lease.early_answers.lock().remove(self.forward_id);
    }
}

/// What a graph's write leadership looks like from this node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaderStatus {
    /// The lease's holder as learned within the lease's time (`Nobody` when unknown).
    pub holder: LeaseHolder,
    pub forwarded: u64,
    pub served: u64,
    /// Of `forwarded`, those answered from the commit stream (before the leader's reply).
    pub answered_from_stream: u64,
}

impl Graph {
    /// In a cluster: who leads this graph's writes, and how many updates went through
    /// forwarding.
    pub fn leader_status(&self) -> Option<LeaderStatus> {
        self.shared.as_ref()?;
        let holder = match &*self.lease.view.lock() {
            Some((holder, at)) if fresh(at) => holder.clone(),
            _ => LeaseHolder::Nobody,
        };
        Some(LeaderStatus {
            holder,
            forwarded: self.lease.forwarded.load(Ordering::Relaxed),
            served: self.lease.served.load(Ordering::Relaxed),
            answered_from_stream: self.lease.answered_from_stream.load(Ordering::Relaxed),
        })
    }

    /// Starts the lease thread and serves forwarded updates (clustered graphs only). Both
    /// hold a weak handle: they end with the graph.
    pub(crate) fn start_lease(graph: &Arc<Graph>) {
        let (Some(shared), Some(ttl)) = (graph.shared.clone(), lease_ttl()) else {
            return;
        };
        let node = graph.node_name();
        *graph.lease.started.lock() = Some(Instant::now());
        let weak = Arc::downgrade(graph);
        shared.serve_forwarded(
            &node,
            Arc::new(move |request| match weak.upgrade() {
                Some(graph) => graph.serve_forwarded_write(&request),
                None => refusal("the graph is closed"),
            }),
        );
        let weak = Arc::downgrade(graph);
        let name = graph.name.to_string();
        let spawned = std::thread::Builder::new()
            .name(format!("strata-lease-{name}"))
            .spawn(move || {
                loop {
                    let Some(graph) = weak.upgrade() else { break };
                    if graph.poisoned.load(Ordering::Acquire) {
                        *graph.lease.view.lock() = None;
                        break;
                    }
                    let asked = Instant::now();
                    match shared.hold_lease(&node, ttl) {
                        Ok(holder) => {
                            let mut view = graph.lease.view.lock();
                            let was = view.as_ref().map(|(h, _)| h.clone());
                            if was.as_ref() != Some(&holder) {
                                tracing::info!(graph = %name, ?holder, "write lease");
                            }
                            // Dated from the question: a renewal holds from when it was sent.
                            *view = Some((holder, asked));
                        }
                        Err(error) => {
                            tracing::debug!(graph = %name, %error, "cannot reach the write lease");
                        }
                    }
                    // The holder renews every third of the lease's time; the others ask
                    // twice as often, so a lapsed lease is taken within a sixth of it.
                    let leading = matches!(&*graph.lease.view.lock(), Some((LeaseHolder::Me, _)));
                    // The leader's own appends tell it what the stream holds.
                    shared.pause_watching(leading);
                    // Store files whose publication failed (the log did not answer) are
                    // published again: no commit may come to ask for it.
                    if graph.publish_pending.load(Ordering::Acquire) {
                        graph.request_flush();
                    }
                    drop(graph);
                    std::thread::sleep(if leading { ttl / 3 } else { ttl / 6 });
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the lease thread");
        }
    }

    /// The node to forward a write to: another node holds the lease (learned within its
    /// time), and nothing about this graph keeps writes where they arrive.
    pub(super) fn leader_elsewhere(&self) -> Option<String> {
        self.shared.as_ref()?;
        self.await_first_lease_view();
        let holder = match &*self.lease.view.lock() {
            Some((LeaseHolder::Other(holder), at)) if fresh(at) => holder.clone(),
            _ => return None,
        };
        Some(holder)
    }

    /// Right after this node started, waits (at most the lease's time) for the lease
    /// thread's first answer: a write that arrives before this node knows who leads would
    /// race the leader's pipeline and, losing every time, be refused `write_conflict`.
    fn await_first_lease_view(&self) {
        let (Some(started), Some(ttl)) = (*self.lease.started.lock(), lease_ttl()) else {
            return;
        };
        while self.lease.view.lock().is_none() && started.elapsed() < ttl {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sends a write to the leader `holder` (see `leader_elsewhere`): `body` names it
    /// (`op` and its fields; `forwarded.rs`), the request's fields are added here.
    /// `Ok(None)` when it is to run here after all. Otherwise the leader's outcome, once
    /// this node has applied its commit, and the leader's whole answer.
    /// With `early`, the answer may come from the commit stream instead (the caller needs
    /// the outcome only, not the leader's answer: see `EarlyAnswer`).
    pub(super) fn forward_write(
        &self,
        holder: String,
        mut body: Value,
        request: &CommitRequest,
        early: bool,
    ) -> Result<Option<(CommitOutcome, Value)>, EngineError> {
        let shared = self.shared.as_ref().expect("clustered");
        body["author"] = json!(request.author);
        body["message"] = json!(request.message);
        body["observed_at"] = json!(request.observed_at.map(crate::log::format_time));
        body["idempotency_key"] = json!(request.idempotency_key);
        body["admin"] = json!(request.admin);
        // A leader that dies with the write in hand never answers: stop waiting once the
        // lease thread learns that somebody else leads (or nobody does), about the
        // lease's time after its last renewal, rather than at `FORWARD_LIMIT`.
        let (view, asked) = (self.lease.view.clone(), holder.clone());
        let abandon: crate::log::Abandon = Arc::new(move || {
            !matches!(
                &*view.lock(),
                Some((LeaseHolder::Other(now), at)) if *now == asked && fresh(at)
            )
        });
        let forward_id = next_forward_id(&self.node_name());
        body["forward_id"] = forward_id.as_str().into();
        // The leader then need not reply when the stream names the commit: only while
        // this node's watcher delivers (else it would hear only at a resend).
        let early = early && ForwardedCommit::id_travels(&forward_id) && shared.is_watching();
        body["answer_from_stream"] = early.into();
        let body = body.to_string().into_bytes();
        let settled = Arc::new(tokio::sync::Notify::new());
        let _early = early.then(|| {
            let waiting = EarlyAnswer {
                settled: settled.clone(),
                commit: None,
            };
            self.lease
                .early_answers
                .lock()
                .insert(forward_id.clone(), waiting);
            EarlyAnswerGuard {
                lease: &self.lease,
                forward_id: &forward_id,
            }
        });
        let started = Instant::now();
        let mut sends = 0;
        let answer = loop {
            let attempt = FORWARD_LIMIT
                .saturating_sub(started.elapsed())
                .min(FORWARD_ATTEMPT);
            sends += 1;
            let sent = shared.forward(
                &holder,
                body.clone(),
                attempt,
                abandon.clone(),
                settled.clone(),
            );
            let given_up = abandon() || started.elapsed() >= FORWARD_LIMIT;
            let failure = match sent {
                Ok(ForwardAnswer::Settled) => {
                    if let Some(answered) = self.answered_from_stream(&forward_id) {
                        return Ok(Some(answered));
                    }
                    continue;
                }
                // A resend that finds the leader still running it: ask again.
                Ok(ForwardAnswer::Answer(answer)) if is_running(&answer) => {
                    crate::log::LogError::Unavailable {
                        message: format!("{holder} did not finish the write in time"),
                    }
                }
                Ok(ForwardAnswer::Answer(answer)) => {
                    break serde_json::from_slice(&answer).unwrap_or(Value::Null);
                }
                // Nobody serves that name (the leader just stopped): run it here, unless
                // an earlier send may have reached it.
                Ok(ForwardAnswer::NoResponders) if sends == 1 => return Ok(None),
                Ok(ForwardAnswer::NoResponders) => {
                    std::thread::sleep(Duration::from_millis(50));
                    crate::log::LogError::Unavailable {
                        message: format!("{holder} stopped serving forwarded writes"),
                    }
                }
                Err(error) => error,
            };
            if !given_up {
                continue;
            }
            // Sent, not answered: it may have landed. A key makes running it here safe.
            if request.idempotency_key.is_some() {
                return Ok(None);
            }
            let error = EngineError::from(failure);
            self.note_shared(&error);
            return Err(error);
        };
        if let Some(committed) = answer.get("committed") {
            let Some(outcome) = outcome_of(committed) else {
                return Ok(None);
            };
            if let Some(seq) = outcome.commit_seq.or(Some(outcome.head_seq)) {
                self.wait_for_commit(seq, APPLY_LIMIT)?;
            }
            self.lease.forwarded.fetch_add(1, Ordering::Relaxed);
            let outcome = CommitOutcome {
                head_seq: self.head_seq().max(outcome.head_seq),
                ..outcome
            };
            return Ok(Some((outcome, answer)));
        }
        if answer.get("unavailable").is_some() {
            // The leader's append got no answer: it may have landed, so running it here
            // could make it twice.
            if request.idempotency_key.is_none() {
                return Err(EngineError::Log(crate::log::LogError::Unavailable {
                    message: answer["unavailable"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                }));
            }
        }
        // Refused (no longer the leader) or failed there: run it here, where the error,
        // if any, comes with everything it says.
        Ok(None)
    }

    /// The outcome of this node's forwarded write `forward_id` from the commit the stream
    /// named for it, which this node applied (`None`: not so).
    fn answered_from_stream(&self, forward_id: &str) -> Option<(CommitOutcome, Value)> {
        let (seq, commit) = self
            .lease
            .early_answers
            .lock()
            .get(forward_id)?
            .commit
            .clone()?;
        let head = self.head_seq();
        if head < seq {
            return None;
        }
        self.lease.forwarded.fetch_add(1, Ordering::Relaxed);
        self.lease
            .answered_from_stream
            .fetch_add(1, Ordering::Relaxed);
        let outcome = CommitOutcome {
            commit_seq: Some(seq),
            head_seq: head,
            hash: Some(commit.hash),
            inserted: commit.inserted,
            deleted: commit.deleted,
            idempotent_replay: false,
            validation: None,
        };
        let answer = json!({ "committed": {
            "commit_seq": seq,
            "head_seq": head,
            "hash": commit.hash.to_hex(),
            "inserted": commit.inserted,
            "deleted": commit.deleted,
            "idempotent_replay": false,
            "validation": null,
        }});
        Some((outcome, answer))
    }

    /// The stream stored commit `seq`, which answers a write forwarded by some node: when
    /// this node forwarded it, remember the commit (and wake the wait once it is applied).
    pub(super) fn note_forwarded_commit(&self, seq: CommitSeq, commit: ForwardedCommit) {
        let mut waiting = self.lease.early_answers.lock();
        if let Some(answer) = waiting.get_mut(&commit.forward_id) {
            answer.commit = Some((seq, commit));
            if seq <= self.head_seq() {
                answer.settled.notify_one();
            }
        }
    }

    /// Wakes the forwarded writes whose commit this node has now applied and published.
    pub(super) fn settle_early_answers(&self) {
        let waiting = self.lease.early_answers.lock();
        if waiting.is_empty() {
            return;
        }
        let head = self.head_seq();
        for answer in waiting.values() {
            if answer.commit.as_ref().is_some_and(|(seq, _)| *seq <= head) {
                answer.settled.notify_one();
            }
        }
    }

    /// Runs a write another node forwarded, as the leader (never forwarding it again).
    /// Answers nothing (an empty answer: no reply) when the forwarding node asked for its
    /// outcome from the stream and a stored message named the commit; a resend of it
    /// gets the whole answer.
    fn serve_forwarded_write(self: &Arc<Self>, request: &[u8]) -> Vec<u8> {
        let Ok(body) = serde_json::from_slice::<Value>(request) else {
            return refusal("unreadable forwarded write");
        };
        let Some(id) = body["forward_id"].as_str() else {
            return self.serve_forwarded_once(&body);
        };
        // A resend of a write this node runs or ran: the same answer, never a second run.
        let slot = Arc::new((Mutex::new(None), Condvar::new()));
        let earlier = {
            let mut served = self.lease.served_forwards.lock();
            served.forget_old();
            match served.by_id.get(id) {
                Some(Served::Answered(answer)) => return answer.clone(),
                Some(Served::Running(slot)) => Some(slot.clone()),
                None => {
                    served
                        .by_id
                        .insert(id.to_owned(), Served::Running(slot.clone()));
                    None
                }
            }
        };
        if let Some(slot) = earlier {
            let (answer, done) = &*slot;
            let mut answer = answer.lock();
            if answer.is_none() {
                done.wait_for(&mut answer, FORWARD_ATTEMPT);
            }
            return answer
                .clone()
                .unwrap_or_else(|| json!({ "running": id }).to_string().into_bytes());
        }
        let answer = self.serve_forwarded_once(&body);
        // Taken out whatever the request asked, so the set never grows.
        let named_in_stream =
            self.lease.named_in_stream.lock().remove(id) && body["answer_from_stream"] == true;
        {
            let mut served = self.lease.served_forwards.lock();
            served
                .by_id
                .insert(id.to_owned(), Served::Answered(answer.clone()));
            served.answered.push_back((Instant::now(), id.to_owned()));
        }
        let (waiting, done) = &*slot;
        *waiting.lock() = Some(answer.clone());
        done.notify_all();
        if named_in_stream { Vec::new() } else { answer }
    }

    /// Runs a forwarded write (`serve_forwarded_write` makes sure it runs once).
    fn serve_forwarded_once(self: &Arc<Self>, body: &Value) -> Vec<u8> {
        if !matches!(
            &*self.lease.view.lock(),
            Some((LeaseHolder::Me, at)) if fresh(at)
        ) {
            return refusal("this node does not hold the write lease");
        }
        let text_of = |field: &str| body[field].as_str().map(str::to_owned);
        let request = CommitRequest {
            author: text_of("author"),
            message: text_of("message"),
            observed_at: body["observed_at"]
                .as_str()
                .and_then(crate::log::parse_time),
            idempotency_key: text_of("idempotency_key"),
            admin: body["admin"].as_bool().unwrap_or(false),
            forward_id: text_of("forward_id"),
        };
        let answer = match self.run_forwarded(body, &request) {
            Ok((outcome, extra)) => {
                self.lease.served.fetch_add(1, Ordering::Relaxed);
                let mut committed = json!({
                    "commit_seq": outcome.commit_seq,
                    "head_seq": outcome.head_seq,
                    "hash": outcome.hash.map(|h| h.to_hex()),
                    "inserted": outcome.inserted,
                    "deleted": outcome.deleted,
                    "idempotent_replay": outcome.idempotent_replay,
                    "validation": outcome.validation.as_deref().map(super::forwarded::validation_to_wire),
                });
                if let (Some(committed), Value::Object(extra)) = (committed.as_object_mut(), extra)
                {
                    committed.extend(extra);
                }
                json!({ "committed": committed })
            }
            Err(EngineError::Log(crate::log::LogError::Unavailable { message })) => {
                json!({ "unavailable": message })
            }
            Err(error) => json!({ "failed": error.to_string() }),
        };
        answer.to_string().into_bytes()
    }
}

/// Whether a leader's answer says it still runs the write (to a resend).
fn is_running(answer: &[u8]) -> bool {
    serde_json::from_slice::<Value>(answer).is_ok_and(|a| a.get("running").is_some())
}

/// A forwarded write's refusal: the forwarding node runs it itself.
fn refusal(reason: &str) -> Vec<u8> {
    json!({ "refused": reason }).to_string().into_bytes()
}

/// The outcome in a leader's answer.
fn outcome_of(value: &Value) -> Option<CommitOutcome> {
    Some(CommitOutcome {
        commit_seq: value["commit_seq"].as_u64(),
        head_seq: value["head_seq"].as_u64()?,
        hash: value["hash"].as_str().and_then(CommitHash::from_hex),
        inserted: value["inserted"].as_u64()?,
        deleted: value["deleted"].as_u64()?,
        idempotent_replay: value["idempotent_replay"].as_bool()?,
        validation: match &value["validation"] {
            Value::Null => None,
            wire => Some(Arc::new(super::forwarded::validation_from_wire(wire)?)),
        },
    })
}
