//! Batch layouts: one operand of a call placed single, as a list of buffers or as a strided
//! batch, with fill values around every entry that are compared bit for bit after the call.

use super::complex::C;
use super::elem::{same, El};
use gpublas::{Device, DeviceBuffer};

/// Batch layouts a test exercises.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Form {
    Single,
    List(usize),
    Strided(usize),
}

impl Form {
    /// Entries in the layout.
    pub fn count(self) -> usize {
        match self {
            Form::Single => 1,
            Form::List(c) | Form::Strided(c) => c,
        }
    }
}

/// Every layout: single, lists of 0, 1 and 7 entries, strided batches of 0, 1 and 7 entries.
pub const FORMS: &[Form] = &[
    Form::Single,
    Form::List(0),
    Form::List(1),
    Form::List(7),
    Form::Strided(0),
    Form::Strided(1),
    Form::Strided(7),
];

/// Layouts of the large cases (one or two entries).
pub const BIG_FORMS: &[Form] = &[
    Form::Single,
    Form::Strided(1),
    Form::List(1),
    Form::Strided(2),
];

pub fn form_count(f: Form) -> usize {
    f.count()
}

/// The same kind of layout with `count` entries (`Single` stays single).
pub fn with_count(f: Form, count: usize) -> Form {
    match f {
        Form::Single => Form::Single,
        Form::List(_) => Form::List(count),
        Form::Strided(_) => Form::Strided(count),
    }
}

/// Elements between the entries of a strided layout (never read, never written) where a test
/// does not rotate through gaps of its own.
pub const GAP: usize = 3;

/// Elements a `rows × cols` matrix at leading dimension `ld` spans.
pub fn span(rows: usize, cols: usize, ld: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    }
}

/// One operand of a call in one layout: its buffers and what was uploaded into them. Every
/// buffer holds one more element than its entries need.
pub struct Placed<E> {
    pub form: Form,
    pub stride: usize,
    pub bufs: Vec<DeviceBuffer<E>>,
    pub before: Vec<Vec<E>>,
}

impl<E: El> Placed<E> {
    /// `entries` (one per batch entry, `span` elements each) in `form`, [`GAP`] elements
    /// between strided entries; gaps and the element past the end hold `fill`.
    pub fn new(dev: &Device, form: Form, span: usize, entries: &[Vec<E>], fill: E) -> Self {
        Self::with_gap(dev, form, span, GAP, entries, fill)
    }

    /// `entries` (one per batch entry, `span` elements each) in `form`, `gap` elements between
    /// strided entries; gaps and the element past the end hold `fill`.
    pub fn with_gap(
        dev: &Device,
        form: Form,
        span: usize,
        gap: usize,
        entries: &[Vec<E>],
        fill: E,
    ) -> Self {
        assert_eq!(entries.len(), form_count(form));
        let stride = span + gap;
        let before: Vec<Vec<E>> = match form {
            Form::Single | Form::List(_) => entries
                .iter()
                .map(|e| {
                    let mut v = e.clone();
                    v.push(fill);
                    v
                })
                .collect(),
            Form::Strided(c) => {
                let mut v = vec![fill; stride * c + 1];
                for (i, e) in entries.iter().enumerate() {
                    v[i * stride..i * stride + span].copy_from_slice(e);
                }
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

    /// The same layout with placeholders of the same lengths (for size queries).
    pub fn placeholders(&self) -> Placed<E> {
        Placed {
            form: self.form,
            stride: self.stride,
            bufs: self
                .before
                .iter()
                .map(|b| DeviceBuffer::placeholder(b.len()))
                .collect(),
            before: vec![],
        }
    }

    /// (buffer, offset) of entry `v`.
    pub fn loc(&self, v: usize) -> (usize, usize) {
        match self.form {
            Form::Single => (0, 0),
            Form::List(_) => (v, 0),
            Form::Strided(_) => (0, v * self.stride),
        }
    }

    pub fn one(&self) -> &DeviceBuffer<E> {
        &self.bufs[0]
    }
    pub fn one_mut(&mut self) -> &mut DeviceBuffer<E> {
        &mut self.bufs[0]
    }
    pub fn refs(&self) -> Vec<&DeviceBuffer<E>> {
        self.bufs.iter().collect()
    }
    pub fn muts(&mut self) -> Vec<&mut DeviceBuffer<E>> {
        self.bufs.iter_mut().collect()
    }

    pub fn after(&self) -> Vec<Vec<E>> {
        self.bufs.iter().map(|b| b.to_vec().unwrap()).collect()
    }

    /// Uploads the original contents again.
    pub fn reset(&mut self) {
        for (b, v) in self.bufs.iter_mut().zip(&self.before) {
            b.copy_from_host(v).unwrap();
        }
    }

    /// Takes the current contents as the ones to compare with.
    pub fn snapshot(&mut self) {
        self.before = self.after();
    }

    pub fn untouched(&self, what: &str) {
        for (b, (got, want)) in self.after().iter().zip(&self.before).enumerate() {
            if let Some(p) = (0..got.len()).find(|&p| !same(got[p], want[p])) {
                panic!(
                    "{what}: buffer {b} element {p} changed from {:?} to {:?}",
                    want[p].get(),
                    got[p].get()
                );
            }
        }
    }

    /// `want[v]`: (position in entry v, value, tolerance) of each output element; every other
    /// element must be bit-identical to what was uploaded.
    pub fn check(&self, what: &str, want: &[Vec<(usize, C, f64)>]) {
        let after = self.after();
        let mut marks: Vec<Vec<Option<(C, f64)>>> =
            after.iter().map(|b| vec![None; b.len()]).collect();
        for (v, w) in want.iter().enumerate() {
            let (b, off) = self.loc(v);
            for &(p, val, tol) in w {
                marks[b][off + p] = Some((val, tol));
            }
        }
        for b in 0..after.len() {
            for p in 0..after[b].len() {
                let got = after[b][p];
                match marks[b][p] {
                    Some((w, tol)) => {
                        let g = got.get();
                        assert!(
                            (g.0 - w.0).abs() <= tol && (g.1 - w.1).abs() <= tol,
                            "{what}: buffer {b} element {p}: got {g:?}, want {w:?} (tol {tol:e})"
                        );
                    }
                    None => assert!(
                        same(got, self.before[b][p]),
                        "{what}: buffer {b} element {p} is not an output but changed from {:?} to {:?}",
                        self.before[b][p].get(),
                        got.get()
                    ),
                }
            }
        }
    }

    /// Everything but the positions `is_out(entry, i, j)` of each `rows × cols` entry at `ld`
    /// is bit-identical to what was uploaded.
    pub fn only_outputs_changed(
        &self,
        after: &[Vec<E>],
        rows: usize,
        cols: usize,
        ld: usize,
        is_out: &dyn Fn(usize, usize) -> bool,
        what: &str,
    ) {
        let mut outs: Vec<Vec<bool>> = after.iter().map(|b| vec![false; b.len()]).collect();
        for v in 0..form_count(self.form) {
            let (bi, off) = self.loc(v);
            for j in 0..cols {
                for i in 0..rows {
                    if is_out(i, j) {
                        outs[bi][off + i + j * ld] = true;
                    }
                }
            }
        }
        for (bi, o) in outs.iter().enumerate() {
            for (p, &is_out) in o.iter().enumerate() {
                assert!(
                    is_out || same(after[bi][p], self.before[bi][p]),
                    "{what}: buffer {bi} element {p} is not an output but changed from {:?} to {:?}",
                    self.before[bi][p].get(),
                    after[bi][p].get()
                );
            }
        }
    }
}
