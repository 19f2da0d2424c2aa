//! Writing query results in the standard SPARQL and RDF formats.

use std::io::Write;

use oxrdfio::{RdfFormat, RdfSerializer};
use sparesults::{QueryResultsFormat, QueryResultsSerializer};
use spareval::QueryResults;

use super::QueryError;
use super::query::evaluation_error;

/// An output format for query results. Solutions and booleans use the SPARQL results
/// formats; graphs (CONSTRUCT, DESCRIBE) use RDF formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultsFormat {
    Json,
    Xml,
    Csv,
    Tsv,
    NTriples,
    Turtle,
    RdfXml,
    JsonLd,
}

impl ResultsFormat {
    /// The format for a name such as `json` or `turtle`.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_lowercase().as_str() {
            "json" | "srj" => Self::Json,
            "xml" | "srx" => Self::Xml,
            "csv" => Self::Csv,
            "tsv" => Self::Tsv,
            "ntriples" | "nt" | "n-triples" => Self::NTriples,
            "turtle" | "ttl" => Self::Turtle,
            "rdfxml" | "rdf" | "rdf-xml" => Self::RdfXml,
            "jsonld" | "json-ld" => Self::JsonLd,
            _ => return None,
        })
    }

    fn solutions_format(self) -> QueryResultsFormat {
        match self {
            Self::Xml => QueryResultsFormat::Xml,
            Self::Csv => QueryResultsFormat::Csv,
            Self::Tsv => QueryResultsFormat::Tsv,
            _ => QueryResultsFormat::Json,
        }
    }

    fn graph_format(self) -> RdfFormat {
        match self {
            Self::Turtle => RdfFormat::Turtle,
            Self::RdfXml => RdfFormat::RdfXml,
            Self::JsonLd | Self::Json => RdfFormat::JsonLd {
                profile: oxrdfio::JsonLdProfileSet::empty(),
            },
            _ => RdfFormat::NTriples,
        }
    }
}

/// Streams results to `out` and returns the number of rows (solutions or triples; 1 for a
/// boolean). Results are never buffered whole.
///
/// A term the format cannot hold (an RDF 1.2 triple term in JSON-LD, a predicate RDF/XML
/// cannot name) is `Unsupported`, not a write failure: serializers refuse such input with
/// `InvalidInput` or `InvalidData`, while `out` itself fails with other kinds.
pub fn write_results(
    results: QueryResults<'static>,
    format: ResultsFormat,
    out: impl Write,
) -> Result<u64, QueryError> {
    write_all(results, format, out).map_err(|error| match error {
        QueryError::Io(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData
            ) =>
        {
            QueryError::Unsupported(format!(
                "these results cannot be written as {format:?}: {e}"
            ))
        }
        other => other,
    })
}

/// Writes carriage returns as `&#13;`. An XML parser reads a raw CR (alone or before a
/// LF) as a LF, so a literal holding one would come back changed; the serializers write
/// none of their own, so every CR in their output is a literal's.
pub struct EscapeCarriageReturns<W: Write>(pub W);

impl<W: Write> Write for EscapeCarriageReturns<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut parts = buf.split(|&b| b == b'\r');
        if let Some(first) = parts.next() {
            self.0.write_all(first)?;
        }
        for part in parts {
            self.0.write_all(b"&#13;")?;
            self.0.write_all(part)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn write_all(
    results: QueryResults<'static>,
    format: ResultsFormat,
    out: impl Write,
) -> Result<u64, QueryError> {
    if matches!(format, ResultsFormat::Xml | ResultsFormat::RdfXml) {
        return write_formatted(results, format, EscapeCarriageReturns(out));
    }
    write_formatted(results, format, out)
}

fn write_formatted(
    results: QueryResults<'static>,
    format: ResultsFormat,
    out: impl Write,
) -> Result<u64, QueryError> {
    match results {
        QueryResults::Boolean(value) => {
            QueryResultsSerializer::from_format(format.solutions_format())
                .serialize_boolean_to_writer(out, value)?;
            Ok(1)
        }
        QueryResults::Solutions(solutions) => {
            let mut serializer = QueryResultsSerializer::from_format(format.solutions_format())
                .serialize_solutions_to_writer(out, solutions.variables().to_vec())?;
            let mut n_rows = 0;
            let xml = format == ResultsFormat::Xml;
            for solution in solutions {
                let solution = solution.map_err(evaluation_error)?;
                if xml {
                    for (_, term) in solution.iter() {
                        if let oxrdf::Term::Literal(literal) = term {
                            check_xml_text(literal.value())?;
                        }
                    }
                }
                serializer.serialize(&solution)?;
                n_rows += 1;
            }
            serializer.finish()?;
            Ok(n_rows)
        }
        QueryResults::Graph(triples) => {
            let mut serializer = RdfSerializer::from_format(format.graph_format()).for_writer(out);
            let mut n_rows = 0;
            let rdf_xml = format.graph_format() == RdfFormat::RdfXml;
            for triple in triples {
                let triple = triple.map_err(evaluation_error)?;
                if rdf_xml {
                    check_rdf_xml_names(&triple)?;
                    if let oxrdf::Term::Literal(literal) = &triple.object {
                        check_xml_text(literal.value())?;
                    }
                }
                serializer.serialize_triple(&triple)?;
                n_rows += 1;
            }
            serializer.finish()?;
            Ok(n_rows)
        }
    }
}

/// Refuses a literal XML cannot hold: XML 1.0 has no way to write most control
/// characters (U+0000, U+0008, …), not even as character references, so a document
/// carrying one would not parse.
fn check_xml_text(value: &str) -> std::io::Result<()> {
    match value.chars().find(|&c| !is_xml_char(c)) {
        None => Ok(()),
        Some(c) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "XML cannot hold the character U+{:04X} of a literal; ask for JSON, TSV or N-Triples",
                u32::from(c)
            ),
        )),
    }
}

/// XML 1.0's `Char`.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}')
}

/// Refuses a triple RDF/XML cannot write: its predicate (and the class of a typed node,
/// `rdf:type`'s object) becomes an element name, an XML name at the IRI's end after a
/// namespace. The serializer writes an empty local name (`prefix:`, not well-formed XML)
/// for an IRI ending in something else, such as `http://example.org/1` or `…/p/`.
fn check_rdf_xml_names(triple: &oxrdf::Triple) -> std::io::Result<()> {
    let mut names = vec![triple.predicate.as_str()];
    if triple.predicate.as_ref() == oxrdf::vocab::rdf::TYPE
        && let oxrdf::Term::NamedNode(class) = &triple.object
    {
        names.push(class.as_str());
    }
    match names.into_iter().find(|iri| !ends_in_xml_name(iri)) {
        None => Ok(()),
        Some(iri) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "RDF/XML cannot name <{iri}> (its IRI does not end in an XML name); ask for Turtle, N-Triples or JSON-LD"
            ),
        )),
    }
}

/// Whether `iri` ends in an XML name (no `:`) the serializer can split off as a local name.
fn ends_in_xml_name(iri: &str) -> bool {
    let tail_start = iri
        .char_indices()
        .rev()
        .find(|&(_, c)| !is_xml_name_char(c) || c == ':')
        .map_or(0, |(i, c)| i + c.len_utf8());
    iri[tail_start..]
        .chars()
        .any(|c| is_xml_name_start_char(c) && c != ':')
}

fn is_xml_name_start_char(c: char) -> bool {
    matches!(c,
        ':' | 'A'..='Z' | '_' | 'a'..='z'
        | '\u{C0}'..='\u{D6}' | '\u{D8}'..='\u{F6}' | '\u{F8}'..='\u{2FF}'
        | '\u{370}'..='\u{37D}' | '\u{37F}'..='\u{1FFF}' | '\u{200C}'..='\u{200D}'
        | '\u{2070}'..='\u{218F}' | '\u{2C00}'..='\u{2FEF}' | '\u{3001}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FDCF}' | '\u{FDF0}'..='\u{FFFD}' | '\u{10000}'..='\u{EFFFF}')
}

fn is_xml_name_char(c: char) -> bool {
    is_xml_name_start_char(c)
        || matches!(c, '-' | '.' | '0'..='9' | '\u{B7}' | '\u{300}'..='\u{36F}' | '\u{203F}'..='\u{2040}')
}

#[cfg(test)]
mod tests {
    use super::{check_xml_text, ends_in_xml_name};

    #[test]
    fn xml_refuses_characters_it_cannot_hold() {
        assert!(check_xml_text("tab\there, é, \u{10000}").is_ok());
        for bad in ["a\u{0}b", "\u{8}", "\u{FFFF}", "\u{1F}"] {
            assert!(check_xml_text(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn rdf_xml_names_only_iris_ending_in_an_xml_name() {
        for iri in [
            "http://ex.org/p",
            "http://ex.org/p1",
            "http://ex.org/ns#a-b.c",
            "http://ex.org/1p",
            "urn:x:é",
        ] {
            assert!(ends_in_xml_name(iri), "{iri}");
        }
        for iri in [
            "http://ex.org/1",
            "http://ex.org/p/",
            "urn:x:123",
            "http://ex.org/ns#",
            "http://ex.org/-",
        ] {
            assert!(!ends_in_xml_name(iri), "{iri}");
        }
    }
}

#[cfg(test)]
mod carriage_return_tests {
    use super::*;
    use oxrdf::{Literal, NamedNode, Triple, Variable};
    use sparesults::{QueryResultsParser, ReaderQueryResultsParserOutput};

    /// A literal's CR survives XML: a parser reads a raw one as LF.
    #[test]
    fn xml_keeps_carriage_returns() {
        let value = "line one\r\nline two\rend";
        let variables = vec![Variable::new_unchecked("v")];
        let rows = vec![Ok(vec![Some(Literal::new_simple_literal(value).into())])];
        let solutions = QueryResults::Solutions(spareval::QuerySolutionIter::from_tuples(
            variables.clone().into(),
            rows,
        ));
        let mut xml = Vec::new();
        write_results(solutions, ResultsFormat::Xml, &mut xml).unwrap();
        assert!(!xml.contains(&b'\r'));
        let parsed = QueryResultsParser::from_format(QueryResultsFormat::Xml)
            .for_reader(xml.as_slice())
            .unwrap();
        let ReaderQueryResultsParserOutput::Solutions(mut solutions) = parsed else {
            panic!("solutions expected");
        };
        let row = solutions.next().unwrap().unwrap();
        assert_eq!(
            row.get("v"),
            Some(&Literal::new_simple_literal(value).into())
        );

        let triple = Triple::new(
            NamedNode::new_unchecked("http://e/s"),
            NamedNode::new_unchecked("http://e/p"),
            Literal::new_simple_literal(value),
        );
        let graph = QueryResults::Graph(spareval::QueryTripleIter::new(
            vec![Ok(triple.clone())].into_iter(),
        ));
        let mut rdf_xml = Vec::new();
        write_results(graph, ResultsFormat::RdfXml, &mut rdf_xml).unwrap();
        let back: Vec<Triple> = oxrdfxml::RdfXmlParser::new()
            .for_reader(rdf_xml.as_slice())
            .map(Result::unwrap)
            .collect();
        assert_eq!(back, vec![triple]);
    }
}
