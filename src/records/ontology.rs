//! The ontology records are written against (the `configure` tool's arguments on every
//! surface): types, relations and fields, stored as RDFS/OWL triples in the graph and
//! versioned like data (defining the same thing again changes nothing); its evolution
//! (data follows renames and value-type changes); and publishing SHACL shapes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use std::sync::Arc;

use super::{Approved, ForwardedPlan, Prepared, Removal, Write, forwarded_failure};
use crate::engine::{CommitRequest, ImportFormat, ImportOptions, parse_triples};
use crate::engine::{Engine, Graph};
use crate::error::{ApiError, ErrorCode};
use crate::ontology::{self, FieldDef, RecordIris, RelationDef, TypeDef, ValueType};
use crate::query::{Envelope, graph_name};
use crate::shacl::ValidationMode;

/// Arguments of the `configure` tool.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigureArgs {
    pub action: ConfigureAction,
    #[serde(default)]
    pub graph: Option<String>,
    #[serde(default)]
    pub types: Vec<TypeSpec>,
    #[serde(default)]
    pub relations: Vec<RelationSpec>,
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
    #[serde(default)]
    pub changes: Vec<Change>,
    /// `publish_schema`: the SHACL document (replaces the published one).
    #[serde(default)]
    pub shapes: Option<String>,
    /// `publish_schema`: turtle (default), ntriples, nquads or trig.
    #[serde(default)]
    pub format: Option<String>,
    /// `publish_schema`: off, warn (default) or reject (asks the person first).
    #[serde(default)]
    pub desired_mode: Option<ModeArg>,
    #[serde(default)]
    pub dry_run: bool,
}

/// A SHACL validation mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModeArg {
    Off,
    Warn,
    Reject,
}

impl From<ModeArg> for ValidationMode {
    fn from(mode: ModeArg) -> Self {
        match mode {
            ModeArg::Off => ValidationMode::Off,
            ModeArg::Warn => ValidationMode::Warn,
            ModeArg::Reject => ValidationMode::Reject,
        }
    }
}

/// One change of `evolve_ontology`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Change {
    Rename {
        kind: TermKind,
        from: String,
        to: String,
    },
    Remove {
        kind: TermKind,
        name: String,
    },
    SetCardinality {
        relation: String,
        cardinality: Cardinality,
    },
    SetInverse {
        relation: String,
        inverse: Option<String>,
    },
    SetValueType {
        field: String,
        value_type: String,
    },
    SetAllowedValues {
        field: String,
        allowed_values: Vec<String>,
    },
    SetRequired {
        field: String,
        required: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TermKind {
    Type,
    Relation,
    Field,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConfigureAction {
    /// Add types, relations and fields (idempotent).
    DefineOntology,
    /// Change the ontology: new types, relations and fields (as `types`, `relations`,
    /// `fields`) and `changes` (rename, remove, cardinality, inverse, value type, allowed
    /// values, required).
    EvolveOntology,
    /// Publish SHACL shapes (`shapes`, `format`) with a `desired_mode`; `dry_run` checks
    /// them and counts the current records that would violate them.
    PublishSchema,
}

/// A type of record.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeSpec {
    pub name: String,
    #[serde(default)]
    pub super_types: Vec<String>,
    #[serde(default)]
    pub description: Option<String>,
}

/// A relation between types.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationSpec {
    pub name: String,
    pub domain: String,
    pub range: String,
    /// `one` target per source, or `many` (default).
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Cardinality {
    One,
    Many,
}

/// A field of a type.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FieldSpec {
    pub name: String,
    /// The type that has it.
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

/// Prepares an ontology write against the head (a dry run is answered here).
pub fn prepare(
    engine: &Arc<Engine>,
    args: ConfigureArgs,
    admin: bool,
) -> Result<Prepared<OntologyWrite>, ApiError> {
    match args.action {
        // Definitions only add: nothing to approve, the same call again changes nothing.
        ConfigureAction::DefineOntology => Ok(Prepared::Ready {
            removal: None,
            write: OntologyWrite::Define {
                engine: engine.clone(),
                args,
                admin,
            },
        }),
        ConfigureAction::EvolveOntology => prepare_evolution(engine, args, admin),
        ConfigureAction::PublishSchema => prepare_publication(engine, args, admin),
    }
}

impl super::WriteArgs for ConfigureArgs {
    type Write = OntologyWrite;

    fn prepare(
        self,
        engine: &Arc<Engine>,
        admin: bool,
    ) -> Result<Prepared<OntologyWrite>, ApiError> {
        prepare(engine, self, admin)
    }

    fn graph_mut(&mut self) -> &mut Option<String> {
        &mut self.graph
    }

    /// Shapes decide how every later write is judged: publishing them is the admin's.
    fn needs_admin(&self) -> bool {
        self.action == ConfigureAction::PublishSchema
    }
}

/// A prepared ontology write.
pub enum OntologyWrite {
    Define {
        engine: Arc<Engine>,
        args: ConfigureArgs,
        admin: bool,
    },
    Evolve(Box<EvolveWrite>),
    Publish(PublishWrite),
}

impl Write for OntologyWrite {
    fn commit(self, approved: &Approved) -> Result<Envelope, ApiError> {
        match self {
            OntologyWrite::Define {
                engine,
                args,
                admin,
            } => define(&engine, args, admin, approved.author.clone()),
            OntologyWrite::Evolve(write) => write.commit(approved),
            OntologyWrite::Publish(write) => write.commit(approved),
        }
    }
}

/// Checks shapes against the ontology and the data, then (unless `dry_run`) publishes
/// them as one commit. Publishing `reject` rules asks the person first.
fn prepare_publication(
    engine: &Arc<Engine>,
    args: ConfigureArgs,
    admin: bool,
) -> Result<Prepared<OntologyWrite>, ApiError> {
    let Some(text) = args.shapes.clone().filter(|t| !t.trim().is_empty()) else {
        return Err(ApiError::invalid_argument(
            "shapes",
            "give the SHACL shapes document (Turtle by default) in `shapes`",
        ));
    };
    let format_name = args.format.clone().unwrap_or_else(|| "turtle".into());
    let format = ImportFormat::from_name(&format_name)
        .filter(|f| {
            !matches!(
                f.0,
                oxrdfio::RdfFormat::RdfXml | oxrdfio::RdfFormat::JsonLd { .. }
            )
        })
        .ok_or_else(|| {
            ApiError::invalid_argument(
                "format",
                format!(
                    "unknown shapes format {format_name:?}; use turtle, ntriples, nquads or trig"
                ),
            )
        })?;
    let mode: ValidationMode = args.desired_mode.unwrap_or(ModeArg::Warn).into();
    let name = graph_name(&args.graph);
    let dry_run = args.dry_run;
    let options = ImportOptions {
        format,
        base_iri: None,
        into_graph: None,
        one_graph: false,
        source_name: "shapes".into(),
    };
    let triples = parse_triples(text.as_bytes(), &options, None)
        .map_err(|e| ApiError::from(e).with_param("shapes"))?;
    let graph = if dry_run {
        engine.graph(&name)?
    } else {
        engine.graph_to_write(&name, admin)?
    };
    let preview = graph
        .preview_shapes(triples.clone())
        .map_err(|e| ApiError::from(e).with_param("shapes"))?;
    let current = graph.active_shapes();
    let names = |set: &[crate::model::NamedNode]| {
        set.iter()
            .map(|n| n.as_str().to_owned())
            .collect::<Vec<_>>()
    };
    let targets: Vec<String> = preview
        .shapes
        .target_classes
        .iter()
        .map(|n| n.as_str().to_owned())
        .collect();
    let violating: std::collections::BTreeSet<String> = preview
        .report
        .results
        .iter()
        .filter(|r| r.severity == crate::shacl::Severity::Violation)
        .map(|r| r.focus_node.to_string())
        .collect();
    let unknown_classes = names(&preview.unknown_classes);
    let unknown_properties = names(&preview.unknown_properties);
    let data = json!({
        "mode": mode.name(),
        "shape_count": preview.shapes.shape_count,
        "target_classes": targets,
        "unknown_classes": unknown_classes,
        "unknown_properties": unknown_properties,
        "records_violating": violating.len(),
        "current_mode": current.as_ref().map(|c| c.mode.name()),
        "report": crate::report::report_json(&preview.report, 0, crate::report::INLINE_RESULTS),
    });
    let unknown_note = if unknown_classes.is_empty() && unknown_properties.is_empty() {
        String::new()
    } else {
        format!(
            "; names unknown to the ontology and the data: {}",
            unknown_classes
                .iter()
                .chain(&unknown_properties)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let head = preview.validated_at_seq;
    if dry_run {
        let summary = format!(
            "dry run: {} shape(s) targeting {}; {} current record(s) of graph {name} would violate them (commit {head}){unknown_note}; nothing written",
            preview.shapes.shape_count,
            if targets.is_empty() {
                "no class".to_owned()
            } else {
                targets.join(", ")
            },
            violating.len(),
        );
        return Ok(Prepared::Answered(Envelope::new(summary, data, head)));
    }
    let removal = if mode == ValidationMode::Reject {
        let question_text = format!(
            "Publish SHACL rules in reject mode on graph \"{name}\"? From now on, commits that leave a violation will be refused for records of: {}. {} current record(s) already violate them ({} result(s)).",
            if targets.is_empty() {
                "(no target class: explicit targets only)".to_owned()
            } else {
                targets.join(", ")
            },
            violating.len(),
            preview.report.results.len()
        );
        // The answer is bound to these exact shapes on this graph.
        Some(Removal {
            graph: name.clone(),
            what: "Publishing reject rules",
            quads: Vec::new(),
            text: Some(question_text),
            fingerprint: vec!["publish_schema".into(), name.clone(), text_digest(&text)],
        })
    } else {
        None
    };
    Ok(Prepared::Ready {
        removal,
        write: OntologyWrite::Publish(PublishWrite {
            graph,
            name,
            triples,
            mode,
            admin,
            data,
            shape_count: preview.shapes.shape_count,
            violating: violating.len(),
            unknown_note,
        }),
    })
}

/// Shapes to publish, checked.
pub struct PublishWrite {
    graph: Arc<Graph>,
    name: String,
    triples: Vec<crate::model::Triple>,
    mode: ValidationMode,
    admin: bool,
    data: serde_json::Value,
    shape_count: usize,
    violating: usize,
    unknown_note: String,
}

impl PublishWrite {
    fn commit(self, approved: &Approved) -> Result<Envelope, ApiError> {
        let PublishWrite {
            graph,
            name,
            triples,
            mode,
            admin,
            mut data,
            shape_count,
            violating,
            unknown_note,
        } = self;
        let request = CommitRequest {
            author: approved.author.clone(),
            message: Some(format!("publish SHACL shapes ({} mode)", mode.name())),
            admin,
            ..CommitRequest::default()
        };
        let outcome = graph.publish_shapes(triples, mode, &request)?;
        data["commit_seq"] = outcome.commit_seq.into();
        data["head_seq"] = outcome.head_seq.into();
        if let Some(validation) = &outcome.validation {
            data["report"] = crate::report::validation_json(validation);
        }
        let summary = match outcome.commit_seq {
            Some(seq) => format!(
                "published {shape_count} shape(s) in {} mode as commit {seq} of graph {name}; {violating} record(s) currently violate them{unknown_note}",
                mode.name(),
            ),
            None => format!(
                "these shapes and mode are already published on graph {name} (commit {})",
                outcome.head_seq
            ),
        };
        Ok(Envelope::new(summary, data, outcome.head_seq))
    }
}

fn text_digest(text: &str) -> String {
    crate::query::envelope::args_digest(&[text])
}

/// The changes an evolution makes.
struct Evolution {
    inserts: Vec<crate::model::Quad>,
    deletes: Vec<crate::model::Quad>,
    conflicts: Vec<String>,
    /// Removals and narrowings that rewrite or drop data need the person's approval.
    destructive: bool,
}

fn type_local(iris: &RecordIris, name: &str) -> String {
    iris.class(name)
        .as_str()
        .trim_start_matches(&iris.class_prefix())
        .to_owned()
}

fn plan_evolution(
    snapshot: &crate::store::Snapshot,
    iris: &RecordIris,
    args: &ConfigureArgs,
) -> Result<(Evolution, ontology::Ontology), ApiError> {
    let old = ontology::read(snapshot, iris);
    let mut evolving = Evolving {
        snapshot,
        iris,
        new: old.clone(),
        inserts: Vec::new(),
        deletes: Vec::new(),
        conflicts: Vec::new(),
        destructive: false,
    };
    let Definitions {
        types,
        relations,
        fields,
    } = definitions(args)?;
    for mut t in types {
        let local = type_local(iris, &t.name);
        // A definition replaces the type's, not the names its records were made from.
        if let Some(known) = evolving.new.types.get(&local) {
            t.former_names.clone_from(&known.former_names);
        }
        evolving.new.types.insert(local, t);
    }
    for r in relations {
        evolving.new.relations.insert(type_local(iris, &r.name), r);
    }
    for f in fields {
        evolving.new.fields.insert(type_local(iris, &f.name), f);
    }
    for (idx, change) in args.changes.iter().enumerate() {
        let param = format!("changes[{idx}]");
        match change {
            Change::Rename { kind, from, to } => evolving.rename(&param, *kind, from, to)?,
            Change::Remove { kind, name } => evolving.remove(&param, *kind, name)?,
            Change::SetCardinality {
                relation,
                cardinality,
            } => {
                let def = evolving
                    .new
                    .relations
                    .get_mut(&type_local(iris, relation))
                    .ok_or_else(|| {
                        unknown(
                            ErrorCode::UnknownRelation,
                            format!("{param}.relation"),
                            "relation",
                            relation,
                        )
                    })?;
                def.functional = *cardinality == Cardinality::One;
                if def.functional {
                    let mut targets: std::collections::BTreeMap<String, usize> =
                        std::collections::BTreeMap::new();
                    for quad in
                        snapshot.quads_matching(None, Some(&iris.relation(relation).into()), None)
                    {
                        *targets.entry(quad.subject.to_string()).or_default() += 1;
                    }
                    for (source, n) in targets.into_iter().filter(|(_, n)| *n > 1).take(20) {
                        evolving
                            .conflicts
                            .push(format!("{source} has {n} {relation} targets"));
                    }
                }
            }
            Change::SetInverse { relation, inverse } => {
                let def = evolving
                    .new
                    .relations
                    .get_mut(&type_local(iris, relation))
                    .ok_or_else(|| {
                        unknown(
                            ErrorCode::UnknownRelation,
                            format!("{param}.relation"),
                            "relation",
                            relation,
                        )
                    })?;
                def.inverse = inverse.clone();
            }
            Change::SetValueType { field, value_type } => {
                evolving.set_value_type(&param, field, value_type)?
            }
            Change::SetAllowedValues {
                field,
                allowed_values,
            } => {
                let def = evolving
                    .new
                    .fields
                    .get_mut(&type_local(iris, field))
                    .ok_or_else(|| {
                        unknown(
                            ErrorCode::UnknownField,
                            format!("{param}.field"),
                            "field",
                            field,
                        )
                    })?;
                def.allowed_values = allowed_values.clone();
                if !allowed_values.is_empty() {
                    for quad in snapshot.quads_matching(None, Some(&iris.field(field).into()), None)
                    {
                        if let crate::model::Term::Literal(literal) = &quad.object
                            && !allowed_values.iter().any(|a| a == literal.value())
                        {
                            evolving.conflicts.push(format!(
                                "{} has {field} = {literal}, not one of {}",
                                quad.subject,
                                allowed_values.join(", ")
                            ));
                        }
                    }
                }
            }
            Change::SetRequired { field, required } => {
                let def = evolving
                    .new
                    .fields
                    .get_mut(&type_local(iris, field))
                    .ok_or_else(|| {
                        unknown(
                            ErrorCode::UnknownField,
                            format!("{param}.field"),
                            "field",
                            field,
                        )
                    })?;
                def.required = *required;
                if *required {
                    let def = def.clone();
                    evolving.conflicts.extend(
                        super::commit::lacking_field(snapshot, iris, &evolving.new, &def, 20)
                            .into_iter()
                            .map(|record| format!("{record} has no {field}")),
                    );
                }
            }
        }
    }
    // The ontology the changes make must hold together; what does not is a conflict
    // (reported by a dry run, refused otherwise), and its definitions are not written.
    let problems = ontology::problems(&evolving.new);
    if !problems.is_empty() {
        evolving.conflicts.extend(problems);
        return Ok((
            Evolution {
                inserts: evolving.inserts,
                deletes: evolving.deletes,
                conflicts: evolving.conflicts,
                destructive: evolving.destructive,
            },
            evolving.new,
        ));
    }
    let as_lists = |o: &ontology::Ontology| {
        (
            o.types.values().cloned().collect::<Vec<_>>(),
            o.relations.values().cloned().collect::<Vec<_>>(),
            o.fields.values().cloned().collect::<Vec<_>>(),
        )
    };
    let (old_t, old_r, old_f) = as_lists(&old);
    let (new_t, new_r, new_f) = as_lists(&evolving.new);
    let empty = ontology::Ontology::default();
    let old_quads =
        ontology::definition_quads(iris, &empty, &old_t, &old_r, &old_f).unwrap_or_default();
    let new_quads =
        ontology::definition_quads(iris, &empty, &new_t, &new_r, &new_f).map_err(|e| ApiError {
            code: ErrorCode::UnknownType,
            message: e.to_string(),
            param: Some("changes".into()),
            validation: None,
        })?;
    evolving
        .deletes
        .extend(old_quads.iter().filter(|q| !new_quads.contains(q)).cloned());
    evolving
        .inserts
        .extend(new_quads.into_iter().filter(|q| !old_quads.contains(q)));
    Ok((
        Evolution {
            inserts: evolving.inserts,
            deletes: evolving.deletes,
            conflicts: evolving.conflicts,
            destructive: evolving.destructive,
        },
        evolving.new,
    ))
}

/// Moves every use of a predicate to its new IRI.
fn rename_predicate(
    snapshot: &crate::store::Snapshot,
    old: &crate::model::NamedNode,
    new: &crate::model::NamedNode,
    inserts: &mut Vec<crate::model::Quad>,
    deletes: &mut Vec<crate::model::Quad>,
) {
    for quad in snapshot.quads_matching(None, Some(&old.clone().into()), None) {
        inserts.push(crate::model::Quad::new(
            quad.subject.clone(),
            new.clone(),
            quad.object.clone(),
            quad.graph_name.clone(),
        ));
        deletes.push(quad);
    }
}

/// The types, relations and fields a call defines.
struct Definitions {
    types: Vec<TypeDef>,
    relations: Vec<RelationDef>,
    fields: Vec<FieldDef>,
}

fn definitions(args: &ConfigureArgs) -> Result<Definitions, ApiError> {
    let types = args
        .types
        .iter()
        .map(|t| TypeDef {
            name: t.name.clone(),
            super_types: t.super_types.clone(),
            description: t.description.clone(),
            former_names: Vec::new(),
        })
        .collect();
    let relations = args
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
    Ok(Definitions {
        types,
        relations,
        fields,
    })
}

fn prepare_evolution(
    engine: &Arc<Engine>,
    args: ConfigureArgs,
    admin: bool,
) -> Result<Prepared<OntologyWrite>, ApiError> {
    if args.changes.is_empty()
        && args.types.is_empty()
        && args.relations.is_empty()
        && args.fields.is_empty()
    {
        return Err(ApiError::invalid_argument(
            "changes",
            "give at least one change (or new types, relations, fields)",
        ));
    }
    let name = graph_name(&args.graph);
    let graph = engine.graph(&name)?;
    let iris = RecordIris::for_graph(&name);
    let (evolution, _) = plan_evolution(&graph.snapshot(graph.head_seq()), &iris, &args)?;
    let (added, removed) = graph.preview_quads(&evolution.inserts, &evolution.deletes);
    let head = graph.head_seq();
    let sample = |quads: &[crate::model::Quad]| {
        quads
            .iter()
            .take(20)
            .map(|q| format!("{q} ."))
            .collect::<Vec<_>>()
    };
    let data = json!({
        "changed": !(added.is_empty() && removed.is_empty()),
        "would_insert": added.len(),
        "would_delete": removed.len(),
        "conflicts": evolution.conflicts,
        "inserted_sample": sample(&added),
        "deleted_sample": sample(&removed),
    });
    if args.dry_run {
        let summary = format!(
            "dry run on graph {name} (head {head}): +{} -{} quads, {} conflict(s); nothing written",
            added.len(),
            removed.len(),
            evolution.conflicts.len()
        );
        return Ok(Prepared::Answered(Envelope::new(summary, data, head)));
    }
    if !evolution.conflicts.is_empty() {
        return Err(ApiError {
            code: ErrorCode::OntologyConflict,
            message: format!(
                "the change conflicts with data in graph {name}: {}{}",
                evolution
                    .conflicts
                    .iter()
                    .take(5)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("; "),
                if evolution.conflicts.len() > 5 {
                    format!("; and {} more (see dry_run)", evolution.conflicts.len() - 5)
                } else {
                    String::new()
                }
            ),
            param: Some("changes".into()),
            validation: None,
        });
    }
    if added.is_empty() && removed.is_empty() {
        return Ok(Prepared::Answered(Envelope::new(
            format!("nothing to change in graph {name} (commit {head})"),
            data,
            head,
        )));
    }
    let removal = (evolution.destructive && !removed.is_empty()).then(|| Removal {
        graph: name.clone(),
        what: "This ontology change",
        quads: removed.clone(),
        text: None,
        fingerprint: vec!["evolve".into()],
    });
    let request = CommitRequest {
        author: None,
        message: Some("evolve ontology".into()),
        admin,
        ..CommitRequest::default()
    };
    let digest: [u8; 32] = sha2::Digest::finalize(sha2::Digest::chain_update(
        <sha2::Sha256 as sha2::Digest>::new(),
        format!(
            "evolve {name} {:?} {:?}",
            evolution.inserts, evolution.deletes
        )
        .as_bytes(),
    ))
    .into();
    Ok(Prepared::Ready {
        removal,
        write: OntologyWrite::Evolve(Box::new(EvolveWrite {
            graph,
            name,
            args,
            digest,
            request,
            shown: removed.into_iter().collect(),
        })),
    })
}

/// A prepared evolution of the ontology.
pub struct EvolveWrite {
    graph: Arc<Graph>,
    name: String,
    args: ConfigureArgs,
    digest: [u8; 32],
    request: CommitRequest,
    /// What the preview removes: all a person may have approved.
    shown: rustc_hash::FxHashSet<crate::model::Quad>,
}

impl EvolveWrite {
    fn commit(self, approved: &Approved) -> Result<Envelope, ApiError> {
        let EvolveWrite {
            graph,
            name,
            args,
            digest,
            mut request,
            shown,
        } = self;
        request.author = approved.author.clone();
        // In a cluster whose write leader is another node, the leader plans and commits
        // it (`FORWARDED_EVOLUTION`).
        let forwarded = graph.forward_op(
            FORWARDED_EVOLUTION,
            || ForwardedPlan::body(&name, &args, &digest, &shown, approved),
            &request,
        )?;
        let outcome = match forwarded {
            Some(outcome) => outcome,
            None => commit_evolution(&graph, &name, &args, digest, &request, approved, &shown)?,
        };
        Ok(Envelope::new(
            format!(
                "evolved the ontology in commit {} of graph {name} (+{} -{} quads)",
                outcome.head_seq, outcome.inserted, outcome.deleted
            ),
            json!({ "changed": true, "commit_seq": outcome.commit_seq, "head_seq": outcome.head_seq, "inserted": outcome.inserted, "deleted": outcome.deleted }),
            outcome.head_seq,
        ))
    }
}

/// Plans an evolution again under the writer lock, against the state the commit lands on
/// (see `commit::CommitWrite`), and commits it: conflicts that appeared meanwhile refuse
/// it, and so does a removal the person did not see.
fn commit_evolution(
    graph: &Arc<Graph>,
    name: &str,
    args: &ConfigureArgs,
    digest: [u8; 32],
    request: &CommitRequest,
    approved: &Approved,
    shown: &rustc_hash::FxHashSet<crate::model::Quad>,
) -> Result<crate::engine::CommitOutcome, ApiError> {
    graph.commit_planned(request, digest, |snapshot| {
        let iris = RecordIris::for_graph(name);
        let (evolution, _) = plan_evolution(snapshot, &iris, args)?;
        if let Some(conflict) = evolution.conflicts.first() {
            return Err(ApiError {
                code: ErrorCode::OntologyConflict,
                message: format!("the data changed meanwhile: {conflict}"),
                param: Some("changes".into()),
                validation: None,
            });
        }
        let deletes = &evolution.deletes;
        super::check_shown(approved, evolution.destructive, deletes, shown, snapshot)?;
        Ok::<_, ApiError>((evolution.inserts, evolution.deletes))
    })
}

/// The forwarded-write op of an ontology evolution (`configure`'s `evolve_ontology`).
const FORWARDED_EVOLUTION: &str = "records.evolve_ontology";

/// Lets this node, as a graph's write leader, evolve ontologies other nodes forward.
pub(crate) fn serve_forwarded_evolutions() {
    crate::engine::register_forwarded_op(FORWARDED_EVOLUTION, run_forwarded_evolution);
}

/// Plans and commits an evolution another node forwarded, as it would have.
fn run_forwarded_evolution(
    graph: &Arc<Graph>,
    body: &serde_json::Value,
    request: &CommitRequest,
) -> Result<crate::engine::CommitOutcome, crate::engine::EngineError> {
    let what = "ontology evolution";
    let plan = ForwardedPlan::<ConfigureArgs>::read(body, request, what)?;
    commit_evolution(
        graph,
        &plan.name,
        &plan.args,
        plan.digest,
        request,
        &plan.approved,
        &plan.shown,
    )
    .map_err(|error| forwarded_failure(error, what))
}

fn define(
    engine: &Engine,
    args: ConfigureArgs,
    admin: bool,
    author: Option<String>,
) -> Result<Envelope, ApiError> {
    let name = graph_name(&args.graph);
    let iris = RecordIris::for_graph(&name);
    let Definitions {
        types,
        relations,
        fields,
    } = definitions(&args)?;
    if types.is_empty() && relations.is_empty() && fields.is_empty() {
        return Err(ApiError::invalid_argument(
            "types",
            "give at least one type, relation or field",
        ));
    }
    let graph = engine.graph_to_write(&name, admin)?;
    let known = ontology::read(&graph.snapshot(graph.head_seq()), &iris);
    check_definitions(&known, &types, &relations, &fields)?;
    let quads = ontology::definition_quads(&iris, &known, &types, &relations, &fields).map_err(
        |e| match e {
            ontology::OntologyError::UnknownType(t) => ApiError {
                code: ErrorCode::UnknownType,
                message: format!("type {t:?} is neither defined in this call nor in graph {name}"),
                param: Some("types".into()),
                validation: None,
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
        author,
        message: Some("define ontology".into()),
        admin,
        ..CommitRequest::default()
    };
    let digest = crate::query::envelope::args_digest(&[&format!("{quads:?}")]);
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

/// `define_ontology` only adds: a definition that names what is not defined, contradicts
/// another, or changes what `known` already defines (that is `evolve_ontology`'s) is
/// refused, naming the argument.
fn check_definitions(
    known: &ontology::Ontology,
    types: &[TypeDef],
    relations: &[RelationDef],
    fields: &[FieldDef],
) -> Result<(), ApiError> {
    use ontology::local_name as local;
    let conflict = |param: String, message: String| ApiError {
        code: ErrorCode::OntologyConflict,
        message,
        param: Some(param),
        validation: None,
    };
    let evolve = "; change it with evolve_ontology";
    // The ontology with this call's definitions added: what names must resolve against.
    let mut merged = known.clone();
    for (idx, t) in types.iter().enumerate() {
        let param = format!("types[{idx}]");
        let entry = merged
            .types
            .entry(local(&t.name))
            .or_insert_with(|| TypeDef {
                name: t.name.clone(),
                ..TypeDef::default()
            });
        if entry.name != t.name {
            return Err(ApiError::invalid_argument(
                &format!("{param}.name"),
                format!(
                    "type {} is already defined as {} (names are compared without case); use that name",
                    t.name, entry.name
                ),
            ));
        }
        if let (Some(old), Some(new)) = (&entry.description, &t.description)
            && old != new
        {
            return Err(conflict(
                format!("{param}.description"),
                format!("type {} already has another description{evolve}", t.name),
            ));
        }
        for super_type in &t.super_types {
            if !entry
                .super_types
                .iter()
                .any(|s| local(s) == local(super_type))
            {
                entry.super_types.push(super_type.clone());
            }
        }
    }
    for (idx, t) in types.iter().enumerate() {
        for (at, super_type) in t.super_types.iter().enumerate() {
            if !merged.types.contains_key(&local(super_type)) {
                return Err(unknown(
                    ErrorCode::UnknownType,
                    format!("types[{idx}].super_types[{at}]"),
                    "type",
                    super_type,
                ));
            }
        }
    }
    if let Some(cycle) = ontology::super_type_cycle(&merged) {
        let idx = types
            .iter()
            .position(|t| cycle.contains(&local(&t.name)))
            .unwrap_or(0);
        return Err(ApiError::invalid_argument(
            &format!("types[{idx}].super_types"),
            format!("the super types would go round: {}", cycle.join(" ⊂ ")),
        ));
    }
    let defined = |param: String, name: &str| -> Result<(), ApiError> {
        if merged.types.contains_key(&local(name)) {
            Ok(())
        } else {
            Err(ApiError {
                code: ErrorCode::UnknownType,
                message: format!("type {name:?} is defined neither in this call nor in the graph"),
                param: Some(param),
                validation: None,
            })
        }
    };
    for (idx, r) in relations.iter().enumerate() {
        let param = format!("relations[{idx}]");
        defined(format!("{param}.domain"), &r.domain)?;
        defined(format!("{param}.range"), &r.range)?;
        let named = |name: &str| {
            local(name) == local(&r.name)
                || relations.iter().any(|o| local(&o.name) == local(name))
                || known.relations.contains_key(&local(name))
        };
        if let Some(inverse) = &r.inverse
            && !named(inverse)
        {
            return Err(unknown(
                ErrorCode::UnknownRelation,
                format!("{param}.inverse"),
                "relation",
                inverse,
            ));
        }
        if known.fields.contains_key(&local(&r.name))
            || fields.iter().any(|f| local(&f.name) == local(&r.name))
        {
            return Err(ApiError::invalid_argument(
                &format!("{param}.name"),
                format!(
                    "{} is already the name of a field; relations and fields need names of their own",
                    r.name
                ),
            ));
        }
        let Some(old) = known.relations.get(&local(&r.name)) else {
            continue;
        };
        let what = format!("relation {}", old.name);
        if old.name != r.name {
            return Err(ApiError::invalid_argument(
                &format!("{param}.name"),
                format!(
                    "{what} is already defined under that name (names are compared without case); use it"
                ),
            ));
        }
        for (end, was, now) in [
            ("domain", &old.domain, &r.domain),
            ("range", &old.range, &r.range),
        ] {
            if local(was) != local(now) {
                return Err(conflict(
                    format!("{param}.{end}"),
                    format!("{what} already has {end} {was}{evolve}"),
                ));
            }
        }
        let changed = |flag: &str, was: bool, now: bool| {
            (now && !was).then(|| {
                conflict(
                    format!("{param}.{flag}"),
                    format!("{what} is not {flag}{evolve}"),
                )
            })
        };
        if let Some(error) = changed("symmetric", old.symmetric, r.symmetric)
            .or_else(|| changed("transitive", old.transitive, r.transitive))
        {
            return Err(error);
        }
        if r.functional && !old.functional {
            return Err(conflict(
                format!("{param}.cardinality"),
                format!(
                    "{what} has cardinality many; change it with evolve_ontology set_cardinality"
                ),
            ));
        }
        if let (Some(was), Some(now)) = (&old.inverse, &r.inverse)
            && local(was) != local(now)
        {
            return Err(conflict(
                format!("{param}.inverse"),
                format!(
                    "{what} already has inverse {was}; change it with evolve_ontology set_inverse"
                ),
            ));
        }
        if let (Some(was), Some(now)) = (&old.description, &r.description)
            && was != now
        {
            return Err(conflict(
                format!("{param}.description"),
                format!("{what} already has another description{evolve}"),
            ));
        }
    }
    for (idx, f) in fields.iter().enumerate() {
        let param = format!("fields[{idx}]");
        defined(format!("{param}.type"), &f.type_name)?;
        if known.relations.contains_key(&local(&f.name)) {
            return Err(ApiError::invalid_argument(
                &format!("{param}.name"),
                format!(
                    "{} is already the name of a relation; relations and fields need names of their own",
                    f.name
                ),
            ));
        }
        for (at, value) in f.allowed_values.iter().enumerate() {
            if let Err(e) =
                ontology::convert_value(&serde_json::Value::String(value.clone()), f.value_type)
            {
                return Err(ApiError::invalid_argument(
                    &format!("{param}.allowed_values[{at}]"),
                    format!("not a value of the field's type: {e}"),
                ));
            }
        }
        let Some(old) = known.fields.get(&local(&f.name)) else {
            continue;
        };
        let what = format!("field {}", old.name);
        if old.name != f.name {
            return Err(ApiError::invalid_argument(
                &format!("{param}.name"),
                format!(
                    "{what} is already defined under that name (names are compared without case); use it"
                ),
            ));
        }
        if local(&old.type_name) != local(&f.type_name) {
            return Err(conflict(
                format!("{param}.type"),
                format!("{what} already belongs to type {}{evolve}", old.type_name),
            ));
        }
        if old.value_type != f.value_type {
            return Err(conflict(
                format!("{param}.value_type"),
                format!(
                    "{what} is already {}; change it with evolve_ontology set_value_type",
                    old.value_type.name()
                ),
            ));
        }
        let same_values =
            |a: &[String], b: &[String]| a.len() == b.len() && a.iter().all(|v| b.contains(v));
        if !f.allowed_values.is_empty() && !same_values(&old.allowed_values, &f.allowed_values) {
            return Err(conflict(
                format!("{param}.allowed_values"),
                format!(
                    "{what} has other allowed values; change them with evolve_ontology set_allowed_values"
                ),
            ));
        }
        if f.required && !old.required {
            return Err(conflict(
                format!("{param}.required"),
                format!("{what} is not required; change it with evolve_ontology set_required"),
            ));
        }
        for (name, was, now) in [
            ("unit", &old.unit, &f.unit),
            ("description", &old.description, &f.description),
        ] {
            if let (Some(was), Some(now)) = (was, now)
                && was != now
            {
                return Err(conflict(
                    format!("{param}.{name}"),
                    format!("{what} already has another {name}{evolve}"),
                ));
            }
        }
    }
    Ok(())
}

/// An ontology being evolved, and the data changes that follow it.
struct Evolving<'a> {
    snapshot: &'a crate::store::Snapshot,
    iris: &'a RecordIris,
    new: ontology::Ontology,
    inserts: Vec<crate::model::Quad>,
    deletes: Vec<crate::model::Quad>,
    conflicts: Vec<String>,
    destructive: bool,
}

fn unknown(code: ErrorCode, param: String, what: &str, name: &str) -> ApiError {
    ApiError {
        code,
        message: format!("unknown {what} {name:?}"),
        param: Some(param),
        validation: None,
    }
}

fn kind_name(kind: TermKind) -> &'static str {
    match kind {
        TermKind::Type => "type",
        TermKind::Relation => "relation",
        TermKind::Field => "field",
    }
}

fn rdf_type() -> crate::model::Term {
    crate::model::Term::from(crate::model::NamedNode::new_unchecked(
        crate::model::RDF_TYPE,
    ))
}

impl Evolving<'_> {
    /// Renames a type, relation or field; the data follows (record IRIs stay).
    fn rename(
        &mut self,
        param: &str,
        kind: TermKind,
        from: &str,
        to: &str,
    ) -> Result<(), ApiError> {
        use crate::model::Quad;
        let (snapshot, iris) = (self.snapshot, self.iris);
        let to = &to.to_owned();
        let (from_local, to_local) = (type_local(iris, from), type_local(iris, to));
        // Onto another term's name would merge the two (and drop one's definition).
        if to_local != from_local {
            let taken = match kind {
                TermKind::Type => self.new.types.get(&to_local).map(|t| ("type", &t.name)),
                TermKind::Relation | TermKind::Field => self
                    .new
                    .relations
                    .get(&to_local)
                    .map(|r| ("relation", &r.name))
                    .or_else(|| self.new.fields.get(&to_local).map(|f| ("field", &f.name))),
            };
            if let Some((what, name)) = taken {
                return Err(ApiError::invalid_argument(
                    &format!("{param}.to"),
                    format!(
                        "{what} {name} already exists (names are compared without case); remove it first or choose another name"
                    ),
                ));
            }
        }
        ontology::check_name_of(kind_name(kind), to)
            .map_err(|e| ApiError::invalid_argument(&format!("{param}.to"), e.to_string()))?;
        match kind {
            TermKind::Type => {
                let mut def = self.new.types.remove(&from_local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownType,
                        format!("{param}.from"),
                        "type",
                        from,
                    )
                })?;
                // Its records keep their IRIs, made from the name they were written under.
                if to_local != from_local && !def.former_names.contains(&from_local) {
                    def.former_names.push(from_local.clone());
                }
                def.former_names.retain(|f| *f != to_local);
                def.name = to.clone();
                self.new.types.insert(to_local, def);
                let rename = |name: &mut String| {
                    if type_local(iris, name) == from_local {
                        *name = to.clone()
                    }
                };
                self.new
                    .types
                    .values_mut()
                    .for_each(|t| t.super_types.iter_mut().for_each(rename));
                self.new.relations.values_mut().for_each(|r| {
                    rename(&mut r.domain);
                    rename(&mut r.range);
                });
                self.new
                    .fields
                    .values_mut()
                    .for_each(|f| rename(&mut f.type_name));
                for quad in
                    snapshot.quads_matching(None, Some(&rdf_type()), Some(&iris.class(from).into()))
                {
                    self.inserts.push(Quad::new(
                        quad.subject.clone(),
                        quad.predicate.clone(),
                        iris.class(to),
                        quad.graph_name.clone(),
                    ));
                    self.deletes.push(quad);
                }
            }
            TermKind::Relation => {
                let mut def = self.new.relations.remove(&from_local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownRelation,
                        format!("{param}.from"),
                        "relation",
                        from,
                    )
                })?;
                def.name = to.clone();
                self.new.relations.insert(to_local, def);
                for relation in self.new.relations.values_mut() {
                    if relation
                        .inverse
                        .as_deref()
                        .is_some_and(|i| type_local(iris, i) == from_local)
                    {
                        relation.inverse = Some(to.clone());
                    }
                }
                rename_predicate(
                    snapshot,
                    &iris.relation(from),
                    &iris.relation(to),
                    &mut self.inserts,
                    &mut self.deletes,
                );
            }
            TermKind::Field => {
                let mut def = self.new.fields.remove(&from_local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownField,
                        format!("{param}.from"),
                        "field",
                        from,
                    )
                })?;
                def.name = to.clone();
                self.new.fields.insert(to_local, def);
                rename_predicate(
                    snapshot,
                    &iris.field(from),
                    &iris.field(to),
                    &mut self.inserts,
                    &mut self.deletes,
                );
            }
        }
        Ok(())
    }

    /// Removes a type, relation or field with the data that uses it.
    fn remove(&mut self, param: &str, kind: TermKind, name: &str) -> Result<(), ApiError> {
        let (snapshot, iris) = (self.snapshot, self.iris);
        let local = type_local(iris, name);
        self.destructive = true;
        match kind {
            TermKind::Type => {
                self.new.types.remove(&local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownType,
                        format!("{param}.name"),
                        "type",
                        name,
                    )
                })?;
                let users: Vec<String> = self
                    .new
                    .relations
                    .values()
                    .filter(|r| {
                        type_local(iris, &r.domain) == local || type_local(iris, &r.range) == local
                    })
                    .map(|r| format!("relation {}", r.name))
                    .chain(
                        self.new
                            .fields
                            .values()
                            .filter(|f| type_local(iris, &f.type_name) == local)
                            .map(|f| format!("field {}", f.name)),
                    )
                    .chain(
                        self.new
                            .types
                            .values()
                            .filter(|t| t.super_types.iter().any(|s| type_local(iris, s) == local))
                            .map(|t| format!("type {}", t.name)),
                    )
                    .collect();
                if !users.is_empty() {
                    self.conflicts.push(format!(
                        "type {name} is used by {}; remove or change those first",
                        users.join(", ")
                    ));
                }
                self.deletes.extend(snapshot.quads_matching(
                    None,
                    Some(&rdf_type()),
                    Some(&iris.class(name).into()),
                ));
            }
            TermKind::Relation => {
                self.new.relations.remove(&local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownRelation,
                        format!("{param}.name"),
                        "relation",
                        name,
                    )
                })?;
                // A relation that named it as its inverse has none any more.
                for relation in self.new.relations.values_mut() {
                    if relation
                        .inverse
                        .as_deref()
                        .is_some_and(|i| type_local(iris, i) == local)
                    {
                        relation.inverse = None;
                    }
                }
                self.deletes.extend(snapshot.quads_matching(
                    None,
                    Some(&iris.relation(name).into()),
                    None,
                ));
            }
            TermKind::Field => {
                self.new.fields.remove(&local).ok_or_else(|| {
                    unknown(
                        ErrorCode::UnknownField,
                        format!("{param}.name"),
                        "field",
                        name,
                    )
                })?;
                self.deletes.extend(snapshot.quads_matching(
                    None,
                    Some(&iris.field(name).into()),
                    None,
                ));
            }
        }
        Ok(())
    }

    /// Changes a field's value type, converting its values (conflicts when one does not
    /// convert).
    fn set_value_type(
        &mut self,
        param: &str,
        field: &str,
        value_type: &str,
    ) -> Result<(), ApiError> {
        use crate::model::{Quad, Term};
        let (snapshot, iris) = (self.snapshot, self.iris);
        let value_type = ValueType::from_name(value_type).ok_or_else(|| {
            ApiError::invalid_argument(
                &format!("{param}.value_type"),
                format!("unknown value type {value_type:?}"),
            )
        })?;
        let def = self
            .new
            .fields
            .get_mut(&type_local(iris, field))
            .ok_or_else(|| {
                unknown(
                    ErrorCode::UnknownField,
                    format!("{param}.field"),
                    "field",
                    field,
                )
            })?;
        let widening = matches!((def.value_type, value_type), (a, b) if a == b)
            || matches!(
                (def.value_type, value_type),
                (ValueType::I64, ValueType::F64)
                    | (ValueType::Keyword, ValueType::Text)
                    | (_, ValueType::Text)
            );
        def.value_type = value_type;
        for quad in snapshot.quads_matching(None, Some(&iris.field(field).into()), None) {
            let Term::Literal(literal) = &quad.object else {
                continue;
            };
            match ontology::convert_value(
                &serde_json::Value::String(literal.value().to_owned()),
                value_type,
            ) {
                Ok(converted) if &converted == literal => {}
                Ok(converted) => {
                    self.inserts.push(Quad::new(
                        quad.subject.clone(),
                        quad.predicate.clone(),
                        converted,
                        quad.graph_name.clone(),
                    ));
                    self.deletes.push(quad);
                    self.destructive |= !widening;
                }
                Err(_) => self.conflicts.push(format!(
                    "{} has {field} = {literal}, not a {}",
                    quad.subject,
                    value_type.name()
                )),
            }
        }
        Ok(())
    }
}
