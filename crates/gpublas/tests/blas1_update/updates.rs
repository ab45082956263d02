//! F1: the vector updates axpy, scal, copy, swap and rot.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Upd {
    Axpy,
    Scal,
    Copy,
    Swap,
    Rot,
}

fn update_case<E: T>(
    dev: &Device,
    h: &mut Handle,
    r: Upd,
    n: usize,
    incx: isize,
    incy: isize,
    form: Form,
    k: usize,
    pool: &mut Pool,
) {
    let count = form.count();
    let mut x = vector::<E>(dev, form, n, incx, pool);
    // scal has no y: an empty one stands in (and must stay as it is).
    let ny = if r == Upd::Scal { 0 } else { n };
    let mut y = vector::<E>(dev, form, ny, incy, pool);
    let alpha = Co::new(dev, k, count, || pool.elem::<E>());
    let c = Co::new(dev, k / 3 + 1, count, || E::rmake(pool.f()));
    let (sx, sy) = (x.stride, y.stride);
    let what = || {
        format!(
            "{r:?}<{}> n={n} incx={incx} incy={incy} {form:?} alpha/s {} c {}",
            std::any::type_name::<E>(),
            alpha.name(),
            c.name()
        )
    };
    let st = match (r, form) {
        (Upd::Axpy, Form::Single) => {
            blas1::axpy(h, n, alpha.coef(), x.one(), incx, &mut y.bufs[0], incy)
        }
        (Upd::Axpy, Form::List(_)) => {
            blas1::axpy_batched(h, n, alpha.coef(), &x.refs(), incx, &mut y.muts(), incy)
        }
        (Upd::Axpy, Form::Strided(b)) => blas1::axpy_strided_batched(
            h,
            n,
            alpha.coef(),
            x.one(),
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            b,
        ),
        (Upd::Scal, Form::Single) => blas1::scal(h, n, alpha.coef(), &mut x.bufs[0], incx),
        (Upd::Scal, Form::List(_)) => blas1::scal_batched(h, n, alpha.coef(), &mut x.muts(), incx),
        (Upd::Scal, Form::Strided(b)) => {
            blas1::scal_strided_batched(h, n, alpha.coef(), &mut x.bufs[0], incx, sx, b)
        }
        (Upd::Copy, Form::Single) => blas1::copy(h, n, x.one(), incx, &mut y.bufs[0], incy),
        (Upd::Copy, Form::List(_)) => {
            blas1::copy_batched(h, n, &x.refs(), incx, &mut y.muts(), incy)
        }
        (Upd::Copy, Form::Strided(b)) => {
            blas1::copy_strided_batched(h, n, x.one(), incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Upd::Swap, Form::Single) => blas1::swap(h, n, &mut x.bufs[0], incx, &mut y.bufs[0], incy),
        (Upd::Swap, Form::List(_)) => {
            blas1::swap_batched(h, n, &mut x.muts(), incx, &mut y.muts(), incy)
        }
        (Upd::Swap, Form::Strided(b)) => {
            blas1::swap_strided_batched(h, n, &mut x.bufs[0], incx, sx, &mut y.bufs[0], incy, sy, b)
        }
        (Upd::Rot, Form::Single) => blas1::rot(
            h,
            n,
            &mut x.bufs[0],
            incx,
            &mut y.bufs[0],
            incy,
            c.coef(),
            alpha.coef(),
        ),
        (Upd::Rot, Form::List(_)) => blas1::rot_batched(
            h,
            n,
            &mut x.muts(),
            incx,
            &mut y.muts(),
            incy,
            c.coef(),
            alpha.coef(),
        ),
        (Upd::Rot, Form::Strided(b)) => blas1::rot_strided_batched(
            h,
            n,
            &mut x.bufs[0],
            incx,
            sx,
            &mut y.bufs[0],
            incy,
            sy,
            c.coef(),
            alpha.coef(),
            b,
        ),
    };
    assert_eq!(
        st.unwrap_or_else(|e| panic!("{}: {e}", what())),
        Status::Success,
        "{}",
        what()
    );
    let (mut wx, mut wy) = (x.same(), y.same());
    for v in 0..count {
        let a = alpha.vals[v].get();
        let cv = T::get(&E::from_real(c.vals[v]));
        for i in 0..n {
            let (px, py) = (idx(n, incx, i), idx(n, incy, i));
            let xe = x.val(v, px);
            let ye = if r == Upd::Scal { xe } else { y.val(v, py) };
            let (xv, yv) = (xe.get(), ye.get());
            match r {
                Upd::Axpy => {
                    let w = add(mul(a, xv), yv);
                    let sc = mag(a) * mag(xv) + mag(yv);
                    y.set(&mut wy, v, py, Want::Close(w.0, w.1, sc));
                }
                Upd::Scal => {
                    if incx > 0 {
                        let w = mul(a, xv);
                        x.set(&mut wx, v, px, Want::Close(w.0, w.1, mag(a) * mag(xv)));
                    }
                }
                Upd::Copy => y.set(&mut wy, v, py, Want::Exact(xe)),
                Upd::Swap => {
                    x.set(&mut wx, v, px, Want::Exact(ye));
                    y.set(&mut wy, v, py, Want::Exact(xe));
                }
                Upd::Rot => {
                    // (x, y) = (c x + s y, c y - conj(s) x)
                    let nx = add(mul(cv, xv), mul(a, yv));
                    let ny = add(mul(cv, yv), mul((-a.0, a.1), xv));
                    let scx = mag(cv) * mag(xv) + mag(a) * mag(yv);
                    let scy = mag(cv) * mag(yv) + mag(a) * mag(xv);
                    x.set(&mut wx, v, px, Want::Close(nx.0, nx.1, scx));
                    y.set(&mut wy, v, py, Want::Close(ny.0, ny.1, scy));
                }
            }
        }
    }
    x.check(&|| format!("{} x", what()), &wx, 2.0);
    y.check(&|| format!("{} y", what()), &wy, 2.0);
}

fn updates_of<E: T>(dev: &Device, r: Upd, seed: u64) {
    let mut h = Handle::new(dev).unwrap();
    let mut pool = Pool::new(seed);
    sweep(
        matches!(r, Upd::Axpy | Upd::Copy),
        |n, incx, incy, form, k| {
            update_case::<E>(dev, &mut h, r, n, incx, incy, form, k, &mut pool)
        },
    );
}

fn updates(dev: &Device, r: Upd) {
    updates_of::<f32>(dev, r, 11);
    updates_of::<f64>(dev, r, 12);
    updates_of::<Complex32>(dev, r, 13);
    updates_of::<Complex64>(dev, r, 14);
}

fn f1_axpy_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Axpy)
}
fn f1_scal_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Scal)
}
fn f1_copy_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Copy)
}
fn f1_swap_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Swap)
}
fn f1_rot_every_type_form_size_and_increment(dev: &Device) {
    updates(dev, Upd::Rot)
}

crate::on_both_backends!(
    f1_axpy_every_type_form_size_and_increment,
    f1_scal_every_type_form_size_and_increment,
    f1_copy_every_type_form_size_and_increment,
    f1_swap_every_type_form_size_and_increment,
    f1_rot_every_type_form_size_and_increment,
);
