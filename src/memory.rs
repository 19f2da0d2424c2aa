//! Per-query memory accounting.
//!
//! The process's global allocator is mimalloc plus a count: every
//! allocation, reallocation and free made on a thread is charged to the `Budget` that
//! thread is currently working for (a query evaluated on it), if any. When a budget's
//! use passes its limit, the allocator only raises the budget's `exceeded` flag (it never
//! fails an allocation, panics, locks or allocates); the query's cancellation check reads
//! the flag at its next check point and stops the query with a coded error.
//!
//! The count is per thread: memory a query allocates and hands to another thread (a
//! response chunk sent to the network task) is charged but never credited back. Code
//! that does that on purpose allocates inside `uncharged`.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};

use mimalloc::MiMalloc;
use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering};

/// mimalloc, counting into the current thread's budget. glibc's
/// allocator kept the pages of memory a big query freed (per-thread arenas, fragments
/// above the top of the heap): an idle server stayed near 1 GB; mimalloc returns freed
/// pages to the system after a short delay.
struct CountingAllocator;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

// SAFETY: every method forwards to `MiMalloc` with the caller's arguments unchanged, so
// `MiMalloc`'s guarantees hold; the accounting around it only touches atomics and a
// `const`-initialized thread-local without destructor (no allocation, no lock, no panic).
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see above).
        let ptr = unsafe { MiMalloc.alloc(layout) };
        if !ptr.is_null() {
            charge(layout.size() as isize);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is (see above).
        let ptr = unsafe { MiMalloc.alloc_zeroed(layout) };
        if !ptr.is_null() {
            charge(layout.size() as isize);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is (see above).
        unsafe { MiMalloc.dealloc(ptr, layout) };
        charge(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is (see above).
        let new = unsafe { MiMalloc.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            charge(new_size as isize - layout.size() as isize);
        }
        new
    }
}

thread_local! {
    /// The budget this thread's allocations are charged to.
    static CURRENT: Cell<Option<&'static Budget>> = const { Cell::new(None) };
}

#[inline]
fn charge(bytes: isize) {
    // `try_with` fails only while the thread is being torn down: nothing to charge then.
    let _ = CURRENT.try_with(|current| {
        if let Some(budget) = current.get() {
            budget.charge(bytes);
        }
    });
}

/// A memory budget. Budgets are never freed: a finished query's budget is reset and
/// reused (its generation changes), so a `&'static` to one is always valid.
pub struct Budget {
    /// Bytes allocated minus bytes freed on the charged thread since the scope began.
    /// Written by the thread the budget is bound to and its helpers.
    used: AtomicIsize,
    peak: AtomicIsize,
    limit: AtomicIsize,
    exceeded: AtomicBool,
    generation: AtomicU64,
}

impl Budget {
    const fn new() -> Self {
        Self {
            used: AtomicIsize::new(0),
            peak: AtomicIsize::new(0),
            limit: AtomicIsize::new(isize::MAX),
            exceeded: AtomicBool::new(false),
            generation: AtomicU64::new(0),
        }
    }

    #[inline]
    fn charge(&self, bytes: isize) {
        // An atomic add: a query's helper threads (`Helper`) charge the same budget.
        let used = self
            .used
            .fetch_add(bytes, Ordering::Relaxed)
            .saturating_add(bytes);
        if used > self.peak.load(Ordering::Relaxed) {
            self.peak.store(used, Ordering::Relaxed);
            if used > self.limit.load(Ordering::Relaxed) {
                self.exceeded.store(true, Ordering::Release);
            }
        }
    }
}

/// The budget the current thread is charged to, for threads that help its query
/// (`Helper::enter` on each); `None` when nothing is charged.
pub fn current_budget() -> Option<SharedBudget> {
    CURRENT
        .try_with(Cell::get)
        .ok()
        .flatten()
        .map(|budget| SharedBudget { budget })
}

/// A query's budget, handed to the threads that help it (see `current_budget`).
#[derive(Clone, Copy)]
pub struct SharedBudget {
    budget: &'static Budget,
}

impl SharedBudget {
    /// Charges this thread's allocations to the budget until the returned guard drops.
    /// The helper must end before the scope that owns the budget does (a scoped thread
    /// joined inside the query): a budget is reused once its scope ends.
    pub fn enter(self) -> Helper {
        let previous = CURRENT.with(|current| current.replace(Some(self.budget)));
        Helper {
            previous,
            _thread_bound: PhantomData,
        }
    }
}

/// A helper thread's charging to another thread's budget (`SharedBudget::enter`).
pub struct Helper {
    previous: Option<&'static Budget>,
    _thread_bound: PhantomData<*const ()>,
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|current| current.set(self.previous));
    }
}

/// Budgets of finished scopes, ready for reuse.
static FREE: Mutex<Vec<&'static Budget>> = Mutex::new(Vec::new());

/// While alive, the current thread's allocations are charged to one budget. Not `Send`:
/// it is bound to the thread that entered it.
pub struct MemoryScope {
    budget: &'static Budget,
    previous: Option<&'static Budget>,
    _thread_bound: PhantomData<*const ()>,
}

impl MemoryScope {
    /// Starts charging this thread's allocations to a fresh budget of `limit` bytes
    /// (`None`: count without a limit). A scope entered while another is active on the
    /// thread takes over until it ends.
    pub fn enter(limit: Option<u64>) -> Self {
        let reused = FREE.lock().map(|mut free| free.pop()).unwrap_or(None);
        let budget: &'static Budget = reused.unwrap_or_else(|| Box::leak(Box::new(Budget::new())));
        budget.used.store(0, Ordering::Relaxed);
        budget.peak.store(0, Ordering::Relaxed);
        budget.exceeded.store(false, Ordering::Relaxed);
        budget.limit.store(
            limit.map_or(isize::MAX, |l| isize::try_from(l).unwrap_or(isize::MAX)),
            Ordering::Relaxed,
        );
        let previous = CURRENT.with(|current| current.replace(Some(budget)));
        Self {
            budget,
            previous,
            _thread_bound: PhantomData,
        }
    }

    /// A handle other threads (and the cancellation check) can read.
    pub fn watch(&self) -> BudgetWatch {
        BudgetWatch {
            budget: self.budget,
            generation: self.budget.generation.load(Ordering::Relaxed),
        }
    }
}

/// A scope that held more than this at once returns its thread's free pages to the
/// system when it ends (`mi_collect`): mimalloc purges freed pages only when the thread
/// allocates again, so an idle server kept what its last big query freed.
const RETURN_PAGES_AFTER: isize = 256 << 20;

impl Drop for MemoryScope {
    fn drop(&mut self) {
        let _ = CURRENT.try_with(|current| {
            if current.get().is_some_and(|b| std::ptr::eq(b, self.budget)) {
                current.set(self.previous);
            }
        });
        if self.budget.peak.load(Ordering::Relaxed) > RETURN_PAGES_AFTER {
            // SAFETY: `mi_collect` takes no pointer and may be called from any thread.
            unsafe { libmimalloc_sys::mi_collect(true) };
        }
        self.budget.generation.fetch_add(1, Ordering::Relaxed);
        self.budget.exceeded.store(false, Ordering::Relaxed);
        if let Ok(mut free) = FREE.lock() {
            free.push(self.budget);
        }
    }
}

/// Reads one scope's budget; reads nothing once that scope ended.
#[derive(Clone, Copy)]
pub struct BudgetWatch {
    budget: &'static Budget,
    generation: u64,
}

impl BudgetWatch {
    fn live(&self) -> bool {
        self.budget.generation.load(Ordering::Relaxed) == self.generation
    }

    /// True once the scope's allocations passed its limit.
    #[inline]
    pub fn exceeded(&self) -> bool {
        self.budget.exceeded.load(Ordering::Acquire) && self.live()
    }

    /// The most bytes the scope held at once so far (0 once it ended).
    pub fn peak_bytes(&self) -> u64 {
        let peak = self.budget.peak.load(Ordering::Relaxed);
        if self.live() {
            u64::try_from(peak).unwrap_or(0)
        } else {
            0
        }
    }
}

/// Runs `f` without charging its allocations to the thread's budget (for memory handed
/// to another thread, which frees it uncounted).
pub fn uncharged<T>(f: impl FnOnce() -> T) -> T {
    let saved = CURRENT.with(|current| current.replace(None));
    let result = f();
    CURRENT.with(|current| current.set(saved));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_charged_to_the_scope_of_their_thread() {
        let scope = MemoryScope::enter(Some(10 << 20));
        let watch = scope.watch();
        let small = vec![0u8; 1 << 20];
        assert!(watch.peak_bytes() >= 1 << 20);
        assert!(!watch.exceeded());
        // Another thread's allocations are not this scope's.
        std::thread::spawn(|| vec![1u8; 64 << 20].len())
            .join()
            .unwrap();
        assert!(!watch.exceeded());
        let big = vec![0u8; 16 << 20];
        assert!(watch.exceeded());
        drop((small, big));
        let uncounted = uncharged(|| vec![0u8; 32 << 20]);
        assert!(watch.peak_bytes() < 40 << 20);
        drop(uncounted);
        drop(scope);
        // A watch of an ended scope reads nothing, even when its budget is reused.
        assert!(!watch.exceeded());
        let next = MemoryScope::enter(Some(1));
        let _grow = vec![0u8; 1024];
        assert!(next.watch().exceeded());
        assert!(!watch.exceeded());
    }

    #[test]
    fn a_helper_thread_charges_the_query_budget() {
        let scope = MemoryScope::enter(Some(4 << 20));
        let watch = scope.watch();
        let shared = current_budget().expect("a scope is active");
        std::thread::scope(|threads| {
            threads.spawn(|| {
                let _helper = shared.enter();
                vec![1u8; 6 << 20].len()
            });
            // Without `enter`, another thread's allocations are its own.
            threads.spawn(|| vec![1u8; 64 << 20].len());
        });
        assert!(watch.peak_bytes() >= 6 << 20);
        assert!(watch.peak_bytes() < 64 << 20);
        assert!(watch.exceeded());
        drop(scope);
        // Outside any scope there is nothing to share.
        assert!(current_budget().is_none());
    }
}
