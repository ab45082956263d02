//! The 2-D block-cyclic layout (ScaLAPACK's): which device holds which tile, and where.

use crate::Error;

/// A `rows × cols` grid of devices; device `r` of a group sits at grid row `r % rows`, grid
/// column `r / rows` (column-major, as ScaLAPACK's default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Grid rows (`p`).
    pub rows: usize,
    /// Grid columns (`q`).
    pub cols: usize,
}

impl Grid {
    /// A `rows × cols` grid; `InvalidSize` for an empty one.
    pub fn new(rows: usize, cols: usize) -> Result<Grid, Error> {
        if rows == 0 || cols == 0 {
            return Err(Error::InvalidSize(format!(
                "a {rows} x {cols} device grid has no devices"
            )));
        }
        Ok(Grid { rows, cols })
    }

    /// The default grid of `devices` devices: the most square `p × q` with `p ≤ q` (a
    /// factorization's panels then cross the fewer grid rows).
    ///
    /// ```
    /// use gpublas::multi::Grid;
    /// assert_eq!(Grid::auto(4), Grid { rows: 2, cols: 2 });
    /// assert_eq!(Grid::auto(6), Grid { rows: 2, cols: 3 });
    /// assert_eq!(Grid::auto(3), Grid { rows: 1, cols: 3 });
    /// ```
    pub fn auto(devices: usize) -> Grid {
        let n = devices.max(1);
        let rows = (1..=n)
            .filter(|p| n % p == 0 && p * p <= n)
            .max()
            .unwrap_or(1);
        Grid {
            rows,
            cols: n / rows,
        }
    }

    /// Number of devices.
    pub fn size(&self) -> usize {
        self.rows * self.cols
    }

    /// Grid coordinates (row, column) of device `r`.
    pub fn coords(&self, r: usize) -> (usize, usize) {
        (r % self.rows, r / self.rows)
    }

    /// The device at grid row `pr`, column `pc`.
    pub fn device_at(&self, pr: usize, pc: usize) -> usize {
        pr + pc * self.rows
    }
}

/// An `m × n` matrix in square `nb × nb` tiles dealt cyclically over a grid: tile `(i, j)`
/// lives on the device at grid position `(i mod p, j mod q)`, which keeps its tiles in one
/// column-major local matrix (tiles in global order; only the last tile row and column may be
/// partial).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Rows of the matrix.
    pub m: usize,
    /// Columns of the matrix.
    pub n: usize,
    /// Tile size.
    pub nb: usize,
    /// The device grid.
    pub grid: Grid,
}

/// Tiles among the first `count` of a dimension that land on grid index `g` of `p`.
fn tiles_before(count: usize, g: usize, p: usize) -> usize {
    if count <= g {
        0
    } else {
        (count - g).div_ceil(p)
    }
}

impl Layout {
    /// A layout; `InvalidSize` for a zero tile size.
    pub fn new(m: usize, n: usize, nb: usize, grid: Grid) -> Result<Layout, Error> {
        if nb == 0 {
            return Err(Error::InvalidSize("a tile size of 0".into()));
        }
        Ok(Layout { m, n, nb, grid })
    }

    /// The default tile size for order `n` on `grid`: 512 (a GPU's products are at full speed
    /// there), smaller when that would leave a device without a tile.
    pub fn auto_tile(n: usize, grid: Grid) -> usize {
        let per = n.div_ceil(grid.rows.max(grid.cols)).max(1);
        per.next_power_of_two().clamp(32, 512)
    }

    /// Tile rows.
    pub fn tile_rows(&self) -> usize {
        self.m.div_ceil(self.nb)
    }

    /// Tile columns.
    pub fn tile_cols(&self) -> usize {
        self.n.div_ceil(self.nb)
    }

    /// Rows of tile row `i`.
    pub fn tile_height(&self, i: usize) -> usize {
        self.nb.min(self.m - i * self.nb)
    }

    /// Columns of tile column `j`.
    pub fn tile_width(&self, j: usize) -> usize {
        self.nb.min(self.n - j * self.nb)
    }

    /// The device holding tile `(i, j)`.
    pub fn owner(&self, i: usize, j: usize) -> usize {
        self.grid.device_at(i % self.grid.rows, j % self.grid.cols)
    }

    /// Local rows held by the devices of grid row `pr`.
    pub fn local_rows_of_row(&self, pr: usize) -> usize {
        self.local_len(self.m, pr, self.grid.rows)
    }

    /// Local columns held by the devices of grid column `pc`.
    pub fn local_cols_of_col(&self, pc: usize) -> usize {
        self.local_len(self.n, pc, self.grid.cols)
    }

    /// Local rows and columns of device `r`.
    pub fn local_shape(&self, r: usize) -> (usize, usize) {
        let (pr, pc) = self.grid.coords(r);
        (self.local_rows_of_row(pr), self.local_cols_of_col(pc))
    }

    /// Leading dimension of device `r`'s local matrix.
    pub fn local_ld(&self, r: usize) -> usize {
        self.local_shape(r).0.max(1)
    }

    /// ScaLAPACK's `numroc`: elements of a dimension of `len` on grid index `g` of `p`.
    fn local_len(&self, len: usize, g: usize, p: usize) -> usize {
        let tiles = len.div_ceil(self.nb);
        let mine = tiles_before(tiles, g, p);
        if mine == 0 {
            return 0;
        }
        // Every tile but the dimension's last is full; the last is here when it lands on `g`.
        let last = tiles - 1;
        if last % p == g {
            (mine - 1) * self.nb + (len - last * self.nb)
        } else {
            mine * self.nb
        }
    }

    /// The local row (in its grid row's devices) where global tile row `i` starts; for `i`
    /// past the last local tile row, the local row count.
    pub fn local_row_of_tile(&self, i: usize, pr: usize) -> usize {
        (tiles_before(i, pr, self.grid.rows) * self.nb).min(self.local_rows_of_row(pr))
    }

    /// The local column where global tile column `j` starts on grid column `pc` (as
    /// `local_row_of_tile`).
    pub fn local_col_of_tile(&self, j: usize, pc: usize) -> usize {
        (tiles_before(j, pc, self.grid.cols) * self.nb).min(self.local_cols_of_col(pc))
    }

    /// Where global element `(g_row, g_col)` lives: the device and its local row and column.
    pub fn locate(&self, g_row: usize, g_col: usize) -> (usize, usize, usize) {
        let (i, j) = (g_row / self.nb, g_col / self.nb);
        let (p, q) = (self.grid.rows, self.grid.cols);
        (
            self.owner(i, j),
            (i / p) * self.nb + g_row % self.nb,
            (j / q) * self.nb + g_col % self.nb,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_sizes_add_up_and_locate_is_consistent() {
        for (m, nb, p) in [
            (10, 3, 2),
            (9, 3, 2),
            (1, 4, 3),
            (0, 4, 2),
            (17, 4, 3),
            (12, 4, 3),
        ] {
            let grid = Grid::new(p, 1).unwrap();
            let l = Layout::new(m, 1, nb, grid).unwrap();
            let sum: usize = (0..p).map(|pr| l.local_rows_of_row(pr)).sum();
            assert_eq!(sum, m, "m {m} nb {nb} p {p}");
            let mut seen = vec![0usize; p];
            for g in 0..m {
                let (dev, lr, _) = l.locate(g, 0);
                assert_eq!(lr, seen[dev], "rows land in order");
                seen[dev] += 1;
                assert_eq!(l.local_row_of_tile(g / nb, dev) + g % nb, lr);
            }
        }
    }
}
