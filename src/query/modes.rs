//! `query` modes beyond raw SPARQL, for agents that have not read the schema: resolve a
//! name to records, map a date to a commit, compare a query at two points, and walk
//! bounded paths and neighborhoods. Every answer is read at one commit and says which.

use std::collections::{BTreeMap, HashSet, VecDeque};

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::args::{
    CommitAtQuery, Common, CompareQuery, DescribeQuery, NamesQuery, NeighborhoodQuery, PathsQuery,
};
use super::render::{self, Row};
use super::{Context, graph_name};
use crate::engine::{Graph, ReadOptions};
use crate::error::ApiError;
use crate::model::{Literal, NamedNode, Term};
use crate::ontology::RecordIris;
use crate::query::envelope::{Envelope, cut};
use crate::sparql::{CancellationToken, QueryResults};

use crate::model::RDF_TYPE;
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
/// At most this many (record, name, type) rows are read for `names`, best matches first.
const NAME_ROWS: usize = 2000;

/// A point in history: a commit, a date (its end, UTC) or a moment.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    #[serde(default)]
    pub as_of_commit_seq: Option<u64>,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub moment: Option<String>,
}

/// A record: `{iri}`, `{type, name}` or `{key}`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Node {
    #[serde(default)]
    pub iri: Option<String>,
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Out,
    In,
    Both,
}

/// A date (`2026-06-26`: the end of that day, UTC) or an RFC 3339 moment.
fn parse_when(text: &str, param: &str) -> Result<time::OffsetDateTime, ApiError> {
    let text = text.trim();
    let moment = crate::model::parse_date_or_moment(text, crate::model::DayEdge::End);
    moment.ok_or_else(|| {
        ApiError::invalid_argument(
            param,
            format!("expected a date (2026-06-26) or an RFC 3339 moment, got {text:?}"),
        )
    })
}

fn resolve_point(graph: &Graph, point: &Point, param: &str) -> Result<u64, ApiError> {
    match (point.as_of_commit_seq, &point.date, &point.moment) {
        (Some(seq), None, None) => Ok(graph.resolve_seq(Some(seq), None)?),
        (None, Some(date), None) => {
            Ok(graph.resolve_seq(None, Some(parse_when(date, &format!("{param}.date"))?))?)
        }
        (None, None, Some(moment)) => {
            Ok(graph.resolve_seq(None, Some(parse_when(moment, &format!("{param}.moment"))?))?)
        }
        _ => Err(ApiError::invalid_argument(
            param,
            "give exactly one of as_of_commit_seq, date or moment",
        )),
    }
}

fn node_iri(graph_name: &str, node: &Node, param: &str) -> Result<NamedNode, ApiError> {
    let iris = RecordIris::for_graph(graph_name);
    match (&node.iri, &node.type_name, &node.name, &node.key) {
        (Some(iri), None, None, None) => {
            NamedNode::new(iri.trim().trim_start_matches('<').trim_end_matches('>')).map_err(|e| {
                ApiError::invalid_argument(&format!("{param}.iri"), format!("not an IRI: {e}"))
            })
        }
        (None, Some(type_name), Some(name), None) => Ok(iris.entity(type_name, name)),
        (None, Some(type_name), None, Some(key)) => Ok(iris.entity(type_name, key)),
        (None, None, None, Some(key)) => Ok(iris.keyed(key)),
        _ => Err(ApiError::invalid_argument(
            param,
            "name a record as {\"iri\"}, {\"type\", \"name\"} or {\"key\"}",
        )),
    }
}

/// A relation given by name (this graph's ontology) or by IRI.
fn relation_iri(graph_name: &str, relation: &str) -> NamedNode {
    if (relation.contains("://") || relation.starts_with("urn:"))
        && let Ok(iri) = NamedNode::new(relation.trim_start_matches('<').trim_end_matches('>'))
    {
        return iri;
    }
    RecordIris::for_graph(graph_name).relation(relation)
}

/// Runs a SELECT at `seq`; its rows as (variable → term) maps, rendered by the caller.
pub(super) fn select_rows(
    ctx: &Context,
    graph: &Graph,
    seq: u64,
    query: &str,
    cancellation: Option<CancellationToken>,
) -> Result<Vec<Row>, ApiError> {
    let options = ReadOptions {
        timeout: Some(ctx.query_timeout),
        cancellation,
        ..ReadOptions::default()
    };
    let answer = graph.read_at(seq).query(query, &options)?;
    let QueryResults::Solutions(solutions) = answer.results else {
        return Err(ApiError::invalid_argument(
            "sparql",
            "this mode needs a SELECT query",
        ));
    };
    let mut rows = Vec::new();
    for solution in solutions {
        let solution =
            solution.map_err(|e| crate::engine::EngineError::from(answer.control.stop_error(e)))?;
        rows.push(
            solution
                .iter()
                .map(|(variable, value)| (variable.as_str().to_owned(), value.clone()))
                .collect(),
        );
    }
    Ok(rows)
}

/// `names`: a name → candidate records, grouped by name, preferred candidates first.
pub fn names(ctx: &Context, common: &Common, query: &NamesQuery) -> Result<Envelope, ApiError> {
    let name = query.name.as_str();
    let graph_name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
    let needle = Literal::new_simple_literal(name.to_lowercase());
    let exact = Literal::new_simple_literal(name);
    // The best matches first, so the cap on rows read never drops an exact match for a
    // pile of names that merely contain the text: the names that start with it (exact and
    // case-insensitive ones too), ranked; then, while rows are left, the other names that
    // contain it (unranked: the read stops at the cap).
    let label = format!("?record <{RDFS_LABEL}> ?label . FILTER(isIRI(?record))");
    let starts = format!("STRSTARTS(LCASE(STR(?label)), {needle})");
    let types = format!("OPTIONAL {{ ?record <{RDF_TYPE}> ?type }}");
    let mut rows = select_rows(
        ctx,
        &graph,
        seq,
        &format!(
            "SELECT ?record ?label ?type WHERE {{ {label} FILTER({starts}) {types} }} \
             ORDER BY (IF(STR(?label) = {exact}, 0, IF(LCASE(STR(?label)) = {needle}, 1, 2))) STR(?label) ?record ?type \
             LIMIT {NAME_ROWS}"
        ),
        None,
    )?;
    if rows.len() < NAME_ROWS {
        rows.extend(select_rows(
            ctx,
            &graph,
            seq,
            &format!(
                "SELECT ?record ?label ?type WHERE {{ {label} FILTER(CONTAINS(LCASE(STR(?label)), {needle}) && !{starts}) {types} }} LIMIT {}",
                NAME_ROWS - rows.len()
            ),
            None,
        )?);
    }
    let capped = rows.len() >= NAME_ROWS;
    let lower = name.to_lowercase();
    // Group candidates by label; rank exact, then case-insensitive, then prefix, then contains.
    let mut groups: BTreeMap<(u8, String), BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for row in &rows {
        let (Some(record), Some(Term::Literal(label))) =
            (render::iri(row, "record"), row.get("label"))
        else {
            continue;
        };
        let label = cut(label.value(), 300).0;
        let label_lower = label.to_lowercase();
        let rank = if label == name {
            0
        } else if label_lower == lower {
            1
        } else if label_lower.starts_with(&lower) {
            2
        } else {
            3
        };
        let types = groups
            .entry((rank, label))
            .or_default()
            .entry(record.to_owned())
            .or_default();
        if let Some(class) = render::iri(row, "type")
            && !types.iter().any(|t| t == class)
        {
            types.push(class.to_owned());
        }
    }
    // Past the cap, the last name read may have lost records: it is not shown.
    if capped && groups.len() > 1 {
        groups.pop_last();
    }
    let n_names = groups.len();
    let budget = common.detail.unwrap_or_default().budget();
    // `row_limit` counts names here (a name's records come whole), within the detail's.
    let shown = common
        .row_limit
        .unwrap_or(budget.rows)
        .clamp(1, budget.rows);
    let kinds = ["exact", "case_insensitive", "prefix", "contains"];
    let candidates: Vec<Value> = groups
        .iter()
        .take(shown)
        .map(|((rank, label), records)| {
            json!({
                "name": label,
                "match": kinds[*rank as usize],
                "records": records.iter().map(|(iri, types)| json!({ "iri": iri, "types": types })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let summary = match candidates.first() {
        None => format!("no record named like {name:?} at commit {seq} of graph {graph_name}"),
        Some(best) => format!(
            "{n_names}{} name(s) like {name:?} at commit {seq} of graph {graph_name}; best: {} ({})",
            if capped { "+" } else { "" },
            best["name"].as_str().unwrap_or_default(),
            best["match"].as_str().unwrap_or_default()
        ),
    };
    let mut envelope = Envelope::new(summary, json!({ "candidates": candidates }), seq);
    if capped {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!(
            "more than {NAME_ROWS} records are named like this (those starting with it were read first); use a longer name"
        ));
    } else if n_names > candidates.len() {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!(
            "{} more names matched; use a longer name, a larger row_limit or a larger detail",
            n_names - candidates.len()
        ));
    }
    Ok(envelope)
}

/// `commit_at`: the commit that was the head at a date or moment.
pub fn commit_at(
    ctx: &Context,
    common: &Common,
    query: &CommitAtQuery,
) -> Result<Envelope, ApiError> {
    let at = query.at.as_str();
    let moment = parse_when(at, "at")?;
    let graph_name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph
        .resolve_seq(None, Some(moment))
        .map_err(|e| ApiError::from(e).with_param("at"))?;
    let info = graph.commit_info(seq)?;
    let committed_at = crate::log::format_time(info.header.committed_at);
    Ok(Envelope::new(
        format!(
            "at {at}, graph {graph_name} was at commit {seq} (committed {committed_at}); pass as_of_commit_seq {seq} to read it"
        ),
        json!({ "commit_seq": seq, "committed_at": committed_at, "head_seq": graph.head_seq() }),
        seq,
    ))
}

/// `key` must be a variable the SELECT returns (a query that does not parse, or is not a
/// SELECT, is reported when it runs).
fn check_key(text: &str, key: &str) -> Result<(), ApiError> {
    let Ok(spargebra::Query::Select { pattern, .. }) = crate::sparql::parse_query(text, None)
    else {
        return Ok(());
    };
    let mut variables = Vec::new();
    pattern.on_in_scope_variable(|v| variables.push(v.as_str().to_owned()));
    if variables.iter().any(|v| v == key) {
        return Ok(());
    }
    let hint = match key.strip_prefix(['?', '$']) {
        Some(bare) if variables.iter().any(|v| v == bare) => {
            format!(" (name it without the sigil: {bare:?})")
        }
        _ => String::new(),
    };
    Err(ApiError::invalid_argument(
        "key",
        format!(
            "key {key:?} is not a variable of the SELECT{hint}; its variables: {}",
            if variables.is_empty() {
                "none".to_owned()
            } else {
                variables.join(", ")
            }
        ),
    ))
}

/// How many times each whole row occurs, with the row as shown.
fn count_rows(rows: &[(String, Value)]) -> BTreeMap<&str, (usize, Value)> {
    let mut counts: BTreeMap<&str, (usize, Value)> = BTreeMap::new();
    for (whole, shown) in rows {
        counts.entry(whole.as_str()).or_insert((0, shown.clone())).0 += 1;
    }
    counts
}

/// `compare`: a SELECT at two points → rows added, removed, and changed by `key`.
pub fn compare(
    ctx: &Context,
    common: &Common,
    query: &CompareQuery,
    cancellation: CancellationToken,
) -> Result<Envelope, ApiError> {
    let text = query.sparql.as_str();
    let from = &query.from;
    if let Some(key) = &query.key {
        check_key(text, key)?;
    }
    let graph_name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let from_seq = resolve_point(&graph, from, "from")?;
    let to_seq = match &query.to {
        Some(point) => resolve_point(&graph, point, "to")?,
        None => graph.head_seq(),
    };
    let budget = common.detail.unwrap_or_default().budget();
    // Rows are compared whole, term by term (as N-Triples: `10.0` and `1.0e1` are two
    // values although JSON shows both as 10.0), and shown cut to the page's budget: a
    // change past the cut-off of a long string is still a change.
    let rendered =
        |seq: u64, cancellation: CancellationToken| -> Result<Vec<(String, Value)>, ApiError> {
            let rows = select_rows(ctx, &graph, seq, text, Some(cancellation))?;
            Ok(rows
                .iter()
                .map(|row| {
                    let whole: serde_json::Map<String, Value> = row
                        .iter()
                        .map(|(name, term)| (name.clone(), Value::String(term.to_string())))
                        .collect();
                    (
                        Value::Object(whole).to_string(),
                        render::row(row, &[], budget.string_chars).0,
                    )
                })
                .collect())
        };
    let before = rendered(from_seq, cancellation.clone())?;
    let after = rendered(to_seq, cancellation)?;
    let (counts_before, counts_after) = (count_rows(&before), count_rows(&after));
    // (the whole row's text, the row as shown)
    let mut added: Vec<(&str, Value)> = Vec::new();
    let mut removed: Vec<(&str, Value)> = Vec::new();
    for (whole, (n, row)) in &counts_after {
        let was = counts_before.get(whole).map_or(0, |c| c.0);
        added.extend(std::iter::repeat_n(
            (*whole, row.clone()),
            n.saturating_sub(was),
        ));
    }
    for (whole, (n, row)) in &counts_before {
        let now = counts_after.get(whole).map_or(0, |c| c.0);
        removed.extend(std::iter::repeat_n(
            (*whole, row.clone()),
            n.saturating_sub(now),
        ));
    }
    let mut changed = Vec::new();
    if let Some(key) = &query.key {
        // The key's whole value: two keys that differ past the cut-off are two keys.
        let key_of = |whole: &str| {
            serde_json::from_str::<Value>(whole)
                .ok()
                .and_then(|row| row.get(key).map(Value::to_string))
        };
        let mut removed_by_key: BTreeMap<String, Value> = BTreeMap::new();
        for (whole, row) in &removed {
            if let Some(k) = key_of(whole) {
                removed_by_key.entry(k).or_insert_with(|| row.clone());
            }
        }
        let mut matched = HashSet::new();
        added.retain(|(whole, row)| {
            match key_of(whole)
                .and_then(|k| removed_by_key.get(&k).map(|before| (k, before.clone())))
            {
                Some((k, before)) if matched.insert(k.clone()) => {
                    changed
                        .push(json!({ "key": row[key.as_str()], "before": before, "after": row }));
                    false
                }
                _ => true,
            }
        });
        removed.retain(|(whole, _)| !key_of(whole).is_some_and(|k| matched.contains(&k)));
    }
    let (added, removed): (Vec<Value>, Vec<Value>) = (
        added.into_iter().map(|(_, row)| row).collect(),
        removed.into_iter().map(|(_, row)| row).collect(),
    );
    let totals = json!({ "added": added.len(), "removed": removed.len(), "changed": changed.len(), "rows_before": before.len(), "rows_after": after.len() });
    // Pages walk the changed, then added, then removed rows; the cursor pins both commits.
    let digest = crate::query::envelope::args_digest(&[
        text,
        &from_seq.to_string(),
        &to_seq.to_string(),
        query.key.as_deref().unwrap_or(""),
    ]);
    let offset = match &common.cursor {
        Some(cursor) => {
            ctx.cursors
                .open(cursor, "query.compare", &graph_name, &digest)?
                .position as usize
        }
        None => 0,
    };
    let all: Vec<(&str, Value)> = changed
        .into_iter()
        .map(|r| ("changed", r))
        .chain(added.into_iter().map(|r| ("added", r)))
        .chain(removed.into_iter().map(|r| ("removed", r)))
        .collect();
    let page_rows = common
        .row_limit
        .unwrap_or(budget.rows)
        .clamp(1, budget.rows);
    let page: Vec<&(&str, Value)> = all.iter().skip(offset).take(page_rows).collect();
    let pick = |kind: &str| -> Vec<Value> {
        page.iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, r)| r.clone())
            .collect()
    };
    let mut envelope = Envelope::new(
        format!(
            "from commit {from_seq} to commit {to_seq} of graph {graph_name}: {} added, {} removed, {} changed",
            totals["added"], totals["removed"], totals["changed"]
        ),
        json!({ "from_commit_seq": from_seq, "to_commit_seq": to_seq, "added": pick("added"), "removed": pick("removed"), "changed": pick("changed") }),
        to_seq,
    );
    envelope.counts = Some(totals);
    if offset + page.len() < all.len() {
        envelope.truncated = Some(true);
        let cursor = ctx.cursors.seal(&crate::query::envelope::CursorState {
            kind: "query.compare".into(),
            graph: graph_name.clone(),
            args: digest,
            seq: to_seq,
            position: (offset + page.len()) as u64,
        });
        let mut next = json!({
            "mode": "compare",
            "graph": graph_name,
            "sparql": text,
            "from": { "as_of_commit_seq": from_seq },
            "to": { "as_of_commit_seq": to_seq },
            "cursor": cursor,
        });
        if let Some(key) = &query.key {
            next["key"] = key.clone().into();
        }
        if let Some(detail) = common.detail {
            next["detail"] = serde_json::to_value(detail).unwrap_or(Value::Null);
        }
        if let Some(limit) = common.row_limit {
            next["row_limit"] = limit.into();
        }
        envelope.next = Some(next);
    }
    Ok(envelope)
}

/// One hop along a link.
#[derive(Clone)]
struct Hop {
    from: String,
    relation: String,
    to: String,
    forward: bool,
}

/// The links of `node` in `snapshot`'s default graph (what the other modes' SPARQL reads),
/// in the allowed direction and relations (never `rdf:type`). A walk reads one snapshot
/// for all its hops: one commit, one set of maps.
fn links(
    snapshot: &crate::store::Snapshot,
    node: &str,
    direction: Direction,
    relations: &HashSet<String>,
) -> Vec<Hop> {
    let term = node_term(node);
    let keep = |predicate: &NamedNode| {
        predicate.as_str() != RDF_TYPE
            && (relations.is_empty() || relations.contains(predicate.as_str()))
    };
    let mut hops = Vec::new();
    if direction != Direction::In {
        for quad in snapshot.quads_matching(Some(&term), None, None) {
            let to = match &quad.object {
                Term::NamedNode(object) => object.as_str().to_owned(),
                Term::BlankNode(object) => format!("_:{}", object.as_str()),
                _ => continue,
            };
            if quad.graph_name.is_default_graph() && keep(&quad.predicate) {
                hops.push(Hop {
                    from: node.to_owned(),
                    relation: quad.predicate.as_str().to_owned(),
                    to,
                    forward: true,
                });
            }
        }
    }
    if direction != Direction::Out {
        for quad in snapshot.quads_matching(None, None, Some(&term)) {
            let to = match &quad.subject {
                crate::model::NamedOrBlankNode::NamedNode(subject) => subject.as_str().to_owned(),
                crate::model::NamedOrBlankNode::BlankNode(subject) => {
                    format!("_:{}", subject.as_str())
                }
            };
            if quad.graph_name.is_default_graph() && keep(&quad.predicate) {
                hops.push(Hop {
                    from: node.to_owned(),
                    relation: quad.predicate.as_str().to_owned(),
                    to,
                    forward: false,
                });
            }
        }
    }
    hops.sort_by(|a, b| (&a.relation, &a.to).cmp(&(&b.relation, &b.to)));
    hops.dedup_by(|a, b| a.relation == b.relation && a.to == b.to && a.forward == b.forward);
    hops
}

/// The term of a node of a walk: an IRI, or `_:label` for a blank node (no IRI starts
/// with `_:`: a scheme starts with a letter).
fn node_term(node: &str) -> Term {
    match node.strip_prefix("_:") {
        Some(label) => crate::model::BlankNode::new_unchecked(label).into(),
        None => NamedNode::new_unchecked(node).into(),
    }
}

/// A walk's node as answers show terms: `{"iri"}` or `{"bnode"}`.
fn node_json(node: &str) -> Value {
    match node.strip_prefix("_:") {
        Some(label) => json!({ "bnode": label }),
        None => json!({ "iri": node }),
    }
}

fn label(snapshot: &crate::store::Snapshot, node: &str) -> Option<String> {
    let term = node_term(node);
    let predicate: Term = NamedNode::new_unchecked(RDFS_LABEL).into();
    snapshot
        .quads_matching(Some(&term), Some(&predicate), None)
        .into_iter()
        .filter(|q| q.graph_name.is_default_graph())
        .find_map(|q| match q.object {
            Term::Literal(l) => Some(cut(l.value(), 200).0),
            _ => None,
        })
}

/// A walk's bound: `default` when not given, refused outside `1..=max`.
fn bounded(
    value: Option<usize>,
    default: usize,
    max: usize,
    param: &str,
) -> Result<usize, ApiError> {
    let value = value.unwrap_or(default);
    if !(1..=max).contains(&value) {
        return Err(ApiError::invalid_argument(
            param,
            format!("{param} must be between 1 and {max}"),
        ));
    }
    Ok(value)
}

/// The relations a walk may follow, as IRIs (empty: all).
fn relation_set(graph_name: &str, relations: &[String]) -> HashSet<String> {
    relations
        .iter()
        .map(|r| relation_iri(graph_name, r).as_str().to_owned())
        .collect()
}

/// Path search never expands more partial paths than this (hubs make paths explode).
const MAX_EXPANSIONS: usize = 50_000;

/// `paths`: bounded paths between two records, shortest first.
pub fn paths(ctx: &Context, common: &Common, query: &PathsQuery) -> Result<Envelope, ApiError> {
    let graph_name = graph_name(&common.graph);
    let source = node_iri(&graph_name, &query.source, "source")?;
    let target = node_iri(&graph_name, &query.target, "target")?;
    let max_depth = bounded(query.walk.max_depth, 4, 8, "max_depth")?;
    let max_paths = bounded(query.max_paths, 5, 20, "max_paths")?;
    let direction = query.walk.direction.unwrap_or(Direction::Both);
    let relations = relation_set(&graph_name, &query.walk.relations);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
    let snapshot = graph.snapshot(seq);
    let mut found: Vec<Vec<Hop>> = Vec::new();
    let mut queue: VecDeque<(String, Vec<Hop>)> =
        VecDeque::from([(source.as_str().to_owned(), Vec::new())]);
    let mut expansions = 0;
    let mut exhausted = true;
    // One path more than asked tells whether the answer was cut.
    let wanted = max_paths + 1;
    while let Some((node, path)) = queue.pop_front() {
        if found.len() >= wanted {
            break;
        }
        if path.len() >= max_depth {
            continue;
        }
        expansions += 1;
        if expansions > MAX_EXPANSIONS {
            exhausted = false;
            break;
        }
        for hop in links(&snapshot, &node, direction, &relations) {
            // Simple paths only: never revisit a node of this path.
            if hop.to == source.as_str() || path.iter().any(|h| h.to == hop.to) {
                continue;
            }
            let mut next = path.clone();
            next.push(hop.clone());
            if hop.to == target.as_str() {
                found.push(next);
                if found.len() >= wanted {
                    break;
                }
            } else {
                queue.push_back((hop.to.clone(), next));
            }
        }
    }
    let more = found.len() > max_paths;
    found.truncate(max_paths);
    let render_path = |path: &Vec<Hop>| {
        json!({
            "length": path.len(),
            "links": path.iter().map(|h| json!({
                "from": h.from, "relation": h.relation, "to": h.to,
                "direction": if h.forward { "out" } else { "in" },
                "to_label": label(&snapshot, &h.to),
            })).collect::<Vec<_>>(),
        })
    };
    let rendered: Vec<Value> = found.iter().map(render_path).collect();
    let summary = match found.first() {
        None => format!(
            "no path of at most {max_depth} links from <{}> to <{}> at commit {seq} of graph {graph_name}",
            source.as_str(),
            target.as_str()
        ),
        Some(shortest) => format!(
            "{}{} path(s) at commit {seq} of graph {graph_name}; the shortest has {} link(s)",
            if more { "the first " } else { "" },
            found.len(),
            shortest.len()
        ),
    };
    let mut envelope = Envelope::new(
        summary,
        json!({ "source": source.as_str(), "target": target.as_str(), "paths": rendered }),
        seq,
    );
    if more {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!(
            "more paths of at most {max_depth} links exist than the {max_paths} shown (shortest first): raise `max_paths` (at most 20), or narrow `max_depth`, `relations` or `direction`"
        ));
    }
    if !exhausted {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!("the search stopped after {MAX_EXPANSIONS} expansions (hubs); narrow `relations` or `direction`"));
    }
    Ok(envelope)
}

/// `neighborhood`: the bounded subgraph around a record.
pub fn neighborhood(
    ctx: &Context,
    common: &Common,
    query: &NeighborhoodQuery,
) -> Result<Envelope, ApiError> {
    let graph_name = graph_name(&common.graph);
    let center = node_iri(&graph_name, &query.center, "source")?;
    let max_depth = bounded(query.walk.max_depth, 2, 4, "max_depth")?;
    let max_nodes = bounded(query.max_nodes, 50, 500, "max_nodes")?;
    let direction = query.walk.direction.unwrap_or(Direction::Both);
    let relations = relation_set(&graph_name, &query.walk.relations);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
    let snapshot = graph.snapshot(seq);
    let mut depth_of: BTreeMap<String, usize> = BTreeMap::from([(center.as_str().to_owned(), 0)]);
    let mut order = vec![center.as_str().to_owned()];
    let mut edges: Vec<(String, String, String)> = Vec::new();
    let mut frontier = VecDeque::from([center.as_str().to_owned()]);
    let mut truncated = false;
    while let Some(node) = frontier.pop_front() {
        let depth = depth_of[&node];
        if depth >= max_depth {
            continue;
        }
        for hop in links(&snapshot, &node, direction, &relations) {
            if !depth_of.contains_key(&hop.to) {
                if depth_of.len() >= max_nodes {
                    truncated = true;
                    continue;
                }
                depth_of.insert(hop.to.clone(), depth + 1);
                order.push(hop.to.clone());
                frontier.push_back(hop.to.clone());
            }
            let (s, o) = if hop.forward {
                (hop.from.clone(), hop.to.clone())
            } else {
                (hop.to.clone(), hop.from.clone())
            };
            edges.push((s, hop.relation.clone(), o));
        }
    }
    // The outer ring was not expanded: its links to nodes already shown (to each other,
    // or back inwards in a direction the inner node did not follow) belong in the picture.
    for node in order.iter().filter(|n| depth_of[*n] == max_depth) {
        for hop in links(&snapshot, node, direction, &relations) {
            if depth_of.contains_key(&hop.to) {
                edges.push(if hop.forward {
                    (hop.from, hop.relation, hop.to)
                } else {
                    (hop.to, hop.relation, hop.from)
                });
            }
        }
    }
    edges.sort();
    edges.dedup();
    let nodes: Vec<Value> = order
        .iter()
        .map(|node| {
            let mut shown = node_json(node);
            shown["label"] = json!(label(&snapshot, node));
            shown["depth"] = json!(depth_of[node]);
            shown
        })
        .collect();
    let links: Vec<Value> = edges
        .iter()
        .map(|(s, p, o)| json!({ "from": s, "relation": p, "to": o }))
        .collect();
    let mut envelope = Envelope::new(
        format!(
            "{} node(s) and {} link(s) within {max_depth} hop(s) of <{}> at commit {seq} of graph {graph_name}",
            nodes.len(),
            links.len(),
            center.as_str()
        ),
        json!({ "center": center.as_str(), "nodes": nodes, "links": links }),
        seq,
    );
    if truncated {
        envelope.truncated = Some(true);
        envelope = envelope.note(format!("stopped at max_nodes {max_nodes}"));
    }
    Ok(envelope)
}

/// Instances sampled by `describe`.
const DESCRIBE_SAMPLE: usize = 500;
/// Properties with at most this many distinct values list them all.
const SMALL_VALUE_SET: u64 = 12;

/// A class given by IRI, or by the name of a type of the graph's ontology at `seq`. A
/// name the ontology does not define is `unknown_type`, listing the types it does define
/// (and, when it defines none, classes the data uses, to give by IRI).
pub(super) fn known_class(
    graph: &Graph,
    graph_name: &str,
    seq: u64,
    class: &str,
    param: &str,
) -> Result<NamedNode, ApiError> {
    let class = class.trim();
    if class.contains("://") || class.starts_with("urn:") {
        return NamedNode::new(class.trim_start_matches('<').trim_end_matches('>'))
            .map_err(|e| ApiError::invalid_argument(param, format!("not an IRI: {e}")));
    }
    let iris = RecordIris::for_graph(graph_name);
    let iri = iris.class(class);
    let ontology = crate::ontology::read(&graph.snapshot(seq), &iris);
    if !class.is_empty()
        && ontology
            .types
            .contains_key(iri.as_str().trim_start_matches(&iris.class_prefix()))
    {
        return Ok(iri);
    }
    let known = if ontology.types.is_empty() {
        let used = graph
            .read_at(seq)
            .query(
                &format!(
                    "SELECT ?c WHERE {{ {{ SELECT ?c (COUNT(*) AS ?n) WHERE {{ ?s <{RDF_TYPE}> ?c }} GROUP BY ?c }} FILTER(isIRI(?c)) }} ORDER BY DESC(?n) LIMIT 10"
                ),
                &ReadOptions {
                    timeout: Some(std::time::Duration::from_secs(5)),
                    ..ReadOptions::default()
                },
            )
            .ok()
            .and_then(|answer| match answer.results {
                QueryResults::Solutions(rows) => Some(
                    rows.filter_map(Result::ok)
                        .filter_map(|row| row.get("c").map(|c| c.to_string()))
                        .collect::<Vec<_>>(),
                ),
                _ => None,
            })
            .unwrap_or_default();
        if used.is_empty() {
            format!(
                "graph {graph_name:?} defines no types at commit {seq}; define them with configure (define_ontology) or give a class IRI"
            )
        } else {
            format!(
                "graph {graph_name:?} defines no types at commit {seq}; give a class IRI, e.g. one its data uses: {}",
                used.join(", ")
            )
        }
    } else {
        format!(
            "known types: {} (or give a class IRI)",
            ontology
                .types
                .values()
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Err(ApiError {
        code: crate::error::ErrorCode::UnknownType,
        message: format!("unknown type {class:?}; {known}"),
        param: Some(param.to_owned()),
        validation: None,
    })
}

/// Up to 5 subtypes of `class` (`rdfs:subClassOf`, transitively) at `seq`: the modes that
/// read a class without entailment say that their instances were left out.
pub(super) fn subtypes_of(
    ctx: &Context,
    graph: &Graph,
    seq: u64,
    class: &NamedNode,
) -> Result<Vec<String>, ApiError> {
    let query = format!(
        "SELECT DISTINCT ?sub WHERE {{ ?sub <http://www.w3.org/2000/01/rdf-schema#subClassOf>+ <{0}> FILTER(?sub != <{0}>) }} ORDER BY ?sub LIMIT 5",
        class.as_str()
    );
    Ok(select_rows(ctx, graph, seq, &query, None)?
        .iter()
        .filter_map(|row| render::iri(row, "sub").map(str::to_owned))
        .collect())
}

/// `describe`: what sampled instances of a class hold, or what a property connects.
pub fn describe(
    ctx: &Context,
    common: &Common,
    query: &DescribeQuery,
) -> Result<Envelope, ApiError> {
    let graph_name = graph_name(&common.graph);
    let graph = ctx.engine.graph(&graph_name)?;
    let seq = graph.resolve_seq(common.as_of_commit_seq, None)?;
    let select = |query: String| select_rows(ctx, &graph, seq, &query, None);
    // Fields naming a property or a type hold bare IRIs; examples and values are terms.
    let iri_fields = ["property", "type", "kind"];
    let show = |rows: &[Row]| render::rows(rows, &iri_fields, 200);
    match query {
        DescribeQuery::Class(class) => {
            let class = known_class(&graph, &graph_name, seq, class, "class")?;
            let sample = format!(
                "{{ SELECT ?s WHERE {{ ?s <{RDF_TYPE}> <{}> }} LIMIT {DESCRIBE_SAMPLE} }}",
                class.as_str()
            );
            let count = select(format!(
                "SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{RDF_TYPE}> <{}> }}",
                class.as_str()
            ))?;
            let instances = count.first().map_or(0, |r| render::count(r, "n"));
            let outgoing = select(format!(
                "SELECT ?property (COUNT(DISTINCT ?s) AS ?holders) (COUNT(DISTINCT ?o) AS ?distinct) (SAMPLE(?o) AS ?example) (GROUP_CONCAT(DISTINCT ?kind; separator=\" \") AS ?kinds) WHERE {{ {sample} ?s ?property ?o BIND(IF(isIRI(?o), \"iri\", IF(isBlank(?o), \"bnode\", STR(DATATYPE(?o)))) AS ?kind) }} GROUP BY ?property ORDER BY DESC(?holders) ?property"
            ))?;
            let incoming = select(format!(
                "SELECT ?property (COUNT(DISTINCT ?s) AS ?holders) (SAMPLE(?from) AS ?example) WHERE {{ {sample} ?from ?property ?s }} GROUP BY ?property ORDER BY DESC(?holders) ?property"
            ))?;
            let mut properties = Vec::new();
            for row in &outgoing {
                let mut entry = render::row(row, &iri_fields, 200).0;
                // Every kind of value the sample holds, not one value's: `kind` is "mixed"
                // when there are several (say IRIs and strings), listed in `kinds`.
                let mut kinds: Vec<&str> = match row.get("kinds") {
                    Some(Term::Literal(kinds)) => kinds.value().split(' ').collect(),
                    _ => Vec::new(),
                };
                kinds.sort_unstable();
                if let Value::Object(fields) = &mut entry {
                    fields.remove("kinds");
                    fields.insert(
                        "kind".into(),
                        match kinds.as_slice() {
                            [one] => json!(one),
                            _ => json!("mixed"),
                        },
                    );
                    fields.insert("kinds".into(), json!(kinds));
                }
                if render::count(row, "distinct") <= SMALL_VALUE_SET
                    && let Some(property) = render::iri(row, "property")
                {
                    let values = select(format!(
                        "SELECT DISTINCT ?value WHERE {{ {sample} ?s <{property}> ?value }} LIMIT {SMALL_VALUE_SET}"
                    ))?;
                    entry["values"] = values
                        .iter()
                        .filter_map(|r| r.get("value"))
                        .map(|value| render::term(value, 200).0)
                        .collect();
                }
                properties.push(entry);
            }
            let sampled = instances.min(DESCRIBE_SAMPLE as u64);
            let subtypes = subtypes_of(ctx, &graph, seq, &class)?;
            let envelope = Envelope::new(
                format!(
                    "<{}>: {instances} instance(s) at commit {seq} of graph {graph_name}; {} properties held by the {sampled} sampled",
                    class.as_str(),
                    properties.len()
                ),
                json!({ "class": class.as_str(), "instances": instances, "sampled": sampled, "properties": properties, "incoming": show(&incoming) }),
                seq,
            );
            Ok(if subtypes.is_empty() {
                envelope
            } else {
                envelope.note(format!(
                    "<{}> has subtypes ({}): records typed only with those are not counted or sampled here; describe each subtype too",
                    class.as_str(),
                    subtypes.join(", ")
                ))
            })
        }
        DescribeQuery::Property(property) => {
            let iri = relation_iri(&graph_name, property);
            let iri = if graph
                .read_at(seq)
                .quads_matching(None, Some(&iri.clone().into()), None)
                .is_empty()
            {
                RecordIris::for_graph(&graph_name).field(property)
            } else {
                iri
            };
            let rows = select(format!(
                "SELECT (COUNT(*) AS ?uses) (COUNT(DISTINCT ?s) AS ?subjects) (COUNT(DISTINCT ?o) AS ?distinct) WHERE {{ ?s <{}> ?o }}",
                iri.as_str()
            ))?;
            let subject_types = select(format!(
                "SELECT ?type (COUNT(DISTINCT ?s) AS ?n) WHERE {{ ?s <{}> ?o . ?s <{RDF_TYPE}> ?type }} GROUP BY ?type ORDER BY DESC(?n) LIMIT 10",
                iri.as_str()
            ))?;
            let object_kinds = select(format!(
                "SELECT ?kind (COUNT(*) AS ?n) (SAMPLE(?o) AS ?example) WHERE {{ ?s <{}> ?o . OPTIONAL {{ ?o <{RDF_TYPE}> ?type }} BIND(COALESCE(?type, IF(isIRI(?o), \"iri\", IF(isBlank(?o), \"bnode\", STR(DATATYPE(?o))))) AS ?kind) }} GROUP BY ?kind ORDER BY DESC(?n) LIMIT 10",
                iri.as_str()
            ))?;
            let totals = rows.first().cloned().unwrap_or_default();
            Ok(Envelope::new(
                format!(
                    "<{}>: {} use(s) at commit {seq} of graph {graph_name}",
                    iri.as_str(),
                    render::count(&totals, "uses")
                ),
                json!({ "property": iri.as_str(), "totals": render::row(&totals, &[], 200).0, "subject_types": show(&subject_types), "objects": show(&object_kinds) }),
                seq,
            ))
        }
    }
}
