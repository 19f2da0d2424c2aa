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

fn write_all(
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
            for solution in solutions {
                let solution = solution.map_err(evaluation_error)?;
                serializer.serialize(&solution)?;
                n_rows += 1;
            }
            serializer.finish()?;
            Ok(n_rows)
        }
        QueryResults::Graph(triples) => {
            let mut serializer = RdfSerializer::from_format(format.graph_format()).for_writer(out);
            let mut n_rows = 0;
            for triple in triples {
                let triple = triple.map_err(evaluation_error)?;
                serializer.serialize_triple(&triple)?;
                n_rows += 1;
            }
            serializer.finish()?;
            Ok(n_rows)
        }
    }
}
