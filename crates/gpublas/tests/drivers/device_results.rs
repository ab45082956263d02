//! F6: `info` in device memory and in host memory.

use super::*;

/// The same calls (the same data: one generator state for both) with `info` routed to host
/// memory and to device memory: both right, and the same `info`, pivots and bits.
fn f6_device_and_host_info_agree(dev: &Device) {
    let mut h = handle(dev);
    let mut r = Gen::new(2001);
    let mut items = vec![];
    for (n, form) in [
        (33, Form::Single),
        (65, Form::Strided(4)),
        (129, Form::List(3)),
        (200, Form::Single),
    ] {
        for rt in [
            Rt::Gesv,
            Rt::Posv(Uplo::Upper),
            Rt::Posv(Uplo::Lower),
            Rt::Getri,
        ] {
            items.push((n, form, rt));
        }
    }
    each(items, |(n, form, rt)| {
        let fills = match rt {
            Rt::Posv(_) => [Fill::Hpd, Fill::NotPd(n / 2 + 1, -1.0), Fill::Gram],
            _ => [Fill::Dominant, Fill::ZeroCol(n / 3, None), Fill::Random],
        };
        let mut seen: Vec<(Vec<i32>, Vec<Vec<u8>>, Option<Vec<i32>>)> = vec![];
        for loc in [Loc::Host, Loc::Device] {
            let mut c = DCase::new(rt, n, 5).with(form, 1, 2);
            c.gap = 3;
            c.pgap = 2;
            c.info = loc;
            let mut p = prepare::<Complex64>(dev, &mut r.clone(), c, &fills);
            run_checked(&mut h, &mut p);
            let mut bufs = p.a.after();
            if let Some(b) = &p.b {
                bufs.extend(b.after());
            }
            let bytes = bufs
                .iter()
                .map(|v| bytemuck::cast_slice::<Complex64, u8>(v).to_vec())
                .collect();
            seen.push((p.info.now(), bytes, p.piv.as_ref().map(|x| x.now())));
        }
        assert!(
            seen[0] == seen[1],
            "{} {rt:?} n = {n} {form:?}: results differ by where info goes",
            Complex64::NAME
        );
        r.next();
    });
}

crate::on_both_backends!(f6_device_and_host_info_agree,);
