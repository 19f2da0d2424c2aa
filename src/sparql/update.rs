//! SPARQL 1.1 Update: every operation of a request is applied, in order, to one
//! `Transaction`, so later operations see earlier ones and the whole request becomes at
//! most one commit.

use std::collections::HashMap;

use rustc_hash::FxHashSet;
use spareval::{CancellationToken, DeleteInsertQuad, QueryEvaluationError, QueryEvaluator};
use spargebra::GraphUpdateOperation;
use spargebra::algebra::GraphPattern;
use spargebra::algebra::GraphTarget;
use spargebra::algebra::QueryDataset;
use spargebra::term::GroundQuad;
use spargebra::term::NamedNodePattern;

use super::QueryError;
use super::dataset::SnapshotDataset;
use super::query::evaluation_error;
use crate::model::{BlankNode, NamedNode, Quad, RdfGraphName, Term, with_fresh_blank_nodes};
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, QuadKey, Snapshot, Transaction};

/// How to run an update beyond its text.
#[derive(Clone, Default)]
pub struct UpdateOptions {
    /// SPARQL Protocol `using-graph-uri`: the default graph of every WHERE clause.
    pub using_graph_uris: Vec<NamedNode>,
    /// SPARQL Protocol `using-named-graph-uri`.
    pub using_named_graph_uris: Vec<NamedNode>,
    pub cancellation: CancellationToken,
    /// Governs the evaluation of each WHERE clause (its memory limit); the engine sets it.
    pub governor: Option<std::sync::Arc<super::Governor>>,
}

/// A parsed update, with what spargebra's rewriting of `ADD`, `COPY` and `MOVE` into other
/// operations loses: which copy came from which of them, and whether it was `SILENT`. A
/// copy from a graph that does not exist is an error unless it was (SPARQL 1.1 Update,
/// 3.2.3–3.2.5); a hand-written `INSERT … WHERE` of the same shape is not.
pub struct Update {
    update: spargebra::Update,
    /// For each operation: the `ADD`/`COPY`/`MOVE` its copy step came from.
    graph_copies: Vec<Option<GraphCopy>>,
}

impl std::ops::Deref for Update {
    type Target = spargebra::Update;
    fn deref(&self) -> &spargebra::Update {
        &self.update
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct GraphCopy {
    verb: &'static str,
    silent: bool,
}

/// Parses an update, resolving relative IRIs against `base_iri`.
pub fn parse_update(text: &str, base_iri: Option<&str>) -> Result<Update, QueryError> {
    let text = super::query::without_bom(text);
    super::limits::check_text(text)?;
    let parser = super::query::parser(base_iri)?;
    let update = match parser.clone().parse_update(text) {
        Ok(update) => update,
        Err(error) => match parse_with_later_prologues(text, &parser) {
            Some(update) => update,
            None => {
                let query = parser.parse_query(text).is_ok();
                return Err(super::query::syntax_error(
                    text,
                    error,
                    query.then_some(super::query::SENT_AS_UPDATE),
                ));
            }
        },
    };
    super::limits::check_update(&update)?;
    let graph_copies = graph_copies(text, &update.operations);
    Ok(Update {
        update,
        graph_copies,
    })
}

/// SPARQL lets every operation of an update start with a prologue (`…; PREFIX e: <…>
/// INSERT …`, as rdflib writes a batch of updates), which spargebra's parser takes only at
/// the start. Such a text is parsed an operation at a time, each after the prologues
/// before it. `None` when that is not the problem (or does not help).
fn parse_with_later_prologues(
    text: &str,
    parser: &spargebra::SparqlParser,
) -> Option<spargebra::Update> {
    let operations = super::lexer::update_operations(text);
    if !operations
        .iter()
        .skip(1)
        .any(|o| !o.prologue().trim().is_empty())
    {
        return None;
    }
    let mut prologues = String::new();
    let mut whole = spargebra::Update {
        base_iri: None,
        operations: Vec::new(),
    };
    for operation in &operations {
        let part = format!("{prologues}{}", operation.text);
        let parsed = parser.clone().parse_update(&part).ok()?;
        whole.base_iri = parsed.base_iri;
        whole.operations.extend(parsed.operations);
        prologues.push_str(operation.prologue());
        prologues.push('\n');
    }
    Some(whole)
}

/// Matches the operations of the text (`lexer::update_operations`) to spargebra's
/// rewriting of them: `ADD` is one copy step, `COPY` a silent `DROP` of the target and a
/// copy, `MOVE` those and a `DROP` of the source; from a graph to itself, nothing. If the
/// two ever disagree, no copy is marked (the lenient reading of before).
fn graph_copies(text: &str, operations: &[GraphUpdateOperation]) -> Vec<Option<GraphCopy>> {
    let mut marks = vec![None; operations.len()];
    let mut next = 0;
    for operation in super::lexer::update_operations(text) {
        let mut words = operation.body_words().iter().copied();
        let Some(verb) = words.next() else { continue };
        let (verb, drop_before, drop_after) = match verb.to_ascii_uppercase().as_str() {
            "ADD" => ("ADD", false, false),
            "COPY" => ("COPY", true, false),
            "MOVE" => ("MOVE", true, true),
            _ => {
                next += 1;
                continue;
            }
        };
        // `[SILENT] source TO target`, each `DEFAULT` or `[GRAPH] iri`.
        let words: Vec<&str> = words.filter(|w| !w.eq_ignore_ascii_case("GRAPH")).collect();
        let silent = words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("SILENT"));
        let refs = &words[usize::from(silent)..];
        if let [source, to, target] = refs
            && to.eq_ignore_ascii_case("TO")
            && (source == target
                || source.eq_ignore_ascii_case("DEFAULT") && target.eq_ignore_ascii_case("DEFAULT"))
        {
            continue; // From a graph to itself: spargebra leaves nothing.
        }
        let at = |i: usize| operations.get(i);
        let is_drop = |op: Option<&GraphUpdateOperation>| {
            matches!(op, Some(GraphUpdateOperation::Drop { silent: true, .. }))
        };
        let copy_at = next + usize::from(drop_before);
        let shaped = (!drop_before || is_drop(at(next)))
            && at(copy_at).is_some_and(|op| copy_source(op).is_some())
            && (!drop_after || matches!(at(copy_at + 1), Some(GraphUpdateOperation::Drop { .. })));
        if !shaped {
            break;
        }
        marks[copy_at] = Some(GraphCopy { verb, silent });
        next = copy_at + 1 + usize::from(drop_after);
    }
    if next == operations.len() {
        marks
    } else {
        vec![None; operations.len()]
    }
}

/// The graph a copy step of spargebra's reads (`Some(None)`: the default graph), or
/// `None` when the operation is not shaped like one.
fn copy_source(operation: &GraphUpdateOperation) -> Option<Option<&NamedNode>> {
    let GraphUpdateOperation::DeleteInsert {
        delete,
        insert,
        using: None,
        pattern,
    } = operation
    else {
        return None;
    };
    if !delete.is_empty() || insert.len() != 1 {
        return None;
    }
    match pattern.as_ref() {
        GraphPattern::Bgp { patterns } if patterns.len() == 1 => Some(None),
        GraphPattern::Graph {
            name: NamedNodePattern::NamedNode(name),
            inner,
        } if matches!(inner.as_ref(), GraphPattern::Bgp { patterns } if patterns.len() == 1) => {
            Some(Some(name))
        }
        _ => None,
    }
}

/// Applies every operation of `update` to `txn`. On error, the transaction must be
/// dropped: nothing of the request is committed.
pub fn apply_update(
    txn: &mut Transaction,
    update: &Update,
    options: &UpdateOptions,
) -> Result<(), QueryError> {
    let mut graphs = KnownGraphs::default();
    for (operation, copy) in update.operations.iter().zip(&update.graph_copies) {
        if options.cancellation.is_cancelled() {
            return Err(QueryError::Cancelled);
        }
        if let Some(GraphCopy {
            verb,
            silent: false,
        }) = copy
            && let Some(Some(source)) = copy_source(operation)
            && !graphs.exists(txn, source)
        {
            return Err(QueryError::Update(format!(
                "{verb} GRAPH <{}>: the source graph does not exist",
                source.as_str()
            )));
        }
        match operation {
            GraphUpdateOperation::InsertData { data } => {
                // Blank nodes of INSERT DATA are fresh for each operation.
                let mut fresh: HashMap<BlankNode, BlankNode> = HashMap::new();
                for quad in data {
                    let graph_name = match &quad.graph_name {
                        spargebra::term::GraphName::NamedNode(node) => node.clone().into(),
                        spargebra::term::GraphName::DefaultGraph => RdfGraphName::DefaultGraph,
                    };
                    let quad = Quad::new(
                        quad.subject.clone(),
                        quad.predicate.clone(),
                        quad.object.clone(),
                        graph_name,
                    );
                    let quad = with_fresh_blank_nodes(quad, &mut fresh);
                    let key = intern_quad(txn, quad);
                    txn.insert(key);
                }
            }
            GraphUpdateOperation::DeleteData { data } => {
                for quad in data {
                    if let Some(key) = lookup_ground_quad(txn, quad) {
                        txn.delete(key);
                    }
                }
            }
            GraphUpdateOperation::DeleteInsert {
                delete,
                insert,
                using,
                pattern,
            } => {
                let using = using.clone().or_else(|| protocol_dataset(options));
                // The WHERE clause is a query: it gets a query's memory limit (not the
                // heavy-query slots: the writer lock is held here).
                let governed = options
                    .governor
                    .as_ref()
                    .map(|g| g.start_unthrottled(&options.cancellation));
                let token = governed
                    .as_ref()
                    .map_or_else(|| options.cancellation.clone(), |(_, t)| t.clone());
                let stopped = |error: QueryEvaluationError| match &governed {
                    Some((guard, _)) if guard.out_of_memory() => {
                        QueryError::MemoryLimit(guard.memory_limit().unwrap_or_default())
                    }
                    _ => evaluation_error(error),
                };
                let evaluator = QueryEvaluator::new().with_cancellation_token(token);
                let changes: Vec<DeleteInsertQuad> = evaluator
                    .prepare_delete_insert(
                        delete.clone(),
                        insert.clone(),
                        update.base_iri.clone(),
                        using,
                        pattern,
                    )
                    .execute(SnapshotDataset::new(txn.snapshot()))
                    .map_err(stopped)?
                    .collect::<Result<_, _>>()
                    .map_err(stopped)?;
                drop(governed);
                // All deletes happen before all inserts (SPARQL 1.1 Update, 3.1.3).
                for change in &changes {
                    if let DeleteInsertQuad::Delete(quad) = change
                        && let Some(key) = lookup_quad(txn, quad)
                    {
                        txn.delete(key);
                    }
                }
                for change in changes {
                    if let DeleteInsertQuad::Insert(quad) = change {
                        let key = intern_quad(txn, quad);
                        txn.insert(key);
                    }
                }
            }
            GraphUpdateOperation::Load { silent, source, .. } => {
                if !silent {
                    return Err(QueryError::Unsupported(format!(
                        "LOAD <{}> is refused: this server does not fetch remote documents; import the file instead",
                        source.as_str()
                    )));
                }
            }
            GraphUpdateOperation::Clear { silent, graph } => {
                check_graph_exists(txn, graph, *silent, &graphs, "CLEAR")?;
                clear(txn, graph);
            }
            GraphUpdateOperation::Create { silent, graph } => {
                if graphs.exists(txn, graph) && !silent {
                    return Err(QueryError::Update(format!(
                        "CREATE GRAPH <{}>: the graph already exists",
                        graph.as_str()
                    )));
                }
                graphs.create(graph);
            }
            GraphUpdateOperation::Drop { silent, graph } => {
                check_graph_exists(txn, graph, *silent, &graphs, "DROP")?;
                clear(txn, graph);
                graphs.drop(graph);
            }
        }
    }
    Ok(())
}

fn protocol_dataset(options: &UpdateOptions) -> Option<QueryDataset> {
    if options.using_graph_uris.is_empty() && options.using_named_graph_uris.is_empty() {
        return None;
    }
    Some(QueryDataset {
        default: options.using_graph_uris.clone(),
        named: Some(options.using_named_graph_uris.clone()),
    })
}

/// Which named graphs exist for the operations of one request. A graph exists while it
/// holds quads; this store keeps no empty graph between requests, but within one a graph
/// outlives its quads as SPARQL's do: one the request CREATEd, or one that held quads
/// when the request began (emptied since by CLEAR or deletes), exists until it is DROPped.
#[derive(Default)]
struct KnownGraphs {
    created: FxHashSet<NamedNode>,
    dropped: FxHashSet<NamedNode>,
    /// `DROP NAMED` or `DROP ALL` ran: no graph of the start exists unless made again.
    all_dropped: bool,
}

impl KnownGraphs {
    fn exists(&self, txn: &mut Transaction, graph: &NamedNode) -> bool {
        if self.created.contains(graph) || graph_has_quads(&txn.snapshot(), txn, graph) {
            return true;
        }
        !self.all_dropped
            && !self.dropped.contains(graph)
            && graph_has_quads(txn.base(), txn, graph)
    }

    fn create(&mut self, graph: &NamedNode) {
        self.created.insert(graph.clone());
        self.dropped.remove(graph);
    }

    fn drop(&mut self, target: &GraphTarget) {
        match target {
            GraphTarget::NamedNode(name) => {
                self.created.remove(name);
                self.dropped.insert(name.clone());
            }
            GraphTarget::NamedGraphs | GraphTarget::AllGraphs => {
                self.created.clear();
                self.dropped.clear();
                self.all_dropped = true;
            }
            GraphTarget::DefaultGraph => {}
        }
    }
}

fn check_graph_exists(
    txn: &mut Transaction,
    graph: &GraphTarget,
    silent: bool,
    graphs: &KnownGraphs,
    verb: &str,
) -> Result<(), QueryError> {
    if let GraphTarget::NamedNode(name) = graph
        && !silent
        && !graphs.exists(txn, name)
    {
        return Err(QueryError::Update(format!(
            "{verb} GRAPH <{}>: the graph does not exist",
            name.as_str()
        )));
    }
    Ok(())
}

fn graph_has_quads(snapshot: &Snapshot, txn: &Transaction, graph: &NamedNode) -> bool {
    let Some(id) = txn.lookup(&Term::from(graph.clone())) else {
        return false;
    };
    snapshot
        .quads(Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph: GraphFilter::Is(id),
        })
        .next()
        .is_some()
}

fn clear(txn: &mut Transaction, target: &GraphTarget) {
    let graph = match target {
        GraphTarget::NamedNode(name) => match txn.lookup(&Term::from(name.clone())) {
            Some(id) => GraphFilter::Is(id),
            None => return,
        },
        GraphTarget::DefaultGraph => GraphFilter::Is(DEFAULT_GRAPH),
        GraphTarget::NamedGraphs => GraphFilter::AnyNamed,
        GraphTarget::AllGraphs => GraphFilter::All,
    };
    let keys: Vec<QuadKey> = txn
        .snapshot()
        .quads(Pattern {
            subject: None,
            predicate: None,
            object: None,
            graph,
        })
        .collect();
    for key in keys {
        txn.delete(key);
    }
}

/// Interns a quad's terms (inserts may bring new terms).
fn intern_quad(txn: &Transaction, quad: Quad) -> QuadKey {
    txn.base().dict().intern_quad(quad)
}

/// The key of a quad whose terms are all known; `None` means the quad cannot be present.
fn lookup_quad(txn: &Transaction, quad: &Quad) -> Option<QuadKey> {
    txn.base().dict().lookup_quad(quad)
}

fn lookup_ground_quad(txn: &Transaction, quad: &GroundQuad) -> Option<QuadKey> {
    let subject: Term = quad.subject.clone().into();
    let object: Term = quad.object.clone().into();
    Some([
        txn.lookup(&subject)?,
        txn.lookup(&Term::from(quad.predicate.clone()))?,
        txn.lookup(&object)?,
        match &quad.graph_name {
            spargebra::term::GraphName::DefaultGraph => DEFAULT_GRAPH,
            spargebra::term::GraphName::NamedNode(node) => txn.lookup(&Term::from(node.clone()))?,
        },
    ])
}
