//! A Level-3 call as a program of the executor's block steps (`crate::exec`): matrix products
//! and four small kernels (expand a stored triangle into a full block, write a block's triangle
//! back, scale, copy). Blocking is decided here once, so the host runs the same decomposition
//! the GPU does and the tests on either backend cover it.
//!
//! The triangle of an `n × n` matrix is cut recursively (`exec::program::levels`), so an
//! order-8192 `syrk` is a dozen large products.

use super::plan::Plan;
use super::{Call, Kind};
use crate::exec::program::{leaf_groups, levels, mat, runs, Fill, Space, Step, K, M};
use crate::exec::NoSteps;
use crate::{Diag, Op, Scalar, Side, Uplo};

/// Builds the program of a call that has work to do (not a quick return, `alpha` not a host
/// zero, `k > 0`).
pub(crate) fn build<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    match c.kind {
        Kind::Gemm => vec![Step::Gemm {
            ta: c.opa,
            tb: c.opb,
            m: c.m,
            n: c.n,
            k: c.k,
            alpha: K::Alpha,
            a: mat(Space::A, 0, c.lda, 0),
            b: mat(Space::B, 0, c.b.map_or(1, |b| b.1), 0),
            beta: K::Beta,
            c: mat(Space::C, 0, c.ldc, 0),
            count: 1,
        }],
        Kind::Symm | Kind::Hemm => symm(c, p),
        Kind::Trmm => trmm(c, p),
        Kind::Trsm => super::tri::trsm(c, p),
        Kind::Trtri => super::tri::trtri(c, p),
        _ => rank_k(c, p),
    }
}

/// The program that scales `C` by `beta` (alpha = 0 or k = 0), or zeroes `B` (trmm).
pub(crate) fn scale_only<T: Scalar>(c: &Call<'_, '_, T>) -> Vec<Step<NoSteps>> {
    let herm = matches!(c.kind, Kind::Herk | Kind::Her2k | Kind::Herkx);
    let tri = match c.kind {
        Kind::Gemm | Kind::Symm | Kind::Hemm | Kind::Trmm | Kind::Trsm | Kind::Trtri => None,
        _ => Some(c.uplo == Uplo::Lower),
    };
    vec![Step::Scale {
        tri,
        herm,
        m: c.m,
        n: c.n,
        dst: mat(Space::C, 0, c.ldc, 0),
        beta: if matches!(c.kind, Kind::Trmm | Kind::Trsm) {
            K::Zero
        } else {
            K::Beta
        },
    }]
}

/// syrk, herk, syr2k, her2k, syrkx, herkx.
fn rank_k<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    let herm = matches!(c.kind, Kind::Herk | Kind::Her2k | Kind::Herkx);
    let x = mat(Space::A, 0, c.lda, 0);
    let r = RankK {
        lower: c.uplo == Uplo::Lower,
        herm,
        notrans: c.opa == Op::N,
        n: c.n,
        k: c.k,
        x,
        y: c.b.map_or(x, |b| mat(Space::B, 0, b.1, 0)),
        two: matches!(c.kind, Kind::Syr2k | Kind::Her2k),
        alpha: K::Alpha,
        alpha2: if herm { K::AlphaConj } else { K::Alpha },
        beta: K::Beta,
        c: mat(Space::C, 0, c.ldc, 0),
        e_off: 0,
    };
    let mut v = Vec::new();
    rank_k_steps(&mut v, &r, p.nb, p.eblocks);
    v
}

/// One rank-k update of a triangle, its operands anywhere (the solver updates blocks of the
/// matrix it factors): `C = alpha op(X) op(Y)ᴴ (+ alpha2 op(Y) op(X)ᴴ when two) + beta C` on
/// the `lower`/upper triangle of the order-`n` block `c`; `op` is N when `notrans`, else the
/// (conjugate) transpose (`ᴴ` is the transpose when not `herm`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RankK {
    pub lower: bool,
    pub herm: bool,
    pub notrans: bool,
    pub n: usize,
    pub k: usize,
    pub x: M,
    pub y: M,
    pub two: bool,
    pub alpha: K,
    pub alpha2: K,
    pub beta: K,
    pub c: M,
    /// Element offset in E of its diagonal blocks (the solver keeps two lanes' blocks apart).
    pub e_off: usize,
}

/// Appends the steps of one rank-k update with diagonal leaves of `nb`, `eblocks` of them in
/// E at once: diagonal blocks computed into E, their triangle written into C; off-diagonal
/// blocks written once each, level by level, as batched products.
pub(crate) fn rank_k_steps<F>(v: &mut Vec<Step<F>>, r: &RankK, nb: usize, eblocks: usize) {
    let hop = if r.herm { Op::C } else { Op::T };
    let (ta, tb) = if r.notrans {
        (Op::N, hop)
    } else {
        (hop, Op::N)
    };
    // Row block r0 of op(X), with a block stride of `step` rows: rows of X (N) or columns
    // of X (T, C).
    let panel = |x: M, r0: usize, step: usize| {
        if r.notrans {
            M {
                off: x.off + r0,
                bs: step,
                ..x
            }
        } else {
            M {
                off: x.off + r0 * x.ld,
                bs: step * x.ld,
                ..x
            }
        }
    };
    let (c, k) = (r.c, r.k);
    let nb = nb.min(r.n).max(1);
    for (i0, bs, g) in leaf_groups(r.n, nb, eblocks.max(1)) {
        let e = mat(Space::E, r.e_off, bs, bs * bs);
        let gemm = |x: M, y: M, alpha, beta| Step::Gemm {
            ta,
            tb,
            m: bs,
            n: bs,
            k,
            alpha,
            a: panel(x, i0, bs),
            b: panel(y, i0, bs),
            beta,
            c: e,
            count: g,
        };
        v.push(gemm(r.x, r.y, r.alpha, K::Zero));
        if r.two {
            v.push(gemm(r.y, r.x, r.alpha2, K::One));
        }
        v.push(Step::Tri {
            lower: r.lower,
            herm: r.herm,
            n: bs,
            src: e,
            dst: M {
                off: c.off + i0 * (c.ld + 1),
                bs: bs * (c.ld + 1),
                ..c
            },
            beta: r.beta,
            count: g,
        });
    }
    for l in levels(r.n, nb) {
        let s = l.s;
        for (p0, q0, qs, cnt) in runs(&l) {
            let (r0, rs, c0, cs) = if r.lower {
                (q0, qs, p0, s)
            } else {
                (p0, s, q0, qs)
            };
            let step = 2 * s;
            let cm = M {
                off: c.off + r0 + c0 * c.ld,
                bs: step * (c.ld + 1),
                ..c
            };
            let gemm = |x: M, y: M, alpha, beta| Step::Gemm {
                ta,
                tb,
                m: rs,
                n: cs,
                k,
                alpha,
                a: panel(x, r0, step),
                b: panel(y, c0, step),
                beta,
                c: cm,
                count: cnt,
            };
            v.push(gemm(r.x, r.y, r.alpha, r.beta));
            if r.two {
                v.push(gemm(r.y, r.x, r.alpha2, K::One));
            }
        }
    }
}

/// symm, hemm.
fn symm<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    let s = Symm {
        left: c.side == Side::Left,
        lower: c.uplo == Uplo::Lower,
        herm: c.kind == Kind::Hemm,
        m: c.m,
        n: c.n,
        a: mat(Space::A, 0, c.lda, 0),
        b: mat(Space::B, 0, c.b.map_or(1, |b| b.1), 0),
        c: mat(Space::C, 0, c.ldc, 0),
        alpha: K::Alpha,
        beta: K::Beta,
        e_off: 0,
    };
    let mut v = Vec::new();
    symm_steps(&mut v, &s, p.nb, p.eblocks);
    v
}

/// One product with a symmetric (Hermitian) matrix, its operands anywhere (the eigensolvers'
/// band reduction multiplies by the trailing matrix it reduces): `C = alpha A B + beta C`
/// (`left`, `A` of order `m`) or `alpha B A + beta C` (order `n`), `C` and `B` `m × n`, `A`
/// stored in its `lower`/upper triangle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Symm {
    pub left: bool,
    pub lower: bool,
    pub herm: bool,
    pub m: usize,
    pub n: usize,
    pub a: M,
    pub b: M,
    pub c: M,
    pub alpha: K,
    pub beta: K,
    /// Element offset in E of its expanded diagonal blocks.
    pub e_off: usize,
}

/// Appends the steps of one symm with diagonal leaves of `nb`, `eblocks` of them expanded in E
/// at once: each diagonal block expanded to a full block and multiplied, then every stored
/// off-diagonal block of the recursive cut used twice (as itself and as its transpose), level
/// by level, as batched products.
pub(crate) fn symm_steps<F>(v: &mut Vec<Step<F>>, s: &Symm, nb: usize, eblocks: usize) {
    let (left, lower) = (s.left, s.lower);
    let ht = if s.herm { Op::C } else { Op::T };
    let fill = if s.herm { Fill::Herm } else { Fill::Sym };
    let (m, n) = (s.m, s.n);
    let (a, b, c) = (s.a, s.b, s.c);
    let (lda, ldb, ldc) = (a.ld, b.ld, c.ld);
    // Operand `x` moved by `off` elements, its blocks `bs` apart.
    let sub = |x: M, off: usize, bs: usize| M {
        off: x.off + off,
        bs,
        ..x
    };
    let na = if left { m } else { n };
    for (i0, bs, g) in leaf_groups(na, nb.max(1), eblocks.max(1)) {
        let e = mat(Space::E, s.e_off, bs, bs * bs);
        v.push(Step::Expand {
            fill,
            lower,
            n: bs,
            src: sub(a, i0 * (lda + 1), bs * (lda + 1)),
            dst: e,
            count: g,
        });
        v.push(if left {
            Step::Gemm {
                ta: Op::N,
                tb: Op::N,
                m: bs,
                n,
                k: bs,
                alpha: s.alpha,
                a: e,
                b: sub(b, i0, bs),
                beta: s.beta,
                c: sub(c, i0, bs),
                count: g,
            }
        } else {
            Step::Gemm {
                ta: Op::N,
                tb: Op::N,
                m,
                n: bs,
                k: bs,
                alpha: s.alpha,
                a: sub(b, i0 * ldb, bs * ldb),
                b: e,
                beta: s.beta,
                c: sub(c, i0 * ldc, bs * ldc),
                count: g,
            }
        });
    }
    for l in levels(na, nb.max(1)) {
        let sl = l.s;
        for (p0, q0, qs, cnt) in runs(&l) {
            let step = 2 * sl;
            // The stored off-diagonal block X (A21 or A12) and the two products it feeds:
            // (rows block, its size, op on X, the other block, its size).
            let x = if lower {
                sub(a, q0 + p0 * lda, step * (lda + 1))
            } else {
                sub(a, p0 + q0 * lda, step * (lda + 1))
            };
            // For Left, lower: C_p += X^T B_q, C_q += X B_p; upper: C_p += X B_q, C_q += X^T B_p.
            let uses = [
                (p0, sl, if lower { ht } else { Op::N }, q0, qs),
                (q0, qs, if lower { Op::N } else { ht }, p0, sl),
            ];
            for (r0, rs, xop, k0, ks) in uses {
                v.push(if left {
                    Step::Gemm {
                        ta: xop,
                        tb: Op::N,
                        m: rs,
                        n,
                        k: ks,
                        alpha: s.alpha,
                        a: x,
                        b: sub(b, k0, step),
                        beta: K::One,
                        c: sub(c, r0, step),
                        count: cnt,
                    }
                } else {
                    // Right: C[:, r] += B[:, k] op(X)', with op' the other one of the pair:
                    // lower: C_p += B_q X, C_q += B_p X^T; upper: C_p += B_q X^T, C_q += B_p X.
                    let xop = if xop == Op::N { ht } else { Op::N };
                    Step::Gemm {
                        ta: Op::N,
                        tb: xop,
                        m,
                        n: rs,
                        k: ks,
                        alpha: s.alpha,
                        a: sub(b, k0 * ldb, step * ldb),
                        b: x,
                        beta: K::One,
                        c: sub(c, r0 * ldc, step * ldc),
                        count: cnt,
                    }
                });
            }
        }
    }
}

/// trmm: result blocks in R (a chunk of B's columns, Left; of its rows, Right), then copied
/// over B (which the call holds as its output, space C).
fn trmm<T: Scalar>(c: &Call<'_, '_, T>, p: &Plan) -> Vec<Step<NoSteps>> {
    let left = c.side == Side::Left;
    let op = c.opa;
    let (m, n, lda, ldb) = (c.m, c.n, c.lda, c.ldc);
    let na = if left { m } else { n };
    let other = if left { n } else { m };
    let fill = Fill::Tri {
        unit: c.diag == Diag::Unit,
    };
    let lower = c.uplo == Uplo::Lower;
    // Where op(A) has its off-diagonal blocks.
    let eff_lower = lower != (op != Op::N);
    let nb = p.nb;
    let groups = leaf_groups(na, nb, p.eblocks);
    let resident = p.eblocks >= na.div_ceil(nb);
    let expand = |i0: usize, bs: usize, g: usize, e0: usize| Step::Expand {
        fill,
        lower,
        n: bs,
        src: mat(Space::A, i0 * (lda + 1), lda, bs * (lda + 1)),
        dst: mat(Space::E, e0, bs, bs * bs),
        count: g,
    };
    let mut v = Vec::new();
    // With room for every leaf, expand them all once; E offsets per group.
    let mut e_at = Vec::with_capacity(groups.len());
    let mut off = 0;
    for &(i0, bs, g) in &groups {
        e_at.push(if resident { off } else { 0 });
        if resident {
            v.push(expand(i0, bs, g, off));
            off += g * bs * bs;
        }
    }
    let w = p.rchunk.max(1);
    let mut c0 = 0;
    while c0 < other {
        let cw = w.min(other - c0);
        // R is na × cw (Left, ld na) or cw × na (Right, ld cw).
        let (rld, rrow) = if left { (na, 1) } else { (cw, cw) };
        for (gi, &(i0, bs, g)) in groups.iter().enumerate() {
            if !resident {
                v.push(expand(i0, bs, g, 0));
            }
            let e = mat(Space::E, e_at[gi], bs, bs * bs);
            v.push(if left {
                Step::Gemm {
                    ta: op,
                    tb: Op::N,
                    m: bs,
                    n: cw,
                    k: bs,
                    alpha: K::Alpha,
                    a: e,
                    b: mat(Space::C, i0 + c0 * ldb, ldb, bs),
                    beta: K::Zero,
                    c: mat(Space::R, i0, rld, bs),
                    count: g,
                }
            } else {
                Step::Gemm {
                    ta: Op::N,
                    tb: op,
                    m: cw,
                    n: bs,
                    k: bs,
                    alpha: K::Alpha,
                    a: mat(Space::C, c0 + i0 * ldb, ldb, bs * ldb),
                    b: e,
                    beta: K::Zero,
                    c: mat(Space::R, i0 * rrow, rld, bs * rrow),
                    count: g,
                }
            });
        }
        for l in levels(na, nb) {
            let s = l.s;
            for (p0, q0, qs, cnt) in runs(&l) {
                let step = 2 * s;
                // op(A)'s block (rows r, cols k): A at (r, k) for N, A at (k, r) transposed.
                let (r0, rs, k0, ks) = if eff_lower {
                    (q0, qs, p0, s)
                } else {
                    (p0, s, q0, qs)
                };
                let x = if op == Op::N {
                    mat(Space::A, r0 + k0 * lda, lda, step * (lda + 1))
                } else {
                    mat(Space::A, k0 + r0 * lda, lda, step * (lda + 1))
                };
                v.push(if left {
                    // R_r += op(A)_rk B_k
                    Step::Gemm {
                        ta: op,
                        tb: Op::N,
                        m: rs,
                        n: cw,
                        k: ks,
                        alpha: K::Alpha,
                        a: x,
                        b: mat(Space::C, k0 + c0 * ldb, ldb, step),
                        beta: K::One,
                        c: mat(Space::R, r0, rld, step),
                        count: cnt,
                    }
                } else {
                    // R[:, k] += B[:, r] op(A)_rk
                    Step::Gemm {
                        ta: Op::N,
                        tb: op,
                        m: cw,
                        n: ks,
                        k: rs,
                        alpha: K::Alpha,
                        a: mat(Space::C, c0 + r0 * ldb, ldb, step * ldb),
                        b: x,
                        beta: K::One,
                        c: mat(Space::R, k0 * rrow, rld, step * rrow),
                        count: cnt,
                    }
                });
            }
        }
        v.push(if left {
            Step::Copy {
                m: na,
                n: cw,
                src: mat(Space::R, 0, rld, 0),
                dst: mat(Space::C, c0 * ldb, ldb, 0),
            }
        } else {
            Step::Copy {
                m: cw,
                n: na,
                src: mat(Space::R, 0, rld, 0),
                dst: mat(Space::C, c0, ldb, 0),
            }
        });
        c0 += cw;
    }
    v
}
