//! The ontology of records written through the JSON tools: types (with super types),
//! relations (domain, range, cardinality, inverse, symmetric, transitive) and fields
//! (value type, unit, allowed values, required), stored as RDFS/OWL triples in the graph
//! itself so they are versioned like data. Also the IRIs of records.
//!
//! This module turns definitions into quads and reads them back from a snapshot; it does
//! not commit anything (the engine does).

mod iris;
mod values;

pub use iris::{RecordIris, local as local_name};
pub use values::{FieldValueError, ValueType, convert_value};

use std::collections::BTreeMap;

use crate::model::{Literal, NamedNode, Quad, RdfGraphName, Term};
use crate::store::{GraphFilter, Pattern, Snapshot};

/// The `strata:` vocabulary (see `ontologies/strata.ttl`).
pub const STRATA: &str = "https://strata.dev/ns#";
use crate::model::RDF_TYPE;
const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const RDFS_COMMENT: &str = "http://www.w3.org/2000/01/rdf-schema#comment";
const RDFS_SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
const RDFS_DOMAIN: &str = "http://www.w3.org/2000/01/rdf-schema#domain";
const RDFS_RANGE: &str = "http://www.w3.org/2000/01/rdf-schema#range";
const OWL_CLASS: &str = "http://www.w3.org/2002/07/owl#Class";
const OWL_OBJECT_PROPERTY: &str = "http://www.w3.org/2002/07/owl#ObjectProperty";
const OWL_DATATYPE_PROPERTY: &str = "http://www.w3.org/2002/07/owl#DatatypeProperty";
const OWL_INVERSE_OF: &str = "http://www.w3.org/2002/07/owl#inverseOf";
const OWL_SYMMETRIC: &str = "http://www.w3.org/2002/07/owl#SymmetricProperty";
const OWL_TRANSITIVE: &str = "http://www.w3.org/2002/07/owl#TransitiveProperty";
const OWL_FUNCTIONAL: &str = "http://www.w3.org/2002/07/owl#FunctionalProperty";

/// A type of record.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TypeDef {
    pub name: String,
    pub super_types: Vec<String>,
    pub description: Option<String>,
    /// The local names the type had before it was renamed (`strata:formerName`): its
    /// records keep their IRIs, which were made from those names.
    pub former_names: Vec<String>,
}

/// A relation between records.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RelationDef {
    pub name: String,
    pub domain: String,
    pub range: String,
    /// At most one target per source.
    pub functional: bool,
    pub inverse: Option<String>,
    pub symmetric: bool,
    pub transitive: bool,
    pub description: Option<String>,
}

/// A field of a type.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDef {
    pub name: String,
    pub type_name: String,
    pub value_type: ValueType,
    pub unit: Option<String>,
    pub allowed_values: Vec<String>,
    pub required: bool,
    pub description: Option<String>,
}

/// An ontology as read from a snapshot, keyed by lowercase local name.
#[derive(Clone, Debug, Default)]
pub struct Ontology {
    pub types: BTreeMap<String, TypeDef>,
    pub relations: BTreeMap<String, RelationDef>,
    pub fields: BTreeMap<String, FieldDef>,
}

/// What is wrong with a definition.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OntologyError {
    #[error("unknown type {0:?}")]
    UnknownType(String),
    #[error("invalid name {name:?} for {what}: use letters, digits, `_` or `-`")]
    InvalidName { what: &'static str, name: String },
}

/// The quads that describe `types`, `relations` and `fields` (in the default graph).
/// Types referenced by relations and fields must be defined here or in `known`.
pub fn definition_quads(
    iris: &RecordIris,
    known: &Ontology,
    types: &[TypeDef],
    relations: &[RelationDef],
    fields: &[FieldDef],
) -> Result<Vec<Quad>, OntologyError> {
    let mut quads = Vec::new();
    let defined = |name: &str| {
        types
            .iter()
            .any(|t| iris::local(&t.name) == iris::local(name))
            || known.types.contains_key(&iris::local(name))
    };
    let mut add = |s: &NamedNode, p: &str, o: Term| {
        quads.push(Quad::new(
            s.clone(),
            NamedNode::new_unchecked(p),
            o,
            RdfGraphName::DefaultGraph,
        ));
    };
    for type_def in types {
        check_name("type", &type_def.name)?;
        let class = iris.class(&type_def.name);
        add(&class, RDF_TYPE, NamedNode::new_unchecked(OWL_CLASS).into());
        add(
            &class,
            RDFS_LABEL,
            Literal::new_simple_literal(&type_def.name).into(),
        );
        for super_type in &type_def.super_types {
            if !defined(super_type) {
                return Err(OntologyError::UnknownType(super_type.clone()));
            }
            add(&class, RDFS_SUBCLASS, iris.class(super_type).into());
        }
        if let Some(description) = &type_def.description {
            add(
                &class,
                RDFS_COMMENT,
                Literal::new_simple_literal(description).into(),
            );
        }
        for former in &type_def.former_names {
            add(
                &class,
                &format!("{STRATA}formerName"),
                Literal::new_simple_literal(former).into(),
            );
        }
    }
    for relation in relations {
        check_name("relation", &relation.name)?;
        for end in [&relation.domain, &relation.range] {
            if !defined(end) {
                return Err(OntologyError::UnknownType(end.clone()));
            }
        }
        let property = iris.relation(&relation.name);
        add(
            &property,
            RDF_TYPE,
            NamedNode::new_unchecked(OWL_OBJECT_PROPERTY).into(),
        );
        add(
            &property,
            RDFS_LABEL,
            Literal::new_simple_literal(&relation.name).into(),
        );
        add(&property, RDFS_DOMAIN, iris.class(&relation.domain).into());
        add(&property, RDFS_RANGE, iris.class(&relation.range).into());
        if relation.functional {
            add(
                &property,
                RDF_TYPE,
                NamedNode::new_unchecked(OWL_FUNCTIONAL).into(),
            );
        }
        if relation.symmetric {
            add(
                &property,
                RDF_TYPE,
                NamedNode::new_unchecked(OWL_SYMMETRIC).into(),
            );
        }
        if relation.transitive {
            add(
                &property,
                RDF_TYPE,
                NamedNode::new_unchecked(OWL_TRANSITIVE).into(),
            );
        }
        if let Some(inverse) = &relation.inverse {
            check_name("relation", inverse)?;
            add(&property, OWL_INVERSE_OF, iris.relation(inverse).into());
        }
        if let Some(description) = &relation.description {
            add(
                &property,
                RDFS_COMMENT,
                Literal::new_simple_literal(description).into(),
            );
        }
    }
    for field in fields {
        check_name("field", &field.name)?;
        if !defined(&field.type_name) {
            return Err(OntologyError::UnknownType(field.type_name.clone()));
        }
        let property = iris.field(&field.name);
        add(
            &property,
            RDF_TYPE,
            NamedNode::new_unchecked(OWL_DATATYPE_PROPERTY).into(),
        );
        add(
            &property,
            RDFS_LABEL,
            Literal::new_simple_literal(&field.name).into(),
        );
        add(&property, RDFS_DOMAIN, iris.class(&field.type_name).into());
        add(
            &property,
            RDFS_RANGE,
            NamedNode::new_unchecked(field.value_type.datatype()).into(),
        );
        add(
            &property,
            &format!("{STRATA}valueType"),
            Literal::new_simple_literal(field.value_type.name()).into(),
        );
        if let Some(unit) = &field.unit {
            add(
                &property,
                &format!("{STRATA}unit"),
                Literal::new_simple_literal(unit).into(),
            );
        }
        for value in &field.allowed_values {
            add(
                &property,
                &format!("{STRATA}allowedValue"),
                Literal::new_simple_literal(value).into(),
            );
        }
        if field.required {
            add(
                &property,
                &format!("{STRATA}required"),
                Literal::from(true).into(),
            );
        }
        if let Some(description) = &field.description {
            add(
                &property,
                RDFS_COMMENT,
                Literal::new_simple_literal(description).into(),
            );
        }
    }
    Ok(quads)
}

/// What makes a whole ontology inconsistent, one sentence each: a relation or field on a
/// type that is not defined, an inverse that is no relation, a super type that is not
/// defined, a cycle of super types, a name that is both a relation and a field.
pub fn problems(ontology: &Ontology) -> Vec<String> {
    let mut problems = Vec::new();
    let defined = |name: &str| ontology.types.contains_key(&iris::local(name));
    for t in ontology.types.values() {
        for super_type in &t.super_types {
            if !defined(super_type) {
                problems.push(format!(
                    "type {} has super type {super_type}, which is not defined",
                    t.name
                ));
            }
        }
    }
    if let Some(cycle) = super_type_cycle(ontology) {
        problems.push(format!("the super types go round: {}", cycle.join(" ⊂ ")));
    }
    for r in ontology.relations.values() {
        for (end, name) in [("domain", &r.domain), ("range", &r.range)] {
            if !defined(name) {
                problems.push(format!(
                    "relation {} has {end} {name}, which is not defined",
                    r.name
                ));
            }
        }
        if let Some(inverse) = &r.inverse
            && !ontology.relations.contains_key(&iris::local(inverse))
        {
            problems.push(format!(
                "relation {} has inverse {inverse}, which is not a relation",
                r.name
            ));
        }
    }
    for (local, f) in &ontology.fields {
        if !defined(&f.type_name) {
            problems.push(format!(
                "field {} is of type {}, which is not defined",
                f.name, f.type_name
            ));
        }
        if ontology.relations.contains_key(local) {
            problems.push(format!(
                "{} is the name of a relation and of a field",
                f.name
            ));
        }
    }
    problems
}

/// A cycle of super types (as local names, the first again at the end), if any.
pub fn super_type_cycle(ontology: &Ontology) -> Option<Vec<String>> {
    // Depth-first from each type; `path` is the chain being walked.
    fn walk(
        ontology: &Ontology,
        local: &str,
        path: &mut Vec<String>,
        done: &mut std::collections::BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == local) {
            let mut cycle = path[at..].to_vec();
            cycle.push(local.to_owned());
            return Some(cycle);
        }
        if !done.insert(local.to_owned()) {
            return None;
        }
        path.push(local.to_owned());
        for super_type in ontology
            .types
            .get(local)
            .map(|t| t.super_types.as_slice())
            .unwrap_or_default()
        {
            if let Some(cycle) = walk(ontology, &iris::local(super_type), path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        None
    }
    let mut done = std::collections::BTreeSet::new();
    for local in ontology.types.keys() {
        if let Some(cycle) = walk(ontology, local, &mut Vec::new(), &mut done) {
            return Some(cycle);
        }
    }
    None
}

/// `name` as the name of a `what` (type, relation or field): letters, digits, `_`, `-`
/// or spaces, at most 128 bytes.
pub fn check_name_of(what: &'static str, name: &str) -> Result<(), OntologyError> {
    check_name(what, name)
}

fn check_name(what: &'static str, name: &str) -> Result<(), OntologyError> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == ' ');
    if ok {
        Ok(())
    } else {
        Err(OntologyError::InvalidName {
            what,
            name: name.to_owned(),
        })
    }
}

/// Reads the ontology of `iris`' namespace from a snapshot.
pub fn read(snapshot: &Snapshot, iris: &RecordIris) -> Ontology {
    let mut ontology = Ontology::default();
    let objects = |subject: &NamedNode, predicate: &str| -> Vec<Term> {
        let (Some(s), Some(p)) = (
            snapshot.lookup(&subject.clone().into()),
            snapshot.lookup(&NamedNode::new_unchecked(predicate).into()),
        ) else {
            return Vec::new();
        };
        snapshot
            .quads(Pattern {
                subject: Some(s),
                predicate: Some(p),
                object: None,
                graph: GraphFilter::Is(crate::store::DEFAULT_GRAPH),
            })
            .filter_map(|key| snapshot.term(key[2]))
            .collect()
    };
    let label = |subject: &NamedNode| -> Option<String> {
        objects(subject, RDFS_LABEL)
            .into_iter()
            .find_map(|t| match t {
                Term::Literal(l) => Some(l.value().to_owned()),
                _ => None,
            })
    };
    let comment = |subject: &NamedNode| -> Option<String> {
        objects(subject, RDFS_COMMENT)
            .into_iter()
            .find_map(|t| match t {
                Term::Literal(l) => Some(l.value().to_owned()),
                _ => None,
            })
    };
    let name_of = |term: &Term, prefix: &str| -> Option<String> {
        match term {
            Term::NamedNode(n) => n.as_str().strip_prefix(prefix).map(str::to_owned),
            _ => None,
        }
    };
    for (kind, class_iri) in [
        ("type", OWL_CLASS),
        ("relation", OWL_OBJECT_PROPERTY),
        ("field", OWL_DATATYPE_PROPERTY),
    ] {
        let (Some(type_id), Some(class_id)) = (
            snapshot.lookup(&NamedNode::new_unchecked(RDF_TYPE).into()),
            snapshot.lookup(&NamedNode::new_unchecked(class_iri).into()),
        ) else {
            continue;
        };
        let subjects: Vec<NamedNode> = snapshot
            .quads(Pattern {
                subject: None,
                predicate: Some(type_id),
                object: Some(class_id),
                graph: GraphFilter::Is(crate::store::DEFAULT_GRAPH),
            })
            .filter_map(|key| match snapshot.term(key[0]) {
                Some(Term::NamedNode(n)) => Some(n),
                _ => None,
            })
            .collect();
        for subject in subjects {
            let (prefix, local) = match kind {
                "type" => (
                    iris.class_prefix(),
                    subject.as_str().strip_prefix(&iris.class_prefix()),
                ),
                "relation" => (
                    iris.relation_prefix(),
                    subject.as_str().strip_prefix(&iris.relation_prefix()),
                ),
                _ => (
                    iris.field_prefix(),
                    subject.as_str().strip_prefix(&iris.field_prefix()),
                ),
            };
            let Some(local) = local.map(str::to_owned) else {
                continue;
            };
            let name = label(&subject).unwrap_or_else(|| local.clone());
            let class_prefix = iris.class_prefix();
            match kind {
                "type" => {
                    let super_types = objects(&subject, RDFS_SUBCLASS)
                        .iter()
                        .filter_map(|t| name_of(t, &class_prefix))
                        .collect();
                    ontology.types.insert(
                        local,
                        TypeDef {
                            name,
                            super_types,
                            description: comment(&subject),
                            former_names: objects(&subject, &format!("{STRATA}formerName"))
                                .into_iter()
                                .filter_map(|t| match t {
                                    Term::Literal(l) => Some(l.value().to_owned()),
                                    _ => None,
                                })
                                .collect(),
                        },
                    );
                }
                "relation" => {
                    let types: Vec<Term> = objects(&subject, RDF_TYPE);
                    let has = |iri: &str| {
                        types
                            .iter()
                            .any(|t| matches!(t, Term::NamedNode(n) if n.as_str() == iri))
                    };
                    let relation = RelationDef {
                        name,
                        domain: objects(&subject, RDFS_DOMAIN)
                            .first()
                            .and_then(|t| name_of(t, &class_prefix))
                            .unwrap_or_default(),
                        range: objects(&subject, RDFS_RANGE)
                            .first()
                            .and_then(|t| name_of(t, &class_prefix))
                            .unwrap_or_default(),
                        functional: has(OWL_FUNCTIONAL),
                        inverse: objects(&subject, OWL_INVERSE_OF)
                            .first()
                            .and_then(|t| name_of(t, &prefix)),
                        symmetric: has(OWL_SYMMETRIC),
                        transitive: has(OWL_TRANSITIVE),
                        description: comment(&subject),
                    };
                    ontology.relations.insert(local, relation);
                }
                _ => {
                    let literal = |p: &str| -> Vec<String> {
                        objects(&subject, &format!("{STRATA}{p}"))
                            .into_iter()
                            .filter_map(|t| match t {
                                Term::Literal(l) => Some(l.value().to_owned()),
                                _ => None,
                            })
                            .collect()
                    };
                    let value_type = literal("valueType")
                        .first()
                        .and_then(|v| ValueType::from_name(v))
                        .unwrap_or(ValueType::Text);
                    let field = FieldDef {
                        name,
                        type_name: objects(&subject, RDFS_DOMAIN)
                            .first()
                            .and_then(|t| name_of(t, &class_prefix))
                            .unwrap_or_default(),
                        value_type,
                        unit: literal("unit").into_iter().next(),
                        allowed_values: literal("allowedValue"),
                        required: literal("required").iter().any(|v| v == "true"),
                        description: comment(&subject),
                    };
                    ontology.fields.insert(local, field);
                }
            }
        }
    }
    ontology
}
