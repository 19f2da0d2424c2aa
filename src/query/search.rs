//! Search over MCP: the `embeddings` tool (declare, list, get, preview, refresh, delete)
//! and the `query` tool's `search` mode (text or vector, lane, class, link and typed field
//! filters, `top_k`, `min_score`, `explain`).

use std::collections::HashSet;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::args::{Common, SearchQuery};
use super::moments::Op;
use super::{Context, graph_name};
use crate::engine::{
    CommitRequest, EXACT_MAX_CANDIDATES, Graph, IndexStatus, ReadOptions, SearchRequest,
};
use crate::error::{ApiError, ErrorCode};
use crate::model::{Literal, NamedNode, Term};
use crate::ontology::{self, Ontology, RecordIris};
use crate::query::envelope::Envelope;
use crate::search::{Declaration, Lane};
use crate::sparql::QueryResults;

/// Arguments of the `embeddings` tool.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EmbeddingsArgs {
    pub action: EmbeddingsAction,
    #[serde(default)]
    pub graph: Option<String>,
    /// `declare`: an ontology type or a class IRI.
    #[serde(default)]
    pub class: Option<String>,
    /// `declare`: fields and links (names or IRIs) whose values make a record's text, after
    /// its label; a link gives its target's label. Default: every literal.
    #[serde(default)]
    pub from: Vec<String>,
    /// `declare`: properties to leave out.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// The index (default: the class's local name, lowercase).
    #[serde(default)]
    pub name: Option<String>,
    /// `preview`: records (default 5, ≤ 50).
    #[serde(default)]
    pub limit: Option<usize>,
    /// `declare`: m (2..=256, default 16), ef_construction (200), ef_search (64).
    #[serde(default)]
    pub hnsw: Option<HnswArgs>,
}

/// HNSW parameters of an index.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HnswArgs {
    #[serde(default)]
    pub m: Option<usize>,
    #[serde(default)]
    pub ef_construction: Option<usize>,
    #[serde(default)]
    pub ef_search: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EmbeddingsAction {
    /// Make a class searchable (versioned in the log); the index builds in the background.
    Declare,
    /// Every index: status, progress, records, lag behind the head.
    List,
    /// One index (`name`).
    Get,
    /// The exact text of sample records (no model call).
    Preview,
    /// Re-embed every record of an index.
    Refresh,
    /// Remove a declaration and its index (asks the person first).
    Delete,
}

/// A filter of `query` mode `search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilter {
    /// A link the hit must have (relation name or IRI).
    #[serde(default)]
    pub via: Option<String>,
    /// With `via`: the other end (default any).
    #[serde(default)]
    pub to: Option<super::modes::Node>,
    /// With `via`: out (default) or in.
    #[serde(default)]
    pub direction: Option<String>,
    /// A field (name or IRI).
    #[serde(default)]
    pub field: Option<String>,
    /// `value` is [low, high] for between, a list for any_of.
    #[serde(default)]
    pub op: Option<String>,
    #[serde(default)]
    pub value: Option<Value>,
}

fn resolve_class(graph: &str, class: &str) -> Result<NamedNode, ApiError> {
    if class.contains("://") || class.starts_with("urn:") {
        NamedNode::new(class.trim_start_matches('<').trim_end_matches('>'))
            .map_err(|e| ApiError::invalid_argument("class", format!("not an IRI: {e}")))
    } else {
        Ok(RecordIris::for_graph(graph).class(class))
    }
}

/// A field or relation by ontology name, or a property IRI.
fn resolve_property(
    graph: &str,
    ontology: &Ontology,
    name: &str,
    param: &str,
) -> Result<NamedNode, ApiError> {
    if name.contains("://") || name.starts_with("urn:") {
        return NamedNode::new(name.trim_start_matches('<').trim_end_matches('>'))
            .map_err(|e| ApiError::invalid_argument(param, format!("not an IRI: {e}")));
    }
    let iris = RecordIris::for_graph(graph);
    let key = name.to_lowercase();
    if ontology.fields.contains_key(&key) {
        return Ok(iris.field(name));
    }
    if ontology.relations.contains_key(&key) {
        return Ok(iris.relation(name));
    }
    if matches!(key.as_str(), "label" | "rdfs:label") {
        return Ok(NamedNode::new_unchecked(crate::search::LABELS[0]));
    }
    let known: Vec<&str> = ontology
        .fields
        .values()
        .map(|f| f.name.as_str())
        .chain(ontology.relations.values().map(|r| r.name.as_str()))
        .collect();
    Err(ApiError {
        code: ErrorCode::UnknownField,
        message: format!(
            "no field or relation {name:?} in graph {graph:?} (give a property IRI for RDF data); known: {}",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ),
        param: Some(param.to_owned()),
        validation: None,
    })
}

fn status_of(graph: &Graph, name: &str) -> Option<IndexStatus> {
    graph
        .index_status()
        .into_iter()
        .find(|s| s.declaration.name == name)
}

/// The `embeddings` tool (blocking work; approval for `delete` is asked by the caller).
/// `admin`: the caller holds the admin scope (declarations live in a control graph).
pub fn embeddings(ctx: &Context, args: &EmbeddingsArgs, admin: bool) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    match args.action {
        EmbeddingsAction::Declare => declare(ctx, &name, args, admin),
        EmbeddingsAction::List => {
            let graph = ctx.engine.graph(&name)?;
            graph.sync_indexes()?;
            let statuses = graph.index_status();
            let head = graph.head_seq();
            Ok(Envelope::new(
                format!(
                    "{} search index(es) in graph {name} (head {head}){}",
                    statuses.len(),
                    if statuses.is_empty() {
                        "; declare one with action declare"
                    } else {
                        ""
                    }
                ),
                json!({ "indexes": statuses.iter().map(crate::query::index_status::index_status_json).collect::<Vec<_>>() }),
                head,
            ))
        }
        EmbeddingsAction::Get => {
            let graph = ctx.engine.graph(&name)?;
            let index = index_name(args)?;
            let status = status_of(&graph, &index).ok_or_else(|| no_index(&index))?;
            Ok(Envelope::new(
                format!(
                    "index {index}: {} record(s), {} at commit {} (head {})",
                    status.records, status.progress.state, status.published_seq, status.head_seq
                ),
                crate::query::index_status::index_status_json(&status),
                status.head_seq,
            ))
        }
        EmbeddingsAction::Preview => {
            let graph = ctx.engine.graph(&name)?;
            let head = graph.head_seq();
            let declaration = match (&args.class, args.name.as_deref()) {
                (Some(_), _) => build_declaration(&graph, &name, args)?,
                (None, Some(index)) => graph
                    .read_at(head)
                    .declarations()
                    .into_iter()
                    .find(|d| d.name == index)
                    .ok_or_else(|| no_index(index))?,
                (None, None) => {
                    return Err(ApiError::invalid_argument(
                        "class",
                        "give `class` (and `from`) to preview a recipe, or `name` of a declared index",
                    ));
                }
            };
            let limit = args.limit.unwrap_or(5).clamp(1, 50);
            let samples = graph.read_at(head).preview_texts(&declaration, limit);
            Ok(Envelope::new(
                format!(
                    "the text of {} record(s) of {} (no model call)",
                    samples.len(),
                    declaration.class.as_str()
                ),
                json!({
                    "class": declaration.class.as_str(),
                    "records": samples.iter().map(|(iri, text)| json!({"iri": iri, "text": text})).collect::<Vec<_>>(),
                }),
                head,
            ))
        }
        EmbeddingsAction::Refresh => {
            let graph = ctx.engine.graph(&name)?;
            let index = index_name(args)?;
            graph.sync_indexes()?;
            graph
                .refresh_embedding(&index)
                .map_err(|e| ApiError::from(e).with_param("name"))?;
            let head = graph.head_seq();
            Ok(Envelope::new(
                format!(
                    "re-embedding every record of index {index} in the background; follow it with action list"
                ),
                json!({ "name": index, "state": "building" }),
                head,
            ))
        }
        EmbeddingsAction::Delete => {
            let graph = ctx.engine.graph(&name)?;
            let index = index_name(args)?;
            let request = CommitRequest {
                author: Some("mcp".into()),
                message: Some(format!("delete embedding index {index}")),
                admin,
                ..CommitRequest::default()
            };
            let outcome = graph
                .delete_embedding(&index, &request)
                .map_err(|e| ApiError::from(e).with_param("name"))?;
            Ok(Envelope::new(
                format!(
                    "deleted the declaration of index {index} in commit {}",
                    outcome.head_seq
                ),
                json!({ "name": index, "commit_seq": outcome.commit_seq }),
                outcome.head_seq,
            ))
        }
    }
}

fn no_index(name: &str) -> ApiError {
    ApiError::invalid_argument("name", format!("no search index {name:?}; see action list"))
}

fn index_name(args: &EmbeddingsArgs) -> Result<String, ApiError> {
    args.name.clone().ok_or_else(|| {
        ApiError::invalid_argument("name", "give the index `name` (see action list)")
    })
}

fn build_declaration(
    graph: &Graph,
    name: &str,
    args: &EmbeddingsArgs,
) -> Result<Declaration, ApiError> {
    let class_text = args
        .class
        .as_deref()
        .ok_or_else(|| ApiError::invalid_argument("class", "give the class to make searchable"))?;
    let class = super::modes::known_class(graph, name, graph.head_seq(), class_text, "class")?;
    let ontology = ontology::read(
        &graph.snapshot(graph.head_seq()),
        &RecordIris::for_graph(name),
    );
    let resolve_all = |items: &[String], param: &str| -> Result<Vec<NamedNode>, ApiError> {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| resolve_property(name, &ontology, item, &format!("{param}[{i}]")))
            .collect()
    };
    let local = class
        .as_str()
        .rsplit(['/', '#'])
        .next()
        .unwrap_or("index")
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>();
    let defaults = crate::search::HnswParams::default();
    let hnsw = args
        .hnsw
        .as_ref()
        .map_or(defaults, |h| crate::search::HnswParams {
            max_connections: h.m.unwrap_or(defaults.max_connections),
            ef_construction: h.ef_construction.unwrap_or(defaults.ef_construction),
            ef_search: h.ef_search.unwrap_or(defaults.ef_search),
        });
    Declaration::check_hnsw(&hnsw).map_err(|m| ApiError::invalid_argument("hnsw", m))?;
    Ok(Declaration {
        name: args.name.clone().unwrap_or(if local.is_empty() {
            "index".into()
        } else {
            local
        }),
        class,
        from: resolve_all(&args.from, "from")?,
        exclude: resolve_all(&args.exclude, "exclude")?,
        hnsw,
    })
}

fn declare(
    ctx: &Context,
    name: &str,
    args: &EmbeddingsArgs,
    admin: bool,
) -> Result<Envelope, ApiError> {
    // A graph that does not exist yet has no types: only a class IRI can be declared, and
    // a declaration that fails its checks creates nothing.
    let graph = match ctx.engine.graph(name) {
        Ok(graph) => graph,
        Err(crate::engine::EngineError::GraphNotFound { .. })
            if args.class.as_deref().is_some_and(|c| {
                let c = c.trim();
                c.contains("://") || c.starts_with("urn:")
            }) =>
        {
            ctx.engine.graph_to_write(name, admin)?
        }
        Err(crate::engine::EngineError::GraphNotFound { .. }) => {
            let class = args.class.as_deref().ok_or_else(|| {
                ApiError::invalid_argument("class", "give the class to make searchable")
            })?;
            return Err(ApiError {
                code: ErrorCode::UnknownType,
                message: format!(
                    "unknown type {class:?}; graph {name:?} does not exist yet, so it defines no types: define them with configure (define_ontology) or give a class IRI"
                ),
                param: Some("class".into()),
                validation: None,
            });
        }
        Err(error) => return Err(error.into()),
    };
    let declaration = build_declaration(&graph, name, args)?;
    let request = CommitRequest {
        author: Some("mcp".into()),
        message: Some(format!("declare embedding index {}", declaration.name)),
        admin,
        ..CommitRequest::default()
    };
    let outcome = graph.declare_embedding(&declaration, &request)?;
    let records = graph
        .read_at(outcome.head_seq)
        .preview_texts(&declaration, usize::MAX)
        .len();
    Ok(Envelope::new(
        format!(
            "declared index {} over {} ({} record(s)) in commit {}; it builds in the background: follow it with action list",
            declaration.name,
            declaration.class.as_str(),
            records,
            outcome.head_seq
        ),
        json!({
            "name": declaration.name,
            "class": declaration.class.as_str(),
            "from": declaration.from.iter().map(NamedNode::as_str).collect::<Vec<_>>(),
            "records": records,
            "commit_seq": outcome.commit_seq,
            "state": "building",
        }),
        outcome.head_seq,
    ))
}

/// `query` mode `search`.
pub fn search(ctx: &Context, common: &Common, args: &SearchQuery) -> Result<Envelope, ApiError> {
    let name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&name)?;
    let head = graph.head_seq();
    let seq = match common.as_of_commit_seq {
        Some(seq) => graph
            .resolve_seq(Some(seq), None)
            .map_err(|e| ApiError::from(e).with_param("as_of_commit_seq"))?,
        None => head,
    };
    let text = args.text.clone().unwrap_or_default();
    if text.trim().is_empty() && args.embedding.is_none() {
        return Err(ApiError::invalid_argument(
            "text",
            "give the words to search for in `text` (or a vector in `embedding`)",
        ));
    }
    let lane = match args.lane.as_deref() {
        None => Lane::Hybrid,
        Some(l) => Lane::parse(l)
            .ok_or_else(|| ApiError::invalid_argument("lane", "lane is dense, sparse or hybrid"))?,
    };
    let top_k = args.top_k.unwrap_or(10);
    if top_k == 0 || top_k > 200 {
        return Err(ApiError::invalid_argument("top_k", "top_k must be 1..=200"));
    }
    if args.embedding.is_some() && lane == Lane::Sparse {
        return Err(ApiError::invalid_argument(
            "lane",
            "an `embedding` searches the dense lane (or hybrid with `text`)",
        ));
    }
    graph.sync_indexes()?;
    let declarations = graph.read_at(head).declarations();
    if declarations.is_empty() {
        return Err(ApiError::invalid_argument(
            "class",
            format!(
                "graph {name} has no search index; declare one with the embeddings tool (action declare)"
            ),
        ));
    }
    let index = match &args.class {
        None => None,
        Some(class) => {
            let iri = resolve_class(&name, class)?;
            Some(
                declarations
                    .iter()
                    .find(|d| d.class == iri || d.name == *class)
                    .map(|d| d.name.clone())
                    .ok_or_else(|| {
                        ApiError::invalid_argument(
                            "class",
                            format!(
                                "class {class:?} is not searchable; searchable: {}",
                                declarations
                                    .iter()
                                    .map(|d| d.class.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                    })?,
            )
        }
    };
    if let Some(vector) = &args.embedding {
        let dim = graph.index_status().first().map_or(0, |s| s.dim);
        if vector.len() != dim {
            return Err(ApiError::invalid_argument(
                "embedding",
                format!(
                    "the vector has {} dimensions; the index has {dim}",
                    vector.len()
                ),
            ));
        }
    }
    let candidates = match &args.filters {
        Some(filters) if !filters.is_empty() => Some(candidates(
            ctx,
            &graph,
            &name,
            seq,
            args.class.as_deref(),
            filters,
        )?),
        _ => None,
    };
    let request = SearchRequest {
        index: index.clone(),
        text: text.clone(),
        vector: args.embedding.as_ref().map(|v| {
            let mut v = v.clone();
            crate::search::embed::normalize(&mut v);
            v
        }),
        lane,
        k: top_k,
        min_score: args.min_score,
        candidates: candidates.clone().map(Arc::new),
        strong: args.consistency.as_deref() == Some("strong"),
    };
    let statuses = graph.index_status();
    let lag = statuses
        .iter()
        .map(|s| s.head_seq.saturating_sub(s.published_seq))
        .max()
        .unwrap_or(0);
    if args.explain {
        let plan = crate::search::SearchPlan::choose(
            candidates
                .as_ref()
                .map_or(crate::search::Candidates::All, |c| {
                    crate::search::Candidates::Listed(c.len())
                }),
        )
        .name();
        let indexed: usize = statuses
            .iter()
            .filter(|s| index.as_ref().is_none_or(|i| *i == s.declaration.name))
            .map(|s| s.records)
            .sum();
        return Ok(Envelope::new(
            format!(
                "plan {plan}: {} candidate(s) pass the filters of {indexed} indexed record(s); nothing was run",
                candidates
                    .as_ref()
                    .map_or("all".to_owned(), |c| c.len().to_string())
            ),
            json!({
                "plan": plan,
                "lane": lane.name(),
                "candidates": candidates.as_ref().map(HashSet::len),
                "indexed_records": indexed,
                "selectivity": candidates.as_ref().map(|c| if indexed == 0 { 0.0 } else { c.len() as f64 / indexed as f64 }),
                "exact_max_candidates": EXACT_MAX_CANDIDATES,
                "index_lag": lag,
            }),
            seq,
        ));
    }
    let outcome = graph.read_at(seq).search(&request)?;
    let hits: Vec<Value> = outcome
        .hits
        .iter()
        .map(|h| {
            json!({
                "iri": &*h.hit.record,
                "label": h.label,
                "score": h.hit.score,
                "lane_scores": {"dense": h.hit.dense, "sparse": h.hit.sparse},
                "index": h.index,
            })
        })
        .collect();
    let mut envelope = Envelope::new(
        format!(
            "{} hit(s) for {:?} ({} lane, plan {}) at commit {seq}{}",
            hits.len(),
            text,
            lane.name(),
            outcome.plan,
            if !outcome.exact_at_seq {
                format!(
                    "; scores use the texts the index holds at commit {}, too much changed since to read the texts of commit {seq} (pass consistency: strong to wait for the head)",
                    outcome.index_seq
                )
            } else if lag > 0 {
                format!(
                    "; the index is {lag} commit(s) behind: the records changed since were scored as they are at commit {seq}"
                )
            } else {
                String::new()
            }
        ),
        json!({
            "hits": hits,
            "plan": outcome.plan.name(),
            "lane": lane.name(),
            "candidates": outcome.candidates,
            "index_seq": outcome.index_seq,
            "dropped_not_at_seq": outcome.dropped_not_at_seq,
            "rescored": outcome.rescored,
            "exact_at_seq": outcome.exact_at_seq,
        }),
        seq,
    );
    if outcome.dropped_not_at_seq > 0 {
        envelope = envelope.note(format!(
            "{} hit(s) were dropped: those records did not exist at commit {seq}",
            outcome.dropped_not_at_seq
        ));
    }
    if statuses.iter().any(|s| !s.semantic) {
        envelope = envelope.note(
            "the embedder is the hashed fallback (words, not meaning): run scripts/fetch-model.sh on the server for semantic search",
        );
    }
    Ok(envelope)
}

/// The records that pass the filters at `seq` (and belong to `class`, when given).
fn candidates(
    ctx: &Context,
    graph: &Graph,
    name: &str,
    seq: u64,
    class: Option<&str>,
    filters: &[SearchFilter],
) -> Result<HashSet<Arc<str>>, ApiError> {
    use spargebra::algebra::{Expression, GraphPattern, PropertyPathExpression};
    use spargebra::term::{TermPattern, TriplePattern, Variable};
    let ontology = ontology::read(&graph.snapshot(seq), &RecordIris::for_graph(name));
    let record = Variable::new_unchecked("r");
    let mut triples: Vec<TriplePattern> = Vec::new();
    let mut paths: Vec<GraphPattern> = Vec::new();
    let mut conditions: Vec<Expression> = Vec::new();
    let triple = |s: TermPattern, p: NamedNode, o: TermPattern| TriplePattern {
        subject: s,
        predicate: p.into(),
        object: o,
    };
    if let Some(class) = class {
        // Instances of the class and of its subclasses: ?r a ?c_ . ?c_ rdfs:subClassOf* C.
        let class = resolve_class(name, class)?;
        let kind = Variable::new_unchecked("c_");
        triples.push(triple(
            record.clone().into(),
            NamedNode::new_unchecked(crate::model::RDF_TYPE),
            kind.clone().into(),
        ));
        paths.push(GraphPattern::Path {
            subject: kind.into(),
            path: PropertyPathExpression::ZeroOrMore(Box::new(PropertyPathExpression::NamedNode(
                NamedNode::new_unchecked("http://www.w3.org/2000/01/rdf-schema#subClassOf"),
            ))),
            object: class.into(),
        });
    }
    for (i, filter) in filters.iter().enumerate() {
        let param = format!("filters[{i}]");
        match (&filter.via, &filter.field) {
            (Some(via), None) => {
                let relation = resolve_property(name, &ontology, via, &format!("{param}.via"))?;
                let other: TermPattern = match &filter.to {
                    Some(node) => {
                        NamedNode::new_unchecked(node_iri(name, node, &format!("{param}.to"))?)
                            .into()
                    }
                    None => Variable::new_unchecked(format!("o{i}")).into(),
                };
                match filter.direction.as_deref().unwrap_or("out") {
                    "out" => triples.push(triple(record.clone().into(), relation, other)),
                    "in" => triples.push(triple(other, relation, record.clone().into())),
                    _ => {
                        return Err(ApiError::invalid_argument(
                            &format!("{param}.direction"),
                            "direction is out or in",
                        ));
                    }
                }
            }
            (None, Some(field)) => {
                let property = resolve_property(name, &ontology, field, &format!("{param}.field"))?;
                let value_type = ontology
                    .fields
                    .get(&field.to_lowercase())
                    .map(|f| f.value_type);
                let v = Variable::new_unchecked(format!("v{i}"));
                triples.push(triple(record.clone().into(), property, v.clone().into()));
                let op = filter.op.as_deref().unwrap_or("eq");
                let value = filter.value.as_ref().ok_or_else(|| {
                    ApiError::invalid_argument(
                        &format!("{param}.value"),
                        "give the value to compare with",
                    )
                })?;
                let literal = |value: &Value, at: &str| -> Result<Expression, ApiError> {
                    Ok(Expression::Literal(literal_for(value, value_type, at)?))
                };
                let it = Expression::Variable(v.clone());
                // A date alone against moments is the whole day (`moments`); a field
                // outside the ontology may also hold it as a string.
                let compare = |op: Op, value: &Value, at: &str| -> Result<Expression, ApiError> {
                    let dated = matches!(value_type, None | Some(ontology::ValueType::DateTime));
                    if let (true, Value::String(text)) = (dated, value)
                        && let Some(day) = super::moments::compare_with_day(&it, op, text)
                    {
                        if value_type.is_some() {
                            return Ok(day);
                        }
                        // An error (a value that is no text) is "not that text".
                        let as_text = Expression::Coalesce(vec![
                            op.apply(
                                it.clone(),
                                Expression::Literal(Literal::new_simple_literal(text)),
                            ),
                            Expression::Literal(Literal::from(op == Op::Ne)),
                        ]);
                        return Ok(if op == Op::Ne {
                            Expression::And(Box::new(day), Box::new(as_text))
                        } else {
                            Expression::Or(Box::new(day), Box::new(as_text))
                        });
                    }
                    Ok(op.apply(it.clone(), literal(value, at)?))
                };
                let at = format!("{param}.value");
                let condition = match op {
                    "between" => {
                        let bounds =
                            value.as_array().filter(|a| a.len() == 2).ok_or_else(|| {
                                ApiError::invalid_argument(&at, "between takes [low, high]")
                            })?;
                        Expression::And(
                            Box::new(compare(Op::Ge, &bounds[0], &format!("{param}.value[0]"))?),
                            Box::new(compare(Op::Le, &bounds[1], &format!("{param}.value[1]"))?),
                        )
                    }
                    "any_of" => {
                        let values =
                            value.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
                                ApiError::invalid_argument(&at, "any_of takes a non-empty list")
                            })?;
                        values
                            .iter()
                            .enumerate()
                            .map(|(j, x)| compare(Op::Eq, x, &format!("{param}.value[{j}]")))
                            .collect::<Result<Vec<_>, ApiError>>()?
                            .into_iter()
                            .reduce(|a, b| Expression::Or(Box::new(a), Box::new(b)))
                            .unwrap_or(Expression::Literal(Literal::from(false)))
                    }
                    name => match Op::from_name(name).filter(|_| !name.contains(['<', '>', '='])) {
                        Some(op) => compare(op, value, &at)?,
                        None => {
                            return Err(ApiError::invalid_argument(
                                &format!("{param}.op"),
                                format!(
                                    "unknown op {name:?}: use eq, ne, lt, le, gt, ge, between, any_of"
                                ),
                            ));
                        }
                    },
                };
                conditions.push(condition);
            }
            _ => {
                return Err(ApiError::invalid_argument(
                    &param,
                    "a filter is {\"via\", \"to\"?, \"direction\"?} or {\"field\", \"op\", \"value\"}",
                ));
            }
        }
    }
    // SELECT DISTINCT ?r WHERE { triples paths FILTER(conditions) }, as algebra.
    let mut pattern = GraphPattern::Bgp { patterns: triples };
    for path in paths {
        pattern = GraphPattern::Join {
            left: Box::new(pattern),
            right: Box::new(path),
        };
    }
    if let Some(expr) = conditions
        .into_iter()
        .reduce(|a, b| Expression::And(Box::new(a), Box::new(b)))
    {
        pattern = GraphPattern::Filter {
            expr,
            inner: Box::new(pattern),
        };
    }
    let query = spargebra::Query::Select {
        dataset: None,
        pattern: GraphPattern::Distinct {
            inner: Box::new(GraphPattern::Project {
                inner: Box::new(pattern),
                variables: vec![record],
            }),
        },
        base_iri: None,
    };
    let options = ReadOptions {
        timeout: Some(ctx.query_timeout),
        ..ReadOptions::default()
    };
    let answer = graph.read_at(seq).query(&query.to_string(), &options)?;
    let QueryResults::Solutions(solutions) = answer.results else {
        return Ok(HashSet::new());
    };
    let mut out = HashSet::new();
    for solution in solutions {
        let solution =
            solution.map_err(|e| crate::engine::EngineError::from(answer.control.stop_error(e)))?;
        if let Some(Term::NamedNode(n)) = solution.get("r") {
            out.insert(Arc::from(n.as_str()));
        }
    }
    Ok(out)
}

fn node_iri(graph: &str, node: &super::modes::Node, param: &str) -> Result<String, ApiError> {
    let iris = RecordIris::for_graph(graph);
    match (&node.iri, &node.type_name, &node.name) {
        (Some(iri), _, _) => NamedNode::new(iri.trim_start_matches('<').trim_end_matches('>'))
            .map(|n| n.as_str().to_owned())
            .map_err(|e| ApiError::invalid_argument(param, format!("not an IRI: {e}"))),
        (None, Some(t), Some(n)) => Ok(iris.entity(t, n).as_str().to_owned()),
        _ => Err(ApiError::invalid_argument(
            param,
            "name the record as {\"iri\"} or {\"type\", \"name\"}",
        )),
    }
}

/// A JSON value as a literal of the field's type (or of its own JSON type when the field
/// is not in the ontology: numbers, booleans, dates, strings).
fn literal_for(
    value: &Value,
    value_type: Option<ontology::ValueType>,
    param: &str,
) -> Result<Literal, ApiError> {
    if let Some(value_type) = value_type {
        return ontology::convert_value(value, value_type)
            .map_err(|e| ApiError::invalid_argument(param, e.to_string()));
    }
    Ok(match value {
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Literal::from(i),
            (None, Some(f)) => Literal::from(f),
            _ => Literal::new_simple_literal(n.to_string()),
        },
        Value::Bool(b) => Literal::from(*b),
        Value::String(s) => {
            let looks_like_date = s.len() >= 10
                && s.as_bytes()[4] == b'-'
                && s.as_bytes()[7] == b'-'
                && s[..4].chars().all(|c| c.is_ascii_digit());
            if looks_like_date {
                // A moment (a date alone is the whole day: `moments`, before this).
                super::structured::moment(s, param)?
            } else {
                Literal::new_simple_literal(s)
            }
        }
        other => {
            return Err(ApiError::invalid_argument(
                param,
                format!("expected a number, boolean or string, got {other}"),
            ));
        }
    })
}

/// Samples per class when describing its filterable fields.
const FIELD_SAMPLE: usize = 200;

/// "Searchable now: …" for the `query` tool's description: per graph and declared class,
/// its filterable fields with their type and an example value read from the data. Only
/// the graphs `sees` lets through are described (a graph-limited key's own).
pub fn searchable_summary(engine: &crate::Engine, sees: impl Fn(&str) -> bool) -> String {
    let mut parts = Vec::new();
    for graph_name in engine.graph_names() {
        if !sees(graph_name.as_str()) {
            continue;
        }
        let Ok(graph) = engine.graph(graph_name.as_str()) else {
            continue;
        };
        let head = graph.head_seq();
        for declaration in graph.read_at(head).declarations() {
            let fields = filterable_fields(&graph, &declaration, head);
            parts.push(format!(
                "graph {} class {} (index {}){}",
                graph_name.as_str(),
                declaration.class.as_str(),
                declaration.name,
                if fields.is_empty() {
                    String::new()
                } else {
                    format!(": filters {}", fields.join(", "))
                }
            ));
        }
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "Searchable now (mode search; `field` takes the IRI): {}.",
        parts.join("; ")
    )
}

/// Properties of sampled instances: `<iri> (type, e.g. value)`, links as `via <iri>`.
fn filterable_fields(graph: &Graph, declaration: &Declaration, seq: u64) -> Vec<String> {
    let snapshot = graph.snapshot(seq);
    let recipe = crate::search::Recipe::new(&snapshot, declaration);
    let mut seen: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    for record in recipe.instances(&snapshot).into_iter().take(FIELD_SAMPLE) {
        let Some(term) = snapshot.term(record) else {
            continue;
        };
        for quad in graph.read_at(seq).quads_matching(Some(&term), None, None) {
            let property = quad.predicate.as_str().to_owned();
            if property.ends_with("#type") || seen.contains_key(&property) {
                continue;
            }
            let described = match &quad.object {
                Term::Literal(l) => {
                    let kind = match l.datatype().as_str().rsplit('#').next().unwrap_or("") {
                        "integer" | "int" | "long" | "decimal" | "double" | "float" => "number",
                        "dateTime" | "date" => "date",
                        "boolean" => "bool",
                        _ => "keyword",
                    };
                    let mut example: String = l.value().chars().take(40).collect();
                    if example.len() < l.value().len() {
                        example.push('…');
                    }
                    format!("{property} ({kind}, e.g. {example:?})")
                }
                Term::NamedNode(_) => format!("via {property} (link)"),
                _ => continue,
            };
            seen.insert(property, described);
        }
    }
    seen.into_values().take(12).collect()
}
