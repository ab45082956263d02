//! The rank updates of Level 2: `ger`/`geru`/`gerc` (`A += alpha x yᵀ`, `yᴴ` for gerc),
//! `syr`/`her` (`A += alpha x xᵀ`, `xᴴ` for her), `syr2`/`her2` (`A += alpha x yᵀ + alpha y xᵀ`,
//! Hermitian: `alpha x yᴴ + conj(alpha) y xᴴ`) and the packed `spr`/`hpr`/`spr2`/`hpr2`: the
//! call description, its checks, its plan and its way through [`drive`].
//!
//! Semantics are reference BLAS's, loop for loop: a column whose coefficient is zero (`y(j)`
//! for ger, `x(j)` for syr/her, both for syr2/her2) is skipped, so nothing of it is read or
//! written, except that her/her2/hpr/hpr2 still make its diagonal element real (as
//! `zher.f` does with `A(J,J) = DBLE(A(J,J))`); only the stored triangle is touched.
//!
//! Workspace: none, except a list batch's table of device addresses (A's, x's and, with a
//! second vector, y's), 8 bytes each per entry; a fixed workspace too small for the whole
//! table runs the batch in chunks (F8, `PerfDegraded`).

use super::{check_inc, update_cuda, update_host};
use crate::common::operand::{
    check_counts, check_ld, mat_span, packed_span, span_or, vec_span, Batch, BatchMut, Checker,
};
use crate::common::plan::{drive, most_entries, Routine, WorkspacePlan};
use crate::device::Backend;
use crate::{Coef, Error, Handle, Scalar, Status, Uplo, WorkspaceLease};

/// Threads per block of the update kernels (mirrors `THREADS` in kernels/blas2u.cu).
pub(crate) const THREADS: usize = 256;

/// The update's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UpdKind {
    /// `ger`, `geru`, `gerc`: a general `m × n` matrix.
    Ger,
    /// `syr`, `her`, `spr`, `hpr`: one vector.
    Syr,
    /// `syr2`, `her2`, `spr2`, `hpr2`: two vectors.
    Syr2,
}

/// `alpha`: of the element type, or real (her, hpr).
pub(crate) enum Alpha<'a, T: Scalar> {
    Full(Coef<'a, T>),
    Real(Coef<'a, T::Real>),
}

impl<T: Scalar> Alpha<'_, T> {
    /// A host alpha of zero: reference BLAS's quick return.
    fn host_zero(&self) -> bool {
        match self {
            Alpha::Full(c) => c.host() == Some(T::zero()),
            Alpha::Real(c) => c.host() == Some(<T::Real as Scalar>::zero()),
        }
    }
}

/// One rank-update call, for every routine, type and form.
pub(crate) struct UpdCall<'a, 'b, T: Scalar> {
    pub name: &'static str,
    pub kind: UpdKind,
    /// Conjugate the column coefficients (gerc, her, her2, hpr, hpr2).
    pub conj: bool,
    /// The diagonal stays real (her, her2, hpr, hpr2).
    pub herm: bool,
    pub uplo: Uplo,
    pub m: usize,
    pub n: usize,
    /// Packed storage (spr, …); otherwise full storage with `lda`.
    pub packed: bool,
    pub lda: usize,
    pub x: Batch<'a, T>,
    pub incx: isize,
    /// The second vector (ger's y, syr2's y).
    pub y: Option<Batch<'a, T>>,
    pub incy: isize,
    pub a: BatchMut<'a, 'b, T>,
    pub alpha: Alpha<'a, T>,
}

impl<T: Scalar> UpdCall<'_, '_, T> {
    /// Rows of the matrix (the length of x).
    pub(crate) fn rows(&self) -> usize {
        if self.kind == UpdKind::Ger {
            self.m
        } else {
            self.n
        }
    }

    fn a_why(&self) -> String {
        if self.packed {
            format!("packed n = {}", self.n)
        } else if self.kind == UpdKind::Ger {
            format!("m = {}, n = {}, lda = {}", self.m, self.n, self.lda)
        } else {
            format!("n = {}, lda = {}", self.n, self.lda)
        }
    }

    fn a_need(&self) -> Result<usize, Error> {
        let span = if self.packed {
            packed_span(self.n)
        } else {
            mat_span(self.rows(), self.n, self.lda)
        };
        span_or(self.name, span, &|| self.a_why())
    }

    /// Size and shape checks (F2 step 1) in reference BLAS's order: the increments (INFO 5 and
    /// 7), then the leading dimension (INFO 7 or 9).
    fn check_sizes(&self) -> Result<(), Error> {
        let name = self.name;
        check_inc(name, "incx", self.incx, 5)?;
        if self.y.is_some() {
            check_inc(name, "incy", self.incy, 7)?;
        }
        if !self.packed {
            let rows_name = if self.kind == UpdKind::Ger { "m" } else { "n" };
            check_ld(name, "lda", self.lda, self.rows(), rows_name)?;
        }
        // Every span must exist (no overflow), during a query too (M8).
        self.a_need()?;
        let (lx, ly) = (self.rows(), self.n);
        let incx = self.incx;
        span_or(name, vec_span(lx, incx), &|| {
            format!("{lx} elements at incx = {incx}")
        })?;
        if self.y.is_some() {
            let incy = self.incy;
            span_or(name, vec_span(ly, incy), &|| {
                format!("{ly} elements at incy = {incy}")
            })?;
        }
        let batch = self.a.count();
        let a_name = self.a_name();
        check_counts(name, (a_name, batch), ("x", self.x.count()))?;
        if let Some(y) = &self.y {
            check_counts(name, (a_name, batch), ("y", y.count()))?;
        }
        Ok(())
    }

    /// The matrix argument's name: `A`, or `AP` packed (so strides read `stride_ap`).
    fn a_name(&self) -> &'static str {
        if self.packed {
            "AP"
        } else {
            "A"
        }
    }

    /// Operand checks (F2 step 3, F7, F9, F10). A list's addresses go to `addrs` in table
    /// order: A's, x's, y's.
    fn check_operands(&self, h: &Handle, addrs: &mut Vec<u64>) -> Result<(), Error> {
        let ck = Checker { h, call: self.name };
        let list = self.x.is_list();
        let batch = self.a.count();
        let need = self.a_need()?;
        ck.batch(
            self.a_name(),
            &self.a.view(),
            need,
            &|| self.a_why(),
            true,
            list.then_some(&mut *addrs),
        )?;
        let (lx, incx) = (self.rows(), self.incx);
        let why = || format!("{lx} elements at incx = {incx}");
        let need = span_or(self.name, vec_span(lx, incx), &why)?;
        ck.batch("x", &self.x, need, &why, false, list.then_some(&mut *addrs))?;
        if let Some(y) = &self.y {
            let (ly, incy) = (self.n, self.incy);
            let why = || format!("{ly} elements at incy = {incy}");
            let need = span_or(self.name, vec_span(ly, incy), &why)?;
            ck.batch("y", y, need, &why, false, list.then_some(&mut *addrs))?;
        }
        match &self.alpha {
            Alpha::Full(c) => ck.coef("alpha", c, batch),
            Alpha::Real(c) => ck.coef("alpha", c, batch),
        }
    }

    fn shape(&self) -> UpdShape {
        UpdShape {
            kind: self.kind,
            m: self.rows(),
            n: self.n,
            elem: std::mem::size_of::<T>(),
            batch: self.a.count(),
            list: self.x.is_list(),
            vectors: if self.y.is_some() { 2 } else { 1 },
            params: UpdParams::auto(),
        }
    }
}

/// The rank updates' tuning values, beside the plan that uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UpdParams {
    /// Most batch entries in one launch.
    pub max_entries: usize,
    /// Columns per column lane of a tile of a general matrix (a multiple of the kernels'
    /// `UNROLL`, 4).
    pub cols_per_lane: usize,
}

impl UpdParams {
    /// The values for the devices gpublas is tuned on.
    pub(crate) fn auto() -> Self {
        UpdParams {
            max_entries: 1 << 20,
            cols_per_lane: 8,
        }
    }
}

/// What a call's arguments fix for its plan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct UpdShape {
    pub kind: UpdKind,
    /// Rows (m for ger, n otherwise), columns.
    pub m: usize,
    pub n: usize,
    /// Bytes per element.
    pub elem: usize,
    pub batch: usize,
    pub list: bool,
    /// Vectors per entry: 1 (syr) or 2 (ger, syr2).
    pub vectors: usize,
    pub params: UpdParams,
}

/// How the kernels' blocks cover a matrix: tiles of `tr * vec` rows (`tr` threads down a
/// column, `vec` elements each) by `tc * cpl` columns (`tc` column lanes, `cpl` columns each).
/// A triangle of more than one row tile uses square tiles enumerated over the triangle only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UpdGeom {
    pub vec: usize,
    pub tr: usize,
    pub tc: usize,
    pub cpl: usize,
    pub rowtiles: usize,
    pub coltiles: usize,
    /// Square tiles over the stored triangle only.
    pub tri: bool,
    /// Tiles per batch entry.
    pub tiles: usize,
    /// Consecutive tiles per block: a c64 block moves 64 KB of the matrix (its 32 x 32
    /// triangle tiles are 16 KB; H200, zher 8192: 1 tile 0.94x cuBLAS, 2 0.96x, 4 0.97x).
    pub group: usize,
}

impl UpdShape {
    pub(crate) fn geom(&self) -> UpdGeom {
        let vec = (16 / self.elem).max(1);
        let chunks = self.m.div_ceil(vec).max(1);
        let tr = chunks.next_power_of_two().min(32);
        let tc = THREADS / tr;
        let rb = tr * vec;
        let rowtiles = self.m.div_ceil(rb).max(1);
        let tri = self.kind != UpdKind::Ger && rowtiles > 1;
        // A triangle's tiles are square: tr = 32, so rb / tc = 4 vec columns per lane.
        let cpl = if tri {
            rb / tc
        } else {
            self.params.cols_per_lane
        };
        let coltiles = self.n.div_ceil(tc * cpl).max(1);
        let tiles = if tri {
            rowtiles.saturating_mul(rowtiles + 1) / 2
        } else {
            rowtiles.saturating_mul(coltiles)
        };
        // Only the c64 kernels take groups (`rank_group` in blas2u.cu); the others one tile a
        // block, so their grid must not shrink.
        let group = if tri && self.elem == 16 {
            (65536 / (rb * rb * self.elem)).max(1)
        } else {
            1
        };
        UpdGeom {
            vec,
            tr,
            tc,
            cpl,
            rowtiles,
            coltiles,
            tri,
            tiles,
            group,
        }
    }

    fn table_per_entry(&self) -> usize {
        if self.list {
            (1 + self.vectors) * 8
        } else {
            0
        }
    }

    fn make(&self, chunk: usize) -> UpdPlan {
        UpdPlan {
            chunk,
            addr_table: chunk.saturating_mul(self.table_per_entry()),
        }
    }

    /// The plan with enough workspace (F4): as many entries per launch as a grid holds.
    pub(crate) fn full(&self) -> UpdPlan {
        let per_launch = (i32::MAX as usize / self.geom().tiles.max(1)).max(1);
        self.make(self.batch.clamp(1, self.params.max_entries).min(per_launch))
    }

    /// The most entries per launch whose address table fits `cap` bytes (F8).
    pub(crate) fn fitted(&self, cap: usize) -> Option<UpdPlan> {
        let full = self.full();
        most_entries(full.chunk, |c| self.make(c).total() <= cap).map(|c| self.make(c))
    }

    pub(crate) fn minimum_text(&self) -> String {
        super::plan::table_minimum_text(self.table_per_entry())
    }
}

/// A rank update's plan: entries per launch and the address table they take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UpdPlan {
    pub chunk: usize,
    /// Bytes of a list batch's address table (`chunk` entries); 0 for other forms.
    pub addr_table: usize,
}

impl WorkspacePlan for UpdPlan {
    fn sizes(&self) -> smallvec::SmallVec<[usize; 4]> {
        smallvec::smallvec![self.addr_table]
    }
}

/// One rank update on its way through [`drive`].
struct RankUpdate<'a, 'b, T: Scalar> {
    call: UpdCall<'a, 'b, T>,
    shape: UpdShape,
    cuda: bool,
    /// A list batch's device addresses (A's, x's, y's), borrowed from the handle.
    addrs: Option<Vec<u64>>,
}

impl<T: Scalar> Routine for RankUpdate<'_, '_, T> {
    type Plan = UpdPlan;

    fn name(&self) -> &'static str {
        self.call.name
    }

    fn check_sizes(&mut self) -> Result<(), Error> {
        self.call.check_sizes()
    }

    fn full(&mut self, _h: &mut Handle) -> Result<Option<UpdPlan>, Error> {
        let c = &self.call;
        let quick = c.rows() == 0 || c.n == 0 || self.shape.batch == 0 || c.alpha.host_zero();
        Ok((!quick).then(|| self.shape.full()))
    }

    fn check_operands(&mut self, h: &mut Handle) -> Result<(), Error> {
        let addrs = self.addrs.insert(std::mem::take(&mut h.list_addrs));
        addrs.clear();
        self.call.check_operands(h, addrs)
    }

    fn fitted(&mut self, capacity: usize) -> Result<Option<UpdPlan>, Error> {
        Ok(self.shape.fitted(capacity))
    }

    fn minimum(&self) -> String {
        self.shape.minimum_text()
    }

    fn run(&mut self, lease: &WorkspaceLease<'_>, plan: &UpdPlan) -> Result<(), Error> {
        let h = lease.handle();
        if self.cuda {
            let addrs = self.addrs.as_deref().unwrap_or_default();
            update_cuda::run(h, &self.call, &self.shape, plan, lease.buffer(0), addrs)
        } else {
            update_host::run(h, &mut self.call)
        }
    }

    fn finish(&mut self, h: &mut Handle) {
        if let Some(addrs) = self.addrs.take() {
            h.list_addrs = addrs;
        }
    }
}

/// The one implementation behind every rank update (F1, F2).
pub(crate) fn run<T: Scalar>(h: &mut Handle, call: UpdCall<'_, '_, T>) -> Result<Status, Error> {
    let shape = call.shape();
    let cuda = h.device().backend() == Backend::Cuda;
    drive(
        h,
        &mut RankUpdate {
            call,
            shape,
            cuda,
            addrs: None,
        },
    )
}

/// Workspace bytes of a rank update of this shape (what a size query returns for it):
/// `routine` is one of `ger`, `geru`, `gerc`, `syr`, `syr2`, `her`, `her2`, `spr`, `spr2`,
/// `hpr`, `hpr2`; `m` is ignored except for the ger family. Only list batches need any (their
/// address table).
pub(crate) fn workspace_bytes(
    routine: &str,
    m: usize,
    n: usize,
    elem: usize,
    batch: usize,
    list: bool,
) -> Result<usize, Error> {
    let (kind, vectors) = match routine {
        "ger" | "geru" | "gerc" => (UpdKind::Ger, 2),
        "syr" | "her" | "spr" | "hpr" => (UpdKind::Syr, 1),
        "syr2" | "her2" | "spr2" | "hpr2" => (UpdKind::Syr2, 2),
        other => {
            return Err(Error::InvalidValue(format!(
                "unknown Level-2 rank update '{other}' (ger, geru, gerc, syr, syr2, her, her2, spr, spr2, hpr, hpr2)"
            )))
        }
    };
    super::plan::check_elem(elem)?;
    let m = if kind == UpdKind::Ger { m } else { n };
    if m == 0 || n == 0 || batch == 0 {
        return Ok(0);
    }
    let s = UpdShape {
        kind,
        m,
        n,
        elem,
        batch,
        list,
        vectors,
        params: UpdParams::auto(),
    };
    Ok(s.full().total())
}
