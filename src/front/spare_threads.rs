//! The spare cores: headers lowered on them while a file is preprocessed or before its own
//! lowering, and other per-file work spread over them. Each header is lowered once (its
//! `OnceLock`), whichever thread gets there first, so the result does not depend on them.

use crate::front::prepared::PendingHeader;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// Threads besides its own a file may use to lower its headers (cores the runner's file
/// workers leave idle: all but one when one file is checked).
static SPARE_THREADS: AtomicUsize = AtomicUsize::new(0);

pub fn set_spare_threads(n: usize) {
    SPARE_THREADS.store(n, Ordering::Relaxed);
}

/// Names the threads that lower or parse headers, so that a panic on one stays quiet: the
/// file's own thread does that header's work again and reports the panic as the file's
/// internal error.
pub const LOWERING_THREAD: &str = "banklint-lower";

/// `f` of every index below `n`, in order, computed on this thread and the spare ones. An
/// index whose work panicked on a spare thread is done again on this one, where the panic is
/// the file's.
pub fn map_on_spare_threads<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let spare = SPARE_THREADS
        .load(Ordering::Relaxed)
        .min(n.saturating_sub(1));
    if spare == 0 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<Option<T>>> =
        std::sync::Mutex::new((0..n).map(|_| None).collect());
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return;
            }
            let Ok(value) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(i))) else {
                return;
            };
            if let Ok(mut done) = done.lock() {
                done[i] = Some(value);
            }
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..spare {
            let _ = std::thread::Builder::new()
                .name(LOWERING_THREAD.into())
                .stack_size(crate::limits::THREAD_STACK)
                .spawn_scoped(scope, work);
        }
        work();
    });
    let done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.into_iter()
        .enumerate()
        .map(|(i, value)| value.unwrap_or_else(|| f(i)))
        .collect()
}

thread_local! {
    /// Whether the file this thread prepares queues its headers for the spare threads as
    /// they are preprocessed (see [`lower_soon`]).
    static LOWER_SOON: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Whether a file's own text names device code (`__global__`, `__device__`, `__shared__`, a
/// launch): then its headers will most likely be lowered, and lowering them while the rest
/// is preprocessed saves time. A file without those words rarely needs them (a kernel named
/// through a macro, `RAFT_KERNEL`, is one that does, and is lowered after preprocessing, on
/// the spare threads still). Lowering every file's headers anyway measured 1.3x the CPU time
/// and 1.06x the wall time on 60 raft files one at a time, the second core idle; under a
/// harness running files side by side, that core is not idle.
fn may_need_headers(src: &str) -> bool {
    ["__global__", "__device__", "__shared__", "<<<"]
        .iter()
        .any(|word| src.contains(word))
}

type LoweringQueue = std::sync::Mutex<std::sync::mpsc::Sender<Arc<PendingHeader>>>;

/// The spare threads' queue, started with the first header queued (`None`: none started).
static QUEUE: OnceLock<Option<LoweringQueue>> = OnceLock::new();

/// Queues a header, just preprocessed, for a spare thread to lower while preprocessing goes
/// on: the file's thread would otherwise lower every header only once all are preprocessed.
/// Each header is still lowered once (its `OnceLock`), whichever thread reaches it first, so
/// the result is the same; without spare threads nothing is queued. Only for a file whose
/// text names device code (see `may_need_headers`).
pub fn lower_soon(header: &Arc<PendingHeader>) {
    if LOWER_SOON.with(|soon| soon.get()) {
        queue_for_lowering(header);
    }
}

/// Hands a header to the spare threads, started with the first one queued.
fn queue_for_lowering(header: &Arc<PendingHeader>) {
    let spare = SPARE_THREADS.load(Ordering::Relaxed);
    if spare == 0 {
        return;
    }
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Arc<PendingHeader>>();
        let rx = Arc::new(std::sync::Mutex::new(rx));
        let mut started = 0;
        for _ in 0..spare {
            let rx = rx.clone();
            let worker = move || {
                loop {
                    let next = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    let Ok(h) = next else { return };
                    // A panic leaves the header unlowered; the file's thread meets it again.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        h.lowered();
                    }));
                }
            };
            started += std::thread::Builder::new()
                .name(LOWERING_THREAD.into())
                .stack_size(crate::limits::THREAD_STACK)
                .spawn(worker)
                .is_ok() as usize;
        }
        (started > 0).then(|| std::sync::Mutex::new(tx))
    });
    if let Some(Ok(tx)) = queue.as_ref().map(|q| q.lock()) {
        let _ = tx.send(header.clone());
    }
}

/// Lowers every header `pending` reaches, nested ones first, on the spare threads and this
/// one. Each header is lowered once (its `OnceLock`); a thread that needs a nested header
/// another is lowering waits for it (headers include each other as a tree: no cycle).
pub(super) fn lower_side_by_side(pending: &[(String, String, Arc<PendingHeader>)]) {
    let spare = SPARE_THREADS.load(Ordering::Relaxed);
    if spare == 0 {
        return;
    }
    fn reach(
        h: &Arc<PendingHeader>,
        seen: &mut Vec<*const PendingHeader>,
        out: &mut Vec<Arc<PendingHeader>>,
    ) {
        if seen.contains(&Arc::as_ptr(h)) {
            return;
        }
        seen.push(Arc::as_ptr(h));
        for (_, _, nested) in &h.preprocessed.pending {
            reach(nested, seen, out);
        }
        if h.lowered.get().is_none() {
            out.push(h.clone());
        }
    }
    let (mut seen, mut todo) = (Vec::new(), Vec::new());
    for (_, _, h) in pending {
        reach(h, &mut seen, &mut todo);
    }
    if todo.len() < 2 {
        return;
    }
    if matches!(QUEUE.get(), Some(Some(_))) {
        // The spare threads lower the queued headers, nested ones first (this file's too,
        // queued now if its text did not look like device code); this one starts from the
        // outermost, and each waits where it meets a header the other holds.
        if !LOWER_SOON.with(|soon| soon.get()) {
            todo.iter().for_each(queue_for_lowering);
        }
        for h in todo.iter().rev() {
            h.lowered();
        }
        return;
    }
    let next = AtomicUsize::new(0);
    let work = || {
        while let Some(h) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
            h.lowered();
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..spare.min(todo.len() - 1) {
            // Without a thread, this one does the work alone.
            let _ = std::thread::Builder::new()
                .name(LOWERING_THREAD.into())
                .stack_size(crate::limits::THREAD_STACK)
                .spawn_scoped(scope, work);
        }
        work();
    });
}

/// Sets, for the file this thread prepares, whether its headers are queued for the spare
/// threads as they are preprocessed (see [`may_need_headers`]).
pub(super) fn lower_soon_for(src: &str) {
    LOWER_SOON.with(|soon| soon.set(may_need_headers(src)));
}
