//! The executor's host runner: a program's products run on faer (all cores above a small
//! size), the block operations are plain loops, a family's steps go to its `FamilySteps`. Its
//! callers lease the same plan as on the GPU, so queries, fixed workspaces and `PerfDegraded`
//! behave the same, and it runs the same blocking.

use faer::linalg::matmul::matmul_with_conj;
use faer::{Accum, Conj, MatMut, MatRef, Par};

use crate::common::faer_host::{cast_err, par_for};

use super::program::{Fill, Space, Step, INV_NB, K, M};
use super::workspace::BlockWorkspace;
use super::{FamilySteps, Operands, ScalarArg};
use crate::common::host::{coef_value, not_host};
use crate::device::host_workspace_bytes;
use crate::memory::WorkspaceSlice;
use crate::{Error, Handle, Op, Scalar};

/// The operands of one batch entry, by space.
pub(crate) struct Spaces<'x, T> {
    a: &'x [T],
    b: &'x [T],
    pub(crate) c: &'x mut [T],
    e: &'x mut [T],
    r: &'x mut [T],
}

impl<'x, T> Spaces<'x, T> {
    pub(crate) fn get(&self, sp: Space) -> &[T] {
        match sp {
            Space::A => self.a,
            Space::B => self.b,
            Space::C => self.c,
            Space::E => self.e,
            Space::R => self.r,
        }
    }

    /// Takes a writable space out (so sources can be read beside it); put it back with `put`.
    pub(crate) fn take(&mut self, sp: Space) -> Result<&'x mut [T], Error> {
        match sp {
            Space::C => Ok(std::mem::take(&mut self.c)),
            Space::E => Ok(std::mem::take(&mut self.e)),
            Space::R => Ok(std::mem::take(&mut self.r)),
            _ => Err(Error::InvalidValue("a Level-3 step writes an input".into())),
        }
    }

    pub(crate) fn put(&mut self, sp: Space, s: &'x mut [T]) {
        match sp {
            Space::C => self.c = s,
            Space::E => self.e = s,
            _ => self.r = s,
        }
    }
}

/// The scalars of one entry.
#[derive(Clone, Copy)]
struct Vals<T> {
    alpha: T,
    beta: T,
}

impl<T: Scalar> Vals<T> {
    fn get(&self, k: K) -> T {
        match k {
            K::Alpha => self.alpha,
            K::AlphaConj => self.alpha.conj(),
            K::Beta => self.beta,
            K::One => T::one(),
            K::Zero => T::zero(),
            K::MinusOne => T::zero() - T::one(),
        }
    }
}

fn value<T: Scalar>(s: &ScalarArg<'_, T>, e: usize) -> Result<T, Error> {
    match s {
        ScalarArg::Full(c) => coef_value(c, e),
        ScalarArg::Real(c) => coef_value(c, e).map(T::from_real),
    }
}

fn workspace<'x, T: Scalar>(part: Option<WorkspaceSlice>) -> Result<&'x mut [T], Error> {
    let Some(w) = part.filter(|w| w.len() >= std::mem::size_of::<T>()) else {
        return Ok(&mut []);
    };
    let bytes = host_workspace_bytes(w.device_ptr(), w.len());
    let whole = bytes.len() / std::mem::size_of::<T>() * std::mem::size_of::<T>();
    bytemuck::try_cast_slice_mut(&mut bytes[..whole]).map_err(|e| {
        Error::InvalidValue(format!(
            "host workspace is not aligned for the element type: {e}"
        ))
    })
}

/// Runs `steps` for the entries `ops.range` in the workspace parts `ws` of a lease the caller
/// holds throughout; `family` runs the family's own steps.
pub(crate) fn run<T: Scalar, F: FamilySteps>(
    h: &Handle,
    ws: &BlockWorkspace<Option<WorkspaceSlice>>,
    ops: &mut Operands<'_, '_, T>,
    steps: &[Step<F::Step>],
    family: &mut F,
) -> Result<(), Error> {
    let _threads = h.host_par.enter();
    let e_all: &mut [T] = workspace(ws.e_blocks)?;
    let r_all: &mut [T] = workspace(ws.r_results)?;
    let (a, b) = (ops.a, ops.b);
    let (lo, hi) = ops.range;
    for e in lo..hi {
        let vals = Vals {
            alpha: value(&ops.alpha, e)?,
            beta: value(&ops.beta, e)?,
        };
        let mut sp = Spaces {
            // The solver's factorizations have no A (their placeholder has no memory).
            a: if a.entry(e).0.is_empty() {
                &[]
            } else {
                a.host_entry(e).ok_or_else(not_host)?
            },
            b: match &b {
                Some(b) => b.host_entry(e).ok_or_else(not_host)?,
                None => &[],
            },
            // (programs over the workspace alone have a placeholder C, with no memory)
            c: if ops.c.view().entry(e).0.is_empty() {
                &mut []
            } else {
                ops.c.host_entry_mut(e).ok_or_else(not_host)?
            },
            e: &mut *e_all,
            r: &mut *r_all,
        };
        for s in steps {
            match s {
                Step::Family(f) => family.exec(&mut sp, f, e)?,
                _ => exec(&mut sp, s, &vals)?,
            }
        }
    }
    Ok(())
}

fn exec<T: Scalar, F: std::fmt::Debug>(
    sp: &mut Spaces<'_, T>,
    s: &Step<F>,
    v: &Vals<T>,
) -> Result<(), Error> {
    match *s {
        Step::Gemm {
            ta,
            tb,
            m,
            n,
            k,
            alpha,
            a,
            b,
            beta,
            c,
            count,
        } => {
            let dst = sp.take(c.sp)?;
            let dims = |op: Op, r: usize, c: usize| if op == Op::N { (r, c) } else { (c, r) };
            let (ad, bd) = (dims(ta, m, k), dims(tb, k, n));
            let mut r = Ok(());
            for i in 0..count {
                let at = |x: M| x.off + i * x.bs;
                r = r.and_then(|_| {
                    let outside = || {
                        Error::InvalidValue(format!(
                            "a Level-3 block lies outside its operand: {s:?}"
                        ))
                    };
                    // A source in the space being written (trtri's and trsm's inverses) is
                    // copied out first; the regions never overlap.
                    let own =
                        |x: M, (rows, cols): (usize, usize)| -> Result<Option<Vec<T>>, Error> {
                            if x.sp != c.sp || rows == 0 || cols == 0 {
                                return Ok(None);
                            }
                            let span = (cols - 1) * x.ld + rows;
                            let v = dst.get(at(x)..at(x) + span).ok_or_else(outside)?;
                            Ok(Some(v.to_vec()))
                        };
                    let (ac, bc) = (own(a, ad)?, own(b, bd)?);
                    fn pick<'v, T>(
                        copy: &'v Option<Vec<T>>,
                        space: &'v [T],
                        at: usize,
                    ) -> Option<&'v [T]> {
                        match copy {
                            Some(v) => Some(&v[..]),
                            None => space.get(at..),
                        }
                    }
                    let src = |x: M, copy| pick(copy, sp.get(x.sp), at(x)).ok_or_else(outside);
                    gemm(
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        v.get(alpha),
                        (src(a, &ac)?, a.ld),
                        (src(b, &bc)?, b.ld),
                        v.get(beta),
                        (dst.get_mut(at(c)..).ok_or_else(outside)?, c.ld),
                    )
                });
            }
            sp.put(c.sp, dst);
            r
        }
        Step::Expand {
            fill,
            lower,
            n,
            src,
            dst,
            count,
        } => {
            let d = sp.take(dst.sp)?;
            // Within one space: in place (orgqr's `V1`: every element keeps its value or is
            // made from one of the stored triangle, which keeps its values), or from a region
            // apart (the eigensolvers' working copy in R).
            let in_place = src.sp == dst.sp;
            for i in 0..count {
                let s0 = src.off + i * src.bs;
                let d0 = dst.off + i * dst.bs;
                let srcs = sp.get(src.sp);
                let read = |d: &[T], k: usize| if in_place { d[k] } else { srcs[k] };
                for j in 0..n {
                    for r in 0..n {
                        let stored = if lower { r >= j } else { r <= j };
                        let x = if r == j {
                            match fill {
                                Fill::Tri { unit: true } => T::one(),
                                Fill::Herm => T::from_real(read(d, s0 + r + j * src.ld).re()),
                                _ => read(d, s0 + r + j * src.ld),
                            }
                        } else if stored {
                            read(d, s0 + r + j * src.ld)
                        } else {
                            let m = read(d, s0 + j + r * src.ld);
                            match fill {
                                Fill::Sym => m,
                                Fill::Herm => m.conj(),
                                Fill::Tri { .. } => T::zero(),
                            }
                        };
                        d[d0 + r + j * dst.ld] = x;
                    }
                }
            }
            sp.put(dst.sp, d);
            Ok(())
        }
        Step::Tri {
            lower,
            herm,
            n,
            src,
            dst,
            beta,
            count,
        } => {
            let beta = v.get(beta);
            let d = sp.take(dst.sp)?;
            for i in 0..count {
                let s0 = src.off + i * src.bs;
                let d0 = dst.off + i * dst.bs;
                let srcs = sp.get(src.sp);
                for j in 0..n {
                    let rows = if lower { j..n } else { 0..j + 1 };
                    for r in rows {
                        let at = d0 + r + j * dst.ld;
                        let x = srcs[s0 + r + j * src.ld];
                        let mut y = if beta == T::zero() {
                            x
                        } else {
                            x + beta * d[at]
                        };
                        if herm && r == j {
                            y = T::from_real(y.re());
                        }
                        d[at] = y;
                    }
                }
            }
            sp.put(dst.sp, d);
            Ok(())
        }
        Step::Scale {
            tri,
            herm,
            m,
            n,
            dst,
            beta,
        } => {
            let beta = v.get(beta);
            let d = sp.take(dst.sp)?;
            for j in 0..n {
                let rows = match tri {
                    None => 0..m,
                    Some(true) => j..m,
                    Some(false) => 0..(j + 1).min(m),
                };
                for r in rows {
                    let at = dst.off + r + j * dst.ld;
                    let mut y = if beta == T::zero() {
                        T::zero()
                    } else {
                        beta * d[at]
                    };
                    if herm && r == j {
                        y = T::from_real(y.re());
                    }
                    d[at] = y;
                }
            }
            sp.put(dst.sp, d);
            Ok(())
        }
        Step::TriInv {
            lower,
            unit,
            n,
            src,
            dst,
            count,
        } => {
            let d = sp.take(dst.sp)?;
            let a = sp.get(src.sp);
            if src.sp == dst.sp {
                sp.put(dst.sp, d);
                return Err(Error::InvalidValue(
                    "a Level-3 inversion reads the space it writes".into(),
                ));
            }
            for i in 0..count {
                for o in (0..n).step_by(INV_NB) {
                    let nn = INV_NB.min(n - o);
                    let s0 = src.off + i * src.bs + o * (src.ld + 1);
                    let d0 = dst.off + i * dst.bs + o * (dst.ld + 1);
                    invert_block(lower, unit, nn, (a, s0, src.ld), (d, d0, dst.ld));
                }
            }
            sp.put(dst.sp, d);
            Ok(())
        }
        Step::TriSolve {
            left,
            lower,
            op,
            unit,
            m,
            n,
            a,
            b,
            alpha,
        } => {
            let d = sp.take(b.sp)?;
            // The solver solves with a block of the matrix it writes: copy that block out.
            let na = if left { m } else { n };
            let own: Vec<T>;
            let (av, a) = if a.sp == b.sp {
                let span = if na == 0 { 0 } else { (na - 1) * a.ld + na };
                own = d[a.off..a.off + span].to_vec();
                (&own[..], M { off: 0, ..a })
            } else {
                (sp.get(a.sp), a)
            };
            let alpha = v.get(alpha);
            let (na, nv) = if left { (m, n) } else { (n, m) };
            let eff_lower = lower != (op != Op::N);
            let forward = if left { eff_lower } else { !eff_lower };
            let g = |r: usize, q: usize| {
                let x = if op == Op::N {
                    av[a.off + r + q * a.ld]
                } else {
                    av[a.off + q + r * a.ld]
                };
                if op == Op::C {
                    x.conj()
                } else {
                    x
                }
            };
            let (bi, bv) = if left { (1, b.ld) } else { (b.ld, 1) };
            // The diagonal's divisors, prepared once for every right-hand side.
            let diag: Vec<T::Divisor> = if unit {
                Vec::new()
            } else {
                (0..na).map(|i| g(i, i).divisor()).collect()
            };
            for vi in 0..nv {
                let x0 = b.off + vi * bv;
                for ii in 0..na {
                    let i = if forward { ii } else { na - 1 - ii };
                    let mut s = alpha * d[x0 + i * bi];
                    for kk in 0..ii {
                        let k = if forward { kk } else { na - 1 - kk };
                        let gik = if left { g(i, k) } else { g(k, i) };
                        s = s - gik * d[x0 + k * bi];
                    }
                    if let Some(&dv) = diag.get(i) {
                        s = s.div_by(dv);
                    }
                    d[x0 + i * bi] = s;
                }
            }
            sp.put(b.sp, d);
            Ok(())
        }
        Step::Family(_) => Ok(()),
        // One lane: program order is an order the program allows.
        Step::Fork | Step::Back | Step::Join | Step::ForkAux | Step::BackAux | Step::JoinAux => {
            Ok(())
        }
        Step::Copy { m, n, src, dst } => {
            let d = sp.take(dst.sp)?;
            for j in 0..n {
                let (s0, d0) = (src.off + j * src.ld, dst.off + j * dst.ld);
                if src.sp == dst.sp {
                    // (regions apart within one space)
                    d.copy_within(s0..s0 + m, d0);
                } else {
                    d[d0..d0 + m].copy_from_slice(&sp.get(src.sp)[s0..s0 + m]);
                }
            }
            sp.put(dst.sp, d);
            Ok(())
        }
    }
}

/// Inverts one triangular block of order `n` (at most 32) from `a` into `d`, written whole
/// (zeros in its other triangle; those are never computed, as on the GPU).
fn invert_block<T: Scalar>(
    lower: bool,
    unit: bool,
    n: usize,
    (a, s0, lda): (&[T], usize, usize),
    (d, d0, ldd): (&mut [T], usize, usize),
) {
    let l = |i: usize, k: usize| a[s0 + i + k * lda];
    // The diagonal's divisors, prepared once for every column (none for a unit diagonal,
    // which is not read).
    let diag: Vec<T::Divisor> = if unit {
        Vec::new()
    } else {
        (0..n).map(|i| l(i, i).divisor()).collect()
    };
    for c in 0..n {
        let mut x = [T::zero(); INV_NB];
        let order: Vec<usize> = if lower {
            (c..n).collect()
        } else {
            (0..=c).rev().collect()
        };
        for i in order {
            let mut s = if i == c { T::one() } else { T::zero() };
            let ks = if lower { c..i } else { i + 1..c + 1 };
            for k in ks {
                s = s - l(i, k) * x[k];
            }
            x[i] = match diag.get(i) {
                Some(&dv) => s.div_by(dv),
                None => s,
            };
        }
        for i in 0..n {
            d[d0 + i + c * ldd] = x[i];
        }
    }
}

/// `c = alpha op(a) op(b) + beta c` on column-major slices (`beta == 0`: `c` not read).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm<T: Scalar>(
    ta: Op,
    tb: Op,
    m: usize,
    n: usize,
    k: usize,
    alpha: T,
    a: (&[T], usize),
    b: (&[T], usize),
    beta: T,
    c: (&mut [T], usize),
) -> Result<(), Error> {
    if m == 0 || n == 0 {
        return Ok(());
    }
    let (cs, ldc) = c;
    // beta = 0 with a product to add: faer writes C without reading it (no zeroing pass).
    let replace = beta == T::zero() && k > 0;
    if beta != T::one() && !replace {
        for j in 0..n {
            for x in &mut cs[j * ldc..j * ldc + m] {
                *x = if beta == T::zero() {
                    T::zero()
                } else {
                    beta * *x
                };
            }
        }
    }
    if k == 0 {
        return Ok(());
    }
    let threads = crate::common::host::current_par();
    let par = par_for(m * n * k);
    let args = Args {
        ta,
        tb,
        m,
        n,
        k,
        a,
        b,
        c: (cs, ldc),
        par,
        replace,
    };
    // On the handle's own pool when it has one (faer splits over the current rayon pool).
    threads.install(move || match T::TAG {
        "s" => args.run::<f32>(alpha),
        "d" => args.run::<f64>(alpha),
        "c" => args.run::<faer::c32>(alpha),
        _ => args.run::<faer::c64>(alpha),
    })
}

struct Args<'x, T> {
    ta: Op,
    tb: Op,
    m: usize,
    n: usize,
    k: usize,
    a: (&'x [T], usize),
    b: (&'x [T], usize),
    c: (&'x mut [T], usize),
    par: Par,
    /// Overwrite C (beta = 0) instead of adding to it.
    replace: bool,
}

impl<T: Scalar> Args<'_, T> {
    /// The product in faer's element type `F` (the same type as `T`, by tag).
    fn run<F: faer::traits::ComplexField + bytemuck::Pod>(self, alpha: T) -> Result<(), Error> {
        fn view<'v, T: Scalar, F: bytemuck::Pod>(
            (s, ld): (&'v [T], usize),
            op: Op,
            rows: usize,
            cols: usize,
        ) -> Result<(MatRef<'v, F>, Conj), Error> {
            let s: &[F] = bytemuck::try_cast_slice(s).map_err(cast_err)?;
            let (r, c) = if op == Op::N {
                (rows, cols)
            } else {
                (cols, rows)
            };
            let m = MatRef::from_column_major_slice_with_stride(s, r, c, ld);
            let conj = if op == Op::C { Conj::Yes } else { Conj::No };
            Ok((if op == Op::N { m } else { m.transpose() }, conj))
        }
        let (a, ca) = view::<T, F>(self.a, self.ta, self.m, self.k)?;
        let (b, cb) = view::<T, F>(self.b, self.tb, self.k, self.n)?;
        let (cs, ldc) = self.c;
        let cs: &mut [F] = bytemuck::try_cast_slice_mut(cs).map_err(cast_err)?;
        let dst = MatMut::from_column_major_slice_with_stride_mut(cs, self.m, self.n, ldc);
        let alpha: F = bytemuck::try_cast(alpha).map_err(cast_err)?;
        let accum = if self.replace {
            Accum::Replace
        } else {
            Accum::Add
        };
        matmul_with_conj(dst, accum, a, ca, b, cb, alpha, self.par);
        Ok(())
    }
}
