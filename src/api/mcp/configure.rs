//! The `configure` tool: define the ontology (types, relations, fields) that `commit`
//! writes against. Stored as RDFS/OWL triples in the graph, versioned like data;
//! defining the same thing again changes nothing.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Context, graph_name};
use crate::api::envelope::Envelope;
use crate::api::error::{ApiError, ErrorCode};
use crate::engine::CommitRequest;
use crate::ontology::{self, FieldDef, RecordIris, RelationDef, TypeDef, ValueType};

/// Arguments of the `configure` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigureArgs {
    pub action: ConfigureAction,
    /// The graph to configure (default `main`; created by the first write).
    #[serde(default)]
    pub graph: Option<String>,
    #[serde(default)]
    pub types: Vec<TypeSpec>,
    #[serde(default)]
    pub relations: Vec<RelationSpec>,
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
    /// Report what would change without writing.
    #[serde(default)]
    pub dry_run: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfigureAction {
    /// Add types, relations and fields (idempotent).
    DefineOntology,
}

/// A type of record, e.g. `{"name": "Bug", "super_types": ["Issue"]}`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeSpec {
    pub name: String,
    #[serde(default)]
    pub super_types: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// A relation, e.g. `{"name": "FIXED_IN", "domain": "Bug", "range": "Release", "cardinality": "one"}`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationSpec {
    pub name: String,
    pub domain: String,
    pub range: String,
    /// `one` (at most one target per source) or `many` (default).
    #[serde(default)]
    pub cardinality: Option<Cardinality>,
    #[serde(default)]
    pub inverse: Option<String>,
    #[serde(default)]
    pub symmetric: bool,
    #[serde(default)]
    pub transitive: bool,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    One,
    Many,
}

/// A field of a type, e.g. `{"name": "severity", "type": "Bug", "value_type": "i64"}`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    pub name: String,
    /// The type the field belongs to.
    #[serde(rename = "type")]
    pub type_name: String,
    /// bool, i64, f64, date_time, keyword or text.
    pub value_type: String,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub allowed_values: Vec<String>,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub description: Option<String>,
}

pub fn run(ctx: &Context, args: ConfigureArgs) -> Result<Envelope, ApiError> {
    match args.action {
        ConfigureAction::DefineOntology => define(ctx, args),
    }
}

fn define(ctx: &Context, args: ConfigureArgs) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let iris = RecordIris::for_graph(&name);
    let types: Vec<TypeDef> = args
        .types
        .iter()
        .map(|t| TypeDef {
            name: t.name.clone(),
            super_types: t.super_types.clone(),
            description: t.description.clone(),
        })
        .collect();
    let relations: Vec<RelationDef> = args
        .relations
        .iter()
        .map(|r| RelationDef {
            name: r.name.clone(),
            domain: r.domain.clone(),
            range: r.range.clone(),
            functional: r.cardinality == Some(Cardinality::One),
            inverse: r.inverse.clone(),
            symmetric: r.symmetric,
            transitive: r.transitive,
            description: r.description.clone(),
        })
        .collect();
    let mut fields = Vec::new();
    for (idx, field) in args.fields.iter().enumerate() {
        let value_type = ValueType::from_name(&field.value_type).ok_or_else(|| {
            ApiError::invalid_argument(
                &format!("fields[{idx}].value_type"),
                format!(
                    "unknown value type {:?}; use bool, i64, f64, date_time, keyword or text",
                    field.value_type
                ),
            )
        })?;
        fields.push(FieldDef {
            name: field.name.clone(),
            type_name: field.type_name.clone(),
            value_type,
            unit: field.unit.clone(),
            allowed_values: field.allowed_values.clone(),
            required: field.required,
            description: field.description.clone(),
        });
    }
    if types.is_empty() && relations.is_empty() && fields.is_empty() {
        return Err(ApiError::invalid_argument(
            "types",
            "give at least one type, relation or field",
        ));
    }
    let graph = ctx.engine.graph_or_create(&name)?;
    let known = ontology::read(&graph.snapshot(graph.head_seq()), &iris);
    let quads = ontology::definition_quads(&iris, &known, &types, &relations, &fields).map_err(
        |e| match e {
            ontology::OntologyError::UnknownType(t) => ApiError {
                code: ErrorCode::UnknownType,
                message: format!("type {t:?} is neither defined in this call nor in graph {name}"),
                param: Some("types".into()),
            },
            other => ApiError::invalid_argument("types", other.to_string()),
        },
    )?;
    let (added, _) = graph.preview_quads(&quads, &[]);
    let data = |commit_seq: Option<u64>, head: u64| {
        json!({
            "changed": !added.is_empty(),
            "added_quads": added.len(),
            "commit_seq": commit_seq,
            "head_seq": head,
            "types": types.iter().map(|t| iris.class(&t.name).as_str().to_owned()).collect::<Vec<_>>(),
            "relations": relations.iter().map(|r| iris.relation(&r.name).as_str().to_owned()).collect::<Vec<_>>(),
            "fields": fields.iter().map(|f| iris.field(&f.name).as_str().to_owned()).collect::<Vec<_>>(),
        })
    };
    if args.dry_run || added.is_empty() {
        let head = graph.head_seq();
        let summary = if added.is_empty() {
            format!(
                "the ontology of graph {name} already holds all of this (changed: false, commit {head})"
            )
        } else {
            format!(
                "dry run: defining this would add {} quads to graph {name}",
                added.len()
            )
        };
        return Ok(Envelope::new(summary, data(None, head), head));
    }
    let request = CommitRequest {
        author: Some("mcp".into()),
        message: Some("define ontology".into()),
        ..CommitRequest::default()
    };
    let digest = crate::api::envelope::args_digest(&[&format!("{quads:?}")]);
    let mut digest_bytes = [0u8; 32];
    digest_bytes[..digest.len().min(32)]
        .copy_from_slice(&digest.as_bytes()[..digest.len().min(32)]);
    let outcome = graph.commit_quads(quads, &[], &request, digest_bytes)?;
    Ok(Envelope::new(
        format!(
            "defined the ontology in commit {} of graph {name} (+{} quads)",
            outcome.head_seq, outcome.inserted
        ),
        data(outcome.commit_seq, outcome.head_seq),
        outcome.head_seq,
    ))
}
