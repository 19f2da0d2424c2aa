//! Importing RDF documents: parse as a stream, intern terms in batches, and commit the
//! new quads as one commit.
//!
//! Memory stays near 16 bytes per quad (its four term ids) plus the dictionary, whatever
//! the size of the document.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::rc::Rc;

use oxrdfio::{RdfFormat, RdfParseError, RdfParser};
use sha2::{Digest, Sha256};

use super::error::EngineError;
use super::graph::Graph;
use super::parallel_parse::{BLOCK_BYTES, PROGRESS_EVERY, parse_lines, parse_threads};
use super::parallel_turtle::parse_statements;
use super::write::{CommitOutcome, CommitRequest};
use crate::model::{BlankNode, NamedNode, Quad, RdfGraphName, with_fresh_blank_nodes};
use crate::scratch::ExternalSort;
use crate::store::QuadKey;

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

    /// The format of a file from its extension; a trailing `.gz` or `.zst` is looked
    /// through. Returns the format and how the file is compressed.
    pub fn from_path(path: &Path) -> Option<(Self, Compression)> {
        let name = path.file_name()?.to_str()?;
        let (name, compression) = if let Some(inner) = name.strip_suffix(".gz") {
            (inner, Compression::Gzip)
        } else if let Some(inner) = name.strip_suffix(".zst") {
            (inner, Compression::Zstd)
        } else {
            (name, Compression::None)
        };
        let extension = Path::new(name).extension()?.to_str()?;
        Some((Self::from_name(extension)?, compression))
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
    /// The document is one RDF graph (a Graph Store write): a named graph in it (JSON-LD
    /// `@graph` under an `@id`) is refused rather than written to a graph the request
    /// did not name.
    pub one_graph: bool,
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

/// Quads parsed from a document, with their terms already in the store's dictionary:
/// in memory, or past `Graph::bulk_run_quads` in sorted runs in scratch files (then the
/// commit is written as a file of its own, see `Graph::commit_bulk`).
pub struct ParsedDocument {
    keys: ExternalSort<QuadKey>,
    digest: [u8; 32],
}

impl ParsedDocument {
    /// Number of quads parsed (before removing duplicates and present quads).
    pub fn len(&self) -> usize {
        self.keys.pushed() as usize
    }

    /// Adds another document's quads (several parts of one request).
    pub fn append(&mut self, other: ParsedDocument) {
        self.keys.absorb(other.keys);
        let mut hasher = Sha256::new();
        hasher.update(self.digest);
        hasher.update(other.digest);
        self.digest = hasher.finalize().into();
    }

    /// True when the document held no quads.
    pub fn is_empty(&self) -> bool {
        self.keys.pushed() == 0
    }

    /// The quads, sorted and deduplicated, in memory.
    fn into_keys(self, dir: &Path) -> Result<Vec<QuadKey>, EngineError> {
        self.keys.into_vec().map_err(|e| EngineError::io(dir, e))
    }
}

/// Progress calls (one per 10,000 quads) between two releases of the store's resident
/// pages (`Store::release_pages`): about every million quads.
const RELEASE_CALLS: u32 = 100;

impl Graph {
    /// Parses a document into interned quads, without committing. Blank nodes are
    /// renamed so two documents never share one by accident. `progress` receives the
    /// running count of parsed quads every 10,000 quads. Past `bulk_run_quads` quads the
    /// keys go to sorted runs in scratch files, and past `bulk_dict_terms` new terms the
    /// dictionary to a new part, so memory stays bounded whatever the size.
    pub fn parse_document(
        &self,
        reader: impl Read,
        options: &ImportOptions,
        mut progress: impl FnMut(u64),
    ) -> Result<ParsedDocument, EngineError> {
        let mut fresh: HashMap<BlankNode, BlankNode> = HashMap::new();
        // The digest of the source bytes identifies the content for idempotent retries.
        let mut reader = HashingReader {
            inner: SkipBom::new(reader),
            hasher: Sha256::new(),
        };
        let dict = self.store.dict();
        let mut calls = 0u32;
        let mut progress = |n: u64| {
            progress(n);
            calls = calls.wrapping_add(1);
            if calls.is_multiple_of(RELEASE_CALLS) {
                // Lookups of new terms probe every dictionary part at random.
                self.store.release_pages();
            }
            if !self.read_only && dict.n_in_memory() >= self.bulk_dict_terms {
                match self.store.flush_dictionary() {
                    Ok(terms) => {
                        tracing::debug!(graph = %self.name, terms, "dictionary part written during an import")
                    }
                    // Only memory is at stake: the terms stay in memory until the next flush.
                    Err(error) => {
                        tracing::warn!(graph = %self.name, %error, "cannot write a dictionary part")
                    }
                }
            }
        };
        let scratch = |e| EngineError::io(&self.dir, e);
        let mut keys = ExternalSort::new(
            (!self.read_only).then_some(self.dir.as_path()),
            self.bulk_run_quads,
        );
        let threads = parse_threads();
        let lines = matches!(options.format.0, RdfFormat::NTriples | RdfFormat::NQuads);
        let statements = matches!(options.format.0, RdfFormat::Turtle | RdfFormat::TriG);
        if (lines || statements) && threads > 1 {
            let parse = if lines { parse_lines } else { parse_statements };
            keys = parse(
                dict,
                &mut reader,
                options,
                threads,
                BLOCK_BYTES,
                &mut progress,
                keys,
            )?;
        } else {
            for quad in quads(&mut reader, options)? {
                let quad = quad?;
                if options.one_graph && !quad.graph_name.is_default_graph() {
                    return Err(EngineError::InvalidArgument {
                        param: "body".into(),
                        message: format!(
                            "the {} names graph {}: a Graph Store write takes one graph, the one its request names (leave out the @id of the @graph)",
                            options.source_name, quad.graph_name
                        ),
                    });
                }
                let mut quad = with_fresh_blank_nodes(quad, &mut fresh);
                if let (Some(graph), RdfGraphName::DefaultGraph) =
                    (&options.into_graph, &quad.graph_name)
                {
                    quad.graph_name = graph.clone().into();
                }
                keys.push(dict.intern_quad(quad)).map_err(scratch)?;
                if keys.pushed().is_multiple_of(PROGRESS_EVERY as u64) {
                    progress(keys.pushed());
                }
            }
            progress(keys.pushed());
        }
        // A big document waiting for its commit (beside others) keeps nothing in memory.
        if keys.spilled() {
            keys.spill_at_least(1).map_err(scratch)?;
        }
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
        let mut documents = documents.into_iter();
        let Some(mut all) = documents.next() else {
            return self.commit_keys(Vec::new(), Vec::new(), request, hasher.finalize().into());
        };
        hasher.update(all.digest);
        for document in documents {
            hasher.update(document.digest);
            all.keys.absorb(document.keys);
        }
        let digest = hasher.finalize().into();
        if all.keys.spilled() {
            return self.commit_bulk(all.keys, request, digest);
        }
        let keys = all.into_keys(&self.dir)?;
        // Another node leads the graph's writes: it makes the commit (`forwarded.rs`).
        if let Some(outcome) = self.forward_insert(&keys, request, digest)? {
            return Ok(outcome);
        }
        self.commit_keys(keys, Vec::new(), request, digest)
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
        // A big body merged into a graph only inserts: it is committed like a big import,
        // as a store file of its own, never whole in memory. (A replacing `PUT` deletes
        // the graph's triples in the same commit, so it takes the in-memory path.)
        match document {
            Some(document) if mode == GraphWrite::Merge && document.keys.spilled() => {
                self.write_graph_bulk(target, document, request, digest)
            }
            document => {
                let keys = document.map(|d| d.into_keys(&self.dir)).transpose()?;
                let digest = digest.finalize().into();
                // Another node leads the graph's writes: it makes the commit
                // (`forwarded.rs`).
                let forwarded =
                    self.forward_graph_write(graph_name, mode, keys.as_deref(), request, digest)?;
                if let Some(written) = forwarded {
                    return Ok(written);
                }
                self.write_graph_in_memory(target, mode, keys, request, digest)
            }
        }
    }

    /// `write_graph` of interned quads on this node (never forwarded): what a leader runs
    /// for a Graph Store write another node forwarded.
    pub(super) fn write_graph_keys(
        &self,
        graph_name: Option<&NamedNode>,
        mode: GraphWrite,
        document: Option<Vec<QuadKey>>,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<(CommitOutcome, bool), EngineError> {
        request.check_target(graph_name)?;
        let target = graph_name.map(|n| crate::model::Term::from(n.clone()));
        self.write_graph_in_memory(target, mode, document, request, digest)
    }

    /// `write_graph` merging a document past one run: a big commit (`commit_bulk`).
    fn write_graph_bulk(
        &self,
        target: Option<crate::model::Term>,
        document: ParsedDocument,
        request: &CommitRequest,
        digest: Sha256,
    ) -> Result<(CommitOutcome, bool), EngineError> {
        let graph_id = match &target {
            None => Some(crate::store::DEFAULT_GRAPH),
            Some(term) => self.store.dict().lookup(term),
        };
        let existed = graph_id.is_some_and(|graph| {
            self.store
                .snapshot_at(self.store.published_seq())
                .quads(crate::store::Pattern {
                    subject: None,
                    predicate: None,
                    object: None,
                    graph: crate::store::GraphFilter::Is(graph),
                })
                .next()
                .is_some()
        });
        let outcome = self.commit_bulk(document.keys, request, digest.finalize().into())?;
        Ok((outcome, existed))
    }

    /// `write_graph` as one commit in memory: the graph's current triples are read (and,
    /// unless merging, deleted) in the same transaction that inserts the document.
    fn write_graph_in_memory(
        &self,
        target: Option<crate::model::Term>,
        mode: GraphWrite,
        document: Option<Vec<QuadKey>>,
        request: &CommitRequest,
        digest: [u8; 32],
    ) -> Result<(CommitOutcome, bool), EngineError> {
        let mut existed = false;
        let outcome = self.commit_with::<EngineError>(request, digest, |txn| {
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
            if let Some(document) = &document {
                for &key in document {
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
    let mut fresh = fresh;
    let mut triples = Vec::new();
    for quad in quads(SkipBom::new(reader), options)? {
        let quad = quad?;
        let quad = match fresh.as_deref_mut() {
            Some(map) => with_fresh_blank_nodes(quad, map),
            None => quad,
        };
        triples.push(crate::model::Triple::from(quad));
    }
    Ok(triples)
}

/// How a document file is compressed (from its name: `.gz`, `.zst`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
    Zstd,
}

impl Compression {
    /// `reader` decompressed, on a thread of its own when compressed (`read_ahead`).
    /// Bytes that are not of the format are an `InvalidData` error naming it.
    pub fn reader<R: Read + Send + 'static>(self, reader: R) -> Box<dyn Read> {
        match self {
            Compression::None => Box::new(reader),
            Compression::Gzip => Box::new(read_ahead(gunzip(std::io::BufReader::with_capacity(
                1 << 16,
                reader,
            )))),
            Compression::Zstd => Box::new(read_ahead(unzstd(reader))),
        }
    }
}

/// Decompresses a zstd stream (concatenated frames too), like `gunzip`.
pub fn unzstd<R: Read>(reader: R) -> impl Read {
    enum Unzstd<R: Read> {
        Decoding(zstd::stream::read::Decoder<'static, std::io::BufReader<R>>),
        Failed(Option<std::io::Error>),
    }
    impl<R: Read> Read for Unzstd<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self {
                Unzstd::Decoding(decoder) => {
                    decoder.read(buf).map_err(|error| match error.kind() {
                        std::io::ErrorKind::Other
                        | std::io::ErrorKind::InvalidInput
                        | std::io::ErrorKind::InvalidData
                        | std::io::ErrorKind::UnexpectedEof => std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!("not valid zstd ({error})"),
                        ),
                        _ => error,
                    })
                }
                Unzstd::Failed(error) => Err(error.take().unwrap_or_else(|| {
                    std::io::Error::new(std::io::ErrorKind::InvalidData, "not valid zstd")
                })),
            }
        }
    }
    match zstd::stream::read::Decoder::new(reader) {
        Ok(decoder) => Unzstd::Decoding(decoder),
        Err(error) => Unzstd::Failed(Some(error)),
    }
}

/// Decompresses a gzip stream (concatenated members too); bytes that are not gzip are an
/// `InvalidData` error saying so, which the parsers report as unreadable input.
pub fn gunzip<R: Read>(reader: R) -> impl Read {
    struct Gunzip<R: Read>(flate2::read::MultiGzDecoder<R>);
    impl<R: Read> Read for Gunzip<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf).map_err(|error| match error.kind() {
                std::io::ErrorKind::InvalidInput
                | std::io::ErrorKind::InvalidData
                | std::io::ErrorKind::UnexpectedEof => std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("not valid gzip ({error})"),
                ),
                _ => error,
            })
        }
    }
    Gunzip(flate2::read::MultiGzDecoder::new(reader))
}

/// Reads `reader` on a thread of its own, a few MiB ahead of the caller: decompressing a
/// gzip document takes about as long as parsing it, so the two run on two cores. The
/// thread stops when the returned reader is dropped (at most `AHEAD` chunks are decoded
/// for nothing); an error of `reader` reaches the caller at the point where it occurred.
pub fn read_ahead<R: Read + Send + 'static>(reader: R) -> impl Read {
    const CHUNK: usize = 1 << 20;
    const AHEAD: usize = 4;
    struct Ahead {
        chunks: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
        current: Vec<u8>,
        at: usize,
        done: bool,
    }
    impl Read for Ahead {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            while self.at == self.current.len() {
                if self.done {
                    return Ok(0);
                }
                match self.chunks.recv() {
                    Ok(Ok(chunk)) if chunk.is_empty() => self.done = true,
                    Ok(Ok(chunk)) => (self.current, self.at) = (chunk, 0),
                    Ok(Err(error)) => {
                        self.done = true;
                        return Err(error);
                    }
                    Err(_) => {
                        self.done = true;
                        return Err(std::io::Error::other("the reading thread stopped"));
                    }
                }
            }
            let n = buf.len().min(self.current.len() - self.at);
            buf[..n].copy_from_slice(&self.current[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }
    let (sender, chunks) = std::sync::mpsc::sync_channel(AHEAD);
    let spawned = std::thread::Builder::new()
        .name("strata-read-ahead".into())
        .spawn(move || {
            let mut reader = reader;
            loop {
                let mut chunk = vec![0u8; CHUNK];
                let mut filled = 0;
                let result = loop {
                    match reader.read(&mut chunk[filled..]) {
                        Ok(0) => break Ok(()),
                        Ok(n) => {
                            filled += n;
                            if filled == CHUNK {
                                break Ok(());
                            }
                        }
                        Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(error) => break Err(error),
                    }
                };
                chunk.truncate(filled);
                let last = filled < CHUNK || result.is_err();
                if filled > 0 && sender.send(Ok(chunk)).is_err() {
                    return;
                }
                if let Err(error) = result {
                    let _ = sender.send(Err(error));
                    return;
                }
                if last {
                    let _ = sender.send(Ok(Vec::new()));
                    return;
                }
            }
        });
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot start a read-ahead thread");
    }
    Ahead {
        chunks,
        current: Vec::new(),
        at: 0,
        done: false,
    }
}

/// A document without the UTF-8 byte order mark some tools write first (Windows
/// editors, spreadsheet exports): the parsers would read it as a stray character.
struct SkipBom<R> {
    inner: R,
    checked: bool,
    /// The first bytes read while looking for the mark, when they were not it.
    head: [u8; 3],
    at: usize,
    len: usize,
}

impl<R: Read> SkipBom<R> {
    fn new(inner: R) -> Self {
        Self {
            inner,
            checked: false,
            head: [0; 3],
            at: 0,
            len: 0,
        }
    }
}

impl<R: Read> Read for SkipBom<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if !self.checked {
            let mut n = 0;
            while n < 3 {
                match self.inner.read(&mut self.head[n..]) {
                    Ok(0) => break,
                    Ok(k) => n += k,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
            self.checked = true;
            if self.head[..n] != [0xEF, 0xBB, 0xBF] {
                self.len = n;
            }
        }
        if self.at < self.len {
            let k = (self.len - self.at).min(buf.len());
            buf[..k].copy_from_slice(&self.head[self.at..self.at + k]);
            self.at += k;
            return Ok(k);
        }
        self.inner.read(buf)
    }
}

/// The quads of a document, errors converted (with their position when known).
pub(super) fn quads<'a, R: Read + 'a>(
    reader: R,
    options: &'a ImportOptions,
) -> Result<Box<dyn Iterator<Item = Result<Quad, EngineError>> + 'a>, EngineError> {
    let bad_base = |e: oxiri::IriParseError| EngineError::InvalidArgument {
        param: "base_iri".into(),
        message: e.to_string(),
    };
    if options.format.0 == RdfFormat::RdfXml {
        let mut parser = oxrdfxml::RdfXmlParser::new();
        if let Some(base) = &options.base_iri {
            parser = parser.with_base_iri(base).map_err(bad_base)?;
        }
        let lines = Rc::new(RefCell::new(Lines::default()));
        let parser = parser.for_reader(LineTracking {
            inner: reader,
            lines: lines.clone(),
        });
        return Ok(Box::new(RdfXmlQuads {
            parser,
            lines,
            options,
        }));
    }
    let mut parser = RdfParser::from_format(options.format.0);
    if let Some(base) = &options.base_iri {
        parser = parser.with_base_iri(base).map_err(bad_base)?;
    }
    Ok(Box::new(parser.for_reader(reader).map(move |quad| {
        quad.map_err(|e| syntax_error(e, options))
    })))
}

/// RDF/XML triples as default-graph quads. oxrdfxml's errors carry no position, but its
/// reader knows how far it read: the error is placed at the last byte of the XML event
/// being read (the tag or text at fault, or the one just before a malformed one).
struct RdfXmlQuads<'a, R: Read> {
    parser: oxrdfxml::ReaderRdfXmlParser<LineTracking<R>>,
    lines: Rc<RefCell<Lines>>,
    options: &'a ImportOptions,
}

impl<R: Read> Iterator for RdfXmlQuads<'_, R> {
    type Item = Result<Quad, EngineError>;

    fn next(&mut self) -> Option<Self::Item> {
        Some(match self.parser.next()? {
            Ok(triple) => Ok(triple.in_graph(RdfGraphName::DefaultGraph)),
            Err(oxrdfxml::RdfXmlParseError::Syntax(error)) => {
                let offset = self.parser.buffer_position().saturating_sub(1);
                Err(EngineError::RdfSyntax {
                    source_name: self.options.source_name.clone(),
                    format: self.options.format.name().to_owned(),
                    position: self.lines.borrow().position(offset),
                    message: error.to_string(),
                })
            }
            Err(oxrdfxml::RdfXmlParseError::Io(error)) => Err(read_error(error, self.options)),
        })
    }
}

/// Bytes kept to place a byte offset on a line: the parser reads ahead of its position by
/// at most its buffer (8 KiB) and one XML event.
const LINE_WINDOW: usize = 64 << 10;

/// The recent bytes of a document and the number of lines before them, to turn a byte
/// offset near the read position into a line and column.
#[derive(Default)]
struct Lines {
    window: Vec<u8>,
    window_start: u64,
    lines_before: u64,
}

impl Lines {
    fn record(&mut self, bytes: &[u8]) {
        self.window.extend_from_slice(bytes);
        if self.window.len() > 4 * LINE_WINDOW {
            let dropped = self.window.len() - LINE_WINDOW;
            self.lines_before += count_newlines(&self.window[..dropped]);
            self.window.drain(..dropped);
            self.window_start += dropped as u64;
        }
    }

    /// The 1-based line and column (in characters) of the byte at `offset`.
    fn position(&self, offset: u64) -> Option<(u64, u64)> {
        let end = usize::try_from(offset.checked_sub(self.window_start)?)
            .ok()?
            .min(self.window.len());
        let before = &self.window[..end];
        let line = self.lines_before + count_newlines(before) + 1;
        let line_start = match before.iter().rposition(|&b| b == b'\n') {
            Some(i) => i + 1,
            None if self.window_start == 0 => 0,
            None => return None,
        };
        let column = String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count() as u64
            + 1;
        Some((line, column))
    }
}

fn count_newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// Passes bytes on, keeping the recent ones in `lines`.
struct LineTracking<R> {
    inner: R,
    lines: Rc<RefCell<Lines>>,
}

impl<R: Read> Read for LineTracking<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.lines.borrow_mut().record(&buf[..n]);
        Ok(n)
    }
}

/// An I/O error while reading a document: undecodable bytes are bad input
/// (`invalid_rdf`), and so is one token or statement longer than the parser's buffer
/// (16 MiB in oxttl, reported as `OutOfMemory`); anything else a real I/O failure.
pub(super) fn read_error(error: std::io::Error, options: &ImportOptions) -> EngineError {
    match error.kind() {
        std::io::ErrorKind::OutOfMemory => EngineError::UnreadableDocument {
            source_name: options.source_name.clone(),
            format: options.format.name().to_owned(),
            message: format!(
                "one statement or literal is longer than the parser reads at once ({error}); split it, or keep large values outside the graph"
            ),
        },
        std::io::ErrorKind::InvalidData
        | std::io::ErrorKind::InvalidInput
        | std::io::ErrorKind::UnexpectedEof => EngineError::UnreadableDocument {
            source_name: options.source_name.clone(),
            format: options.format.name().to_owned(),
            message: error.to_string(),
        },
        _ => EngineError::io(Path::new(&options.source_name), error),
    }
}

pub(super) fn syntax_error(error: RdfParseError, options: &ImportOptions) -> EngineError {
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
        RdfParseError::Io(error) => read_error(error, options),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn options(format: RdfFormat, name: &str) -> ImportOptions {
        ImportOptions {
            format: ImportFormat(format),
            base_iri: None,
            into_graph: None,
            one_graph: false,
            source_name: name.into(),
        }
    }

    /// RDF/XML 6.1.2: `xml:lang=""` is no language, and ends an inherited one (the
    /// vendored oxrdfxml's patch).
    #[test]
    fn an_empty_xml_lang_is_no_language() {
        let document = format!(
            "{RDF_XML_HEAD}<rdf:Description rdf:about=\"http://e/a\" xml:lang=\"de\"><ex:l>de</ex:l><ex:m xml:lang=\"\">plain</ex:m></rdf:Description></rdf:RDF>"
        );
        let triples = parse_triples(
            document.as_bytes(),
            &options(RdfFormat::RdfXml, "doc.rdf"),
            None,
        )
        .expect("an empty xml:lang is allowed");
        let objects: Vec<String> = triples.iter().map(|t| t.object.to_string()).collect();
        assert_eq!(objects, ["\"de\"@de", "\"plain\""]);
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_nothing_else() {
        let turtle = "\u{feff}<http://e/a> <http://e/b> \"\u{feff}x\" .";
        let triples = parse_triples(
            turtle.as_bytes(),
            &options(RdfFormat::Turtle, "t.ttl"),
            None,
        )
        .expect("a Turtle file that starts with a byte order mark");
        assert_eq!(triples.len(), 1);
        // Only the first three bytes are the mark; a mark inside the text is kept.
        assert_eq!(triples[0].object.to_string(), "\"\u{feff}x\"");
        for short in ["", "<", "\u{feff}"] {
            let mut read = String::new();
            SkipBom::new(short.as_bytes())
                .read_to_string(&mut read)
                .unwrap();
            assert_eq!(read, short.trim_start_matches('\u{feff}'));
        }
    }

    const RDF_XML_HEAD: &str = "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"http://e/\">\n";

    fn rdf_xml_error(document: &str) -> EngineError {
        parse_triples(
            document.as_bytes(),
            &options(RdfFormat::RdfXml, "doc.rdf"),
            None,
        )
        .expect_err("the document is invalid")
    }

    /// oxttl reads at most 16 MiB at once: a longer statement is bad input, not an
    /// internal error.
    #[test]
    fn a_statement_longer_than_the_parser_buffer_is_bad_input() {
        let line = format!("<http://e/s> <http://e/p> \"{}\" .\n", "x".repeat(17 << 20));
        let error = parse_triples(
            line.as_bytes(),
            &options(RdfFormat::NTriples, "big.nt"),
            None,
        )
        .expect_err("too long for the parser");
        assert!(
            matches!(error, EngineError::UnreadableDocument { .. }),
            "{error:?}"
        );
    }

    #[test]
    fn rdf_xml_syntax_errors_carry_line_and_column() {
        // A mismatched end tag: placed at its last byte.
        let error = rdf_xml_error(&format!(
            "{RDF_XML_HEAD}  <rdf:Description rdf:about=\"http://e/a\">\n    <ex:p>one</ex:p>\n    <ex:q>two</ex:r>\n  </rdf:Description>\n</rdf:RDF>\n"
        ));
        assert!(
            matches!(
                &error,
                EngineError::RdfSyntax {
                    position: Some((5, 20)),
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("doc.rdf at line 5, column 20"),
            "{error}"
        );
        // An RDF-level error (a bad IRI): placed at the end of the tag holding it, with
        // columns counted in characters.
        let error = rdf_xml_error(&format!(
            "{RDF_XML_HEAD}  <rdf:Description rdf:about=\"http://e/é\">\n    <ex:p rdf:resource=\"http://[bad\"/>\n  </rdf:Description>\n</rdf:RDF>\n"
        ));
        assert!(
            matches!(
                error,
                EngineError::RdfSyntax {
                    position: Some((4, 38)),
                    ..
                }
            ),
            "{error:?}"
        );
    }

    #[test]
    fn rdf_xml_error_positions_hold_deep_into_long_documents() {
        // Far more than the parser's buffer and the kept window, so lines are counted
        // across dropped bytes.
        let mut document = RDF_XML_HEAD.to_owned();
        for i in 0..20_000 {
            document.push_str(&format!(
                "  <rdf:Description rdf:about=\"http://e/s{i}\"><ex:p>ünïcode {i}</ex:p></rdf:Description>\n"
            ));
        }
        document.push_str("  <rdf:Description rdf:about=\"http://e/x\"><ex:p>x</ex:q></rdf:Description>\n</rdf:RDF>\n");
        assert!(document.len() > 8 * LINE_WINDOW);
        let error = rdf_xml_error(&document);
        let bad_line = 2 + 20_000 + 1;
        let column = "  <rdf:Description rdf:about=\"http://e/x\"><ex:p>x</ex:q>"
            .chars()
            .count() as u64;
        assert!(
            matches!(error, EngineError::RdfSyntax { position: Some((line, col)), .. } if line == bad_line && col == column),
            "{error:?}"
        );
    }

    #[test]
    fn zstd_documents_are_read_and_garbage_is_invalid_rdf() {
        let text = "<http://e/s> <http://e/p> \"o\" .\n".repeat(1000);
        // Two frames back to back, as `cat a.zst b.zst` gives.
        let mut compressed = zstd::encode_all(text.as_bytes(), 3).unwrap();
        compressed.extend(zstd::encode_all(text.as_bytes(), 3).unwrap());
        let mut decoded = String::new();
        Compression::Zstd
            .reader(std::io::Cursor::new(compressed))
            .read_to_string(&mut decoded)
            .unwrap();
        assert_eq!(decoded, text.repeat(2));
        let triples = parse_triples(
            unzstd(&zstd::encode_all(text.as_bytes(), 3).unwrap()[..]),
            &options(RdfFormat::NTriples, "data.nt.zst"),
            None,
        )
        .unwrap();
        assert_eq!(triples.len(), 1000);
        let error = parse_triples(
            unzstd(&b"this is not zstd at all"[..]),
            &options(RdfFormat::NTriples, "data.nt.zst"),
            None,
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("data.nt.zst") && message.contains("zstd"),
            "{message}"
        );
    }

    #[test]
    fn read_ahead_gives_the_same_bytes_and_the_error_where_it_happened() {
        let bytes: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        let mut copy = Vec::new();
        read_ahead(std::io::Cursor::new(bytes.clone()))
            .read_to_end(&mut copy)
            .unwrap();
        assert_eq!(copy, bytes);
        // A source failing after 1.5 MB: the bytes before it, then its error.
        struct Failing(std::io::Cursor<Vec<u8>>);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "truncated",
                    )),
                    n => Ok(n),
                }
            }
        }
        let mut reader = read_ahead(Failing(std::io::Cursor::new(bytes[..1_500_000].to_vec())));
        let mut got = Vec::new();
        let error = reader.read_to_end(&mut got).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        assert_eq!(got, &bytes[..1_500_000]);
        assert_eq!(reader.read(&mut [0; 8]).unwrap(), 0, "then the end");
    }

    #[test]
    fn a_corrupt_gzip_document_is_invalid_rdf_naming_the_file() {
        let mut compressed = Vec::new();
        {
            use std::io::Write;
            let mut encoder =
                flate2::write::GzEncoder::new(&mut compressed, flate2::Compression::default());
            encoder
                .write_all("<http://e/a> <http://e/b> \"c\" .\n".repeat(100).as_bytes())
                .unwrap();
            encoder.finish().unwrap();
        }
        let truncated = &compressed[..compressed.len() / 2];
        for (bytes, name) in [
            (&b"not gzip at all"[..], "garbage.nt.gz"),
            (truncated, "truncated.nt.gz"),
        ] {
            let error = parse_triples(gunzip(bytes), &options(RdfFormat::NTriples, name), None)
                .expect_err("corrupt gzip");
            // Bad input (the API calls it `invalid_rdf`), not an I/O failure.
            assert!(
                matches!(
                    error,
                    EngineError::RdfSyntax { .. } | EngineError::UnreadableDocument { .. }
                ),
                "{error:?}"
            );
            let message = error.to_string();
            assert!(
                message.contains(name) && message.contains("not valid gzip"),
                "{message}"
            );
        }
        let whole = parse_triples(
            gunzip(&compressed[..]),
            &options(RdfFormat::NTriples, "ok.nt.gz"),
            None,
        )
        .unwrap();
        assert_eq!(whole.len(), 100);
    }

    #[test]
    fn a_failing_reader_is_an_io_error_not_bad_input() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(std::io::ErrorKind::PermissionDenied.into())
            }
        }
        for format in [RdfFormat::Turtle, RdfFormat::RdfXml] {
            let error = parse_triples(Failing, &options(format, "locked.ttl"), None)
                .expect_err("the reader fails");
            assert!(matches!(error, EngineError::Io { .. }), "{error:?}");
        }
    }
}
