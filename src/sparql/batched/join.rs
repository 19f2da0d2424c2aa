//! Basic graph patterns as rows of ids: each triple pattern a scan of one sorted index
//! range, several joined (`join_rows`), with the `FILTER`s of one variable applied as
//! soon as the variable is bound (so rows they drop are never built).

use spargebra::term::{NamedNodePattern, TermPattern, TriplePattern, Variable};

use parking_lot::Mutex;

use super::parallel::{RowLimit, Workers};
use super::values::{Decoder, OneVariable};
use super::{CHECK_EVERY, Late, Positions};
use crate::model::Term;
use crate::sparql::QueryError;
use crate::store::{DEFAULT_GRAPH, GraphFilter, Pattern, QuadScan, Snapshot, TermId};
use spareval::Row;

/// The `FILTER`s of one variable each, and the group's filters of several (`Late`), which
/// a join runs as soon as it binds all of their variables.
pub(super) struct Pushed<'a> {
    pub(super) filters: &'a mut [OneVariable],
    pub(super) late: &'a [Late],
    /// The row the late filters read (layout columns, then binds'): only their
    /// variables' columns are set here.
    pub(super) row: &'a mut Row,
}

/// A late filter (index in `Plan::late`) a join step can run: where each of its
/// variables sits in the layout and in the step's joined row.
pub(super) type Ready = (usize, Vec<(usize, usize)>);

impl Pushed<'_> {
    /// For the variables at `positions` (name, position in a quad or row): the filters
    /// that test them, as (filter, position).
    pub(super) fn checks(&self, positions: &[(Variable, usize)]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for (i, filter) in self.filters.iter().enumerate() {
            if let Some((_, p)) = positions.iter().find(|(v, _)| *v == filter.variable) {
                out.push((i, *p));
            }
        }
        out
    }

    /// Whether a joined row (`ids`) passes the late filters that are `ready`.
    fn late_pass(&mut self, ready: &[Ready], ids: &[TermId], decoder: &mut Decoder<'_>) -> bool {
        ready.iter().all(|(filter, at)| {
            for (layout, column) in at {
                self.row[*layout] = decoder.value(ids[*column]);
            }
            match &self.late[*filter] {
                Late::Filter(e) => {
                    let term_of = |c: usize| {
                        at.iter()
                            .find(|(layout, _)| *layout == c)
                            .and_then(|(_, column)| decoder.term(ids[*column]))
                    };
                    e.effective_boolean_value(self.row, term_of) == Some(true)
                }
                Late::Bind(_) => true,
            }
        })
    }

    /// Whether the ids pass every check.
    pub(super) fn pass(
        &mut self,
        checks: &[(usize, usize)],
        ids: &[TermId],
        decoder: &mut Decoder<'_>,
    ) -> bool {
        self.failing(checks, ids, decoder).is_none()
    }

    /// The position of the first check the ids fail, if any.
    fn failing(
        &mut self,
        checks: &[(usize, usize)],
        ids: &[TermId],
        decoder: &mut Decoder<'_>,
    ) -> Option<usize> {
        checks
            .iter()
            .find(|(f, p)| !self.filters[*f].holds(ids[*p], decoder))
            .map(|(_, p)| *p)
    }

    /// The next quad of `part` that `keep` keeps (the pattern's own conditions) and that
    /// passes the checks. A check that rejects the id at the scan's run position skips
    /// the rest of that id's run (`QuadScan::skip_run`): a range filter on the object of
    /// a scan by predicate reads each rejected value once, not each of its quads.
    pub(super) fn next_passing(
        &mut self,
        part: &mut dyn QuadScan,
        keep: impl Fn(&[TermId; 4]) -> bool,
        checks: &[(usize, usize)],
        decoder: &mut Decoder<'_>,
        alive: &mut impl FnMut() -> Result<(), QueryError>,
    ) -> Result<Option<[TermId; 4]>, QueryError> {
        let run_position = part.run_position();
        while let Some(quad) = part.next() {
            alive()?;
            if !keep(&quad) {
                continue;
            }
            match self.failing(checks, &quad, decoder) {
                None => return Ok(Some(quad)),
                Some(position) if Some(position) == run_position => {
                    part.skip_run(quad[position]);
                }
                Some(_) => {}
            }
        }
        Ok(None)
    }
}

/// A late filter of the pattern's variables only (index in `Plan::late`), with each
/// variable's place in the layout.
pub(super) type Early = (usize, Vec<(Variable, usize)>);

/// Joined rows past this many go back to spareval (the memory budget stops them too).
pub(super) const MAX_ROWS: usize = 4_000_000;
/// Ids in the joined rows past which they go back to spareval: 64M ids (256 MiB), so a
/// narrow join may hold more than `MAX_ROWS` rows (BSBM a06 at 50M: 8.5M rows of four
/// ids, which spareval took 15 s over).
const MAX_IDS: usize = 1 << 26;

/// The rows a join of `width` columns may hold.
fn max_rows(width: usize) -> usize {
    (MAX_IDS / width.max(1)).max(MAX_ROWS)
}
/// A pattern no variable connects to the rest is joined (a cross product) only when its
/// range holds at most this many entries.
const CROSS_MAX: usize = 1024;
/// Patterns joined on this path at most.
pub(super) const MAX_PATTERNS: usize = 8;

/// Joined solutions: the variables (columns) and the rows of ids, row-major, in parts
/// (read one after the other, the rows in the order one thread would make them).
pub(super) type JoinedRows = (Vec<Variable>, Vec<Vec<TermId>>);

/// Rows a join starts from instead of a scan (a semi-join's outer tuples): their
/// columns, and their ids row-major.
pub(super) struct Seed {
    pub(super) columns: Vec<Variable>,
    pub(super) rows: Vec<TermId>,
}

/// One pattern of a join: its scan, where its variables sit, repeated variables.
struct Scan {
    pattern: Pattern,
    positions: Positions,
    equal: Vec<(usize, usize)>,
}

impl Scan {
    fn passes(&self, quad: &[TermId; 4]) -> bool {
        self.equal.iter().all(|(a, b)| quad[*a] == quad[*b])
    }
}

/// The solutions of a basic graph pattern of several triple patterns, as rows of ids
/// (row-major, one column per variable, the columns returned): the pattern with the
/// smallest index range first (`Snapshot::range_size`), then, each time, the smallest
/// one sharing a variable with the rows so far, joined by looking it up once per row
/// when the rows are few beside its range, else by hashing its scan on the shared
/// variables. The first scan is cut into parts (`Workers::parts`) and each part's rows
/// go through every step on one of the query's threads, each thread with its own
/// `Local` (from `init`). `filtered`: the variable of each pushed filter. `None`: not a
/// join this path takes (a cross product with more than `CROSS_MAX` entries, too many patterns or rows, a triple
/// term).
#[allow(clippy::too_many_arguments)]
pub(super) fn join_rows<'s, L: AsLocal<'s>>(
    patterns: &[TriplePattern],
    snapshot: &'s Snapshot,
    workers: &Workers<'_>,
    parallel: bool,
    init: &(dyn Fn() -> Option<L> + Sync),
    filtered: &[&Variable],
    equalities: &[Equality],
    early: &[Early],
    seed: Option<Seed>,
) -> Result<Option<JoinedRows>, QueryError> {
    if patterns.len() > MAX_PATTERNS {
        return Ok(None);
    }
    let mut scans = Vec::new();
    let mut all_vars: Vec<Variable> = Vec::new();
    let mut nothing = false;
    for triple in patterns {
        let Some((pattern, positions, equal)) = scan_pattern(triple, snapshot) else {
            return Ok(None);
        };
        for (v, _) in &positions.names {
            if !all_vars.contains(v) {
                all_vars.push(v.clone());
            }
        }
        match pattern {
            None => nothing = true,
            // A pattern without variables only says whether its quad is there.
            Some(pattern) if positions.names.is_empty() => {
                nothing |= snapshot.quads(pattern).next().is_none();
            }
            Some(pattern) => scans.push(Scan {
                pattern,
                positions,
                equal,
            }),
        }
    }
    if nothing {
        let mut columns = seed.map(|seed| seed.columns).unwrap_or_default();
        for v in all_vars {
            if !columns.contains(&v) {
                columns.push(v);
            }
        }
        return Ok(Some((columns, Vec::new())));
    }
    if scans.is_empty() || seed.as_ref().is_some_and(|seed| seed.columns.is_empty()) {
        return Ok(None);
    }
    let sizes: Vec<usize> = scans
        .iter()
        .map(|s| snapshot.range_size(s.pattern))
        .collect();
    // The order to join in: a pattern whose variables a filter tests counts as half its
    // size per filter (a guess: the filter's selectivity is unknown before it runs), so
    // of equal ranges the filtered ones are joined first and fewer rows are built.
    let halvings: Vec<usize> = scans
        .iter()
        .map(|s| {
            filtered
                .iter()
                .filter(|v| s.positions.of(v).is_some())
                .count()
                .min(8)
        })
        .collect();
    let estimates: Vec<usize> = sizes.iter().zip(&halvings).map(|(s, h)| s >> h).collect();
    let mut remaining: Vec<usize> = (0..scans.len()).collect();
    let (mut columns, mut rows) = match seed {
        Some(seed) => (seed.columns, vec![seed.rows]),
        None => {
            let Some(start) = start(
                &scans,
                &sizes,
                &halvings,
                &estimates,
                &mut remaining,
                snapshot,
                workers,
                parallel,
                init,
            )?
            else {
                return Ok(None);
            };
            start
        }
    };
    while !remaining.is_empty() {
        let connected = |i: &usize| {
            scans[*i]
                .positions
                .names
                .iter()
                .any(|(v, _)| columns.contains(v))
        };
        let mut shared: Vec<(usize, usize)> = Vec::new();
        let mut fresh: Vec<(Variable, usize)> = Vec::new();
        let next = match remaining
            .iter()
            .copied()
            .filter(connected)
            .min_by_key(|i| estimates[*i])
        {
            Some(next) => {
                for (v, position) in &scans[next].positions.names {
                    match columns.iter().position(|c| c == v) {
                        Some(column) => shared.push((column, *position)),
                        None => fresh.push((v.clone(), *position)),
                    }
                }
                next
            }
            // Not connected by a variable: maybe by a `FILTER(?a = ?b)`, else a cross
            // product with a small scan (a constant's values beside everyone's; every
            // row with every quad: a hash join on no key).
            None => {
                if let Some((next, column, position)) = equality_join(
                    &scans, &remaining, &sizes, &columns, &rows, equalities, snapshot,
                ) {
                    shared.push((column, position));
                    fresh.extend(scans[next].positions.names.iter().cloned());
                    next
                } else {
                    let n_rows = rows.iter().map(Vec::len).sum::<usize>() / columns.len().max(1);
                    let Some(next) = remaining
                        .iter()
                        .copied()
                        .filter(|i| sizes[*i] <= CROSS_MAX)
                        .min_by_key(|i| sizes[*i])
                        .filter(|i| {
                            n_rows.saturating_mul(sizes[*i])
                                <= max_rows(columns.len() + scans[*i].positions.names.len())
                        })
                    else {
                        return Ok(None);
                    };
                    fresh.extend(scans[next].positions.names.iter().cloned());
                    next
                }
            }
        };
        remaining.retain(|i| *i != next);
        let scan = &scans[next];
        // The late filters whose last variable this step binds.
        let column_of = |v: &Variable| {
            columns.iter().position(|c| c == v).or_else(|| {
                fresh
                    .iter()
                    .position(|(f, _)| f == v)
                    .map(|k| columns.len() + k)
            })
        };
        let ready: Vec<Ready> = early
            .iter()
            .filter(|(_, vars)| !vars.iter().all(|(v, _)| columns.contains(v)))
            .filter_map(|(filter, vars)| {
                let at: Option<Vec<(usize, usize)>> = vars
                    .iter()
                    .map(|(v, layout)| column_of(v).map(|c| (*layout, c)))
                    .collect();
                Some((*filter, at?))
            })
            .collect();
        if shared.len() > 3 {
            return Ok(None);
        }
        let width = columns.len();
        rows = workers.balance(rows, width, parallel);
        let n_rows = rows.iter().map(|part| part.len()).sum::<usize>() / width.max(1);
        let lookups = n_rows.saturating_mul(LOOKUP_RATIO) < sizes[next];
        // Rows looked up in the order of their keys: each binary search then walks the
        // index near the one before (cache lines still loaded) instead of anywhere.
        if lookups && n_rows >= SORT_LOOKUPS_FROM && width > 0 {
            let mut by_position = shared.clone();
            by_position.sort_by_key(|(_, position)| *position);
            let columns: Vec<usize> = by_position.iter().map(|(column, _)| *column).collect();
            for part in &mut rows {
                sort_rows(part, width, &columns);
            }
        }
        let emit = |row: &[TermId], quad: &[TermId; 4], joined: &mut Vec<TermId>| {
            joined.extend_from_slice(row);
            joined.extend(fresh.iter().map(|(_, p)| quad[*p]));
        };
        let limit = RowLimit::new(max_rows(width + fresh.len()));
        // Each part of the rows through this step, on the query's threads; `probe`
        // gives one row's matching quads, `ahead` is told of the rows `AHEAD` and
        // `AHEAD / 2` further on (a hash probe starts loading their buckets).
        let step = |probe: &Probe<'_>, ahead: Option<&Ahead<'_>>, checked: bool| {
            workers.map(rows.len(), init, |local, i| {
                let mut alive = workers.ticker();
                let (mut pushed, decoder) = local.parts();
                let checks = pushed.checks(&fresh);
                let mut joined: Vec<TermId> = Vec::new();
                let mut counted = 0;
                let part = &rows[i];
                for (r, row) in part.chunks(width).enumerate() {
                    alive()?;
                    if let Some(ahead) = ahead {
                        for (distance, stage) in [(AHEAD, Stage::Bucket), (AHEAD / 2, Stage::Quads)]
                        {
                            let at = (r + distance) * width;
                            if let Some(later) = part.get(at..at + width) {
                                ahead(later, stage);
                            }
                        }
                    }
                    let before = joined.len();
                    probe(row, &mut |quad| {
                        if !checked || pushed.pass(&checks, quad, decoder) {
                            let start = joined.len();
                            emit(row, quad, &mut joined);
                            if !ready.is_empty()
                                && !pushed.late_pass(&ready, &joined[start..], decoder)
                            {
                                joined.truncate(start);
                            }
                        }
                    });
                    counted += (joined.len() - before) / (width + fresh.len()).max(1);
                    if counted >= CHECK_EVERY {
                        if !limit.add(counted) {
                            return Ok(None);
                        }
                        counted = 0;
                        // Rows made count as checks too: a row that joins with many
                        // quads (a cross product) is many rows' work.
                        workers.check()?;
                    }
                }
                Ok(limit.add(counted).then_some(joined))
            })
        };
        let joined = if lookups {
            // Few rows: look the pattern up with each row's values bound.
            step(
                &|row, found| {
                    let mut bound = scan.pattern;
                    for (column, position) in &shared {
                        let id = Some(row[*column]);
                        match position {
                            0 => bound.subject = id,
                            1 => bound.predicate = id,
                            _ => bound.object = id,
                        }
                    }
                    for quad in snapshot.quads(bound) {
                        if scan.passes(&quad) {
                            found(&quad);
                        }
                    }
                },
                None,
                true,
            )?
        } else {
            // Many rows: hash the pattern's scan on the shared variables (here, once;
            // the parts probe it). The matching quads are kept sorted by key in one
            // array, the table holds each key's run (no allocation per key).
            let key_of = |quad: &[TermId; 4]| {
                let mut key = [0; 3];
                for (slot, (_, position)) in key.iter_mut().zip(&shared) {
                    *slot = quad[*position];
                }
                key
            };
            // The scan in parts too (the table is one, built from their quads).
            let n_parts = if parallel {
                workers.parts(sizes[next])
            } else {
                1
            };
            let parts: Vec<Mutex<Option<_>>> = snapshot
                .quads_split(scan.pattern, n_parts)
                .into_iter()
                .map(|part| Mutex::new(Some(part)))
                .collect();
            let Some(parts) = workers.map(parts.len(), init, |local, i| {
                let mut alive = workers.ticker();
                let (mut pushed, decoder) = local.parts();
                let checks = pushed.checks(&fresh);
                let mut quads: Vec<[TermId; 4]> = Vec::new();
                if let Some(mut part) = parts[i].lock().take() {
                    let keep = |quad: &[TermId; 4]| scan.passes(quad);
                    while let Some(quad) =
                        pushed.next_passing(&mut *part, keep, &checks, decoder, &mut alive)?
                    {
                        quads.push(quad);
                    }
                }
                Ok(Some(quads))
            })?
            else {
                return Ok(None);
            };
            let table = KeyTable::build(parts, key_of);
            step(
                &|row, found| {
                    let mut key = [0; 3];
                    for (slot, (column, _)) in key.iter_mut().zip(&shared) {
                        *slot = row[*column];
                    }
                    table.probe(&key, key_of, found);
                },
                Some(&|row, stage| {
                    let mut key = [0; 3];
                    for (slot, (column, _)) in key.iter_mut().zip(&shared) {
                        *slot = row[*column];
                    }
                    table.prefetch(&key, stage);
                }),
                false,
            )?
        };
        let Some(joined) = joined else {
            return Ok(None);
        };
        tracing::debug!(
            pattern = next,
            range = sizes[next],
            rows = n_rows,
            joined = joined.iter().map(Vec::len).sum::<usize>() / (width + fresh.len()).max(1),
            by = if lookups { "lookups" } else { "hash" },
            "batched join step"
        );
        columns.extend(fresh.into_iter().map(|(v, _)| v));
        rows = joined;
    }
    let rows = workers.balance(rows, columns.len(), parallel);
    Ok(Some((columns, rows)))
}

/// The join's first rows: the scan of its cheapest start (taken out of `remaining`),
/// with the columns it binds; `None` when the rows grow past the limit.
#[allow(clippy::too_many_arguments)]
fn start<'s, L: AsLocal<'s>>(
    scans: &[Scan],
    sizes: &[usize],
    halvings: &[usize],
    estimates: &[usize],
    remaining: &mut Vec<usize>,
    snapshot: &'s Snapshot,
    workers: &Workers<'_>,
    parallel: bool,
    init: &(dyn Fn() -> Option<L> + Sync),
) -> Result<Option<JoinedRows>, QueryError> {
    let smallest = remaining.iter().map(|i| estimates[*i]).min().unwrap_or(0);
    // The smallest range is the start, unless every range is big enough that a bad start
    // costs more than looking: then the start whose first join makes the fewest rows
    // (BSBM bi1 started from 151 product types, which 499,801 type triples fan out to
    // 55,700 rows; from one country's 750 producers the first join makes 1,465).
    let first = if scans.len() >= 3 && smallest >= SAMPLE_FROM {
        remaining
            .iter()
            .copied()
            .min_by_key(|i| {
                (
                    first_step_estimate(scans, sizes, halvings, *i, snapshot),
                    estimates[*i],
                )
            })
            .unwrap_or(0)
    } else {
        remaining
            .iter()
            .copied()
            .min_by_key(|i| estimates[*i])
            .unwrap_or(0)
    };
    remaining.retain(|i| *i != first);
    tracing::debug!(
        pattern = first,
        range = sizes[first],
        ?sizes,
        "batched join scan"
    );
    let columns: Vec<Variable> = scans[first]
        .positions
        .names
        .iter()
        .map(|(v, _)| v.clone())
        .collect();
    let n_parts = if parallel {
        workers.parts(sizes[first])
    } else {
        1
    };
    let parts: Vec<Mutex<Option<_>>> = snapshot
        .quads_split(scans[first].pattern, n_parts)
        .into_iter()
        .map(|part| Mutex::new(Some(part)))
        .collect();
    let limit = RowLimit::new(max_rows(columns.len()));
    let Some(rows) = workers.map(parts.len(), init, |local, i| {
        let scan = &scans[first];
        let mut alive = workers.ticker();
        let (mut pushed, decoder) = local.parts();
        let checks = pushed.checks(&scan.positions.names);
        let mut out: Vec<TermId> = Vec::new();
        let mut counted = 0;
        let Some(mut part) = parts[i].lock().take() else {
            return Ok(limit.add(0).then_some(out));
        };
        let keep = |quad: &[TermId; 4]| scan.passes(quad);
        while let Some(quad) =
            pushed.next_passing(&mut *part, keep, &checks, decoder, &mut alive)?
        {
            out.extend(scan.positions.names.iter().map(|(_, p)| quad[*p]));
            counted += 1;
            if counted == CHECK_EVERY {
                if !limit.add(counted) {
                    return Ok(None);
                }
                counted = 0;
            }
        }
        Ok(limit.add(counted).then_some(out))
    })?
    else {
        return Ok(None);
    };
    Ok(Some((columns, rows)))
}

/// A join step looks its pattern up once per row when the rows times this are fewer than
/// the pattern's range, else it hashes the range.
pub(super) const LOOKUP_RATIO: usize = 32;

/// Rows from which a step of lookups sorts them by key first.
const SORT_LOOKUPS_FROM: usize = 256;

/// `rows` (row-major, `width` ids each) reordered by the ids at `columns`.
fn sort_rows(rows: &mut Vec<TermId>, width: usize, columns: &[usize]) {
    let mut order: Vec<(u128, u32)> = rows
        .chunks(width)
        .enumerate()
        .map(|(i, row)| {
            let key = columns
                .iter()
                .fold(0u128, |key, c| (key << 32) | u128::from(row[*c]));
            (key, i as u32)
        })
        .collect();
    if order.windows(2).all(|w| w[0].0 <= w[1].0) {
        return;
    }
    order.sort_unstable();
    let mut sorted = Vec::with_capacity(rows.len());
    for (_, i) in order {
        let at = i as usize * width;
        sorted.extend_from_slice(&rows[at..at + width]);
    }
    *rows = sorted;
}

/// Ranges at least this big (all of a join's) have its start chosen by sampling
/// (`first_step_estimate`); below, the smallest range starts (a lookup query's patterns
/// are a few entries each, and sampling would cost it more than it saves).
const SAMPLE_FROM: usize = 100;
/// Quads sampled from a candidate start, spread over its range.
const SAMPLES: usize = 8;

/// What starting from `scans[from]` costs: its range (halved per filter) and the rows of
/// its first join, estimated: a few of its quads, spread over its range, bound into each
/// pattern it shares a variable with, that pattern's range counted for each (binary
/// searches only), the smallest average times `from`'s size, halved per filter of
/// either pattern as the join order does (its own estimate again when no pattern shares
/// a variable with it). 0 when no quad is found: an empty start makes no rows.
fn first_step_estimate(
    scans: &[Scan],
    sizes: &[usize],
    halvings: &[usize],
    from: usize,
    snapshot: &Snapshot,
) -> usize {
    let own = sizes[from] >> halvings[from];
    let samples: Vec<[TermId; 4]> = snapshot
        .quads_split(scans[from].pattern, SAMPLES)
        .into_iter()
        .filter_map(|mut part| part.find(|quad| scans[from].passes(quad)))
        .collect();
    if samples.is_empty() {
        return 0;
    }
    let mut best: Option<usize> = None;
    for (j, other) in scans.iter().enumerate() {
        let shared: Vec<(usize, usize)> = other
            .positions
            .names
            .iter()
            .filter_map(|(v, p)| scans[from].positions.of(v).map(|q| (q, *p)))
            .collect();
        if j == from || shared.is_empty() {
            continue;
        }
        let matches: usize = samples
            .iter()
            .map(|quad| {
                let mut bound = other.pattern;
                for (q, p) in &shared {
                    let id = Some(quad[*q]);
                    match p {
                        0 => bound.subject = id,
                        1 => bound.predicate = id,
                        _ => bound.object = id,
                    }
                }
                snapshot.range_size(bound)
            })
            .sum();
        let rows = sizes[from].saturating_mul(matches) / samples.len();
        let rows = rows >> (halvings[from] + halvings[j]).min(16);
        best = Some(best.map_or(rows, |b| b.min(rows)));
    }
    // Both ends of one join make the same rows; the smaller one is cheaper to start from.
    own.saturating_add(best.unwrap_or(own))
}

/// The build side of a hash join: its quads grouped by the hash of their key into
/// buckets (a counting sort on the bucket: two passes, no comparison, no allocation per
/// key), each bucket's quads in scan order, so a key's quads come out in the order one
/// thread would have scanned them. A probe reads its bucket (on average about one quad
/// per bucket) and keeps the quads of its key.
struct KeyTable {
    quads: Vec<[TermId; 4]>,
    /// Bucket `b` holds `quads[starts[b]..starts[b + 1]]`.
    starts: Vec<u32>,
    mask: u64,
}

impl KeyTable {
    /// From the scan's parts, in part order.
    fn build(parts: Vec<Vec<[TermId; 4]>>, key_of: impl Fn(&[TermId; 4]) -> [TermId; 3]) -> Self {
        let n: usize = parts.iter().map(Vec::len).sum();
        let buckets = n.next_power_of_two().max(1);
        let mask = buckets as u64 - 1;
        let mut starts = vec![0u32; buckets + 1];
        // Bucket numbers are random: each pass asks for the counter `AHEAD` quads on
        // before it needs it, so the cache misses overlap (a table past the CPU's caches
        // took most of a join's time).
        for part in &parts {
            for (i, quad) in part.iter().enumerate() {
                if let Some(later) = part.get(i + AHEAD) {
                    prefetch(&starts[Self::bucket(&key_of(later), mask) + 1]);
                }
                starts[Self::bucket(&key_of(quad), mask) + 1] += 1;
            }
        }
        for b in 0..buckets {
            starts[b + 1] += starts[b];
        }
        let mut next = starts.clone();
        let mut quads = vec![[0; 4]; n];
        for part in parts {
            for (i, quad) in part.iter().enumerate() {
                // Two dependent reads: the bucket's next slot, then that slot.
                if let Some(later) = part.get(i + 2 * AHEAD) {
                    prefetch(&next[Self::bucket(&key_of(later), mask)]);
                }
                if let Some(later) = part.get(i + AHEAD) {
                    let slot = next[Self::bucket(&key_of(later), mask)] as usize;
                    if let Some(target) = quads.get(slot) {
                        prefetch(target);
                    }
                }
                let slot = &mut next[Self::bucket(&key_of(quad), mask)];
                quads[*slot as usize] = *quad;
                *slot += 1;
            }
        }
        KeyTable {
            quads,
            starts,
            mask,
        }
    }

    fn bucket(key: &[TermId; 3], mask: u64) -> usize {
        let mixed = (u64::from(key[0]) | u64::from(key[1]) << 32)
            .wrapping_add(u64::from(key[2]).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        ((mixed >> 32 ^ mixed) & mask) as usize
    }

    /// Starts loading what a probe of `key` will read: its bucket's bounds, or (when
    /// they are likely loaded by now) its first quad.
    fn prefetch(&self, key: &[TermId; 3], stage: Stage) {
        let b = Self::bucket(key, self.mask);
        match stage {
            Stage::Bucket => prefetch(&self.starts[b]),
            Stage::Quads => {
                if let Some(quad) = self.quads.get(self.starts[b] as usize) {
                    prefetch(quad);
                }
            }
        }
    }

    fn probe(
        &self,
        key: &[TermId; 3],
        key_of: impl Fn(&[TermId; 4]) -> [TermId; 3],
        found: &mut dyn FnMut(&[TermId; 4]),
    ) {
        let b = Self::bucket(key, self.mask);
        let (from, to) = (self.starts[b] as usize, self.starts[b + 1] as usize);
        for quad in &self.quads[from..to] {
            if key_of(quad) == *key {
                found(quad);
            }
        }
    }
}

/// One row's matching quads of the next pattern, each given to the callback.
type Probe<'a> = dyn Fn(&[TermId], &mut dyn FnMut(&[TermId; 4])) + Sync + 'a;

/// Told of a row a probe will come to soon, and which of its reads to start.
type Ahead<'a> = dyn Fn(&[TermId], Stage) + Sync + 'a;

/// How many rows (or quads) ahead a hash join asks for what it will read: about the
/// number of cache misses a core keeps in flight.
const AHEAD: usize = 16;

/// The two dependent reads of a hash probe: the bucket's bounds, then its quads.
#[derive(Clone, Copy)]
enum Stage {
    Bucket,
    Quads,
}

/// A hint to the CPU to start loading `value`'s cache line; it changes nothing else.
#[inline]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        #[allow(unsafe_code)]
        // SAFETY: a prefetch is a hint that never faults; the address is a live reference.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast())
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// A thread's own filters and decoded values, for the join.
pub(super) trait AsLocal<'s> {
    fn parts(&mut self) -> (Pushed<'_>, &mut Decoder<'s>);
}

/// A `FILTER(?a = ?b)` or `FILTER(sameTerm(?a, ?b))` of the group (the filter itself
/// still runs on every joined row; this only lets the join use it as a key).
pub(super) struct Equality {
    pub(super) left: Variable,
    pub(super) right: Variable,
    pub(super) same_term: bool,
}

/// The smallest remaining scan that an equality connects to the rows so far, with the
/// rows' column and the scan's position it equates. Equal ids are the only equal values
/// when one side holds no literal and no triple term (`=` compares those by value), so
/// an `=` is taken as a key only then; `sameTerm` always.
fn equality_join(
    scans: &[Scan],
    remaining: &[usize],
    sizes: &[usize],
    columns: &[Variable],
    rows: &[Vec<TermId>],
    equalities: &[Equality],
    snapshot: &Snapshot,
) -> Option<(usize, usize, usize)> {
    let mut best: Option<(usize, usize, usize, bool)> = None;
    for i in remaining {
        for e in equalities {
            for (bound, other) in [(&e.left, &e.right), (&e.right, &e.left)] {
                if let (Some(column), Some(position)) = (
                    columns.iter().position(|c| c == bound),
                    scans[*i].positions.of(other),
                ) && best.is_none_or(|(b, ..)| sizes[*i] < sizes[b])
                {
                    best = Some((*i, column, position, e.same_term));
                }
            }
        }
    }
    let (next, column, position, same_term) = best?;
    let width = columns.len();
    let plain = |ids: &mut dyn Iterator<Item = TermId>| {
        let mut seen = rustc_hash::FxHashSet::default();
        ids.filter(|id| seen.insert(*id)).all(|id| {
            matches!(
                snapshot.term(id),
                Some(Term::NamedNode(_) | Term::BlankNode(_))
            )
        })
    };
    let ok = same_term
        || plain(
            &mut rows
                .iter()
                .flat_map(|part| part.chunks(width.max(1)))
                .map(|row| row[column]),
        )
        || plain(
            &mut snapshot
                .quads(scans[next].pattern)
                .map(|quad| quad[position]),
        );
    ok.then_some((next, column, position))
}

/// The store pattern of a triple pattern (`None` inside: a constant the store does not
/// hold, so nothing matches), where its variables sit, and the positions that must hold
/// the same id (a variable used twice). `None`: not a pattern this path scans.
#[allow(clippy::type_complexity)]
pub(super) fn scan_pattern(
    triple: &TriplePattern,
    snapshot: &Snapshot,
) -> Option<(Option<Pattern>, Positions, Vec<(usize, usize)>)> {
    let mut positions = Positions { names: Vec::new() };
    let mut equal = Vec::new();
    let mut bound: [Option<TermId>; 3] = [None; 3];
    let mut missing = false;
    let mut place = |name: Variable, position: usize, equal: &mut Vec<(usize, usize)>| {
        match positions.of(&name) {
            Some(first) => equal.push((first, position)),
            None => positions.names.push((name, position)),
        }
    };
    let mut constant = |term: Term, position: usize| match snapshot.lookup(&term) {
        Some(id) => bound[position] = Some(id),
        None => missing = true,
    };
    match &triple.subject {
        TermPattern::Variable(v) => place(v.clone(), 0, &mut equal),
        TermPattern::BlankNode(b) => place(blank_variable(b.as_str()), 0, &mut equal),
        TermPattern::NamedNode(n) => constant(n.clone().into(), 0),
        _ => return None,
    }
    match &triple.predicate {
        NamedNodePattern::Variable(v) => place(v.clone(), 1, &mut equal),
        NamedNodePattern::NamedNode(n) => constant(n.clone().into(), 1),
    }
    match &triple.object {
        TermPattern::Variable(v) => place(v.clone(), 2, &mut equal),
        TermPattern::BlankNode(b) => place(blank_variable(b.as_str()), 2, &mut equal),
        TermPattern::NamedNode(n) => constant(n.clone().into(), 2),
        TermPattern::Literal(l) => constant(l.clone().into(), 2),
        TermPattern::Triple(_) => return None,
    }
    let pattern = (!missing).then_some(Pattern {
        subject: bound[0],
        predicate: bound[1],
        object: bound[2],
        graph: GraphFilter::Is(DEFAULT_GRAPH),
    });
    Some((pattern, positions, equal))
}

/// The variables of a triple pattern (a blank node as `blank_variable`), `None` for a
/// triple term (not scanned here).
pub(super) fn pattern_variables(triple: &TriplePattern) -> Option<Vec<Variable>> {
    let mut out = Vec::new();
    for term in [&triple.subject, &triple.object] {
        match term {
            TermPattern::Variable(v) => out.push(v.clone()),
            TermPattern::BlankNode(b) => out.push(blank_variable(b.as_str())),
            TermPattern::Triple(_) => return None,
            _ => {}
        }
    }
    if let NamedNodePattern::Variable(v) = &triple.predicate {
        out.push(v.clone());
    }
    Some(out)
}

/// A blank node of a pattern is a variable no one can name: one that cannot clash.
pub(super) fn blank_variable(id: &str) -> Variable {
    Variable::new_unchecked(format!("{BLANK_PREFIX}{id}"))
}

const BLANK_PREFIX: &str = "__batched_blank_";

/// Whether `variable` stands for a blank node of a pattern (`blank_variable`).
pub(super) fn is_blank_variable(variable: &Variable) -> bool {
    variable.as_str().starts_with(BLANK_PREFIX)
}
