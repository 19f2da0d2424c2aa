//! What a running query may use: memory, and a share of the cores once it runs long.
//!
//! Every query is evaluated under a `QueryGuard`: the thread's allocations are charged to
//! the query's memory budget (`crate::memory`), and the query's cancellation token runs
//! `QueryState::check` at each of spareval's check points (every row read from the
//! store, every 1,024 steps of a join, sort or grouping; see
//! `vendor/spareval/STRATA_PATCH.md`). The check
//!
//! - cancels the query once its memory budget is exceeded (it then fails with
//!   `query_memory_limit`), and
//! - once the query has run for `heavy_after`, makes it take one of `heavy_slots` slots
//!   for heavy queries, waiting at the check point while all are taken. Short queries
//!   never wait, so they keep their latency while a few heavy ones share the other cores;
//!   a waiting query still counts its time limit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use spareval::CancellationToken;

use crate::memory::{BudgetWatch, MemoryScope};

/// Limits every query of an engine shares.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryLimits {
    /// Memory one query may allocate on its thread (`None`: no limit).
    pub memory_bytes: Option<u64>,
    /// A query running longer than this is heavy and needs a heavy slot to go on.
    pub heavy_after: Duration,
    /// Heavy queries that may run at once.
    pub heavy_slots: usize,
    /// Threads one query's batched scans, joins and aggregates may use (at least 1).
    pub threads: usize,
}

/// Default memory limit of one query: 1 GiB.
pub const DEFAULT_QUERY_MEMORY_BYTES: u64 = 1 << 30;
/// Default time after which a query counts as heavy.
pub const DEFAULT_HEAVY_AFTER: Duration = Duration::from_millis(200);

impl QueryLimits {
    /// Query threads by default: every core.
    pub fn default_threads() -> usize {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }

    /// Heavy slots by default: all cores but one (at least one), so one core is always
    /// left for short queries.
    pub fn default_heavy_slots() -> usize {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get().saturating_sub(1))
            .max(1)
    }
}

impl Default for QueryLimits {
    fn default() -> Self {
        Self {
            memory_bytes: Some(DEFAULT_QUERY_MEMORY_BYTES),
            heavy_after: DEFAULT_HEAVY_AFTER,
            heavy_slots: Self::default_heavy_slots(),
            threads: Self::default_threads(),
        }
    }
}

/// Counters for `/metrics`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GovernorStats {
    pub heavy_running: usize,
    pub heavy_waiting: usize,
    /// Queries that became heavy since start.
    pub heavy_total: u64,
    /// Queries stopped by their memory limit since start.
    pub memory_stops: u64,
}

/// Hands out heavy slots and counts what queries did.
#[derive(Debug)]
pub struct Governor {
    limits: QueryLimits,
    running: Mutex<usize>,
    freed: Condvar,
    waiting: AtomicUsize,
    heavy_total: AtomicU64,
    memory_stops: AtomicU64,
}

impl Governor {
    pub fn new(limits: QueryLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            running: Mutex::new(0),
            freed: Condvar::new(),
            waiting: AtomicUsize::new(0),
            heavy_total: AtomicU64::new(0),
            memory_stops: AtomicU64::new(0),
        })
    }

    pub fn limits(&self) -> &QueryLimits {
        &self.limits
    }

    pub fn stats(&self) -> GovernorStats {
        GovernorStats {
            heavy_running: *self.running.lock(),
            heavy_waiting: self.waiting.load(Ordering::Relaxed),
            heavy_total: self.heavy_total.load(Ordering::Relaxed),
            memory_stops: self.memory_stops.load(Ordering::Relaxed),
        }
    }

    /// Starts governing a query evaluated (and iterated) on the current thread. The
    /// returned token shares `token`'s flag and runs the governor's check at every check
    /// point: give it to the evaluator. Keep the guard alive while the results are read.
    pub fn start(self: &Arc<Self>, token: &CancellationToken) -> (QueryGuard, CancellationToken) {
        self.start_with(token, true)
    }

    /// `start` without the heavy-query slots: for work that holds a lock others wait on
    /// (an update's WHERE clause runs under the graph's writer lock).
    pub fn start_unthrottled(
        self: &Arc<Self>,
        token: &CancellationToken,
    ) -> (QueryGuard, CancellationToken) {
        self.start_with(token, false)
    }

    fn start_with(
        self: &Arc<Self>,
        token: &CancellationToken,
        throttled: bool,
    ) -> (QueryGuard, CancellationToken) {
        let memory = MemoryScope::enter(self.limits.memory_bytes);
        let state = Arc::new(QueryState {
            governor: self.clone(),
            token: token.clone(),
            started: Instant::now(),
            budget: memory.watch(),
            checks: AtomicU32::new(0),
            throttled,
            heavy: AtomicBool::new(false),
            claiming: AtomicBool::new(false),
            out_of_memory: AtomicBool::new(false),
        });
        let checked = {
            let state = state.clone();
            token.with_check(move || state.check())
        };
        (
            QueryGuard {
                state,
                _memory: memory,
            },
            checked,
        )
    }

    fn take_slot(&self, token: &CancellationToken) -> bool {
        let mut running = self.running.lock();
        if *running < self.limits.heavy_slots {
            *running += 1;
            return true;
        }
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let taken = loop {
            // The time limit (or the client) cancels the token while the query waits;
            // the timer does not know this condition variable, so look every 50 ms.
            if token.is_cancelled() {
                break false;
            }
            self.freed.wait_for(&mut running, Duration::from_millis(50));
            if *running < self.limits.heavy_slots {
                *running += 1;
                break true;
            }
        };
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        taken
    }

    fn release_slot(&self) {
        let mut running = self.running.lock();
        *running = running.saturating_sub(1);
        drop(running);
        self.freed.notify_one();
    }
}

/// One query's state, shared with its token's check function.
struct QueryState {
    governor: Arc<Governor>,
    token: CancellationToken,
    started: Instant,
    budget: BudgetWatch,
    checks: AtomicU32,
    /// Heavy queries need a slot (false for an update's WHERE clause).
    throttled: bool,
    /// The query holds a heavy slot.
    heavy: AtomicBool,
    /// A thread of the query is taking (or took) its heavy slot.
    claiming: AtomicBool,
    /// The query was cancelled because its memory budget ran out.
    out_of_memory: AtomicBool,
}

/// How often (in check points) the check looks at the clock.
const CLOCK_EVERY: u32 = 256;

impl QueryState {
    /// Runs at every check point of the query's evaluation, on its thread (and on the
    /// threads helping it).
    fn check(&self) {
        if self.budget.exceeded() {
            if !self.out_of_memory.swap(true, Ordering::Relaxed) {
                self.governor.memory_stops.fetch_add(1, Ordering::Relaxed);
                self.token.cancel();
            }
            return;
        }
        // A plain load and store: a count lost to a helper thread only delays the clock.
        let checks = self.checks.load(Ordering::Relaxed).wrapping_add(1);
        self.checks.store(checks, Ordering::Relaxed);
        if !self.throttled
            || !checks.is_multiple_of(CLOCK_EVERY)
            || self.heavy.load(Ordering::Relaxed)
        {
            return;
        }
        if self.started.elapsed() >= self.governor.limits.heavy_after {
            // A query's helper threads (the batched path's) check too: one of them
            // takes the slot, the others go on meanwhile.
            if self.claiming.swap(true, Ordering::Relaxed) {
                return;
            }
            self.governor.heavy_total.fetch_add(1, Ordering::Relaxed);
            // Marked heavy even when the wait ends without a slot (cancelled): the
            // query stops right after, and the guard releases only a slot it holds.
            if self.governor.take_slot(&self.token) {
                self.heavy.store(true, Ordering::Relaxed);
            } else {
                self.token.cancel();
            }
        }
    }
}

/// Governs one query while alive: its memory budget and its heavy slot. Not `Send`: the
/// query's thread charges its allocations to it.
pub struct QueryGuard {
    state: Arc<QueryState>,
    _memory: MemoryScope,
}

impl QueryGuard {
    /// True when the query was stopped because it exceeded its memory limit.
    pub fn out_of_memory(&self) -> bool {
        self.state.out_of_memory.load(Ordering::Relaxed)
    }

    /// The memory limit of the query, if any.
    pub fn memory_limit(&self) -> Option<u64> {
        self.state.governor.limits.memory_bytes
    }

    /// The most memory the query held so far.
    pub fn peak_memory_bytes(&self) -> u64 {
        self.state.budget.peak_bytes()
    }
}

impl Drop for QueryGuard {
    fn drop(&mut self) {
        if self.state.heavy.swap(false, Ordering::Relaxed) {
            self.state.governor.release_slot();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_queries_wait_for_a_slot_and_short_ones_never_do() {
        let governor = Governor::new(QueryLimits {
            memory_bytes: None,
            heavy_after: Duration::from_millis(20),
            heavy_slots: 1,
            threads: 1,
        });
        let first = CancellationToken::new();
        let (first_guard, first_checked) = governor.start(&first);
        std::thread::sleep(Duration::from_millis(30));
        for _ in 0..CLOCK_EVERY {
            first_checked.ensure_alive().unwrap();
        }
        assert_eq!(governor.stats().heavy_running, 1);
        // A second heavy query waits until the first ends.
        let second = std::thread::spawn({
            let governor = governor.clone();
            move || {
                let token = CancellationToken::new();
                let (_guard, checked) = governor.start(&token);
                std::thread::sleep(Duration::from_millis(30));
                let waited = Instant::now();
                for _ in 0..CLOCK_EVERY {
                    checked.ensure_alive().unwrap();
                }
                waited.elapsed()
            }
        });
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(governor.stats().heavy_waiting, 1);
        // A short query goes through while the slot is taken.
        let short = CancellationToken::new();
        let (_short_guard, short_checked) = governor.start(&short);
        for _ in 0..CLOCK_EVERY * 4 {
            short_checked.ensure_alive().unwrap();
        }
        drop(first_guard);
        let waited = second.join().unwrap();
        assert!(waited >= Duration::from_millis(100), "{waited:?}");
        assert_eq!(governor.stats().heavy_running, 0);
        assert_eq!(governor.stats().heavy_total, 2);
    }

    #[test]
    fn a_query_checked_on_several_threads_takes_one_heavy_slot() {
        let governor = Governor::new(QueryLimits {
            memory_bytes: None,
            heavy_after: Duration::from_millis(1),
            heavy_slots: 2,
            threads: 4,
        });
        let token = CancellationToken::new();
        let (guard, checked) = governor.start(&token);
        std::thread::sleep(Duration::from_millis(5));
        std::thread::scope(|threads| {
            for _ in 0..4 {
                threads.spawn(|| {
                    for _ in 0..CLOCK_EVERY * 8 {
                        checked.ensure_alive().unwrap();
                    }
                });
            }
        });
        assert_eq!(governor.stats().heavy_running, 1);
        assert_eq!(governor.stats().heavy_total, 1);
        drop(guard);
        assert_eq!(governor.stats().heavy_running, 0);
    }

    #[test]
    fn a_query_over_its_memory_limit_is_cancelled_at_its_next_check() {
        let governor = Governor::new(QueryLimits {
            memory_bytes: Some(8 << 20),
            ..QueryLimits::default()
        });
        let token = CancellationToken::new();
        let (guard, checked) = governor.start(&token);
        checked.ensure_alive().unwrap();
        let hog = vec![1u8; 16 << 20];
        assert!(checked.ensure_alive().is_err());
        assert!(token.is_cancelled() && guard.out_of_memory());
        assert!(guard.peak_memory_bytes() >= 16 << 20);
        drop(hog);
        assert_eq!(governor.stats().memory_stops, 1);
    }
}
