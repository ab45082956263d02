#![allow(clippy::needless_range_loop)]
//! The multi-device layer (`gpublas::multi`): groups, the 2-D block-cyclic `DistMatrix`, SUMMA
//! `gemm`, distributed `potrf`/`potrs`, `getrf`/`getrs` and their per-device workspaces, on both backends (SPEC
//! F2, F3, F5, F10, M6–M9 as they apply to a group).
//!
//! A group of N devices is N distinct limited host devices on the host backend, N handles
//! (each with its own stream) on the one GPU on CUDA. References are f64 loops written here:
//! - gemm (every `op` pair): per element `|C − C_ref| ≤ 2 (k + 2) ε (|α| Σ|a||b| + |β| |c|)`
//!   on the inputs as rounded to the type; `beta = 0` ignores a NaN C, `alpha = 0` a NaN A, B.
//! - potrf (`Lower` and `Upper`): `‖L Lᵀ − A‖_F / (‖A‖_F n ε) < 30` (`L = Uᵀ`), `info = 0`,
//!   the other triangle (a NaN with a payload) bit-identical; a broken leading minor of order
//!   t + 1 gives `info = t + 1`, as the one-device `solver::potrf`.
//! - potrs, getrs: `‖A X − B‖_F / (‖A‖_F ‖X‖_F n ε) < 30` against the original A.
//! - getrf (square and not): pivots equal to a partial-pivoting LU loop written here (f64) and
//!   to the one-device `solver::getrf` (f32, f64), `‖P A − L U‖_F / (‖A‖_F max(m, n) ε) < 30`;
//!   a zero column j gives `info = j + 1`.
//!
//! The block-cyclic placement is checked against a formula written here, not `Layout`.

mod common;
#[path = "multi/lu.rs"]
mod lu;

use common::{fixed_handle, randn, rng};
use gpublas::multi::{self, DeviceGroup, DistMatrix, Factored, Grid, Layout, Transport};
use gpublas::{
    solver, Backend, Device, Element, Error, Op, RealScalar, Results, Status, Uplo, WorkspaceMode,
};

use lu::*;

// ---- element types -------------------------------------------------------------------------

/// f32 and f64 seen from the test: conversions, ε, and a NaN with a payload of its own.
trait Real: RealScalar + Element + Copy {
    const EPS: f64;
    fn of(x: f64) -> Self;
    fn f(self) -> f64;
    fn poison() -> Self;
    fn bits(self) -> u64;
}

impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
    fn of(x: f64) -> Self {
        x
    }
    fn f(self) -> f64 {
        self
    }
    fn poison() -> Self {
        f64::from_bits(0x7ff8_0000_dead_beef)
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn f(self) -> f64 {
        self as f64
    }
    fn poison() -> Self {
        f32::from_bits(0x7fc0_beef)
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

fn cast<T: Real>(v: &[f64]) -> Vec<T> {
    v.iter().map(|&x| T::of(x)).collect()
}

fn widen<T: Real>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.f()).collect()
}

fn bits<T: Real>(v: &[T]) -> Vec<u64> {
    v.iter().map(|x| x.bits()).collect()
}

// ---- groups ----------------------------------------------------------------------------------

/// `n` devices of `dev`'s backend: distinct host devices, or the one GPU named `n` times.
fn devices(dev: &Device, n: usize) -> Vec<Device> {
    match dev.backend() {
        Backend::Host => (0..n)
            .map(|_| Device::host_with_limit(common::HOST_LIMIT))
            .collect(),
        Backend::Cuda => (0..n).map(|_| dev.clone()).collect(),
    }
}

/// A `p × q` group on `devs` whose handles are `Managed` with nothing allocated up front (they
/// grow to each call's need).
fn group_of(devs: &[Device], (p, q): (usize, usize)) -> DeviceGroup {
    let handles = devs.iter().map(|d| fixed_handle(d, 0)).collect();
    DeviceGroup::from_handles(handles)
        .unwrap()
        .with_grid(Grid::new(p, q).unwrap())
        .unwrap()
}

fn group(dev: &Device, (p, q): (usize, usize)) -> DeviceGroup {
    group_of(&devices(dev, p * q), (p, q))
}

/// The bytes a fixed group gives for a need: the need, or one chunk where it is 0 (a size of 0
/// would make the handle `Managed`, free to grow).
fn fixed_bytes(need: usize) -> usize {
    need.max(64)
}

/// A group on `devs` whose handle `r` is `UserManaged` with `fixed_bytes(bytes[r])` (never
/// grows).
fn fixed_group(devs: &[Device], bytes: &[usize], (p, q): (usize, usize)) -> DeviceGroup {
    let handles = devs
        .iter()
        .zip(bytes)
        .map(|(d, &b)| fixed_handle(d, fixed_bytes(b)))
        .collect();
    DeviceGroup::from_handles(handles)
        .unwrap()
        .with_grid(Grid::new(p, q).unwrap())
        .unwrap()
}

/// 1, 2, 3 and 4 devices in rows, in columns and square.
const GRIDS: [(usize, usize); 8] = [
    (1, 1),
    (1, 2),
    (2, 1),
    (1, 3),
    (3, 1),
    (2, 2),
    (1, 4),
    (4, 1),
];

// ---- references ------------------------------------------------------------------------------

/// Where block-cyclic element `(i, j)` lives: (device, local row, local column), ScaLAPACK's
/// rule written out here (device `pr + pc p`, tiles in global order on each device).
fn place(i: usize, j: usize, nb: usize, (p, q): (usize, usize)) -> (usize, usize, usize) {
    let (ti, tj) = (i / nb, j / nb);
    (
        ti % p + (tj % q) * p,
        ti / p * nb + i % nb,
        tj / q * nb + j % nb,
    )
}

/// Elements of a dimension of `len` on grid index `g` of `p`.
fn local_count(len: usize, nb: usize, g: usize, p: usize) -> usize {
    (0..len).filter(|&i| (i / nb) % p == g).count()
}

/// `M Mᵀ + n I` for a random `M`: symmetric positive definite, well conditioned.
fn spd(seed: u64, n: usize) -> Vec<f64> {
    let m = randn(&mut rng(seed), n * n);
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            let s: f64 = (0..n).map(|l| m[i + l * n] * m[j + l * n]).sum();
            a[i + j * n] = s + if i == j { n as f64 } else { 0.0 };
        }
    }
    a
}

/// The `uplo` triangle of `a` (rounded to `T`) with the poison NaN in the other one.
fn tri_poisoned<T: Real>(a: &[f64], n: usize, uplo: Uplo) -> Vec<T> {
    (0..n * n)
        .map(|k| {
            let (i, j) = (k % n, k / n);
            if i == j || (i > j) == (uplo == Uplo::Lower) {
                T::of(a[k])
            } else {
                T::poison()
            }
        })
        .collect()
}

fn fro(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `C ← alpha A B + beta C` for the column-major `m × k` A and `k × n` B, checked per element
/// against an f64 loop with a bound from `|A||B|` (`beta == 0`: C is not read).
fn check_gemm<T: Real>(
    what: &str,
    (m, n, k): (usize, usize, usize),
    (alpha, beta): (f64, f64),
    a: &[T],
    b: &[T],
    c0: &[T],
    got: &[T],
) {
    assert_eq!(got.len(), m * n, "{what}");
    for j in 0..n {
        for i in 0..m {
            let (mut s, mut abs) = (0.0, 0.0);
            for l in 0..k {
                let p = a[i + l * m].f() * b[l + j * k].f();
                s += p;
                abs += p.abs();
            }
            let (mut want, mut bound) = (alpha * s, alpha.abs() * abs);
            if beta != 0.0 {
                want += beta * c0[i + j * m].f();
                bound += (beta * c0[i + j * m].f()).abs();
            }
            let g = got[i + j * m].f();
            let tol = 2.0 * (k + 2) as f64 * T::EPS * bound;
            assert!(
                (g - want).abs() <= tol,
                "{what}: C({i}, {j}) = {g}, reference {want}, tolerance {tol}"
            );
        }
    }
}

/// The factor `out` of `a` (f64, as rounded to `T`): the other triangle bit-identical poison,
/// a finite factor with a positive diagonal, a small `‖L Lᵀ − A‖_F` (`L = Uᵀ` for `Upper`).
fn check_cholesky<T: Real>(what: &str, a: &[f64], out: &[T], n: usize, uplo: Uplo) {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            let v = out[i + j * n];
            let stored = if uplo == Uplo::Lower { i >= j } else { i <= j };
            if !stored {
                assert_eq!(
                    v.bits(),
                    T::poison().bits(),
                    "{what}: ({i}, {j}) outside the triangle was written"
                );
            } else {
                assert!(v.f().is_finite(), "{what}: factor ({i}, {j}) = {}", v.f());
                let (li, lj) = if uplo == Uplo::Lower { (i, j) } else { (j, i) };
                l[li + lj * n] = v.f();
            }
        }
        assert!(
            l[j + j * n] > 0.0,
            "{what}: diagonal {j} = {}",
            l[j + j * n]
        );
    }
    let mut r = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            let s: f64 = (0..=i.min(j)).map(|p| l[i + p * n] * l[j + p * n]).sum();
            r[i + j * n] = s - a[i + j * n];
        }
    }
    let res = fro(&r) / (fro(a) * n as f64 * T::EPS);
    assert!(res < 30.0, "{what}: ‖L Lᵀ − A‖ ratio {res}");
}

/// `‖A X − B‖_F / (‖A‖_F ‖X‖_F n ε)` for the `n × n` A.
fn solve_ratio<T: Real>(a: &[f64], x: &[T], b: &[T], n: usize, nrhs: usize) -> f64 {
    let x = widen(x);
    let mut r = vec![0.0; n * nrhs];
    for j in 0..nrhs {
        for i in 0..n {
            let s: f64 = (0..n).map(|l| a[i + l * n] * x[l + j * n]).sum();
            r[i + j * n] = s - b[i + j * n].f();
        }
    }
    let denom = fro(a) * fro(&x) * n as f64 * T::EPS;
    if denom == 0.0 {
        fro(&r)
    } else {
        fro(&r) / denom
    }
}

// ---- groups and layouts ----------------------------------------------------------------------

fn multi_grid_auto_and_group_construction(dev: &Device) {
    for (n, rows, cols) in [
        (1, 1, 1),
        (2, 1, 2),
        (3, 1, 3),
        (4, 2, 2),
        (6, 2, 3),
        (8, 2, 4),
    ] {
        assert_eq!(Grid::auto(n), Grid { rows, cols }, "auto({n})");
    }
    let g = Grid::new(2, 3).unwrap();
    assert_eq!(g.size(), 6);
    for r in 0..6 {
        assert_eq!(g.coords(r), (r % 2, r / 2));
        assert_eq!(g.device_at(r % 2, r / 2), r);
    }
    assert!(matches!(Grid::new(0, 2), Err(Error::InvalidSize(_))));
    assert!(matches!(Grid::new(2, 0), Err(Error::InvalidSize(_))));

    for n in 1..=4 {
        let devs = devices(dev, n);
        let mut group = DeviceGroup::new(&devs).unwrap();
        assert_eq!(group.len(), n);
        assert!(!group.is_empty());
        assert_eq!(group.grid(), Grid::auto(n));
        for (r, d) in devs.iter().enumerate() {
            assert!(group.handle(r).device().same_as(d), "handle {r}");
            assert!(group.handle_mut(r).device().same_as(d));
        }
        // One grid place per device, no more, no fewer.
        let wrong = Grid::new(n + 1, 1).unwrap();
        assert!(matches!(
            DeviceGroup::new(&devs).unwrap().with_grid(wrong),
            Err(Error::InvalidSize(_))
        ));
        // Handles with the environment's settings run a routine on the default grid.
        let k = 11;
        let a = spd(n as u64, k);
        let input = tri_poisoned::<f64>(&a, k, Uplo::Lower);
        let mut da = DistMatrix::from_host(&mut group, k, k, 3, &input, k).unwrap();
        let f = multi::potrf(&mut group, Uplo::Lower, &mut da).unwrap();
        assert_eq!(f.info, 0);
        check_cholesky(
            "default group",
            &a,
            &da.to_host(&mut group).unwrap(),
            k,
            Uplo::Lower,
        );
        let group = group.with_grid(Grid::new(1, n).unwrap()).unwrap();
        assert_eq!(group.grid(), Grid { rows: 1, cols: n });
    }
    assert!(matches!(DeviceGroup::new(&[]), Err(Error::InvalidSize(_))));
    assert!(matches!(
        DeviceGroup::from_handles(Vec::new()),
        Err(Error::InvalidSize(_))
    ));
}

fn multi_host_round_trip_every_layout(dev: &Device) {
    let shapes = [
        (0, 3, 2),
        (3, 0, 2),
        (1, 1, 1),
        (7, 5, 3),
        (31, 2, 1),
        (33, 31, 8),
        (32, 65, 32),
        (5, 7, 100),
    ];
    for grid in GRIDS {
        let mut g = group(dev, grid);
        for (m, n, nb) in shapes {
            let what = format!("{m} x {n}, tiles of {nb}, grid {grid:?}");
            // Exact distinct values at lda > m, the poison in the padding.
            let lda = m + 3;
            let mut a = vec![f64::poison(); lda * n];
            for j in 0..n {
                for i in 0..m {
                    a[i + j * lda] = (i + 1000 * j) as f64 + 0.25;
                }
            }
            let d = DistMatrix::from_host(&mut g, m, n, nb, &a, lda).unwrap();
            assert_eq!(
                *d.layout(),
                Layout {
                    m,
                    n,
                    nb,
                    grid: g.grid()
                },
                "{what}"
            );
            assert_eq!((d.rows(), d.cols()), (m, n));
            // Every device's local matrix, element by element, by the formula written here.
            let locals: Vec<Vec<f64>> =
                (0..g.len()).map(|r| d.local(r).to_vec().unwrap()).collect();
            for r in 0..g.len() {
                let rows = local_count(m, nb, r % grid.0, grid.0);
                let cols = local_count(n, nb, r / grid.0, grid.1);
                assert_eq!(locals[r].len(), rows * cols, "{what}: device {r}");
            }
            for j in 0..n {
                for i in 0..m {
                    let (r, li, lj) = place(i, j, nb, grid);
                    let rows = local_count(m, nb, r % grid.0, grid.0);
                    assert_eq!(
                        locals[r][li + lj * rows],
                        a[i + j * lda],
                        "{what}: ({i}, {j})"
                    );
                }
            }
            let packed = d.to_host(&mut g).unwrap();
            assert_eq!(packed.len(), m * n);
            for j in 0..n {
                for i in 0..m {
                    assert_eq!(packed[i + j * m], a[i + j * lda], "{what}: to_host");
                }
            }
            // A gather into a wider ld writes the matrix and nothing between its columns.
            let ldb = m + 2;
            let mut back = vec![f64::poison(); ldb * n];
            d.gather_to_host(&mut g, &mut back, ldb).unwrap();
            for j in 0..n {
                for i in 0..ldb {
                    let want = if i < m { a[i + j * lda] } else { f64::poison() };
                    assert_eq!(
                        back[i + j * ldb].to_bits(),
                        want.to_bits(),
                        "{what}: gather"
                    );
                }
            }
        }
    }
    // Host operands that do not hold the matrix, and a tile size of 0.
    let mut g = group(dev, (2, 2));
    let a = vec![1.0f64; 40];
    assert!(matches!(
        DistMatrix::from_host(&mut g, 5, 5, 2, &a, 4),
        Err(Error::InvalidSize(_))
    ));
    assert!(matches!(
        DistMatrix::from_host(&mut g, 7, 7, 2, &a, 7),
        Err(Error::InvalidSize(_))
    ));
    assert!(matches!(
        DistMatrix::<f64>::zeros(&g, 5, 5, 0),
        Err(Error::InvalidSize(_))
    ));
    let d = DistMatrix::from_host(&mut g, 5, 5, 2, &a, 5).unwrap();
    let mut short = vec![0.0f64; 24];
    assert!(matches!(
        d.gather_to_host(&mut g, &mut short, 5),
        Err(Error::InvalidSize(_))
    ));
    assert!(short.iter().all(|&x| x == 0.0), "a failed gather wrote");
}

fn multi_device_buffer_round_trip(dev: &Device) {
    for grid in [(1, 1), (1, 2), (2, 1), (1, 3), (2, 2), (4, 1)] {
        let mut g = group(dev, grid);
        let last = g.len() - 1;
        for (m, n, nb) in [(7, 5, 3), (33, 17, 8), (1, 1, 1), (0, 4, 2), (6, 9, 50)] {
            for (from, to) in [(0, last), (last, 0)] {
                let what = format!("{m} x {n}, tiles {nb}, grid {grid:?}, {from} -> {to}");
                let ld = m + 2;
                let mut src = vec![f64::poison(); ld * n];
                for j in 0..n {
                    for i in 0..m {
                        src[i + j * ld] = (7 * i + 100 * j) as f64 - 0.5;
                    }
                }
                let buf = g.handle(from).device().upload(&src).unwrap();
                let mut d = DistMatrix::zeros(&g, m, n, nb).unwrap();
                d.scatter_from_device(&mut g, from, &buf, ld).unwrap();
                let packed = d.to_host(&mut g).unwrap();
                for j in 0..n {
                    for i in 0..m {
                        assert_eq!(packed[i + j * m], src[i + j * ld], "{what}: scatter");
                    }
                }
                // Gather onto the other end at a wider ld: the padding stays as it was.
                let ld2 = m + 3;
                let mut dst = g
                    .handle(to)
                    .device()
                    .upload(&vec![f64::poison(); ld2 * n])
                    .unwrap();
                d.gather_to_device(&mut g, to, &mut dst, ld2).unwrap();
                let back = dst.to_vec().unwrap();
                for j in 0..n {
                    for i in 0..ld2 {
                        let want = if i < m {
                            src[i + j * ld]
                        } else {
                            f64::poison()
                        };
                        assert_eq!(
                            back[i + j * ld2].to_bits(),
                            want.to_bits(),
                            "{what}: gather"
                        );
                    }
                }
            }
        }
    }
    // A device past the group, a buffer too short, a buffer on another device.
    let mut g = group(dev, (1, 2));
    let mut d = DistMatrix::<f64>::zeros(&g, 4, 4, 2).unwrap();
    let buf = g.handle(0).device().upload(&[1.0f64; 16]).unwrap();
    assert!(matches!(
        d.scatter_from_device(&mut g, 2, &buf, 4),
        Err(Error::InvalidValue(_))
    ));
    assert!(matches!(
        d.scatter_from_device(&mut g, 0, &buf, 5),
        Err(Error::InvalidSize(_))
    ));
    if dev.backend() == Backend::Host {
        assert!(matches!(
            d.scatter_from_device(&mut g, 1, &buf, 4),
            Err(Error::InvalidPointer(_))
        ));
        let mut other = g.handle(0).device().alloc::<f64>(16).unwrap();
        assert!(matches!(
            d.gather_to_device(&mut g, 1, &mut other, 4),
            Err(Error::InvalidPointer(_))
        ));
    }
    assert!(d.to_host(&mut g).unwrap().iter().all(|&x| x == 0.0));
}

// ---- gemm ------------------------------------------------------------------------------------

/// `op(X)` of the column-major `rows × cols` X, as a column-major matrix (real: C is T).
fn op_of<T: Real>(op: Op, x: &[T], rows: usize, cols: usize) -> Vec<T> {
    if op == Op::N {
        return x.to_vec();
    }
    let mut t = Vec::with_capacity(x.len());
    for i in 0..rows {
        for j in 0..cols {
            t.push(x[i + j * rows]);
        }
    }
    t
}

/// One distributed gemm against the reference; C holds the poison when `beta == 0`.
fn gemm_case<T: Real>(
    g: &mut DeviceGroup,
    (opa, opb): (Op, Op),
    (m, n, k): (usize, usize, usize),
    nb: usize,
    (alpha, beta): (f64, f64),
    seed: u64,
) {
    let what = format!(
        "{} gemm ({opa:?}, {opb:?}) {m} x {n} x {k}, tiles {nb}, grid {:?}, alpha {alpha}, \
         beta {beta}",
        std::any::type_name::<T>(),
        g.grid()
    );
    // A and B as stored: op(A) is m × k, op(B) k × n.
    let (ar, ac) = if opa == Op::N { (m, k) } else { (k, m) };
    let (br, bc) = if opb == Op::N { (k, n) } else { (n, k) };
    let mut r = rng(seed);
    let a: Vec<T> = cast(&randn(&mut r, m * k));
    let b: Vec<T> = cast(&randn(&mut r, k * n));
    let c0: Vec<T> = if beta == 0.0 {
        vec![T::poison(); m * n]
    } else {
        cast(&randn(&mut r, m * n))
    };
    let da = DistMatrix::from_host(g, ar, ac, nb, &a, ar.max(1)).unwrap();
    let db = DistMatrix::from_host(g, br, bc, nb, &b, br.max(1)).unwrap();
    let mut dc = DistMatrix::from_host(g, m, n, nb, &c0, m.max(1)).unwrap();
    let st = multi::gemm(g, opa, opb, T::of(alpha), &da, &db, T::of(beta), &mut dc).unwrap();
    assert_eq!(st, Status::Success, "{what}");
    let got = dc.to_host(g).unwrap();
    let (opa_m, opb_m) = (op_of(opa, &a, ar, ac), op_of(opb, &b, br, bc));
    check_gemm(&what, (m, n, k), (alpha, beta), &opa_m, &opb_m, &c0, &got);
}

/// Shapes across grids: tiles dividing the sizes or not, of 1, larger than the matrix.
/// (grid, (m, n, k), tile size).
type GemmCase = ((usize, usize), (usize, usize, usize), usize);

const GEMM_CASES: [GemmCase; 12] = [
    ((1, 1), (7, 5, 3), 2),
    ((1, 2), (31, 33, 32), 8),
    ((2, 1), (33, 31, 65), 8),
    ((2, 2), (65, 33, 31), 16),
    ((2, 2), (7, 7, 7), 1),
    ((2, 2), (1, 1, 1), 1),
    ((2, 2), (5, 3, 4), 100),
    ((1, 3), (32, 32, 32), 32),
    ((3, 1), (2, 7, 1), 3),
    ((3, 1), (31, 32, 33), 7),
    ((1, 4), (33, 65, 7), 4),
    ((4, 1), (31, 2, 33), 5),
];

const OPS: [Op; 3] = [Op::N, Op::T, Op::C];

fn f10_gemm_matches_reference_f64(dev: &Device) {
    for (s, &(grid, shape, nb)) in GEMM_CASES.iter().enumerate() {
        let mut g = group(dev, grid);
        for opa in OPS {
            for opb in OPS {
                let seed = 100 + 10 * s as u64;
                gemm_case::<f64>(&mut g, (opa, opb), shape, nb, (1.5, 0.0), seed);
                gemm_case::<f64>(&mut g, (opa, opb), shape, nb, (-0.75, -0.5), seed + 1);
            }
        }
    }
}

fn f10_gemm_matches_reference_f32(dev: &Device) {
    for (s, &(grid, shape, nb)) in GEMM_CASES.iter().enumerate() {
        let mut g = group(dev, grid);
        for ops in [
            (Op::N, Op::N),
            (Op::T, Op::N),
            (Op::N, Op::T),
            (Op::C, Op::T),
        ] {
            let seed = 300 + 10 * s as u64;
            gemm_case::<f32>(&mut g, ops, shape, nb, (1.5, 0.0), seed);
            gemm_case::<f32>(&mut g, ops, shape, nb, (-0.75, 2.0), seed + 1);
        }
    }
}

fn f3_gemm_zero_dimensions_and_alpha_zero(dev: &Device) {
    for grid in [(1, 1), (1, 3), (2, 2), (4, 1)] {
        let mut g = group(dev, grid);
        // Empty C: nothing to do, whatever the other sizes.
        for (m, n, k) in [(0, 5, 3), (5, 0, 3), (0, 0, 0), (0, 4, 0), (3, 4, 0)] {
            for ops in [(Op::N, Op::N), (Op::T, Op::T), (Op::N, Op::C)] {
                gemm_case::<f64>(&mut g, ops, (m, n, k), 2, (1.5, 0.5), 7);
            }
        }
        // k = 0: C ← beta C exactly, and beta = 0 gives zeros over a NaN C.
        for nb in [1, 2, 8] {
            let (m, n) = (5, 6);
            let c0 = randn(&mut rng(nb as u64), m * n);
            let da = DistMatrix::<f64>::zeros(&g, m, 0, nb).unwrap();
            let db = DistMatrix::<f64>::zeros(&g, 0, n, nb).unwrap();
            let (dat, dbt) = (
                DistMatrix::<f64>::zeros(&g, 0, m, nb).unwrap(),
                DistMatrix::<f64>::zeros(&g, n, 0, nb).unwrap(),
            );
            let mut dc = DistMatrix::from_host(&mut g, m, n, nb, &c0, m).unwrap();
            let st = multi::gemm(&mut g, Op::N, Op::N, 3.0, &da, &db, 0.5, &mut dc).unwrap();
            assert_eq!(st, Status::Success);
            let want: Vec<f64> = c0.iter().map(|c| 0.5 * c).collect();
            assert_eq!(dc.to_host(&mut g).unwrap(), want, "k = 0, grid {grid:?}");
            dc.scatter_from_host(&mut g, &vec![f64::NAN; m * n], m)
                .unwrap();
            let st = multi::gemm(&mut g, Op::T, Op::T, 3.0, &dat, &dbt, 0.0, &mut dc).unwrap();
            assert_eq!(st, Status::Success);
            assert_eq!(
                dc.to_host(&mut g).unwrap(),
                vec![0.0; m * n],
                "k = 0, beta 0"
            );
        }
        // alpha = 0: A and B are not read (NaN there does not propagate), C ← beta C.
        let (m, n, k) = (7, 5, 9);
        let nan_a = DistMatrix::from_host(&mut g, m, k, 3, &vec![f64::NAN; m * k], m).unwrap();
        let nan_b = DistMatrix::from_host(&mut g, k, n, 3, &vec![f64::NAN; k * n], k).unwrap();
        let c0 = randn(&mut rng(9), m * n);
        let mut dc = DistMatrix::from_host(&mut g, m, n, 3, &c0, m).unwrap();
        let st = multi::gemm(&mut g, Op::N, Op::N, 0.0, &nan_a, &nan_b, -2.0, &mut dc).unwrap();
        assert_eq!(st, Status::Success);
        let want: Vec<f64> = c0.iter().map(|c| -2.0 * c).collect();
        assert_eq!(dc.to_host(&mut g).unwrap(), want, "alpha 0, grid {grid:?}");
    }
}

fn f2_gemm_argument_errors_touch_nothing(dev: &Device) {
    let devs = devices(dev, 4);
    let mut g = group_of(&devs, (2, 2));
    let a = randn(&mut rng(1), 36);
    let da = DistMatrix::from_host(&mut g, 6, 6, 2, &a, 6).unwrap();
    let db = DistMatrix::from_host(&mut g, 6, 6, 2, &a, 6).unwrap();
    let c0 = randn(&mut rng(2), 36);
    let mut dc = DistMatrix::from_host(&mut g, 6, 6, 2, &c0, 6).unwrap();
    let unchanged = |g: &mut DeviceGroup, dc: &DistMatrix<f64>, what: &str| {
        assert_eq!(dc.to_host(g).unwrap(), c0, "{what}: C was written");
    };
    // Inner dimensions, rows of C, columns of C (as op() sees them).
    let a65 = DistMatrix::<f64>::zeros(&g, 6, 5, 2).unwrap();
    let b56 = DistMatrix::<f64>::zeros(&g, 5, 6, 2).unwrap();
    let a76 = DistMatrix::<f64>::zeros(&g, 7, 6, 2).unwrap();
    let b67 = DistMatrix::<f64>::zeros(&g, 6, 7, 2).unwrap();
    for (ops, x, y) in [
        ((Op::N, Op::N), &a65, &db),
        ((Op::N, Op::N), &da, &b56),
        ((Op::N, Op::N), &a76, &db),
        ((Op::N, Op::N), &da, &b67),
        ((Op::T, Op::N), &a65, &db),
        ((Op::N, Op::T), &da, &b67),
        ((Op::C, Op::N), &a76, &db),
    ] {
        let e = multi::gemm(&mut g, ops.0, ops.1, 1.0, x, y, 1.0, &mut dc);
        assert!(matches!(e, Err(Error::InvalidSize(_))), "{ops:?}: {e:?}");
        unchanged(&mut g, &dc, "shapes");
    }
    // Tile sizes that differ.
    let a3 = DistMatrix::from_host(&mut g, 6, 6, 3, &a, 6).unwrap();
    for (x, y) in [(&a3, &db), (&da, &a3)] {
        let e = multi::gemm(&mut g, Op::N, Op::N, 1.0, x, y, 1.0, &mut dc);
        assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
        unchanged(&mut g, &dc, "tiles");
    }
    // A matrix laid out on another grid of the same devices.
    let mut g14 = group_of(&devs, (1, 4));
    let a14 = DistMatrix::from_host(&mut g14, 6, 6, 2, &a, 6).unwrap();
    let mut c14 = DistMatrix::from_host(&mut g14, 6, 6, 2, &c0, 6).unwrap();
    let e = multi::gemm(&mut g, Op::N, Op::N, 1.0, &a14, &db, 1.0, &mut dc);
    assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
    unchanged(&mut g, &dc, "grid");
    let e = multi::gemm(&mut g, Op::N, Op::N, 1.0, &da, &db, 1.0, &mut c14);
    assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
    assert!(matches!(c14.to_host(&mut g), Err(Error::InvalidValue(_))));
    assert_eq!(c14.to_host(&mut g14).unwrap(), c0, "C on 1 x 4 was written");
    // The same group regridded: its old matrices no longer fit it.
    let mut g22 = g14.with_grid(Grid::new(2, 2).unwrap()).unwrap();
    let e = multi::gemm(&mut g22, Op::N, Op::N, 1.0, &a14, &a14, 1.0, &mut c14);
    assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
    let e = multi::potrf(&mut g22, Uplo::Lower, &mut c14);
    assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
    let mut g14 = g22.with_grid(Grid::new(1, 4).unwrap()).unwrap();
    assert_eq!(c14.to_host(&mut g14).unwrap(), c0, "C was written");
}

// ---- potrf / potrs ---------------------------------------------------------------------------

const UPLOS: [Uplo; 2] = [Uplo::Lower, Uplo::Upper];

/// One distributed Cholesky of an SPD matrix whose other triangle is the poison.
fn potrf_case<T: Real>(g: &mut DeviceGroup, uplo: Uplo, n: usize, nb: usize, seed: u64) {
    let what = format!(
        "{} potrf {uplo:?} n {n}, tiles {nb}, grid {:?}",
        std::any::type_name::<T>(),
        g.grid()
    );
    let a = widen(&cast::<T>(&spd(seed, n)));
    let input = tri_poisoned::<T>(&a, n, uplo);
    let mut da = DistMatrix::from_host(g, n, n, nb, &input, n.max(1)).unwrap();
    let f = multi::potrf(g, uplo, &mut da).unwrap();
    assert_eq!(
        f,
        Factored {
            status: Status::Success,
            info: 0
        },
        "{what}"
    );
    check_cholesky(&what, &a, &da.to_host(g).unwrap(), n, uplo);
}

/// Orders where tiles change, tiles of 1 and past the matrix, on every grid shape.
const POTRF_CASES: [((usize, usize), usize, usize); 14] = [
    ((1, 1), 1, 1),
    ((1, 1), 7, 3),
    ((1, 2), 2, 1),
    ((2, 1), 7, 2),
    ((2, 2), 31, 4),
    ((2, 2), 32, 8),
    ((2, 2), 33, 8),
    ((2, 2), 17, 1),
    ((1, 3), 33, 5),
    ((3, 1), 65, 16),
    ((1, 4), 65, 32),
    ((4, 1), 32, 100),
    ((2, 2), 65, 7),
    ((1, 2), 7, 7),
];

fn f10_potrf_residual_f64(dev: &Device) {
    for (s, &(grid, n, nb)) in POTRF_CASES.iter().enumerate() {
        for uplo in UPLOS {
            potrf_case::<f64>(&mut group(dev, grid), uplo, n, nb, 500 + s as u64);
        }
    }
}

fn f10_potrf_residual_f32(dev: &Device) {
    for (s, &(grid, n, nb)) in POTRF_CASES.iter().enumerate() {
        for uplo in UPLOS {
            potrf_case::<f32>(&mut group(dev, grid), uplo, n, nb, 600 + s as u64);
        }
    }
}

fn f3_potrs_zero_right_hand_sides(dev: &Device) {
    for grid in [(1, 1), (2, 2), (1, 3)] {
        let mut g = group(dev, grid);
        for uplo in UPLOS {
            let a = spd(3, 5);
            let mut da = DistMatrix::from_host(&mut g, 5, 5, 2, &a, 5).unwrap();
            assert_eq!(multi::potrf(&mut g, uplo, &mut da).unwrap().info, 0);
            let mut db = DistMatrix::<f64>::zeros(&g, 5, 0, 2).unwrap();
            assert_eq!(
                multi::potrs(&mut g, uplo, &da, &mut db).unwrap(),
                Status::Success
            );
        }
    }
}

/// `A[t, t]` hugely negative breaks the leading minor of order `t + 1` and none before it:
/// `info = t + 1` from the group and from the one-device `solver::potrf`, for `t` in the first
/// tile, in middle tiles held by devices other than 0, and at the last entry.
fn multi_potrf_not_positive_definite_info(dev: &Device) {
    let cases = [
        ((2, 2), 33, 4, 0),
        ((2, 2), 33, 4, 2),
        ((2, 2), 33, 4, 22), // tile 5 on device 3
        ((2, 2), 33, 4, 6),  // tile 1 on device 3
        ((2, 2), 33, 4, 32), // the last entry, a tile of 1
        ((1, 3), 33, 4, 5),  // tile 1 on device 1
        ((1, 3), 33, 4, 9),  // tile 2 on device 2
        ((3, 1), 33, 4, 17), // tile 4 on device 1
        ((2, 1), 31, 8, 30), // the last entry, on device 1
        ((1, 4), 65, 16, 64),
        ((1, 1), 7, 3, 6),
        ((1, 2), 9, 1, 4),
    ];
    for (s, (grid, n, nb, t)) in cases.into_iter().enumerate() {
        for uplo in UPLOS {
            let what = format!("{uplo:?} n {n}, tiles {nb}, grid {grid:?}, broken at {t}");
            let mut a = spd(700 + s as u64, n);
            a[t + t * n] = -1e6;
            let input = tri_poisoned::<f64>(&a, n, uplo);
            let mut g = group(dev, grid);
            let mut da = DistMatrix::from_host(&mut g, n, n, nb, &input, n).unwrap();
            let f = multi::potrf(&mut g, uplo, &mut da).unwrap();
            assert_eq!(f.info, t as i32 + 1, "{what}");
            assert_eq!(f.status, Status::Success, "{what}");
            let out = da.to_host(&mut g).unwrap();
            for j in 0..n {
                for i in 0..n {
                    if (i < j) == (uplo == Uplo::Lower) && i != j {
                        assert_eq!(
                            out[i + j * n].to_bits(),
                            input[i + j * n].to_bits(),
                            "{what}"
                        );
                    }
                }
            }
            // LAPACK's semantics, from the one-device routine on the same data.
            let mut h = fixed_handle(g.handle(0).device(), 0);
            let mut buf = g.handle(0).device().upload(&input).unwrap();
            let mut info = [-1];
            let _ = solver::potrf(&mut h, uplo, n, &mut buf, n, Results::Host(&mut info)).unwrap();
            assert_eq!(info[0], f.info, "{what}: one device");
        }
    }
}

/// Factor the SPD A with the group, solve for a random B, check the residual against A.
fn potrs_case<T: Real>(
    g: &mut DeviceGroup,
    uplo: Uplo,
    n: usize,
    nb: usize,
    nrhs: usize,
    seed: u64,
) {
    let what = format!(
        "{} potrs {uplo:?} n {n}, nrhs {nrhs}, tiles {nb}, grid {:?}",
        std::any::type_name::<T>(),
        g.grid()
    );
    let a = widen(&cast::<T>(&spd(seed, n)));
    let mut da = DistMatrix::from_host(g, n, n, nb, &tri_poisoned::<T>(&a, n, uplo), n).unwrap();
    assert_eq!(multi::potrf(g, uplo, &mut da).unwrap().info, 0, "{what}");
    let b: Vec<T> = cast(&randn(&mut rng(seed + 1), n * nrhs));
    let mut db = DistMatrix::from_host(g, n, nrhs, nb, &b, n).unwrap();
    let st = multi::potrs(g, uplo, &da, &mut db).unwrap();
    assert_eq!(st, Status::Success, "{what}");
    let x = db.to_host(g).unwrap();
    let ratio = solve_ratio(&a, &x, &b, n, nrhs);
    assert!(ratio < 30.0, "{what}: residual ratio {ratio}");
}

const POTRS_CASES: [((usize, usize), usize, usize); 8] = [
    ((1, 1), 7, 3),
    ((1, 2), 1, 1),
    ((2, 1), 33, 8),
    ((2, 2), 31, 4),
    ((2, 2), 32, 1),
    ((1, 3), 33, 5),
    ((4, 1), 17, 40),
    ((1, 4), 65, 16),
];

fn f10_potrs_residual_f64(dev: &Device) {
    for (s, &(grid, n, nb)) in POTRS_CASES.iter().enumerate() {
        let mut g = group(dev, grid);
        for uplo in UPLOS {
            for nrhs in [1, 3, 17] {
                potrs_case::<f64>(&mut g, uplo, n, nb, nrhs, 800 + s as u64);
            }
        }
    }
}

fn f10_potrs_residual_f32(dev: &Device) {
    for (s, &(grid, n, nb)) in POTRS_CASES.iter().enumerate() {
        let mut g = group(dev, grid);
        for uplo in UPLOS {
            for nrhs in [1, 3, 17] {
                potrs_case::<f32>(&mut g, uplo, n, nb, nrhs, 900 + s as u64);
            }
        }
    }
}

fn f2_potrf_potrs_argument_errors_touch_nothing(dev: &Device) {
    let devs = devices(dev, 4);
    let mut g = group_of(&devs, (2, 2));
    let n = 9;
    let a = spd(11, n);
    let b = randn(&mut rng(12), n * 3);
    for uplo in UPLOS {
        let input = tri_poisoned::<f64>(&a, n, uplo);
        let mut rect = DistMatrix::from_host(&mut g, n, n - 1, 2, &input, n).unwrap();
        let e = multi::potrf(&mut g, uplo, &mut rect);
        assert!(matches!(e, Err(Error::InvalidSize(_))), "{e:?}");
        assert_eq!(
            bits(&rect.to_host(&mut g).unwrap()),
            bits(&input[..n * (n - 1)]),
            "a rectangle was written"
        );

        let mut da = DistMatrix::from_host(&mut g, n, n, 2, &input, n).unwrap();
        assert_eq!(multi::potrf(&mut g, uplo, &mut da).unwrap().info, 0);
        let mut db = DistMatrix::from_host(&mut g, n, 3, 2, &b, n).unwrap();
        let mut db3 = DistMatrix::from_host(&mut g, n, 3, 3, &b, n).unwrap();
        let e = multi::potrs(&mut g, uplo, &da, &mut db3);
        assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
        let mut short = DistMatrix::from_host(&mut g, n - 1, 3, 2, &b, n).unwrap();
        let e = multi::potrs(&mut g, uplo, &da, &mut short);
        assert!(matches!(e, Err(Error::InvalidSize(_))), "{e:?}");
        let e = multi::potrs(&mut g, uplo, &rect, &mut db);
        assert!(matches!(e, Err(Error::InvalidSize(_))), "{e:?}");
        assert_eq!(db.to_host(&mut g).unwrap(), b, "B was written");
        assert_eq!(db3.to_host(&mut g).unwrap(), b, "B was written");
        // Matrices of a 1 x 4 grid with the group on 2 x 2.
        let mut g14 = group_of(&devs, (1, 4));
        let mut a14 = DistMatrix::from_host(&mut g14, n, n, 2, &input, n).unwrap();
        let e = multi::potrf(&mut g, uplo, &mut a14);
        assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
        let mut b14 = DistMatrix::from_host(&mut g14, n, 3, 2, &b, n).unwrap();
        let e = multi::potrs(&mut g, uplo, &da, &mut b14);
        assert!(matches!(e, Err(Error::InvalidValue(_))), "{e:?}");
        assert_eq!(bits(&a14.to_host(&mut g14).unwrap()), bits(&input));
        assert_eq!(b14.to_host(&mut g14).unwrap(), b);
    }
}

// ---- workspaces: size queries and fixed workspaces -------------------------------------------

fn m7_group_query_mismatch(dev: &Device) {
    let mut g = group(dev, (2, 2));
    assert!(!g.is_device_memory_size_query());
    assert!(matches!(
        g.stop_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    g.start_device_memory_size_query().unwrap();
    assert!(g.is_device_memory_size_query());
    assert!(matches!(
        g.start_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    // Still the one query, with nothing recorded.
    assert_eq!(g.stop_device_memory_size_query().unwrap(), vec![0; 4]);
    assert!(matches!(
        g.stop_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    // A query active on one handle: the group starts none.
    g.handle_mut(2).start_device_memory_size_query().unwrap();
    assert!(matches!(
        g.start_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    for r in [0, 1, 3] {
        assert!(!g.handle(r).is_device_memory_size_query(), "handle {r}");
    }
    assert!(matches!(
        g.stop_device_memory_size_query(),
        Err(Error::QueryMismatch(_))
    ));
    assert!(g.handle(2).is_device_memory_size_query());
    assert_eq!(g.handle_mut(2).stop_device_memory_size_query().unwrap(), 0);
}

/// Sizes where every device of every grid below holds tiles of A (so each needs panels).
const QUERY_GRIDS: [(usize, usize); 5] = [(1, 1), (2, 1), (1, 3), (2, 2), (4, 1)];
const QN: usize = 33;
const QNB: usize = 6;

fn m8_group_query_answers_per_device_and_runs_nothing(dev: &Device) {
    for grid in QUERY_GRIDS {
        for uplo in UPLOS {
            let what = format!("{uplo:?}, grid {grid:?}");
            let mut g = group(dev, grid);
            let n = QN;
            let a = spd(21, n);
            let input = tri_poisoned::<f64>(&a, n, uplo);
            let mut da = DistMatrix::from_host(&mut g, n, n, QNB, &input, n).unwrap();
            let b = randn(&mut rng(22), n * 5);
            let db = DistMatrix::from_host(&mut g, n, 5, QNB, &b, n).unwrap();
            let mut dx = DistMatrix::from_host(&mut g, n, 5, QNB, &b, n).unwrap();
            let c0 = vec![f64::poison(); n * 5];
            let mut dc = DistMatrix::from_host(&mut g, n, 5, QNB, &c0, n).unwrap();

            g.start_device_memory_size_query().unwrap();
            let st = multi::gemm(&mut g, Op::N, Op::N, 1.0, &da, &db, 0.0, &mut dc).unwrap();
            assert_eq!(st, Status::SizeIncreased, "{what}");
            let gemm_need = g.stop_device_memory_size_query().unwrap();

            g.start_device_memory_size_query().unwrap();
            let f = multi::potrf(&mut g, uplo, &mut da).unwrap();
            assert_eq!(
                f,
                Factored {
                    status: Status::SizeIncreased,
                    info: 0
                },
                "{what}"
            );
            let potrf_need = g.stop_device_memory_size_query().unwrap();

            // Not yet factored: nothing runs, so potrs cannot tell.
            g.start_device_memory_size_query().unwrap();
            let st = multi::potrs(&mut g, uplo, &da, &mut dx).unwrap();
            assert_eq!(st, Status::SizeIncreased, "{what}");
            // A second call with the same need adds nothing.
            let st = multi::potrs(&mut g, uplo, &da, &mut dx).unwrap();
            assert_eq!(st, Status::SizeUnchanged, "{what}");
            let potrs_need = g.stop_device_memory_size_query().unwrap();

            for (routine, need) in [
                ("gemm", &gemm_need),
                ("potrf", &potrf_need),
                ("potrs", &potrs_need),
            ] {
                assert_eq!(need.len(), g.len(), "{what}: {routine}");
                for (r, &b) in need.iter().enumerate() {
                    assert!(b > 0, "{what}: {routine} on device {r} needs {b}");
                    assert_eq!(b % 64, 0, "{what}: {routine}: {b} is not whole chunks");
                }
            }
            // Nothing ran and no output moved.
            assert_eq!(
                bits(&dc.to_host(&mut g).unwrap()),
                bits(&c0),
                "{what}: gemm ran"
            );
            assert_eq!(
                bits(&da.to_host(&mut g).unwrap()),
                bits(&input),
                "{what}: potrf ran"
            );
            assert_eq!(dx.to_host(&mut g).unwrap(), b, "{what}: potrs ran");
        }
    }
}

/// Per-device needs of one call on `g`, by a group query.
fn needs(
    g: &mut DeviceGroup,
    run: &mut dyn FnMut(&mut DeviceGroup) -> Result<Status, Error>,
) -> Vec<usize> {
    g.start_device_memory_size_query().unwrap();
    let st = run(g).unwrap();
    assert_eq!(st, Status::SizeIncreased);
    g.stop_device_memory_size_query().unwrap()
}

/// One M9 round: each routine's per-device need from a query on a `Managed` group, then the
/// same call on a group of fixed workspaces of exactly those sizes: `Success`, no growth, the
/// right answer.
fn m9_case(
    dev: &Device,
    grid: (usize, usize),
    (n, nb, nrhs): (usize, usize, usize),
    uplo: Uplo,
    (opa, opb): (Op, Op),
) {
    let devs = devices(dev, grid.0 * grid.1);
    let mut g = group_of(&devs, grid);
    let what = format!("{uplo:?} {opa:?} {opb:?}, n {n}, nb {nb}, nrhs {nrhs}, grid {grid:?}");
    let mut r = rng(31);
    let a = spd(32, n);
    let input = tri_poisoned::<f64>(&a, n, uplo);
    let b = randn(&mut r, n * nrhs);
    let c0 = randn(&mut r, n * nrhs);
    let mut da = DistMatrix::from_host(&mut g, n, n, nb, &input, n).unwrap();
    // gemm: op(A) n × n (A symmetric: op does not change it), op(B) n × nrhs.
    let dfull = DistMatrix::from_host(&mut g, n, n, nb, &a, n).unwrap();
    let bt = op_of(Op::T, &b, n, nrhs);
    let db = match opb {
        Op::N => DistMatrix::from_host(&mut g, n, nrhs, nb, &b, n).unwrap(),
        _ => DistMatrix::from_host(&mut g, nrhs, n, nb, &bt, nrhs).unwrap(),
    };
    let mut dc = DistMatrix::from_host(&mut g, n, nrhs, nb, &c0, n).unwrap();

    // The fixed group kept its sizes: UserManaged, never grown.
    let exact = |bytes: &[usize], g: &DeviceGroup| {
        for (r, &need) in bytes.iter().enumerate() {
            let h = g.handle(r);
            assert_eq!(h.workspace_mode(), WorkspaceMode::UserManaged, "{what}");
            assert_eq!(
                h.get_device_memory_size(),
                fixed_bytes(need),
                "{what}: device {r}"
            );
        }
    };
    let need = needs(&mut g, &mut |g| {
        multi::gemm(g, opa, opb, 1.25, &dfull, &db, -1.0, &mut dc)
    });
    let mut fg = fixed_group(&devs, &need, grid);
    let st = multi::gemm(&mut fg, opa, opb, 1.25, &dfull, &db, -1.0, &mut dc).unwrap();
    assert_eq!(st, Status::Success, "{what}: gemm");
    exact(&need, &fg);
    let got = dc.to_host(&mut fg).unwrap();
    check_gemm(&what, (n, nrhs, n), (1.25, -1.0), &a, &b, &c0, &got);

    let need = needs(&mut g, &mut |g| {
        multi::potrf(g, uplo, &mut da).map(|f| f.status)
    });
    let mut fg = fixed_group(&devs, &need, grid);
    let f = multi::potrf(&mut fg, uplo, &mut da).unwrap();
    assert_eq!((f.status, f.info), (Status::Success, 0), "{what}: potrf");
    exact(&need, &fg);
    check_cholesky(&what, &a, &da.to_host(&mut fg).unwrap(), n, uplo);

    let mut dx = DistMatrix::from_host(&mut g, n, nrhs, nb, &b, n).unwrap();
    let need = needs(&mut g, &mut |g| multi::potrs(g, uplo, &da, &mut dx));
    let mut fg = fixed_group(&devs, &need, grid);
    let st = multi::potrs(&mut fg, uplo, &da, &mut dx).unwrap();
    assert_eq!(st, Status::Success, "{what}: potrs");
    exact(&need, &fg);
    let ratio = solve_ratio(&a, &dx.to_host(&mut fg).unwrap(), &b, n, nrhs);
    assert!(ratio < 30.0, "{what}: potrs residual ratio {ratio}");
}

fn m9_group_query_sizes_fixed_workspaces_exactly(dev: &Device) {
    // Tiles dividing n or not, of 1, past the matrix; devices without tiles (n 3 on 4).
    let sizes = [
        (33, 6, 7),
        (7, 3, 1),
        (3, 2, 17),
        (17, 1, 3),
        (5, 100, 2),
        (32, 8, 3),
    ];
    let ops = [
        (Op::N, Op::N),
        (Op::T, Op::N),
        (Op::N, Op::T),
        (Op::C, Op::C),
    ];
    for (gi, grid) in GRIDS.into_iter().enumerate() {
        for (k, &size) in sizes.iter().enumerate() {
            for uplo in UPLOS {
                m9_case(dev, grid, size, uplo, ops[(gi + k) % 4]);
            }
        }
    }
}

fn m6_fixed_workspace_too_small_is_memory_error_and_writes_nothing(dev: &Device) {
    let cases = [
        ((1, 1), 0, Uplo::Lower),
        ((2, 2), 1, Uplo::Upper),
        ((1, 3), 2, Uplo::Lower),
        ((4, 1), 0, Uplo::Upper),
        ((2, 2), 3, Uplo::Lower),
    ];
    for (grid, small, uplo) in cases {
        let devs = devices(dev, grid.0 * grid.1);
        let mut g = group_of(&devs, grid);
        let n = QN;
        let what = format!("{uplo:?}, grid {grid:?}, device {small} short");
        let a = spd(41, n);
        let input = tri_poisoned::<f64>(&a, n, uplo);
        let b = randn(&mut rng(42), n * 4);
        let c0 = randn(&mut rng(43), n * 4);
        let mut da = DistMatrix::from_host(&mut g, n, n, QNB, &input, n).unwrap();
        let dfull = DistMatrix::from_host(&mut g, n, n, QNB, &a, n).unwrap();
        let db = DistMatrix::from_host(&mut g, n, 4, QNB, &b, n).unwrap();
        let mut dc = DistMatrix::from_host(&mut g, n, 4, QNB, &c0, n).unwrap();

        // One device a quarter of its need, the others exact: a MemoryError with that
        // device's sizes, nothing written; with its need restored the same group runs (the
        // other devices' holds were let go).
        let short = |need: &[usize]| -> Vec<usize> {
            let mut v = need.to_vec();
            v[small] /= 4;
            v
        };
        let is_short = |e: Result<Status, Error>, need: &[usize], fg: &DeviceGroup| match e {
            Err(Error::MemoryError {
                needed, available, ..
            }) => {
                assert_eq!(needed, need[small], "{what}");
                assert_eq!(
                    available,
                    fg.handle(small).get_device_memory_size(),
                    "{what}"
                );
            }
            other => panic!("{what}: {other:?}"),
        };

        let need = needs(&mut g, &mut |g| {
            multi::gemm(g, Op::N, Op::N, 1.0, &dfull, &db, 0.5, &mut dc)
        });
        let mut fg = fixed_group(&devs, &short(&need), grid);
        let e = multi::gemm(&mut fg, Op::N, Op::N, 1.0, &dfull, &db, 0.5, &mut dc);
        is_short(e, &need, &fg);
        assert_eq!(dc.to_host(&mut fg).unwrap(), c0, "{what}: gemm wrote C");
        let _ = fg
            .handle_mut(small)
            .set_device_memory_size(need[small])
            .unwrap();
        let st = multi::gemm(&mut fg, Op::N, Op::N, 1.0, &dfull, &db, 0.5, &mut dc).unwrap();
        assert_eq!(st, Status::Success, "{what}: gemm after the fix");
        let got = dc.to_host(&mut fg).unwrap();
        check_gemm(&what, (n, 4, n), (1.0, 0.5), &a, &b, &c0, &got);

        let need = needs(&mut g, &mut |g| {
            multi::potrf(g, uplo, &mut da).map(|f| f.status)
        });
        let mut fg = fixed_group(&devs, &short(&need), grid);
        let e = multi::potrf(&mut fg, uplo, &mut da).map(|f| f.status);
        is_short(e, &need, &fg);
        assert_eq!(
            bits(&da.to_host(&mut fg).unwrap()),
            bits(&input),
            "{what}: potrf wrote A"
        );
        let _ = fg
            .handle_mut(small)
            .set_device_memory_size(need[small])
            .unwrap();
        assert_eq!(multi::potrf(&mut fg, uplo, &mut da).unwrap().info, 0);
        check_cholesky(&what, &a, &da.to_host(&mut fg).unwrap(), n, uplo);

        let mut dx = DistMatrix::from_host(&mut g, n, 4, QNB, &b, n).unwrap();
        let need = needs(&mut g, &mut |g| multi::potrs(g, uplo, &da, &mut dx));
        let mut fg = fixed_group(&devs, &short(&need), grid);
        let e = multi::potrs(&mut fg, uplo, &da, &mut dx);
        is_short(e, &need, &fg);
        assert_eq!(dx.to_host(&mut fg).unwrap(), b, "{what}: potrs wrote B");
        let _ = fg
            .handle_mut(small)
            .set_device_memory_size(need[small])
            .unwrap();
        let st = multi::potrs(&mut fg, uplo, &da, &mut dx).unwrap();
        assert_eq!(st, Status::Success, "{what}");
        let ratio = solve_ratio(&a, &dx.to_host(&mut fg).unwrap(), &b, n, 4);
        assert!(ratio < 30.0, "{what}: potrs residual ratio {ratio}");
    }
}

/// SPEC F3: LAPACK's potrf, potrs, getrf and getrs return at once for n = 0 (info 0), also
/// during a size query.
fn f3_factorizations_of_order_zero(dev: &Device) {
    for grid in [(1, 1), (2, 2), (1, 3)] {
        let mut g = group(dev, grid);
        let mut da = DistMatrix::<f64>::zeros(&g, 0, 0, 4).unwrap();
        let f = multi::getrf(&mut g, &mut da, &mut []).unwrap();
        assert_eq!((f.status, f.info), (Status::Success, 0));
        let mut db = DistMatrix::<f64>::zeros(&g, 0, 3, 4).unwrap();
        assert_eq!(
            multi::getrs(&mut g, Op::N, &da, &[], &mut db).unwrap(),
            Status::Success
        );
        g.start_device_memory_size_query().unwrap();
        let f = multi::getrf(&mut g, &mut da, &mut []).unwrap();
        assert_eq!(f.status, Status::SizeUnchanged);
        let f = multi::potrf(&mut g, Uplo::Lower, &mut da).unwrap();
        assert_eq!(f.status, Status::SizeUnchanged);
        assert!(g
            .stop_device_memory_size_query()
            .unwrap()
            .iter()
            .all(|&b| b == 0));
        for uplo in UPLOS {
            let mut da = DistMatrix::<f64>::zeros(&g, 0, 0, 4).unwrap();
            let f = multi::potrf(&mut g, uplo, &mut da).unwrap();
            assert_eq!((f.status, f.info), (Status::Success, 0));
            let mut db = DistMatrix::<f64>::zeros(&g, 0, 3, 4).unwrap();
            assert_eq!(
                multi::potrs(&mut g, uplo, &da, &mut db).unwrap(),
                Status::Success
            );
        }
    }
}

/// SPEC M8 for a group: a size query active on some of its handles only (started on one
/// handle through `handle_mut`) must not make a routine skip that device's work and still
/// answer `Success`. Either the call refuses (`QueryMismatch`) or it computes the whole
/// product.
fn m8_query_on_one_handle_of_a_group_never_gives_a_wrong_answer(dev: &Device) {
    let mut g = group(dev, (1, 2));
    let x = randn(&mut rng(2), 36);
    let dx = DistMatrix::from_host(&mut g, 6, 6, 2, &x, 6).unwrap();
    let mut dc = DistMatrix::<f64>::zeros(&g, 6, 6, 2).unwrap();
    g.handle_mut(1).start_device_memory_size_query().unwrap();
    match multi::gemm(&mut g, Op::N, Op::N, 1.0, &dx, &dx, 0.0, &mut dc) {
        Err(Error::QueryMismatch(_)) => {}
        Ok(st) => {
            assert_eq!(st, Status::Success);
            let got = dc.to_host(&mut g).unwrap();
            let zero = vec![0.0; 36];
            check_gemm(
                "one handle querying",
                (6, 6, 6),
                (1.0, 0.0),
                &x,
                &x,
                &zero,
                &got,
            );
        }
        Err(e) => panic!("{e:?}"),
    }
}

/// A handle of one scheme on a device, given the bytes its group query asked for there.
type MakeHandle = dyn Fn(&Device, usize) -> gpublas::Handle;

/// SPEC M1–M5, M11 per device: the four schemes on every device of a group — `Managed`
/// (grows once), `UserManaged` and `UserOwned` sized at the group query's answer (never grow),
/// and stream-ordered allocation (the fronts are pool allocations) — factor and solve alike.
fn m1_every_scheme_per_device(dev: &Device) {
    let (grid, n, nb) = ((2, 2), 29, 4);
    let devs = devices(dev, 4);
    let a = spd(41, n);
    let b = randn(&mut rng(42), n * 3);
    let mut probe = group_of(&devs, grid);
    let mut da = DistMatrix::from_host(&mut probe, n, n, nb, &a, n).unwrap();
    let mut ipiv = vec![0i32; n];
    let need = needs(&mut probe, &mut |g| {
        let f = multi::potrf(g, Uplo::Lower, &mut da)?;
        let _ = multi::getrf(g, &mut da, &mut ipiv)?;
        Ok(f.status)
    });
    let schemes: [(&str, &MakeHandle); 4] = [
        ("Managed", &|d, _| fixed_handle(d, 0)),
        ("UserManaged", &|d, bytes| {
            fixed_handle(d, fixed_bytes(bytes))
        }),
        ("UserOwned", &|d, bytes| {
            let mut h = fixed_handle(d, 0);
            let buf = d.alloc::<u8>(fixed_bytes(bytes)).unwrap();
            let _ = h.set_workspace(Some(buf)).unwrap();
            h
        }),
        ("stream-ordered", &|d, _| {
            let mut h = fixed_handle(d, 0);
            if h.supports_stream_order_alloc() {
                h.set_stream_order_alloc(true).unwrap();
            }
            h
        }),
    ];
    for (name, make) in schemes {
        let handles = devs
            .iter()
            .zip(&need)
            .map(|(d, &bytes)| make(d, bytes))
            .collect();
        let mut g = DeviceGroup::from_handles(handles)
            .unwrap()
            .with_grid(Grid::new(grid.0, grid.1).unwrap())
            .unwrap();
        let input = tri_poisoned::<f64>(&a, n, Uplo::Lower);
        let mut da = DistMatrix::from_host(&mut g, n, n, nb, &input, n).unwrap();
        let f = multi::potrf(&mut g, Uplo::Lower, &mut da).unwrap();
        assert_eq!((f.status, f.info), (Status::Success, 0), "{name}: potrf");
        check_cholesky(name, &a, &da.to_host(&mut g).unwrap(), n, Uplo::Lower);
        let mut dx = DistMatrix::from_host(&mut g, n, 3, nb, &b, n).unwrap();
        let _ = multi::potrs(&mut g, Uplo::Lower, &da, &mut dx).unwrap();
        let ratio = solve_ratio(&a, &dx.to_host(&mut g).unwrap(), &b, n, 3);
        assert!(ratio < 30.0, "{name}: potrs residual ratio {ratio}");
        let mut dl = DistMatrix::from_host(&mut g, n, n, nb, &a, n).unwrap();
        let f = multi::getrf(&mut g, &mut dl, &mut ipiv).unwrap();
        assert_eq!((f.status, f.info), (Status::Success, 0), "{name}: getrf");
        assert!(
            lu_ratio(&a, &dl.to_host(&mut g).unwrap(), &ipiv, n, n) < 30.0,
            "{name}"
        );
        for r in 0..4 {
            let st = g.handle(r).workspace_stats();
            match name {
                // At most once per call (potrf, potrs, getrf), before it runs.
                "Managed" => assert!(st.growths <= 3, "{name}: device {r} grew {}", st.growths),
                "UserManaged" | "UserOwned" => assert_eq!(st.growths, 0, "{name}: device {r}"),
                _ => {
                    if g.handle(r).stream_order_alloc() {
                        assert!(st.stream_ordered_allocs > 0, "{name}: device {r}");
                    }
                }
            }
        }
    }
}

on_both_backends!(
    multi_grid_auto_and_group_construction,
    multi_host_round_trip_every_layout,
    multi_device_buffer_round_trip,
    f10_gemm_matches_reference_f64,
    f10_gemm_matches_reference_f32,
    f3_gemm_zero_dimensions_and_alpha_zero,
    f2_gemm_argument_errors_touch_nothing,
    f10_potrf_residual_f64,
    f10_potrf_residual_f32,
    f3_potrs_zero_right_hand_sides,
    multi_potrf_not_positive_definite_info,
    f10_potrs_residual_f64,
    f10_potrs_residual_f32,
    f2_potrf_potrs_argument_errors_touch_nothing,
    m7_group_query_mismatch,
    m8_group_query_answers_per_device_and_runs_nothing,
    m9_group_query_sizes_fixed_workspaces_exactly,
    m6_fixed_workspace_too_small_is_memory_error_and_writes_nothing,
    f3_factorizations_of_order_zero,
    m8_query_on_one_handle_of_a_group_never_gives_a_wrong_answer,
    f10_getrf_pivots_and_residual_f64,
    f10_getrf_pivots_and_residual_f32,
    multi_getrf_singular_info,
    f10_getrs_residual_f64,
    f10_getrs_residual_f32,
    m9_getrf_getrs_query_and_errors,
    multi_transports,
    m1_every_scheme_per_device,
);
