//! SHACL on the write path. A graph's shapes live in its `strata:shapes` named graph, with
//! a mode triple (`off` / `warn` / `reject`), so they are versioned by the log like any
//! data. Every commit is checked against the shapes as of its own changes:
//!
//! * a commit that changes the shapes graph is compiled (bad shapes fail the commit) and
//!   validates the whole graph: its report becomes the conformance report;
//! * any other commit validates only the focus nodes it can affect: the subjects and
//!   objects it touches, plus their neighbours within two steps along the properties the
//!   shapes name (a value node losing its type changes the validity of whoever points
//!   at it). Validation runs over the subgraph around those nodes, and only their results
//!   count. Changes to `rdfs:subClassOf`, shapes with unbounded paths (`sh:zeroOrMorePath`,
//!   `sh:oneOrMorePath`), small graphs and very wide changes validate the whole graph.
//!
//! In `reject` mode a commit whose affected nodes have `sh:Violation` results fails with
//! the report and writes nothing; in `warn` mode it lands and the report comes back with
//! the outcome. The conformance report (whole graph) is kept current by replacing the
//! affected nodes' results after each commit; after a restart it is recomputed on demand.

use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::error::EngineError;
use crate::model::{CommitSeq, Literal, NamedNode, Quad, RdfGraphName, Term, Triple};
use crate::shacl::{self, Report, SHAPES_GRAPH, Shapes, VALIDATION_MODE, ValidationMode};
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, QuadKey, Snapshot, TermId, Transaction};
use parking_lot::RwLock;

use crate::model::RDF_TYPE;
const RDFS_SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";

/// Graphs with at most this many quads are always validated whole: it is as fast as
/// finding the neighbourhood, and exact whatever the shapes.
const WHOLE_GRAPH_MAX_QUADS: usize = 20_000;
/// Above this many affected focus nodes, or this many quads in their neighbourhood, the
/// whole graph is validated instead (and past the node limit every result counts).
const MAX_AFFECTED_NODES: usize = 200_000;
const MAX_NEIGHBOURHOOD_QUADS: usize = 1_000_000;
/// Steps taken from the touched nodes along the shapes' properties to find affected ones.
const AFFECTED_HOPS: usize = 2;
/// Steps taken forward from the affected nodes to gather the data their validation reads.
const DATA_HOPS: usize = 3;

/// The shapes a graph enforces, as of a commit.
#[derive(Clone, Debug)]
pub struct ActiveShapes {
    pub shapes: Arc<Shapes>,
    pub mode: ValidationMode,
    /// The commit that last changed the shapes graph.
    pub published_seq: CommitSeq,
}

/// What validating one commit found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitValidation {
    pub mode: ValidationMode,
    /// The commit that published the shapes used.
    pub shapes_seq: CommitSeq,
    /// True when the whole graph was validated (shapes changed, or a wide change).
    pub whole_graph: bool,
    /// Focus nodes validated (every node of the graph when `whole_graph`).
    pub focus_nodes_checked: usize,
    pub report: Report,
}

/// The latest report over the whole graph.
#[derive(Clone, Debug)]
pub struct Conformance {
    pub report: Report,
    pub validated_at_seq: CommitSeq,
    pub shapes_seq: CommitSeq,
    pub mode: ValidationMode,
}

/// What publishing shapes would do, computed without writing.
#[derive(Clone, Debug)]
pub struct ShapesPreview {
    pub shapes: Arc<Shapes>,
    /// Classes named by the shapes that neither the ontology nor the data know.
    pub unknown_classes: Vec<NamedNode>,
    /// Properties named by the shapes that neither the ontology nor the data use.
    pub unknown_properties: Vec<NamedNode>,
    /// The current data validated against the new shapes.
    pub report: Report,
    pub validated_at_seq: CommitSeq,
}

/// A graph's SHACL state, guarded by the writer lock for changes.
#[derive(Default)]
struct ShaclState {
    active: Option<ActiveShapes>,
    conformance: Option<Arc<Conformance>>,
}

/// A graph's SHACL part: the shapes in force and the conformance report, kept in step
/// with the commits. It sees the graph only through the snapshots and transactions it is
/// handed.
#[derive(Default)]
pub(crate) struct ShaclPart {
    state: RwLock<ShaclState>,
}

/// The outcome of checking a transaction, applied to the state once the commit lands.
pub(crate) struct Checked {
    pub validation: Option<CommitValidation>,
    /// `Some(new)` when the commit changes the shapes graph (`Some(None)`: removes them).
    pub new_shapes: Option<Option<ActiveShapes>>,
    /// Focus nodes whose results `validation` replaces in the conformance report.
    pub affected: Option<BTreeSet<String>>,
    /// The whole graph's report when it was validated whole (replaces the conformance
    /// report outright).
    pub whole: Option<Report>,
}

pub(crate) fn shapes_graph_name() -> NamedNode {
    NamedNode::new_unchecked(SHAPES_GRAPH)
}

fn id_of(snapshot: &Snapshot, iri: &str) -> Option<TermId> {
    snapshot.lookup(&Term::NamedNode(NamedNode::new_unchecked(iri)))
}

/// The shapes graph's triples and mode at a snapshot.
fn read_shapes_graph(
    snapshot: &Snapshot,
) -> Result<Option<(Vec<Triple>, ValidationMode)>, EngineError> {
    let triples = snapshot.graph_triples(&shapes_graph_name());
    if triples.is_empty() {
        return Ok(None);
    }
    let mut mode = ValidationMode::default();
    for t in &triples {
        if t.predicate.as_str() == VALIDATION_MODE {
            let text = match &t.object {
                Term::Literal(l) => l.value().to_owned(),
                other => other.to_string(),
            };
            mode = ValidationMode::parse(&text).ok_or_else(|| EngineError::InvalidShapes {
                message: format!(
                    "strata:validationMode is {text:?}; it must be \"off\", \"warn\" or \"reject\""
                ),
            })?;
        }
    }
    Ok(Some((triples, mode)))
}

/// The quads that publish `triples` as the shapes graph with `mode`.
pub(crate) fn shapes_graph_quads(triples: &[Triple], mode: ValidationMode) -> Vec<Quad> {
    let graph = RdfGraphName::NamedNode(shapes_graph_name());
    let mut quads: Vec<Quad> = triples
        .iter()
        .filter(|t| t.predicate.as_str() != VALIDATION_MODE)
        .map(|t| t.clone().in_graph(graph.clone()))
        .collect();
    quads.push(Quad::new(
        shapes_graph_name(),
        NamedNode::new_unchecked(VALIDATION_MODE),
        Literal::new_simple_literal(mode.name()),
        graph,
    ));
    quads
}

impl ShaclPart {
    /// Loads the shapes in force at the head (called once at open).
    pub(crate) fn load(&self, head: &Snapshot, graph_name: &str) {
        let active = shapes_in(head).unwrap_or_else(|e| {
            tracing::warn!(graph = %graph_name, error = %e, "ignoring shapes that no longer compile");
            None
        });
        self.state.write().active = active;
    }

    /// Follows a commit checked on another node of a cluster: the new shapes when it
    /// changed them; the conformance report is recomputed when next asked for.
    pub(crate) fn follow(&self, after: &Snapshot, shapes_changed: bool, graph_name: &str) {
        if shapes_changed {
            self.load(after, graph_name);
        }
        self.state.write().conformance = None;
    }

    /// The shapes in force at the head, if any.
    pub(crate) fn active(&self) -> Option<ActiveShapes> {
        self.state.read().active.clone()
    }

    /// Checks a transaction against the shapes (called under the writer lock, before the
    /// commit is written). Changes nothing.
    pub(crate) fn check(&self, txn: &mut Transaction) -> Result<Checked, EngineError> {
        let shapes_id = txn.lookup(&Term::NamedNode(shapes_graph_name()));
        let shapes_changed = shapes_id.is_some_and(|g| txn.changed().any(|k| k[3] == g));
        let active = self.state.read().active.clone();
        let enforced = active
            .as_ref()
            .is_some_and(|a| a.mode != ValidationMode::Off && !a.shapes.is_empty());
        if !shapes_changed && !enforced {
            // Nothing to check: skip building the post-commit view (a bulk import's
            // changes stay a plain vector).
            return Ok(Checked::nothing());
        }
        let changed: Vec<QuadKey> = txn.changed().copied().collect();
        let post = txn.snapshot();
        let seq = txn.base_seq() + 1;
        if shapes_changed {
            let active = shapes_in(&post)?.map(|mut a| {
                a.published_seq = seq;
                a
            });
            let validation = match &active {
                Some(a) if !a.shapes.is_empty() => {
                    let (report, nodes) = validate_whole(&post, &a.shapes)?;
                    Some(CommitValidation {
                        mode: a.mode,
                        shapes_seq: seq,
                        whole_graph: true,
                        focus_nodes_checked: nodes,
                        report,
                    })
                }
                _ => None,
            };
            return Ok(Checked {
                validation,
                new_shapes: Some(active),
                affected: None,
                whole: None,
            });
        }
        let Some(active) = active else {
            return Ok(Checked::nothing());
        };
        let check = validate_changes(&post, &active.shapes, &changed)?;
        let validation = CommitValidation {
            mode: active.mode,
            shapes_seq: active.published_seq,
            whole_graph: check.whole.is_some(),
            focus_nodes_checked: check.affected.as_ref().map_or(0, BTreeSet::len),
            report: check.report,
        };
        if active.mode == ValidationMode::Reject && validation.report.has_violations() {
            return Err(EngineError::ShaclViolation {
                validation: Box::new(validation),
            });
        }
        Ok(Checked {
            validation: Some(validation),
            new_shapes: None,
            affected: check.affected,
            whole: check.whole,
        })
    }

    /// Records what a landed commit's check found (under the writer lock, in commit
    /// order, so the conformance report follows the commits exactly).
    pub(crate) fn apply(&self, seq: CommitSeq, checked: &Checked) {
        let mut state = self.state.write();
        if let Some(new_shapes) = &checked.new_shapes {
            state.active = new_shapes.clone();
            state.conformance = match (&state.active, &checked.validation) {
                (Some(a), Some(v)) => Some(Arc::new(Conformance {
                    report: v.report.clone(),
                    validated_at_seq: seq,
                    shapes_seq: a.published_seq,
                    mode: a.mode,
                })),
                _ => None,
            };
            return;
        }
        let Some(current) = state.conformance.clone() else {
            if let (Some(whole), Some(active)) = (&checked.whole, &state.active) {
                state.conformance = Some(Arc::new(Conformance {
                    report: whole.clone(),
                    validated_at_seq: seq,
                    shapes_seq: active.published_seq,
                    mode: active.mode,
                }));
            }
            return;
        };
        if current.validated_at_seq + 1 != seq {
            // Stale already: recomputed whole when next asked for.
            state.conformance = None;
            return;
        }
        let report = match (&checked.validation, &checked.whole, &checked.affected) {
            (Some(_), Some(whole), _) => whole.clone(),
            (Some(v), None, None) => v.report.clone(),
            (Some(v), None, Some(nodes)) => current.report.replace_focus_nodes(nodes, &v.report),
            // Mode off: this commit was not validated, so the report no longer follows.
            (None, _, _) => {
                state.conformance = None;
                return;
            }
        };
        state.conformance = Some(Arc::new(Conformance {
            report,
            validated_at_seq: seq,
            shapes_seq: current.shapes_seq,
            mode: current.mode,
        }));
    }

    /// The latest whole-graph report: kept current by commits, recomputed when stale.
    /// `None` when the graph has no shapes.
    pub(crate) fn conformance(
        &self,
        snapshot: &Snapshot,
    ) -> Result<Option<Arc<Conformance>>, EngineError> {
        let head = snapshot.seq();
        {
            let state = self.state.read();
            if state.active.is_none() {
                return Ok(None);
            }
            if let Some(c) = &state.conformance
                && c.validated_at_seq == head
            {
                return Ok(Some(c.clone()));
            }
        }
        let Some(active) = shapes_in(snapshot)? else {
            return Ok(None);
        };
        let (report, _) = validate_whole(snapshot, &active.shapes)?;
        let conformance = Arc::new(Conformance {
            report,
            validated_at_seq: head,
            shapes_seq: active.published_seq,
            mode: active.mode,
        });
        let mut state = self.state.write();
        let newer = state
            .conformance
            .as_ref()
            .is_some_and(|c| c.validated_at_seq > head);
        if !newer {
            state.conformance = Some(conformance.clone());
        }
        Ok(Some(conformance))
    }

    /// Validation of a transaction that will not be committed (dry runs). A rejection is
    /// returned as a report, not as an error.
    pub(crate) fn check_pending(
        &self,
        txn: &mut Transaction,
    ) -> Result<Option<CommitValidation>, EngineError> {
        if txn.is_empty() {
            return Ok(None);
        }
        match self.check(txn) {
            Ok(checked) => Ok(checked.validation),
            Err(EngineError::ShaclViolation { validation }) => Ok(Some(*validation)),
            Err(e) => Err(e),
        }
    }
}

/// The shapes in force at a snapshot (their mode included), if any.
pub(crate) fn shapes_in(snapshot: &Snapshot) -> Result<Option<ActiveShapes>, EngineError> {
    let Some((triples, mode)) = read_shapes_graph(snapshot)? else {
        return Ok(None);
    };
    let shapes = Shapes::from_triples(triples).map_err(EngineError::from)?;
    let published_seq = id_of(snapshot, SHAPES_GRAPH)
        .map(|g| {
            snapshot
                .history(Pattern {
                    subject: None,
                    predicate: None,
                    object: None,
                    graph: GraphFilter::Is(g),
                })
                .into_iter()
                .map(|(_, added, removed)| removed.unwrap_or(added).max(added))
                .max()
                .unwrap_or(0)
        })
        .unwrap_or(0);
    Ok(Some(ActiveShapes {
        shapes: Arc::new(shapes),
        mode,
        published_seq,
    }))
}

/// Validates a snapshot's data against `shapes` (any shapes: published or not).
pub(crate) fn validate(snapshot: &Snapshot, shapes: &Shapes) -> Result<Report, EngineError> {
    Ok(validate_whole(snapshot, shapes)?.0)
}

/// Compiles shapes and validates a snapshot's data against them, writing nothing: what
/// publishing them would find. Also names the classes and properties they mention that
/// neither the ontology nor the data know.
pub(crate) fn preview(
    snapshot: &Snapshot,
    triples: Vec<Triple>,
) -> Result<ShapesPreview, EngineError> {
    let shapes = Shapes::from_triples(triples)?;
    let (unknown_classes, unknown_properties) = unknown_names(snapshot, &shapes);
    let (report, _) = validate_whole(snapshot, &shapes)?;
    Ok(ShapesPreview {
        shapes: Arc::new(shapes),
        unknown_classes,
        unknown_properties,
        report,
        validated_at_seq: snapshot.seq(),
    })
}

impl Checked {
    fn nothing() -> Self {
        Self {
            validation: None,
            new_shapes: None,
            affected: None,
            whole: None,
        }
    }
}

/// Every quad of the data graph (all graphs but the shapes graph) as triples.
fn data_triples(snapshot: &Snapshot) -> Vec<Triple> {
    let shapes_id = id_of(snapshot, SHAPES_GRAPH);
    let dict = snapshot.dict();
    snapshot
        .quads(Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: GraphFilter::All,
        })
        .filter(|k| Some(k[3]) != shapes_id)
        .filter_map(|k| dict.quad(&k))
        .map(Triple::from)
        .collect()
}

/// Validates the whole data graph: `(report, distinct focus nodes in it)`.
fn validate_whole(snapshot: &Snapshot, shapes: &Shapes) -> Result<(Report, usize), EngineError> {
    let triples = data_triples(snapshot);
    let nodes: FxHashSet<&crate::model::NamedOrBlankNode> =
        triples.iter().map(|t| &t.subject).collect();
    let node_count = nodes.len();
    let report = shacl::validate(shapes, triples.iter().map(Triple::as_ref))?;
    Ok((report, node_count))
}

/// What validating a commit's changes found.
struct ChangeCheck {
    /// Results about the affected focus nodes (all results when `affected` is `None`).
    report: Report,
    /// The whole graph's report, when the whole graph had to be validated.
    whole: Option<Report>,
    /// The affected focus nodes; `None` when they could not be bounded (every node).
    affected: Option<BTreeSet<String>>,
}

/// Validates what `changed` can affect: the whole graph when it is small or the change is
/// wide, else the neighbourhood of the affected focus nodes. Either way only results
/// about affected nodes count for the commit, so violations a commit does not touch never
/// block it.
fn validate_changes(
    post: &Snapshot,
    shapes: &Shapes,
    changed: &[QuadKey],
) -> Result<ChangeCheck, EngineError> {
    let affected_ids = affected_nodes(post, shapes, changed);
    let dict = post.dict();
    let affected: Option<BTreeSet<String>> = affected_ids.as_ref().map(|ids| {
        ids.iter()
            .filter_map(|&id| dict.term(id))
            .map(|t| t.to_string())
            .collect()
    });
    let subclass = id_of(post, RDFS_SUBCLASS);
    let whole_graph = affected_ids.is_none()
        || shapes.unbounded_paths
        || changed.iter().any(|k| Some(k[1]) == subclass)
        || post_size_at_most(post, WHOLE_GRAPH_MAX_QUADS);
    let neighbourhood = match (&affected_ids, whole_graph) {
        (Some(ids), false) => neighbourhood(post, shapes, ids),
        _ => None,
    };
    let (report, whole) = match neighbourhood {
        Some(triples) => (
            shacl::validate(shapes, triples.iter().map(Triple::as_ref))?,
            None,
        ),
        None => {
            let (report, _) = validate_whole(post, shapes)?;
            (report.clone(), Some(report))
        }
    };
    let report = match &affected {
        None => report,
        Some(focus) => Report::from_results(
            report
                .results
                .into_iter()
                .filter(|r| focus.contains(&r.focus_node.to_string()))
                .collect(),
        ),
    };
    Ok(ChangeCheck {
        report,
        whole,
        affected,
    })
}

/// The focus nodes a change can affect: the subjects it touches, the objects it links
/// (a new incoming link matters to inverse paths), instances of classes whose
/// `rdfs:subClassOf` changed, then neighbours within `AFFECTED_HOPS` steps along the
/// properties the shapes name. `None` when there are too many to bound.
fn affected_nodes(
    post: &Snapshot,
    shapes: &Shapes,
    changed: &[QuadKey],
) -> Option<FxHashSet<TermId>> {
    let shapes_id = id_of(post, SHAPES_GRAPH);
    let type_id = id_of(post, RDF_TYPE);
    let subclass = id_of(post, RDFS_SUBCLASS);
    let is_node = |id: TermId| is_node(post, id);
    let mut affected: FxHashSet<TermId> = FxHashSet::default();
    let mut classes: Vec<TermId> = Vec::new();
    for k in changed {
        if Some(k[3]) == shapes_id {
            continue;
        }
        affected.insert(k[0]);
        if Some(k[1]) == subclass {
            classes.push(k[0]);
        } else if Some(k[1]) != type_id && is_node(k[2]) {
            // A class gaining an instance does not change the class's own validity.
            affected.insert(k[2]);
        }
    }
    // A class whose super classes changed: its instances and its subclasses' instances
    // may gain or lose targets and `sh:class` matches.
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    while let Some(class) = classes.pop() {
        if !seen.insert(class) {
            continue;
        }
        if let Some(t) = type_id {
            affected.extend(
                post.quads(pattern(None, Some(t), Some(class)))
                    .map(|k| k[0]),
            );
        }
        if let Some(sc) = subclass {
            classes.extend(
                post.quads(pattern(None, Some(sc), Some(class)))
                    .map(|k| k[0]),
            );
        }
        if affected.len() > MAX_AFFECTED_NODES {
            return None;
        }
    }
    let properties: Vec<TermId> = shapes
        .properties
        .iter()
        .filter_map(|p| post.lookup(&Term::NamedNode(p.clone())))
        .collect();
    let mut frontier: Vec<TermId> = affected.iter().copied().collect();
    for _ in 0..AFFECTED_HOPS {
        let mut next = Vec::new();
        for &node in &frontier {
            for &p in &properties {
                for k in post.quads(pattern(None, Some(p), Some(node))) {
                    if affected.insert(k[0]) {
                        next.push(k[0]);
                    }
                }
                for k in post.quads(pattern(Some(node), Some(p), None)) {
                    if is_node(k[2]) && affected.insert(k[2]) {
                        next.push(k[2]);
                    }
                }
            }
            if affected.len() > MAX_AFFECTED_NODES {
                return None;
            }
        }
        frontier = next;
    }
    Some(affected)
}

/// The data the validation of `affected` reads: everything they say, what points at them
/// along the shapes' properties, what their values say a few steps out, and the class
/// hierarchy. `None` when it grows past `MAX_NEIGHBOURHOOD_QUADS` (validate whole then).
fn neighbourhood(
    post: &Snapshot,
    shapes: &Shapes,
    affected: &FxHashSet<TermId>,
) -> Option<Vec<Triple>> {
    let shapes_id = id_of(post, SHAPES_GRAPH);
    let type_id = id_of(post, RDF_TYPE);
    let dict = post.dict();
    let is_node = |id: TermId| is_node(post, id);
    let properties: Vec<TermId> = shapes
        .properties
        .iter()
        .filter_map(|p| post.lookup(&Term::NamedNode(p.clone())))
        .collect();
    let mut keys: FxHashSet<QuadKey> = FxHashSet::default();
    let mut visited: FxHashSet<TermId> = affected.clone();
    let mut frontier: Vec<TermId> = affected.iter().copied().collect();
    for &node in &frontier {
        for &p in &properties {
            keys.extend(post.quads(pattern(None, Some(p), Some(node))));
        }
    }
    for _ in 0..DATA_HOPS {
        let mut next = Vec::new();
        for &node in &frontier {
            for k in post.quads(pattern(Some(node), None, None)) {
                if is_node(k[2]) && visited.insert(k[2]) {
                    next.push(k[2]);
                }
                keys.insert(k);
            }
            if keys.len() > MAX_NEIGHBOURHOOD_QUADS {
                return None;
            }
        }
        frontier = next;
    }
    // The last ring's own types (for sh:class on values of values).
    if let Some(t) = type_id {
        for &node in &frontier {
            keys.extend(post.quads(pattern(Some(node), Some(t), None)));
        }
    }
    if let Some(sc) = id_of(post, RDFS_SUBCLASS) {
        keys.extend(post.quads(pattern(None, Some(sc), None)));
    }
    Some(
        keys.into_iter()
            .filter(|k| Some(k[3]) != shapes_id)
            .filter_map(|k| dict.quad(&k))
            .map(Triple::from)
            .collect(),
    )
}

/// True when `id` is an IRI or a blank node (a possible focus node), not a literal.
fn is_node(snapshot: &Snapshot, id: TermId) -> bool {
    id != DEFAULT_GRAPH
        && snapshot
            .dict()
            .term(id)
            .is_some_and(|t| matches!(t, Term::NamedNode(_) | Term::BlankNode(_)))
}

fn pattern(subject: Option<TermId>, predicate: Option<TermId>, object: Option<TermId>) -> Pattern {
    Pattern {
        subject,
        predicate,
        object,
        graph: GraphFilter::All,
    }
}

/// True when the snapshot holds at most `limit` quads (counts no further than that).
fn post_size_at_most(snapshot: &Snapshot, limit: usize) -> bool {
    snapshot
        .quads(pattern(None, None, None))
        .take(limit + 1)
        .count()
        <= limit
}

/// Classes and properties the shapes name that neither the ontology nor the data know.
fn unknown_names(snapshot: &Snapshot, shapes: &Shapes) -> (Vec<NamedNode>, Vec<NamedNode>) {
    let known_namespaces = [
        "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
        "http://www.w3.org/2000/01/rdf-schema#",
        "http://www.w3.org/2002/07/owl#",
        "http://www.w3.org/2001/XMLSchema#",
        "http://www.w3.org/ns/shacl#",
    ];
    let builtin = |n: &NamedNode| known_namespaces.iter().any(|ns| n.as_str().starts_with(ns));
    let id = |n: &NamedNode| snapshot.lookup(&Term::NamedNode(n.clone()));
    let any = |p: Pattern| snapshot.quads(p).next().is_some();
    let type_id = id_of(snapshot, RDF_TYPE);
    let subclass = id_of(snapshot, RDFS_SUBCLASS);
    let classes = shapes
        .classes
        .iter()
        .filter(|c| !builtin(c))
        .filter(|c| match id(c) {
            None => true,
            Some(c) => {
                !(type_id.is_some_and(|t| any(pattern(None, Some(t), Some(c))))
                    || any(pattern(Some(c), type_id, None))
                    || subclass.is_some_and(|s| any(pattern(None, Some(s), Some(c)))))
            }
        })
        .cloned()
        .collect();
    let properties = shapes
        .properties
        .iter()
        .filter(|p| !builtin(p))
        .filter(|p| match id(p) {
            None => true,
            Some(p) => !(any(pattern(None, Some(p), None)) || any(pattern(Some(p), None, None))),
        })
        .cloned()
        .collect();
    (classes, properties)
}
