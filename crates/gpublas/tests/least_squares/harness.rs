//! What the least-squares and potri tests run their calls through: integer results in host or
//! device memory, error expectations reported together, and the `Job` trait the query,
//! workspace and batch tests check every routine by. Shared by `least_squares.rs` and
//! `potri.rs` (each includes this file as a module of its own).
#![allow(dead_code)]

use crate::common::fixed_handle;
use gpublas::{Device, DeviceBuffer, Error, Handle, Results, Status};

/// Where `info` goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Loc {
    Host,
    Device,
}

/// What `info` holds before a call (never a valid info).
pub(crate) const INFO_POISON: i32 = -424_242;

/// An integer result buffer in host or device memory, one element past the batch's results
/// (which no call may write).
pub(crate) struct Ints {
    pub(crate) loc: Loc,
    pub(crate) host: Vec<i32>,
    pub(crate) dev: Option<DeviceBuffer<i32>>,
    pub(crate) before: Vec<i32>,
}

impl Ints {
    pub(crate) fn new(dev: &Device, loc: Loc, v: Vec<i32>) -> Ints {
        let d = (loc == Loc::Device).then(|| dev.upload(&v).unwrap());
        Ints {
            loc,
            host: v.clone(),
            dev: d,
            before: v,
        }
    }

    /// `count` results poisoned, and one more past them.
    pub(crate) fn poisoned(dev: &Device, loc: Loc, count: usize) -> Ints {
        Ints::new(dev, loc, vec![INFO_POISON; count + 1])
    }

    /// The same routing with a placeholder (device) or a fresh slice (host) of the same length.
    pub(crate) fn placeholder(&self) -> Ints {
        Ints {
            loc: self.loc,
            host: self.before.clone(),
            dev: (self.loc == Loc::Device).then(|| DeviceBuffer::placeholder(self.before.len())),
            before: self.before.clone(),
        }
    }

    pub(crate) fn results(&mut self) -> Results<'_, i32> {
        match self.loc {
            Loc::Host => Results::Host(&mut self.host),
            Loc::Device => Results::Device(self.dev.as_mut().unwrap()),
        }
    }

    pub(crate) fn now(&self) -> Vec<i32> {
        match &self.dev {
            Some(d) => d.to_vec().unwrap(),
            None => self.host.clone(),
        }
    }

    pub(crate) fn reset(&mut self) {
        self.host = self.before.clone();
        if let Some(d) = &mut self.dev {
            d.copy_from_host(&self.before).unwrap();
        }
    }

    pub(crate) fn untouched(&self, what: &str) {
        let now = self.now();
        if let Some(p) = (0..now.len()).find(|&p| now[p] != self.before[p]) {
            panic!(
                "{what}: {:?} info {p} changed from {} to {}",
                self.loc, self.before[p], now[p]
            );
        }
    }

    /// The first `want.len()` results are `want`, the rest as they were.
    pub(crate) fn expect(&self, want: &[i32], what: &str) {
        let now = self.now();
        assert_eq!(
            &now[..want.len()],
            want,
            "{what}: {:?} info per entry",
            self.loc
        );
        assert_eq!(
            &now[want.len()..],
            &self.before[want.len()..],
            "{what}: {:?} info past the batch's results was written",
            self.loc
        );
    }
}

thread_local! {
    /// Failed error expectations of the running test, reported together by `expect_errs_done`.
    static ERR_FAILURES: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(vec![]) };
}

/// Expects an error of the kind whose message names `parts` (case-insensitive); a mismatch is
/// recorded and reported with the others by `expect_errs_done`, so that one does not hide the
/// rest.
pub(crate) fn expect_err(
    r: Result<Status, Error>,
    kind: fn(&Error) -> bool,
    parts: &[&str],
    what: &str,
) {
    let fail = match r {
        Ok(st) => Some(format!("{what}: expected an error, got {st:?}")),
        Err(e) if !kind(&e) => Some(format!("{what}: wrong kind: {e:?}")),
        Err(e) => {
            let text = e.to_string().to_lowercase();
            parts
                .iter()
                .find(|p| !text.contains(&p.to_lowercase()))
                .map(|p| format!("{what}: '{e}' lacks '{p}'"))
        }
    };
    if let Some(f) = fail {
        ERR_FAILURES.with(|v| v.borrow_mut().push(f));
    }
}

/// Fails with every recorded error expectation that did not hold.
pub(crate) fn expect_errs_done() {
    let f = ERR_FAILURES.with(|v| std::mem::take(&mut *v.borrow_mut()));
    assert!(
        f.is_empty(),
        "{} error expectations failed:\n{}",
        f.len(),
        f.join("\n")
    );
}

pub(crate) fn is_size(e: &Error) -> bool {
    matches!(e, Error::InvalidSize(_))
}

pub(crate) fn is_value(e: &Error) -> bool {
    matches!(e, Error::InvalidValue(_))
}

pub(crate) fn is_pointer(e: &Error) -> bool {
    matches!(e, Error::InvalidPointer(_))
}

/// A call ready to run, checked the same way by the query, workspace and batch tests.
pub(crate) trait Job {
    fn call(&mut self, h: &mut Handle) -> Result<Status, Error>;
    /// The same call with placeholders for every operand.
    fn call_placeholders(&self, h: &mut Handle) -> Result<Status, Error>;
    /// The answer is right and nothing else changed.
    fn check(&self, what: &str);
    /// Nothing changed.
    fn untouched(&self, what: &str);
    /// Uploads the original operands again.
    fn reset(&mut self);
    fn name(&self) -> String;
}

/// Runs `job` on `h`, expects `Success` and checks it.
pub(crate) fn run_checked(h: &mut Handle, job: &mut dyn Job) {
    let what = job.name();
    let st = job.call(h).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(st, Status::Success, "{what}");
    job.check(&what);
}

/// The workspace a query with placeholders asks for; checks the query's status.
pub(crate) fn query(dev: &Device, job: &dyn Job) -> usize {
    let name = job.name();
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = job
        .call_placeholders(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{name}: {st:?}"
    );
    let size = q.stop_device_memory_size_query().unwrap();
    assert_eq!(
        st == Status::SizeIncreased,
        size > 0,
        "{name}: {st:?} with size {size}"
    );
    assert_eq!(
        size % 64,
        0,
        "{name}: the query's {size} bytes are not whole chunks"
    );
    size
}

/// M9: query (placeholders, then the real operands, which must come back untouched and ask for
/// the same), then a handle of exactly that size: `Success`, the right answer, no growth, no
/// degraded call, no memory error.
pub(crate) fn query_then_preallocate(dev: &Device, job: &mut dyn Job) {
    let name = job.name();
    let size = query(dev, job);
    let mut q = fixed_handle(dev, 0);
    q.start_device_memory_size_query().unwrap();
    let st = job
        .call(&mut q)
        .unwrap_or_else(|e| panic!("{name}: query: {e}"));
    assert!(
        matches!(st, Status::SizeIncreased | Status::SizeUnchanged),
        "{name}: {st:?} during a query"
    );
    job.untouched(&format!("{name}: during a query"));
    assert_eq!(
        q.stop_device_memory_size_query().unwrap(),
        size,
        "{name}: real operands"
    );
    assert_eq!(q.get_device_memory_size(), 0, "{name}: a query allocated");
    let mut h = fixed_handle(dev, size);
    let st = job
        .call(&mut h)
        .unwrap_or_else(|e| panic!("{name}: workspace {size}: {e}"));
    assert_eq!(
        st,
        Status::Success,
        "{name}: workspace of the query's {size} bytes"
    );
    job.check(&name);
    let s = h.workspace_stats();
    assert_eq!(
        (s.memory_errors, s.degraded_calls, s.growths),
        (0, 0, 0),
        "{name}: {s}"
    );
}

/// M6: in a fixed workspace of `cap` bytes (user-managed): `Success` if the query asks for no
/// more, else `PerfDegraded`, with the right answers; or `MemoryError` naming what it needs and
/// the bytes there are, every operand untouched.
pub(crate) fn in_fixed(dev: &Device, job: &mut dyn Job, cap: usize) {
    let name = job.name();
    let size = query(dev, job);
    let mut h = crate::common::handle(dev);
    let _ = h.set_device_memory_size(cap).unwrap();
    assert!(h.is_user_managing_device_memory());
    job.reset();
    match job.call(&mut h) {
        Ok(st) => {
            eprintln!("{name}: query {size} bytes, in {cap}: {st:?}");
            let want = if size > cap {
                Status::PerfDegraded
            } else {
                Status::Success
            };
            assert_eq!(
                st, want,
                "{name}: {cap}-byte workspace, the query said {size}"
            );
            job.check(&format!("{name} ({cap}-byte workspace)"));
            let s = h.workspace_stats();
            assert_eq!(s.degraded_calls, (size > cap) as u64, "{name}: {s}");
            assert_eq!((s.memory_errors, s.growths), (0, 0), "{name}: {s}");
        }
        Err(e @ Error::MemoryError { .. }) => {
            eprintln!("{name}: query {size} bytes, in {cap}: {e}");
            let Error::MemoryError {
                needed, available, ..
            } = &e
            else {
                unreachable!()
            };
            assert!(*needed > *available && size > cap, "{name}: {e}");
            assert_eq!(*available, cap, "{name}: {e}");
            job.untouched(&format!("{name}: memory error"));
            let s = h.workspace_stats();
            assert_eq!((s.memory_errors, s.growths), (1, 0), "{name}: {s}");
        }
        Err(e) => panic!("{name}: {cap}-byte workspace (the query said {size}): {e}"),
    }
    assert_eq!(h.get_device_memory_size(), cap);
}
