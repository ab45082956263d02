//! Operands and their checks, shared by every routine family (SPEC F1, F7, F9, F10).
//!
//! A batch layout (`Batch`, `BatchMut`) says where each batch entry's operand lives: one
//! buffer, a list of buffers, or entries at a fixed stride in one buffer. The checker verifies
//! every access range of every entry against its buffer before anything runs, with
//! overflow-safe arithmetic, and names the values in its errors.

use crate::device::{DeviceBuffer, Element};
use crate::{Coef, Error, Handle};

/// A list of buffers, read-only or writable (outputs come as `&mut` so no buffer can be named
/// twice as an output: F9 holds by construction for lists).
pub(crate) enum ListRef<'a, T> {
    Shared(&'a [&'a DeviceBuffer<T>]),
    Mut(&'a [&'a mut DeviceBuffer<T>]),
}

impl<T> Clone for ListRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ListRef<'_, T> {}

impl<'a, T> ListRef<'a, T> {
    pub(crate) fn len(&self) -> usize {
        match self {
            ListRef::Shared(l) => l.len(),
            ListRef::Mut(l) => l.len(),
        }
    }

    pub(crate) fn get(&self, i: usize) -> &'a DeviceBuffer<T> {
        match *self {
            ListRef::Shared(l) => l[i],
            ListRef::Mut(l) => &*l[i],
        }
    }
}

/// The operands of one call: one buffer, a list, or entries at a fixed stride in one buffer.
pub(crate) enum Batch<'a, T> {
    Single(&'a DeviceBuffer<T>),
    List(ListRef<'a, T>),
    Strided {
        buf: &'a DeviceBuffer<T>,
        stride: usize,
        count: usize,
    },
}

impl<T> Clone for Batch<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Batch<'_, T> {}

impl<'a, T: Element> Batch<'a, T> {
    /// A read-only list.
    pub(crate) fn list(l: &'a [&'a DeviceBuffer<T>]) -> Self {
        Batch::List(ListRef::Shared(l))
    }

    pub(crate) fn count(&self) -> usize {
        match self {
            Batch::Single(_) => 1,
            Batch::List(l) => l.len(),
            Batch::Strided { count, .. } => *count,
        }
    }

    pub(crate) fn is_list(&self) -> bool {
        matches!(self, Batch::List(_))
    }

    /// Buffer holding entry `v` and the element offset of its first element.
    pub(crate) fn entry(&self, v: usize) -> (&'a DeviceBuffer<T>, usize) {
        match *self {
            Batch::Single(b) => (b, 0),
            Batch::List(l) => (l.get(v), 0),
            Batch::Strided { buf, stride, .. } => (buf, v * stride),
        }
    }

    /// Device address of entry `v`'s first element (0 for a placeholder).
    pub(crate) fn entry_addr(&self, v: usize) -> u64 {
        let (b, off) = self.entry(v);
        b.device_ptr().unwrap_or(0) + (off * std::mem::size_of::<T>()) as u64
    }
}

/// Writable operands of one call, in the same three layouts.
pub(crate) enum BatchMut<'a, 'b, T> {
    Single(&'a mut DeviceBuffer<T>),
    List(&'a mut [&'b mut DeviceBuffer<T>]),
    Strided {
        buf: &'a mut DeviceBuffer<T>,
        stride: usize,
        count: usize,
    },
}

impl<'b, T: Element> BatchMut<'_, 'b, T> {
    /// The same layout, borrowed again (to hand it to another routine and keep it).
    pub(crate) fn reborrow(&mut self) -> BatchMut<'_, 'b, T> {
        match self {
            BatchMut::Single(b) => BatchMut::Single(b),
            BatchMut::List(l) => BatchMut::List(l),
            BatchMut::Strided { buf, stride, count } => BatchMut::Strided {
                buf,
                stride: *stride,
                count: *count,
            },
        }
    }

    /// The same layout, read-only (for checks and addresses).
    pub(crate) fn view(&self) -> Batch<'_, T> {
        match self {
            BatchMut::Single(b) => Batch::Single(b),
            BatchMut::List(l) => Batch::List(ListRef::Mut(l)),
            BatchMut::Strided { buf, stride, count } => Batch::Strided {
                buf,
                stride: *stride,
                count: *count,
            },
        }
    }

    pub(crate) fn count(&self) -> usize {
        self.view().count()
    }

    /// The host slice holding entry `v` from its first element on (host backend only; `None`
    /// for device memory). An entry past the buffer's end spans nothing (the checks rule out
    /// the others): its slice is empty.
    pub(crate) fn host_entry_mut(&mut self, v: usize) -> Option<&mut [T]> {
        let (buf, off): (&mut DeviceBuffer<T>, usize) = match self {
            BatchMut::Single(b) => (b, 0),
            BatchMut::List(l) => (&mut *l[v], 0),
            BatchMut::Strided { buf, stride, .. } => (buf, v * *stride),
        };
        buf.host_slice_mut()
            .map(|s| s.get_mut(off..).unwrap_or_default())
    }

    /// Every entry's host slice at once, disjoint (host backend only): entry `v` from its first
    /// element to the next entry's (the last to the buffer's end). `None` for device memory, a
    /// strided layout whose entries would overlap (the checks rule both out), or a buffer too
    /// short for the count.
    pub(crate) fn host_entries_mut(&mut self) -> Option<Vec<&mut [T]>> {
        match self {
            BatchMut::Single(b) => Some(vec![b.host_slice_mut()?]),
            BatchMut::List(l) => l.iter_mut().map(|b| b.host_slice_mut()).collect(),
            BatchMut::Strided { buf, stride, count } => {
                let (stride, count) = (*stride, *count);
                let mut rest = buf.host_slice_mut()?;
                if count > 1 && stride == 0 {
                    return None;
                }
                let mut out = Vec::with_capacity(count);
                for v in 0..count {
                    let take = if v + 1 < count { stride } else { rest.len() };
                    if take > rest.len() {
                        return None;
                    }
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(take);
                    out.push(head);
                    rest = tail;
                }
                Some(out)
            }
        }
    }
}

impl<'a, T: Element> Batch<'a, T> {
    /// The host slice holding entry `v` from its first element on (host backend only; `None`
    /// for device memory). An entry past the buffer's end spans nothing (the checks rule out
    /// the others): its slice is empty.
    pub(crate) fn host_entry(&self, v: usize) -> Option<&'a [T]> {
        let (b, off) = self.entry(v);
        b.host_slice().map(|s| s.get(off..).unwrap_or_default())
    }
}

/// Where results go (F6): host memory (the call waits for them) or a device buffer (the call
/// never synchronises the host, so it can be captured into a graph).
pub enum Results<'a, R> {
    /// One result per batch entry into this slice; the call waits.
    Host(&'a mut [R]),
    /// One result per batch entry into this device buffer; nothing waits.
    Device(&'a mut DeviceBuffer<R>),
}

impl Results<'_, i32> {
    /// The first `n` results set to 0 (a quick return's info): a memset in the stream's order
    /// on the GPU, at once on the host.
    pub(crate) fn zero(&mut self, h: &Handle, n: usize) -> Result<(), Error> {
        match self {
            Results::Host(s) => s[..n].fill(0),
            Results::Device(b) => match b.device_ptr() {
                Some(p) if h.device().backend() == crate::Backend::Cuda => {
                    h.stream().memset32(p, 0, n)?
                }
                _ => {
                    if let Some(s) = b.host_slice_mut() {
                        s[..n].fill(0);
                    }
                }
            },
        }
        Ok(())
    }
}

impl<R> Results<'_, R> {
    pub(crate) fn len(&self) -> usize
    where
        R: Element,
    {
        match self {
            Results::Host(s) => s.len(),
            Results::Device(b) => b.len(),
        }
    }

    pub(crate) fn is_host(&self) -> bool {
        matches!(self, Results::Host(_))
    }

    /// The same destination, borrowed again (to hand it to one part of a call and keep it).
    pub(crate) fn reborrow(&mut self) -> Results<'_, R> {
        match self {
            Results::Host(s) => Results::Host(s),
            Results::Device(b) => Results::Device(b),
        }
    }
}

/// Elements spanned by a vector of `n` elements at increment `inc` (`None` on overflow).
pub fn vec_span(n: usize, inc: isize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    (n - 1).checked_mul(inc.unsigned_abs())?.checked_add(1)
}

/// Elements spanned by a column-major `rows × cols` matrix with leading dimension `ld`
/// (`None` on overflow).
pub fn mat_span(rows: usize, cols: usize, ld: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        return Some(0);
    }
    (cols - 1).checked_mul(ld)?.checked_add(rows)
}

/// Elements of a packed triangle of order `n` (`None` on overflow).
pub fn packed_span(n: usize) -> Option<usize> {
    n.checked_mul(n.checked_add(1)?).map(|v| v / 2)
}

/// The operand checks of one call (F7, F9): each names the routine and the values involved.
pub(crate) struct Checker<'h> {
    pub(crate) h: &'h Handle,
    pub(crate) call: &'static str,
}

impl Checker<'_> {
    /// `InvalidPointer` for a placeholder or a buffer of another device.
    fn where_is<T: Element>(&self, buf: &DeviceBuffer<T>, label: &dyn Fn() -> String) -> Error {
        let call = self.call;
        match buf.device() {
            None => Error::InvalidPointer(format!(
                "{call}: {} is a placeholder of {} elements; placeholders are only accepted during a size query",
                label(),
                buf.len()
            )),
            Some(d) => Error::InvalidPointer(format!(
                "{call}: {} is on {} but the handle is on {}",
                label(),
                d.name(),
                self.h.device().name()
            )),
        }
    }

    fn one<T: Element>(
        &self,
        buf: &DeviceBuffer<T>,
        label: &dyn Fn() -> String,
        need: usize,
        why: &dyn Fn() -> String,
    ) -> Result<(), Error> {
        if !buf.is_on(self.h.device()) {
            return Err(self.where_is(buf, label));
        }
        // Downloads, overwrites and the free of this buffer now wait for the handle's stream.
        buf.mark_used(&self.h.stream);
        if buf.len() < need {
            return Err(Error::InvalidValue(format!(
                "{}: {} has {} elements; {} needs {need}",
                self.call,
                label(),
                buf.len(),
                why()
            )));
        }
        Ok(())
    }

    /// Checks every entry of operand `what` against `need` elements per entry (`why` says
    /// where the need comes from, e.g. "n = 5 with incx = 3"). For a list, also pushes each
    /// buffer's address onto `addrs` in the same pass (lists can hold thousands of buffers).
    /// `output`: a strided batch must not overlap itself (F9).
    pub(crate) fn batch<T: Element>(
        &self,
        what: &str,
        b: &Batch<'_, T>,
        need: usize,
        why: &dyn Fn() -> String,
        output: bool,
        addrs: Option<&mut Vec<u64>>,
    ) -> Result<(), Error> {
        match b {
            Batch::Single(buf) => self.one(buf, &|| what.to_string(), need, why),
            Batch::List(list) => {
                let dev = self.h.device();
                let mut sink = addrs;
                if let Some(a) = sink.as_deref_mut() {
                    a.reserve(list.len());
                }
                // One match per buffer on the fast path; the detailed check explains a failure.
                for i in 0..list.len() {
                    let buf = list.get(i);
                    match buf.addr_on(dev) {
                        Some(a) if buf.len() >= need => {
                            buf.mark_used(&self.h.stream);
                            if let Some(s) = sink.as_deref_mut() {
                                s.push(a)
                            }
                        }
                        _ => return self.one(buf, &|| format!("{what}[{i}]"), need, why),
                    }
                }
                Ok(())
            }
            Batch::Strided { buf, stride, count } => {
                if *count == 0 {
                    return Ok(());
                }
                let sname = stride_name(what);
                if output && *count > 1 && *stride < need {
                    return Err(Error::InvalidValue(format!(
                        "{}: output {what} has {sname} = {stride} but one entry spans {need} elements ({}): \
                         {count} entries would overlap",
                        self.call,
                        why()
                    )));
                }
                // Entries that span nothing address nothing, wherever their stride puts them
                // (the C interface hands such operands over with no memory at all).
                let total = if need == 0 {
                    Some(0)
                } else {
                    (count - 1)
                        .checked_mul(*stride)
                        .and_then(|v| v.checked_add(need))
                }
                .ok_or_else(|| {
                    Error::InvalidSize(format!(
                        "{}: batch of {count} at {sname} = {stride} overflows the address space",
                        self.call
                    ))
                })?;
                self.one(
                    buf,
                    &|| format!("{what} (batch of {count}, {sname} = {stride})"),
                    total,
                    why,
                )
            }
        }
    }

    /// A device scalar holds a value for each batch entry it serves (F10).
    pub(crate) fn coef<T: Element>(
        &self,
        what: &str,
        c: &Coef<'_, T>,
        batch: usize,
    ) -> Result<(), Error> {
        if let Some((buf, per)) = c.device() {
            let need = if per == 1 { batch } else { 1 };
            self.one(buf, &|| format!("device scalar {what}"), need, &|| {
                if per == 1 {
                    format!("one value per batch entry ({batch} entries)")
                } else {
                    "a device scalar".to_string()
                }
            })?;
        }
        Ok(())
    }
}

/// `ld >= max(1, rows)` (F7), with the names the user wrote.
pub(crate) fn check_ld(
    call: &str,
    ld_name: &str,
    ld: usize,
    rows: usize,
    rows_name: &str,
) -> Result<(), Error> {
    if ld < rows.max(1) {
        return Err(Error::InvalidSize(format!(
            "{call}: {ld_name} = {ld} must be at least max(1, {rows_name}) = {}",
            rows.max(1)
        )));
    }
    Ok(())
}

/// Both operands of a two-operand call hold the same number of entries.
pub(crate) fn check_counts(call: &str, a: (&str, usize), b: (&str, usize)) -> Result<(), Error> {
    if a.1 != b.1 {
        return Err(Error::InvalidSize(format!(
            "{call}: {} holds {} entries but {} holds {}",
            a.0, a.1, b.0, b.1
        )));
    }
    Ok(())
}

/// The size check every operand span goes through: `None` (overflow) becomes `InvalidSize`.
pub(crate) fn span_or(
    call: &str,
    span: Option<usize>,
    what: &dyn Fn() -> String,
) -> Result<usize, Error> {
    span.ok_or_else(|| {
        Error::InvalidSize(format!("{call}: {} overflows the address space", what()))
    })
}

/// The argument that names an operand's batch stride (`stride_a`, …; an inverse's is
/// `stride_inv`).
fn stride_name(what: &str) -> String {
    match what {
        "invA" => "stride_inv".into(),
        _ => format!("stride_{}", what.to_lowercase()),
    }
}

/// A pivot or info buffer is real memory of the handle's device (F7).
pub(crate) fn check_int_buffer(
    h: &Handle,
    name: &str,
    what: &str,
    b: &DeviceBuffer<i32>,
) -> Result<(), Error> {
    if b.is_placeholder() {
        return Err(Error::InvalidPointer(format!(
            "{name}: {what} is a placeholder of {} elements; placeholders are only accepted \
             during a size query",
            b.len()
        )));
    }
    if !b.is_on(h.device()) {
        return Err(Error::InvalidPointer(format!(
            "{name}: {what} is on another device than the handle's ({})",
            h.device().name()
        )));
    }
    b.mark_used(&h.stream);
    Ok(())
}
