//! `FILTER EXISTS { … }` and `FILTER NOT EXISTS { … }` of a group, as a semi-join or an
//! anti-join of its rows: the inside is joined once (`join_rows`, ids only), its rows
//! reduced to the distinct tuples of the variables it shares with the group's pattern,
//! and each row of the group kept when its tuple is there (EXISTS) or is not (NOT
//! EXISTS). Row at a time, spareval evaluates the inside once per row instead (BSBM a11,
//! products without reviews, looked each product's reviews up one by one).
//!
//! Exactness: SPARQL evaluates the inside with the row's values substituted for the
//! shared variables, so it has a solution exactly when some solution of the unsubstituted
//! inside agrees with the row on them: that holds for a basic graph pattern, where every
//! variable is bound. The inside may also carry `FILTER(?v = <iri>)` or `sameTerm(?v,
//! <iri>)` of its own variables (BSBM bi7's vendor country): an IRI equals only itself
//! and never errors, so that filter keeps exactly the solutions with the IRI at `?v`,
//! which is the pattern with the IRI written in place of `?v`. Anything else inside (other
//! filters, `OPTIONAL`, a variable bound by a `BIND` of the group, a `?v` of the filter
//! the pattern does not bind) leaves the whole group to spareval.

use spargebra::algebra::{Expression, GraphPattern};
use spargebra::term::{NamedNode, NamedNodePattern, TermPattern, TriplePattern, Variable};

use super::join::{
    AsLocal, LOOKUP_RATIO, Pushed, Seed, is_blank_variable, join_rows, pattern_variables,
};
use super::parallel::Workers;
use super::values::{Decoder, conjuncts};
use super::{IdTuples, group_body};
use crate::sparql::QueryError;
use crate::store::{Snapshot, TermId};
use spareval::Row;

/// A semi-join (`negated` false) or anti-join of a group's rows.
pub(super) struct Exists {
    pub(super) negated: bool,
    /// The inside, its filters written into the patterns.
    pub(super) patterns: Vec<TriplePattern>,
    /// The variables the inside shares with the group's pattern (at most three: a key).
    pub(super) shared: Vec<Variable>,
}

impl Exists {
    /// The semi-join or anti-join a `FILTER` conjunct is, if it is one this path takes.
    /// `layout`: the group pattern's variables; `binds`: the variables the group's
    /// `BIND`s make.
    pub(super) fn of(
        conjunct: &Expression,
        layout: &[Variable],
        binds: &[&Variable],
    ) -> Option<Self> {
        let (negated, inside) = match conjunct {
            Expression::Exists(inside) => (false, inside.as_ref()),
            Expression::Not(not) => match not.as_ref() {
                Expression::Exists(inside) => (true, inside.as_ref()),
                _ => return None,
            },
            _ => return None,
        };
        let (steps, patterns) = group_body(inside)?;
        let mut patterns = patterns.to_vec();
        let mut variables: Vec<Variable> = Vec::new();
        for triple in &patterns {
            for v in pattern_variables(triple)? {
                if !variables.contains(&v) {
                    variables.push(v);
                }
            }
        }
        for step in steps {
            let GraphPattern::Filter { expr, .. } = step else {
                return None;
            };
            for conjunct in conjuncts(expr) {
                let (Expression::Equal(a, b) | Expression::SameTerm(a, b)) = conjunct else {
                    return None;
                };
                let (variable, iri) = match (a.as_ref(), b.as_ref()) {
                    (Expression::Variable(v), Expression::NamedNode(n))
                    | (Expression::NamedNode(n), Expression::Variable(v)) => (v, n),
                    _ => return None,
                };
                // Only the inside's own variables: a shared one would be the row's value.
                if !variables.contains(variable) || layout.contains(variable) {
                    return None;
                }
                for triple in &mut patterns {
                    write_iri(triple, variable, iri);
                }
                variables.retain(|v| v != variable);
            }
        }
        if variables
            .iter()
            .any(|v| binds.contains(&v) && !layout.contains(v))
        {
            return None;
        }
        let shared: Vec<Variable> = variables
            .into_iter()
            .filter(|v| layout.contains(v))
            .collect();
        // A blank node's label belongs to its own pattern: one the group's pattern also
        // uses is not the same node (spargebra refuses the query; never joined here).
        if shared.iter().any(is_blank_variable) {
            return None;
        }
        (shared.len() <= 3).then_some(Self {
            negated,
            patterns,
            shared,
        })
    }
}

impl Exists {
    /// Where each shared variable sits among `columns`; `None` if one is missing.
    pub(super) fn positions_in(&self, columns: &[Variable]) -> Option<Vec<usize>> {
        self.shared
            .iter()
            .map(|v| columns.iter().position(|c| c == v))
            .collect()
    }

    /// The tuples of the shared variables' ids (in `shared`'s order, zero-padded) that
    /// the inside has a solution for, given the distinct tuples the outer rows hold;
    /// `None` when the inside is not a join this path takes. When the outer tuples are
    /// fewer than every one of the inside's ranges and few enough to be looked up in a
    /// pattern they bind, the inside is joined from them instead of from its smallest range:
    /// bi7's 295 products each look up their offers (8,000 rows) where the inside alone
    /// starts from one country's 320 vendors and makes 21,100.
    pub(super) fn matching<'s, L: AsLocal<'s>>(
        &self,
        outer: &IdTuples,
        snapshot: &'s Snapshot,
        workers: &Workers<'_>,
        parallel: bool,
        init: &(dyn Fn() -> Option<L> + Sync),
    ) -> Result<Option<IdTuples>, QueryError> {
        let n = self.shared.len();
        // Seeded only when its first step looks a pattern up per value: hashing a
        // pattern's whole range from the outer values costs more than scanning the
        // inside from its own start (BSBM a11: 13,925 products against 139,250 reviews).
        let mut smallest = usize::MAX;
        let mut seeded_step = 0;
        for triple in &self.patterns {
            let Some((pattern, positions, _)) = super::join::scan_pattern(triple, snapshot) else {
                continue;
            };
            let size = pattern.map_or(0, |p| snapshot.range_size(p));
            smallest = smallest.min(size);
            if positions.names.iter().any(|(v, _)| self.shared.contains(v)) {
                seeded_step = seeded_step.max(size);
            }
        }
        let seed = (n > 0
            && outer.len() < smallest
            && outer.len().saturating_mul(LOOKUP_RATIO) < seeded_step)
            .then(|| Seed {
                columns: self.shared.clone(),
                rows: outer.iter().flat_map(|tuple| tuple[..n].to_vec()).collect(),
            });
        let Some((inside, rows)) = join_rows(
            &self.patterns,
            snapshot,
            workers,
            parallel,
            init,
            &[],
            &[],
            &[],
            seed,
        )?
        else {
            return Ok(None);
        };
        let Some(from) = self.positions_in(&inside) else {
            return Ok(None);
        };
        let mut tuples = IdTuples::default();
        // (No columns: a constant of the inside is not in the store, nothing matches; an
        // inside of constants only is not a join `join_rows` takes.)
        let width = inside.len();
        if width > 0 {
            for part in &rows {
                for row in part.chunks(width) {
                    tuples.insert(key(row, &from));
                }
            }
        }
        Ok(Some(tuples))
    }
}

/// The ids at `at` of `row`, zero-padded to three.
pub(super) fn key(row: &[TermId], at: &[usize]) -> [TermId; 3] {
    let mut key = [0; 3];
    for (slot, column) in key.iter_mut().zip(at) {
        *slot = row[*column];
    }
    key
}

/// A thread's state for an inside joined outside a group: no filters of its own.
pub(super) struct Bare<'s> {
    decoder: Decoder<'s>,
    row: Row,
}

impl<'s> Bare<'s> {
    pub(super) fn new(snapshot: &'s Snapshot) -> Self {
        Self {
            decoder: Decoder::new(snapshot),
            row: Row::new(),
        }
    }
}

impl<'s> AsLocal<'s> for Bare<'s> {
    fn parts(&mut self) -> (Pushed<'_>, &mut Decoder<'s>) {
        (
            Pushed {
                filters: &mut [],
                late: &[],
                row: &mut self.row,
            },
            &mut self.decoder,
        )
    }
}

/// `triple` with `iri` in place of `variable`.
fn write_iri(triple: &mut TriplePattern, variable: &Variable, iri: &NamedNode) {
    for term in [&mut triple.subject, &mut triple.object] {
        if matches!(term, TermPattern::Variable(v) if v == variable) {
            *term = TermPattern::NamedNode(iri.clone());
        }
    }
    if matches!(&triple.predicate, NamedNodePattern::Variable(v) if v == variable) {
        triple.predicate = NamedNodePattern::NamedNode(iri.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spargebra::Query;

    /// The first `FILTER` conjunct of the query's group, and the group pattern's variables.
    fn exists_of(query: &str, layout: &[&str]) -> Option<Exists> {
        let query = spargebra::SparqlParser::new().parse_query(query).unwrap();
        let Query::Select { pattern, .. } = query else {
            panic!("a SELECT")
        };
        let mut at = &pattern;
        let expr = loop {
            match at {
                GraphPattern::Filter { expr, .. } => break expr.clone(),
                GraphPattern::Project { inner, .. } => at = inner,
                other => panic!("no filter: {other:?}"),
            }
        };
        let layout: Vec<Variable> = layout.iter().map(|v| Variable::new_unchecked(*v)).collect();
        Exists::of(&expr, &layout, &[])
    }

    #[test]
    fn a_not_exists_of_a_pattern_is_an_anti_join_on_the_shared_variables() {
        let e = exists_of(
            "SELECT * { ?p <http://e/producer> ?r FILTER NOT EXISTS { ?x <http://e/for> ?p ; <http://e/by> ?y } }",
            &["p", "r"],
        )
        .expect("taken");
        assert!(e.negated);
        assert_eq!(e.shared, vec![Variable::new_unchecked("p")]);
        assert_eq!(e.patterns.len(), 2);
    }

    #[test]
    fn an_iri_equality_inside_is_written_into_the_patterns() {
        let e = exists_of(
            "SELECT * { ?p <http://e/a> ?t FILTER EXISTS { ?o <http://e/product> ?p ; <http://e/vendor> ?v . ?v <http://e/country> ?c FILTER(?c = <http://e/DE>) } }",
            &["p", "t"],
        )
        .expect("taken");
        assert!(!e.negated);
        assert_eq!(
            e.patterns[2].object,
            TermPattern::NamedNode(NamedNode::new_unchecked("http://e/DE"))
        );
    }

    #[test]
    fn other_insides_are_left_to_spareval() {
        // A literal compares by value, not by term.
        assert!(
            exists_of(
                "SELECT * { ?p <http://e/a> ?t FILTER NOT EXISTS { ?p <http://e/price> ?x FILTER(?x = 3) } }",
                &["p", "t"]
            )
            .is_none()
        );
        // A filter on a shared variable reads the row's value.
        assert!(
            exists_of(
                "SELECT * { ?p <http://e/a> ?t FILTER NOT EXISTS { ?p <http://e/b> ?t FILTER(?t = <http://e/x>) } }",
                &["p", "t"]
            )
            .is_none()
        );
        // A variable the inside's pattern does not bind: the filter errors on every row.
        assert!(
            exists_of(
                "SELECT * { ?p <http://e/a> ?t FILTER NOT EXISTS { ?p <http://e/b> ?q FILTER(?z = <http://e/x>) } }",
                &["p", "t"]
            )
            .is_none()
        );
        assert!(
            exists_of(
                "SELECT * { ?p <http://e/a> ?t FILTER NOT EXISTS { ?p <http://e/b> ?q OPTIONAL { ?q <http://e/c> ?r } } }",
                &["p", "t"]
            )
            .is_none()
        );
    }
}
