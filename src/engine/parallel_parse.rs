//! Parsing line-based documents (N-Triples, N-Quads) on several threads.
//!
//! Every statement of these formats ends its line, so a document cut right after a line
//! end parses in independent blocks. Worker threads parse blocks and collect each block's
//! distinct terms in a small local table (the hashing of every term occurrence happens
//! there, off the importing thread). The importing thread reads and hashes the source and
//! merges the blocks in document order: a block's distinct terms go into the store's
//! dictionary in batches and its quads are renumbered. The result is the one a sequential
//! parse gives: the first error in document order is reported at its line in the whole
//! document, and a blank node label names one node across the whole document.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::Path;
use std::sync::{Mutex, mpsc};

use hashbrown::HashTable;

use super::error::EngineError;
use super::import::{ImportOptions, quads, read_error};
use crate::model::{BlankNode, RdfGraphName, Term};
use crate::scratch::ExternalSort;
use crate::store::{DEFAULT_GRAPH, Dict, QuadKey, TermId, term_hash_in_memory};

/// Bytes per block: large enough that the terms neighbouring lines share are interned
/// once per block, small enough to keep every worker busy and memory low.
pub(super) const BLOCK_BYTES: usize = 4 << 20;

/// The graph slot of a default-graph quad within a block.
pub(super) const NO_GRAPH: u32 = u32::MAX;

/// Quads between two progress reports (as in a sequential parse).
pub(super) const PROGRESS_EVERY: usize = 10_000;

/// New terms added to the dictionary per write lock, so readers never wait long.
const INTERN_BATCH: usize = 8192;

/// The threads an import parses with: every core, at most 8.
pub(super) fn parse_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Parses an N-Triples or N-Quads document from `reader` on `threads` workers, in blocks
/// of about `block_bytes`, and returns its quads interned in `dict`. `progress` gets the
/// running count of quads after each block.
pub(super) fn parse_lines(
    dict: &Dict,
    reader: impl Read,
    options: &ImportOptions,
    threads: usize,
    block_bytes: usize,
    progress: &mut dyn FnMut(u64),
    keys: ExternalSort<QuadKey>,
) -> Result<ExternalSort<QuadKey>, EngineError> {
    let mut blocks = Blocks {
        reader,
        carry: Vec::new(),
        eof: false,
        block_bytes: block_bytes.max(1),
    };
    let mut merger = Merger::new(dict, options, keys);
    let read = |blocks: &mut Blocks<_>| blocks.next().map_err(|e| read_error(e, options));
    let Some(first) = read(&mut blocks)? else {
        return Ok(merger.finish(progress));
    };
    if blocks.eof {
        // One block: no thread is worth starting (small Graph Store and MCP writes).
        merger.merge(parse_block(&first, options), progress)?;
        return Ok(merger.finish(progress));
    }
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(threads);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, ParsedBlock)>();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let (work_rx, done_tx) = (&work_rx, done_tx.clone());
            scope.spawn(move || work(work_rx, &done_tx, |bytes| parse_block(&bytes, options)));
        }
        drop(done_tx);
        let mut ready: BTreeMap<usize, ParsedBlock> = BTreeMap::new();
        let mut sent = 0;
        let mut next = Some(first);
        while let Some(bytes) = next.take() {
            if work_tx.send((sent, bytes)).is_err() {
                break;
            }
            sent += 1;
            ready.extend(done_rx.try_iter());
            merger.merge_ready(&mut ready, progress)?;
            next = read(&mut blocks)?;
        }
        drop(work_tx);
        while merger.merged < sent {
            let Ok((index, block)) = done_rx.recv() else {
                // A worker stopped without answering (it panicked: the scope reports it).
                break;
            };
            ready.insert(index, block);
            merger.merge_ready(&mut ready, progress)?;
        }
        Ok(merger.finish(progress))
    })
}

/// A worker: parses the blocks it takes from the shared queue (the lock held only while
/// waiting for the next one) and sends back each result with the block's index, until
/// the queue closes or nobody listens.
pub(super) fn work<T>(
    queue: &Mutex<mpsc::Receiver<(usize, Vec<u8>)>>,
    done: &mpsc::Sender<(usize, T)>,
    parse: impl Fn(Vec<u8>) -> T,
) {
    loop {
        let job = match queue.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        let Ok((index, bytes)) = job else { break };
        if done.send((index, parse(bytes))).is_err() {
            break;
        }
    }
}

/// Reads from `reader` until `block` holds `target` bytes or the reader ends (`eof`).
pub(super) fn fill(
    reader: &mut impl Read,
    block: &mut Vec<u8>,
    target: usize,
    eof: &mut bool,
) -> std::io::Result<()> {
    while !*eof && block.len() < target {
        let want = (target - block.len()) as u64;
        if reader.take(want).read_to_end(block)? == 0 {
            *eof = true;
        }
    }
    Ok(())
}

/// Cuts a document into blocks that end right after a line end.
struct Blocks<R> {
    reader: R,
    /// The start of a line read past the end of the previous block.
    carry: Vec<u8>,
    eof: bool,
    block_bytes: usize,
}

impl<R: Read> Blocks<R> {
    fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let mut block = std::mem::take(&mut self.carry);
        let mut target = self.block_bytes;
        loop {
            fill(&mut self.reader, &mut block, target, &mut self.eof)?;
            if self.eof {
                return Ok((!block.is_empty()).then_some(block));
            }
            if let Some(end) = block.iter().rposition(|&b| b == b'\n') {
                self.carry = block.split_off(end + 1);
                return Ok(Some(block));
            }
            // A line longer than a block: read on until it ends.
            target = block.len() * 2;
        }
    }
}

/// One block's quads over its own numbering of its distinct terms.
pub(super) struct ParsedBlock {
    /// Distinct terms, with their in-memory hashes.
    pub(super) terms: Vec<(Term, u64)>,
    /// Quads as indexes into `terms` (`NO_GRAPH`: the default graph).
    pub(super) quads: Vec<[u32; 4]>,
    /// Line jumps in the block, counted as the parser counts them.
    pub(super) lines: u64,
    /// The block's first error (its position within the block).
    pub(super) error: Option<EngineError>,
}

fn parse_block(block: &[u8], options: &ImportOptions) -> ParsedBlock {
    let mut local = LocalTerms::default();
    let mut quads_out = Vec::new();
    let mut error = None;
    match quads(block, options) {
        Ok(parsed) => {
            for quad in parsed {
                match quad {
                    Ok(quad) => {
                        let graph = match quad.graph_name {
                            RdfGraphName::DefaultGraph => NO_GRAPH,
                            RdfGraphName::NamedNode(n) => local.index(n.into()),
                            RdfGraphName::BlankNode(b) => local.index(b.into()),
                        };
                        quads_out.push([
                            local.index(quad.subject.into()),
                            local.index(quad.predicate.into()),
                            local.index(quad.object),
                            graph,
                        ]);
                    }
                    Err(e) => {
                        error = Some(e);
                        break;
                    }
                }
            }
        }
        Err(e) => error = Some(e),
    }
    ParsedBlock {
        terms: local.terms,
        quads: quads_out,
        lines: count_line_jumps(block),
        error,
    }
}

/// Line jumps as the parser counts them: `\r\n`, `\r` and `\n` each end one line.
pub(super) fn count_line_jumps(bytes: &[u8]) -> u64 {
    let mut lines = 0;
    let mut previous = 0u8;
    for &b in bytes {
        if b == b'\r' || (b == b'\n' && previous != b'\r') {
            lines += 1;
        }
        previous = b;
    }
    lines
}

#[derive(Default)]
pub(super) struct LocalTerms {
    pub(super) terms: Vec<(Term, u64)>,
    table: HashTable<u32>,
}

impl LocalTerms {
    pub(super) fn index(&mut self, term: Term) -> u32 {
        let hash = term_hash_in_memory(&term);
        let terms = &mut self.terms;
        if let Some(&i) = self.table.find(hash, |&i| terms[i as usize].0 == term) {
            return i;
        }
        let i = terms.len() as u32;
        terms.push((term, hash));
        self.table.insert_unique(hash, i, |&j| terms[j as usize].1);
        i
    }
}

/// Merges parsed blocks, in document order, into interned quads.
pub(super) struct Merger<'a> {
    dict: &'a Dict,
    options: &'a ImportOptions,
    /// The quads so far, sorted in runs spilled to scratch files past a size.
    keys: ExternalSort<QuadKey>,
    /// Blank node label → the fresh node standing for it in this import.
    fresh: HashMap<BlankNode, BlankNode>,
    /// Line jumps in the blocks merged so far.
    lines_before: u64,
    /// Blocks merged so far.
    pub(super) merged: usize,
    /// The id default-graph quads get (`into_graph`, interned when first needed).
    default_graph: Option<TermId>,
}

impl<'a> Merger<'a> {
    pub(super) fn new(
        dict: &'a Dict,
        options: &'a ImportOptions,
        keys: ExternalSort<QuadKey>,
    ) -> Self {
        Self {
            dict,
            options,
            keys,
            fresh: HashMap::new(),
            lines_before: 0,
            merged: 0,
            default_graph: None,
        }
    }

    /// Merges the blocks that are next in document order.
    fn merge_ready(
        &mut self,
        ready: &mut BTreeMap<usize, ParsedBlock>,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        while let Some(block) = ready.remove(&self.merged) {
            self.merge(block, progress)?;
        }
        Ok(())
    }

    /// The quads, after a last progress report of their count.
    pub(super) fn finish(self, progress: &mut dyn FnMut(u64)) -> ExternalSort<QuadKey> {
        progress(self.keys.pushed());
        self.keys
    }

    pub(super) fn merge(
        &mut self,
        block: ParsedBlock,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        self.merged += 1;
        if let Some(mut error) = block.error {
            if let EngineError::RdfSyntax {
                position: Some((line, _)),
                ..
            } = &mut error
            {
                *line += self.lines_before;
            }
            return Err(error);
        }
        self.lines_before += block.lines;
        let mut ids = Vec::with_capacity(block.terms.len());
        let mut terms = block.terms.into_iter().map(|(term, hash)| match term {
            term @ (Term::BlankNode(_) | Term::Triple(_)) => {
                let renamed = crate::model::with_fresh_blank_nodes_in(term, &mut self.fresh);
                let hash = term_hash_in_memory(&renamed);
                (renamed, hash)
            }
            term => (term, hash),
        });
        loop {
            let batch: Vec<(Term, u64)> = terms.by_ref().take(INTERN_BATCH).collect();
            if batch.is_empty() {
                break;
            }
            ids.extend(self.dict.intern_hashed_terms(batch));
        }
        let default_graph = match (self.default_graph, &self.options.into_graph) {
            (Some(id), _) => id,
            (None, None) => DEFAULT_GRAPH,
            (None, Some(graph)) => {
                let id = self.dict.intern(&Term::from(graph.clone()));
                self.default_graph = Some(id);
                id
            }
        };
        for [s, p, o, g] in block.quads {
            let key = [
                ids[s as usize],
                ids[p as usize],
                ids[o as usize],
                if g == NO_GRAPH {
                    default_graph
                } else {
                    ids[g as usize]
                },
            ];
            self.keys
                .push(key)
                .map_err(|e| EngineError::io(self.keys.dir().unwrap_or(Path::new(".")), e))?;
            if self.keys.pushed().is_multiple_of(PROGRESS_EVERY as u64) {
                progress(self.keys.pushed());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ImportFormat;
    use crate::model::{NamedNode, Quad};
    use oxrdfio::RdfFormat;

    fn options(format: RdfFormat, into_graph: Option<&str>) -> ImportOptions {
        ImportOptions {
            format: ImportFormat(format),
            base_iri: None,
            into_graph: into_graph.map(NamedNode::new_unchecked),
            one_graph: false,
            source_name: "doc".into(),
        }
    }

    /// The quads a parse gave, as N-Quads lines with blank nodes numbered by first use.
    fn canonical(dict: &Dict, keys: &[QuadKey]) -> Vec<String> {
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut name = |term: String| -> String {
            if let Some(label) = term.strip_prefix("_:") {
                let n = names.len();
                format!("_:b{}", names.entry(label.to_owned()).or_insert(n))
            } else {
                term
            }
        };
        keys.iter()
            .map(|key| {
                let quad: Quad = dict.quad(key).expect("every key resolves");
                let graph = match quad.graph_name {
                    RdfGraphName::DefaultGraph => String::new(),
                    g => name(g.to_string()),
                };
                format!(
                    "{} {} {} {graph}",
                    name(quad.subject.to_string()),
                    quad.predicate,
                    name(quad.object.to_string())
                )
            })
            .collect()
    }

    fn sequential(document: &[u8], options: &ImportOptions) -> Vec<String> {
        let dict = Dict::default();
        let mut fresh = HashMap::new();
        let keys: Vec<QuadKey> = quads(document, options)
            .unwrap()
            .map(|q| {
                let mut q = crate::model::with_fresh_blank_nodes(q.unwrap(), &mut fresh);
                if let (Some(g), RdfGraphName::DefaultGraph) = (&options.into_graph, &q.graph_name)
                {
                    q.graph_name = g.clone().into();
                }
                dict.intern_quad(q)
            })
            .collect();
        canonical(&dict, &keys)
    }

    fn parallel(
        document: &[u8],
        options: &ImportOptions,
        block_bytes: usize,
    ) -> Result<Vec<String>, EngineError> {
        let dict = Dict::default();
        let mut counts = Vec::new();
        let keys = parse_lines(
            &dict,
            document,
            options,
            3,
            block_bytes,
            &mut |n| counts.push(n),
            ExternalSort::new(None, usize::MAX),
        )?
        .into_pushed();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
        assert_eq!(counts.last().copied(), Some(keys.len() as u64));
        Ok(canonical(&dict, &keys))
    }

    fn document() -> String {
        let mut doc = String::from("# a comment line\n");
        for i in 0..400 {
            doc.push_str(&format!(
                "<http://e/s{i}> <http://e/p> \"v{i}\"@en <http://e/g{}> .\r\n",
                i % 3
            ));
            doc.push_str(&format!("_:x{} <http://e/q> _:y{i} .\n", i % 7));
            doc.push_str(&format!(
                "<http://e/s{i}> <http://e/r> \"{i}\"^^<http://www.w3.org/2001/XMLSchema#integer> . # done\n"
            ));
        }
        doc.push_str("<http://e/last> <http://e/p> <http://e/o> .");
        doc
    }

    #[test]
    fn blocks_give_the_quads_and_blank_nodes_of_a_sequential_parse() {
        let doc = document();
        for into_graph in [None, Some("http://e/into")] {
            let options = options(RdfFormat::NQuads, into_graph);
            let expected = sequential(doc.as_bytes(), &options);
            assert_eq!(expected.len(), 1201);
            for block_bytes in [1, 7, 100, 4096, 1 << 20] {
                assert_eq!(
                    parallel(doc.as_bytes(), &options, block_bytes).unwrap(),
                    expected,
                    "blocks of {block_bytes} bytes, into {into_graph:?}"
                );
            }
        }
        assert!(
            parallel(b"", &options(RdfFormat::NTriples, None), 10)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn an_error_is_placed_on_its_line_in_the_whole_document() {
        let mut doc = document();
        // Line 1 is the comment; each i adds three lines.
        doc.push_str(
            "\n<http://e/a> <http://e/b> <not an iri> .\n<http://e/a> <http://e/b> \"fine\" .\n",
        );
        let bad_line = 1 + 3 * 400 + 2;
        let options = options(RdfFormat::NQuads, None);
        let sequential = quads(doc.as_bytes(), &options)
            .unwrap()
            .find_map(Result::err)
            .expect("the sequential parse fails");
        let EngineError::RdfSyntax { position, .. } = &sequential else {
            panic!("{sequential:?}")
        };
        assert_eq!(position.map(|p| p.0), Some(bad_line));
        for block_bytes in [1, 50, 4096, 1 << 20] {
            let error = parallel(doc.as_bytes(), &options, block_bytes).expect_err("bad IRI");
            assert_eq!(error.to_string(), sequential.to_string(), "{block_bytes}");
        }
    }

    #[test]
    fn lines_are_counted_as_the_parser_counts_them() {
        assert_eq!(count_line_jumps(b"a\r\nb\rc\nd"), 3);
        assert_eq!(count_line_jumps(b"\n\n\r\r\n"), 4);
        assert_eq!(count_line_jumps(b""), 0);
    }
}
