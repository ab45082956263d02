//! M13, F10: graph capture with device scalars.

use super::*;

/// One capture of gemm (`C1 = alpha A B`) then syrk (`C2 = alpha2 C1 C1ᵀ`, lower triangle),
/// scalars in device memory, on a workspace preallocated by a query; replayed 100 times with
/// bit-identical results. The host backend refuses capture.
fn m13_f10_capture_gemm_then_syrk_replayed_100_times(dev: &Device) {
    let mut h = fixed_handle(dev, 0);
    if dev.backend() == Backend::Host {
        assert!(matches!(
            h.stream().begin_capture(),
            Err(Error::Unsupported(_))
        ));
        return;
    }
    let (m, n, k) = (129usize, 64usize, 257usize);
    let mut r = Gen::new(131);
    let av: Vec<f32> = (0..m * k).map(|_| rnd(&mut r)).collect();
    let bv: Vec<f32> = (0..k * n).map(|_| rnd(&mut r)).collect();
    // beta = 0: C1 and the lower triangle of C2 start as NaN before every replay; the upper
    // triangle of C2 holds values that must survive.
    let c1_init = vec![f32::NAN; m * n];
    let mut c2_init: Vec<f32> = (0..m * m).map(|_| rnd(&mut r)).collect();
    for j in 0..m {
        for i in j..m {
            c2_init[i + j * m] = f32::NAN;
        }
    }
    let a = dev.upload(&av).unwrap();
    let b = dev.upload(&bv).unwrap();
    let mut c1 = dev.upload(&c1_init).unwrap();
    let mut c2 = dev.upload(&c2_init).unwrap();
    let al1 = dev.upload(&[0.75f32]).unwrap();
    let al2 = dev.upload(&[-0.5f32]).unwrap();
    let zero = dev.upload(&[0.0f32]).unwrap();
    let (a1, a2, z) = (Coef::Device(&al1), Coef::Device(&al2), Coef::Device(&zero));
    h.start_device_memory_size_query().unwrap();
    let _ = blas3::gemm(&mut h, ON, ON, m, n, k, a1, &a, m, &b, k, z, &mut c1, m).unwrap();
    let _ = blas3::syrk(&mut h, LO, ON, m, n, a2, &c1, m, z, &mut c2, m).unwrap();
    let need = h.stop_device_memory_size_query().unwrap();
    let _ = h.set_device_memory_size(need).unwrap();
    h.stream().begin_capture().unwrap();
    let s1 = blas3::gemm(&mut h, ON, ON, m, n, k, a1, &a, m, &b, k, z, &mut c1, m);
    let s2 = blas3::syrk(&mut h, LO, ON, m, n, a2, &c1, m, z, &mut c2, m);
    let graph = h.stream().end_capture();
    assert_eq!(s1.unwrap(), Status::Success);
    assert_eq!(s2.unwrap(), Status::Success);
    let graph = graph.unwrap();
    // Capturing ran nothing.
    assert!(c1.to_vec().unwrap().iter().all(|v| v.is_nan()));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let mut first: Option<(Vec<u32>, Vec<u32>)> = None;
    for rep in 0..100 {
        c1.copy_from_host(&c1_init).unwrap();
        c2.copy_from_host(&c2_init).unwrap();
        graph.launch().unwrap();
        h.synchronize().unwrap();
        let (g1, g2) = (c1.to_vec().unwrap(), c2.to_vec().unwrap());
        match &first {
            Some((f1, f2)) => {
                assert!(bits(&g1) == *f1, "replay {rep}: C1 differs from replay 0");
                assert!(bits(&g2) == *f2, "replay {rep}: C2 differs from replay 0");
            }
            None => {
                let eps = f32::EPSILON as f64;
                for j in 0..n {
                    for i in 0..m {
                        let (mut s, mut sc) = (0.0, 0.0);
                        for l in 0..k {
                            let p = av[i + l * m] as f64 * bv[l + j * k] as f64;
                            s += p;
                            sc += p.abs();
                        }
                        let tol = 4.0 * (k as f64 + 2.0) * eps * 0.75 * sc;
                        let g = g1[i + j * m] as f64;
                        assert!(
                            (g - 0.75 * s).abs() <= tol,
                            "C1 ({i}, {j}): {g} vs {}",
                            0.75 * s
                        );
                    }
                }
                for j in 0..m {
                    for i in 0..m {
                        let p = i + j * m;
                        if i < j {
                            assert_eq!(g2[p].to_bits(), c2_init[p].to_bits(), "C2 ({i}, {j})");
                            continue;
                        }
                        let (mut s, mut sc) = (0.0, 0.0);
                        for l in 0..n {
                            let x = g1[i + l * m] as f64 * g1[j + l * m] as f64;
                            s += x;
                            sc += x.abs();
                        }
                        let tol = 4.0 * (n as f64 + 2.0) * eps * 0.5 * sc;
                        let g = g2[p] as f64;
                        assert!(
                            (g + 0.5 * s).abs() <= tol,
                            "C2 ({i}, {j}): {g} vs {}",
                            -0.5 * s
                        );
                    }
                }
                first = Some((bits(&g1), bits(&g2)));
            }
        }
    }
}

crate::on_both_backends!(m13_f10_capture_gemm_then_syrk_replayed_100_times,);
