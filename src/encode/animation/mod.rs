//! Animated images (GIF, APNG, animated WebP) to a texture array of their
//! frames and a `.hatlas` table of the frames' times.

pub mod frames;

#[cfg(test)]
mod tests;
