//! `DistMatrix`: a matrix dealt over a group's devices, and its copies from and to host
//! memory or one device.

use super::{DeviceGroup, Layout};
use crate::device::{copy_block, DeviceBuffer, Element};
use crate::Error;

/// An `m × n` column-major matrix in the 2-D block-cyclic [`Layout`] of a group: device `r`
/// holds its tiles in one local column-major matrix of [`Layout::local_shape`]`(r)` with
/// leading dimension [`Layout::local_ld`]`(r)`. Its memory is the user's (allocated on each
/// device by the constructors, like a [`DeviceBuffer`]), not a handle's workspace.
pub struct DistMatrix<T> {
    layout: Layout,
    locals: Vec<DeviceBuffer<T>>,
}

impl<T> std::fmt::Debug for DistMatrix<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistMatrix")
            .field("layout", &self.layout)
            .finish()
    }
}

/// `InvalidSize` unless a column-major `m × n` operand with leading dimension `ld` fits in
/// `len` elements.
fn check_host_operand(what: &str, m: usize, n: usize, ld: usize, len: usize) -> Result<(), Error> {
    if ld < m.max(1) {
        return Err(Error::InvalidSize(format!(
            "{what}: leading dimension {ld} below the {m} rows"
        )));
    }
    let need = crate::spans::mat_span(m, n, ld)
        .ok_or_else(|| Error::InvalidSize(format!("{what}: {m} x {n} (ld {ld}) overflows")))?;
    if len < need {
        return Err(Error::InvalidSize(format!(
            "{what}: a {m} x {n} matrix with leading dimension {ld} needs {need} elements, the \
             operand has {len}"
        )));
    }
    Ok(())
}

impl<T: Element> DistMatrix<T> {
    /// A zero `m × n` matrix in tiles of `nb` on the group's grid.
    pub fn zeros(group: &DeviceGroup, m: usize, n: usize, nb: usize) -> Result<Self, Error> {
        DistMatrix::with_layout(group, Layout::new(m, n, nb, group.grid())?)
    }

    /// A zero matrix in `layout`, which must be on the group's grid.
    pub fn with_layout(group: &DeviceGroup, layout: Layout) -> Result<Self, Error> {
        group.check_layout("the matrix", &layout)?;
        let locals = (0..group.len())
            .map(|r| {
                let (rows, cols) = layout.local_shape(r);
                let len = rows.checked_mul(cols).ok_or_else(|| {
                    Error::InvalidSize(format!("a {rows} x {cols} local matrix overflows"))
                })?;
                group.handle(r).device().alloc(len)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(DistMatrix { layout, locals })
    }

    /// The column-major `m × n` host matrix `a` (leading dimension `lda`) dealt over the
    /// group in tiles of `nb`.
    pub fn from_host(
        group: &mut DeviceGroup,
        m: usize,
        n: usize,
        nb: usize,
        a: &[T],
        lda: usize,
    ) -> Result<Self, Error> {
        let mut d = DistMatrix::zeros(group, m, n, nb)?;
        d.scatter_from_host(group, a, lda)?;
        Ok(d)
    }

    /// Overwrites the matrix with the host matrix `a` (leading dimension `lda`), after the
    /// work that used it so far.
    pub fn scatter_from_host(
        &mut self,
        group: &mut DeviceGroup,
        a: &[T],
        lda: usize,
    ) -> Result<(), Error> {
        group.check_layout("the matrix", &self.layout)?;
        let l = self.layout;
        check_host_operand("scatter_from_host", l.m, l.n, lda, a.len())?;
        for (r, local) in self.locals.iter_mut().enumerate() {
            let (rows, cols) = l.local_shape(r);
            let mut host = vec![T::zeroed(); rows * cols];
            for_each_local_column(&l, r, |g_col, l_col, runs| {
                for &(g_row, l_row, len) in runs {
                    let src = g_row + g_col * lda;
                    let dst = l_row + l_col * rows;
                    host[dst..dst + len].copy_from_slice(&a[src..src + len]);
                }
            });
            local.copy_from_host(&host)?;
        }
        Ok(())
    }

    /// Copies the matrix into the host matrix `a` (leading dimension `lda`), after the work
    /// that used it so far.
    pub fn gather_to_host(
        &self,
        group: &mut DeviceGroup,
        a: &mut [T],
        lda: usize,
    ) -> Result<(), Error> {
        group.check_layout("the matrix", &self.layout)?;
        let l = self.layout;
        check_host_operand("gather_to_host", l.m, l.n, lda, a.len())?;
        for (r, local) in self.locals.iter().enumerate() {
            let rows = l.local_shape(r).0;
            let host = local.to_vec()?;
            for_each_local_column(&l, r, |g_col, l_col, runs| {
                for &(g_row, l_row, len) in runs {
                    let dst = g_row + g_col * lda;
                    let src = l_row + l_col * rows;
                    a[dst..dst + len].copy_from_slice(&host[src..src + len]);
                }
            });
        }
        Ok(())
    }

    /// The matrix as a column-major host vector (leading dimension `m`).
    pub fn to_host(&self, group: &mut DeviceGroup) -> Result<Vec<T>, Error> {
        let l = self.layout;
        let mut a = vec![T::zeroed(); l.m * l.n];
        self.gather_to_host(group, &mut a, l.m.max(1))?;
        Ok(a)
    }

    /// Overwrites the matrix with `src`, a column-major matrix with leading dimension `ld` on
    /// device `from` of the group: tile copies between devices, each in its receiving
    /// device's stream order after the work submitted to device `from`'s stream so far (and
    /// that stream's later work waits for them).
    pub fn scatter_from_device(
        &mut self,
        group: &mut DeviceGroup,
        from: usize,
        src: &DeviceBuffer<T>,
        ld: usize,
    ) -> Result<(), Error> {
        group.check_layout("the matrix", &self.layout)?;
        check_device_operand(group, "scatter_from_device", &self.layout, from, src, ld)?;
        self.tile_copies(group, (from, src, ld), true)
    }

    /// Copies the matrix into `dst`, a column-major matrix with leading dimension `ld` on
    /// device `to` of the group, in that device's stream order after every device's work so
    /// far (as [`DistMatrix::scatter_from_device`]).
    pub fn gather_to_device(
        &self,
        group: &mut DeviceGroup,
        to: usize,
        dst: &mut DeviceBuffer<T>,
        ld: usize,
    ) -> Result<(), Error> {
        group.check_layout("the matrix", &self.layout)?;
        check_device_operand(group, "gather_to_device", &self.layout, to, dst, ld)?;
        self.tile_copies(group, (to, dst, ld), false)
    }

    /// Every tile between its device and `whole` (a column-major matrix with leading dimension
    /// `ld` on device `at`): into the tiles when `inwards`, else out of them. Each device's
    /// copies run on the receiving device's stream after the sender's work so far, and the
    /// sender's later work waits for them.
    fn tile_copies(
        &self,
        group: &DeviceGroup,
        (at, whole, ld): (usize, &DeviceBuffer<T>, usize),
        inwards: bool,
    ) -> Result<(), Error> {
        let l = self.layout;
        for (r, local) in self.locals.iter().enumerate() {
            let (from, to) = if inwards { (at, r) } else { (r, at) };
            let (send, receive) = (group.handle(from).stream(), group.handle(to).stream());
            receive.wait_for(send)?;
            let lld = l.local_ld(r);
            let mut result = Ok(());
            for_each_local_tile(&l, r, |(g_row, g_col), (l_row, l_col), shape| {
                if result.is_err() {
                    return;
                }
                let (whole_at, local_at) = ((g_row + g_col * ld, ld), (l_row + l_col * lld, lld));
                let (src, src_at, dst, dst_at) = if inwards {
                    (whole, whole_at, local, local_at)
                } else {
                    (local, local_at, whole, whole_at)
                };
                // A view of the whole receiving buffer: both sides are shared borrows here.
                result = super::block(dst, 0, (dst.len(), 1), dst.len().max(1))
                    .and_then(|mut d| copy_block(receive, shape, src, src_at, &mut d, dst_at));
            });
            result?;
            send.wait_for(receive)?;
        }
        Ok(())
    }

    /// Overwrites the matrix with `src` (same layout), each device's part copied on its own
    /// stream (LAPACK's `lacpy` over the whole matrix).
    pub fn copy_from(&mut self, group: &mut DeviceGroup, src: &DistMatrix<T>) -> Result<(), Error> {
        group.check_layout("the matrix", &self.layout)?;
        if src.layout != self.layout {
            return Err(Error::InvalidValue(format!(
                "copy of a matrix laid out as {:?} into one laid out as {:?}",
                src.layout, self.layout
            )));
        }
        for (r, local) in self.locals.iter_mut().enumerate() {
            let shape = self.layout.local_shape(r);
            let ld = self.layout.local_ld(r);
            copy_block(
                group.handle(r).stream(),
                shape,
                &src.locals[r],
                (0, ld),
                local,
                (0, ld),
            )?;
        }
        Ok(())
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.layout.m
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        self.layout.n
    }

    /// Device `r`'s local matrix (panics past the group).
    pub fn local(&self, r: usize) -> &DeviceBuffer<T> {
        &self.locals[r]
    }

    pub(crate) fn locals_mut(&mut self) -> &mut [DeviceBuffer<T>] {
        &mut self.locals
    }
}

/// `InvalidSize`/`InvalidValue` unless `buf` on device `r` of the group holds an `m × n`
/// matrix with leading dimension `ld`.
fn check_device_operand<T: Element>(
    group: &DeviceGroup,
    what: &str,
    l: &Layout,
    r: usize,
    buf: &DeviceBuffer<T>,
    ld: usize,
) -> Result<(), Error> {
    if r >= group.len() {
        return Err(Error::InvalidValue(format!(
            "{what}: device {r} of a group of {}",
            group.len()
        )));
    }
    check_host_operand(what, l.m, l.n, ld, buf.len())?;
    if !buf.is_on(group.handle(r).device()) {
        return Err(Error::InvalidPointer(format!(
            "{what}: the buffer is not on device {r} of the group ({})",
            group.handle(r).device().name()
        )));
    }
    Ok(())
}

/// Calls `f(global column, local column, runs)` for each local column of device `r`, where
/// `runs` lists its local rows as `(global row, local row, length)` runs (one per tile row).
fn for_each_local_column(
    l: &Layout,
    r: usize,
    mut f: impl FnMut(usize, usize, &[(usize, usize, usize)]),
) {
    let (pr, pc) = l.grid.coords(r);
    let runs: Vec<(usize, usize, usize)> = (pr..l.tile_rows())
        .step_by(l.grid.rows)
        .map(|i| (i * l.nb, l.local_row_of_tile(i, pr), l.tile_height(i)))
        .collect();
    for j in (pc..l.tile_cols()).step_by(l.grid.cols) {
        let l_col = l.local_col_of_tile(j, pc);
        for c in 0..l.tile_width(j) {
            f(j * l.nb + c, l_col + c, &runs);
        }
    }
}

/// Calls `f((global row, global col), (local row, local col), (rows, cols))` for each tile of
/// device `r`.
fn for_each_local_tile(
    l: &Layout,
    r: usize,
    mut f: impl FnMut((usize, usize), (usize, usize), (usize, usize)),
) {
    let (pr, pc) = l.grid.coords(r);
    for j in (pc..l.tile_cols()).step_by(l.grid.cols) {
        for i in (pr..l.tile_rows()).step_by(l.grid.rows) {
            f(
                (i * l.nb, j * l.nb),
                (l.local_row_of_tile(i, pr), l.local_col_of_tile(j, pc)),
                (l.tile_height(i), l.tile_width(j)),
            );
        }
    }
}
