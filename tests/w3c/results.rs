//! Query answers in one comparable shape, read from the expected files (SPARQL results
//! XML/JSON/TSV/CSV, `rs:` result-set graphs, RDF graphs) or from the engine, and compared
//! the way the W3C suite intends:
//!
//! * solutions as multisets, with one consistent blank-node bijection over the whole
//!   result; in order only when the query has ORDER BY (rows tied on the ORDER BY keys may
//!   come in any order);
//! * numeric (and boolean) literals by value, within the same datatype;
//! * graphs and datasets up to blank-node isomorphism.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use oxrdf::dataset::CanonicalizationAlgorithm;
use oxrdf::vocab::{rdf, xsd};
use oxrdf::{
    BlankNode, Dataset, Graph, Literal, NamedNode, NamedOrBlankNodeRef, Quad, Term, TermRef, Triple,
};
use sparesults::{QueryResultsFormat, QueryResultsParser, SliceQueryResultsParserOutput};

use crate::manifest::{load_graph, read_iri};

const RS: &str = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#";

/// A query answer, normalized for comparison.
#[derive(Clone, Debug)]
pub enum Answer {
    Boolean(bool),
    Solutions {
        /// Sorted variable names.
        variables: Vec<String>,
        /// One value per variable of `variables`, in answer order.
        rows: Vec<Vec<Option<Term>>>,
    },
    Graph(Vec<Triple>),
}

/// How the order of solutions is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// No ORDER BY: a multiset.
    Unordered,
    /// ORDER BY on these projected variables: the sequence of their values must match.
    Keys(Vec<String>),
    /// ORDER BY on expressions the rows do not show: rows must match one by one.
    Rows,
}

impl Answer {
    /// Builds solutions from variables and rows given as `(variable, value)` pairs.
    pub fn from_rows(
        variables: impl IntoIterator<Item = String>,
        rows: impl IntoIterator<Item = Vec<(String, Term)>>,
    ) -> Self {
        let mut variables: Vec<String> = variables.into_iter().collect();
        variables.sort();
        variables.dedup();
        let rows = rows
            .into_iter()
            .map(|row| {
                let mut values = vec![None; variables.len()];
                for (variable, value) in row {
                    if let Ok(i) = variables.binary_search(&variable) {
                        values[i] = Some(normalize_term(value));
                    }
                }
                values
            })
            .collect();
        Self::Solutions { variables, rows }
    }

    /// The kind of answer, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Boolean(_) => "a boolean",
            Self::Solutions { .. } => "solutions",
            Self::Graph(_) => "a graph",
        }
    }

    /// Converts to what a CSV file can express: IRIs and literals become their string as a
    /// simple literal; blank nodes stay blank nodes.
    pub fn to_csv_form(&self) -> Self {
        match self {
            Self::Solutions { variables, rows } => Self::Solutions {
                variables: variables.clone(),
                rows: rows
                    .iter()
                    .map(|row| {
                        row.iter()
                            .map(|value| {
                                value.as_ref().map(|term| match term {
                                    Term::NamedNode(n) => {
                                        Literal::new_simple_literal(n.as_str()).into()
                                    }
                                    Term::Literal(l) => {
                                        Literal::new_simple_literal(l.value()).into()
                                    }
                                    other => other.clone(),
                                })
                            })
                            .collect()
                    })
                    .collect(),
            },
            other => other.clone(),
        }
    }
}

/// Reads an expected result file. The flag is true when the file is CSV (lossy: compare
/// with `Answer::to_csv_form` of the actual answer).
pub fn load_expected(iri: &str) -> Result<(Answer, bool), String> {
    let extension = iri.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match extension {
        "csv" => Ok((parse_csv(&String::from_utf8_lossy(&read_iri(iri)?))?, true)),
        "srx" | "srj" | "tsv" | "xml" | "json" => {
            let format = QueryResultsFormat::from_extension(extension)
                .ok_or_else(|| format!("unknown results format {extension}"))?;
            let data = read_iri(iri)?;
            let parsed = QueryResultsParser::from_format(format)
                .for_slice(&data)
                .map_err(|e| format!("cannot parse {iri}: {e}"))?;
            Ok((
                match parsed {
                    SliceQueryResultsParserOutput::Boolean(value) => Answer::Boolean(value),
                    SliceQueryResultsParserOutput::Solutions(solutions) => {
                        let variables: Vec<String> = solutions
                            .variables()
                            .iter()
                            .map(|v| v.as_str().to_owned())
                            .collect();
                        let mut rows = Vec::new();
                        for solution in solutions {
                            let solution =
                                solution.map_err(|e| format!("cannot parse {iri}: {e}"))?;
                            rows.push(
                                solution
                                    .iter()
                                    .map(|(v, t)| (v.as_str().to_owned(), t.clone()))
                                    .collect(),
                            );
                        }
                        Answer::from_rows(variables, rows)
                    }
                },
                false,
            ))
        }
        _ => Ok((from_graph(load_graph(iri)?)?, false)),
    }
}

/// A graph is either an `rs:ResultSet` description or a CONSTRUCT/DESCRIBE answer.
fn from_graph(graph: Graph) -> Result<Answer, String> {
    let rs = |local: &str| NamedNode::new_unchecked(format!("{RS}{local}"));
    let Some(result_set) = graph.subject_for_predicate_object(rdf::TYPE, &rs("ResultSet")) else {
        return Ok(Answer::Graph(
            graph.iter().map(|t| t.into_owned()).collect(),
        ));
    };
    if let Some(value) = graph.object_for_subject_predicate(result_set, &rs("boolean")) {
        let TermRef::Literal(value) = value else {
            return Err(format!("invalid rs:boolean {value}"));
        };
        return Ok(Answer::Boolean(matches!(value.value(), "true" | "1")));
    }
    let variables: Vec<String> = graph
        .objects_for_subject_predicate(result_set, &rs("resultVariable"))
        .map(|v| match v {
            TermRef::Literal(l) => Ok(l.value().to_owned()),
            other => Err(format!("invalid rs:resultVariable {other}")),
        })
        .collect::<Result<_, _>>()?;
    let mut solutions = Vec::new();
    for solution in graph.objects_for_subject_predicate(result_set, &rs("solution")) {
        let solution: NamedOrBlankNodeRef<'_> = match solution {
            TermRef::BlankNode(b) => b.into(),
            TermRef::NamedNode(n) => n.into(),
            other => return Err(format!("invalid rs:solution {other}")),
        };
        let mut row = Vec::new();
        for binding in graph.objects_for_subject_predicate(solution, &rs("binding")) {
            let binding: NamedOrBlankNodeRef<'_> = match binding {
                TermRef::BlankNode(b) => b.into(),
                TermRef::NamedNode(n) => n.into(),
                other => return Err(format!("invalid rs:binding {other}")),
            };
            let variable = match graph.object_for_subject_predicate(binding, &rs("variable")) {
                Some(TermRef::Literal(l)) => l.value().to_owned(),
                _ => return Err(format!("rs:binding {binding} has no rs:variable")),
            };
            let value = graph
                .object_for_subject_predicate(binding, &rs("value"))
                .ok_or_else(|| format!("rs:binding {binding} has no rs:value"))?;
            row.push((variable, value.into_owned()));
        }
        let index = match graph.object_for_subject_predicate(solution, &rs("index")) {
            Some(TermRef::Literal(l)) => l.value().parse::<u64>().ok(),
            _ => None,
        };
        solutions.push((index, row));
    }
    if solutions.iter().all(|(index, _)| index.is_some()) {
        solutions.sort_by_key(|(index, _)| *index);
    }
    Ok(Answer::from_rows(
        variables,
        solutions.into_iter().map(|(_, row)| row),
    ))
}

/// A small RFC 4180 reader for SPARQL CSV results: cells become simple literals, or blank
/// nodes when they start with `_:`.
fn parse_csv(text: &str) -> Result<Answer, String> {
    let mut records: Vec<Vec<String>> = Vec::new();
    let mut record = Vec::new();
    let mut cell = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cell.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cell.push(c);
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            ',' => record.push(std::mem::take(&mut cell)),
            '\r' => {}
            '\n' => {
                record.push(std::mem::take(&mut cell));
                records.push(std::mem::take(&mut record));
                any = false;
            }
            c => cell.push(c),
        }
    }
    if any {
        record.push(cell);
        records.push(record);
    }
    let mut records = records.into_iter();
    let header = records.next().ok_or("empty CSV results")?;
    let rows = records.map(|record| {
        header
            .iter()
            .zip(record)
            .filter(|(_, cell)| !cell.is_empty())
            .map(|(variable, cell)| {
                let term: Term = match cell.strip_prefix("_:") {
                    Some(id) => BlankNode::new(id)
                        .unwrap_or_else(|_| BlankNode::default())
                        .into(),
                    None => Literal::new_simple_literal(cell).into(),
                };
                (variable.clone(), term)
            })
            .collect::<Vec<_>>()
    });
    Ok(Answer::from_rows(header.clone(), rows.collect::<Vec<_>>()))
}

/// Compares an answer with the expected one; the error's first line is a one-line reason,
/// the rest a diff.
pub fn compare_answers(expected: &Answer, actual: &Answer, order: &Order) -> Result<(), String> {
    match (expected, actual) {
        (Answer::Boolean(e), Answer::Boolean(a)) => {
            if e == a {
                Ok(())
            } else {
                Err(format!("expected boolean {e}, got {a}"))
            }
        }
        (Answer::Graph(e), Answer::Graph(a)) => compare_graphs(e, a),
        (
            Answer::Solutions {
                variables: ev,
                rows: er,
            },
            Answer::Solutions {
                variables: av,
                rows: ar,
            },
        ) => {
            if ev != av {
                return Err(format!(
                    "variables differ: expected {ev:?}, got {av:?}\n{}",
                    rows_diff(ev, er, av, ar)
                ));
            }
            if !same_multiset(er, ar) {
                let summary = if er.len() == ar.len() {
                    format!(
                        "solutions differ: {} rows as expected, but different values or blank-node structure",
                        er.len()
                    )
                } else {
                    format!(
                        "solutions differ: expected {} rows, got {}",
                        er.len(),
                        ar.len()
                    )
                };
                return Err(format!("{summary}\n{}", rows_diff(ev, er, av, ar)));
            }
            check_order(ev, er, ar, order)
        }
        (e, a) => Err(format!("expected {}, got {}", e.kind(), a.kind())),
    }
}

fn has_blank_node(term: &Term) -> bool {
    match term {
        Term::BlankNode(_) => true,
        #[allow(unreachable_patterns)]
        Term::Triple(t) => t.subject.is_blank_node() || has_blank_node(&t.object),
        _ => false,
    }
}

fn row_key(row: &[Option<Term>]) -> String {
    let mut key = String::new();
    for value in row {
        match value {
            Some(term) => {
                let _ = write!(key, "{term}\t");
            }
            None => key.push_str("UNDEF\t"),
        }
    }
    key
}

/// Multiset equality with one blank-node bijection over all rows: rows without blank nodes
/// are compared as sorted lists; rows with blank nodes as graphs (one node per row, one
/// arc per bound variable), up to isomorphism.
fn same_multiset(expected: &[Vec<Option<Term>>], actual: &[Vec<Option<Term>>]) -> bool {
    if expected.len() != actual.len() {
        return false;
    }
    fn split(rows: &[Vec<Option<Term>>]) -> (Vec<&Vec<Option<Term>>>, Vec<String>) {
        let (with, without): (Vec<_>, Vec<_>) = rows
            .iter()
            .partition(|row| row.iter().flatten().any(has_blank_node));
        let mut keys: Vec<String> = without.iter().map(|row| row_key(row)).collect();
        keys.sort();
        (with, keys)
    }
    let (e_bnode_rows, e_keys) = split(expected);
    let (a_bnode_rows, a_keys) = split(actual);
    if e_keys != a_keys || e_bnode_rows.len() != a_bnode_rows.len() {
        return false;
    }
    if e_bnode_rows.is_empty() {
        return true;
    }
    let to_graph = |rows: &[&Vec<Option<Term>>]| {
        let mut graph = Graph::new();
        for row in rows {
            let node = BlankNode::default();
            for (i, value) in row.iter().enumerate() {
                if let Some(value) = value {
                    let predicate = NamedNode::new_unchecked(format!("urn:w3c-runner:column:{i}"));
                    graph.insert(&Triple::new(node.clone(), predicate, value.clone()));
                }
            }
        }
        graph.canonicalize(CanonicalizationAlgorithm::Unstable);
        graph
    };
    to_graph(&e_bnode_rows) == to_graph(&a_bnode_rows)
}

/// Blank nodes do not take part in order checks (the multiset check already matched them).
fn order_term(term: &Option<Term>) -> String {
    match term {
        Some(t) if has_blank_node(t) => "_:*".into(),
        Some(t) => t.to_string(),
        None => "UNDEF".into(),
    }
}

fn check_order(
    variables: &[String],
    expected: &[Vec<Option<Term>>],
    actual: &[Vec<Option<Term>>],
    order: &Order,
) -> Result<(), String> {
    let columns: Vec<usize> = match order {
        Order::Unordered => return Ok(()),
        Order::Keys(keys) => keys
            .iter()
            .filter_map(|k| variables.iter().position(|v| v == k))
            .collect(),
        Order::Rows => (0..variables.len()).collect(),
    };
    let key = |row: &Vec<Option<Term>>| -> Vec<String> {
        columns.iter().map(|&i| order_term(&row[i])).collect()
    };
    for (position, (e, a)) in expected.iter().zip(actual).enumerate() {
        let (ek, ak) = (key(e), key(a));
        if ek != ak {
            let names: Vec<&str> = columns.iter().map(|&i| variables[i].as_str()).collect();
            return Err(format!(
                "same solutions in a different order: at row {position} ORDER BY key {names:?} expected {ek:?}, got {ak:?}"
            ));
        }
    }
    Ok(())
}

fn rows_diff(
    ev: &[String],
    er: &[Vec<Option<Term>>],
    av: &[String],
    ar: &[Vec<Option<Term>>],
) -> String {
    let show = |vars: &[String], rows: &[Vec<Option<Term>>]| -> Vec<String> {
        rows.iter()
            .map(|row| {
                let mut line = String::from("{");
                for (v, value) in vars.iter().zip(row) {
                    if let Some(value) = value {
                        let _ = write!(line, " ?{v}={value}");
                    }
                }
                line.push_str(" }");
                line
            })
            .collect()
    };
    let mut e = show(ev, er);
    let mut a = show(av, ar);
    e.sort();
    a.sort();
    let mut out = String::new();
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for line in &e {
        *counts.entry(line).or_default() += 1;
    }
    for line in &a {
        *counts.entry(line).or_default() -= 1;
    }
    for (line, count) in &counts {
        if *count > 0 {
            let _ = writeln!(out, "  missing x{count}: {line}");
        } else if *count < 0 {
            let _ = writeln!(out, "  extra   x{}: {line}", -count);
        }
    }
    if out.is_empty() {
        out.push_str("  (same rows up to blank node names)\n");
    }
    let _ = writeln!(out, "  expected rows:");
    for line in e.iter().take(40) {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(out, "  actual rows:");
    for line in a.iter().take(40) {
        let _ = writeln!(out, "    {line}");
    }
    out
}

fn compare_graphs(expected: &[Triple], actual: &[Triple]) -> Result<(), String> {
    let to_dataset = |triples: &[Triple]| -> Dataset {
        triples
            .iter()
            .map(|t| normalize_triple(t.clone()).in_graph(oxrdf::GraphName::DefaultGraph))
            .collect()
    };
    compare_datasets(&to_dataset(expected), &to_dataset(actual), "triples")
}

/// Compares datasets up to blank-node isomorphism, literals normalized.
pub fn compare_datasets(expected: &Dataset, actual: &Dataset, what: &str) -> Result<(), String> {
    let normalize = |dataset: &Dataset| -> Dataset {
        let mut out: Dataset = dataset
            .iter()
            .map(|q| {
                let q = q.into_owned();
                Quad::new(
                    q.subject,
                    q.predicate,
                    normalize_term(q.object),
                    q.graph_name,
                )
            })
            .collect();
        out.canonicalize(CanonicalizationAlgorithm::Unstable);
        out
    };
    let (e, a) = (normalize(expected), normalize(actual));
    if e == a {
        return Ok(());
    }
    let mut missing: Vec<String> = e
        .iter()
        .filter(|q| !a.contains(*q))
        .map(|q| q.to_string())
        .collect();
    let mut extra: Vec<String> = a
        .iter()
        .filter(|q| !e.contains(*q))
        .map(|q| q.to_string())
        .collect();
    missing.sort();
    extra.sort();
    let mut out = format!(
        "{what} differ: expected {}, got {} ({} missing, {} extra, blank nodes canonicalized)\n",
        e.len(),
        a.len(),
        missing.len(),
        extra.len()
    );
    for line in missing.iter().take(30) {
        let _ = writeln!(out, "  missing: {line}");
    }
    for line in extra.iter().take(30) {
        let _ = writeln!(out, "  extra:   {line}");
    }
    Err(out)
}

fn normalize_triple(triple: Triple) -> Triple {
    Triple::new(
        triple.subject,
        triple.predicate,
        normalize_term(triple.object),
    )
}

/// Canonical lexical forms, so numeric and boolean literals compare by value (within their
/// datatype), and language tags case-insensitively.
pub fn normalize_term(term: Term) -> Term {
    match term {
        Term::Literal(literal) => Term::Literal(normalize_literal(literal)),
        #[allow(unreachable_patterns)]
        Term::Triple(triple) => Term::Triple(Box::new(normalize_triple(*triple))),
        other => other,
    }
}

const INTEGER_TYPES: &[&str] = &[
    "integer",
    "nonPositiveInteger",
    "negativeInteger",
    "long",
    "int",
    "short",
    "byte",
    "nonNegativeInteger",
    "unsignedLong",
    "unsignedInt",
    "unsignedShort",
    "unsignedByte",
    "positiveInteger",
];

fn normalize_literal(literal: Literal) -> Literal {
    if let Some(language) = literal.language() {
        if language.chars().any(|c| c.is_ascii_uppercase()) {
            return Literal::new_language_tagged_literal_unchecked(
                literal.value(),
                language.to_ascii_lowercase(),
            );
        }
        return literal;
    }
    let datatype = literal.datatype();
    let value = literal.value().trim();
    let Some(local) = datatype
        .as_str()
        .strip_prefix("http://www.w3.org/2001/XMLSchema#")
    else {
        return literal;
    };
    let canonical = if INTEGER_TYPES.contains(&local) {
        value.parse::<i128>().ok().map(|v| v.to_string())
    } else if datatype == xsd::DECIMAL {
        canonical_decimal(value)
    } else if datatype == xsd::DOUBLE {
        value.parse::<f64>().ok().map(canonical_float)
    } else if datatype == xsd::FLOAT {
        value
            .parse::<f32>()
            .ok()
            .map(|v| canonical_float(f64::from(v)))
    } else if datatype == xsd::BOOLEAN {
        match value {
            "true" | "1" => Some("true".to_owned()),
            "false" | "0" => Some("false".to_owned()),
            _ => None,
        }
    } else {
        None
    };
    match canonical {
        Some(c) if c != literal.value() => Literal::new_typed_literal(c, datatype.into_owned()),
        _ => literal,
    }
}

fn canonical_float(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "INF".into() } else { "-INF".into() }
    } else {
        format!("{v:E}")
    }
}

fn canonical_decimal(value: &str) -> Option<String> {
    let (negative, digits) = match value.as_bytes().first()? {
        b'-' => (true, &value[1..]),
        b'+' => (false, &value[1..]),
        _ => (false, value),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = if frac.is_empty() { "0" } else { frac };
    let negative = negative && !(int == "0" && frac == "0");
    Some(format!("{}{int}.{frac}", if negative { "-" } else { "" }))
}
