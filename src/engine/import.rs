//! Importing RDF documents: parse as a stream, intern terms in batches, and commit the
//! new quads as one commit.
//!
//! Memory stays near 16 bytes per quad (its four term ids) plus the dictionary, whatever
//! the size of the document.

use std::io::Read;
use std::path::Path;

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};
use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use super::error::EngineError;
use super::graph::{Graph, intern_quad};
use super::write::{CommitOutcome, CommitRequest};
use crate::model::{BlankNode, NamedNode, NamedOrBlankNode, Quad, RdfGraphName, Term};

/// A document format Strata imports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImportFormat(pub RdfFormat);

impl ImportFormat {
    /// The format for a name (`turtle`, `ttl`, `trig`, `nt`, `ntriples`, `nq`, `nquads`,
    /// `rdfxml`, `rdf`, `owl`, `xml`, `jsonld`).
    pub fn from_name(name: &str) -> Option<Self> {
        Some(Self(match name.to_ascii_lowercase().as_str() {
            "turtle" | "ttl" => RdfFormat::Turtle,
            "trig" => RdfFormat::TriG,
            "nt" | "ntriples" | "n-triples" => RdfFormat::NTriples,
            "nq" | "nquads" | "n-quads" => RdfFormat::NQuads,
            "rdfxml" | "rdf-xml" | "rdf" | "owl" | "xml" => RdfFormat::RdfXml,
            "jsonld" | "json-ld" => RdfFormat::JsonLd {
                profile: oxrdfio::JsonLdProfileSet::empty(),
            },
            _ => return None,
        }))
    }

    /// The format of a file from its extension; a trailing `.gz` is looked through.
    /// Returns the format and whether the file is gzip-compressed.
    pub fn from_path(path: &Path) -> Option<(Self, bool)> {
        let name = path.file_name()?.to_str()?;
        let (name, gzip) = match name.strip_suffix(".gz") {
            Some(inner) => (inner, true),
            None => (name, false),
        };
        let extension = Path::new(name).extension()?.to_str()?;
        Some((Self::from_name(extension)?, gzip))
    }

    /// The format's usual name.
    pub fn name(&self) -> &'static str {
        self.0.name()
    }
}

/// How to read a document.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub format: ImportFormat,
    /// Base IRI for relative IRIs in the document.
    pub base_iri: Option<String>,
    /// The RDF graph that receives triples (default: the default graph). Quads of
    /// TriG/N-Quads documents keep their own graph.
    pub into_graph: Option<NamedNode>,
    /// Name shown in error messages (usually the file path).
    pub source_name: String,
}

/// Quads parsed from a document, with their terms already in the store's dictionary.
pub struct ParsedDocument {
    keys: Vec<crate::store::QuadKey>,
    digest: [u8; 32],
}

impl ParsedDocument {
    /// Number of quads parsed (before removing duplicates and present quads).
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when the document held no quads.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

impl Graph {
    /// Parses a document into interned quads, without committing. Blank nodes are
    /// renamed so two documents never share one by accident. `progress` receives the
    /// running count of parsed quads every 10,000 quads.
    pub fn parse_document(
        &self,
        reader: impl Read,
        options: &ImportOptions,
        mut progress: impl FnMut(u64),
    ) -> Result<ParsedDocument, EngineError> {
        let mut parser = RdfParser::from_format(options.format.0);
        if let Some(base) = &options.base_iri {
            parser = parser
                .with_base_iri(base)
                .map_err(|e| EngineError::InvalidArgument {
                    param: "base_iri".into(),
                    message: e.to_string(),
                })?;
        }
        let mut fresh: FxHashMap<BlankNode, BlankNode> = FxHashMap::default();
        let mut hasher = Sha256::new();
        let mut keys = Vec::new();
        for quad in parser.for_reader(reader) {
            let quad = quad.map_err(|e| syntax_error(e, options))?;
            hasher.update(quad.to_string().as_bytes());
            hasher.update(b"\n");
            let mut quad = rename_blank_nodes(quad, &mut fresh);
            if let (Some(graph), RdfGraphName::DefaultGraph) =
                (&options.into_graph, &quad.graph_name)
            {
                quad.graph_name = graph.clone().into();
            }
            keys.push(intern_quad(&self.store, &quad));
            if keys.len() % 10_000 == 0 {
                progress(keys.len() as u64);
            }
        }
        progress(keys.len() as u64);
        Ok(ParsedDocument {
            keys,
            digest: hasher.finalize().into(),
        })
    }

    /// Commits parsed documents as one commit.
    pub fn commit_documents(
        &self,
        documents: Vec<ParsedDocument>,
        request: &CommitRequest,
    ) -> Result<CommitOutcome, EngineError> {
        let mut hasher = Sha256::new();
        hasher.update(b"import");
        let mut keys = Vec::with_capacity(documents.iter().map(ParsedDocument::len).sum());
        for document in documents {
            hasher.update(document.digest);
            keys.extend(document.keys);
        }
        self.commit_keys(keys, Vec::new(), request, hasher.finalize().into())
    }

    /// Parses and commits one document.
    pub fn import(
        &self,
        reader: impl Read,
        options: &ImportOptions,
        request: &CommitRequest,
    ) -> Result<CommitOutcome, EngineError> {
        let document = self.parse_document(reader, options, |_| {})?;
        self.commit_documents(vec![document], request)
    }
}

fn syntax_error(error: RdfParseError, options: &ImportOptions) -> EngineError {
    match error {
        RdfParseError::Syntax(error) => EngineError::RdfSyntax {
            source_name: options.source_name.clone(),
            format: options.format.name().to_owned(),
            position: error
                .location()
                .map(|range| (range.start.line + 1, range.start.column + 1)),
            message: {
                // The parser's message repeats the position we already report.
                let message = error.to_string();
                match message.split_once(": ") {
                    Some((prefix, rest)) if prefix.starts_with("Parser error at") => {
                        rest.to_owned()
                    }
                    _ => message,
                }
            },
        },
        RdfParseError::Io(error) => EngineError::io(Path::new(&options.source_name), error),
    }
}

fn rename_blank_nodes(mut quad: Quad, fresh: &mut FxHashMap<BlankNode, BlankNode>) -> Quad {
    let mut rename = |node: &BlankNode| fresh.entry(node.clone()).or_default().clone();
    if let NamedOrBlankNode::BlankNode(node) = &quad.subject {
        quad.subject = rename(node).into();
    }
    if let Term::BlankNode(node) = &quad.object {
        quad.object = rename(node).into();
    }
    if let RdfGraphName::BlankNode(node) = &quad.graph_name {
        quad.graph_name = rename(node).into();
    }
    quad
}
