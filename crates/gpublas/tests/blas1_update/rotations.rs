//! F1: the modified rotation rotm and the rotation set-ups rotg and rotmg.

use super::*;

// ---- rotm ------------------------------------------------------------------------------------

/// (h11, h21, h12, h22) of rotm's `[flag, h11, h21, h12, h22]` by the BLAS flag conventions;
/// `None` for the identity (flag -2).
fn rotm_h(p: [f64; 5]) -> Option<[f64; 4]> {
    match p[0] as i32 {
        -2 => None,
        -1 => Some([p[1], p[2], p[3], p[4]]),
        0 => Some([1.0, p[2], p[3], 1.0]),
        _ => Some([p[1], -1.0, 1.0, p[4]]),
    }
}

/// The parameter entries a flag uses (the others are implied and never read).
fn rotm_used(flag: i32, j: usize) -> bool {
    j == 0
        || match flag {
            -1 => true,
            0 => j == 2 || j == 3,
            1 => j == 1 || j == 4,
            _ => false,
        }
}

fn rotm_case<E: T + RealScalar>(
    dev: &Device,
    h: &mut Handle,
    n: usize,
    incx: isize,
    incy: isize,
    form: Form,
    k: usize,
    pool: &mut Pool,
) {
    let count = form.count();
    let mut x = vector::<E>(dev, form, n, incx, pool);
    let mut y = vector::<E>(dev, form, n, incy, pool);
    // A different flag for each entry; implied parameters hold NaN, which must not be read.
    let flag_of = |v: usize| [-2, -1, 0, 1][(k + v) % 4];
    let ps = 5 + k % 3;
    let param = Opnd::<E>::new(dev, form, 5, ps, poison::<E>(), |v, j| {
        let f = flag_of(v);
        if j == 0 {
            Some(E::make(f as f64, 0.0))
        } else {
            rotm_used(f, j).then(|| E::make(2.0 * pool.f(), 0.0))
        }
    });
    let (sx, sy) = (x.stride, y.stride);
    let what = || {
        format!(
            "rotm<{}> n={n} incx={incx} incy={incy} {form:?} first flag {}",
            std::any::type_name::<E>(),
            flag_of(0)
        )
    };
    let st = match form {
        Form::Single => blas1::rotm(
            h,
            n,
            &mut x.bufs[0],
            incx,
            &mut y.bufs[0],
            incy,
            param.one(),
        ),
        Form::List(_) => blas1::rotm_batched(
            h,
            n,
            &mut x.muts(),
            incx,
            &mut y.muts(),
            incy,
            &param.refs(),
        ),
        Form::Strided(b) => blas1::rotm_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            param.one(),
            ps,
            b,
        ),
    };
    assert_eq!(
        st.unwrap_or_else(|e| panic!("{}: {e}", what())),
        Status::Success
    );
    let (mut wx, mut wy) = (x.same(), y.same());
    for v in 0..count {
        let mut p = [0.0; 5];
        for j in 0..5 {
            p[j] = param.val(v, j).get().0;
        }
        let Some([h11, h21, h12, h22]) = rotm_h(p) else {
            continue;
        };
        for i in 0..n {
            let (px, py) = (idx(n, incx, i), idx(n, incy, i));
            let (xv, yv) = (x.val(v, px).get().0, y.val(v, py).get().0);
            let nx = h11 * xv + h12 * yv;
            let ny = h21 * xv + h22 * yv;
            let sx = (h11 * xv).abs() + (h12 * yv).abs();
            let sy = (h21 * xv).abs() + (h22 * yv).abs();
            x.set(&mut wx, v, px, Want::Close(nx, 0.0, sx));
            y.set(&mut wy, v, py, Want::Close(ny, 0.0, sy));
        }
    }
    x.check(&|| format!("{} x", what()), &wx, 2.0);
    y.check(&|| format!("{} y", what()), &wy, 2.0);
    param.untouched(&format!("{} param", what()));
}

fn rotm_of<E: T + RealScalar>(dev: &Device, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    sweep(false, |n, incx, incy, form, k| {
        rotm_case::<E>(dev, &mut h, n, incx, incy, form, k, &mut pool)
    });
}

fn f1_rotm_every_flag_form_size_and_increment(dev: &Device) {
    rotm_of::<f32>(dev, 21);
    rotm_of::<f64>(dev, 22);
}

// ---- rotg --------------------------------------------------------------------------------

/// Reference BLAS srotg/drotg (classic form): (r, z, c, s).
fn ref_rotg_real(a: f64, b: f64) -> (f64, f64, f64, f64) {
    let roe = if a.abs() > b.abs() { a } else { b };
    let scale = a.abs() + b.abs();
    if scale == 0.0 {
        return (0.0, 0.0, 1.0, 0.0);
    }
    let mut r = scale * ((a / scale).powi(2) + (b / scale).powi(2)).sqrt();
    if roe < 0.0 {
        r = -r;
    }
    let c = a / r;
    let s = b / r;
    let mut z = 1.0;
    if a.abs() > b.abs() {
        z = s;
    }
    if b.abs() >= a.abs() && c != 0.0 {
        z = 1.0 / c;
    }
    (r, z, c, s)
}

fn cabs(a: C) -> f64 {
    a.0.hypot(a.1)
}

/// Reference BLAS crotg/zrotg (classic form; `a = 0` as reference 3.10+): (r, c, s).
fn ref_rotg_cplx(a: C, b: C) -> (C, f64, C) {
    let (na, nb) = (cabs(a), cabs(b));
    if na == 0.0 && nb == 0.0 {
        return ((0.0, 0.0), 1.0, (0.0, 0.0));
    }
    if na == 0.0 {
        return ((nb, 0.0), 0.0, (b.0 / nb, -b.1 / nb));
    }
    let scale = na + nb;
    let norm = scale * ((na / scale).powi(2) + (nb / scale).powi(2)).sqrt();
    let alpha = (a.0 / na, a.1 / na);
    let s = mul(alpha, conj(b));
    (
        (alpha.0 * norm, alpha.1 * norm),
        na / norm,
        (s.0 / norm, s.1 / norm),
    )
}

fn rotg_of<E: T>(dev: &Device, seed: u64)
where
    E::Real: T,
{
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    let specials: Vec<(C, C)> = if E::CPLX {
        vec![
            ((0.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (1.0, -2.0)),
            ((1.5, -0.5), (0.0, 0.0)),
            ((3.0, 4.0), (-1.0, 0.5)),
            ((-0.25, 0.0), (0.0, 4.0)),
            ((1.0, 1.0), (1.0, 1.0)),
        ]
    } else {
        vec![
            ((0.0, 0.0), (0.0, 0.0)),
            ((0.0, 0.0), (2.0, 0.0)),
            ((0.0, 0.0), (-2.0, 0.0)),
            ((-3.0, 0.0), (0.0, 0.0)),
            ((3.0, 0.0), (4.0, 0.0)),
            ((-4.0, 0.0), (3.0, 0.0)),
            ((4.0, 0.0), (-3.0, 0.0)),
            ((1.0, 0.0), (-1.0, 0.0)),
            ((-2.0, 0.0), (-2.0, 0.0)),
        ]
    };
    let strides = [(1, 1, 1, 1), (1, 2, 3, 2), (3, 1, 2, 1)];
    for round in 0..12 {
        for &form in FORMS {
            let count = form.count();
            // Entry v: a special pair or a random one.
            let pairs: Vec<(E, E)> = (0..count)
                .map(|v| {
                    let pick = round * 7 + v;
                    if pick % 2 == 0 {
                        let (a, b) = specials[(pick / 2) % specials.len()];
                        (E::make(a.0, a.1), E::make(b.0, b.1))
                    } else {
                        (pool.elem::<E>(), pool.elem::<E>())
                    }
                })
                .collect();
            let (sa, sb, sc, ss) = strides[round % 3];
            let mut a = Opnd::new(dev, form, 1, sa, poison::<E>(), |v, _| Some(pairs[v].0));
            let mut b = Opnd::new(dev, form, 1, sb, poison::<E>(), |v, _| Some(pairs[v].1));
            let mut c = Opnd::new(dev, form, 1, sc, poison::<E::Real>(), |_, _| None);
            let mut s = Opnd::new(dev, form, 1, ss, poison::<E>(), |_, _| None);
            let what = || {
                format!(
                    "rotg<{}> round {round} {form:?}",
                    std::any::type_name::<E>()
                )
            };
            let st = match form {
                Form::Single => blas1::rotg(
                    &mut h,
                    &mut a.bufs[0],
                    &mut b.bufs[0],
                    &mut c.bufs[0],
                    &mut s.bufs[0],
                ),
                Form::List(_) => blas1::rotg_batched(
                    &mut h,
                    &mut a.muts(),
                    &mut b.muts(),
                    &mut c.muts(),
                    &mut s.muts(),
                ),
                Form::Strided(n) => blas1::rotg_strided_batched(
                    &mut h,
                    &mut a.bufs[0],
                    sa,
                    &mut b.bufs[0],
                    sb,
                    &mut c.bufs[0],
                    sc,
                    &mut s.bufs[0],
                    ss,
                    n,
                ),
            };
            assert_eq!(
                st.unwrap_or_else(|e| panic!("{}: {e}", what())),
                Status::Success
            );
            let (mut wa, mut wb, mut wc, mut ws) = (a.same(), b.same(), c.same(), s.same());
            for v in 0..count {
                let (av, bv) = (pairs[v].0.get(), pairs[v].1.get());
                if E::CPLX {
                    let (r, cc, sv) = ref_rotg_cplx(av, bv);
                    a.set(&mut wa, v, 0, Want::Close(r.0, r.1, cabs(r)));
                    c.set(&mut wc, v, 0, Want::Close(cc, 0.0, cc.abs()));
                    s.set(&mut ws, v, 0, Want::Close(sv.0, sv.1, cabs(sv)));
                    // b is left as it was.
                } else {
                    let (r, z, cc, sv) = ref_rotg_real(av.0, bv.0);
                    a.set(&mut wa, v, 0, Want::Close(r, 0.0, r.abs()));
                    b.set(&mut wb, v, 0, Want::Close(z, 0.0, z.abs()));
                    c.set(&mut wc, v, 0, Want::Close(cc, 0.0, cc.abs()));
                    s.set(&mut ws, v, 0, Want::Close(sv, 0.0, sv.abs()));
                }
            }
            a.check(&|| format!("{} a (r)", what()), &wa, 6.0);
            b.check(&|| format!("{} b (z)", what()), &wb, 6.0);
            c.check(&|| format!("{} c", what()), &wc, 6.0);
            s.check(&|| format!("{} s", what()), &ws, 6.0);
        }
    }
}

fn f1_rotg_every_type_and_form(dev: &Device) {
    rotg_of::<f32>(dev, 31);
    rotg_of::<f64>(dev, 32);
    rotg_of::<Complex32>(dev, 33);
    rotg_of::<Complex64>(dev, 34);
}

// ---- rotmg -------------------------------------------------------------------------------

/// Reference BLAS drotmg (netlib, with its rescaling loops), written from the Fortran:
/// returns (d1, d2, x1, param) where param entries that drotmg does not store are `None`.
fn ref_rotmg(d1: f64, d2: f64, x1: f64, y1: f64) -> (f64, f64, f64, [Option<f64>; 5]) {
    let (gam, gamsq, rgamsq) = (4096.0f64, 16777216.0f64, 5.9604645e-8f64);
    let (mut dd1, mut dd2, mut dx1) = (d1, d2, x1);
    let (mut h11, mut h12, mut h21, mut h22) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut flag: f64;
    if dd1 < 0.0 {
        flag = -1.0;
        dd1 = 0.0;
        dd2 = 0.0;
        dx1 = 0.0;
    } else {
        let p2 = dd2 * y1;
        if p2 == 0.0 {
            return (dd1, dd2, dx1, [Some(-2.0), None, None, None, None]);
        }
        let p1 = dd1 * dx1;
        let q2 = p2 * y1;
        let q1 = p1 * dx1;
        if q1.abs() > q2.abs() {
            h21 = -y1 / dx1;
            h12 = p2 / p1;
            let u = 1.0 - h12 * h21;
            if u > 0.0 {
                flag = 0.0;
                dd1 /= u;
                dd2 /= u;
                dx1 *= u;
            } else {
                flag = -1.0;
                (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
                (dd1, dd2, dx1) = (0.0, 0.0, 0.0);
            }
        } else if q2 < 0.0 {
            flag = -1.0;
            (h11, h12, h21, h22) = (0.0, 0.0, 0.0, 0.0);
            (dd1, dd2, dx1) = (0.0, 0.0, 0.0);
        } else {
            flag = 1.0;
            h11 = p1 / p2;
            h22 = dx1 / y1;
            let u = 1.0 + h11 * h22;
            let t = dd2 / u;
            dd2 = dd1 / u;
            dd1 = t;
            dx1 = y1 * u;
        }
        if dd1 != 0.0 {
            while dd1 <= rgamsq || dd1 >= gamsq {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                }
                flag = -1.0;
                if dd1 <= rgamsq {
                    dd1 *= gam * gam;
                    dx1 /= gam;
                    h11 /= gam;
                    h12 /= gam;
                } else {
                    dd1 /= gam * gam;
                    dx1 *= gam;
                    h11 *= gam;
                    h12 *= gam;
                }
            }
        }
        if dd2 != 0.0 {
            while dd2.abs() <= rgamsq || dd2.abs() >= gamsq {
                if flag == 0.0 {
                    h11 = 1.0;
                    h22 = 1.0;
                } else {
                    h21 = -1.0;
                    h12 = 1.0;
                }
                flag = -1.0;
                if dd2.abs() <= rgamsq {
                    dd2 *= gam * gam;
                    h21 /= gam;
                    h22 /= gam;
                } else {
                    dd2 /= gam * gam;
                    h21 *= gam;
                    h22 *= gam;
                }
            }
        }
    }
    let p = if flag < 0.0 {
        [Some(flag), Some(h11), Some(h21), Some(h12), Some(h22)]
    } else if flag == 0.0 {
        [Some(flag), None, Some(h21), Some(h12), None]
    } else {
        [Some(flag), Some(h11), None, None, Some(h22)]
    };
    (dd1, dd2, dx1, p)
}

/// (d1, d2, x1, y1) exercising every branch of drotmg, with the flag expected.
const ROTMG_CASES: &[(f64, f64, f64, f64, f64)] = &[
    (-1.0, 2.0, 3.0, 4.0, -1.0),    // d1 < 0: H, d1, d2, x1 all zero
    (2.0, 0.0, 3.0, 4.0, -2.0),     // d2 y1 == 0: identity, nothing else changes
    (2.0, 3.0, 4.0, 0.0, -2.0),     // y1 == 0
    (2.0, 1.0, 3.0, 1.0, 0.0),      // |q1| > |q2|
    (1.0, 2.0, 1.0, 3.0, 1.0),      // |q1| <= |q2|
    (1.0, -2.0, 1.0, 3.0, -1.0),    // q2 < 0: all zero
    (0.0, 1.0, 2.0, 3.0, 1.0),      // d1 == 0
    (1e-10, 1e-10, 1.0, 1.0, -1.0), // tiny d1 and d2 rescaled
    (1e-30, 1e-30, 1.0, 1.0, -1.0), // several rescaling rounds
    (1e10, 1.0, 1.0, 1e-3, -1.0),   // huge d1 rescaled from flag 0
    (1.0, 1e9, 1e6, 1.0, -1.0),     // huge d2 rescaled
    (1.0, -1e-12, 1.0, 1.0, -1.0),  // tiny negative d2 rescaled
    (1e30, 1e30, 1.0, 1.0, -1.0),   // huge d1 and d2, several rounds
];

fn rotmg_of<E: T + RealScalar>(dev: &Device, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    // First the classic cases one at a time, checking their flags.
    for &(d1, d2, x1, y1, flag) in ROTMG_CASES {
        let up = |v: f64| dev.upload(&[E::make(v, 0.0)]).unwrap();
        let (mut b1, mut b2, mut bx, by) = (up(d1), up(d2), up(x1), up(y1));
        let mut p = dev.upload(&[poison::<E>(); 5]).unwrap();
        let _ = blas1::rotmg(&mut h, &mut b1, &mut b2, &mut bx, &by, &mut p).unwrap();
        let got = p.to_vec().unwrap()[0].get().0;
        assert_eq!(
            got,
            flag,
            "rotmg<{}> {:?}: flag",
            std::any::type_name::<E>(),
            (d1, d2, x1, y1)
        );
    }
    let strides = [(1, 1, 1, 1, 5), (2, 1, 3, 0, 6), (1, 2, 1, 1, 7)];
    for round in 0..12 {
        for &form in FORMS {
            let count = form.count();
            let quads: Vec<[f64; 4]> = (0..count)
                .map(|v| {
                    let pick = round * 7 + v;
                    if pick % 3 != 2 {
                        let c = ROTMG_CASES[(pick / 3 * 2 + pick % 3) % ROTMG_CASES.len()];
                        [c.0, c.1, c.2, c.3]
                    } else {
                        [2.0 * pool.f().abs(), 2.0 * pool.f(), pool.f(), pool.f()]
                    }
                })
                .map(|q| q.map(|v| E::make(v, 0.0).get().0))
                .collect();
            let (s1, s2, sx, sy, sp) = strides[round % 3];
            let one = |s: usize, j: usize| {
                Opnd::new(dev, form, 1, s, poison::<E>(), |v, _| {
                    Some(E::make(quads[v][j], 0.0))
                })
            };
            let (mut d1, mut d2, mut x1, y1) = (one(s1, 0), one(s2, 1), one(sx, 2), one(sy, 3));
            let mut param = Opnd::new(dev, form, 5, sp, poison::<E>(), |_, _| None);
            let what = || {
                format!(
                    "rotmg<{}> round {round} {form:?}",
                    std::any::type_name::<E>()
                )
            };
            let st = match form {
                Form::Single => blas1::rotmg(
                    &mut h,
                    &mut d1.bufs[0],
                    &mut d2.bufs[0],
                    &mut x1.bufs[0],
                    y1.one(),
                    &mut param.bufs[0],
                ),
                Form::List(_) => blas1::rotmg_batched(
                    &mut h,
                    &mut d1.muts(),
                    &mut d2.muts(),
                    &mut x1.muts(),
                    &y1.refs(),
                    &mut param.muts(),
                ),
                Form::Strided(n) => blas1::rotmg_strided_batched(
                    &mut h,
                    &mut d1.bufs[0],
                    s1,
                    &mut d2.bufs[0],
                    s2,
                    &mut x1.bufs[0],
                    sx,
                    y1.one(),
                    sy,
                    &mut param.bufs[0],
                    sp,
                    n,
                ),
            };
            assert_eq!(
                st.unwrap_or_else(|e| panic!("{}: {e}", what())),
                Status::Success
            );
            let (mut w1, mut w2, mut wx, mut wp) = (d1.same(), d2.same(), x1.same(), param.same());
            // Entries that drotmg does not store are compared separately (see
            // f1_rotmg_leaves_implied_param_entries_as_reference_blas_does).
            let mut implied = vec![];
            for v in 0..count {
                // Inputs as the buffers hold them (y1 may be shared at stride 0).
                let q = [
                    d1.val(v, 0).get().0,
                    d2.val(v, 0).get().0,
                    x1.val(v, 0).get().0,
                    y1.val(v, 0).get().0,
                ];
                let (r1, r2, rx, rp) = ref_rotmg(q[0], q[1], q[2], q[3]);
                d1.set(&mut w1, v, 0, Want::Close(r1, 0.0, r1.abs()));
                d2.set(&mut w2, v, 0, Want::Close(r2, 0.0, r2.abs()));
                x1.set(&mut wx, v, 0, Want::Close(rx, 0.0, rx.abs()));
                for j in 0..5 {
                    match rp[j] {
                        Some(pv) => param.set(&mut wp, v, j, Want::Close(pv, 0.0, pv.abs())),
                        None => {
                            let (b, i) = param.pos(v, j);
                            implied.push((b, i));
                        }
                    }
                }
            }
            // Implied entries are not judged here: whatever is there is accepted.
            let got_p: Vec<Vec<E>> = param.bufs.iter().map(|b| b.to_vec().unwrap()).collect();
            for &(b, i) in &implied {
                wp[b][i] = Want::Exact(got_p[b][i]);
            }
            d1.check(&|| format!("{} d1", what()), &w1, 6.0);
            d2.check(&|| format!("{} d2", what()), &w2, 6.0);
            x1.check(&|| format!("{} x1", what()), &wx, 6.0);
            param.check(&|| format!("{} param", what()), &wp, 6.0);
            y1.untouched(&format!("{} y1", what()));
        }
    }
}

fn f1_rotmg_every_branch_and_form(dev: &Device) {
    rotmg_of::<f32>(dev, 41);
    rotmg_of::<f64>(dev, 42);
}

/// Reference BLAS ?rotmg stores only the entries of `param` its flag uses: with flag -2 only
/// `param[0]`; with flag 0 not h11, h22; with flag 1 not h21, h12 (netlib drotmg, rocBLAS and
/// cuBLAS alike). The rest of `param` keeps what the caller had there.
fn f1_rotmg_leaves_implied_param_entries_as_reference_blas_does(dev: &Device) {
    let mut h = Handle::new(dev).unwrap();
    let keep = 7.5f64;
    let mut overwritten = vec![];
    for &(d1, d2, x1, y1, flag) in ROTMG_CASES {
        let up = |v: f64| dev.upload(&[v]).unwrap();
        let (mut b1, mut b2, mut bx, by) = (up(d1), up(d2), up(x1), up(y1));
        let mut p = dev.upload(&[keep; 5]).unwrap();
        let _ = blas1::rotmg(&mut h, &mut b1, &mut b2, &mut bx, &by, &mut p).unwrap();
        let got = p.to_vec().unwrap();
        let (_, _, _, want) = ref_rotmg(d1, d2, x1, y1);
        let bad: Vec<usize> = (1..5)
            .filter(|&j| want[j].is_none() && got[j].to_bits() != keep.to_bits())
            .collect();
        if !bad.is_empty() {
            overwritten.push(format!(
                "(d1, d2, x1, y1) = {:?}, flag {flag}: param[{bad:?}] overwritten, param = {got:?}",
                (d1, d2, x1, y1)
            ));
        }
    }
    assert!(
        overwritten.is_empty(),
        "rotmg writes param entries that its flag implies and reference BLAS leaves as they \
         were ({keep} before the call):\n{}",
        overwritten.join("\n")
    );
}

crate::on_both_backends!(
    f1_rotm_every_flag_form_size_and_increment,
    f1_rotg_every_type_and_form,
    f1_rotmg_every_branch_and_form,
    f1_rotmg_leaves_implied_param_entries_as_reference_blas_does,
);
