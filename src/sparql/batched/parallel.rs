//! The threads of one query's batched path (`--query-threads`): a scan is cut into
//! consecutive parts (`Snapshot::quads_split`), and each part, then each part's rows
//! through every join step and into partial groups, is one unit of work. Threads take
//! parts in turn; results come back in part order, so rows, groups and every
//! aggregate's input keep the order one thread would have seen (`GROUP_CONCAT`,
//! `SAMPLE` and the groups' order are those of the row-at-a-time path).
//!
//! Each thread builds its own compiled expressions (`init`): spareval's are
//! reference-counted and cannot cross threads. Helpers charge their allocations to the
//! query's memory budget and check its cancellation token, so the query's limits hold
//! for all of its threads together. They are scoped: all of them have ended when `map`
//! returns, before the query's budget can be reused.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::Mutex;
use spareval::CancellationToken;

use crate::memory::SharedBudget;
use crate::sparql::QueryError;

/// Below this many index entries a scan stays one part: threads would cost more than
/// they save (and lookups never pay for them).
pub(super) const PARALLEL_MIN: usize = 1 << 14;
/// Parts per thread: more parts than threads even out parts of uneven cost.
const PARTS_PER_THREAD: usize = 4;
/// Smallest part worth its own unit of work.
const MIN_PART: usize = 1 << 12;
/// Joined rows are cut into parts from this many on (a row costs more than an index
/// entry: a lookup, a probe, a group).
const ROWS_PARALLEL_MIN: usize = 1 << 14;
/// Smallest part of joined rows.
const MIN_ROWS_PART: usize = 1 << 12;

#[cfg(test)]
thread_local! {
    /// Tests: cut every scan of two entries or more into parts, so that small random
    /// graphs go through the threads and the merges (set on the query's thread).
    pub(crate) static TINY_PARTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// (fewest entries or rows to cut into parts, smallest part): as given, or tiny in tests
/// that ask for it.
fn sizes(parallel_min: usize, min_part: usize) -> (usize, usize) {
    #[cfg(test)]
    if TINY_PARTS.get() {
        return (2, 1);
    }
    (parallel_min, min_part)
}

/// A query's threads.
pub(super) struct Workers<'c> {
    threads: usize,
    budget: Option<SharedBudget>,
    cancellation: &'c CancellationToken,
}

impl<'c> Workers<'c> {
    /// Up to `threads` threads (this one included), charging the budget this thread is
    /// charged to.
    pub(super) fn new(threads: usize, cancellation: &'c CancellationToken) -> Self {
        Self {
            threads: threads.max(1),
            budget: crate::memory::current_budget(),
            cancellation,
        }
    }

    pub(super) fn threads(&self) -> usize {
        self.threads
    }

    /// Parts to cut a scan of `range` index entries into.
    pub(super) fn parts(&self, range: usize) -> usize {
        let (parallel_min, min_part) = sizes(PARALLEL_MIN, MIN_PART);
        if self.threads <= 1 || range < parallel_min {
            1
        } else {
            (self.threads * PARTS_PER_THREAD)
                .min(range / min_part)
                .max(1)
        }
    }

    /// Rows (of `width` ids) in parts for the next join step or the grouping: as they
    /// are, unless they are many in too few parts (a small first scan that a join
    /// fanned out), then cut again into consecutive parts (the same rows, in order).
    pub(super) fn balance(
        &self,
        rows: Vec<Vec<u32>>,
        width: usize,
        parallel: bool,
    ) -> Vec<Vec<u32>> {
        let total = rows.iter().map(Vec::len).sum::<usize>() / width.max(1);
        let (parallel_min, min_part) = sizes(ROWS_PARALLEL_MIN, MIN_ROWS_PART);
        let want = if parallel && self.threads > 1 && total >= parallel_min {
            (self.threads * PARTS_PER_THREAD).min(total / min_part)
        } else {
            1
        };
        if width == 0 || rows.len() * 2 > want {
            return rows;
        }
        let per_part = total.div_ceil(want) * width;
        let mut parts = Vec::with_capacity(want);
        for part in rows {
            for piece in part.chunks(per_part) {
                parts.push(piece.to_vec());
            }
        }
        parts
    }

    /// A cancellation check now (and the query's governor check).
    pub(super) fn check(&self) -> Result<(), QueryError> {
        self.cancellation
            .ensure_alive()
            .map_err(|_| QueryError::Cancelled)
    }

    /// Cancellation check every `super::CHECK_EVERY` calls of the returned closure.
    pub(super) fn ticker(&self) -> impl FnMut() -> Result<(), QueryError> + '_ {
        let mut ticks = 0usize;
        move || {
            ticks += 1;
            if ticks.is_multiple_of(super::CHECK_EVERY) {
                self.cancellation
                    .ensure_alive()
                    .map_err(|_| QueryError::Cancelled)
            } else {
                Ok(())
            }
        }
    }

    /// `work(state, i)` for every part `i` in `0..n`, in part order. Each thread makes
    /// its own `state` with `init`, on that thread. `Ok(None)`: `init` or a part
    /// declined (the batched path does not answer); an error stops the other parts at
    /// their next one.
    pub(super) fn map<S, T: Send>(
        &self,
        n: usize,
        init: impl Fn() -> Option<S> + Sync,
        work: impl Fn(&mut S, usize) -> Result<Option<T>, QueryError> + Sync,
    ) -> Result<Option<Vec<T>>, QueryError> {
        let threads = self.threads.min(n);
        if threads <= 1 {
            let Some(mut state) = init() else {
                return Ok(None);
            };
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                match work(&mut state, i)? {
                    Some(result) => out.push(result),
                    None => return Ok(None),
                }
            }
            return Ok(Some(out));
        }
        let next = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        let results: Mutex<Vec<Option<T>>> = Mutex::new((0..n).map(|_| None).collect());
        // The first failure: `Some(Ok(()))` a part declined, `Some(Err(_))` an error.
        let failure: Mutex<Option<Result<(), QueryError>>> = Mutex::new(None);
        let fail = |outcome: Result<(), QueryError>| {
            stop.store(true, Ordering::Relaxed);
            failure.lock().get_or_insert(outcome);
        };
        let run = || {
            let Some(mut state) = init() else {
                fail(Ok(()));
                return;
            };
            while !stop.load(Ordering::Relaxed) {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                match work(&mut state, i) {
                    Ok(Some(result)) => results.lock()[i] = Some(result),
                    Ok(None) => fail(Ok(())),
                    Err(error) => fail(Err(error)),
                }
            }
        };
        std::thread::scope(|scope| {
            for _ in 1..threads {
                let budget = self.budget;
                let run = &run;
                // A thread that cannot be made leaves its parts to the others.
                let _ = std::thread::Builder::new()
                    .name("strata-query".into())
                    .stack_size(crate::sparql::limits::QUERY_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let _charged = budget.map(SharedBudget::enter);
                        run();
                    });
            }
            run();
        });
        match failure.into_inner() {
            Some(Err(error)) => return Err(error),
            Some(Ok(())) => return Ok(None),
            None => {}
        }
        Ok(results.into_inner().into_iter().collect())
    }
}

/// A limit on the rows of a join shared by the parts that build them: each part adds
/// what it made now and then (not per row: the count is shared between threads).
pub(super) struct RowLimit {
    total: AtomicUsize,
    limit: usize,
}

impl RowLimit {
    pub(super) fn new(limit: usize) -> Self {
        Self {
            total: AtomicUsize::new(0),
            limit,
        }
    }

    /// Adds `rows`; false once all parts together made more than the limit.
    pub(super) fn add(&self, rows: usize) -> bool {
        self.total.fetch_add(rows, Ordering::Relaxed) + rows <= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_come_back_in_order_whatever_thread_ran_them() {
        let token = CancellationToken::new();
        for threads in [1, 2, 5] {
            let workers = Workers::new(threads, &token);
            let out = workers
                .map(
                    100,
                    || Some(std::thread::current().id()),
                    |_, i| Ok(Some(i * 2)),
                )
                .unwrap()
                .unwrap();
            assert_eq!(out, (0..100).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_declined_part_or_an_error_is_the_whole_answer() {
        let token = CancellationToken::new();
        let workers = Workers::new(3, &token);
        let declined = workers
            .map(50, || Some(()), |_, i| Ok((i != 17).then_some(i)))
            .unwrap();
        assert!(declined.is_none());
        let failed = workers.map(
            50,
            || Some(()),
            |_, i| {
                if i == 30 {
                    Err(QueryError::Cancelled)
                } else {
                    Ok(Some(i))
                }
            },
        );
        assert!(matches!(failed, Err(QueryError::Cancelled)));
        let no_state = workers.map(50, || None::<()>, |_, i| Ok(Some(i))).unwrap();
        assert!(no_state.is_none());
    }

    #[test]
    fn rows_fanned_out_from_few_parts_are_cut_again_in_order() {
        let token = CancellationToken::new();
        let workers = Workers::new(2, &token);
        let rows: Vec<u32> = (0..3 * 40_000).collect();
        let parts = workers.balance(vec![rows.clone()], 3, true);
        assert_eq!(parts.len(), 2 * PARTS_PER_THREAD);
        assert!(parts.iter().all(|p| p.len() % 3 == 0));
        assert_eq!(parts.concat(), rows);
        // Not in parallel, or few rows: left as they are.
        assert_eq!(workers.balance(vec![rows.clone()], 3, false).len(), 1);
        assert_eq!(
            workers.balance(vec![rows[..300].to_vec()], 3, true).len(),
            1
        );
    }

    #[test]
    fn small_scans_stay_one_part() {
        let token = CancellationToken::new();
        assert_eq!(Workers::new(1, &token).parts(10_000_000), 1);
        let two = Workers::new(2, &token);
        assert_eq!(two.parts(PARALLEL_MIN - 1), 1);
        assert_eq!(two.parts(10_000_000), 2 * PARTS_PER_THREAD);
        let limit = RowLimit::new(10);
        assert!(limit.add(6));
        assert!(!limit.add(6));
    }
}
