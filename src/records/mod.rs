//! The domain of writes against the ontology: records, links and field values
//! (`commit.rs`: the MCP `commit` tool, `POST /graphs/{g}/records`, `strata commit`) and
//! the ontology itself (`ontology.rs`: `configure`, `POST /graphs/{g}/ontology`,
//! `strata configure`).
//!
//! A write is prepared against the head (what a dry run reports and what a person is
//! shown), then committed: the commit plans again under the writer lock, against the
//! state it lands on (`Graph::commit_planned`). Between the two, a surface may ask a
//! person to approve a removal (MCP elicitation); when it did, the commit removes
//! nothing the person was not shown, or fails with `approval_declined`.

pub mod commit;
pub mod ontology;

pub use commit::CommitArgs;
pub use ontology::ConfigureArgs;

use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::engine::{Engine, EngineError};
use crate::error::ApiError;
use crate::model::Quad;
use crate::query::Envelope;
use crate::store::Snapshot;

/// What a write would remove (or change) that a person must approve first.
pub struct Removal {
    /// The graph written.
    pub graph: String,
    /// The write, as the question names it ("This commit").
    pub what: &'static str,
    /// The quads it would remove (listed in the question).
    pub quads: Vec<Quad>,
    /// The question's own text, when it is not about removed quads.
    pub text: Option<String>,
    /// What binds an answer to this exact write (tool, content).
    pub fingerprint: Vec<String>,
}

/// Lets this node, as a graph's write leader in a cluster, run the record writes other
/// nodes forward to it (they are planned here, against the state they land on).
pub fn serve_forwarded_writes() {
    commit::serve_forwarded_commits();
    ontology::serve_forwarded_evolutions();
}

/// How a prepared write was approved.
pub struct Approved {
    /// A person was shown the removal (or could have been): the commit then removes
    /// nothing else, even if the data moved meanwhile.
    pub by_person: bool,
    /// The commit's author.
    pub author: Option<String>,
}

/// A write, prepared: answered already (a dry run, nothing to change), or ready to commit
/// once its removal (if any) is approved.
pub enum Prepared<W> {
    Answered(Envelope),
    Ready { removal: Option<Removal>, write: W },
}

/// The commit of a prepared write.
pub trait Write {
    fn commit(self, approved: &Approved) -> Result<Envelope, ApiError>;
}

/// Commits a prepared write whose caller approves its own removals (HTTP, the CLI).
pub fn commit_as_requested<W: Write>(
    prepared: Prepared<W>,
    author: Option<String>,
) -> Result<Envelope, ApiError> {
    match prepared {
        Prepared::Answered(envelope) => Ok(envelope),
        Prepared::Ready { write, .. } => write.commit(&Approved {
            by_person: false,
            author,
        }),
    }
}

/// The arguments of a write (the `commit` and `configure` tools'), prepared the same way
/// on every surface.
pub trait WriteArgs: serde::de::DeserializeOwned + Send + 'static {
    type Write: Write + Send + 'static;
    /// Prepares the write against the head of its graph. `admin`: the caller may create
    /// the graph and change the control graphs.
    fn prepare(self, engine: &Arc<Engine>, admin: bool) -> Result<Prepared<Self::Write>, ApiError>;
    /// The graph the arguments name (`None`: `main`).
    fn graph_mut(&mut self) -> &mut Option<String>;
    /// True when only an admin may make this write (publishing shapes).
    fn needs_admin(&self) -> bool {
        false
    }

    /// Takes what the arguments leave out from the request around them (HTTP's
    /// `Idempotency-Key`, `Strata-Message`, `Strata-Observed-At` headers).
    fn fill_from(&mut self, _request: &crate::engine::CommitRequest) {}
}

/// Refuses a plan, made under the writer lock, that removes what the person was not
/// shown (`shown`): the data moved while they were asked. Removals they saw that are
/// gone meanwhile are simply not made.
fn check_shown(
    approved: &Approved,
    destructive: bool,
    deletes: &[Quad],
    shown: &FxHashSet<Quad>,
    snapshot: &Snapshot,
) -> Result<(), ApiError> {
    let unseen = deletes
        .iter()
        .any(|q| !shown.contains(q) && snapshot.contains_quad(q));
    if approved.by_person && destructive && unseen {
        return Err(ApiError::from(EngineError::ApprovalStale));
    }
    Ok(())
}

/// A record write planned by the leader when another node leads (`commit`, an ontology
/// evolution): what the forwarding node sends and the leader reads back, so the leader
/// plans it as the forwarding node would have.
pub(crate) struct ForwardedPlan<A> {
    pub name: String,
    pub args: A,
    pub digest: [u8; 32],
    pub shown: FxHashSet<Quad>,
    pub approved: Approved,
}

impl<A: serde::Serialize + serde::de::DeserializeOwned> ForwardedPlan<A> {
    /// The body of the forwarded write (`None`: the arguments do not serialize; it then
    /// runs where it arrived).
    pub fn body(
        name: &str,
        args: &A,
        digest: &[u8; 32],
        shown: &FxHashSet<Quad>,
        approved: &Approved,
    ) -> Option<serde_json::Value> {
        let shown: Vec<Quad> = shown.iter().cloned().collect();
        Some(serde_json::json!({
            "name": name,
            "args": serde_json::to_value(args).ok()?,
            "digest": crate::engine::digest_to_hex(digest),
            "shown": crate::engine::to_nquads(&shown),
            "by_person": approved.by_person,
        }))
    }

    /// Reads a forwarded write's body (`what` names it in errors).
    pub fn read(
        body: &serde_json::Value,
        request: &crate::engine::CommitRequest,
        what: &str,
    ) -> Result<Self, EngineError> {
        let unreadable = |detail: &str| forwarded_unreadable(what, detail);
        let name = body["name"]
            .as_str()
            .ok_or_else(|| unreadable("no graph"))?;
        let args = serde_json::from_value(body["args"].clone())
            .map_err(|e| unreadable(&format!("unreadable arguments: {e}")))?;
        let digest = body["digest"]
            .as_str()
            .and_then(crate::engine::digest_from_hex)
            .ok_or_else(|| unreadable("no digest"))?;
        let shown = crate::engine::parse_nquads(body["shown"].as_str().unwrap_or_default())
            .map_err(|e| unreadable(&format!("unreadable quads: {e}")))?
            .into_iter()
            .collect();
        Ok(Self {
            name: name.to_owned(),
            args,
            digest,
            shown,
            approved: Approved {
                by_person: body["by_person"].as_bool().unwrap_or(false),
                author: request.author.clone(),
            },
        })
    }
}

fn forwarded_unreadable(what: &str, detail: &str) -> EngineError {
    EngineError::InvalidArgument {
        param: "forwarded".into(),
        message: format!("a forwarded {what} with {detail}"),
    }
}

/// What the leader answers when a forwarded record write fails: only "the log did not
/// answer" reaches the forwarding node as such (the commit may have landed); any other
/// failure makes it run the write itself, which answers with the whole error.
pub(crate) fn forwarded_failure(error: ApiError, what: &str) -> EngineError {
    match error.code {
        crate::error::ErrorCode::LogUnavailable => {
            EngineError::Log(crate::log::LogError::Unavailable {
                message: error.message,
            })
        }
        _ => forwarded_unreadable(what, &error.message),
    }
}
