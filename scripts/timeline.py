#!/usr/bin/env python3
"""Summarises GPUBLAS_TIMELINE output (the `TL` lines a program prints on stderr).

    GPUBLAS_TIMELINE=1 gpublas bench solver --only getrf:n=8192 2> tl.err
    python3 scripts/timeline.py tl.err [-v]

For the last call of each program (by name and step count): every lane's busy time and time
per step kind; for programs with a side lane, its runs of steps (the look-ahead's panels):
their spans, the leaf kernels' share, and the main lane's gaps between them with the steps
that fill each gap (`-v`: every panel, else the first 8). Events around every step slow the
program (5-10 % for getrf): read the shape, not the total.
"""
import collections
import gzip
import sys


def read(path):
    op = gzip.open if path.endswith('.gz') else open
    blocks, cur = [], None
    for line in op(path, 'rt', errors='replace'):
        if line.startswith('TL begin'):
            f = line.split()
            cur = {'name': f[2], 'steps': int(f[3].split('=')[1]),
                   'total': float(f[4].split('=')[1]), 'ev': []}
        elif line.startswith('TL end') and cur is not None:
            blocks.append(cur)
            cur = None
        elif line.startswith('TL ') and cur is not None:
            _, lane, kind, b, e = line.split()
            cur['ev'].append((lane, kind, float(b), float(e)))
    return blocks


def union(iv):
    tot, cs, ce = 0.0, None, None
    for b, e in sorted(iv):
        if ce is None or b > ce:
            if cs is not None:
                tot += ce - cs
            cs, ce = b, e
        else:
            ce = max(ce, e)
    return tot + (ce - cs if cs is not None else 0.0)


def summarise(bl, verbose):
    ev = bl['ev']
    print(f"== {bl['name']} steps={bl['steps']} total={bl['total'] / 1e3:.3f} ms")
    for lane in 'MSA':
        xs = [x for x in ev if x[0] == lane]
        if not xs:
            continue
        kinds = collections.defaultdict(lambda: [0.0, 0])
        for _, k, b, e in xs:
            kk = kinds[k.split(':')[0]]
            kk[0] += e - b
            kk[1] += 1
        parts = ', '.join(f"{k} {v[0] / 1e3:.2f} ms/{v[1]}"
                          for k, v in sorted(kinds.items(), key=lambda kv: -kv[1][0]))
        busy = union([(b, e) for _, _, b, e in xs])
        print(f"  lane {lane}: {len(xs)} steps, busy {busy / 1e3:.3f} ms; {parts}")
    panels, run = [], []
    for x in ev:
        if x[0] == 'S':
            run.append(x)
        elif x[0] == 'M' and run:
            panels.append(run)
            run = []
    if run:
        panels.append(run)
    if not panels:
        return
    span = sum(p[-1][3] - p[0][2] for p in panels)
    leaves = sum(e - b for p in panels for (_, k, b, e) in p if k.startswith('Lu'))
    gaps = [panels[i + 1][0][2] - panels[i][-1][3] for i in range(len(panels) - 1)]
    print(f"  side runs {len(panels)}: spans {span / 1e3:.3f} ms (leaf kernels {leaves / 1e3:.3f}); "
          f"before the first {panels[0][0][2] / 1e3:.3f} ms; between them {sum(gaps) / 1e3:.3f} ms")
    for i, p in enumerate(panels if verbose else panels[:8]):
        nxt = panels[i + 1][0][2] if i + 1 < len(panels) else bl['total']
        fill = [x for x in ev if x[0] == 'M' and p[-1][3] <= x[2] < nxt]
        lu = sum(e - b for (_, k, b, e) in p if k.startswith('Lu'))
        steps = ' '.join(f"{k}={e - b:.0f}" for _, k, b, e in fill)
        print(f"   run {i}: span {p[-1][3] - p[0][2]:.0f} µs, leaves {lu:.0f}, {len(p)} steps | "
              f"gap {nxt - p[-1][3]:.0f} µs: {steps}")


def main():
    args = [a for a in sys.argv[1:] if a != '-v']
    last = {}
    for b in read(args[0]):
        last[(b['name'], b['steps'])] = b
    for b in last.values():
        summarise(b, '-v' in sys.argv)


if __name__ == '__main__':
    main()
