//! Input generators for the fuzz harness, shared by the bounded `cargo test --test fuzz`
//! and the long-running `cargo run --release --example fuzz` (which includes this file
//! with `#[path]`).
//!
//! Every generator is a proptest `Strategy`, so the bounded run shrinks what it finds.
//! Generators are grammar-aware (SPARQL, Turtle/TriG, the MCP tools' JSON schemas, HTTP
//! requests) and mix in mutations of real documents: the W3C test files vendored under
//! `tests/data/w3c`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::{BoxedStrategy, Union};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------
// Corpus: real documents to mutate
// ---------------------------------------------------------------------------------------

/// The vendored W3C files, read once.
pub struct Corpus {
    /// SPARQL queries (`.rq`).
    pub queries: Vec<String>,
    /// SPARQL updates (`.ru`).
    pub updates: Vec<String>,
    /// Turtle documents (`.ttl`: test data, expected results, manifests, SHACL tests).
    pub turtle: Vec<String>,
    /// N-Triples and N-Quads documents.
    pub ntriples: Vec<String>,
}

pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/w3c")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("the fuzz corpus needs {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The corpus. Panics when the vendored data is missing: the fuzz test never skips.
pub fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut files = Vec::new();
        walk(&data_dir(), &mut files);
        files.sort();
        let mut corpus = Corpus {
            queries: Vec::new(),
            updates: Vec::new(),
            turtle: Vec::new(),
            ntriples: Vec::new(),
        };
        for file in files {
            let Some(ext) = file.extension().and_then(|e| e.to_str()) else {
                continue;
            };
            let list = match ext {
                "rq" => &mut corpus.queries,
                "ru" => &mut corpus.updates,
                "ttl" => &mut corpus.turtle,
                "nt" | "nq" => &mut corpus.ntriples,
                _ => continue,
            };
            // A few files are not UTF-8 on purpose (encoding tests): skip those.
            if let Ok(text) = std::fs::read_to_string(&file) {
                // Keep inputs small: the bigger manifests add nothing a mutation needs.
                if text.len() <= 16 * 1024 {
                    list.push(text);
                }
            }
        }
        for (name, list) in [
            ("queries", &corpus.queries),
            ("updates", &corpus.updates),
            ("turtle", &corpus.turtle),
        ] {
            assert!(
                list.len() >= 20,
                "the fuzz corpus has only {} {name} under {}",
                list.len(),
                data_dir().display()
            );
        }
        corpus
    })
}

// ---------------------------------------------------------------------------------------
// Mutations of text
// ---------------------------------------------------------------------------------------

/// One edit of a text, positions as fractions of its length.
#[derive(Clone, Debug)]
pub enum Mutation {
    Truncate(Index),
    Delete(Index, usize),
    Insert(Index, String),
    Replace(Index, String),
    Duplicate(Index, usize),
    Swap(Index, Index),
}

/// Tokens and characters that matter to SPARQL and Turtle parsers.
const SPICE: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "<",
    ">",
    "<<",
    ">>",
    "<<(",
    ")>>",
    "{|",
    "|}",
    "~",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\u",
    "\\U",
    "\\u00",
    "\\uD800",
    "\\U0010FFFF",
    "\\U00110000",
    "?",
    "$",
    "#",
    "@",
    "@en",
    "@en--ltr",
    "^^",
    ".",
    ";",
    ",",
    "*",
    "+",
    "|",
    "/",
    "!",
    "^",
    "&&",
    "||",
    "=",
    "!=",
    "-",
    "_:",
    "_:b",
    ":",
    "a",
    "0",
    "1e",
    "1e999",
    "-0.0",
    "9999999999999999999999999",
    "SELECT",
    "WHERE",
    "FILTER",
    "OPTIONAL",
    "UNION",
    "MINUS",
    "GRAPH",
    "SERVICE",
    "BIND",
    "VALUES",
    "EXISTS",
    "NOT",
    "GROUP BY",
    "ORDER BY",
    "HAVING",
    "LIMIT",
    "OFFSET",
    "AS",
    "INSERT",
    "DELETE",
    "DATA",
    "WITH",
    "USING",
    "NAMED",
    "DEFAULT",
    "ALL",
    "DROP",
    "CLEAR",
    "LOAD",
    "CREATE",
    "COPY",
    "MOVE",
    "ADD",
    "TO",
    "INTO",
    "SILENT",
    "@prefix",
    "PREFIX",
    "BASE",
    "@base",
    "VERSION",
    "true",
    "false",
    "UNDEF",
    "COUNT(*)",
    "\u{0}",
    "\u{7f}",
    "\u{ad}",
    "\u{200b}",
    "\u{202e}",
    "\u{feff}",
    "\u{fffd}",
    "\u{ffff}",
    "\u{1f600}",
    "é",
    "e\u{301}",
    "ß",
    "İ",
    "\r",
    "\n",
    "\t",
    " ",
    "\u{85}",
    "\u{2028}",
];

fn spice() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(SPICE).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
        1 => "[ -~]{1,6}",
    ]
}

pub fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        2 => any::<Index>().prop_map(Mutation::Truncate),
        2 => (any::<Index>(), 1..40usize).prop_map(|(i, n)| Mutation::Delete(i, n)),
        4 => (any::<Index>(), spice()).prop_map(|(i, s)| Mutation::Insert(i, s)),
        3 => (any::<Index>(), spice()).prop_map(|(i, s)| Mutation::Replace(i, s)),
        1 => (any::<Index>(), 1..60usize).prop_map(|(i, n)| Mutation::Duplicate(i, n)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
    ]
}

/// Applies edits at character boundaries, so the result stays valid UTF-8.
pub fn apply_mutations(text: &str, mutations: &[Mutation]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for mutation in mutations {
        let len = chars.len();
        let at = |i: &Index| if len == 0 { 0 } else { i.index(len + 1) };
        match mutation {
            Mutation::Truncate(i) => chars.truncate(at(i)),
            Mutation::Delete(i, n) => {
                let start = at(i).min(len);
                let end = (start + n).min(len);
                chars.drain(start..end);
            }
            Mutation::Insert(i, s) => {
                let pos = at(i);
                chars.splice(pos..pos, s.chars());
            }
            Mutation::Replace(i, s) => {
                let pos = at(i);
                let end = (pos + 1).min(len);
                chars.splice(pos..end, s.chars());
            }
            Mutation::Duplicate(i, n) => {
                let start = at(i).min(len);
                let end = (start + n).min(len);
                let copy: Vec<char> = chars[start..end].to_vec();
                chars.splice(end..end, copy);
            }
            Mutation::Swap(a, b) => {
                if len >= 2 {
                    chars.swap(a.index(len), b.index(len));
                }
            }
        }
    }
    chars.into_iter().collect()
}

/// A document from `pick` with a few edits (often none: valid inputs matter too).
fn mutated(pick: fn(&'static Corpus) -> &'static [String]) -> BoxedStrategy<String> {
    let docs = pick(corpus());
    (any::<Index>(), prop::collection::vec(mutation(), 0..5))
        .prop_map(move |(i, edits)| apply_mutations(&docs[i.index(docs.len())], &edits))
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Terms shared by SPARQL and Turtle
// ---------------------------------------------------------------------------------------

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        16 => "[a-z][a-z0-9]{0,5}",
        2 => "[a-zA-Z_\u{c0}-\u{2ff}\u{370}-\u{37d}\u{4e00}-\u{4e10}][a-zA-Z0-9_\u{b7}]{0,4}",
        1 => Just(String::new()),
    ]
}

/// The inside of a string literal: plain text, escapes, odd characters, and now and then
/// something invalid (a bad escape, a lone surrogate escape, a stray quote).
fn string_body() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        12 => "[a-zA-Z0-9 ]{0,8}",
        4 => prop::sample::select(&[
            "\\n", "\\t", "\\\"", "\\'", "\\\\", "\\u00E9", "\\U0001F600", "\\r",
            "é", "\u{1f600}", "\u{202e}", "e\u{301}", "\u{fffd}", "%41", "&lt;", "\u{ad}",
            "\u{85}", "\u{2028}", "ß", "İ", "\u{10ffff}",
        ][..]).prop_map(str::to_owned),
        2 => any::<char>()
            .prop_filter("no quote or backslash", |c| !matches!(c, '"' | '\'' | '\\' | '\n' | '\r'))
            .prop_map(String::from),
        1 => prop::sample::select(&[
            "\\uD800", "\\uDFFF", "\\U00110000", "\\u12", "\\q", "\\", "'", "\"",
            "\u{0}", "\r\n",
        ][..]).prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|v| v.concat())
}

pub fn iri() -> BoxedStrategy<String> {
    prop_oneof![
        10 => word().prop_map(|w| format!("<http://example/{w}>")),
        6 => word().prop_map(|w| format!("ex:{w}")),
        3 => word().prop_map(|w| format!(":{w}")),
        2 => Just("a".to_owned()),
        1 => Just("rdf:type".to_owned()),
        1 => Just("<>".to_owned()),
        1 => word().prop_map(|w| format!("<#{w}>")),
        1 => word().prop_map(|w| format!("<../{w}/./x>")),
        1 => word().prop_map(|w| format!("<urn:x:{w}>")),
        1 => string_body().prop_map(|b| format!("<{}>", b.replace(' ', "_"))),
        1 => word().prop_map(|w| format!("zz:{w}")),
        1 => Just("<http://example/\\u00E9>".to_owned()),
        1 => Just("ex:a.b\\-c%41".to_owned()),
        1 => Just("<http://[::1]:99999/x>".to_owned()),
        1 => Just("<file:///etc/passwd>".to_owned()),
    ]
    .boxed()
}

fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<i32>().prop_map(|n| n.to_string()),
        2 => any::<i64>().prop_map(|n| n.to_string()),
        2 => any::<f64>().prop_map(|n| format!("{n:e}")),
        1 => (any::<i16>(), 0u32..1000).prop_map(|(a, b)| format!("{a}.{b}")),
        2 => prop::sample::select(&[
            "0", "-0", "+1", "1.", ".5", "-.5e-3", "1e400", "-1e-400", "1.0E+309",
            "99999999999999999999999999999999999999", "0.0000000000000000000000000001",
            "18446744073709551616", "-9223372036854775809", "1E", "1.2.3", "0x10",
        ][..]).prop_map(str::to_owned),
    ]
}

pub fn literal() -> BoxedStrategy<String> {
    let typed_value = prop::sample::select(
        &[
            ("NaN", "double"),
            ("INF", "double"),
            ("-INF", "float"),
            ("abc", "integer"),
            ("1", "integer"),
            ("-0", "decimal"),
            ("1e1", "decimal"),
            ("2024-02-30T25:61:00Z", "dateTime"),
            ("2024-01-01T00:00:00+14:01", "dateTime"),
            ("-99999-01-01T00:00:00Z", "dateTime"),
            ("2024-01-01", "date"),
            ("24:00:00", "time"),
            ("P1Y", "duration"),
            ("-P0D", "dayTimeDuration"),
            ("P99999999999999999999Y", "yearMonthDuration"),
            ("true", "boolean"),
            ("1", "boolean"),
            ("yes", "boolean"),
            ("", "string"),
            ("9223372036854775807", "long"),
            ("256", "byte"),
            ("-1", "unsignedInt"),
            ("2024", "gYear"),
            ("--02-29", "gMonthDay"),
        ][..],
    )
    .prop_map(|(v, t)| format!("\"{v}\"^^xsd:{t}"));
    prop_oneof![
        4 => string_body().prop_map(|b| format!("\"{b}\"")),
        1 => string_body().prop_map(|b| format!("'{b}'")),
        1 => string_body().prop_map(|b| format!("\"\"\"{b}\"\"\"")),
        2 => (string_body(), prop::sample::select(&["en", "en-US", "fr", "x", "EN", "en--ltr", "ar--rtl", "en", "en-US", "fr", "x-private", "zh-Hant-TW", "en--xyz", "1", "a-b-c-d-e-f-g-h-i", ""][..]))
            .prop_map(|(b, l)| format!("\"{b}\"@{l}")),
        3 => number(),
        3 => typed_value,
        1 => (string_body(), iri()).prop_map(|(b, t)| format!("\"{b}\"^^{t}")),
        1 => prop::sample::select(&["true", "false", "TRUE"][..]).prop_map(str::to_owned),
    ]
    .boxed()
}

fn blank_node() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("[]".to_owned()),
        4 => "[a-z][a-z0-9]{0,3}".prop_map(|w| format!("_:{w}")),
        1 => prop::sample::select(&["_:", "_:1.", "_:a.b", "_:-"][..]).prop_map(str::to_owned),
    ]
}

// ---------------------------------------------------------------------------------------
// SPARQL
// ---------------------------------------------------------------------------------------

pub const PROLOGUE: &str = "PREFIX ex: <http://example/>\nPREFIX : <http://example/>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n";

fn var() -> impl Strategy<Value = String> {
    prop_oneof![
        10 => prop::sample::select(&["?s", "?p", "?o", "?x", "?y", "?g", "?v", "$s", "?n"][..]).prop_map(str::to_owned),
        1 => word().prop_map(|w| format!("?{w}")),
        1 => Just("?\u{e9}t\u{e9}".to_owned()),
    ]
}

fn sparql_term() -> BoxedStrategy<String> {
    prop_oneof![4 => var(), 3 => iri(), 3 => literal(), 1 => blank_node()].boxed()
}

/// Functions with the argument counts they take (the generator also calls them wrongly).
const FUNCTIONS: &[(&str, usize)] = &[
    ("STR", 1),
    ("LANG", 1),
    ("LANGMATCHES", 2),
    ("DATATYPE", 1),
    ("BOUND", 1),
    ("IRI", 1),
    ("URI", 1),
    ("BNODE", 1),
    ("BNODE", 0),
    ("RAND", 0),
    ("ABS", 1),
    ("CEIL", 1),
    ("FLOOR", 1),
    ("ROUND", 1),
    ("CONCAT", 3),
    ("STRLEN", 1),
    ("UCASE", 1),
    ("LCASE", 1),
    ("ENCODE_FOR_URI", 1),
    ("CONTAINS", 2),
    ("STRSTARTS", 2),
    ("STRENDS", 2),
    ("STRBEFORE", 2),
    ("STRAFTER", 2),
    ("YEAR", 1),
    ("MONTH", 1),
    ("DAY", 1),
    ("HOURS", 1),
    ("MINUTES", 1),
    ("SECONDS", 1),
    ("TIMEZONE", 1),
    ("TZ", 1),
    ("NOW", 0),
    ("UUID", 0),
    ("STRUUID", 0),
    ("MD5", 1),
    ("SHA1", 1),
    ("SHA256", 1),
    ("SHA384", 1),
    ("SHA512", 1),
    ("COALESCE", 2),
    ("IF", 3),
    ("STRLANG", 2),
    ("STRDT", 2),
    ("sameTerm", 2),
    ("isIRI", 1),
    ("isURI", 1),
    ("isBLANK", 1),
    ("isLITERAL", 1),
    ("isNUMERIC", 1),
    ("REGEX", 2),
    ("REGEX", 3),
    ("SUBSTR", 2),
    ("SUBSTR", 3),
    ("REPLACE", 3),
    ("REPLACE", 4),
    ("LANGDIR", 1),
    ("hasLANG", 1),
    ("hasLANGDIR", 1),
    ("STRLANGDIR", 3),
    ("TRIPLE", 3),
    ("SUBJECT", 1),
    ("PREDICATE", 1),
    ("OBJECT", 1),
    ("isTRIPLE", 1),
    ("xsd:integer", 1),
    ("xsd:double", 1),
    ("xsd:float", 1),
    ("xsd:decimal", 1),
    ("xsd:boolean", 1),
    ("xsd:string", 1),
    ("xsd:dateTime", 1),
    ("xsd:date", 1),
    ("<http://example/f>", 2),
];

const REGEX_PATTERNS: &[&str] = &[
    "\"^a\"",
    "\"(a*)*b\"",
    "\"[\"",
    "\"\\\\\"",
    "\"(?i)x\"",
    "\"a{1000000}\"",
    "\"\\\\p{L}+\"",
    "\"((((((((((a))))))))))\"",
    "\"\"",
    "\"$\"",
    "\"[^\\\\x00-\\\\x7f]\"",
    "\"(?<n>a)\\\\k<n>\"",
];

const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "SAMPLE",
    "GROUP_CONCAT",
];

/// A property path of at most `depth` levels.
fn path(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        6 => iri(),
        1 => iri().prop_map(|i| format!("!{i}")),
        1 => (iri(), iri()).prop_map(|(a, b)| format!("!({a}|^{b})")),
        1 => Just("!()".to_owned()),
    ];
    leaf.prop_recursive(depth, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a}/{b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}|{b})")),
            inner.clone().prop_map(|a| format!("^{a}")),
            (
                inner,
                prop::sample::select(&["*", "+", "?", "{2}", "{1,}"][..])
            )
                .prop_map(|(a, op)| format!("({a}){op}")),
        ]
    })
    .boxed()
}

/// One triple pattern, sometimes with object lists, property lists or RDF 1.2 forms.
fn triple_pattern(with_paths: bool) -> BoxedStrategy<String> {
    let subject = prop_oneof![6 => var(), 3 => iri(), 1 => blank_node(), 1 => literal()];
    let verb = if with_paths {
        prop_oneof![4 => var(), 4 => iri(), 2 => path(3)].boxed()
    } else {
        prop_oneof![var(), iri()].boxed()
    };
    let object = prop_oneof![5 => sparql_term(), 1 => Just("( 1 ?x () )".to_owned())];
    let basic =
        (subject, verb.clone(), object.clone()).prop_map(|(s, p, o)| format!("{s} {p} {o}"));
    prop_oneof![
        8 => basic.clone(),
        1 => (basic.clone(), verb.clone(), object.clone()).prop_map(|(t, p, o)| format!("{t} ; {p} {o}")),
        1 => (basic.clone(), object.clone()).prop_map(|(t, o)| format!("{t} , {o}")),
        1 => (verb.clone(), object.clone()).prop_map(|(p, o)| format!("[ {p} {o} ] ?p ?o")),
        1 => (var(), iri(), sparql_term()).prop_map(|(s, p, o)| format!("<<( {s} {p} {o} )>> ?p ?o")),
        1 => (var(), iri(), sparql_term(), var()).prop_map(|(s, p, o, r)| format!("<< {s} {p} {o} ~ {r} >> ?p ?o")),
        1 => (basic, iri(), sparql_term()).prop_map(|(t, p, o)| format!("{t} {{| {p} {o} |}}")),
    ]
    .boxed()
}

/// Expressions and group graph patterns of at most `depth` levels (they nest in each
/// other through EXISTS and sub-queries).
pub fn expr_and_group(depth: u32) -> (BoxedStrategy<String>, BoxedStrategy<String>) {
    let expr_leaf = prop_oneof![
        4 => var(),
        3 => literal(),
        1 => iri(),
        1 => (var(), prop::sample::select(REGEX_PATTERNS)).prop_map(|(v, p)| format!("REGEX(STR({v}), {p})")),
    ]
    .boxed();
    let group_leaf = prop::collection::vec(triple_pattern(true), 0..3)
        .prop_map(|ts| format!("{{ {} }}", ts.join(" . ")))
        .boxed();
    if depth == 0 {
        return (expr_leaf, group_leaf);
    }
    let (e, g) = expr_and_group(depth - 1);
    let binary = prop::sample::select(
        &[
            "||", "&&", "=", "!=", "<", ">", "<=", ">=", "+", "-", "*", "/",
        ][..],
    );
    let function = (
        prop::sample::select(FUNCTIONS),
        prop::collection::vec(e.clone(), 1..4),
        prop::bool::weighted(0.9),
    )
        .prop_map(|((name, arity), args, exact)| {
            let args: Vec<String> = if exact {
                args.iter().cycle().take(arity).cloned().collect()
            } else {
                args
            };
            format!("{name}({})", args.join(", "))
        });
    let expr = prop_oneof![
        4 => expr_leaf,
        4 => (e.clone(), binary, e.clone()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
        1 => e.clone().prop_map(|a| format!("!{a}")),
        1 => e.clone().prop_map(|a| format!("-{a}")),
        4 => function,
        1 => (e.clone(), prop::collection::vec(e.clone(), 0..3), any::<bool>()).prop_map(|(a, list, not)| {
            format!("({a} {}IN ({}))", if not { "NOT " } else { "" }, list.join(", "))
        }),
        1 => (g.clone(), any::<bool>()).prop_map(|(g, not)| format!("{}EXISTS {g}", if not { "NOT " } else { "" })),
    ]
    .boxed();
    let element = prop_oneof![
        6 => triple_pattern(true).prop_map(|t| format!("{t} .")),
        2 => e.clone().prop_map(|e| format!("FILTER({e})")),
        2 => g.clone().prop_map(|g| format!("OPTIONAL {g}")),
        2 => (g.clone(), g.clone()).prop_map(|(a, b)| format!("{a} UNION {b}")),
        1 => g.clone().prop_map(|g| format!("MINUS {g}")),
        1 => (prop_oneof![var(), iri()], g.clone()).prop_map(|(n, g)| format!("GRAPH {n} {g}")),
        2 => (e.clone(), var()).prop_map(|(e, v)| format!("BIND({e} AS {v})")),
        1 => values(),
        1 => (iri(), any::<bool>(), g.clone()).prop_map(|(i, s, g)| format!("SERVICE {}{i} {g}", if s { "SILENT " } else { "" })),
        1 => (select_clause(e.clone()), g.clone(), modifiers(e.clone())).prop_map(|(s, g, m)| format!("{{ {s} WHERE {g} {m} }}")),
        1 => g.clone(),
    ];
    let group = prop::collection::vec(element, 0..4)
        .prop_map(|els| format!("{{ {} }}", els.join(" ")))
        .boxed();
    (expr, group)
}

fn values() -> BoxedStrategy<String> {
    let cell = || prop_oneof![3 => iri(), 3 => literal(), 1 => Just("UNDEF".to_owned())];
    (0usize..4, prop::bool::weighted(0.9))
        .prop_flat_map(move |(width, exact)| {
            let row_width = if exact { width..width + 1 } else { 0..4 };
            (
                prop::collection::vec(var(), width..width + 1),
                prop::collection::vec(prop::collection::vec(cell(), row_width), 0..3),
            )
        })
        .prop_map(|(vars, rows)| {
            let rows: Vec<String> = rows.iter().map(|r| format!("({})", r.join(" "))).collect();
            format!("VALUES ({}) {{ {} }}", vars.join(" "), rows.join(" "))
        })
        .boxed()
}

fn aggregate(e: BoxedStrategy<String>) -> BoxedStrategy<String> {
    (
        prop::sample::select(AGGREGATES),
        any::<bool>(),
        e,
        any::<bool>(),
        string_body(),
    )
        .prop_map(|(f, distinct, arg, star, sep)| {
            let d = if distinct { "DISTINCT " } else { "" };
            match f {
                "COUNT" if star => format!("COUNT({d}*)"),
                "GROUP_CONCAT" if star => format!("GROUP_CONCAT({d}{arg}; SEPARATOR=\"{sep}\")"),
                _ => format!("{f}({d}{arg})"),
            }
        })
        .boxed()
}

fn select_clause(e: BoxedStrategy<String>) -> BoxedStrategy<String> {
    let projection = prop_oneof![
        3 => Just("*".to_owned()),
        3 => prop::collection::vec(var(), 1..4).prop_map(|v| v.join(" ")),
        2 => (prop_oneof![e.clone(), aggregate(e)], var()).prop_map(|(e, v)| format!("({e} AS {v})")),
    ];
    (
        prop::sample::select(&["", "DISTINCT ", "REDUCED "][..]),
        projection,
    )
        .prop_map(|(d, p)| format!("SELECT {d}{p}"))
        .boxed()
}

fn modifiers(e: BoxedStrategy<String>) -> BoxedStrategy<String> {
    (
        prop::option::weighted(
            0.2,
            prop::collection::vec(
                prop_oneof![var(), e.clone().prop_map(|e| format!("({e})"))],
                1..3,
            ),
        ),
        prop::option::weighted(0.1, aggregate(e.clone())),
        prop::option::weighted(
            0.3,
            prop::collection::vec(
                (
                    prop::sample::select(&["", "ASC", "DESC"][..]),
                    prop_oneof![var(), e.prop_map(|e| format!("({e})"))],
                ),
                1..3,
            ),
        ),
        prop::option::weighted(0.3, prop_oneof![0..20u64, Just(0u64), Just(u64::MAX)]),
        prop::option::weighted(0.2, prop_oneof![0..20u64, Just(u64::MAX)]),
    )
        .prop_map(|(group, having, order, limit, offset)| {
            let mut out = String::new();
            if let Some(g) = group {
                out.push_str(&format!(" GROUP BY {}", g.join(" ")));
            }
            if let Some(h) = having {
                out.push_str(&format!(" HAVING ({h} > 0)"));
            }
            if let Some(o) = order {
                let keys: Vec<String> = o
                    .into_iter()
                    .map(|(dir, k)| {
                        if dir.is_empty() {
                            k
                        } else {
                            format!("{dir}({k})")
                        }
                    })
                    .collect();
                out.push_str(&format!(" ORDER BY {}", keys.join(" ")));
            }
            if let Some(l) = limit {
                out.push_str(&format!(" LIMIT {l}"));
            }
            if let Some(o) = offset {
                out.push_str(&format!(" OFFSET {o}"));
            }
            out
        })
        .boxed()
}

/// A template for CONSTRUCT or INSERT/DELETE: plain triples, optionally in GRAPH blocks.
fn template() -> BoxedStrategy<String> {
    let triples = prop::collection::vec(triple_pattern(false), 0..3).prop_map(|t| t.join(" . "));
    (
        triples,
        prop::option::weighted(
            0.3,
            (
                prop_oneof![var(), iri()],
                prop::collection::vec(triple_pattern(false), 0..2),
            ),
        ),
    )
        .prop_map(|(t, graph)| match graph {
            None => format!("{{ {t} }}"),
            Some((g, ts)) => format!("{{ {t} GRAPH {g} {{ {} }} }}", ts.join(" . ")),
        })
        .boxed()
}

/// A query built from the grammar, nesting at most `depth` levels.
pub fn grammar_query(depth: u32) -> BoxedStrategy<String> {
    let (e, g) = expr_and_group(depth);
    let dataset = prop::option::weighted(
        0.1,
        (any::<bool>(), iri())
            .prop_map(|(named, i)| format!("FROM {}{i}", if named { "NAMED " } else { "" })),
    )
    .prop_map(Option::unwrap_or_default);
    let form = prop_oneof![
        6 => (select_clause(e.clone()), dataset.clone(), g.clone(), modifiers(e.clone()), prop::option::weighted(0.1, values()))
            .prop_map(|(s, d, g, m, v)| format!("{s} {d} WHERE {g}{m} {}", v.unwrap_or_default())),
        2 => (dataset.clone(), g.clone()).prop_map(|(d, g)| format!("ASK {d} {g}")),
        2 => (template(), g.clone(), modifiers(e.clone())).prop_map(|(t, g, m)| format!("CONSTRUCT {t} WHERE {g}{m}")),
        1 => template().prop_map(|t| format!("CONSTRUCT WHERE {t}")),
        1 => (prop::collection::vec(prop_oneof![var(), iri()], 0..3), prop::option::of(g)).prop_map(|(terms, g)| {
            let terms = if terms.is_empty() { "*".to_owned() } else { terms.join(" ") };
            format!("DESCRIBE {terms} {}", g.map(|g| format!("WHERE {g}")).unwrap_or_default())
        }),
    ];
    (prop::bool::weighted(0.95), form)
        .prop_map(|(prologue, q)| {
            if prologue {
                format!("{PROLOGUE}{q}")
            } else {
                q
            }
        })
        .boxed()
}

/// A construct nested `depth` times: the inputs that overflow recursive parsers and
/// evaluators.
pub fn deep_query(max_depth: usize) -> BoxedStrategy<String> {
    (0usize..DEEP_QUERY_KINDS, 1..=max_depth.max(1))
        .prop_map(|(kind, n)| deep_query_exact(kind, n))
        .boxed()
}

/// How many shapes of deep query `deep_query_exact` makes.
pub const DEEP_QUERY_KINDS: usize = 12;

/// Deep query shape `kind` nested `n` times.
pub fn deep_query_exact(kind: usize, n: usize) -> String {
    let wrap = |open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(n), close.repeat(n))
    };
    let body = match kind {
        0 => format!("SELECT * WHERE {{ BIND({} AS ?x) }}", wrap("(", "1", ")")),
        1 => format!("SELECT * WHERE {{ BIND({}true AS ?x) }}", "!".repeat(n)),
        2 => format!("SELECT * WHERE {}", wrap("{ ", "?s ?p ?o", " }")),
        3 => format!(
            "SELECT * WHERE {}",
            wrap("{ ?s ?p ?o OPTIONAL ", "{ ?s ?p ?o }", " }")
        ),
        4 => format!(
            "SELECT * WHERE {}",
            wrap("{ SELECT * WHERE ", "{ ?s ?p ?o }", " }")
        ),
        5 => format!(
            "SELECT * WHERE {}",
            wrap("{ FILTER NOT EXISTS ", "{ ?s ?p ?o }", " }")
        ),
        6 => format!("SELECT * WHERE {{ ?s {} ?o }}", wrap("(", "ex:p", ")*")),
        7 => format!(
            "SELECT * WHERE {{ BIND({} AS ?x) }}",
            wrap("STR(", "1", ")")
        ),
        8 => format!(
            "SELECT * WHERE {{ BIND({} AS ?x) }}",
            vec!["1"; n].join(" + ")
        ),
        9 => format!(
            "SELECT * WHERE {{ {} }}",
            vec!["{ ?s ?p ?o }"; n].join(" UNION ")
        ),
        10 => format!("SELECT * WHERE {{ ?s ex:p {} }}", wrap("( ", "1", " )")),
        _ => format!(
            "SELECT * WHERE {{ ?s ex:p {} }}",
            wrap("[ ex:q ", "1", " ]")
        ),
    };
    format!("{PROLOGUE}{body}")
}

/// SPARQL query text: grammar-built queries, W3C queries (mutated or not), deep nestings
/// and token soup.
pub fn sparql_query(max_depth: usize) -> BoxedStrategy<String> {
    prop_oneof![
        5 => grammar_query(3),
        4 => mutated(|c| &c.queries),
        1 => deep_query(max_depth),
        1 => prop::collection::vec(spice(), 0..30).prop_map(|t| t.join(" ")),
    ]
    .boxed()
}

fn quad_data() -> BoxedStrategy<String> {
    let ground = || prop_oneof![3 => iri(), 3 => literal(), 1 => blank_node()];
    let triple = (prop_oneof![iri(), blank_node()], iri(), ground())
        .prop_map(|(s, p, o)| format!("{s} {p} {o}"));
    (
        prop::collection::vec(triple.clone(), 0..4),
        prop::option::weighted(
            0.3,
            (
                prop_oneof![iri(), var()],
                prop::collection::vec(triple, 0..3),
            ),
        ),
    )
        .prop_map(|(ts, graph)| {
            let mut out = ts.join(" . ");
            if let Some((g, ts)) = graph {
                out.push_str(&format!(" GRAPH {g} {{ {} }}", ts.join(" . ")));
            }
            format!("{{ {out} }}")
        })
        .boxed()
}

fn graph_ref() -> BoxedStrategy<String> {
    prop_oneof![
        3 => iri().prop_map(|i| format!("GRAPH {i}")),
        1 => Just("DEFAULT".to_owned()),
        1 => Just("NAMED".to_owned()),
        1 => Just("ALL".to_owned()),
    ]
    .boxed()
}

fn update_operation(depth: u32) -> BoxedStrategy<String> {
    let (_, g) = expr_and_group(depth);
    let silent = || prop::sample::select(&["", "SILENT "][..]);
    let source = || {
        prop_oneof![
            iri().prop_map(|i| format!("GRAPH {i}")),
            Just("DEFAULT".to_owned()),
            iri()
        ]
    };
    prop_oneof![
        4 => quad_data().prop_map(|d| format!("INSERT DATA {d}")),
        2 => quad_data().prop_map(|d| format!("DELETE DATA {d}")),
        2 => template().prop_map(|t| format!("DELETE WHERE {t}")),
        4 => (prop::option::weighted(0.2, iri()), prop::option::of(template()), prop::option::of(template()), prop::option::weighted(0.2, (any::<bool>(), iri())), g)
            .prop_map(|(with, del, ins, using, g)| {
                let mut out = String::new();
                if let Some(w) = with {
                    out.push_str(&format!("WITH {w} "));
                }
                if let Some(d) = &del {
                    out.push_str(&format!("DELETE {d} "));
                }
                if let Some(i) = &ins {
                    out.push_str(&format!("INSERT {i} "));
                }
                if del.is_none() && ins.is_none() {
                    out.push_str("INSERT { ?s ?p ?o } ");
                }
                if let Some((named, u)) = using {
                    out.push_str(&format!("USING {}{u} ", if named { "NAMED " } else { "" }));
                }
                out.push_str(&format!("WHERE {g}"));
                out
            }),
        1 => (silent(), iri(), prop::option::of(iri())).prop_map(|(s, i, into)| {
            format!("LOAD {s}{i}{}", into.map(|g| format!(" INTO GRAPH {g}")).unwrap_or_default())
        }),
        1 => (prop::sample::select(&["CLEAR", "DROP"][..]), silent(), graph_ref()).prop_map(|(op, s, g)| format!("{op} {s}{g}")),
        1 => (silent(), iri()).prop_map(|(s, i)| format!("CREATE {s}GRAPH {i}")),
        1 => (prop::sample::select(&["ADD", "MOVE", "COPY"][..]), silent(), source(), source())
            .prop_map(|(op, s, a, b)| format!("{op} {s}{a} TO {b}")),
    ]
    .boxed()
}

/// A SPARQL update built from the grammar, nesting at most `depth` levels.
pub fn grammar_update(depth: u32) -> BoxedStrategy<String> {
    (
        prop::bool::weighted(0.95),
        prop::collection::vec(update_operation(depth), 0..4),
        prop::bool::weighted(0.1),
    )
        .prop_map(|(prologue, ops, trailing)| {
            let mut text = ops.join(" ;\n");
            if trailing {
                text.push_str(" ;");
            }
            if prologue {
                format!("{PROLOGUE}{text}")
            } else {
                text
            }
        })
        .boxed()
}

pub fn deep_update(max_depth: usize) -> BoxedStrategy<String> {
    deep_query(max_depth)
        .prop_map(|q| {
            // The WHERE clause of the deep query, as the WHERE of an update.
            let body = q
                .split_once("WHERE")
                .map(|(_, w)| w.to_owned())
                .unwrap_or_default();
            format!("{PROLOGUE}INSERT {{ ?s ?p ?o }} WHERE {body}")
        })
        .boxed()
}

/// SPARQL update text.
pub fn sparql_update(max_depth: usize) -> BoxedStrategy<String> {
    prop_oneof![
        5 => grammar_update(2),
        4 => mutated(|c| &c.updates),
        1 => deep_update(max_depth),
        1 => prop::collection::vec(spice(), 0..30).prop_map(|t| t.join(" ")),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------
// Turtle and TriG
// ---------------------------------------------------------------------------------------

/// Which syntax a document is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RdfSyntax {
    Turtle,
    TriG,
    NTriples,
    NQuads,
}

fn turtle_object(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![4 => iri(), 4 => literal(), 1 => blank_node()];
    leaf.prop_recursive(depth, 12, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(|v| format!("( {} )", v.join(" "))),
            (iri(), inner.clone()).prop_map(|(p, o)| format!("[ {p} {o} ]")),
            (iri(), iri(), inner.clone()).prop_map(|(s, p, o)| format!("<<( {s} {p} {o} )>>")),
            (iri(), iri(), inner.clone(), prop::option::of(iri())).prop_map(|(s, p, o, r)| {
                format!(
                    "<< {s} {p} {o}{} >>",
                    r.map(|r| format!(" ~ {r}")).unwrap_or_default()
                )
            }),
        ]
    })
    .boxed()
}

fn turtle_statement() -> BoxedStrategy<String> {
    let subject = prop_oneof![5 => iri(), 2 => blank_node(), 1 => turtle_object(2)];
    let predicate_objects =
        prop::collection::vec((iri(), prop::collection::vec(turtle_object(2), 1..3)), 1..3)
            .prop_map(|pos| {
                pos.into_iter()
                    .map(|(p, os)| format!("{p} {}", os.join(" , ")))
                    .collect::<Vec<_>>()
                    .join(" ;\n  ")
            });
    prop_oneof![
        10 => (subject, predicate_objects.clone(), prop::option::weighted(0.1, (iri(), literal())))
            .prop_map(|(s, po, ann)| {
                let ann = ann.map(|(p, o)| format!(" {{| {p} {o} |}}")).unwrap_or_default();
                format!("{s} {po}{ann} .")
            }),
        1 => predicate_objects.prop_map(|po| format!("[ {po} ] .")),
        1 => (word(), iri()).prop_map(|(w, i)| format!("@prefix {w}: {i} .")),
        1 => (word(), iri()).prop_map(|(w, i)| format!("PREFIX {w}: {i}")),
        1 => iri().prop_map(|i| format!("@base {i} .")),
        1 => Just("VERSION \"1.2\"".to_owned()),
    ]
    .boxed()
}

const TURTLE_PROLOGUE: &str = "@prefix ex: <http://example/> .\n@prefix : <http://example/> .\n@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n";

fn grammar_turtle() -> BoxedStrategy<String> {
    prop::collection::vec(turtle_statement(), 0..6)
        .prop_map(|s| format!("{TURTLE_PROLOGUE}{}\n", s.join("\n")))
        .boxed()
}

fn grammar_trig() -> BoxedStrategy<String> {
    let block = (
        prop::option::of(prop_oneof![iri(), blank_node()]),
        any::<bool>(),
        prop::collection::vec(turtle_statement(), 0..3),
    )
        .prop_map(|(name, keyword, ss)| match name {
            None => format!("{{ {} }}", ss.join("\n")),
            Some(n) => format!(
                "{}{n} {{ {} }}",
                if keyword { "GRAPH " } else { "" },
                ss.join("\n")
            ),
        });
    prop::collection::vec(prop_oneof![2 => turtle_statement(), 1 => block], 0..5)
        .prop_map(|s| format!("{TURTLE_PROLOGUE}{}\n", s.join("\n")))
        .boxed()
}

pub fn deep_turtle(max_depth: usize) -> BoxedStrategy<String> {
    (0usize..3, 1..=max_depth.max(1))
        .prop_map(|(kind, n)| {
            let body = match kind {
                0 => format!("ex:s ex:p {}1{} .", "( ".repeat(n), " )".repeat(n)),
                1 => format!("ex:s ex:p {}1{} .", "[ ex:q ".repeat(n), " ]".repeat(n)),
                _ => format!(
                    "ex:s ex:p {}ex:o{} .",
                    "<<( ex:s ex:p ".repeat(n),
                    " )>>".repeat(n)
                ),
            };
            format!("{TURTLE_PROLOGUE}{body}\n")
        })
        .boxed()
}

/// An RDF document and its syntax.
pub fn rdf_document(max_depth: usize) -> BoxedStrategy<(RdfSyntax, String)> {
    prop_oneof![
        4 => grammar_turtle().prop_map(|d| (RdfSyntax::Turtle, d)),
        3 => grammar_trig().prop_map(|d| (RdfSyntax::TriG, d)),
        4 => (mutated(|c| &c.turtle), any::<bool>()).prop_map(|(d, trig)| (if trig { RdfSyntax::TriG } else { RdfSyntax::Turtle }, d)),
        1 => (mutated(|c| &c.ntriples), any::<bool>()).prop_map(|(d, q)| (if q { RdfSyntax::NQuads } else { RdfSyntax::NTriples }, d)),
        1 => deep_turtle(max_depth).prop_map(|d| (RdfSyntax::Turtle, d)),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------
// JSON, MCP tool calls
// ---------------------------------------------------------------------------------------

pub fn any_json(depth: u32) -> BoxedStrategy<Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)),
        string_body().prop_map(Value::from),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(depth, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// The reviewed MCP tool contract (names and input schemas).
pub fn contract() -> &'static Vec<Value> {
    static CONTRACT: OnceLock<Vec<Value>> = OnceLock::new();
    CONTRACT.get_or_init(|| {
        serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/api/mcp/contract.json"
        )))
        .expect("contract.json parses")
    })
}

/// A string for a property, by its name: queries for `sparql`, documents for `content`,
/// graph names for `graph`, and so on.
fn string_for(name: &str) -> BoxedStrategy<Value> {
    let plain = prop_oneof![12 => word(), 8 => string_body(), 1 => Just("x".repeat(5000))];
    let s: BoxedStrategy<String> = match name {
        "sparql" => prop_oneof![3 => grammar_query(2), 3 => grammar_update(1), 2 => mutated(|c| &c.queries), 2 => mutated(|c| &c.updates)].boxed(),
        "content" | "shapes" => prop_oneof![grammar_turtle(), grammar_trig(), mutated(|c| &c.turtle)].boxed(),
        "graph" | "into_graph" => prop_oneof![
            6 => Just("main".to_owned()),
            1 => Just("other".to_owned()),
            1 => Just("../main".to_owned()),
            1 => Just("".to_owned()),
            1 => word(),
            1 => string_body(),
        ]
        .boxed(),
        "cursor" => cursor_text().boxed(),
        "iri" | "class" | "property" | "base_iri" => prop_oneof![
            3 => word().prop_map(|w| format!("http://example/{w}")),
            1 => Just("http://strata.local/graphs/main/class/ticket".to_owned()),
            1 => string_body(),
        ]
        .boxed(),
        "at" | "observed_at" | "start" | "end" | "as_of" | "moment" | "date" => prop_oneof![
            Just("2026-06-01".to_owned()),
            Just("2026-06-01T12:00:00Z".to_owned()),
            Just("9999-99-99".to_owned()),
            Just("-271821-04-20T00:00:00Z".to_owned()),
            Just("+275760-09-13T00:00:00Z".to_owned()),
            string_body(),
        ]
        .boxed(),
        "name" | "type" | "relation" | "field" | "from_type" | "to_type" | "target" | "source" | "key" | "by" => prop_oneof![
            3 => prop::sample::select(&["Ticket", "Bug", "Release", "REPORTED_AS", "FIXED_IN", "severity", "status", "t-1", "name", "label"][..]).prop_map(str::to_owned),
            2 => plain.clone(),
        ]
        .boxed(),
        _ => plain.boxed(),
    };
    s.prop_map(Value::from).boxed()
}

fn resolve<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => defs
            .get(r.rsplit('/').next().unwrap_or_default())
            .unwrap_or(schema),
        None => schema,
    }
}

/// Values that follow `schema` most of the time, and break it now and then.
fn from_schema(
    schema: &Value,
    defs: &Map<String, Value>,
    name: &str,
    depth: u32,
) -> BoxedStrategy<Value> {
    let typed = typed_from_schema(schema, defs, name, depth);
    prop_oneof![60 => typed, 1 => any_json(1)].boxed()
}

fn typed_from_schema(
    schema: &Value,
    defs: &Map<String, Value>,
    name: &str,
    depth: u32,
) -> BoxedStrategy<Value> {
    let schema = resolve(schema, defs);
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.is_empty()
    {
        let values = values.clone();
        return prop::sample::select(values).boxed();
    }
    if let Some(value) = schema.get("const") {
        return Just(value.clone()).boxed();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array)
            && !options.is_empty()
        {
            // `null` (an `Option` left out) now and then; the other variants evenly.
            let options: Vec<(u32, BoxedStrategy<Value>)> = options
                .iter()
                .map(|o| {
                    let weight = if o.get("type") == Some(&Value::from("null")) {
                        1
                    } else {
                        8
                    };
                    (weight, typed_from_schema(o, defs, name, depth))
                })
                .collect();
            return Union::new_weighted(options).boxed();
        }
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array)
        && let Some(first) = all.first()
    {
        return typed_from_schema(first, defs, name, depth);
    }
    let types: Vec<String> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        // `["string", "null"]`: mostly the value.
        Some(Value::Array(ts)) => {
            let mut types: Vec<String> = ts
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect();
            if types.len() > 1 {
                types.retain(|t| t != "null");
            }
            types
        }
        _ if schema.get("properties").is_some() => vec!["object".into()],
        _ => vec![],
    };
    if types.is_empty() {
        return any_json(1);
    }
    let options: Vec<BoxedStrategy<Value>> = types
        .iter()
        .map(|t| match t.as_str() {
            "string" => string_for(name),
            "integer" => prop_oneof![
                30 => (0i64..12).prop_map(Value::from),
                1 => Just(Value::from(-1)),
                1 => Just(Value::from(u64::MAX)),
                1 => Just(Value::from(i64::MIN)),
                1 => Just(Value::from(1e20)),
                1 => any::<i64>().prop_map(Value::from),
            ]
            .boxed(),
            "number" => prop_oneof![
                12 => (0.0f64..1.0).prop_map(Value::from),
                1 => Just(Value::from(-1.5)),
                1 => Just(Value::from(1e300)),
                1 => any::<i32>().prop_map(Value::from),
            ]
            .boxed(),
            "boolean" => any::<bool>().prop_map(Value::from).boxed(),
            "null" => Just(Value::Null).boxed(),
            "array" => {
                if depth == 0 {
                    Just(Value::Array(vec![])).boxed()
                } else {
                    let item = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                    prop::collection::vec(from_schema(&item, defs, name, depth - 1), 0..3)
                        .prop_map(Value::Array)
                        .boxed()
                }
            }
            "object" => object_from_schema(schema, defs, depth),
            _ => any_json(1),
        })
        .collect();
    Union::new(options).boxed()
}

/// Optional arguments that most actions need: present more often than the others.
const KEY_FIELDS: &[&str] = &[
    "sparql",
    "content",
    "format",
    "shapes",
    "name",
    "class",
    "from",
    "text",
    "source",
    "target",
    "types",
    "relations",
    "fields",
    "changes",
    "triplets",
    "entity_properties",
    "iri",
    "commit_seq",
    "structured",
    "traverse",
    "at",
    "by",
    "property",
];

fn object_from_schema(
    schema: &Value,
    defs: &Map<String, Value>,
    depth: u32,
) -> BoxedStrategy<Value> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        // A map (`additionalProperties`): a few keys, values of that schema.
        let values = schema
            .get("additionalProperties")
            .filter(|v| v.is_object())
            .cloned()
            .unwrap_or(Value::Bool(true));
        if depth == 0 {
            return Just(Value::Object(Map::new())).boxed();
        }
        let value = if values.is_object() {
            from_schema(&values, defs, "", depth - 1)
        } else {
            any_json(1)
        };
        return prop::collection::vec((string_for("name"), value), 0..3)
            .prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.as_str().unwrap_or_default().to_owned(), v))
                        .collect(),
                )
            })
            .boxed();
    };
    if depth == 0 {
        return Just(Value::Object(Map::new())).boxed();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .iter()
        .map(|(key, sub)| {
            let p = if required.contains(&key.as_str()) {
                0.97
            } else if KEY_FIELDS.contains(&key.as_str()) {
                0.8
            } else {
                0.25
            };
            let key = key.clone();
            prop::option::weighted(p, from_schema(sub, defs, &key, depth - 1))
                .prop_map(move |v| v.map(|v| (key.clone(), v)))
                .boxed()
        })
        .collect();
    (fields, prop::option::weighted(0.02, (word(), any_json(1))))
        .prop_map(|(fields, extra)| {
            let mut map: Map<String, Value> = fields.into_iter().flatten().collect();
            if let Some((k, v)) = extra {
                map.insert(k, v);
            }
            Value::Object(map)
        })
        .boxed()
}

/// An MCP `tools/call`: a tool name and its `arguments` (usually an object following the
/// tool's input schema, sometimes anything at all).
pub fn mcp_call() -> BoxedStrategy<(String, Value)> {
    let tools: Vec<BoxedStrategy<(String, Value)>> = contract()
        .iter()
        .map(|tool| {
            let name = tool["name"].as_str().expect("tool name").to_owned();
            let schema = tool["inputSchema"].clone();
            let defs = schema
                .get("$defs")
                .or_else(|| schema.get("definitions"))
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let args = prop_oneof![
                12 => object_from_schema(&schema, &defs, 5),
                1 => any_json(3),
            ];
            args.prop_map(move |a| (name.clone(), a)).boxed()
        })
        .collect();
    prop_oneof![
        12 => Union::new(tools),
        8 => mcp_typical_call(),
        1 => (word(), any_json(2)).prop_map(|(n, a)| (n, a)),
    ]
    .boxed()
}

/// The calls agents make most, with generated queries, updates and documents, so that
/// many calls get past argument checks into the engine.
fn mcp_typical_call() -> BoxedStrategy<(String, Value)> {
    let detail = || prop::sample::select(&["compact", "standard", "full"][..]);
    let query = (
        prop_oneof![3 => grammar_query(2), 2 => mutated(|c| &c.queries)],
        detail(),
        prop::option::of(0u64..40),
        prop::option::weighted(0.2, 0u64..6),
        prop::option::weighted(0.1, prop::sample::select(&["none", "subclass", "rdfs"][..])),
    )
        .prop_map(|(sparql, detail, rows, as_of, entailment)| {
            let mut args =
                serde_json::json!({"mode": "sparql", "sparql": sparql, "detail": detail});
            if let Some(rows) = rows {
                args["row_limit"] = rows.into();
            }
            if let Some(seq) = as_of {
                args["as_of_commit_seq"] = seq.into();
            }
            if let Some(e) = entailment {
                args["entailment"] = e.into();
            }
            ("query".to_owned(), args)
        });
    let update = (
        prop_oneof![3 => grammar_update(1), 2 => mutated(|c| &c.updates)],
        prop::option::weighted(0.2, word()),
    )
        .prop_map(|(sparql, key)| {
            let mut args = serde_json::json!({"action": "update", "sparql": sparql});
            if let Some(key) = key {
                args["idempotency_key"] = key.into();
            }
            ("rdf".to_owned(), args)
        });
    let import = rdf_document(8).prop_map(|(syntax, content)| {
        let format = match syntax {
            RdfSyntax::Turtle => "turtle",
            RdfSyntax::TriG => "trig",
            RdfSyntax::NTriples => "ntriples",
            RdfSyntax::NQuads => "nquads",
        };
        (
            "rdf".to_owned(),
            serde_json::json!({"action": "import", "content": content, "format": format}),
        )
    });
    let inspect = (
        prop::sample::select(
            &[
                "guide",
                "graphs",
                "publication",
                "log",
                "commit",
                "entity",
                "ontology",
                "history",
                "why",
                "schema",
                "conformance",
            ][..],
        ),
        prop::option::of(0u64..8),
        prop::option::of(prop_oneof![
            Just("http://example/s".to_owned()),
            Just("http://example/o".to_owned()),
            word().prop_map(|w| format!("http://example/{w}"))
        ]),
        detail(),
    )
        .prop_map(|(action, seq, iri, detail)| {
            let mut args = serde_json::json!({"action": action, "detail": detail});
            if let Some(seq) = seq {
                args["commit_seq"] = seq.into();
            }
            if let Some(iri) = iri {
                args["iri"] = iri.into();
                args["relation"] = "REPORTED_AS".into();
                args["target"] = serde_json::json!({"type": "Bug", "name": "b1"});
            }
            ("inspect".to_owned(), args)
        });
    let record = || {
        (
            prop::sample::select(&["Ticket", "Bug", "Release", "Nope"][..]),
            prop_oneof![
                Just("t-1".to_owned()),
                Just("b1".to_owned()),
                word(),
                string_body()
            ],
        )
            .prop_map(|(t, n)| serde_json::json!({"type": t, "name": n}))
    };
    let commit = (
        prop::collection::vec(
            (record(), prop::sample::select(&["REPORTED_AS", "FIXED_IN", "nope"][..]), record(), prop::option::of(-0.5f64..1.5), prop::option::of(prop::sample::select(&["2026-06-01", "2026-06-01T12:00:00Z", "soon", "+99999-01-01"][..])))
                .prop_map(|(s, r, t, c, start)| {
                    let mut triplet = serde_json::json!({"source": s, "relation": r, "target": t});
                    if let Some(c) = c {
                        triplet["confidence"] = c.into();
                    }
                    if let Some(start) = start {
                        triplet["valid_time"] = serde_json::json!({"start": start});
                    }
                    triplet
                }),
            0..3,
        ),
        prop::collection::vec(
            (record(), prop_oneof![Just(Value::from(3)), Just(Value::from("2")), Just(Value::from("high")), Just(Value::from("open")), any_json(1)])
                .prop_map(|(e, v)| serde_json::json!({"entity": e, "properties": {"severity": v.clone(), "status": v}})),
            0..2,
        ),
        prop::collection::vec((record(), prop::sample::select(&["REPORTED_AS", "FIXED_IN"][..]), record()).prop_map(|(s, r, t)| serde_json::json!({"source": s, "relation": r, "target": t})), 0..2),
        any::<bool>(),
    )
        .prop_map(|(triplets, properties, retract, dry_run)| {
            (
                "commit".to_owned(),
                serde_json::json!({"triplets": triplets, "entity_properties": properties, "retract_edges": retract, "dry_run": dry_run}),
            )
        });
    let shapes = (mutated(|c| &c.turtle), prop::sample::select(&["off", "warn", "reject"][..]), any::<bool>())
        .prop_map(|(shapes, mode, dry_run)| {
            ("configure".to_owned(), serde_json::json!({"action": "publish_schema", "shapes": shapes, "desired_mode": mode, "dry_run": dry_run}))
        });
    prop_oneof![4 => query, 3 => update, 2 => import, 2 => inspect, 2 => commit, 1 => shapes]
        .boxed()
}

// ---------------------------------------------------------------------------------------
// Cursors
// ---------------------------------------------------------------------------------------

fn cursor_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[0-9a-f]{0,80}\\.[0-9a-f]{0,40}",
        1 => "[0-9a-fA-F.]{0,120}",
        1 => string_body(),
        1 => Just(".".to_owned()),
        1 => Just("7b7d.".to_owned()),
        1 => Just(format!("{}.{}", "0".repeat(64), "0".repeat(32))),
        1 => Just("é".repeat(3)),
        1 => Just("ab".repeat(40_000)),
    ]
}

/// What a cursor case starts from.
#[derive(Clone, Debug)]
pub enum CursorInput {
    /// Any string.
    Text(String),
    /// A cursor sealed by the server for `(kind, graph, args, seq, position)`, then edited.
    Sealed {
        kind: String,
        graph: String,
        args: String,
        seq: u64,
        position: u64,
        edits: Vec<Mutation>,
        /// Open it for a different call (`0`: the same one; 1–3: another kind, graph, args).
        open_as: u8,
    },
    /// A body the server never sealed, hex-encoded with a made-up tag.
    Forged { body: String, tag: String },
}

pub fn cursor_input() -> BoxedStrategy<CursorInput> {
    let hex_edit = prop_oneof![
        3 => (any::<Index>(), prop::sample::select(&["0", "1", "a", "f", "F", ".", "g", "", "00"][..]))
            .prop_map(|(i, s)| Mutation::Replace(i, s.to_owned())),
        1 => mutation(),
    ];
    prop_oneof![
        2 => cursor_text().prop_map(CursorInput::Text),
        4 => (
            prop::sample::select(&["query.sparql", "inspect.log", "inspect.commit", "query.structured"][..]),
            prop_oneof![Just("main".to_owned()), word()],
            "[0-9a-f]{0,24}",
            any::<u64>(),
            any::<u64>(),
            prop::collection::vec(hex_edit, 0..3),
            prop_oneof![3 => Just(0u8), 1 => 1u8..4],
        )
            .prop_map(|(kind, graph, args, seq, position, edits, open_as)| CursorInput::Sealed {
                kind: kind.to_owned(),
                graph,
                args,
                seq,
                position,
                edits,
                open_as,
            }),
        1 => (any_json(2), "[0-9a-f]{32}").prop_map(|(body, tag)| CursorInput::Forged {
            body: body.to_string(),
            tag,
        }),
    ]
    .boxed()
}

// ---------------------------------------------------------------------------------------
// HTTP requests
// ---------------------------------------------------------------------------------------

/// One HTTP request to the router.
#[derive(Clone, Debug)]
pub struct HttpInput {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

fn graph_segment() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => Just("main".to_owned()),
        1 => Just("other".to_owned()),
        1 => Just("%2E%2E".to_owned()),
        1 => Just("..".to_owned()),
        1 => Just("%00".to_owned()),
        1 => Just("%FF%FE".to_owned()),
        1 => string_body().prop_map(|s| strata::model::percent_encode(&s)),
    ]
}

fn query_param() -> BoxedStrategy<String> {
    let value = prop_oneof![
        2 => grammar_query(1),
        1 => grammar_update(1),
        2 => prop::sample::select(&["1", "0", "-1", "99999999999999999999", "true", "", "2026-01-01T00:00:00Z", "not-a-date", "http://example/g", "main"][..]).prop_map(str::to_owned),
        1 => string_body(),
    ];
    let name = prop_oneof![
        8 => prop::sample::select(&[
            "query", "update", "default-graph-uri", "named-graph-uri", "using-graph-uri",
            "using-named-graph-uri", "graph", "default", "as_of", "as_of_time", "limit",
            "offset", "from", "to", "mode", "dry_run", "format",
        ][..]).prop_map(str::to_owned),
        1 => word(),
    ];
    (name, value, prop::bool::weighted(0.15))
        .prop_map(|(n, v, raw)| {
            let encoded = strata::model::percent_encode(&v);
            if raw {
                // Broken percent-encoding now and then: a `%` left as it is.
                format!("{n}={}", encoded.replace("%25", "%").replace("%20", "+"))
            } else {
                format!("{n}={encoded}")
            }
        })
        .boxed()
}

const HEADER_NAMES: &[&str] = &[
    "accept",
    "content-type",
    "authorization",
    "host",
    "origin",
    "idempotency-key",
    "strata-author",
    "strata-message",
    "strata-observed-at",
    "accept-encoding",
    "content-length",
    "content-encoding",
    "transfer-encoding",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "x-forwarded-for",
    "range",
    "if-none-match",
];

fn header_value(name: &'static str) -> BoxedStrategy<Vec<u8>> {
    let meaningful: &'static [&'static str] = match name {
        "accept" => &[
            "application/sparql-results+json",
            "application/sparql-results+xml",
            "text/csv",
            "text/tab-separated-values",
            "text/turtle",
            "application/n-triples",
            "application/rdf+xml",
            "application/ld+json",
            "*/*",
            "text/*;q=0.5, */*;q=0.1",
            "application/json;q=abc",
            "text/event-stream",
            ";;;",
            "*/*;q=1e999",
        ],
        "content-type" => &[
            "application/sparql-query",
            "application/sparql-update",
            "application/x-www-form-urlencoded",
            "text/turtle",
            "application/n-triples",
            "application/trig",
            "application/n-quads",
            "application/rdf+xml",
            "application/ld+json",
            "application/json",
            "multipart/form-data; boundary=x",
            "text/turtle; charset=utf-16",
            "text/plain",
            "application/sparql-query; charset=latin1",
        ],
        "authorization" => &[
            "Bearer ",
            "Bearer abc",
            "Basic Zm9vOmJhcg==",
            "bearer x y",
            "Bearer \u{e9}",
        ],
        "host" => &[
            "127.0.0.1:7878",
            "localhost",
            "[::1]:7878",
            "evil.example",
            "127.0.0.1:7878:1",
            "",
        ],
        "origin" => &[
            "http://127.0.0.1:7878",
            "null",
            "http://evil.example",
            "http://localhost:1",
        ],
        "strata-observed-at" => &[
            "2026-01-01T00:00:00Z",
            "yesterday",
            "+999999-01-01T00:00:00Z",
            "",
        ],
        "content-length" => &["0", "5", "18446744073709551616", "-1", "abc"],
        "content-encoding" | "accept-encoding" => {
            &["gzip", "deflate", "br", "identity", "zstd, gzip;q=0"]
        }
        "transfer-encoding" => &["chunked", "gzip, chunked"],
        "mcp-protocol-version" => &["2025-06-18", "2026-07-28", "1999-01-01", ""],
        _ => &["", "x", "main"],
    };
    let random_bytes = prop::collection::vec(
        prop_oneof![8 => 0x20u8..0x7f, 1 => Just(b'\t'), 2 => 0x80u8..=0xff, 1 => any::<u8>()],
        0..40,
    );
    prop_oneof![
        4 => prop::sample::select(meaningful).prop_map(|s| s.as_bytes().to_vec()),
        2 => random_bytes,
        1 => Just(vec![b'a'; 9000]),
    ]
    .boxed()
}

fn header() -> BoxedStrategy<(String, Vec<u8>)> {
    let known: Vec<BoxedStrategy<(String, Vec<u8>)>> = HEADER_NAMES
        .iter()
        .map(|&name| {
            header_value(name)
                .prop_map(move |v| (name.to_owned(), v))
                .boxed()
        })
        .collect();
    prop_oneof![
        10 => Union::new(known),
        1 => ("[a-zA-Z][a-zA-Z0-9-]{0,12}", header_value("x")).prop_map(|(n, v)| (n, v)),
    ]
    .boxed()
}

fn body(max_depth: usize) -> BoxedStrategy<Vec<u8>> {
    prop_oneof![
        4 => Just(Vec::new()),
        3 => sparql_query(max_depth).prop_map(String::into_bytes),
        3 => sparql_update(max_depth).prop_map(String::into_bytes),
        3 => rdf_document(max_depth).prop_map(|(_, d)| d.into_bytes()),
        1 => query_param().prop_map(String::into_bytes),
        1 => any_json(3).prop_map(|v| v.to_string().into_bytes()),
        1 => mcp_call().prop_map(|(name, args)| {
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
                .to_string()
                .into_bytes()
        }),
        1 => prop::collection::vec(any::<u8>(), 0..200),
        1 => Just(vec![0xFE, 0xFF, 0, b'S']),
    ]
    .boxed()
}

/// An HTTP request: often one a client of that route would send (the right method,
/// parameters, Content-Type and body, then extra headers), otherwise any mix.
pub fn http_input(max_depth: usize) -> BoxedStrategy<HttpInput> {
    prop_oneof![3 => coherent_http(max_depth), 2 => random_http(max_depth)].boxed()
}

fn coherent_http(max_depth: usize) -> BoxedStrategy<HttpInput> {
    let g = || prop_oneof![8 => Just("main".to_owned()), 1 => Just("other".to_owned()), 1 => graph_segment()];
    let accept = || {
        prop::sample::select(
            &[
                "application/sparql-results+json",
                "application/sparql-results+xml",
                "text/csv",
                "text/tab-separated-values",
                "text/turtle",
                "application/n-triples",
                "application/rdf+xml",
                "application/ld+json",
                "*/*",
                "application/n-quads",
                "text/html",
            ][..],
        )
    };
    let graph_param = || {
        prop_oneof![
            4 => Just("default".to_owned()),
            3 => Just("graph=http%3A%2F%2Fexample%2Fg".to_owned()),
            2 => Just("graph=http%3A%2F%2Fexample%2Fnew".to_owned()),
            1 => Just("graph=not%20an%20iri".to_owned()),
            1 => Just(String::new()),
        ]
    };
    let rdf_media = || {
        prop::sample::select(
            &[
                "text/turtle",
                "application/trig",
                "application/n-triples",
                "application/n-quads",
                "application/rdf+xml",
                "application/ld+json",
            ][..],
        )
    };
    let form = |name: &'static str, text: String| {
        format!("{name}={}", strata::model::percent_encode(&text))
    };
    let request = prop_oneof![
        3 => (g(), sparql_query(max_depth), accept()).prop_map(|(g, q, a)| ("GET", format!("/graphs/{g}/sparql?query={}", strata::model::percent_encode(&q)), Some(a), None, Vec::new())),
        2 => (g(), sparql_query(max_depth), accept()).prop_map(|(g, q, a)| ("POST", format!("/graphs/{g}/sparql"), Some(a), Some("application/sparql-query"), q.into_bytes())),
        1 => (g(), sparql_query(max_depth), accept()).prop_map(move |(g, q, a)| ("POST", format!("/graphs/{g}/sparql"), Some(a), Some("application/x-www-form-urlencoded"), form("query", q).into_bytes())),
        3 => (g(), sparql_update(max_depth)).prop_map(|(g, u)| ("POST", format!("/graphs/{g}/update"), None, Some("application/sparql-update"), u.into_bytes())),
        1 => (g(), sparql_update(max_depth)).prop_map(move |(g, u)| ("POST", format!("/graphs/{g}/update"), None, Some("application/x-www-form-urlencoded"), form("update", u).into_bytes())),
        3 => (g(), prop::sample::select(&["PUT", "POST"][..]), graph_param(), rdf_media(), prop::bool::weighted(0.8), rdf_document(max_depth))
            .prop_map(|(g, m, p, ct, matching, (syntax, d))| {
                let ct = if matching {
                    match syntax {
                        RdfSyntax::Turtle => "text/turtle",
                        RdfSyntax::TriG => "application/trig",
                        RdfSyntax::NTriples => "application/n-triples",
                        RdfSyntax::NQuads => "application/n-quads",
                    }
                } else {
                    ct
                };
                (m, format!("/graphs/{g}/store?{p}"), None, Some(ct), d.into_bytes())
            }),
        1 => (g(), sparql_update(max_depth)).prop_map(|(g, u)| ("POST", format!("/graphs/{g}/update?using-graph-uri=http%3A%2F%2Fexample%2Fg"), None, Some("application/sparql-update"), u.into_bytes())),
        2 => (g(), prop::sample::select(&["GET", "DELETE", "HEAD"][..]), graph_param(), accept())
            .prop_map(|(g, m, p, a)| (m, format!("/graphs/{g}/store?{p}"), Some(a), None, Vec::new())),
        1 => (g(), 0u64..6, 0u64..6).prop_map(|(g, a, b)| ("GET", format!("/graphs/{g}/diff?from={a}&to={b}"), None, None, Vec::new())),
        1 => (g(), "[0-9]{0,2}|-1|x", "[0-9]{0,3}").prop_map(|(g, l, o)| ("GET", format!("/graphs/{g}/commits?limit={l}&offset={o}"), None, None, Vec::new())),
        1 => (g(), "[0-9]{1,2}|0|99999999999999999999").prop_map(|(g, n)| ("GET", format!("/graphs/{g}/commits/{n}"), None, None, Vec::new())),
        1 => (g(), prop::sample::select(&["off", "warn", "reject", "bogus"][..]), any::<bool>(), mutated(|c| &c.turtle))
            .prop_map(|(g, mode, dry, shapes)| ("PUT", format!("/graphs/{g}/shapes?mode={mode}&dry_run={dry}"), None, Some("text/turtle"), shapes.into_bytes())),
        1 => g().prop_map(|g| ("GET", format!("/graphs/{g}/conformance?limit=5"), None, None, Vec::new())),
        1 => any_json(2).prop_map(|v| ("POST", "/graphs".to_owned(), None, Some("application/json"), serde_json::json!({"name": v}).to_string().into_bytes())),
    ];
    (request, prop::collection::vec(header(), 0..3))
        .prop_map(|((method, path, accept, content_type, body), extra)| {
            let mut headers = Vec::new();
            if let Some(a) = accept {
                headers.push(("accept".to_owned(), a.as_bytes().to_vec()));
            }
            if let Some(c) = content_type {
                headers.push(("content-type".to_owned(), c.as_bytes().to_vec()));
            }
            headers.extend(extra);
            HttpInput {
                method: method.to_owned(),
                path,
                headers,
                body,
            }
        })
        .boxed()
}

fn random_http(max_depth: usize) -> BoxedStrategy<HttpInput> {
    let method = prop_oneof![
        6 => Just("GET".to_owned()),
        6 => Just("POST".to_owned()),
        2 => Just("PUT".to_owned()),
        2 => Just("DELETE".to_owned()),
        1 => Just("HEAD".to_owned()),
        1 => Just("OPTIONS".to_owned()),
        1 => Just("PATCH".to_owned()),
        1 => "[A-Z]{1,8}",
    ];
    let route = (
        graph_segment(),
        "[0-9]{0,3}|-1|99999999999999999999",
        string_body(),
    )
        .prop_flat_map(|(g, seq, tail)| {
            prop::sample::select(vec![
                "/sparql".to_owned(),
                "/update".to_owned(),
                "/store".to_owned(),
                format!("/store/{}", strata::model::percent_encode(&tail)),
                format!("/graphs/{g}/sparql"),
                format!("/graphs/{g}/update"),
                format!("/graphs/{g}/store"),
                format!(
                    "/graphs/{g}/store/person/{}.ttl",
                    strata::model::percent_encode(&tail)
                ),
                format!("/graphs/{g}/commits"),
                format!("/graphs/{g}/commits/{seq}"),
                format!("/graphs/{g}/diff"),
                format!("/graphs/{g}/shapes"),
                format!("/graphs/{g}/conformance"),
                "/graphs".to_owned(),
                format!("/graphs/{g}"),
                "/healthz".to_owned(),
                "/metrics".to_owned(),
                "/mcp".to_owned(),
                format!("/{}", strata::model::percent_encode(&tail)),
                "//sparql".to_owned(),
            ])
        });
    (
        method,
        route,
        prop::collection::vec(query_param(), 0..4),
        prop::collection::vec(header(), 0..6),
        body(max_depth),
    )
        .prop_map(|(method, route, params, headers, body)| HttpInput {
            method,
            path: if params.is_empty() {
                route
            } else {
                format!("{route}?{}", params.join("&"))
            },
            headers,
            body,
        })
        .boxed()
}
