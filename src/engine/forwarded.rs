//! The writes a node forwards to its graph's write leader (`leader.rs` carries them), as
//! JSON with an `op`:
//!
//! - `update`: a SPARQL update's text, base IRI and `USING` graphs; with
//!   `allowed_deletes` (N-Quads), an approved update that may delete only those quads
//!   (`Graph::update_within`).
//! - `graph`: a Graph Store write (`PUT`/`POST`/`DELETE` of one RDF graph) with its
//!   parsed document as N-Quads (blank nodes keep the labels this node gave them) and
//!   the digest that identifies it for idempotent retries.
//! - `insert`: an import's parsed documents (N-Quads) and digest (`commit_documents`).
//! - `changes`: explicit quads to insert and to delete and the digest (`commit_quads`:
//!   embedding declarations, an ontology's definition).
//! - `shapes`: a shapes document (N-Quads of its triples) and the mode it is published
//!   with (`publish_shapes`); the answer carries the whole-graph report.
//! - an op a layer above registers (`register_forwarded_op`), for writes planned there
//!   against the state they land on, e.g. `records.commit` (the MCP `commit` tool) and
//!   `records.evolve_ontology` (`configure`): the body carries the arguments, the leader
//!   plans and commits them under its writer lock.
//!
//! The leader answers with the outcome, and the SHACL validation of the commit when the
//! graph enforces shapes (`validation_to_wire`), so a forwarded write reports exactly
//! what a local one would. A document too big for one NATS message is not forwarded: it
//! is appended where it arrives, optimistically (expected last sequence keeps it safe).

use std::sync::Arc;

use parking_lot::RwLock;
use rustc_hash::FxHashSet;
use serde_json::{Value, json};

use super::error::EngineError;
use super::graph::Graph;
use super::import::GraphWrite;
use super::validation::CommitValidation;
use super::write::{CommitOutcome, CommitRequest};
use crate::model::{NamedNode, Quad, Term};
use crate::shacl::{Report, Severity, ShaclResult, ValidationMode};
use crate::sparql::UpdateOptions;
use crate::store::QuadKey;

/// The most bytes of quads a forwarded write carries (NATS's default message limit is
/// 1 MiB): a bigger document is written where it arrives.
const FORWARD_MAX_BYTES: usize = 768 << 10;
/// Quads past which a document is not even encoded for forwarding (it would not fit).
const FORWARD_MAX_QUADS: usize = 8_192;

/// A forwarded write a layer above the engine runs as the leader: the graph, the body
/// the forwarding node sent, the request (author, key, …); the outcome.
pub type ForwardedOp =
    fn(&Arc<Graph>, &Value, &CommitRequest) -> Result<CommitOutcome, EngineError>;

/// The ops registered by the layers above (`register_forwarded_op`).
static OPS: RwLock<Vec<(&'static str, ForwardedOp)>> = RwLock::new(Vec::new());

/// Lets a leader run writes forwarded as `op` (its name starts with the registering
/// layer's, e.g. `records.commit`). Registering again replaces the handler.
pub fn register_forwarded_op(op: &'static str, run: ForwardedOp) {
    let mut ops = OPS.write();
    ops.retain(|(name, _)| *name != op);
    ops.push((op, run));
}

impl Graph {
    /// Forwards a write of a registered `op` (`register_forwarded_op`) to the leader
    /// when another node leads: `Ok(None)` when it is to run here (`body` is then not
    /// needed: it is made only when forwarding).
    pub fn forward_op(
        &self,
        op: &'static str,
        body: impl FnOnce() -> Option<Value>,
        request: &CommitRequest,
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        let Some(mut body) = body() else {
            return Ok(None);
        };
        body["op"] = op.into();
        Ok(self
            .forward_write(holder, body, request, false)?
            .map(|(outcome, _)| outcome))
    }

    /// Forwards an import's quads (in memory) to the leader when another node leads:
    /// `Ok(None)` when it is to run here.
    pub(crate) fn forward_insert(
        &self,
        keys: &[QuadKey],
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        let Some(quads) = self.nquads_to_forward(keys) else {
            return Ok(None);
        };
        let body = json!({ "op": "insert", "quads": quads, "digest": digest_to_hex(&digest) });
        Ok(self
            .forward_write(holder, body, request, true)?
            .map(|(outcome, _)| outcome))
    }

    /// Forwards explicit changes to the leader when another node leads: `Ok(None)` when
    /// they are to be committed here.
    pub(crate) fn forward_changes(
        &self,
        inserts: &[QuadKey],
        deletes: &[QuadKey],
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        let (Some(quads), Some(deleted)) = (
            self.nquads_to_forward(inserts),
            self.nquads_to_forward(deletes),
        ) else {
            return Ok(None);
        };
        let body = json!({
            "op": "changes",
            "quads": quads,
            "deletes": deleted,
            "digest": digest_to_hex(&digest),
        });
        Ok(self
            .forward_write(holder, body, request, true)?
            .map(|(outcome, _)| outcome))
    }

    /// Forwards a shapes publication to the leader when another node leads: `Ok(None)`
    /// when it is to run here.
    pub(crate) fn forward_shapes(
        &self,
        triples: &[crate::model::Triple],
        mode: ValidationMode,
        request: &CommitRequest,
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        if triples.len() > FORWARD_MAX_QUADS {
            return Ok(None);
        }
        let quads: Vec<Quad> = triples
            .iter()
            .map(|t| t.clone().in_graph(crate::model::RdfGraphName::DefaultGraph))
            .collect();
        let text = to_nquads(&quads);
        if text.len() > FORWARD_MAX_BYTES {
            return Ok(None);
        }
        let body = json!({ "op": "shapes", "triples": text, "mode": mode.name() });
        Ok(self
            .forward_write(holder, body, request, false)?
            .map(|(outcome, _)| outcome))
    }

    /// Forwards a parsed update to the leader when another node leads: `Ok(None)` when
    /// it is to run here. With `allowed_deletes`, the update may delete only those quads.
    pub(crate) fn forward_update(
        &self,
        update_text: &str,
        base_iri: Option<&str>,
        options: &UpdateOptions,
        request: &CommitRequest,
        allowed_deletes: Option<&FxHashSet<QuadKey>>,
    ) -> Result<Option<CommitOutcome>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        let mut body = json!({
            "op": "update",
            "update": update_text,
            "base": base_iri,
            "using": options.using_graph_uris.iter().map(|g| g.as_str()).collect::<Vec<_>>(),
            "using_named": options.using_named_graph_uris.iter().map(|g| g.as_str()).collect::<Vec<_>>(),
        });
        if let Some(allowed) = allowed_deletes {
            let keys: Vec<QuadKey> = allowed.iter().copied().collect();
            let Some(quads) = self.nquads_to_forward(&keys) else {
                return Ok(None);
            };
            body["allowed_deletes"] = quads.into();
        }
        Ok(self
            .forward_write(holder, body, request, true)?
            .map(|(outcome, _)| outcome))
    }

    /// Forwards a Graph Store write to the leader when another node leads: `Ok(None)`
    /// when it is to run here. Returns the outcome and whether the graph held any triple
    /// before.
    pub(crate) fn forward_graph_write(
        &self,
        graph_name: Option<&NamedNode>,
        mode: GraphWrite,
        document: Option<&[QuadKey]>,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<Option<(CommitOutcome, bool)>, EngineError> {
        let Some(holder) = self.leader_elsewhere() else {
            return Ok(None);
        };
        let quads = match document {
            None => None,
            Some(keys) => match self.nquads_to_forward(keys) {
                Some(quads) => Some(quads),
                None => return Ok(None),
            },
        };
        let body = json!({
            "op": "graph",
            "mode": graph_write_name(mode),
            "graph": graph_name.map(|g| g.as_str()),
            "quads": quads,
            "digest": digest_to_hex(&digest),
        });
        Ok(self
            .forward_write(holder, body, request, false)?
            .map(|(outcome, answer)| {
                let existed = answer["committed"]["existed"].as_bool().unwrap_or(false);
                (outcome, existed)
            }))
    }

    /// Runs a forwarded write here, as the leader: its outcome and what the answer adds
    /// to it.
    pub(super) fn run_forwarded(
        self: &Arc<Self>,
        body: &Value,
        request: &CommitRequest,
    ) -> Result<(CommitOutcome, Value), EngineError> {
        let unreadable = |what: &str| EngineError::InvalidArgument {
            param: "forwarded".into(),
            message: format!("a forwarded write with {what}"),
        };
        match body["op"].as_str().unwrap_or("update") {
            "update" => {
                let text = body["update"]
                    .as_str()
                    .ok_or_else(|| unreadable("no update"))?;
                let graphs = |field: &str| -> Vec<NamedNode> {
                    body[field]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|g| g.as_str().and_then(|g| NamedNode::new(g).ok()))
                        .collect()
                };
                let options = UpdateOptions {
                    using_graph_uris: graphs("using"),
                    using_named_graph_uris: graphs("using_named"),
                    ..Default::default()
                };
                let base = body["base"].as_str();
                let outcome = match body["allowed_deletes"].as_str() {
                    None => self.update_here(text, base, &options, request)?,
                    Some(allowed) => {
                        let dict = self.store.dict();
                        // A quad this node's dictionary lacks is in no graph: it
                        // cannot be deleted, so it need not be allowed.
                        let allowed: FxHashSet<QuadKey> = parse_nquads(allowed)
                            .map_err(|e| unreadable(&format!("unreadable quads: {e}")))?
                            .iter()
                            .filter_map(|q| dict.lookup_quad(q))
                            .collect();
                        self.update_within_here(text, base, &options, request, &allowed)?
                    }
                };
                Ok((outcome, Value::Null))
            }
            "graph" => {
                let mode = body["mode"]
                    .as_str()
                    .and_then(graph_write_of)
                    .ok_or_else(|| unreadable("no Graph Store mode"))?;
                let graph = match body["graph"].as_str() {
                    None => None,
                    Some(iri) => Some(
                        NamedNode::new(iri).map_err(|_| unreadable("a graph that is no IRI"))?,
                    ),
                };
                let digest = body["digest"]
                    .as_str()
                    .and_then(digest_from_hex)
                    .ok_or_else(|| unreadable("no digest"))?;
                let keys = match body["quads"].as_str() {
                    None => None,
                    Some(text) => {
                        let dict = self.store.dict();
                        let quads = parse_nquads(text)
                            .map_err(|e| unreadable(&format!("unreadable quads: {e}")))?;
                        Some(quads.into_iter().map(|q| dict.intern_quad(q)).collect())
                    }
                };
                let (outcome, existed) =
                    self.write_graph_keys(graph.as_ref(), mode, keys, request, digest)?;
                Ok((outcome, json!({ "existed": existed })))
            }
            "insert" => {
                let digest = body["digest"]
                    .as_str()
                    .and_then(digest_from_hex)
                    .ok_or_else(|| unreadable("no digest"))?;
                let text = body["quads"]
                    .as_str()
                    .ok_or_else(|| unreadable("no quads"))?;
                let dict = self.store.dict();
                let keys = parse_nquads(text)
                    .map_err(|e| unreadable(&format!("unreadable quads: {e}")))?
                    .into_iter()
                    .map(|q| dict.intern_quad(q))
                    .collect();
                Ok((
                    self.commit_keys(keys, Vec::new(), request, digest)?,
                    Value::Null,
                ))
            }
            "changes" => {
                let digest = body["digest"]
                    .as_str()
                    .and_then(digest_from_hex)
                    .ok_or_else(|| unreadable("no digest"))?;
                let read = |field: &str| {
                    parse_nquads(body[field].as_str().unwrap_or_default())
                        .map_err(|e| unreadable(&format!("unreadable quads: {e}")))
                };
                let dict = self.store.dict();
                let inserts = read("quads")?
                    .into_iter()
                    .map(|q| dict.intern_quad(q))
                    .collect();
                // A quad this node's dictionary lacks is in no graph: nothing to delete.
                let deletes = read("deletes")?
                    .iter()
                    .filter_map(|q| dict.lookup_quad(q))
                    .collect();
                Ok((
                    self.commit_keys(inserts, deletes, request, digest)?,
                    Value::Null,
                ))
            }
            "shapes" => {
                let mode = body["mode"]
                    .as_str()
                    .and_then(ValidationMode::parse)
                    .ok_or_else(|| unreadable("no validation mode"))?;
                let triples = parse_nquads(body["triples"].as_str().unwrap_or_default())
                    .map_err(|e| unreadable(&format!("unreadable triples: {e}")))?
                    .into_iter()
                    .map(crate::model::Triple::from)
                    .collect();
                Ok((
                    self.publish_shapes_here(triples, mode, request)?,
                    Value::Null,
                ))
            }
            other => {
                let run = OPS
                    .read()
                    .iter()
                    .find(|(name, _)| *name == other)
                    .map(|(_, run)| *run)
                    .ok_or_else(|| unreadable(&format!("an unknown op {other:?}")))?;
                Ok((run(self, body, request)?, Value::Null))
            }
        }
    }

    /// The quads of `keys` as N-Quads, when they fit in a forwarded write.
    fn nquads_to_forward(&self, keys: &[QuadKey]) -> Option<String> {
        if keys.len() > FORWARD_MAX_QUADS {
            return None;
        }
        let text = to_nquads(&self.quads_of(keys));
        (text.len() <= FORWARD_MAX_BYTES).then_some(text)
    }
}

fn graph_write_name(mode: GraphWrite) -> &'static str {
    match mode {
        GraphWrite::Replace => "replace",
        GraphWrite::Merge => "merge",
        GraphWrite::Delete => "delete",
    }
}

fn graph_write_of(name: &str) -> Option<GraphWrite> {
    Some(match name {
        "replace" => GraphWrite::Replace,
        "merge" => GraphWrite::Merge,
        "delete" => GraphWrite::Delete,
        _ => return None,
    })
}

/// Quads as N-Quads (blank nodes keep their labels), to carry in a forwarded write.
pub fn to_nquads(quads: &[Quad]) -> String {
    let mut serializer = oxttl::NQuadsSerializer::new().for_writer(Vec::new());
    for quad in quads {
        // Writing to memory cannot fail.
        let _ = serializer.serialize_quad(quad);
    }
    String::from_utf8(serializer.finish()).unwrap_or_default()
}

/// Quads `to_nquads` wrote.
pub fn parse_nquads(text: &str) -> Result<Vec<Quad>, oxttl::TurtleSyntaxError> {
    oxttl::NQuadsParser::new()
        .for_slice(text.as_bytes())
        .collect()
}

/// A digest as 64 hex digits, to carry in a forwarded write.
pub fn digest_to_hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A digest `digest_to_hex` wrote.
pub fn digest_from_hex(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if text.len() != 64 {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// A commit's validation as the leader sends it back: every result, terms in N-Triples
/// syntax.
pub(super) fn validation_to_wire(validation: &CommitValidation) -> Value {
    let term = |t: &Option<Term>| t.as_ref().map(|t| t.to_string());
    json!({
        "mode": validation.mode.name(),
        "shapes_seq": validation.shapes_seq,
        "whole_graph": validation.whole_graph,
        "focus_nodes_checked": validation.focus_nodes_checked,
        "conforms": validation.report.conforms,
        "results": validation.report.results.iter().map(|r| json!({
            "focus_node": r.focus_node.to_string(),
            "path": r.path,
            "value": term(&r.value),
            "constraint": r.constraint,
            "source_shape": term(&r.source_shape),
            "node_shape": term(&r.node_shape),
            "severity": r.severity.iri(),
            "message": r.message,
        })).collect::<Vec<_>>(),
    })
}

/// A validation `validation_to_wire` wrote (`None` if it is not one).
pub(super) fn validation_from_wire(wire: &Value) -> Option<CommitValidation> {
    let term = |value: &Value| -> Option<Option<Term>> {
        match value {
            Value::Null => Some(None),
            Value::String(text) => text.parse::<Term>().ok().map(Some),
            _ => None,
        }
    };
    let mut results = Vec::new();
    for result in wire["results"].as_array()? {
        results.push(ShaclResult {
            focus_node: term(&result["focus_node"])??,
            path: result["path"].as_str().map(str::to_owned),
            value: term(&result["value"])?,
            constraint: result["constraint"].as_str()?.to_owned(),
            source_shape: term(&result["source_shape"])?,
            node_shape: term(&result["node_shape"])?,
            severity: severity_of(result["severity"].as_str()?),
            message: result["message"].as_str()?.to_owned(),
        });
    }
    Some(CommitValidation {
        mode: ValidationMode::parse(wire["mode"].as_str()?)?,
        shapes_seq: wire["shapes_seq"].as_u64()?,
        whole_graph: wire["whole_graph"].as_bool()?,
        focus_nodes_checked: usize::try_from(wire["focus_nodes_checked"].as_u64()?).ok()?,
        report: Report {
            conforms: wire["conforms"].as_bool()?,
            results,
        },
    })
}

fn severity_of(iri: &str) -> Severity {
    match iri {
        "http://www.w3.org/ns/shacl#Violation" => Severity::Violation,
        "http://www.w3.org/ns/shacl#Warning" => Severity::Warning,
        "http://www.w3.org/ns/shacl#Info" => Severity::Info,
        other => Severity::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_validation_reads_back_as_it_was_written() {
        let validation = CommitValidation {
            mode: ValidationMode::Warn,
            shapes_seq: 4,
            whole_graph: false,
            focus_nodes_checked: 2,
            report: Report {
                conforms: false,
                results: vec![ShaclResult {
                    focus_node: NamedNode::new("http://example.org/a").unwrap().into(),
                    path: Some("http://example.org/name".into()),
                    value: Some(
                        oxrdf::Literal::new_language_tagged_literal("x \"y\"", "en")
                            .unwrap()
                            .into(),
                    ),
                    constraint: "http://www.w3.org/ns/shacl#MinCountConstraintComponent".into(),
                    source_shape: Some(oxrdf::BlankNode::new("b0").unwrap().into()),
                    node_shape: None,
                    severity: Severity::Other("http://example.org/Mild".into()),
                    message: "needs a name".into(),
                }],
            },
        };
        let wire = validation_to_wire(&validation);
        let back = validation_from_wire(&serde_json::from_str(&wire.to_string()).unwrap());
        assert_eq!(back, Some(validation));
    }

    #[test]
    fn quads_and_digests_survive_the_trip() {
        let quads = parse_nquads(
            "<http://e/s> <http://e/p> \"a\\nb\"@en <http://e/g> .\n_:x1 <http://e/p> _:y2 .\n",
        )
        .unwrap();
        assert_eq!(parse_nquads(&to_nquads(&quads)).unwrap(), quads);
        assert_eq!(quads[1].subject.to_string(), "_:x1");
        let digest = [0xa5; 32];
        assert_eq!(digest_from_hex(&digest_to_hex(&digest)), Some(digest));
        assert_eq!(digest_from_hex("zz"), None);
    }
}
