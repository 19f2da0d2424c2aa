//! The `query` tool's arguments: the flat wire form every surface sends (`QueryArgs`, one
//! JSON Schema for the tool list) and, parsed by its mode, one typed struct per mode
//! (`ModeQuery`), so each mode's code sees only what it takes, with what it needs present.

use schemars::JsonSchema;
use serde::Deserialize;

use super::modes::{Direction, Node, Point};
use super::search::SearchFilter;
use super::structured::Structured;
use super::traverse::Traversal;
use crate::error::ApiError;
use crate::query::envelope::Detail;

/// Arguments of the `query` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// What to do (see the tool's description).
    pub mode: QueryMode,
    #[serde(default)]
    pub graph: Option<String>,
    /// `sparql`, `compare`: the query.
    #[serde(default)]
    pub sparql: Option<String>,
    /// Read at this commit instead of the head.
    #[serde(default)]
    pub as_of_commit_seq: Option<u64>,
    #[serde(default)]
    pub min_commit_seq: Option<u64>,
    /// Rows per page (at most the `detail`'s).
    #[serde(default)]
    pub row_limit: Option<usize>,
    /// From the previous answer's `next`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Rows per page and string length: compact (default: 20, 300) | standard (100, 1000) |
    /// full (1000, 5000; shows compiled SPARQL).
    #[serde(default)]
    pub detail: Option<Detail>,
    /// `structured`, `analyze`: the JSON query.
    #[serde(default)]
    pub structured: Option<Structured>,
    /// `traverse`: {steps, fields}.
    #[serde(default)]
    pub traverse: Option<Traversal>,
    /// `structured`, `traverse`: a date or moment: only links valid in the world then.
    /// Old name: `as_of`.
    #[serde(default)]
    pub valid_at: Option<String>,
    /// The old spelling of `valid_at`, still accepted (not in the schema); both at once
    /// are refused, naming `as_of`.
    #[serde(default)]
    #[schemars(skip)]
    pub as_of: Option<String>,
    /// `sparql`, `structured`, `traverse`: none (default) | subclass | rdfs (inference at
    /// query time).
    #[serde(default)]
    pub entailment: Option<String>,
    #[serde(default)]
    pub by: Option<String>,
    /// `analyze`: bar (default) | pie.
    #[serde(default)]
    pub chart: Option<String>,
    /// `describe`: the class; `search`: only hits of this searchable class (name or IRI).
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub property: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// `commit_at`: a date (its end, UTC) or an RFC 3339 moment.
    #[serde(default)]
    pub at: Option<String>,
    #[serde(default)]
    pub from: Option<Point>,
    #[serde(default)]
    pub to: Option<Point>,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub source: Option<Node>,
    #[serde(default)]
    pub target: Option<Node>,
    /// `paths`, `neighborhood`: only these relations (default all).
    #[serde(default)]
    pub relations: Vec<String>,
    /// `paths`, `neighborhood`: out | in | both (default).
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Hops: `paths` ≤ 8 (default 4), `neighborhood` ≤ 4 (default 2).
    #[serde(default)]
    pub max_depth: Option<usize>,
    /// `paths`: ≤ 20 (default 5).
    #[serde(default)]
    pub max_paths: Option<usize>,
    /// `neighborhood`: ≤ 500 (default 50).
    #[serde(default)]
    pub max_nodes: Option<usize>,
    #[serde(default)]
    pub text: Option<String>,
    /// `search`: a vector instead of `text`.
    #[serde(default)]
    pub embedding: Option<Vec<f32>>,
    /// `search`: dense (meaning) | sparse (BM25) | hybrid (default: both, rank-fused).
    #[serde(default)]
    pub lane: Option<String>,
    /// `search`: all must pass: links {via, to?, direction?} and fields {field, op:
    /// eq|ne|lt|le|gt|ge|between|any_of, value}.
    #[serde(default)]
    pub filters: Option<Vec<SearchFilter>>,
    /// `search`: how many hits (default 10, ≤ 200).
    #[serde(default)]
    pub top_k: Option<usize>,
    /// `search`: drop hits scoring lower.
    #[serde(default)]
    pub min_score: Option<f32>,
    /// `search`: the plan (nearest | filter_first | filtered_nearest) without running it.
    #[serde(default)]
    pub explain: Option<bool>,
    /// `search`: eventual (default) | strong (wait for the index).
    #[serde(default)]
    pub consistency: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueryMode {
    /// A SPARQL 1.1 query.
    Sparql,
    /// A JSON query compiled to SPARQL (same pinning and pages).
    Structured,
    /// A pipeline of steps (start, follow links, filter, order, limit, collect/count/group).
    Traverse,
    /// Counts by type, by relation, or by a structured aggregate, with a Vega-Lite chart.
    Analyze,
    /// A name → candidate records (exact, then case-insensitive, then prefix, then contains).
    Names,
    /// Which fields and links sampled instances of a class hold, or what a property links.
    Describe,
    /// A date or moment → the commit that was the head then.
    CommitAt,
    /// A SELECT run at two points → rows added, removed and changed.
    Compare,
    /// Bounded paths between two records, shortest first.
    Paths,
    /// The bounded subgraph around a record.
    Neighborhood,
    /// Records nearest to some words (meaning, keywords or both), with filters.
    Search,
}

/// What each mode takes besides the arguments every mode takes (`graph`,
/// `as_of_commit_seq`, `row_limit`, `cursor`, `detail`).
fn mode_arguments(mode: QueryMode) -> &'static [&'static str] {
    match mode {
        QueryMode::Sparql => &["sparql", "entailment"],
        QueryMode::Structured => &["structured", "valid_at", "as_of", "entailment"],
        QueryMode::Traverse => &["traverse", "valid_at", "as_of", "entailment"],
        QueryMode::Analyze => &["by", "chart", "structured"],
        QueryMode::Names => &["name"],
        QueryMode::Describe => &["class", "property"],
        QueryMode::CommitAt => &["at"],
        QueryMode::Compare => &["sparql", "from", "to", "key"],
        QueryMode::Paths => &[
            "source",
            "target",
            "relations",
            "direction",
            "max_depth",
            "max_paths",
        ],
        QueryMode::Neighborhood => &["source", "relations", "direction", "max_depth", "max_nodes"],
        QueryMode::Search => &[
            "text",
            "embedding",
            "class",
            "lane",
            "filters",
            "top_k",
            "min_score",
            "explain",
            "consistency",
        ],
    }
}

const MODES: [QueryMode; 11] = [
    QueryMode::Sparql,
    QueryMode::Structured,
    QueryMode::Traverse,
    QueryMode::Analyze,
    QueryMode::Names,
    QueryMode::Describe,
    QueryMode::CommitAt,
    QueryMode::Compare,
    QueryMode::Paths,
    QueryMode::Neighborhood,
    QueryMode::Search,
];

fn mode_name(mode: QueryMode) -> String {
    serde_json::to_value(mode)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

impl QueryArgs {
    /// The mode-specific arguments this call gives.
    fn given(&self) -> Vec<&'static str> {
        let set = [
            ("sparql", self.sparql.is_some()),
            ("structured", self.structured.is_some()),
            ("traverse", self.traverse.is_some()),
            ("valid_at", self.valid_at.is_some()),
            ("as_of", self.as_of.is_some()),
            ("entailment", self.entailment.is_some()),
            ("by", self.by.is_some()),
            ("chart", self.chart.is_some()),
            ("class", self.class.is_some()),
            ("property", self.property.is_some()),
            ("name", self.name.is_some()),
            ("at", self.at.is_some()),
            ("from", self.from.is_some()),
            ("to", self.to.is_some()),
            ("key", self.key.is_some()),
            ("source", self.source.is_some()),
            ("target", self.target.is_some()),
            ("relations", !self.relations.is_empty()),
            ("direction", self.direction.is_some()),
            ("max_depth", self.max_depth.is_some()),
            ("max_paths", self.max_paths.is_some()),
            ("max_nodes", self.max_nodes.is_some()),
            ("text", self.text.is_some()),
            ("embedding", self.embedding.is_some()),
            ("lane", self.lane.is_some()),
            ("filters", self.filters.is_some()),
            ("top_k", self.top_k.is_some()),
            ("min_score", self.min_score.is_some()),
            ("explain", self.explain.is_some()),
            ("consistency", self.consistency.is_some()),
        ];
        set.into_iter()
            .filter_map(|(name, given)| given.then_some(name))
            .collect()
    }

    /// Refuses an argument the mode does not take, naming the modes that do: an agent
    /// that sends `valid_at` with `sparql`, say, learns it is ignored there instead of
    /// trusting an answer that did not use it.
    fn check_mode(&self) -> Result<(), ApiError> {
        let takes = mode_arguments(self.mode);
        if let Some(stray) = self.given().into_iter().find(|a| !takes.contains(a)) {
            let owners: Vec<String> = MODES
                .into_iter()
                .filter(|m| mode_arguments(*m).contains(&stray))
                .map(|m| format!("`{}`", mode_name(m)))
                .collect();
            return Err(ApiError::invalid_argument(
                stray,
                format!(
                    "mode `{}` does not take `{stray}` (mode {} does)",
                    mode_name(self.mode),
                    owners.join(", ")
                ),
            ));
        }
        Ok(())
    }
}

/// What every mode takes.
#[derive(Debug, Clone, Default)]
pub struct Common {
    pub graph: Option<String>,
    pub as_of_commit_seq: Option<u64>,
    pub min_commit_seq: Option<u64>,
    pub row_limit: Option<usize>,
    pub cursor: Option<String>,
    pub detail: Option<Detail>,
}

/// `sparql`: a SPARQL 1.1 query.
#[derive(Debug, Clone)]
pub struct SparqlQuery {
    pub text: String,
    pub entailment: Option<String>,
}

/// `structured`: a JSON query.
#[derive(Debug, Clone)]
pub struct StructuredQuery {
    pub body: Structured,
    pub valid_at: Option<String>,
    pub entailment: Option<String>,
}

/// `traverse`: a pipeline of steps.
#[derive(Debug, Clone)]
pub struct TraverseQuery {
    pub body: Traversal,
    pub valid_at: Option<String>,
    pub entailment: Option<String>,
}

/// `analyze`: counts by type, relation or a structured aggregate.
#[derive(Debug, Clone)]
pub struct AnalyzeQuery {
    pub by: Option<String>,
    pub chart: Option<String>,
    pub structured: Option<Structured>,
}

/// `names`: the name to resolve (trimmed, not empty).
#[derive(Debug, Clone)]
pub struct NamesQuery {
    pub name: String,
}

/// `describe`: a class or a property.
#[derive(Debug, Clone)]
pub enum DescribeQuery {
    Class(String),
    Property(String),
}

/// `commit_at`: a date or moment.
#[derive(Debug, Clone)]
pub struct CommitAtQuery {
    pub at: String,
}

/// `compare`: a SELECT at two points.
#[derive(Debug, Clone)]
pub struct CompareQuery {
    pub sparql: String,
    pub from: Point,
    pub to: Option<Point>,
    pub key: Option<String>,
}

/// How far a walk (`paths`, `neighborhood`) may go.
#[derive(Debug, Clone)]
pub struct Walk {
    pub relations: Vec<String>,
    pub direction: Option<Direction>,
    pub max_depth: Option<usize>,
}

/// `paths`: between two records.
#[derive(Debug, Clone)]
pub struct PathsQuery {
    pub source: Node,
    pub target: Node,
    pub walk: Walk,
    pub max_paths: Option<usize>,
}

/// `neighborhood`: around one record.
#[derive(Debug, Clone)]
pub struct NeighborhoodQuery {
    pub center: Node,
    pub walk: Walk,
    pub max_nodes: Option<usize>,
}

/// `search`: records nearest to some words or a vector.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: Option<String>,
    pub embedding: Option<Vec<f32>>,
    pub class: Option<String>,
    pub lane: Option<String>,
    pub filters: Option<Vec<SearchFilter>>,
    pub top_k: Option<usize>,
    pub min_score: Option<f32>,
    pub explain: bool,
    pub consistency: Option<String>,
}

/// A `query` call parsed by its mode.
#[derive(Debug, Clone)]
pub enum ModeQuery {
    Sparql(SparqlQuery),
    Structured(StructuredQuery),
    Traverse(TraverseQuery),
    Analyze(AnalyzeQuery),
    Names(NamesQuery),
    Describe(DescribeQuery),
    CommitAt(CommitAtQuery),
    Compare(CompareQuery),
    Paths(PathsQuery),
    Neighborhood(NeighborhoodQuery),
    Search(SearchQuery),
}

fn required<T>(value: Option<T>, param: &str, hint: &str) -> Result<T, ApiError> {
    value.ok_or_else(|| ApiError::invalid_argument(param, hint))
}

impl QueryArgs {
    /// Parses the call by its mode: an argument of another mode is refused (naming the
    /// modes that take it), and so is a missing one the mode needs.
    pub fn parse(mut self) -> Result<(Common, ModeQuery), ApiError> {
        self.check_mode()?;
        if let Some(old) = self.as_of.take() {
            if self.valid_at.is_some() {
                return Err(ApiError::invalid_argument(
                    "as_of",
                    "`as_of` is the old name of `valid_at`: send only `valid_at`",
                ));
            }
            self.valid_at = Some(old);
        }
        if self.row_limit == Some(0) {
            return Err(ApiError::invalid_argument(
                "row_limit",
                "row_limit is at least 1 (rows per page)",
            ));
        }
        let common = Common {
            graph: self.graph,
            as_of_commit_seq: self.as_of_commit_seq,
            min_commit_seq: self.min_commit_seq,
            row_limit: self.row_limit,
            cursor: self.cursor,
            detail: self.detail,
        };
        let walk = Walk {
            relations: self.relations,
            direction: self.direction,
            max_depth: self.max_depth,
        };
        let query = match self.mode {
            QueryMode::Sparql => ModeQuery::Sparql(SparqlQuery {
                text: required(
                    self.sparql.filter(|t| !t.trim().is_empty()),
                    "sparql",
                    "give the SPARQL query text in `sparql`",
                )?,
                entailment: self.entailment,
            }),
            QueryMode::Structured => ModeQuery::Structured(StructuredQuery {
                body: required(
                    self.structured,
                    "structured",
                    "give the JSON query in `structured`",
                )?,
                valid_at: self.valid_at,
                entailment: self.entailment,
            }),
            QueryMode::Traverse => ModeQuery::Traverse(TraverseQuery {
                body: required(
                    self.traverse,
                    "traverse",
                    "give the pipeline in `traverse`: {\"steps\": [...]}",
                )?,
                valid_at: self.valid_at,
                entailment: self.entailment,
            }),
            QueryMode::Analyze => ModeQuery::Analyze(AnalyzeQuery {
                by: self.by,
                chart: self.chart,
                structured: self.structured,
            }),
            QueryMode::Names => ModeQuery::Names(NamesQuery {
                name: required(
                    self.name
                        .map(|n| n.trim().to_owned())
                        .filter(|n| !n.is_empty()),
                    "name",
                    "give the name to resolve in `name`",
                )?,
            }),
            QueryMode::Describe => ModeQuery::Describe(match (self.class, self.property) {
                (Some(class), None) => DescribeQuery::Class(class),
                (None, Some(property)) => DescribeQuery::Property(property),
                _ => {
                    return Err(ApiError::invalid_argument(
                        "class",
                        "give a `class` or a `property` to describe",
                    ));
                }
            }),
            QueryMode::CommitAt => ModeQuery::CommitAt(CommitAtQuery {
                at: required(
                    self.at,
                    "at",
                    "give a date (2026-06-26) or an RFC 3339 moment in `at`",
                )?,
            }),
            QueryMode::Compare => ModeQuery::Compare(CompareQuery {
                sparql: required(
                    self.sparql,
                    "sparql",
                    "give the SELECT query to compare in `sparql`",
                )?,
                from: required(
                    self.from,
                    "from",
                    "give the earlier point: {\"as_of_commit_seq\": N}, {\"date\": …} or {\"moment\": …}",
                )?,
                to: self.to,
                key: self.key,
            }),
            QueryMode::Paths => ModeQuery::Paths(PathsQuery {
                source: required(self.source, "source", "give the start record in `source`")?,
                target: required(self.target, "target", "give the end record in `target`")?,
                walk,
                max_paths: self.max_paths,
            }),
            QueryMode::Neighborhood => ModeQuery::Neighborhood(NeighborhoodQuery {
                center: required(self.source, "source", "give the center record in `source`")?,
                walk,
                max_nodes: self.max_nodes,
            }),
            QueryMode::Search => ModeQuery::Search(SearchQuery {
                text: self.text,
                embedding: self.embedding,
                class: self.class,
                lane: self.lane,
                filters: self.filters,
                top_k: self.top_k,
                min_score: self.min_score,
                explain: self.explain.unwrap_or(false),
                consistency: self.consistency,
            }),
        };
        Ok((common, query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mode_refuses_the_arguments_of_other_modes() {
        let args =
            |value: serde_json::Value| -> QueryArgs { serde_json::from_value(value).unwrap() };
        let stray = args(
            serde_json::json!({"mode": "sparql", "sparql": "ASK {}", "valid_at": "2026-01-01"}),
        )
        .parse()
        .unwrap_err();
        assert_eq!(stray.param.as_deref(), Some("valid_at"));
        assert!(
            stray.message.contains("`structured`, `traverse`"),
            "{}",
            stray.message
        );
        let top_k = args(serde_json::json!({"mode": "names", "name": "x", "top_k": 3}))
            .parse()
            .unwrap_err();
        assert_eq!(top_k.param.as_deref(), Some("top_k"));
        for fine in [
            serde_json::json!({"mode": "sparql", "sparql": "ASK {}", "detail": "full", "row_limit": 5, "as_of_commit_seq": 1}),
            serde_json::json!({"mode": "search", "text": "x", "class": "Ticket", "top_k": 3, "filters": []}),
            serde_json::json!({"mode": "paths", "source": {"iri": "http://e/a"}, "target": {"iri": "http://e/b"}, "relations": ["r"]}),
        ] {
            args(fine.clone())
                .parse()
                .unwrap_or_else(|e| panic!("{fine}: {e}"));
        }
    }

    #[test]
    fn the_old_spelling_of_valid_at_is_named_when_both_are_sent() {
        let parse =
            |value: serde_json::Value| serde_json::from_value::<QueryArgs>(value).unwrap().parse();
        let body = serde_json::json!({"patterns": [{"subject": {"var": "s"}, "predicate": "type", "object": {"var": "t"}}]});
        let both = parse(serde_json::json!({"mode": "structured", "structured": body, "as_of": "2020-01-01", "valid_at": "2020-01-01"}))
            .unwrap_err();
        assert_eq!(both.param.as_deref(), Some("as_of"));
        assert!(
            both.message.contains("old name of `valid_at`"),
            "{}",
            both.message
        );
        let Ok((_, ModeQuery::Structured(old))) = parse(
            serde_json::json!({"mode": "structured", "structured": body, "as_of": "2020-01-01"}),
        ) else {
            panic!("as_of alone is accepted");
        };
        assert_eq!(old.valid_at.as_deref(), Some("2020-01-01"));
        let stray =
            parse(serde_json::json!({"mode": "sparql", "sparql": "ASK {}", "as_of": "2020-01-01"}))
                .unwrap_err();
        assert_eq!(stray.param.as_deref(), Some("as_of"));
    }

    #[test]
    fn a_mode_needs_its_own_arguments() {
        let parse = |value: serde_json::Value| {
            serde_json::from_value::<QueryArgs>(value)
                .unwrap()
                .parse()
                .err()
                .and_then(|e| e.param)
        };
        assert_eq!(
            parse(serde_json::json!({"mode": "sparql", "sparql": " "})).as_deref(),
            Some("sparql")
        );
        assert_eq!(
            parse(serde_json::json!({"mode": "names", "name": ""})).as_deref(),
            Some("name")
        );
        assert_eq!(
            parse(serde_json::json!({"mode": "paths", "source": {"iri": "http://e/a"}})).as_deref(),
            Some("target")
        );
        assert_eq!(
            parse(serde_json::json!({"mode": "describe", "class": "A", "property": "p"}))
                .as_deref(),
            Some("class")
        );
        let Ok((_, ModeQuery::Neighborhood(query))) = serde_json::from_value::<QueryArgs>(
            serde_json::json!({"mode": "neighborhood", "source": {"iri": "http://e/a"}, "max_depth": 3}),
        )
        .unwrap()
        .parse() else {
            panic!("neighborhood parses");
        };
        assert_eq!(query.walk.max_depth, Some(3));
    }
}
