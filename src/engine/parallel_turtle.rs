//! Parsing Turtle and TriG on several threads.
//!
//! Unlike an N-Triples line, a Turtle statement may span lines, and what it means depends
//! on the `@prefix` and `@base` directives before it. The document is cut into blocks of
//! about `BLOCK_BYTES` at a line end right after a `.`, where a trial parse reads three
//! triples on (the heuristic of oxttl's own chunker), and each block is parsed by a
//! worker from the prefixes and base in force at the end of the first block. None of that
//! is trusted; the merger takes blocks in document order and checks them:
//!
//! - a block parsed from another state (prefixes, base) than the one in force at its
//!   start (a directive further down) is parsed again, on the merging thread, from the
//!   right one;
//! - a block whose parse fails, or ends inside a statement (a cut inside a long literal,
//!   after a `.` that ended no statement), stops the parallel parse: the rest of the
//!   document is parsed sequentially from that block's start.
//!
//! A block that parses whole from a true statement boundary, in the true state, ends at a
//! true boundary in a known state, so by induction every block merged is what a
//! sequential parse gives, and a real error is reported exactly as the sequential parse
//! reports it: at its line and column in the whole document (blocks start at a line
//! start, so only lines shift). The quads and blank nodes are the sequential parse's.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{Mutex, mpsc};

use oxrdfio::{RdfFormat, RdfParseError};
use oxttl::{TriGParser, TurtleParser};

use super::error::EngineError;
use super::import::{ImportOptions, read_error, syntax_error};
use super::parallel_parse::{
    LocalTerms, Merger, NO_GRAPH, ParsedBlock, count_line_jumps, fill, work,
};
use crate::model::{Quad, RdfGraphName};
use crate::scratch::ExternalSort;
use crate::store::{Dict, QuadKey};

/// Cut candidates tried per block before the block grows instead.
const MAX_TRIALS: usize = 1000;

/// Quads per block when the rest of a document is parsed sequentially.
const FALLBACK_BLOCK_QUADS: usize = 1 << 16;

/// What a statement means depends on: the base IRI and the prefixes declared so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct State {
    base: Option<String>,
    /// Sorted by name.
    prefixes: Vec<(String, String)>,
}

impl State {
    fn of<'a>(base: Option<&str>, prefixes: impl Iterator<Item = (&'a str, &'a str)>) -> Self {
        let mut prefixes: Vec<(String, String)> = prefixes
            .map(|(name, iri)| (name.to_owned(), iri.to_owned()))
            .collect();
        prefixes.sort();
        Self {
            base: base.map(str::to_owned),
            prefixes,
        }
    }
}

/// A parser of one format, configured with a state. The IRIs of a state were accepted by
/// a parser before (or checked up front: the import's base), so configuring cannot fail.
#[derive(Clone)]
enum Parser {
    Turtle(TurtleParser),
    TriG(TriGParser),
}

impl Parser {
    fn new(format: RdfFormat, state: &State) -> Result<Self, oxiri::IriParseError> {
        Ok(if format == RdfFormat::TriG {
            let mut parser = TriGParser::new();
            if let Some(base) = &state.base {
                parser = parser.with_base_iri(base.as_str())?;
            }
            for (name, iri) in &state.prefixes {
                parser = parser.with_prefix(name.as_str(), iri.as_str())?;
            }
            Parser::TriG(parser)
        } else {
            let mut parser = TurtleParser::new();
            if let Some(base) = &state.base {
                parser = parser.with_base_iri(base.as_str())?;
            }
            for (name, iri) in &state.prefixes {
                parser = parser.with_prefix(name.as_str(), iri.as_str())?;
            }
            Parser::Turtle(parser)
        })
    }

    /// Parses `bytes` to their end: each quad to `each` (which may stop the parse by
    /// returning false), then the state at the end, or the first error.
    fn parse_slice(
        self,
        bytes: &[u8],
        mut each: impl FnMut(Quad) -> bool,
    ) -> Result<State, oxttl::TurtleSyntaxError> {
        match self {
            Parser::Turtle(parser) => {
                let mut slice = parser.for_slice(bytes);
                for triple in slice.by_ref() {
                    if !each(triple?.in_graph(RdfGraphName::DefaultGraph)) {
                        break;
                    }
                }
                Ok(State::of(slice.base_iri(), slice.prefixes()))
            }
            Parser::TriG(parser) => {
                let mut slice = parser.for_slice(bytes);
                for quad in slice.by_ref() {
                    if !each(quad?) {
                        break;
                    }
                }
                Ok(State::of(slice.base_iri(), slice.prefixes()))
            }
        }
    }

    fn for_reader<'a>(
        self,
        reader: impl Read + 'a,
    ) -> Box<dyn Iterator<Item = Result<Quad, oxttl::TurtleParseError>> + 'a> {
        match self {
            Parser::Turtle(parser) => Box::new(
                parser
                    .for_reader(reader)
                    .map(|t| t.map(|t| t.in_graph(RdfGraphName::DefaultGraph))),
            ),
            Parser::TriG(parser) => Box::new(parser.for_reader(reader)),
        }
    }
}

/// A block parsed from an assumed state.
struct StatementBlock {
    bytes: Vec<u8>,
    start: State,
    /// The state at its end, or `None` when its parse failed.
    end: Option<State>,
    parsed: ParsedBlock,
}

fn parse_block(bytes: Vec<u8>, start: &State, options: &ImportOptions) -> StatementBlock {
    let mut local = LocalTerms::default();
    let mut quads = Vec::new();
    let end = Parser::new(options.format.0, start)
        .ok()
        .and_then(|parser| {
            parser
                .parse_slice(&bytes, |quad| {
                    quads.push(local_quad(&mut local, quad));
                    true
                })
                .ok()
        });
    StatementBlock {
        parsed: ParsedBlock {
            terms: local.terms,
            quads,
            lines: count_line_jumps(&bytes),
            error: None,
        },
        bytes,
        start: start.clone(),
        end,
    }
}

fn local_quad(local: &mut LocalTerms, quad: Quad) -> [u32; 4] {
    let graph = match quad.graph_name {
        RdfGraphName::DefaultGraph => NO_GRAPH,
        RdfGraphName::NamedNode(n) => local.index(n.into()),
        RdfGraphName::BlankNode(b) => local.index(b.into()),
    };
    [
        local.index(quad.subject.into()),
        local.index(quad.predicate.into()),
        local.index(quad.object),
        graph,
    ]
}

/// Cuts a document into blocks at likely statement ends (see the module comment).
struct StatementBlocks<R> {
    reader: R,
    carry: Vec<u8>,
    eof: bool,
    block_bytes: usize,
    format: RdfFormat,
    /// The state trial parses start from.
    trial: State,
}

impl<R: Read> StatementBlocks<R> {
    fn next(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let mut block = std::mem::take(&mut self.carry);
        let mut target = self.block_bytes;
        loop {
            fill(&mut self.reader, &mut block, target, &mut self.eof)?;
            if self.eof {
                return Ok((!block.is_empty()).then_some(block));
            }
            if let Some(cut) = self.cut(&block) {
                self.carry = block.split_off(cut);
                return Ok(Some(block));
            }
            target = block.len() * 2;
        }
    }

    /// A position after the middle of `block`, at a line start right after a line that
    /// ends with `.`, from which three triples parse.
    fn cut(&self, block: &[u8]) -> Option<usize> {
        let parser = Parser::new(self.format, &self.trial).ok()?;
        let mut from = block.len() / 2;
        for _ in 0..MAX_TRIALS {
            let newline = from + block[from..].iter().position(|&b| b == b'\n')?;
            let cut = newline + 1;
            from = cut;
            let line = &block[..newline];
            let ends_with_dot = line
                .iter()
                .rev()
                .find(|b| !matches!(b, b' ' | b'\t' | b'\r'))
                .is_some_and(|&b| b == b'.');
            if !ends_with_dot || cut >= block.len() {
                continue;
            }
            let mut triples = 0;
            let trial = parser.clone().parse_slice(&block[cut..], |_| {
                triples += 1;
                triples < 3
            });
            if trial.is_ok() && triples == 3 {
                return Some(cut);
            }
        }
        None
    }
}

/// Parses a Turtle or TriG document from `reader` on `threads` workers and returns its
/// quads interned in `dict`, exactly as the sequential parse would (see the module
/// comment). `progress` gets the running count of quads.
pub(super) fn parse_statements(
    dict: &Dict,
    reader: impl Read,
    options: &ImportOptions,
    threads: usize,
    block_bytes: usize,
    progress: &mut dyn FnMut(u64),
    keys: ExternalSort<QuadKey>,
) -> Result<ExternalSort<QuadKey>, EngineError> {
    let initial = State {
        base: options.base_iri.clone(),
        prefixes: Vec::new(),
    };
    if let Err(error) = Parser::new(options.format.0, &initial) {
        return Err(EngineError::InvalidArgument {
            param: "base_iri".into(),
            message: error.to_string(),
        });
    }
    let mut blocks = StatementBlocks {
        reader,
        carry: Vec::new(),
        eof: false,
        block_bytes: block_bytes.max(1),
        format: options.format.0,
        trial: initial.clone(),
    };
    let mut merger = Merger::new(dict, options, keys);
    let read = |blocks: &mut StatementBlocks<_>| blocks.next().map_err(|e| read_error(e, options));
    let Some(first) = read(&mut blocks)? else {
        return Ok(merger.finish(progress));
    };
    // The first block is parsed here: the state at its end is the one every other block
    // is assumed to start from (directives usually all come first).
    let first = parse_block(first, &initial, options);
    let Some(guess) = first.end.clone() else {
        return sequential_rest(
            merger,
            vec![first.bytes],
            blocks,
            &initial,
            options,
            progress,
        );
    };
    merger.merge(first.parsed, progress)?;
    if blocks.eof && blocks.carry.is_empty() {
        return Ok(merger.finish(progress));
    }
    blocks.trial = guess.clone();
    let mut state = guess.clone();
    let (work_tx, work_rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(threads);
    let work_rx = Mutex::new(work_rx);
    let (done_tx, done_rx) = mpsc::channel::<(usize, StatementBlock)>();
    // Blocks are numbered from 1 (block 0 was merged above).
    let stopped = std::thread::scope(|scope| -> Result<Option<Vec<Vec<u8>>>, EngineError> {
        for _ in 0..threads {
            let (work_rx, done_tx, guess) = (&work_rx, done_tx.clone(), &guess);
            scope.spawn(move || {
                work(work_rx, &done_tx, |bytes| {
                    parse_block(bytes, guess, options)
                })
            });
        }
        drop(done_tx);
        let mut order = InOrder {
            ready: BTreeMap::new(),
            next: 1,
            stop: None,
        };
        let mut n_sent = 0;
        while order.stop.is_none() {
            let Some(bytes) = read(&mut blocks)? else {
                break;
            };
            if work_tx.send((n_sent + 1, bytes)).is_err() {
                break;
            }
            n_sent += 1;
            order.ready.extend(done_rx.try_iter());
            order.merge(&mut state, &mut merger, options, progress)?;
        }
        drop(work_tx);
        // Every block sent comes back (the workers drain the queue), also after a stop:
        // the bytes of those after the failing one follow it.
        while order.received() < n_sent {
            let Ok((index, block)) = done_rx.recv() else {
                break;
            };
            order.ready.insert(index, block);
            order.merge(&mut state, &mut merger, options, progress)?;
        }
        Ok(order.stop.map(|mut kept| {
            kept.extend(order.ready.into_values().map(|block| block.bytes));
            kept
        }))
    })?;
    match stopped {
        None => Ok(merger.finish(progress)),
        Some(kept) => sequential_rest(merger, kept, blocks, &state, options, progress),
    }
}

/// Parsed blocks waiting for their turn, and where the merge stopped, if it did.
struct InOrder {
    ready: BTreeMap<usize, StatementBlock>,
    /// The next block to merge.
    next: usize,
    /// The bytes of the first block that failed: the merge stops there.
    stop: Option<Vec<Vec<u8>>>,
}

impl InOrder {
    /// Blocks back from the workers: merged (or stopped at) and waiting.
    fn received(&self) -> usize {
        self.next - 1 + self.ready.len()
    }

    /// Merges the blocks next in order, each parsed again from `state` (the state in
    /// force at its start) when it was parsed from another; stops at the first that fails.
    fn merge(
        &mut self,
        state: &mut State,
        merger: &mut Merger<'_>,
        options: &ImportOptions,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), EngineError> {
        while self.stop.is_none() {
            let Some(mut block) = self.ready.remove(&self.next) else {
                break;
            };
            self.next += 1;
            if block.start != *state {
                block = parse_block(block.bytes, state, options);
            }
            match block.end {
                Some(end) => {
                    *state = end;
                    merger.merge(block.parsed, progress)?;
                }
                None => self.stop = Some(vec![block.bytes]),
            }
        }
        Ok(())
    }
}

/// Parses the rest of a document sequentially from the start of the block in `kept[0]`
/// (a true statement boundary, where `state` is in force): the blocks kept, then what the
/// cutter holds and has not read. Errors are placed as a sequential parse places them.
fn sequential_rest<R: Read>(
    mut merger: Merger<'_>,
    kept: Vec<Vec<u8>>,
    blocks: StatementBlocks<R>,
    state: &State,
    options: &ImportOptions,
    progress: &mut dyn FnMut(u64),
) -> Result<ExternalSort<QuadKey>, EngineError> {
    let kept: Vec<u8> = kept.concat();
    let reader = std::io::Cursor::new(kept)
        .chain(std::io::Cursor::new(blocks.carry))
        .chain(blocks.reader);
    let parser =
        Parser::new(options.format.0, state).map_err(|e| EngineError::InvalidArgument {
            param: "base_iri".into(),
            message: e.to_string(),
        })?;
    let mut local = LocalTerms::default();
    let mut quads = Vec::new();
    // Lines stay 0: the merger places an error from the kept block's first line on.
    let chunk = |local: &mut LocalTerms, quads: &mut Vec<[u32; 4]>, error| ParsedBlock {
        terms: std::mem::take(local).terms,
        quads: std::mem::take(quads),
        lines: 0,
        error,
    };
    for quad in parser.for_reader(reader) {
        match quad {
            Ok(quad) => {
                quads.push(local_quad(&mut local, quad));
                if quads.len() == FALLBACK_BLOCK_QUADS {
                    merger.merge(chunk(&mut local, &mut quads, None), progress)?;
                }
            }
            Err(error) => {
                let error = syntax_error(RdfParseError::from(error), options);
                merger.merge(chunk(&mut local, &mut quads, Some(error)), progress)?;
            }
        }
    }
    merger.merge(chunk(&mut local, &mut quads, None), progress)?;
    Ok(merger.finish(progress))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::engine::ImportFormat;
    use crate::engine::import::quads;

    fn options(format: RdfFormat) -> ImportOptions {
        ImportOptions {
            format: ImportFormat(format),
            base_iri: Some("http://base/".into()),
            into_graph: None,
            one_graph: false,
            source_name: "doc".into(),
        }
    }

    /// Quads as N-Quads lines, blank nodes numbered by first use.
    fn canonical(quads: impl Iterator<Item = Quad>) -> Vec<String> {
        let mut names: HashMap<String, usize> = HashMap::new();
        let mut name = |term: String| -> String {
            match term.strip_prefix("_:") {
                Some(label) => {
                    let n = names.len();
                    format!("_:b{}", names.entry(label.to_owned()).or_insert(n))
                }
                None => term,
            }
        };
        quads
            .map(|q| {
                let graph = match q.graph_name {
                    RdfGraphName::DefaultGraph => String::new(),
                    g => name(g.to_string()),
                };
                format!(
                    "{} {} {} {graph}",
                    name(q.subject.to_string()),
                    q.predicate,
                    name(q.object.to_string())
                )
            })
            .collect()
    }

    fn sequential(document: &str, options: &ImportOptions) -> Result<Vec<String>, EngineError> {
        let quads: Result<Vec<Quad>, EngineError> = quads(document.as_bytes(), options)?.collect();
        Ok(canonical(quads?.into_iter()))
    }

    fn parallel(
        document: &str,
        options: &ImportOptions,
        block_bytes: usize,
    ) -> Result<Vec<String>, EngineError> {
        let dict = Dict::default();
        let mut counts = Vec::new();
        let keys = parse_statements(
            &dict,
            document.as_bytes(),
            options,
            3,
            block_bytes,
            &mut |n| counts.push(n),
            ExternalSort::new(None, usize::MAX),
        )?
        .into_pushed();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
        assert_eq!(counts.last().copied(), Some(keys.len() as u64));
        Ok(canonical(
            keys.iter().map(|k| dict.quad(k).expect("resolves")),
        ))
    }

    /// Turtle with what makes cutting hard: statements over several lines, blank node
    /// property lists, labels shared across the document, long literals holding lines
    /// that end with `.` and valid Turtle, a relative IRI, and a prefix redefined halfway.
    fn turtle(redefine_at: usize, long_literals: bool) -> String {
        let mut doc = String::from("@prefix ex: <http://e/> .\n@prefix : <http://d/> .\n");
        for i in 0..300 {
            if i == redefine_at {
                doc.push_str("@prefix ex: <http://other/> .\n");
            }
            doc.push_str(&format!(
                "ex:s{i} ex:p \"v{i}\"@en ;\n    ex:q [ ex:r {i} ; ex:t _:shared{} ] ,\n        <rel{i}> .\n",
                i % 5
            ));
            if long_literals && i % 7 == 0 {
                doc.push_str(&format!(
                    ":long{i} :text \"\"\"first line .\nex:a ex:b ex:c .\nex:d ex:e ex:f .\nex:g ex:h ex:i .\nlast {i}\"\"\" .\n"
                ));
            }
        }
        doc
    }

    #[test]
    fn turtle_blocks_give_the_quads_of_a_sequential_parse() {
        let options = options(RdfFormat::Turtle);
        for (redefine_at, long_literals) in [
            (usize::MAX, false),
            (150, false),
            (usize::MAX, true),
            (150, true),
        ] {
            let doc = turtle(redefine_at, long_literals);
            let expected = sequential(&doc, &options).unwrap();
            assert_eq!(expected.len(), 300 * 5 + if long_literals { 43 } else { 0 });
            for block_bytes in [1, 40, 300, 4096, 1 << 20] {
                assert_eq!(
                    parallel(&doc, &options, block_bytes).unwrap(),
                    expected,
                    "blocks of {block_bytes} bytes, prefix redefined at {redefine_at}, \
                     long literals: {long_literals}"
                );
            }
        }
        assert!(parallel("", &options, 10).unwrap().is_empty());
    }

    #[test]
    fn trig_blocks_give_the_quads_of_a_sequential_parse() {
        let options = options(RdfFormat::TriG);
        let mut doc = String::from("@prefix ex: <http://e/> .\n");
        for i in 0..200 {
            doc.push_str(&format!("ex:s{i} ex:p {i} .\n"));
            doc.push_str(&format!(
                "ex:g{} {{\n  ex:s{i} ex:q \"in a graph\" .\n  ex:s{i} ex:r _:x{} .\n}}\n",
                i % 3,
                i % 4
            ));
        }
        let expected = sequential(&doc, &options).unwrap();
        assert_eq!(expected.len(), 600);
        for block_bytes in [1, 64, 1000, 1 << 20] {
            assert_eq!(parallel(&doc, &options, block_bytes).unwrap(), expected);
        }
    }

    #[test]
    fn an_error_is_reported_as_the_sequential_parse_reports_it() {
        let options = options(RdfFormat::Turtle);
        for bad in [
            "ex:a ex:b undeclared:c .\n",
            "ex:a ex:b \"never closed .\nex:c ex:d ex:e .\n",
            "ex:a ex:b <not an iri> .\n",
        ] {
            let mut doc = turtle(usize::MAX, false);
            doc.push_str(bad);
            doc.push_str("ex:after ex:p ex:o .\n");
            let expected = sequential(&doc, &options).expect_err("a bad statement");
            assert!(
                matches!(expected, EngineError::RdfSyntax { .. }),
                "{expected}"
            );
            for block_bytes in [1, 300, 4096, 1 << 20] {
                let error = parallel(&doc, &options, block_bytes).expect_err("a bad statement");
                assert_eq!(
                    error.to_string(),
                    expected.to_string(),
                    "{bad} {block_bytes}"
                );
            }
        }
    }
}
