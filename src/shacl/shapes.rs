//! A compiled set of SHACL shapes, plus what Strata needs to know about it without
//! validating: which classes and properties it names, and how far its paths reach.

use std::collections::{BTreeSet, HashMap, HashSet};

use rudof_rdf::rdf_impl::OxigraphInMemory;
use shacl::ir::IRSchema;
use shacl::rdf::ShaclParser;

use super::ShaclError;
use crate::model::{NamedNode, NamedOrBlankNode, Term, Triple};

const SH: &str = "http://www.w3.org/ns/shacl#";
use crate::model::RDF_TYPE;
const RDF_FIRST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#first";
const RDF_REST: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#rest";
const RDFS_CLASS: &str = "http://www.w3.org/2000/01/rdf-schema#Class";
const OWL_CLASS: &str = "http://www.w3.org/2002/07/owl#Class";

/// What a graph does with its shapes on every commit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ValidationMode {
    /// Shapes are kept but commits are not validated.
    Off,
    /// Commits are validated; violations are reported, the commit lands.
    #[default]
    Warn,
    /// A commit that would leave `sh:Violation` results fails and writes nothing.
    Reject,
}

impl ValidationMode {
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "off" => Some(Self::Off),
            "warn" => Some(Self::Warn),
            "reject" => Some(Self::Reject),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Warn => "warn",
            Self::Reject => "reject",
        }
    }
}

/// Shapes parsed and compiled once, shared by every validation that uses them.
pub struct Shapes {
    schema: IRSchema,
    /// The triples the shapes were compiled from.
    pub triples: Vec<Triple>,
    /// Shapes (node and property) that the schema holds.
    pub shape_count: usize,
    /// Classes whose instances are focus nodes (`sh:targetClass`, implicit class targets).
    pub target_classes: BTreeSet<NamedNode>,
    /// Every class named: targets and `sh:class` values.
    pub classes: BTreeSet<NamedNode>,
    /// Every property named in a path or a `sh:targetSubjectsOf` / `sh:targetObjectsOf`.
    pub properties: BTreeSet<NamedNode>,
    /// True when a path is `sh:zeroOrMorePath` / `sh:oneOrMorePath`: such a path can reach
    /// arbitrarily far, so only a whole-graph validation is exact.
    pub unbounded_paths: bool,
    /// The shape that declares each property shape (`?owner sh:property ?shape`).
    owners: HashMap<Term, Term>,
}

impl std::fmt::Debug for Shapes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shapes")
            .field("shape_count", &self.shape_count)
            .field("target_classes", &self.target_classes)
            .finish_non_exhaustive()
    }
}

impl Shapes {
    /// Compiles the shapes held by `triples` (a shapes graph). Fails with a message naming
    /// the problem (an unknown constraint value, a malformed list, a bad path...).
    pub fn from_triples(triples: Vec<Triple>) -> Result<Self, ShaclError> {
        check_property_paths(&triples)?;
        check_counts_and_extensions(&triples)?;
        let mut graph = OxigraphInMemory::new();
        for triple in &triples {
            graph
                .add_triple_ref(&triple.subject, &triple.predicate, &triple.object)
                .map_err(|e| ShaclError::InvalidShapes(e.to_string()))?;
        }
        let schema = super::guard(|| {
            let ast = ShaclParser::new(graph)
                .parse()
                .map_err(|e| ShaclError::InvalidShapes(e.to_string()))?;
            IRSchema::compile(&ast).map_err(|e| ShaclError::InvalidShapes(e.to_string()))
        })??;
        let shape_count = schema.iter().count();
        let names = Names::of(&triples);
        let property = format!("{SH}property");
        let owners = triples
            .iter()
            .filter(|t| t.predicate.as_str() == property)
            .map(|t| (t.object.clone(), Term::from(t.subject.clone())))
            .collect();
        Ok(Self {
            owners,
            schema,
            triples,
            shape_count,
            target_classes: names.target_classes,
            classes: names.classes,
            properties: names.properties,
            unbounded_paths: names.unbounded_paths,
        })
    }

    /// The shape that declares `shape` as one of its `sh:property` shapes.
    pub fn owner_of(&self, shape: &Term) -> Option<&Term> {
        self.owners.get(shape)
    }

    pub(crate) fn schema(&self) -> &IRSchema {
        &self.schema
    }

    /// True when there is nothing to validate against.
    pub fn is_empty(&self) -> bool {
        self.shape_count == 0
    }
}

/// Every property shape (a value of `sh:property`, or a node typed `sh:PropertyShape`)
/// names exactly one `sh:path` (SHACL 2.3.1). The shapes parser skips one without a path
/// silently, so its constraints would never run: a shapes graph holding one is refused.
/// Counts and lengths are non-negative integers (a negative one would be read as a huge
/// count), and constraints of SHACL-SPARQL are refused rather than silently skipped:
/// only SHACL Core is checked.
fn check_counts_and_extensions(triples: &[Triple]) -> Result<(), ShaclError> {
    const COUNTS: [&str; 6] = [
        "minCount",
        "maxCount",
        "minLength",
        "maxLength",
        "qualifiedMinCount",
        "qualifiedMaxCount",
    ];
    for triple in triples {
        let Some(local) = triple.predicate.as_str().strip_prefix(SH) else {
            continue;
        };
        if local == "sparql" {
            return Err(ShaclError::InvalidShapes(format!(
                "{} has an sh:sparql constraint: SHACL-SPARQL is not supported, only SHACL Core",
                triple.subject
            )));
        }
        if COUNTS.contains(&local) {
            let count = match &triple.object {
                Term::Literal(l) => l.value().trim().parse::<i128>().ok(),
                _ => None,
            };
            if count.is_none_or(|n| n < 0) {
                return Err(ShaclError::InvalidShapes(format!(
                    "sh:{local} {} of {} is not a non-negative integer",
                    triple.object, triple.subject
                )));
            }
        }
    }
    Ok(())
}

fn check_property_paths(triples: &[Triple]) -> Result<(), ShaclError> {
    let property = format!("{SH}property");
    let path = format!("{SH}path");
    let property_shape = format!("{SH}PropertyShape");
    let mut shapes: Vec<Term> = Vec::new();
    for triple in triples {
        let shape = if triple.predicate.as_str() == property {
            triple.object.clone()
        } else if triple.predicate.as_str() == RDF_TYPE
            && matches!(&triple.object, Term::NamedNode(c) if c.as_str() == property_shape)
        {
            Term::from(triple.subject.clone())
        } else {
            continue;
        };
        if !shapes.contains(&shape) {
            shapes.push(shape);
        }
    }
    for shape in shapes {
        let paths = triples
            .iter()
            .filter(|t| t.predicate.as_str() == path && Term::from(t.subject.clone()) == shape)
            .count();
        if paths != 1 {
            let owner = triples
                .iter()
                .find(|t| t.predicate.as_str() == property && t.object == shape)
                .map(|t| format!(" (a property of {})", t.subject))
                .unwrap_or_default();
            let shown = match &shape {
                Term::BlankNode(_) => "a property shape".to_owned(),
                other => format!("the property shape {other}"),
            };
            return Err(ShaclError::InvalidShapes(format!(
                "{shown}{owner} has {paths} sh:path values; a property shape names exactly one path"
            )));
        }
    }
    Ok(())
}

/// The classes and properties a shapes graph names.
#[derive(Default)]
struct Names {
    target_classes: BTreeSet<NamedNode>,
    classes: BTreeSet<NamedNode>,
    properties: BTreeSet<NamedNode>,
    unbounded_paths: bool,
}

impl Names {
    fn of(triples: &[Triple]) -> Self {
        let mut names = Self::default();
        names.index(triples);
        names
    }

    fn index(&mut self, triples: &[Triple]) {
        let sh = |local: &str| format!("{SH}{local}");
        let mut by_subject: HashMap<&NamedOrBlankNode, Vec<&Triple>> = HashMap::new();
        for t in triples {
            by_subject.entry(&t.subject).or_default().push(t);
        }
        let (target_class, class, path) = (sh("targetClass"), sh("class"), sh("path"));
        let (subjects_of, objects_of) = (sh("targetSubjectsOf"), sh("targetObjectsOf"));
        let node_shape = sh("NodeShape");
        let mut class_like: BTreeSet<NamedNode> = BTreeSet::new();
        let mut node_shapes: BTreeSet<NamedNode> = BTreeSet::new();
        let mut path_values: Vec<&Term> = Vec::new();
        for t in triples {
            let p = t.predicate.as_str();
            let object = match &t.object {
                Term::NamedNode(n) => Some(n.clone()),
                _ => None,
            };
            if p == target_class || p == class {
                if let Some(n) = object {
                    if p == target_class {
                        self.target_classes.insert(n.clone());
                    }
                    self.classes.insert(n);
                }
            } else if p == subjects_of || p == objects_of {
                self.properties.extend(object);
            } else if p == path {
                path_values.push(&t.object);
            } else if p == RDF_TYPE
                && let (NamedOrBlankNode::NamedNode(s), Some(o)) = (&t.subject, &object)
            {
                if o.as_str() == RDFS_CLASS || o.as_str() == OWL_CLASS {
                    class_like.insert(s.clone());
                } else if o.as_str() == node_shape {
                    node_shapes.insert(s.clone());
                }
            }
        }
        // A node shape that is also a class targets its instances (SHACL 2.1.3.1).
        for class in class_like.intersection(&node_shapes) {
            self.target_classes.insert(class.clone());
            self.classes.insert(class.clone());
        }
        let mut seen = HashSet::new();
        for value in path_values {
            self.walk_path(value, &by_subject, &mut seen);
        }
    }

    /// Collects the predicates of a SHACL path expression (following its blank nodes and
    /// lists), noting transitive steps.
    fn walk_path<'a>(
        &mut self,
        path: &'a Term,
        by_subject: &HashMap<&NamedOrBlankNode, Vec<&'a Triple>>,
        seen: &mut HashSet<&'a Term>,
    ) {
        if !seen.insert(path) {
            return;
        }
        let node = match path {
            Term::NamedNode(n) => {
                self.properties.insert(n.clone());
                return;
            }
            Term::BlankNode(b) => NamedOrBlankNode::BlankNode(b.clone()),
            _ => return,
        };
        for t in by_subject.get(&node).into_iter().flatten() {
            let p = t.predicate.as_str();
            if let Some(local) = p.strip_prefix(SH)
                && (local == "zeroOrMorePath" || local == "oneOrMorePath")
            {
                self.unbounded_paths = true;
            }
            if p.starts_with(SH) || p == RDF_FIRST || p == RDF_REST {
                self.walk_path(&t.object, by_subject, seen);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shapes(turtle: &str) -> Result<Shapes, ShaclError> {
        let triples = oxttl::TurtleParser::new()
            .for_slice(turtle.as_bytes())
            .map(|t| t.unwrap())
            .collect();
        Shapes::from_triples(triples)
    }

    #[test]
    fn every_property_shape_names_one_path() {
        let head = "@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix e: <http://e/> .";
        assert!(shapes(&format!("{head} e:S a sh:NodeShape ; sh:targetClass e:C ; sh:property [ sh:path e:p ; sh:minCount 1 ] .")).is_ok());
        for bad in [
            "e:S a sh:NodeShape ; sh:targetClass e:C ; sh:property [ sh:minCount 1 ] .",
            "e:S a sh:NodeShape ; sh:targetClass e:C ; sh:property e:P . e:P sh:path e:p , e:q .",
            "e:P a sh:PropertyShape ; sh:targetClass e:C ; sh:minCount 1 .",
        ] {
            let error = shapes(&format!("{head} {bad}")).expect_err(bad);
            assert!(error.to_string().contains("sh:path"), "{bad}: {error}");
        }
    }
}
