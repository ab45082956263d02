//! Several devices of one process as one: a [`DeviceGroup`] of handles (one per device, each
//! with its own workspace), matrices dealt over them in a 2-D block-cyclic layout
//! ([`DistMatrix`]), and distributed routines over them: [`gemm`] (SUMMA), [`potrf`]/[`potrs`]
//! and [`getrf`]/[`getrs`].
//!
//! Memory follows the one-device model per device: every device's scratch (the panels a
//! routine receives) is leased from that device's own handle, a size query on the group
//! answers per device, and a fixed workspace that is too small is a `MemoryError` naming the
//! device and the sizes. Tiles move through a collective behind one trait ([`Transport`]):
//! NCCL between distinct GPUs, in-process copies on host devices (which is how CI tests every
//! distributed algorithm) and between handles that share a GPU.
//!
//! ```
//! use gpublas::multi::{self, DeviceGroup, DistMatrix, Grid};
//! use gpublas::{Device, Uplo};
//! // Four host devices in a 2 x 2 grid, tiles of 3: a 7 x 7 SPD matrix, factored and solved.
//! let devices: Vec<Device> = (0..4).map(|_| Device::host()).collect();
//! let mut group = DeviceGroup::new(&devices)?.with_grid(Grid::new(2, 2)?)?;
//! let n = 7;
//! let a: Vec<f64> = (0..n * n)
//!     .map(|k| if k % (n + 1) == 0 { 8.0 } else { 1.0 / (1 + k % n + k / n) as f64 })
//!     .collect();
//! let mut da = DistMatrix::from_host(&mut group, n, n, 3, &a, n)?;
//! // The group's size query answers per device before anything runs.
//! group.start_device_memory_size_query()?;
//! multi::potrf(&mut group, Uplo::Lower, &mut da)?;
//! let needs = group.stop_device_memory_size_query()?;
//! assert_eq!(needs.len(), 4);
//! assert_eq!(multi::potrf(&mut group, Uplo::Lower, &mut da)?.info, 0);
//! let mut db = DistMatrix::from_host(&mut group, n, 1, 3, &vec![1.0f64; n], n)?;
//! multi::potrs(&mut group, Uplo::Lower, &da, &mut db)?;
//! let x = db.to_host(&mut group)?;
//! for i in 0..n {
//!     let ax: f64 = (0..n).map(|j| a[i + j * n] * x[j]).sum();
//!     assert!((ax - 1.0).abs() < 1e-12);
//! }
//! # Ok::<(), gpublas::Error>(())
//! ```

mod collective;
mod gemm;
mod layout;
mod lu;
mod matrix;
mod potrf;
mod tri;

pub use gemm::gemm;
pub use layout::{Grid, Layout};
pub use lu::{getrf, getrs};
pub use matrix::DistMatrix;
pub use potrf::{potrf, potrs, Factored};

use crate::device::nccl::NcclWorld;
use crate::memory::front_and_total;
use crate::{Device, Error, Handle, Status};
use collective::{Comm, InProcess, Nccl};

/// How a group moves tiles between its devices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// NCCL where the group's devices are two or more distinct GPUs and NCCL loads, else
    /// in-process copies (the default).
    Auto,
    /// Copies through the device layer: memcpy between host devices, peer copies between the
    /// GPUs of one process (ordered by events between their streams). Also what a group of
    /// handles that share one GPU uses.
    InProcess,
    /// NCCL point-to-point sends and receives on each device's stream (`LibraryMissing` where
    /// NCCL cannot be loaded, `Unsupported` for host devices or a GPU named twice).
    Nccl,
}

/// Handles of several devices (one each, same process) driven as one, with a device grid and
/// the collective that moves tiles between them. Device `r` is `handle(r)`; it sits at grid
/// position [`Grid::coords`]`(r)`.
pub struct DeviceGroup {
    handles: Vec<Handle>,
    grid: Grid,
    comm: Comm,
    /// While a routine's steps run as size queries to measure its local calls: the held
    /// panels are placeholders and nothing moves between devices.
    measuring: bool,
}

impl std::fmt::Debug for DeviceGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceGroup")
            .field("devices", &self.handles.len())
            .field("grid", &self.grid)
            .field("transport", &self.transport())
            .finish()
    }
}

impl DeviceGroup {
    /// A group of one new handle per device (each with the environment's workspace settings,
    /// as [`Handle::new`]) on the default grid [`Grid::auto`]. `InvalidSize` for no devices;
    /// `InvalidValue` for devices of two backends.
    pub fn new(devices: &[Device]) -> Result<DeviceGroup, Error> {
        let handles = devices
            .iter()
            .map(Handle::new)
            .collect::<Result<Vec<_>, _>>()?;
        DeviceGroup::from_handles(handles)
    }

    /// A group of the given handles (their workspaces as configured) on the default grid.
    pub fn from_handles(handles: Vec<Handle>) -> Result<DeviceGroup, Error> {
        let Some(first) = handles.first() else {
            return Err(Error::InvalidSize("a device group of no devices".into()));
        };
        let backend = first.device().backend();
        if let Some(h) = handles.iter().find(|h| h.device().backend() != backend) {
            return Err(Error::InvalidValue(format!(
                "a device group mixes backends: {} and {}",
                first.device().name(),
                h.device().name()
            )));
        }
        let mut group = DeviceGroup {
            grid: Grid::auto(handles.len()),
            handles,
            comm: Comm::InProcess(InProcess),
            measuring: false,
        };
        group.comm = group.auto_comm();
        Ok(group)
    }

    /// The same group moving tiles by `transport`.
    pub fn with_transport(mut self, transport: Transport) -> Result<DeviceGroup, Error> {
        self.comm = match transport {
            Transport::InProcess => Comm::InProcess(InProcess),
            Transport::Auto => self.auto_comm(),
            Transport::Nccl => match NcclWorld::new(&self.devices())? {
                Some(world) => Comm::Nccl(Nccl(world)),
                None => {
                    return Err(Error::Unsupported(
                        "NCCL needs a group of distinct GPUs (host devices, or one GPU named \
                         twice, move tiles in process)"
                            .into(),
                    ))
                }
            },
        };
        Ok(self)
    }

    /// How the group moves tiles: `Transport::InProcess` or `Transport::Nccl`.
    pub fn transport(&self) -> Transport {
        match self.comm {
            Comm::InProcess(_) => Transport::InProcess,
            Comm::Nccl(_) => Transport::Nccl,
        }
    }

    /// NCCL for two or more distinct GPUs where it loads, else in-process copies.
    fn auto_comm(&self) -> Comm {
        if self.handles.len() > 1 {
            if let Ok(Some(world)) = NcclWorld::new(&self.devices()) {
                return Comm::Nccl(Nccl(world));
            }
        }
        Comm::InProcess(InProcess)
    }

    fn devices(&self) -> Vec<Device> {
        self.handles.iter().map(|h| h.device().clone()).collect()
    }

    /// The same group on another grid; `InvalidSize` unless it has one place per device.
    pub fn with_grid(mut self, grid: Grid) -> Result<DeviceGroup, Error> {
        if grid.size() != self.handles.len() {
            return Err(Error::InvalidSize(format!(
                "a {} x {} grid for a group of {} devices",
                grid.rows,
                grid.cols,
                self.handles.len()
            )));
        }
        self.grid = grid;
        Ok(self)
    }

    /// Number of devices.
    pub fn len(&self) -> usize {
        self.handles.len()
    }

    /// Whether the group is empty (never: a group has at least one device).
    pub fn is_empty(&self) -> bool {
        self.handles.is_empty()
    }

    /// The device grid.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// The handle of device `r` (panics past the group: `r < len()`).
    pub fn handle(&self, r: usize) -> &Handle {
        &self.handles[r]
    }

    /// The handle of device `r`, to configure its workspace (panics past the group).
    pub fn handle_mut(&mut self, r: usize) -> &mut Handle {
        &mut self.handles[r]
    }

    /// Starts a size query on every device's handle (M7). `QueryMismatch` if one is active
    /// on any (then none is started).
    pub fn start_device_memory_size_query(&mut self) -> Result<(), Error> {
        if let Some(r) = self
            .handles
            .iter()
            .position(Handle::is_device_memory_size_query)
        {
            return Err(Error::QueryMismatch(format!(
                "a size query is already active on device {r} of the group"
            )));
        }
        for h in &mut self.handles {
            h.start_device_memory_size_query()?;
        }
        Ok(())
    }

    /// Ends the size query on every handle; the largest need seen, per device (M7).
    pub fn stop_device_memory_size_query(&mut self) -> Result<Vec<usize>, Error> {
        if let Some(r) = self
            .handles
            .iter()
            .position(|h| !h.is_device_memory_size_query())
        {
            return Err(Error::QueryMismatch(format!(
                "no size query is active on device {r} of the group"
            )));
        }
        self.handles
            .iter_mut()
            .map(Handle::stop_device_memory_size_query)
            .collect()
    }

    /// Whether a size query is active (on every handle, as the group's query starts it).
    pub fn is_device_memory_size_query(&self) -> bool {
        self.handles.iter().all(Handle::is_device_memory_size_query)
    }

    /// Whether the group's size query is active; `QueryMismatch` when a query is active on
    /// some of its handles only (a distributed call cannot both run and answer it).
    fn query_state(&self) -> Result<bool, Error> {
        let active = self
            .handles
            .iter()
            .filter(|h| h.is_device_memory_size_query())
            .count();
        if active > 0 && active < self.handles.len() {
            let r = self
                .handles
                .iter()
                .position(|h| !h.is_device_memory_size_query())
                .unwrap_or(0);
            return Err(Error::QueryMismatch(format!(
                "a size query is active on {active} of the group's {} handles (not on device \
                 {r}); start and stop it on the group",
                self.handles.len()
            )));
        }
        Ok(active > 0)
    }

    /// The status of a call with nothing to do: `SizeUnchanged` during the group's query.
    fn quick_return(&self) -> Result<Status, Error> {
        Ok(if self.query_state()? {
            Status::SizeUnchanged
        } else {
            Status::Success
        })
    }

    /// Waits for the work submitted so far on every device's stream (their streams alone).
    pub fn synchronize(&self) -> Result<(), Error> {
        for h in &self.handles {
            h.synchronize()?;
        }
        Ok(())
    }

    /// `InvalidValue` unless `layout` is on this group's grid.
    fn check_layout(&self, what: &str, layout: &Layout) -> Result<(), Error> {
        if layout.grid != self.grid {
            return Err(Error::InvalidValue(format!(
                "{what} is laid out on a {} x {} grid, the group's grid is {} x {}",
                layout.grid.rows, layout.grid.cols, self.grid.rows, self.grid.cols
            )));
        }
        Ok(())
    }
}

/// The worst of the statuses of a routine's local calls (`PerfDegraded` when any was).
fn worst(a: Status, b: Status) -> Status {
    if a == Status::PerfDegraded || b == Status::PerfDegraded {
        Status::PerfDegraded
    } else {
        Status::Success
    }
}

/// What [`hold_fronts`] found: a size query (its status) or the held fronts' addresses.
enum Held {
    Query(Status),
    Fronts(Vec<u64>),
}

/// The query → check → hold step of a distributed routine. `steps` runs the routine's steps
/// on the fronts it is given; here it runs once with every handle answering a private size
/// query (placeholders for the fronts, no copies), which measures exactly the local calls the
/// real run makes. Then, during the group's size query, each handle records `front[r]` plus
/// that need; otherwise every handle holds its front (growing a `Managed` workspace to fit
/// the local calls behind it). On an error nothing stays held.
fn hold_fronts<S>(group: &mut DeviceGroup, front: &[usize], steps: S) -> Result<Held, Error>
where
    S: FnOnce(&mut DeviceGroup, &[u64]) -> Result<(), Error>,
{
    let querying = group.query_state()?;
    let saved: Vec<Option<usize>> = group
        .handles
        .iter_mut()
        .map(Handle::begin_private_query)
        .collect();
    group.measuring = true;
    let measured = steps(group, &vec![0; group.len()]);
    group.measuring = false;
    let inner: Vec<usize> = group
        .handles
        .iter_mut()
        .zip(saved)
        .map(|(h, s)| h.end_private_query(s))
        .collect();
    measured?;
    let mut addrs = Vec::with_capacity(group.len());
    let mut status = Status::SizeUnchanged;
    for (r, h) in group.handles.iter_mut().enumerate() {
        let held = if querying {
            front_and_total(front[r], inner[r]).and_then(|(_, total)| {
                if h.query_step(&[total])? == Some(Status::SizeIncreased) {
                    status = Status::SizeIncreased;
                }
                Ok(0)
            })
        } else {
            h.hold_front(front[r], inner[r])
        };
        match held {
            Ok(a) => addrs.push(a),
            Err(e) => {
                release_fronts(group);
                return Err(e);
            }
        }
    }
    Ok(if querying {
        Held::Query(status)
    } else {
        Held::Fronts(addrs)
    })
}

/// Ends every handle's hold (in stream order).
fn release_fronts(group: &mut DeviceGroup) {
    for h in &mut group.handles {
        h.release_front();
    }
}

/// A buffer of `len` elements of device `r`'s held front at element `at`.
fn front_buffer<T: crate::device::Element>(
    group: &DeviceGroup,
    r: usize,
    addr: u64,
    at: usize,
    len: usize,
) -> Result<crate::DeviceBuffer<T>, Error> {
    if group.measuring {
        return Ok(crate::DeviceBuffer::placeholder(len));
    }
    let a = addr + (at * std::mem::size_of::<T>()) as u64;
    crate::DeviceBuffer::over_workspace(group.handle(r).device(), a, len)
}

/// Broadcasts the `rows × cols` block of `src` (on device `root`, at element `at` with column
/// stride `ld`) into `panels[r]` of every device `r` for which `dest(r)` gives an element and
/// a column stride.
#[allow(clippy::too_many_arguments)]
fn broadcast<T: crate::device::Element>(
    group: &DeviceGroup,
    shape: (usize, usize),
    root: usize,
    src: &crate::DeviceBuffer<T>,
    (at, ld): (usize, usize),
    panels: &mut [crate::DeviceBuffer<T>],
    dest: impl Fn(usize) -> Option<(usize, usize)>,
) -> Result<(), Error> {
    use collective::{Collective, Part, Source};
    if group.measuring {
        return Ok(());
    }
    let source = Source {
        rank: root,
        stream: group.handles[root].stream(),
        buffer: src,
        at,
        ld,
    };
    let mut to: Vec<Part<'_, T>> = Vec::new();
    for (r, panel) in panels.iter_mut().enumerate() {
        if let Some((at, ld)) = dest(r) {
            to.push(Part {
                rank: r,
                stream: group.handles[r].stream(),
                buffer: panel,
                at,
                ld,
            });
        }
    }
    group.comm.broadcast(shape, &source, &mut to)
}

/// The `rows × cols` block of `buf` at element `at` (column stride `ld`) as a buffer of its
/// own, for a local call.
fn block<T: crate::device::Element>(
    buf: &crate::DeviceBuffer<T>,
    at: usize,
    (rows, cols): (usize, usize),
    ld: usize,
) -> Result<crate::DeviceBuffer<T>, Error> {
    let len = if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    };
    if buf.is_placeholder() {
        return Ok(crate::DeviceBuffer::placeholder(len));
    }
    buf.view(at.min(buf.len()), len).ok_or_else(|| {
        Error::InvalidSize(format!(
            "a {rows} x {cols} block at element {at} (ld {ld}) leaves a buffer of {}",
            buf.len()
        ))
    })
}

/// Copies the `rows × cols` block of `src` on device `from` (at element `at`, stride `ld`) into
/// `dst` on device `to` (its element and stride), through the group's collective.
fn send<T: crate::device::Element>(
    group: &DeviceGroup,
    shape: (usize, usize),
    (from, src, src_at): (usize, &crate::DeviceBuffer<T>, (usize, usize)),
    (to, dst, dst_at): (usize, &mut crate::DeviceBuffer<T>, (usize, usize)),
) -> Result<(), Error> {
    use collective::{Collective, Part, Source};
    if group.measuring {
        return Ok(());
    }
    let source = Source {
        rank: from,
        stream: group.handles[from].stream(),
        buffer: src,
        at: src_at.0,
        ld: src_at.1,
    };
    let mut part = [Part {
        rank: to,
        stream: group.handles[to].stream(),
        buffer: dst,
        at: dst_at.0,
        ld: dst_at.1,
    }];
    group.comm.broadcast(shape, &source, &mut part)
}

/// Exchanges global rows `g1` and `g2` of `m` in the local column ranges `cols(pc)` of every
/// grid column `pc`, through `tmp[r]` (a row of local columns on each device).
fn swap_rows<T: crate::device::Element>(
    group: &DeviceGroup,
    m: &mut DistMatrix<T>,
    (g1, g2): (usize, usize),
    cols: &dyn Fn(usize) -> Vec<(usize, usize)>,
    tmp: &mut [crate::DeviceBuffer<T>],
) -> Result<(), Error> {
    if g1 == g2 || group.measuring {
        return Ok(());
    }
    let l = *m.layout();
    let grid = l.grid;
    for pc in 0..grid.cols {
        let row_of = |g: usize| {
            let i = g / l.nb;
            let pr = i % grid.rows;
            (
                grid.device_at(pr, pc),
                l.local_row_of_tile(i, pr) + g % l.nb,
            )
        };
        let ((d1, lr1), (d2, lr2)) = (row_of(g1), row_of(g2));
        let (ld1, ld2) = (l.local_ld(d1), l.local_ld(d2));
        for (c0, c1) in cols(pc) {
            let shape = (1, c1 - c0);
            if c1 <= c0 {
                continue;
            }
            let (at1, at2) = (lr1 + c0 * ld1, lr2 + c0 * ld2);
            let all1 = m.local(d1).len();
            let all2 = m.local(d2).len();
            let mut row1 = block(m.local(d1), 0, (all1, 1), all1.max(1))?;
            let mut row2 = block(m.local(d2), 0, (all2, 1), all2.max(1))?;
            send(
                group,
                shape,
                (d1, &row1, (at1, ld1)),
                (d1, &mut tmp[d1], (0, 1)),
            )?;
            send(
                group,
                shape,
                (d2, &row2, (at2, ld2)),
                (d1, &mut row1, (at1, ld1)),
            )?;
            send(
                group,
                shape,
                (d1, &tmp[d1], (0, 1)),
                (d2, &mut row2, (at2, ld2)),
            )?;
        }
    }
    Ok(())
}

/// Spreads part of tile column `k` (its first `width` columns) along the grid rows: on each
/// grid row `pr`, the device in tile column `k`'s grid column sends its local rows
/// `rows(pr) = (first, end)` to every device of the row, into `panels` at the same local rows
/// (column stride: the grid row's local row count).
fn spread_along_rows<T: crate::device::Element>(
    group: &DeviceGroup,
    l: &Layout,
    (k, width): (usize, usize),
    rows: &dyn Fn(usize) -> (usize, usize),
    a: &DistMatrix<T>,
    panels: &mut [crate::DeviceBuffer<T>],
) -> Result<(), Error> {
    let grid = l.grid;
    let kc = k % grid.cols;
    let kcol = l.local_col_of_tile(k, kc);
    for pr in 0..grid.rows {
        let root = grid.device_at(pr, kc);
        let rows_here = l.local_rows_of_row(pr);
        let (r0, r1) = rows(pr);
        let ld = l.local_ld(root);
        broadcast(
            group,
            (r1 - r0, width),
            root,
            a.local(root),
            (r0 + kcol * ld, ld),
            panels,
            |r| (grid.coords(r).0 == pr).then_some((r0, rows_here.max(1))),
        )?;
    }
    Ok(())
}
