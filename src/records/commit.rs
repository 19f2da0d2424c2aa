//! Records against the ontology (the `commit` tool's arguments on every surface): links
//! between records (`triplets`, with evidence, confidence and valid time), field values
//! (`entity_properties`, converted to the field's type), and retractions of links and
//! records (a removal MCP asks the person about). One call is one commit.
//!
//! Link annotations use RDF 1.2 reification: a reifier `<base>/edge/<digest>` with
//! `rdf:reifies <<( s p o )>>` carries `strata:evidence`, `strata:confidence`,
//! `strata:validFrom`, `strata:validUntil`, `strata:granularity` and `strata:sourceText`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{Approved, ForwardedPlan, Prepared, Removal, Write, forwarded_failure};
use crate::error::{ApiError, ErrorCode};
use crate::query::Envelope;
use crate::query::graph_name;
use std::sync::Arc;

use crate::engine::{CommitRequest, Engine, Graph};
use crate::model::{Literal, NamedNode, Quad, RdfGraphName, Term, Triple};
use crate::ontology::{self, Ontology, RecordIris, STRATA, convert_value};
use crate::store::Snapshot;

use crate::model::RDF_TYPE;
const RDF_REIFIES: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies";
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";

/// Arguments of the `commit` tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitArgs {
    #[serde(default)]
    pub graph: Option<String>,
    #[serde(default)]
    pub triplets: Vec<Triplet>,
    /// Field values to set (replacing earlier values).
    #[serde(default)]
    pub entity_properties: Vec<EntityProperties>,
    /// Your vectors for records, instead of the model's.
    #[serde(default)]
    pub entity_embeddings: Vec<EntityEmbedding>,
    #[serde(default)]
    pub retract_edges: Vec<Edge>,
    #[serde(default)]
    pub retract_entities: Vec<RecordRef>,
    #[serde(default)]
    pub dry_run: bool,
    /// When the facts were observed (RFC 3339).
    #[serde(default)]
    pub observed_at: Option<String>,
    /// A retry with the same key returns the first commit (default: the content).
    #[serde(default)]
    pub idempotency_key: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// A record: `{type, name}`, `{type, key}` or `{key}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordRef {
    #[serde(default, rename = "type")]
    pub type_name: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub key: Option<String>,
}

/// A vector supplied by the caller for one record.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityEmbedding {
    #[serde(default)]
    pub record: Option<RecordRef>,
    /// Instead of `record`: any record's IRI.
    #[serde(default)]
    pub iri: Option<String>,
    pub vector: Vec<f32>,
    /// The index (optional when there is one).
    #[serde(default)]
    pub index: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Triplet {
    pub source: RecordRef,
    pub relation: String,
    pub target: RecordRef,
    /// Why it holds (a quote, a URL).
    #[serde(default)]
    pub evidence: Option<String>,
    /// How sure, from 0 to 1.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// When it holds in the world.
    #[serde(default)]
    pub valid_time: Option<ValidTime>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidTime {
    #[serde(default)]
    pub start: Option<String>,
    #[serde(default)]
    pub end: Option<String>,
    /// day, month, year…
    #[serde(default)]
    pub granularity: Option<String>,
    #[serde(default)]
    pub source_text: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntityProperties {
    pub entity: RecordRef,
    /// Field name → value or values.
    pub properties: BTreeMap<String, Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Edge {
    pub source: RecordRef,
    pub relation: String,
    pub target: RecordRef,
}

/// A valid time as stored: the half-open interval `[from, until)` of instants at which
/// the link holds (`None`: unbounded), and the unit its bounds were rounded to.
struct ValidPeriod {
    from: Option<time::OffsetDateTime>,
    until: Option<time::OffsetDateTime>,
    granularity: Option<crate::model::Granularity>,
}

/// Reads `start`/`end` at their unit: the coarser of the `granularity` given and the
/// unit each bound's form names (`2019`, `2019-12`, `2019-12-31`, a moment). The start
/// is the first instant of its unit; the end is exclusive, the first instant after its
/// unit, so `end: "2019-12-31"` holds through that whole day (`model::Granularity`).
fn valid_period(valid: &ValidTime, param: &str) -> Result<ValidPeriod, ApiError> {
    let given = match &valid.granularity {
        None => None,
        Some(name) => Some(crate::model::Granularity::from_name(name).ok_or_else(|| {
            error(
                ErrorCode::InvalidArgument,
                format!("{param}.granularity"),
                format!(
                    "unknown granularity {name:?}; use {}",
                    crate::model::Granularity::NAMES
                ),
            )
        })?),
    };
    let mut coarsest = given;
    let mut bound = |key: &str, text: &Option<String>, end: bool| {
        let Some(text) = text else {
            return Ok(None);
        };
        let wrong = |message: String| {
            error(
                ErrorCode::ValueTypeMismatch,
                format!("{param}.{key}"),
                message,
            )
        };
        let (moment, form) = crate::model::parse_period_bound(text).ok_or_else(|| {
            wrong(format!(
                "expected a year (2019), a month (2019-12), a date (2019-12-31) or an RFC 3339 moment, got {text:?}"
            ))
        })?;
        let unit = given.map_or(form, |g| g.min(form));
        coarsest = Some(coarsest.map_or(unit, |c| c.min(unit)));
        let edge = if end {
            unit.end_of(moment)
        } else {
            unit.start_of(moment)
        };
        edge.map(Some)
            .ok_or_else(|| wrong(format!("{text:?} is past the end of the calendar")))
    };
    let from = bound("start", &valid.start, false)?;
    let until = bound("end", &valid.end, true)?;
    if let (Some(from), Some(until)) = (from, until)
        && until <= from
    {
        return Err(error(
            ErrorCode::InvalidArgument,
            format!("{param}.end"),
            "the end is not after the start: the period would never hold".into(),
        ));
    }
    Ok(ValidPeriod {
        from,
        until,
        granularity: coarsest,
    })
}

/// What a call would write.
struct Plan {
    inserts: Vec<Quad>,
    deletes: Vec<Quad>,
    /// Deletes that need approval (retractions; replaced field values do not).
    destructive: bool,
}

impl Plan {
    /// A record this commit makes (or first gives a type) holds every required field of
    /// its type and super types, given here or already held.
    fn check_required(&self, at: Reading<'_>) -> Result<(), ApiError> {
        let required: Vec<&ontology::FieldDef> =
            at.ontology.fields.values().filter(|f| f.required).collect();
        if required.is_empty() {
            return Ok(());
        }
        let rdf_type = NamedNode::new_unchecked(RDF_TYPE);
        let given: std::collections::HashSet<(&crate::model::NamedOrBlankNode, &NamedNode)> = self
            .inserts
            .iter()
            .map(|q| (&q.subject, &q.predicate))
            .collect();
        let class_prefix = at.iris.class_prefix();
        for insert in self.inserts.iter().filter(|q| q.predicate == rdf_type) {
            let Term::NamedNode(class) = &insert.object else {
                continue;
            };
            let Some(type_local) = class.as_str().strip_prefix(&class_prefix) else {
                continue;
            };
            let subject: Term = insert.subject.clone().into();
            let typed_before = !at
                .snapshot
                .quads_matching(
                    Some(&subject),
                    Some(&rdf_type.clone().into()),
                    Some(&insert.object),
                )
                .is_empty();
            if typed_before {
                continue;
            }
            for field in &required {
                if !is_a(
                    at.ontology,
                    type_local,
                    &ontology::local_name(&field.type_name),
                ) {
                    continue;
                }
                let predicate = at.iris.field(&field.name);
                let held = given.contains(&(&insert.subject, &predicate))
                    || !at
                        .snapshot
                        .quads_matching(Some(&subject), Some(&predicate.clone().into()), None)
                        .is_empty();
                if !held {
                    let type_name = at
                        .ontology
                        .types
                        .get(type_local)
                        .map_or(type_local, |t| t.name.as_str());
                    return Err(ApiError::invalid_argument(
                        "entity_properties",
                        format!(
                            "{} is a new {type_name} and lacks its required field {}: give it in entity_properties",
                            insert.subject, field.name
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn quad(s: &NamedNode, p: &str, o: impl Into<Term>) -> Quad {
    Quad::new(
        s.clone(),
        NamedNode::new_unchecked(p),
        o,
        RdfGraphName::DefaultGraph,
    )
}

fn error(code: ErrorCode, param: String, message: String) -> ApiError {
    ApiError {
        code,
        message,
        param: Some(param),
        validation: None,
    }
}

/// Resolves a record reference to its IRI and type (when known), checking the type.
fn resolve(
    snapshot: &Snapshot,
    iris: &RecordIris,
    ontology: &Ontology,
    record: &RecordRef,
    param: &str,
    inserts: Option<&mut Vec<Quad>>,
) -> Result<(NamedNode, Option<String>), ApiError> {
    let check_type = |name: &str| -> Result<String, ApiError> {
        let local = iris
            .class(name)
            .as_str()
            .trim_start_matches(&iris.class_prefix())
            .to_owned();
        if ontology.types.contains_key(&local) {
            Ok(local)
        } else {
            Err(error(
                ErrorCode::UnknownType,
                format!("{param}.type"),
                format!(
                    "unknown type {name:?}; define it with configure (define_ontology); known: {}",
                    ontology
                        .types
                        .values()
                        .map(|t| t.name.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ))
        }
    };
    // After a rename, a record written under an earlier name of its type keeps the IRI
    // made from that name: the first of those that is a record of the type is it.
    let existing = |local: &str, minted: NamedNode, name: &str| -> NamedNode {
        let Some(def) = ontology.types.get(local) else {
            return minted;
        };
        if def.former_names.is_empty() {
            return minted;
        }
        let typed = |iri: &NamedNode| {
            !snapshot
                .quads_matching(
                    Some(&iri.clone().into()),
                    Some(&NamedNode::new_unchecked(RDF_TYPE).into()),
                    Some(&iris.class(local).into()),
                )
                .is_empty()
        };
        if typed(&minted) {
            return minted;
        }
        def.former_names
            .iter()
            .map(|former| iris.entity(former, name))
            .find(typed)
            .unwrap_or(minted)
    };
    match (&record.type_name, &record.name, &record.key) {
        (Some(type_name), Some(name), None) => {
            let local = check_type(type_name)?;
            let iri = existing(&local, iris.entity(type_name, name), name);
            if let Some(inserts) = inserts {
                inserts.push(quad(&iri, RDF_TYPE, iris.class(type_name)));
                inserts.push(quad(&iri, RDFS_LABEL, Literal::new_simple_literal(name)));
            }
            Ok((iri, Some(local)))
        }
        (Some(type_name), None, Some(key)) => {
            let local = check_type(type_name)?;
            let iri = existing(&local, iris.entity(type_name, key), key);
            if let Some(inserts) = inserts {
                inserts.push(quad(&iri, RDF_TYPE, iris.class(type_name)));
            }
            Ok((iri, Some(local)))
        }
        (None, None, Some(key)) => {
            let iri = iris.keyed(key);
            let known_type = snapshot
                .quads_mentioning(&iri.clone().into())
                .into_iter()
                .find_map(|q| match (&q.predicate, &q.object) {
                    (p, Term::NamedNode(class)) if p.as_str() == RDF_TYPE => class
                        .as_str()
                        .strip_prefix(&iris.class_prefix())
                        .map(str::to_owned),
                    _ => None,
                });
            Ok((iri, known_type))
        }
        _ => Err(ApiError::invalid_argument(
            param,
            "name a record as {\"type\", \"name\"}, {\"type\", \"key\"} or {\"key\"}",
        )),
    }
}

/// True when `type_local` is `expected` or one of its subtypes.
fn is_a(ontology: &Ontology, type_local: &str, expected: &str) -> bool {
    let mut seen = Vec::new();
    let mut stack = vec![type_local.to_owned()];
    while let Some(current) = stack.pop() {
        if current == expected {
            return true;
        }
        if seen.contains(&current) {
            continue;
        }
        seen.push(current.clone());
        if let Some(def) = ontology.types.get(&current) {
            stack.extend(def.super_types.iter().cloned());
        }
    }
    false
}

fn reifier(iris: &RecordIris, triple: &Triple, period: Option<&ValidPeriod>) -> NamedNode {
    let mut text = triple.to_string();
    if let Some(period) = period.filter(|p| p.from.is_some() || p.until.is_some()) {
        let bound =
            |b: Option<time::OffsetDateTime>| b.map(crate::log::format_time).unwrap_or_default();
        text.push_str(&format!(
            " valid {} {}",
            bound(period.from),
            bound(period.until)
        ));
    }
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    NamedNode::new_unchecked(format!(
        "{}edge/{hex}",
        iris.class_prefix().trim_end_matches("class/")
    ))
}

/// The annotations of a link: every quad of every reifier of it (one per period, and the
/// one without a period).
fn annotations_of(snapshot: &Snapshot, iris: &RecordIris, triple: Triple) -> Vec<Quad> {
    let mut reifiers = vec![reifier(iris, &triple, None)];
    let reifies: Term = NamedNode::new_unchecked(RDF_REIFIES).into();
    let triple_term = Term::Triple(Box::new(triple));
    for quad in snapshot.quads_matching(None, Some(&reifies), Some(&triple_term)) {
        if let crate::model::NamedOrBlankNode::NamedNode(node) = quad.subject
            && !reifiers.contains(&node)
        {
            reifiers.push(node);
        }
    }
    reifiers
        .into_iter()
        .flat_map(|r| snapshot.quads_mentioning(&r.into()))
        .collect()
}

/// What the arguments are read against: the state the commit lands on (`snapshot`), and
/// the graph for what is not in the data (the search indexes' dimensions).
#[derive(Clone, Copy)]
struct Reading<'a> {
    graph: &'a Graph,
    snapshot: &'a Snapshot,
    iris: &'a RecordIris,
    ontology: &'a Ontology,
}

/// What `args` writes, read against `snapshot` (the state the commit lands on). `graph`
/// gives what is not in the data: the search indexes' dimensions.
fn plan(
    graph: &Graph,
    snapshot: &Snapshot,
    iris: &RecordIris,
    ontology: &Ontology,
    args: &CommitArgs,
) -> Result<Plan, ApiError> {
    let at = Reading {
        graph,
        snapshot,
        iris,
        ontology,
    };
    let mut plan = Plan {
        inserts: Vec::new(),
        deletes: Vec::new(),
        destructive: false,
    };
    for (idx, triplet) in args.triplets.iter().enumerate() {
        plan.link(at, idx, triplet)?;
    }
    for (idx, item) in args.entity_properties.iter().enumerate() {
        plan.properties(at, idx, item)?;
    }
    for (idx, edge) in args.retract_edges.iter().enumerate() {
        plan.retract_link(at, idx, edge)?;
    }
    for (idx, record) in args.retract_entities.iter().enumerate() {
        plan.retract_record(at, idx, record)?;
    }
    if !args.entity_embeddings.is_empty() {
        plan.vectors(at, &args.entity_embeddings)?;
    }
    plan.check_required(at)?;
    Ok(plan)
}

/// Up to `limit` records of `field`'s type (or a subtype) that hold no value of it.
pub(crate) fn lacking_field(
    snapshot: &Snapshot,
    iris: &RecordIris,
    ontology: &Ontology,
    field: &ontology::FieldDef,
    limit: usize,
) -> Vec<String> {
    let owner = ontology::local_name(&field.type_name);
    let predicate: Term = iris.field(&field.name).into();
    let mut lacking = Vec::new();
    for (local, _) in ontology
        .types
        .iter()
        .filter(|(t, _)| is_a(ontology, t, &owner))
    {
        let instances = snapshot.quads_matching(
            None,
            Some(&NamedNode::new_unchecked(RDF_TYPE).into()),
            Some(&iris.class(local).into()),
        );
        for instance in instances {
            let subject: Term = instance.subject.clone().into();
            if snapshot
                .quads_matching(Some(&subject), Some(&predicate), None)
                .is_empty()
            {
                lacking.push(instance.subject.to_string());
                if lacking.len() == limit {
                    return lacking;
                }
            }
        }
    }
    lacking
}

impl Plan {
    /// A link between two records (created if new), with its annotations.
    fn link(&mut self, at: Reading, idx: usize, triplet: &Triplet) -> Result<(), ApiError> {
        let Reading {
            snapshot,
            iris,
            ontology,
            ..
        } = at;
        let param = format!("triplets[{idx}]");
        let relation_local = iris
            .relation(&triplet.relation)
            .as_str()
            .trim_start_matches(&iris.relation_prefix())
            .to_owned();
        let relation = ontology.relations.get(&relation_local).ok_or_else(|| {
            error(
                ErrorCode::UnknownRelation,
                format!("{param}.relation"),
                format!(
                    "unknown relation {:?}; known: {}",
                    triplet.relation,
                    ontology
                        .relations
                        .values()
                        .map(|r| r.name.clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let (source, source_type) = resolve(
            snapshot,
            iris,
            ontology,
            &triplet.source,
            &format!("{param}.source"),
            Some(&mut self.inserts),
        )?;
        let (target, target_type) = resolve(
            snapshot,
            iris,
            ontology,
            &triplet.target,
            &format!("{param}.target"),
            Some(&mut self.inserts),
        )?;
        for (end, found, expected) in [
            ("source", &source_type, &relation.domain),
            ("target", &target_type, &relation.range),
        ] {
            match found {
                Some(found) if is_a(ontology, found, expected) => {}
                Some(found) => {
                    return Err(error(
                        ErrorCode::ValueTypeMismatch,
                        format!("{param}.{end}"),
                        format!(
                            "relation {} needs a {end} of type {expected}, not {found}",
                            relation.name
                        ),
                    ));
                }
                None => {
                    return Err(error(
                        ErrorCode::UnknownType,
                        format!("{param}.{end}"),
                        format!("the {end} has no known type; give its type"),
                    ));
                }
            }
        }
        let predicate = iris.relation(&relation.name);
        if relation.functional {
            let existing = snapshot.quads_mentioning(&source.clone().into());
            if existing.iter().any(|q| {
                q.predicate == predicate
                    && q.subject == source.clone().into()
                    && q.object != Term::from(target.clone())
            }) {
                return Err(error(
                    ErrorCode::CardinalityViolation,
                    format!("{param}.target"),
                    format!(
                        "relation {} allows one target and the source already has another; retract that link first",
                        relation.name
                    ),
                ));
            }
        }
        self.inserts
            .push(quad(&source, predicate.as_str(), target.clone()));
        let annotated = triplet.evidence.is_some()
            || triplet.confidence.is_some()
            || triplet.valid_time.is_some();
        if annotated {
            let triple = Triple::new(source.clone(), predicate.clone(), target.clone());
            // A link may hold in several periods (owned 2010–2012 and again 2015–2019):
            // each period is a reifier of its own, named by the link and the period, so
            // a second period never merges into the first one's bounds.
            let period = match &triplet.valid_time {
                Some(valid) => Some(valid_period(valid, &format!("{param}.valid_time"))?),
                None => None,
            };
            let reifier = reifier(iris, &triple, period.as_ref());
            self.inserts
                .push(quad(&reifier, RDF_REIFIES, Term::Triple(Box::new(triple))));
            if let Some(evidence) = &triplet.evidence {
                self.inserts.push(quad(
                    &reifier,
                    &format!("{STRATA}evidence"),
                    Literal::new_simple_literal(evidence),
                ));
            }
            if let Some(confidence) = triplet.confidence {
                if !(0.0..=1.0).contains(&confidence) {
                    return Err(ApiError::invalid_argument(
                        &format!("{param}.confidence"),
                        "confidence must be between 0 and 1",
                    ));
                }
                self.inserts.push(quad(
                    &reifier,
                    &format!("{STRATA}confidence"),
                    Literal::from(confidence),
                ));
            }
            if let (Some(valid), Some(period)) = (&triplet.valid_time, period) {
                for (bound, predicate) in [(period.from, "validFrom"), (period.until, "validUntil")]
                {
                    if let Some(moment) = bound {
                        let literal = Literal::new_typed_literal(
                            crate::log::format_time(moment),
                            crate::model::NamedNode::new_unchecked(
                                ontology::ValueType::DateTime.datatype(),
                            ),
                        );
                        self.inserts
                            .push(quad(&reifier, &format!("{STRATA}{predicate}"), literal));
                    }
                }
                if let Some(granularity) = period.granularity {
                    self.inserts.push(quad(
                        &reifier,
                        &format!("{STRATA}granularity"),
                        Literal::new_simple_literal(granularity.name()),
                    ));
                }
                if let Some(text) = &valid.source_text {
                    self.inserts.push(quad(
                        &reifier,
                        &format!("{STRATA}sourceText"),
                        Literal::new_simple_literal(text),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Field values of one record, converted to the fields' types (replacing old values).
    fn properties(
        &mut self,
        at: Reading,
        idx: usize,
        item: &EntityProperties,
    ) -> Result<(), ApiError> {
        let Reading {
            snapshot,
            iris,
            ontology,
            ..
        } = at;
        let param = format!("entity_properties[{idx}]");
        let (entity, entity_type) = resolve(
            snapshot,
            iris,
            ontology,
            &item.entity,
            &format!("{param}.entity"),
            Some(&mut self.inserts),
        )?;
        let existing = snapshot.quads_mentioning(&entity.clone().into());
        for (field_name, value) in &item.properties {
            let field_local = iris
                .field(field_name)
                .as_str()
                .trim_start_matches(&iris.field_prefix())
                .to_owned();
            let field = ontology.fields.get(&field_local).ok_or_else(|| {
                error(
                    ErrorCode::UnknownField,
                    format!("{param}.properties.{field_name}"),
                    format!(
                        "unknown field {field_name:?}; known: {}",
                        ontology
                            .fields
                            .values()
                            .map(|f| format!("{} ({})", f.name, f.type_name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })?;
            let field_type = iris
                .class(&field.type_name)
                .as_str()
                .trim_start_matches(&iris.class_prefix())
                .to_owned();
            if let Some(entity_type) = &entity_type
                && !is_a(ontology, entity_type, &field_type)
            {
                return Err(error(
                    ErrorCode::UnknownField,
                    format!("{param}.properties.{field_name}"),
                    format!(
                        "field {} belongs to type {}, not {entity_type}",
                        field.name, field.type_name
                    ),
                ));
            }
            let predicate = iris.field(&field.name);
            // Setting a field replaces its earlier values.
            self.deletes.extend(
                existing
                    .iter()
                    .filter(|q| q.predicate == predicate && q.subject == entity.clone().into())
                    .cloned(),
            );
            let values: Vec<&Value> = match value {
                Value::Array(values) => values.iter().collect(),
                single => vec![single],
            };
            for value in values {
                let literal = convert_value(value, field.value_type).map_err(|e| {
                    error(
                        ErrorCode::ValueTypeMismatch,
                        format!("{param}.properties.{field_name}"),
                        e.to_string(),
                    )
                })?;
                if !field.allowed_values.is_empty()
                    && !field.allowed_values.iter().any(|a| a == literal.value())
                {
                    return Err(error(
                        ErrorCode::ValueTypeMismatch,
                        format!("{param}.properties.{field_name}"),
                        format!(
                            "{} is not one of {}",
                            literal.value(),
                            field.allowed_values.join(", ")
                        ),
                    ));
                }
                self.inserts
                    .push(quad(&entity, predicate.as_str(), literal));
            }
        }
        Ok(())
    }

    /// A link to remove, with its annotations.
    fn retract_link(&mut self, at: Reading, idx: usize, edge: &Edge) -> Result<(), ApiError> {
        let Reading {
            snapshot,
            iris,
            ontology,
            ..
        } = at;
        let param = format!("retract_edges[{idx}]");
        let relation_local = iris
            .relation(&edge.relation)
            .as_str()
            .trim_start_matches(&iris.relation_prefix())
            .to_owned();
        if !ontology.relations.contains_key(&relation_local) {
            return Err(error(
                ErrorCode::UnknownRelation,
                format!("{param}.relation"),
                format!("unknown relation {:?}", edge.relation),
            ));
        }
        let (source, _) = resolve(
            snapshot,
            iris,
            ontology,
            &edge.source,
            &format!("{param}.source"),
            None,
        )?;
        let (target, _) = resolve(
            snapshot,
            iris,
            ontology,
            &edge.target,
            &format!("{param}.target"),
            None,
        )?;
        let predicate = iris.relation(&edge.relation);
        let triple = Triple::new(source.clone(), predicate.clone(), target.clone());
        self.deletes.push(quad(&source, predicate.as_str(), target));
        self.deletes.extend(annotations_of(snapshot, iris, triple));
        self.destructive = true;
        Ok(())
    }

    /// A record to remove, with its links and their annotations.
    fn retract_record(
        &mut self,
        at: Reading,
        idx: usize,
        record: &RecordRef,
    ) -> Result<(), ApiError> {
        let Reading {
            snapshot,
            iris,
            ontology,
            ..
        } = at;
        let (entity, _) = resolve(
            snapshot,
            iris,
            ontology,
            record,
            &format!("retract_entities[{idx}]"),
            None,
        )?;
        let mentions = snapshot.quads_mentioning(&entity.into());
        // The annotations of the record's links go with them.
        for mention in &mentions {
            if let Term::NamedNode(object) = &mention.object {
                let triple = Triple::new(
                    mention.subject.clone(),
                    mention.predicate.clone(),
                    object.clone(),
                );
                self.deletes.extend(annotations_of(snapshot, iris, triple));
            }
        }
        self.deletes.extend(mentions);
        self.destructive = true;
        Ok(())
    }

    /// Vectors the caller computed, replacing the model's for those records.
    fn vectors(&mut self, at: Reading, items: &[EntityEmbedding]) -> Result<(), ApiError> {
        let Reading {
            graph,
            snapshot,
            iris,
            ontology,
        } = at;
        let statuses = graph.index_status();
        let declared = crate::engine::declarations_in(snapshot);
        for (idx, item) in items.iter().enumerate() {
            let param = format!("entity_embeddings[{idx}]");
            let record = match (&item.iri, &item.record) {
                (Some(iri), None) => NamedNode::new(
                    iri.trim_start_matches('<').trim_end_matches('>'),
                )
                .map_err(|e| {
                    ApiError::invalid_argument(&format!("{param}.iri"), format!("not an IRI: {e}"))
                })?,
                (None, Some(record)) => {
                    resolve(
                        snapshot,
                        iris,
                        ontology,
                        record,
                        &format!("{param}.record"),
                        None,
                    )?
                    .0
                }
                _ => {
                    return Err(ApiError::invalid_argument(
                        &param,
                        "name the record with `record` ({type, name}) or `iri`",
                    ));
                }
            };
            let index = match &item.index {
                Some(name) if declared.iter().any(|d| &d.name == name) => name.clone(),
                Some(name) => {
                    return Err(ApiError::invalid_argument(
                        &format!("{param}.index"),
                        format!("no search index {name:?} (see the embeddings tool, action list)"),
                    ));
                }
                None if declared.len() == 1 => declared[0].name.clone(),
                None => {
                    return Err(ApiError::invalid_argument(
                        &format!("{param}.index"),
                        format!("the graph has {} search indexes: name one", declared.len()),
                    ));
                }
            };
            let dim = statuses
                .iter()
                .find(|s| s.declaration.name == index)
                .map_or(0, |s| s.dim);
            if dim != 0 && item.vector.len() != dim {
                return Err(ApiError::invalid_argument(
                    &format!("{param}.vector"),
                    format!(
                        "the vector has {} dimensions; index {index} has {dim}",
                        item.vector.len()
                    ),
                ));
            }
            if item.vector.iter().any(|x| !x.is_finite()) || item.vector.iter().all(|x| *x == 0.0) {
                return Err(ApiError::invalid_argument(
                    &format!("{param}.vector"),
                    "the vector must be finite and not all zeros",
                ));
            }
            let predicate = crate::engine::vector_predicate(&index);
            self.deletes.extend(snapshot.quads_matching(
                Some(&Term::NamedNode(record.clone())),
                Some(&Term::NamedNode(predicate)),
                None,
            ));
            self.inserts
                .push(crate::engine::vector_quad(&record, &index, &item.vector));
        }
        Ok(())
    }
}

/// Prepares a write of records against the head: checks the arguments, plans the
/// change and previews it (a dry run is answered here).
pub fn prepare(
    engine: &Arc<Engine>,
    args: CommitArgs,
    admin: bool,
) -> Result<Prepared<CommitWrite>, ApiError> {
    if args.triplets.is_empty()
        && args.entity_properties.is_empty()
        && args.entity_embeddings.is_empty()
        && args.retract_edges.is_empty()
        && args.retract_entities.is_empty()
    {
        return Err(ApiError::invalid_argument(
            "triplets",
            "give triplets, entity_properties, entity_embeddings, retract_edges or retract_entities",
        ));
    }
    let observed_at = args
        .observed_at
        .as_deref()
        .map(|t| {
            crate::model::parse_moment(t).ok_or_else(|| {
                ApiError::invalid_argument("observed_at", "expected an RFC 3339 moment")
            })
        })
        .transpose()?;
    let name = graph_name(&args.graph);
    let mut content = args.clone();
    content.dry_run = false;
    content.idempotency_key = None;
    let digest: [u8; 32] = Sha256::new()
        .chain_update(name.as_bytes())
        .chain_update(serde_json::to_vec(&content).unwrap_or_default())
        .finalize()
        .into();
    let idempotency_key = args.idempotency_key.clone().or_else(|| {
        Some(format!(
            "{}{}",
            crate::engine::AUTOMATIC_KEY_PREFIX,
            digest[..12]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        ))
    });
    // A preview at the head: what a dry run reports and what a person is shown. The
    // commit plans again under the writer lock (`CommitWrite::commit`).
    let graph = engine.graph(&name)?;
    let iris = RecordIris::for_graph(&name);
    let snapshot = graph.snapshot(graph.head_seq());
    let ontology = ontology::read(&snapshot, &iris);
    let plan = plan(&graph, &snapshot, &iris, &ontology, &args)?;
    let (added, removed) = graph.preview_quads(&plan.inserts, &plan.deletes);
    if args.dry_run {
        let validation = graph.check_quads(&plan.inserts, &plan.deletes)?;
        return Ok(Prepared::Answered(dry_run_answer(
            &name,
            graph.head_seq(),
            &added,
            &removed,
            validation.as_ref(),
        )));
    }
    let removal = (plan.destructive && !removed.is_empty()).then(|| Removal {
        graph: name.clone(),
        what: "This commit",
        quads: removed.clone(),
        text: None,
        fingerprint: vec!["commit".into(), format!("{digest:?}")],
    });
    Ok(Prepared::Ready {
        removal,
        write: CommitWrite {
            graph,
            name,
            args,
            digest,
            request: CommitRequest {
                author: None,
                message: None,
                observed_at,
                idempotency_key,
                admin,
                forward_id: None,
            },
            shown: removed.into_iter().collect(),
        },
    })
}

impl super::WriteArgs for CommitArgs {
    type Write = CommitWrite;

    fn prepare(self, engine: &Arc<Engine>, admin: bool) -> Result<Prepared<CommitWrite>, ApiError> {
        prepare(engine, self, admin)
    }

    fn graph_mut(&mut self) -> &mut Option<String> {
        &mut self.graph
    }

    fn fill_from(&mut self, request: &CommitRequest) {
        if self.idempotency_key.is_none() {
            self.idempotency_key.clone_from(&request.idempotency_key);
        }
        if self.message.is_none() {
            self.message.clone_from(&request.message);
        }
        if self.observed_at.is_none() {
            self.observed_at = request.observed_at.map(crate::log::format_time);
        }
    }
}

/// A prepared write of records.
pub struct CommitWrite {
    graph: Arc<Graph>,
    name: String,
    args: CommitArgs,
    digest: [u8; 32],
    request: CommitRequest,
    /// What the preview removes: all a person may have approved.
    shown: rustc_hash::FxHashSet<Quad>,
}

impl Write for CommitWrite {
    fn commit(self, approved: &Approved) -> Result<Envelope, ApiError> {
        let CommitWrite {
            graph,
            name,
            args,
            digest,
            mut request,
            shown,
        } = self;
        request.author = approved.author.clone();
        request.message = args.message.clone();
        // In a cluster whose write leader is another node, the leader plans and commits
        // it (`FORWARDED_COMMIT`).
        let forwarded = graph.forward_op(
            FORWARDED_COMMIT,
            || ForwardedPlan::body(&name, &args, &digest, &shown, approved),
            &request,
        )?;
        let outcome = match forwarded {
            Some(outcome) => outcome,
            None => commit_planned(&graph, &name, &args, digest, &request, approved, &shown)?,
        };
        let summary = match outcome.commit_seq {
            Some(seq) if outcome.idempotent_replay => {
                format!("already committed as commit {seq} of graph {name} (idempotent replay)")
            }
            Some(seq) => format!(
                "commit {seq} of graph {name}: +{} -{} quads",
                outcome.inserted, outcome.deleted
            ),
            None => format!(
                "nothing changed; graph {name} stays at commit {}",
                outcome.head_seq
            ),
        };
        Ok(Envelope::new(
            summary,
            json!({
                "commit_seq": outcome.commit_seq,
                "head_seq": outcome.head_seq,
                "inserted": outcome.inserted,
                "deleted": outcome.deleted,
                "idempotent_replay": outcome.idempotent_replay,
                "validation": outcome.validation.as_deref().map(crate::report::validation_json),
            }),
            outcome.head_seq,
        ))
    }
}

/// The op of a `commit` forwarded to the graph's write leader.
const FORWARDED_COMMIT: &str = "records.commit";

/// Lets this node, as a graph's write leader, commit records other nodes forward.
pub(crate) fn serve_forwarded_commits() {
    crate::engine::register_forwarded_op(FORWARDED_COMMIT, run_forwarded_commit);
}

/// Plans and commits a `commit` another node forwarded, as it would have.
fn run_forwarded_commit(
    graph: &Arc<Graph>,
    body: &Value,
    request: &CommitRequest,
) -> Result<crate::engine::CommitOutcome, crate::engine::EngineError> {
    let plan = ForwardedPlan::<CommitArgs>::read(body, request, "commit")?;
    commit_planned(
        graph,
        &plan.name,
        &plan.args,
        plan.digest,
        request,
        &plan.approved,
        &plan.shown,
    )
    .map_err(|error| forwarded_failure(error, "commit"))
}

/// Plans the records under the writer lock, against the state the commit lands on, and
/// commits them: a removal the person did not see (the data moved while they were
/// asked) fails with `approval_declined` and nothing is written; one they saw but that
/// is gone is not removed twice.
fn commit_planned(
    graph: &Arc<Graph>,
    name: &str,
    args: &CommitArgs,
    digest: [u8; 32],
    request: &CommitRequest,
    approved: &Approved,
    shown: &rustc_hash::FxHashSet<Quad>,
) -> Result<crate::engine::CommitOutcome, ApiError> {
    graph.commit_planned(request, digest, |snapshot| {
        let iris = RecordIris::for_graph(name);
        let ontology = ontology::read(snapshot, &iris);
        let plan = plan(graph, snapshot, &iris, &ontology, args)?;
        super::check_shown(approved, plan.destructive, &plan.deletes, shown, snapshot)?;
        Ok::<_, ApiError>((plan.inserts, plan.deletes))
    })
}

fn dry_run_answer(
    name: &str,
    head: u64,
    added: &[Quad],
    removed: &[Quad],
    validation: Option<&crate::engine::CommitValidation>,
) -> Envelope {
    let sample = |quads: &[Quad]| {
        quads
            .iter()
            .take(20)
            .map(|q| format!("{q} ."))
            .collect::<Vec<_>>()
    };
    let shacl = match validation {
        None => String::new(),
        Some(v) if v.mode == crate::shacl::ValidationMode::Reject && v.report.has_violations() => {
            format!(
                "; SHACL would reject it ({} violation(s))",
                v.report.violation_count()
            )
        }
        Some(v) => format!("; SHACL: {} result(s)", v.report.results.len()),
    };
    Envelope::new(
        format!(
            "dry run: this would add {} and remove {} quads in graph {name} (head {head}){shacl}; nothing written",
            added.len(),
            removed.len()
        ),
        json!({
            "would_insert": added.len(),
            "would_delete": removed.len(),
            "inserted_sample": sample(added),
            "deleted_sample": sample(removed),
            "validation": validation.map(crate::report::validation_json),
        }),
        head,
    )
}
