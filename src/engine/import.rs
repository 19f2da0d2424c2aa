//! Importing RDF documents: parse as a stream, intern terms in batches, and commit the
//! new quads as one commit.
//!
//! Memory stays near 16 bytes per quad (its four term ids) plus the dictionary, whatever
//! the size of the document.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};
use sha2::{Digest, Sha256};

use super::error::EngineError;
use super::graph::Graph;
use super::write::{CommitOutcome, CommitRequest};
use crate::model::{BlankNode, NamedNode, RdfGraphName, with_fresh_blank_nodes};

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

/// How a Graph Store write treats the graph's current content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphWrite {
    /// PUT: the graph becomes exactly the document.
    Replace,
    /// POST: the document's triples are added.
    Merge,
    /// DELETE: the graph is emptied.
    Delete,
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

    /// Adds another document's quads (several parts of one request).
    pub fn append(&mut self, other: ParsedDocument) {
        self.keys.extend(other.keys);
        let mut hasher = Sha256::new();
        hasher.update(self.digest);
        hasher.update(other.digest);
        self.digest = hasher.finalize().into();
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
        let mut fresh: HashMap<BlankNode, BlankNode> = HashMap::new();
        // The digest of the source bytes identifies the content for idempotent retries.
        let mut reader = HashingReader {
            inner: reader,
            hasher: Sha256::new(),
        };
        let mut keys = Vec::new();
        let dict = self.store.dict();
        for quad in parser.for_reader(&mut reader) {
            let quad = quad.map_err(|e| syntax_error(e, options))?;
            let mut quad = with_fresh_blank_nodes(quad, &mut fresh);
            if let (Some(graph), RdfGraphName::DefaultGraph) =
                (&options.into_graph, &quad.graph_name)
            {
                quad.graph_name = graph.clone().into();
            }
            keys.push(dict.intern_quad(quad));
            if keys.len() % 10_000 == 0 {
                progress(keys.len() as u64);
            }
        }
        progress(keys.len() as u64);
        Ok(ParsedDocument {
            keys,
            digest: reader.hasher.finalize().into(),
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

    /// A Graph Store Protocol write on one RDF graph (`None`: the default graph), as one
    /// commit. Returns the outcome and whether the graph held any triple before.
    pub fn write_graph(
        &self,
        graph_name: Option<&NamedNode>,
        mode: GraphWrite,
        document: Option<ParsedDocument>,
        request: &CommitRequest,
    ) -> Result<(CommitOutcome, bool), EngineError> {
        request.check_target(graph_name)?;
        let target = graph_name.map(|n| crate::model::Term::from(n.clone()));
        let mut digest = Sha256::new();
        digest.update(format!(
            "graph-store {mode:?} {}",
            graph_name.map(|n| n.as_str()).unwrap_or("")
        ));
        if let Some(document) = &document {
            digest.update(document.digest);
        }
        let mut existed = false;
        let outcome = self.commit_with(request, digest.finalize().into(), |txn| {
            let graph_id = match &target {
                None => Some(crate::store::DEFAULT_GRAPH),
                Some(term) => txn.lookup(term),
            };
            let current: Vec<crate::store::QuadKey> = match graph_id {
                None => Vec::new(),
                Some(graph) => txn
                    .snapshot()
                    .quads(crate::store::Pattern {
                        subject: None,
                        predicate: None,
                        object: None,
                        graph: crate::store::GraphFilter::Is(graph),
                    })
                    .collect(),
            };
            existed = !current.is_empty();
            if mode != GraphWrite::Merge {
                for key in current {
                    txn.delete(key);
                }
            }
            if let Some(document) = document {
                for key in document.keys {
                    txn.insert(key);
                }
            }
            Ok(())
        })?;
        Ok((outcome, existed))
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

/// Parses a whole document into triples, dropping graph names (shapes documents, data
/// validated outside a graph). Blank nodes keep their labels when `fresh` is `None`.
pub fn parse_triples(
    reader: impl Read,
    options: &ImportOptions,
    fresh: Option<&mut HashMap<BlankNode, BlankNode>>,
) -> Result<Vec<crate::model::Triple>, EngineError> {
    let mut parser = RdfParser::from_format(options.format.0);
    if let Some(base) = &options.base_iri {
        parser = parser
            .with_base_iri(base)
            .map_err(|e| EngineError::InvalidArgument {
                param: "base_iri".into(),
                message: e.to_string(),
            })?;
    }
    let mut fresh = fresh;
    let mut triples = Vec::new();
    for quad in parser.for_reader(reader) {
        let quad = quad.map_err(|e| syntax_error(e, options))?;
        let quad = match fresh.as_deref_mut() {
            Some(map) => with_fresh_blank_nodes(quad, map),
            None => quad,
        };
        triples.push(crate::model::Triple::from(quad));
    }
    Ok(triples)
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

/// Hashes the bytes it passes on.
struct HashingReader<R> {
    inner: R,
    hasher: Sha256,
}

impl<R: Read> Read for HashingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}
