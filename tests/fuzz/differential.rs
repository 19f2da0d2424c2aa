//! The differential check of the JSON query modes: random small graphs, two commits of
//! them, and random `structured` queries and `traverse` pipelines, answered by Strata
//! (the real `query` domain call, every page followed through its cursor) and by
//! oxigraph's own evaluator for a SPARQL query written here, independently of the text
//! Strata compiles, over a reference graph built here:
//!
//! * entailment (`subclass`, `rdfs`) is checked against plain SPARQL over the graph with
//!   the entailed triples materialized by this file (rdfs2, rdfs3, rdfs7 and rdfs9, with
//!   `subClassOf` and `subPropertyOf` closed transitively);
//! * valid time (`valid_at`) against plain SPARQL over the graph without the links that
//!   do not hold then, decided here by the interval rule `[validFrom, validUntil)`;
//! * a pinned read (`as_of_commit_seq`) against the graph of that commit.
//!
//! Rows are compared as agents see them (rendered by `query::render`), as multisets, and
//! in order for the columns a query orders by. A case is one `u64` seed: `Case::new`
//! builds everything from it, so a finding is replayed from its seed.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use oxigraph::sparql::{QueryResults, SparqlEvaluator};
use oxrdf::{Literal, NamedNode, Quad, Term, Triple};
use serde_json::{Value, json};
use strata::Engine;
use strata::engine::CommitRequest;
use strata::sparql::CancellationToken;

const D: &str = "http://d/";
const RDF_TYPE: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type";
const RDF_REIFIES: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies";
const RDFS: &str = "http://www.w3.org/2000/01/rdf-schema#";
const STRATA: &str = "https://strata.dev/ns#";
const XSD_DATETIME: &str = "http://www.w3.org/2001/XMLSchema#dateTime";
/// The graph the cases write (the fuzz harness's `main` holds its own seed data).
pub const GRAPH: &str = "differential";

const ENTITIES: usize = 6;
/// The reference store's copy of the whole graph read (no valid-time cut, no entailment),
/// a named graph the reference queries read only where they ask for it.
const ALL_GRAPH: &str = "urn:strata-fuzz:all";
const CLASSES: usize = 4;
const RELATIONS: usize = 3;
/// `f0` is single-valued or absent (order keys), `f1` may hold several values.
const FIELDS: [&str; 2] = ["f0", "f1"];

/// A small deterministic generator (SplitMix64): a case is its seed.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn iri(local: &str) -> String {
    format!("{D}{local}")
}
fn entity(i: usize) -> String {
    iri(&format!("e{i}"))
}
fn class(i: usize) -> String {
    iri(&format!("C{i}"))
}
fn relation(i: usize) -> String {
    iri(&format!("r{i}"))
}
fn node(text: &str) -> NamedNode {
    NamedNode::new_unchecked(text)
}

/// A link `e_s r e_o` and its reifiers: each valid from/until a day of January 2020
/// when given (a period), or with neither (an annotation only, no valid time).
#[derive(Clone, Debug)]
struct Link {
    s: usize,
    r: usize,
    o: usize,
    reifiers: Vec<(Option<u8>, Option<u8>)>,
}

impl Link {
    /// No period, or one containing `moment` (`[validFrom, validUntil)`).
    fn holds_at(&self, moment: time::OffsetDateTime) -> bool {
        let at = |d: u8| strata::model::parse_moment(&day(d)).expect("a moment");
        let periods: Vec<&(Option<u8>, Option<u8>)> = self
            .reifiers
            .iter()
            .filter(|(from, until)| from.is_some() || until.is_some())
            .collect();
        periods.is_empty()
            || periods.iter().any(|(from, until)| {
                from.is_none_or(|d| at(d) <= moment) && until.is_none_or(|d| moment < at(d))
            })
    }
}

/// One graph: types, links, field values, labels and the schema (subclasses,
/// sub-properties, domains and ranges).
#[derive(Clone, Debug, Default)]
struct Facts {
    types: BTreeSet<(usize, usize)>,
    links: Vec<Link>,
    values: BTreeSet<(usize, usize, i64)>,
    labels: BTreeMap<usize, String>,
    subclass: BTreeSet<(usize, usize)>,
    subproperty: BTreeSet<(usize, usize)>,
    domain: BTreeSet<(usize, usize)>,
    range: BTreeSet<(usize, usize)>,
}

fn day(d: u8) -> String {
    format!("2020-01-{d:02}T00:00:00Z")
}

impl Facts {
    fn random(dice: &mut Dice) -> Self {
        let mut facts = Facts::default();
        for e in 0..ENTITIES {
            for c in 0..CLASSES {
                if dice.chance(25) {
                    facts.types.insert((e, c));
                }
            }
            if dice.chance(70) {
                facts.values.insert((e, 0, dice.below(4) as i64));
            }
            for _ in 0..dice.below(3) {
                facts.values.insert((e, 1, dice.below(4) as i64));
            }
            if dice.chance(60) {
                facts.labels.insert(e, format!("n{}", dice.below(3)));
            }
        }
        let mut seen = BTreeSet::new();
        for _ in 0..dice.below(12) {
            let (s, r, o) = (
                dice.below(ENTITIES),
                dice.below(RELATIONS),
                dice.below(ENTITIES),
            );
            if !seen.insert((s, r, o)) {
                continue;
            }
            let mut reifiers = Vec::new();
            while dice.chance(if reifiers.is_empty() { 60 } else { 35 }) && reifiers.len() < 3 {
                let from = dice.chance(70).then(|| 1 + dice.below(6) as u8);
                let until = dice
                    .chance(70)
                    .then(|| from.unwrap_or(1) + 1 + dice.below(4) as u8);
                reifiers.push((from, until));
            }
            facts.links.push(Link { s, r, o, reifiers });
        }
        for lower in 0..CLASSES {
            for upper in lower + 1..CLASSES {
                if dice.chance(30) {
                    facts.subclass.insert((lower, upper));
                }
            }
        }
        for lower in 0..RELATIONS {
            for upper in lower + 1..RELATIONS {
                if dice.chance(30) {
                    facts.subproperty.insert((lower, upper));
                }
            }
            if dice.chance(30) {
                facts.domain.insert((lower, dice.below(CLASSES)));
            }
            if dice.chance(30) {
                facts.range.insert((lower, dice.below(CLASSES)));
            }
        }
        facts
    }

    /// The graph as quads (links with a period get a reifier carrying it).
    fn quads(&self) -> Vec<Quad> {
        let mut quads = Vec::new();
        let mut push = |s: String, p: &str, o: Term| {
            quads.push(Quad::new(
                node(&s),
                node(p),
                o,
                oxrdf::GraphName::DefaultGraph,
            ));
        };
        for (e, c) in &self.types {
            push(entity(*e), RDF_TYPE, node(&class(*c)).into());
        }
        for (n, link) in self.links.iter().enumerate() {
            push(
                entity(link.s),
                &relation(link.r),
                node(&entity(link.o)).into(),
            );
            for (k, (from, until)) in link.reifiers.iter().enumerate() {
                let reifier = iri(&format!("period{n}_{k}"));
                let triple = Triple::new(
                    node(&entity(link.s)),
                    node(&relation(link.r)),
                    node(&entity(link.o)),
                );
                push(reifier.clone(), RDF_REIFIES, Term::Triple(Box::new(triple)));
                if from.is_none() && until.is_none() {
                    push(
                        reifier.clone(),
                        &format!("{STRATA}evidence"),
                        Literal::new_simple_literal("seen").into(),
                    );
                }
                for (bound, name) in [(from, "validFrom"), (until, "validUntil")] {
                    if let Some(d) = bound {
                        push(
                            reifier.clone(),
                            &format!("{STRATA}{name}"),
                            Literal::new_typed_literal(day(*d), node(XSD_DATETIME)).into(),
                        );
                    }
                }
            }
        }
        for (e, f, v) in &self.values {
            push(entity(*e), &iri(FIELDS[*f]), Literal::from(*v).into());
        }
        for (e, label) in &self.labels {
            push(
                entity(*e),
                &format!("{RDFS}label"),
                Literal::new_simple_literal(label).into(),
            );
        }
        let schema = [
            (
                &self.subclass,
                "subClassOf",
                class as fn(usize) -> String,
                class as fn(usize) -> String,
            ),
            (&self.subproperty, "subPropertyOf", relation, relation),
            (&self.domain, "domain", relation, class),
            (&self.range, "range", relation, class),
        ];
        for (set, predicate, left, right) in schema {
            for (a, b) in set {
                push(
                    left(*a),
                    &format!("{RDFS}{predicate}"),
                    node(&right(*b)).into(),
                );
            }
        }
        quads
    }

    /// The graph in the world at `moment`: the links that do not hold then
    /// (`[validFrom, validUntil)`) are left out; their annotations (the reifier's own
    /// triples) have no valid time and stay.
    fn quads_at_valid_time(&self, moment: time::OffsetDateTime) -> Vec<Quad> {
        let gone: Vec<Quad> = self
            .links
            .iter()
            .filter(|link| !link.holds_at(moment))
            .map(|link| {
                Quad::new(
                    node(&entity(link.s)),
                    node(&relation(link.r)),
                    node(&entity(link.o)),
                    oxrdf::GraphName::DefaultGraph,
                )
            })
            .collect();
        self.quads()
            .into_iter()
            .filter(|q| !gone.contains(q))
            .collect()
    }

    /// The triples entailment adds: types through subclasses (both regimes); under
    /// `rdfs` also links through sub-properties and types through domains and ranges.
    fn entailed(&self, entailment: &str) -> Vec<Quad> {
        let closure = |edges: &BTreeSet<(usize, usize)>, n: usize| -> Vec<BTreeSet<usize>> {
            (0..n)
                .map(|start| {
                    let mut reached = BTreeSet::from([start]);
                    let mut frontier = vec![start];
                    while let Some(at) = frontier.pop() {
                        for (a, b) in edges {
                            if *a == at && reached.insert(*b) {
                                frontier.push(*b);
                            }
                        }
                    }
                    reached
                })
                .collect()
        };
        let superclasses = closure(&self.subclass, CLASSES);
        let superproperties = closure(&self.subproperty, RELATIONS);
        let mut types: BTreeSet<(usize, usize)> = self.types.clone();
        let mut links: BTreeSet<(usize, usize, usize)> = BTreeSet::new();
        if entailment == "rdfs" {
            for link in &self.links {
                for r in &superproperties[link.r] {
                    links.insert((link.s, *r, link.o));
                    for (p, c) in &self.domain {
                        if p == r {
                            types.insert((link.s, *c));
                        }
                    }
                    for (p, c) in &self.range {
                        if p == r {
                            types.insert((link.o, *c));
                        }
                    }
                }
            }
        }
        let mut all_types = BTreeSet::new();
        for (e, c) in types {
            for upper in &superclasses[c] {
                all_types.insert((e, *upper));
            }
        }
        let mut quads: Vec<Quad> = all_types
            .into_iter()
            .map(|(e, c)| {
                Quad::new(
                    node(&entity(e)),
                    node(RDF_TYPE),
                    node(&class(c)),
                    oxrdf::GraphName::DefaultGraph,
                )
            })
            .collect();
        quads.extend(links.into_iter().map(|(s, r, o)| {
            Quad::new(
                node(&entity(s)),
                node(&relation(r)),
                node(&entity(o)),
                oxrdf::GraphName::DefaultGraph,
            )
        }));
        quads
    }
}

/// A JSON query and the SPARQL that answers it over the reference graph.
#[derive(Clone, Debug)]
struct Question {
    /// The `query` tool's arguments (without graph, pins and paging).
    args: Value,
    reference: String,
    /// Columns whose order the answer promises (the rest is compared as a multiset).
    ordered: Vec<String>,
    /// Columns holding space-separated lists in no promised order (`items`).
    unordered_lists: Vec<String>,
    /// Columns left out of the comparison (helper columns such as `sort_key…`).
    ignored_prefixes: Vec<String>,
    /// A traversal's items: one row per `iri`, a column with several values a list. The
    /// reference has a row per combination; its rows of one `iri` are merged.
    items: bool,
}

/// One generated case.
#[derive(Clone, Debug)]
pub struct Case {
    pub seed: u64,
    first: Facts,
    second: Facts,
    pin_first: bool,
    entailment: Option<&'static str>,
    /// A date (its end) or a moment, and the instant it means.
    valid_at: Option<(String, time::OffsetDateTime)>,
    row_limit: usize,
    question: Question,
}

impl Case {
    pub fn new(seed: u64) -> Case {
        let mut dice = Dice(seed);
        let first = Facts::random(&mut dice);
        let second = if dice.chance(50) {
            Facts::random(&mut dice)
        } else {
            first.clone()
        };
        let pin_first = dice.chance(40);
        let structured = dice.chance(60);
        let entailment = if structured && dice.chance(35) {
            Some(*dice.pick(&["none", "subclass", "rdfs"]))
        } else {
            None
        };
        let valid_at = (entailment.is_none() && dice.chance(50)).then(|| {
            let d = 1 + dice.below(9) as u8;
            if dice.chance(50) {
                let text = format!("2020-01-{d:02}");
                let end = strata::model::parse_moment(&day(d)).expect("a moment")
                    + time::Duration::days(1)
                    - time::Duration::nanoseconds(1);
                (text, end)
            } else {
                (
                    day(d),
                    strata::model::parse_moment(&day(d)).expect("a moment"),
                )
            }
        });
        let entailed = entailment.is_some_and(|e| e != "none");
        let question = if structured {
            structured_question(&mut dice, entailed)
        } else {
            traverse_question(&mut dice)
        };
        Case {
            seed,
            first,
            second,
            pin_first,
            entailment,
            valid_at,
            row_limit: 1 + dice.below(12),
            question,
        }
    }

    pub fn render(&self) -> String {
        let mut out = format!("differential case, seed {}\n", self.seed);
        let _ = writeln!(out, "pinned to the first commit: {}", self.pin_first);
        let _ = writeln!(
            out,
            "entailment: {:?}, valid_at: {:?}",
            self.entailment, self.valid_at
        );
        let _ = writeln!(out, "row_limit: {}", self.row_limit);
        let _ = writeln!(out, "arguments: {}", self.question.args);
        let _ = writeln!(out, "reference SPARQL: {}", self.question.reference);
        let graph = if self.pin_first {
            &self.first
        } else {
            &self.second
        };
        let _ = writeln!(out, "graph read:");
        for quad in graph.quads() {
            let _ = writeln!(out, "  {quad} .");
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Structured queries
// ---------------------------------------------------------------------------------------

const ENTITY_VARS: [&str; 3] = ["a", "b", "c"];

/// A comparison operand: a variable, a field of an entity variable, or a constant.
fn structured_operand(
    dice: &mut Dice,
    value_vars: &[String],
    entity_vars: &[String],
) -> (Value, String, Option<String>) {
    let roll = dice.below(10);
    if roll < 4 && !value_vars.is_empty() {
        let v = dice.pick(value_vars).clone();
        return (json!({"var": v}), format!("?{v}"), None);
    }
    if roll < 6 && !entity_vars.is_empty() {
        let holder = dice.pick(entity_vars).clone();
        let field = *dice.pick(&FIELDS);
        // Filled in by the caller: the reference compares inside EXISTS.
        return (
            json!({"field": {"var": holder, "name": iri(field)}}),
            String::new(),
            Some(format!("?{holder} <{}>", iri(field))),
        );
    }
    if roll < 7 && !entity_vars.is_empty() {
        let e = entity(dice.below(ENTITIES));
        return (json!({"iri": e}), format!("<{e}>"), None);
    }
    let n = dice.below(4) as i64;
    (json!({"value": n}), n.to_string(), None)
}

fn comparison(dice: &mut Dice) -> (&'static str, &'static str) {
    *dice.pick(&[
        ("eq", "="),
        ("ne", "!="),
        ("lt", "<"),
        ("le", "<="),
        ("gt", ">"),
        ("ge", ">="),
    ])
}

/// A filter tree (and/or/not over comparisons) and its SPARQL expression.
fn structured_filter(
    dice: &mut Dice,
    depth: usize,
    value_vars: &[String],
    entity_vars: &[String],
    n_exists: &mut usize,
) -> (Value, String) {
    if depth > 0 && dice.chance(40) {
        let kind = dice.below(3);
        if kind == 2 {
            let (inner, text) =
                structured_filter(dice, depth - 1, value_vars, entity_vars, n_exists);
            return (json!({"not": inner}), format!("(!{text})"));
        }
        let n = 1 + dice.below(3);
        let parts: Vec<(Value, String)> = (0..n)
            .map(|_| structured_filter(dice, depth - 1, value_vars, entity_vars, n_exists))
            .collect();
        let (key, op) = if kind == 0 {
            ("and", " && ")
        } else {
            ("or", " || ")
        };
        let json_parts: Vec<Value> = parts.iter().map(|(j, _)| j.clone()).collect();
        let text: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
        return (json!({ key: json_parts }), format!("({})", text.join(op)));
    }
    let (name, op) = comparison(dice);
    let (left, mut left_text, left_field) = structured_operand(dice, value_vars, entity_vars);
    let (right, mut right_text, right_field) = structured_operand(dice, value_vars, entity_vars);
    // A field operand means "a value of the field": the comparison holds when one does.
    let mut patterns = Vec::new();
    for (text, field) in [(&mut left_text, left_field), (&mut right_text, right_field)] {
        if let Some(pattern) = field {
            *n_exists += 1;
            let var = format!("?x{}", n_exists);
            patterns.push(format!("{pattern} {var} ."));
            *text = var;
        }
    }
    let comparison = format!("({left_text} {op} {right_text})");
    let text = if patterns.is_empty() {
        comparison
    } else {
        format!("EXISTS {{ {} FILTER {comparison} }}", patterns.join(" "))
    };
    (json!({"op": name, "left": left, "right": right}), text)
}

fn structured_question(dice: &mut Dice, entailed: bool) -> Question {
    let mut patterns = Vec::new();
    let mut where_parts = Vec::new();
    let mut entity_vars: Vec<String> = Vec::new();
    let mut value_vars: Vec<String> = Vec::new();
    let mut all_vars: Vec<String> = Vec::new();
    let add = |vars: &mut Vec<String>, all: &mut Vec<String>, v: &str| {
        if !vars.iter().any(|x| x == v) {
            vars.push(v.to_owned());
        }
        if !all.iter().any(|x| x == v) {
            all.push(v.to_owned());
        }
    };
    for n in 0..1 + dice.below(3) {
        let subject = if n == 0 || entity_vars.is_empty() {
            ENTITY_VARS[0].to_owned()
        } else {
            dice.pick(&entity_vars).clone()
        };
        add(&mut entity_vars, &mut all_vars, &subject);
        match dice.below(if entailed { 3 } else { 4 }) {
            0 => {
                let c = class(dice.below(CLASSES));
                patterns.push(
                    json!({"subject": {"var": subject}, "predicate": "type", "object": {"iri": c}}),
                );
                where_parts.push(format!("?{subject} <{RDF_TYPE}> <{c}> ."));
            }
            1 => {
                let r = relation(dice.below(RELATIONS));
                let object = if dice.chance(80) {
                    let o = ENTITY_VARS[dice.below(ENTITY_VARS.len())].to_owned();
                    add(&mut entity_vars, &mut all_vars, &o);
                    (json!({"var": o}), format!("?{o}"))
                } else {
                    let e = entity(dice.below(ENTITIES));
                    (json!({"iri": e}), format!("<{e}>"))
                };
                patterns.push(json!({"subject": {"var": subject}, "predicate": {"iri": r}, "object": object.0}));
                where_parts.push(format!("?{subject} <{r}> {} .", object.1));
            }
            2 if dice.chance(30) => {
                // A value given by value: a JSON integer or the same number with a
                // fraction (xsd:decimal) matches the stored integer as `=` does.
                let field = *dice.pick(&FIELDS);
                let n = dice.below(4);
                let value = if dice.chance(50) {
                    json!(n)
                } else {
                    json!(n as f64)
                };
                let holder = format!("?ov{}", patterns.len());
                patterns.push(json!({"subject": {"var": subject}, "predicate": {"iri": iri(field)}, "object": {"value": value}}));
                where_parts.push(format!(
                    "?{subject} <{}> {holder} . FILTER({holder} = {n})",
                    iri(field)
                ));
            }
            2 => {
                let field = *dice.pick(&FIELDS);
                let v = format!("v{}", value_vars.len());
                add(&mut value_vars, &mut all_vars, &v);
                patterns.push(json!({"subject": {"var": subject}, "predicate": {"iri": iri(field)}, "object": {"var": v}}));
                where_parts.push(format!("?{subject} <{}> ?{v} .", iri(field)));
            }
            _ => {
                let v = format!("v{}", value_vars.len());
                add(&mut value_vars, &mut all_vars, "p");
                add(&mut value_vars, &mut all_vars, &v);
                patterns.push(json!({"subject": {"var": subject}, "predicate": {"var": "p"}, "object": {"var": v}}));
                where_parts.push(format!("?{subject} ?p ?{v} ."));
            }
        }
    }
    let mut n_exists = 0;
    let mut filters = Vec::new();
    for _ in 0..dice.below(3) {
        let (json_filter, text) =
            structured_filter(dice, 2, &value_vars, &entity_vars, &mut n_exists);
        filters.push(json_filter);
        where_parts.push(format!("FILTER {text}"));
    }
    let mut body = json!({"patterns": patterns});
    if !filters.is_empty() {
        body["filters"] = json!(filters);
    }
    let mut ordered = Vec::new();
    let grouped = dice.chance(50);
    let select;
    let mut tail = String::new();
    if grouped {
        let mut group_by: Vec<String> = all_vars
            .iter()
            .filter(|_| dice.chance(40))
            .cloned()
            .collect();
        group_by.truncate(2);
        let mut group_keys = Vec::new();
        let mut key_optional = String::new();
        if dice.chance(30) {
            let holder = dice.pick(&entity_vars).clone();
            let field = *dice.pick(&FIELDS);
            group_keys.push(json!({"field": {"var": holder, "name": iri(field)}, "as": "k"}));
            key_optional = format!("OPTIONAL {{ ?{holder} <{}> ?k }}", iri(field));
        }
        let mut aggregates = Vec::new();
        let mut projection: Vec<String> = group_by.iter().map(|v| format!("?{v}")).collect();
        let mut aggregate_texts: BTreeMap<String, String> = BTreeMap::new();
        // Each aggregate answers as if it were the only one: its own field joined to the
        // rows, nobody else's (fields read by several aggregates would multiply rows).
        let mut aggregate_optionals: BTreeMap<String, String> = BTreeMap::new();
        for n in 0..1 + dice.below(3) {
            let alias = format!("n{n}");
            let func = *dice.pick(&["count", "sum", "avg", "min", "max"]);
            let distinct = dice.chance(30);
            let distinct_text = if distinct { "DISTINCT " } else { "" };
            let mut optional = String::new();
            let (operand, operand_text) = if func == "count" && dice.chance(50) {
                (None, "*".to_owned())
            } else if !value_vars.is_empty() && dice.chance(60) {
                let v = dice.pick(&value_vars).clone();
                (Some(json!({"var": v})), format!("?{v}"))
            } else if func == "count" && dice.chance(50) {
                let v = dice.pick(&entity_vars).clone();
                (Some(json!({"var": v})), format!("?{v}"))
            } else {
                let holder = dice.pick(&entity_vars).clone();
                let field = *dice.pick(&FIELDS);
                let var = format!("?o{n}");
                optional = format!("OPTIONAL {{ ?{holder} <{}> {var} }}", iri(field));
                (
                    Some(json!({"field": {"var": holder, "name": iri(field)}})),
                    var,
                )
            };
            let mut aggregate = json!({"func": func, "as": alias});
            if let Some(operand) = operand {
                aggregate["operand"] = operand;
            }
            if distinct {
                aggregate["distinct"] = json!(true);
            }
            aggregates.push(aggregate);
            let text = format!("{}({distinct_text}{operand_text})", func.to_uppercase());
            projection.push(format!("?{alias}"));
            aggregate_optionals.insert(alias.clone(), optional);
            aggregate_texts.insert(alias, text);
        }
        if !group_keys.is_empty() {
            projection.insert(group_by.len(), "?k".into());
        }
        body["aggregates"] = json!(aggregates);
        if !group_by.is_empty() {
            body["group_by"] = json!(group_by);
        }
        if !group_keys.is_empty() {
            body["group_keys"] = json!(group_keys);
        }
        // One sub-select per aggregate, grouped by the same keys and joined on them; a
        // missing key is a stand-in IRI inside, so it joins only with itself.
        let mut group_items: Vec<String> = group_by.iter().map(|v| format!("?{v}")).collect();
        let mut bind_key = String::new();
        if !group_keys.is_empty() {
            group_items.push("?kk".to_owned());
            bind_key = "BIND(COALESCE(?k, <urn:fuzz:no-key>) AS ?kk)".to_owned();
        }
        let group_clause = if group_items.is_empty() {
            String::new()
        } else {
            format!(" GROUP BY {}", group_items.join(" "))
        };
        let rows = where_parts.join(" ");
        let mut grouped_parts: Vec<String> = aggregate_texts
            .iter()
            .map(|(alias, text)| {
                format!(
                    "{{ SELECT {} ({text} AS ?{alias}) WHERE {{ {rows} {key_optional} {} {bind_key} }}{group_clause} }}",
                    group_items.join(" "),
                    aggregate_optionals[alias],
                )
            })
            .collect();
        if !group_keys.is_empty() {
            grouped_parts
                .push("BIND(IF(sameTerm(?kk, <urn:fuzz:no-key>), ?unbound, ?kk) AS ?k)".to_owned());
        }
        if dice.chance(50) {
            let alias = aggregate_texts
                .keys()
                .nth(dice.below(aggregate_texts.len()))
                .cloned()
                .unwrap_or_default();
            let (name, op) = comparison(dice);
            let n = dice.below(4);
            body["having"] = json!([{"op": name, "left": {"var": alias}, "right": {"value": n}}]);
            grouped_parts.push(format!("FILTER(?{alias} {op} {n})"));
        }
        where_parts = grouped_parts;
        let outputs: Vec<String> = group_by
            .iter()
            .cloned()
            .chain((!group_keys.is_empty()).then(|| "k".to_owned()))
            .chain(aggregate_texts.keys().cloned())
            .collect();
        if dice.chance(50) {
            let by = dice.pick(&outputs).clone();
            let descending = dice.chance(50);
            body["order_by"] = json!([{"var": by, "descending": descending}]);
            tail.push_str(&format!(
                " ORDER BY {}",
                if descending {
                    format!("DESC(?{by})")
                } else {
                    format!("?{by}")
                }
            ));
            ordered.push(by);
        }
        select = projection.join(" ");
    } else {
        let mut chosen: Vec<String> = all_vars
            .iter()
            .filter(|_| dice.chance(60))
            .cloned()
            .collect();
        if chosen.is_empty() || dice.chance(30) {
            chosen.clear();
        } else {
            body["select"] = json!(chosen);
        }
        let columns = if chosen.is_empty() {
            all_vars.clone()
        } else {
            chosen
        };
        if dice.chance(40) {
            let by = dice.pick(&columns).clone();
            let descending = dice.chance(50);
            body["order_by"] = json!([{"var": by, "descending": descending}]);
            tail.push_str(&format!(
                " ORDER BY {}",
                if descending {
                    format!("DESC(?{by})")
                } else {
                    format!("?{by}")
                }
            ));
            ordered.push(by);
        }
        select = columns
            .iter()
            .map(|v| format!("?{v}"))
            .collect::<Vec<_>>()
            .join(" ");
    }
    let distinct = dice.chance(25);
    if distinct {
        body["distinct"] = json!(true);
    }
    let reference = format!(
        "SELECT {}{select} WHERE {{ {} }}{tail}",
        if distinct { "DISTINCT " } else { "" },
        where_parts.join(" ")
    );
    Question {
        args: json!({"mode": "structured", "structured": body}),
        reference,
        ordered,
        unordered_lists: Vec::new(),
        ignored_prefixes: Vec::new(),
        items: false,
    }
}

// ---------------------------------------------------------------------------------------
// Traversals
// ---------------------------------------------------------------------------------------

struct Walker {
    n: usize,
}

impl Walker {
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("?w{}", self.n)
    }

    /// A property condition on `current` and its SPARQL.
    fn condition(&mut self, dice: &mut Dice, current: &str) -> (Value, String) {
        let field = *dice.pick(&FIELDS);
        let value = self.fresh();
        let pattern = format!("{current} <{}> {value} .", iri(field));
        if dice.chance(25) {
            let list: Vec<i64> = (0..1 + dice.below(3))
                .map(|_| dice.below(4) as i64)
                .collect();
            let negated = dice.chance(40);
            let texts: Vec<String> = list.iter().map(i64::to_string).collect();
            let test = format!(
                "({value} {}IN ({}))",
                if negated { "NOT " } else { "" },
                texts.join(", ")
            );
            return (
                json!({"field": iri(field), "op": if negated { "!=" } else { "==" }, "value": list}),
                format!("EXISTS {{ {pattern} FILTER {test} }}"),
            );
        }
        let op = *dice.pick(&["==", "!=", "<", "<=", ">", ">="]);
        let n = dice.below(4);
        let sparql_op = match op {
            "==" => "=",
            other => other,
        };
        (
            json!({"field": iri(field), "op": op, "value": n}),
            format!("EXISTS {{ {pattern} FILTER ({value} {sparql_op} {n}) }}"),
        )
    }

    /// A filter step on `current`: OR of AND-groups of conditions, and sub-walks.
    fn filter(&mut self, dice: &mut Dice, current: &str, depth: usize) -> (Value, String) {
        let mut filter = serde_json::Map::new();
        let mut parts = Vec::new();
        if dice.chance(70) || depth == 0 {
            let mut groups = Vec::new();
            let mut alternatives = Vec::new();
            for _ in 0..1 + dice.below(2) {
                let mut group = Vec::new();
                let mut texts = Vec::new();
                for _ in 0..1 + dice.below(2) {
                    let (json_condition, text) = self.condition(dice, current);
                    group.push(json_condition);
                    texts.push(text);
                }
                groups.push(Value::Array(group));
                alternatives.push(format!("({})", texts.join(" && ")));
            }
            filter.insert("properties".into(), Value::Array(groups));
            parts.push(format!("({})", alternatives.join(" || ")));
        }
        if depth > 0 && dice.chance(50) {
            let mut subs = Vec::new();
            for _ in 0..1 + dice.below(2) {
                let mut lines = Vec::new();
                let mut steps = Vec::new();
                let mut at = current.to_owned();
                for _ in 0..1 + dice.below(2) {
                    let (step, next) = self.link(dice, &at, &mut lines);
                    steps.push(step);
                    at = next;
                }
                let mut sub = json!({"steps": steps});
                if dice.chance(40) {
                    let (inner, text) = self.filter(dice, &at, depth - 1);
                    sub["filter"] = inner;
                    lines.push(format!("FILTER ({text})"));
                }
                subs.push(sub);
                parts.push(format!("EXISTS {{ {} }}", lines.join(" ")));
            }
            filter.insert("exists".into(), Value::Array(subs));
        }
        if parts.is_empty() {
            // An empty filter keeps everything.
            parts.push("true".into());
        }
        (Value::Object(filter), parts.join(" && "))
    }

    /// An `out` or `in` step from `at`; pushes its patterns and returns the new current.
    fn link(&mut self, dice: &mut Dice, at: &str, lines: &mut Vec<String>) -> (Value, String) {
        let r = relation(dice.below(RELATIONS));
        let next = self.fresh();
        let outgoing = dice.chance(60);
        let mut step = if outgoing {
            lines.push(format!("{at} <{r}> {next} ."));
            json!({"out": r})
        } else {
            lines.push(format!("{next} <{r}> {at} ."));
            json!({"in": r})
        };
        if dice.chance(30) {
            let c = class(dice.below(CLASSES));
            step[if outgoing { "to_type" } else { "from_type" }] = json!(c);
            lines.push(format!("{next} <{RDF_TYPE}> <{c}> ."));
        }
        (step, next)
    }
}

fn traverse_question(dice: &mut Dice) -> Question {
    let mut walker = Walker { n: 0 };
    let mut current = walker.fresh();
    let mut lines: Vec<String> = Vec::new();
    let mut steps = Vec::new();
    if dice.chance(60) {
        let c = class(dice.below(CLASSES));
        steps.push(json!({"from_type": c}));
        lines.push(format!("{current} <{RDF_TYPE}> <{c}> ."));
    } else {
        let records: Vec<usize> = (0..1 + dice.below(3))
            .map(|_| dice.below(ENTITIES))
            .collect();
        steps.push(json!({"from_records": records.iter().map(|e| json!({"iri": entity(*e)})).collect::<Vec<_>>()}));
        let values: Vec<String> = records
            .iter()
            .map(|e| format!("<{}>", entity(*e)))
            .collect();
        lines.push(format!("VALUES {current} {{ {} }}", values.join(" ")));
        // A record the graph does not hold is no item (whatever the valid time: the
        // reference keeps the whole graph read in ALL_GRAPH for this).
        lines.push(format!(
            "FILTER EXISTS {{ GRAPH <{ALL_GRAPH}> {{ {{ {current} ?ep ?eo }} UNION {{ ?es ?ep {current} }} }} }}"
        ));
    }
    let mut order: Option<(String, bool)> = None;
    for _ in 0..dice.below(4) {
        match dice.below(5) {
            0 | 1 => {
                let (step, next) = walker.link(dice, &current, &mut lines);
                steps.push(step);
                current = next;
            }
            2 => {
                let (filter, text) = walker.filter(dice, &current, 1);
                steps.push(json!({"filter": filter}));
                lines.push(format!("FILTER ({text})"));
            }
            3 if order.is_none() => {
                let key = walker.fresh();
                let descending = dice.chance(50);
                // f0 has at most one value per item, f1 several: an item sorts once, by
                // its least value ascending and its greatest descending.
                let field = FIELDS[dice.below(2)];
                steps.push(json!({"order_by": {"field": iri(field), "order": if descending { "desc" } else { "asc" }}}));
                let value = walker.fresh();
                lines.push(format!(
                    "OPTIONAL {{ SELECT {current} ({}({value}) AS {key}) WHERE {{ {current} <{}> {value} }} GROUP BY {current} }}",
                    if descending { "MAX" } else { "MIN" },
                    iri(field)
                ));
                order = Some((key, descending));
            }
            _ => {
                let n = 1 + dice.below(4);
                steps.push(json!({"limit": n}));
                let (keys, vars) = match &order {
                    Some((key, descending)) => (
                        format!(
                            "{} {current}",
                            if *descending {
                                format!("DESC({key})")
                            } else {
                                key.clone()
                            }
                        ),
                        format!("{current} {key}"),
                    ),
                    None => (current.clone(), current.clone()),
                };
                let inner = std::mem::take(&mut lines).join(" ");
                lines.push(format!(
                    "{{ SELECT DISTINCT {vars} WHERE {{ {inner} }} ORDER BY {keys} LIMIT {n} }}"
                ));
            }
        }
    }
    let body_lines = lines.join(" ");
    let output = dice.below(3);
    let mut traversal = json!({"steps": steps});
    let items = output > 1;
    let (reference, ordered, unordered_lists, ignored_prefixes) = match output {
        0 => {
            traversal["steps"]
                .as_array_mut()
                .expect("steps")
                .push(json!({"count": true}));
            (
                format!("SELECT (COUNT(DISTINCT {current}) AS ?count) WHERE {{ {body_lines} }}"),
                vec![],
                vec![],
                vec![],
            )
        }
        1 => {
            traversal["steps"]
                .as_array_mut()
                .expect("steps")
                .push(json!({"group_by": [iri(FIELDS[1])]}));
            (
                format!(
                    "SELECT ?f1 (COUNT(DISTINCT {current}) AS ?count) (GROUP_CONCAT(DISTINCT STR({current}); separator=\" \") AS ?items) \
                     WHERE {{ {body_lines} OPTIONAL {{ {current} <{}> ?f1 }} }} GROUP BY ?f1 ORDER BY DESC(?count) ?f1",
                    iri(FIELDS[1])
                ),
                vec!["count".to_owned(), "f1".to_owned()],
                vec!["items".to_owned()],
                vec![],
            )
        }
        _ => {
            let fields: Vec<&str> = FIELDS.iter().copied().filter(|_| dice.chance(50)).collect();
            traversal["fields"] = json!(fields.iter().map(|f| iri(f)).collect::<Vec<_>>());
            let mut columns = "?iri ?type ?label".to_owned();
            let mut optionals = format!(
                "BIND({current} AS ?iri) OPTIONAL {{ ?iri <{RDF_TYPE}> ?type }} OPTIONAL {{ ?iri <{RDFS}label> ?label }}"
            );
            for field in &fields {
                columns.push_str(&format!(" ?{field}"));
                optionals.push_str(&format!(" OPTIONAL {{ ?iri <{}> ?{field} }}", iri(field)));
            }
            let keys = match &order {
                Some((key, true)) => format!("DESC({key}) ?iri"),
                Some((key, false)) => format!("{key} ?iri"),
                None => "?iri".to_owned(),
            };
            (
                format!(
                    "SELECT DISTINCT {columns} WHERE {{ {body_lines} {optionals} }} ORDER BY {keys}"
                ),
                vec!["iri".to_owned()],
                vec![],
                vec!["sort_key".to_owned()],
            )
        }
    };
    Question {
        args: json!({"mode": "traverse", "traverse": traversal}),
        reference,
        ordered,
        unordered_lists,
        ignored_prefixes,
        items,
    }
}

// ---------------------------------------------------------------------------------------
// Running a case
// ---------------------------------------------------------------------------------------

/// The state a run of cases keeps: the graph written and what it holds now.
#[derive(Default)]
pub struct Runner {
    held: Vec<Quad>,
    commits: u64,
}

/// A row as agents see it: column → rendered term (JSON text).
type Rendered = BTreeMap<String, String>;

fn normalize(row: &serde_json::Map<String, Value>, question: &Question) -> Rendered {
    row.iter()
        .filter(|(k, _)| {
            !question
                .ignored_prefixes
                .iter()
                .any(|p| k.starts_with(p.as_str()))
        })
        .map(|(k, v)| {
            let text = match (question.unordered_lists.contains(k), v) {
                (true, Value::String(list)) => {
                    let mut items: Vec<&str> = list.split(' ').collect();
                    items.sort_unstable();
                    items.join(" ")
                }
                // An item's several values, in no promised order.
                (false, Value::Array(values)) if question.items => {
                    let mut texts: Vec<String> = values.iter().map(Value::to_string).collect();
                    texts.sort_unstable();
                    texts.join(VALUE_SEPARATOR)
                }
                _ => v.to_string(),
            };
            (k.clone(), text)
        })
        .collect()
}

impl Runner {
    fn commit(&mut self, graph: &strata::engine::Graph, facts: &Facts) -> Result<u64, String> {
        let wanted = facts.quads();
        let deletes: Vec<Quad> = self
            .held
            .iter()
            .filter(|q| !wanted.contains(q))
            .cloned()
            .collect();
        let inserts: Vec<Quad> = wanted
            .iter()
            .filter(|q| !self.held.contains(q))
            .cloned()
            .collect();
        self.commits += 1;
        let mut digest = [0u8; 32];
        digest[..8].copy_from_slice(&self.commits.to_le_bytes());
        digest[8] = 0xd1;
        let outcome = graph
            .commit_quads(inserts, &deletes, &CommitRequest::default(), digest)
            .map_err(|e| format!("commit: {e}"))?;
        let mut held: Vec<String> = graph
            .read()
            .graph_quads(None)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
        let mut expected: Vec<String> = wanted.iter().map(ToString::to_string).collect();
        held.sort();
        held.dedup();
        expected.sort();
        expected.dedup();
        if held != expected {
            let missing: Vec<&String> = expected
                .iter()
                .filter(|q| !held.contains(q))
                .take(5)
                .collect();
            let extra: Vec<&String> = held
                .iter()
                .filter(|q| !expected.contains(q))
                .take(5)
                .collect();
            return Err(format!(
                "after the commit the graph holds other quads: missing {missing:?}, extra {extra:?}"
            ));
        }
        self.held = wanted;
        Ok(outcome.head_seq)
    }

    /// Runs the case; `Err` describes a difference (or a failure of either side).
    pub fn check(&mut self, engine: &Arc<Engine>, case: &Case) -> Result<(), String> {
        let graph = engine
            .graph_or_create(GRAPH)
            .map_err(|e| format!("graph: {e}"))?;
        let first_seq = self.commit(&graph, &case.first)?;
        let _second_seq = self.commit(&graph, &case.second)?;
        let facts = if case.pin_first {
            &case.first
        } else {
            &case.second
        };

        // The reference graph: what was read, at the valid time asked, with entailment.
        let store = oxigraph::store::Store::new().map_err(|e| e.to_string())?;
        let mut reference_quads = match &case.valid_at {
            Some((_, moment)) => facts.quads_at_valid_time(*moment),
            None => facts.quads(),
        };
        // (Entailment and valid time are never asked together.)
        if let Some(entailment) = case.entailment.filter(|e| *e != "none") {
            reference_quads.extend(facts.entailed(entailment));
        }
        for quad in &reference_quads {
            store.insert(quad).map_err(|e| e.to_string())?;
        }
        for quad in facts.quads() {
            let whole = Quad::new(
                quad.subject,
                quad.predicate,
                quad.object,
                NamedNode::new_unchecked(ALL_GRAPH),
            );
            store.insert(&whole).map_err(|e| e.to_string())?;
        }
        let mut expected = reference_rows(&store, &case.question)?;
        if case.question.items {
            expected = merge_items(expected);
        }

        // Strata, every page.
        let mut args = case.question.args.clone();
        args["graph"] = json!(GRAPH);
        args["detail"] = json!("full");
        args["row_limit"] = json!(case.row_limit);
        if case.pin_first {
            args["as_of_commit_seq"] = json!(first_seq);
        }
        if let Some(entailment) = case.entailment {
            args["entailment"] = json!(entailment);
        }
        if let Some((text, _)) = &case.valid_at {
            args["valid_at"] = json!(text);
        }
        let context = strata::query::Context::new(engine.clone(), Duration::from_secs(20));
        let mut actual: Vec<Rendered> = Vec::new();
        let mut call = args;
        let mut served = None;
        for page in 0.. {
            if page > 500 {
                return Err("more than 500 pages".into());
            }
            let parsed: strata::query::QueryArgs = serde_json::from_value(call.clone())
                .map_err(|e| format!("the arguments do not parse: {e}: {call}"))?;
            let envelope =
                strata::query::run(&context, parsed, CancellationToken::new()).map_err(|e| {
                    format!(
                        "Strata refused the query: {} ({:?}): {}",
                        e.message,
                        e.param,
                        e.code.as_str()
                    )
                })?;
            if *served.get_or_insert(envelope.served_at_seq) != envelope.served_at_seq {
                return Err("the pages were served at different commits".into());
            }
            for row in envelope.data["rows"]
                .as_array()
                .cloned()
                .unwrap_or_default()
            {
                let Value::Object(row) = row else {
                    return Err(format!("a row is not an object: {row}"));
                };
                actual.push(normalize(&row, &case.question));
            }
            match envelope.next {
                Some(next) => call = next,
                None => break,
            }
        }
        let expected_seq = if case.pin_first {
            first_seq
        } else {
            graph.read().seq()
        };
        if served != Some(expected_seq) {
            return Err(format!(
                "served at {served:?}, expected commit {expected_seq}"
            ));
        }
        compare(&expected, &actual, &case.question)
    }
}

fn reference_rows(
    store: &oxigraph::store::Store,
    question: &Question,
) -> Result<Vec<Rendered>, String> {
    let prepared = SparqlEvaluator::new()
        .parse_query(&question.reference)
        .map_err(|e| format!("the reference query does not parse: {e}"))?;
    let QueryResults::Solutions(solutions) = prepared
        .on_store(store)
        .execute()
        .map_err(|e| format!("the reference query fails: {e}"))?
    else {
        return Err("the reference query is not a SELECT".into());
    };
    let mut rows = Vec::new();
    for solution in solutions {
        let solution = solution.map_err(|e| format!("the reference query fails: {e}"))?;
        let row: strata::query::render::Row = solution
            .iter()
            .map(|(v, t)| (v.as_str().to_owned(), t.clone()))
            .collect();
        let (Value::Object(rendered), _) = strata::query::render::row(&row, &[], 5000) else {
            return Err("a rendered row is not an object".into());
        };
        rows.push(normalize(&rendered, question));
    }
    Ok(rows)
}

/// Joins an item's several values (rendered JSON texts) in the comparison.
const VALUE_SEPARATOR: &str = "\u{1}";

/// The reference's rows of one item (next to each other: it orders by `?iri` last) as one
/// row, each column the sorted distinct values of its rows.
fn merge_items(rows: Vec<Rendered>) -> Vec<Rendered> {
    let mut merged: Vec<BTreeMap<String, std::collections::BTreeSet<String>>> = Vec::new();
    let mut last_iri: Option<Option<String>> = None;
    for row in rows {
        let iri = row.get("iri").cloned();
        if last_iri.as_ref() != Some(&iri) {
            merged.push(BTreeMap::new());
            last_iri = Some(iri);
        }
        let item = merged.last_mut().expect("pushed");
        for (column, text) in row {
            item.entry(column).or_default().insert(text);
        }
    }
    merged
        .into_iter()
        .map(|item| {
            item.into_iter()
                .map(|(column, texts)| {
                    (
                        column,
                        texts.into_iter().collect::<Vec<_>>().join(VALUE_SEPARATOR),
                    )
                })
                .collect()
        })
        .collect()
}

fn compare(expected: &[Rendered], actual: &[Rendered], question: &Question) -> Result<(), String> {
    let mut e = expected.to_vec();
    let mut a = actual.to_vec();
    e.sort();
    a.sort();
    if e != a {
        let only_expected: Vec<&Rendered> = e.iter().filter(|r| !a.contains(r)).take(5).collect();
        let only_actual: Vec<&Rendered> = a.iter().filter(|r| !e.contains(r)).take(5).collect();
        return Err(format!(
            "rows differ: {} expected, {} from Strata\n  only expected (up to 5): {only_expected:?}\n  only from Strata (up to 5): {only_actual:?}",
            e.len(),
            a.len()
        ));
    }
    if !question.ordered.is_empty() {
        let keys = |rows: &[Rendered]| -> Vec<Vec<Option<String>>> {
            rows.iter()
                .map(|r| question.ordered.iter().map(|k| r.get(k).cloned()).collect())
                .collect()
        };
        if keys(expected) != keys(actual) {
            return Err(format!(
                "rows are in another order on {:?}: expected {:?}, Strata {:?}",
                question.ordered,
                keys(expected),
                keys(actual)
            ));
        }
    }
    Ok(())
}
