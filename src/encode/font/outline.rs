//! A glyph outline as an `fdsm` shape, in the texel space of its atlas cell.
//!
//! ttf-parser walks an outline through the [`OutlineBuilder`] callbacks in
//! font units, y up. [`CellShape`] scales every point to texels and moves it
//! so the cell's bottom-left corner is the origin; the cell is the outline's
//! bounding box grown by the spread on every side and snapped outwards to
//! whole texels ([`Cell`]). Zero-length segments are dropped (they carry no
//! direction and only add work), and every contour is closed.

use fdsm::bezier::{Point, Segment};
use fdsm::shape::{Contour, Shape};
use ttf_parser::{OutlineBuilder, Rect};

/// Where a glyph's distance field sits relative to its pen position, in
/// whole atlas texels, y up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Left edge, texels right of the pen.
    pub left: i32,
    /// Bottom edge, texels above the baseline.
    pub bottom: i32,
    /// Width in texels.
    pub width: u32,
    /// Height in texels.
    pub height: u32,
}

impl Cell {
    /// The cell of an outline with bounding box `bounds` (font units), at
    /// `scale` texels per font unit, grown by `spread` texels on each side.
    pub fn around(bounds: Rect, scale: f64, spread: u32) -> Self {
        let spread = f64::from(spread);
        let left = (f64::from(bounds.x_min) * scale - spread).floor();
        let bottom = (f64::from(bounds.y_min) * scale - spread).floor();
        let right = (f64::from(bounds.x_max) * scale + spread).ceil();
        let top = (f64::from(bounds.y_max) * scale + spread).ceil();
        Self {
            left: left as i32,
            bottom: bottom as i32,
            width: (right - left) as u32,
            height: (top - bottom) as u32,
        }
    }
}

/// Collects an outline as an `fdsm` shape in cell texel coordinates.
pub struct CellShape {
    scale: f64,
    origin: (f64, f64),
    shape: Shape<Contour>,
    contour: Vec<Segment>,
    start: Point,
    last: Point,
}

impl CellShape {
    /// A builder for points at `scale` texels per font unit, relative to
    /// `cell`'s bottom-left corner.
    pub fn new(scale: f64, cell: &Cell) -> Self {
        Self {
            scale,
            origin: (f64::from(cell.left), f64::from(cell.bottom)),
            shape: Shape::default(),
            contour: Vec::new(),
            start: Point::origin(),
            last: Point::origin(),
        }
    }

    /// The finished shape (an open last contour is closed).
    pub fn finish(mut self) -> Shape<Contour> {
        self.close_contour();
        self.shape
    }

    fn point(&self, x: f32, y: f32) -> Point {
        Point::new(
            f64::from(x) * self.scale - self.origin.0,
            f64::from(y) * self.scale - self.origin.1,
        )
    }

    /// Adds a line back to the contour's start if needed and stores the
    /// contour, unless it is empty.
    fn close_contour(&mut self) {
        if self.contour.is_empty() {
            return;
        }
        if self.last != self.start {
            self.contour.push(Segment::line(self.last, self.start));
        }
        self.last = self.start;
        let segments = std::mem::take(&mut self.contour);
        self.shape.contours.push(Contour { segments });
    }

    /// Appends `segment` ending at `end` unless every point is the same.
    fn push(&mut self, points: &[Point], segment: Segment) {
        if points.iter().any(|&p| p != self.last) {
            self.contour.push(segment);
        }
        if let Some(&end) = points.last() {
            self.last = end;
        }
    }
}

impl OutlineBuilder for CellShape {
    fn move_to(&mut self, x: f32, y: f32) {
        self.close_contour();
        self.start = self.point(x, y);
        self.last = self.start;
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let end = self.point(x, y);
        self.push(&[end], Segment::line(self.last, end));
    }

    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        let (control, end) = (self.point(x1, y1), self.point(x, y));
        self.push(&[control, end], Segment::quad(self.last, control, end));
    }

    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        let points = [self.point(x1, y1), self.point(x2, y2), self.point(x, y)];
        let segment = Segment::cubic(self.last, points[0], points[1], points[2]);
        self.push(&points, segment);
    }

    fn close(&mut self) {
        self.close_contour();
    }
}

/// Discards an outline; used to learn a glyph's bounding box.
pub struct Bounds;

impl OutlineBuilder for Bounds {
    fn move_to(&mut self, _: f32, _: f32) {}
    fn line_to(&mut self, _: f32, _: f32) {}
    fn quad_to(&mut self, _: f32, _: f32, _: f32, _: f32) {}
    fn curve_to(&mut self, _: f32, _: f32, _: f32, _: f32, _: f32, _: f32) {}
    fn close(&mut self) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cell_grows_by_the_spread_and_snaps_outwards() {
        let bounds = Rect {
            x_min: 10,
            y_min: -5,
            x_max: 100,
            y_max: 200,
        };
        let cell = Cell::around(bounds, 0.1, 2);
        // 1.0 - 2 = -1; -0.5 - 2 -> -3; 10 + 2 = 12; 20 + 2 = 22.
        assert_eq!(
            cell,
            Cell {
                left: -1,
                bottom: -3,
                width: 13,
                height: 25
            }
        );
    }

    #[test]
    fn contours_are_closed_and_points_moved_into_the_cell() {
        let cell = Cell {
            left: -2,
            bottom: -2,
            width: 14,
            height: 14,
        };
        let mut builder = CellShape::new(1.0, &cell);
        builder.move_to(0.0, 0.0);
        builder.line_to(10.0, 0.0);
        builder.line_to(10.0, 0.0); // zero length: dropped
        builder.quad_to(10.0, 10.0, 0.0, 10.0);
        builder.close();
        builder.move_to(3.0, 3.0); // an empty contour is not stored
        let shape = builder.finish();
        assert_eq!(shape.contours.len(), 1);
        let segments = &shape.contours[0].segments;
        assert_eq!(segments.len(), 3);
        assert_eq!(segments[0].start(), Point::new(2.0, 2.0));
        assert_eq!(segments[2].end(), Point::new(2.0, 2.0));
    }
}
