//! Group commit on JetStream: several commits in one stream message.
//!
//! Every message costs the NATS servers a RAFT round (3 replicas: 3 servers store it
//! and answer), and every node's consumer a delivery. Under load that cost, not the
//! commits', bounds a cluster's write rate. So a node keeps at most one message of a
//! graph in flight: commits sent while it is unanswered wait in a queue, and when the
//! answer comes they go together, as the next message (each commit is still its own
//! record, hash and number; only the envelope is shared). When the message answered held
//! several commits, the next waits up to `LINGER` for as many (their writers, answered
//! together, come back about together: measured, more commits per message and 1.1–1.3×
//! the commits/s with 3 replicas; README). An idle graph sends a commit at once, so a
//! lone write waits no longer than before.
//!
//! A message says which commits it holds (header `Strata-Commits: <first> <count>`;
//! a message without it, as older nodes wrote, holds one commit whose number is its
//! stream sequence). Stream sequence and commit number therefore differ once a message
//! held two commits: a node remembers where the messages it saw sit (`Placements`) and
//! finds any other by bisection (a message's sequence is never above the number of the
//! first commit it holds).
//!
//! Safety is unchanged: a message is appended only right after the message holding the
//! commit its first commit builds on (`Nats-Expected-Last-Sequence`), and a batch's
//! commits are stored or refused together.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_nats::header::{HeaderMap, NATS_EXPECTED_LAST_SEQUENCE, NATS_MESSAGE_ID};
use async_nats::jetstream::{self, context::PublishErrorKind, stream};
use parking_lot::{Condvar, Mutex};

use super::{
    ACK_WAIT, BODY_HEADER, OP_TIMEOUT, PUBLISH_BUDGET, PUBLISH_PAUSE, message_id, unavailable,
};
use crate::log::{Appended, ForwardedCommit, LogError, PendingAppend};
use crate::model::{CommitHash, CommitSeq};

/// The header naming the commits a message holds: `<first> <count>`.
pub(super) const COMMITS_HEADER: &str = "Strata-Commits";
/// The header naming the commits of a message that answer forwarded writes:
/// `<commit> <hash> <inserted> <deleted> <forward id>`, joined by `,`.
const FORWARDED_HEADER: &str = "Strata-Forwarded";
/// The most bytes of `FORWARDED_HEADER`: a batch ends before a commit whose entry would
/// pass it (every commit that answers a forwarded write is named).
const FORWARDED_HEADER_MAX: usize = 16 << 10;
/// At most this many commits go in one message.
const MAX_BATCH_COMMITS: usize = 512;
/// How long the sending task waits, after an answer, for as many commits as the message
/// before held (writers answered together come back together; a forwarded write takes
/// longer to come back).
const LINGER: Duration = Duration::from_millis(1);
/// How many message placements a node remembers per graph (the newest, which appends
/// and catching up ask for; older ones are found by bisection, a request per step).
const PLACEMENTS_KEPT: usize = 1 << 12;
/// How long a commit's sender waits for its answer: its message's publishing budget,
/// behind the messages queued before it.
const ANSWER_LIMIT: Duration = Duration::from_secs(60);

/// The commits a stream message holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Placement {
    pub first: CommitSeq,
    pub count: u64,
}

impl Placement {
    /// The placement a message's headers state (`stream_seq`: the message's sequence).
    pub fn of(headers: Option<&HeaderMap>, stream_seq: u64) -> Self {
        headers
            .and_then(|h| h.get(COMMITS_HEADER))
            .and_then(|v| {
                let (first, count) = v.as_str().split_once(' ')?;
                Some(Self {
                    first: first.parse().ok()?,
                    count: count.parse().ok().filter(|c| *c >= 1)?,
                })
            })
            .unwrap_or(Self {
                first: stream_seq,
                count: 1,
            })
    }

    pub fn last(&self) -> CommitSeq {
        self.first + self.count - 1
    }

    pub fn holds(&self, commit: CommitSeq) -> bool {
        (self.first..=self.last()).contains(&commit)
    }
}

/// Where the messages a node saw sit: first commit → (stream sequence, count).
#[derive(Default)]
pub(super) struct Placements {
    by_first: Mutex<BTreeMap<CommitSeq, (u64, u64)>>,
}

impl Placements {
    pub fn note(&self, stream_seq: u64, placement: Placement) {
        let mut known = self.by_first.lock();
        known.insert(placement.first, (stream_seq, placement.count));
        while known.len() > PLACEMENTS_KEPT {
            known.pop_first();
        }
    }

    /// The stream sequence and placement of the message holding `commit`, if known.
    pub fn find(&self, commit: CommitSeq) -> Option<(u64, Placement)> {
        let known = self.by_first.lock();
        let (&first, &(seq, count)) = known.range(..=commit).next_back()?;
        let placement = Placement { first, count };
        placement.holds(commit).then_some((seq, placement))
    }

    /// Bounds on the sequence of the message holding `commit` (not known itself): after
    /// the known message before it, before the known message after it, and never above
    /// `commit` (each message holds at least one commit).
    fn bounds(&self, commit: CommitSeq) -> (u64, u64) {
        let known = self.by_first.lock();
        let low = known
            .range(..=commit)
            .next_back()
            .map_or(1, |(_, &(seq, _))| seq + 1);
        let high = known
            .range(commit + 1..)
            .next()
            .map_or(commit, |(_, &(seq, _))| seq.saturating_sub(1).min(commit));
        (low, high)
    }
}

/// The sequence of the stream message holding commit `commit` (which the stream holds).
pub(super) async fn locate(
    stream: &stream::Stream,
    placements: &Placements,
    commit: CommitSeq,
) -> Result<u64, LogError> {
    if let Some((seq, _)) = placements.find(commit) {
        return Ok(seq);
    }
    let (mut low, mut high) = placements.bounds(commit);
    while low <= high {
        let middle = low + (high - low) / 2;
        let failed = |e: &dyn std::fmt::Display| {
            unavailable(format!("finding commit {commit} in the stream: {e}"))
        };
        let got = super::read_message(|| stream.get_raw_message(middle))
            .await
            .map_err(|e| failed(&e))?;
        let placement = match got {
            Some(message) => Placement::of(Some(&message.headers), middle),
            None => {
                high = middle - 1;
                continue;
            }
        };
        placements.note(middle, placement);
        if commit < placement.first {
            high = middle - 1;
        } else if commit > placement.last() {
            low = middle + 1;
        } else {
            return Ok(middle);
        }
    }
    Err(unavailable(format!(
        "commit {commit} is in no message of the stream"
    )))
}

/// What a queued commit's message carries for it.
pub(super) enum Body {
    /// The record itself (messages of several commits are made of these).
    Inline(Vec<u8>),
    /// The name of the object holding a record too large for a message (sent alone).
    Object(String),
}

/// A commit waiting for its message.
pub(super) struct Queued {
    pub seq: CommitSeq,
    pub hash: CommitHash,
    /// The hash of commit `seq - 1` when it is itself still unanswered (see
    /// `SharedLog::send`).
    pub after: Option<CommitHash>,
    pub body: Body,
    /// The forwarded write this commit answers.
    pub forwarded: Option<ForwardedCommit>,
}

/// A commit's entry in `FORWARDED_HEADER` (`None`: it answers no forwarded write, or
/// one whose id cannot travel).
fn forwarded_entry(queued: &Queued) -> Option<String> {
    let f = queued.forwarded.as_ref()?;
    ForwardedCommit::id_travels(&f.forward_id).then(|| {
        format!(
            "{} {} {} {} {}",
            queued.seq,
            f.hash.to_hex(),
            f.inserted,
            f.deleted,
            f.forward_id
        )
    })
}

/// `FORWARDED_HEADER`'s value for a batch (`None`: no commit answers a forwarded write).
fn forwarded_header(batch: &[(Queued, Arc<Answer>)]) -> Option<String> {
    let entries: Vec<String> = batch
        .iter()
        .filter_map(|(q, _)| forwarded_entry(q))
        .collect();
    (!entries.is_empty()).then(|| entries.join(","))
}

/// The forwarded writes a message's commits answer, by commit (`FORWARDED_HEADER`;
/// entries that do not read are left out: their nodes wait for the leader's reply).
pub(super) fn forwarded_commits(
    headers: Option<&HeaderMap>,
) -> HashMap<CommitSeq, ForwardedCommit> {
    let Some(value) = headers.and_then(|h| h.get(FORWARDED_HEADER)) else {
        return HashMap::new();
    };
    value
        .as_str()
        .split(',')
        .filter_map(|entry| {
            let mut words = entry.split(' ');
            let commit = words.next()?.parse().ok()?;
            let forwarded = ForwardedCommit {
                hash: CommitHash::from_hex(words.next()?)?,
                inserted: words.next()?.parse().ok()?,
                deleted: words.next()?.parse().ok()?,
                forward_id: words
                    .next()
                    .filter(|id| ForwardedCommit::id_travels(id))?
                    .to_owned(),
            };
            words.next().is_none().then_some((commit, forwarded))
        })
        .collect()
}

/// The answer about one commit, given by the task that sends its message.
#[derive(Default)]
struct Answer {
    outcome: Mutex<Option<Result<Appended, String>>>,
    ready: Condvar,
}

/// A commit in the queue or in flight (`SharedLog::send`'s handle).
pub(super) struct Waiting {
    answer: Arc<Answer>,
    seq: CommitSeq,
}

impl PendingAppend for Waiting {
    fn wait(self: Box<Self>) -> Result<Appended, LogError> {
        let deadline = Instant::now() + ANSWER_LIMIT;
        let mut outcome = self.answer.outcome.lock();
        while outcome.is_none() {
            if self
                .answer
                .ready
                .wait_until(&mut outcome, deadline)
                .timed_out()
            {
                return Err(unavailable(format!(
                    "publishing commit {}: no answer within {ANSWER_LIMIT:?}",
                    self.seq
                )));
            }
        }
        outcome.take().expect("checked").map_err(unavailable)
    }
}

/// The last message this node sent: its last commit and where it was stored (`None`:
/// refused, or no answer came).
#[derive(Clone, Copy)]
struct Tail {
    commit: CommitSeq,
    hash: CommitHash,
    stored_at: Option<u64>,
}

/// What became of one message.
enum Sent {
    Stored(u64),
    Refused,
    Failed(String),
}

/// One graph's queue of commits to send, and the task sending them.
pub(super) struct Appender {
    runtime: tokio::runtime::Handle,
    context: jetstream::Context,
    stream: stream::Stream,
    subject: String,
    max_bytes: usize,
    placements: Arc<Placements>,
    state: Mutex<AppendState>,
    /// Wakes the sending task while it lingers for more commits.
    more: tokio::sync::Notify,
    /// Messages stored, and the commits they held.
    stored_messages: AtomicU64,
    stored_commits: AtomicU64,
}

#[derive(Default)]
struct AppendState {
    queue: VecDeque<(Queued, Arc<Answer>)>,
    /// The sending task runs (it stops when the queue is empty).
    busy: bool,
    /// The sending task waits for more commits (`send` wakes it).
    lingering: bool,
    tail: Option<Tail>,
}

impl Appender {
    pub fn new(
        runtime: tokio::runtime::Handle,
        context: jetstream::Context,
        stream: stream::Stream,
        subject: String,
        max_bytes: usize,
        placements: Arc<Placements>,
    ) -> Arc<Self> {
        Arc::new(Self {
            runtime,
            context,
            stream,
            subject,
            max_bytes,
            placements,
            state: Mutex::new(AppendState::default()),
            more: tokio::sync::Notify::new(),
            stored_messages: AtomicU64::new(0),
            stored_commits: AtomicU64::new(0),
        })
    }

    /// Messages this node stored in the stream, and the commits they held.
    pub fn stored(&self) -> (u64, u64) {
        (
            self.stored_messages.load(Ordering::Relaxed),
            self.stored_commits.load(Ordering::Relaxed),
        )
    }

    /// Queues a commit (in call order) and starts the sending task if it is idle.
    pub fn send(self: &Arc<Self>, queued: Queued) -> Box<dyn PendingAppend> {
        let answer = Arc::new(Answer::default());
        let seq = queued.seq;
        let (start, wake) = {
            let mut state = self.state.lock();
            state.queue.push_back((queued, answer.clone()));
            (!std::mem::replace(&mut state.busy, true), state.lingering)
        };
        if wake {
            self.more.notify_one();
        }
        if start {
            let me = self.clone();
            self.runtime.spawn(async move { me.drain().await });
        }
        Box::new(Waiting { answer, seq })
    }

    /// Sends what is queued, one message at a time, until the queue is empty.
    async fn drain(self: Arc<Self>) {
        let mut last_batch = 0;
        loop {
            // Under load (the last message held several commits), a message held back a
            // moment carries more: every message costs the servers a RAFT round and each
            // node a delivery, a commit costs little more. A lone write never waits.
            if last_batch > 1 {
                self.linger(last_batch).await;
            }
            let (batch, tail) = {
                let mut state = self.state.lock();
                if state.queue.is_empty() {
                    state.busy = false;
                    return;
                }
                (self.take_batch(&mut state.queue), state.tail)
            };
            last_batch = batch.len();
            let sent = self.send_batch(&batch, tail).await;
            let (last, _) = batch.last().expect("a batch has a commit");
            self.state.lock().tail = Some(Tail {
                commit: last.seq,
                hash: last.hash,
                stored_at: match sent {
                    Sent::Stored(seq) => Some(seq),
                    _ => None,
                },
            });
            let outcome = match sent {
                Sent::Stored(_) => Ok(Appended::Acknowledged),
                Sent::Refused => Ok(Appended::Conflict),
                Sent::Failed(message) => Err(message),
            };
            for (_, answer) in &batch {
                *answer.outcome.lock() = Some(outcome.clone());
                answer.ready.notify_all();
            }
        }
    }

    /// Waits (at most `LINGER`) until `target` commits are queued.
    async fn linger(&self, target: usize) {
        let deadline = tokio::time::Instant::now() + LINGER;
        loop {
            {
                let mut state = self.state.lock();
                if state.queue.len() >= target || state.queue.is_empty() {
                    state.lingering = false;
                    return;
                }
                state.lingering = true;
            }
            if tokio::time::timeout_at(deadline, self.more.notified())
                .await
                .is_err()
            {
                self.state.lock().lingering = false;
                return;
            }
        }
    }

    /// The queue's first commit and those right behind it that build on it, one on the
    /// other, up to the message's limits (a record in the object store goes alone).
    fn take_batch(
        &self,
        queue: &mut VecDeque<(Queued, Arc<Answer>)>,
    ) -> Vec<(Queued, Arc<Answer>)> {
        let first = queue.pop_front().expect("not empty");
        // The forwarded header counts against the message's size too.
        let header_bytes = |q: &Queued| forwarded_entry(q).map_or(0, |e| e.len() + 1);
        let mut header = header_bytes(&first.0);
        let mut bytes = match &first.0.body {
            Body::Inline(record) => record.len() + header,
            Body::Object(_) => return vec![first],
        };
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH_COMMITS
            && let Some((next, _)) = queue.front()
        {
            let (previous, _) = batch.last().expect("not empty");
            let chained = next.seq == previous.seq + 1 && next.after == Some(previous.hash);
            let more_header = header_bytes(next);
            let fits = match &next.body {
                Body::Inline(record) => {
                    bytes + record.len() + more_header <= self.max_bytes
                        && header + more_header <= FORWARDED_HEADER_MAX
                }
                Body::Object(_) => false,
            };
            if !chained || !fits {
                break;
            }
            if let Body::Inline(record) = &next.body {
                bytes += record.len() + more_header;
                header += more_header;
            }
            batch.push(queue.pop_front().expect("checked"));
        }
        batch
    }

    /// Publishes one batch right after the message holding the commit it builds on.
    async fn send_batch(&self, batch: &[(Queued, Arc<Answer>)], tail: Option<Tail>) -> Sent {
        let (first, _) = &batch[0];
        let expected = match first.after {
            // Built on a commit this node sent: only right after that very message.
            Some(previous) => match tail {
                Some(t) if t.commit + 1 == first.seq && t.hash == previous => t.stored_at,
                _ => None,
            },
            None => match self.message_ending_at(first.seq - 1, tail).await {
                Ok(found) => found,
                Err(error) => return Sent::Failed(error.to_string()),
            },
        };
        let Some(expected) = expected else {
            return Sent::Refused;
        };
        let (last, _) = batch.last().expect("not empty");
        let count = batch.len() as u64;
        let mut headers = HeaderMap::new();
        headers.insert(NATS_EXPECTED_LAST_SEQUENCE, expected.to_string().as_str());
        // The last commit's hash covers the whole chain before it.
        let id = match count {
            1 => message_id(last.seq, &last.hash),
            _ => format!("{}+{}", first.seq, message_id(last.seq, &last.hash)),
        };
        headers.insert(NATS_MESSAGE_ID, id.as_str());
        headers.insert(COMMITS_HEADER, format!("{} {count}", first.seq).as_str());
        if let Some(forwarded) = forwarded_header(batch) {
            headers.insert(FORWARDED_HEADER, forwarded.as_str());
        }
        let payload: Vec<u8> = match &first.body {
            Body::Object(name) => {
                headers.insert(BODY_HEADER, "object");
                name.clone().into_bytes()
            }
            Body::Inline(_) => {
                let mut payload = Vec::new();
                for (queued, _) in batch {
                    if let Body::Inline(record) = &queued.body {
                        payload.extend_from_slice(record);
                    }
                }
                payload
            }
        };
        let sent = self
            .publish(headers, payload.into(), expected, first.seq)
            .await;
        if let Sent::Stored(seq) = sent {
            self.stored_messages.fetch_add(1, Ordering::Relaxed);
            self.stored_commits.fetch_add(count, Ordering::Relaxed);
            self.placements.note(
                seq,
                Placement {
                    first: first.seq,
                    count,
                },
            );
        }
        sent
    }

    /// The sequence of the stream's last message when it ends with commit `commit`
    /// (0 for commit 0: an empty stream); `None` when the stream holds more.
    async fn message_ending_at(
        &self,
        commit: CommitSeq,
        tail: Option<Tail>,
    ) -> Result<Option<u64>, LogError> {
        if commit == 0 {
            return Ok(Some(0));
        }
        if let Some(Tail {
            commit: sent,
            stored_at: Some(seq),
            ..
        }) = tail
            && sent == commit
        {
            return Ok(Some(seq));
        }
        // What the append watcher or a read saw. Stale knowledge only costs a refusal.
        if let Some((seq, placement)) = self.placements.find(commit) {
            return Ok((placement.last() == commit).then_some(seq));
        }
        let last =
            super::read_message(|| self.stream.get_last_raw_message_by_subject(&self.subject))
                .await
                .map_err(|e| unavailable(format!("reading the stream's state: {e}")))?;
        match last {
            Some(message) => {
                let placement = Placement::of(Some(&message.headers), message.sequence);
                self.placements.note(message.sequence, placement);
                Ok((placement.last() == commit).then_some(message.sequence))
            }
            None => Ok(None),
        }
    }

    /// Publishes a message expected right after stream message `expected`, again with
    /// the same message id when no acknowledgement comes (safe whether or not it
    /// landed: JetStream answers a duplicate with where the first one went).
    async fn publish(
        &self,
        headers: HeaderMap,
        payload: bytes::Bytes,
        expected: u64,
        first: CommitSeq,
    ) -> Sent {
        let started = Instant::now();
        let mut last_error = String::new();
        for attempt in 0.. {
            if attempt > 0 {
                if started.elapsed() >= PUBLISH_BUDGET {
                    break;
                }
                tokio::time::sleep(PUBLISH_PAUSE).await;
            }
            let published = tokio::time::timeout(
                OP_TIMEOUT,
                self.context.publish_with_headers(
                    self.subject.clone(),
                    headers.clone(),
                    payload.clone(),
                ),
            )
            .await;
            let ack = match published {
                Ok(Ok(ack)) => ack,
                Ok(Err(e)) => {
                    last_error = format!("publishing commit {first}: {e}");
                    continue;
                }
                Err(_) => {
                    last_error = format!("publishing commit {first}: timed out");
                    continue;
                }
            };
            // An acknowledgement lost with a NATS server that died is not waited for
            // long: the message goes again (through the server the client moved to).
            let Ok(acked) = tokio::time::timeout(ACK_WAIT, ack).await else {
                last_error =
                    format!("publishing commit {first}: no acknowledgement within {ACK_WAIT:?}");
                continue;
            };
            match acked {
                Ok(ack) if ack.sequence == expected + 1 => return Sent::Stored(ack.sequence),
                // A duplicate of an earlier message with this id at another place: some
                // other message followed `expected`.
                Ok(_) => return Sent::Refused,
                Err(e)
                    if matches!(
                        e.kind(),
                        PublishErrorKind::WrongLastSequence | PublishErrorKind::WrongLastMessageId
                    ) =>
                {
                    return Sent::Refused;
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        PublishErrorKind::TimedOut
                            | PublishErrorKind::BrokenPipe
                            // No server answers for the stream: it elects a leader.
                            | PublishErrorKind::StreamNotFound
                    ) =>
                {
                    last_error = format!("publishing commit {first}: {e}");
                }
                Err(e) => return Sent::Failed(format!("publishing commit {first}: {e}")),
            }
        }
        Sent::Failed(last_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_find_known_messages_and_bound_the_search_for_others() {
        let placements = Placements::default();
        // Messages 1 (commit 1), 2 (commits 2-4), 5 (commits 9-10).
        placements.note(1, Placement { first: 1, count: 1 });
        placements.note(2, Placement { first: 2, count: 3 });
        placements.note(5, Placement { first: 9, count: 2 });
        assert_eq!(placements.find(3).map(|(s, _)| s), Some(2));
        assert_eq!(placements.find(10).map(|(s, _)| s), Some(5));
        assert_eq!(placements.find(5), None);
        assert_eq!(placements.find(11), None);
        // Commit 6 is in message 3 or 4.
        assert_eq!(placements.bounds(6), (3, 4));
        // Commit 12, after everything known: after message 5, at most message 12.
        assert_eq!(placements.bounds(12), (6, 12));
    }

    #[test]
    fn a_message_without_the_header_holds_the_commit_of_its_sequence() {
        assert_eq!(Placement::of(None, 7), Placement { first: 7, count: 1 });
        let mut headers = HeaderMap::new();
        headers.insert(COMMITS_HEADER, "12 4");
        let placement = Placement::of(Some(&headers), 7);
        assert_eq!((placement.first, placement.last()), (12, 15));
        headers.insert(COMMITS_HEADER, "12 0");
        assert_eq!(Placement::of(Some(&headers), 7).first, 7);
    }

    #[test]
    fn the_forwarded_header_names_each_commit_that_answers_a_forwarded_write() {
        let hash = |n: u8| CommitHash::from_hex(&format!("{n:02x}").repeat(32)).unwrap();
        let queued = |seq, forward_id: Option<&str>| {
            let forwarded = forward_id.map(|id| ForwardedCommit {
                forward_id: id.to_owned(),
                hash: hash(seq as u8),
                inserted: seq * 10,
                deleted: 1,
            });
            let answer = Arc::new(Answer::default());
            let body = Body::Inline(Vec::new());
            let queued = Queued {
                seq,
                hash: hash(seq as u8),
                after: None,
                body,
                forwarded,
            };
            (queued, answer)
        };
        let batch = vec![
            queued(4, Some("node-a-00ff-1")),
            queued(5, None),
            // Not fit for a header: that node hears from the leader's reply instead.
            queued(6, Some("node b,7")),
            queued(7, Some("node-c-00ff-2")),
        ];
        let mut headers = HeaderMap::new();
        headers.insert(FORWARDED_HEADER, forwarded_header(&batch).unwrap().as_str());
        let read = forwarded_commits(Some(&headers));
        assert_eq!(read.len(), 2, "{read:?}");
        assert_eq!(read[&4].forward_id, "node-a-00ff-1");
        assert_eq!(
            (read[&4].hash, read[&4].inserted, read[&4].deleted),
            (hash(4), 40, 1)
        );
        assert_eq!(read[&7].forward_id, "node-c-00ff-2");
        assert!(forwarded_header(&batch[1..2]).is_none());
        // A damaged entry is left out, the others still read.
        headers.insert(FORWARDED_HEADER, "4 zz 1 1 a,9 ");
        assert!(forwarded_commits(Some(&headers)).is_empty());
        assert!(forwarded_commits(None).is_empty());
    }
}
