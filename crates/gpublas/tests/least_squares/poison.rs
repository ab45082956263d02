//! The places a call may neither read nor write, each poisoned with a NaN whose payload names
//! it; operands placed in batch layouts around them. Shared by `least_squares.rs` and
//! `potri.rs` (each includes this file as a module of its own).
#![allow(dead_code)]

use super::dense::Dense;
use crate::common::elem::El;
use crate::common::forms::{form_count, span, Form, Placed};
use gpublas::Device;

/// The places a call may neither read nor write (or, `WriteOnly`, may write but not read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Poison {
    /// Rows between the matrix and the leading dimension.
    Pad = 1,
    /// Elements between the entries of a strided batch.
    Gap = 2,
    /// One element past the end of a buffer.
    End = 3,
    /// `tau`'s slots between the entries (`stride_tau > k`).
    TauGap = 4,
    /// One element past the end of the `tau` buffer.
    TauEnd = 5,
    /// Parts of a matrix the routine does not read: ormlq's diagonal and the part left of it,
    /// potri's other triangle.
    Unread = 6,
    /// Outputs that are written before they are read (gelqf's `tau`, gels's rows of `B` past
    /// the right-hand sides).
    WriteOnly = 7,
}

pub(crate) const POISONS: [Poison; 7] = [
    Poison::Pad,
    Poison::Gap,
    Poison::End,
    Poison::TauGap,
    Poison::TauEnd,
    Poison::Unread,
    Poison::WriteOnly,
];

/// Bits of the f32 and f64 NaNs, the place's number in the low byte.
const NAN32: u32 = 0x7fc0_6b00;
const NAN64: u64 = 0x7ff8_6b6b_6b6b_6b00;

/// The NaN of place `p` in every part of an element.
pub(crate) fn pn<E: El>(p: Poison) -> E {
    let mut e = E::pnan();
    let bytes = bytemuck::bytes_of_mut(&mut e);
    let lane = if E::CPLX {
        bytes.len() / 2
    } else {
        bytes.len()
    };
    for part in bytes.chunks_mut(lane) {
        match lane {
            4 => part.copy_from_slice(&(NAN32 | p as u32).to_ne_bytes()),
            8 => part.copy_from_slice(&(NAN64 | p as u64).to_ne_bytes()),
            _ => unreachable!("{lane}-byte parts"),
        }
    }
    e
}

/// The place a NaN came from, if it carries one of the poison payloads (the host backend's
/// arithmetic keeps payloads; a GPU's gives its canonical NaN).
pub(crate) fn nan_place<E: El>(x: E) -> String {
    let bytes = bytemuck::bytes_of(&x);
    let lane = if E::CPLX {
        bytes.len() / 2
    } else {
        bytes.len()
    };
    for part in bytes.chunks(lane) {
        let low = match lane {
            4 => {
                let b = u32::from_ne_bytes(part.try_into().unwrap());
                (b & !0xff == NAN32).then_some(b & 0xff)
            }
            _ => {
                let b = u64::from_ne_bytes(part.try_into().unwrap());
                (b & !0xff == NAN64).then_some((b & 0xff) as u32)
            }
        };
        if let Some(p) = low.and_then(|l| POISONS.iter().find(|p| **p as u32 == l)) {
            return format!("the {p:?} poison");
        }
    }
    format!("{:?}", x.get())
}

/// The first non-finite element of `v` (an entry's span), with its place.
pub(crate) fn first_nonfinite<E: El>(v: &[E], ld: usize) -> Option<String> {
    v.iter()
        .position(|x| !crate::common::complex::finite(x.get()))
        .map(|p| {
            format!(
                "element ({}, {}) is {}",
                p % ld.max(1),
                p / ld.max(1),
                nan_place(v[p])
            )
        })
}

/// `entries` (`span` elements each) in `form`, `gap` elements holding the gap poison between
/// strided entries, one element holding the end poison past each buffer.
pub(crate) fn place<E: El>(
    dev: &Device,
    form: Form,
    span: usize,
    gap: usize,
    entries: &[Vec<E>],
) -> Placed<E> {
    assert_eq!(entries.len(), form_count(form));
    let stride = span + gap;
    let before: Vec<Vec<E>> = match form {
        Form::Single | Form::List(_) => entries
            .iter()
            .map(|e| {
                let mut v = e.clone();
                v.push(pn(Poison::End));
                v
            })
            .collect(),
        Form::Strided(c) => {
            let mut v = vec![pn(Poison::Gap); stride * c + 1];
            for (i, e) in entries.iter().enumerate() {
                v[i * stride..i * stride + span].copy_from_slice(e);
            }
            let last = v.len() - 1;
            v[last] = pn(Poison::End);
            vec![v]
        }
    };
    let bufs = before.iter().map(|v| dev.upload(v).unwrap()).collect();
    Placed {
        form,
        stride,
        bufs,
        before,
    }
}

/// The `rows × cols` entry `v` at `ld` of `after`, in f64.
pub(crate) fn entry<E: El>(
    p: &Placed<E>,
    after: &[Vec<E>],
    v: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Dense {
    let (bi, off) = p.loc(v);
    let mut d = Dense::zeros(rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            d.set(i, j, after[bi][off + i + j * ld].get());
        }
    }
    d
}

/// The span of entry `v` in `after` (`rows × cols` at `ld`).
pub(crate) fn entry_span<'x, E: El>(
    p: &Placed<E>,
    after: &'x [Vec<E>],
    v: usize,
    rows: usize,
    cols: usize,
    ld: usize,
) -> &'x [E] {
    let (bi, off) = p.loc(v);
    &after[bi][off..off + span(rows, cols, ld)]
}

/// `d` stored at `ld`, the padding rows poisoned.
pub(crate) fn store<E: El>(d: &Dense, ld: usize) -> Vec<E> {
    let mut st = vec![pn(Poison::Pad); span(d.r, d.c, ld)];
    for j in 0..d.c {
        for i in 0..d.r {
            let x = d.at(i, j);
            st[i + j * ld] = E::make(x.0, x.1);
        }
    }
    st
}

/// The text of a caught panic.
pub(crate) fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Runs `f` on every item, then fails listing each one that panicked, so that one failing
/// case does not hide the others.
pub(crate) fn each<X>(items: Vec<X>, mut f: impl FnMut(X)) {
    let mut failures = vec![];
    for x in items {
        if let Err(p) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(x))) {
            failures.push(panic_text(&*p));
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
