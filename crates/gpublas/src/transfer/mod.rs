//! Auxiliary transfers between host and device memory: `set_vector`, `get_vector`,
//! `set_matrix`, `get_matrix` and their `_async` forms, for any element type (rocBLAS's
//! auxiliary functions; the fourth consumer of the handle's workspace).
//!
//! - Vectors take any non-zero increment on either side; a negative one walks the vector
//!   backwards, as everywhere in gpublas (element `i` of `n` at index `(n - 1 - i) * |inc|`).
//!   Only the addressed elements are written; the gaps between them are left as they were.
//! - Matrices are column-major (`rows`, `cols`, leading dimensions at least `rows`).
//! - Contiguous on both sides is one copy, except from or to pageable host memory from 2 MiB
//!   on, which is staged as below (the driver's pageable path copies on one thread before its
//!   DMA). A non-contiguous host side is compressed on the host
//!   into page-locked staging buffers owned by the handle (packed in parallel, while the copy
//!   engine moves the previous piece); a non-contiguous device side goes through a chunk of the
//!   workspace and a scatter or gather kernel. Columns of at least 512 bytes are moved by the
//!   copy engine's 2-D copies instead, on both sides, and so are columns of at least 64 bytes
//!   whose host side is page-locked and not contiguous.
//! - Workspace ([`workspace_bytes`], F4): a chunk of up to 16 MiB when the device side is not
//!   contiguous and its columns are narrow; under a smaller fixed workspace the transfer runs
//!   in smaller chunks (`PerfDegraded`, same bytes); `MemoryError` only when not even one
//!   element fits. Size queries answer for these calls; during a query the host side may be
//!   an empty slice and the device buffer a placeholder.
//! - The synchronous forms take any host slice and return when the copy has finished; they
//!   wait only for the handle's stream. The `_async` forms take a [`PinnedBuffer`], return at
//!   once and run in the handle's stream order; touching the buffer waits for them. Those
//!   whose host side needs packing (strided vectors, matrices with columns under 64 bytes) run it
//!   on a host thread in stream order, which a graph cannot capture (`Unsupported` under
//!   capture); the others can be captured.
//!
//! ```
//! use gpublas::{transfer, Device, Handle};
//! let dev = Device::host();
//! let mut h = Handle::new(&dev)?;
//! let x = [1.0f32, -1.0, 2.0, -1.0, 3.0];
//! let mut d = dev.alloc::<f32>(3)?;
//! transfer::set_vector(&mut h, 3, &x, 2, &mut d, 1)?; // every other element
//! let mut back = [0.0f32; 6];
//! transfer::get_vector(&mut h, 3, &d, 1, &mut back, -2)?; // backwards into every other slot
//! assert_eq!(back, [3.0, 0.0, 2.0, 0.0, 1.0, 0.0]);
//! # Ok::<(), gpublas::Error>(())
//! ```

mod cuda;
mod layout;

use crate::common::operand::{check_ld, mat_span, span_or, vec_span, Batch, Checker};
use crate::common::plan::{drive, Routine, WorkspacePlan};
use crate::device::{Backend, DeviceBuffer, Element, PinnedBuffer};
use crate::memory::{WorkspaceSlice, CHUNK};
use crate::{Error, Handle, Status, WorkspaceLease};
pub(crate) use layout::Side;

/// The transfers' tuning values, in one place: the plan's workspace chunk, the crossovers
/// between the ways of moving data, the CUDA runner's staging slots and pieces, and the
/// host-side packing's parallel pieces. Each call carries them (`Call::params`); the kernel
/// fact `THREADS` (cuda.rs) stays a constant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TransferParams {
    /// Largest workspace chunk a transfer uses.
    pub best_chunk: usize,
    /// Columns at least this wide (bytes) are moved by 2-D copies of the copy engine.
    pub wide_bytes: usize,
    /// Columns of at least this many bytes go straight between page-locked host memory and the
    /// device as 2-D copies (the copy engine handles them at 40+ GB/s; narrower rows crawl).
    pub column_2d_bytes: usize,
    /// Page-locked staging slots per handle, and their size: two halves of four 4 MiB slots,
    /// one being packed while the copy engine moves the other.
    pub slots: usize,
    pub slot_bytes: usize,
    /// The first pieces of a packed upload are smaller, so the copy engine starts early.
    pub first_piece: usize,
    /// Contiguous runs from or to pageable host memory of at least this many bytes go through
    /// the staging slots too: copied in parallel pieces while the copy engine moves the
    /// previous ones, where the driver's own pageable path copies on one thread first.
    pub staged_contiguous_bytes: usize,
    /// Runs below this many bytes are packed on the calling thread; above, in parallel pieces
    /// of `piece_bytes`.
    pub parallel_bytes: usize,
    pub piece_bytes: usize,
}

impl TransferParams {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        TransferParams {
            best_chunk: 16 << 20,
            wide_bytes: 512,
            column_2d_bytes: 64,
            slots: 8,
            slot_bytes: 4 << 20,
            first_piece: 128 << 10,
            staged_contiguous_bytes: 2 << 20,
            parallel_bytes: 256 << 10,
            piece_bytes: 128 << 10,
        }
    }

    /// Workspace bytes for a device side of `elem`-byte elements: a chunk when it is not
    /// contiguous and its columns are narrow.
    fn need(&self, dev: Side, elem: usize) -> usize {
        if dev.count() == 0 || dev.contiguous() || self.wide(dev, elem) {
            return 0;
        }
        dev.count().saturating_mul(elem).min(self.best_chunk)
    }

    /// Whether columns are moved by 2-D copies.
    pub(crate) fn wide(&self, s: Side, elem: usize) -> bool {
        s.rows > 1 && s.rows.saturating_mul(elem) >= self.wide_bytes
    }

    /// Whether a matrix's columns are wide enough for 2-D copies from page-locked memory.
    pub(crate) fn columns_2d(&self, s: Side, elem: usize) -> bool {
        s.rows > 1 && s.rows.saturating_mul(elem) >= self.column_2d_bytes
    }
}

/// The device side of a transfer, as far as its workspace need goes (F4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `n` elements at increment `dev_inc` on the device.
    Vector {
        /// Elements.
        n: usize,
        /// The device side's increment.
        dev_inc: isize,
    },
    /// A `rows × cols` matrix with leading dimension `dev_ld` on the device.
    Matrix {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// The device side's leading dimension.
        dev_ld: usize,
    },
}

impl Shape {
    fn side(&self) -> Side {
        match *self {
            Shape::Vector { n, dev_inc } => Side::vector(n, dev_inc),
            Shape::Matrix { rows, cols, dev_ld } => Side::matrix(rows, cols, dev_ld),
        }
    }
}

/// Device workspace bytes a transfer of elements `T` leases (F4): a chunk of up to 16 MiB when
/// the device side is not contiguous and its columns are narrower than 512 bytes, else 0.
/// The host side does not matter (its staging is page-locked host memory of the handle).
///
/// ```
/// use gpublas::transfer::{workspace_bytes, Shape};
/// assert_eq!(workspace_bytes::<f32>(Shape::Vector { n: 1000, dev_inc: 1 }), 0);
/// assert_eq!(workspace_bytes::<f32>(Shape::Vector { n: 1000, dev_inc: 2 }), 4000);
/// assert_eq!(workspace_bytes::<f64>(Shape::Matrix { rows: 16, cols: 1 << 20, dev_ld: 64 }), 16 << 20);
/// ```
pub fn workspace_bytes<T: Element>(shape: Shape) -> usize {
    TransferParams::auto().need(shape.side(), std::mem::size_of::<T>())
}

/// The transfers' workspace parts by name: their sizes in bytes (the plan), or the
/// sub-buffers a lease holds for them (`TransferWorkspace::leased`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TransferWorkspace<S> {
    /// One piece of the device side's elements, packed contiguously: copied in before a
    /// kernel scatters it to a strided device side, or gathered by a kernel before it is
    /// copied out (bytes: a multiple of the element size; 0, not leased, where the device
    /// side needs no packing).
    pub packed: S,
}

/// The workspace plan: the packed piece's size in bytes.
pub(crate) type Plan = TransferWorkspace<usize>;

impl WorkspacePlan for Plan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        if self.packed == 0 {
            smallvec::smallvec![]
        } else {
            smallvec::smallvec![self.packed]
        }
    }
}

impl TransferWorkspace<Option<WorkspaceSlice>> {
    /// The parts of a lease laid out by `Plan::sizes`.
    pub(crate) fn leased(lease: &WorkspaceLease<'_>) -> Self {
        TransferWorkspace {
            packed: lease.buffer(0),
        }
    }
}

/// Which way the data goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dir {
    /// Host to device.
    Set,
    /// Device to host.
    Get,
}

/// The host side of a call.
pub(crate) enum HostMem<'a, T> {
    Slice(&'a [T]),
    SliceMut(&'a mut [T]),
    Pinned(&'a PinnedBuffer<T>),
    PinnedMut(&'a mut PinnedBuffer<T>),
}

impl<T: Element> HostMem<'_, T> {
    fn len(&self) -> usize {
        match self {
            HostMem::Slice(s) => s.len(),
            HostMem::SliceMut(s) => s.len(),
            HostMem::Pinned(p) => p.len(),
            HostMem::PinnedMut(p) => p.len(),
        }
    }

    fn pinned(&self) -> Option<&PinnedBuffer<T>> {
        match self {
            HostMem::Pinned(p) => Some(p),
            HostMem::PinnedMut(p) => Some(p),
            _ => None,
        }
    }
}

/// The device side of a call.
pub(crate) enum DevMem<'a, T> {
    Src(&'a DeviceBuffer<T>),
    Dst(&'a mut DeviceBuffer<T>),
}

impl<T: Element> DevMem<'_, T> {
    fn buf(&self) -> &DeviceBuffer<T> {
        match self {
            DevMem::Src(b) => b,
            DevMem::Dst(b) => b,
        }
    }
}

/// One call's arguments.
pub(crate) struct Call<'a, T> {
    pub name: &'static str,
    pub dir: Dir,
    pub host: HostMem<'a, T>,
    pub host_side: Side,
    pub dev: DevMem<'a, T>,
    pub dev_side: Side,
    /// Argument names of the host and device sides ("x"/"incx", …) and what the spans come from.
    pub names: Names,
    pub params: TransferParams,
}

/// How the user named things, for error messages.
pub(crate) struct Names {
    pub host: &'static str,
    pub dev: &'static str,
    pub host_why: String,
    pub dev_why: String,
}

fn span(s: Side) -> Option<usize> {
    if s.rows == 1 {
        vec_span(s.cols, s.ld as isize)
    } else {
        mat_span(s.rows, s.cols, s.ld)
    }
}

impl<T: Element> Call<'_, T> {
    fn async_form(&self) -> bool {
        self.host.pinned().is_some()
    }

    /// Operand checks (F7): lengths, devices, pinned memory of the right backend.
    fn check_operands(&self, h: &Handle) -> Result<(), Error> {
        let host_need = span_or(self.name, span(self.host_side), &|| {
            self.names.host_why.clone()
        })?;
        let dev_need = span_or(self.name, span(self.dev_side), &|| {
            self.names.dev_why.clone()
        })?;
        if self.host.len() < host_need {
            return Err(Error::InvalidValue(format!(
                "{}: host {} has {} elements; {} needs {host_need}",
                self.name,
                self.names.host,
                self.host.len(),
                self.names.host_why
            )));
        }
        if let Some(p) = self.host.pinned() {
            if !p.usable_on(h.device()) {
                return Err(Error::InvalidPointer(format!(
                    "{}: host {} is a pinned buffer of another backend than the handle's ({})",
                    self.name,
                    self.names.host,
                    h.device().name()
                )));
            }
        }
        let ck = Checker { h, call: self.name };
        let why = || self.names.dev_why.clone();
        ck.batch(
            self.names.dev,
            &Batch::Single(self.dev.buf()),
            dev_need,
            &why,
            self.dir == Dir::Set,
            None,
        )
    }
}

/// One transfer on its way through [`drive`].
struct Transfer<'a, T> {
    call: Call<'a, T>,
    cuda: bool,
    /// The handle's page-locked staging slots, borrowed while the call runs (CUDA only).
    staging: Option<Vec<PinnedBuffer<u8>>>,
}

impl<T: Element> Transfer<'_, T> {
    fn elem(&self) -> usize {
        std::mem::size_of::<T>()
    }

    /// The plan with enough workspace (the call has elements to move).
    fn best(&self) -> Plan {
        TransferWorkspace {
            packed: self.call.params.need(self.call.dev_side, self.elem()),
        }
    }
}

impl<T: Element> Routine for Transfer<'_, T> {
    type Plan = Plan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    /// The sizes were checked when the call was built (`vector_call`, `matrix_call`).
    fn check_sizes(&mut self) -> Result<(), Error> {
        Ok(())
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<Plan>, Error> {
        Ok((self.call.dev_side.count() > 0).then(|| self.best()))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let c = &self.call;
        c.check_operands(h)?;
        if !self.cuda || c.dev_side.count() == 0 {
            return Ok(());
        }
        // Before the workspace is chosen (the one step the driver has no place for between
        // the choice and the lease): a capture that cannot record the call fails here.
        if c.async_form() && cuda::needs_host_packing(c) && h.stream().is_capturing()? {
            return Err(Error::Unsupported(format!(
                "{}: host {} is not contiguous ({}) and its columns are narrow, so it is packed on \
                 a host thread in stream order, which graph capture cannot record; capture a \
                 transfer from contiguous pinned memory instead, or use the synchronous form",
                c.name, c.names.host, c.names.host_why
            )));
        }
        self.staging = Some(std::mem::take(&mut h.staging));
        Ok(())
    }

    fn fitted(&mut self, capacity: usize) -> Result<Option<Plan>, Error> {
        let elem = self.elem();
        let gran = CHUNK.max(elem);
        let chunk = capacity / gran * gran;
        Ok((chunk >= elem).then_some(TransferWorkspace {
            packed: chunk.min(self.best().packed),
        }))
    }

    fn minimum(&self) -> String {
        format!("one element ({} bytes) through the workspace", self.elem())
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &Plan) -> Result<(), Error> {
        if !self.cuda {
            // The host backend takes the same lease as on a GPU (statistics, fixed sizes);
            // the copies need no scratch.
            host_run(&mut self.call, *plan);
            return Ok(());
        }
        let h = lease.handle();
        h.stream().bind()?;
        let ws = TransferWorkspace::leased(lease);
        let packed = ws.packed.map(|s| (s.device_ptr(), s.len()));
        // Taken from the handle by `check_operands`.
        let staging = self.staging.get_or_insert_with(Vec::new);
        cuda::run(h, &mut self.call, packed, staging)
    }

    fn finish(&mut self, h: &mut Handle) {
        if let Some(staging) = self.staging.take() {
            h.staging = staging;
        }
    }
}

/// The one implementation behind every transfer (F2).
pub(crate) fn run<T: Element>(h: &mut Handle, call: Call<'_, T>) -> Result<Status, Error> {
    let cuda = h.device().backend() == Backend::Cuda;
    drive(
        h,
        &mut Transfer {
            call,
            cuda,
            staging: None,
        },
    )
}

/// The host backend: the same semantics, with plain strided copies.
fn host_run<T: Element>(c: &mut Call<'_, T>, plan: Plan) {
    let n = c.dev_side.count();
    let step = if plan.packed == 0 {
        n
    } else {
        (plan.packed / std::mem::size_of::<T>()).max(1)
    };
    let (hs, ds, p) = (c.host_side, c.dev_side, c.params);
    let mut run = Vec::with_capacity(step.min(n));
    let mut k0 = 0;
    while k0 < n {
        let len = step.min(n - k0);
        run.clear();
        run.resize(len, T::zeroed());
        match (c.dir, &mut c.host, &mut c.dev) {
            (Dir::Set, host, DevMem::Dst(d)) => {
                let src: &[T] = match host {
                    HostMem::Slice(s) => s,
                    HostMem::Pinned(p) => p.as_slice(),
                    HostMem::SliceMut(s) => s,
                    HostMem::PinnedMut(p) => p.as_slice(),
                };
                layout::pack(&p, src, hs, k0, &mut run);
                if let Some(dst) = d.host_slice_mut() {
                    layout::unpack(&p, &run, ds, k0, dst);
                }
            }
            (Dir::Get, host, DevMem::Src(s)) => {
                if let Some(src) = s.host_slice() {
                    layout::pack(&p, src, ds, k0, &mut run);
                }
                let dst: Option<&mut [T]> = match host {
                    HostMem::SliceMut(s) => Some(s),
                    HostMem::PinnedMut(p) => Some(p.as_mut_slice()),
                    _ => None,
                };
                if let Some(dst) = dst {
                    layout::unpack(&p, &run, hs, k0, dst);
                }
            }
            _ => {}
        }
        k0 += len;
    }
}

// ---- arguments -----------------------------------------------------------------------------

fn check_inc(name: &str, label: &str, inc: isize) -> Result<(), Error> {
    if inc == 0 {
        return Err(Error::InvalidValue(format!(
            "{name}: {label} = 0; increments must be non-zero"
        )));
    }
    Ok(())
}

fn vector_names(n: usize, incx: isize, incy: isize, dir: Dir) -> Names {
    let (host, dev) = match dir {
        Dir::Set => ("x", "y"),
        Dir::Get => ("y", "x"),
    };
    let (hinc, dinc) = match dir {
        Dir::Set => (incx, incy),
        Dir::Get => (incy, incx),
    };
    Names {
        host,
        dev,
        host_why: format!("n = {n} at inc{host} = {hinc}"),
        dev_why: format!("n = {n} at inc{dev} = {dinc}"),
    }
}

fn matrix_names(rows: usize, cols: usize, lda: usize, ldb: usize, dir: Dir) -> Names {
    let (host, dev) = match dir {
        Dir::Set => ("A", "B"),
        Dir::Get => ("B", "A"),
    };
    let (hld, dld) = match dir {
        Dir::Set => (("lda", lda), ("ldb", ldb)),
        Dir::Get => (("ldb", ldb), ("lda", lda)),
    };
    Names {
        host,
        dev,
        host_why: format!("rows = {rows}, cols = {cols}, {} = {}", hld.0, hld.1),
        dev_why: format!("rows = {rows}, cols = {cols}, {} = {}", dld.0, dld.1),
    }
}

fn vector_call<'a, T: Element>(
    name: &'static str,
    dir: Dir,
    n: usize,
    host: HostMem<'a, T>,
    dev: DevMem<'a, T>,
    incx: isize,
    incy: isize,
) -> Result<Call<'a, T>, Error> {
    check_inc(name, "incx", incx)?;
    check_inc(name, "incy", incy)?;
    let (hinc, dinc) = match dir {
        Dir::Set => (incx, incy),
        Dir::Get => (incy, incx),
    };
    let c = Call {
        name,
        dir,
        host,
        host_side: Side::vector(n, hinc),
        dev,
        dev_side: Side::vector(n, dinc),
        names: vector_names(n, incx, incy, dir),
        params: TransferParams::auto(),
    };
    for s in [c.host_side, c.dev_side] {
        span_or(name, span(s), &|| format!("n = {n} at increment {}", s.ld))?;
    }
    Ok(c)
}

#[allow(clippy::too_many_arguments)]
fn matrix_call<'a, T: Element>(
    name: &'static str,
    dir: Dir,
    rows: usize,
    cols: usize,
    host: HostMem<'a, T>,
    dev: DevMem<'a, T>,
    lda: usize,
    ldb: usize,
) -> Result<Call<'a, T>, Error> {
    check_ld(name, "lda", lda, rows, "rows")?;
    check_ld(name, "ldb", ldb, rows, "rows")?;
    let (hld, dld) = match dir {
        Dir::Set => (lda, ldb),
        Dir::Get => (ldb, lda),
    };
    rows.checked_mul(cols).ok_or_else(|| {
        Error::InvalidSize(format!(
            "{name}: rows = {rows} × cols = {cols} overflows the address space"
        ))
    })?;
    let c = Call {
        name,
        dir,
        host,
        host_side: Side::matrix(rows, cols, hld),
        dev,
        dev_side: Side::matrix(rows, cols, dld),
        names: matrix_names(rows, cols, lda, ldb, dir),
        params: TransferParams::auto(),
    };
    for (s, why) in [
        (c.host_side, &c.names.host_why),
        (c.dev_side, &c.names.dev_why),
    ] {
        span_or(name, span(s), &|| why.clone())?;
    }
    Ok(c)
}

// ---- the public routines -------------------------------------------------------------------

/// Copies `n` elements of host `x` (increment `incx`) into device `y` (increment `incy`);
/// returns when they have landed.
pub fn set_vector<T: Element>(
    h: &mut Handle,
    n: usize,
    x: &[T],
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    let c = vector_call(
        "set_vector",
        Dir::Set,
        n,
        HostMem::Slice(x),
        DevMem::Dst(y),
        incx,
        incy,
    )?;
    run(h, c)
}

/// Copies `n` elements of device `x` (increment `incx`) into host `y` (increment `incy`);
/// returns when they have landed.
pub fn get_vector<T: Element>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &mut [T],
    incy: isize,
) -> Result<Status, Error> {
    let c = vector_call(
        "get_vector",
        Dir::Get,
        n,
        HostMem::SliceMut(y),
        DevMem::Src(x),
        incx,
        incy,
    )?;
    run(h, c)
}

/// Copies the `rows × cols` matrix host `a` (leading dimension `lda`) into device `b`
/// (leading dimension `ldb`); returns when it has landed.
pub fn set_matrix<T: Element>(
    h: &mut Handle,
    rows: usize,
    cols: usize,
    a: &[T],
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let c = matrix_call(
        "set_matrix",
        Dir::Set,
        rows,
        cols,
        HostMem::Slice(a),
        DevMem::Dst(b),
        lda,
        ldb,
    )?;
    run(h, c)
}

/// Copies the `rows × cols` matrix device `a` (leading dimension `lda`) into host `b`
/// (leading dimension `ldb`); returns when it has landed.
pub fn get_matrix<T: Element>(
    h: &mut Handle,
    rows: usize,
    cols: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &mut [T],
    ldb: usize,
) -> Result<Status, Error> {
    let c = matrix_call(
        "get_matrix",
        Dir::Get,
        rows,
        cols,
        HostMem::SliceMut(b),
        DevMem::Src(a),
        lda,
        ldb,
    )?;
    run(h, c)
}

/// `set_vector` in the handle's stream order, from pinned memory; returns at once.
pub fn set_vector_async<T: Element>(
    h: &mut Handle,
    n: usize,
    x: &PinnedBuffer<T>,
    incx: isize,
    y: &mut DeviceBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    let c = vector_call(
        "set_vector_async",
        Dir::Set,
        n,
        HostMem::Pinned(x),
        DevMem::Dst(y),
        incx,
        incy,
    )?;
    run(h, c)
}

/// `get_vector` in the handle's stream order, into pinned memory; returns at once (reading
/// `y` waits for the copy).
pub fn get_vector_async<T: Element>(
    h: &mut Handle,
    n: usize,
    x: &DeviceBuffer<T>,
    incx: isize,
    y: &mut PinnedBuffer<T>,
    incy: isize,
) -> Result<Status, Error> {
    let c = vector_call(
        "get_vector_async",
        Dir::Get,
        n,
        HostMem::PinnedMut(y),
        DevMem::Src(x),
        incx,
        incy,
    )?;
    run(h, c)
}

/// `set_matrix` in the handle's stream order, from pinned memory; returns at once.
pub fn set_matrix_async<T: Element>(
    h: &mut Handle,
    rows: usize,
    cols: usize,
    a: &PinnedBuffer<T>,
    lda: usize,
    b: &mut DeviceBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let c = matrix_call(
        "set_matrix_async",
        Dir::Set,
        rows,
        cols,
        HostMem::Pinned(a),
        DevMem::Dst(b),
        lda,
        ldb,
    )?;
    run(h, c)
}

/// `get_matrix` in the handle's stream order, into pinned memory; returns at once (reading
/// `b` waits for the copy).
pub fn get_matrix_async<T: Element>(
    h: &mut Handle,
    rows: usize,
    cols: usize,
    a: &DeviceBuffer<T>,
    lda: usize,
    b: &mut PinnedBuffer<T>,
    ldb: usize,
) -> Result<Status, Error> {
    let c = matrix_call(
        "get_matrix_async",
        Dir::Get,
        rows,
        cols,
        HostMem::PinnedMut(b),
        DevMem::Src(a),
        lda,
        ldb,
    )?;
    run(h, c)
}
