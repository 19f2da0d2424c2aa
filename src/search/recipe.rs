//! The text that describes a record, from its declaration: its label, then the values of
//! the chosen properties in order (a link contributes its target's label).

use rustc_hash::FxHashSet;

use super::Declaration;
use crate::model::{NamedNode, Term};
use crate::store::{GraphFilter, Pattern, Snapshot, TermId};

use crate::model::RDF_TYPE;
const RDFS_SUBCLASS: &str = "http://www.w3.org/2000/01/rdf-schema#subClassOf";
/// Properties that name a record, in order of preference.
pub const LABELS: [&str; 4] = [
    "http://www.w3.org/2000/01/rdf-schema#label",
    "http://www.w3.org/2004/02/skos/core#prefLabel",
    "http://purl.org/dc/terms/title",
    "http://schema.org/name",
];
/// Texts longer than this are cut (at a character boundary): models read 256 tokens.
const MAX_TEXT_BYTES: usize = 8 * 1024;

fn pattern(s: Option<TermId>, p: Option<TermId>, o: Option<TermId>) -> Pattern {
    Pattern {
        subject: s,
        predicate: p,
        object: o,
        graph: GraphFilter::All,
    }
}

fn id(snapshot: &Snapshot, iri: &str) -> Option<TermId> {
    snapshot.lookup(&Term::NamedNode(NamedNode::new_unchecked(iri)))
}

/// A declaration with its terms looked up in one snapshot's dictionary.
pub struct Recipe {
    classes: Vec<TermId>,
    from: Vec<Option<TermId>>,
    exclude: FxHashSet<TermId>,
    labels: Vec<TermId>,
    type_id: Option<TermId>,
}

impl Recipe {
    pub fn new(snapshot: &Snapshot, declaration: &Declaration) -> Self {
        let type_id = id(snapshot, RDF_TYPE);
        // The class and its subclasses, transitively.
        let mut classes = Vec::new();
        if let Some(class) = snapshot.lookup(&Term::NamedNode(declaration.class.clone())) {
            let subclass = id(snapshot, RDFS_SUBCLASS);
            let mut todo = vec![class];
            let mut seen = FxHashSet::default();
            while let Some(c) = todo.pop() {
                if !seen.insert(c) {
                    continue;
                }
                classes.push(c);
                if let Some(sc) = subclass {
                    todo.extend(
                        snapshot
                            .quads(pattern(None, Some(sc), Some(c)))
                            .map(|k| k[0]),
                    );
                }
            }
        }
        Self {
            classes,
            from: declaration
                .from
                .iter()
                .map(|p| snapshot.lookup(&Term::NamedNode(p.clone())))
                .collect(),
            exclude: declaration
                .exclude
                .iter()
                .filter_map(|p| snapshot.lookup(&Term::NamedNode(p.clone())))
                .collect(),
            labels: LABELS.iter().filter_map(|l| id(snapshot, l)).collect(),
            type_id,
        }
    }

    /// Every record of the class (or a subclass) at the snapshot.
    pub fn instances(&self, snapshot: &Snapshot) -> Vec<TermId> {
        let Some(t) = self.type_id else {
            return Vec::new();
        };
        let mut out: Vec<TermId> = self
            .classes
            .iter()
            .flat_map(|&c| {
                snapshot
                    .quads(pattern(None, Some(t), Some(c)))
                    .map(|k| k[0])
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True when `record` is an instance at the snapshot.
    pub fn is_instance(&self, snapshot: &Snapshot, record: TermId) -> bool {
        self.type_id.is_some_and(|t| {
            self.classes.iter().any(|&c| {
                snapshot
                    .quads(pattern(Some(record), Some(t), Some(c)))
                    .next()
                    .is_some()
            })
        })
    }

    /// The properties whose change can change a record's text (labels included).
    pub fn properties(&self) -> Vec<TermId> {
        let mut out: Vec<TermId> = self.from.iter().flatten().copied().collect();
        out.extend(&self.labels);
        out
    }

    /// The record's label: the first label property with a value, else its IRI's last
    /// segment.
    pub fn label(&self, snapshot: &Snapshot, record: TermId) -> String {
        for &l in &self.labels {
            if let Some(k) = snapshot.quads(pattern(Some(record), Some(l), None)).next()
                && let Some(Term::Literal(lit)) = snapshot.term(k[2])
            {
                return lit.value().to_owned();
            }
        }
        match snapshot.term(record) {
            Some(Term::NamedNode(n)) => n
                .as_str()
                .rsplit(['/', '#'])
                .next()
                .unwrap_or(n.as_str())
                .to_owned(),
            Some(other) => other.to_string(),
            None => String::new(),
        }
    }

    /// The text embedded and indexed for a record.
    pub fn text(&self, snapshot: &Snapshot, record: TermId) -> String {
        let mut parts: Vec<String> = Vec::new();
        let label = self.label(snapshot, record);
        let label_in_from = self.from.iter().flatten().any(|p| self.labels.contains(p));
        if !label_in_from && !label.is_empty() {
            parts.push(label);
        }
        let value_text = |k: [TermId; 4]| -> Option<String> {
            match snapshot.term(k[2])? {
                Term::Literal(l) => Some(l.value().to_owned()),
                Term::NamedNode(_) | Term::BlankNode(_) => Some(self.label(snapshot, k[2])),
                Term::Triple(_) => None,
            }
        };
        if self.from.is_empty() {
            // Every literal property but the excluded ones, labels (already first) aside.
            let mut keys: Vec<[TermId; 4]> = snapshot
                .quads(pattern(Some(record), None, None))
                .filter(|k| !self.exclude.contains(&k[1]) && !self.labels.contains(&k[1]))
                .filter(|k| matches!(snapshot.term(k[2]), Some(Term::Literal(_))))
                .collect();
            keys.sort_unstable();
            parts.extend(keys.into_iter().filter_map(value_text));
        } else {
            for p in self.from.iter().flatten() {
                if self.exclude.contains(p) {
                    continue;
                }
                let mut values: Vec<String> = snapshot
                    .quads(pattern(Some(record), Some(*p), None))
                    .filter_map(value_text)
                    .collect();
                values.sort();
                values.dedup();
                if !values.is_empty() {
                    parts.push(values.join(", "));
                }
            }
        }
        let mut text = parts.join(". ");
        if text.len() > MAX_TEXT_BYTES {
            let mut cut = MAX_TEXT_BYTES;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
        }
        text
    }
}
