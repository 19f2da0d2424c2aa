//! Record IRIs: `<base>/class/<type>`, `<base>/rel/<relation>`, `<base>/prop/<field>`,
//! `<base>/entity/<type>/<name-or-key>`. Local names of classes, relations and fields are
//! lowercase; names are percent-encoded so any name makes a valid IRI.

use crate::model::NamedNode;

/// Builds the IRIs of one graph's records.
#[derive(Clone, Debug)]
pub struct RecordIris {
    base: String,
}

impl RecordIris {
    /// IRIs under `base` (no trailing slash), e.g. `http://strata.local/graphs/main`.
    pub fn new(base: &str) -> Self {
        Self {
            base: base.trim_end_matches('/').to_owned(),
        }
    }

    /// The default base of a graph's records.
    pub fn for_graph(graph: &str) -> Self {
        Self::new(&format!("http://strata.local/graphs/{graph}"))
    }

    pub fn class(&self, name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("{}{}", self.class_prefix(), local(name)))
    }

    pub fn relation(&self, name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("{}{}", self.relation_prefix(), local(name)))
    }

    pub fn field(&self, name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!("{}{}", self.field_prefix(), local(name)))
    }

    /// A record named `name` (or identified by a key) of type `type_name`.
    pub fn entity(&self, type_name: &str, name: &str) -> NamedNode {
        NamedNode::new_unchecked(format!(
            "{}/entity/{}/{}",
            self.base,
            local(type_name),
            crate::model::percent_encode(name)
        ))
    }

    /// A record identified by a key alone.
    pub fn keyed(&self, key: &str) -> NamedNode {
        NamedNode::new_unchecked(format!(
            "{}/entity/key/{}",
            self.base,
            crate::model::percent_encode(key)
        ))
    }

    pub fn class_prefix(&self) -> String {
        format!("{}/class/", self.base)
    }

    pub fn relation_prefix(&self) -> String {
        format!("{}/rel/", self.base)
    }

    pub fn field_prefix(&self) -> String {
        format!("{}/prop/", self.base)
    }
}

/// The lowercase, encoded local name of a type, relation or field.
pub fn local(name: &str) -> String {
    crate::model::percent_encode(&name.trim().to_lowercase().replace(' ', "_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_stable_iris() {
        let iris = RecordIris::for_graph("main");
        assert_eq!(
            iris.class("Bug").as_str(),
            "http://strata.local/graphs/main/class/bug"
        );
        assert_eq!(
            iris.relation("FIXED_IN").as_str(),
            "http://strata.local/graphs/main/rel/fixed_in"
        );
        assert_eq!(
            iris.entity("Ticket", "T-42 ü").as_str(),
            "http://strata.local/graphs/main/entity/ticket/T-42%20%C3%BC"
        );
        assert_eq!(iris.class("bug"), iris.class(" BUG "));
    }
}
